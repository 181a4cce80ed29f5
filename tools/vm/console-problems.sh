# SPDX-License-Identifier: GPL-2.0
#
# tools/vm/console-problems.sh - what, in a guest's kernel console, is a
# problem: an extended regular expression, sourced by tools/vm/run (a
# guest's run fails on it), tools/vm/fabric (a killed host's console) and
# selftests/fabriq_fabric.sh (what it says of a host that did not finish)
# shellcheck shell=bash disable=SC2034 # its users read it
FQ_CONSOLE_PROBLEMS='WARNING:|BUG:|Oops|Kernel panic|general protection fault|blocked for more than|soft lockup|hard LOCKUP|rcu_sched detected stall|rcu: INFO: rcu|Call Trace:|UBSAN:|list_add corruption|list_del corruption|refcount_t:'
