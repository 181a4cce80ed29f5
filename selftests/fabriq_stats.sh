#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# fabriq_stats.sh - congestion telemetry end to end:
#   - the counter catalogue per source: Soft-RoCE's rdma_hw_stats, the
#     simulated HCA's RoCE counters and ethtool pause statistics, and its
#     InfiniBand PMA counters; absent counters are absent, not 0;
#   - counters track real traffic: after a ring allreduce bench on four
#     rxe ranks the sampled packet counters equal `rdma statistic` and
#     fabriq's own bytes are exactly what the ring sends; histograms,
#     per-peer bytes and the slow-peer knob (fabriq_stats_coll);
#   - every injection on fabriq_sim raises the right event with the right
#     subject on the netlink events group (fabriq monitor) and in debugfs,
#     and a cleared event follows when it stops;
#   - `stats show --prometheus` passes a strict exposition-format parser;
#   - bad config values are refused and change nothing, an unprivileged
#     user cannot set config or join events but can read stats;
#   - devices removed while sampled every millisecond.
. "$(dirname "$0")/lib.sh"
here=$(cd "$(dirname "$0")" && pwd)

ktap_plan 53
fq_require jq python3 sysctl
fq_load_fabriq || ktap_bail "cannot load fabriq"
fq_insmod fabriq_sim || ktap_bail "cannot load fabriq_sim"
SIM=/sys/kernel/debug/fabriq_sim
tmp=$(mktemp -d)
mon=
cleanup() {
	[ -n "$mon" ] && kill "$mon" 2>/dev/null
	fq stats config set interval 100 samples 64 events-per-sec 20 \
		detector pfc-storm threshold 20 window 2000 limit 10000 \
		detector vl-congestion threshold 100000 window 1000 \
		detector ecn-anomaly window 1000 detector error-rate window 60000 \
		detector latency threshold 5000 window 300000 >/dev/null 2>&1
	fq_sim_del 91 2>/dev/null; fq_sim_del 92 2>/dev/null; fq_sim_del 93 2>/dev/null
	rm -rf "$tmp"
}
trap cleanup EXIT
fq_sim_new "91 1 eth"
fq_sim_new "92 1 ib"
ip link set fqsim91p1 up
fq_ranks_up 4 || ktap_bail "cannot set up 4 local ranks"

# ---- configuration ----
defaults=$(fq stats config show)
check_match "defaults: 100 ms, 64 samples, operator thresholds" \
	"interval 100 samples 64 .*detector error-rate enabled on threshold 100 window 60000.*detector latency enabled on threshold 5000 window 300000" \
	"$(echo $defaults)"
fq stats config set samples 32 detector pfc-storm window 500 \
	detector vl-congestion threshold 1000 window 300 detector ecn-anomaly window 300 \
	detector error-rate window 1000
check_match "config set round-trips (read-modify-write)" \
	"samples 32 .*detector pfc-storm enabled on threshold 20 window 500 limit 10000.*detector vl-congestion enabled on threshold 1000 window 300" \
	"$(echo $(fq stats config show))"
# the configuration alone: the detectors' event counts ("# raised N cleared
# N", the suppressed line) move by themselves meanwhile (in CI a detector
# cleared an error-rate event between the two reads)
config_only() { fq stats config show | sed 's/ *# raised .*//; /^# events suppressed/d'; }
snap=$(config_only)
check_match "bad interval: the value and the range" "interval '70000' is not valid \(valid: 0-60000\)" \
	"$(fq stats config set interval 70000 2>&1)"
check_match "bad threshold: the detector's own range" "threshold '101' is not valid \(valid: 0-100\)" \
	"$(fq stats config set detector pfc-storm threshold 101 2>&1)"
check_match "unknown detector: the valid names" "detector 'pfc' is not valid \(valid: slow-peer, link-degraded" \
	"$(fq stats config set detector pfc window 1 2>&1)"
check_eq "nothing changed after the refusals" "$snap" "$(config_only)"
wait_for 5 grep -q "samples [0-9]*/32" "$FQ_DBG/devices/fqr0/port1/telemetry/counters"
check_match "the ring follows the new size" "samples [0-9]+/32" \
	"$(head -1 "$FQ_DBG/devices/fqr0/port1/telemetry/counters")"

