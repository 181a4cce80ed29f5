#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# fabriq_comm_status.sh - the control connections' heartbeats: every rank
# of a job knows where every other one is, names the rank that holds the
# others up, and finds a rank whose host fell off the fabric within the
# peer timeout instead of the op timeout.  Three local ranks, each a
# `fabriq bench` process of its own (as on three hosts), 256 KiB ring
# allreduces, a 1 s peer timeout:
#   1. `fabriq comm status` (text, JSON) and debugfs comms/*/status list
#      every rank: itself, and the others alive, heard within the timeout.
#   2. Rank 2 made slow (debugfs fault_delay_us: 1 s before each step):
#      every rank's view names rank 2 as the origin, though ranks 0 and 1
#      also wait on each other.
#   3. Rank 2's host falls off the fabric (its veth's bridge port goes
#      down): ranks 0 and 1 find it dead within the peer timeout, or
#      learn it from the one that found it first,
#      their calls fail with EHOSTDOWN long before the 30 s op timeout,
#      each prints the status naming rank 2 dead, and the kernel log says
#      why.  Rank 2, cut off, finds the others dead too.
#   4. Malformed heartbeats over an authenticated control connection
#      (debugfs fault_heartbeat breaks rank 1's next one: short, a bad
#      magic, another rank's name, a rank out of range, itself dead,
#      itself at the end of its own slow link):
#      rank 0 refuses each, its call fails with EPROTO, and the kernel
#      log names the sender and what was wrong.
#   5. A QP that fails by itself: rank 1's netdev refuses every packet
#      (a pfifo of length 0), which rxe turns into a QP error with only
#      flushes; rank 1 takes its connection for closed and its call
#      fails with ECONNRESET, rank 0's with EHOSTDOWN (rank 1 fell
#      silent), both long before the 30 s op timeout, and the kernel log
#      names the connection.  rxe failed the device's CM QP as well, for
#      good: rank 1's device is made anew, and connects again.
#   6. The CM handshake's last packet lost: every ready-to-use (RTU) that
#      rank 1, which connects, sends is dropped on the bridge.  Rank 1 is
#      up once it sent it, and counts rank 0's heartbeats from then on;
#      rank 0, which accepted, takes rank 1's first message for the
#      handshake's end (fq_cm_peer_sent()) instead of waiting 4 s for
#      the CM's retry: a 2-rank allreduce runs, nobody is found dead.
#   7. Nothing is left afterwards; the log shows no oops or WARN.
. "$(dirname "$0")/lib.sh"

ktap_plan 28
# a 1 s peer timeout; 5 s on a debug kernel (KASAN's slowness, measured:
# 0.8 s without a heartbeat happens there on a loaded guest)
peer_ms=1000 slack_ms=1000
case $(uname -r) in *fqdebug*) peer_ms=5000 slack_ms=5000 ;; esac
fq_require jq
mark=$(fq_console_mark)
fq_load_fabriq || ktap_bail "cannot load fabriq"
fq_ranks_up 3 || ktap_bail "cannot set up 3 local ranks"
peers="$(fq_ranks_addr 0),$(fq_ranks_addr 1),$(fq_ranks_addr 2)"
port=19600
id=0x57a7
tmp=$(mktemp -d)
# a rank whose link this test disturbs (rank 2 cut off, rank 1's qdisc
# refusing its packets) gets a new rxe device (fq_rank_renew)
renew=
cleanup() {
	local i
	pkill -f -- "--port $port" 2>/dev/null
	ip link set fqr2p up 2>/dev/null
	tc qdisc del dev fqr1 root 2>/dev/null
	for i in 0 1; do tc qdisc del dev "fqr${i}p" ingress 2>/dev/null; done
	for i in $renew; do fq_rank_renew "$i"; done
	rm -rf "$tmp"
}
trap cleanup EXIT

pid=()
for r in 0 1 2; do
	fq bench allreduce --rank $r --peers "$peers" --port $port --id $id --algo ring \
		-b 256K -e 256K -w 0 -n 1000000 -c 0 --peer-timeout $peer_ms > "$tmp/r$r.log" 2>&1 &
	pid[r]=$!
done
wait_for 60 sh -c "$FQ_CLI comm show id $id | grep -c 'state ready' | grep -qx 3" ||
	ktap_bail "the three ranks never connected"
sleep 2

