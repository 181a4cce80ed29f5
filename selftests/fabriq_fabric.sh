#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# fabriq_fabric.sh - fabriq on a real multi-host fabric, run by
# tools/vm/fabric on every host (four guests, virtio-net on one bridge,
# Soft-RoCE on each).  Host i is rank i of every collective; host 0
# prints the KTAP results, and reads the other hosts' verdicts from their
# job's output in their results shares (the host's root is every guest's
# root, read-only).
#   1. Correctness across the bridge: allreduce, allgather, reducescatter,
#      broadcast and alltoall, every type, 8 B to 1 MiB, each result
#      checked on every rank (`fabriq bench -c 1`; one call out of place
#      and one in place per size and type), on 2 channels: the calls of
#      128 KiB per block and up are cut into a slice per channel, each
#      on its own QPs across the bridge.
#   2. The traffic class on the wire: with `fabriq qos set dev rxe0 tc 106`
#      on every host, a capture on the bridge's ports (tools/vm/fabric's)
#      shows every RoCEv2 packet of a four-host allreduce's RC QPs, and
#      of its connection setup and teardown (the first copy of each CM
#      message), with tos 0x6a, and packets from every host.  The CM's
#      own answers (a REJ to a connect that came before the listener, a
#      DREP for a connection already gone, an RTU to a repeated REP) are
#      counted, not checked: the CM sends them on the path of the packet
#      it answers, whose traffic class it reads as 0 (lib.sh).
#   3. A congested port and ECN: host 0's second port (eth1, which qemu
#      sends at about one frame per millisecond: tools/vm/fabric) is rank 0's
#      address of a four-host alltoall, so rank 0's three flows meet in
#      that port's queue.  fabriq's RED (`fabriq qos set dev rxe1 ecn
#      ...`) is its root qdisc, and with tc 106 on every host the
#      collective's packets are ECN-capable.  A capture on the bridge
#      shows packets from that port CE-marked; RED counted the marks and
#      dropped nothing; fabriq's ecn_marked_tx reports RED's count in
#      netlink, debugfs and the Prometheus output; the alltoall is right
#      on every host.  The marking has to be a guest's: this machine's
#      kernel has no red qdisc, so the bridge's ports cannot mark, and a
#      shaper under RED hides the queue from it
#      (Documentation/qos.md); a slow NIC keeps the queue in RED's own.
#   4. The test bed's shaping: a tbf on the last host's tap (from the
#      outside, tools/vm/fabric) slows what reaches that host, and only
#      that host, until it is removed.
#   5. A slow link: every host runs a four-host 1 MiB allreduce loop;
#      host 3's link is slowed twice, first by a netem delay on its own
#      eth0 (this machine's kernel has no netem: tools/vm/fabric), then by
#      a tbf rate limit on its tap from the outside.  The netem is host
#      3's root qdisc from the start, with no delay and room for every
#      packet, and only changed: replacing a root qdisc under live QPs
#      makes rxe fail a QP (a packet the qdisc refuses is fatal to it;
#      cm.c), and so does a full netem queue.  Each time every
#      host raises a link-latency event naming rank 3 and its address and
#      no other rank; host 0's `comm status` names rank 3 the link
#      suspect and the origin of the waits; once the shaping is gone,
#      every host's event clears.  The detection and clear times (host
#      0's clock, from when the shaping changed to when host 0 saw the
#      event in that host's log) are printed, with the slow-peer events
#      each host raised meanwhile.
#   6. A dead host: host 2's qemu is killed (tools/vm/fabric) during a
#      four-host allreduce loop.  Every survivor finds it dead through
#      the control connections' heartbeats within the 5 s peer timeout,
#      not the 30 s op timeout; its call fails
#      with EHOSTDOWN; the status it prints names rank 2 dead; and once
#      it closed the communicator, every fabriq object is gone.
# With the argument "correctness", only scenario 1: make check runs that
# on every guest kernel but the newest, which runs them all.
# Not in TEST_PROGS: it needs the other hosts.
. "$(dirname "$0")/lib.sh"
# shellcheck source=tools/vm/console-problems.sh
. "$(dirname "$0")/../tools/vm/console-problems.sh"

