# SPDX-License-Identifier: GPL-2.0-only
"""kvmbench.measure.compare: bench/compare, is B different from A?

The options are checked as given (a usage error is one line, exit 2),
then: build the suite (or each side's tree), decide where the runs go (a
backend of kvmbench.vmrun.runner), run pairs of runs A B B A ... in batches,
one batch a look of --until (within --budget), each batch filed by
kvmbench.verdicts.results, and judge with kvmbench.verdicts.stats (rendered by
kvmbench.verdicts.render).  A new kind of setup (its two sides) is a mode in
parse() and describe(); a new place to run is a backend and a branch in
Compare.run_batch().
"""
import datetime
import os
import re
import shutil
import sys

from kvmbench.base.errors import Fail, say
from kvmbench.verdicts import stats_cli
from kvmbench.verdicts.results import Results, elapsed
from kvmbench.verdicts.stats import look_schedule, runs_refusal
from kvmbench.kernels import debian
from kvmbench.vmrun import cli, runner
from kvmbench.vmrun.cli import Parser, Usage, check_kernels, check_test, test_command, vm_size
from kvmbench.kbuild import kvm_config
from . import kvm_sides

PROG = 'bench/compare'
HELP = """
bench/compare: is B different from A?  Runs one perf test command on two
setups, interleaved, K times each, and judges every figure it writes
(--json): B worse, B better, or no difference beyond the noise.

usage: bench/compare --kernels A,B [options] -- TEST ARGS...
       bench/compare --builds DIR_A,DIR_B [options] -- TEST ARGS...
       bench/compare --options 'OPTS_A' 'OPTS_B' [options] -- TEST ARGS...
       bench/compare --patch FILE[,FILE...] [--debian-kernel V] [options] -- TEST ARGS...
       bench/compare --kvm-src TREE_A,TREE_B [--debian-kernel V] [--config small|debian[:V]|FILE]
                     [options] -- TEST ARGS...
       bench/compare --lava URL|local (--options A B | --kernels A,B | --builds A,B)
                     [--per-job N] [options] -- TEST ARGS...
       bench/compare --lava URL|local --jobs A_IDS B_IDS [--level L] [--out DIR]

  --lava URL        A's and B's runs as LAVA jobs on that lab (local: lava/lab's),
                    interleaved over its devices, a boot a job (a warm-up and
                    --per-job runs, default 2); figures from LAVA's results;
                    each job named (job 42); with --jobs A_IDS B_IDS (comma-
                    separated) judges jobs already run (docs/lava.md)
  --kernels A,B     two kernels, each a Debian kernel version (6.1, 6.12,
                    6.12.115+deb12: vm/run --debian-kernel) or an image
                    path, IMAGE or IMAGE:MODULES_DIR; VM boots alternate
  --builds A,B      two trees of this suite (built here, statically), or
                    two kselftest install trees: e.g. patched, unpatched
  --options A B     two option sets, each added to ARGS
{kvm_sides}  --runs K          measured runs of each setup (default 10)
  --arch ARCH       x86_64 or arm64 (default: this host's)
  --cpu amd|intel   x86_64: the VM's CPU (vm/run --cpu): amd, QEMU TCG with
                    SVM; intel, Bochs with VMX (kvm_intel); implies the VM
  --smp N, --mem SIZE, --hugepages N   the VM's size (vm/run; default 1 with
                    --clock icount, else 2; 2G, 0)
  --clock C         the VM's clock: icount (default: counts instructions,
                    steady; one vCPU) or tcg (the host's clock; the
                    default with --smp N > 1)
  --per-boot N      --kernels: measured runs per boot (default 2)
  --where W         auto (default), host or vm: where the runs happen
  --no-warmup       keep the first run of a boot (default: dropped)
  --figures LIST    comma-separated figures to plot (default: up to four
                    timings, those that moved first)
  --out DIR         results (default build/compare/<date>): A and B runs'
                    JSON, logs, compare.json, plot.png; new or empty
  --run-timeout S   kill a run after S seconds (default 600), count it failed
  --level PCT       simultaneous confidence of the intervals (default 95)
  --until PCT       add interleaved runs until every timing's interval is
                    within +-PCT of its estimate: looks at --runs (default
                    8 here), then 1.5 times more each look up to --max-runs
                    (default 40); each look's intervals at 1/L of the error
                    rate for L looks, so whichever look it stops at, all
                    hold together at --level (docs/statistics.md)
  --budget MIN      with --until: no look starts that would end after MIN
                    minutes of runs (estimated from the looks so far)
  --profile         run the test with --profile (kernel CPU-clock samples
                    while timed) and print beside the verdicts the kernel
                    functions whose share of the samples changed most
  --profile-phase P  --profile, compared in the test's phase P only
                    (dirty_log_perf_test: populate, enable, dirty, get,
                    clear, disable)

Where: on this host's /dev/kvm when it runs our guests (probed), the arch
is the host's and no kernel is asked for; in the VM (vm/run) otherwise.
Order: A B B A A B ... (each pair swaps, so drift and order effects hit
both sides alike); --options and --builds alternate inside one boot (or
on the host), --kernels alternate VM boots.  One warm-up run of each
setup starts each boot (on the host: the whole comparison) and is
dropped.  Progress, and every failed or hung run with its output, on
stderr; a failed run is counted and left out.

Prints a table (median, mean, sd, [min-max], spread of each side; B/A and
its interval; the verdict: B worse/better by X% [lo, hi], or "no change
larger than X% in either direction at 95%") and for scripts one line a
figure:
  VERDICT figure=NAME unit=U a=MEDIAN b=MEDIAN ratio=R lo=L hi=H rules_out=PCT verdict=worse|better|same
Statistics: bench/stats.py (docs/statistics.md): exact intervals, so
with too few runs for the level over the figures that vary (6 a side
for 11 figures at 95%) there is no verdict.  Exit status: 0 compared,
every run passed; 1 compared but some runs failed, or too few runs for
a verdict; 2 usage; 4 the test skipped (its reason shown); 128 + the
signal when interrupted (130 SIGINT, 143 SIGTERM, 129 SIGHUP: its VMs
stopped, one line says so).
"""
HELP = HELP.replace('{kvm_sides}', kvm_sides.HELP)


