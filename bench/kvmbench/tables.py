# SPDX-License-Identifier: GPL-2.0-only
"""kvmbench.tables: bench/table NAME, the perf tests' tables.

Each table runs a loop of one or more perf tests (in one VM boot of
vm/run, or on this host's /dev/kvm), keeps the lines they print (--raw
FILE) and prints one table of medians with the spread [min-max]
(stats.median_min_max); a target's met/MISSED is stats.target's.  The
common parts: the option parser (cli.Parser), the build
(runner.build), the guest's watchdog (guest.sh's bench_watch), the boot
(vm_run) and the RESULT lines read into key=value dicts (records).

  demand_paging  userfaultfd MISSING rates against reader threads, epoll
                 against poll(), beside the host-only rate; the targets
  dirty_log      populate, get/clear against memslots, bitmap against ring
  eventfd        the notification path against vCPU/host-thread pairs
  nested         the perf tests nested (-n) against not nested
  paths          bench/paths.list's headline figures on two kernels
                 (bench/compare, its compare.json read back)
  splitting      eager against lazy page splitting
  spread         how far one boot's timings move from run to run
  upstream       this suite's demand_paging_test beside upstream's
"""
import datetime
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

from . import runner, stats
from .cli import Parser, Usage
from .errors import Fail
from .render import fmt_exact
from .stats_cli import cv_pct, median_text

REPO = runner.REPO
PROG = 'bench/table'


# ---- what every table shares ---------------------------------------------

def positive(text):
    """An argparse type: a positive whole number."""
    if not re.fullmatch(r'[1-9][0-9]*', text):
        raise ValueError(text)
    return int(text)


positive.__name__ = 'positive number'


def size_bytes(text):
    """Bytes of a size such as 32M, 1G, 4K or 4096; Usage if it is none."""
    m = re.fullmatch(r'([1-9][0-9]*)([KMG]?)', text)
    if not m:
        raise Usage("bad size '%s' (e.g. 32M)" % text)
    return int(m.group(1)) << {'': 0, 'K': 10, 'M': 20, 'G': 30}[m.group(2)]


def fields(line):
    """The key=value words of @line as a dict; a key that comes twice
    keeps its last value (RESULT_STATS after RESULT)."""
    d = {}
    for w in line.split():
        k, eq, v = w.partition('=')
        if eq:
            d[k] = v
    return d


def records(text, prefix):
    """(line, fields) of each line of @text that starts with @prefix."""
    return [(ln, fields(ln)) for ln in text.splitlines() if ln.startswith(prefix)]


def matching(recs, **want):
    """The fields of the records whose fields hold every key=value of @want."""
    return [f for _, f in recs if all(f.get(k) == str(v) for k, v in want.items())]


def values(recs, key, **want):
    """@key's values (numbers) over the records that match @want."""
    out = []
    for f in matching(recs, **want):
        try:
            out.append(float(f[key]))
        except (KeyError, ValueError):
            pass
    return out


def spread(xs, div=1):
    """(median, min, max) of @xs over @div; (0, 0, 0) for none."""
    return tuple(v / div for v in stats.median_min_max(xs))


def words(recs, key, **want):
    """@key's values as printed over the records that match @want."""
    return [f[key] for f in matching(recs, **want) if key in f]


def median_word(ws):
    """The median of the numbers @ws (text) as text: one of them, or the
    mean of the middle two (bench/stats.py median's)."""
    return median_text(ws).split()[0]


class VmFailed(Fail):
    """vm/run failed; @text: what it printed."""

    def __init__(self, msg, text):
        super().__init__(msg)
        self.text = text


def guest_watch(test, timeout, out='/tmp/out'):
    """Guest shell lines that run ./TEST "$@" to @out under guest.sh's
    watchdog: after @timeout seconds its threads' kernel stacks are printed
    as HANG lines and it is killed."""
    with open(runner.GUEST_SH) as f:
        return f.read() + '  bench_watch %s %s ./%s "$@"\n' % (timeout, out, test)


def guest_run(test, timeout):
    """A guest shell function run() that runs ./TEST "$@" under the
    watchdog and prints its RESULT line, or "RESULT failed ARGS"."""
    return ('run() {\n%s'
            "  grep '^RESULT' /tmp/out || echo \"RESULT failed $*\"\n}\n"
            % guest_watch(test, timeout))


