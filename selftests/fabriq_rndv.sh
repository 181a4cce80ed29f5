#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# fabriq_rndv.sh - the rendezvous (kernel/coll/rndv.c; module parameter
# rendezvous, which this turns on for its communicators): every collective,
# type and op bit-exact on 1 to 8 ranks and with 4 channels and 16 MiB
# (fabriq_coll, as fabriq_coll.sh runs it without), and a peer that breaks
# the protocol.  Two ranks, each a `fabriq bench` process of its own, over an
# authenticated communicator (so the peer is a member that misbehaves, not
# a stranger); the debugfs knob fault_rndv makes rank 1 break its next
# read request or FIN:
#   len     a read request one byte shorter than the messages it lends
#   short   a read request of 8 bytes, not 16
#   reduce  a read request for a message rank 0 reduces (an allreduce)
#   fin     255 more reads reported than rank 0 has requests out
#   rkey    a key that is not the MR's: rank 0's read of it fails
# Rank 0 refuses each: its call fails (EPROTO; EIO for the key), the kernel
# log names rank 1 and what was wrong, and nothing is left: no object, no
# MR, no oops or WARN.  The knob refuses a kind it does not know.
. "$(dirname "$0")/lib.sh"

ktap_plan 12
mark=$(fq_console_mark)
fq_load_fabriq || ktap_bail "cannot load fabriq"
here=$(dirname "$0")
fq_ranks_up 8 || ktap_bail "cannot set up 8 local ranks"
param=/sys/module/fabriq/parameters/rendezvous
echo 1 > $param
port=19700
tmp=$(mktemp -d)
cleanup() {
	pkill -f -- "--port $port" 2>/dev/null
	echo 0 > $param
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

# rndv_fault KIND COLL N: 1 MiB calls of COLL (a message each 64 KiB), rank
# 1's next read request or FIN broken so; prints rank 0's failure and the
# kernel's word on it
rndv_fault() {
	local fid=$((0x7d70 + $3)) p=$((port + $3)) r k pid=()
	for r in 0 1; do
		fq bench "$2" --rank $r --peers "$peers" --port $p --id $fid -b 1M -e 1M -w 0 \
			-n 1000000 -c 0 > "$tmp/f$r.log" 2>&1 &
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

a1="rank 1 sent"
n=0
for want in "len:allgather:Protocol error:$a1 a read request of [0-9]+ bytes, not a run of whole messages" \
	"short:allgather:Protocol error:$a1 a malformed read request" \
	"reduce:allreduce:Protocol error:$a1 a read request for a message this rank reduces" \
	"fin:allgather:Protocol error:rank 1 broke the rendezvous protocol \\(immediate 0x[0-9a-f]+\\)" \
	"rkey:allgather:Input/output error:a read on the connection to rank 1 failed: remote access error"; do
	IFS=: read -r kind coll err log <<< "$want"
	got=$(rndv_fault "$kind" "$coll" $n)
	n=$((n + 1))
	ktap_diag "$kind: $got"
	check_match "rank 1's next read request or FIN broken so ($kind, $coll): rank 0 fails with $err, the kernel log says why" \
		"^$coll failed: $err \\| .*$log" "$got"
done
check_eq "debugfs fault_rndv refuses a kind it does not know, and shows the kinds" \
	"refused [none] len short rkey reduce fin" "$(cat "$tmp/knob")"

wait_for 10 sh -c "! grep -qv ' 0$' $FQ_DBG/objects"
check_eq "every fabriq object counter is back at zero (MRs too)" "" "$(grep -v ' 0$' "$FQ_DBG/objects")"
check_true "the kernel log shows no oops or WARN" fq_console_clean "$mark"
ktap_finish
