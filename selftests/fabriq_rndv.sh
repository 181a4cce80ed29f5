#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# fabriq_rndv.sh - both rendezvous: read requests (kernel/coll/rndv.c;
# module parameter rendezvous) and write grants (kernel/coll/push.c;
# rendezvous_write), each turned on in turn for this test's communicators:
# every collective, type and op bit-exact on 2 to 8 ranks and with 4
# channels and 16 MiB (fabriq_coll, as fabriq_coll.sh runs it without), a
# 1 MiB broadcast whose copies come written, and a peer that breaks the
# protocol.  Two ranks, each a `fabriq bench` process of its own, over an
# authenticated communicator (so the peer is a member that misbehaves, not
# a stranger); the debugfs knob fault_rndv makes rank 1 break
#   len       its next read request: one byte shorter than what it lends
#   short     ... of 8 bytes, not 16
#   reduce    ... for a message rank 0 reduces (an allreduce)
#   fin       its next FIN: 255 more reads reported than rank 0 has out
#   rkey      its next read request's key: rank 0's read of it fails
#   cts_len   its write grants: a byte more than the messages they cover
#   cts_rkey  its write grants' key: rank 0's writes fail
#   unwritten the second message of its next written run goes plain
# Rank 0 refuses each: its call fails (EPROTO; EIO for a key), the kernel
# log names rank 1 and what was wrong, and nothing is left: no object, no
# MR, no oops or WARN.  The knob refuses a kind it does not know.
. "$(dirname "$0")/lib.sh"

ktap_plan 21
mark=$(fq_console_mark)
fq_load_fabriq || ktap_bail "cannot load fabriq"
here=$(dirname "$0")
fq_ranks_up 8 || ktap_bail "cannot set up 8 local ranks"
param=/sys/module/fabriq/parameters/rendezvous
wparam=/sys/module/fabriq/parameters/rendezvous_write
echo 1 > $param
port=19700
tmp=$(mktemp -d)
cleanup() {
	pkill -f -- "--port $port" 2>/dev/null
	echo 0 > $param
	echo 0 > $wparam
	rm -rf "$tmp"
}
trap cleanup EXIT

for n in 2 3 8; do
	fq_run_sub "$n rank(s), every collective x type x op, with read requests" \
		"$here/fabriq_coll" --ranks "$n"
done
fq_run_sub "4 ranks, 1 MiB+3 and 16 MiB, 1 and 4 channels, with read requests" \
	"$here/fabriq_coll" --ranks 4 --big
peers="$(fq_ranks_addr 0),$(fq_ranks_addr 1)"

# rndv_fault KIND COLL N [ROOT]: 1 MiB calls of COLL (a message each 64
# KiB; broadcast from ROOT), rank 1 breaking the protocol so; prints rank
# 0's failure and the kernel's word on it
rndv_fault() {
	local fid=$((0x7d70 + $3)) p=$((port + $3)) r k pid=()
	for r in 0 1; do
		fq bench "$2" --rank $r --peers "$peers" --port $p --id $fid -b 1M -e 1M -w 0 \
			-n 1000000 -c 0 -r "${4:-0}" > "$tmp/f$r.log" 2>&1 &
		pid[r]=$!
	done
	k=$FQ_DBG/comms/$(printf %x $fid)-r1/fault_rndv
	wait_for 60 test -e "$k" && wait_for 60 sh -c "$FQ_CLI comm show id $fid | grep -q 'state ready'"
	sleep 1
	if (echo bogus > "$k") 2>/dev/null; then k_bogus=taken; else k_bogus=refused; fi
	echo "$k_bogus $(cat "$k")" > "$tmp/knob"
	echo "$1" > "$k"
	wait_for 40 sh -c "! kill -0 ${pid[0]} 2>/dev/null"
	kill "${pid[0]}" "${pid[1]}" 2>/dev/null
	wait "${pid[0]}" "${pid[1]}"
	echo "$(grep -o "$2 failed: .*" "$tmp/f0.log" | head -1) |" \
		"$(fq_kernel_since "$mark" | grep -o "communicator $(printf %x $fid) rank 0: .*" | head -1)"
}

