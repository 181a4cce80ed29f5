#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# fabriq_coll.sh - the in-kernel collectives on real rdma_rxe QPs: the
# schedules in isolation (fabriq_algo), the port's tc and sl intents on
# rdma_cm routes (fabriq_qos_path), every collective x type x op on 1, 2,
# 3, 4, 5 and 8 ranks (fabriq_coll), the large sizes on 4 ranks, bad
# input, timeouts, signals and a killed rank (fabriq_coll_bad), the
# registration cache against remapping, fork and huge pages
# (fabriq_regcache), the port's tc intent in `fabriq comm show` on both
# ends and on the collectives' packets, fewer send completions than sends
# (selective signalling), CQs per channel and spread over more under
# max_cq_entries, and then nothing left behind: no
# fabriq PD, CQ or QP in `rdma resource show` and every module object
# counter back at zero.
. "$(dirname "$0")/lib.sh"
here=$(cd "$(dirname "$0")" && pwd)

ktap_plan 57
fq_require jq sysctl pkill tcpdump
fq_load_fabriq || ktap_bail "cannot load fabriq"
fq_ranks_up 8 || ktap_bail "cannot set up 8 local ranks"

fq_run_sub "schedules on simulated ranks" "$here/fabriq_algo"
fq_run_sub "the port's tc and sl intents on rdma_cm routes (kernel/qos/qos_path.c)" \
	"$here/fabriq_qos_path"
for n in 1 2 3 4 5 8; do
	fq_run_sub "$n rank(s), every collective x type x op" "$here/fabriq_coll" --ranks "$n"
done
fq_run_sub "4 ranks, 1 MiB+3 and 16 MiB" "$here/fabriq_coll" --ranks 4 --big
# With 4 channels of 4 KiB chunks, every call of two chunks per block or
# more (every type at 4096 elements but int8, the odd sizes, in place,
# overlapping, forced schedules) is cut into a slice per channel, each
# running the schedule over its own connections (coll.c).  Sum only: the
# whole matrix of ops took 5 minutes more here, and an op does not meet
# the cut
fq_run_sub "3 ranks, 4 channels, 4 KiB chunks: calls cut into a slice per channel" \
	"$here/fabriq_coll" --ranks 3 --channels 4 --chunk 4096 --sliced
mark=$(fq_console_mark)
fq_run_sub "bad input, timeouts, signal, killed rank" "$here/fabriq_coll_bad"
# its rank 1 with 1 channel against rank 0's 2 (communicator b0de0): both
# ranks' kernel logs name both data paths
bad_log=$(fq_kernel_since "$mark")
check_match "a rank that runs another data path: the listener's kernel log names both" \
	"communicator b0de0 rank 0: rank 1 \\(198\\.19\\.0\\.2\\) runs chunk_bytes 65536 small_bytes [0-9]+ channels 1 algo auto rendezvous_write 0, this rank chunk_bytes 65536 small_bytes [0-9]+ channels 2 algo auto rendezvous_write 0" \
	"$bad_log"
check_match "... and so does the refused rank's" \
	"communicator b0de0 rank 1: rank 0 \\(198\\.19\\.0\\.1\\) runs chunk_bytes 65536 small_bytes [0-9]+ channels 2 algo auto rendezvous_write 0, this rank chunk_bytes 65536 small_bytes [0-9]+ channels 1 algo auto rendezvous_write 0" \
	"$bad_log"
# two ranks x two buffers x two 2 MiB hugetlb pages
hugepages=$(sysctl -n vm.nr_hugepages)
sysctl -qw vm.nr_hugepages=16
fq_run_sub "registration cache: reuse, remap, fork, huge pages, REG/DEREG" "$here/fabriq_regcache"
sysctl -qw vm.nr_hugepages="$hugepages"

# visibility: a running bench's communicators in netlink and debugfs; with
# a tc intent on fqr1 (rank 1 connects to rank 0), both ends of the
# connection name the class of service its route carries
fq qos set dev fqr1 tc 106
fq bench allreduce --ranks 2 --peers 198.19.0.1,198.19.0.2 -b 1M -e 1M -n 100000 -c 0 \
	--port 19300 --id 0xc0de >/dev/null 2>&1 &
