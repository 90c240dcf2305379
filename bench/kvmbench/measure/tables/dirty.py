# SPDX-License-Identifier: GPL-2.0-only
"""kvmbench.measure.tables.dirty: the dirty_log and splitting tables (dirty logging)."""
import re

from kvmbench.base.errors import Fail
from kvmbench.vmrun import runner
from kvmbench.vmrun.cli import Usage, size
from .common import (common, guest_watch, keep, matching, median_word, positive, records,
                     show_failed, size_bytes, spread, values, vm_run, words)


# ---- dirty_log ---------------------------------------------------------------

def dl_loop(a):
    watch = guest_watch('dirty_log_perf_test', 180)
    return ('run() {\n  tag=$1; shift\n%(watch)s'
            "  grep '^RESULT ' /tmp/out | sed \"s/^RESULT /RESULT table=$tag /\" || "
            'echo "RESULT failed $*"\n}\n'
            'for rep in $(seq %(runs)s); do\n'
            '  for v in 1 4 16; do\n'
            '    run 1 -b %(size)s -v $v\n'
            '    run 1 -b %(size)s -v $v -B\n'
            '  done\n'
            '  for x in 1 2 4 8; do\n'
            '    run 2 -b %(slot)s -v 2 -x $x -i 3\n'
            '    run 2 -b %(slot)s -v 2 -x $x -i 3 -g\n'
            '  done\n'
            '  for v in 1 4; do\n'
            '    run 3 -b %(size)s -v $v -i 3\n'
            '    run 3 -b %(size)s -v $v -i 3 -R %(ring)s\n'
            '  done\ndone\n' % dict(watch=watch, runs=a.runs, size=a.size,
                                    slot=size_bytes(a.slot_mem) // 2, ring=a.ring))


def dl_table(a, text):
    recs = records(text, 'RESULT table=')

    def cell(div, key, **want):
        return '%8.2f [%7.2f-%7.2f]' % spread(values(recs, key, **want), div)

    ms, us = 1000000, 1000
    out = ['dirty_log_perf_test in the x86_64 VM (vm/run --smp 4, nested SVM under TCG): '
           'median of %d runs [min-max]' % a.runs, '',
           'Table 1: Populate memory time (ms), -b %s per vCPU' % a.size,
           '%-6s | %-26s | %-26s' % ('vCPUs', 'barrier (default)', 'no barrier (-B)')]
    for v in (1, 4, 16):
        out.append('%-6s | %s | %s' % (v, cell(ms, 'populate_ns', table=1, vcpus=v, barrier=1),
                                       cell(ms, 'populate_ns', table=1, vcpus=v, barrier=0)))
    out += ['', 'Table 2: dirty log per iteration (us) against memslots, %s over 2 vCPUs, -i 3'
            % a.slot_mem,
            '%-5s | %-26s | %-26s | %-26s' % ('slots', 'get (manual protect)',
                                              'clear (manual protect)', 'get (-g: get + protect)')]
    for x in (1, 2, 4, 8):
        out.append('%-5s | %s | %s | %s' % (
            x, cell(us, 'get_ns_avg', table=2, slots=x, manual_protect=1),
            cell(us, 'clear_ns_avg', table=2, slots=x, manual_protect=1),
            cell(us, 'get_ns_avg', table=2, slots=x, manual_protect=0)))
    out += ['', 'Table 3: bitmap against ring (-R %s), -b %s per vCPU, -i 3; '
            'dirty pass in ms, get/clear in us' % (a.ring, a.size),
            '%-6s %-6s | %-26s | %-26s | %-26s | %s' % (
                'vCPUs', 'log', 'dirty pass (ms)', 'get / harvest (us)', 'clear / reset (us)',
                'ring full exits')]
    for v in (1, 4):
        for log in ('bitmap', 'ring'):
            w = dict(table=3, vcpus=v, log=log)
            out.append('%-6s %-6s | %s | %s | %s | %s' % (
                v, log, cell(ms, 'dirty_ns_avg', **w), cell(us, 'get_ns_avg', **w),
                cell(us, 'clear_ns_avg', **w), median_word(words(recs, 'ring_full_exits', **w))))
    return out


def dirty_log(a):
    """what dirty logging costs, from dirty_log_perf_test"""
    text = vm_run(dl_loop(a), ['--smp', '4'], a.timeout)
    keep(a.raw, text)
    show_failed(text, r'^RESULT failed|^HANG', head='failed runs (left out of the tables):')
    return dl_table(a, text)


def dl_args(p):
    common(p, 5, 3000)
    p.add_argument('--size', default='2M', help='memory per vCPU in tables 1 and 3 (default 2M)')
    p.add_argument('--slot-mem', default='32M',
                   help='total memory of table 2 (2 vCPUs), split into the slots (default 32M)')
    p.add_argument('--ring', type=positive, default=4096, help='dirty ring entries (default 4096)')


def dl_check(a):
    size_bytes(a.size)
    size_bytes(a.slot_mem)


# ---- splitting ---------------------------------------------------------------

def split_loop(a):
    return ('run() {\n%s'
            "  grep -E '^RESULT |^# Eager splitting' /tmp/out || "
            '{ echo "RESULT failed $*"; tail -5 /tmp/out; }\n}\n'
            "m=$(./dirty_log_page_splitting_test -h | sed -n 's/^ *\\([0-9][0-9]*\\): PA-bits.*/\\1/p' "
            '| head -n1)\n'
            'for rep in $(seq %d); do\n  run -m $m -b %s -v 2\ndone\n' % (
                guest_watch('dirty_log_page_splitting_test', 600), a.runs, a.size))


def split_table(a, text):
    recs = records(text, 'RESULT test=dirty_log_page_splitting ')

    def fig(s, p, key):
        xs = []
        for f in matching(recs, split=s, protect=p):
            m = re.match(r'[0-9]*', f.get(key, ''))
            xs.append(float(m.group(0) or 0) if key in f else None)
        return '%.2f [%.2f-%.2f]' % spread([x for x in xs if x is not None], 1e6)

    out = ['dirty_log_page_splitting_test -b %s -v 2, %d runs, %s, kernel %s (vm/run, TCG)' % (
        a.size, a.runs, a.arch, a.kernel)]
    out += [ln for ln in text.splitlines() if ln.startswith('# Eager splitting')][:1]
    out += ['', '| split | protect | runs | protect step ms | first dirty pass ms | enable ms | '
            'disable ms |', '| --- | --- | --- | --- | --- | --- | --- |']
    for s in ('eager', 'lazy'):
        for p in ('get', 'manual'):
            n = len(matching(recs, split=s, protect=p))
            if n:
                out.append('| %s | %s | %d | %s | %s | %s | %s |' % (
                    s, p, n, fig(s, p, 'protect_ns'), fig(s, p, 'first_dirty_ns'),
                    fig(s, p, 'enable_ns'), fig(s, p, 'disable_ns')))
    return out


def splitting(a):
    """eager against lazy page splitting"""
    mb = size_bytes(a.size) >> 20
    text = vm_run(split_loop(a), a.kargs + ['--mem', '2G', '--hugepages', str(mb + 16)],
                  a.timeout, a.arch)
    keep(a.raw, text)
    if show_failed(text, r'^RESULT failed', after=5, head=None):
        raise Fail('a run failed')
    return split_table(a, text)


def split_args(p):
    p.add_argument('--arch', default='x86_64', help='x86_64 (default) or arm64')
    p.add_argument('--kernel', default='6.12',
                   help='a Debian kernel version, IMAGE or IMAGE:MODULES_DIR (default 6.12)')
    common(p, 3, 1800)
    p.add_argument('--size', default='32M', type=size("bad --size '{0}' (e.g. 32M)", 'MG', bare=False),
                   help='memory per vCPU (2 vCPUs, 2 memslots, 2M hugetlb pages; default 32M)')


def split_check(a):
    if a.arch not in ('x86_64', 'arm64'):
        raise Usage("bad --arch '%s'" % a.arch)
    try:
        a.kargs = runner.kernel_args(a.kernel)
    except ValueError as e:
        raise Usage(str(e))
