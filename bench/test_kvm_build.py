#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-only
"""Unit tests of vm/kvm-build's patches (kvmbench.kbuild.kvm_tree, kvmbench.kernels.debian):
parsed, applied to copies, refused well.
Run: python3 bench/test_kvm_build.py (--tap: kselftest TAP, one result a test)"""
import os
import shutil
import subprocess
import sys
import tempfile
import unittest
from unittest import mock

BENCH = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, BENCH)
from kvmbench.base.tap import tap  # noqa: E402
from kvmbench.kernels import debian  # noqa: E402
from kvmbench.vmrun import runner  # noqa: E402
from kvmbench.kbuild import kvm_build, kvm_config, kvm_tree  # noqa: E402
from kvmbench.attribution import bisect  # noqa: E402
from kvmbench.attribution import kvm_bisect  # noqa: E402
from kvmbench.measure import compare  # noqa: E402
from kvmbench.measure import kvm_sides  # noqa: E402


PATCH = """From 0 Mon Sep 17 00:00:00 2001
Subject: [PATCH 1/2] KVM: x86: Say hello
 twice

---
diff --git a/arch/x86/kvm/x.c b/arch/x86/kvm/x.c
--- a/arch/x86/kvm/x.c
+++ b/arch/x86/kvm/x.c
@@ -1,4 +1,5 @@ int f(void)
 a
 b
+--- not a header
 c
 d
@@ -8,3 +9,3 @@ int g(void)
 h
-y
+z
 w
diff --git a/virt/kvm/new.c b/virt/kvm/new.c
--- /dev/null
+++ b/virt/kvm/new.c
@@ -0,0 +1 @@
+n
"""


class KvmPatches(unittest.TestCase):
    """vm/kvm-build's patches: parsed, applied to copies, refused well."""

    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        self.src = os.path.join(self.tmp.name, 'src')
        os.makedirs(os.path.join(self.src, 'arch/x86/kvm'))
        with open(os.path.join(self.src, 'arch/x86/kvm/x.c'), 'w') as f:
            f.write('a\nb\nc\nd\ne\nf\ng\nh\ny\nw\n')
        self.patch = os.path.join(self.tmp.name, 'p.patch')
        with open(self.patch, 'w') as f:
            f.write(PATCH)

    def tearDown(self):
        self.tmp.cleanup()

    def test_parse(self):
        p = kvm_tree.Patch(self.patch)
        self.assertEqual(p.subject, 'KVM: x86: Say hello twice')
        self.assertEqual(sorted(p.hunks), ['arch/x86/kvm/x.c', 'virt/kvm/new.c'])
        self.assertEqual(len(p.hunks['arch/x86/kvm/x.c']), 2)

    def test_apply_leaves_the_tree(self):
        before = open(os.path.join(self.src, 'arch/x86/kvm/x.c')).read()
        out = kvm_tree.apply_patches(self.src, [kvm_tree.Patch(self.patch)])
        self.assertIn(b'--- not a header', out['arch/x86/kvm/x.c'])
        self.assertEqual(out['virt/kvm/new.c'], b'n\n')
        self.assertEqual(open(os.path.join(self.src, 'arch/x86/kvm/x.c')).read(), before)
        self.assertFalse(os.path.exists(os.path.join(self.src, 'virt')))

    def test_first_failing_hunk_named(self):
        with open(os.path.join(self.src, 'arch/x86/kvm/x.c'), 'w') as f:
            f.write('a\nb\nc\nd\ne\nf\ng\nh\nQ\nw\n')
        with self.assertRaises(kvm_tree.UsageError) as e:
            kvm_tree.apply_patches(self.src, [kvm_tree.Patch(self.patch)])
        self.assertIn('arch/x86/kvm/x.c, hunk #2 (@@ -8,3 +9,3 @@ int g(void)) failed',
                      str(e.exception))

    def test_outside_kvm_refused(self):
        kvm_tree.check_patch_paths('x86_64', [kvm_tree.Patch(self.patch)])
        with open(self.patch, 'w') as f:
            f.write(PATCH.replace('virt/kvm/new.c', 'mm/new.c'))
        with self.assertRaises(kvm_tree.UsageError) as e:
            kvm_tree.check_patch_paths('x86_64', [kvm_tree.Patch(self.patch)])
        self.assertIn('touches mm/new.c', str(e.exception))

    def test_config_users_outside_kvm(self):
        for path, text in (('arch/x86/kvm/a.c', '#ifdef CONFIG_KVM_ONLY\n'),
                           ('include/linux/kvm_host.h', 'IS_ENABLED(CONFIG_KVM_HDR)\n'),
                           ('mm/b.c', '#ifdef CONFIG_SHARED\n'),
                           ('arch/arm64/c.c', '#ifdef CONFIG_OTHER_ARCH\n'),
                           ('drivers/Makefile', 'obj-$(CONFIG_SHARED_TOO) += d.o\n')):
            os.makedirs(os.path.dirname(os.path.join(self.src, path)), exist_ok=True)
            with open(os.path.join(self.src, path), 'w') as f:
                f.write(text)
        got = kvm_tree.users_outside_kvm(self.src, 'x86_64', {
            'KVM_ONLY', 'KVM_HDR', 'SHARED', 'OTHER_ARCH', 'SHARED_TOO'})
        self.assertEqual(got, {'SHARED': 'mm/b.c', 'SHARED_TOO': 'drivers/Makefile'})

    def test_source_version(self):
        # The security archive had linux-source 6.12.118 while the newest
        # signed kernel was 6.12.117: the kernel's version is built.
        apt = ['6.12.118-1~deb12u1', '6.12.117-1~deb12u1', '6.12.115-2~deb12u1']
        for installed, kernel, want in (('6.12.118-1~deb12u1', '6.12.117', apt[1]),
                                        ('6.12.117-1~deb12u1', '6.12.117', '6.12.117-1~deb12u1'),
                                        ('', '6.12.115', apt[2]),
                                        ('6.12.118-1~deb12u1', '6.12.116', None)):
            self.assertEqual(debian.source_version(kernel, installed, apt), want)


