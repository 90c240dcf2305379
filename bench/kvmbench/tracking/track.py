# SPDX-License-Identifier: GPL-2.0-only
"""kvmbench.tracking.track: bench/track, KVM's memory figures across a stream of
kernels (docs/track.md).

The kernels are resolved (Debian versions from apt, as vm/run resolves
them), the run count checked against what the statistics need for a
verdict on every pair of neighbours (before anything boots), the
database opened (kvmbench.tracking.trackdb) and then: rounds of VM boots, one a
kernel (the order reversed every other round, A B C C B A ..., so that
drift hits all alike), each boot a warm-up and --per-boot runs of every
command, each run stored as it ends.  At the end, or with --report
alone, the stream is judged: neighbours by kvmbench.verdicts.stats, change
points by kvmbench.verdicts.changepoint (kvmbench.tracking.trackjudge), and printed.
"""
import argparse
import concurrent.futures
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import threading
import time

from kvmbench.base.errors import Fail, UsageError, say
from kvmbench.verdicts import stats
from kvmbench.verdicts.results import Results, run_figures
from kvmbench.kernels import build, debian, fetch
from kvmbench.kernels.debian import version_key
from kvmbench.vmrun import cli, runner, vm
from kvmbench.vmrun.cli import check_test
from kvmbench.labs import lava
from . import trackdb, tracklava, trackplan
from .trackjudge import pair_level

PROG = 'bench/track'
DEFAULT_DB = 'build/track/track.sqlite'

# The default commands: NAME: (the figures judged, the test and its arguments).
# Small enough for the instruction clock (seconds a run), the headline
# figures of each: demand paging by KVM's faults and by userfaultfd,
# dirty logging's dirty pass and its log read, a memslot operation.
DEFAULT_COMMANDS = {
    'dp': (['rate'], 'demand_paging_test -b 16M'),
    'dp-uffd': (['rate'], 'demand_paging_test -u MISSING -b 16M'),
    'dirty': (['dirty_ns_avg', 'get_ns_avg'], 'dirty_log_perf_test -b 16M -i 3'),
    'memslot': (['map_ns_median'], 'memslot_perf_test -b 8M -s 33 -f 0 -e 0 -l 0.2 -r 3'),
}
# arm64's kernels offer different guest modes (6.1 and 6.12: not the same
# set); the tests run every one unless told: one mode, 40-bit IPA with 4K
# pages (-m 5), which both offer.  memslot_perf_test runs one anyway.
ARCH_ARGS = {'arm64': {'dp': ['-m', '5'], 'dp-uffd': ['-m', '5'], 'dirty': ['-m', '5']}}

EPILOG = """kernels (in stream order, as given; a range and all-SERIES in version order):
  6.12.115+deb12, 6.1.0-57   a Debian kernel version, as vm/run --debian-kernel names it
  6.1, 6.12                  that series' newest version (as vm/run takes it)
  6.12.107+deb12..6.12.117+deb12  every version of that series from one to the other
  all-6.12, all-6.1          every version of that series apt has (resolved when run)
  IMAGE[:MODULES]            a kernel image of one's own (and its modules' directory)
  kvm:DIR                    KVM built by vm/kvm-build --out DIR, on the Debian
                             kernel it was built for

--command NAME:FIGURES:TEST ARGS  a command of one's own, FIGURES (comma-separated)
  the figures judged; the default set: %s.

Exit status: 0 measured (or reported) and judged; 1 some runs failed or a
figure could not be judged; 2 usage or bad input (nothing written).
""" % '; '.join('%s: %s (%s)' % (n, c, ','.join(f)) for n, (f, c) in DEFAULT_COMMANDS.items())


def info(msg):
    say(PROG, msg)


class Args(argparse.ArgumentParser):
    def error(self, message):
        raise UsageError(message)


