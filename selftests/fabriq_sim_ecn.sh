#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# fabriq_sim_ecn.sh - per-priority ECN marking at the device, driven by
# `fabriq qos set ... ecn` through the QoS backend ops table that
# fabriq_sim registers: the backend is found whichever module loads first,
# settings reach the sim and read back, bad settings are refused and change
# nothing, and a device without a backend falls back to RED.
. "$(dirname "$0")/lib.sh"

ktap_plan 12
modprobe rdma_rxe || { echo "1..0 # SKIP rdma_rxe not available"; exit 4; }
trap 'fq_sim_del 41 2>/dev/null; fq_sim_del 42 2>/dev/null; rdma link del rxe9 2>/dev/null; fq_veth_del 9; fq_load_fabriq' EXIT
fq_insmod fabriq_sim || { ktap_not_ok "load fabriq_sim"; ktap_finish; }
fq_load_fabriq
S=/sys/kernel/debug/fabriq_sim/fqsim41/port1/ecn
# "min B max B prob P" of priority 3 as fabriq reads it back
hw3() { fq -j qos show dev fqsim41 | jq -r '.[0].hardware["ecn prio 3"]'; }

fq_sim_new "41 1 eth"
check_match "fabriq sees fqsim41's QoS backend" "^qos_backend fabriq_sim$" \
	"$(cat $FQ_DBG/devices/fqsim41/port1/info)"
fq qos set dev fqsim41 ecn prio 3 min 153600 max 1536000 prob 10
check_eq "ECN set through fabriq reaches the device" \
	"prio 3 enable 1 min 153600 max 1536000 prob 10" "$(grep '^prio 3 ' $S)"
check_eq "fabriq reads it back through the backend" "min 150K max 1500K prob 10" "$(hw3)"
check_eq "other priorities untouched" "prio 4 enable 0 min 0 max 0 prob 0" "$(grep '^prio 4 ' $S)"

bad() { fq qos set dev fqsim41 ecn prio "$@" 2>&1 >/dev/null; }
check_match "min above max refused" "min 2000 is above max 1000" "$(bad 3 min 2000 max 1000 prob 10)"
check_match "probability 0 refused" "prob '0' is out of range \(valid: 1-100 percent\)" \
	"$(bad 3 min 1 max 2 prob 0)"
check_match "probability 101 refused" "prob '101' is out of range" "$(bad 3 min 1 max 2 prob 101)"
check_match "priority 8 refused" "priority '8' is out of range \(valid: 0-7\)" \
	"$(bad 8 min 1 max 2 prob 5)"
check_eq "a refused setting leaves the device as it was" \
	"prio 3 enable 1 min 153600 max 1536000 prob 10" "$(grep '^prio 3 ' $S)"

# fabriq loaded after the device: the sim offers its backend then.
fq_unload_fabriq
fq_sim_new "42 1 eth"
fq_load_fabriq
check_match "fabriq loaded later still finds the backend" "^qos_backend fabriq_sim$" \
	"$(cat $FQ_DBG/devices/fqsim42/port1/info)"

fq_veth_add 9
rdma link add rxe9 type rxe netdev fqv9a
check_match "rxe has no QoS backend" "^qos_backend none$" "$(cat $FQ_DBG/devices/rxe9/port1/info)"
check_eq "ECN on rxe falls back to RED on its netdev" "red" \
	"$(fq -j qos show dev rxe9 | jq -r '.[0].ecn_backend')"
ktap_finish