COLLS="allreduce allgather reducescatter broadcast alltoall"
TC_ID=0xfa10
DEAD_ID=0xfa20
DEAD=2		# the host whose qemu is killed
SLOW_ID=0xfa30
SLOW=3		# the host whose link is slowed
SLOW_NETEM="delay 200ms"
SLOW_NETEM_LIMIT=20000	# packets: rxe holds at most 64 in flight per QP
SLOW_TBF="rate 5mbit burst 64kbit latency 400ms"
ECN_ID=0xfa40
# RED on the slow port: rxe's requester stops once more than 64 packets of
# a QP are between it and the NIC (65 at most), about 70 KB of 1 KiB-MTU
# frames, so rank 0's three QPs (and its control connections) hold up to
# about 215 KB in the queue: above max, where RED marks every ECN-capable
# packet, and below RED's limit (4 * max + 4000 bytes: qos_red.c), so RED
# drops nothing (a packet its netdev refuses fails rxe's QP).  The driver
# holds only two frames (byte queue limit 3000) with 6.12's virtio_net,
# which has BQL; an older one's 256-frame ring would hold the queue
# instead, out of RED's sight: the full run is on the newest kernel only
ECN_RED=(ecn prio 0 min 16K max 96K prob 100)
# ecn_addr I: host I's address in the congested scenario (host 0's on its
# slow port eth1, the others' a second one on eth0)
ecn_addr() { echo "198.18.101.$(($1 + 1))"; }
me=${FABRIQ_HOST:?run by tools/vm/fabric}
peers=$(fq_fabric_peers)
only=${1:-}

# bench NAME COLL ID ARGS...: this host's rank of a checked `fabriq
# bench`, between "== NAME" and "== NAME exit RC" lines (the ranks'
# addresses: BENCH_PEERS, default every host's eth0)
bench() {
	local name=$1 coll=$2 id=$3
	shift 3
	echo "== $name"
	fq bench "$coll" --rank "$me" --peers "${BENCH_PEERS:-$peers}" --id "$id" -w 0 -c 1 "$@" 2>&1
	echo "== $name exit $?"
}

# dead_loop: this host's rank of the allreduce loop that host $DEAD dies
# under (its peers wait for host 0 to get there: it runs the other
# scenarios first); then what fabriq objects are left
dead_loop() {
	bench dead allreduce $DEAD_ID -b 1M -e 1M -n 1000000 -c 0 --connect-timeout 600000
	wait_for 10 sh -c "! grep -qv ' 0$' $FQ_DBG/objects"
	echo "== objects left: $(grep -v ' 0$' "$FQ_DBG/objects" | xargs)"
}

# all_running ID N: in this host's status of communicator ID, every rank
# is alive (or this one) and has finished N calls
all_running() {
	fq -j comm status id "$1" | jq -e --argjson n "$FABRIQ_HOSTS" --argjson k "$2" \
		'.[0].ranks | length == $n and all(.state == "self" or .state == "alive") and
		 all(.ops_done >= $k)' > /dev/null
}

# slow_start: this host's rank of the allreduce loop that scenario 5
# slows, and its events in slow-events.log; slow_stop ends both
slow_start() {
	"$FQ_CLI" monitor > "$FABRIQ_OUT/slow-events.log" 2>&1 &
	slow_mon=$!
	# the CLI itself, not the fq function's subshell: slow_stop kills it
	"$FQ_CLI" bench allreduce --rank "$me" --peers "$peers" --id $SLOW_ID -w 0 -c 0 -b 1M \
		-e 1M -n 1000000 --connect-timeout 600000 > "$FABRIQ_OUT/slow-bench.log" 2>&1 &
	slow_bench=$!
}
slow_stop() {
	kill "$slow_bench" "$slow_mon" 2>/dev/null
	wait "$slow_bench" "$slow_mon" 2>/dev/null
}

# Host 0 tells the others what to do in scenario 5 through its output
# (host0/output.log, a file they can all read as it grows; a file that
# appears in a share later may stay unseen under the guests' overlay):
# "# slow link: go", "# slow link: netem N ARGS|off", "# slow link: stop".
# slow_said WHAT: host 0 has said it
slow_said() {
	grep -q "^# slow link: $1" "$FABRIQ_FABRIC_DIR/host0/output.log"
}

