# SPDX-License-Identifier: GPL-2.0-only
"""kvmbench.measure.tables.paging: the demand_paging and upstream tables (demand_paging_test)."""
import os
import re
import shutil
import subprocess
import tempfile

from kvmbench.verdicts import stats
from kvmbench.vmrun.cli import Usage, positives
from .common import (build, common, guest_run, keep, records, show_failed, size_bytes, spread,
                     values, vm_run)


# ---- demand_paging -----------------------------------------------------------

DP_VCPUS = 4


def dp_loop(a):
    return guest_run('demand_paging_test', 180) + (
        'for rep in $(seq %d); do\n'
        '  for r in %s; do\n'
        '    for w in epoll poll; do\n'
        '      for h in "" -H; do\n'
        '        run -u MISSING -v %d -b %s -r $r -w $w $h\n'
        '      done\n    done\n  done\ndone\n' % (a.runs, ' '.join(a.readers), DP_VCPUS, a.size))


def dp_table(a, text):
    """The demand paging table and its targets, from the RESULT lines."""
    recs = records(text, 'RESULT ')

    def st(host, wake, r, key='rate'):
        return spread(values(recs, key, host_only=host, readers=r, wake=wake))

    def cell(host, wake, r):
        return '%7.0f [%5.0f-%5.0f]' % st(host, wake, r)

    out = ['demand_paging_test -u MISSING -v %d -b %s, x86_64 VM (vm/run --smp 4), '
           'median of %d runs [min-max], pages/s' % (DP_VCPUS, a.size, a.runs),
           '%-7s | %-21s | %-21s | %-21s | %-21s | %-10s | %-10s' % (
               'readers', 'epoll KVM', 'epoll host-only', 'poll KVM', 'poll host-only',
               'exits/vCPU', 'pf/vCPU')]
    for r in a.readers:
        out.append('%-7s | %s | %s | %s | %s | %10.0f | %10.0f' % (
            r, cell(0, 'epoll', r), cell(1, 'epoll', r), cell(0, 'poll', r), cell(1, 'poll', r),
            st(0, 'epoll', r, 'exits')[0] / DP_VCPUS, st(0, 'epoll', r, 'pf_taken')[0] / DP_VCPUS))
    first = a.readers[0]
    base = st(0, 'epoll', first)[0]
    for r in ('16', '32'):
        if r in a.readers:
            ratio, ok = stats.target(st(0, 'epoll', r)[0], base, 0.9)
            out.append('target: epoll %s readers / %s reader = %.2f (>= 0.9): %s' % (
                r, first, ratio, ok))
    ratio, ok = stats.target(base, st(0, 'poll', first)[0], 1.0)
    out.append('target: %s reader, epoll / poll = %.2f (>= 1.0): %s' % (first, ratio, ok))
    return out


def demand_paging(a):
    """demand paging rates with userfaultfd MISSING faults"""
    text = vm_run(dp_loop(a), ['--smp', '4'], a.timeout)
    keep(a.raw, text)
    show_failed(text, r'^RESULT failed|^HANG')
    return dp_table(a, text)


def dp_args(p):
    common(p, 5, 3000)
    p.add_argument('--size', default='4M', help='memory per vCPU (default 4M)')
    p.add_argument('--readers', default='1 2 4 8 16 32', type=positives("bad --readers '{0}'"),
                   help='reader thread counts')


def dp_check(a):
    size_bytes(a.size)


# ---- upstream ----------------------------------------------------------------

UP_EVENTS = ('kvm:kvm_emulate_insn', 'kvmmmu:kvm_mmu_pagetable_walk')
UP_ROWS = ('-u MISSING -v 1 -b 64M;-v 1 -b 64M;-u MINOR -s shmem -v 4 -b 64M;'
           '-s shmem -v 4 -o -b 64M;-u MINOR -s shmem -v 4 -o -r 1 -b 64M')


