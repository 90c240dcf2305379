#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-only
"""Unit tests of what vm/run does before it boots, without a boot:
its options and checks (kvmbench.vmrun.vm), the kernels (kvmbench.kernels.fetch: versions,
the cache, kernel images, no download), the initramfs (kvmbench.vmrun.initramfs:
modules, their order and release, the guest's conf).
Run: python3 bench/test_vm.py (--tap: kselftest TAP, one result a test)"""
import os
import shutil
import subprocess
import sys
import tempfile
import unittest

BENCH = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, BENCH)
from kvmbench.base.tap import tap  # noqa: E402
from kvmbench.kernels import build, debian, fetch  # noqa: E402
from kvmbench.vmrun import initramfs, runner, vm  # noqa: E402
from kvmbench.labs import lavajobs  # noqa: E402
from kvmbench.tracking import track  # noqa: E402
from kvmbench.measure import perf  # noqa: E402
from kvmbench.measure.tables import common as tables_common  # noqa: E402
from testkit import Quiet, fake_tree  # noqa: E402


class VmRun(unittest.TestCase):
    """kvmbench.vmrun.vm: vm/run's options and checks, without a boot."""

    def parse_err(self, *argv):
        with self.assertRaises(vm.Exit) as c:
            vm.parse(argv, host='x86_64')
        return c.exception.status, c.exception.msg, c.exception.usage

    def test_defaults(self):
        a = vm.parse(['--', './t', '-x'], host='x86_64')
        self.assertEqual((a.arch, a.emu, a.smp, a.mem, a.mem_mib, a.numa, a.timeout, a.accel,
                          a.cmd), ('x86_64', 'qemu', 2, '2G', 2048, 1, 3600, 'auto', ['./t', '-x']))
        a = vm.parse(['--arch=aarch64', '--mem', '1536M', '-v', '--cpu', ''], host='x86_64')
        self.assertEqual((a.arch, a.mem_mib, a.verbose, a.cpu), ('arm64', 1536, True, ''))
        self.assertEqual(vm.parse(['--cpu', 'intel'], host='x86_64').emu, 'bochs')

    def test_usage_errors(self):
        for argv, msg in (
                (['--bogus'], 'unknown option --bogus'),
                (['--bogus=1'], 'unknown option --bogus'),
                (['--smp'], 'option --smp needs a value'),
                (['foo'], "unexpected argument 'foo' (use -- CMD to run a command)"),
                (['--'], '-- needs a command'),
                (['--arch', 'mips'], "unknown arch 'mips' (x86_64 or arm64)"),
                (['--cpu', 'via'], "bad --cpu 'via' (amd or intel)"),
                (['--arch', 'arm64', '--cpu', 'amd'], '--cpu amd is for --arch x86_64 only'),
                (['--smp', '0'], "bad --smp '0'"),
                (['--smp', '2', '--numa', '3'], '--numa 3 needs at least as many CPUs (--smp 2)'),
                (['--hugepages', '-1'], "bad --hugepages '-1'"),
                (['--timeout', '0'], "bad --timeout '0'"),
                (['--mem', '64M'], "bad --mem '64M' (e.g. 2G, 1536M; at least 128M)"),
                (['--mem', '200M', '--numa', '4', '--smp', '4'], '--mem 200M too small for --numa 4'),
                (['--accel', 'hvf'], "bad --accel 'hvf' (auto, kvm or tcg)"),
                (['--cpu', 'intel', '--accel', 'tcg'], '--accel tcg: --cpu intel always runs under Bochs'),
                (['--cpu', 'intel', '--mem', '9G'], '--mem 9G: at most 8G under Bochs (--cpu intel)'),
                (['--modules', '/'], '--modules needs --kernel'),
                (['--debian-kernel', '6.12', '--kernel', '/x'], '--debian-kernel and --kernel exclude each other'),
                (['--debian-kernel', '6.x'], "bad --debian-kernel '6.x' (e.g. 6.12, 6.12.115+deb12, 6.1.0-57)"),
                (['--kernel', '/nonexistent'], "kernel '/nonexistent' not found"),
                (['--kvm-modules', '/nonexistent'], "--kvm-modules dir '/nonexistent' not found"),
                (['--kernel', __file__, '--kvm-modules', '/'], "--kvm-modules needs the kernel's modules")):
            status, got, usage = self.parse_err(*argv)
            self.assertEqual((status, usage), (2, True), argv)
            self.assertTrue(got.startswith(msg), (argv, got))
        self.assertEqual(self.parse_err('--smp', 'x', '-h')[0], 0)
        self.assertEqual(self.parse_err('--bogus', '-h')[:2], (2, 'unknown option --bogus'))

    def test_mem(self):
        self.assertEqual([vm.mem_mib(m) for m in ('2G', '2048', '1536m', '1048576K', '1T', 'G', '')],
                         [2048, 2048, 1536, 1024, 1048576, None, None])

    def test_dir_checks(self):
        with tempfile.TemporaryDirectory() as d:
            a = vm.parse(['--dir', d], host='x86_64')
            with self.assertRaises(vm.Exit) as c:
                vm.check_dir(a)
            self.assertEqual(c.exception.msg, "no kselftest-list.txt in '%s'" % d)
            a = vm.parse(['--dir', d, '--list-first', '--', './t'], host='x86_64')
            open(os.path.join(d, 'kselftest-list.txt'), 'w').close()
            self.assertIsNone(vm.check_dir(a))
            a = vm.parse(['--dir', d, '--export', os.path.join(d, 'exp'), '--', './t'],
                         host='x86_64')
            with self.assertRaisesRegex(vm.Exit, '--export takes no CMD'):
                vm.check_dir(a)
            a = vm.parse(['--dir', d, '--list-first'], host='x86_64')
            with self.assertRaisesRegex(vm.Exit, '--list-first needs -- CMD'):
                vm.check_dir(a)
            # The default tree is found where it is, never rebuilt.
            tree = build.tree_path('x86_64', d)
            os.makedirs(tree)
            self.assertEqual(vm.default_dir(a, repo=d), tree)

    def test_accel(self):
        a = vm.parse(['--arch', 'arm64'], host='x86_64')
        self.assertEqual(vm.choose_accel(a, host='x86_64'), 'tcg')
        a = vm.parse(['--arch', 'arm64', '--accel', 'kvm'], host='x86_64')
        with self.assertRaisesRegex(vm.Exit, 'cannot run an arm64 guest on an x86_64 host'):
            vm.choose_accel(a, host='x86_64')
        self.assertEqual(vm.choose_accel(vm.parse(['--accel', 'tcg'], host='x86_64')), 'tcg')

    def test_run_args(self):
        self.assertEqual(vm.run_args('arm64', '6.12', '/t', ['./x', '-b', '4M'], smp=4,
                                     verbose=True, numa=None)[1:],
                         ['--arch', 'arm64', '--debian-kernel', '6.12', '--dir', '/t', '--smp', '4',
                          '--verbose', '--', './x', '-b', '4M'])

    def test_lava_export_command(self):
        seen = []

        def fake_run(cmd, **kw):
            seen.append(cmd)
            return subprocess.CompletedProcess(cmd, 2, 'vm/run: bad --mem\n')
        with tempfile.TemporaryDirectory() as d:
            real, lavajobs.subprocess.run = lavajobs.subprocess.run, fake_run
            try:
                with self.assertRaisesRegex(lavajobs.JobSetupError, r"failed: \['vm/run: bad"):
                    lavajobs.export_boot('arm64', '6.12', fake_tree(os.path.join(d, 't'), 1),
                                         os.path.join(d, 'out'), hugepages=4, mem='1G')
            finally:
                lavajobs.subprocess.run = real
            self.assertFalse(os.path.exists(os.path.join(d, 'out.tests')))
        self.assertEqual(seen[0][1:], ['--arch', 'arm64', '--dir', os.path.join(d, 'out.tests'),
                                       '--export', os.path.join(d, 'out'), '--hugepages', '4',
                                       '--mem', '1G', '--accel', 'tcg', '--debian-kernel', '6.12'])

    def test_entry(self):
        run = os.path.join(os.path.dirname(BENCH), 'vm', 'run')
        p = subprocess.run([run, '--smp', 'x'], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                           text=True)
        self.assertEqual(p.returncode, 2)
        self.assertEqual(p.stderr.splitlines()[:2], [
            "vm/run: bad --smp 'x'", 'usage: vm/run [--arch x86_64|arm64] [--cpu amd|intel] '
            '[--dir DIR] [--debian-kernel VERSION]'])
        p = subprocess.run([run, '--help'], stdout=subprocess.PIPE, text=True)
        self.assertEqual((p.returncode, p.stdout), (0, vm.USAGE))
        self.assertIs(runner.check_cpu, vm.check_cpu)


