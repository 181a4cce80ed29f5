#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# fabriq_coll.sh - the in-kernel collectives on real rdma_rxe QPs: the
# schedules in isolation (fabriq_algo), every collective x type x op on
# 1, 2, 3, 4, 5 and 8 ranks (fabriq_coll), the large sizes on 4 ranks, bad
# input, timeouts, signals and a killed rank (fabriq_coll_bad), and then
# nothing left behind: no fabriq PD, CQ or QP in `rdma resource show` and
# every module object counter back at zero.
. "$(dirname "$0")/lib.sh"
here=$(cd "$(dirname "$0")" && pwd)

ktap_plan 13
fq_load_fabriq || { ktap_diag "cannot load fabriq"; exit 1; }
fq_ranks_up 8 || { ktap_diag "cannot set up 8 local ranks"; exit 1; }

# run_sub DESC CMD...: a nested KTAP program; its lines become diagnostics
run_sub() {
	local desc=$1 out rc
	shift
	out=$("$@" 2>&1)
	rc=$?
	printf '%s\n' "$out" | grep -E '^(ok|not ok|#)' | sed 's/^/#   /' | grep -v '^#   ok' | head -40
	check_eq "$desc: $(printf '%s\n' "$out" | grep -c '^ok') passed, \
$(printf '%s\n' "$out" | grep -c '^not ok') failed" 0 "$rc"
}

run_sub "schedules on simulated ranks" "$here/fabriq_algo"
for n in 1 2 3 4 5 8; do
	run_sub "$n rank(s), every collective x type x op" "$here/fabriq_coll" --ranks "$n"
done
run_sub "4 ranks, 1 MiB+3 and 16 MiB" "$here/fabriq_coll" --ranks 4 --big
run_sub "bad input, timeouts, signal, killed rank" "$here/fabriq_coll_bad"

objs() { cat "$FQ_DBG/objects"; }
wait_for 10 sh -c "! grep -qv ' 0$' $FQ_DBG/objects"
check_eq "module object counters back at zero" "" "$(objs | grep -v ' 0$')"
for res in pd cq qp; do
	check_eq "no fabriq $res left in rdma resource show" "" \
		"$(rdma resource show "$res" | grep -w fabriq)"
done
ktap_finish
