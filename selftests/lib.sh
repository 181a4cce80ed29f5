# SPDX-License-Identifier: GPL-2.0
#
# lib.sh - shared helpers of the fabriq kselftests: KTAP output, value
# assertions, loading fabriq.ko and Soft-RoCE (rdma_rxe) devices on veth
# pairs with 198.18.0.0/15 addresses.  Sourced by every *.sh test and by
# the VM harness (tools/vm/run --load/--rxe).

FQ_SRC=${FABRIQ_SRC:-$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)}
FQ_KO_DIR=${FABRIQ_KO_DIR:-$FQ_SRC/build/kmod/$(uname -r)}
FQ_CLI=${FABRIQ_CLI:-$FQ_SRC/tools/fabriq/fabriq}
FQ_DBG=/sys/kernel/debug/fabriq

# The tests' communicators prove this key (libfabriq reads FABRIQ_KEY), as
# a launcher would hand one to every rank of a job: drawn once per run.
[ -n "${FABRIQ_KEY:-}" ] || FABRIQ_KEY=$(od -An -tx1 -N32 /dev/urandom | tr -d ' \n')
export FABRIQ_KEY

ktap_n=0
ktap_pass=0
ktap_failed=0
ktap_skipped=0
ktap_planned=0

# The plan is a promise: run_tests.sh counts every assertion a test planned
# but never reached as failed, so stopping early can never shrink a total.
ktap_plan() { ktap_planned=$1; echo "TAP version 13"; echo "1..$1"; }
ktap_ok() { ktap_n=$((ktap_n + 1)); ktap_pass=$((ktap_pass + 1)); echo "ok $ktap_n $*"; }
ktap_not_ok() { ktap_n=$((ktap_n + 1)); ktap_failed=$((ktap_failed + 1)); echo "not ok $ktap_n $*"; }
ktap_skip() { ktap_n=$((ktap_n + 1)); ktap_skipped=$((ktap_skipped + 1)); echo "ok $ktap_n $1 # SKIP $2"; }
ktap_diag() { echo "# $*"; }
# Exit status per kselftest: 0 pass, 1 fail, 4 skip (all skipped).
ktap_finish() {
	echo "# totals: pass:$ktap_pass fail:$ktap_failed skip:$ktap_skipped"
	[ "$ktap_failed" -eq 0 ] || exit 1
	# a plan that does not match what ran is the test's own bug
	[ "$ktap_n" -eq "$ktap_planned" ] ||
		{ ktap_diag "FAIL: the plan is $ktap_planned assertions, $ktap_n ran"; exit 1; }
	[ "$ktap_pass" -eq 0 ] && [ "$ktap_skipped" -gt 0 ] && exit 4
	exit 0
}

# ktap_bail REASON: a set-up step failed; stop here.  The assertions not
# yet reached are reported as failed (by run_tests.sh, from the plan).
ktap_bail() {
	ktap_diag "bail out: $*; $((ktap_planned - ktap_n)) planned assertions not reached"
	exit 1
}

# ktap_missing FILE: for KTAP output in FILE (one test's, unindented), print
# a "not ok" line for each assertion its plan announced but it never
# reported.  Return: 1 if any were missing.
ktap_missing() {
	awk '/^1\.\.[0-9]+/ && !plan { plan = substr($1, 4) + 0 }
	     /^(ok|not ok) [0-9]+/ { n++ }
	     END { for (i = n + 1; i <= plan; i++)
			printf "not ok %d # MISSING: the test stopped before this assertion (%d of %d planned ran)\n", i, n, plan
		   exit n < plan }' "$1"
}

# fq_run_sub DESC CMD...: a nested TAP program as one assertion; its
# failing lines and diagnostics become our diagnostics
fq_run_sub() {
	local desc=$1 out rc mark t
	shift
	mark=$(fq_console_mark)
	t=$SECONDS
	out=$("$@" 2>&1)
	rc=$?
	printf '%s\n' "$out" | grep -E '^(ok|not ok|#)' | sed 's/^/#   /' | grep -v '^#   ok' | head -40
	echo "# $(basename "$1"): $((SECONDS - t)) s"
	# a failure shows what the kernel said meanwhile (CI keeps only the log)
	[ "$rc" -eq 0 ] || fq_kernel_since "$mark" | grep -v "$mark" | tail -n 15 |
		sed 's/^/#   kernel: /'
	check_eq "$desc: $(printf '%s\n' "$out" | grep -c '^ok') passed, \
$(printf '%s\n' "$out" | grep -c '^not ok') failed" 0 "$rc"
}