# ---- the catalogue: what each source has ----
c_rxe=$(cat "$FQ_DBG/devices/fqr0/port1/telemetry/counters")
check_match "rxe: packets and sequence errors from rdma_hw_stats" \
	"tx_pkts +[0-9]+.*seq_err +[0-9]+.*link_downed +[0-9]" "$(echo $c_rxe)"
check_match "rxe: no CNP/ECN/pause counters, shown absent" \
	"cnp_sent +- .*ecn_marked +- .*tx_pause +- " "$(echo $c_rxe)"
c_eth=$(cat "$FQ_DBG/devices/fqsim91/port1/telemetry/counters")
check_match "sim RoCE: CNP/ECN from rdma_hw_stats, pause from ethtool" \
	"cnp_sent +0 .*ecn_marked +0 .*tx_pause +0 .*tx_pause_duration +0" "$(echo $c_eth)"
c_ib=$(cat "$FQ_DBG/devices/fqsim92/port1/telemetry/counters")
check_match "sim IB: PMA PortCounters(Extended), no pause" \
	"tx_bytes +0 .*symbol_errors +0 .*xmit_wait +0 .*tx_pause +- " "$(echo $c_ib)"

# ---- counters track real traffic ----
own() { fq -j stats show dev fqr0 port 1 | jq -r ".ports[0].counters.$1"; }
tx0=$(own own_tx_bytes)
fq bench allreduce --ranks 4 --algo ring -b 64K -e 64K -w 1 -n 5 -c 1 --port 19600 >"$tmp/bench" 2>&1
check_match "bench: 4 rxe ranks, ring, 0 wrong" "Out of bounds values : 0 OK" "$(cat "$tmp/bench")"
sleep 0.5
# out-of-place and in-place: (1 warmup + 5 + 1 check) calls each, 2(n-1)/n * 64 KiB per call
check_eq "fabriq's own tx bytes on the port: exactly the ring's" $((14 * 3 * 65536 / 2)) \
	$(($(own own_tx_bytes) - tx0))
rs=$(rdma -j statistic show link fqr0/1)
sent=$(echo "$rs" | jq -r '.[0].sent_pkts')
rcvd=$(echo "$rs" | jq -r '.[0].rcvd_pkts')
fs=$(fq -j stats show dev fqr0 port 1)
stx=$(echo "$fs" | jq -r '.ports[0].counters.tx_pkts')
srx=$(echo "$fs" | jq -r '.ports[0].counters.rx_pkts')
ktap_diag "rdma statistic: sent $sent rcvd $rcvd; fabriq: tx $stx rx $srx"
check_true "sampled tx/rx packets agree with rdma statistic within 1 %" \
	awk -v a="$sent" -v b="$stx" -v c="$rcvd" -v d="$srx" \
	'BEGIN { exit !(a > 0 && (a - b) / a < 0.01 && (b - a) / a < 0.01 && (c - d) / c < 0.01 && (d - c) / c < 0.01) }'
check_match "rates: packets per second over the last interval" "^tx_pkts +[0-9]+$" \
	"$(grep ^tx_pkts "$FQ_DBG/devices/fqr0/port1/telemetry/rates")"
out=$("$here/fabriq_stats_coll" 2>&1)
printf '%s\n' "$out" | grep -E '^(not ok|#)' | sed 's/^/#   /'
check_eq "histograms, per-peer bytes and the slow-peer knob: $(printf '%s\n' "$out" | grep -c '^ok') passed" \
	0 "$(printf '%s\n' "$out" | grep -c '^not ok')"

# ---- injections -> events (netlink group and debugfs) ----
fq -j monitor >"$tmp/mon" 2>&1 &
mon=$!
sleep 0.5
ev() { grep '"event":"detector"' "$tmp/mon" | jq -c "select($1)" 2>/dev/null | head -1; }
got() { [ -n "$(ev "$1")" ]; }

# a detector's counts (CONFIG_GET), as stats config show and the metrics have them
det_count() { fq -j stats config show | jq -r ".detectors[] | select(.detector==\"$1\") | .$2"; }
raised0=$(det_count pfc-storm raised) cleared0=$(det_count pfc-storm cleared)
echo "tx_pause_duration prio 3 500000" > $SIM/fqsim91/port1/rate
wait_for 10 got '.detector=="pfc-storm" and .state=="raised"'
check_match "PFC storm: raised on fqsim91 port 1 priority 3, critical, above its threshold (the value, about 50 %, depends on when rtnl lets the sampler read ethtool)" \
	'"detector":"pfc-storm","state":"raised","severity":"critical","dev":"fqsim91","port":1,"priority":3,"value":(2[1-9]|[3-9][0-9]|[1-9][0-9][0-9]+),"threshold":20,"window_ms":500' \
	"$(ev '.detector=="pfc-storm" and .state=="raised"')"
