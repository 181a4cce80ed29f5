#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# fabriq_coll_remove.sh - `rdma link del` under a running allreduce, ten
# times, every other one with 4 channels (QPs) per peer and messages in
# flight on each: the removal returns at once, every rank's call returns
# with the documented error (Documentation/collectives.md, "Device
# removal"), nothing is left behind, and the re-added device works again;
# readers of debugfs comms/*/peers and of COMM_GET loop throughout.
. "$(dirname "$0")/lib.sh"

rounds=10
ktap_plan $((rounds * 4 + 3))
fq_require sysctl
fq_load_fabriq || ktap_bail "cannot load fabriq"
fq_ranks_up 2 || ktap_bail "cannot set up 2 local ranks"
log=/tmp/fq_rm_bench.log

# ops_done R: operations rank R of this round's communicator (id $id) completed
ops_done() { awk '$1 == "ops_done" { print $2 }' "$FQ_DBG/comms/$(printf %x "$id")-r$1/summary" 2>/dev/null; }
running() { [ "$(ops_done 0)" -gt 0 ] 2>/dev/null && [ "$(ops_done 1)" -gt 0 ] 2>/dev/null; }
# rank_error R: the errno text rank R's bench ended with
rank_error() { sed -n "s/^fabriq: bench: rank $1: allreduce failed: //p" "$log" | head -1; }
# The rank on the removed device: ENODEV.  Its peer: ECONNRESET when the
# disconnect reached it; when the device went before its disconnect could
# leave it, EHOSTDOWN once the control connection was silent for the peer
# timeout (5 s), or ETIMEDOUT had the op timeout come first.
on_removed='^No such device$'
on_peer='^(Connection reset by peer|Host is down|Connection timed out)$'

# readers loop over every communicator's debugfs files and COMM_GET
# across all the removals (they must never touch a released QP)
passes=/tmp/fq_rm_readers
: > $passes
(while :; do
	cat "$FQ_DBG"/comms/*/peers "$FQ_DBG"/comms/*/summary > /dev/null 2>&1
	"$FQ_CLI" comm show > /dev/null 2>&1
	echo >> $passes
done) &
readers=$!

for ((i = 1; i <= rounds; i++)); do
	id=$((0x7100 + i)) channels=$((i % 2 ? 1 : 4))
	fq bench allreduce --ranks 2 --peers 198.19.0.1,198.19.0.2 -b 4M -e 4M -n 10000 -w 0 -c 0 --port 19100 \
		--channels $channels --id $id > "$log" 2>&1 &
	bench=$!
	wait_for 60 running
	check_true "round $i: the allreduce is running on $channels channel(s) (ops done: rank 0 $(ops_done 0), rank 1 $(ops_done 1))" running
	sleep 0.$((RANDOM % 10))
	t0=$SECONDS
	timeout 60 rdma link del fqr1
	rc=$?
	check_eq "round $i: rdma link del returns (in $((SECONDS - t0)) s)" 0 "$rc"
	if timeout 60 tail --pid=$bench -f /dev/null; then
		wait $bench
		brc=$?
		e0=$(rank_error 0) e1=$(rank_error 1)
		check_true "round $i: rank 1 (removed) ENODEV, rank 0 ECONNRESET, EHOSTDOWN or ETIMEDOUT (exit $brc; rank 0: '$e0', rank 1: '$e1')" \
			sh -c "test $brc -ne 0 && printf '%s\n' '$e1' | grep -Eq '$on_removed' &&
			       printf '%s\n' '$e0' | grep -Eq '$on_peer'"
	else
		ktap_not_ok "round $i: the bench did not return"
		kill -9 $bench 2>/dev/null
	fi
	rdma link add fqr1 type rxe netdev fqr1
	wait_for 10 sh -c "rdma link show fqr1/1 | grep -q ACTIVE"
	check_true "round $i: the re-added device runs an allreduce" \
		sh -c "$FQ_CLI bench allreduce --ranks 2 --peers 198.19.0.1,198.19.0.2 -b 64K -e 64K -n 2 -c 1 --port 19200 >/dev/null"
done
kill $readers
wait $readers 2>/dev/null
check_true "debugfs peers/summary and COMM_GET readers looped across the removals ($(wc -l < $passes) passes)" \
	test "$(wc -l < $passes)" -gt 0
grep -m3 'failed' "$log" | sed 's/^/# last bench: /'
wait_for 10 sh -c "! grep -qv ' 0$' $FQ_DBG/objects"
check_eq "module object counters back at zero" "" "$(grep -v ' 0$' "$FQ_DBG/objects")"
check_eq "no fabriq QP left" "" "$(rdma resource show qp | grep -w fabriq)"
ktap_finish
