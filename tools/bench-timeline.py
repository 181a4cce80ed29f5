#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
#
# tools/bench-timeline.py - where an 8-byte call's time goes, from an
# ftrace of the ranks' ioctls, the scheduler's switches and wake-ups and a
# few functions of fabriq, rxe and veth (tools/bench-profile.guest, WHAT
# trace).  Prints, per rank, the calls' time (median, mean, p10, p90) and
# how many never slept (the peer's message was there already); then the
# median of each hop of a message from the sender's post to fabriq's
# handler, and of the calls that slept from the handler's wake-up to the
# ioctl's return; then the events of one such call, all CPUs, in us from
# its ioctl.  Hops are paired by order (the first matching event after),
# so with several messages in flight a hop may pair two of them.
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


# a hop: from each event matching @frm to the first event after it
# matching @to (on the same CPU with @same_cpu); an event matching @drop
# first ends the wait unmeasured (an ACK's rxe_rcv is followed by the
# completer, a request's by the responder)
def hop(events, frm, to, same_cpu=False, drop=None):
    out, waiting = [], {}
    for t, _, _, cpu, what in events:
        key = cpu if same_cpu else 0
        if frm(what):
            waiting.setdefault(key, []).append(t)
        elif to(what) and waiting.get(key):
            out.extend(t - t0 for t0 in waiting.pop(key))
        elif drop and drop(what):
            waiting.pop(key, None)
    return out


def slept(events, pid, i0, i1):
    return any(p == pid and 'sched_switch' in what and 'prev_state=S' in what
               for _, _, p, _, what in events[i0:i1 + 1])


def main():
    events = read(sys.argv[1])
    pids = [int(p) for p in sys.argv[2:]]
    span = (events[-1][0] - events[0][0]) / 1e6 if events else 0
    print('#  the trace spans %.3f s; calls per rank: median, mean, p10, p90 (us),'
          ' and how many never slept' % span)
    calls = {}
    for pid in pids:
        calls[pid] = calls_of(events, pid)
        d = sorted(b - a for a, b, _, _ in calls[pid])
        if not d:
            print('#  rank process %d: no call traced' % pid)
            continue
        awake = sum(not slept(events, pid, i0, i1) for _, _, i0, i1 in calls[pid])
        print('#  rank process %d: %d calls (%.0f per second): %.0f %.0f %.0f %.0f; %d never slept' %
              (pid, len(d), len(d) / span if span else 0, statistics.median(d), statistics.mean(d),
               d[len(d) // 10], d[9 * len(d) // 10], awake))
    starts = lambda s: (lambda w: w.startswith(s))
    print('#  a message, hop by hop (median us, samples):')
    print('#    fabriq posts -> rxe requester runs (work item)  %s' %
          med(hop(events, starts('rxe_post_send <-fq_'), starts('rxe_requester'))))
    print('#    requester sends a packet -> a rxe_rcv (veth)   %s' %
          med(hop(events, starts('rxe_xmit_packet <-rxe_requester'), starts('rxe_rcv'), True)))
    print('#    a request\'s rxe_rcv -> the responder runs      %s' %
          med(hop(events, starts('rxe_rcv'), starts('rxe_receiver'), drop=starts('rxe_completer'))))
    print('#    responder posts the CQE -> fabriq sees it      %s' %
          med(hop(events, starts('rxe_cq_post <-rxe_receiver'), starts('fq_rx_done'), True)))
    print('#  calls that slept, from fabriq waking the caller:')
    woken, running, done, total = [], [], [], []
    for pid in pids:
        for t0, t1, i0, i1 in calls[pid]:
            tc = tw = tr = None
            for t, _, p, _, what in events[i0:i1 + 1]:
                if p == pid and 'sched_switch' in what and 'prev_state=S' in what:
                    tc, tw, tr = None, None, None	# (the last sleep counts)
                elif tw is None and what.startswith('fq_conn_wake'):
                    tc = t
                elif 'sched_wakeup' in what and ('pid=%d ' % pid) in what:
                    tw = t
                elif tw and tr is None and ('next_pid=%d ' % pid) in what:
                    tr = t
            if tc and tw and tr:
                woken.append(tw - tc)
                running.append(tr - tw)
                done.append(t1 - tr)
                total.append(t1 - tc)
    print('#    fabriq wakes the caller -> it is woken         %s' % med(woken))
    print('#    woken -> on a CPU                              %s' % med(running))
    print('#    on a CPU -> the ioctl returns                  %s' % med(done))
    print('#    all three, call by call                        %s' % med(total))
    slow = sorted((b - a, pid, k) for pid in pids for k, (a, b, i0, i1) in enumerate(calls[pid])
                  if slept(events, pid, i0, i1))
    if not slow:
        return
    d, pid, k = slow[len(slow) // 2]
    t0, _, i0, i1 = calls[pid][k]
    print('#  a call that slept, of median time among them (%.0f us), rank process %d; us from its ioctl:' % (d, pid))
    for t, comm, p, cpu, what in events[i0:i1 + 1]:
        what = re.sub(r'(prev_|next_)?prio=\d+ ?', '', what)
        print('#  %6.0f [%d] %-18s %s' % (t - t0, cpu, '%s-%d' % (comm, p), what[:100]))


main()
