#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# fabriq_ping_strangers.sh - fabriq's ping listener faces any host on the
# fabric: stock rdma_cm tools (rping, ib_send_bw -R) that connect to it are
# refused, so is a flood of them, and afterwards fabriq ping still works
# and nothing is left behind; ib_write_bw -R keeps its default port 18515;
# ping_max_conns caps the connections it accepts, ping_idle_ms closes a
# silent one, and ping_listen=0 leaves no listener at all.
. "$(dirname "$0")/lib.sh"

ktap_plan 13
fq_require rping ib_send_bw ib_write_bw timeout
modprobe rdma_rxe || ktap_bail "rdma_rxe not available"
mark=$(fq_console_mark)
P=/sys/module/fabriq/parameters
cleanup() {
	pkill -x rping 2>/dev/null
	pkill -x ib_write_bw 2>/dev/null
	rdma link del rxe93b 2>/dev/null
	fq_veth_del 93
}
trap cleanup EXIT
fq_load_fabriq || ktap_bail "cannot load fabriq"
B=198.18.93.2
fq_veth_add 93
rdma link add rxe93b type rxe netdev fqv93b || ktap_bail "cannot add rxe93b"
port=$(cat $P/ping_port)
# fabriq's connections: what `rdma resource` shows of them besides the listener
leftovers() { rdma resource show cm_id | grep -v LISTEN; rdma resource show qp | grep -w RC; }

check_match "fabriq ping works before the strangers come" " 2 received" "$(fq ping $B count 2)"
timeout 20 rping -c -a $B -p "$port" -C 1 > /dev/null 2>&1
rc=$?
check_true "rping connecting to the ping port is refused (exit $rc)" test $rc -ne 0 -a $rc -ne 124
timeout 30 ib_send_bw -R -d rxe93b -p "$port" $B > /dev/null 2>&1
rc=$?
check_true "ib_send_bw -R connecting to the ping port is refused (exit $rc)" \
	test $rc -ne 0 -a $rc -ne 124
for i in $(seq 40); do timeout 20 rping -c -a $B -p "$port" -C 1 > /dev/null 2>&1 & done
wait
check_eq "after a flood of 40 rping connection requests nothing is held" "" \
	"$(wait_for 10 sh -c '[ -z "$(rdma resource show cm_id | grep -v LISTEN)" ]'; leftovers)"
check_match "... and fabriq ping still works" " 2 received" "$(fq ping $B count 2)"

# perftest keeps its default port
ib_write_bw -R -d rxe93b -n 50 > /dev/null 2>&1 &
srv=$!
sleep 2
timeout 60 ib_write_bw -R -d rxe93b -n 50 $B > /dev/null 2>&1
check_eq "ib_write_bw -R on its default port 18515 works with fabriq loaded" 0 $?
wait $srv 2>/dev/null

echo 0 > $P/ping_max_conns
check_match "ping_max_conns 0: a ping is refused" "refused" "$(fq ping $B count 1 2>&1)"
echo 16 > $P/ping_max_conns
check_match "ping_max_conns 16: it is accepted again" " 1 received" "$(fq ping $B count 1)"
echo 1000 > $P/ping_idle_ms
check_match "ping_idle_ms 1000: a connection silent for 3 s is closed: the second is not answered" \
	"2 sent, 1 received|the connection failed during the ping" \
	"$(fq ping $B count 2 interval 3000 timeout 2000 2>&1)"
echo 10000 > $P/ping_idle_ms
check_match "ping_idle_ms 10000: the same ping is answered" " 2 received" \
	"$(fq ping $B count 2 interval 3000 2>&1)"
wait_for 10 sh -c '[ -z "$(rdma resource show cm_id | grep -v LISTEN)" ]'
check_eq "nothing is left behind" "" "$(leftovers)"

fq_unload_fabriq
fq_load_fabriq ping_listen=0
check_eq "ping_listen=0: fabriq listens on no port" "" \
	"$(rdma resource show cm_id | grep "src-addr 0.0.0.0:$port")"
fq_unload_fabriq
fq_load_fabriq
check_true "the kernel log shows no oops or WARN" fq_console_clean "$mark"
ktap_finish
