# SPDX-License-Identifier: GPL-2.0-only
"""kvmbench.fetch: the kernels vm/run boots and where they come from.

Debian packages downloaded once with apt-get into the cache
(${XDG_CACHE_HOME:-~/.cache}/kvm-selftests/<package>, a .complete stamp
when unpacked): each lands whole or not at all (landed(): made in a
temporary directory beside it and renamed into place, under a lock file
in the cache's .locks/ that a second run making the same waits for;
the apt calls wait for apt's locks, build.apt_get), the stock 6.1
kernel, a --debian-kernel version (a series such as 6.12 means its newest), and the checks on a kernel image
(is_kernel_image, bzimage) and the uncompressed vmlinux QEMU boots
through PVH (pvh_vmlinux).  A failure is FetchError(status, message):
2 for the user's mistake, 6 for the host's set-up.  vm/fetch.sh's
functions of the same names call the command line:

  python3 -m kvmbench.fetch [--prog P] stock-kernel-dir ARCH
  python3 -m kvmbench.fetch [--prog P] debian-kernel-dir VERSION ARCH
  python3 -m kvmbench.fetch [--prog P] fetch-deb PKG DEST
  python3 -m kvmbench.fetch [--prog P] ensure-dpkg-arch DEB_ARCH
  python3 -m kvmbench.fetch [--prog P] pvh-vmlinux BZIMAGE
"""
import argparse
import glob
import lzma
import os
import re
import shutil
import subprocess
import sys
import tempfile

from . import build

PROG = ['vm/run']   # the messages' prefix (main's --prog)


class FetchError(Exception):
    def __init__(self, status, msg):
        super().__init__(msg)
        self.status = status


def say(msg):
    print('%s: %s' % (PROG[0], msg), file=sys.stderr, flush=True)


def cache_dir():
    return os.path.join(os.environ.get('XDG_CACHE_HOME') or
                        os.path.join(os.path.expanduser('~'), '.cache'), 'kvm-selftests')


def cache_lock(name):
    """The lock (build.locked) of cache entry @name: .locks/NAME.lock in
    the cache, waited for."""
    return build.locked(os.path.join(cache_dir(), '.locks', name.replace('/', '_') + '.lock'),
                        say, name)


def landed(dest, fill, stamp=None):
    """@dest, made once by @fill(tmp) (which fills the new directory tmp):
    whole or not at all, under cache_lock of its name (a second run
    making it waits, then finds it), in a temporary directory beside it
    renamed into place; done when file @stamp is in it (else: when it
    exists).  An unfinished @dest of before is replaced."""
    def done():
        return os.path.exists(os.path.join(dest, stamp) if stamp else dest)
    if done():
        return dest
    full = os.path.abspath(dest)
    parent, name = os.path.split(full)
    inside = full.startswith(os.path.join(cache_dir(), ''))
    with cache_lock(os.path.relpath(full, cache_dir()) if inside else name):
        if done():
            return dest
        os.makedirs(parent, exist_ok=True)
        tmp = tempfile.mkdtemp(prefix='.%s.' % name, dir=parent)
        try:
            os.chmod(tmp, 0o755)    # apt's _apt sandbox user writes into it
            fill(tmp)
            if stamp:
                open(os.path.join(tmp, stamp), 'w').close()
            if os.path.lexists(dest):
                os.rename(dest, tmp + '.old')
                shutil.rmtree(tmp + '.old', ignore_errors=True)
            os.rename(tmp, dest)
        finally:
            shutil.rmtree(tmp, ignore_errors=True)
    return dest


def apt_update():
    """apt-get update (as root), one at a time (the cache's apt.lock, as
    build.install), waiting for apt's own lock; False if it failed."""
    if os.geteuid() != 0:
        return False
    with build.locked(os.path.join(cache_dir(), 'apt.lock'), say, 'another apt-get'):
        say('apt-get update (log: %s)' % build.apt_log())
        return build.apt_get(['update', '-q']) == 0


def deb_arch(arch):
    """Debian's name of guest @arch (amd64, arm64)."""
    return 'amd64' if build.arch_name(arch) == 'x86_64' else 'arm64'


def version_key(s):
    """A sort key ordering versions as sort -V does for ours (6.1.0-9 <
    6.1.0-10, 6.12.9+deb12 < 6.12.10+deb12)."""
    return [(0, int(p), '') if p.isdigit() else (1, 0, p) for p in re.split(r'(\d+)', s) if p]


def out(cmd):
    return subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                          text=True).stdout


