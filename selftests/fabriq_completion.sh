#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# fabriq_completion.sh - the bash completion (tools/bash-completion/fabriq)
# against the CLI's own grammar: every object of `fabriq help`, every
# command of each `fabriq X help`, every `qos set` setting, every `bench`
# option and every `stats config set` keyword is offered where the grammar
# puts it; device names come from the RDMA devices there are (a
# fabriq_sim device made for the test), and `qos apply -f` offers files.
. "$(dirname "$0")/lib.sh"

ktap_plan 12
tmp=$(mktemp -d)
cleanup() { fq_sim_del 75 2>/dev/null; rm -rf "$tmp"; }
trap cleanup EXIT
fq_load_fabriq && fq_insmod fabriq_sim && fq_sim_new "75 1 eth" || ktap_bail "a fabriq_sim device"
. "$FQ_SRC/tools/bash-completion/fabriq"
# offered WORD...: what completing the last WORD of `fabriq WORD...` offers
offered() {
	COMP_WORDS=(fabriq "$@") COMP_CWORD=$#
	COMPREPLY=()
	_fabriq
	printf '%s\n' "${COMPREPLY[@]}" | sort -u | xargs
}
# lacking WANTED OFFERED: the words of WANTED not in OFFERED
lacking() {
	local w out=
	for w in $1; do
		case " $2 " in *" $w "*) ;; *) out="$out $w" ;; esac
	done
	echo "${out# }"
}
help_of() { "$FQ_CLI" "$@" help 2>&1; }
# the words of a "NAME := { a | b | ... }" of `fabriq OBJECT help`, over lines
alternatives() { help_of $1 | tr '\n' ' ' | sed -n "s/.*$2 := {\([^}]*\)}.*/\1/p" | tr -d '|' | xargs; }

objects=$(alternatives "" OBJECT)
# (a list the help did not give is NONE, which is never offered)
check_eq "the objects of 'fabriq help' ($objects) are offered, and help" "" \
	"$(lacking "${objects:-NONE} help" "$(offered "")")"
check_eq "... and an unfinished one completes: 'fabriq qo' to qos" "qos" "$(offered qo)"
bad=
for obj in dev qos comm stats; do
	cmds=$(help_of $obj | sed -n "s/^\(Usage:\)\? *fabriq $obj \([a-z]\+\).*/\2/p" | sort -u | xargs)
	l=$(lacking "${cmds:-NONE}" "$(offered $obj "")")
	[ -z "$l" ] || bad="$bad $obj: $l;"
done
check_eq "every command of 'fabriq dev|qos|comm|stats help' is offered after the object" "" "$bad"
colls=$(alternatives bench COLL)
check_eq "every collective of 'fabriq bench help' ($colls) is offered" "" \
	"$(lacking "${colls:-NONE}" "$(offered bench "")")"
opts=$(help_of bench | tr -s ' \t' '\n' | grep -E '^--?[a-z][a-z-]*$' | sort -u | xargs)
check_eq "every option of 'fabriq bench help' is offered after the collective" "" \
	"$(lacking "${opts:-NONE}" "$(offered bench allreduce -)")"
settings=$(help_of qos | sed -n '/SETTING :=/,/^       SL /{/^       SL /!p}' | sed 's/^where//' |
	   tr -s ' \t' '\n' | tr -d '[]' | grep -E '^[a-z][a-z0-9-]*$' | sort -u | xargs)
check_eq "every keyword of the SETTING grammar of 'fabriq qos help' is offered after 'qos set dev DEV'" \
	"" "$(lacking "${settings:-NONE}" "$(offered qos set dev fqsim75 "")")"
keys=$(help_of stats | sed -n '/fabriq stats config set/,/fabriq stats help/p' | tr -s ' \t' '\n' | tr -d '[]' |
       grep -E '^[a-z][a-z-]*$' | grep -vx -e fabriq -e stats -e config -e set -e help -e on -e off |
       sort -u | xargs)
check_eq "every keyword of 'fabriq stats config set' is offered after it" "" \
	"$(lacking "${keys:-NONE}" "$(offered stats config set "")")"
check_eq "... each detector of 'fabriq stats help' after 'detector'" "" \
	"$(lacking "$(alternatives stats NAME | grep . || echo NONE)" \
		    "$(offered stats config set detector "")")"
check_eq "... and on and off after 'enabled'" "off on" "$(offered stats config set detector latency enabled "")"
check_match "device names: fqsim75 after 'dev show'" "(^| )fqsim75( |$)" "$(offered dev show "")"
check_eq "... and after 'qos set dev fqsim'" "fqsim75" "$(offered qos set dev fqsim)"
touch "$tmp/fabric.qos"
check_eq "'qos apply -f' offers files" "$tmp/fabric.qos" "$(offered qos apply -f "$tmp/fab")"
ktap_finish