def build(arch='x86_64'):
    """The suite built for @arch: the kselftest install directory."""
    out = os.path.join(REPO, 'build', runner.arch_dir(arch))
    if not runner.build(REPO, arch, out):
        raise Fail('build failed (%s.build.log)' % out)
    return os.path.join(out, 'kselftest_install')


def vm_run(script, vm_args, timeout, arch='x86_64'):
    """Build, boot vm/run once with @vm_args and run the guest shell
    @script in it: its console output (Fail if vm/run fails)."""
    tests = build(arch)
    cmd = [os.path.join(REPO, 'vm', 'run'), '--arch', arch] + list(vm_args) + [
        '--dir', tests, '--timeout', str(timeout), '--', 'sh', '-c', script]
    p = subprocess.run(cmd, stdout=subprocess.PIPE, stdin=subprocess.DEVNULL)
    text = p.stdout.decode(errors='replace').replace('\r', '')
    if p.returncode:
        raise VmFailed('vm/run exited %d' % p.returncode, text)
    return text


def keep(raw, text):
    """@text into the --raw file @raw, if one was given."""
    if raw:
        with open(raw, 'w') as f:
            f.write(text)


def read_file(path, what):
    try:
        with open(path, errors='replace') as f:
            return f.read()
    except OSError:
        raise Usage("cannot read %s '%s'" % (what, path))


def show_failed(text, pattern, after=0, head='failed runs (left out of the table):'):
    """The lines of @text that match @pattern (and @after more) on stderr,
    under @head; whether there were any."""
    lines = text.splitlines()
    hits = [i for i, ln in enumerate(lines) if re.match(pattern, ln)]
    if not hits:
        return False
    if head:
        print(head, file=sys.stderr)
    shown = set()
    for i in hits:
        for j in range(i, min(i + after + 1, len(lines))):
            if j not in shown:
                shown.add(j)
                print(lines[j], file=sys.stderr)
    return True


def common(p, runs, timeout=None, raw=True):
    p.add_argument('--runs', type=positive, default=runs, help='runs a cell (default %d)' % runs)
    if timeout:
        p.add_argument('--timeout', type=positive, default=timeout,
                       help="the VM's timeout in seconds (default %d)" % timeout)
    if raw:
        p.add_argument('--raw', default='', metavar='FILE',
                       help='keep the lines the runs printed in FILE')


# ---- demand_paging ------------------------------------------------------

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
    p.add_argument('--readers', default='1 2 4 8 16 32', help='reader thread counts')


def dp_check(a):
    size_bytes(a.size)
    a.readers = a.readers.split()
    if not a.readers or not all(re.fullmatch(r'[1-9][0-9]*', r) for r in a.readers):
        raise Usage("bad --readers '%s'" % ' '.join(a.readers))


# ---- dirty_log ------------------------------------------------------------

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


# ---- eventfd ----------------------------------------------------------------

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


# ---- nested -------------------------------------------------------------------

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


def run_values(text, name, mode, key, idx=None):
    """@key's values (the last on each line) over the "RUN NAME MODE ..."
    lines that hold a RESULT; @idx: a pattern the third word matches."""
    xs = []
    for ln in text.splitlines():
        w = ln.split()
        if len(w) < 3 or w[:2] != ['RUN', name] or ' RESULT ' not in ln + ' ':
            continue
        if (idx is None and w[2] != mode) or (idx is not None and not re.fullmatch(idx, w[2])):
            continue
        try:
            xs.append(float(fields(ln)[key]))
        except (KeyError, ValueError):
            pass
    return xs


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


# ---- paths --------------------------------------------------------------------

def paths_lines(path):
    """[(name, command, [keys])] of a paths list (bench/paths.list's
    format); Usage naming a bad line."""
    out = []
    for n, line in enumerate(read_file(path, 'the list').splitlines(), 1):
        if re.fullmatch(r'\s*(#.*)?', line):
            continue
        parts = line.split(' | ')
        if len(parts) != 3:
            raise Usage('%s:%d: not NAME | COMMAND | KEY[,KEY...]' % (path, n))
        name, cmd, keys = parts
        if not re.fullmatch(r'[A-Za-z0-9_-]+', name):
            raise Usage("%s:%d: bad name '%s'" % (path, n, name))
        if not re.fullmatch(r'[A-Za-z0-9_.]+(,[A-Za-z0-9_.]+)*', keys):
            raise Usage("%s:%d: bad key list '%s'" % (path, n, keys))
        if not re.fullmatch(r'[a-z0-9_/]+(\s+[^\s\'"$`;&|<>]+)*', cmd):
            raise Usage("%s:%d: bad command '%s' (a test and plain options)" % (path, n, cmd))
        out.append((name, cmd, keys.split(',')))
    return out


