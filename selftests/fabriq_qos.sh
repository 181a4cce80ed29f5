#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# fabriq_qos.sh - `fabriq qos` on fabriq_sim as an operator uses it:
# round trips on an InfiniBand port (checked against the sim's own view of
# its SMA tables) and on a RoCE port (checked with iproute2 `dcb`, an
# independent path), CLI errors that name the value and the range, text
# output that pastes back as input, batch apply that changes nothing when
# one line is bad, permissions, re-apply after the device comes back or the
# port comes up, drift and coherence events, and the opensm export.
. "$(dirname "$0")/lib.sh"

ktap_plan 48
tmp=$(mktemp -d)
cleanup() {
	[ -n "${mon:-}" ] && kill "$mon" 2>/dev/null
	fq_sim_del 71 2>/dev/null
	fq_sim_del 72 2>/dev/null
	rm -rf "$tmp"
}
trap cleanup EXIT
fq_insmod fabriq_sim || { ktap_not_ok "load fabriq_sim"; ktap_finish; }
fq_load_fabriq || { ktap_not_ok "load fabriq"; ktap_finish; }
SIM=/sys/kernel/debug/fabriq_sim
fq_sim_new "71 1 ib"
fq_sim_new "72 1 eth"
ND=fqsim72p1

# `qos show` of one device as "FIELD<TAB>INTENT<TAB>HARDWARE" lines, cut
# at the columns its header row gives.
rows() { fq qos show dev "$1" | awk '
	/^FIELD / { i = index($0, "INTENT"); h = index($0, "HARDWARE"); next }
	i && /^[a-z]/ && !/^warning:/ { f = substr($0, 1, i - 1); v = substr($0, i, h - i);
		w = substr($0, h); sub(/ *<- drift$/, "", w); gsub(/ +$/, "", f); gsub(/ +$/, "", v);
		print f "\t" v "\t" w }'; }
# The value of FIELD in the INTENT (2) or HARDWARE (3) column.
col() { rows "$1" | awk -F'\t' -v f="$2" -v c="$3" '$1 == f { print $c; exit }'; }
# The error line of a failing command.
err_of() { "$@" 2>&1 >/dev/null | head -1; }

# ---- InfiniBand: round trips against the sim's SMA ----
fq qos set dev fqsim71 port 1 sl2vl 0:1,1:2,15:3 vlarb-high 0:64,1:32 \
	vlarb-low 0:4,1:4,2:4,3:4,4:4,5:4,6:4,7:4 vl-high-limit 10 sl 3 2>"$tmp/note"
check_match "IB set succeeds and warns about the subnet manager" "subnet manager may overwrite" \
	"$(cat "$tmp/note")"
check_eq "sl2vl reached the SMA (other SLs untouched)" \
	"sl2vl 0:1,1:2,2:2,3:3,4:4,5:5,6:6,7:7,8:0,9:1,10:2,11:3,12:4,13:5,14:6,15:3" \
	"$(grep ^sl2vl $SIM/fqsim71/port1/smp)"
check_eq "vlarb-high reached the SMA" "vlarb_high 0:64,1:32,0:0,0:0,0:0,0:0,0:0,0:0" \
	"$(grep ^vlarb_high $SIM/fqsim71/port1/smp)"
check_eq "vlarb-low reached the SMA" "vlarb_low 0:4,1:4,2:4,3:4,4:4,5:4,6:4,7:4" \
	"$(grep ^vlarb_low $SIM/fqsim71/port1/smp)"
check_eq "VLHighLimit reached PortInfo" "vl_high_limit 10" \
	"$(grep ^vl_high_limit $SIM/fqsim71/port1/smp)"
check_eq "read-back shows what the SMA holds" "0:64,1:32" "$(col fqsim71 vlarb-high 3)"
fq qos set dev fqsim71 oper-vls 4 sl2vl 0:0,1:1,2:2,3:3,4:0,5:1,6:2,7:3,8:0,9:1,10:2,11:3,12:0,13:1,14:2,15:3 \
	vlarb-low 0:4,1:4,2:4,3:4 2>/dev/null
check_eq "OperVLs shrinks together with the tables that use it" "oper_vls 4" \
	"$(grep ^oper_vls $SIM/fqsim71/port1/smp)"
check_eq "no drift after a set" "" "$(fq qos show dev fqsim71 | grep drift)"

# ---- RoCE: round trips checked with dcb ----
fq qos set dev fqsim72 pfc 3,4 trust dscp dscp-prio 26:3,46:5 \
	ets prio-tc 3:3,4:4 tc-bw 0:50,3:30,4:20 tc-tsa 0:ets,3:ets,4:ets \
	ecn prio 3 min 150K max 1500K prob 10 tc 106
check_match "dcb pfc shows fabriq's PFC" "prio-pfc 0:off 1:off 2:off 3:on 4:on 5:off" \
	"$(dcb pfc show dev $ND prio-pfc)"
check_eq "dcb app shows fabriq's DSCP map" "dscp-prio 26:3 46:5" \
	"$(dcb -N app show dev $ND dscp-prio | xargs)"
check_match "dcb ets shows fabriq's prio-tc" "prio-tc 0:0 1:0 2:0 3:3 4:4 5:0" \
	"$(dcb ets show dev $ND prio-tc)"
check_match "dcb ets shows fabriq's bandwidths" "tc-bw 0:50 1:0 2:0 3:30 4:20 5:0" \
	"$(dcb ets show dev $ND tc-bw)"
check_match "dcb ets shows fabriq's TSA" "tc-tsa 0:ets 1:strict 2:strict 3:ets 4:ets" \
	"$(dcb ets show dev $ND tc-tsa)"
check_eq "ECN reached the device (150K = 153600 bytes)" \
	"prio 3 enable 1 min 153600 max 1536000 prob 10" "$(grep '^prio 3 ' $SIM/fqsim72/port1/ecn)"
check_eq "trust reached the device" "trust dscp" "$(grep ^trust $SIM/fqsim72/port1/ecn)"
check_eq "ets set is read-modify-write" "0:0,1:0,2:0,3:3,4:4,5:0,6:0,7:0" \
	"$(fq qos set dev fqsim72 ets tc-bw 0:40,3:40,4:20 && col fqsim72 'ets prio-tc' 2)"
check_eq "tc is fabriq's own setting, kept as intent" "106" "$(col fqsim72 tc 2)"

# ---- CLI errors name the value and the range ----
check_eq "SL out of range" "fabriq: qos set: sl2vl: SL '16' is out of range (valid: 0-15)" \
	"$(err_of fq qos set dev fqsim71 sl2vl 16:1)"
check_eq "VL beyond OperVLs" \
	"fabriq: qos set: sl2vl: VL '5' for SL 0 is out of range (valid: 0-3)" \
	"$(err_of fq qos set dev fqsim71 sl2vl 0:5)"
check_eq "VL15 in a VLArb table" \
	"fabriq: qos set: vlarb-high: VL 15 is reserved for subnet management (valid: 0-14)" \
	"$(err_of fq qos set dev fqsim71 vlarb-high 15:1)"
check_eq "PFC priority 8" "fabriq: qos set: pfc: priority '8' is out of range (valid: 0-7, or none)" \
	"$(err_of fq qos set dev fqsim72 pfc 3,8)"
check_eq "ECN min above max" "fabriq: qos set: ecn: min 2048 is above max 1024 (valid: min <= max)" \
	"$(err_of fq qos set dev fqsim72 ecn prio 3 min 2K max 1K prob 5)"
check_eq "ECN probability 0" "fabriq: qos set: ecn: prob '0' is out of range (valid: 1-100 percent)" \
	"$(err_of fq qos set dev fqsim72 ecn prio 3 min 1K max 2K prob 0)"
check_match "kernel refusal shows its extack" "pfc is a RoCE setting; this port is InfiniBand|RoCE \(Ethernet\) setting" \
	"$(err_of fq qos set dev fqsim71 pfc 3)"
check_match "unknown device" "no such RDMA device" "$(err_of fq qos set dev fqnosuch pfc 3)"
check_match "unknown port" "port: the device has no such port" \
	"$(err_of fq qos set dev fqsim72 port 2 pfc 3)"

# ---- text output pastes back; JSON agrees ----
before=$(fq -j qos show dev fqsim72)
args=$(rows fqsim72 | awk -F'\t' '$2 != "-" { print $1, $2 }' | xargs)
check_match "the pasted intent holds every field" "^pfc 3,4 trust dscp dscp-prio 26:3,46:5 ets prio-tc" "$args"
fq qos set dev fqsim72 $args
check_eq "the INTENT column pasted back changes nothing" "$before" "$(fq -j qos show dev fqsim72)"
check_eq "JSON shows the intent" "3,4" "$(fq -j qos show dev fqsim72 | jq -r '.[0].intent.pfc')"

# ---- batch apply ----
cat > "$tmp/good" <<EOF
# a RoCE and an IB port in one file
dev fqsim72 port 1 pfc 3
dev fqsim71 port 1 vl-high-limit 20
qos set dev fqsim72 dscp-prio 26:3
EOF
fq qos apply -f "$tmp/good" 2>/dev/null
check_eq "apply: every line took effect" "3 20 26:3" \
	"$(col fqsim72 pfc 3) $(col fqsim71 vl-high-limit 3) $(col fqsim72 dscp-prio 3)"
snap=$(fq -j qos show; cat $SIM/fqsim71/port1/smp $SIM/fqsim72/port1/ecn; dcb pfc show dev $ND)
printf 'dev fqsim72 pfc 5\ndev fqsim71 vl-high-limit 7\ndev fqsim72 ecn prio 2 min 9K max 1K prob 3\n' > "$tmp/bad"
check_match "apply: a bad line is named" "$tmp/bad:3: ecn: min 9216 is above max 1024" \
	"$(fq qos apply -f "$tmp/bad" 2>&1)"
check_eq "apply: nothing changed" "$snap" \
	"$(fq -j qos show; cat $SIM/fqsim71/port1/smp $SIM/fqsim72/port1/ecn; dcb pfc show dev $ND)"
printf 'dev fqsim72 pfc 5\ndev fqsim71 sl2vl 0:3\ndev fqsim71 oper-vls 2\n' > "$tmp/bad2"
check_match "apply: a line the kernel refuses is named" "$tmp/bad2:3: .*OperVLs" \
	"$(fq qos apply -f "$tmp/bad2" 2>&1)"
check_eq "apply: nothing changed after the kernel's refusal" "$snap" \
	"$(fq -j qos show; cat $SIM/fqsim71/port1/smp $SIM/fqsim72/port1/ecn; dcb pfc show dev $ND)"

# ---- permissions ----
check_match "unprivileged set is refused" "Operation not permitted" \
	"$(setpriv --reuid=65534 --regid=65534 --clear-groups "$FQ_CLI" qos set dev fqsim72 pfc 1 2>&1)"
check_match "unprivileged show works" "^dev fqsim72 port 1" \
	"$(setpriv --reuid=65534 --regid=65534 --clear-groups "$FQ_CLI" qos show dev fqsim72)"
# An unprivileged loop of QOS_GET is served from the port's snapshot: it
# costs the device at most one read per second.  Every SMP to fqsim71
# fails from here on, so the SMPs a read sends are counted off fail_mads;
# what the port gets anyway (the intent check) is measured idle for as
# long and taken off.
FM=$SIM/fqsim71/port1/fail_mads
echo 1000000 > $FM
fq qos show dev fqsim71 > /dev/null 2>&1
per_read=$((1000000 - $(cat $FM)))
before=$(cat $FM) t0=$(date +%s%N) shows=0
while [ $shows -lt 30 ] || [ $(($(date +%s%N) - t0)) -lt 3000000000 ]; do
	setpriv --reuid=65534 --regid=65534 --clear-groups "$FQ_CLI" qos show dev fqsim71 > /dev/null 2>&1
	shows=$((shows + 1))
done
secs=$((($(date +%s%N) - t0 + 999999999) / 1000000000))
mads=$((before - $(cat $FM)))
# what reaches the port anyway in as long (the intent check)
before=$(cat $FM)
sleep $secs
idle=$((before - $(cat $FM)))
echo 0 > $FM
ktap_diag "one read sends $per_read SMPs; $shows unprivileged shows in ${secs} s sent $mads, ${secs} s idle $idle"
check_true "an unprivileged loop of $shows shows in ${secs} s costs the device at most a read a second ($((mads - idle)) SMPs more than idle, a read is $per_read)" \
	test "$per_read" -gt 0 -a $((mads - idle)) -le $((per_read * (secs + 2)))
check_match "... while a privileged show reads the device now" "^dev fqsim71 port 1" \
	"$(fq qos show dev fqsim71)"

# ---- events: drift, coherence ----
fq qos set dev fqsim72 pfc 3,4
"$FQ_CLI" -j monitor > "$tmp/mon" 2>&1 &
mon=$!
sleep 1
dcb pfc set dev $ND prio-pfc 3:off
wait_for 10 grep -q qos-drift "$tmp/mon"
check_match "dcb behind fabriq's back raises qos-drift naming pfc" '"field":"pfc"' \
	"$(grep qos-drift "$tmp/mon" | head -1)"
check_match "qos show marks the drift" "^pfc .*<- drift" "$(fq qos show dev fqsim72)"
check_match "debugfs marks the drift" "^pfc .*DRIFT" "$(cat $FQ_DBG/devices/fqsim72/port1/qos/state)"
wait_for 10 grep -q qos-warn "$tmp/mon"
check_match "fabriq's traffic priority without PFC raises qos-warn" \
	'tc 106 is DSCP 26, which maps to priority 3, where PFC is off' "$(grep qos-warn "$tmp/mon" | head -1)"
kill "$mon"; mon=

# ---- re-apply ----
fq qos set dev fqsim72 pfc 3,4
fq_sim_del 71
fq_sim_del 72
fq_sim_new "71 1 ib"
fq_sim_new "72 1 eth"
wait_for 10 grep -q "vl_high_limit 20" $SIM/fqsim71/port1/smp
check_eq "re-created IB device gets its intent back" "vl_high_limit 20" \
	"$(grep ^vl_high_limit $SIM/fqsim71/port1/smp)"
wait_for 10 sh -c "dcb pfc show dev $ND prio-pfc | grep -q '3:on 4:on'"
check_match "re-created RoCE device gets its intent back" "3:on 4:on" "$(dcb pfc show dev $ND prio-pfc)"
# Change the SMA behind fabriq's back, then bounce the link: the intent returns.
fq qos set dev fqsim71 vl-high-limit 30 2>/dev/null
echo down > $SIM/fqsim71/port1/link
"$FQ_CLI" qos show dev fqsim71 >/dev/null
echo up > $SIM/fqsim71/port1/link
wait_for 10 grep -q "vl_high_limit 30" $SIM/fqsim71/port1/smp
check_eq "port up re-applies the intent" "vl_high_limit 30" "$(grep ^vl_high_limit $SIM/fqsim71/port1/smp)"

# ---- opensm export ----
out=$(fq qos export opensm dev fqsim71)
check_match "export: max VLs" "^qos_ca_max_vls 4$" "$out"
check_match "export: SL2VL in opensm's form" "^qos_ca_sl2vl 0,1,2,3,0,1,2,3,0,1,2,3,0,1,2,3$" "$out"
check_match "export refuses a RoCE port" "InfiniBand ports only" "$(err_of fq qos export opensm dev fqsim72)"
ktap_finish