def parser():
    p = Args(prog=PROG, formatter_class=argparse.RawDescriptionHelpFormatter,
             description='Measure KVM memory figures on every kernel of a stream, store '
             'every run, find the changes (neighbour verdicts and change points), attribute '
             'them.', epilog=EPILOG)
    p.add_argument('kernels', nargs='*', metavar='KERNEL')
    p.add_argument('--arch', default=runner.host_arch(),
                   help='x86_64, arm64 or both comma-separated (default: this host\'s)')
    p.add_argument('--commands', metavar='NAMES',
                   help='the default set\'s commands to run, comma-separated (default: all)')
    p.add_argument('--command', action='append', default=[], metavar='NAME:FIGURES:TEST ARGS',
                   help='a command of one\'s own (repeatable; replaces the default set)')
    p.add_argument('--runs', type=int, metavar='N',
                   help='measured runs of each command on each kernel (default: the '
                   'least the verdicts need, at least 6)')
    p.add_argument('--per-boot', type=int, default=2, metavar='N',
                   help='runs of each command in one boot, after a warm-up (default 2)')
    p.add_argument('--db', default=DEFAULT_DB, metavar='FILE|URL',
                   help='the database: an SQLite file (default %s) or a postgresql:// '
                   'URL' % DEFAULT_DB)
    p.add_argument('--level', type=float, default=95.0, metavar='PCT',
                   help='simultaneous confidence over every neighbour pair and figure '
                   '(default 95)')
    p.add_argument('--report', metavar='DIR',
                   help='write the report (track.html, track.md) into DIR')
    p.add_argument('--no-run', action='store_true',
                   help='measure nothing: judge (and report) what the database holds')
    p.add_argument('--jobs', type=int, metavar='N',
                   help='boots at a time (default 1): each VM takes a core; the '
                   'instruction clock does not see the others\' load; with --lava the '
                   'jobs in the lab at a time (default twice its qemu devices)')
    p.add_argument('--lava', metavar='URL|local',
                   help='each boot a job of the LAVA lab at URL (local: lava/lab\'s), '
                   'spread over its devices')
    p.add_argument('--token', metavar='T',
                   help='the LAVA API token (default $LAVA_TOKEN; local: the lab\'s)')
    p.add_argument('--artifacts', metavar='DIR=URL',
                   help='with --lava, a lab not on this machine: the kernels and initramfs '
                   'copied to DIR, which the lab fetches as URL')
    p.add_argument('--mem', default='2G', type=cli.size("bad --mem '{0}'"), help='the VM\'s memory (default 2G)')
    p.add_argument('--run-timeout', type=int, default=600, metavar='S',
                   help='kill a run after S seconds (default 600)')
    p.add_argument('--attribute', metavar='FROM..TO',
                   help='measure nothing: the KVM and mm entries of Debian\'s changelogs '
                   'between two Debian versions (all-SERIES: its oldest and newest), '
                   'the files under arch/*/kvm, virt/kvm and '
                   'mm/ that differ between their linux-source packages, and the bisect '
                   'command')
    p.add_argument('--dry-run', action='store_true',
                   help='resolve and check everything, print the plan, boot nothing')
    return p


# ---- kernels -----------------------------------------------------------------

class Kernel:
    """One kernel of the stream: its name in the database, vm/run's arguments."""

    def __init__(self, name, vm_args):
        self.name, self.vm_args = name, vm_args

    def __repr__(self):
        return self.name


def debian_versions(arch):
    """The Debian kernel versions of @arch that apt (or vm/run's cache)
    has, oldest first (kvmbench.kernels.debian, as vm/run finds them)."""
    try:
        return debian.known_versions(arch)
    except debian.FetchError as e:
        raise Fail(str(e), e.status)


