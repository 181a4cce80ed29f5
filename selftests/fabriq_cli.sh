#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# fabriq_cli.sh - the CLI's grammar and its errors: version, help, JSON
# validity, and that every bad keyword or value is named with the valid
# range and a non-zero exit status.
. "$(dirname "$0")/lib.sh"

ktap_plan 16
fq_load_fabriq || { ktap_not_ok "load fabriq"; ktap_finish; }

# run CMD...: sets out (stdout+stderr) and rc
run() { out=$("$@" 2>&1); rc=$?; }

run fq -V
check_eq "-V prints the module's version" \
	"fabriq $(modinfo -F version "$(modinfo -n fabriq 2>/dev/null || echo "$FQ_KO_DIR/fabriq.ko")")" \
	"$(echo "$out" | cut -d' ' -f1-2)"
run fq help
check_match "help prints the grammar" "OBJECT := \{ dev \| qos \| ping \| monitor \| bench \| comm \| stats \| top \}" "$out"
run fq dev help
check_match "dev help prints its grammar" "fabriq dev show \[DEV\]" "$out"
run fq monitor help
check_match "monitor help prints its grammar" "fabriq monitor \[count N\]" "$out"
run fq qos help
check_match "qos help prints its grammar" "fabriq qos set dev DEV \[port N\] SETTING" "$out"
run fq ping help
check_match "ping help prints its grammar" "fabriq ping ADDR \[from ADDR\] \[count N\]" "$out"
run fq qos sho
check_match "unknown qos command is named with the valid ones" \
	"unknown command 'sho' \(valid: show, set, apply, save, export, help\)" "$out"
run fq frobnicate
check_eq "unknown object: exit 1" 1 "$rc"
check_match "unknown object is named" "unknown object 'frobnicate'" "$out"
run fq dev shw
check_match "unknown dev command is named with the valid ones" \
	"unknown command 'shw' \(valid: show, help\)" "$out"
run fq -x dev show
check_match "unknown option is named" "unknown option '-x'" "$out"
run fq dev show "$(printf 'n%.0s' $(seq 64))"
check_match "too long name: value and range named" "is 64 characters long \(valid: 1-63\)" "$out"
run fq dev show nosuchdev0
check_match "missing device: kernel extack and the name" \
	"dev-name: no such RDMA device \(attribute dev-name\): No such device" "$out"
run fq monitor count 0
check_match "monitor count 0 refused with the range" "count '0' is not valid \(valid: 1-" "$out"
run sh -c "$FQ_CLI -j dev show | jq -e 'type == \"array\"'"
check_eq "-j output is one JSON array" 0 "$rc"
run sh -c "$FQ_CLI -p dev show | jq -e 'type == \"array\"'"
check_eq "-p output is valid JSON" 0 "$rc"
ktap_finish