wait_for 30 sh -c "$FQ_CLI comm show id 0xc0de | grep -c 'state ready' | grep -qx 2"
j=$(fq -j comm show id 0xc0de)
check_eq "COMM_GET lists both ranks of a running bench" 2 "$(echo "$j" | jq length)"
check_eq "... ready, 2 ranks, peer up, 2 QPs each (a data channel and the control connection)" "ready 2 up 2 ready 2 up 2" \
	"$(echo "$j" | jq -r '.[] | "\(.state) \(.nranks) \(.peers[0].state) \(.qps)"' | xargs)"
check_match "debugfs comms/c0de-r0/summary" "state ready" "$(cat "$FQ_DBG/comms/c0de-r0/summary")"
# The kernel memory a communicator holds grows with its peers: per peer,
# each data channel's 10 receive slots of a chunk (64 KiB) and 8 send
# slots (16 KiB: larger messages are sent zero-copy), and the control
# connection's 4 + 1 of 64 bytes.
ktap_diag "c0de rank 0: $(grep '^mem_' "$FQ_DBG/comms/c0de-r0/summary" | xargs)"
check_eq "... its slots take (ranks - 1) x (10 x 64 KiB + 8 x 16 KiB + 5 x 64 B) of kernel memory" \
	"mem_slots $(((2 - 1) * (10 * 65536 + 8 * 16384 + 5 * 64)))" \
	"$(grep '^mem_slots' "$FQ_DBG/comms/c0de-r0/summary")"
# Its structures: a connection holds its work requests' SGE lists as
# long as a chunk's pages (17 for 64 KiB), a control connection one
# heartbeat's request (45968 bytes measured; 73968 when every connection
# held 32 requests of 32 SGEs)
structs=$(sed -n 's/^mem_structs //p' "$FQ_DBG/comms/c0de-r0/summary")
check_true "... and its structures less than 48 KiB: $structs bytes" test "${structs:-49152}" -lt 49152
# Its channel and its control connection complete on CQs of their own,
# each with room for all its QPs' queues: a data QP's 35 + 1 send and
# 10 + 1 receive work requests, the control QP's 1 + 1 and 4 + 1.
check_eq "... a CQ for its data channel and one for its control connection, 47 + 7 entries" \
	"cqs 2 cq_entries 54" \
	"$(grep '^cq' "$FQ_DBG/comms/c0de-r0/summary" | tr '\n' ' ' | sed 's/ $//')"
check_match "debugfs comms/c0de-r1/peers: peer 0 up" "^0 +0 +198.19.0.1:19300 +[0-9]+ +up" \
	"$(cat "$FQ_DBG/comms/c0de-r1/peers")"
ktap_diag "allreduce, rank 1 to rank 0: $(awk '$1 == 0 { print $11 " sends completed, " $12 " completions delivered" }' "$FQ_DBG/comms/c0de-r1/peers")"
check_eq "... both ends of the connection carry rank 1's tc intent, sl 0 (RoCE, no VLAN)" \
	"106 0 106 0" "$(echo "$j" | jq -r '.[] | "\(.peers[0].tc) \(.peers[0].sl)"' | xargs)"
check_match "... in text too" "peer 0 address 198.19.0.1 state up tc 106 sl 0 " \
	"$(fq comm show id 0xc0de)"
pkill -f -- '--port 19300'
wait
fq qos set dev fqr1 tc 0

# a communicator with 999 peers does not fit one netlink message: COMM_GET
# goes on in the next ones, and the CLI shows it as one
peers=198.19.0.1$(for i in $(seq 999); do printf ',198.19.0.2'; done)
fq bench allreduce --rank 0 --peers "$peers" -n 1 -c 0 --port 19700 --id 0x999 >/dev/null 2>&1 &
wait_for 30 sh -c "$FQ_CLI -j comm show id 0x999 | jq -e '.[0].nranks == 1000' >/dev/null"
check_eq "COMM_GET of a 1000-rank communicator: one record with its 999 peers" "1 999 999" \
	"$(fq -j comm show id 0x999 | jq -r '"\(length) \(.[0].peers | length) \(.[0].peers[-1].rank)"')"
check_eq "... in text too: one comm line" 1 "$(fq comm show id 0x999 | grep -c '^comm ')"
pkill -f -- '--port 19700'
wait

