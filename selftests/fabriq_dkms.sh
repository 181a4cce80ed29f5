#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# fabriq_dkms.sh - the DKMS-installed module: `make check` installs fabriq
# with `dkms install -k <guest kernel>` on the host before booting, and
# sets FABRIQ_DKMS_VERSION; here `modprobe fabriq` must load that module
# from updates/dkms and it must work.  The host removes the package after.
. "$(dirname "$0")/lib.sh"

if [ -z "${FABRIQ_DKMS_VERSION:-}" ]; then
	echo "1..0 # SKIP no DKMS install for this kernel (run by 'make check')"
	exit 4
fi
ktap_plan 5
fq_unload_fabriq
trap 'rdma link del rxe5 2>/dev/null; fq_veth_del 5; rmmod fabriq 2>/dev/null; fq_load_fabriq' EXIT

path=$(modinfo -n fabriq 2>&1)
check_eq "modinfo finds fabriq under updates/dkms" \
	"/lib/modules/$(uname -r)/updates/dkms/fabriq.ko" "${path%%.ko*}.ko"
check_true "modprobe fabriq" modprobe fabriq
check_eq "loaded module is the DKMS version" "$FABRIQ_DKMS_VERSION" "$(cat /sys/module/fabriq/version 2>&1)"
modprobe rdma_rxe
fq_veth_add 5
rdma link add rxe5 type rxe netdev fqv5a
check_eq "DKMS module attaches to rxe5" "ethernet" \
	"$(fq -j dev show rxe5 | jq -r '.[0].ports[0].link_layer')"
check_true "modprobe -r fabriq" modprobe -r fabriq
ktap_finish
