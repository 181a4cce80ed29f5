#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# fabriq_exporter.sh - fabriq's metrics where a Prometheus user expects
# them.  fabriq-exporter (run as fabriq-exporter.service runs it; the
# service and its timer checked with systemd-analyze verify) writes them
# into a textfile directory; Debian's prometheus-node-exporter serves that
# directory, and a scrape over loopback has fabriq's metrics with the
# values `fabriq stats show` prints; Debian's prometheus server scrapes the
# exporter and answers a query for a fabriq metric through its HTTP API;
# every metric that Documentation/grafana/fabriq.json's expressions name
# is in the scrape.  The metrics come from a fabriq_sim RoCE port (pause,
# CNP, ECN), a fabriq_sim InfiniBand port (PMA counters, XmitWait per VL),
# and a 2-rank allreduce loop on Soft-RoCE (communicator and peer metrics;
# fabriq's RED on one of its ports).
. "$(dirname "$0")/lib.sh"
here=$(cd "$(dirname "$0")" && pwd)

ktap_plan 10
fq_require prometheus-node-exporter prometheus curl jq python3
tmp=$(mktemp -d)
text=$tmp/textfile
units=$tmp/units
NE=127.0.0.1:9100 PROM=127.0.0.1:9090
pids=
cleanup() {
	[ -n "$pids" ] && kill $pids 2>/dev/null
	pkill -f -- "--port 19900" 2>/dev/null
	wait 2>/dev/null
	fq qos set dev fqr1 ecn prio 0 off 2>/dev/null
	fq_sim_del 81 2>/dev/null
	fq_sim_del 82 2>/dev/null
	rm -rf "$tmp"
}
trap cleanup EXIT
mkdir -p "$text"
fq_load_fabriq && fq_insmod fabriq_sim && fq_sim_new "81 1 eth" && fq_sim_new "82 1 ib" &&
	ip link set fqsim81p1 up && fq_ranks_up 2 || ktap_bail "fabriq, two fabriq_sim devices, 2 local ranks"
ip link set lo up
SIM=/sys/kernel/debug/fabriq_sim
# some pause time, CNPs, ECN marks and XmitWait, so that the rates move
for c in "tx_pause prio 3 100" "tx_pause_duration prio 3 5000"; do
	echo "$c" > "$SIM/fqsim81/port1/inject" || ktap_diag "fqsim81 took no '$c'"
done
echo "xmit_wait vl 2 1000" > "$SIM/fqsim82/port1/inject" || ktap_diag "fqsim82 took no XmitWait"
# fabriq's RED on rank 1's port (its CE marks: ecn_marked_tx), before any traffic
# (replacing a root qdisc drops what it holds, which fails rxe's QPs)
fq qos set dev fqr1 ecn prio 0 min 16K max 96K prob 100 || ktap_diag "no RED on fqr1"
fq bench allreduce --ranks 2 --peers 198.19.0.1,198.19.0.2 -b 64K -e 64K -n 100000 -c 0 \
	--port 19900 > /dev/null 2>&1 &
pids="$pids $!"
wait_for 60 sh -c "$FQ_CLI stats show --prometheus | grep -q '^fabriq_comm_op_duration_seconds_count.*} [1-9]'" ||
	ktap_diag "no communicator metrics after 60 s"

# ---- the exporter and its units ----
"$FQ_SRC/tools/systemd/render" "$units" "$FQ_SRC/tools/fabriq" /etc/fabriq \
	"$(command -v modprobe)" "$text" || ktap_bail "render the units"
v=$(fq_units_verify "$units/fabriq-exporter.service" "$units/fabriq-exporter.timer")
check_eq "systemd-analyze verify finds nothing wrong in fabriq-exporter.service and .timer" "0 " "$? $v"
run_exporter() { fq_run_unit "$units/fabriq-exporter.service"; }
check_true "fabriq-exporter.service's ExecStart writes $text/fabriq.prom" run_exporter
check_true "... which passes the strict exposition parser" \
	python3 "$here/fabriq_prom_check.py" "$text/fabriq.prom"