check_eq "fabriq -j bench: one JSON document, 2 sizes, 0 wrong" "2 0" \
	"$(fq -j bench allreduce --ranks 2 --peers 198.19.0.1,198.19.0.2 -b 8 -e 16 -n 1 -c 1 \
		--port 19400 | jq -r '"\(.results | length) \(.summary.wrong)"')"
check_eq "fabriq bench --median (the time column is the median call): 1 size, 0 wrong" "1 0" \
	"$(fq -j bench allreduce --ranks 2 --peers 198.19.0.1,198.19.0.2 -b 64K -e 64K -n 11 -c 1 \
		--median --port 19400 | jq -r '"\(.results | length) \(.summary.wrong)"')"
# --plot: the table's bandwidth columns drawn by gnuplot
fq bench allreduce --ranks 2 --peers 198.19.0.1,198.19.0.2 -b 8 -e 256K -f 4 -n 2 -c 0 \
	--port 19400 --plot /tmp/fq_coll_plot.png > /dev/null 2>/tmp/fq_coll_plot.err
check_eq "bench --plot FILE.png draws a PNG" "89504e470d0a1a0a" \
	"$(head -c 8 /tmp/fq_coll_plot.png 2>/dev/null | od -An -tx1 | tr -d ' \n')$(cat /tmp/fq_coll_plot.err)"
fq bench allgather --ranks 2 --peers 198.19.0.1,198.19.0.2 -b 1K -e 64K -n 2 -c 0 --port 19400 \
	-d all --plot /tmp/fq_coll_plot.svg > /dev/null 2>/tmp/fq_coll_plot.err
check_eq "... and FILE.svg an SVG: one line per column and type (4 x 10), titled with the collective" \
	"40 fabriq bench allgather, 2 ranks" \
	"$(python3 -c 'import sys, xml.etree.ElementTree as E
r = E.parse(sys.argv[1]).getroot(); ns = "{http://www.w3.org/2000/svg}"
texts = ["".join(t.itertext()) for t in r.iter(ns + "text")]
keys = [t for t in texts if " place" in t]
print(len(keys), next(t for t in texts if t.startswith("fabriq bench")))' /tmp/fq_coll_plot.svg 2>&1)$(cat /tmp/fq_coll_plot.err)"
rm -f /tmp/fq_coll_plot.png /tmp/fq_coll_plot.svg /tmp/fq_coll_plot.err
# zero-copy sends of a chunk that is no multiple of the page size: a
# message of 20008 bytes spans up to 6 pages wherever it starts (bench's
# buffers start 16 bytes into a page), one more than 20008 / 4096 + 1
check_eq "a 2-rank 1 MiB allreduce in chunks of 20008 bytes, sent from the caller's pages: 0 wrong" \
	"1 0" "$(fq -j bench allreduce --ranks 2 --peers 198.19.0.1,198.19.0.2 -b 1M -e 1M -n 2 -c 1 \
		--chunk 20008 --port 19400 | jq -r '"\(.results | length) \(.summary.wrong)"')"
# The port's "tc" intent is the traffic class of the connections a rank
# makes: rank 1 connects to rank 0, so what leaves fqr1 for rank 0 carries it.
fq qos set dev fqr1 tc 106
tcpdump -i fqr1 -nn -U -w /tmp/fq_coll_tc.pcap "udp dst port 4791 and dst host 198.19.0.1" \
	2> /tmp/fq_coll_tc.err &
cap=$!
wait_for 10 grep -q "listening on" /tmp/fq_coll_tc.err
check_eq "with tc 106 on fqr1, a 2-rank allreduce: 1 size, 0 wrong" "1 0" \
	"$(fq -j bench allreduce --ranks 2 --peers 198.19.0.1,198.19.0.2 -b 256K -e 256K -n 2 -c 1 \
		--port 19400 | jq -r '"\(.results | length) \(.summary.wrong)"')"
