# SPDX-License-Identifier: GPL-2.0-only
"""kvmbench.base.tap: the one writer of kselftest TAP on the host.

Tap numbers results and counts them: result(status, name, why) prints
'ok N NAME', 'ok N NAME # SKIP WHY' or 'not ok N NAME # WHY'; a status
is ok, skip or fail, or a kselftest exit status (0 ok, 4 skip, else
fail).  tap() runs a unittest module's tests as TAP, one result a test.
Shell scripts print through vm/py.sh's tap_result, which runs

  python3 -m kvmbench.base.tap N|- STATUS NAME [WHY]

(one line, number N or none for '-'; exit 1 if STATUS is a failure).
The guest's TAP (vm/init, testcases/run.sh) is busybox sh: no Python
there."""
import sys
import unittest


def status_of(status):
    """'ok', 'skip' or 'fail' for @status: one of those, pass, an
    exit status (0 ok, 4 skip, else fail) or an int."""
    s = str(status)
    if s in ('ok', 'pass', '0'):
        return 'ok'
    if s in ('skip', '4'):
        return 'skip'
    if s == 'fail' or s.isdigit():
        return 'fail'
    raise ValueError("bad TAP status '%s' (ok, skip, fail or an exit status)" % s)


def line(num, status, name, why=''):
    """One TAP result line; @num None: unnumbered."""
    st = status_of(status)
    head = ('not ok' if st == 'fail' else 'ok') + ('' if num is None else ' %d' % num)
    if st == 'skip':
        return '%s %s # SKIP%s' % (head, name, ' ' + why if why else '')
    return '%s %s%s' % (head, name, ' # ' + why if why else '')


class Tap:
    """Numbered TAP results to @out (default stdout) from @start + 1, counted."""

    def __init__(self, out=None, start=0):
        self.out, self.num = out, start
        self.counts = {'ok': 0, 'fail': 0, 'skip': 0}

    def write(self, text):
        out = self.out or sys.stdout
        out.write(text + '\n')
        out.flush()

    def header(self):
        self.write('TAP version 13')

    def plan(self, n=None):
        self.write('1..%d' % (self.num if n is None else n))

    def comment(self, text):
        for ln in text.splitlines():
            self.write('# ' + ln)

    def result(self, status, name, why=''):
        """Print the next result; its status (ok, skip, fail)."""
        self.num += 1
        st = status_of(status)
        self.counts[st] += 1
        self.write(line(self.num, st, name, why))
        return st

    @property
    def failed(self):
        return self.counts['fail']

    def summary(self):
        return '%d passed, %d failed, %d skipped' % (
            self.counts['ok'], self.counts['fail'], self.counts['skip'])


def tap(module, prefix, out=None):
    """Run every test of @module, print TAP ('ok N PREFIX: Class.test');
    1 if one failed, else 0."""
    def flat(suite):
        for t in suite:
            if isinstance(t, unittest.TestSuite):
                yield from flat(t)
            else:
                yield t
    tests = list(flat(unittest.defaultTestLoader.loadTestsFromModule(module)))
    w = Tap(out)
    w.header()
    w.plan(len(tests))
    for t in tests:
        r = unittest.TestResult()
        t.run(r)
        name = '%s: %s' % (prefix, t.id().split('.', 1)[1])
        if r.failures or r.errors:
            w.result('fail', name)
            for _, tb in r.failures + r.errors:
                w.comment(tb)
        elif r.skipped:
            w.result('skip', name, r.skipped[0][1])
        else:
            w.result('ok', name)
    return 1 if w.failed else 0


def main(argv):
    if len(argv) not in (3, 4) or not (argv[0] == '-' or argv[0].isdigit()):
        print('usage: python3 -m kvmbench.base.tap N|- STATUS NAME [WHY]', file=sys.stderr)
        return 2
    try:
        st = status_of(argv[1])
    except ValueError as e:
        print('kvmbench.base.tap: %s' % e, file=sys.stderr)
        return 2
    print(line(None if argv[0] == '-' else int(argv[0]), st, argv[2],
               argv[3] if len(argv) > 3 else ''), flush=True)
    return 1 if st == 'fail' else 0


if __name__ == '__main__':
    sys.exit(main(sys.argv[1:]))