def ensure_dpkg_arch(darch):
    """apt configured to download @darch packages (added as root)."""
    if darch == out(['dpkg', '--print-architecture']).strip():
        return
    if darch in out(['dpkg', '--print-foreign-architectures']).split():
        return
    if os.geteuid() != 0:
        raise FetchError(6, 'dpkg architecture %s not configured; run: sudo dpkg '
                         '--add-architecture %s && sudo apt-get update' % (darch, darch))
    say('adding dpkg architecture %s (to fetch its kernels and busybox)' % darch)
    subprocess.run(['dpkg', '--add-architecture', darch], check=False)
    if not apt_update():
        raise FetchError(6, 'apt-get update failed (log: %s)' % build.apt_log())


def fetch_deb(pkg, dest):
    """Debian package @pkg (name[:arch][=version]) unpacked into @dest,
    once (landed(): a .complete stamp marks a finished unpack, so that an
    interrupted one is redone, and two runs fetching it at once download
    it once)."""
    def fill(tmp):
        dl = os.path.join(tmp, '.deb')
        os.mkdir(dl)
        os.chmod(dl, 0o755)     # apt's _apt sandbox user writes here
        say('downloading %s into %s (once)' % (pkg, dest))
        if build.apt_get(['download', '-q', pkg], cwd=dl):
            sys.stderr.write(build.log_tail(build.apt_log(), 5))
            raise FetchError(6, 'apt-get download %s failed (log: %s)' % (pkg, build.apt_log()))
        debs = glob.glob(os.path.join(dl, '*.deb'))
        if len(debs) != 1 or subprocess.call(['dpkg-deb', '-x', debs[0], tmp]):
            raise FetchError(6, 'dpkg-deb -x failed for %s' % pkg)
        shutil.rmtree(dl)
    return landed(dest, fill, '.complete')


def cached(pattern):
    """Complete cached package directories matching @pattern, oldest first."""
    dirs = [os.path.dirname(c) for c in glob.glob(os.path.join(cache_dir(), pattern, '.complete'))]
    return sorted(dirs, key=lambda d: version_key(os.path.basename(d)))


def stock_kernel_dir(arch):
    """The cached stock kernel (linux-image-6.1.0-*) of @arch, downloaded
    if none is cached (what linux-image-<arch> depends on)."""
    darch = deb_arch(arch)
    have = cached('linux-image-6.1.0-*-%s' % darch)
    if have:
        return have[-1]
    ensure_dpkg_arch(darch)
    meta = 'linux-image-' + darch
    if darch != out(['dpkg', '--print-architecture']).strip():
        meta += ':' + darch
    m = re.search(r'^ *Depends: (linux-image-[0-9][^:\s]*)', out(['apt-cache', 'depends', meta]),
                  re.M)
    if not m:
        raise FetchError(6, 'cannot resolve %s with apt-cache (not Debian? use --kernel)' % meta)
    return fetch_deb('%s:%s' % (m.group(1), darch), os.path.join(cache_dir(), m.group(1)))


VERSION_OF = r'^linux-image-([0-9]+\.[0-9]+\.[0-9]+(-[0-9]+|\+deb[0-9]+))-%s$'


def debian_kernel_versions(darch, names=None):
    """The VERSION of each linux-image-VERSION-@darch package apt knows
    or the cache holds (6.1.0-57, 6.12.117+deb12; no flavours, no
    metapackages), oldest first; @names instead of apt's and the cache's."""
    if names is None:
        names = out(['apt-cache', 'pkgnames', 'linux-image-']).split() + [
            os.path.basename(d) for d in cached('linux-image-*')]
    pat = re.compile(VERSION_OF % re.escape(darch))
    return sorted({m.group(1) for m in map(pat.match, names) if m}, key=version_key)


def pick_version(want, versions, darch):
    """@want (a series: its newest; a full version: exactly it) among
    @versions; FetchError(2) naming those there are."""
    if re.fullmatch(r'[0-9]+\.[0-9]+', want):
        pick = [v for v in versions if v.startswith(want + '.')][-1:]
    else:
        pick = [v for v in versions if v == want]
    if not pick:
        raise FetchError(2, "no Debian kernel '%s' for %s; there are: %s" % (
            want, darch, ' '.join(versions) or 'none (apt-get update?)'))
    return pick[0]


