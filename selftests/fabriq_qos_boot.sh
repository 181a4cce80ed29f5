#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# fabriq_qos_boot.sh - QoS intent that survives a reboot.  `fabriq qos
# save` writes every port's intent as an apply file; fabriq-qos.service
# sets it all again once fabriq.ko is loaded, and fabriq-qos@DEV.service
# one device's when the device appears; 90-fabriq.rules starts them.  The
# units are tools/systemd's, rendered for the build tree and checked with
# systemd-analyze verify; the rule is run by udevadm test; the units'
# ExecStart lines run as systemd would run them, after a module reload, and
# the intent read back equals what was saved, with no drift.  On
# fabriq_sim's ports: an InfiniBand one and a RoCE one.
. "$(dirname "$0")/lib.sh"

ktap_plan 18
fq_require systemd-analyze udevadm jq
tmp=$(mktemp -d)
units=$tmp/units
conf=/etc/fabriq/qos.conf
rule=/etc/udev/rules.d/90-fabriq.rules
cleanup() {
	fq_sim_del 73 2>/dev/null
	fq_sim_del 74 2>/dev/null
	rm -rf "$tmp" /etc/fabriq "$rule"
}
trap cleanup EXIT
# fabriq, fabriq_sim and its two devices, anew
sims_up() {
	fq_load_fabriq && fq_insmod fabriq_sim && fq_sim_new "73 1 ib" && fq_sim_new "74 1 eth"
}
reload() {
	fq_sim_del 73 && fq_sim_del 74 && rmmod fabriq_sim && fq_unload_fabriq && sims_up
}
sims_up || ktap_bail "load fabriq and fabriq_sim"
# the sims' ports: dev, port, intent (JSON, one line)
intent() {
	fq -j qos show | jq -c '[.[] | select(.dev | test("^fqsim7[34]$")) | {dev, port, intent}] |
		sort_by(.dev)'
}
drift() { fq -j qos show | jq -r '.[] | select(.dev | test("^fqsim7[34]$")) | .drift[]'; }
# ---- the units and the rule ----
"$FQ_SRC/tools/systemd/render" "$units" "$FQ_SRC/tools/fabriq" /etc/fabriq \
	"$(command -v modprobe)" || ktap_bail "render the units"
cp "$units/fabriq-qos@.service" "$units/fabriq-qos@fqsim74.service"
v=$(fq_units_verify "$units/fabriq-qos.service" "$units/fabriq-qos@fqsim74.service")
rc=$?
check_eq "systemd-analyze verify finds nothing wrong in fabriq-qos.service and fabriq-qos@.service" \
	"0 " "$rc $v"
mkdir -p "$(dirname "$rule")" && cp "$units/90-fabriq.rules" "$rule"
check_match "udevadm test: a new RDMA device starts fabriq-qos@DEV.service" \
	"^SYSTEMD_WANTS=fabriq-qos@fqsim74.service$" \
	"$(udevadm test --action=add /sys/class/infiniband/fqsim74 2>&1)"
check_match "... and fabriq.ko loaded starts fabriq-qos.service" \
	"^SYSTEMD_WANTS=fabriq-qos.service$" "$(udevadm test --action=add /sys/module/fabriq 2>&1)"
rm -f "$rule"

# ---- save ----
fq qos set dev fqsim73 sl2vl 0:1,1:2,15:3 vlarb-high 0:64,1:32 vl-high-limit 10 sl 3 2>/dev/null
fq qos set dev fqsim74 pfc 3,4 trust dscp dscp-prio 26:3,46:5 \
	ets prio-tc 3:3,4:4 tc-bw 0:50,3:30,4:20 tc-tsa 0:ets,3:ets,4:ets \
	ecn prio 3 min 150K max 1500K prob 10 tc 106
saved=$(intent)
check_true "fabriq qos save writes $conf" fq qos save
check_match "... a line per port: fqsim74's, its ECN last" \
	"^dev fqsim74 port 1 pfc 3,4 trust dscp .* tc 106 ecn prio 3 min 150K max 1500K prob 10$" \
	"$(cat "$conf" 2>&1)"
check_match "... and fqsim73's" "^dev fqsim73 port 1 sl2vl 0:1,1:2,.* vl-high-limit 10 sl 3$" \
	"$(cat "$conf" 2>&1)"
check_eq "qos save -f - prints the same lines" "$(grep -v '^#' "$conf")" \
	"$(fq qos save -f - | grep -v '^#')"
check_match "qos save into a directory that does not exist names the file and why" \
	"qos save: cannot write '$tmp/no/qos.conf': No such file or directory" \
	"$(fq qos save -f "$tmp/no/qos.conf" 2>&1)"

# ---- the module loaded anew: fabriq-qos.service ----
reload || ktap_bail "reload fabriq and fabriq_sim"
check_eq "after fabriq.ko is loaded anew the ports hold no intent" \
	'[{"dev":"fqsim73","port":1,"intent":{}},{"dev":"fqsim74","port":1,"intent":{}}]' "$(intent)"
check_true "fabriq-qos.service's ExecStartPre and ExecStart succeed" \
	fq_run_unit "$units/fabriq-qos.service"
check_eq "... every port's intent is back as saved" "$saved" "$(intent)"
check_eq "... with no drift" "" "$(drift)"

# ---- a device that is not there yet, then appears: fabriq-qos@DEV.service ----
reload && fq_sim_del 73 || ktap_bail "reload fabriq and fabriq_sim, fqsim73 removed"
out=$(fq_run_unit "$units/fabriq-qos.service" 2>&1)
rc=$?
check_match "with fqsim73 missing, fabriq-qos.service succeeds and says it skipped fqsim73's lines" \
	"^0 .*no RDMA device fqsim73 here now, skipped" "$rc $(echo "$out" | tr '\n' ' ')"
check_eq "... and sets fqsim74's intent, as saved" \
	"$(echo "$saved" | jq -c '[.[] | select(.dev == "fqsim74")]')" "$(intent)"
fq_sim_new "73 1 ib" || ktap_bail "fqsim73 again"
check_true "fqsim73 appears: fabriq-qos@fqsim73.service's ExecStart succeeds" \
	fq_run_unit "$units/fabriq-qos@.service" fqsim73
check_eq "... every port's intent is back as saved" "$saved" "$(intent)"
check_eq "... with no drift" "" "$(drift)"

# ---- what fails is told (systemd puts it in the journal) ----
echo "dev fqsim74 port 1 pfc 3,9" >> "$conf"
out=$(fq_run_unit "$units/fabriq-qos.service" 2>&1)
rc=$?
check_match "a bad line in $conf fails the unit, naming the file, the line and the valid range" \
	"^1 .*$conf:[0-9]+: .*pfc.*'9'.*valid" "$rc $(echo "$out" | tr '\n' ' ')"
ktap_finish