sleep 1
kill "$cap"; wait "$cap" 2>/dev/null
ktap_diag "$(tcpdump -nn -r /tmp/fq_coll_tc.pcap 2>/dev/null | wc -l) RoCEv2 packets from rank 1 to rank 0"
rc_tos=$(fq_pcap_tos /tmp/fq_coll_tc.pcap "not ($FQ_ROCE_GSI)")
ktap_diag "its RC QPs, tos and packets: $rc_tos"
check_match "... and every packet of rank 1's RC QPs carries tos 0x6a" '^0x6a [0-9]+$' "$rc_tos"
cm_tos=$(fq_pcap_cm_tos /tmp/fq_coll_tc.pcap 1)
ktap_diag "its connection setup and teardown (CM REQ, RTU, DREQ): $cm_tos"
check_match "... and so does rank 1's connection setup and teardown" '^0x6a [0-9]+$' "$cm_tos"
# the CM's own answers, on the path of the packet each answers (lib.sh)
ktap_diag "the CM's own answers (DREP: $(fq_pcap_tos /tmp/fq_coll_tc.pcap "$(fq_cm_attr 0x16)");" \
	"repeats: $(fq_pcap_cm_tos /tmp/fq_coll_tc.pcap 0))"
fq qos set dev fqr1 tc 0
rm -f /tmp/fq_coll_tc.pcap /tmp/fq_coll_tc.err

# Selective signalling: a 2-rank 1 MiB allreduce is 16 zero-copy sends
# a call each way, which the peer reduces (so never read requests),
# posted in chains as the peer's credits come back in batches of 4; only
# a chain's last send and every 4th ask for a completion (signalling
# every send, as before, delivers one per send).
fq bench allreduce --ranks 2 --peers 198.19.0.1,198.19.0.2 -b 1M -e 1M -n 100000 -c 0 \
	--port 19350 --id 0xb0ca >/dev/null 2>&1 &
wait_for 30 sh -c "$FQ_CLI comm show id 0xb0ca | grep -c 'state ready' | grep -qx 2"
sleep 3
read -r sent cqes rts <<< "$(awk '$1 == 1 { print $11, $12, $19 }' "$FQ_DBG/comms/b0ca-r0/peers")"
ktap_diag "allreduce, rank 0 to rank 1: ${sent:-?} sends completed, ${cqes:-?} completions delivered, ${rts:-?} read requests"
check_true "... at most half as many send completions as sends (64 sends or more), no read request" \
	test "${sent:-0}" -ge 64 -a "$((${cqes:-0} * 2))" -le "${sent:-0}" -a "${rts:-1}" = 0
pkill -f -- '--port 19350'
wait

# Rendezvous (rndv.c): a 1 MiB broadcast's 16 messages a call, which rank 1
# copies into place, go as read requests that rank 1 reads straight into
# its buffer, each once (module parameter rendezvous, off by default).
# Stopped, the bench holds between calls, or in
# a call whose peer holds before it: then at most FQ_CREDITS (8) read
# requests are unread.  The bench's own syncs are small plain messages.
echo 1 > /sys/module/fabriq/parameters/rendezvous
fq bench broadcast --ranks 2 --peers 198.19.0.1,198.19.0.2 -b 1M -e 1M -n 100000 -c 0 \
	--port 19360 --id 0xb0cb >/dev/null 2>&1 &
wait_for 30 sh -c "$FQ_CLI comm show id 0xb0cb | grep -c 'state ready' | grep -qx 2"
echo 0 > /sys/module/fabriq/parameters/rendezvous
check_eq "summary: 32 MRs of 512 KiB, registrations lead their queue (rxe replays them)" \
	"rndv_mrs 32 rndv_max_bytes 524288 rndv_replays yes rndv_write no" \
	"$(grep '^rndv_' "$FQ_DBG/comms/b0cb-r0/summary" | tr '\n' ' ' | sed 's/ $//')"
# a read request lends up to 8 of a call's 16 messages: at least 64 of
# them (the wait ends early if the bench, and its debugfs file, are gone)
wait_for 120 sh -c "! test -e $FQ_DBG/comms/b0cb-r0/peers ||
	awk '\$1 == 1 && \$19 >= 64 { ok = 1 } END { exit !ok }' $FQ_DBG/comms/b0cb-r0/peers"