# fq_require PROGRAM...: a program the test needs.  A missing one is a
# broken install, never a skip: name it and its Debian package
# (tools/deps.list), and fail.
fq_require() {
	local p missing=0
	for p in "$@"; do
		command -v "$p" >/dev/null && continue
		command_not_found_handle "$p" 2>&1 | sed 's/^/# /'
		missing=1
	done
	[ $missing -eq 0 ] || ktap_bail "required programs are missing (run tools/deps.sh)"
}

# A program that is not installed is a broken install: name its package,
# and record it, so tools/vm/run fails the run loudly.
command_not_found_handle() {
	local pkg
	pkg=$(awk -v p="$1" '$1 == p { print $2; exit }' "$FQ_SRC/tools/deps.list" 2>/dev/null)
	echo "fabriq: missing program '$1' (Debian package ${pkg:-unknown: add it to tools/deps.list})" >&2
	[ -n "${FABRIQ_OUT:-}" ] && echo "$1" >> "$FABRIQ_OUT/missing-programs"
	return 127
}

# check_eq DESC EXPECTED ACTUAL
check_eq() {
	if [ "$2" = "$3" ]; then
		ktap_ok "$1"
	else
		ktap_not_ok "$1"
		ktap_diag "expected: '$2'"
		ktap_diag "actual:   '$3'"
	fi
}

# check_match DESC REGEX TEXT
check_match() {
	if printf '%s\n' "$3" | grep -Eq -- "$2"; then
		ktap_ok "$1"
	else
		ktap_not_ok "$1"
		ktap_diag "no match for /$2/ in:"
		printf '%s\n' "$3" | sed 's/^/#   /' | head -20
	fi
}

# check_true DESC COMMAND...: the command must succeed
check_true() {
	local desc=$1
	shift
	if "$@"; then ktap_ok "$desc"; else ktap_not_ok "$desc"; ktap_diag "failed: $*"; fi
}

# wait_for SECONDS COMMAND...: poll until the command succeeds
wait_for() {
	local deadline=$((SECONDS + $1))
	shift
	until "$@"; do
		[ $SECONDS -ge $deadline ] && return 1
		sleep 0.2
	done
}

fq() { "$FQ_CLI" "$@"; }