# slow_netem ARGS: host $SLOW's netem, the root qdisc of its eth0 before
# any QP is up (slow_prepare) and only changed after (the header)
slow_netem() {
	# shellcheck disable=SC2086 # netem's arguments
	tc qdisc "$1" dev eth0 root netem ${2:-delay 0ms} limit $SLOW_NETEM_LIMIT
}
slow_prepare() {
	modprobe -a virtio_net sch_netem
	wait_for 10 ip link show eth0 >/dev/null 2>&1 && slow_netem add
}

# slow_follow: host $SLOW delays its own sending as host 0 says (netem's
# arguments, or off), each change acknowledged in its own output as
# "netem ack N" with what netem sent and dropped so far, until host 0 is
# done with scenario 5
slow_follow() {
	local line n args have=0
	until slow_said stop; do
		line=$(grep '^# slow link: netem ' "$FABRIQ_FABRIC_DIR/host0/output.log" | tail -1)
		read -r _ _ _ _ n args <<< "$line"
		if [ -n "$n" ] && [ "$n" != "$have" ]; then
			[ "$args" = off ] && args=
			slow_netem change "$args"
			have=$n
			echo "netem ack $n: $(tc -s qdisc show dev eth0 | head -2 | xargs)"
		fi
		sleep 0.2
	done
	slow_netem change
}

# verdict LOG NAME RANK: "ok" if rank RANK's bench NAME in LOG exited 0
# and found no wrong element, else what it said (its count of wrong
# elements and its last line that is not a count, an error's)
verdict() {
	awk -v c="$2" -v r="$3" '
		$0 == "== " c { in_c = 1; next }
		in_c && /^# Out of bounds values/ { wrong = $0 }
		in_c && $0 ~ "^== " c " exit " { rc = $NF; in_c = 0; done = 1; next }
		in_c && !/^#/ && NF { said = $0 }
		END {
			mine = r == 0 ? ": " : "\\(rank " r "\\) : "
			if (done && rc == 0 && wrong ~ mine "0 OK$") print "ok"
			else print (done ? "exit " rc ", " wrong (said == "" ? "" : " (" said ")") \
				    : "did not finish")
		}' "$1"
}

# host_state H: for a host whose bench did not finish, the last line its
# job printed and the first problem its kernel's console shows, if any
# (a guest that panics, on a WARN or a hung task, leaves the fabric),
# with the report's task, RIP, RSP and first functions of its call trace,
# so that a one-line summary still says where it happened
host_state() {
	local dir=$FABRIQ_FABRIC_DIR/host$1 last problem where
	last=$(grep -v '^[[:space:]]*$' "$dir/output.log" 2>/dev/null | tail -n 1)
	if [ -r "$dir/console.log" ]; then
		problem=$(grep -Em1 "$FQ_CONSOLE_PROBLEMS" "$dir/console.log")
		where=$(awk -v re="$FQ_CONSOLE_PROBLEMS" '
			!on && $0 ~ re { on = 1; next }
			on && (/ Comm: / || /RIP: / || /RSP: /) { sub(/^\[[^]]*\] /, ""); out = out " | " $0 }
			on && /Call Trace:/ { trace = 1; next }
			on && trace && n < 6 && / [a-z_0-9.]+\+0x/ {
				sub(/^\[[^]]*\] +/, ""); out = out " | " $0; n++ }
			on && (/---\[ end trace/ || /Kernel panic/) { exit }
			END { print out }' "$dir/console.log")
	else
		problem="not readable here"
	fi
	echo "its job last said '${last:-nothing}', its console: ${problem:-no problem}${where}"
}

if [ "$me" != 0 ]; then		# serve host 0: the same collectives, then wait
	[ "$me" = $SLOW ] && [ "$only" != correctness ] && { slow_prepare || exit 1; }
	fq_fabric_up || exit 1
	i=0
	for coll in $COLLS; do
		bench "$coll" "$coll" $((0xfa00 + i)) -b 8 -e 1M -f 2 -d all -n 1 --channels 2
		i=$((i + 1))
	done
	[ "$only" = correctness ] && { fq_fabric_wait_stop; exit; }
	ip addr add "$(ecn_addr "$me")/24" dev eth0 || exit 1
	fq qos set dev rxe0 tc 106
	bench tc106 allreduce $TC_ID -b 1M -e 1M -n 2
	BENCH_PEERS=$(fq_fabric_peers ecn_addr) bench ecn alltoall $ECN_ID -b 1M -e 1M -n 5 --connect-timeout 600000
	fq qos set dev rxe0 tc 0
	wait_for 900 slow_said go
	slow_start
	if [ "$me" = $SLOW ]; then
		slow_follow
	else
		wait_for 900 slow_said stop
	fi
	slow_stop
	dead_loop
	fq_fabric_wait_stop
	exit
