# SPDX-License-Identifier: GPL-2.0-only
"""kvmbench.tap: a unittest module's tests as kselftest TAP, one result a
test (bench/verdict_tests.sh renumbers them into its own TAP)."""
import sys
import unittest


def tap(module, prefix):
    """Run every test of @module, print TAP ('ok N PREFIX: Class.test');
    1 if one failed, else 0."""
    def flat(suite):
        for t in suite:
            if isinstance(t, unittest.TestSuite):
                yield from flat(t)
            else:
                yield t
    tests = list(flat(unittest.defaultTestLoader.loadTestsFromModule(module)))
    print('TAP version 13\n1..%d' % len(tests))
    failed = 0
    for i, t in enumerate(tests, 1):
        r = unittest.TestResult()
        t.run(r)
        name = '%s: %s' % (prefix, t.id().split('.', 1)[1])
        if r.failures or r.errors:
            failed += 1
            print('not ok %d %s' % (i, name))
            for _, tb in r.failures + r.errors:
                print('\n'.join('# ' + line for line in tb.splitlines()))
        elif r.skipped:
            print('ok %d %s # SKIP %s' % (i, name, r.skipped[0][1]))
        else:
            print('ok %d %s' % (i, name))
        sys.stdout.flush()
    return 1 if failed else 0