def write_files(root, files):
    for path, text in files.items():
        os.makedirs(os.path.dirname(os.path.join(root, path)), exist_ok=True)
        with open(os.path.join(root, path), 'w') as f:
            f.write(text)


def snapshot(root):
    """{path: (contents, mtime)} of every file under ROOT."""
    out = {}
    for d, _, names in os.walk(root):
        for n in names:
            p = os.path.join(d, n)
            with open(p, 'rb') as f:
                out[os.path.relpath(p, root)] = (f.read(), os.stat(p).st_mtime_ns)
    return out


TREE = {'Makefile': 'VERSION = 6\nPATCHLEVEL = 15\nSUBLEVEL = 0\nEXTRAVERSION = -rc2\n',
        'arch/x86/Kconfig': 'config PVH\n\tbool "PVH"\n', 'arch/arm64/Kconfig': '',
        'arch/x86/kvm/Kconfig': ''.join('config %s\n\tbool "x"\n' % n for n in (
            'KVM_SW_PROTECTED_VM', 'KVM', 'KVM_AMD', 'KVM_INTEL')),
        'mm/Kconfig': 'config USERFAULTFD\n\tbool\nconfig TRANSPARENT_HUGEPAGE\n',
        'fs/Kconfig': 'config HUGETLBFS\n',
        'arch/x86/kvm/mmu/mmu.c': 'int mmu;\n', 'arch/x86/kvm/x86.o': 'an object\n',
        'virt/kvm/kvm_main.c': 'int k;\n', 'mm/memory.c': 'int m;\n',
        'init/Kconfig': 'menuconfig EXPERT\n\tbool "e"\n',
        '.config': 'CONFIG_X=y\n', 'include/generated/autoconf.h': '#define X 1\n',
        '.git/HEAD': 'ref\n'}


