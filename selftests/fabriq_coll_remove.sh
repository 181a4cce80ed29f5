#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# fabriq_coll_remove.sh - `rdma link del` under a running allreduce, ten
# times: the removal returns at once, every rank's call returns (with an
# error), nothing is left behind, and the re-added device works again.
. "$(dirname "$0")/lib.sh"

rounds=10
ktap_plan $((rounds * 3 + 2))
fq_load_fabriq || { ktap_diag "cannot load fabriq"; exit 1; }
fq_ranks_up 2 || { ktap_diag "cannot set up 2 local ranks"; exit 1; }

for ((i = 1; i <= rounds; i++)); do
	fq bench allreduce --ranks 2 --peers 198.19.0.1,198.19.0.2 -b 4M -e 4M -n 10000 -w 0 -c 0 --port 19100 \
		> /tmp/fq_rm_bench.log 2>&1 &
	bench=$!
	wait_for 20 sh -c "ls $FQ_DBG/comms | grep -q r1" || ktap_diag "round $i: no communicator yet"
	sleep 0.$((RANDOM % 10))
	t0=$SECONDS
	timeout 60 rdma link del fqr1
	rc=$?
	check_eq "round $i: rdma link del returns (in $((SECONDS - t0)) s)" 0 "$rc"
	if timeout 60 tail --pid=$bench -f /dev/null; then
		wait $bench
		brc=$?
		check_true "round $i: both ranks' calls returned, with an error ($brc)" test "$brc" -ne 0
	else
		ktap_not_ok "round $i: the bench did not return"
		kill -9 $bench 2>/dev/null
	fi
	rdma link add fqr1 type rxe netdev fqr1
	wait_for 10 sh -c "rdma link show fqr1/1 | grep -q ACTIVE"
	check_true "round $i: the re-added device runs an allreduce" \
		sh -c "$FQ_CLI bench allreduce --ranks 2 --peers 198.19.0.1,198.19.0.2 -b 64K -e 64K -n 2 -c 1 --port 19200 >/dev/null"
done
grep -m3 'failed' /tmp/fq_rm_bench.log | sed 's/^/# last bench: /'
wait_for 10 sh -c "! grep -qv ' 0$' $FQ_DBG/objects"
check_eq "module object counters back at zero" "" "$(grep -v ' 0$' "$FQ_DBG/objects")"
check_eq "no fabriq QP left" "" "$(rdma resource show qp | grep -w fabriq)"
ktap_finish
