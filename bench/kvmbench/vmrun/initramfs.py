# SPDX-License-Identifier: GPL-2.0-only
"""kvmbench.vmrun.initramfs: what vm/run puts in the guest, and the host tools
it needs for that.

The host's packages for an emulator (ensure_host_tools), a static busybox
for the guest arch, KVM's modules and their dependencies (from each
module's depends=), checked against the kernel's release for
--kvm-modules (check_kvm_modules), and the initramfs itself (build): busybox,
vm/init, the tests as /tests, the modules with their load order in
/etc/vmrun/mods.<flavour> and /etc/vmrun/conf (MODE, HUGEPAGES, CMD).
Failures are debian.FetchError (2: the user's input, 6: the host)."""
import gzip
import lzma
import os
import re
import shutil
import subprocess

from kvmbench.kernels import build, debian
from kvmbench.kernels.debian import FetchError, say

# check:package pairs each emulator needs (check: a command, or a path).
TOOLS = {
    ('qemu', 'x86_64'): [('qemu-system-x86_64', 'qemu-system-x86')],
    ('qemu', 'arm64'): [('qemu-system-aarch64', 'qemu-system-arm')],
    ('bochs', 'x86_64'): [
        ('bochs-bin', 'bochs'), ('/usr/share/bochs/BIOS-bochs-latest', 'bochsbios'),
        ('/usr/share/vgabios/vgabios.bin', 'vgabios'), ('grub-mkrescue', 'grub-common'),
        ('/usr/lib/grub/i386-pc/cdboot.img', 'grub-pc-bin'), ('xorriso', 'xorriso'),
        ('mformat', 'mtools')],
}
COMMON_TOOLS = [('cpio', 'cpio'), ('timeout', 'coreutils'), ('dpkg-deb', 'dpkg'),
                ('apt-get', 'apt'), ('xz', 'xz-utils')]
# The module chains the guest loads: x86_64's by the CPU's vendor, the
# flavour a file name (mods.amd, mods.intel); kvm_intel takes nested=1
# (its default was 0 before 4.20 and a distribution may set it off).
FLAVOURS = {'x86_64': (('amd', 'kvm_amd'), ('intel', 'kvm_intel')), 'arm64': (('kvm', 'kvm'),)}
PARAMS = {'kvm_intel': ' nested=1'}
MOD_SUFFIX = re.compile(r'\.ko(\.xz|\.zst|\.gz)?$')


def host_busybox_static():
    """True if /bin/busybox is the statically linked one of busybox-static."""
    return os.access('/bin/busybox', os.X_OK) and build.installed('busybox-static')


def host_tools_missing(emu, arch):
    """The packages of the tools booting an @arch guest under @emu needs
    that this host lacks."""
    pkgs = []
    for check, pkg in TOOLS[(emu, arch)] + COMMON_TOOLS:
        there = os.path.exists(check) if check.startswith('/') else shutil.which(check)
        if not there and pkg not in pkgs:
            pkgs.append(pkg)
    if arch == 'x86_64' and build.host_arch() == 'x86_64' and not host_busybox_static():
        pkgs.append('busybox-static')
    return pkgs


def ensure_host_tools(emu, arch):
    pkgs = host_tools_missing(emu, arch)
    if not pkgs:
        return
    if os.geteuid() != 0:
        raise FetchError(6, 'missing host packages; run: sudo apt-get install -y '
                         '--no-install-recommends ' + ' '.join(pkgs))
    try:
        build.install(pkgs, 'to boot an %s guest under %s' % (arch, emu), say,
                      lambda _: host_tools_missing(emu, arch))
    except build.BuildError as e:
        raise FetchError(6, str(e)) from None


def static_busybox(arch):
    """A static busybox for guest @arch: the host's, or busybox-static of
    that arch from the cache."""
    darch = debian.DEB_ARCH[build.arch_name(arch)]
    if darch == debian.out(['dpkg', '--print-architecture']).strip() and host_busybox_static():
        return '/bin/busybox'
    debian.ensure_dpkg_arch(darch)
    d = debian.fetch_deb('busybox-static:' + darch,
                         os.path.join(debian.cache_dir(), 'busybox-static-' + darch))
    return os.path.join(d, 'bin', 'busybox')


def mod_name(path):
    """The module name of file @path, '-' as '_' (as depends= has them)."""
    return MOD_SUFFIX.sub('', os.path.basename(path)).replace('-', '_')


def mod_data(path):
    """The uncompressed contents of module file @path."""
    if path.endswith('.xz'):
        with lzma.open(path) as f:
            return f.read()
    if path.endswith('.gz'):
        with gzip.open(path) as f:
            return f.read()
    if path.endswith('.zst'):
        p = subprocess.run(['zstd', '-dcq', path], stdout=subprocess.PIPE)
        return p.stdout
    with open(path, 'rb') as f:
        return f.read()


def modinfo(data, key):
    """The first KEY=value string of a module's contents, or ''."""
    pre = key.encode() + b'='
    for s in re.split(rb'[\0\n]', data):
        if s.startswith(pre):
            return s[len(pre):].decode(errors='replace')
    return ''


def modules_in(*trees):
    """Every module file under @trees, later trees' replacing earlier
    ones' of the same name: {name: path}."""
    index = {}
    for t in trees:
        found = []
        for d, _, files in os.walk(t):
            found += [os.path.join(d, f) for f in files if MOD_SUFFIX.search(f)]
        for f in sorted(found):
            index[mod_name(f)] = f
    return index