def verdict_rows(name, keys, results):
    """A row for each result (compare.json's) whose figure is one of
    @keys or KEY[mode]."""
    out = []
    for key in keys:
        found = [r for r in results if r['figure'] == key or r['figure'].startswith(key + '[')]
        for r in found:
            out.append('%-28s %-36s %14s %14s %8s [%s, %s] %s' % (
                name, '%s (%s)' % (r['figure'], r['unit'].replace(' ', '_')),
                fmt_exact(r['a']['median']), fmt_exact(r['b']['median']), fmt_exact(r['ratio']),
                fmt_exact(r['lo']), fmt_exact(r['hi']), r['verdict']))
        if not found:
            out.append('%-28s %-36s %s' % (name, key, "(no such figure in the test's JSON)"))
    return out


def compare_results(path):
    """compare.json's results, [] if there is none."""
    try:
        with open(path) as f:
            return json.load(f)['results']
    except (OSError, ValueError, KeyError):
        return []


def paths(a):
    """bench/paths.list's headline figures on two kernels"""
    lines = paths_lines(a.list)
    if a.only:
        lines = [x for x in lines if x[0] == a.only]
        if not lines:
            raise Usage("no line '%s' in %s" % (a.only, a.list))
    out = a.out
    if a.print:
        if not os.path.isdir(a.print):
            raise Usage("no results directory '%s'" % a.print)
        out = a.print
    out = out or os.path.join(REPO, 'build', 'paths', datetime.datetime.now().strftime('%Y%m%d-%H%M%S'))
    os.makedirs(out, exist_ok=True)
    rows, failed, skipped = [], 0, 0
    for name, cmd, keys in lines:
        base = os.path.join(out, name)
        if a.print:
            if not os.path.isfile(base + '.rc'):
                continue
            rc = int(read_file(base + '.rc', 'the status').strip() or 1)
        else:
            print('%s: %s: bench/compare --kernels %s --arch %s --runs %d -- %s' % (
                PROG + ' paths', name, a.kernels, a.arch, a.runs, cmd), file=sys.stderr)
            with open(base + '.txt', 'w') as o, open(base + '.log', 'w') as e:
                rc = subprocess.run([os.path.join(REPO, 'bench', 'compare'), '--kernels', a.kernels,
                                     '--arch', a.arch, '--runs', str(a.runs), '--per-boot',
                                     str(a.per_boot), '--out', base, '--'] + cmd.split(),
                                    stdout=o, stderr=e, stdin=subprocess.DEVNULL).returncode
            with open(base + '.rc', 'w') as f:
                f.write('%d\n' % rc)
        results = compare_results(os.path.join(base, 'compare.json'))
        if rc == 0:
            rows += verdict_rows(name, keys, results)
        elif rc == 4:
            skipped += 1
            why = next((ln for ln in read_file(base + '.log', 'the log').splitlines()
                        if 'skipped' in ln), '')
            rows.append('%-28s skipped: %s' % (name, why))
        else:
            failed += 1
            print('%s paths: %s: bench/compare exited %d; its output:' % (PROG, name, rc),
                  file=sys.stderr)
            print('\n'.join(read_file(base + '.log', 'the log').splitlines()[-40:]), file=sys.stderr)
            rows += verdict_rows(name, keys, results)
            rows.append('%-28s failed: bench/compare exited %d (%s.log)' % (name, rc, base))
    with open(os.path.join(out, 'rows.txt'), 'w') as f:
        f.write(''.join(r + '\n' for r in rows))
    ka, kb = a.kernels.split(',')
    head = ['%s paths: the results in %s' % (PROG, out)] if a.print else []
    head += ['%s paths: %s VM, kernels A=%s B=%s, %d runs each (%s)' % (
        PROG, a.arch, ka, kb, a.runs, datetime.datetime.now(datetime.timezone.utc).strftime('%Y-%m-%d')),
        '%-28s %-36s %14s %14s %8s %s' % ('test', 'figure (unit)', '%s median' % ka,
                                          '%s median' % kb, 'B/A', '[lo, hi] verdict')]
    print('\n'.join(head + rows + ['results: %s' % out]))
    if failed:
        raise Fail('', status=1)
    if skipped == len(lines):
        raise Fail('', status=4)
    return []