def info(msg):
    say(PROG, msg)


class Config:
    """The command line, checked (see HELP)."""
    mode = ''
    spec_a = spec_b = src_tree = ''
    lava = False

    def __init__(self):
        self.test, self.args = '', []
        self.opts = {'a': [], 'b': []}
        self.env = {}


def positive(opt):
    return cli.positive("%s must be a positive number: '{0}'" % opt)


VALUED = {'--arch': {}, '--cpu': {'default': ''},
          '--mem': {'type': cli.size("bad --mem '{0}'"), 'default': '2G'},
          '--hugepages': {'type': cli.number(int, "bad --hugepages '{0}'", least=0),
                          'default': 0},
          '--where': {'default': 'auto'}, '--figures': {'default': ''},
          '--out': {'default': ''}, '--clock': {'default': ''},
          '--level': {'type': cli.number(float, "bad --level '{0}' (a percentage below 100)",
                                         above=0, below=100), 'default': 95.0},
          '--until': {'type': cli.number(float, "bad --until '{0}' (a percentage)", above=0)},
          '--budget': {'type': cli.number(float, "bad --budget '{0}' (minutes)", least=0),
                       'default': 0.0},
          '--profile-phase': {'dest': 'phase'},
          '--debian-kernel': {'default': ''}, '--table': {'default': ''},
          '--config': {'action': 'append', 'default': []},
          '--runs': {'type': positive('--runs')}, '--smp': {'type': positive('--smp')},
          '--per-boot': {'type': positive('--per-boot'), 'default': 2},
          '--run-timeout': {'type': positive('--run-timeout'), 'default': 600},
          '--max-runs': {'type': positive('--max-runs'), 'default': 40}}
