# SPDX-License-Identifier: GPL-2.0-only
"""kvmbench.measure.tables.nesting: the nested table (nested against not nested)."""
import re

from kvmbench.base.errors import Fail
from kvmbench.vmrun import runner
from kvmbench.vmrun.cli import Usage
from .common import (common, guest_watch, keep, positive, run_values, show_failed, size_bytes,
                     spread, vm_run)


NESTED_STATS = ('exits pf_taken pf_fixed pf_fast pf_emulate pf_spurious nested_run '
                'insn_emulation mmu_shadow_zapped mmu_cache_miss mmu_pte_write mmu_unsync '
                'pages_4k').split()


def nested_vm_args(a):
    out = []
    for opt, v in (('--cpu', a.cpu), ('--kernel', a.kernel), ('--modules', a.modules),
                   ('--debian-kernel', a.debian_kernel)):
        if v:
            out += [opt, v]
    return out


def nested_loop(a):
    return ('run() {\n  what=$1; mode=$2; tst=$3; shift 3\n  set -- "$@" $mode\n%(watch)s'
            "  echo \"RUN $what ${mode:-plain} $(grep '^RESULT \\|^RESULT_STATS ' /tmp/out "
            "| tr '\\n' ' ')\"\n"
            "  grep -q '^RESULT ' /tmp/out || { echo \"FAILED $what $mode\"; tail -3 /tmp/out; }\n"
            '}\n'
            'for rep in $(seq %(runs)s); do\n'
            '  for m in "" -n; do\n'
            '    run dirty_log "$m" dirty_log_perf_test -b %(size)s -v %(vcpus)s -i 3\n'
            '    run kvm_alone "$m" demand_paging_test -b %(size)s -v %(vcpus)s\n'
            '    run missing "$m" demand_paging_test -u MISSING -b %(size)s -v %(vcpus)s\n'
            '  done\ndone\n' % dict(watch=guest_watch('$tst', 600), runs=a.runs, size=a.size,
                                    vcpus=a.vcpus))


def nested_table(a, text):
    vm_args = nested_vm_args(a)

    def row(label, name, key, scale):
        p = spread(run_values(text, name, 'plain', key), scale)
        n = spread(run_values(text, name, '-n', key), scale)
        return '| %-34s | %-26s | %-26s | %6.2f |' % (
            label, '%.2f [%.2f-%.2f]' % p, '%.2f [%.2f-%.2f]' % n, n[0] / p[0] if p[0] > 0 else 0)

    out = ['x86_64 VM (vm/run --smp 4 %s, %s), -b %s -v %d, median of %d runs [min-max]' % (
        ' '.join(vm_args), 'Bochs, VMX' if a.cpu == 'intel' else 'emulated SVM', a.size,
        a.vcpus, a.runs),
        '| %-34s | %-26s | %-26s | %-6s |' % ('figure', 'not nested', 'nested (-n)', 'ratio'),
        row('Populate memory time (ms)', 'dirty_log', 'populate_ns', 1000000),
        row('Dirty pass, avg of 3 (ms)', 'dirty_log', 'dirty_ns_avg', 1000000),
        row('Get dirty log, avg (us)', 'dirty_log', 'get_ns_avg', 1000),
        row('Clear dirty log, avg (us)', 'dirty_log', 'clear_ns_avg', 1000),
        row('Demand paging, KVM alone (pgs/s)', 'kvm_alone', 'rate', 1),
        row('Demand paging, -u MISSING (pgs/s)', 'missing', 'rate', 1), '',
        'KVM stats, median, summed over the vCPUs (dirty_log_perf_test run; kvm_alone run):',
        '| %-18s | %-12s | %-12s | %-12s | %-12s |' % ('stat', 'dirty: plain', 'dirty: -n',
                                                       'alone: plain', 'alone: -n')]
    for s in NESTED_STATS:
        out.append('| %-18s | %12.0f | %12.0f | %12.0f | %12.0f |' % ((s,) + tuple(
            spread(run_values(text, n, m, s))[0]
            for n, m in (('dirty_log', 'plain'), ('dirty_log', '-n'), ('kvm_alone', 'plain'),
                         ('kvm_alone', '-n')))))
    return out


def nested(a):
    """the perf tests nested (-n) against not nested"""
    text = vm_run(nested_loop(a), ['--smp', '4'] + nested_vm_args(a), a.timeout)
    keep(a.raw, text)
    show_failed(text, r'^FAILED|^HANG', after=3)
    if not re.search(r'(?m)^RUN .* -n .*RESULT ', text):
        raise Fail("no nested run passed (does the VM's KVM nest?)")
    return nested_table(a, text)


def nested_args(p):
    common(p, 3, 3000)
    p.add_argument('--size', default='16M', help='memory per vCPU (default 16M)')
    p.add_argument('--vcpus', type=positive, default=2, help='vCPUs (default 2)')
    p.add_argument('--debian-kernel', default='', metavar='VERSION', help="the VM's Debian kernel")
    p.add_argument('--kernel', default='', metavar='PATH', help="the VM's kernel image")
    p.add_argument('--modules', default='', metavar='DIR', help="its modules")
    p.add_argument('--cpu', default='', help='amd (QEMU TCG, SVM) or intel (Bochs, VMX)')


def nested_check(a):
    size_bytes(a.size)
    why = runner.check_cpu(a.cpu, 'x86_64')
    if why:
        raise Usage(why)
