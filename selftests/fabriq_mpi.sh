#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# fabriq_mpi.sh - unmodified MPI programs run their collectives on fabriq
# through libfabriq_mpi.so (tools/mpi), with Debian's Open MPI: its
# fabriq_mpi_check (an MPI program that knows nothing of fabriq: every
# collective the library takes, blocking and MPI_I*, in place, on
# MPI_COMM_WORLD, a dup and a split, and what it must leave to MPI: a user
# op, a derived type, an MPI_IN_PLACE form fabriq lacks; messages that
# must move while a rank is inside a collective; types of the same
# signature that differ across ranks; two threads' collectives
# on communicators of their own, begun in opposite orders) runs on 2 and 4
# local ranks with and without the preload, and every result is bit for
# bit the same and right; the library's counters and fabriq's debugfs show
# the calls done on fabriq; an unmodified mpi4py program's comm.Allreduce
# on numpy arrays runs on fabriq too.  Open MPI's own traffic goes over
# TCP on the ranks' veths; fabriq's over their Soft-RoCE devices.
. "$(dirname "$0")/lib.sh"

ktap_plan 12
fq_require mpirun python3
MPI=$FQ_SRC/tools/mpi
PRELOAD=$MPI/libfabriq_mpi.so
tmp=$(mktemp -d)
cleanup() { rm -rf "$tmp"; }
trap cleanup EXIT
fq_load_fabriq && fq_ranks_up 4 || ktap_bail "fabriq and 4 local ranks"
[ -x "$MPI/fabriq_mpi_check" ] && [ -r "$PRELOAD" ] || ktap_bail "tools/mpi is not built (make mpi)"
hostname fqmpi
ip link set lo up
mkdir -p /dev/shm && { mountpoint -q /dev/shm || mount -t tmpfs tmpfs /dev/shm; }
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
# mpirun N [ENV...] -- CMD...: N local ranks, rank r on fqr$r (fabriq) and
# TCP over veth fqr$r (Open MPI)
run() {
	local n=$1 env=()
	shift
	while [ "$1" != -- ]; do env+=(-x "$1"); shift; done
	shift
	timeout 150 mpirun --oversubscribe -np "$n" --host "fqmpi:$n" --mca plm_rsh_agent false \
		--bind-to none --mca mpi_yield_when_idle 1 --mca pml ob1 --mca btl tcp,self \
		-x FABRIQ_MPI_DEV=fqr0,fqr1,fqr2,fqr3 "${env[@]}" \
		"$FQ_SRC/tools/mpibench/mpibench-rank" "$@"
}
# fabriq's own work requests on fqr0 so far (debugfs telemetry)
own_wrs() {
	sleep 0.3	# (a sample is 100 ms old at most)
	awk '$1 == "own_tx_wrs" { print $2 }' "$FQ_DBG/devices/fqr0/port1/telemetry/counters"
}

for n in 2 4; do
	w0=$(own_wrs)
	run $n -- "$MPI/fabriq_mpi_check" "$tmp/plain.$n" 2> "$tmp/plain.$n.err"
	rc=$?
	w1=$(own_wrs)
	check_eq "$n ranks, Open MPI alone: fabriq_mpi_check's results are right" \
		"0 0" "$rc $(cat "$tmp/plain.$n".* | grep -c WRONG)"
	run $n LD_PRELOAD="$PRELOAD" FABRIQ_MPI_VERBOSE=1 -- "$MPI/fabriq_mpi_check" "$tmp/fq.$n" \
		2> "$tmp/fq.$n.err"
	rc=$?
	w2=$(own_wrs)
	ktap_diag "$n ranks: $(grep -m1 'rank 0: MPI_Allreduce' "$tmp/fq.$n.err")"
	bad=
	for ((r = 0; r < n; r++)); do
		cmp -s "$tmp/plain.$n.$r" "$tmp/fq.$n.$r" || bad="$bad rank $r:$(diff "$tmp/plain.$n.$r" \
			"$tmp/fq.$n.$r" | grep '^>' | head -2 | tr '\n' ' ')"
	done
	check_eq "... with libfabriq_mpi.so preloaded: every result of every rank bit for bit the same" \
		"0 " "$rc $bad"
	check_match "... the library ran the collectives on fabriq (counters at MPI_Finalize)" \
		"rank 0: MPI_Allreduce [1-9][0-9]* on fabriq, [1-9][0-9]* fell through; MPI_Iallreduce [1-9][0-9]* on fabriq" \
		"$(cat "$tmp/fq.$n.err")"
	check_true "... and fabriq's debugfs shows them: fqr0's own work requests grew by $((w2 - w1)) with the preload, by $((w1 - w0)) without" \
		test $((w2 - w1)) -gt 0 -a $((w1 - w0)) -eq 0
done
grep -h "fell through\|stays on MPI\|failed" "$tmp/fq.4.err" | head -8 | while read -r l; do ktap_diag "$l"; done
check_match "the user op fell through to MPI, and was right" \
	"rank 0: world allreduce int user op [0-9a-f]+ ok" "$(cat "$tmp/fq.4.0")"
# (Open MPI gives MPI_THREAD_MULTIPLE: else the case says skipped)
check_match "two threads' allreduces on communicators of their own, begun in opposite orders on even and odd ranks, ended and were right (a library waiting under one lock timed out here)" \
	"rank 1: threads: thread 1's allreduces [0-9a-f]+ ok" "$(cat "$tmp/fq.4.1")"

# an unmodified mpi4py program
cat > "$tmp/allreduce.py" <<'PY'
from mpi4py import MPI
import numpy as np
comm = MPI.COMM_WORLD
a = np.arange(100000, dtype=np.float64) % 97 + comm.rank
b = np.empty_like(a)
comm.Allreduce(a, b, op=MPI.SUM)
want = sum(np.arange(100000, dtype=np.float64) % 97 + r for r in range(comm.size))
print("rank %d: %s" % (comm.rank, "ok" if np.array_equal(b, want) else "WRONG"))
PY
run 2 LD_PRELOAD="$PRELOAD" FABRIQ_MPI_VERBOSE=1 -- python3 "$tmp/allreduce.py" \
	> "$tmp/py" 2> "$tmp/py.err"
check_eq "mpi4py: comm.Allreduce of numpy arrays under the preload is right on both ranks" \
	"rank 0: ok rank 1: ok" "$(sort "$tmp/py" | xargs)$(grep -m1 Error "$tmp/py.err")"
check_match "... and ran on fabriq" "rank 0: MPI_Allreduce [1-9][0-9]* on fabriq" "$(cat "$tmp/py.err")"
ktap_finish
