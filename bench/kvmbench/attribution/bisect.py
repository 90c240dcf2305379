# SPDX-License-Identifier: GPL-2.0-only
"""kvmbench.attribution.bisect: bench/bisect-run, a performance verdict `git bisect
run` understands.

One kernel (judge_one): build the suite, boot the candidate kernel in
the VM (kvmbench.vmrun.runner.VM), its runs filed by kvmbench.verdicts.results, judged
against the baseline by kvmbench.verdicts.stats_cli's judge.  --packages: a
scratch git repository a kernel a commit, `git bisect run` calling
bench/bisect-run --kernel-file for each step.  Every outcome is mapped
to 0 (good), 1 (bad) or 125 (cannot test); 128 (USAGE) is a bad command
line, which stops git bisect run.
"""
import os
import re
import shutil
import subprocess
import sys
import tempfile

from kvmbench.base.errors import Fail, say
from kvmbench.verdicts import stats_cli
from kvmbench.verdicts.results import (Results, baseline_samples, baseline_values, load_side,
                                       side_files)
from kvmbench.verdicts.stats import runs_refusal
from kvmbench.kernels import build as _build, debian
from kvmbench.vmrun import cli, runner
from kvmbench.vmrun.cli import Usage, check_kernels, check_test, test_command, vm_size
from . import kvm_bisect

PROG = 'bench/bisect-run'
HELP = r"""
bench/bisect-run: a performance verdict that `git bisect run` understands.

usage: bench/bisect-run (--kernel IMAGE [--modules DIR] [--build 'CMD'] |
                         --debian-kernel VERSION | --packages V1,V2,...)
                        --baseline JSON|DIR|VERSION --figure NAME --threshold PCT
                        [--runs K] [--arch ARCH] [--cpu amd|intel] [--smp N] [--mem SIZE]
                        [--clock icount|tcg] [--out DIR] -- TEST ARGS...
       bench/bisect-run --kvm-modules [--debian-kernel V] --baseline B --figure NAME
                        --threshold PCT [options] -- TEST ARGS...
       bench/bisect-run --series DIR [--kvm-src TREE] [--debian-kernel V] [--baseline B] --figure NAME
                        --threshold PCT [options] -- TEST ARGS...

  --kernel IMAGE     the kernel to judge (from a kernel tree: arch/x86/boot/bzImage,
                     arch/arm64/boot/Image), with --modules DIR if KVM is modular
  --build 'CMD'      build it first with the maintainer's command (run in the
                     current directory, e.g. 'make -j8 bzImage modules')
  --debian-kernel V  judge Debian's kernel package V instead
  --packages LIST    bisect an ordered list of Debian kernel versions (or
                     images), first good to last bad, with `git bisect run`
                     in a scratch repository: prints the first bad one;
                     SERIES-oldest, SERIES-newest, SERIES-all (6.12-all:
                     every 6.12 apt has, in order) name what the archive has
  --baseline B       what "good" is: a bench/compare JSON (its A runs;
                     FILE:b for its B runs), a directory of the test's JSON
                     files, or a Debian kernel version run beside it, boots
                     alternating
  --figure NAME      the figure to judge (a name from the test's --json
                     figures, e.g. rate, time_ns, vcpu.exits/page)
  --threshold PCT    bad if NAME is worse beyond the noise and by more than PCT%
  --runs K           measured runs (default 6; one warm-up run a boot dropped)
  --arch, --cpu, --smp, --mem   the VM (vm/run; default: host arch, its
                     default CPU (amd: QEMU TCG with SVM; intel: Bochs, kvm_intel),
                     1 with --clock icount else 2, 2G)
  --clock C          the VM's clock, as bench/compare's: icount (default:
                     counts instructions, steady; one vCPU) or tcg (the
                     host's clock; the default with --smp N > 1); judge
                     against a baseline measured on the same clock
  --out DIR          keep the runs there (default: a temporary directory):
                     new, empty or one bench/bisect-run made
{kvm_bisect}
Exit status, as git bisect run reads it: 0 good, 1 bad, 125 cannot test
(the build or boot failed, no /dev/kvm in the guest, the test skipped or
failed in too many runs, the figure missing); 128 for a bad command line
(a test, figure, kernel, baseline or option it does not know), said in
one line before any kernel is built or booted (the suite is built to ask
the test about its options and figures): git bisect run stops at 128 or
more, so a typo neither marks every commit bad (1) nor skips them all
(125).  Interrupted (SIGINT, SIGTERM, SIGHUP: its VMs and builds stopped,
one line): 128 + the signal, which stops git bisect run too.  Never 128
or more otherwise, whatever the test does.  --packages and --series exit
0 when they found the first bad package or patch (or found none), 125 if
they could not decide; --series exits 128 for a series that does not
apply.

In a kernel tree:
  git bisect start BAD GOOD
  git bisect run ~/kvm-selftests/bench/bisect-run --build 'make -j8 bzImage' \
      --kernel arch/x86/boot/bzImage --baseline 6.1 --figure rate --threshold 10 \
      -- demand_paging_test -u MISSING -b 64M
"""
HELP = HELP.replace('{kvm_bisect}', kvm_bisect.HELP)
RUN_TIMEOUT = 600
USAGE = 128     # a bad command line: git bisect run aborts at 128 or more


