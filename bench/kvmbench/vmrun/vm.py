# SPDX-License-Identifier: GPL-2.0-only
"""kvmbench.vmrun.vm: vm/run's command line, checks and set-up (python3 -m
kvmbench.vmrun.vm ARGS is what vm/run execs).

It parses and checks the options (usage errors: one line and the usage,
exit 2), builds the default test tree through kvmbench.kernels.build when it is
missing, picks the accelerator, installs the host's tools, chooses and
fetches the kernel (kvmbench.kernels.fetch), checks --kvm-modules and makes the
initramfs in a work directory (kvmbench.vmrun.initramfs), then boots
(kvmbench.vmrun.boot: the emulator, its console, the exit status) and removes
the work directory.

Python callers build every vm/run command with run_args() (script_args()
for a guest shell) and run vm/run; parse() reads it back, and is tested
without a boot (test_vm.py: what each program builds parses).
"""
import argparse
import os
import re
import shutil
import signal
import sys
import tempfile
import time

from kvmbench.kernels import build, debian, fetch
from . import boot, cli, initramfs
from .boot import Exit, info

REPO = build.REPO
VM_DIR = os.path.join(REPO, 'vm')
PROG = boot.PROG

USAGE = """\
usage: vm/run [--arch x86_64|arm64] [--cpu amd|intel] [--dir DIR] [--debian-kernel VERSION]
              [--kernel PATH [--modules DIR]] [--kvm-modules DIR]
              [--smp N] [--mem SIZE] [--numa N] [--hugepages N] [--timeout SECS]
              [--accel auto|kvm|tcg] [--verbose] [--list-first] [-- CMD ARGS...]
       vm/run --export OUT [--arch ...] [--dir DIR] [--debian-kernel V | --kernel PATH ...]

Boots a VM whose kernel has KVM and runs kselftests from DIR inside it.

  --arch ARCH      guest arch: x86_64 or arm64 (alias aarch64); default: host
  --cpu amd|intel  x86_64 only: amd (default): QEMU, TCG emulating AMD SVM
                   (or the host's KVM); intel: Bochs emulating Intel VMX with
                   EPT, the guest runs kvm_intel (nested=1); no --numa, no
                   --accel, --mem at most 8G; boots take minutes
  --dir DIR        kselftest install tree (kselftest-list.txt, <collection>/<test>,
                   optional <collection>/settings with timeout=N); copied to
                   /tests in the guest; default: build/<arch>/kselftest_install
                   (arm64: build/arm64, else build/aarch64), built first
                   (make STATIC=1 O=build/<arch> kselftest_install) if missing
  --debian-kernel VERSION
                   boot Debian's linux-image-VERSION-<arch> instead of the stock
                   6.1 one: a series (6.1, 6.12: its newest) or a full version
                   (6.12.115+deb12, 6.1.0-57); fetched once with apt-get
  --kernel PATH    boot this kernel instead of the stock Debian 6.1 one
  --modules DIR    lib/modules/<version> tree for --kernel (if KVM is modular)
  --kvm-modules DIR
                   KVM built by vm/kvm-build --out DIR: its modules replace the
                   kernel's (x86_64); arm64: its kernel is booted; refused
                   before the boot if built for another kernel release
  --smp N          virtual CPUs (default 2)
  --mem SIZE       guest memory, QEMU -m syntax (default 2G)
  --numa N         split CPUs and memory over N NUMA nodes (default 1: no NUMA)
  --hugepages N    reserve N default-size hugepages in the guest (default 0)
  --timeout SECS   kill the whole VM after SECS seconds (default 3600)
  --accel A        auto (default: kvm if the host can nest, else tcg), kvm, tcg
  --verbose        show kernel boot messages, the QEMU command and timings
  --list-first     with CMD: run the kselftest list (TAP) first, then CMD, in one
                   boot; the status is 1 if the list failed, else CMD's
  -- CMD ARGS...   run only CMD (in /tests/kvm, else /tests), output unprefixed
  --export OUT     boot nothing: write the kernel to boot (OUT/kernel), the
                   initramfs (OUT/initrd.cpio.gz: the tests, KVM's modules,
                   vm/init ending in a shell on the console) and the kernel
                   command line (OUT/cmdline) for a LAVA job (lava/); OUT is
                   new, empty or an export of before (nothing else is touched)

Without CMD every test of kselftest-list.txt runs, printing kselftest TAP.
Stock kernels and the arm64 busybox are cached in
${XDG_CACHE_HOME:-~/.cache}/kvm-selftests (downloaded once with apt-get).

Exit status:
  0..    the guest status: 0 if all tests passed (SKIP counts as pass), 1 if
         any failed or timed out; with CMD, the command's exit status
  2      usage error, bad value or missing file (also: the build of a missing
         default --dir failed)
  3      the VM died without reporting a status (kernel panic, QEMU error,
         not a kernel image, no guest init within $VMRUN_BOOT_TIMEOUT s (300;
         --cpu intel: 2400), the machine reset)
  5      /dev/kvm missing in the guest (module load failed, no vmx/svm ...)
  6      host setup failed (missing packages, download failed)
  124    whole-VM timeout (--timeout)
"""