def resolve(specs, arch, versions=None):
    """The stream's Kernels for @specs on @arch; UsageError for one that
    is none of the forms, or a version apt does not have."""
    have = None
    out = []

    def known():
        nonlocal have
        if have is None:
            have = versions if versions is not None else debian_versions(arch)
        return have
    for s in specs:
        if s.startswith('kvm:'):
            out.append(kvm_kernel(s, arch))
        elif s.startswith('all-'):
            ser = s[4:]
            got = [v for v in known() if debian.series(v) == ser]
            if not got:
                raise UsageError("no Debian %s kernels for %s (apt has series %s)" % (
                    s[4:], arch, ', '.join(sorted({debian.series(v) for v in known()},
                                                  key=version_key)) or 'none'))
            out += [Kernel(v, ['--debian-kernel', v]) for v in got]
        elif '..' in s:
            a, b = s.split('..', 1)
            for v in (a, b):
                if v not in known():
                    raise UsageError("no Debian kernel '%s' for %s in the archive" % (v, arch))
            if debian.series(a) != debian.series(b):
                raise UsageError("range %s: the two ends are of different series" % s)
            lo, hi = sorted((a, b), key=version_key)
            got = [v for v in known() if debian.series(v) == debian.series(a) and
                   version_key(lo) <= version_key(v) <= version_key(hi)]
            out += [Kernel(v, ['--debian-kernel', v]) for v in got]
        elif os.path.isfile(s.partition(':')[0]):
            try:
                args = runner.kernel_args(s)
            except ValueError as e:
                raise UsageError(str(e))
            if not fetch.is_kernel_image(arch, s.partition(':')[0]):
                raise UsageError("kernel '%s' is a file but no kernel image for %s"
                                 % (s.partition(':')[0], arch))
            out.append(Kernel(os.path.abspath(s.partition(':')[0]) +
                              (':' + os.path.abspath(s.partition(':')[2])
                               if s.partition(':')[2] else ''), args))
        elif re.fullmatch(debian.SERIES, s):     # a series: its newest, as vm/run's
            try:
                v = debian.pick_version(s, known(), debian.DEB_ARCH[arch])
            except debian.FetchError as e:
                raise UsageError(str(e))
            out.append(Kernel(v, ['--debian-kernel', v]))
        elif debian.is_version(s):
            if s not in known():
                near = [v for v in known() if debian.series(v) == debian.series(s)]
                raise UsageError("no Debian kernel '%s' for %s in the archive (%s has: %s)" % (
                    s, arch, debian.series(s), ' '.join(near) or 'none'))
            out.append(Kernel(s, ['--debian-kernel', s]))
        else:
            raise UsageError("kernel '%s' is not a Debian version (6.12.117+deb12), a series "
                             "(6.12), a range (A..B), all-SERIES, an image file or kvm:DIR" % s)
    names = [k.name for k in out]
    dup = sorted({n for n in names if names.count(n) > 1})
    if dup:
        raise UsageError('kernel %s given twice' % dup[0])
    return out


def kvm_kernel(spec, arch):
    """kvm:DIR: KVM built by vm/kvm-build --out DIR (its kvm-build.json)."""
    d = spec[4:]
    meta = os.path.join(d, 'kvm-build.json')
    try:
        with open(meta) as f:
            desc = json.load(f)
        rel = desc['release']
    except (OSError, ValueError, KeyError):
        raise UsageError("%s: no kvm-build.json of vm/kvm-build --out %s" % (spec, d))
    if desc.get('arch', arch) != arch:
        raise UsageError('%s was built for %s, not %s' % (spec, desc['arch'], arch))
    ver = re.sub('-%s$' % debian.DEB_ARCH[arch], '', rel)
    return Kernel('kvm:' + os.path.abspath(d), ['--debian-kernel', ver, '--kvm-modules',
                                                os.path.abspath(d)])


# ---- commands ----------------------------------------------------------------

class Command:
    def __init__(self, name, figures, test, args, arch_args=None):
        self.name, self.figures, self.test, self.args = name, figures, test, args
        self.arch_args = arch_args or {}

    def argv(self, arch=None):
        return self.args + self.arch_args.get(arch, [])

    def line(self, arch=None):
        return ' '.join([self.test] + self.argv(arch))


def commands(a):
    if a.command and a.commands:
        raise UsageError('give --commands (of the default set) or --command, not both')
    out = []
    if a.command:
        for spec in a.command:
            m = re.fullmatch(r'([A-Za-z0-9_.-]+):([A-Za-z0-9_.,/\[\] -]+):\s*'
                             r'([a-z0-9_/]+)((?:\s+\S+)*)\s*', spec)
            if not m:
                raise UsageError("bad --command '%s' (NAME:FIGURES:TEST ARGS)" % spec)
            out.append(Command(m.group(1), m.group(2).split(','), m.group(3),
                               m.group(4).split()))
    else:
        names = a.commands.split(',') if a.commands else list(DEFAULT_COMMANDS)
        for n in names:
            if n not in DEFAULT_COMMANDS:
                raise UsageError("no command '%s' in the default set (%s)" % (
                    n, ', '.join(DEFAULT_COMMANDS)))
            figs, line = DEFAULT_COMMANDS[n]
            w = line.split()
            out.append(Command(n, figs, w[0], w[1:],
                               {a: x[n] for a, x in ARCH_ARGS.items() if n in x}))
    names = [c.name for c in out]
    if len(set(names)) != len(names):
        raise UsageError('a command name given twice')
    return out