# --lava's own (kvmbench.measure.lavacompare checks them): not without --lava.
LAVA = ('--token', '--per-job', '--artifacts', '--timeout')
MODES = ('--kernels', '--builds', '--options', '--patch', '--kvm-src')


def parser():
    """compare's options (HELP says them; -h prints HELP)."""
    p = Parser(prog=PROG, add_help=False)
    for o, kw in VALUED.items():
        p.add_argument(o, **kw)
    for o in MODES:
        p.add_argument(o, action='append', nargs=2 if o == '--options' else None)
    p.add_argument('--lava')
    for o in LAVA:
        p.add_argument(o)
    p.add_argument('--jobs', nargs=2)
    p.add_argument('--no-warmup', action='store_true')
    p.add_argument('--profile', action='store_true')
    return p


def parse(argv):
    """A Config from the command line; None for --help; Usage on errors.
    With --lava, one whose .lava is set: kvmbench.measure.lavacompare reads the
    command line (.argv)."""
    c = Config()
    c.argv = list(argv)

    def set_mode(m):
        if c.mode:
            raise Usage('give one of --kernels, --builds, --options, --patch, --kvm-src')
        c.mode = m

    def two(opt, v):
        a, sep, b = v.partition(',')
        if not sep or ',' in b or not a or not b:
            raise Usage("%s takes two values, A,B: '%s'" % (opt, v))
        c.spec_a, c.spec_b = a, b

    got = parser().parse_command(argv)
    if got is None:
        return None
    ns, rest = got
    if ns.lava is not None:         # runs as LAVA jobs, or --jobs already run
        c.lava = True
        return c
    for o in LAVA + ('--jobs',):
        if getattr(ns, o[2:].replace('-', '_')) is not None:
            raise Usage('%s goes with --lava' % o)
    for o in VALUED:
        dest = VALUED[o].get('dest', o[2:].replace('-', '_'))
        setattr(c, dest, getattr(ns, dest))
    c.warmup = not ns.no_warmup
    c.profile = ns.profile or ns.phase is not None
    c.phase = c.phase or ''
    c.arch = c.arch or runner.host_arch()
    sides = [(o, v) for o in MODES for v in getattr(ns, o[2:].replace('-', '_')) or []]
    for o, v in sides:
        if o == '--kvm-src' and ',' not in v:
            kvm_sides.parse(c, o, v)     # one tree: --patch's base
            continue
        set_mode(o[2:])
        if o == '--options':
            c.spec_a, c.spec_b = (x.strip() for x in v)
        elif o == '--patch':
            kvm_sides.parse(c, o, v)
        else:
            two(o, v)
            if o == '--kvm-src':
                kvm_sides.parse(c, o, v)
    if c.src_tree and c.mode != 'patch':
        raise Usage('--kvm-src takes two trees, A,B (one tree goes with --patch)')
    if not c.mode:
        raise Usage("give --kernels A,B, --builds A,B, --options 'A' 'B', --patch FILE or "
                    "--kvm-src A,B")
    c.config, c.config_opts = kvm_config.split_configs(c.config)   # Usage: exit 2
    kvm_config.parse_base(c.config)
    if c.config != 'small' and not (c.mode == 'kvm-src' or c.src_tree):
        raise Usage('--config %s goes with --kvm-src (the base config of whole kernels from '
                    'trees)' % c.config)
    if c.config_opts and c.mode not in kvm_sides.MODES:
        raise Usage('--config NAME=VALUE goes with --patch or --kvm-src (KVM built here)')
    if c.debian_kernel and c.mode not in kvm_sides.MODES:
        raise Usage('--debian-kernel goes with --patch or --kvm-src (--kernels takes versions)')
    c.debian_kernel = c.debian_kernel or '6.12'
    if not debian.is_spec(c.debian_kernel):
        raise Usage("bad --debian-kernel '%s' (e.g. 6.12, 6.12.117+deb12)" % c.debian_kernel)
    c.test, c.args = test_command(rest)
    c.arch = vm_size(c.arch, c.mem)
    c.runs = c.runs or (8 if c.until else 10)
    try:
        c.clock = runner.clock_pick(c.clock, c.cpu, c.smp)
    except ValueError as e:
        raise Usage(str(e))
    c.smp = c.smp or (1 if c.clock == 'icount' else 2)
    why = runner.check_cpu(c.cpu, c.arch)
    if why:
        raise Usage(why)
    if c.cpu and c.where == 'host':
        raise Usage('--cpu %s boots VMs: not --where host' % c.cpu)
    if c.out:
        cli.check_out('--out', c.out)
    c.budget_s = int(c.budget * 60 + 0.5)
    if not c.until and c.budget_s:
        raise Usage('--budget goes with --until')
    if c.until and c.max_runs < c.runs:
        raise Usage('--max-runs %d is below --runs %d' % (c.max_runs, c.runs))
    # What a run count can decide is known before any build or boot.
    looks = look_schedule(c.runs, c.max_runs) if c.until else [c.runs]
    why = runs_refusal(looks[-1], c.level / 100, len(looks),
                       opt='--max-runs' if c.until else '--runs')
    if why:
        raise Usage(why)
    if c.where not in ('auto', 'host', 'vm'):
        raise Usage("bad --where '%s' (auto, host or vm)" % c.where)
    if boots(c) and c.where == 'host':
        raise Usage('--%s boots VMs: not --where host' % c.mode)
    if not re.fullmatch(r'[][A-Za-z0-9_.,/-]*', c.figures):
        raise Usage("bad --figures '%s'" % c.figures)
    cli.profile_phase(c.phase)
    try:
        c.env = runner.clock_env(c.clock, c.smp)
    except ValueError as e:
        raise Usage(str(e))
    if c.mode == 'kernels':
        ka, kb = check_kernels([c.spec_a, c.spec_b], c.arch)
        c.kernel = {'a': ka, 'b': kb}
    if c.mode != 'builds':          # (a tree of one's own may have tests of its own)
        check_test(c.test, c.arch)
    if c.mode == 'builds':
        for d in (c.spec_a, c.spec_b):
            if not (os.path.isfile(os.path.join(d, 'kselftest-list.txt')) or
                    os.path.isfile(os.path.join(d, 'Makefile'))):
                raise Usage("build '%s' is neither a suite tree nor a kselftest install tree"
                            % d)
    if c.mode == 'options':
        c.opts = {'a': c.spec_a.split(), 'b': c.spec_b.split()}
    return c


