# SPDX-License-Identifier: GPL-2.0
#
# tools/vm/console-problems.sh - what, in a guest's kernel console, is a
# problem: an extended regular expression, sourced by tools/vm/run (a
# guest's run fails on it), tools/vm/fabric (a killed host's console) and
# selftests/fabriq_fabric.sh (what it says of a host that did not finish)
# shellcheck shell=bash disable=SC2034 # its users read it
FQ_CONSOLE_PROBLEMS='WARNING:|BUG:|Oops|Kernel panic|general protection fault|blocked for more than|soft lockup|hard LOCKUP|rcu_sched detected stall|rcu: INFO: rcu|Call Trace:|UBSAN:|list_add corruption|list_del corruption|refcount_t:'

# fq_console_emulator_fault CONSOLE: the first register dump of CONSOLE
# whose EFLAGS has a bit above 21 set, if any.  No x86 instruction can set
# those (popf, iret and sahf ignore them; the CPU pushes them as 0), but
# qemu's TCG computes a guest's EFLAGS as its lazy flags state (CC_SRC,
# cut to 32 bits, when that state says "EFLAGS") or'ed with IF and bit 1:
# such a dump is the emulator's state gone wrong, and what follows from
# it (a TF or DF the guest never set: a #DB WARN, copies run backwards,
# a double fault) is not the guest kernel's doing.  Seen with qemu 7.2 on
# 6.12 guests of the 4-host fabric, in rdma_rxe's kworkers: EFLAGS
# 0xc43ada02 and 0x439c5f02, each the low half of that moment's RDI |
# 0x202.  The run still fails; this names the cause.
fq_console_emulator_fault() {
	grep -Eo 'EFLAGS: [0-9a-f]+' "$1" 2>/dev/null |
		awk '{ v = $2; sub(/^0+/, "", v)
		       # bits 22 and up: more than 6 hex digits, or a 6th above 3
		       if (length(v) > 6 || (length(v) == 6 && substr(v, 1, 1) > "3")) { print $2; exit } }'
}
