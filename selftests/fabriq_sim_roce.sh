#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# fabriq_sim_roce.sh - the simulated HCA's RoCE side and its injection
# knobs, driven with stock tools: `dcb pfc|ets|app|dcbx` round-trip on the
# sim netdev, `ethtool -S` and `rdma statistic` show injected counters, and
# bad injection input is refused.
. "$(dirname "$0")/lib.sh"

ktap_plan 22
fq_require dcb ethtool jq
fq_insmod fabriq_sim || { ktap_not_ok "load fabriq_sim"; ktap_finish; }
trap 'fq_sim_del 21 2>/dev/null; fq_sim_del 22 2>/dev/null' EXIT
fq_sim_new "21 1 eth"
fq_sim_new "22 1 ib"
nd=fqsim21p1
ip link set "$nd" up
D=/sys/kernel/debug/fabriq_sim/fqsim21/port1
DIB=/sys/kernel/debug/fabriq_sim/fqsim22/port1

check_eq "dcb pfc: 8 priorities, none enabled at start" "8 0" \
	"$(dcb -j pfc show dev $nd | jq -r '"\(.pfc_cap) \([.prio_pfc[] | select(.)] | length)"')"
dcb pfc set dev $nd prio-pfc 3:on 4:on
check_eq "dcb pfc set prio-pfc 3:on 4:on round-trips" "3,4" \
	"$(dcb -j pfc show dev $nd | jq -r '[.prio_pfc | to_entries[] | select(.value) | .key] | join(",")')"
dcb app add dev $nd dscp-prio 26:3 46:5
check_eq "dcb app add dscp-prio round-trips" "26:3 46:5" \
	"$(dcb -j app show dev $nd | jq -r '[.dscp_prio[] | "\(.[0]):\(.[1])"] | sort | join(" ")')"
dcb app del dev $nd dscp-prio 46:5
check_eq "dcb app del removes only that entry" "26:3" \
	"$(dcb -j app show dev $nd | jq -r '[.dscp_prio[] | "\(.[0]):\(.[1])"] | join(" ")')"
dcb ets set dev $nd tc-tsa all:ets tc-bw 0:60 1:40 2:0 3:0 4:0 5:0 6:0 7:0 prio-tc 3:1
check_eq "dcb ets set round-trips bandwidths and prio-tc" "60,40 1" \
	"$(dcb -j ets show dev $nd | jq -r '"\(.tc_bw[0:2] | join(",")) \(.prio_tc[3])"')"
check_eq "dcbx mode is host-managed IEEE" "true true" \
	"$(dcb -j dcbx show dev $nd | jq -r '"\(.host) \(.ieee)"')"

echo "rx_pause prio 3 100" > $D/inject
echo "tx_pause_duration prio 3 2500" > $D/inject
stats=$(ethtool -S $nd)
check_match "ethtool -S: injected rx_prio3_pause" "rx_prio3_pause: 100$" "$stats"
check_match "ethtool -S: injected tx_prio3_pause_duration" "tx_prio3_pause_duration: 2500$" "$stats"
check_match "ethtool -S: other priorities untouched" "rx_prio4_pause: 0$" "$stats"
check_match "ethtool --show-pause stats: global rx pause is the sum" "rx_pause_frames: 100$" \
	"$(ethtool -I -a $nd 2>&1)"

echo "np_cnp_sent 5" > $D/inject
echo "np_ecn_marked_roce_packets 7" > $D/inject
echo "np_cnp_sent 2" > $D/inject
check_eq "rdma statistic: injected CNP and ECN counts" "7 7" \
	"$(rdma -j statistic show link fqsim21/1 | jq -r '.[0] | "\(.np_cnp_sent) \(.np_ecn_marked_roce_packets)"')"

echo "xmit_wait vl 2 1234" > $DIB/inject
check_match "counters file shows injected IB xmit_wait on VL 2" "^xmit_wait vl 2 1234$" \
	"$(cat $DIB/counters)"

echo "rp_cnp_handled 1000" > $D/rate
check_match "rate knob lists the running rate" "^rp_cnp_handled 1000$" "$(cat $D/rate)"
sleep 1
v1=$(rdma -j statistic show link fqsim21/1 | jq '.[0].rp_cnp_handled')
check_true "rate knob: rp_cnp_handled grows (now $v1)" test "$v1" -gt 0
echo "rp_cnp_handled 0" > $D/rate
sleep 0.3
v2=$(rdma -j statistic show link fqsim21/1 | jq '.[0].rp_cnp_handled')
sleep 0.5
check_eq "rate 0 stops it" "$v2" "$(rdma -j statistic show link fqsim21/1 | jq '.[0].rp_cnp_handled')"

echo 1 > $D/fail_dcb
# dcbnl reports a driver's error inside its reply, which dcb(8) does not
# print: the failed call is seen by its effect, which is none.
dcb pfc set dev $nd prio-pfc 5:on 2>/dev/null
check_eq "fail_dcb: the next DCB set call changes nothing" "3,4" \
	"$(dcb -j pfc show dev $nd | jq -r '[.prio_pfc | to_entries[] | select(.value) | .key] | join(",")')"
dcb pfc set dev $nd prio-pfc 5:on
check_eq "fail_dcb: the one after succeeds" "3,4,5" \
	"$(dcb -j pfc show dev $nd | jq -r '[.prio_pfc | to_entries[] | select(.value) | .key] | join(",")')"

bad() { (echo "$2" > "$1/inject") 2>&1 | sed 's/.*write error: //'; }
check_eq "inject: unknown counter refused" "Invalid argument" "$(bad $D "bogus 1")"
check_eq "inject: priority 8 refused" "Invalid argument" "$(bad $D "rx_pause prio 8 1")"
check_eq "inject: pause on an IB port refused" "Invalid argument" "$(bad $DIB "rx_pause prio 1 1")"
check_eq "inject: missing amount refused" "Invalid argument" "$(bad $D "np_cnp_sent")"
check_match "inject: the log states the expected format" \
	'inject: expected "COUNTER \[prio 0-7 \| vl 0-7\] AMOUNT"' "$(dmesg | tail -5)"
ktap_finish