# 1. every rank's view of every rank
j=$(fq -j comm status id $id)
views=$(echo "$j" | jq -r 'sort_by(.rank)[] | [.ranks | sort_by(.rank)[] | "\(.rank):\(.state)"] | join(" ")' | xargs)
check_eq "comm status: each of the 3 local ranks lists every rank, itself and two alive" \
	"0:self 1:alive 2:alive 0:alive 1:self 2:alive 0:alive 1:alive 2:self" "$views"
check_eq "... each heard within the $peer_ms ms peer timeout, and the timeout shown" \
	"$peer_ms $peer_ms $peer_ms" \
	"$(echo "$j" | jq -r --argjson t $peer_ms '.[] | select([.ranks[] | select(.heard_ms != null and .heard_ms >= $t)] | length == 0) | .peer_timeout_ms' | xargs)"
check_match "... in text: each rank with its call" \
	"rank 1 address $(fq_ranks_addr 1) alive heard [0-9]+ms ago op [0-9]+ " \
	"$(fq comm status id $id)"
dbg=$FQ_DBG/comms/57a7-r0/status
check_eq "debugfs comms/57a7-r0/status: a line per rank" "0 self,1 alive,2 alive" \
	"$(awk '!/^#/ { printf "%s%s %s", s, $1, $2; s = "," } END { print "" }' "$dbg")"

# 2. rank 2 sleeps a second before each step: the others wait on it
echo 1000000 > "$FQ_DBG/comms/57a7-r2/fault_delay_us"
origin() {	# origin R: the origins in local rank R's view
	fq -j comm status id $id |
		jq -r --argjson r "$1" '.[] | select(.rank == $r) | [.ranks[] | select(.origin) | .rank] | join(",")'
}
seen=
for try in $(seq 20); do
	o0=$(origin 0) o1=$(origin 1) o2=$(origin 2)
	[ "$o0 $o1 $o2" = "2 2 2" ] && { seen=yes; break; }
	sleep 0.5
done
ktap_diag "after $try tries, the origins seen by ranks 0, 1, 2: '$o0' '$o1' '$o2'"
ktap_diag "rank 0's view: $(fq comm status id $id | sed -n '/^comm 0x57a7 rank 0 /,+3p' | tr -s ' \n' ' ')"
check_eq "with rank 2 slow, every rank's view names rank 2 as the origin" yes "$seen"
held=$(fq -j comm status id $id | jq -r '.[] | select(.rank == 0) | .ranks[] | select(.rank == 2) | .blocks')
check_true "... holding up at least one rank ($held)" test "${held:-0}" -ge 1
echo 0 > "$FQ_DBG/comms/57a7-r2/fault_delay_us"

# 3. rank 2's host falls off the fabric
sleep 1
t0=$(date +%s%N)
renew=2
ip link set fqr2p down
wait "${pid[0]}"
rc0=$?
t1=$(date +%s%N)
wait "${pid[1]}"
rc1=$?
ms=$(((t1 - t0) / 1000000))
ktap_diag "rank 0's bench ended $ms ms after rank 2 was cut off (exit $rc0; rank 1 exit $rc1)"
check_match "rank 0's call failed with EHOSTDOWN" "allreduce failed: Host is down" "$(cat "$tmp/r0.log")"
check_true "... within the $peer_ms ms peer timeout (+$slack_ms ms for the teardown; op timeout 30 s): $ms ms" \
	test "$ms" -lt $((peer_ms + slack_ms))
check_match "... and it printed the status: rank 2 dead" \
	"rank 2 address $(fq_ranks_addr 2) dead heard [0-9]+ms ago" "$(cat "$tmp/r0.log")"
check_match "rank 1's call failed with EHOSTDOWN too, and it printed rank 2 dead" \
	"allreduce failed: Host is down.*rank 2 address $(fq_ranks_addr 2) dead" \
	"$(tr '\n' ' ' < "$tmp/r1.log")"
klog=$(fq_kernel_since "$mark" | grep 'communicator 57a7 rank [01]:')
ktap_diag "$(echo "$klog" | sed 's/.*communicator/communicator/' | tr '\n' '|')"
check_match "the kernel log of ranks 0 and 1 says which rank died and why" \
	"rank [01]: rank 2 \\($(fq_ranks_addr 2)\\) is dead: (silent for [0-9]+ ms|its connection ran out of retries|rank [01] found it dead).*rank [01]: rank 2 \\(" \
	"$(echo "$klog" | tr '\n' ' ')"