# check_faults WANT...: each WANT is KIND:COLL:ROOT:ERROR:LOG (rndv_fault)
n=0
check_faults() {
	local want kind coll root err log got
	for want in "$@"; do
		IFS=: read -r kind coll root err log <<< "$want"
		got=$(rndv_fault "$kind" "$coll" $n "$root")
		n=$((n + 1))
		ktap_diag "$kind: $got"
		check_match "rank 1 breaks the rendezvous so ($kind, $coll): rank 0 fails with $err, the kernel log says why" \
			"^$coll failed: $err \\| .*$log" "$got"
	done
}
a1="rank 1 sent"
check_faults "len:allgather:0:Protocol error:$a1 a read request of [0-9]+ bytes, not a run of whole messages" \
	"short:allgather:0:Protocol error:$a1 a malformed read request" \
	"reduce:allreduce:0:Protocol error:$a1 a read request for a message this rank reduces" \
	"fin:allgather:0:Protocol error:rank 1 broke the rendezvous protocol \\(immediate 0x[0-9a-f]+\\)" \
	"rkey:allgather:0:Input/output error:a read on the connection to rank 1 failed: remote access error"
check_eq "debugfs fault_rndv refuses a kind it does not know, and shows the kinds" \
	"refused [none] len short rkey reduce fin cts_len cts_rkey unwritten" "$(cat "$tmp/knob")"

# the same with write grants instead (a rank runs one or the other)
echo 0 > $param
echo 1 > $wparam
for n in 2 8; do
	fq_run_sub "$n ranks, every collective x type x op, with write grants" \
		"$here/fabriq_coll" --ranks "$n"
done
fq_run_sub "4 ranks, 1 MiB+3 and 16 MiB, 1 and 4 channels, with write grants" \
	"$here/fabriq_coll" --ranks 4 --big
# 1 MiB broadcasts from rank 0, every result checked: rank 1 grants, rank 0
# writes; the counters as long as the communicator is there
fq bench broadcast --rank 0 --peers "$peers" --port $((port + 40)) --id 0x7d7f -b 1M -e 1M \
	-w 0 -n 150 -c 1 > "$tmp/w0.log" 2>&1 &
bench0=$!
fq bench broadcast --rank 1 --peers "$peers" --port $((port + 40)) --id 0x7d7f -b 1M -e 1M \
	-w 0 -n 150 -c 1 > "$tmp/w1.log" 2>&1 &
bench1=$!
wait_for 60 test -e "$FQ_DBG/comms/7d7f-r1/peers"
while [ -e "$FQ_DBG/comms/7d7f-r1/peers" ]; do
	w0=$(awk '$1 == 1 { print $22, $23, $24 }' "$FQ_DBG/comms/7d7f-r0/peers" 2>/dev/null)
	w1=$(awk '$1 == 0 { print $22, $23, $24 }' "$FQ_DBG/comms/7d7f-r1/peers" 2>/dev/null)
	# both ranks' counters read together: apart by what is in flight
	[ -n "$w0" ] && [ -n "$w1" ] && tx=$w0 rx=$w1
	sleep 0.5
done
wait $bench0; rc0=$?
wait $bench1; rc1=$?
read -r _ wtx _ <<< "${tx:-0 0 0}"
read -r grants _ wrx <<< "${rx:-0 0 0}"
ktap_diag "broadcast: rank 1 granted $grants runs and took $wrx messages written; rank 0 wrote $wtx"
# (the counters as last read together: apart by the messages in flight
# then, a call's 16 at most)
check_true "... rank 1 granted runs (20 or more), rank 0 wrote into them, and rank 1 took them written" \
	test "$grants" -ge 20 -a "$wtx" -ge "$grants" -a "$wrx" -ge "$((wtx - 16))" \
	-a "$wrx" -le "$((wtx + 16))"
check_eq "... and every result was right, on both ranks (each bench exits 0)" "0 0" "$rc0 $rc1"
check_faults "cts_len:broadcast:0:Protocol error:rank 1 granted writes of [0-9]+ messages, [0-9]+ bytes from message [0-9]+, which are not this rank's next" \
	"cts_rkey:broadcast:0:Input/output error:a send on the connection to rank 1 failed: remote access error" \
	"unwritten:broadcast:1:Protocol error:rank 1 sent a message plain inside a run it was writing"
# each of those calls failed with a grant out (rank 1's; in the last,
# rank 0's): its key must die before the call's pages go, as the control
# connection's QP, which the abort leaves up, takes RDMA WRITEs
dead=
for f in $((n - 3)) $((n - 2)) $((n - 1)); do
	dead="$dead $(fq_kernel_since "$mark" | grep -c "communicator $(printf %x $((0x7d70 + f))) rank [01]: the failed call left [0-9]* MR(s) lent or granted and not invalidated: deregistered")"
done
check_eq "... and each failed with a grant's MR deregistered, not left with a live key" \
	" 1 1 1" "$dead"

wait_for 10 sh -c "! grep -qv ' 0$' $FQ_DBG/objects"
check_eq "every fabriq object counter is back at zero (MRs too)" "" "$(grep -v ' 0$' "$FQ_DBG/objects")"
check_true "the kernel log shows no oops or WARN" fq_console_clean "$mark"
ktap_finish