def paths_args(p):
    p.add_argument('--arch', default=runner.host_arch(), help="the VM's arch (default: this host's)")
    p.add_argument('--only', default='', metavar='NAME', help='run only the line NAME')
    p.add_argument('--runs', type=positive, default=6,
                   help='measured runs on each kernel (default 6: with a test of 11 figures '
                   'that vary, bench/compare gives no verdict below 6; at least 2)')
    p.add_argument('--per-boot', type=positive, default=2,
                   help='measured runs per VM boot (default 2)')
    p.add_argument('--kernels', default='6.1,6.12',
                   help='the two kernels, as bench/compare takes them (default 6.1,6.12)')
    p.add_argument('--list', default=os.path.join(REPO, 'bench', 'paths.list'),
                   help='the table (default bench/paths.list)')
    p.add_argument('--out', default='', metavar='DIR',
                   help="bench/compare's results, one directory a line (default build/paths/<date>)")
    p.add_argument('--print', default='', metavar='DIR',
                   help="print the table of an earlier run's results in DIR again, without running")


def paths_check(a):
    if a.runs < 2:
        raise Usage('--runs must be at least 2 (bench/compare compares two or more)')
    a.arch = 'arm64' if a.arch == 'aarch64' else a.arch
    if a.arch not in ('x86_64', 'arm64'):
        raise Usage("unknown arch '%s' (x86_64 or arm64)" % a.arch)
    if not re.fullmatch(r'[^,]+,[^,]+', a.kernels):
        raise Usage("--kernels takes A,B: '%s'" % a.kernels)


# ---- splitting ----------------------------------------------------------------

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
    p.add_argument('--size', default='32M',
                   help='memory per vCPU (2 vCPUs, 2 memslots, 2M hugetlb pages; default 32M)')


def split_check(a):
    if a.arch not in ('x86_64', 'arm64'):
        raise Usage("bad --arch '%s'" % a.arch)
    if not re.fullmatch(r'[1-9][0-9]*[MG]', a.size):
        raise Usage("bad --size '%s' (e.g. 32M)" % a.size)
    try:
        a.kargs = runner.kernel_args(a.kernel)
    except ValueError as e:
        raise Usage(str(e))


# ---- spread -------------------------------------------------------------------

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


# ---- upstream -----------------------------------------------------------------

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


# ---- the command --------------------------------------------------------------