class CannotTest(Exception):
    """The kernel cannot be tested: exit 125 (the reason said)."""


def info(msg):
    say(PROG, msg)


class Parser(cli.Parser):
    """bisect-run's options: a usage error exits USAGE (one line), which
    stops git bisect run."""
    status = USAGE


VALUED = ('--kernel', '--modules', '--build', '--debian-kernel', '--packages', '--baseline',
          '--figure', '--arch', '--cpu', '--out', '--clock', '--series', '--patch-list',
          '--kvm-src')


def parser():
    """bisect-run's options (HELP says them; -h prints HELP)."""
    p = Parser(prog=PROG, add_help=False, command=True)
    for o in VALUED:
        p.add_argument(o, default='', dest='debian' if o == '--debian-kernel' else None)
    p.add_argument('--kernel-file', default='')      # a step: the kernel named in FILE
    p.add_argument('--threshold', type=cli.number(
        float, "--threshold must be a percentage, e.g. 10: '{0}'", least=0))
    p.add_argument('--runs', type=cli.number(int, "--runs must be at least 2: '{0}'", least=2),
                   default=6)
    p.add_argument('--smp', type=cli.positive("bad --smp '{0}'"))
    p.add_argument('--mem', type=cli.size("bad --mem '{0}'"), default='2G')
    p.add_argument('--kvm-modules', action='store_true')
    return p


def parse(argv):
    """A Config (parser()'s, checked); None for --help; Usage (status
    USAGE, 125 in a step of a bisection) on errors."""
    c = parser().parse_options(argv)
    if c is None:
        return None
    # A step of a bisection that bisect-run runs itself (--kernel-file,
    # --patch-list): its command line was checked before, so bad input
    # there is "cannot test" (125).
    c.step = bool(c.kernel_file or c.patch_list)
    try:
        return check(c)
    except Usage as e:
        e.status = 125 if c.step else USAGE
        raise