class KvmShadow(unittest.TestCase):
    """The shadow make sees: links to the user's tree, private copies of
    patched files; the tree itself never written."""

    def test_sync(self):
        with tempfile.TemporaryDirectory() as d:
            src, work = os.path.join(d, 'src'), os.path.join(d, 'work')
            write_files(src, TREE)
            before = snapshot(src)
            sh = kvm_tree.Shadow(src, work, 'x86_64')
            sh.sync({'arch/x86/kvm/mmu/mmu.c': b'int patched;\n'})
            mmu = os.path.join(work, 'arch/x86/kvm/mmu/mmu.c')
            self.assertFalse(os.path.islink(mmu))
            with open(mmu) as f:
                self.assertEqual(f.read(), 'int patched;\n')
            self.assertTrue(os.path.islink(os.path.join(work, 'mm')))
            self.assertTrue(os.path.islink(os.path.join(work, 'virt/kvm/kvm_main.c')))
            self.assertFalse(os.path.islink(os.path.join(work, 'arch/x86/kvm')))
            for left_out in ('arch/x86/kvm/x86.o', '.config', '.git', 'include/generated'):
                self.assertFalse(os.path.lexists(os.path.join(work, left_out)), left_out)
            t1 = os.stat(mmu).st_mtime_ns
            kvm_tree.Shadow(src, work, 'x86_64').sync({'arch/x86/kvm/mmu/mmu.c':
                                                       b'int patched;\n'})
            self.assertEqual(os.stat(mmu).st_mtime_ns, t1)       # same: make rebuilds nothing
            kvm_tree.Shadow(src, work, 'x86_64').sync({})          # back to the tree's
            with open(mmu) as f:
                self.assertEqual(f.read(), 'int mmu;\n')
            self.assertNotEqual(os.stat(mmu).st_mtime_ns, t1)
            self.assertEqual(snapshot(src), before)


class KvmConfig(unittest.TestCase):
    def test_parse_config_opt(self):
        self.assertEqual(kvm_tree.parse_config_opt('CONFIG_KVM_SW_PROTECTED_VM=y'),
                         ('KVM_SW_PROTECTED_VM', 'y'))
        self.assertEqual(kvm_tree.parse_config_opt('NR_CPUS=64'), ('NR_CPUS', '64'))
        for bad in ('KVM', 'KVM=maybe', '=y', 'K V=y'):
            with self.assertRaises(kvm_tree.UsageError):
                kvm_tree.parse_config_opt(bad)

    def test_read_write(self):
        with tempfile.TemporaryDirectory() as d:
            p = os.path.join(d, 'c')
            with open(p, 'w') as f:
                f.write('# top\nCONFIG_A=y\n# CONFIG_B is not set\nCONFIG_S="x y"\n')
            kvm_tree.write_config(p, [('A', 'n'), ('B', 'y'), ('C', '3')], p)
            self.assertEqual(kvm_tree.read_config(p), {'A': 'n', 'B': 'y', 'S': '"x y"',
                                                       'C': '3'})
            with open(p) as f:
                self.assertEqual(f.read(), '# top\nCONFIG_S="x y"\n# CONFIG_A is not set\n'
                                 'CONFIG_B=y\nCONFIG_C=3\n')