def runs_needed(n_kernels, cmds, level):
    """The fewest runs a kernel for an exact interval on every figure
    judged of every neighbour pair, all simultaneous at @level."""
    return stats.min_runs(stats.figure_alpha(pair_level(level, n_kernels - 1, len(cmds)),
                                             c_figs(cmds)))


def c_figs(cmds):
    return max(len(c.figures) for c in cmds) if cmds else 1


# ---- runs --------------------------------------------------------------------

def guest_script(cmds, idx, timeout, arch=None):
    """The guest's shell: guest.sh, then a warm-up and the runs @idx of
    every command on @arch (side = the command's position, c0, c1, ...)."""
    lines = ['BENCH_TIMEOUT=%d' % timeout]
    for i, c in enumerate(cmds):
        lines.append(runner.bench_run_line('c%d' % i, 'w', 1, '/tests/kvm', c.argv(arch), c.test))
    for j in idx:
        for i, c in enumerate(cmds):
            lines.append(runner.bench_run_line('c%d' % i, j, 0, '/tests/kvm', c.argv(arch), c.test))
    return runner.guest_sh(*lines)


def vm_cmd(kernel, arch, cmds, idx, a):
    """The vm/run command of a boot of @kernel running a warm-up and the
    runs @idx of @cmds (vm.run_args)."""
    nruns = len(cmds) * (len(idx) + 1)
    return vm.script_args(guest_script(cmds, idx, a.run_timeout, arch), a.tests[arch],
                          a.run_timeout * (nruns + 2), arch, smp=1, mem=a.mem,
                          args=kernel.vm_args)


class Store(Results):
    """Results that store each run into the database as it ends."""

    def __init__(self, out, db, kernel, arch, cmds, boot, counts):
        super().__init__(out, PROG)
        self.db, self.kernel, self.arch, self.cmds, self.boot = db, kernel, arch, cmds, boot
        self.counts = counts

    def record(self, side, idx, warm, rc, output, json_text=None):
        c = self.cmds[int(side[1:])]
        if warm and rc == 0:
            return
        if rc or json_text is None:
            self.counts['failed'] += 1
            info('%s on %s, run %s: %s; its output:\n%s' % (
                c.name, self.kernel, idx, 'exit %d' % rc if rc else 'no JSON',
                '\n'.join('  ' + x for x in output[-30:])))
            self.db.failed(self.kernel, self.arch, c.name, -1 if warm else int(idx), rc,
                           '\n'.join(output))
            return
        obj = json.loads(json_text)
        release = obj.get('kernel', {}).get('release', '')
        if self.db.store(self.kernel, self.arch, c.name, int(idx), self.boot, release,
                         json_text, run_figures(obj)):
            self.counts['stored'] += 1


def vm_boot(kernel, arch, cmds, idx, a, db, work, counts, boot):
    """Boot number @boot: @kernel running a warm-up and runs @idx of
    @cmds, each stored as it ends; vm/run's status."""
    res = Store(work, db, kernel.name, arch, cmds, boot, counts)
    env = dict(os.environ)
    env.update({k: v for k, v in runner.clock_env('icount', 1).items() if v})
    cmd = vm_cmd(kernel, arch, cmds, idx, a)
    p = subprocess.Popen(cmd, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, env=env,
                         text=True, errors='replace')
    try:
        res.feed(p.stdout)
    finally:
        rc = p.wait()
    return rc


