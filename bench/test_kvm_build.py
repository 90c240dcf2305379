#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-only
"""Unit tests of vm/kvm-build's patches (kvmbench.kvm_tree, kvmbench.debian):
parsed, applied to copies, refused well.
Run: python3 bench/test_kvm_build.py (--tap: kselftest TAP, one result a test)"""
import os
import sys
import tempfile
import unittest

BENCH = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, BENCH)
from kvmbench import debian, kvm_tree  # noqa: E402
from kvmbench.tap import tap  # noqa: E402


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


if __name__ == '__main__':
    if sys.argv[1:] == ['--tap']:
        sys.exit(tap(sys.modules[__name__], 'kvm_build'))
    unittest.main(verbosity=2)
