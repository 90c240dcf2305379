# SPDX-License-Identifier: GPL-2.0-only
"""kvmbench.kernels.build: the suite's build, the one place for it.

Arch names (x86_64, arm64; aarch64 and amd64 are aliases) and their
build/ directories, the Debian packages a build needs (installed as
root, else the command to run is printed; install() is the one
installer of host packages, debian.apt_get() the one apt-get call), the static kselftest install
of the suite for an arch under build/<dir>/kselftest_install (and
against a kernel tree's uapi headers, uapi_tree), and the
vm/run options for a kernel a user names (kernel_args).  vm/run,
vm/suite, bench/ (through vm/build-deps.sh), bench/compare and lava/ all
build through here.

  python3 -m kvmbench.kernels.build deps ARCH|clang...   install the build's packages
  python3 -m kvmbench.kernels.build packages [--why W] PKG...  install the missing PKGs
  python3 -m kvmbench.kernels.build missing PKG...       print the missing PKGs
  python3 -m kvmbench.kernels.build suite SRC ARCH OUT LOG   make ... kselftest_install
  python3 -m kvmbench.kernels.build tree ARCH [LOG]      build/<dir>/kselftest_install,
                                                 built if missing (its path)
  python3 -m kvmbench.kernels.build kernel-args SPEC     vm/run's options, one a line
  python3 -m kvmbench.kernels.build arch-dir ARCH        the build/ subdirectory
"""
import argparse
import hashlib
import os
import re
import subprocess
import sys
import time

from kvmbench.base.errors import BuildError
from . import debian

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))

ARCHES = ('x86_64', 'arm64')
ALIASES = {'x86_64': 'x86_64', 'amd64': 'x86_64', 'arm64': 'arm64', 'aarch64': 'arm64'}
BASE_PACKAGES = ['make', 'gcc', 'libc6-dev', 'libnuma-dev', 'linux-source-6.1',
                 'linux-source-6.12', 'rsync', 'xz-utils', 'git', 'cpio']
ARM64_CROSS = ['gcc-aarch64-linux-gnu', 'libc6-dev-arm64-cross', 'libnuma-dev:arm64']
CLANG = ['clang', 'libclang-rt-14-dev']


class DepsError(BuildError):
    """The build's packages are missing and cannot be installed."""


def arch_name(arch):
    """@arch as vm/run names it (x86_64, arm64); ValueError(why) if it
    is none of ours."""
    try:
        return ALIASES[arch]
    except KeyError:
        raise ValueError("unknown arch '%s' (x86_64 or arm64)" % arch) from None


def host_arch():
    """This machine's arch as vm/run names it."""
    return ALIASES.get(os.uname().machine, os.uname().machine)


def arch_dir(arch):
    """The build/ subdirectory of @arch (x86_64, aarch64)."""
    return 'aarch64' if arch_name(arch) == 'arm64' else 'x86_64'


def tree_path(arch, repo=REPO):
    """Where the kselftest install tree of @arch is: build/<dir>/kselftest_install
    (for arm64 build/arm64/... if that one exists, as vm/run always took it)."""
    arch = arch_name(arch)
    if arch == 'arm64':
        old = os.path.join(repo, 'build', 'arm64', 'kselftest_install')
        if os.path.isdir(old):
            return old
    return os.path.join(repo, 'build', arch_dir(arch), 'kselftest_install')


def kernel_args(spec):
    """vm/run's options for a kernel given as a Debian kernel version
    (6.1, 6.12.115+deb12), IMAGE or IMAGE:MODULES_DIR; ValueError(why)
    if it is neither."""
    img, _, mods = spec.partition(':')
    if os.path.isfile(img):
        if mods and not os.path.isdir(mods):
            raise ValueError("no modules dir '%s'" % mods)
        return ['--kernel', img] + (['--modules', mods] if mods else [])
    if debian.is_spec(spec):
        return ['--debian-kernel', spec]
    raise ValueError("kernel '%s' is neither an image file nor a Debian kernel version "
                     "(6.1, 6.12)" % spec)


def deps(words, host=None):
    """The packages building for each of @words (an arch, or 'clang')
    needs on Debian 12 on a @host (default this one) machine."""
    host = host or host_arch()
    pkgs = list(BASE_PACKAGES)
    for w in words:
        more = CLANG if w == 'clang' else ARM64_CROSS if (
            w != 'clang' and arch_name(w) == 'arm64' and host != 'arm64') else []
        pkgs += [p for p in more if p not in pkgs]
    return pkgs


