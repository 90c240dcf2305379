# SPDX-License-Identifier: GPL-2.0-only
"""bench/track_checks.sh: bench/track proven small, in kselftest TAP (for
vm/suite's pool, like vm/kvm_checks.sh; docs/track.md):

 - bench/test_track.py (the database, change points with the A/A
   simulation, attribution on a fixture changelog, the report);
 - bad input, one line and exit 2, nothing written: an unknown
   version, too few runs for a verdict, a database that is not ours;
 - a small track: the three newest x86_64 6.12 kernels apt has,
   demand paging, the fewest runs (5), SIGTERM in its second boot (exit
   143, one line, no VM left) and continued by the same command: every run stored once, the
   verdicts and the report; the same command again boots nothing;
 - the report in headless chromium (bench/browser_check.sh), and
   bench/test_track.py's report of a change with its changelog there:
   the first plot above the first changelog entry.
"""
import argparse
import os
import re
import signal
import sqlite3
import subprocess
import sys
import time

from kvmbench.base.tap import Tap
from kvmbench.vmrun import cli

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))
TRACK = os.path.join(REPO, 'bench', 'track')
MARK = '.track_checks'    # the logs folder is ours to empty


class Checks:
    def __init__(self, logs):
        self.logs, self.w, self.rc = logs, Tap(), None

    def run(self, log, cmd, timeout=None, sig=signal.SIGINT, env=None):
        """@cmd's output to @log, its status in self.rc; @timeout: after
        that many seconds @sig to it alone (then its status)."""
        with open(os.path.join(self.logs, log), 'w') as f:
            p = subprocess.Popen(cmd, stdout=f, stderr=subprocess.STDOUT,
                                 stdin=subprocess.DEVNULL, env=env)
            try:
                self.rc = p.wait(timeout=timeout)
            except subprocess.TimeoutExpired:
                p.send_signal(sig)
                self.rc = p.wait()
        return self.text(log)

    def text(self, log):
        with open(os.path.join(self.logs, log)) as f:
            return f.read()

    def expect(self, name, log, status, pattern):
        """The last run's status was @status and its output matches @pattern."""
        out = self.text(log)
        if self.rc == status and re.search(pattern, out, re.M):
            return self.w.result('ok', name)
        self.w.comment('\n'.join(out.splitlines()[-25:]))
        return self.w.result('fail', name, 'exit %s, wanted %d and /%s/' % (self.rc, status,
                                                                            pattern))


def left_running(path):
    """The process ids whose command line names something under @path."""
    out = []
    for d in os.listdir('/proc'):
        try:
            with open('/proc/%s/cmdline' % d, 'rb') as f:
                if path.encode() in f.read():
                    out.append(d)
        except OSError:
            pass
    return out


def stored(db):
    con = sqlite3.connect(db)
    try:
        return con.execute('SELECT count(*) FROM runs').fetchone()[0]
    finally:
        con.close()