pkill -STOP -f -- '--port 19360'
sleep 2
read -r sent rts <<< "$(awk '$1 == 1 { print $11, $19 }' "$FQ_DBG/comms/b0cb-r0/peers")"
read -r reads <<< "$(awk '$1 == 0 { print $20 }' "$FQ_DBG/comms/b0cb-r1/peers")"
ktap_diag "broadcast, rank 0 to rank 1: ${sent:-?} sends completed, ${rts:-?} of them read requests; rank 1 read ${reads:-?}"
check_true "... every 16 KiB+ message lent by a read request (64 or more requests), each read once" \
	test "${rts:-0}" -ge 64 -a "${rts:-0}" -ge "$((${sent:-0} - 4))" \
	-a "${reads:-0}" -le "${rts:-0}" -a "${reads:-0}" -ge "$((${rts:-0} - 8))"
pkill -CONT -f -- '--port 19360'
pkill -f -- '--port 19360'
wait

# No step barrier (pipe.c): a 2-rank ring allreduce of 4 MiB is two steps
# of 32 messages; step 1 forwards what step 0 reduced as soon as it is
# placed, while step 0's last sends are still in flight.  debugfs
# "pipeline" counts the steps that moved before the one before them was
# done (the step-by-step engine: never).
fq bench allreduce --ranks 2 --peers 198.19.0.1,198.19.0.2 --algo ring -b 4M -e 4M -n 100000 \
	-c 0 --port 19360 --id 0xb1be >/dev/null 2>&1 &
wait_for 30 sh -c "$FQ_CLI comm show id 0xb1be | grep -c 'state ready' | grep -qx 2"
wait_for 30 sh -c "awk '\$1 == \"steps_run\" && \$2 >= 20 { ok = 1 } END { exit !ok }' \
	$FQ_DBG/comms/b1be-r0/pipeline"
pipeline=$(cat "$FQ_DBG/comms/b1be-r0/pipeline")
ktap_diag "ring allreduce 4 MiB, rank 0: $(echo "$pipeline" | head -2 | xargs)"
echo "$pipeline" | sed -n '3,$p' | while read -r line; do ktap_diag "  $line"; done
# debugfs "steps" read during a call shows the last whole call (its two
# waits for rank 1), not the running one's first few
steps_whole=0
for i in 1 2 3 4 5; do
	steps=$(cat "$FQ_DBG/comms/b1be-r0/steps")
	[ "$(echo "$steps" | grep -c '^[0-9]')" = 2 ] && steps_whole=$((steps_whole + 1))
	sleep 0.3
done
echo "$steps" | while read -r line; do ktap_diag "  steps: $line"; done
pkill -f -- '--port 19360'
wait
check_eq "... debugfs steps, read 5 times during calls, shows a whole call each time" 5 \
	"$steps_whole"
check_true "... steps overlap: some step moved while the one before it ran" \
	test "$(echo "$pipeline" | awk '$1 == "steps_overlapped" { print $2 }')" -gt 0
check_eq "... in order: each step admitted, moved and done no earlier than the one before" "" \
	"$(echo "$pipeline" | awk '/^[0-9]/ { if (n && ($2 < a || $4 < d)) print; a = $2; d = $4; n++ }')"

# On 4 channels the same call is cut into 4 slices of 1 MiB (coll.c), and
# each channel runs the ring on its own, over its own QP to the peer:
# debugfs "pipeline" lists each channel's 2 steps (its last column), in
# order per channel, and debugfs "peers" shows every channel's QP
# carrying sends.
fq bench allreduce --ranks 2 --peers 198.19.0.1,198.19.0.2 --algo ring --channels 4 -b 4M -e 4M \
	-n 100000 -c 0 --port 19460 --id 0xb1c4 >/dev/null 2>&1 &
wait_for 30 sh -c "$FQ_CLI comm show id 0xb1c4 | grep -c 'state ready' | grep -qx 2"
wait_for 30 sh -c "awk '\$1 == \"steps_run\" && \$2 >= 40 { ok = 1 } END { exit !ok }' \
	$FQ_DBG/comms/b1c4-r0/pipeline"
pipeline=$(cat "$FQ_DBG/comms/b1c4-r0/pipeline")
peers=$(cat "$FQ_DBG/comms/b1c4-r0/peers")
# The channels of a call run in parallel (coll.c): channels 1-3 of the
# 4-channel call each in a channel worker of the fabriq_chan workqueue,
# whose kworker names the workqueue while it runs one ("+fabriq_chan").
check_true "4 channels: channel workers (kworker ...+fabriq_chan) run the call's channels" \
	wait_for 20 sh -c "cat /proc/[0-9]*/comm 2>/dev/null | grep -q '+fabriq_chan'"
