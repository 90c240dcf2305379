#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-only
"""Unit tests of kvmbench.kernels.debian, the one place for Debian's kernels:
their names, versions, order, series and upstream versions, in the forms
the archive really uses (apt-cache pkgnames linux-image-, apt-cache
madison linux-source-6.12, apt-cache show linux-image-6.12.117+deb12-amd64:
Version 6.12.117-1~deb12u1, Source linux-signed-6.12-amd64
(6.12.117+1~deb12u1); 6.1.0-52 is 6.1.180-1), and against dpkg and apt
themselves where they are there.
Run: python3 bench/test_debian.py (--tap: kselftest TAP, one result a test)"""
import functools
import os
import re
import shutil
import subprocess
import sys
import unittest

BENCH = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, BENCH)
from kvmbench.base.tap import tap  # noqa: E402
from kvmbench.kernels import debian  # noqa: E402

# Versions as the archive spells them (kernel names, the packages'
# versions, linux-signed's, linux-source's), in dpkg's order.
ORDERED = ['6.1.0-9', '6.1.0-10', '6.1.0-52', '6.1.0-57', '6.1.180-1', '6.1.192-2', '6.1.192-3',
           '6.1.192+3', '6.12.9+deb12', '6.12.10+deb12', '6.12.100+deb12',
           '6.12.115-2~deb12u1', '6.12.117', '6.12.117-1~deb12u1', '6.12.117-1',
           '6.12.117+1~deb12u1', '6.12.117+deb12', '6.12.118+deb12', '6.13~rc5-1~exp1',
           '6.13-1~exp1', '6.13-1', '1:0.1']
# Package names (apt-cache pkgnames linux-image-), flavours and
# metapackages among them.
NAMES = ['linux-image-6.1.0-9-amd64', 'linux-image-6.1.0-10-amd64', 'linux-image-6.1.0-57-amd64',
         'linux-image-6.1.0-57-cloud-amd64', 'linux-image-6.1.0-57-rt-amd64-dbg',
         'linux-image-6.1.0-57-arm64', 'linux-image-6.12.9+deb12-amd64',
         'linux-image-6.12.10+deb12-amd64', 'linux-image-6.12.118+deb12-amd64-unsigned',
         'linux-image-6.12.118+deb12-rt-arm64-dbg', 'linux-image-6.12.118+deb12-arm64',
         'linux-image-amd64', 'linux-image-cloud-amd64', 'linux-image-6.1.0-57-amd64-dbg']


def dpkg_cmp(a, b):
    def holds(op):
        return subprocess.call(['dpkg', '--compare-versions', a, op, b],
                               stderr=subprocess.DEVNULL) == 0
    return -1 if holds('lt') else 0 if holds('eq') else 1