fi

if [ "$only" = correctness ]; then
	ktap_plan 7
else
	ktap_plan 45
fi
fq_require tcpdump ping jq tc
fq_fabric_up
check_eq "all $FABRIQ_HOSTS hosts are up: each answers fabriq ping" 0 $?
# scenario 3's slow port, its device and queueing set before anything
# uses it (replacing a root qdisc drops what it holds, which fails rxe's
# QP of each dropped packet, the CM's too).  Only eth1 answers ARP for
# its address, so the other hosts send to it there
slow_port_up() {
	wait_for 10 ip link show eth1 >/dev/null 2>&1 &&
	echo 1 > /proc/sys/net/ipv4/conf/all/arp_ignore &&
	ip link set eth1 up && ip addr add "$(ecn_addr 0)/24" dev eth1 &&
	# the driver's queue holds two frames, the rest waits in the qdisc
	echo 3000 > /sys/class/net/eth1/queues/tx-0/byte_queue_limits/limit_max &&
	rdma link add rxe1 type rxe netdev eth1 &&
	fq qos set dev rxe1 tc 106 "${ECN_RED[@]}"
}
[ "$only" = correctness ] || check_true "host 0's slow port: eth1 with $(ecn_addr 0), rxe1, tc 106 and RED" \
	slow_port_up

log=$FABRIQ_OUT/bench.log
: > "$log"
i=0
t0=$SECONDS
for coll in $COLLS; do
	bench "$coll" "$coll" $((0xfa00 + i)) -b 8 -e 1M -f 2 -d all -n 1 --channels 2 >> "$log"
	i=$((i + 1))
	check_eq "$FABRIQ_HOSTS-host $coll across the bridge on 2 channels, every type, 8 B to 1 MiB: rank 0 right" \
		ok "$(verdict "$log" "$coll" 0)"
done
ktap_diag "the $FABRIQ_HOSTS-host collectives took $((SECONDS - t0)) s"
# the other hosts' verdicts, from their job's output
bad=
for ((h = 1; h < FABRIQ_HOSTS; h++)); do
	out=$FABRIQ_FABRIC_DIR/host$h/output.log
	wait_for 120 grep -q "^== alltoall exit" "$out"
	for coll in $COLLS; do
		v=$(verdict "$out" "$coll" "$h")
		[ "$v" = ok ] || bad="$bad host $h $coll: $v;"
	done
	[ "$v" = "did not finish" ] && bad="$bad host $h: $(host_state "$h");"
done
check_eq "... and every other host's rank right in every one of them" "" "$bad"
[ "$only" = correctness ] && ktap_finish

# the last collective's stragglers (disconnects) are on the wire no more
sleep 3
# the allreduce's hosts' addresses only: the others start scenario 3's
# alltoall (on 198.18.101.0/24) as soon as their allreduce is done
check_true "a capture on the bridge's ports starts" \
	fq_fabric_req capture tc106 udp port 4791 and net 198.18.100.0 mask 255.255.255.0
fq qos set dev rxe0 tc 106
bench tc106 allreduce $TC_ID -b 1M -e 1M -n 2 >> "$log"
fq_fabric_req capture-stop tc106
check_eq "with tc 106 on every host, a $FABRIQ_HOSTS-host 1 MiB allreduce is right" \
	ok "$(verdict "$log" tc106 0)"