# Options taking a value, as vm/run spells them (argparse's dest: the
# name without dashes, '-' as '_').
VALUE_OPTIONS = ('--arch', '--cpu', '--dir', '--debian-kernel', '--kernel', '--modules',
                 '--kvm-modules', '--smp', '--mem', '--numa', '--hugepages', '--timeout',
                 '--accel', '--export')


def usage_error(msg):
    return Exit(2, msg, usage=True)


class Parser(argparse.ArgumentParser):
    """argparse with vm/run's messages: a usage error is raised as Exit."""

    def error(self, message):
        m = re.match(r'argument (--[a-z-]+): expected one argument', message)
        if m:
            raise usage_error('option %s needs a value' % m.group(1))
        raise usage_error(message)


def parser():
    p = Parser(prog=PROG, add_help=False, allow_abbrev=False)
    p.add_argument('-h', '--help', action='store_true')
    p.add_argument('-v', '--verbose', action='store_true')
    p.add_argument('--list-first', action='store_true')
    defaults = {'--smp': '2', '--numa': '1', '--hugepages': '0', '--timeout': '3600',
                '--accel': 'auto'}
    for o in VALUE_OPTIONS:
        p.add_argument(o, default=defaults.get(o))
    return p


def check_cpu(cpu, arch):
    """Why --cpu @cpu does not go with @arch, or None."""
    if not cpu:
        return None
    if cpu not in ('amd', 'intel'):
        return "bad --cpu '%s' (amd or intel)" % cpu
    if arch != 'x86_64':
        return '--cpu %s is for --arch x86_64 only' % cpu
    return None


