#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""Bad input everywhere: each case of bench/testdata/bad-input.tsv (the
command, its status, the one line it says) is refused before any build
of a kernel or boot, in seconds; and git bisect run stops at
bench/bisect-run's usage status (git-bisect(1): 128 or more aborts).

    python3 bench/test_bad_input.py [--tap]
"""
import os
import re
import shlex
import subprocess
import sys
import tempfile
import time
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from kvmbench.base.tap import tap  # noqa: E402
from kvmbench.attribution import bisect  # noqa: E402

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
TABLE = os.path.join(REPO, 'bench', 'testdata', 'bad-input.tsv')
# A case that took longer booted or built more than the suite (which a
# test's option check needs, seconds once built).
LIMIT_S = 120
BOOTED = re.compile(r'booting |^boot [0-9]+ of|vm/run: ', re.M)


def cases(path=TABLE):
    """(line number, status, pattern, argv) of each case of @path."""
    out = []
    with open(path) as f:
        for n, line in enumerate(f, 1):
            line = line.rstrip('\n')
            if not line or line.startswith('#'):
                continue
            status, pattern, cmd = line.split('\t')
            out.append((n, int(status), pattern, shlex.split(cmd)))
    return out


class Case(unittest.TestCase):
    def __init__(self, n, status, pattern, argv):
        super().__init__('check')
        self.n, self.status, self.pattern, self.argv = n, status, pattern, argv

    def id(self):
        return 'bad_input.%s' % ' '.join(shlex.quote(w) for w in self.argv)

    def shortDescription(self):
        return None

    def check(self):
        t0 = time.monotonic()
        p = subprocess.run(self.argv, cwd=REPO, stdin=subprocess.DEVNULL, capture_output=True,
                           text=True, errors='replace', timeout=LIMIT_S)
        took = time.monotonic() - t0
        # What the program said, without the suite's build or package installs
        # that may come first (the option check needs the built test).
        err = [x for x in p.stderr.splitlines() if not re.match(
            r'.*: (building the suite|installing)', x)]
        where = 'line %d of %s' % (self.n, os.path.relpath(TABLE, REPO))
        self.assertEqual(p.returncode, self.status, '%s: exit %d, not %d; stderr:\n%s' % (
            where, p.returncode, self.status, p.stderr))
        self.assertIsNone(BOOTED.search(p.stdout + p.stderr), '%s: booted' % where)
        if self.status == 0:
            self.assertRegex(p.stdout, re.compile(self.pattern, re.M), where)
            return
        self.assertEqual(len(err), 1, '%s: not one line:\n%s' % (where, p.stderr))
        self.assertRegex(err[0], self.pattern, where)
        self.assertNotIn('Traceback', p.stderr)
        self.assertLess(took, LIMIT_S)


class GitBisect(unittest.TestCase):
    def test_usage_stops_git_bisect_run(self):
        """bisect-run's usage status ends git bisect run at the first
        step, no commit marked; 125 (skip) would go on."""
        self.assertGreaterEqual(bisect.USAGE, 128)
        with tempfile.TemporaryDirectory() as d:
            def git(*args):
                return subprocess.run(['git', '-C', d, '-c', 'user.name=t', '-c',
                                       'user.email=t@localhost'] + list(args),
                                      capture_output=True, text=True)
            git('init', '-q')
            for i in range(4):
                git('commit', '-q', '--allow-empty', '-m', str(i))
            git('bisect', 'start', 'HEAD', 'HEAD~3')
            me = os.path.join(REPO, 'bench', 'bisect-run')
            r = git('bisect', 'run', me, '--runs', '1')
            self.assertNotEqual(r.returncode, 0)
            self.assertIn('bisect run failed', r.stdout + r.stderr)
            self.assertNotIn('first bad commit', r.stdout)
            log = git('bisect', 'log').stdout
            self.assertNotRegex(log, r'^git bisect (bad|skip)', log)


def load_tests(loader, tests, pattern):
    suite = unittest.TestSuite([Case(*c) for c in cases()])
    suite.addTests(loader.loadTestsFromTestCase(GitBisect))
    return suite


if __name__ == '__main__':
    if sys.argv[1:] == ['--tap']:
        sys.exit(tap(sys.modules[__name__], 'bad input'))
    unittest.main(verbosity=2)
