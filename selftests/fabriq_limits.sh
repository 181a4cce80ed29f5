#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# fabriq_limits.sh - a local user cannot make fabriq hold more than its
# limits allow, and work within them completes: the bounds of a
# communicator, communicators per user, RLIMIT_MEMLOCK on pinned pages,
# no write pins of a file's shared pages, the traffic class only with
# CAP_NET_ADMIN, and the opener's network namespace (fabriq_limits); then
# the CLI as nobody with `ulimit -l 64` refused a 64 MiB allreduce with
# the memlock message, within the limit it works; a flood of big async
# calls in a memory cgroup fails cleanly; and nothing is left.
. "$(dirname "$0")/lib.sh"
here=$(cd "$(dirname "$0")" && pwd)

ktap_plan 8
fq_require setpriv mount umount rdma jq
mark=$(fq_console_mark)
fq_load_fabriq || ktap_bail "cannot load fabriq"
fq_ranks_up 2 || ktap_bail "cannot set up 2 local ranks"
ramfs=/mnt/fabriq-ramfs
mkdir -p "$ramfs" && mount -t ramfs ramfs "$ramfs" || ktap_bail "cannot mount a ramfs"

fq_run_sub "limits of a communicator, of a user, of pinning, of a netns" \
	"$here/fabriq_limits" "$ramfs"

# nobody runs a copy of the CLI: the tree may be under a home it cannot enter
cli_dir=$(mktemp -d)
chmod 755 "$cli_dir"
cp "$FQ_CLI" "$cli_dir/fabriq"
as_nobody() {
	setpriv --reuid=65534 --regid=65534 --clear-groups bash -c "ulimit -l $1; shift; \"\$@\"" \
		-- "$@" 2>&1
}
addr=$(fq_ranks_addr 0)
check_match "nobody, ulimit -l 64: a 64 MiB allreduce is refused with the memlock message" \
	"allreduce failed: RLIMIT_MEMLOCK \(ulimit -l\) too low: need [0-9]+ KiB, the limit is 64 KiB" \
	"$(as_nobody 64 "$cli_dir/fabriq" bench allreduce --rank 0 --peers "$addr" -b 64M -e 64M -n 1 -w 0 \
		-c 0 --port 19600)"
out=$(as_nobody 4096 "$cli_dir/fabriq" -j bench allreduce --rank 0 --peers "$addr" -b 1M -e 1M -n 2 \
	-c 1 --port 19610)
check_eq "nobody, ulimit -l 4096: a 1 MiB allreduce works, 0 wrong" "1 0" \
	"$(echo "$out" | jq -r '"\(.results | length) \(.summary.wrong)"' 2>&1)"

# A flood of big async calls in a 160 MiB memory cgroup: fabriq's kernel
# memory is charged there, so the flood stops with ENOMEM (not the
# cgroup's OOM killer: what a caller sizes is allocated to fail), nothing
# is left and the host goes on.
cg=/sys/fs/cgroup
mountpoint -q $cg || mount -t cgroup2 none $cg
echo +memory > $cg/cgroup.subtree_control 2>/dev/null
mkdir -p $cg/fqflood && echo 160M > $cg/fqflood/memory.max || ktap_bail "cannot make a memory cgroup"
out=$(sh -c "echo \$\$ > $cg/fqflood/cgroup.procs && exec \"$here/fabriq_limits\" --flood" 2>&1)
rc=$?
ktap_diag "flood: exit $rc: $out; the cgroup's memory events: $(tr '\n' ' ' < $cg/fqflood/memory.events)"
check_true "a flood of 16 MiB async reducescatters in a 160 MiB memory cgroup is refused with ENOMEM (exit $rc: $out)" \
	sh -c "[ $rc -eq 0 ] && echo '$out' | grep -q 'then ENOMEM'"
wait_for 10 sh -c "! grep -qv ' 0$' $FQ_DBG/objects"
rmdir $cg/fqflood
out=$("$FQ_CLI" -j bench allreduce --ranks 2 --peers 198.19.0.1,198.19.0.2 -b 1M -e 1M -n 2 -c 1 \
	--port 19660 2>&1)
check_eq "... and afterwards an allreduce works, 0 wrong" "1 0" \
	"$(echo "$out" | jq -r '"\(.results | length) \(.summary.wrong)"' 2>&1)"

umount "$ramfs"
rm -rf "$cli_dir"
wait_for 10 sh -c "! grep -qv ' 0$' $FQ_DBG/objects"
check_eq "module object counters back at zero (pinned pages too)" "" \
	"$(grep -v ' 0$' "$FQ_DBG/objects")"
check_eq "no fabriq QP left in rdma resource show" "" "$(rdma resource show qp | grep -w fabriq)"
check_true "the kernel log shows no oops or WARN" fq_console_clean "$mark"
ktap_finish