pcap=$FABRIQ_OUT/tc106.pcap
rc_tos=$(fq_pcap_tos "$pcap" "not ($FQ_ROCE_GSI)")
ktap_diag "the collective's RC QPs, tos and packets (each seen on two ports): $rc_tos"
check_match "... every packet of its RC QPs on the bridge carries tos 0x6a" '^0x6a [0-9]+$' "$rc_tos"
cm_tos=$(fq_pcap_cm_tos "$pcap" 1)
ktap_diag "its connection setup and teardown (CM REQ, REP, RTU, DREQ): $cm_tos"
check_match "... and so does its connection setup and teardown" '^0x6a [0-9]+$' "$cm_tos"
# The CM answers on the path of the packet it answers, without fabriq
# (whose tc intent it does not know): a connect that came before the
# listener with a REJ, a DREQ for a connection already gone with a DREP,
# a repeated REP with an RTU (lib.sh: fq_pcap_cm_tos)
ktap_diag "the CM's own answers (REJ: $(fq_pcap_tos "$pcap" "$(fq_cm_attr 0x12)");" \
	"DREP: $(fq_pcap_tos "$pcap" "$(fq_cm_attr 0x16)");" \
	"later copies of its setup and teardown, with those seen on a second port: $(fq_pcap_cm_tos "$pcap" 0))"
# the RC packets of each host's address, in one pass over the capture
counts=$(tcpdump -nn -r "$pcap" "not ($FQ_ROCE_GSI)" 2>/dev/null |
	awk -v hosts="$FABRIQ_HOSTS" -v addr="$(fq_fabric_addr 0)" '
	BEGIN { split(addr, base, ".") }
	{
		for (i = 1; i < NF; i++)
			if ($i == "IP") {
				split($(i + 1), a, ".")
				n[a[1] "." a[2] "." a[3] "." a[4]]++
				break
			}
	}
	END {
		for (h = 0; h < hosts; h++)
			printf " %d", n[base[1] "." base[2] "." base[3] "." (base[4] + h)]
	}')
ktap_diag "RC packets captured from hosts 0..$((FABRIQ_HOSTS - 1)):$counts"
check_eq "... from every host (100 or more each)" "" \
	"$(echo "$counts" | tr ' ' '\n' | awk 'NF && $1 < 100')"
fq qos set dev rxe0 tc 0

# 3. congestion on host 0's slow port, marked by fabriq's RED
red_backlog() {	# red_backlog: the bytes queued in RED on eth1 now
	tc -j -s qdisc show dev eth1 parent fab1:1 | jq '.[0].backlog'
}
check_true "a capture of what leaves host 0's slow port starts" \
	fq_fabric_req capture ecn udp port 4791 and src host "$(ecn_addr 0)"
BENCH_PEERS=$(fq_fabric_peers ecn_addr) bench ecn alltoall $ECN_ID -b 1M -e 1M -n 5 --connect-timeout 600000 \
	>> "$log" &
ecn_bench=$!
backlog=
while ! fq_exited $ecn_bench; do
	backlog="$backlog $(red_backlog)"
	sleep 0.5
done
wait $ecn_bench
fq_fabric_req capture-stop ecn
check_eq "a $FABRIQ_HOSTS-host 1 MiB alltoall with rank 0 on host 0's slow port is right on rank 0" \
	ok "$(verdict "$log" ecn 0)"
ktap_diag "RED's backlog on eth1 every 0.5 s (bytes):$backlog"
red=$(tc -s qdisc show dev eth1 parent fab1:1 | tr -s '\n ' ' ')
ktap_diag "$red"
check_match "... the port's queue built: RED counted marks and dropped nothing" \
	"dropped 0,.* marked [1-9][0-9]* " "$red"
pcap=$FABRIQ_OUT/ecn.pcap
# one pass over the capture: "TOS COUNT ...", the ECN field in TOS's last two bits
tos=$(fq_pcap_tos "$pcap" udp)
ecn_count() {	# ecn_count RE: the packets whose tos's last hex digit matches RE
	echo "$tos" | awk -v re="$1" '{ for (i = 1; i < NF; i += 2) if ($i ~ re) n += $(i + 1) }
		END { print n + 0 }'
}
ce=$(ecn_count '[37bf]$') ect=$(ecn_count '[26ae]$')
ktap_diag "on the bridge from $(ecn_addr 0) (each frame seen on two ports): $ce CE, $ect ECT(0), tos $tos"
check_true "... the capture on the bridge shows packets it marked CE" [ "$ce" -gt 0 ]
check_true "... and ECT(0) ones it did not mark" [ "$ect" -gt 0 ]
fq_check_marks_reported rxe1 eth1
bad=
for ((h = 1; h < FABRIQ_HOSTS; h++)); do
	out=$FABRIQ_FABRIC_DIR/host$h/output.log
	wait_for 120 grep -q "^== ecn exit" "$out"
	v=$(verdict "$out" ecn "$h")
	[ "$v" = ok ] || bad="$bad host $h: $v;"
done
check_eq "... and right on every other host's rank" "" "$bad"

# The test bed shapes a link from the outside: a 2 Mbit/s tbf on the last
# host's tap holds each 60000-byte ICMP echo to it 240 ms on the way in
# (the echo back is not shaped); the host before it is not slowed
big_rtt() {	# big_rtt H: the mean round trip of 60000-byte pings to host H, ms
	ping -c 3 -s 60000 -W 5 "$(fq_fabric_addr "$1")" 2>/dev/null |
		awk -F/ '/^rtt/ { printf "%d\n", $5 }'
}
last=$((FABRIQ_HOSTS - 1)) other=$((FABRIQ_HOSTS - 2))
before=$(big_rtt $last)
check_true "the fabric shapes host $last's link (tbf 2 Mbit/s on its tap)" \
	fq_fabric_req shape $last tbf rate 2mbit burst 32kbit latency 400ms
shaped=$(big_rtt $last) neighbour=$(big_rtt $other)
fq_fabric_req unshape $last
after=$(big_rtt $last)
ktap_diag "60000-byte ICMP round trips, ms: host $last ${before:-?} before, ${shaped:-?} shaped," \
	"${after:-?} after; host $other ${neighbour:-?} meanwhile"
check_true "... its round trips take 200 ms or more, host $other's less" \
	test "${shaped:-0}" -ge 200 -a "${neighbour:-999}" -lt 200
check_true "... and less again once unshaped" test "${after:-999}" -lt 200
# The requests are checked word by word before the host acts on them
check_match "a request the fabric does not know is refused" "unknown request 'sh'" \
	"$(fq_fabric_req sh -c id)"
check_match "... a capture named out of the results share, or with a shell word, too" \
	"name '../x'.*filter word 'port;id'" \
	"$({ fq_fabric_req capture ../x udp; fq_fabric_req capture x udp 'port;id'; } | tr '\n' ' ')"
check_match "... and a shape of a host or qdisc the fabric does not have" \
	"host '$FABRIQ_HOSTS'.*qdisc 'netem'" \
	"$({ fq_fabric_req shape "$FABRIQ_HOSTS" tbf rate 1mbit; fq_fabric_req shape 0 netem delay 1ms; } |
		tr '\n' ' ')"

