# SPDX-License-Identifier: GPL-2.0-only
"""kvmbench.tables.notify: the eventfd table (the notification path)."""
import os
import re
import shutil
import subprocess
import tempfile

from .. import runner
from ..cli import Usage
from ..errors import Fail
from .common import (build, common, guest_run, keep, matching, median_word, positive, read_file,
                     records, show_failed, spread, values, vm_run, words)


EV_WAITS = ('read', 'epoll', 'pool', 'pool-poll')


def ev_loop(a):
    return guest_run('eventfd_perf_test', 300) + (
        './eventfd_perf_test -e %d >/dev/null 2>&1   # warm-up, not counted\n'
        'for rep in $(seq %d); do\n'
        '  for p in %s; do\n'
        '    for w in %s; do\n'
        '      for h in "" -H; do\n'
        '        run -v $p -e %d -w $w $h\n'
        '      done\n    done\n  done\ndone\n' % (a.events, a.runs, ' '.join(a.pairs),
                                                  ' '.join(EV_WAITS), a.events))


def ev_table(a, text, where):
    """The table's lines and the plot's data rows."""
    recs = records(text, 'RESULT ')

    def rates(h, w, p):
        return values(recs, 'total_rate', host_only=h, pairs=p, wait=w)

    def per_rt(p, key, div=1):
        xs = []
        for f in matching(recs, host_only=0, pairs=p, wait='read'):
            e = float(f.get('events', 0) or 0)
            if e:
                xs.append(float(f.get(key, 0)) / e / div)
        return spread(xs)[0]

    out = ['eventfd_perf_test -v PAIRS -e %d -w WAIT [-H], %s,' % (a.events, where),
           'total event/s over the pairs, median of %d runs [min-max]; stats per round trip '
           '(read, KVM)' % a.runs, '']
    out.append('| pairs |' + ''.join(' %s KVM | %s -H |' % (w, w) for w in EV_WAITS)
               + ' exits | halt_wakeup | us halted |')
    out.append('|---|' + '---|---|' * len(EV_WAITS) + '---|---|---|')
    data = []
    for p in a.pairs:
        line, row = '| %s |' % p, [p]
        for w in EV_WAITS:
            for h in (0, 1):
                line += ' %.0f [%.0f-%.0f] |' % spread(rates(h, w, p))
                row.append(median_word(words(recs, 'total_rate', host_only=h, pairs=p, wait=w)))
        out.append('%s %.2f | %.2f | %.2f |' % (line, per_rt(p, 'exits'),
                                                 per_rt(p, 'halt_wakeup'),
                                                 per_rt(p, 'halt_wait_ns', 1000)))
        data.append(' '.join(row))
    return out, data


def ev_plot(a, data, where):
    with tempfile.NamedTemporaryFile('w', suffix='.dat') as d:
        d.write('\n'.join(data) + '\n')
        d.flush()
        plots = []
        for i, w in enumerate(EV_WAITS):
            plots.append("'%s' using 1:%d with linespoints lw 2 title '%s KVM'" % (d.name, 2 + 2 * i, w))
            plots.append("'%s' using 1:%d with linespoints dt 2 title '%s -H'" % (d.name, 3 + 2 * i, w))
        script = ('set terminal pngcairo size 900,560 noenhanced\n'
                  "set output '%s'\n"
                  'set title "eventfd_perf_test on %s"\n'
                  "set xlabel 'pairs (vCPU + host thread)'\n"
                  "set ylabel 'total event/s (median)'\n"
                  'set logscale xy 2\nset key outside right\nset grid\n'
                  'plot %s\n' % (a.plot, where.replace('"', ''), ', '.join(plots)))
        if subprocess.run(['gnuplot'], input=script, text=True).returncode:
            raise Fail('gnuplot failed')
    return ['plot: %s' % a.plot]


def eventfd(a):
    """KVM's notification path against vCPU/host-thread pairs"""
    if a.from_:
        text = read_file(a.from_, '--from')
        where = next((ln[6:] for ln in text.splitlines() if ln.startswith('WHERE ')), '')
    elif a.where == 'vm':
        text = vm_run(ev_loop(a), ['--smp', '4'], a.timeout)
        where = 'x86_64 VM (vm/run --smp 4, TCG with emulated SVM, KVM 6.1)'
    else:
        tests = build(runner.host_arch())
        p = subprocess.run(['sh', '-c', ev_loop(a)], cwd=os.path.join(tests, 'kvm'),
                           stdout=subprocess.PIPE, stdin=subprocess.DEVNULL)
        text = p.stdout.decode(errors='replace')
        where = "this host's /dev/kvm (%d CPUs, kernel %s)" % (os.cpu_count(), os.uname().release)
    if not a.from_:
        text = 'WHERE %s\n%s' % (where, text)
    keep(a.raw, text)
    if re.search(r'(?m)^RESULT failed', text):
        show_failed(text, r'^RESULT failed|^HANG')
    out, data = ev_table(a, text, where)
    if a.plot:
        print('\n'.join(out))
        return ev_plot(a, data, where)
    return out


def ev_args(p):
    common(p, 3, 3000)
    p.add_argument('--pairs', default='1 2 4 8 16 32', help='vCPU/host-thread pair counts')
    p.add_argument('--events', type=positive, default=1000, help='events a pair (default 1000)')
    p.add_argument('--where', default='host', help="host (this host's /dev/kvm, the default) or vm")
    p.add_argument('--plot', default='', metavar='FILE.png', help='draw the table with gnuplot')
    p.add_argument('--from', dest='from_', default='', metavar='FILE',
                   help='the table of an earlier --raw FILE, without running')


def ev_check(a):
    if a.where not in ('host', 'vm'):
        raise Usage("bad --where '%s'" % a.where)
    pairs = a.pairs.split()
    if not pairs or not all(re.fullmatch(r'[1-9][0-9]*', x) for x in pairs):
        raise Usage("bad --pairs '%s'" % a.pairs)
    a.pairs = pairs
    if a.plot and not shutil.which('gnuplot'):
        raise Usage('--plot needs gnuplot (apt-get install gnuplot-nox)')