ip link set fqr2p up
wait "${pid[2]}"
ktap_diag "rank 2, cut off: $(grep 'failed' "$tmp/r2.log")"
fq_rank_renew 2 && renew=

# 4. malformed heartbeats: rank 1 breaks one, rank 0 must refuse it
hb_fault() {	# hb_fault KIND N: a 2-rank communicator, rank 1's heartbeat broken so
	local fid=$((0x5a70 + $2)) fport=$((port + 10 + $2)) r k
	for r in 0 1; do
		fq bench allreduce --rank $r --peers "$(fq_ranks_addr 0),$(fq_ranks_addr 1)" \
			--port $fport --id $fid -b 8 -e 8 -w 0 -n 1000000 -c 0 \
			--peer-timeout $peer_ms > "$tmp/f$r.log" 2>&1 &
		pid[r]=$!
	done
	k=$FQ_DBG/comms/$(printf %x $fid)-r1/fault_heartbeat
	wait_for 60 test -e "$k" && wait_for 60 sh -c "$FQ_CLI comm show id $fid | grep -q 'state ready'"
	# the knob itself: a kind it does not know is refused
	if (echo bogus > "$k") 2>/dev/null; then k_bogus=taken; else k_bogus=refused; fi
	echo "$k_bogus $(cat "$k")" > "$tmp/knob"
	echo "$1" > "$k"
	wait_for 20 sh -c "! kill -0 ${pid[0]} 2>/dev/null"
	kill "${pid[1]}" 2>/dev/null
	wait "${pid[0]}" "${pid[1]}"
	echo "$(grep -o 'allreduce failed: .*' "$tmp/f0.log" | head -1) |" \
		"$(fq_kernel_since "$mark" | grep -o "communicator $(printf %x $fid) rank 0: .*malformed.*" | head -1)"
}
a1="rank 1 \\($(fq_ranks_addr 1)\\) sent a malformed heartbeat"
n=0
for want in "short:48 bytes, not 64" "magic:magic 0x[0-9a-f]+, not 0x[0-9a-f]+" \
	"rank:it says it is rank 0" "wait_rank:wait_rank 2 \\(2 ranks\\)" \
	"dead_rank:dead_rank 1 \\(2 ranks\\)" \
	"slow_rank:slow_rank 1, slow_links 1 \\(2 ranks\\)"; do
	kind=${want%%:*}
	got=$(hb_fault "$kind" $n)
	n=$((n + 1))
	ktap_diag "$kind: $got"
	check_match "a heartbeat broken so ($kind): rank 0 fails with EPROTO, the kernel log says why" \
		"^allreduce failed: Protocol error \\| .*$a1: ${want#*:}\$" "$got"
done
check_eq "debugfs fault_heartbeat refuses a kind it does not know, and shows the kinds" \
	"refused [none] short magic rank wait_rank dead_rank slow_rank" "$(cat "$tmp/knob")"

