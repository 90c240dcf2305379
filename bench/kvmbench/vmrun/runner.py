# SPDX-License-Identifier: GPL-2.0-only
"""kvmbench.vmrun.runner: where the runs happen, and what they need there.

A run is one command of a perf test writing its figures (--json): Run
(side 'a' or 'b', its index, warm-up or not, the test's arguments).  A
backend runs a list of them in order and files each with Results.record
(kvmbench.verdicts.results):

  Host   this host's /dev/kvm: each run a subprocess, killed after the
         run timeout (its threads' kernel stacks shown first)
  VM     one boot of vm/run (a kernel of its choice) running the runs in
         the guest's shell (guest.sh), read back from its console

and the set-up they share: the suite's build and the kernel a side names
(kvmbench.kernels.build, re-exported here: ensure, build, kernel_args, arch_dir,
host_arch), the VM's CPU and clock checks.
"""
import collections
import fnmatch
import os
import re
import signal
import subprocess
import sys
import time

from kvmbench.kernels import build as _build
from . import initramfs as _initramfs, vm as _vm

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))
GUEST_SH = os.path.join(os.path.dirname(os.path.abspath(__file__)), 'guest.sh')

# The suite's build and kernel names: kvmbench.kernels.build's, under the names
# the callers of runner use.
arch_dir = _build.arch_dir
host_arch = _build.host_arch
kernel_args = _build.kernel_args
check_cpu = _vm.check_cpu

Run = collections.namedtuple('Run', 'side idx warm args')


def shquote(args):
    """Each of @args single-quoted for a POSIX shell (initramfs.shquote),
    space-separated."""
    return ' '.join(map(_initramfs.shquote, args))


def ensure(arch, *packages):
    """The build's dependencies for @arch and @packages installed (Debian);
    False (why on stderr) if that failed."""
    try:
        _build.ensure_deps(arch)
        _build.ensure_packages(list(packages))
    except _build.BuildError as e:
        print(e, file=sys.stderr)
        return False
    return True


DEBIAN_PY = '/usr/lib/python3/dist-packages'


def debian_module(name):
    """Import @name from this python3's path or, failing that, Debian's
    dist-packages (/usr/lib/python3/dist-packages, which a python3 of
    one's own, pyenv or venv, does not search); None if it is not
    installed.  Nothing is installed here: a command that needs it
    installs it as its own explicit step (install_module).  What the
    import warns (Debian's matplotlib with a newer pyparsing of one's
    own python3) is not the user's to act on: not shown."""
    import importlib
    import warnings

    def load():
        with warnings.catch_warnings():
            warnings.simplefilter('ignore')
            return importlib.import_module(name)
    try:
        return load()
    except ImportError:
        if DEBIAN_PY in sys.path or not os.path.isdir(DEBIAN_PY):
            return None
    sys.path.append(DEBIAN_PY)
    try:
        return load()
    except ImportError:
        return None


def install_module(name, package, why):
    """A command's step: Python module @name, Debian's @package installed
    for @why first when it cannot be imported (build.install says what
    and why, its output in the cache's apt log); None if that failed."""
    got = debian_module(name)
    if got is not None:
        return got
    try:
        _build.ensure_packages([package], why)
    except _build.BuildError as e:
        print(e, file=sys.stderr)
        return None
    return debian_module(name)


def build(src, arch, out, log=None):
    """A static kselftest install of the suite in @src for @arch under
    @out (out/kselftest_install), its log in @log (default out.build.log);
    the log's tail on failure."""
    return _build.build_suite(src, arch, out, log)


def host_kvm_why(test_dir):
    """'' when this host's /dev/kvm runs our guests (a probe with
    guest_print_test in @test_dir), else why not."""
    script = ('. "$0/vm/host-kvm.sh" && { host_kvm_runs_guests "$1" && exit 0; '
              'printf %s "$HOST_KVM_WHY"; exit 1; }')
    p = subprocess.run(['bash', '-c', script, REPO, test_dir], stdout=subprocess.PIPE,
                       text=True)
    return '' if p.returncode == 0 else (p.stdout or 'probe failed')


