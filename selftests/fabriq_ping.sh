#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# fabriq_ping.sh - fabriq's own RC QPs over rdma_cm inside one guest:
# round trips to a Soft-RoCE address are answered by fabriq's listener,
# the reply names the port and its "tc" intent, bad input is refused, an
# unprivileged user gets EPERM, nothing is left behind, a long ping runs
# in the background without holding genetlink up, and removing the device
# or unloading fabriq under a running ping ends it cleanly.  (Soft-RoCE in one guest
# connects only to its own address, through rxe's loopback; the traffic
# class on a real wire is checked by fabriq_wire.sh across two guests.)
. "$(dirname "$0")/lib.sh"

ktap_plan 23
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
# back to back: each message reaches the listener as soon as the last
# echo is in, often before that echo's send has completed there
check_match "1000 back-to-back round trips are all answered" " 1000 sent, 1000 received" \
	"$(fq ping $B count 1000 timeout 10000)"
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

# A killed ping ends at once, and the kernel stops it when its socket
# closes (a ping of 1000 x 100 ms left running would hold its QP 100 s).
"$FQ_CLI" ping $B count 1000 interval 100 > /dev/null 2>&1 &
bg=$!
sleep 2
kill -9 $bg
ms=$(fq_ms_until_exit $bg 30)
check_true "a killed ping ends at once ($ms ms from SIGKILL to exit; limit 2000)" test "$ms" -lt 2000
fq_exited $bg && { wait $bg 2>/dev/null; bg=; }
wait_for 10 sh -c '[ -z "$(rdma resource show cm_id | grep -v LISTEN)" ]'
check_eq "... and the kernel stopped it: no connection or QP is left" "" \
	"$(rdma resource show cm_id | grep -v LISTEN; rdma resource show qp | grep -w RC)"

# A 30 s ping runs in the background, not in genetlink's doit: another
# family registers (a module load takes genetlink's lock for writing) and
# is used meanwhile, and no request waits for the ping.  What a request
# waits is its time during the ping less its time without one, measured
# the same way just before (a slow guest makes both slow alike).
ms_of() { local t0; t0=$(date +%s%N); "$@" > /dev/null 2>&1; echo $((($(date +%s%N) - t0) / 1000000)); }
# genl_round: modprobe fou, 5 x (a fou request, a fabriq request), rmmod fou:
# "load unload slowest-request" in ms
genl_round() {
	local load unload worst=0 t i
	load=$(ms_of modprobe fou)
	for i in 1 2 3 4 5; do
		t=$(ms_of ip fou show)
		[ "$t" -gt "$worst" ] && worst=$t
		t=$(ms_of "$FQ_CLI" dev show)
		[ "$t" -gt "$worst" ] && worst=$t
	done
	unload=$(ms_of rmmod fou)
	echo "$load $unload $worst"
}
rmmod fou 2>/dev/null
read -r base_load base_unload base_worst <<< "$(genl_round)"
"$FQ_CLI" ping $B count 30 interval 1000 > "$tmp/30s.out" 2>&1 &
bg=$!
sleep 3
read -r load_ms unload_ms worst <<< "$(genl_round)"
ktap_diag "without a ping: modprobe fou ${base_load} ms, rmmod ${base_unload} ms, slowest request ${base_worst} ms"
ktap_diag "during the ping: modprobe fou ${load_ms} ms, rmmod ${unload_ms} ms, slowest request ${worst} ms"
check_true "during a 30 s ping, fou's family comes and goes, each waiting under 1 s ($((load_ms - base_load)) and $((unload_ms - base_unload)) ms more than without)" \
	test $((load_ms - base_load)) -lt 1000 -a $((unload_ms - base_unload)) -lt 1000
check_true "... and no fou or fabriq request waits more than 1 s ($((worst - base_worst)) ms more than without)" \
	test $((worst - base_worst)) -lt 1000
wait $bg
bg=
check_match "... while the ping itself goes on to the end" " 30 sent, 30 received" "$(cat "$tmp/30s.out")"

# At most 16 pings run at once: a 17th is refused with EBUSY and says so,
# and once they end a ping runs again.
pids=
for i in $(seq 16); do
	"$FQ_CLI" ping $B count 1000 interval 100 > /dev/null 2>&1 &
	pids="$pids $!"
done
sleep 3
check_eq "a 17th ping beside 16 running ones is refused" \
	"fabriq: ping: 16 pings are running already; try later: Device or resource busy" \
	"$(err_of fq ping $B count 1)"
kill -9 $pids 2>/dev/null
wait $pids 2>/dev/null
# (the kernel stops each as its socket closes; give the passive ends time)
for i in $(seq 10); do
	out=$(fq ping $B count 2 2>&1) && break
	sleep 1
done
check_match "... and once they are stopped a ping runs again" " 2 sent, 2 received" "$out"

# The device goes away under a long ping: it ends, nothing hangs.
"$FQ_CLI" ping $B count 1000 interval 100 > "$tmp/long.out" 2>&1 &
bg=$!
sleep 2
rdma link del rxe91b
ms=$(fq_ms_until_exit $bg 60)
check_true "the ping ended after its device was removed ($ms ms)" fq_exited $bg
bg=
check_eq "and said why" "fabriq: ping: the connection failed during the ping: No such device" \
	"$(cat "$tmp/long.out")"

# Unloading fabriq stops a running ping, which says so.
rdma link add rxe91b type rxe netdev fqv91b
"$FQ_CLI" ping $B count 1000 interval 100 > "$tmp/unload.out" 2>&1 &
bg=$!
sleep 2
check_true "fabriq unloads under a running ping" rmmod fabriq
ms=$(fq_ms_until_exit $bg 30)
bg=
check_eq "... which ends and says why" \
	"fabriq: ping: the ping was stopped: fabriq is unloading: Interrupted system call" \
	"$(cat "$tmp/unload.out")"
fq_load_fabriq
ktap_finish