def check_kvm_modules(kvm_dir, release):
    """Refuse (FetchError 2) a vm/kvm-build --out @kvm_dir built for
    another release than the kernel's @release; its kernel image if it
    has one (arm64: KVM is built in, vm/kvm-build builds the kernel),
    else ''."""
    for pat in ('Image-', 'vmlinuz-'):
        for f in sorted(os.listdir(os.path.join(kvm_dir, 'boot'))
                        if os.path.isdir(os.path.join(kvm_dir, 'boot')) else []):
            if f.startswith(pat) and os.path.isfile(os.path.join(kvm_dir, 'boot', f)):
                got = f[len(pat):]
                if got != release:
                    raise FetchError(2, '--kvm-modules %s: its kernel is %s, the kernel to boot '
                                     'is %s' % (kvm_dir, got, release))
                return os.path.join(kvm_dir, 'boot', f)
    mods = modules_in(kvm_dir)
    if not mods:
        raise FetchError(2, '--kvm-modules %s: no modules and no kernel in it (a vm/kvm-build '
                         '--out DIR)' % kvm_dir)
    for path in mods.values():
        got = modinfo(mod_data(path), 'vermagic').split(' ')[0]
        if got != release:
            raise FetchError(2, '--kvm-modules %s: %s is for %s, the kernel to boot is %s '
                             '(vm/kvm-build --debian-kernel of that kernel)' % (
                                 kvm_dir, os.path.basename(path), got or 'no release', release))
    return ''


def load_order(top, index, deps):
    """@top and its dependencies (@deps(name): its depends= names), each
    after what it needs; None if @top is not in @index."""
    order, seen = [], set()

    def visit(name):
        if name in seen:
            return True
        seen.add(name)
        if name not in index:
            return False
        for d in deps(name):
            if not visit(d):
                say('warning: dependency %s of %s not found' % (d, name))
        order.append(name)
        return True
    return order if visit(top) else None


def install_kvm_modules(tree, root, arch, kvm_modules=''):
    """KVM's modules and their dependencies from @tree (and @kvm_modules,
    whose modules replace the tree's) into initramfs @root as plain .ko
    files, with a load-order list /etc/vmrun/mods.<flavour> for each
    chain found (none when KVM is built in)."""
    index = modules_in(*[t for t in (tree, kvm_modules) if t])
    data = {}

    def deps(name):
        data.setdefault(name, mod_data(index[name]))
        return [d.replace('-', '_') for d in modinfo(data[name], 'depends').split(',') if d]
    os.makedirs(os.path.join(root, 'lib', 'modules'), exist_ok=True)
    os.makedirs(os.path.join(root, 'etc', 'vmrun'), exist_ok=True)
    for flavour, top in FLAVOURS[build.arch_name(arch)]:
        order = load_order(top, index, deps)
        if order is None:
            continue
        for name in order:
            ko = os.path.join(root, 'lib', 'modules', name + '.ko')
            if not os.path.exists(ko):
                with open(ko, 'wb') as f:
                    f.write(data.get(name) or mod_data(index[name]))
        with open(os.path.join(root, 'etc', 'vmrun', 'mods.' + flavour), 'w') as f:
            f.write(''.join(n + PARAMS.get(n, '') + '\n' for n in order))


def shquote(s):
    """@s single-quoted for a POSIX shell."""
    return "'%s'" % s.replace("'", "'\\''")


def conf(cmd, list_first, export, hugepages):
    """The text of /etc/vmrun/conf (vm/init reads it)."""
    mode = 'lava' if export else 'both' if list_first else 'cmd' if cmd else 'tests'
    words = ''.join(shquote(a) + ' ' for a in cmd)
    return 'MODE=%s\nHUGEPAGES=%d\nCMD=%s\n' % (mode, hugepages, shquote(words))


def build_initramfs(a, work, repo=build.REPO):
    """@work/initrd.cpio (newc, uncompressed) for the settings @a (arch,
    dir, modtree, kvm_modules, cmd, list_first, export, hugepages)."""
    root = os.path.join(work, 'root')
    for d in ('bin', 'sbin', 'etc/vmrun', 'proc', 'sys', 'dev', 'tmp', 'root', 'lib/modules'):
        os.makedirs(os.path.join(root, d), exist_ok=True)
    shutil.copy(static_busybox(a.arch), os.path.join(root, 'bin', 'busybox'))
    os.symlink('busybox', os.path.join(root, 'bin', 'sh'))
    for src, dst in (('vm/init', 'init'), ('testcases/run.sh', 'etc/vmrun/run-cases')):
        shutil.copy(os.path.join(repo, src), os.path.join(root, dst))
        os.chmod(os.path.join(root, dst), 0o755)
    tests = os.path.join(root, 'tests')
    if subprocess.call(['cp', '-al', a.dir, tests], stderr=subprocess.DEVNULL):
        shutil.rmtree(tests, ignore_errors=True)
        subprocess.check_call(['cp', '-a', a.dir, tests])
    if a.modtree:
        install_kvm_modules(a.modtree, root, a.arch, a.kvm_modules or '')
    with open(os.path.join(root, 'etc', 'vmrun', 'conf'), 'w') as f:
        f.write(conf(a.cmd, a.list_first, a.export, a.hugepages))
    out = os.path.join(work, 'initrd.cpio')
    with open(out, 'wb') as f:
        names = subprocess.run(['find', '.', '-print0'], cwd=root, stdout=subprocess.PIPE,
                               check=True).stdout
        subprocess.run(['cpio', '--null', '-o', '-H', 'newc', '-R', '0:0', '--quiet'], cwd=root,
                       input=names, stdout=f, check=True)
    shutil.rmtree(root)
    return out