pkill -f -- '--port 19460'
wait
echo "$pipeline" | sed -n '3,$p' | while read -r line; do ktap_diag "  $line"; done
check_eq "4 channels: debugfs pipeline lists 2 ring steps for each of channels 0-3" \
	"0:2 1:2 2:2 3:2" \
	"$(echo "$pipeline" | awk '/^[0-9]/ { n[$6]++ } END { for (c in n) print c ":" n[c] }' |
		sort | xargs)"
check_eq "... each channel's steps in order" "" \
	"$(echo "$pipeline" | awk '/^[0-9]/ { c = $6; if (c in a && ($2 < a[c] || $4 < d[c])) print
		a[c] = $2; d[c] = $4 }')"
check_eq "... and each of the 4 channels' QPs to rank 1 carried sends" 4 \
	"$(echo "$peers" | awk '$1 == 1 && $11 > 0' | wc -l)"
check_eq "... and sent messages of their own (debugfs peers: msgs_tx per channel)" 4 \
	"$(echo "$peers" | awk '$1 == 1 && $7 > 0' | wc -l)"

# chan_workers off (read when a communicator is made): the call's one
# thread drives the 4 channels side by side, as make bench-ab compares
echo 0 > /sys/module/fabriq/parameters/chan_workers
check_eq "chan_workers 0: 4 channels in one thread, 2 ranks, 8 B - 256 KiB: 6 sizes, 0 wrong" "6 0" \
	"$(fq -j bench allreduce --ranks 2 --peers 198.19.0.1,198.19.0.2 --channels 4 --chunk 4096 \
		-b 8 -e 256K -f 8 -n 2 -c 1 --port 19470 | jq -r '"\(.results | length) \(.summary.wrong)"')"
echo 1 > /sys/module/fabriq/parameters/chan_workers

# A synchronous call of at most 4 KiB runs on the communicator's
# preallocated call and staging (allocates nothing): each rank of the
# bench makes one call at a time, so all of them do.  summary prints
# ops_done, then ops_preallocated a moment later, while the bench runs:
# the call in flight, and one that ended and a next one claimed in
# between, may be counted in the second and not yet in the first.
# Each 8-byte message goes inline (IB_SEND_INLINE, rxe grants the QPs
# FQ_INLINE_BYTES): debugfs peers counts them (inline_tx) beside the sends.
fq bench allreduce --ranks 2 --peers 198.19.0.1,198.19.0.2 -b 8 -e 8 -n 1000000 -c 0 \
	--port 19370 --id 0xb5a1 >/dev/null 2>&1 &
wait_for 60 sh -c "awk '\$1 == \"ops_done\" && \$2 >= 100 { ok = 1 } END { exit !ok }' \
	$FQ_DBG/comms/b5a1-r0/summary"
read -r done pre <<< "$(awk '$1 == "ops_done" { d = $2 } $1 == "ops_preallocated" { p = $2 }
	END { print d, p }' "$FQ_DBG/comms/b5a1-r0/summary")"
read -r sent inl <<< "$(awk '$1 == 1 { print $11, $21 }' "$FQ_DBG/comms/b5a1-r0/peers")"
pkill -f -- '--port 19370'
wait
ktap_diag "8-byte allreduce, rank 0: ${done:-?} calls done, ${pre:-?} on the preallocated call"
check_true "... every 8-byte call ran on the preallocated call" \
	test "${done:-0}" -ge 100 -a "${pre:-0}" -ge "${done:-1}" -a "${pre:-0}" -le "$((${done:-0} + 2))"
ktap_diag "8-byte allreduce, rank 0 to rank 1: ${sent:-?} sends completed, ${inl:-?} of them inline"
check_true "... its messages went inline (all but the bench's empty ones)" \
	test "${inl:-0}" -ge 100 -a "${inl:-0}" -le "${sent:-0}" -a "$((${inl:-0} + 8))" -ge "${sent:-0}"