# 5. a slow link (before 6, which kills a host).  ev_after H N: host H's events past its first N lines
ev_log() { echo "$FABRIQ_FABRIC_DIR/host$1/slow-events.log"; }
ev_after() { tail -n +$(($2 + 1)) "$(ev_log "$1")" 2>/dev/null; }
ev_lines() { local h n=; for ((h = 0; h < FABRIQ_HOSTS; h++)); do n="$n $(wc -l < "$(ev_log $h)")"; done; echo $n; }
ll_re() {	# ll_re raised|cleared: a link-latency event of the loop's communicator
	echo "^detector link-latency $1 .* comm $SLOW_ID rank [0-9]+ peer"
}
# slow_wait raised|cleared T0 "N0 N1 ...": wait (90 s at most) until
# every host has that link-latency event about rank $SLOW past line Ni
# of its log; print each host's delay from T0 (ns, this host's clock:
# when this host saw it there), "-" for a host that did not
slow_wait() {
	local kind=$1 t0=$2 h left=$FABRIQ_HOSTS deadline=$((SECONDS + 90))
	local -a base at=()
	read -ra base <<< "$3"
	local re
	re="$(ll_re "$kind") $SLOW address $(fq_fabric_addr $SLOW) "
	while [ "$left" -gt 0 ] && [ $SECONDS -lt $deadline ]; do
		for ((h = 0; h < FABRIQ_HOSTS; h++)); do
			[ -n "${at[h]:-}" ] && continue
			if ev_after $h "${base[h]}" | grep -Eq -- "$re"; then
				at[h]=$((($(date +%s%N) - t0) / 1000000))
				left=$((left - 1))
			fi
		done
		sleep 0.5
	done
	for ((h = 0; h < FABRIQ_HOSTS; h++)); do printf '%s ' "${at[h]:--}"; done
}
# status_origin: host 0's comm status of the loop: "SUSPECT ORIGIN" (the
# link suspect, and the origin that blocks the most; - for none)
status_origin() {
	fq -j comm status id $SLOW_ID 2>/dev/null | jq -r '.[0].ranks as $r |
		(([$r[] | select(.link_suspect) | .rank] | first) // "-" | tostring) + " " +
		(([$r[] | select(.origin)] | max_by(.blocks) | .rank) // "-" | tostring)'
}
# slow_run NAME SHAPE UNSHAPE: scenario 5 with the link slowed by SHAPE
# (a command) and restored by UNSHAPE
slow_run() {
	local name=$1 shape=$2 unshape=$3 base base2 t0 det clr samples h other bad=
	local suspects origins
	base=$(ev_lines)
	t0=$(date +%s%N)
	check_true "$name: host $SLOW's link is slowed" $shape
	det=$(slow_wait raised "$t0" "$base")
	ktap_diag "$name: link-latency raised about rank $SLOW on hosts 0..$((FABRIQ_HOSTS - 1)) after (ms): $det"
	check_eq "... every host raises link-latency naming rank $SLOW ($(fq_fabric_addr $SLOW))" \
		"" "$(echo "$det" | grep -o -- '-')"
	case $det in *-*)	# why: has a loop ended?
		for ((h = 0; h < FABRIQ_HOSTS; h++)); do
			ktap_diag "host $h's loop: $(grep -m1 -e failed -e error \
				"$FABRIQ_FABRIC_DIR/host$h/slow-bench.log")"
		done
	esac
	samples=
	for _ in 1 2 3; do
		samples="$samples$(status_origin),"
		sleep 1
	done
	ktap_diag "$name: host 0's comm status, link suspect and origin, 3 samples 1 s apart: $samples"
	suspects=$(echo "$samples" | tr ',' '\n' | awk -v r=$SLOW '$1 == r' | wc -l)
	origins=$(echo "$samples" | tr ',' '\n' | awk -v r=$SLOW '$2 == r' | wc -l)
	# each sample is this instant's view from heartbeats up to a period
	# old; the event above is the one with a window
	check_true "... host 0's comm status names rank $SLOW the link suspect (2 or more of 3 samples: $suspects) and the origin (2 or more: $origins)" \
		test "$suspects" -ge 2 -a "$origins" -ge 2
	base2=$(ev_lines)
	t0=$(date +%s%N)
	$unshape
	clr=$(slow_wait cleared "$t0" "$base2")
	ktap_diag "$name: link-latency cleared about rank $SLOW on hosts 0..$((FABRIQ_HOSTS - 1)) after (ms): $clr"
	check_eq "... once the link is restored, every host clears it" "" "$(echo "$clr" | grep -o -- '-')"
	for ((h = 0; h < FABRIQ_HOSTS; h++)); do
		other=$(ev_after $h "$(echo "$base" | cut -d' ' -f$((h + 1)))" |
			grep -E -- "$(ll_re raised)" | grep -v " peer $SLOW address ")
		[ -z "$other" ] || bad="$bad host $h: $other;"
		ktap_diag "$name: host $h's slow-peer events meanwhile: $(ev_after $h "$(echo "$base" |
			cut -d' ' -f$((h + 1)))" | grep -E '^detector slow-peer raised' |
			grep -o ' peer [0-9]*' | sort | uniq -c | xargs)"
	done
	check_eq "... and no host's link-latency names another rank" "" "$bad"
}
netem_n=0
netem_set() {	# netem_set ARGS|off: host $SLOW applies it (slow_follow)
	netem_n=$((netem_n + 1))
	ktap_diag "slow link: netem $netem_n $*"
	wait_for 30 grep -q "^netem ack $netem_n:" "$FABRIQ_FABRIC_DIR/host$SLOW/output.log"
	ktap_diag "host $SLOW: $(grep "^netem ack $netem_n:" "$FABRIQ_FABRIC_DIR/host$SLOW/output.log")"
}
ktap_diag "slow link: go"
slow_start
wait_for 300 all_running $SLOW_ID 2
check_true "$FABRIQ_HOSTS hosts run the 1 MiB allreduce loop" all_running $SLOW_ID 2
# the links' baselines: 5 heartbeat periods (1 s) with traffic
sleep 8
ktap_diag "host 0's links before: $(tr '\n' ';' < "$FQ_DBG/comms/$(printf %x $SLOW_ID)-r0/links")"
slow_run "netem $SLOW_NETEM on host $SLOW's eth0" "netem_set $SLOW_NETEM" "netem_set off"
sleep 5
slow_run "tbf $SLOW_TBF on host $SLOW's tap" "fq_fabric_req shape $SLOW tbf $SLOW_TBF" \
	"fq_fabric_req unshape $SLOW"
