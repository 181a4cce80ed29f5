#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# fabriq_wire.sh - fabriq's own RC QPs on a real wire, run by tools/vm/wire
# on both hosts of a two-host fabric (tools/vm/fabric).  Host 0
# (198.18.100.1, eth0) is the probe: `fabriq ping` round trips are
# answered by host 1's fabriq, and every RoCEv2 packet that fabriq's QP
# puts on eth0 carries the traffic class of the port's "tc" intent in its
# IP header, as tcpdump captures it.  Then a two-host allreduce (every
# type, 8 B to 256 KiB, checked): host 1 is rank 0 of `fabriq bench` and
# only listens (so it sends nothing into the captures above), host 0 is
# rank 1.  Not in TEST_PROGS: it needs the other host.
. "$(dirname "$0")/lib.sh"

PEER=198.18.100.2
if [ "${FABRIQ_HOST:-0}" != 0 ]; then	# host 1: serve until the probe is done
	fq_fabric_up || exit 1
	until [ -e "$FABRIQ_OUT/stop" ]; do
		fq bench allreduce --rank 0 --peers $PEER,198.18.100.1 --id 0x3172 -b 8 -e 256K \
			-f 8 -n 2 -w 0 -d all -c 1 >> "$FABRIQ_OUT/bench.log" 2>&1 && break
	done &
	fq_fabric_wait_stop
	exit
fi

ktap_plan 9
fq_require tcpdump ping
tmp=$(mktemp -d)
trap '[ -n "${cap:-}" ] && kill "$cap" 2>/dev/null; rm -rf "$tmp"' EXIT
# host 1 answers fabriq's ping: it is on the wire with fabriq loaded
fq_fabric_up
check_true "the peer answers on the wire" wait_for 60 sh -c "ping -c 1 -W 1 $PEER >/dev/null"

# Capture fabriq's RoCEv2 packets to the peer while it pings; print the
# TOS bytes seen and the count.
capture() {
	tcpdump -i eth0 -nn -U -w "$tmp/$1.pcap" "udp dst port 4791 and dst host $PEER" \
		2>"$tmp/$1.err" &
	cap=$!
	wait_for 10 grep -q "listening on" "$tmp/$1.err"
	# an unanswered round trip is a failure, a slow one (two TCG guests
	# on two cores) is not
	fq ping $PEER count 5 timeout 10000 > "$tmp/$1.out"
	sleep 1
	kill "$cap"; wait "$cap" 2>/dev/null; cap=
	echo "$(tcpdump -nn -v -r "$tmp/$1.pcap" 2>/dev/null | grep -o 'tos 0x[0-9a-f]*' | sort -u | xargs)"
}
tos=$(capture plain)
ktap_diag "$(cat "$tmp/plain.out")"
check_match "round trips across the wire" "^ping $PEER via rxe0 port 1: 5 sent, 5 received" \
	"$(cat "$tmp/plain.out")"
check_eq "without a tc intent fabriq's packets carry tos 0x0" "tos 0x0" "$tos"
fq qos set dev rxe0 tc 106
tos=$(capture tc106)
check_match "ping uses the port's traffic class" " tc 106: 5 sent, 5 received" "$(cat "$tmp/tc106.out")"
# its QP's packets, and the first copy of its connection's CM messages;
# the CM's own answers go on the path of what they answer (lib.sh)
tos="$(fq_pcap_tos "$tmp/tc106.pcap" "not ($FQ_ROCE_GSI)") | $(fq_pcap_cm_tos "$tmp/tc106.pcap" 1)"
ktap_diag "tc 106: QP packets and CM setup/teardown, tos and count: $tos;" \
	"all packets: $(fq_pcap_tos "$tmp/tc106.pcap" udp)"
all_6a='^0x6a [0-9]+ \| 0x6a [0-9]+$'
printf '%s\n' "$tos" | grep -Eq "$all_6a" ||
	ktap_diag "tc 106: the QP packets without tos 0x6a; the QPs of all, with their counts:" \
		"$(fq_pcap_bth "$tmp/tc106.pcap" "not ($FQ_ROCE_GSI) and ip[1] != 0x6a" | tr '\n' ';')" \
		"$(fq_pcap_bth "$tmp/tc106.pcap" "not ($FQ_ROCE_GSI)" |
			awk '{ print $2, $6 }' | sort | uniq -c | xargs)"
check_match "with tc 106 every RoCEv2 packet of fabriq's QP carries tos 0x6a" "$all_6a" "$tos"
n=$(tcpdump -nn -r "$tmp/tc106.pcap" 2>/dev/null | wc -l)
ktap_diag "$n RoCEv2 packets to the peer captured with tc 106"
check_true "the capture holds the connection and all five sends" [ "$n" -ge 6 ]
fq qos set dev rxe0 tc 0
check_eq "tc 0 again: tos 0x0" "tos 0x0" "$(capture tc0)"

fq bench allreduce --rank 1 --peers $PEER,198.18.100.1 --id 0x3172 -b 8 -e 256K -f 8 -n 2 -w 0 \
	-d all -c 1 > "$tmp/bench.out" 2>&1
rc=$?
sed 's/^/# /' "$tmp/bench.out"
check_eq "two-host allreduce, rank 1 of 2 across the wire (fabriq bench)" 0 "$rc"
check_match "every type, every size: no wrong element on this rank" \
	"Out of bounds values \(rank 1\) : 0 OK" "$(cat "$tmp/bench.out")"
ktap_finish
