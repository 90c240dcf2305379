# SPDX-License-Identifier: GPL-2.0-only
"""kvmbench.measure.tables.noise: the spread table (one boot's run-to-run spread)."""
from kvmbench.verdicts import stats
from kvmbench.verdicts.stats_cli import cv_pct
from kvmbench.vmrun import runner
from kvmbench.vmrun.cli import Usage
from .common import (PROG, VmFailed, common, guest_watch, keep, read_file, run_values, show_failed,
                     size_bytes, vm_run)


def spread_loop(a):
    return ('run() {\n  what=$1; idx=$2; tst=$3; shift 3\n%(watch)s'
            "  echo \"RUN $what $idx $(grep '^RESULT' /tmp/out | tr '\\n' ' ')\"\n"
            "  grep -q '^RESULT ' /tmp/out || { echo \"FAILED $what $idx\"; tail -3 /tmp/out; }\n"
            '}\n'
            'for i in $(seq 0 %(runs)s); do\n'
            '  run dirty_log $i dirty_log_perf_test -b %(size)s -v 1 -i 2\n'
            '  run missing $i demand_paging_test -u MISSING -b %(size)s -v 1\n'
            'done\n' % dict(watch=guest_watch('$tst', 600), runs=a.runs, size=a.size))


def spread_table(a, text):
    vm_args = spread_vm_args(a)

    def row(label, name, key, scale):
        xs = run_values(text, name, None, key, idx=r'[1-9][0-9]*')
        m, lo, hi = stats.median_min_max(xs)
        return '| %-30s | %2d | %10.2f | %10.2f-%-10.2f | %6.1f%% | %5s%% |' % (
            label, len(xs), m / scale, lo / scale, hi / scale, 100 * (hi - lo) / m if m else 0,
            '%.1f' % cv_pct(xs))

    return ['%s spread: x86_64 VM (vm/run %s), -b %s -v 1, runs after a warm-up, one boot' % (
        PROG, ' '.join(vm_args), a.size),
        '| %-30s | %2s | %10s | %-21s | %7s | %6s |' % ('figure', 'n', 'median', 'min-max',
                                                        'spread', 'CV'),
        row('Populate memory time (ms)', 'dirty_log', 'populate_ns', 1000000),
        row('Iteration 2 dirty pass (ms)', 'dirty_log', 'dirty_ns', 1000000),
        row('-u MISSING rate (pgs/s)', 'missing', 'rate', 1)]


def spread_vm_args(a):
    return (['--cpu', a.cpu] if a.cpu else []) + (
        ['--debian-kernel', a.debian_kernel] if a.debian_kernel else [])


def spread_(a):
    """how far one boot's timings move from run to run"""
    if a.parse:
        text = read_file(a.parse, '--parse')
    else:
        try:
            text = vm_run(spread_loop(a), spread_vm_args(a), a.timeout)
        except VmFailed as e:
            show_failed(e.text, r'^FAILED|^HANG', after=3, head=None)
            raise
        keep(a.raw, text)
        show_failed(text, r'^FAILED|^HANG', after=3, head=None)
    return spread_table(a, text)


def spread_args(p):
    common(p, 5, 5400)
    p.add_argument('--size', default='4M', help='memory of the one vCPU (default 4M)')
    p.add_argument('--cpu', default='', help='amd (QEMU TCG) or intel (Bochs)')
    p.add_argument('--debian-kernel', default='', metavar='VERSION', help="the VM's Debian kernel")
    p.add_argument('--parse', default='', metavar='FILE', help='the table of an earlier --raw FILE')


def spread_check(a):
    size_bytes(a.size)
    why = runner.check_cpu(a.cpu, 'x86_64')
    if why:
        raise Usage(why)