ktap_diag "host 0's links after: $(tr '\n' ';' < "$FQ_DBG/comms/$(printf %x $SLOW_ID)-r0/links")"
ktap_diag "slow link: stop"
slow_stop

# 6. host $DEAD dies during a four-host allreduce loop
dead_log=$FABRIQ_OUT/dead.log
dead_loop > "$dead_log" 2>&1 &
loop=$!
wait_for 300 all_running $DEAD_ID 1
check_true "the $FABRIQ_HOSTS hosts run allreduces, each alive in every host's status" \
	all_running $DEAD_ID 1
sleep 2
t0=$(date +%s%N)
fq_fabric_req kill $DEAD || ktap_diag "the fabric did not kill host $DEAD"
# a survivor that never noticed is stopped after a minute (its peers follow)
wait_for 60 sh -c "! kill -0 $loop 2>/dev/null" || pkill -f -- "--id $DEAD_ID"
wait $loop
ms=$((($(date +%s%N) - t0) / 1000000))
ktap_diag "host $DEAD killed: this host's allreduce failed $ms ms later:" \
	"$(grep -m1 'failed' "$dead_log")"
ktap_diag "its status then: $(sed -n '/when the call failed/,/^$/p' "$dead_log" | tr -s ' \n' ' ')"
check_match "... host $DEAD killed: this host's call fails with EHOSTDOWN" \
	"allreduce failed: Host is down" "$(cat "$dead_log")"