class BuiltCommands(unittest.TestCase):
    """What the programs build for vm/run (runner, track, perf, tables,
    all through vm.run_args) is what vm/run's own parser takes, with the
    settings they meant."""

    def parsed(self, cmd, script_has):
        self.assertEqual(cmd[0], os.path.join(vm.VM_DIR, 'run'))
        a = vm.parse(cmd[1:], host='x86_64')
        self.assertEqual(a.cmd[:2], ['sh', '-c'])
        self.assertIn(script_has, a.cmd[2])
        return a

    def test_runner_vm(self):
        v = runner.VM('demand_paging_test', ['--arch', 'x86_64', '--smp', '1', '--mem', '2G',
                                             '--hugepages', '0'], {},
                      {'a': '/tests/a/kvm', 'b': '/tests/b/kvm'}, 60, False)
        runs = [runner.Run('a', 0, 1, ['-b', '16M']), runner.Run('b', 0, 0, ['-b', '16M'])]
        a = self.parsed(v.command(runs, '/t', 900, ['--debian-kernel', '6.12']),
                        "bench_run b 0 0 /tests/b/kvm '-b' '16M'")
        self.assertEqual((a.arch, a.smp, a.mem, a.dir, a.timeout, a.debian_kernel),
                         ('x86_64', 1, '2G', '/t', 900, '6.12'))

    def test_track(self):
        cmds = track.commands(track.parser().parse_args(['--commands', 'dp']))
        targs = track.parser().parse_args(['--mem', '1G'])
        targs.tests, targs.run_timeout = {'arm64': '/t'}, 60
        k = track.Kernel('6.1', ['--debian-kernel', '6.1'])
        a = self.parsed(track.vm_cmd(k, 'arm64', cmds, [0, 1], targs),
                        "BENCH_TEST='demand_paging_test' bench_run c0 1 0 /tests/kvm")
        self.assertEqual((a.arch, a.smp, a.mem, a.dir, a.timeout, a.debian_kernel),
                         ('arm64', 1, '1G', '/t', 60 * 5, '6.1'))

    def test_perf(self):
        c = perf.parse(['--arch', 'x86_64', '--vcpus', '2', '--debian-kernel', '6.12'])
        a = self.parsed(perf.vm_cmd(c, '/t'), 'a VM (vm/run --debian-kernel 6.12)')
        self.assertEqual((a.smp, a.mem, a.dir, a.timeout, a.debian_kernel),
                         (2, perf.vm_mem(c.size, c.vcpus), '/t', 3000, '6.12'))

    def test_tables(self):
        seen = []

        def fake_run(cmd, **kw):
            seen.append(cmd)
            return subprocess.CompletedProcess(cmd, 0, b'out')
        real = tables_common.build, tables_common.subprocess.run
        tables_common.build, tables_common.subprocess.run = (lambda arch: '/t'), fake_run
        try:
            self.assertEqual(tables_common.vm_run(tables_common.guest_run('x_test', 30),
                                                  ['--smp', '4'], 700), 'out')
        finally:
            tables_common.build, tables_common.subprocess.run = real
        a = self.parsed(seen[0], 'bench_watch 30 /tmp/out ./x_test "$@"')
        self.assertEqual((a.arch, a.smp, a.dir, a.timeout), ('x86_64', 4, '/t', 700))


