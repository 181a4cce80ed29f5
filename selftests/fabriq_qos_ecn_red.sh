#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# fabriq_qos_ecn_red.sh - ECN thresholds on a netdev whose driver offers no
# QoS backend become RED qdiscs with ECN on the netdev's egress, one per
# priority (ecn nodrop: RED marks and never drops), and the marking is
# real: on a port shaped to a line rate below
# the offered load, ECN-capable packets leave CE-marked once the queue
# passes the minimum threshold, as tcpdump sees them on the wire.  Turning
# ECN off gives the netdev its default queueing back.  fabriq's telemetry
# counts the marks RED made (ecn_marked_tx: debugfs, netlink, Prometheus),
# absent where the netdev has no RED.  Covered on a
# Soft-RoCE veth (the usual plain netdev) and on a fabriq_sim
# "eth-plain" port, whose transmit queue stops and wakes at its line rate
# like a NIC's (a veth never pushes back, so it never queues).
. "$(dirname "$0")/lib.sh"

ktap_plan 17
fq_require tcpdump ping tc jq
modprobe rdma_rxe || { echo "1..0 # SKIP rdma_rxe not available"; exit 4; }
tmp=$(mktemp -d)
ND=fqsim90p1
cleanup() {
	[ -n "${cap:-}" ] && kill "$cap" 2>/dev/null
	rdma link del rxe81 2>/dev/null
	fq_veth_del 81
	fq_sim_del 90 2>/dev/null
	rm -rf "$tmp"
}
trap cleanup EXIT
fq_insmod fabriq_sim || { ktap_not_ok "load fabriq_sim"; ktap_finish; }
fq_load_fabriq || { ktap_not_ok "load fabriq"; ktap_finish; }

# ---- Soft-RoCE on a veth: the qdisc tree ----
fq_veth_add 81
rdma link add rxe81 type rxe netdev fqv81a
fq qos set dev rxe81 ecn prio 0 min 20K max 60K prob 100 ecn prio 5 min 10K max 30K prob 50
check_eq "ECN without a driver backend uses RED" "red" \
	"$(fq -j qos show dev rxe81 port 1 | jq -r '.[0].ecn_backend')"
q=$(tc qdisc show dev fqv81a)
check_match "root prio qdisc maps priority n to band n" \
	"qdisc prio fab1: root .*bands 8 priomap 0 1 2 3 4 5 6 7 0 0 0 0 0 0 0 0" "$q"
check_match "priority 0's band has RED with ECN at its thresholds, marking, never dropping" \
	"qdisc red fa01: parent fab1:1 .*min 20Kb max 60Kb ecn nodrop" "$q"
check_match "priority 5's band has RED with ECN at its thresholds" \
	"qdisc red fa06: parent fab1:6 .*min 10Kb max 30Kb ecn nodrop" "$q"
check_eq "fabriq reads the thresholds back from the qdiscs" \
	"min 20K max 60K prob 100|min 10K max 30K prob 50|off" \
	"$(fq -j qos show dev rxe81 | jq -r '.[0].hardware | [."ecn prio 0", ."ecn prio 5", ."ecn prio 3"] | join("|")')"
wait_for 5 fq_marked_tx_is rxe81 0
check_eq "telemetry: with RED and no traffic, ecn_marked_tx is 0, not absent" 0 "$(fq_marked_tx rxe81)"
fq qos set dev rxe81 ecn prio 0 off ecn prio 5 off
check_match "ECN off everywhere restores the default queueing" "^qdisc noqueue 0: root" \
	"$(tc qdisc show dev fqv81a)"
wait_for 5 fq_marked_tx_is rxe81 null
check_eq "... and without RED, ecn_marked_tx is absent again" null "$(fq_marked_tx rxe81)"

# ---- a NIC at 512 kbit/s without a backend: marking on the wire ----
fq_sim_new "90 1 eth-plain"
ip link set $ND up
ip addr add 198.18.90.1/24 dev $ND
ip neigh add 198.18.90.2 lladdr 02:fa:00:00:00:90 dev $ND
echo 512 > /sys/kernel/debug/fabriq_sim/fqsim90/port1/tx_rate
fq qos set dev fqsim90 ecn prio 0 min 20K max 60K prob 100
check_match "the sim port without a backend gets RED too" "qdisc red fa01: parent fab1:1 .*ecn" \
	"$(tc qdisc show dev $ND)"
tcpdump -i $ND -nn -U -w "$tmp/cap.pcap" 'icmp[icmptype] == icmp-echo' 2>"$tmp/tcpdump.err" &
cap=$!
wait_for 10 grep -q "listening on" "$tmp/tcpdump.err"
# ECT(0) echo requests every 5 ms, open loop (a send buffer big enough
# that ping never waits for the queue): about 2 Mbit/s, four times the
# line rate.  Nothing answers; the deadline ends ping.
ping -q -Q 2 -s 1200 -i 0.005 -S 1048576 -c 300 -w 6 198.18.90.2 >/dev/null 2>&1
sleep 1
kill "$cap"; wait "$cap" 2>/dev/null; cap=
total=$(tcpdump -nn -r "$tmp/cap.pcap" 2>/dev/null | wc -l)
ce=$(tcpdump -nn -r "$tmp/cap.pcap" 'ip[1] & 3 == 3' 2>/dev/null | wc -l)
ect=$(tcpdump -nn -r "$tmp/cap.pcap" 'ip[1] & 3 == 2' 2>/dev/null | wc -l)
ktap_diag "on the wire: $total echo requests, $ce CE, $ect ECT(0)"
ktap_diag "$(tc -s qdisc show dev $ND parent fab1:1 | tr '\n' ' ')"
check_true "packets crossed the shaped port" [ "$total" -gt 100 ]
check_true "packets left CE-marked once the queue built" [ "$ce" -gt 0 ]
first=$(tcpdump -nn -v -r "$tmp/cap.pcap" 2>/dev/null | grep "tos 0x" | grep -m1 -n "CE" | cut -d: -f1)
check_true "the first packets, before the queue passed min, were not marked" [ "${first:-0}" -gt 1 ]
check_match "RED counted its marks" "marked [1-9]" "$(tc -s qdisc show dev $ND parent fab1:1)"
fq_check_marks_reported fqsim90 $ND

fq qos set dev fqsim90 ecn prio 0 off
check_eq "ECN off gives the port its default root qdisc back" "" \
	"$(tc qdisc show dev $ND | grep -e 'fab1:' -e 'qdisc red')"
ktap_finish
