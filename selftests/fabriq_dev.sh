#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# fabriq_dev.sh - the device lifecycle as users see it: `rdma link add`
# shows up in `fabriq dev show -j` with the right link layer, state and
# netdev; port state follows the carrier; rename and `rdma link del` are
# reflected in netlink, debugfs and `fabriq monitor`.
. "$(dirname "$0")/lib.sh"

ktap_plan 26
modprobe rdma_rxe || { echo "# rdma_rxe not available"; exit 4; }
fq_load_fabriq || { ktap_not_ok "load fabriq"; ktap_finish; }

tmp=$(mktemp -d)
cleanup() {
	[ -n "${mon:-}" ] && kill "$mon" 2>/dev/null
	rdma link del fqren0 2>/dev/null
	rdma link del rxe7 2>/dev/null
	fq_veth_del 7
	rm -rf "$tmp"
}
trap cleanup EXIT

"$FQ_CLI" -j monitor > "$tmp/mon.json" 2> "$tmp/mon.err" &
mon=$!
sleep 2

fq_veth_add 7
rdma link add rxe7 type rxe netdev fqv7a
dev_json=$(fq -j dev show)
entry=$(jq -c '.[] | select(.name == "rxe7")' <<<"$dev_json")
check_eq "dev show -j lists rxe7" "rxe7" "$(jq -r .name <<<"$entry")"
check_eq "rxe7 port 1 link_layer is ethernet" "ethernet" "$(jq -r '.ports[0].link_layer' <<<"$entry")"
wait_for 10 sh -c "$FQ_CLI -j dev show rxe7 | jq -e '.[0].ports[0].state == \"ACTIVE\"' >/dev/null"
entry=$(fq -j dev show rxe7 | jq -c '.[0]')
check_eq "rxe7 port 1 state is ACTIVE" "ACTIVE" "$(jq -r '.ports[0].state' <<<"$entry")"
check_eq "rxe7 port 1 physical_state is LINK_UP" "LINK_UP" "$(jq -r '.ports[0].physical_state' <<<"$entry")"
check_eq "rxe7 port 1 netdev is fqv7a" "fqv7a" "$(jq -r '.ports[0].netdev' <<<"$entry")"
check_eq "rxe7 netdev_index is fqv7a's ifindex" "$(cat /sys/class/net/fqv7a/ifindex)" \
	"$(jq -r '.ports[0].netdev_index' <<<"$entry")"
check_eq "rxe7 index matches rdma dev" \
	"$(rdma -j dev show rxe7 | jq '.[0].ifindex')" "$(jq -r .index <<<"$entry")"
check_eq "rxe7 node_type ca, transport ib, supported" "ca ib false" \
	"$(jq -r '"\(.node_type) \(.transport) \(.unsupported)"' <<<"$entry")"
check_eq "rxe7 node_guid matches sysfs" "$(cat /sys/class/infiniband/rxe7/node_guid)" \
	"$(jq -r .node_guid <<<"$entry")"

info=$(cat "$FQ_DBG/devices/rxe7/port1/info" 2>&1)
check_match "debugfs port1/info shows link_layer and netdev" \
	"link_layer ethernet" "$info"
check_match "debugfs port1/info names netdev fqv7a" "^netdev fqv7a$" "$info"

ip link set fqv7b down
wait_for 10 sh -c "$FQ_CLI -j dev show rxe7 | jq -e '.[0].ports[0].state == \"DOWN\"' >/dev/null"
check_eq "carrier loss: rxe7 port 1 state DOWN" "DOWN" \
	"$(fq -j dev show rxe7 | jq -r '.[0].ports[0].state')"
ip link set fqv7b up
wait_for 10 sh -c "$FQ_CLI -j dev show rxe7 | jq -e '.[0].ports[0].state == \"ACTIVE\"' >/dev/null"
check_eq "carrier back: rxe7 port 1 state ACTIVE" "ACTIVE" \
	"$(fq -j dev show rxe7 | jq -r '.[0].ports[0].state')"

idx=$(jq -r .index <<<"$entry")
rdma dev set rxe7 name fqren0
check_eq "rename: dev show finds the new name" "fqren0" \
	"$(fq -j dev show fqren0 | jq -r '.[0].name')"
check_eq "rename: same device index" "$idx" "$(fq -j dev show fqren0 | jq -r '.[0].index')"
check_true "rename: debugfs directory follows" test -r "$FQ_DBG/devices/fqren0/port1/info"
check_true "rename: old debugfs directory gone" test ! -e "$FQ_DBG/devices/rxe7"

rdma link del fqren0
check_eq "link del: device gone from dev show -j" "0" \
	"$(fq -j dev show | jq '[.[] | select(.name == "fqren0" or .name == "rxe7")] | length')"
check_true "link del: debugfs directory removed" test ! -e "$FQ_DBG/devices/fqren0"
err=$(fq dev show fqren0 2>&1)
check_match "link del: dev show by name fails naming the device" \
	"no RDMA device named 'fqren0'" "$err"

sleep 1
kill -INT "$mon"
wait_for 5 sh -c "! kill -0 $mon 2>/dev/null"
check_true "monitor ends on SIGINT" sh -c "! kill -0 $mon 2>/dev/null"
kill -KILL "$mon" 2>/dev/null
wait "$mon"
check_eq "monitor exit status after SIGINT" 0 "$?"
mon=""
events=$(jq -r '"\(.event) \(.name) \(.old_name // "-")"' < "$tmp/mon.json" 2>&1)
check_match "monitor saw dev-add rxe7" "^dev-add rxe7 -$" "$events"
check_match "monitor saw port-change to DOWN" "DOWN" \
	"$(jq -r 'select(.event == "port-change") | .ports[0].state' < "$tmp/mon.json")"
check_match "monitor saw dev-rename rxe7 -> fqren0" "^dev-rename fqren0 rxe7$" "$events"
check_match "monitor saw dev-del fqren0" "^dev-del fqren0 -$" "$events"
ktap_finish
