# SPDX-License-Identifier: GPL-2.0-only
"""kvmbench.measure.tables.notify: the eventfd table (the notification path)."""
import os
import re
import subprocess

from kvmbench.vmrun import runner
from kvmbench.vmrun.cli import Usage, positives
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


def number(word):
    """@word as a float, None if it is not one (a missing median)."""
    try:
        return float(word)
    except ValueError:
        return None


def ev_figure(data, where):
    """The table's plot (matplotlib): total event/s against the pairs, a
    line for each wait with KVM (solid) and -H (dashed), log 2 scales;
    the plot's data rows @data as ev_table gives them."""
    import matplotlib
    matplotlib.use('Agg')
    import matplotlib.pyplot as plt
    rows = [r.split() for r in data]
    fig, ax = plt.subplots(figsize=(9, 5.6), dpi=100)
    for i, w in enumerate(EV_WAITS):
        for col, ls, lw, label in ((1 + 2 * i, '-', 2, '%s KVM' % w),
                                   (2 + 2 * i, '--', 1, '%s -H' % w)):
            pts = [(float(r[0]), number(r[col])) for r in rows if number(r[col]) is not None]
            ax.plot([x for x, _ in pts], [y for _, y in pts], ls=ls, lw=lw, marker='o', ms=3,
                    label=label)
    ax.set_xscale('log', base=2)
    ax.set_yscale('log', base=2)
    ax.set_title('eventfd_perf_test on %s' % where.replace('"', ''), fontsize=9)
    ax.set_xlabel('pairs (vCPU + host thread)')
    ax.set_ylabel('total event/s (median)')
    ax.grid(True)
    ax.legend(fontsize=7, loc='center left', bbox_to_anchor=(1.01, 0.5))
    fig.tight_layout()
    return fig


def ev_plot(a, data, where):
    import matplotlib.pyplot as plt
    fig = ev_figure(data, where)
    fig.savefig(a.plot, format='png')
    plt.close(fig)
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
    p.add_argument('--pairs', default='1 2 4 8 16 32', type=positives("bad --pairs '{0}'"),
                   help='vCPU/host-thread pair counts')
    p.add_argument('--events', type=positive, default=1000, help='events a pair (default 1000)')
    p.add_argument('--where', default='host', help="host (this host's /dev/kvm, the default) or vm")
    p.add_argument('--plot', default='', metavar='FILE.png', help='draw the table (matplotlib)')
    p.add_argument('--from', dest='from_', default='', metavar='FILE',
                   help='the table of an earlier --raw FILE, without running')


def ev_check(a):
    if a.where not in ('host', 'vm'):
        raise Usage("bad --where '%s'" % a.where)
    if a.plot and runner.install_module('matplotlib', 'python3-matplotlib', 'for --plot') is None:
        raise Usage('--plot needs matplotlib (apt-get install python3-matplotlib)')