class Fetch(unittest.TestCase):
    """kvmbench.kernels.debian and fetch: kernel versions, the cache, kernel images (no download)."""

    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        self.old = os.environ.get('XDG_CACHE_HOME')
        os.environ['XDG_CACHE_HOME'] = self.tmp.name
        self.cache = os.path.join(self.tmp.name, 'kvm-selftests')

    def tearDown(self):
        if self.old is None:
            os.environ.pop('XDG_CACHE_HOME')
        else:
            os.environ['XDG_CACHE_HOME'] = self.old
        self.tmp.cleanup()

    def pkg(self, name, image=b'\x7fELF', modules='6.1.0-10-amd64'):
        d = os.path.join(self.cache, name)
        os.makedirs(os.path.join(d, 'boot'))
        os.makedirs(os.path.join(d, 'lib', 'modules', modules))
        with open(os.path.join(d, 'boot', 'vmlinuz-' + modules), 'wb') as f:
            f.write(image)
        open(os.path.join(d, '.complete'), 'w').close()
        return d

    def test_versions(self):
        names = ['linux-image-6.1.0-9-amd64', 'linux-image-6.1.0-10-amd64',
                 'linux-image-6.12.9+deb12-amd64', 'linux-image-6.12.10+deb12-amd64',
                 'linux-image-6.12.10+deb12-cloud-amd64', 'linux-image-amd64',
                 'linux-image-6.1.0-10-arm64']
        v = debian.kernel_versions('x86_64', names=names)
        self.assertEqual(v, ['6.1.0-9', '6.1.0-10', '6.12.9+deb12', '6.12.10+deb12'])
        self.assertEqual(debian.pick_version('6.12', v, 'amd64'), '6.12.10+deb12')
        self.assertEqual(debian.pick_version('6.1', v, 'amd64'), '6.1.0-10')
        self.assertEqual(debian.pick_version('6.1.0-9', v, 'amd64'), '6.1.0-9')
        with self.assertRaises(debian.FetchError) as c:
            debian.pick_version('6.99', v, 'amd64')
        self.assertEqual((c.exception.status, str(c.exception)),
                         (2, "no Debian kernel '6.99' for amd64; there are: 6.1.0-9 6.1.0-10 "
                          "6.12.9+deb12 6.12.10+deb12"))
        with self.assertRaisesRegex(debian.FetchError, r'there are: none \(apt-get update\?\)'):
            debian.pick_version('6.1', [], 'arm64')

    def test_cache(self):
        self.pkg('linux-image-6.1.0-9-amd64', modules='6.1.0-9-amd64')
        newest = self.pkg('linux-image-6.1.0-10-amd64')
        os.makedirs(os.path.join(self.cache, 'linux-image-6.1.0-11-amd64'))  # unfinished
        self.assertEqual(debian.stock_kernel_dir('x86_64'), newest)
        self.assertEqual(debian.fetch_deb('anything', newest), newest)   # cached: no apt
        self.assertEqual(fetch.kernel_in(newest),
                         (os.path.join(newest, 'boot', 'vmlinuz-6.1.0-10-amd64'),
                          os.path.join(newest, 'lib', 'modules', '6.1.0-10-amd64')))
        with self.assertRaisesRegex(debian.FetchError, 'no vmlinuz in'):
            fetch.kernel_in(self.tmp.name)

    def write(self, name, data):
        path = os.path.join(self.tmp.name, name)
        with open(path, 'wb') as f:
            f.write(data)
        return path

    def test_images(self):
        bz = self.write('bz', b'\0' * 0x202 + b'HdrS' + b'\0' * 64)
        arm = self.write('Image', b'\0' * 0x38 + b'ARMd' + b'\0' * 8)
        elf = self.write('vmlinux', b'\x7fELF' + b'\0' * 60)
        gz = self.write('Image.gz', b'\x1f\x8b' + b'\0' * 60)
        txt = self.write('text', b'hello, world\n' * 100)
        self.assertEqual([fetch.is_kernel_image('x86_64', f) for f in (bz, arm, elf, gz, txt)],
                         [True, False, True, False, False])
        self.assertEqual([fetch.is_kernel_image('arm64', f) for f in (bz, arm, elf, gz, txt)],
                         [False, True, True, True, False])
        self.assertFalse(fetch.is_kernel_image('arm64', '/nonexistent'))
        a = vm.parse(['--cpu', 'intel', '--kernel', elf], host='x86_64')
        with self.assertRaisesRegex(vm.Exit, 'is not a bzImage'):
            vm.choose_kernel(a)
        a = vm.parse(['--kernel', txt], host='x86_64')
        with self.assertRaisesRegex(vm.Exit, 'is not a bootable x86_64 kernel image') as c:
            vm.choose_kernel(a)
        self.assertEqual(c.exception.status, 3)
        a = vm.parse(['--kernel', elf, '--modules', self.tmp.name], host='x86_64')
        self.assertEqual(vm.choose_kernel(a), (elf, self.tmp.name))

    def test_pvh(self):
        import lzma
        payload = b'\x7fELF' + bytes(range(256)) * 40
        d = os.path.join(self.tmp.name, 'boot')
        os.makedirs(d)
        bz = os.path.join(d, 'vmlinuz-6.1')
        with open(bz, 'wb') as f:
            f.write(b'\0' * 0x202 + b'HdrS' + b'\0' * 500 + lzma.compress(payload) + b'\0' * 64)
        self.assertEqual(fetch.pvh_vmlinux(bz), bz)      # no CONFIG_PVH=y: the bzImage
        with open(os.path.join(d, 'config-6.1'), 'w') as f:
            f.write('CONFIG_X=y\nCONFIG_PVH=y\n')
        out = fetch.pvh_vmlinux(bz)
        self.assertEqual(out, os.path.join(d, 'vmlinux-pvh'))
        with open(out, 'rb') as f:
            self.assertEqual(f.read(), payload)
        # The shell's name for it (vm/fetch.sh) runs the same code.
        sh = ('. "$0/vm/build-deps.sh"; . "$0/vm/fetch.sh"; info() { echo "t: $*" >&2; }; '
              'pvh_vmlinux "$1"; debian_kernel_dir 6.x x86_64')
        os.remove(out)
        p = subprocess.run(['bash', '-c', sh, os.path.dirname(BENCH), bz],
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        self.assertEqual((p.returncode, p.stdout), (2, out + '\n'))
        self.assertRegex(p.stderr, "^t: no Debian kernel '6.x' for amd64")


class Initramfs(unittest.TestCase):
    """kvmbench.vmrun.initramfs: modules, their order and release, the guest's conf."""

    def ko(self, d, name, depends='', release='6.1.0-10-amd64', xz=False):
        import lzma
        data = (b'\x7fELF junk\0license=GPL\0depends=%s\0vermagic=%s SMP mod_unload\0' %
                (depends.encode(), release.encode()))
        os.makedirs(d, exist_ok=True)
        path = os.path.join(d, name + ('.ko.xz' if xz else '.ko'))
        with open(path, 'wb') as f:
            f.write(lzma.compress(data) if xz else data)
        return path

    def test_modules(self):
        with tempfile.TemporaryDirectory() as d:
            tree = os.path.join(d, 'lib', 'modules', '6.1.0-10-amd64')
            self.ko(os.path.join(tree, 'virt'), 'irqbypass')
            self.ko(os.path.join(tree, 'kvm'), 'kvm', 'irqbypass', xz=True)
            self.ko(os.path.join(tree, 'kvm'), 'kvm-amd', 'kvm,ccp')
            self.ko(os.path.join(tree, 'crypto'), 'ccp')
            self.ko(os.path.join(tree, 'kvm'), 'kvm-intel', 'kvm,missing_one')
            mine = os.path.join(d, 'mine')
            self.ko(mine, 'kvm', 'irqbypass')
            root = os.path.join(d, 'root')
            with Quiet() as q:
                initramfs.install_kvm_modules(tree, root, 'x86_64', mine)
            self.assertIn('warning: dependency missing_one of kvm_intel not found', q.err)
            with open(os.path.join(root, 'etc', 'vmrun', 'mods.amd')) as f:
                self.assertEqual(f.read(), 'irqbypass\nkvm\nccp\nkvm_amd\n')
            with open(os.path.join(root, 'etc', 'vmrun', 'mods.intel')) as f:
                self.assertEqual(f.read(), 'irqbypass\nkvm\nkvm_intel nested=1\n')
            self.assertEqual(sorted(os.listdir(os.path.join(root, 'lib', 'modules'))),
                             ['ccp.ko', 'irqbypass.ko', 'kvm.ko', 'kvm_amd.ko', 'kvm_intel.ko'])
            # --kvm-modules: mine's kvm.ko (plain) replaced the tree's (xz).
            with open(os.path.join(root, 'lib', 'modules', 'kvm.ko'), 'rb') as f:
                self.assertTrue(f.read().startswith(b'\x7fELF'))
            self.assertEqual(initramfs.check_kvm_modules(mine, '6.1.0-10-amd64'), '')
            with self.assertRaisesRegex(debian.FetchError, 'kvm.ko is for 6.1.0-10-amd64, the '
                                        'kernel to boot is 6.12'):
                initramfs.check_kvm_modules(mine, '6.12')
            with self.assertRaisesRegex(debian.FetchError, 'no modules and no kernel'):
                initramfs.check_kvm_modules(os.path.join(d, 'root', 'etc'), '6.12')
            boot = os.path.join(d, 'arm', 'boot')
            os.makedirs(boot)
            open(os.path.join(boot, 'Image-6.12.1-arm64'), 'w').close()
            self.assertEqual(initramfs.check_kvm_modules(os.path.dirname(boot), '6.12.1-arm64'),
                             os.path.join(boot, 'Image-6.12.1-arm64'))
            with self.assertRaisesRegex(debian.FetchError, 'its kernel is 6.12.1-arm64'):
                initramfs.check_kvm_modules(os.path.dirname(boot), '6.12.2-arm64')
            # arm64's KVM is built in: no list.
            root2 = os.path.join(d, 'root2')
            initramfs.install_kvm_modules(os.path.join(d, 'arm'), root2, 'arm64')
            self.assertEqual(os.listdir(os.path.join(root2, 'etc', 'vmrun')), [])

    def test_conf(self):
        cmd = ['sh', '-c', "echo 'a b' \"$0\""]
        text = initramfs.conf(cmd, False, '', 4)
        self.assertTrue(text.startswith('MODE=cmd\nHUGEPAGES=4\nCMD='))
        p = subprocess.run(['sh', '-c', '. "$0"; eval "set -- $CMD"; "$@"', '/dev/stdin'],
                           input=text, stdout=subprocess.PIPE, text=True)
        self.assertEqual(p.stdout, 'a b sh\n')
        self.assertEqual([initramfs.conf(c, lf, ex, 0).split('\n')[0] for c, lf, ex in (
            ([], False, ''), (['x'], True, ''), ([], False, '/out'))],
            ['MODE=tests', 'MODE=both', 'MODE=lava'])

    def test_tools(self):
        missing = initramfs.host_tools_missing('bochs', 'x86_64')
        for check, pkg in initramfs.TOOLS[('bochs', 'x86_64')]:
            there = os.path.exists(check) if check.startswith('/') else shutil.which(check)
            self.assertEqual(pkg in missing, not there, check)


if __name__ == '__main__':
    if sys.argv[1:] == ['--tap']:
        sys.exit(tap(sys.modules[__name__], 'vm'))
    unittest.main(verbosity=2)
