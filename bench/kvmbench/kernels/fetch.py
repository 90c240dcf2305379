# SPDX-License-Identifier: GPL-2.0-only
"""kvmbench.kernels.fetch: the kernels vm/run boots.

The checks on a kernel image (is_kernel_image, bzimage), the image and
modules of an unpacked kernel package (kernel_in) and the uncompressed
vmlinux QEMU boots through PVH (pvh_vmlinux); the Debian packages they
come from, downloaded once into the cache (each whole or not at all,
under a lock: debian.landed; the stock 6.1 kernel, a
--debian-kernel version: a series such as 6.12 means its newest), are
kvmbench.kernels.debian's.  A failure is FetchError(status, message): 2 for the
user's mistake, 6 for the host's set-up.  vm/fetch.sh's functions of
the same names call the command line:

  python3 -m kvmbench.kernels.fetch [--prog P] stock-kernel-dir ARCH
  python3 -m kvmbench.kernels.fetch [--prog P] debian-kernel-dir VERSION ARCH
  python3 -m kvmbench.kernels.fetch [--prog P] fetch-deb PKG DEST
  python3 -m kvmbench.kernels.fetch [--prog P] ensure-dpkg-arch DEB_ARCH
  python3 -m kvmbench.kernels.fetch [--prog P] pvh-vmlinux BZIMAGE
"""
import argparse
import glob
import lzma
import os
import sys
import tempfile

from . import build, debian
from .debian import PROG, FetchError, say


def kernel_in(kdir):
    """(newest boot/vmlinuz-*, newest lib/modules/* or '') of an unpacked
    kernel package."""
    images = sorted(glob.glob(os.path.join(kdir, 'boot', 'vmlinuz-*')), key=debian.version_key)
    if not images:
        raise FetchError(6, 'no vmlinuz in %s (remove it to re-download)' % kdir)
    mods = sorted((d for d in glob.glob(os.path.join(kdir, 'lib', 'modules', '*'))
                   if os.path.isdir(d)), key=debian.version_key)
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
    ap = argparse.ArgumentParser(prog='python3 -m kvmbench.kernels.fetch', description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument('--prog', default='vm/run')
    ap.add_argument('cmd', choices=('stock-kernel-dir', 'debian-kernel-dir', 'fetch-deb',
                                    'ensure-dpkg-arch', 'pvh-vmlinux'))
    ap.add_argument('args', nargs='*')
    a = ap.parse_args(argv)
    PROG[0] = a.prog
    funcs = {'stock-kernel-dir': (lambda arch: debian.stock_kernel_dir(build.arch_name(arch)), 1),
             'debian-kernel-dir': (lambda want, arch: debian.debian_kernel_dir(
                 want, build.arch_name(arch)), 2),
             'fetch-deb': (debian.fetch_deb, 2), 'ensure-dpkg-arch': (debian.ensure_dpkg_arch, 1),
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