def installed(pkg):
    """True if dpkg has @pkg installed."""
    p = subprocess.run(['dpkg-query', '-W', '-f', '${Status}\n', pkg],
                       stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    return any(ln.startswith('install ok installed') for ln in p.stdout.splitlines())


def missing(pkgs):
    """Those of @pkgs not installed."""
    return [p for p in pkgs if not installed(p)]


def upgrades(pkgs):
    """The installed packages apt-get install @pkgs would upgrade (its
    simulation's "Inst NAME [OLD]" lines): those it needs newer."""
    p = subprocess.run(['apt-get', '-s', 'install', '--no-install-recommends', '--no-upgrade']
                       + pkgs, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True,
                       env=dict(os.environ, LC_ALL='C'))
    return re.findall(r'^Inst (\S+) \[', p.stdout, re.M)


def install(pkgs, why='', say=None, still=missing):
    """Install those of @pkgs still missing (as root), for @why (said with
    them): one install at a time on this machine (the cache's apt.lock:
    a second run waits, then finds them there and installs nothing);
    apt's output in debian.apt_log() (its last lines on stderr if it fails);
    --no-upgrade: an installed package named is not upgraded; the
    installed packages apt must upgrade for them are said.  Adds dpkg's
    arm64 architecture if one is :arm64.  BuildError if that fails or we
    are not root (DepsError; its message: the command to run).  @still(pkgs):
    those of them still needed (default: those dpkg has not)."""
    say = say or (lambda m: print(m, file=sys.stderr, flush=True))
    if not still(pkgs):
        return
    if os.geteuid() != 0:
        raise DepsError('missing packages%s; run: sudo dpkg --add-architecture arm64 && '
                        'sudo apt-get update && sudo apt-get install -y --no-install-recommends '
                        '%s' % (' (%s)' % why if why else '', ' '.join(still(pkgs))))
    with debian.locked(os.path.join(debian.cache_dir(), 'apt.lock'), say, 'another install'):
        pkgs = still(pkgs)
        if not pkgs:
            return
        log = debian.apt_log()
        t0 = time.time()
        say('installing %s%s (apt-get install --no-install-recommends --no-upgrade; '
            'log: %s)' % (' '.join(pkgs), ' ' + why if why else '', log))
        if any(p.endswith(':arm64') for p in pkgs):
            foreign = subprocess.run(['dpkg', '--print-foreign-architectures'],
                                     stdout=subprocess.PIPE, text=True).stdout.split()
            if 'arm64' not in foreign:
                subprocess.run(['dpkg', '--add-architecture', 'arm64'], check=False)
        if debian.apt_get(['update', '-q'], log=log):
            sys.stderr.write(debian.log_tail(log))
            raise DepsError('apt-get update failed (log: %s)' % log)
        up = upgrades(pkgs)
        if up:
            say('also upgrading, as %s need%s newer: %s' % (
                ' '.join(pkgs), 's' if len(pkgs) == 1 else '', ' '.join(up)))
        if debian.apt_get(['install', '-y', '-q', '--no-install-recommends', '--no-upgrade'] + pkgs,
                          log=log):
            sys.stderr.write(debian.log_tail(log))
            raise DepsError('apt-get install %s failed (log: %s)' % (' '.join(pkgs), log))
        say('installed %s in %.0f s' % (' '.join(pkgs), time.time() - t0))


def ensure_packages(pkgs, why=''):
    """Install those of @pkgs that are missing, for @why (BuildError if
    that fails)."""
    install(pkgs, why)


def ensure_deps(*words):
    """Install what building for @words (arches, 'clang') needs."""
    ensure_packages(deps(words), 'to build the suite for %s' % ' and '.join(words))


def make_command(src, arch, out, jobs=None, uapi=None):
    """The make command of a static kselftest install of @src for @arch in
    @out (against the uapi headers in @uapi if given, else the default's)."""
    return ['make', '-s', '-C', src, 'ARCH=' + arch_name(arch), 'STATIC=1', 'O=' + out,
            '-j%d' % (jobs or os.cpu_count() or 1)] + (
                ['KHDR_INCLUDES=-isystem ' + uapi] if uapi else []) + ['kselftest_install']


def build_suite(src, arch, out, log=None, uapi=None):
    """A static build of the suite in @src for @arch under @out (against
    the uapi headers in @uapi if given), its kselftest install tree in
    out/kselftest_install (what vm/run copies into the VM); make's output
    in @log (default out.build.log), its last 30 lines on stderr if it
    fails.  True if it built."""
    log = log or out.rstrip('/') + '.build.log'
    os.makedirs(os.path.dirname(os.path.abspath(out)), exist_ok=True)
    os.makedirs(os.path.dirname(os.path.abspath(log)), exist_ok=True)
    with open(log, 'w') as f:
        rc = subprocess.call(make_command(src, arch, out, uapi=uapi), stdout=f,
                             stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL)
    if rc:
        with open(log, errors='replace') as f:
            sys.stderr.write(''.join(f.readlines()[-30:]))
    return rc == 0


def fresh_tree(arch, log=None, repo=REPO):
    """build/<dir>/kselftest_install of @arch, made up to date (make
    rebuilds what changed); its log @log (default <dir>.build.log).
    BuildError if the build fails."""
    out = os.path.join(repo, 'build', arch_dir(arch))
    if not build_suite(repo, arch, out, log):
        raise BuildError('the suite did not build for %s (log: %s)'
                         % (arch_name(arch), log or out + '.build.log'))
    return os.path.join(out, 'kselftest_install')


def uapi_digest(uapi):
    """A digest of the uapi headers under @uapi (names and contents)."""
    h = hashlib.sha256()
    for top, dirs, files in sorted(os.walk(uapi)):
        dirs.sort()
        for name in sorted(files):
            path = os.path.join(top, name)
            h.update(os.path.relpath(path, uapi).encode() + b'\0')
            with open(path, 'rb') as f:
                h.update(f.read())
    return h.hexdigest()[:12]


def uapi_tree(arch, uapi, repo=REPO):
    """The suite's kselftest install tree for @arch built against the uapi
    headers in @uapi (a kernel tree's, as vm/kvm-build installs them):
    build/<dir>-uapi-<digest of the headers>/kselftest_install, made up
    to date, so that kernels whose trees have the same headers share one
    build.  BuildError if @uapi has no linux/kvm.h or the build fails."""
    if not os.path.isfile(os.path.join(uapi, 'linux', 'kvm.h')):
        raise BuildError('no uapi headers in %s (no linux/kvm.h)' % uapi)
    out = os.path.join(repo, 'build', '%s-uapi-%s' % (arch_dir(arch), uapi_digest(uapi)))
    if not build_suite(repo, arch, out, uapi=uapi):
        raise BuildError('the suite did not build for %s against the uapi headers of %s '
                         '(log: %s.build.log)' % (arch_name(arch), uapi, out))
    return os.path.join(out, 'kselftest_install')


def ensure_tree(arch, log=None, repo=REPO, say=None):
    """The kselftest install tree of @arch (tree_path), built with its
    packages if it has no kselftest-list.txt; @say(message) before a
    build.  BuildError if that fails."""
    tree = tree_path(arch, repo)
    if os.path.isfile(os.path.join(tree, 'kselftest-list.txt')):
        return tree
    out = os.path.dirname(tree)
    log = log or os.path.join(repo, 'build', 'logs', 'build-%s.log' % arch_name(arch))
    if say:
        rel = os.path.relpath(out, repo)
        say('no %s/kselftest_install: building it (make ARCH=%s STATIC=1 O=%s '
            'kselftest_install; log: %s)' % (rel, arch_name(arch), rel, os.path.relpath(log, repo)))
    ensure_deps(arch_name(arch))
    if not build_suite(repo, arch, out, log):
        raise BuildError('building the suite for %s failed (log: %s)' % (arch_name(arch), log))
    return tree


def main(argv):
    ap = argparse.ArgumentParser(prog='python3 -m kvmbench.kernels.build', description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = ap.add_subparsers(dest='cmd', required=True)
    sub.add_parser('deps').add_argument('words', nargs='*')
    p = sub.add_parser('packages')
    p.add_argument('--why', default='', help='what they are for (said with them)')
    p.add_argument('pkgs', nargs='*')
    sub.add_parser('missing').add_argument('pkgs', nargs='*')
    p = sub.add_parser('suite')
    for a in ('src', 'arch', 'out', 'log'):
        p.add_argument(a)
    p = sub.add_parser('tree')
    p.add_argument('arch')
    p.add_argument('log', nargs='?')
    sub.add_parser('kernel-args').add_argument('spec')
    sub.add_parser('arch-dir').add_argument('arch')
    a = ap.parse_args(argv)
    try:
        if a.cmd == 'deps':
            ensure_deps(*a.words)
        elif a.cmd == 'packages':
            ensure_packages(a.pkgs, a.why)
        elif a.cmd == 'missing':
            for pkg in missing(a.pkgs):
                print(pkg)
        elif a.cmd == 'suite':
            return 0 if build_suite(a.src, a.arch, a.out, a.log) else 1
        elif a.cmd == 'tree':
            print(ensure_tree(a.arch, a.log,
                              say=lambda m: print('build: ' + m, file=sys.stderr, flush=True)))
        elif a.cmd == 'kernel-args':
            print('\n'.join(kernel_args(a.spec)))
        elif a.cmd == 'arch-dir':
            print(arch_dir(a.arch))
    except ValueError as e:
        print('build: %s' % e, file=sys.stderr)
        return 2
    except BuildError as e:
        print(e, file=sys.stderr)
        return 1
    return 0


if __name__ == '__main__':
    sys.exit(main(sys.argv[1:]))
