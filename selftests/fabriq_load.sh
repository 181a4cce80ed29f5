#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# fabriq_load.sh - load and unload fabriq.ko 20 times with Soft-RoCE
# devices present, each time checking that it attached to every device and
# that netlink and debugfs vanish on unload; then unload while netlink
# dumps are running and remove a device while the CLI reads it.
. "$(dirname "$0")/lib.sh"

ktap_plan 9
modprobe rdma_rxe || { echo "# rdma_rxe not available"; exit 4; }
fq_unload_fabriq
trap 'kill ${readers:-} 2>/dev/null; fq_rxe_teardown 2; fq_load_fabriq' EXIT
fq_rxe_setup 2 || { ktap_not_ok "create rxe0 and rxe1"; ktap_finish; }
ndev=$(rdma_dev_count)

loads=0 seen=0 gone=0 dbg=0
for i in $(seq 20); do
	fq_load_fabriq && loads=$((loads + 1))
	n=$(fq -j dev show | jq length)
	d=$(ls "$FQ_DBG/devices" | wc -l)
	[ "$n" = "$ndev" ] && [ "$d" = "$ndev" ] && seen=$((seen + 1))
	fq_unload_fabriq
	[ ! -e "$FQ_DBG" ] && dbg=$((dbg + 1))
	fq dev show >/dev/null 2>&1 || gone=$((gone + 1))
done
check_eq "20 loads succeeded" 20 "$loads"
check_eq "every load attached to all $ndev RDMA devices (netlink and debugfs)" 20 "$seen"
check_eq "every unload removed the debugfs tree" 20 "$dbg"
check_eq "every unload removed the netlink family" 20 "$gone"
check_match "CLI without the module says so in one line" \
	"^fabriq: the fabriq kernel module is not loaded" "$(fq dev show 2>&1)"

# Unload while dumps run: rmmod may be refused while a dump holds the
# module, but must succeed once it ends, and nothing may break.
fq_load_fabriq
( while :; do "$FQ_CLI" -j dev show >/dev/null 2>&1; done ) &
readers=$!
( while :; do cat "$FQ_DBG"/devices/*/port1/info >/dev/null 2>&1; done ) &
readers="$readers $!"
sleep 1
unloaded=0
for i in $(seq 50); do
	if rmmod fabriq 2>/dev/null; then unloaded=1; break; fi
	sleep 0.1
done
check_eq "unload while netlink dumps and debugfs reads run" 1 "$unloaded"
fq_load_fabriq
sleep 1
# Remove a device while readers hammer netlink and debugfs.
rdma link del rxe1
check_eq "link del under readers: rxe1 gone" "" \
	"$(fq -j dev show | jq -r '.[] | select(.name == "rxe1") | .name')"
kill $readers 2>/dev/null
wait 2>/dev/null
readers=""
check_eq "rxe0 still listed" "rxe0" "$(fq -j dev show rxe0 | jq -r '.[0].name')"
rdma link add rxe1 type rxe netdev fqv1a
check_eq "re-added rxe1 is listed again" "rxe1" "$(fq -j dev show rxe1 | jq -r '.[0].name')"
ktap_finish