# measured 6.6 s alone and 7.6 s in CI: the 5 s timeout, the request,
# the teardown and this loop's polling, on four loaded TCG guests
check_true "... within the 5 s peer timeout (+5 s for the request and the teardown), not the 30 s op timeout: $ms ms" \
	test "$ms" -lt 10000
check_match "... the status it printed names rank $DEAD dead" \
	"rank $DEAD address $(fq_fabric_addr $DEAD) dead heard" "$(cat "$dead_log")"
bad=
for ((h = 1; h < FABRIQ_HOSTS; h++)); do
	[ $h = $DEAD ] && continue
	out=$FABRIQ_FABRIC_DIR/host$h/output.log
	wait_for 60 grep -q "^== objects left" "$out"
	sec=$(sed -n '/^== dead$/,/^== objects left/p' "$out" | tr '\n' ' ')
	ktap_diag "host $h: $(echo "$sec" | grep -o 'allreduce failed: [A-Za-z ]*') $(echo "$sec" |
		grep -o "rank $DEAD address [0-9.]* [a-z]*")"
	echo "$sec" | grep -q "allreduce failed: Host is down" || bad="$bad host $h: no EHOSTDOWN;"
	echo "$sec" | grep -q "rank $DEAD address $(fq_fabric_addr $DEAD) dead" ||
		bad="$bad host $h: rank $DEAD not dead in its status;"
	left=$(grep "^== objects left" "$out" | sed 's/^== objects left://' | xargs)
	[ -z "$left" ] || bad="$bad host $h: objects left: $left;"
done
check_eq "... and so does every other survivor's, naming rank $DEAD dead, with nothing left after" \
	"" "$bad"
check_eq "... and on this host nothing is left" "" \
	"$(grep '^== objects left' "$dead_log" | sed 's/^== objects left://' | xargs)"
ktap_finish