HELP = {
    'demand_paging': """\
Demand paging rates with userfaultfd MISSING faults, 4 vCPUs, 1..32 reader
threads, epoll (EPOLLEXCLUSIVE) against poll() wake-ups, each KVM rate
beside the host-only rate of the same pages (-H), in one table.  Boots the
x86_64 VM once (vm/run --smp 4) and loops inside it.  Emulated timings are
noisy, so every cell is the median of --runs runs, with the spread
(min-max); the configurations take turns, so drift hits all.  Beside each
reader count: the per-vCPU KVM stats (exits, pf_taken) of the epoll runs.
Ends with the targets (stats.target): epoll at 16 and 32 readers at least
0.9x its 1-reader rate; at 1 reader epoll no slower than poll.""",
    'dirty_log': """\
What dirty logging costs, from dirty_log_perf_test, in three tables:
  1. populate time with the start barrier on and off (-B), 1/4/16 vCPUs;
  2. get and clear of the dirty log against the memslot count (1/2/4/8)
     at fixed memory, with manual protect and without (-g: get only);
  3. the dirty bitmap against the dirty ring (-R) at 1 and 4 vCPUs.
Boots the x86_64 VM once (vm/run --smp 4) and loops inside it.  Every cell
is the median of --runs runs with the spread [min-max]; configurations take
turns, so drift hits all alike.  Every run also checked each pass's dirty
log against the pages written.""",
    'eventfd': """\
How KVM's notification path (ioeventfd doorbell, host thread, irqfd
interrupt, HLT/WFI wake-up) scales with the number of vCPU/host-thread
pairs, in each way host threads wait (read, epoll, an EPOLLEXCLUSIVE pool,
a poll() pool), beside the same ping-pong between plain host threads (-H):
eventfd_perf_test's total rate (event/s summed over the pairs), median of
--runs runs with the spread [min-max].  Beside each pair count: KVM's vCPU
stats per round trip of the read runs (exits, halt wake-ups, microseconds
halted).  Configurations take turns; a warm-up run goes first.  --where
host runs on this machine's /dev/kvm, --where vm in the x86_64 VM (vm/run
--smp 4).""",
    'nested': """\
The perf tests with their vCPUs nested (-n: L1 runs the page walks in L2
under NPT, every fault and write-protection through KVM's nested MMU)
against not nested, side by side: populate, dirty pass, get and clear of
the dirty log, and the demand paging rate (KVM alone and -u MISSING), with
the nested/not-nested ratio, and the KVM stats (RESULT_STATS, summed over
the vCPUs) that explain it.  Boots the x86_64 VM once (vm/run --smp 4;
emulated SVM, or with --cpu intel Bochs' VMX) and loops inside it; the two
modes take turns.  Cells: median [min-max] of --runs.""",
    'paths': """\
The headline figures of the memory-path tests on two kernels, side by
side.  Reads bench/paths.list (its format is at its top: NAME | COMMAND |
KEY[,KEY...]) and runs each line (or only --only NAME's) with bench/compare
--kernels A,B --arch ARCH, then prints one row a headline figure from its
compare.json: its median on each kernel, B/A with its interval, and the
verdict.  Exit status: 0 every line compared; 1 a line failed (its compare
output is shown); 2 usage or a bad line in the list; 4 every line
skipped.""",
    'splitting': """\
Eager against lazy page splitting when dirty logging starts, from
dirty_log_page_splitting_test.  For each splitting (eager, lazy) and
protect mode (get: KVM_GET_DIRTY_LOG re-arms; manual: manual protect,
initially set), the time of the step that write-protects and, eagerly,
splits (enabling logging; with manual protect the first clear) and of the
first dirty pass after it, which with lazy splitting takes the splits as
write faults; enabling and disabling too.  Every run also checked the
mappings against what its splitting implies.  Boots one VM (vm/run, TCG)
and loops inside it; every cell is the median of --runs runs with the
spread [min-max], in ms.""",
    'spread': """\
How far the same command's timings move from run to run in one boot:
populate and the second dirty pass of dirty_log_perf_test -i 2, and the
rate of demand_paging_test -u MISSING, each run --runs times after one
dropped warm-up, in one x86_64 VM (vm/run; --cpu intel: Bochs, whose clock
counts instructions; default: QEMU TCG, whose clock is the host's).
Cells: median, [min-max], the spread (max-min)/median and the coefficient
of variation sd/mean.""",
    'upstream': """\
This suite's demand_paging_test beside upstream's own (built elsewhere),
on the same command lines, on this host's /dev/kvm, in one run: "Total
guest execution time" of each (median [min-max] of --runs runs, the two
programs taking turns) and what KVM did for it, from KVM's tracepoints
(perf stat, median): guest instructions KVM emulated and guest page-table
walks it made.  Needs root and perf.""",
}

TABLES = {
    'demand_paging': (dp_args, dp_check, demand_paging),
    'dirty_log': (dl_args, dl_check, dirty_log),
    'eventfd': (ev_args, ev_check, eventfd),
    'nested': (nested_args, nested_check, nested),
    'paths': (paths_args, paths_check, paths),
    'splitting': (split_args, split_check, splitting),
    'spread': (spread_args, spread_check, spread_),
    'upstream': (up_args, up_check, upstream),
}

USAGE = ('usage: bench/table NAME [OPTIONS]   (bench/table NAME -h: its options)\n\n'
         'The perf tests\' tables, NAME one of:\n\n' +
         ''.join('  %-14s %s\n' % (n, t[2].__doc__) for n, t in TABLES.items()))


def parser(name):
    p = Parser(prog='%s %s' % (PROG, name), description=HELP[name])
    TABLES[name][0](p)
    return p


def parse(argv):
    """(the table's function, its options); Usage on a bad command line."""
    if not argv:
        raise Usage('no table named (bench/table -h lists them)')
    if argv[0] not in TABLES:
        raise Usage("no table '%s' (one of %s)" % (argv[0], ', '.join(TABLES)))
    a = parser(argv[0]).parse_args(argv[1:])
    TABLES[argv[0]][1](a)
    return TABLES[argv[0]][2], a


def main(argv):
    if argv[:1] in (['-h'], ['--help']):
        print(USAGE, end='')
        return 0
    try:
        run, a = parse(argv)
        out = run(a)
    except Fail as e:
        if str(e):
            name = ' ' + argv[0] if argv and argv[0] in TABLES else ''
            print('%s%s: %s' % (PROG, name, e), file=sys.stderr)
        return e.status
    if out:
        print('\n'.join(out))
    return 0


if __name__ == '__main__':
    sys.exit(main(sys.argv[1:]))
