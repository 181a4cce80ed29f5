#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# fabriq_ping.sh - fabriq's own RC QPs over rdma_cm inside one guest:
# round trips to a Soft-RoCE address are answered by fabriq's listener,
# the reply names the port and its "tc" intent, bad input is refused, an
# unprivileged user gets EPERM, nothing is left behind, and removing the
# device under a running ping ends it cleanly.  (Soft-RoCE in one guest
# connects only to its own address, through rxe's loopback; the traffic
# class on a real wire is checked by fabriq_wire.sh across two guests.)
. "$(dirname "$0")/lib.sh"

ktap_plan 15
modprobe rdma_rxe || { echo "1..0 # SKIP rdma_rxe not available"; exit 4; }
tmp=$(mktemp -d)
cleanup() {
	[ -n "${bg:-}" ] && kill "$bg" 2>/dev/null
	rdma link del rxe91b 2>/dev/null
	fq_veth_del 91
	rm -rf "$tmp"
}
trap cleanup EXIT
fq_load_fabriq || { ktap_not_ok "load fabriq"; ktap_finish; }
B=198.18.91.2
fq_veth_add 91
rdma link add rxe91b type rxe netdev fqv91b

out=$(fq ping $B count 5)
check_match "five round trips answered by fabriq's listener" "^ping $B via rxe91b port 1: 5 sent, 5 received, rtt min/avg/max [0-9.]+/[0-9.]+/[0-9.]+ ms$" "$out"
check_eq "JSON gives the times in ns" "5 true" \
	"$(fq -j ping $B count 5 | jq -r '.[0] | "\(.received) \(.rtt_min_ns <= .rtt_max_ns)"')"
check_match "an IPv4 source address is accepted" " 2 received" "$(fq ping $B from $B count 2)"
fq qos set dev rxe91b tc 106
check_match "ping uses the port's traffic class" " via rxe91b port 1 tc 106: 3 sent, 3 received" \
	"$(fq ping $B count 3)"

# Bad input
err_of() { "$@" 2>&1 >/dev/null | head -1; }
check_eq "a non-address is named" "fabriq: ping: ADDR: '198.18.91' is not an address (valid: IPv4 or IPv6)" \
	"$(err_of fq ping 198.18.91)"
check_eq "count out of range" "fabriq: ping: count: '0' is out of range (valid: 1-1000)" \
	"$(err_of fq ping $B count 0)"
check_match "an address no RDMA device answers for is refused in time" "cannot (resolve|connect)" \
	"$(timeout 30 "$FQ_CLI" ping 198.18.92.9 count 1 2>&1)"
check_match "source and destination of different families are refused" \
	"src and dst must be of the same address family" "$(err_of fq ping $B from ::1)"
check_match "fabriq listens for pings on port 18400" "state LISTEN .*src-addr 0.0.0.0:18400" \
	"$(rdma resource show cm_id)"
check_eq "no connection or QP of a finished ping is left behind" "" \
	"$(rdma resource show cm_id | grep -v LISTEN; rdma resource show qp | grep -w RC)"
check_match "unprivileged ping is refused" "Operation not permitted" \
	"$(setpriv --reuid=65534 --regid=65534 --clear-groups "$FQ_CLI" ping $B 2>&1)"

# A killed ping ends at once: the time from SIGKILL to its exit is bounded
# (a ping of 1000 x 100 ms that ignored the kill would take 100 s).
"$FQ_CLI" ping $B count 1000 interval 100 > /dev/null 2>&1 &
bg=$!
sleep 2
kill -9 $bg
ms=$(fq_ms_until_exit $bg 30)
check_true "a killed ping ends at once ($ms ms from SIGKILL to exit; limit 2000)" test "$ms" -lt 2000
fq_exited $bg && { wait $bg 2>/dev/null; bg=; }

# The device goes away under a long ping: it ends, nothing hangs.
"$FQ_CLI" ping $B count 1000 interval 100 > "$tmp/long.out" 2>&1 &
bg=$!
sleep 2
check_match "fabriq cannot be unloaded under a running ping" "in use" "$(rmmod fabriq 2>&1)"
rdma link del rxe91b
ms=$(fq_ms_until_exit $bg 60)
check_true "the ping ended after its device was removed ($ms ms)" fq_exited $bg
bg=
check_eq "and said why" "fabriq: ping: the connection failed during the ping: No such device" \
	"$(cat "$tmp/long.out")"
ktap_finish