class KvmWhole(unittest.TestCase):
    """vm/kvm-build --whole: the small config's options, bad trees."""

    def test_fragment_built_in(self):
        with tempfile.NamedTemporaryFile('w') as f:
            f.write('# c\nCONFIG_KVM=y\nCONFIG_KVM_AMD=m\nCONFIG_NR=4\n')
            f.flush()
            self.assertEqual(kvm_config.suite_fragment(f.name),
                             [('KVM', 'y'), ('KVM_AMD', 'y'), ('NR', '4')])
        # The suite's own: every module built in.
        frag = dict(kvm_config.suite_fragment())
        self.assertEqual((frag['KVM'], frag['KVM_AMD'], frag['KVM_INTEL']), ('y', 'y', 'y'))

    def test_settings_where_present(self):
        with tempfile.TemporaryDirectory() as d:
            write_files(d, TREE)
            got = kvm_config.whole_settings('x86_64', d)
            names = [n for n, _, _ in got]
            self.assertEqual(len(names), len(set(names)))
            for n in ('KVM', 'KVM_AMD', 'KVM_INTEL', 'USERFAULTFD', 'HUGETLBFS',
                      'TRANSPARENT_HUGEPAGE', 'SERIAL_8250_CONSOLE', 'DEVTMPFS', 'PVH',
                      'KVM_SW_PROTECTED_VM', 'EXPERT'):
                self.assertIn(n, names)
            for n in ('RD_ZSTD', 'X86_64_ACPI_NUMA', 'SERIAL_AMBA_PL011'):
                self.assertNotIn(n, names)       # not in this tree's Kconfig / not x86
            with tempfile.TemporaryDirectory() as e:    # a tree of symbolic links
                links = os.path.join(e, 'links')
                subprocess.run(['cp', '-rs', d, links], check=True)
                self.assertEqual(kvm_config.whole_settings('x86_64', links), got)
            arm = [n for n, _, _ in kvm_config.whole_settings('arm64', d)]
            self.assertIn('SERIAL_AMBA_PL011_CONSOLE', arm)
            self.assertIn('KVM', arm)
            self.assertIn('USERFAULTFD', arm)
            for n in ('PVH', 'KVM_AMD', 'KVM_SW_PROTECTED_VM'):
                self.assertNotIn(n, arm)                # x86's Kconfig only
            self.assertEqual(kvm_config.missing_options(got, {n: v for n, v, _ in got}), None)
            have = {n: v for n, v, _ in got}
            have['HUGETLBFS'] = 'n'
            self.assertEqual(kvm_config.missing_options(got, have)[:2], ('HUGETLBFS', 'y'))

    def test_bad_trees(self):
        with tempfile.TemporaryDirectory() as d:
            for tree, msg in (({'README': 'x'}, 'is not a kernel source tree'),
                              ({'Makefile': TREE['Makefile']}, 'no arch/x86/Kconfig')):
                shutil.rmtree(d)
                write_files(d, tree)
                with self.assertRaises(kvm_build.UsageError) as e:
                    kvm_build.WholeBuild('x86_64', d)
                self.assertIn(msg, str(e.exception))
            with self.assertRaises(kvm_build.UsageError) as e:
                kvm_build.WholeBuild('x86_64', os.path.join(d, 'nope'))
            self.assertIn('not found', str(e.exception))

    def test_is_whole_by_series(self):
        """A tree of another series is whole without the Debian kernel
        fetched; at the same series the Debian kernel's version decides."""
        fetched = []

        class Kernel:
            def __init__(self, want, arch):
                fetched.append(want)
                self.version = '6.15.0-rc2' if want == '6.15' else '6.15.3'
        with mock.patch.object(kvm_build.debian, 'Kernel', Kernel), \
                tempfile.TemporaryDirectory() as d:
            write_files(d, TREE)                        # Linux 6.15.0-rc2
            for want in ('6.12', '6.1', '6.1.0-52', '6.12.117+deb12', '7.15'):
                self.assertTrue(kvm_build.is_whole(d, want, 'x86_64'), want)
            self.assertEqual(fetched, [])
            self.assertFalse(kvm_build.is_whole(d, '6.15', 'x86_64'))
            self.assertTrue(kvm_build.is_whole(d, '6.15.3', 'x86_64'))
            self.assertEqual(fetched, ['6.15', '6.15.3'])
            self.assertFalse(kvm_build.is_whole(None, '6.12', 'x86_64'))
            with self.assertRaises(kvm_build.UsageError):
                kvm_build.is_whole(os.path.join(d, 'nope'), '6.12', 'x86_64')
        self.assertEqual([debian.series(v) for v in ('6.12.117', '6.12-newest', '6.1.0-52',
                                                     '6.15.0-rc2', 'next')],
                         ['6.12', '6.12', '6.1', '6.15', None])

    def test_build_dir_and_make(self):
        with tempfile.TemporaryDirectory() as d:
            write_files(d, TREE)
            a, b = kvm_build.WholeBuild('x86_64', d), kvm_build.WholeBuild('x86_64', d)
            self.assertEqual(a.dir, b.dir)
            self.assertEqual(a.version, '6.15.0-rc2')
            self.assertNotEqual(a.dir, kvm_build.WholeBuild('arm64', d).dir)
            cmd = a.make_cmd('bzImage')
            self.assertIn('O=' + a.obj, cmd)
            self.assertIn('ARCH=x86_64', cmd)
            self.assertEqual(cmd[-1], 'bzImage')
            if shutil.which('ccache'):
                self.assertIn('CC=ccache gcc', cmd)
            if runner.host_arch() != 'arm64':
                self.assertIn('CROSS_COMPILE=aarch64-linux-gnu-',
                              kvm_build.WholeBuild('arm64', d).make_cmd())

    def test_configured_again_under_new_rules(self):
        """A build directory keeps its .config while the inputs and the
        rules are the same; one configured under other rules (its
        config.want says so) is configured again."""
        with tempfile.TemporaryDirectory() as d, \
                mock.patch.dict(os.environ, {"XDG_CACHE_HOME": os.path.join(d, "cache")}):
            write_files(os.path.join(d, "src"), TREE)
            b = kvm_build.WholeBuild('x86_64', os.path.join(d, "src"))
            made = []

            def run_make(what, *targets):
                made.append(what)
                os.makedirs(b.obj, exist_ok=True)
                with open(os.path.join(b.obj, ".config"), "w") as f:
                    f.write("".join(f"CONFIG_{n}={v}\n" for n, v, _ in b.need))
                return 0.0
            b.run_make = run_make
            b.configure()
            self.assertEqual(made, ["make tinyconfig", "make olddefconfig"])
            self.assertEqual(b.configure(), 0.0)
            self.assertEqual(len(made), 2, "configured again with nothing changed")
            want = os.path.join(b.dir, "config.want")
            with open(want) as f:
                text = f.read()
            self.assertTrue(text.startswith(f"rules {b.CONFIG_RULES}\n"))
            with open(want, "w") as f:
                f.write(f"rules {b.CONFIG_RULES - 1}\n" + text.split("\n", 1)[1])
            b.configure()
            self.assertEqual(len(made), 4, "not configured again under new rules")

    def test_first_error_and_out(self):
        with tempfile.TemporaryDirectory() as d:
            log = os.path.join(d, 'log')
            with open(log, 'w') as f:
                f.write('=== make bzImage: make -C x\n  CC  mm/a.o\nmm/a.c:3:1: warning: w\n'
                        'arch/x86/kvm/mmu/mmu.c:10:2: error: expected \';\' before \'}\'\n'
                        'make[4]: *** [scripts/Makefile.build:229: mmu.o] Error 1\n')
            self.assertEqual(kvm_build.first_error(log),
                             "arch/x86/kvm/mmu/mmu.c:10:2: error: expected ';' before '}'")
            with self.assertRaises(kvm_build.BuildError) as e:
                kvm_build.run_make(['sh', '-c', 'echo "x.c:1:1: error: boom"; exit 2'], log,
                                   'make Image')
            self.assertEqual(str(e.exception), "make Image failed: arch/x86/kvm/mmu/mmu.c:10:2: "
                             "error: expected ';' before '}' (log: %s)" % log)
            os.unlink(log)
            with self.assertRaises(kvm_build.BuildError) as e:
                kvm_build.run_make(['sh', '-c', 'echo "x.c:1:1: error: boom"; exit 2'], log,
                                   'make Image')
            self.assertIn('failed: x.c:1:1: error: boom (log: ', str(e.exception))
            with open(log, 'w') as f:
                f.write('  CC  x.o\n../src/arch/x86/kvm/x86.c:9:1: error: e\n')
            self.assertEqual(kvm_build.first_error(log), 'arch/x86/kvm/x86.c:9:1: error: e')
            mine = os.path.join(d, 'mine')
            write_files(mine, {'keep.txt': 'k'})
            with self.assertRaises(kvm_build.UsageError):
                kvm_build.check_out(mine)
            kvm_build.check_out(os.path.join(d, 'new'))
            kvm_build.write_desc(mine, {'a': 1})
            kvm_build.check_out(mine)                   # ours now


