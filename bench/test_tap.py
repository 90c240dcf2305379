#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-only
"""Unit tests of kvmbench.base.tap, the one TAP writer, and its shell entry
(vm/py.sh).
Run: python3 bench/test_tap.py (--tap: kselftest TAP, one result a test)"""
import io
import os
import subprocess
import sys
import unittest

BENCH = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, BENCH)
from kvmbench.base import tap as tapmod  # noqa: E402
from kvmbench.base.tap import tap  # noqa: E402
from kvmbench.labs import lavasuite  # noqa: E402


class Tap(unittest.TestCase):
    """kvmbench.base.tap, the one TAP writer, and its shell entry (vm/py.sh)."""

    def test_lines(self):
        self.assertEqual(tapmod.line(3, 0, 'a'), 'ok 3 a')
        self.assertEqual(tapmod.line(3, 'ok', 'a', '2 s'), 'ok 3 a # 2 s')
        self.assertEqual(tapmod.line(4, 4, 'b', 'no x'), 'ok 4 b # SKIP no x')
        self.assertEqual(tapmod.line(None, 'skip', 'b'), 'ok b # SKIP')
        self.assertEqual(tapmod.line(5, 137, 'c', 'exit 137'), 'not ok 5 c # exit 137')
        self.assertEqual(tapmod.line(6, 'fail', 'd'), 'not ok 6 d')
        with self.assertRaisesRegex(ValueError, "bad TAP status 'maybe'"):
            tapmod.line(1, 'maybe', 'e')

    def test_writer(self):
        out = io.StringIO()
        w = tapmod.Tap(out, start=10)
        self.assertEqual([w.result(s, 'n') for s in ('pass', 1, 'skip', 0)],
                         ['ok', 'fail', 'skip', 'ok'])
        w.plan()
        self.assertEqual(out.getvalue().splitlines()[-2:], ['ok 14 n', '1..14'])
        self.assertEqual((w.failed, w.summary()), (1, '2 passed, 1 failed, 1 skipped'))

    def test_unittest_module(self):
        class T(unittest.TestCase):
            def test_a(self):
                pass

            def test_b(self):
                self.skipTest('why')

            def test_c(self):
                self.fail('boom')
        T.__qualname__, T.__module__ = 'T', 'fake_tests'
        mod = type(sys)('fake_tests')
        mod.T = T
        out = io.StringIO()
        self.assertEqual(tapmod.tap(mod, 'x', out), 1)
        lines = out.getvalue().splitlines()
        self.assertEqual(lines[:5], ['TAP version 13', '1..3', 'ok 1 x: T.test_a',
                                     'ok 2 x: T.test_b # SKIP why', 'not ok 3 x: T.test_c'])
        self.assertIn('# AssertionError: boom', lines)

    def test_shell(self):
        sh = ('. "$0/vm/py.sh"; tap_result 0 a; tap_result skip b "no x"; tap_line 4 c; '
              'tap_result 1 d "exit 1"; tap_plan; echo "failed=$TAP_FAILED"; '
              'kvmbench_py base.tap 1 maybe e')
        p = subprocess.run(['bash', '-c', sh, os.path.dirname(BENCH)], stdout=subprocess.PIPE,
                           stderr=subprocess.PIPE, text=True)
        self.assertEqual(p.stdout.splitlines(), ['ok 1 a', 'ok 2 b # SKIP no x', 'ok c # SKIP',
                                                 'not ok 3 d # exit 1', '1..3', 'failed=1'])
        self.assertEqual((p.returncode, p.stderr.strip()),
                         (2, "kvmbench.base.tap: bad TAP status 'maybe' (ok, skip, fail or an exit "
                          "status)"))

    def test_lava_jobs(self):
        out = io.StringIO()
        w = tapmod.Tap(out)
        cases = [{'suite_name': '1_kvm-selftests', 'name': n, 'result': r}
                 for n, r in (('a', 'pass'), ('b', 'skip'), ('c', 'fail'))]
        lavasuite.tap_of_job(w, 7, 'x86_64 6.1', 'Complete', '', cases)
        lavasuite.tap_of_job(w, 8, 'arm64 6.1', 'Incomplete', 'timed out', [])
        lavasuite.tap_of_job(w, 9, 'arm64 6.12', 'Complete', '', [])
        self.assertEqual(out.getvalue().splitlines(), [
            'ok 1 x86_64 6.1: a', 'ok 2 x86_64 6.1: b # SKIP', 'not ok 3 x86_64 6.1: c # fail',
            'not ok 4 arm64 6.1: job 8 Incomplete # timed out',
            'not ok 5 arm64 6.12: job 9 reported no test case'])
        self.assertEqual(w.summary(), '1 passed, 3 failed, 1 skipped')


if __name__ == '__main__':
    if sys.argv[1:] == ['--tap']:
        sys.exit(tap(sys.modules[__name__], 'tap'))
    unittest.main(verbosity=2)