def debian_kernel_dir(want, arch):
    """The cached linux-image-VERSION-<arch> package for @want, fetched once."""
    darch = deb_arch(arch)
    ensure_dpkg_arch(darch)
    versions = debian_kernel_versions(darch)
    if not versions and apt_update():
        versions = debian_kernel_versions(darch)
    pkg = 'linux-image-%s-%s' % (pick_version(want, versions, darch), darch)
    return fetch_deb('%s:%s' % (pkg, darch), os.path.join(cache_dir(), pkg))


def kernel_in(kdir):
    """(newest boot/vmlinuz-*, newest lib/modules/* or '') of an unpacked
    kernel package."""
    images = sorted(glob.glob(os.path.join(kdir, 'boot', 'vmlinuz-*')), key=version_key)
    if not images:
        raise FetchError(6, 'no vmlinuz in %s (remove it to re-download)' % kdir)
    mods = sorted((d for d in glob.glob(os.path.join(kdir, 'lib', 'modules', '*'))
                   if os.path.isdir(d)), key=version_key)
    return images[-1], mods[-1] if mods else ''


def head(path, n=64):
    try:
        with open(path, 'rb') as f:
            return f.read(n)
    except OSError:
        return b''


def bzimage(path):
    """True if @path is an x86 bzImage ('HdrS' at 0x202)."""
    return head(path, 0x206)[0x202:0x206] == b'HdrS'


def is_kernel_image(arch, path):
    """True if @path looks like a kernel QEMU boots for @arch: ELF
    (vmlinux), an x86 bzImage, an arm64 Image ('ARMd' at 0x38), gzip, or
    an EFI zboot image ('MZ' ... 'zimg')."""
    h = head(path)
    if h[:4] == b'\x7fELF':
        return True
    if build.arch_name(arch) == 'x86_64':
        return bzimage(path)
    return h[0x38:0x3c] == b'ARMd' or h[:2] == b'\x1f\x8b' or h[:8] == b'MZ\x00\x00zimg'


def pvh_vmlinux(bz):
    """The uncompressed ELF vmlinux of bzImage @bz (QEMU boots it through
    its PVH entry point, saving the seconds a bzImage spends unpacking
    itself under TCG), extracted once beside it; @bz if it cannot be
    (no CONFIG_PVH, no xz payload)."""
    dst = os.path.join(os.path.dirname(bz), 'vmlinux-pvh')
    if os.path.isfile(dst) and os.path.getsize(dst):
        return dst
    pvh = False
    for cfg in glob.glob(os.path.join(os.path.dirname(bz), 'config-*')):
        with open(cfg, errors='replace') as f:
            pvh = pvh or any(ln.strip() == 'CONFIG_PVH=y' for ln in f)
    if not pvh:
        return bz
    with open(bz, 'rb') as f:
        data = f.read()
    off = data.find(b'\xfd7zXZ\x00')
    if off < 0:
        return bz
    try:
        elf = lzma.LZMADecompressor().decompress(data[off:])
    except lzma.LZMAError:
        return bz
    if elf[:4] != b'\x7fELF':
        return bz
    fd, tmp = tempfile.mkstemp(prefix='.vmlinux-pvh.', dir=os.path.dirname(bz))
    with os.fdopen(fd, 'wb') as f:
        f.write(elf)
    os.chmod(tmp, 0o644)
    os.replace(tmp, dst)    # whole: two runs extracting at once each rename their own
    return dst


def main(argv):
    ap = argparse.ArgumentParser(prog='python3 -m kvmbench.fetch', description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument('--prog', default='vm/run')
    ap.add_argument('cmd', choices=('stock-kernel-dir', 'debian-kernel-dir', 'fetch-deb',
                                    'ensure-dpkg-arch', 'pvh-vmlinux'))
    ap.add_argument('args', nargs='*')
    a = ap.parse_args(argv)
    PROG[0] = a.prog
    funcs = {'stock-kernel-dir': (stock_kernel_dir, 1), 'debian-kernel-dir': (debian_kernel_dir, 2),
             'fetch-deb': (fetch_deb, 2), 'ensure-dpkg-arch': (ensure_dpkg_arch, 1),
             'pvh-vmlinux': (pvh_vmlinux, 1)}
    func, n = funcs[a.cmd]
    if len(a.args) != n:
        ap.error('%s takes %d arguments' % (a.cmd, n))
    try:
        res = func(*a.args)
    except FetchError as e:
        say(str(e))
        return e.status
    except ValueError as e:
        say(str(e))
        return 2
    if res:
        print(res)
    return 0


if __name__ == '__main__':
    sys.exit(main(sys.argv[1:]))
