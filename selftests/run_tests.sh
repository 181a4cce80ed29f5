#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# run_tests.sh - run the fabriq kselftests the way kselftest's runner does:
# one KTAP document, each test's own KTAP output indented beneath a
# "# selftests: fabriq: NAME" line, then "ok/not ok N selftests: fabriq: NAME".
# fabriq.ko is (re)loaded before each test.  Assertions a test planned
# but never reached (it stopped early, crashed or timed out) are reported
# as "not ok ... # MISSING" beneath it, so a set-up failure can never shrink
# the total.  Tests come from the Makefile's
# TEST_PROGS and TEST_GEN_PROGS, in that order; TESTS="a.sh b" runs only
# those of them (a name that is no test is an error).
dir=$(cd "$(dirname "$0")" && pwd)
. "$dir/lib.sh"

tests=$(make -s -C "$dir" --no-print-directory print-tests)
if [ -n "${TESTS:-}" ]; then
	for t in $TESTS; do
		case " $(echo $tests) " in
		*" $t "*) ;;
		*) echo "run_tests.sh: TESTS names '$t', which is not a test here" >&2; exit 2 ;;
		esac
	done
	tests=$TESTS
fi
n=$(echo $tests | wc -w)
# TEST_TIMEOUT=S overrides settings' per-test limit (a debug kernel is slower)
timeout_s=${TEST_TIMEOUT:-$(sed -n 's/^timeout=//p' "$dir/settings")}
echo "TAP version 13"
echo "1..$n"
i=0
status=0
out=$(mktemp)
trap 'rm -f "$out"' EXIT
for t in $tests; do
	i=$((i + 1))
	echo "# selftests: fabriq: $t"
	fq_load_fabriq >/dev/null 2>&1
	t_start=$(date +%s)
	timeout "${timeout_s:-300}" "$dir/$t" 2>&1 | tee "$out" | sed 's/^/  /'
	rc=${PIPESTATUS[0]}
	echo "# $t took $(( $(date +%s) - t_start ))s"
	# what the plan promised and the test never reported counts as failed
	# (a test that skipped as a whole, exit 4, promised nothing)
	missing=
	[ $rc -eq 4 ] || missing=$(ktap_missing "$out")
	if [ -n "$missing" ]; then
		printf '%s\n' "$missing" | sed 's/^/  /'
		[ $rc -eq 0 ] || [ $rc -eq 4 ] && rc=1
	fi
	case $rc in
	0) echo "ok $i selftests: fabriq: $t" ;;
	4) echo "ok $i selftests: fabriq: $t # SKIP" ;;
	124) echo "not ok $i selftests: fabriq: $t # TIMEOUT ${timeout_s}s"; status=1 ;;
	*) echo "not ok $i selftests: fabriq: $t # exit=$rc"; status=1 ;;
	esac
done
exit $status