def measure(a, cmds, kernels, db, boot=vm_boot):
    """Every boot of the plan whose runs are not all stored yet, --jobs
    at a time (in plan order; the instruction clock does not see the
    others' load)."""
    todo = trackplan.todo_boots(a, cmds, kernels, db)
    jobs = getattr(a, 'jobs', None) or 1
    info(trackplan.todo_text(a, cmds, kernels, todo, jobs))
    if jobs > 1 and boot is vm_boot:
        # Once, before boots run together: packages and kernels.
        for arch, k in dict.fromkeys((b[1], b[2]) for b in todo):
            try:
                vm.host_setup(arch, k.vm_args)
            except vm.Exit as e:
                raise Fail('setting up the host for %s on %s: %s' % (k.name, arch, e.msg),
                           e.status)
    counts = {'stored': 0, 'failed': 0, 'bootfail': 0}
    per_kernel = {}
    first = db.next_boot()
    lock = threading.Lock()

    def one(n, rnd, arch, k, idx, want):
        info('boot %d of %d: %s %s, round %d, runs %s' % (n, len(todo), arch, k.name, rnd + 1,
                                                          ','.join(map(str, idx))))
        work = os.path.join(runner.REPO, 'build', 'track', 'work-%d' % (n % jobs))
        shutil.rmtree(work, ignore_errors=True)
        t0 = time.monotonic()
        mine = {'stored': 0, 'failed': 0}
        rc = boot(k, arch, cmds, idx, a, db, work, mine, first + n - 1)
        took = time.monotonic() - t0
        shutil.rmtree(work, ignore_errors=True)
        with lock:
            per_kernel.setdefault((arch, k.name), []).append(took)
            counts['stored'] += mine['stored']
            counts['failed'] += mine['failed']
            if mine['stored'] < want:
                counts['bootfail'] += rc != 0
                info('boot %d: vm/run exited %d; %d of %d runs stored' % (
                    n, rc, mine['stored'], want))
            else:
                info('boot %d: %d runs stored in %.0f s' % (n, want, took))

    if jobs == 1:
        for n, b in enumerate(todo, 1):
            one(n, *b)
        return counts, per_kernel
    pool = concurrent.futures.ThreadPoolExecutor(max_workers=jobs)
    try:
        futures = [pool.submit(one, n, *b) for n, b in enumerate(todo, 1)]
        for f in futures:
            f.result()
    finally:
        pool.shutdown(wait=True, cancel_futures=True)
    return counts, per_kernel


# ---- main --------------------------------------------------------------------

def check(a):
    """The command line checked: commands, kernels, run counts (UsageError)."""
    archs = ['arm64' if x == 'aarch64' else x for x in a.arch.split(',')]
    for x in archs:
        if x not in ('x86_64', 'arm64'):
            raise UsageError("unknown arch '%s' (x86_64, arm64)" % x)
    if len(set(archs)) != len(archs):
        raise UsageError('an arch given twice')
    if not 50 <= a.level < 100:
        raise UsageError('--level %g: a percentage from 50 to below 100' % a.level)
    if a.per_boot < 1 or a.run_timeout < 1 or (a.jobs is not None and a.jobs < 1):
        raise UsageError('--per-boot, --run-timeout and --jobs must be positive')
    if a.report:
        cli.check_out('--report', a.report, PROG, ('track.html',))
    tracklava.check(a)
    cmds = commands(a)
    for c in cmds:
        for x in archs:
            check_test(c.test, x)
    kernels = {}
    if a.attribute:
        if len(archs) != 1:
            raise UsageError('--attribute: one --arch')
        ends = a.attribute.split('..')
        got = [k.name for k in resolve(ends if len(ends) == 2 else [a.attribute], archs[0])]
        if len(got) < 2 or any(k.startswith(('/', 'kvm:')) for k in got):
            raise UsageError('--attribute FROM..TO or all-SERIES: two Debian versions')
        a.attribute = [got[0], got[-1]]
        return archs, cmds, kernels
    if a.no_run:
        return archs, cmds, kernels
    if not a.kernels:
        raise UsageError('no kernels given (e.g. all-6.12; -h for the forms)')
    for arch in archs:
        kernels[arch] = resolve(a.kernels, arch)
    n = max(len(ks) for ks in kernels.values())
    if min(len(ks) for ks in kernels.values()) < 2:
        raise UsageError('one kernel is no stream: give two or more')
    need = runs_needed(n, cmds, a.level)
    if a.runs is None:
        a.runs = max(need, 6)
    if a.runs < need:
        raise UsageError('--runs %d cannot reach a verdict: %d neighbour comparisons x up to %d '
                         'figures at %g%% simultaneous need at least %d runs a kernel' % (
                             a.runs, (n - 1) * len(cmds), c_figs(cmds), a.level, need))
    return archs, cmds, kernels


def build_suites(archs):
    tests = {}
    for arch in archs:
        if not runner.ensure(arch, 'python3'):
            raise Fail('installing the build dependencies failed')
        info('building the suite for %s' % arch)
        try:
            tests[arch] = build.fresh_tree(arch, repo=runner.REPO)
        except build.BuildError as e:
            raise Fail(str(e))
    return tests


def check_options(cmds, tests):
    """UsageError if a command's test refuses its options or has not the
    figures it judges (the test's own checks, on this host, before any
    boot: runner.options_why, figure_why)."""
    for arch, tree in tests.items():
        for c in cmds:
            if arch != runner.host_arch():
                continue
            kvm = os.path.join(tree, 'kvm')
            why = runner.options_why(kvm, c.test, c.argv(arch))
            if why:
                raise UsageError('command %s: %s refused: %s' % (c.name, c.line(arch), why))
            why = runner.figure_why(kvm, c.test, c.argv(arch), c.figures)
            if why:
                raise UsageError('command %s: %s' % (c.name, why))


