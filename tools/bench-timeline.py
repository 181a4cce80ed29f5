#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
#
# tools/bench-timeline.py - where an 8-byte call's time goes, from an
# ftrace of the ranks' ioctls, the scheduler's switches and wake-ups and a
# few functions of fabriq, rxe and veth (tools/bench-profile.guest, WHAT
# trace).  Prints, per rank, the calls' time (median, mean, p10, p90) and
# how many never slept (the peer's message was there already); then the
# median of each hop of a message from the sender's post to the receiving
# caller's return; then the events of one slow call, all CPUs, in us
# from its ioctl.
#
#   bench-timeline.py TRACE PID...    PID: the ranks' processes
import re
import statistics
import sys

LINE = re.compile(r'^\s*(.+?)-(\d+)\s+\[(\d+)\]\s+\S+\s+([\d.]+):\s+(.*)$')


def read(path):
    events = []
    with open(path) as f:
        for line in f:
            m = LINE.match(line)
            if m:
                comm, pid, cpu, ts, what = m.groups()
                events.append((float(ts) * 1e6, comm, int(pid), int(cpu), what))
    return events


def calls_of(events, pid):
    """(start, end, first event, last event) of each of @pid's ioctls"""
    calls, start = [], None
    for i, (t, _, p, _, what) in enumerate(events):
        if p != pid:
            continue
        if what.startswith('sys_ioctl('):
            start = (t, i)
        elif what.startswith('sys_ioctl ->') and start:
            calls.append((start[0], t, start[1], i))
            start = None
    return calls


def med(values):
    return '%6.0f us (%d)' % (statistics.median(values), len(values)) if values else '   n/a'


# a hop: the first event matching @to after each event matching @frm
def hop(events, frm, to, same_cpu=False):
    out, since = [], {}
    for t, _, _, cpu, what in events:
        key = cpu if same_cpu else 0
        if frm(what):
            since.setdefault(key, t)
        elif to(what) and key in since:
            out.append(t - since.pop(key))
    return out


def main():
    events = read(sys.argv[1])
    pids = [int(p) for p in sys.argv[2:]]
    slow_limit = 100	# us: a call that slept
    print('#  calls per rank: median, mean, p10, p90 (us); calls under %d us' % slow_limit)
    calls = {}
    for pid in pids:
        calls[pid] = calls_of(events, pid)
        d = sorted(b - a for a, b, _, _ in calls[pid])
        if not d:
            print('#  rank process %d: no call traced' % pid)
            continue
        print('#  rank process %d: %d calls: %.0f %.0f %.0f %.0f; %d under %d us' %
              (pid, len(d), statistics.median(d), statistics.mean(d), d[len(d) // 10],
               d[9 * len(d) // 10], sum(x < slow_limit for x in d), slow_limit))
    starts = lambda s: (lambda w: w.startswith(s))
    print('#  a message, hop by hop (median us, samples):')
    print('#    post -> rxe requester runs (a work item)  %s' %
          med(hop(events, starts('rxe_post_send <-fq_'), starts('rxe_requester'))))
    print('#    requester -> rxe_rcv (veth, NET_RX)        %s' %
          med(hop(events, starts('rxe_requester'), starts('rxe_rcv'))))
    print('#    rxe_rcv -> rxe responder runs (a work item) %s' %
          med(hop(events, starts('rxe_rcv'), starts('rxe_receiver'))))
    print('#    responder posts the CQE -> fabriq sees it  %s' %
          med(hop(events, starts('rxe_cq_post <-rxe_receiver'), starts('fq_rx_done'), True)))
    woken, running, done = [], [], []
    for pid in pids:
        for t0, t1, i0, i1 in calls[pid]:
            if t1 - t0 < slow_limit:
                continue
            slept = False
            tc = tw = tr = None
            for t, _, p, _, what in events[i0:i1 + 1]:
                if p == pid and 'sched_switch' in what and 'prev_state=S' in what:
                    slept, tc, tw, tr = True, None, None, None
                elif slept and what.startswith('fq_conn_wake') and tw is None:
                    tc = t
                elif slept and 'sched_wakeup' in what and ('pid=%d ' % pid) in what:
                    tw = t
                elif tw and tr is None and ('next_pid=%d ' % pid) in what:
                    tr = t
            if tc and tw and tr:
                woken.append(tw - tc)
                running.append(tr - tw)
                done.append(t1 - tr)
    print('#    fabriq wakes the caller -> it is woken     %s' % med(woken))
    print('#    woken -> on a CPU                          %s' % med(running))
    print('#    on a CPU -> the ioctl returns              %s' % med(done))
    slow = sorted((b - a, pid, k) for pid in pids for k, (a, b, _, _) in enumerate(calls[pid])
                  if b - a >= slow_limit)
    if not slow:
        return
    d, pid, k = slow[len(slow) // 2]
    t0, _, i0, i1 = calls[pid][k]
    print('#  a slow call of median time (%.0f us), rank process %d; us from its ioctl:' % (d, pid))
    for t, comm, p, cpu, what in events[i0:i1 + 1]:
        what = re.sub(r'(prev_|next_)?prio=\d+ ?', '', what)
        print('#  %6.0f [%d] %-18s %s' % (t - t0, cpu, '%s-%d' % (comm, p), what[:100]))


main()
