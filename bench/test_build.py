#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-only
"""Unit tests of kvmbench.kernels.build: arch names, kernel options, packages, the
build.
Run: python3 bench/test_build.py (--tap: kselftest TAP, one result a test)"""
import os
import subprocess
import sys
import tempfile
import unittest

BENCH = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, BENCH)
from kvmbench.base.tap import tap  # noqa: E402
from kvmbench.kernels import build, debian  # noqa: E402
from kvmbench.vmrun import cli, runner  # noqa: E402
from kvmbench.labs import lavajobs  # noqa: E402
from testkit import Quiet  # noqa: E402


class Build(unittest.TestCase):
    """kvmbench.kernels.build: arch names, kernel options, packages, the build."""

    MAKEFILE = ('kselftest_install:\n'
                '\t@test "$(STATIC)" = 1 || { echo not static; exit 1; }\n'
                '\t@test "$(notdir $(O))" != bad || { echo broken build; exit 1; }\n'
                '\tmkdir -p $(O)/kselftest_install && echo $(ARCH) >$(O)/kselftest_install/'
                'kselftest-list.txt\n')

    def test_arches(self):
        self.assertEqual([build.arch_name(a) for a in ('amd64', 'x86_64', 'aarch64', 'arm64')],
                         ['x86_64', 'x86_64', 'arm64', 'arm64'])
        with self.assertRaisesRegex(ValueError, "unknown arch 'riscv64'"):
            build.arch_name('riscv64')
        self.assertEqual([build.arch_dir(a) for a in ('x86_64', 'arm64', 'aarch64')],
                         ['x86_64', 'aarch64', 'aarch64'])
        self.assertEqual(runner.arch_dir, build.arch_dir)
        self.assertEqual(cli.vm_size('aarch64', '2G'), 'arm64')
        with self.assertRaisesRegex(cli.Usage, "unknown arch 'mips'"):
            cli.vm_size('mips', '2G')

    def test_kernel_args(self):
        self.assertEqual(build.kernel_args('6.1'), ['--debian-kernel', '6.1'])
        self.assertEqual(lavajobs.kernel_args('6.1.0-57'), ['--debian-kernel', '6.1.0-57'])
        with tempfile.TemporaryDirectory() as d:
            img = os.path.join(d, 'bzImage')
            open(img, 'w').close()
            self.assertEqual(build.kernel_args(img + ':' + d),
                             ['--kernel', img, '--modules', d])
        with self.assertRaisesRegex(lavajobs.JobSetupError, "kernel 'latest' is neither"):
            lavajobs.kernel_args('latest')
        self.assertTrue(debian.is_spec('6.12.115+deb12'))
        self.assertFalse(debian.is_spec('v6.12'))

    def test_deps(self):
        x86 = build.deps(['x86_64'], host='x86_64')
        self.assertIn('linux-source-6.12', x86)
        self.assertNotIn('gcc-aarch64-linux-gnu', x86)
        both = build.deps(['x86_64', 'arm64', 'clang', 'aarch64'], host='x86_64')
        self.assertEqual(both, x86 + build.ARM64_CROSS + build.CLANG)
        self.assertEqual(build.deps(['arm64'], host='arm64'), x86)
        self.assertEqual(build.missing(['dpkg', 'no-such-package-kvmbench']),
                         ['no-such-package-kvmbench'])
        self.assertIsNone(build.install([]))

    def test_tree_path(self):
        with tempfile.TemporaryDirectory() as d:
            self.assertEqual(build.tree_path('arm64', d),
                             os.path.join(d, 'build', 'aarch64', 'kselftest_install'))
            os.makedirs(os.path.join(d, 'build', 'arm64', 'kselftest_install'))
            self.assertEqual(build.tree_path('aarch64', d),
                             os.path.join(d, 'build', 'arm64', 'kselftest_install'))
            self.assertEqual(build.tree_path('x86_64', d),
                             os.path.join(d, 'build', 'x86_64', 'kselftest_install'))

    def fake_src(self, d):
        src = os.path.join(d, 'src')
        os.makedirs(src)
        with open(os.path.join(src, 'Makefile'), 'w') as f:
            f.write(self.MAKEFILE)
        return src

    def test_build_suite(self):
        with tempfile.TemporaryDirectory() as d:
            src = self.fake_src(d)
            out = os.path.join(d, 'build', 'x')
            self.assertTrue(build.build_suite(src, 'amd64', out))
            with open(os.path.join(out, 'kselftest_install', 'kselftest-list.txt')) as f:
                self.assertEqual(f.read(), 'x86_64\n')
            self.assertTrue(os.path.isfile(out + '.build.log'))
            with Quiet() as q:
                ok = build.build_suite(src, 'x86_64', os.path.join(d, 'bad'),
                                       os.path.join(d, 'logs', 'b.log'))
            self.assertFalse(ok)
            self.assertIn('broken build', q.err)
            # The shell callers' wrapper (vm/build-deps.sh) runs the same code.
            sh = '. "$0/vm/build-deps.sh" && build_suite "$@"'
            p = subprocess.run(['bash', '-c', sh, os.path.dirname(BENCH), src, 'aarch64',
                                os.path.join(d, 'sh'), os.path.join(d, 'sh.log')])
            self.assertEqual(p.returncode, 0)
            with open(os.path.join(d, 'sh', 'kselftest_install', 'kselftest-list.txt')) as f:
                self.assertEqual(f.read(), 'arm64\n')

    def test_ensure_tree(self):
        with tempfile.TemporaryDirectory() as d:
            tree = build.tree_path('x86_64', d)
            os.makedirs(tree)
            open(os.path.join(tree, 'kselftest-list.txt'), 'w').close()
            self.assertEqual(build.ensure_tree('x86_64', repo=d), tree)
            with open(os.path.join(d, 'Makefile'), 'w') as f:
                f.write(self.MAKEFILE.replace('$(notdir $(O))" != bad', '$(ARCH)" != arm64'))
            if build.missing(build.deps(['arm64'])):
                self.skipTest("the arm64 build's packages are not installed")
            said = []
            with Quiet():
                with self.assertRaisesRegex(build.BuildError, 'building the suite for arm64 '
                                            'failed'):
                    build.ensure_tree('arm64', repo=d, say=said.append)
            self.assertRegex(said[0], r'^no build/aarch64/kselftest_install: building')

    def test_uapi_tree(self):
        """The suite against a tree's uapi headers: a build directory per
        headers' contents (the same headers share it), make given
        KHDR_INCLUDES; no linux/kvm.h is refused."""
        with tempfile.TemporaryDirectory() as d:
            with open(os.path.join(d, 'Makefile'), 'w') as f:
                f.write(self.MAKEFILE.replace('echo $(ARCH)', 'echo "$(KHDR_INCLUDES)"'))
            heads = []
            for i, text in enumerate(('one', 'one', 'two')):
                uapi = os.path.join(d, 'usr%d' % i, 'include')
                os.makedirs(os.path.join(uapi, 'linux'))
                with open(os.path.join(uapi, 'linux', 'kvm.h'), 'w') as f:
                    f.write(text)
                heads.append(uapi)
            trees = [build.uapi_tree('x86_64', u, repo=d) for u in heads]
            self.assertEqual(trees[0], trees[1])
            self.assertNotEqual(trees[0], trees[2])
            self.assertRegex(trees[0], r'/build/x86_64-uapi-[0-9a-f]{12}/kselftest_install$')
            with open(os.path.join(trees[2], 'kselftest-list.txt')) as f:
                self.assertEqual(f.read(), '-isystem %s\n' % heads[2])
            os.remove(os.path.join(heads[0], 'linux', 'kvm.h'))
            with self.assertRaisesRegex(build.BuildError, 'no uapi headers in .*no linux/kvm.h'):
                build.uapi_tree('x86_64', heads[0], repo=d)


if __name__ == '__main__':
    if sys.argv[1:] == ['--tap']:
        sys.exit(tap(sys.modules[__name__], 'build'))
    unittest.main(verbosity=2)