def mem_mib(mem):
    """A QEMU -m size (default unit MiB) in MiB, or None if it is not one."""
    n, unit = (mem[:-1], mem[-1].lower()) if mem and mem[-1] in 'KkMmGgTt' else (mem, 'm')
    if not re.fullmatch(r'[0-9]+', n):
        return None
    n = int(n)
    return {'k': n // 1024, 'g': n * 1024, 't': n * 1024 * 1024}.get(unit, n)


def uint(val, least=0):
    """@val as an int if it is a decimal number >= @least, else None."""
    if val is not None and re.fullmatch(r'[0-9]+', val) and int(val) >= least:
        return int(val)
    return None


def parse(argv, host=None, repo=REPO):
    """vm/run's settings (a Namespace) from @argv, checked; Exit on a
    usage error or --help.  The default --dir is left '' (default_dir()
    finds or builds it)."""
    argv = list(argv)
    cmd = []
    if '--' in argv:
        i = argv.index('--')
        argv, cmd = argv[:i], argv[i + 1:]
        if not cmd:
            raise usage_error('-- needs a command')
    a, rest = parser().parse_known_args(argv)
    # As the words are read in order: -h before the first unknown word.
    if a.help and (not rest or min(argv.index(h) for h in ('-h', '--help') if h in argv) <
                   argv.index(rest[0])):
        raise Exit(0, usage=True)
    for w in rest:
        if w.startswith('--'):
            raise usage_error('unknown option %s' % w.split('=', 1)[0])
        raise usage_error("unexpected argument '%s' (use -- CMD to run a command)" % w)
    a.cmd, a.modtree, a.work = cmd, '', ''
    try:
        a.arch = build.arch_name(a.arch or host or build.host_arch())
    except ValueError as e:
        raise usage_error(str(e)) from None
    if a.cpu not in (None, '', 'amd', 'intel'):
        raise usage_error("bad --cpu '%s' (amd or intel)" % a.cpu)
    a.cpu = a.cpu or ''
    a.emu = 'bochs' if a.cpu == 'intel' else 'qemu'
    why = check_cpu(a.cpu, a.arch)
    if why:
        raise usage_error(why)
    a.mem = a.mem or '2G'
    for name, least in (('smp', 1), ('numa', 1)):
        if uint(getattr(a, name), least) is None:
            raise usage_error("bad --%s '%s'" % (name, getattr(a, name)))
    a.smp, a.numa = int(a.smp), int(a.numa)
    if a.numa > a.smp:
        raise usage_error('--numa %d needs at least as many CPUs (--smp %d)' % (a.numa, a.smp))
    if uint(a.hugepages) is None:
        raise usage_error("bad --hugepages '%s'" % a.hugepages)
    if uint(a.timeout, 1) is None:
        raise usage_error("bad --timeout '%s'" % a.timeout)
    a.hugepages, a.timeout = int(a.hugepages), int(a.timeout)
    a.mem_mib = mem_mib(a.mem) or 0
    if a.mem_mib < 128:
        raise usage_error("bad --mem '%s' (e.g. 2G, 1536M; at least 128M)" % a.mem)
    if a.mem_mib // a.numa < 64:
        raise usage_error('--mem %s too small for --numa %d' % (a.mem, a.numa))
    if a.accel not in ('auto', 'kvm', 'tcg'):
        raise usage_error("bad --accel '%s' (auto, kvm or tcg)" % a.accel)
    if a.emu == 'bochs':
        if a.accel != 'auto':
            raise usage_error('--accel %s: --cpu intel always runs under Bochs' % a.accel)
        if a.numa != 1:
            raise usage_error('--numa %d: Bochs emulates no NUMA (--cpu intel)' % a.numa)
        if a.mem_mib > 8192:
            raise usage_error('--mem %s: at most 8G under Bochs (--cpu intel)' % a.mem)
    if a.modules and not a.kernel:
        raise usage_error('--modules needs --kernel')
    if a.debian_kernel and a.kernel:
        raise usage_error('--debian-kernel and --kernel exclude each other')
    if a.debian_kernel and not debian.is_spec(a.debian_kernel):
        raise usage_error("bad --debian-kernel '%s' (e.g. 6.12, 6.12.115+deb12, 6.1.0-57)"
                          % a.debian_kernel)
    if a.kernel and not (os.path.isfile(a.kernel) and os.access(a.kernel, os.R_OK)):
        raise usage_error("kernel '%s' not found" % a.kernel)
    if a.modules and not os.path.isdir(a.modules):
        raise usage_error("modules dir '%s' not found" % a.modules)
    if a.kvm_modules and not os.path.isdir(a.kvm_modules):
        raise usage_error("--kvm-modules dir '%s' not found" % a.kvm_modules)
    if a.kvm_modules and a.kernel and not a.modules:
        raise usage_error("--kvm-modules needs the kernel's modules: --debian-kernel, the stock "
                          "kernel or --kernel with --modules")
    if a.export:
        try:
            cli.check_out('--export', a.export, 'vm/run --export')
        except cli.Usage as e:     # one line: the folder is the problem, not the usage
            raise Exit(2, str(e)) from None
    return a


def default_dir(a, repo=REPO):
    """The default test tree of @a's arch, built (with its packages) if
    missing; Exit 6 if the packages cannot be installed, 2 if the build
    failed."""
    tree = build.tree_path(a.arch, repo)
    if os.path.isdir(tree):
        return tree
    log = os.path.join(repo, 'build', 'logs', 'build-vm-run-%s.log' % a.arch)
    try:
        return build.ensure_tree(a.arch, log, repo, say=info)
    except build.DepsError as e:
        print(e, file=sys.stderr)
        raise Exit(6, "cannot install the build's packages") from None
    except build.BuildError as e:
        raise Exit(2, '%s; or pass --dir DIR' % e) from None


def check_dir(a):
    """The checks on --dir (after its default is settled)."""
    if not os.path.isdir(a.dir):
        raise usage_error("test dir '%s' not found" % a.dir)
    if a.list_first and not a.cmd:
        raise usage_error('--list-first needs -- CMD')
    if a.export and (a.cmd or a.emu != 'qemu'):
        raise usage_error('--export takes no CMD and no --cpu intel')
    if (not a.cmd or a.list_first) and not os.path.isfile(
            os.path.join(a.dir, 'kselftest-list.txt')):
        raise usage_error("no kselftest-list.txt in '%s'" % a.dir)


def kvm_usable():
    return os.access('/dev/kvm', os.R_OK | os.W_OK) and os.path.exists('/dev/kvm')


def host_can_nest():
    """/dev/kvm usable and the CPU has vmx or svm."""
    if not kvm_usable():
        return False
    try:
        with open('/proc/cpuinfo') as f:
            return bool(re.search(r'\b(vmx|svm)\b', f.read()))
    except OSError:
        return False


def choose_accel(a, host=None):
    """kvm or tcg for --accel @a.accel; Exit 2 if kvm cannot be."""
    host = host or build.host_arch()
    if a.accel == 'auto':
        return 'kvm' if a.arch == 'x86_64' and host == 'x86_64' and host_can_nest() else 'tcg'
    if a.accel == 'kvm':
        if host != a.arch:
            raise Exit(2, '--accel kvm: cannot run an %s guest on an %s host' % (a.arch, host))
        if not kvm_usable():
            raise Exit(2, '--accel kvm: /dev/kvm not accessible')
        if a.arch != 'arm64' and not host_can_nest():
            info('warning: host CPU has no vmx/svm flag, the guest will likely lack /dev/kvm')
    return a.accel


def emu_kernel(a, img, stock):
    """The image the emulator boots for kernel @img: Bochs (GRUB) takes
    bzImages only (Exit 3); QEMU boots an x86_64 Debian bzImage (@stock)
    as its uncompressed vmlinux through PVH."""
    if a.emu == 'bochs':
        if not fetch.bzimage(img):
            raise Exit(3, '%s is not a bzImage (--cpu intel boots bzImages through GRUB)' % img)
        return img
    if a.arch == 'x86_64' and stock:
        return fetch.pvh_vmlinux(img)
    return img


def choose_kernel(a):
    """(the image to boot, its modules tree or ''): --kernel and
    --modules, a --debian-kernel or the stock kernel, fetched into the
    cache; Exit 3 for an image that is not a kernel, 2 for a version
    Debian has not, 6 if the download failed."""
    debian.PROG[0] = PROG
    if a.kernel:
        if not fetch.is_kernel_image(a.arch, a.kernel):
            raise Exit(3, '%s is not a bootable %s kernel image' % (a.kernel, a.arch))
        return emu_kernel(a, a.kernel, False), a.modules or ''
    try:
        if a.debian_kernel:
            kdir = debian.debian_kernel_dir(a.debian_kernel, a.arch)
        else:
            kdir = debian.stock_kernel_dir(a.arch)
        img, mods = fetch.kernel_in(kdir)
    except debian.FetchError as e:
        raise Exit(e.status, str(e)) from None
    return emu_kernel(a, img, True), mods


def choose_kvm_modules(a):
    """--kvm-modules: refused before the boot if built for another
    release than the kernel's (its modules tree's name); its kernel
    booted if it has one (arm64)."""
    if not a.kvm_modules:
        return
    if not a.modtree:
        raise Exit(2, "--kvm-modules needs the kernel's modules: --debian-kernel, the stock "
                   "kernel or --kernel with --modules")
    img = initramfs.check_kvm_modules(a.kvm_modules, os.path.basename(a.modtree))
    if img:
        a.kernel = emu_kernel(a, img, False)


def prepare(a, work):
    """Everything before the boot, for checked settings @a: the test
    tree, accelerator, host tools, kernel and the initramfs in @work."""
    debian.PROG[0] = PROG
    a.dir = a.dir or default_dir(a)
    check_dir(a)
    a.accel = choose_accel(a)
    try:
        initramfs.ensure_host_tools(a.emu, a.arch)
        a.kernel, a.modtree = choose_kernel(a)
        choose_kvm_modules(a)
        initramfs.build_initramfs(a, work)
    except debian.FetchError as e:
        raise Exit(e.status, str(e)) from None


def host_setup(arch, vm_args):
    """What a vm/run boot with kernel options @vm_args on @arch sets up on
    the host, done now: the emulator's packages, the kernel in the cache
    (and its PVH vmlinux), the guest's busybox; so that boots started
    together after it find them there.  Exit (its status, one line) if
    that fails."""
    a = parse(['--arch', arch] + list(vm_args))
    debian.PROG[0] = PROG
    try:
        initramfs.ensure_host_tools(a.emu, a.arch)
        choose_kernel(a)
        initramfs.static_busybox(a.arch)
    except debian.FetchError as e:
        raise Exit(e.status, str(e)) from None


def stop(sig, frame):
    raise SystemExit(128 + sig)


def run_args(arch=None, kernel=None, tests=None, cmd=(), args=(), **opts):
    """The one vm/run command Python builds (parse() reads it back): @arch,
    a @kernel spec (build.kernel_args), @args (vm/run options already as
    words: a kernel's, a side's VM), --dir @tests, other options as
    keywords (smp=4 gives --smp 4; True: a flag), then -- @cmd."""
    out = [os.path.join(VM_DIR, 'run')]
    if arch:
        out += ['--arch', arch]
    if kernel:
        out += build.kernel_args(kernel)
    out += list(args)
    if tests:
        out += ['--dir', tests]
    for k, v in opts.items():
        if v is True:
            out.append('--' + k.replace('_', '-'))
        elif v not in (None, False):
            out += ['--' + k.replace('_', '-'), str(v)]
    return out + (['--'] + list(cmd) if cmd else [])


def script_args(script, tests, timeout, arch=None, args=(), **opts):
    """run_args() for a boot running the guest shell @script (sh -c) with
    @tests as /tests, killed after @timeout seconds."""
    return run_args(arch, tests=tests, args=args, timeout=timeout,
                    cmd=['sh', '-c', script], **opts)


def main(argv):
    t_start = time.time()
    for sig in (signal.SIGTERM, signal.SIGHUP):
        signal.signal(sig, stop)
    a = None
    try:
        a = parse(argv)
        a.work = tempfile.mkdtemp(prefix='vmrun.', dir=os.environ.get('TMPDIR') or '/tmp')
        prepare(a, a.work)
        return boot.run(a, t_start)
    except (Exit, KeyboardInterrupt, SystemExit) as e:
        if isinstance(e, (KeyboardInterrupt, SystemExit)):
            # SystemExit: stop()'s, 128 + the signal
            code = 130 if isinstance(e, KeyboardInterrupt) else e.code
            if isinstance(code, int) and code > 128:
                info('interrupted by %s: no VM left running' % signal.Signals(code - 128).name)
            return code
        if e.msg:
            info(e.msg)
        if e.usage:
            (sys.stdout if e.status == 0 else sys.stderr).write(USAGE)
        return e.status
    finally:
        if a is not None and a.work:
            with boot.signals_held():
                shutil.rmtree(a.work, ignore_errors=True)


if __name__ == '__main__':
    sys.exit(main(sys.argv[1:]))