ktap_diag "PFC storm value: $(ev '.detector=="pfc-storm" and .state=="raised"' | jq -r .value 2>&1) % (injected: 50 %)"
check_match "pause file: priority 3 tx_pause_duration rising" "^ +3 +0 +0 +0 +[1-9][0-9]* " \
	"$(cat "$FQ_DBG/devices/fqsim91/port1/telemetry/pause")"
check_match "stats show: prio 3 tx pause duration" "^[1-9][0-9]*$" \
	"$(fq -j stats show dev fqsim91 | jq -r '.ports[0].prio[3].tx_pause_duration')"
echo "tx_pause_duration prio 3 0" > $SIM/fqsim91/port1/rate
wait_for 10 got '.detector=="pfc-storm" and .state=="cleared"'
check_match "PFC storm: cleared when the pause stops" '"state":"cleared","severity":"info","dev":"fqsim91","port":1,"priority":3' \
	"$(ev '.detector=="pfc-storm" and .state=="cleared"')"
check_match "debugfs port events: raised and cleared" "pfc-storm .*raised .*prio 3.*pfc-storm .*cleared .*prio 3" \
	"$(echo $(cat "$FQ_DBG/devices/fqsim91/port1/telemetry/events"))"
check_eq "stats config show counts the PFC storm: raised and cleared once more" \
	"$((raised0 + 1)) $((cleared0 + 1))" "$(det_count pfc-storm raised) $(det_count pfc-storm cleared)"
check_match "... and so do the metrics (fabriq_detector_raised_total, _cleared_total)" \
	"^fabriq_detector_raised_total\\{detector=\"pfc-storm\"\\} $((raised0 + 1)) fabriq_detector_cleared_total\\{detector=\"pfc-storm\"\\} $((cleared0 + 1))$" \
	"$(fq stats show --prometheus | grep 'detector="pfc-storm"' | grep -v enabled | tr '\n' ' ' | sed 's/ $//')"

# 500000 ticks/s * 4 ns = 0.2 % = 2000 ppm of every interval, above 1000 ppm
echo "xmit_wait vl 2 500000" > $SIM/fqsim92/port1/rate
wait_for 10 got '.detector=="vl-congestion" and .state=="raised"'
check_match "VL congestion: raised on fqsim92 VL 2" \
	'"detector":"vl-congestion","state":"raised","severity":"warning","dev":"fqsim92","port":1,"vl":2,"value":[0-9]+,"threshold":1000' \
	"$(ev '.detector=="vl-congestion" and .state=="raised"')"
sleep 1
check_true "per-VL XmitWait counts past its 16-bit counter (cleared by PMA Set)" \
	awk -v v="$(awk '$1 == 2 { print $2 }' "$FQ_DBG/devices/fqsim92/port1/telemetry/vl")" 'BEGIN { exit !(v > 65535) }'
echo "xmit_wait vl 2 0" > $SIM/fqsim92/port1/rate
wait_for 10 got '.detector=="vl-congestion" and .state=="cleared"'
check_match "VL congestion: cleared" '"state":"cleared".*"vl":2' \
	"$(ev '.detector=="vl-congestion" and .state=="cleared"')"

echo "np_ecn_marked_roce_packets 100" > $SIM/fqsim91/port1/rate
echo "np_cnp_sent 100" > $SIM/fqsim91/port1/rate
sleep 1.5
check_eq "ECN marks answered by CNPs: no anomaly" "" "$(ev '.detector=="ecn-anomaly"')"
echo "np_cnp_sent 0" > $SIM/fqsim91/port1/rate
wait_for 10 got '.detector=="ecn-anomaly" and .state=="raised"'
check_match "ECN marks without CNPs: ECN anomaly on fqsim91" \
	'"detector":"ecn-anomaly","state":"raised","severity":"warning","dev":"fqsim91","port":1' \
	"$(ev '.detector=="ecn-anomaly" and .state=="raised"')"