# 5. rank 1's QPs fail by themselves.  Only where rxe fails a QP whose
# packet its netdev refused: 6.1's rxe takes the refusal for -EAGAIN and
# sends again, forever (measured there: both calls EHOSTDOWN after 12.7 s,
# rank 1's CPU spent resending)
qp_fails() {
	qid=0x57b7 qport=$((port + 5))
	for r in 0 1; do
		fq bench allreduce --rank $r --peers "$(fq_ranks_addr 0),$(fq_ranks_addr 1)" --port $qport \
			--id $qid -b 256K -e 256K -w 0 -n 1000000 -c 0 --peer-timeout $peer_ms \
			> "$tmp/q$r.log" 2>&1 &
		pid[r]=$!
	done
	wait_for 60 sh -c "$FQ_CLI comm show id $qid | grep -c 'state ready' | grep -qx 2" &&
		sleep 2
	t0=$(date +%s%N)
	renew=1
	tc qdisc add dev fqr1 root pfifo limit 0
	wait "${pid[1]}"
	ms1=$((($(date +%s%N) - t0) / 1000000))
	wait "${pid[0]}"
	ms0=$((($(date +%s%N) - t0) / 1000000))
	tc qdisc del dev fqr1 root
	fq_rank_renew 1 && renew=
	ktap_diag "rank 1's netdev refuses every packet: rank 1's call failed after $ms1 ms: $(grep -o 'allreduce failed: .*' "$tmp/q1.log" | head -1)"
	ktap_diag "... rank 0's after $ms0 ms: $(grep -o 'allreduce failed: .*' "$tmp/q0.log" | head -1)"
	check_match "a QP failed by itself (rank 1's packets refused): rank 1's call fails with ECONNRESET" \
		"allreduce failed: Connection reset by peer" "$(cat "$tmp/q1.log")"
	check_match "... rank 0's with EHOSTDOWN (rank 1 fell silent)" \
		"allreduce failed: Host is down" "$(cat "$tmp/q0.log")"
	check_true "... both within the $peer_ms ms peer timeout (+$slack_ms ms and the 1 s a closed connection's last messages get; op timeout 30 s): $ms1 $ms0 ms" \
		test "$ms1" -lt $((peer_ms + slack_ms + 1000)) -a "$ms0" -lt $((peer_ms + slack_ms + 1000))
	klog=$(fq_kernel_since "$mark" | grep -o 'communicator 57b7 rank 1: .*went to error.*' | head -1)
	ktap_diag "$klog"
	check_match "... and rank 1's kernel log names the connection whose QP failed" \
		"rank 1: the QP of channel [0-9]+ to rank 0 \\($(fq_ranks_addr 0)\\) went to error with only flushes" \
		"$klog"
	check_eq "... and rank 1's new rxe device connects to rank 0 and reduces again: 1 size, 0 wrong" "1 0" \
		"$(fq -j bench allreduce --ranks 2 --peers "$(fq_ranks_addr 0),$(fq_ranks_addr 1)" \
			--port $((port + 6)) -b 64K -e 64K -n 3 -c 1 |
			jq -r '"\(.results | length) \(.summary.wrong)"')"
}
case $(uname -r) in
6.1.*)
	for what in "rank 1's call fails with ECONNRESET" "rank 0's with EHOSTDOWN" \
		"both within the peer timeout" "rank 1's kernel log names the connection" \
		"rank 1's new rxe device connects again"; do
		ktap_skip "a QP failed by itself: $what" "6.1's rxe never fails a QP whose packet was refused"
	done ;;
*)	qp_fails ;;
esac

# 6. every RTU lost.  Where the bridge sees them (fqrNp's ingress), so
# that no netdev refuses a packet (rxe would fail the QPs: 5. above).
# RoCE v2 over IPv4 without options: UDP to 4791 at 22; BTH (12 bytes)
# and DETH (8) from 28, then the MAD: its class at 49 (7: the CM), its
# attribute at 64 (0x0014: ready-to-use).
rtu_mark=$(fq_console_mark)
for i in 0 1; do
	tc qdisc add dev "fqr${i}p" ingress &&
		tc filter add dev "fqr${i}p" ingress protocol ip prio 1 u32 \
			match u8 0x45 0xff at 0 match u8 17 0xff at 9 match u16 4791 0xffff at 22 \
			match u8 0x07 0xff at 49 match u16 0x0014 0xffff at 64 action drop
done
out=$(fq -j bench allreduce --ranks 2 --peers "$(fq_ranks_addr 0),$(fq_ranks_addr 1)" \
	--port $((port + 7)) -b 64K -e 64K -n 5 -c 1 --peer-timeout $peer_ms 2>&1)
got=$(echo "$out" | jq -r '"\(.results | length) \(.summary.wrong)"' 2>/dev/null) ||
	got=$(echo "$out" | grep -v '^[[:space:]]*$' | head -n 1)
rtus=$(for i in 0 1; do tc -s filter show dev "fqr${i}p" ingress; done |
	grep -o 'Sent [0-9]* bytes [0-9]* pkt' | awk '{ n += $4 } END { print n + 0 }')
for i in 0 1; do tc qdisc del dev "fqr${i}p" ingress; done
dead=$(fq_kernel_since "$rtu_mark" | grep -c 'is dead')
ktap_diag "RTUs dropped on the bridge: $rtus; allreduce: $got; ranks found dead: $dead"
check_true "the CM's ready-to-use dropped on the bridge ($rtus of them)" test "$rtus" -ge 1
check_eq "... the 2-rank allreduce runs all the same: 1 size, 0 wrong" "1 0" "$got"
check_eq "... and no rank was found dead (the accepting rank took the first message for the handshake's end)" \
	0 "$dead"

# 7. nothing left
wait_for 10 sh -c "! grep -qv ' 0$' $FQ_DBG/objects"
check_eq "every fabriq object counter is back at zero" "" "$(grep -v ' 0$' "$FQ_DBG/objects")"
check_true "the kernel log shows no oops or WARN" fq_console_clean "$mark"
ktap_finish