class Versions(unittest.TestCase):
    """Versions compared as dpkg does, not as strings or number lists."""

    def test_order(self):
        for i, a in enumerate(ORDERED):
            for b in ORDERED[i + 1:]:
                self.assertLess(debian.version_key(a), debian.version_key(b), (a, b))
        self.assertEqual(sorted(reversed(ORDERED), key=debian.version_key), ORDERED)
        self.assertEqual(debian.version_key('6.12.117+deb12'), debian.version_key('6.12.117+deb12'))
        # Not as strings: 6.12.9 < 6.12.10, 6.1.0-9 < 6.1.0-10.
        self.assertLess(debian.version_key('6.12.9+deb12'), debian.version_key('6.12.10+deb12'))
        self.assertLess(debian.version_key('6.1.0-9'), debian.version_key('6.1.0-10'))
        # ~ sorts before the end, + after it.
        self.assertLess(debian.version_key('6.13~rc5'), debian.version_key('6.13'))
        self.assertLess(debian.version_key('6.13'), debian.version_key('6.13+1'))

    def test_as_dpkg(self):
        """The order is dpkg's own on every pair of the archive's forms."""
        if not shutil.which('dpkg'):
            self.skipTest('no dpkg on this host')
        mixed = ORDERED[::2] + ORDERED[1::2] + [n.removeprefix('linux-image-') for n in NAMES
                                                if n[12:13].isdigit()]
        by_dpkg = sorted(mixed, key=functools.cmp_to_key(dpkg_cmp))
        self.assertEqual(sorted(mixed, key=debian.version_key), by_dpkg)

    def test_upstream(self):
        for pkgver, up in [('6.12.117-1~deb12u1', '6.12.117'),     # linux-image-6.12.117+deb12-*
                           ('6.12.117+1~deb12u1', '6.12.117'),     # linux-signed-6.12-amd64
                           ('6.1.180-1', '6.1.180'),               # linux-image-6.1.0-52-*
                           ('6.1.192+3', '6.1.192'),               # linux-signed-amd64 (6.1)
                           ('6.12.115-2~deb12u1', '6.12.115'),     # linux-source-6.12
                           ('6.13~rc5-1~exp1', '6.13~rc5')]:
            self.assertEqual(debian.upstream(pkgver), up, pkgver)

    def test_series(self):
        for v, s in [('6.1.0-52', '6.1'), ('6.12.117+deb12', '6.12'), ('6.12.117', '6.12'),
                     ('6.12-newest', '6.12'), ('6.12', '6.12'), ('10.2.3', '10.2'),
                     ('v6.12', None), ('kvm:/tmp/x', None)]:
            self.assertEqual(debian.series(v), s, v)

    def test_forms(self):
        """One pattern for what a user may name; a full version is one
        apt is asked about, a series is not."""
        for s, spec, version in [('6.12', True, False), ('6.1', True, False),
                                 ('6.12.117+deb12', True, True), ('6.1.0-57', True, True),
                                 ('6.12.115', True, True), ('v6.12', False, False),
                                 ('6', False, False), ('6.12 ', False, False),
                                 ('/boot/vmlinuz', False, False), ('6.12.117+deb12;rm', False, False)]:
            self.assertEqual((debian.is_spec(s), debian.is_version(s)), (spec, version), s)

    def test_kernel_versions(self):
        """The NAME of linux-image-NAME-ARCH, no flavour, no metapackage,
        no other arch, in version order."""
        self.assertEqual(debian.kernel_versions('x86_64', names=NAMES),
                         ['6.1.0-9', '6.1.0-10', '6.1.0-57', '6.12.9+deb12', '6.12.10+deb12'])
        self.assertEqual(debian.kernel_versions('arm64', names=NAMES),
                         ['6.1.0-57', '6.12.118+deb12'])
        self.assertEqual(debian.DEB_ARCH, {'x86_64': 'amd64', 'arm64': 'arm64'})

    def test_pick(self):
        have = debian.kernel_versions('x86_64', names=NAMES)
        self.assertEqual(debian.pick_version('6.12', have, 'amd64'), '6.12.10+deb12')
        self.assertEqual(debian.pick_version('6.1', have, 'amd64'), '6.1.0-57')
        with self.assertRaises(debian.FetchError) as e:
            debian.pick_version('6.12.11+deb12', have, 'amd64')
        self.assertEqual(e.exception.status, 2)
        self.assertEqual(debian.pick_versions('6.1-oldest', have), ['6.1.0-9'])
        self.assertEqual(debian.pick_versions('6.12-newest', have), ['6.12.10+deb12'])
        self.assertEqual(debian.source_version('6.12.117', '', ['6.12.118-1~deb12u1',
                                                                '6.12.117-1~deb12u1']),
                         '6.12.117-1~deb12u1')
        self.assertEqual(debian.source_version('6.12.117', '6.12.117-1~deb12u1', []),
                         '6.12.117-1~deb12u1')
        self.assertIsNone(debian.source_version('6.12.116', '', ['6.12.117-1~deb12u1']))

    def test_cache_dir(self):
        old = os.environ.get('XDG_CACHE_HOME')
        try:
            os.environ['XDG_CACHE_HOME'] = '/nonexistent/c'
            self.assertEqual(debian.cache_dir(), '/nonexistent/c/kvm-selftests')
            os.environ.pop('XDG_CACHE_HOME')
            self.assertEqual(debian.cache_dir(),
                             os.path.join(os.path.expanduser('~'), '.cache', 'kvm-selftests'))
        finally:
            if old is not None:
                os.environ['XDG_CACHE_HOME'] = old


def apt(*args):
    return subprocess.run(['apt-cache', *args], stdout=subprocess.PIPE,
                          stderr=subprocess.DEVNULL, text=True).stdout


class Archive(unittest.TestCase):
    """What apt lists today reads as the tests above assume."""

    def setUp(self):
        if not shutil.which('apt-cache'):
            self.skipTest('no apt on this host')
        self.have = debian.kernel_versions('x86_64', cached=False)
        if not self.have:
            self.skipTest('apt lists no Debian kernel (no apt-get update?)')

    def test_names(self):
        """Every kernel apt lists has one of the forms, and each series'
        newest package's version (and its signed source's) has the
        name's upstream version (6.12.117+deb12: 6.12.117-1~deb12u1,
        6.12.117+1~deb12u1) or, for 6.1.0-N, one of 6.1."""
        for v in self.have:
            self.assertTrue(debian.is_version(v), v)
            self.assertRegex(v, r'^(%s)$' % debian.NAME)
        for ser in sorted({debian.series(v) for v in self.have}):
            v = [x for x in self.have if debian.series(x) == ser][-1]
            show = apt('show', 'linux-image-%s-amd64' % v)
            got = re.findall(r'^Version: (\S+)', show, re.M)
            self.assertTrue(got, v)
            src = re.findall(r'^Source: \S+ \((\S+)\)', show, re.M)
            for pkgver in got + src:
                up = debian.upstream(pkgver)
                self.assertEqual(debian.series(up), ser, (v, pkgver))
                if '+deb' in v:
                    self.assertEqual(up, v.split('+')[0], (v, pkgver))

    def test_sources(self):
        """linux-source-SERIES's versions (apt-cache madison) have an
        upstream version of that series, newest first."""
        for ser in sorted({debian.series(v) for v in self.have}):
            vers = debian.apt_versions('linux-source-%s' % ser)
            if not vers:
                continue
            self.assertTrue(all(debian.series(debian.upstream(x)) == ser for x in vers), vers)
            self.assertEqual(sorted(vers, key=debian.version_key, reverse=True),
                             sorted(vers, key=functools.cmp_to_key(dpkg_cmp), reverse=True))


if __name__ == '__main__':
    if sys.argv[1:] == ['--tap']:
        sys.exit(tap(sys.modules[__name__], 'debian'))
    unittest.main(verbosity=2)