# fq_run_unit FILE [INSTANCE]: what systemd runs of a oneshot unit, in a
# subshell: its Environment= settings, then its ExecStartPre= and
# ExecStart= lines in order, %I as INSTANCE, a leading - ignoring a
# failure (the units quote nothing: plain word splitting is systemd's too)
fq_run_unit() {
	(
		line=
		while read -r line; do
			[ -z "$line" ] || export "${line?}"
		done <<< "$(sed -n 's/^Environment=//p' "$1")"
		while read -r line; do
			line=${line//%I/${2:-}}
			ignore=0
			[ "${line#-}" != "$line" ] && ignore=1 && line=${line#-}
			$line || [ $ignore = 1 ] || exit 1
		done <<< "$(sed -n 's/^ExecStart\(Pre\)\?=//p' "$1")"
	)
}

# fq_units_verify UNIT...: systemd-analyze verify, with the project's man
# pages on MANPATH, so that each Documentation=man:... must name a real page
fq_units_verify() {
	local man p rc
	man=$(mktemp -d) && mkdir -p "$man/man3" "$man/man5" "$man/man8" || return 1
	for p in "$FQ_SRC"/Documentation/man/*.[358]; do
		ln -s "$p" "$man/man${p##*.}/"
	done
	MANPATH=$man systemd-analyze verify "$@" 2>&1
	rc=$?
	rm -rf "$man"
	return $rc
}

# fq_exited PID: the process has exited (gone, or a zombie not yet reaped;
# kill -0 still succeeds on a zombie, so it cannot tell).
fq_exited() {
	local st
	st=$(sed 's/^.*) //' "/proc/$1/stat" 2>/dev/null) || return 0
	[ "${st%% *}" = Z ]
}

# fq_ms_until_exit PID LIMIT_S: poll until PID has exited; print the
# milliseconds it took (or LIMIT_S * 1000 when it did not exit in time).
fq_ms_until_exit() {
	local t0 now limit
	t0=$(date +%s%N)
	limit=$((t0 + $2 * 1000000000))
	until fq_exited "$1"; do
		now=$(date +%s%N)
		[ "$now" -ge "$limit" ] && { echo $(($2 * 1000)); return 1; }
		sleep 0.01
	done
	echo $((($(date +%s%N) - t0) / 1000000))
}

# fq_console_mark / fq_console_clean MARK: the kernel log since a unique
# marker line (written to /dev/kmsg; a line count would drift once the log
# buffer wraps) shows no oops, WARN, BUG or lockup.  The harness panics on
# a WARN; this names the test that caused one in a guest without
# panic_on_warn.  A marker that is gone from the log fails the check.
FQ_CONSOLE_BAD='WARNING:|BUG:|Oops|general protection fault|Call Trace:|blocked for more than|soft lockup|UBSAN:|refcount_t:'
fq_console_mark() {
	local m="fabriq-selftest-mark-$$-$RANDOM$RANDOM"
	echo "$m" > /dev/kmsg && echo "$m"
}
# fq_kernel_since MARK: the kernel log from fq_console_mark's MARK on
fq_kernel_since() { dmesg | sed -n "/$1/,\$p"; }
fq_console_clean() {
	local log
	log=$(fq_kernel_since "$1")
	[ -n "$log" ] && ! printf '%s\n' "$log" | grep -Eq "$FQ_CONSOLE_BAD"
}

fq_loaded() { [ -d /sys/module/fabriq ]; }

# fq_insmod NAME [PARAM=VALUE...]: insmod the module built for this
# kernel, after loading what it depends on.
fq_insmod() {
	local ko=$FQ_KO_DIR/$1.ko dep
	[ -d "/sys/module/$1" ] && return 0
	[ -r "$ko" ] || { echo "$1.ko not built for $(uname -r) at $ko" >&2; return 1; }
	for dep in $(modinfo -F depends "$ko" | tr ',' ' '); do
		modprobe "$dep" || return 1
	done
	shift
	insmod "$ko" "$@"
}

# fq_load_fabriq [PARAM=VALUE...]: load fabriq.ko, modprobe when
# FABRIQ_MODPROBE=1 (DKMS), else fq_insmod.
fq_load_fabriq() {
	fq_loaded && return 0
	if [ "${FABRIQ_MODPROBE:-0}" = 1 ]; then
		modprobe fabriq "$@"
		return
	fi
	fq_insmod fabriq "$@"
}

fq_unload_fabriq() {
	fq_loaded || return 0
	rmmod fabriq
}

# fq_veth_add IDX: veth pair fqvIDXa/fqvIDXb, 198.18.IDX.1/.2, both up
fq_veth_add() {
	local a=fqv$1a b=fqv$1b
	ip link add "$a" type veth peer name "$b" || return 1
	ip addr add "198.18.$1.1/24" dev "$a"
	ip addr add "198.18.$1.2/24" dev "$b"
	ip link set "$a" up && ip link set "$b" up
}

fq_veth_del() { ip link del "fqv$1a" 2>/dev/null; true; }

# fq_rxe_setup N: rxe0..rxeN-1, each on its own veth end, all in init_net
fq_rxe_setup() {
	local i
	modprobe rdma_rxe || return 1
	for ((i = 0; i < $1; i++)); do
		fq_veth_add "$i" || return 1
		rdma link add "rxe$i" type rxe netdev "fqv${i}a" || return 1
	done
}

fq_rxe_teardown() {
	local i
	for ((i = 0; i < $1; i++)); do
		rdma link del "rxe$i" 2>/dev/null
		fq_veth_del "$i"
	done
	true
}

# fabriq_sim devices: fq_sim_new "ID PORTS LL", fq_sim_del ID
FQ_SIM_BUS=/sys/bus/fabriq_sim
fq_sim_new() { echo "$1" > "$FQ_SIM_BUS/new_device"; }
fq_sim_del() { echo "$1" > "$FQ_SIM_BUS/del_device"; }

# Number of RDMA devices the core knows about.
rdma_dev_count() { rdma -j dev show | jq length; }

# ---- a guest of tools/vm/fabric: host $FABRIQ_HOST of $FABRIQ_HOSTS ----

# fq_fabric_addr I: host I's address on the fabric
fq_fabric_addr() {
	echo "198.18.100.$(($1 + 1))"
}

# fq_fabric_peers [ADDR]: every host's address, host 0 first,
# comma-separated (fabriq bench --peers: host i is rank i); ADDR I prints
# host I's (default fq_fabric_addr, eth0's)
fq_fabric_peers() {
	local i list= addr=${1:-fq_fabric_addr}
	for ((i = 0; i < FABRIQ_HOSTS; i++)); do
		list=$list${list:+,}$("$addr" "$i")
	done
	echo "$list"
}

# fq_fabric_up: eth0 up with this host's address, Soft-RoCE device rxe0
# on it; then wait (at most 120 s: the guests boot at once on two cores)
# until every other host answers a ping and has fabriq loaded
fq_fabric_up() {
	local i
	modprobe virtio_net 2>/dev/null
	wait_for 10 ip link show eth0 >/dev/null 2>&1 || return 1
	ip link set eth0 up && ip addr add "$(fq_fabric_addr "$FABRIQ_HOST")/24" dev eth0 || return 1
	modprobe rdma_rxe && rdma link add rxe0 type rxe netdev eth0 || return 1
	for ((i = 0; i < FABRIQ_HOSTS; i++)); do
		[ "$i" = "$FABRIQ_HOST" ] && continue
		wait_for 120 sh -c "'$FQ_CLI' ping $(fq_fabric_addr "$i") count 1 >/dev/null 2>&1" ||
			return 1
	done
}

# fq_fabric_req VERB ARGS...: ask tools/vm/fabric for something only the
# fabric's side can do (its header lists the requests) and wait for the
# answer, at most 30 s; prints what the host said on failure.  Each
# request is named by the time it was made (so also from a subshell)
fq_fabric_req() {
	local req
	req=$FABRIQ_OUT/req.$(date +%s%N)
	echo "$*" > "$req.tmp" && mv "$req.tmp" "$req" || return 1
	wait_for 30 test -e "$req.rc" || { echo "fabric: no answer to '$*'"; return 1; }
	[ "$(cat "$req.rc")" = 0 ] && return 0
	echo "fabric: '$*' failed: $(cat "$req.log" 2>/dev/null)"
	return 1
}

# fq_fabric_wait_stop: a host other than 0 serves until host 0 is done
# (tools/vm/fabric drops "stop" into its results share); false if that
# does not come within 20 minutes
fq_fabric_wait_stop() {
	local i
	for ((i = 0; i < 2400; i++)); do
		[ -e "$FABRIQ_OUT/stop" ] && return 0
		sleep 0.5
	done
	return 1
}

# fq_ranks_up N: N local "hosts" for multi-rank runs in one guest.  Rank i
# gets veth fqr$i with 198.19.0.(i+1)/24 and Soft-RoCE device fqr$i; the
# other veth ends sit on bridge fqbr.  Policy routing sends traffic between
# two local addresses out of the source's own veth (not through lo, where
# rxe would drop it), and accept_local lets the receiving end take it.
fq_ranks_up() {
	local n=$1 i a
	modprobe rdma_rxe || return 1
	sysctl -qw net.ipv4.conf.all.accept_local=1 net.ipv4.conf.all.arp_ignore=1 \
		net.ipv4.conf.all.rp_filter=0 net.ipv4.conf.default.rp_filter=0 || return 1
	ip link add fqbr type bridge 2>/dev/null
	ip link set fqbr up || return 1
	if ! ip rule show pref 100 | grep -q local; then
		ip rule add pref 100 lookup local && ip rule del pref 0 || return 1
	fi
	for ((i = 0; i < n; i++)); do
		a=198.19.0.$((i + 1))
		ip link show "fqr$i" >/dev/null 2>&1 && continue
		ip link add "fqr$i" type veth peer name "fqr${i}p" || return 1
		sysctl -qw "net.ipv4.conf.fqr$i.rp_filter=0"
		ip link set "fqr${i}p" master fqbr && ip link set "fqr${i}p" up &&
		ip addr add "$a/24" dev "fqr$i" && ip link set "fqr$i" up || return 1
		ip rule add pref 10 from "$a" iif lo lookup $((200 + i)) &&
		ip route add 198.19.0.0/24 dev "fqr$i" src "$a" table $((200 + i)) &&
		ip route add throw "$a/32" table $((200 + i)) || return 1
		rdma link add "fqr$i" type rxe netdev "fqr$i" || return 1
	done
}

# fq_rank_renew I: a new rxe device for local rank I.  6.12's rxe fails
# every QP of a device whose packet its netdev refused (a qdisc that drops
# at enqueue; a netdev without carrier does not refuse: noop_qdisc's
# NET_XMIT_CN counts as sent), its GSI QP too if a MAD went out then, and
# that one never comes back: the CM of the address is dead until the
# device is made anew.  A test that disturbs a rank's link renews its
# device, so the tests after it start from a fresh one.
fq_rank_renew() {
	rdma link del "fqr$1" && rdma link add "fqr$1" type rxe netdev "fqr$1" &&
		wait_for 10 sh -c "rdma link show fqr$1/1 | grep -q ACTIVE"
}

# fq_ranks_addr I: the address of local rank I
fq_ranks_addr() { echo "198.19.0.$(($1 + 1))"; }

fq_ranks_down() {
	local i
	for ((i = 0; i < 16; i++)); do
		ip link show "fqr$i" >/dev/null 2>&1 || continue
		rdma link del "fqr$i" 2>/dev/null
		ip rule del pref 10 from "198.19.0.$((i + 1))" 2>/dev/null
		ip route flush table $((200 + i)) 2>/dev/null
		ip link del "fqr$i"
	done
	ip link del fqbr 2>/dev/null
	true
}

# ---- ECN marks: RED's (fabriq's RED child of priority 0, fab1:1) and fabriq's ----

# fq_red_marked NETDEV: the CE marks RED made on NETDEV's priority 0
fq_red_marked() {
	tc -s qdisc show dev "$1" parent fab1:1 | grep -o 'marked [0-9]*' | cut -d' ' -f2
}

# fq_marked_tx DEV: the ecn_marked_tx counter of DEV's port 1 (fabriq
# stats, JSON: null where the port has no RED); fq_marked_tx_is DEV N
fq_marked_tx() { fq -j stats show dev "$1" port 1 | jq -r '.ports[0].counters.ecn_marked_tx'; }
fq_marked_tx_is() { [ "$(fq_marked_tx "$1")" = "$2" ]; }

# fq_check_marks_reported DEV NETDEV: three checks that fabriq reports the
# marks RED made on NETDEV (priority 0) as DEV's port 1 ecn_marked_tx, in
# fabriq stats (netlink), debugfs and the Prometheus output
fq_check_marks_reported() {
	local red
	red=$(fq_red_marked "$2")
	# the sampler reads RED every 100 ms
	wait_for 5 fq_marked_tx_is "$1" "$red"
	check_eq "telemetry: $1's ecn_marked_tx is RED's count of marks on $2" "$red" \
		"$(fq_marked_tx "$1")"
	check_match "... in debugfs too" "ecn_marked_tx +$red( |\$)" \
		"$(tr '\n' ' ' < "$FQ_DBG/devices/$1/port1/telemetry/counters")"
	check_match "... and in the Prometheus output" \
		"^fabriq_port_ecn_marked_tx_total\\{device=\"$1\",port=\"1\"\\} $red\$" \
		"$(fq stats show --prometheus)"
}

# RoCEv2 captures.  The BTH follows the UDP header; destination QP 1 is
# the CM's, whose MADs (management class 7 at UDP payload byte 21) name
# their attribute at payload byte 36 and start with the sender's local
# communication ID at payload byte 44.
FQ_ROCE_GSI='udp[13:2] = 0 and udp[15] = 1'
# fq_cm_attr A: a pcap filter for CM MADs of attribute A (0x10 REQ, 0x12
# REJ, 0x13 REP, 0x14 RTU, 0x15 DREQ, 0x16 DREP)
fq_cm_attr() { echo "($FQ_ROCE_GSI and udp[29] = 7 and udp[44:2] = $1)"; }

# fq_pcap_tos PCAP FILTER: the IP tos values of the packets of PCAP that
# FILTER picks, each with how many: "0x6a 1234 0x0 5"
fq_pcap_tos() {
	tcpdump -nn -v -r "$1" "$2" 2>/dev/null | grep -o 'tos 0x[0-9a-f]*' | sort | uniq -c |
		awk '{ printf "%s%s %s", s, $3, $1; s = " " } END { print "" }'
}

# FQ_PCAP_AWK: the start of an awk program over "tcpdump -nn -v -x" output
# that calls the program's packet() once per packet, with the IP packet
# in hex (at(B, N): N bytes at byte B of it), its tos in tos and the byte
# at which its UDP payload starts (the IPv4 header's IHL words, then the
# 8 bytes of UDP) in payload
# shellcheck disable=SC2016 # awk's $0 and $i
FQ_PCAP_AWK='
	function at(b, n) { return substr(hex, 2 * b + 1, 2 * n) }
	function fq_flush() {
		if (tos == "")
			return
		payload = 4 * (index("0123456789abcdef", substr(hex, 2, 1)) - 1) + 8
		packet()
		tos = ""
	}
	/^[^ \t]/ { fq_flush(); hex = "" }
	match($0, /tos 0x[0-9a-f]+/) { tos = substr($0, RSTART + 4, RLENGTH - 4) }
	/^\t0x[0-9a-f]+:/ { for (i = 2; i <= NF; i++) hex = hex $i }
	END { fq_flush() }
'

# fq_pcap_bth PCAP FILTER: one line per RoCEv2 packet of PCAP that FILTER
# picks, "tos T opcode O dqp Q psn P" from its base transport header (the
# start of the UDP payload), for a diagnostic that says which packets
# they were
fq_pcap_bth() {
	tcpdump -nn -v -x -r "$1" "$2" 2>/dev/null | awk "$FQ_PCAP_AWK"'
		function packet() {
			printf "tos %s opcode 0x%s dqp 0x%s psn 0x%s\n", tos, at(payload, 1),
				at(payload + 5, 3), at(payload + 9, 3)
		}'
}

# fq_pcap_cm_tos PCAP FIRST: the tos values (as fq_pcap_tos) of the CM's
# setup and teardown (REQ, REP, RTU, DREQ) of the connections whose REQ
# PCAP holds: the first copy of each (FIRST=1) or only the later copies
# (FIRST=0) per sender, attribute and communication ID.  The CM sends a
# retry on the connection's path, but answers a repeated REP with an RTU
# on the path of the REP it received, as it answers with every REJ and
# with a DREP for a connection it no longer has; for IPv4 that path has
# traffic class 0 (ib_init_ah_attr_from_wc() reads it from the unused
# first half of the GRH buffer, in front of the IPv4 header), whatever
# the connection's.
fq_pcap_cm_tos() {
	tcpdump -nn -v -x -r "$1" \
		"$(fq_cm_attr 0x10) or $(fq_cm_attr 0x13) or $(fq_cm_attr 0x14) or $(fq_cm_attr 0x15)" \
		2>/dev/null | awk -v first="$2" "$FQ_PCAP_AWK"'
		# in the UDP payload: the attribute of the MAD at byte 36, the
		# local comm ID at 44 and the remote one at 48; the source address
		# at byte 12 of the IP packet
		function packet(attr, local, remote, key) {
			attr = at(payload + 36, 2)
			local = at(payload + 44, 4)
			remote = at(payload + 48, 4)
			if (attr == "0010")
				req[local] = 1
			key = at(12, 4) "/" attr "/" local
			if ((local in req || remote in req) && (first == 1) == !(key in seen))
				n[tos]++
			seen[key] = 1
		}
		END {
			for (t in n) { printf "%s%s %s", s, t, n[t]; s = " " }
			print ""
		}'
}
