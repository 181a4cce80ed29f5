#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# fabriq_sim.sh - the simulated HCA (fabriq_sim.ko): devices are created and
# destroyed through /sys/bus/fabriq_sim, register as real RDMA devices that
# `rdma` and fabriq see with the right link layer, refuse bad control input
# with the expected format in the log, and go away cleanly while fabriq
# readers hold references.
. "$(dirname "$0")/lib.sh"

ktap_plan 26
fq_insmod fabriq_sim || { ktap_not_ok "load fabriq_sim"; ktap_finish; }
trap 'kill ${readers:-} 2>/dev/null; for i in 11 12 13 14; do fq_sim_del $i 2>/dev/null; done' EXIT

# cycle: create an IB and a RoCE device, check, destroy; echo 1 per good round
cycle() {
	local with_fabriq=$1 ok=1
	fq_sim_new "11 2 ib" && fq_sim_new "12 1 eth" || ok=0
	[ "$(rdma -j dev show | jq '[.[] | select(.ifname | test("^fqsim1[12]$"))] | length')" = 2 ] || ok=0
	if [ "$with_fabriq" = 1 ]; then
		[ "$(fq -j dev show fqsim11 | jq -r '[.[0].ports[].link_layer] | join(",")')" = \
		  "infiniband,infiniband" ] || ok=0
		[ "$(fq -j dev show fqsim12 | jq -r '.[0].ports[0].link_layer')" = ethernet ] || ok=0
	fi
	fq_sim_del 11 && fq_sim_del 12 || ok=0
	[ "$(rdma -j dev show | jq '[.[] | select(.ifname | test("^fqsim"))] | length')" = 0 ] || ok=0
	echo $ok
}

fq_load_fabriq
good=0
for i in $(seq 20); do good=$((good + $(cycle 1))); done
check_eq "20 create/destroy rounds with fabriq loaded" 20 "$good"
check_true "fabriq's debugfs has no fqsim left" sh -c "! ls $FQ_DBG/devices | grep -q fqsim"
fq_unload_fabriq
good=0
for i in $(seq 20); do good=$((good + $(cycle 0))); done
check_eq "20 create/destroy rounds with fabriq not loaded" 20 "$good"
fq_load_fabriq

# What rdma and fabriq see.
fq_sim_new "11 2 ib"
fq_sim_new "12 1 eth"
check_eq "rdma link: fqsim12/1 is backed by netdev fqsim12p1" "fqsim12p1" \
	"$(rdma -j link show fqsim12/1 | jq -r '.[0].netdev')"
check_eq "fabriq: fqsim12 port 1 netdev fqsim12p1" "fqsim12p1" \
	"$(fq -j dev show fqsim12 | jq -r '.[0].ports[0].netdev')"
check_eq "fabriq: RoCE port DOWN while its netdev is down" "DOWN" \
	"$(fq -j dev show fqsim12 | jq -r '.[0].ports[0].state')"
ip link set fqsim12p1 up
check_eq "fabriq: RoCE port ACTIVE once its netdev is up" "ACTIVE" \
	"$(fq -j dev show fqsim12 | jq -r '.[0].ports[0].state')"
check_eq "fabriq: IB ports have LIDs and an SM LID" "46 47 1" \
	"$(fq -j dev show fqsim11 | jq -r '[.[0].ports[].lid, .[0].ports[0].sm_lid] | join(" ")')"
check_eq "rdma link: IB port 2 lid matches" "47" "$(rdma -j link show fqsim11/2 | jq -r '.[0].lid')"
check_eq "fabriq: IB ports report 4X EDR, 100 Gb/s" "EDR 4X 100000" \
	"$(fq -j dev show fqsim11 | jq -r '.[0].ports[0] | "\(.active_speed) \(.active_width) \(.rate_mbps)"')"

# Link knobs: degraded speed/width and link down reach fabriq, with an event.
L=/sys/kernel/debug/fabriq_sim/fqsim11/port1/link
echo "speed HDR" > $L
echo "width 1X" > $L
check_eq "link knob: fabriq sees HDR 1X, 50 Gb/s" "HDR 1X 50000" \
	"$(fq -j dev show fqsim11 | jq -r '.[0].ports[0] | "\(.active_speed) \(.active_width) \(.rate_mbps)"')"
"$FQ_CLI" -j monitor count 1 > /tmp/fqsim_mon.json 2>&1 &
mon=$!
sleep 2
echo down > $L
wait_for 10 sh -c "! kill -0 $mon 2>/dev/null"
kill $mon 2>/dev/null
check_eq "link down: fabriq monitor gets port-change DOWN for fqsim11/1" "port-change fqsim11 1 DOWN" \
	"$(jq -r '"\(.event) \(.name) \(.ports[0].port) \(.ports[0].state)"' < /tmp/fqsim_mon.json)"
check_eq "link down: port 2 unaffected" "ACTIVE" \
	"$(fq -j dev show fqsim11 | jq -r '.[0].ports[1].state')"
echo up > $L
check_eq "link up: ACTIVE again" "ACTIVE" "$(fq -j dev show fqsim11 | jq -r '.[0].ports[0].state')"
echo down > /sys/kernel/debug/fabriq_sim/fqsim12/port1/link
check_eq "RoCE link down drops the netdev's carrier" "0" "$(cat /sys/class/net/fqsim12p1/carrier)"
echo up > /sys/kernel/debug/fabriq_sim/fqsim12/port1/link
check_eq "link knob refuses junk" "Invalid argument" "$( (echo "speed XXX" > $L) 2>&1 | sed 's/.*write error: //')"

# Bad control input: refused with an errno, the format in the log.
bad() {	# bad FILE INPUT: prints the write error
	(echo "$2" > "$FQ_SIM_BUS/$1") 2>&1 | sed 's/.*write error: //'
}
check_eq "new_device 'x' refused" "Invalid argument" "$(bad new_device x)"
check_eq "new_device with 5 ports refused" "Invalid argument" "$(bad new_device "13 5 ib")"
check_eq "new_device with link layer fc refused" "Invalid argument" "$(bad new_device "13 1 fc")"
check_eq "new_device with id 10000 refused" "Invalid argument" "$(bad new_device "10000 1 ib")"
check_eq "new_device with trailing junk refused" "Invalid argument" "$(bad new_device "13 1 ib x")"
check_eq "new_device with an existing id refused" "File exists" "$(bad new_device "11 1 ib")"
check_eq "del_device of a missing id refused" "No such device" "$(bad del_device 13)"
check_match "the log states the expected format" \
	'new_device: expected "ID PORTS LINK_LAYER" with ID 0-9999, PORTS 1-4, LINK_LAYER ib, eth or eth-plain' \
	"$(dmesg | tail -20)"

# Removal while fabriq readers hold references.
( while :; do "$FQ_CLI" -j dev show >/dev/null 2>&1; done ) &
readers=$!
( while :; do cat "$FQ_DBG"/devices/fqsim1*/port*/info >/dev/null 2>&1; done ) &
readers="$readers $!"
sleep 1
fq_sim_del 11
fq_sim_del 12
kill $readers 2>/dev/null
wait 2>/dev/null
readers=""
check_eq "devices removed under readers are gone from fabriq" "0" \
	"$(fq -j dev show | jq '[.[] | select(.name | test("^fqsim"))] | length')"
fq_sim_new "14 1 eth"
rmmod fabriq_sim
check_eq "unloading fabriq_sim removes its devices" "0" \
	"$(fq -j dev show | jq '[.[] | select(.name | test("^fqsim"))] | length')"
ktap_finish