class KvmSidesOptions(unittest.TestCase):
    """bench/compare --patch on a tree, bench/bisect-run --series on a tree."""

    def test_parse(self):
        with tempfile.TemporaryDirectory() as d:
            patch = os.path.join(d, 'p.patch')
            with open(patch, 'w') as f:
                f.write(PATCH)
            c = compare.parse(['--patch', patch, '--kvm-src', d, '--', 'guest_print_test'])
            self.assertEqual((c.mode, c.src_tree, c.patches), ('patch', d, [patch]))
            c = compare.parse(['--kvm-src', d + ',' + d, '--', 'guest_print_test'])
            self.assertEqual((c.mode, c.src_tree, c.spec_a), ('kvm-src', '', d))
            for argv, msg in ((['--kvm-src', d, '--', 'guest_print_test'],
                               '--kvm-src takes two trees, A,B (one tree goes with --patch)'),
                              (['--patch', patch, '--kvm-src', d + '/nope', '--', 'guest_print_test'],
                               "no kernel source tree '%s/nope'" % d)):
                with self.assertRaises(compare.Usage) as e:
                    compare.parse(argv)
                self.assertEqual(str(e.exception), msg)
            base = ['--figure', 'f', '--threshold', '3', '--', 'guest_print_test']
            c = bisect.parse(['--series', d, '--kvm-src', d] + base)
            self.assertEqual(c.kvm_src, os.path.realpath(d))
            b = bisect.Bisect(c, d)
            args = b.step_args()
            self.assertEqual(args[args.index('--kvm-src') + 1], os.path.realpath(d))
            for argv, msg in ((['--debian-kernel', '6.12', '--baseline', '6.1', '--kvm-src',
                                d] + base, '--kvm-src TREE goes with --series'),
                              (['--series', d, '--kvm-src', d + '/nope'] + base,
                               "no kernel source tree '%s/nope'" % d)):
                with self.assertRaises(bisect.Usage) as e:
                    bisect.parse(argv)
                self.assertEqual(str(e.exception), msg)

    def test_side_text(self):
        self.assertEqual(kvm_sides.side_text({'release': '6.12.117+deb12-amd64', 'src': '/s'}),
                         'KVM of 6.12.117+deb12-amd64 built from /s')
        self.assertEqual(kvm_sides.side_text({'release': '6.12.118', 'src': '/t',
                                              'whole': True}),
                         'Linux 6.12.118 (whole kernel, KVM built in) built from /t')
        self.assertEqual(kvm_sides.side_text({'release': '6.12.111', 'src': '/t', 'whole': True,
                                              'base': 'debian:6.12.111+deb12'}),
                         'Linux 6.12.111 (whole kernel, KVM built in, debian:6.12.111+deb12 '
                         'config) built from /t')

    def test_config(self):
        """--kvm-src's --config: each side built (build_side) on that base
        config; refused with other sides and for a name that is none."""
        with tempfile.TemporaryDirectory() as d:
            two = ['--kvm-src', d + ',' + d]
            for argv, base in ((two, 'small'), (two + ['--config', 'debian'], 'debian'),
                               (['--patch', __file__, '--kvm-src', d, '--config',
                                 'debian:6.12.111+deb12'], 'debian:6.12.111+deb12')):
                c = compare.parse(argv + ['--', 'guest_print_test'])
                got = []

                def side(out, **kw):
                    got.append(kw)
                    return {'vm_args': ['--kernel', out], 'release': '6.12.111', 'src': d,
                            'patches': []}
                with mock.patch.object(kvm_build, 'build_side', side):
                    kvm_sides.build(c, d)
                self.assertEqual([(k['base'], k['src']) for k in got], [(base, d)] * 2, argv)
            # NAME=VALUE options go to both sides' builds.
            c = compare.parse(two + ['--config', 'KVM_SW_PROTECTED_VM=y', '--config',
                                     'debian', '--', 'guest_print_test'])
            got = []
            with mock.patch.object(kvm_build, 'build_side',
                                   lambda out, **kw: got.append(kw) or {
                                       'vm_args': [], 'release': '6.12.111', 'src': d}):
                kvm_sides.build(c, d)
            self.assertEqual([(k['base'], k['configs']) for k in got],
                             [('debian', ['KVM_SW_PROTECTED_VM=y'])] * 2)
            for argv, msg in (
                    (two + ['--config', 'fedora'], "--config fedora: a base config is 'small', "
                     "'debian[:VERSION]'"),
                    (two + ['--config', 'debian', '--config', 'small'],
                     "--config names two base configs"),
                    (two + ['--config', './none.config'], "--config ./none.config: no such"),
                    (['--patch', __file__, '--config', 'debian'],
                     '--config debian goes with --kvm-src'),
                    (['--kernels', '6.1,6.12', '--config', 'debian'],
                     '--config debian goes with --kvm-src'),
                    (['--kernels', '6.1,6.12', '--config', 'KVM_AMD_SEV=n'],
                     '--config NAME=VALUE goes with --patch or --kvm-src')):
                with self.assertRaises(compare.Usage) as e:
                    compare.parse(argv + ['--', 'guest_print_test'])
                self.assertTrue(str(e.exception).startswith(msg), (argv, str(e.exception)))

    def test_command(self):
        """The vm/kvm-build command line of a side (its log, bench/attribute's
        report) is one vm/kvm-build takes, saying the same build."""
        words = kvm_build.command('/o', '6.12', 'arm64', '/src', ['/p1', '/p2'],
                                  'debian:6.12.111+deb12', True, ['KVM_X=y'])
        self.assertEqual(words[0], 'vm/kvm-build')
        a = kvm_build.parse_args(words[1:])
        self.assertEqual((a.out, a.arch, a.src, a.patch, a.base, a.config, a.whole),
                         ('/o', 'arm64', '/src', ['/p1', '/p2'], 'debian:6.12.111+deb12',
                          ['KVM_X=y'], True))
        a = kvm_build.parse_args(kvm_build.command('/o', '6.1', 'x86_64')[1:])
        self.assertEqual((a.debian_kernel, a.src, a.patch, a.base, a.whole),
                         ('6.1', None, [], 'small', False))


class KvmBisectSeries(unittest.TestCase):
    def test_series(self):
        with tempfile.TemporaryDirectory() as d:
            with self.assertRaises(kvm_bisect.UsageError):
                kvm_bisect.series_patches(os.path.join(d, 'nope'))
            with self.assertRaises(kvm_bisect.UsageError):
                kvm_bisect.series_patches(d)
            write_files(d, {'0002-b.patch': PATCH, '0001-a.patch': PATCH, 'cover.txt': ''})
            files = kvm_bisect.series_patches(d)
            self.assertEqual([os.path.basename(f) for f in files],
                             ['0001-a.patch', '0002-b.patch'])
            items = kvm_bisect.series_items(files, ['A', 'B'])
            self.assertEqual(items, [('base: the unpatched source', ''),
                                     ('A', files[0] + '\n'),
                                     ('B', files[0] + '\n' + files[1] + '\n')])
            lst = os.path.join(d, 'list')
            with open(lst, 'w') as f:
                f.write(items[2][1])
            self.assertEqual(kvm_bisect.read_patch_list(lst), files)


if __name__ == '__main__':
    if sys.argv[1:] == ['--tap']:
        sys.exit(tap(sys.modules[__name__], 'kvm_build'))
    unittest.main(verbosity=2)