def options_why(test_dir, test, args):
    """'' if the test in @test_dir takes @args, else its usage error (its
    one line): the test's own option parser, run on this host with -h
    after @args (-h ends it with its help, exit 0, once every option
    before was taken).  '' when it cannot tell: the binary is for another
    arch, it skipped, or it hung."""
    try:
        p = subprocess.run([os.path.join(test_dir, test)] + list(args) + ['-h'],
                           stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                           stderr=subprocess.PIPE, text=True, errors='replace', timeout=20)
    except (OSError, subprocess.TimeoutExpired):
        return ''
    lines = p.stderr.strip().splitlines()
    # A usage error is one line; an assertion (say, no /dev/kvm here) is
    # not the options' fault: the runs show it where they run.
    if p.returncode != 1 or len(lines) != 1 or 'Test Assertion Failure' in p.stderr:
        return ''
    return lines[0]


def test_figures(test_dir, test, args):
    """The figures the test in @test_dir declares with @args (its
    --figures: names, * standing for a name of its own table), or None
    when it cannot tell (it declares none, refuses, is for another arch)."""
    try:
        p = subprocess.run([os.path.join(test_dir, test)] + list(args) + ['--figures'],
                           stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                           stderr=subprocess.DEVNULL, text=True, errors='replace', timeout=20)
    except (OSError, subprocess.TimeoutExpired):
        return None
    got = [x for x in p.stdout.splitlines() if x and not x.startswith('#')]
    return got if p.returncode == 0 and got else None


def figure_why(test_dir, test, args, figures):
    """'' if each of @figures is one the test declares (test_figures; a
    guest mode's [TAG] and the KVM stats per page, vcpu.NAME/page and
    vm.NAME/page, as results.run_figures names them), else why not."""
    have = test_figures(test_dir, test, args)
    if have is None:
        return ''
    for f in figures:
        base = re.sub(r'\[[^]]*\]$', '', f)
        if re.fullmatch(r'(vcpu|vm)\.[a-z0-9_]+/page', base) or any(
                fnmatch.fnmatchcase(base, h) for h in have):
            continue
        return "%s has no figure '%s'; it reports: %s" % (test, f, ' '.join(have))
    return ''


def clock_pick(clock, cpu, smp):
    """The clock of a bench run: @clock (--clock) if given; bochs with
    --cpu intel (Bochs' clock counts instructions; --clock is QEMU's),
    else tcg with --smp N > 1, else icount.  ValueError(why) on a
    conflict."""
    if cpu == 'intel':
        if clock:
            raise ValueError("--clock is QEMU's; --cpu intel runs Bochs, whose clock counts "
                             "instructions")
        return 'bochs'
    if clock:
        if clock not in ('icount', 'tcg'):
            raise ValueError("bad --clock '%s' (icount or tcg)" % clock)
        return clock
    return 'tcg' if smp and str(smp) != '1' else 'icount'


def clock_env(clock, smp):
    """The VM's environment for bench runs' clock, {VMRUN_ICOUNT: value
    or None (unset)}; ValueError(why) on a conflict.  icount (the
    default): TCG's clock counts instructions (-icount shift=3,sleep=off,
    about real time on this machine for x86_64, 1.8 times faster for
    arm64), its timings steady to about 1% run to run where the host's
    clock under TCG moves 100-1400% (docs/results/clocks.md); one vCPU
    (x86_64 hangs bringing up a second with -icount).  tcg: the host's
    clock; bochs (clock_pick's for --cpu intel): no QEMU option."""
    if clock == 'icount':
        if smp != 1:
            raise ValueError('--clock icount needs --smp 1 (give --clock tcg for more)')
        return {'VMRUN_ICOUNT': 'shift=3,sleep=off'}
    if clock in ('tcg', 'bochs'):
        return {'VMRUN_ICOUNT': None}
    raise ValueError("bad --clock '%s' (icount or tcg)" % clock)


def guest_sh(*lines):
    """The one guest-shell builder (runner, track, tables): guest.sh's
    functions, then @lines, one a line."""
    with open(GUEST_SH) as f:
        return '\n'.join([f.read()] + list(lines)) + '\n'


def bench_run_line(side, idx, warm, where, args, test=None):
    """guest.sh's bench_run line for one run of ./TEST @args in @where
    (BENCH_TEST=@test for this run alone if given)."""
    return '%sbench_run %s %s %d %s %s' % ("BENCH_TEST='%s' " % test if test else '', side, idx,
                                           warm, where, shquote(args))