def check(c):
    """The command line @c (parser()'s) checked: a Config."""
    c.arch = c.arch or runner.host_arch()
    c.kvm_kernel = ''
    if c.kernel_file:       # a bisection step: the kernel named in FILE
        try:
            with open(c.kernel_file) as f:
                c.debian = f.readline().rstrip('\n')
        except OSError:
            raise Usage("cannot read '%s'" % c.kernel_file)
    c.test, c.args = test_command(c.command)
    kvm = sum(1 for v in (c.kvm_modules, c.series, c.patch_list) if v)
    if kvm:
        # KVM built from source: --debian-kernel names the kernel it is for.
        if kvm > 1 or c.kernel or c.packages:
            raise Usage('--kvm-modules and --series go alone (not with --kernel, --packages)')
        c.kvm_kernel, c.debian = c.debian or '6.12', ''
        if not debian.is_spec(c.kvm_kernel):
            raise Usage("bad --debian-kernel '%s'" % c.kvm_kernel)
    elif sum(1 for v in (c.kernel, c.debian, c.packages) if v) != 1:
        raise Usage('give one of --kernel, --debian-kernel, --packages, --kvm-modules, '
                    '--series')
    if (c.modules or c.build) and not c.kernel:
        raise Usage('--modules and --build go with --kernel')
    if c.kvm_src:
        if not (c.series or c.patch_list):
            raise Usage('--kvm-src TREE goes with --series')
        if not os.path.isdir(c.kvm_src):
            raise Usage("no kernel source tree '%s'" % c.kvm_src)
        c.kvm_src = os.path.realpath(c.kvm_src)
    if not c.baseline and not c.series:
        raise Usage('--baseline is required (a bench/compare JSON, a directory of runs or a '
                    'Debian kernel version)')
    if not c.figure:
        raise Usage('--figure is required (e.g. rate, time_ns)')
    if c.threshold is None:
        raise Usage("--threshold must be a percentage, e.g. 10: ''")
    vm_checks(c)
    side = c.baseline[-2:] if re.search(':[ab]$', c.baseline) else ''
    if not c.baseline:
        c.base_kind = 'json'        # --series measures it first
    elif os.path.isdir(c.baseline) or os.path.isfile(c.baseline[:len(c.baseline) - len(side)]):
        c.base_kind = 'json'
        # Absolute: the steps of --packages run in a scratch repository.
        if os.path.isdir(c.baseline):
            side = ''
        c.baseline = os.path.realpath(c.baseline[:len(c.baseline) - len(side)]) + side
    elif debian.is_spec(c.baseline):
        c.base_kind = 'kernel'
    else:
        raise Usage("baseline '%s' is neither a file, a directory nor a Debian kernel version"
                    % c.baseline)
    c.pkgs = c.packages.split(',') if c.packages else []
    if any(p.endswith(tuple('-' + w for w in debian.WORDS)) for p in c.pkgs):
        have = debian.kernel_versions(c.arch)
        c.pkgs = [v for p in c.pkgs for v in debian.pick_versions(p, have)]
        info('--packages %s: %s' % (c.packages, ','.join(c.pkgs)))
    if c.packages and len(c.pkgs) < 2:
        raise Usage('--packages needs at least two kernels: first good, last bad')
    check_kernels(c.pkgs + [k for k in (c.debian, c.baseline if c.base_kind == 'kernel'
                                        else '') if k], c.arch)
    if c.base_kind == 'json' and c.baseline:
        check_baseline(c.baseline, c.figure)
    why = runs_refusal(*judged_runs(c))
    if why:
        raise Usage(why)
    if c.out:
        cli.check_out('--out', c.out, PROG)
    return c


def vm_checks(c):
    """The VM's options on @c checked and completed (Usage): the clock
    (c.clock_arg as given, c.clock picked), c.smp (1 under icount, else
    2, unless given), c.env, c.arch (vm_size: the memory checked), the
    CPU, the test (one of the suite's for the arch)."""
    try:
        c.clock_arg, c.clock = c.clock, runner.clock_pick(c.clock, c.cpu, c.smp)
        c.smp = c.smp or (1 if c.clock == 'icount' else 2)
        c.env = runner.clock_env(c.clock, c.smp)
    except ValueError as e:
        raise Usage(str(e))
    c.arch = vm_size(c.arch, c.mem)
    check_test(c.test, c.arch)
    why = runner.check_cpu(c.cpu, c.arch)
    if why:
        raise Usage(why)


def measure_side(c, desc, out, side, n, profile=False):
    """One boot of the build @desc (kvm_build.build_side's), the suite
    built for it: a warm-up and @n runs of c.test as @side, in @out.
    Returns (the runs' JSON files, {figure: values}, {figure: unit});
    CannotTest when it does not boot or the suite cannot be built."""
    b = Bisect(c, out)
    b.suite(desc)
    b.results = Results(out, PROG)
    b.results.total = n + 1
    b.boot_runs(side, desc['vm_args'], n, 0, profile)
    files = side_files(b.results.path(side))
    figs, units = load_side(files)
    return files, figs, units


def check_baseline(path, figure):
    """Usage unless the --baseline file or directory @path holds @figure."""
    try:
        have = baseline_samples(path)
    except (OSError, UnicodeDecodeError) as e:
        raise Usage("--baseline %s: cannot read it (%s)" % (path, e.strerror or e))
    except (ValueError, KeyError, TypeError, AttributeError):
        raise Usage("--baseline %s: not a bench/compare JSON nor a directory of the test's "
                    "JSON files" % path)
    if not have.get(figure, (None,))[0]:
        raise Usage("no figure '%s' in --baseline %s%s" % (
            figure, path, '; it has: ' + ' '.join(sorted(have)) if have else
            ' (no figures at all)'))