echo "np_ecn_marked_roce_packets 0" > $SIM/fqsim91/port1/rate
wait_for 10 got '.detector=="ecn-anomaly" and .state=="cleared"'
check_match "ECN anomaly: cleared" '"state":"cleared".*"dev":"fqsim91"' \
	"$(ev '.detector=="ecn-anomaly" and .state=="cleared"')"

echo "width 1X" > $SIM/fqsim92/port1/link
wait_for 10 got '.detector=="link-degraded" and .state=="raised"'
check_match "degraded width: link degraded on fqsim92 at 1X EDR" \
	'"detector":"link-degraded","state":"raised","severity":"critical","dev":"fqsim92","port":1,"value":25000' \
	"$(ev '.detector=="link-degraded" and .state=="raised"')"
echo "width 4X" > $SIM/fqsim92/port1/link
wait_for 10 got '.detector=="link-degraded" and .state=="cleared"'
check_match "link degraded: cleared at 4X" '"state":"cleared".*"value":100000' \
	"$(ev '.detector=="link-degraded" and .state=="cleared"')"

echo "symbol_error 5" > $SIM/fqsim92/port1/inject
wait_for 10 got '.detector=="error-rate" and .state=="raised"'
check_match "symbol errors: error rate on fqsim92 (no packets: 10^6 ppm)" \
	'"detector":"error-rate","state":"raised","severity":"warning","dev":"fqsim92","port":1,"value":1000000,"threshold":100' \
	"$(ev '.detector=="error-rate" and .state=="raised"')"
wait_for 10 got '.detector=="error-rate" and .state=="cleared"'
check_match "error rate: cleared once the window holds no errors" '"state":"cleared".*"dev":"fqsim92"' \
	"$(ev '.detector=="error-rate" and .state=="cleared"')"

# latency: fabriq's own completion times on rxe under TCG are far above 1 us.
# Fresh devices: the earlier tests' traffic may have raised it already.
for i in 0 1; do rdma link del fqr$i && rdma link add fqr$i type rxe netdev fqr$i; done
fq stats config set detector latency threshold 1000 window 0
fq bench allreduce --ranks 2 -b 64K -e 64K -n 20 -w 1 -c 0 --port 19650 >/dev/null 2>&1
wait_for 10 got '.detector=="latency" and .state=="raised"'
check_match "latency above 1 us: raised on an rxe port, value in ns" \
	'"detector":"latency","state":"raised","severity":"warning","dev":"fqr[01]","port":1,"value":[0-9]{4,},"threshold":1000' \
	"$(ev '.detector=="latency" and .state=="raised"')"
fq stats config set detector latency threshold 60000000000
fq bench allreduce --ranks 2 -b 64K -e 64K -n 20 -w 1 -c 0 --port 19650 >/dev/null 2>&1
wait_for 10 got '.detector=="latency" and .state=="cleared"'
check_match "latency: cleared under a threshold it meets" '"detector":"latency","state":"cleared"' \
	"$(ev '.detector=="latency" and .state=="cleared"')"
fq stats config set detector latency threshold 5000 window 300000
kill $mon; wait $mon 2>/dev/null; mon=

# ---- Prometheus ----
fq stats show --prometheus >"$tmp/prom"
check_true "--prometheus passes the strict parser" python3 "$here/fabriq_prom_check.py" "$tmp/prom"
check_match "per-priority pause with device, port and priority labels" \
	'^fabriq_port_prio_tx_pause_duration_total\{device="fqsim91",port="1",priority="3"\} [1-9]' \
	"$(cat "$tmp/prom")"
check_match "per-VL XmitWait with a vl label" \
	'^fabriq_port_vl_xmit_wait_total\{device="fqsim92",port="1",vl="2"\} [1-9]' "$(cat "$tmp/prom")"
check_eq "every metric is prefixed fabriq_" "" "$(grep -v '^#' "$tmp/prom" | grep -v '^fabriq_')"
check_eq "absent counters give no sample" "" "$(grep '^fabriq_port_cnp_sent_total{device="fqr0"' "$tmp/prom")"
printf 'fabriq_x_total{device="a" 1\n' > "$tmp/badprom"
bad_out=$(python3 "$here/fabriq_prom_check.py" "$tmp/badprom" 2>&1)
check_eq "... and the parser is strict (refuses a broken line, exit 1)" \
	"1 line 1: not a sample line: fabriq_x_total{device=\"a\" 1" "$? $(printf '%s\n' "$bad_out" | head -1)"