# A CQ holds every completion its QPs may hold at once, so where a
# channel's peers need more than a CQ may have (the device's max_cqe; here
# max_cq_entries), they spread over more CQs: with 100, two data QPs of 47
# on a CQ, so 4 ranks x 2 channels take 2 CQs per channel (94 + 47) and
# one for the 3 control QPs (21).  Counted once every communicator before
# is gone: the 8-byte bench's ranks are processes of their own, which may
# still be tearing down when the shell's wait returns (in CI of 421f20b,
# one rank's 2 CQs were still there: 22)
wait_for 30 grep -qx 'cqs 0' "$FQ_DBG/objects"
echo 100 > /sys/module/fabriq/parameters/max_cq_entries
fq bench allreduce --ranks 4 --peers 198.19.0.1,198.19.0.2,198.19.0.3,198.19.0.4 --channels 2 \
	-b 1M -e 1M -n 100000 -c 0 --port 19390 --id 0xc0c0 >/dev/null 2>&1 &
wait_for 30 sh -c "$FQ_CLI comm show id 0xc0c0 | grep -c 'state ready' | grep -qx 4"
check_eq "max_cq_entries 100: 4 ranks x 2 channels spread over 2 + 2 + 1 CQs of 94, 47 and 21" \
	"cqs 5 cq_entries 303" \
	"$(grep '^cq' "$FQ_DBG/comms/c0c0-r0/summary" | tr '\n' ' ' | sed 's/ $//')"
check_eq "... rdma resource show lists the 4 ranks' 20 CQs" 20 \
	"$(rdma resource show cq | grep -cw fabriq)"
# the bench's ranks are processes of their own: wait until all are gone,
# and each bench below listens on ports of its own (rank r: P + r)
pkill -f -- '--port 19390'
wait
wait_for 30 sh -c "! $FQ_CLI comm show id 0xc0c0 | grep -q ."
# below one QP's need, each QP still gets a CQ with room for its own
echo 10 > /sys/module/fabriq/parameters/max_cq_entries
fq bench allreduce --ranks 4 --peers 198.19.0.1,198.19.0.2,198.19.0.3,198.19.0.4 \
	-b 1M -e 1M -n 100000 -c 0 --port 19380 --id 0xc0c1 >/tmp/fq_coll_cq.out 2>&1 &
wait_for 30 sh -c "$FQ_CLI comm show id 0xc0c1 | grep -c 'state ready' | grep -qx 4"
cqs=$(grep '^cq' "$FQ_DBG/comms/c0c1-r0/summary" | tr '\n' ' ' | sed 's/ $//')
[ -n "$cqs" ] || ktap_diag "no summary: $(fq comm show id 0xc0c1 | head -3) $(head -c 300 /tmp/fq_coll_cq.out)"
check_eq "max_cq_entries 10: a CQ per QP, still of 47 (data) and 7 (control) entries" \
	"cqs 6 cq_entries 162" "$cqs"
pkill -f -- '--port 19380'
wait
wait_for 30 sh -c "! $FQ_CLI comm show id 0xc0c1 | grep -q ."
rm -f /tmp/fq_coll_cq.out
check_eq "... and the collectives on them (4 ranks, 2 channels, 9 CQs) are right: 6 sizes, 0 wrong" "6 0" \
	"$(fq -j bench allreduce --ranks 4 --peers 198.19.0.1,198.19.0.2,198.19.0.3,198.19.0.4 \
		--channels 2 -b 8 -e 256K -f 8 -n 2 -c 1 --port 19410 |
		jq -r '"\(.results | length) \(.summary.wrong)"')"
echo 0 > /sys/module/fabriq/parameters/max_cq_entries
check_match "bench names a bad type and the valid ones" \
	"bench: -d: 'float8' is not valid \(valid: int8, uint8" \
	"$(fq bench allreduce --ranks 2 -d float8 2>&1)"
check_match "bench names a bad rank count and the range" "--ranks: '99' is not valid \(valid: 1-16\)" \
	"$(fq bench allreduce --ranks 99 2>&1)"

objs() { cat "$FQ_DBG/objects"; }
wait_for 10 sh -c "! grep -qv ' 0$' $FQ_DBG/objects"
check_eq "module object counters back at zero" "" "$(objs | grep -v ' 0$')"
for res in pd cq qp; do
	check_eq "no fabriq $res left in rdma resource show" "" \
		"$(rdma resource show "$res" | grep -w fabriq)"
done
ktap_finish