def judged_runs(c):
    """(the candidate's runs, None, 1, the baseline's runs or None when
    as many): what stats.py judge compares, known before any boot."""
    if c.base_kind == 'kernel':         # boots A B B A, half the runs each
        return 2 * ((c.runs + 1) // 2), None, 1, None
    other = None
    if c.baseline:
        try:
            vals, _ = baseline_values(c.baseline, c.figure)
            other = len(vals) if vals else None
        except (OSError, ValueError, KeyError, TypeError):
            other = None                # said when judged
    return c.runs, None, 1, other


def vm_rc_cannot(rc):
    """Say why, and True, if vm/run's status @rc means the kernel could
    not be tested."""
    why = {3: 'the kernel did not boot', 5: 'no /dev/kvm in the guest',
           6: 'host set-up failed', 124: 'the VM timed out'}.get(rc)
    if why:
        info('%s (vm/run exit %d)' % (why, rc))
    return bool(why)


class Bisect:
    def __init__(self, c, out):
        self.c, self.out = c, out

    def boot_runs(self, side, spec, n, first, profile=False):
        """One boot of @spec running a warm-up and @n runs of @side (with
        the test's --profile if @profile)."""
        c = self.c
        runs = [runner.Run(side, 'w%d' % first, True, c.args)]
        runs += [runner.Run(side, '%02d' % (first + i), False, c.args) for i in range(n)]
        if isinstance(spec, str):
            spec, vm_args = spec, runner.kernel_args(spec)
        else:
            spec, vm_args = ' '.join(spec), spec
        info('booting %s for %s (%d runs and a warm-up)' % (spec, side.upper(), n))
        vmrun = ['--arch', c.arch] + (['--cpu', c.cpu] if c.cpu else []) + [
            '--smp', str(c.smp), '--mem', c.mem]
        vm = runner.VM(c.test, vmrun, c.env, {'a': '/tests/kvm', 'b': '/tests/kvm'},
                       RUN_TIMEOUT, profile)
        rc = vm.run(runs, self.results, self.dir, RUN_TIMEOUT * (n + 2), vm_args)
        if vm_rc_cannot(rc):
            raise CannotTest()

    def suite(self, kvm=None):
        """Build the suite (against a whole kernel's uapi headers if @kvm,
        the kernel's description, is one): its install tree in self.dir;
        CannotTest."""
        c = self.c
        if not runner.ensure(c.arch, 'python3'):
            raise CannotTest()
        if kvm and kvm.get('whole'):
            try:
                self.dir = _build.uapi_tree(c.arch, kvm['uapi'])
            except _build.BuildError as e:
                info('%s: cannot test' % e)
                raise CannotTest()
        else:
            d = os.path.join(runner.REPO, 'build', runner.arch_dir(c.arch))
            if not runner.build(runner.REPO, c.arch, d):
                info('building the suite failed')
                raise CannotTest()
            self.dir = os.path.join(d, 'kselftest_install')
        if not os.access(os.path.join(self.dir, 'kvm', c.test), os.X_OK):
            info("no test '%s' in the suite" % c.test)
            raise CannotTest()

    def test_checks(self):
        """The test's own checks of its options and --figure, on this host
        before any kernel build or boot (the suite built for them; Usage).
        None where the suite does not build or is for another arch: each
        step finds that out again (cannot test)."""
        c = self.c
        d = os.path.join(runner.REPO, 'build', runner.arch_dir(c.arch))
        if c.arch != runner.host_arch() or not runner.ensure(c.arch, 'python3') or \
                not runner.build(runner.REPO, c.arch, d):
            return
        kvm = os.path.join(d, 'kselftest_install', 'kvm')
        why = runner.options_why(kvm, c.test, c.args)
        if why:
            raise Usage('%s %s refused: %s' % (c.test, ' '.join(c.args), why))
        why = runner.figure_why(kvm, c.test, c.args, [c.figure])
        if why:
            raise Usage('--figure %s: %s' % (c.figure, why))

    def judge_one(self, cand):
        """0 good, 1 bad; CannotTest."""
        c = self.c
        kvm = None
        if c.kvm_modules or c.patch_list:
            try:
                kvm = kvm_bisect.candidate(c, os.path.join(self.out, 'kvm'), info)
            except Fail:
                info('building KVM failed: cannot test')
                raise CannotTest()
            cand = kvm['vm_args']
        if c.build:
            info('building: ' + c.build)
            if subprocess.run(['bash', '-c', c.build], stdout=sys.stderr).returncode:
                info('build failed: cannot test')
                raise CannotTest()
        if c.kernel:
            if not os.path.isfile(c.kernel):
                info("no kernel image '%s': cannot test" % c.kernel)
                raise CannotTest()
            if c.modules and not os.path.isdir(c.modules):
                info("no modules dir '%s': cannot test" % c.modules)
                raise CannotTest()
        self.suite(kvm)
        self.results = Results(self.out, PROG)
        if c.base_kind == 'kernel':
            # Boots alternate: baseline, candidate, candidate, baseline.
            half = (c.runs + 1) // 2
            self.results.total = 4 * (half + 1)
            for i, side in enumerate('abba'):
                self.boot_runs(side, c.baseline if side == 'a' else cand, half, i * half)
            base = self.results.path('a')
        else:
            self.results.total = c.runs + 1
            self.boot_runs('b', cand, c.runs, 0)
            base = c.baseline
        if self.results.count('skip'):
            info('the test skipped: cannot test')
            raise CannotTest()
        if len(self.results.kept('b')) < 2:
            info('fewer than 2 runs passed: cannot test')
            raise CannotTest()
        sys.stdout.flush()
        rc = stats_cli.main(['judge', self.results.path('b'), '--baseline', base,
                             '--figure', c.figure, '--threshold', str(c.threshold)])
        sys.stdout.flush()
        if rc in (0, 1):
            return rc
        info("cannot judge figure '%s'" % c.figure)
        raise CannotTest()

    def step_args(self):
        """The options each step of a scratch bisection shares."""
        c = self.c
        return ['--out', os.path.join(self.out, 'step'), '--baseline', c.baseline,
                '--figure', c.figure, '--threshold', str(c.threshold), '--runs', str(c.runs),
                '--arch', c.arch] + (['--cpu', c.cpu] if c.cpu else []) + [
                '--smp', str(c.smp), '--mem', c.mem] + (
                    ['--clock', c.clock_arg] if c.clock_arg else []) + (
                    ['--debian-kernel', c.kvm_kernel] if c.kvm_kernel else []) + (
                    ['--kvm-src', c.kvm_src] if c.kvm_src else []) + [
                '--', c.test] + c.args

    def packages(self):
        """git bisect run over a scratch repository, a kernel a commit."""
        c = self.c
        # Each step's kernel is the commit's file "kernel" (a Debian
        # version or an image path).
        found = self.bisect_list([(p, p + '\n') for p in c.pkgs], 'kernel', '--kernel-file',
                                 'kernel')
        if isinstance(found, int):
            return found
        print('BISECT first bad: %s (after %s)' % found)
        return 0

    def series(self):
        """--series: git bisect run over a scratch repository whose commit
        N lists the first N patches; commit 0, the unpatched source, is
        the baseline (measured here unless --baseline)."""
        c = self.c
        files = kvm_bisect.series_patches(c.series)
        subjects = kvm_bisect.check_series(c.kvm_kernel, c.arch, files, c.kvm_src or None)
        if not c.baseline:
            info('the baseline: KVM from the unpatched source, %d runs' % c.runs)
            try:
                kvm = kvm_bisect.stock(c, os.path.join(self.out, 'kvm-base'))
                args = kvm['vm_args']
                self.suite(kvm)
            except (Fail, CannotTest):
                print('BISECT undecided: the unpatched source cannot be tested')
                return 125
            self.results = Results(os.path.join(self.out, 'baseline'), PROG)
            self.results.total = c.runs + 1
            try:
                self.boot_runs('a', args, c.runs, 0)
            except CannotTest:
                print('BISECT undecided: the unpatched source cannot be tested')
                return 125
            c.baseline = self.results.path('a')
        found = self.bisect_list(kvm_bisect.series_items(files, subjects), 'patches',
                                 '--patch-list', 'patch set')
        if isinstance(found, int):
            return found
        print('BISECT first bad: %s' % found[0])
        print('BISECT patch: %s' % files[subjects.index(found[0])])
        return 0

    def bisect_list(self, items, name, opt, what):
        """git bisect run over a scratch repository, a commit an item
        (message, contents of its file @name), the first good, the last
        to be checked bad first; each step is this program with @opt
        naming that file.  (first bad, the one before) or an exit status."""
        out = self.out
        repo = os.path.join(out, 'bisect-repo')
        me = os.path.join(runner.REPO, 'bench', 'bisect-run')
        step = self.step_args()
        shutil.rmtree(repo, ignore_errors=True)
        os.makedirs(repo)

        def git(*args, **kw):
            return subprocess.run(['git', '-C', repo] + list(args), **kw)
        git('init', '-q')
        for i, (msg, text) in enumerate(items):
            with open(os.path.join(repo, name), 'w') as f:
                f.write(text)
            git('add', name)
            git('-c', 'user.name=bisect', '-c', 'user.email=bisect@localhost', 'commit', '-q',
                '--allow-empty', '-m', '%d: %s' % (i, msg))
        # Check the ends first: the last must be bad for a bisection.
        last = items[-1][0]
        info('checking the last %s, %s' % (what, last))
        with open(os.path.join(out, 'last-' + name), 'w') as f:
            f.write(items[-1][1])
        sys.stdout.flush()
        rc = subprocess.run([me, opt, os.path.join(out, 'last-' + name)] + step).returncode
        if rc == 0:
            print('BISECT no regression: %s (the last) is good' % last)
            return 0
        if rc == 125:
            print('BISECT undecided: %s (the last) cannot be tested' % last)
            return 125
        first = git('rev-list', '--max-parents=0', 'HEAD', stdout=subprocess.PIPE,
                    text=True).stdout.strip()
        log_path = os.path.join(out, 'bisect.log')
        with open(log_path, 'w') as log:
            rc = git('bisect', 'start', 'HEAD', first, stdout=subprocess.DEVNULL,
                     stderr=log).returncode
            rc = 125 if rc else git('bisect', 'run', me, opt, name, *step,
                                    cwd=repo, stdout=log, stderr=subprocess.STDOUT).returncode
        with open(log_path, errors='replace') as f:
            text = f.read()
        sys.stderr.write(text if text.endswith('\n') or not text else text + '\n')
        sys.stderr.flush()
        if re.search('^[0-9a-f]* is the first bad commit', text, re.M):
            def subject(rev):
                s = git('show', '-s', '--format=%s', rev, stdout=subprocess.PIPE,
                        text=True).stdout.strip()
                return s.split(' ', 1)[1] if ' ' in s else s
            return subject('refs/bisect/bad'), subject('refs/bisect/bad~1')
        print('BISECT undecided (git bisect run exited %d; skipped ones: see above)' % rc)
        return 125


def run(c):
    """bisect-run on the checked command line @c: its exit status."""
    tmp = None
    try:
        if not c.out:
            tmp = c.out = tempfile.mkdtemp(prefix='bisect-run.',
                                           dir=os.environ.get('TMPDIR') or '/tmp')
        cli.make_out(c.out, PROG)
        b = Bisect(c, os.path.abspath(c.out))
        if not c.step:          # not again in each step of a bisection
            b.test_checks()
        if c.packages:
            return b.packages()
        if c.series:
            return b.series()
        for d in ('a', 'b', 'warmup', 'logs', 'status'):
            p = os.path.join(b.out, d)
            if os.path.isdir(p):
                shutil.rmtree(p)
            elif os.path.exists(p):
                os.remove(p)
        cand = c.kernel + (':' + c.modules if c.modules else '') + c.debian
        try:
            rc = b.judge_one(cand)
        except CannotTest:
            rc = 125
        print({0: 'BISECT good', 1: 'BISECT bad'}.get(rc, 'BISECT cannot test (exit %d)' % rc))
        return rc
    except Fail as e:
        # Usage found after parse() (still before any boot), or a series
        # that does not apply (never in a step): as parse()'s; any other
        # failure: cannot test.
        e.status = (125 if c.step else USAGE) if e.status == 2 else 125
        raise
    except Exception as e:     # never "bad" (1) for an unexpected error
        info('error: %s' % e)
        return 125
    finally:
        if tmp:
            shutil.rmtree(tmp, ignore_errors=True)


def main(argv):
    # A usage error stops git bisect run (USAGE), and so does an
    # interrupt (128 + the signal).
    return cli.program(PROG, argv, parse, run, HELP, 'git bisect run stops on it')


if __name__ == '__main__':
    sys.exit(main(sys.argv[1:]))