def guest_script(test, timeout, profile, runs, dirs):
    """The guest's shell for @runs of ./@test, each side's tests in
    dirs[side]: guest.sh and one bench_run line a run."""
    return guest_sh("BENCH_TEST='%s' BENCH_TIMEOUT=%d BENCH_PROFILE='%s'" %
                    (test, timeout, '1' if profile else ''),
                    *(bench_run_line(r.side, r.idx, r.warm, dirs[r.side], r.args) for r in runs))


def task_stacks(pid):
    """HANG lines for each thread of @pid: its name, state, wait channel
    and kernel stack."""
    def read(path):
        try:
            with open(path) as f:
                return f.read()
        except OSError:
            return ''
    out = []
    base = '/proc/%d/task' % pid
    try:
        tids = sorted(os.listdir(base), key=int)
    except OSError:
        return out
    for tid in tids:
        t = '%s/%s' % (base, tid)
        state = [s for s in read(t + '/status').splitlines() if 'State' in s]
        out.append('HANG task %s %s %s wchan=%s' % (t, read(t + '/comm').strip(),
                                                    ' '.join(state), read(t + '/wchan')))
        out += ['HANG   ' + s for s in read(t + '/stack').splitlines()[:8]]
    return out


class Host:
    """Runs on this host: dirs[side] holds each side's test binaries."""

    def __init__(self, test, dirs, timeout, profile, tmp):
        self.test, self.dirs, self.timeout, self.profile, self.tmp = (
            test, dirs, timeout, profile, tmp)
        os.makedirs(tmp, exist_ok=True)

    def where(self):
        return "this host's /dev/kvm"

    def run(self, runs, results):
        for r in runs:
            self.one(r, results)

    def one(self, r, results):
        js = os.path.join(self.tmp, 'bench.json')
        out = os.path.join(self.tmp, 'out')
        if os.path.exists(js):
            os.remove(js)
        args = r.args + ['--json', js]
        if self.profile:
            args += ['--profile', os.path.join(self.tmp, 'profile.json')]
        hang = []
        with open(out, 'w') as f:
            try:
                p = subprocess.Popen(['./' + self.test] + args, cwd=self.dirs[r.side],
                                     stdin=subprocess.DEVNULL, stdout=f,
                                     stderr=subprocess.STDOUT)
            except OSError as e:
                f.write('%s: %s\n' % (self.test, e))
                p = None
            if p is None:
                rc = 126
            else:
                try:
                    rc = p.wait(self.timeout)
                except subprocess.TimeoutExpired:
                    hang = ['HANG ' + ' '.join(args)] + task_stacks(p.pid)
                    p.kill()
                    p.wait()
                    rc = 128 + signal.SIGKILL
                if rc < 0:
                    rc = 128 - rc
        with open(out, errors='replace') as f:
            output = hang + f.read().splitlines()
        text = None
        if rc == 0 and os.path.exists(js) and os.path.getsize(js):
            with open(js) as f:
                text = f.read()
        results.record(r.side, r.idx, r.warm, rc, output, text)


class VM:
    """Runs in a VM booted by vm/run @vmrun (its arguments but the kernel),
    environment @env: dirs[side] is where each side's tests are in the
    guest (under /tests, the --dir given to run())."""

    def __init__(self, test, vmrun, env, dirs, timeout, profile):
        self.test, self.vmrun, self.env, self.dirs = test, vmrun, env, dirs
        self.timeout, self.profile = timeout, profile

    def command(self, runs, tests_dir, vm_timeout, kernel=()):
        """The vm/run command of one boot running @runs (vm.run_args)."""
        return _vm.script_args(guest_script(self.test, self.timeout, self.profile, runs, self.dirs),
                               tests_dir, vm_timeout, args=self.vmrun + list(kernel))

    def run(self, runs, results, tests_dir, vm_timeout, kernel=()):
        """One boot running @runs with @tests_dir as /tests: vm/run's status."""
        env = dict(os.environ)
        for k, v in self.env.items():
            if v is None:
                env.pop(k, None)
            else:
                env[k] = v
        cmd = self.command(runs, tests_dir, vm_timeout, kernel)
        sys.stderr.flush()
        p = subprocess.Popen(cmd, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, env=env,
                             text=True, errors='replace')
        try:
            results.feed(p.stdout)
        except BaseException:
            # Interrupted (SIGTERM, ^C): vm/run ends its VM on SIGTERM.
            p.terminate()
            p.wait()
            raise
        return p.wait()


def now():
    return time.monotonic()