# ---- top ----
check_match "top: the ports table, busiest first" "^DEV +PORT +TX_PKT/s" "$(fq top count 1)"

# ---- permissions ----
nobody() { setpriv --reuid=65534 --regid=65534 --clear-groups "$FQ_CLI" "$@" 2>&1; }
check_match "unprivileged stats show works" "^dev fqsim91 port 1" "$(nobody stats show dev fqsim91)"
check_match "unprivileged config set is refused" "Operation not permitted" \
	"$(nobody stats config set interval 5)"
check_match "unprivileged monitor cannot join events" "Operation not permitted" \
	"$(timeout 5 setpriv --reuid=65534 --regid=65534 --clear-groups "$FQ_CLI" monitor 2>&1)"
run_nl=$("$here/fabriq_stats_nl" 2>&1)
printf '%s\n' "$run_nl" | grep -E '^(not ok|# .*(FAIL|Expected|extack|bits))' | sed 's/^/#   /' | head -20
check_eq "raw netlink: bad values refused with extack, permissions ($(printf '%s\n' "$run_nl" | grep -c '^ok') passed)" \
	0 "$(printf '%s\n' "$run_nl" | grep -c '^not ok')"

# ---- removal while sampling every millisecond ----
# A reader loops on netlink and debugfs while devices come and go.  Every
# netlink read must succeed and list the devices that stay; a debugfs file
# of a device being removed may vanish (ENOENT) or be cut off (EIO), but
# may give no other error.
fq stats config set interval 1
mark=$(fq_console_mark)
stay='fqr0 fqr1 fqr2 fqsim91 fqsim92'
(
	ok=0 bad=0
	for i in $(seq 200); do
		out=$(fq stats show 2>&1) && nl_ok=1 || nl_ok=0
		for d in $stay; do
			printf '%s\n' "$out" | grep -q "^dev $d port 1" || nl_ok=0
		done
		[ $nl_ok -eq 1 ] && ok=$((ok + 1)) ||
			{ bad=$((bad + 1)); printf '%s\n' "$out" | head -3 > "$tmp/reader.err"; }
		cat $FQ_DBG/devices/*/port1/telemetry/counters 2>&1 >/dev/null |
			grep -Ev 'No such file or directory|Input/output error' >> "$tmp/reader.dbgerr"
	done
	echo "$ok $bad" > "$tmp/reader.res"
) &
reader=$!
for i in $(seq 10); do
	fq_sim_new "93 1 eth"; ip link set fqsim93p1 up 2>/dev/null; sleep 0.05; fq_sim_del 93
	fq_sim_new "93 1 ib"; sleep 0.05; fq_sim_del 93
done
rdma link del fqr3
wait $reader
check_eq "during removals, all 200 netlink reads succeeded and listed the other devices (ok, failed)" \
	"200 0" "$(cat "$tmp/reader.res" 2>/dev/null)"
[ -s "$tmp/reader.err" ] && sed 's/^/# reader: /' "$tmp/reader.err"
check_eq "during removals, debugfs reads gave no error but ENOENT/EIO" "" "$(cat "$tmp/reader.dbgerr")"
after=$(fq stats show)
check_eq "devices removed during 1 ms sampling: gone from stats" "" \
	"$(printf '%s\n' "$after" | grep -E '^dev (fqsim93|fqr3) ')"
check_eq "the devices that stayed are still listed" "$stay" \
	"$(for d in $stay; do printf '%s\n' "$after" | grep -q "^dev $d port 1" && echo "$d"; done | xargs)"
check_true "the kernel log shows no oops or WARN since the removals began" fq_console_clean "$mark"
rdma link add fqr3 type rxe netdev fqr3
fq stats config set interval 100
check_match "a re-added device is sampled again" "^tx_pkts +[0-9]+" \
	"$(sleep 0.5; grep ^tx_pkts "$FQ_DBG/devices/fqr3/port1/telemetry/counters")"
check_eq "sampler cost is measured" "yes" \
	"$(awk 'NR == 1 { print ($7 > 0) ? "yes" : "no" }' "$FQ_DBG/devices/fqr0/port1/telemetry/counters")"
ktap_diag "sampler cost per sample: $(for d in fqr0 fqsim91 fqsim92; do echo -n "$d $(head -1 $FQ_DBG/devices/$d/port1/telemetry/counters | awk '{ print $7 }') ns; "; done)"
ktap_finish