def boots(c):
    """Whether the sides are kernels (VM boots alternate)."""
    return c.mode == 'kernels' or c.mode in kvm_sides.MODES


def describe(c, spec):
    return {'kernels': 'kernel %s', 'builds': 'build %s', 'patch': '%s', 'kvm-src': '%s',
            'options': "options '%s'"}[c.mode] % spec


def schedule(n, first):
    """The sides of pairs first .. first+n-1: A B, B A, A B, ..."""
    return [('b', 'a') if i % 2 else ('a', 'b') for i in range(first, first + n)]


def over_budget(elapsed_s, done, want, budget_s):
    """--budget: would going from @done to @want units, at the pace of
    the @elapsed_s seconds the @done took, end after @budget_s (0: no
    budget)?"""
    return bool(budget_s and done and elapsed_s * want // done > budget_s)


class Failed(Fail):
    """Set-up failed: exit 1 (the reason said)."""

    def __init__(self):
        super().__init__('')


class Compare:
    def __init__(self, c):
        self.c = c
        self.on_host = False
        self.nboot = 0

    def units(self, n):
        """Batch units (pairs; --kernels: boot pairs) for @n runs a side."""
        c = self.c
        return -(-n // c.per_boot) if boots(c) else n

    def total_runs(self, n):
        """Runs to make for @n a side, warm-ups included (progress)."""
        c = self.c
        if boots(c):
            return 2 * self.units(n) * (c.per_boot + c.warmup)
        return 2 * n + 2 * c.warmup

    def install_tree(self, spec, side):
        """The kselftest install tree of one setup."""
        c = self.c
        d = os.path.join(runner.REPO, 'build', runner.arch_dir(c.arch))
        if c.mode == 'builds':
            if os.path.isfile(os.path.join(spec, 'kselftest-list.txt')):
                return os.path.abspath(spec)
            d = os.path.join(self.out, 'build-' + side)
        info('building %s for %s' % (spec if c.mode == 'builds' else 'the suite', c.arch))
        if not runner.build(spec or runner.REPO, c.arch, d):
            info('build failed')
            raise Failed()
        return os.path.join(d, 'kselftest_install')

    def setup(self):
        c = self.c
        if not runner.ensure(c.arch, 'python3', 'python3-matplotlib'):
            raise Failed()
        runner.debian_module('matplotlib')   # its path (own python3)
        if c.mode in kvm_sides.MODES:
            try:
                kvm_sides.build(c, self.out)
            except Fail as e:
                if e.status == 2:
                    raise Usage('')
                raise Failed()
        if c.mode == 'builds':
            self.dirs = {'a': self.install_tree(c.spec_a, 'a'),
                         'b': self.install_tree(c.spec_b, 'b')}
        elif getattr(c, 'kvm', None) and 'tests' in c.kvm['a']:
            self.dirs = {s: c.kvm[s]['tests'] for s in 'ab'}
        else:
            d = self.install_tree('', 'a')
            self.dirs = {'a': d, 'b': d}
        for s, d in self.dirs.items():
            if not os.access(os.path.join(d, 'kvm', c.test), os.X_OK):
                raise Usage("no test '%s' in %s/kvm" % (c.test, d))
            # Before any boot or run: the test's own option check, on the host.
            why = c.arch == runner.host_arch() and runner.options_why(
                os.path.join(d, 'kvm'), c.test, c.args + c.opts[s])
            if why:
                raise Usage("%s: %s %s refused: %s" % (s.upper(), c.test, ' '.join(
                    c.args + c.opts[s]), why))
            why = c.figures and c.arch == runner.host_arch() and runner.figure_why(
                os.path.join(d, 'kvm'), c.test, c.args + c.opts[s],
                [f for f in c.figures.split(',') if f not in ('', '-')])
            if why:
                raise Usage('--figures %s: %s' % (c.figures, why))
        if (not boots(c) and c.where != 'vm' and not c.cpu and
                c.arch == runner.host_arch()):
            why = runner.host_kvm_why(os.path.join(self.dirs['a'], 'kvm'))
            if not why:
                self.on_host = True
            elif c.where == 'host':
                info("this host's /dev/kvm does not run our guests (--where host): " + why)
                raise Failed()
        args = {s: c.args + c.opts[s] for s in 'ab'}
        self.side_args = args
        if self.on_host:
            self.backend = runner.Host(c.test, {s: os.path.join(self.dirs[s], 'kvm')
                                                for s in 'ab'},
                                       c.run_timeout, c.profile, os.path.join(self.out, 'tmp'))
        else:
            vmrun = ['--arch', c.arch] + (['--cpu', c.cpu] if c.cpu else []) + [
                '--smp', str(c.smp), '--mem', c.mem, '--hugepages', str(c.hugepages)]
            # A boot runs one side: its tests are /tests/kvm (--kernels,
            # whole kernels with their trees' uapi); one boot of both
            # sides has B's in /tests/kvm-b.
            two = self.dirs['b'] != self.dirs['a'] and not boots(c)
            self.backend = runner.VM(c.test, vmrun, c.env,
                                     {'a': '/tests/kvm', 'b': '/tests/kvm-b' if two
                                      else '/tests/kvm'}, c.run_timeout, c.profile)

    def run_batch(self, first, n):
        """Pairs first .. first+n-1 of the order A B B A ... (--kernels:
        boot pairs, --per-boot runs a side each); on the host and in the
        one-boot VM the warm-ups run with the first batch (each VM boot
        has its own)."""
        c = self.c
        R = runner.Run
        if boots(c):
            for pair_idx, pair in enumerate(schedule(n, first), first):
                for s in pair:
                    runs = [R(s, 'w%d' % pair_idx, True, self.side_args[s])] if c.warmup else []
                    runs += [R(s, '%02d' % (pair_idx * c.per_boot + i), False,
                               self.side_args[s]) for i in range(c.per_boot)]
                    self.nboot += 1
                    info('boot %d of %d: %s' % (self.nboot, self.boots, s.upper()))
                    before = len(self.results.status())
                    rc = self.backend.run(runs, self.results, self.dirs[s],
                                          c.run_timeout * (c.per_boot + 2), c.kernel[s])
                    lost = c.per_boot + c.warmup - len(self.results.status()) + before
                    if lost:
                        info('boot %d (%s) failed: vm/run exited %d (see above); %d runs lost'
                             % (self.nboot, s.upper(), rc, lost))
                        self.results.boot_failed(s, pair_idx, rc)
            return
        warm = c.warmup and (first == 0 or not self.on_host)
        runs = [R(s, 'w%d' % first, True, self.side_args[s]) for s in 'ab'] if warm else []
        for pair_idx, pair in enumerate(schedule(n, first), first):
            runs += [R(s, '%02d' % pair_idx, False, self.side_args[s]) for s in pair]
        if self.on_host:
            self.backend.run(runs, self.results)
            return
        vmdir = os.path.join(self.out, 'vmdir')
        os.makedirs(vmdir, exist_ok=True)
        open(os.path.join(vmdir, 'kselftest-list.txt'), 'w').close()
        shutil.copytree(os.path.join(self.dirs['a'], 'kvm'), os.path.join(vmdir, 'kvm'),
                        symlinks=True)
        if self.dirs['b'] != self.dirs['a']:
            shutil.copytree(os.path.join(self.dirs['b'], 'kvm'), os.path.join(vmdir, 'kvm-b'),
                            symlinks=True)
        self.backend.run(runs, self.results, vmdir, c.run_timeout * (2 * n + 3))
        shutil.rmtree(vmdir)

    def where(self):
        c = self.c
        if self.on_host:
            return "this host's /dev/kvm"
        return '%s VM (vm/run %s--smp %d --mem %s, clock %s)' % (
            c.arch, '--cpu %s ' % c.cpu if c.cpu else '', c.smp, c.mem, c.clock)

    def main(self):
        c = self.c
        self.out = c.out or os.path.join(runner.REPO, 'build', 'compare',
                                         datetime.datetime.now().strftime('%Y%m%d-%H%M%S'))
        os.makedirs(self.out, exist_ok=True)
        self.out = os.path.abspath(self.out)
        start = runner.now()
        try:
            self.setup()
        except Usage:
            if not os.listdir(self.out):    # ours, new: nothing left behind
                os.rmdir(self.out)
            raise
        info('A: %s, B: %s; %s %s; %d runs each%s, %s' % (
            describe(c, c.spec_a), describe(c, c.spec_b), c.test, ' '.join(c.args), c.runs,
            ' and more until +-%g%%' % c.until if c.until else '',
            "on this host's /dev/kvm" if self.on_host else 'in the %s VM' % c.arch))
        looks = look_schedule(c.runs, c.max_runs) if c.until else [c.runs]
        self.results = Results(self.out, PROG, start)
        self.results.total = self.total_runs(looks[-1])
        self.boots = 2 * self.units(looks[-1])
        done_units, look, until_text, run_start = 0, 0, '', runner.now()
        for n in looks:
            want = self.units(n)
            if over_budget(int(runner.now() - run_start), done_units, want, c.budget_s):
                until_text = 'stopped by --budget %g min before look %d (%d runs a side)' % (
                    c.budget, look + 1, n)
                break
            self.run_batch(done_units, want - done_units)
            done_units, look = want, look + 1
            if not c.until:
                break
            _, line = stats_cli.until_line(self.results.path('a'), self.results.path('b'),
                                           c.until, len(looks), c.level)
            info('look %d of %d: %s' % (look, len(looks), line))
            if ' resolved=yes ' in line:
                until_text = 'resolved to +-%g%% at look %d of %d' % (c.until, look, len(looks))
                break
            until_text = 'not resolved to +-%g%% after the last look (--max-runs %d)' % (
                c.until, c.max_runs)
        return self.report(start, run_start, looks, until_text)

    def report(self, start, run_start, looks, until_text):
        c, res = self.c, self.results
        ok_a, ok_b = res.count('ok', 'a'), res.count('ok', 'b')
        fails, skips, boot_fails = res.count('fail'), res.count('skip'), res.count('bootfail')
        n_a, n_b = len(res.kept('a')), len(res.kept('b'))
        info('done after %s: A %d runs, B %d runs kept; %d failed, %d skipped, %d boots '
             'failed (%d + %d passed, warm-ups included)' % (
                 elapsed(start), n_a, n_b, fails, skips, boot_fails, ok_a, ok_b))
        if skips and n_a + n_b == 0:
            info('the test skipped: ' + res.first_skip_reason())
            return 4
        if n_a < 2 or n_b < 2:
            info('too few runs to compare (A %d, B %d; at least 2 each)' % (n_a, n_b))
            return 1
        a, b = describe(c, c.spec_a), describe(c, c.spec_b)
        print('%s: %s %s' % (PROG, c.test, ' '.join(c.args)))
        print('A: ' + a)
        print('B: ' + b)
        print('where: %s; order A B B A ...; %s' % (
            self.where(), 'the first run of each setup in each boot dropped as warm-up'
            if c.warmup else 'no warm-up dropped'))
        if c.until:
            print('until: %s; %d runs of A and %d of B (%d kept), %s; looks at %s runs a side, '
                  "each look's intervals at 1/%d of the error rate" % (
                      until_text, n_a, n_b, n_a + n_b, elapsed(run_start),
                      ' '.join(map(str, looks)), len(looks)))
        argv = ['compare', res.path('a'), res.path('b'), '--json', res.path('compare.json'),
                '--plot', res.path('plot'), '--title',
                '%s %s: A %s, B %s' % (c.test, ' '.join(c.args), a, b),
                '--level', '%g' % c.level, '--looks', str(len(looks) if c.until else 1)]
        if c.figures:
            argv += ['--figures', c.figures]
        if c.phase:
            argv += ['--profile-phase', c.phase]
        sys.stdout.flush()
        rc = stats_cli.main(argv)
        sys.stdout.flush()
        if rc == 3:
            info('no verdict with so few runs: give --runs (the least is said above)')
            return 1
        if rc:
            return 1
        if os.path.isfile(res.path('plot.png')):
            print('plot: %s' % res.path('plot.png'))
        print('comparison: %s' % res.path('compare.json'))
        if c.mode in kvm_sides.MODES or c.table:
            c.describe_a, c.describe_b = a, b
            kvm_sides.cover_table(c, c.argv, res.path('compare.json'), '%d of A, %d of B; %s%s' % (
                n_a, n_b, self.where(), '; boots alternate A B B A ..., %d runs and a warm-up '
                'a boot' % c.per_boot if boots(c) else ''))
        return 0 if fails + boot_fails == 0 else 1


def run(c):
    """bench/compare on the checked command line @c: its exit status."""
    if c.lava:
        from . import lavacompare
        return lavacompare.main(c.argv)
    return Compare(c).main()


def main(argv):
    return cli.program(PROG, argv, parse, run, HELP)


if __name__ == '__main__':
    sys.exit(main(sys.argv[1:]))
