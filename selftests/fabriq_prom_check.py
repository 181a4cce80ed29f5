#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
#
# fabriq_prom_check.py - a strict parser of the Prometheus text exposition
# format (0.0.4) for `fabriq stats show --prometheus`.  Exits 0 if the file
# is valid, else prints every problem (line number and why) and exits 1.
#
# Beyond the format it checks fabriq's own rules: every metric starts with
# "fabriq_", counters end in "_total" and are >= 0, port metrics carry
# device and port, per-priority ones priority, per-VL ones vl, per-peer
# ones peer; histograms are cumulative and end with le="+Inf" == _count.
import math
import re
import sys

NAME = re.compile(r'[a-zA-Z_:][a-zA-Z0-9_:]*$')
LABEL = re.compile(r'[a-zA-Z_][a-zA-Z0-9_]*$')
TYPES = {'counter', 'gauge', 'histogram', 'summary', 'untyped'}


def parse_labels(text, err):
    """Parse 'a="x",b="y"' (text between the braces) into a dict."""
    labels, i = {}, 0
    while i < len(text):
        m = re.match(r'([a-zA-Z_][a-zA-Z0-9_]*)="', text[i:])
        if not m:
            err('bad label at "%s"' % text[i:])
            return None
        name, i, val = m.group(1), i + m.end(), ''
        while True:
            if i >= len(text):
                err('unterminated label value')
                return None
            c = text[i]
            if c == '\\':
                if i + 1 >= len(text) or text[i + 1] not in '\\"n':
                    err('bad escape in label value')
                    return None
                val += {'\\': '\\', '"': '"', 'n': '\n'}[text[i + 1]]
                i += 2
            elif c == '"':
                i += 1
                break
            elif c == '\n':
                err('newline in label value')
                return None
            else:
                val += c
                i += 1
        if name in labels:
            err('duplicate label %s' % name)
            return None
        labels[name] = val
        if i < len(text):
            if text[i] != ',':
                err('expected "," between labels')
                return None
            i += 1
    return labels


def parse_value(s):
    if s in ('+Inf', 'Inf'):
        return math.inf
    if s == '-Inf':
        return -math.inf
    if s == 'NaN':
        return math.nan
    if not re.match(r'^[-+]?(\d+\.?\d*([eE][-+]?\d+)?|\.\d+([eE][-+]?\d+)?)$', s):
        raise ValueError(s)
    return float(s)


def required_labels(name):
    if name.startswith('fabriq_port_'):
        need = {'device', 'port'}
        if name.startswith('fabriq_port_prio_'):
            need.add('priority')
        if name.startswith('fabriq_port_vl_'):
            need.add('vl')
        return need
    if name.startswith('fabriq_peer_'):
        return {'comm', 'rank', 'peer'}
    if name.startswith('fabriq_comm_'):
        return {'comm', 'rank'}
    return set()


def check(lines):
    problems = []
    types, helps, closed = {}, set(), set()
    current = None
    series = set()
    hist = {}  # (family, labels without le) -> list of (le, value), count
    for n, raw in enumerate(lines, 1):
        def err(msg, n=n):
            problems.append('line %d: %s' % (n, msg))
        line = raw.rstrip('\n')
        if line == '':
            err('empty line')
            continue
        if line.startswith('#'):
            parts = line.split(' ', 3)
            if len(parts) >= 3 and parts[1] in ('HELP', 'TYPE'):
                fam = parts[2]
                if not NAME.match(fam):
                    err('bad metric name %s' % fam)
                if parts[1] == 'HELP':
                    if fam in helps:
                        err('second HELP for %s' % fam)
                    helps.add(fam)
                else:
                    if len(parts) != 4 or parts[3] not in TYPES:
                        err('bad TYPE line')
                        continue
                    if fam in types:
                        err('second TYPE for %s' % fam)
                    types[fam] = parts[3]
                if fam in closed:
                    err('family %s reopened' % fam)
                if current and current != fam:
                    closed.add(current)
                current = fam
            continue
        m = re.match(r'^([a-zA-Z_:][a-zA-Z0-9_:]*)(\{(.*)\})? (\S+)( -?\d+)?$', line)
        if not m:
            err('not a sample line: %s' % line)
            continue
        name, labels_text, value_text = m.group(1), m.group(3), m.group(4)
        labels = parse_labels(labels_text, err) if labels_text else {}
        if labels is None:
            continue
        try:
            value = parse_value(value_text)
        except ValueError:
            err('bad value %s' % value_text)
            continue
        fam, suffix = name, ''
        for s in ('_bucket', '_sum', '_count'):
            if name.endswith(s) and types.get(name[:-len(s)]) == 'histogram':
                fam, suffix = name[:-len(s)], s
        if fam not in types:
            err('sample %s before its TYPE line' % name)
            continue
        if fam != current:
            err('sample of %s outside its family block' % fam)
        if not name.startswith('fabriq_'):
            err('metric %s does not start with fabriq_' % name)
        key = (name, tuple(sorted(labels.items())))
        if key in series:
            err('duplicate series %s%s' % (name, labels))
        series.add(key)
        missing = required_labels(fam) - set(labels)
        if missing:
            err('%s lacks labels %s' % (name, sorted(missing)))
        if types[fam] == 'counter':
            if not name.endswith('_total'):
                err('counter %s does not end in _total' % name)
            if not value >= 0:
                err('counter %s is negative or NaN' % name)
        if types[fam] == 'histogram':
            base = tuple(sorted((k, v) for k, v in labels.items() if k != 'le'))
            h = hist.setdefault((fam, base), {'buckets': [], 'count': None, 'sum': None})
            if suffix == '_bucket':
                if 'le' not in labels:
                    err('bucket without le')
                    continue
                h['buckets'].append((parse_value(labels['le']), value, n))
            elif suffix == '_count':
                h['count'] = value
            elif suffix == '_sum':
                h['sum'] = value
            else:
                err('histogram sample %s without a suffix' % name)
    for (fam, base), h in hist.items():
        b = h['buckets']
        if not b or b[-1][0] != math.inf:
            problems.append('%s%s: no le="+Inf" bucket' % (fam, dict(base)))
            continue
        for (le0, v0, _), (le1, v1, n1) in zip(b, b[1:]):
            if le1 <= le0 or v1 < v0:
                problems.append('line %d: %s buckets not increasing/cumulative' % (n1, fam))
        if h['count'] is None or h['sum'] is None:
            problems.append('%s%s: missing _count or _sum' % (fam, dict(base)))
        elif h['count'] != b[-1][1]:
            problems.append('%s%s: _count != +Inf bucket' % (fam, dict(base)))
    for fam in types:
        if fam not in helps:
            problems.append('family %s has no HELP' % fam)
    return problems, len(series)


def main():
    path = sys.argv[1] if len(sys.argv) > 1 else '-'
    with (sys.stdin if path == '-' else open(path)) as f:
        lines = f.readlines()
    problems, nseries = check(lines)
    for p in problems:
        print(p)
    print('# %d series, %d problems' % (nseries, len(problems)))
    return 1 if problems else 0


if __name__ == '__main__':
    sys.exit(main())
