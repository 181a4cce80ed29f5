#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# fabriq_comm_strangers.sh - a forming communicator faces every host on
# the fabric and every local user who learned its id (COMM_GET shows it):
# rping and ib_send_bw -R connecting to its listening port, a flood of
# connection requests, forged handshakes (fabriq_cm_forge: a random MAC,
# another version, too short, the wrong source address, a rank out of
# range) and a rank 1 with the right id but another key are all refused, none of them takes rank 1's place, and the real rank 1 then
# joins and the job completes with 0 wrong; afterwards nothing is left.
. "$(dirname "$0")/lib.sh"
here=$(cd "$(dirname "$0")" && pwd)

ktap_plan 19
fq_require rping ib_send_bw jq timeout od
mark=$(fq_console_mark)
fq_load_fabriq || ktap_bail "cannot load fabriq"
fq_ranks_up 2 || ktap_bail "cannot set up 2 local ranks"
A=$(fq_ranks_addr 0)
B=$(fq_ranks_addr 1)
port=19800
id=0x5eed
job=(allreduce --peers "$A,$B" --port $port --id $id -b 1M -e 1M -n 5 -c 1 --connect-timeout 120000)
out=$(mktemp)
cleanup() { pkill -x rping 2>/dev/null; pkill -f -- "--port $port" 2>/dev/null; rm -f "$out"; }
trap cleanup EXIT
# the connect handshake's version (uapi/linux/fabriq_wire.h)
wire=$(sed -n 's/^#define FABRIQ_CM_VERSION[[:space:]]*\([0-9]*\).*/\1/p' "$FQ_SRC/uapi/linux/fabriq_wire.h")
peer1_state() { fq -j comm show id $id | jq -r '.[] | select(.rank == 0) | .peers[0].state'; }

# rank 0 listens on port + 0 and waits (up to 120 s) for rank 1
fq bench "${job[@]}" --rank 0 > "$out" 2>&1 &
rank0=$!
wait_for 20 sh -c "$FQ_CLI comm show id $id | grep -q 'state connecting'" ||
	ktap_bail "rank 0 never started connecting"

timeout 20 rping -c -a "$A" -p $port -C 1 > /dev/null 2>&1
rc=$?
check_true "rping connecting to the forming communicator is refused (exit $rc)" \
	test $rc -ne 0 -a $rc -ne 124
timeout 30 ib_send_bw -R -d fqr1 -p $port "$A" > /dev/null 2>&1
rc=$?
check_true "ib_send_bw -R connecting to it is refused (exit $rc)" test $rc -ne 0 -a $rc -ne 124
flood=()
for i in $(seq 40); do
	timeout 20 rping -c -a "$A" -p $port -C 1 > /dev/null 2>&1 &
	flood+=($!)
done
wait "${flood[@]}"
# rank 1's address, the right id, a forged MAC: refused, and told why,
# but not the listener's data path (the forge says so if it is told)
forge() { "$here/fabriq_cm_forge" "$@" 2>&1; }
check_eq "a handshake with a forged MAC is refused for its key, and not told the data path" "refused: key" \
	"$(forge "$B" "$A" $port $id 1 2)"
check_eq "a handshake of another version from rank 1's address is refused, and told which version rank 0 speaks" \
	"refused: version $wire" "$(forge "$B" "$A" $port $id 1 2 version 1)"
check_eq "a handshake too short to be one is refused" "refused" \
	"$(forge "$B" "$A" $port $id 1 2 short)"
# the address is checked before the MAC: a stranger learns nothing of the key
check_eq "a rank 1 from another address is refused without a reason" "refused" \
	"$(forge "$A" "$A" $port $id 1 2)"
check_eq "... also when its version differs: it learns no version either" "refused" \
	"$(forge "$A" "$A" $port $id 1 2 version 1)"
check_eq "a rank out of range is refused" "refused" "$(forge "$B" "$A" $port $id 5 2)"
other=$(od -An -tx1 -N32 /dev/urandom | tr -d ' \n')
imp=$(FABRIQ_KEY=$other timeout 20 "$FQ_CLI" bench "${job[@]}" --rank 1 2>&1)
check_match "a rank 1 with the right id and another key is refused, and told why" \
	"Key was rejected" "$imp"
check_eq "after the strangers and the impostor, rank 0 still waits for its rank 1" \
	"down" "$(peer1_state)"

timeout 60 "$FQ_CLI" bench "${job[@]}" --rank 1 > /dev/null 2>&1
rc1=$?
wait $rank0
rc0=$?
check_eq "the real rank 1 joins, and both ranks complete the job" "0 0" "$rc0 $rc1"
check_match "... with 0 wrong" "Out of bounds values : 0 OK" "$(cat "$out")"

# rank 1 meets a rank 0 of another fabriq (the forge refuses its request
# as a listener of version 99 would): it fails at once, and says why
port2=$((port + 10))
"$here/fabriq_cm_forge" listen "$A" $port2 99 > "$out.forge" 2>&1 &
forger=$!
sleep 1
t0=$SECONDS
rank1_said=$(timeout 60 "$FQ_CLI" bench allreduce --peers "$A,$B" --port $port2 --id $((id + 1)) -b 8 -e 8 \
	-n 1 --connect-timeout 30000 --rank 1 2>&1)
took=$((SECONDS - t0))
wait $forger
ktap_diag "rank 1 said: $(echo "$rank1_said" | grep -m1 -e 'cannot join' -e failed)"
check_match "a rank 1 whose rank 0 speaks another version fails with EPROTONOSUPPORT" \
	"Protocol not supported" "$rank1_said"
check_true "... at once: ${took} s (its connect timeout is 30 s)" test "$took" -lt 10
check_eq "... the other side saw its request, of version $wire" "refused version $wire rank 1" \
	"$(cat "$out.forge")"
check_match "... and the kernel log names both versions" \
	"rank 1: rank 0 \\($A\\) speaks connect handshake version 99, this rank version $wire" \
	"$(fq_kernel_since "$mark")"
rm -f "$out.forge"

wait_for 10 sh -c "! grep -qv ' 0$' $FQ_DBG/objects"
check_eq "every fabriq object counter is back at zero" "" "$(grep -v ' 0$' "$FQ_DBG/objects")"
check_eq "... and rdma_cm holds no id of the strangers" "" \
	"$(rdma resource show cm_id | grep -v LISTEN | grep -w -e $port -e $port2)"
check_true "the kernel log shows no oops or WARN" fq_console_clean "$mark"
ktap_finish