def main(argv=None):
    ap = argparse.ArgumentParser(prog='bench/track_checks.sh', description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument('--logs', default=os.path.join(REPO, 'build', 'logs', 'track'),
                    help='where the logs go (default build/logs/track)')
    a = ap.parse_args(argv)
    try:    # new, empty or ours (its mark, or the older MARK), then emptied
        cli.fresh_out('--logs', a.logs, ap.prog, (MARK,))
    except cli.Usage as e:
        ap.exit(2, '%s: %s\n' % (ap.prog, e))
    c = Checks(a.logs)
    w = c.w
    w.header()
    db = os.path.join(a.logs, 'track.sqlite')

    t0 = time.time()
    out = c.run('unit.log', [sys.executable, os.path.join(REPO, 'bench', 'test_track.py'),
                             '--tap'])
    c.expect('bench/test_track.py (%d s)' % (time.time() - t0), 'unit.log', 0, r'^1\.\.[0-9]+')
    w.comment('\n'.join(ln for ln in out.splitlines() if re.match(r'(not )?ok ', ln)))

    c.run('bad-version.log', [TRACK, '--dry-run', '6.12.1+deb12', '6.12.2+deb12'])
    c.expect('an unknown version: exit 2', 'bad-version.log', 2,
             r"no Debian kernel '6\.12\.1\+deb12'")
    c.run('bad-runs.log', [TRACK, '--dry-run', 'all-6.12', '--commands', 'dp', '--runs', '2'])
    c.expect('too few runs for a verdict: exit 2 before any boot', 'bad-runs.log', 2,
             'cannot reach a verdict')
    notours = os.path.join(a.logs, 'notours')
    with open(notours, 'w') as f:
        f.write('not a database\n')
    c.run('bad-db.log', [TRACK, 'all-6.12', '--commands', 'dp', '--db', notours])
    with open(notours) as f:
        if f.read() == 'not a database\n':
            c.expect('a database not ours: exit 2, unchanged', 'bad-db.log', 2,
                     'not an SQLite database')
        else:
            w.result('fail', 'a database not ours: it was changed')

    # The three newest x86_64 6.12 kernels apt has (no version written here).
    out = c.run('list.log', [TRACK, '--dry-run', 'all-6.12', '--commands', 'dp', '--runs', '6',
                             '--per-boot', '6', '--arch', 'x86_64'])
    ks = [ln.split()[3] for ln in out.splitlines() if len(ln.split()) > 3][-3:]
    args = ks + ['--arch', 'x86_64', '--commands', 'dp', '--runs', '5', '--db', db]
    nice = ['nice', '-n', '10', TRACK]
    # SIGTERM to bench/track alone in its second boot, then the same
    # command again.  Its VMs' work directories (vm/run's, under TMPDIR)
    # name their emulators: none may be left.
    t0 = time.time()
    tmp = os.path.join(a.logs, 'tmp')
    os.makedirs(tmp)
    c.run('killed.log', nice + args, timeout=75, sig=signal.SIGTERM,
          env=dict(os.environ, TMPDIR=tmp))
    before = stored(db) if os.path.exists(db) else 0
    c.expect('bench/track SIGTERM: exit 143, one line, %d runs kept' % before, 'killed.log', 143,
             '^bench/track: interrupted by SIGTERM: the VMs and builds it started are stopped; '
             'every run that ended is stored')
    left = left_running(tmp)
    w.result('fail' if left else 'ok', 'no VM left running after the SIGTERM',
             ' '.join(left))
    out = c.run('track.log', nice + args + ['--report', os.path.join(a.logs, 'report')])
    c.expect('the same command continued: measured and judged (%d s in all)' % (time.time() - t0),
             'track.log', 0, r'^bench/track: measured in .* runs stored, 0 failed')
    n = stored(db)
    if n == 15 and re.search(r'^bench/track: [0-9] of 9 boots to go', out, re.M):
        w.result('ok', '15 runs stored in all, none twice (%d before the interrupt)' % before)
    else:
        w.result('fail', '%d runs stored, wanted 15' % n)
    w.comment('\n'.join(re.sub(r'^bench/track: time on ', 'time on ', ln)
                        for ln in out.splitlines()
                        if ln.startswith('bench/track: time on ')
                        or re.match(r'(changes|  x86_64|not judged)', ln)))
    c.run('again.log', [TRACK] + args)
    c.expect('the same track again: nothing to boot, nothing stored twice', 'again.log', 0,
             '0 of 9 boots to go')

    t0 = time.time()
    out = c.run('browser.log', [os.path.join(REPO, 'bench', 'browser_check.sh'),
                                os.path.join(a.logs, 'report', 'track.html'),
                                os.path.join(a.logs, 'report.png')])
    if c.rc == 4:
        w.result('skip', 'the report in headless chromium', out.strip())
    else:
        c.expect('the report in headless chromium (%d s)' % (time.time() - t0), 'browser.log',
                 0, r'^ok: .* images rendered, no load or script errors, (the first plot above '
                 r'the first changelog entry|no changelog entry)')
        # A report with a change and its changelog (bench/test_track.py's):
        # the first plot above the first changelog entry.
        c.run('browser-change.log', [sys.executable, os.path.join(REPO, 'bench', 'test_track.py'),
                                     'Track.test_report_in_browser'])
        c.expect('a change beside its plot, its changelog below the plot, in chromium',
                 'browser-change.log', 0, r'^OK$')
    w.plan()
    return 1 if w.failed else 0


if __name__ == '__main__':
    sys.exit(main())