def up_one(a, who, row, binary, args, stat):
    """One run under perf stat: "WHO ROW seconds emulated walks", or
    "WHO ROW failed"."""
    p = subprocess.run(['perf', 'stat', '-x,', '-e', ','.join(UP_EVENTS), '-o', stat, '--',
                        binary] + args, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                       stdin=subprocess.DEVNULL)
    if p.returncode:
        return '%s %d failed' % (who, row)
    what = ('Total guest execution time' if a.test == 'demand_paging_test'
            else 'Populate memory time')
    m = re.search(r'(?m)^%s:\s*([0-9.]*)s' % what, p.stdout.decode(errors='replace'))
    counts = {}
    with open(stat) as f:
        for ln in f:
            c = ln.strip().split(',')
            if len(c) > 2:
                counts[c[2]] = c[0]
    return '%s %d %s %s %s' % (who, row, (m.group(1) if m else '') or '0',
                               counts.get(UP_EVENTS[0]) or '0', counts.get(UP_EVENTS[1]) or '0')


def up_table(a, text):
    rows = a.rows.split(';')
    cols = [ln.split() for ln in text.splitlines()]

    def col(who, i, n):
        xs = []
        for c in cols:
            if len(c) == 5 and c[0] == who and c[1] == str(i):
                try:
                    xs.append(float(c[n - 1]))
                except ValueError:
                    pass
        return spread(xs)

    what = 'Populate memory time' if a.test == 'dirty_log_perf_test' else 'Total guest execution time'
    out = ["%s, this host's /dev/kvm, median of %d runs [min-max]: %s (s);" % (a.test, a.runs, what),
           "KVM's work (perf stat, median): guest instructions emulated, guest page-table walks",
           '| %-38s | %-20s | %-20s | %-5s | %-21s | %-21s |' % (
               'command', 'upstream (s)', 'this suite (s)', 'ratio', 'emulated up / ours',
               'walks up / ours')]
    for i, r in enumerate(rows):
        u, o = col('upstream', i, 3), col('ours', i, 3)
        out.append('| %-38s | %5.2f [%5.2f-%5.2f] | %5.2f [%5.2f-%5.2f] | %5.2f | %9.0f / %9.0f | '
                   '%9.0f / %9.0f |' % ((r,) + u + o + (u[0] / o[0] if o[0] > 0 else 0,
                                                        col('upstream', i, 4)[0], col('ours', i, 4)[0],
                                                        col('upstream', i, 5)[0], col('ours', i, 5)[0])))
    return out


def upstream(a):
    """this suite's demand_paging_test beside upstream's"""
    ours = os.path.join(build(), 'kvm', a.test)
    lines = []
    with tempfile.TemporaryDirectory() as tmp:
        stat = os.path.join(tmp, 'stat')
        for _ in range(a.runs):
            for i, r in enumerate(a.rows.split(';')):
                lines.append(up_one(a, 'upstream', i, os.path.join(a.upstream, a.test),
                                    r.split(), stat))
                lines.append(up_one(a, 'ours', i, ours, r.split(), stat))
    text = ''.join(ln + '\n' for ln in lines)
    keep(a.raw, text)
    out = up_table(a, text)
    print('\n'.join(out))
    show_failed(text, r'.* failed$', head='failed runs (left out):')
    return []


def up_args(p):
    p.add_argument('--upstream', default='', metavar='DIR', help="upstream's built tests (required)")
    common(p, 3)
    p.add_argument('--rows', default=UP_ROWS, metavar='ARGS;ARGS...', help='the command lines')
    p.add_argument('--test', default='demand_paging_test',
                   help='demand_paging_test (default) or dirty_log_perf_test')


def up_check(a):
    if not os.access(os.path.join(a.upstream, a.test), os.X_OK):
        raise Usage('no %s/%s (--upstream DIR)' % (a.upstream, a.test))
    if a.test not in ('demand_paging_test', 'dirty_log_perf_test'):
        raise Usage("bad --test '%s'" % a.test)
    if not shutil.which('perf'):
        raise Usage('needs perf (apt-get install linux-perf)')