def main(argv):
    from . import trackjudge
    signal.signal(signal.SIGPIPE, signal.SIG_DFL)   # | head: no traceback
    cli.on_signals()
    try:
        a = parser().parse_args(argv)
        archs, cmds, kernels = check(a)
        if a.attribute:
            from kvmbench.attribution import attribute
            att = attribute.attribute(a.attribute[0], a.attribute[1], archs[0])
            c = cmds[0]
            print(attribute.text(att, archs[0], c.figures[0], c.line(archs[0])), end='')
            return 0
        if not a.no_run:
            # Before the database is written: it is ours, the tests
            # take their options (the suite built on the way).
            if a.db == DEFAULT_DB:       # ours: its folder made on a fresh clone
                os.makedirs(os.path.dirname(DEFAULT_DB), exist_ok=True)
            trackdb.DB(a.db).check()
            a.tests = build_suites(archs)
            check_options(cmds, a.tests)
        if a.dry_run:
            for b in trackplan.plan(kernels, archs, a.runs, a.per_boot):
                print('round %d: %s %s runs %s: %s' % (b[0] + 1, b[1], b[2].name,
                                                       ','.join(map(str, b[3])),
                                                       '; '.join(c.line(b[1]) for c in cmds)))
            return 0
        # The Python modules the database and the report need: this
        # command's own step (nothing installs at import).
        if trackdb.is_url(a.db) and runner.install_module(
                'psycopg2', 'python3-psycopg2', 'for the PostgreSQL database') is None:
            raise Fail('installing python3-psycopg2 failed')
        runner.install_module('matplotlib', 'python3-matplotlib', "for the report's plots")
        api = tracklava.connect(a) if a.lava else None
        db = trackdb.DB(a.db).open(write=not a.no_run)
        if not a.no_run:
            try:
                for arch in archs:
                    for c in cmds:
                        db.command_line(arch, c.name, c.line(arch))
            except UsageError:
                db.close()
                raise
    except UsageError as e:
        print('%s: %s' % (PROG, e), file=sys.stderr)
        return 2
    except Fail as e:
        info(str(e))
        return e.status
    except KeyboardInterrupt as e:      # in the build: nothing measured, nothing stored
        return cli.interrupted(PROG, e, 'nothing stored: it was before any boot')
    rc = stored = 0
    try:
        if not a.no_run:
            t0 = time.monotonic()
            if api:
                counts, per_kernel = tracklava.measure(a, cmds, kernels, db, api)
            else:
                counts, per_kernel = measure(a, cmds, kernels, db)
            what = 'LAVA jobs' if api else 'boots'
            info('measured in %.0f s: %d runs stored, %d failed, %d %s failed' % (
                time.monotonic() - t0, counts['stored'], counts['failed'],
                counts['bootfail'], what))
            for (arch, k), ts in per_kernel.items():
                info('time on %s %s: %.0f s in %d %s' % (arch, k, sum(ts), len(ts), what))
            rc = 1 if counts['failed'] or counts['bootfail'] else 0
            stored = counts['stored']
        order = {arch: [k.name for k in ks] for arch, ks in kernels.items()} or None
        judged = trackjudge.judge(db, cmds, a.level, order)
        trackjudge.attribute_changes(judged, info)
        # A re-run that measured nothing shows no changelog entries again.
        print(trackjudge.text(judged, changelog=a.no_run or bool(stored), report=a.report),
              end='')
        if a.report:
            from . import trackreport
            for f in trackreport.write(judged, a.report):
                print('report: %s' % f)
        if judged['unjudged']:
            rc = 1
    except Fail as e:
        info(str(e))
        return e.status
    except lava.LavaError as e:
        info('%s; the jobs submitted are taken up by the same command' % e)
        return 1
    except KeyboardInterrupt as e:
        return cli.interrupted(PROG, e, 'every run that ended is stored; the same command '
                               'continues%s' % (' (and takes up the jobs still in the lab)'
                                                if a.lava else ''))
    finally:
        db.close()
    return rc


if __name__ == '__main__':
    sys.exit(main(sys.argv[1:]))