check_eq "... and leaves no half-written file behind" "fabriq.prom" "$(ls -A "$text" | xargs)"

# ---- node_exporter ----
prometheus-node-exporter --collector.disable-defaults --collector.textfile \
	--collector.textfile.directory="$text" --web.listen-address="$NE" > "$tmp/ne.log" 2>&1 &
pids="$pids $!"
wait_for 30 curl -sf "http://$NE/metrics" -o /dev/null || ktap_diag "node_exporter: $(tail -3 "$tmp/ne.log")"
run_exporter
fq -j stats show dev fqsim82 > "$tmp/ib.json"
fq -j stats show dev fqsim81 > "$tmp/eth.json"
curl -sf "http://$NE/metrics" > "$tmp/scrape"
check_eq "node_exporter read the textfile without error" \
	"node_textfile_scrape_error 0" "$(grep '^node_textfile_scrape_error' "$tmp/scrape")"
# a metric's value in the scrape, as a whole number
scraped() { awk -v m="$1" '$1 == m { printf "%.0f\n", $2 }' "$tmp/scrape"; }
# (a figure missing from either side fails: "missing" matches nothing)
ib=$(jq -r '.ports[0].counters.xmit_wait // "missing"' "$tmp/ib.json" 2>/dev/null)
check_eq "the scrape has fqsim82's XmitWait as 'fabriq stats show' prints it" "$ib" \
	"$(scraped 'fabriq_port_xmit_wait_total{device="fqsim82",port="1"}')"
eth=$(jq -r '[.ports[0].prio[] | select(.prio == 3) | .tx_pause_duration][0] // "missing"' \
	"$tmp/eth.json" 2>/dev/null)
check_eq "... and fqsim81's pause time at priority 3" "$eth" \
	"$(scraped 'fabriq_port_prio_tx_pause_duration_total{device="fqsim81",port="1",priority="3"}')"

# ---- the prometheus server ----
cat > "$tmp/prometheus.yml" <<YML
global: { scrape_interval: 1s }
scrape_configs:
  - job_name: node
    static_configs: [ { targets: [ "$NE" ] } ]
YML
prometheus --config.file="$tmp/prometheus.yml" --storage.tsdb.path="$tmp/tsdb" \
	--web.listen-address="$PROM" > "$tmp/prom.log" 2>&1 &
pids="$pids $!"
query() { curl -sf "http://$PROM/api/v1/query" --data-urlencode "query=$1"; }
wait_for 120 sh -c "curl -sf 'http://$PROM/api/v1/query?query=fabriq_port_sample_interval_seconds' |
	grep -q '\"device\":\"fqsim82\"'" || ktap_diag "prometheus: $(tail -3 "$tmp/prom.log")"
check_eq "the prometheus server scraped it: its HTTP API answers a query for fqsim82's XmitWait" \
	"success $ib" "$(query 'fabriq_port_xmit_wait_total{device="fqsim82"}' |
		jq -r '"\(.status) \(.data.result[0].value[1])"')"
check_match "... and a per-peer metric of the running allreduce" '^success [1-9]' \
	"$(query 'sum(fabriq_peer_tx_bytes_total)' | jq -r '"\(.status) \(.data.result[0].value[1])"')"

# ---- the dashboard ----
names=$(grep -v '^#' "$tmp/scrape" | sed 's/[{ ].*//' | sort -u)
missing=
for m in $(jq -r '.. | objects | (.expr? // empty), (.definition? // empty)' \
	     "$FQ_SRC/Documentation/grafana/fabriq.json" | grep -o 'fabriq_[a-z0-9_]*' | sort -u); do
	printf '%s\n' "$names" | grep -qx "$m" || missing="$missing $m"
done
check_eq "every metric the Grafana dashboard's expressions name is in the scrape" "" "$missing"
ktap_finish
