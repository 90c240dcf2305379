#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-only
"""Unit tests of the host's set-up when runs start together on a fresh
machine: two vm/run of one kernel at once on an empty cache, the
installer (kvmbench.kernels.build.install) against a fake apt-get
on PATH whose lists lock another installer holds for a while, and the
cache's downloads (kvmbench.kernels.debian.landed) made by two processes at once
in an empty cache (XDG_CACHE_HOME); a signal to a program that started
children (kvmbench.vmrun.cli.on_signals, interrupted) ends them and says so;
the one rule for the folders the programs write (kvmbench.vmrun.cli.check_out);
vm/suite's pool (vm/pool.sh): a line as each job starts and ends, and a
signal stops every job.
Run: python3 bench/test_hostsetup.py (--tap: kselftest TAP, one result a test)"""
import os
import signal
import subprocess
import sys
import tempfile
import time
import unittest

BENCH = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, BENCH)
from kvmbench.base.tap import tap  # noqa: E402
from kvmbench.kernels import debian  # noqa: E402
from kvmbench.vmrun import boot, cli, runner, vm  # noqa: E402
from testkit import fake_tree  # noqa: E402

# A fake apt-get: update fails at once while lists.lock is held (as
# apt-get update does with /var/lib/apt/lists/lock, whatever
# DPkg::Lock::Timeout says); install waits for dpkg.lock (as
# DPkg::Lock::Timeout makes it), prints dpkg's chatter, counts itself,
# marks the packages installed; -s install simulates an upgrade of libold.
APT_GET = r'''#!/bin/sh
F=$FAKE_APT
sim= op=
for a in "$@"; do
  case $a in -s) sim=1 ;; update|install|download) op=$a ;; esac
done
case $op in
update)
  exec 9>"$F/lists.lock"
  flock -n 9 || { echo "E: Could not get lock /var/lib/apt/lists/lock. It is held by process 1 (apt-get)"; exit 100; }
  echo "Reading package lists..."; echo update >>"$F/calls" ;;
install)
  if [ -n "$sim" ]; then echo "Inst libold [1.0] (1.1 Debian:12)"; echo "Inst fakepkg (1.0 Debian:12)"; exit 0; fi
  exec 9>"$F/dpkg.lock"; flock 9
  for p in "$@"; do case $p in -*|install|DPkg*) ;; *)
    echo "Setting up $p (1.0) ..."; echo "install $p" >>"$F/calls"; touch "$F/installed.$p" ;; esac; done
  sleep 1 ;;
esac
'''
DPKG_QUERY = r'''#!/bin/sh
for p; do :; done
[ -e "$FAKE_APT/installed.$p" ] && echo "install ok installed"
exit 0
'''


def cwd_of(pid):
    try:
        return os.readlink('/proc/%s/cwd' % pid)
    except OSError:
        return None


def running(pid, wait=0.5):
    """True if process @pid runs (not gone, not a zombie its new parent
    has yet to reap) @wait seconds from now."""
    time.sleep(wait)
    try:
        with open('/proc/%d/stat' % pid) as f:
            return f.read().rsplit(')', 1)[1].split()[0] != 'Z'
    except OSError:
        return False


def write_exe(path, text):
    with open(path, 'w') as f:
        f.write(text)
    os.chmod(path, 0o755)


class TwoBootsEmptyCache(unittest.TestCase):
    """Two vm/run of the same kernel at once on an empty cache (as
    bench/track --jobs 2 starts on a fresh machine): one downloads it,
    the other waits for it; both boot and run the command."""

    def test_two_boots(self):
        if os.uname().machine != 'x86_64':
            self.skipTest('an x86_64 host (its busybox; an arm64 guest would fetch more)')
        with tempfile.TemporaryDirectory() as d:
            tree = os.path.join(d, 'tree')
            os.makedirs(os.path.join(tree, 'kvm'))
            open(os.path.join(tree, 'kselftest-list.txt'), 'w').close()
            write_exe(os.path.join(tree, 'kvm', 'hello'), '#!/bin/sh\necho hello from $1\n')
            env = dict(os.environ, XDG_CACHE_HOME=os.path.join(d, 'cache'), TMPDIR=d)
            run = os.path.join(os.path.dirname(BENCH), 'vm', 'run')
            ps = [subprocess.Popen([run, '--debian-kernel', '6.12', '--dir', tree, '--timeout',
                                    '600', '--', './hello', str(i)], env=env, text=True,
                                   stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                                   stdin=subprocess.DEVNULL) for i in (1, 2)]
            outs = [p.communicate(timeout=900)[0] for p in ps]
            if all(p.returncode == 6 and 'apt-get download' in o for p, o in zip(ps, outs)):
                self.skipTest('the kernel cannot be downloaded here: %s' % outs[0][-200:])
            for i, (p, out) in enumerate(zip(ps, outs), 1):
                self.assertEqual(p.returncode, 0, out)
                self.assertIn('hello from %d' % i, out)
            said = ''.join(outs)
            # once: the other waited for it ("waiting for"), or found it whole
            self.assertEqual(said.count('vm/run: downloading linux-image-6.12'), 1, said)


class Installer(unittest.TestCase):
    """Two runs needing the same package while a third installer holds
    apt's lists lock: both wait (no exit 6), it is installed once, dpkg's
    output goes to the log the message names, the upgrade is said."""

    def test_two_installs_wait_and_install_once(self):
        if os.geteuid() != 0:
            self.skipTest('the installer runs apt-get as root only')
        with tempfile.TemporaryDirectory() as d:
            fake = os.path.join(d, 'fake')
            os.makedirs(os.path.join(fake, 'bin'))
            write_exe(os.path.join(fake, 'bin', 'apt-get'), APT_GET)
            write_exe(os.path.join(fake, 'bin', 'dpkg-query'), DPKG_QUERY)
            env = dict(os.environ, FAKE_APT=fake, XDG_CACHE_HOME=os.path.join(d, 'cache'),
                       PATH=os.path.join(fake, 'bin') + ':' + os.environ['PATH'],
                       PYTHONPATH=BENCH)
            # The other installer: holds the lists lock for 3 s.
            holder = subprocess.Popen(['flock', os.path.join(fake, 'lists.lock'),
                                       'sleep', '3'])
            time.sleep(0.3)
            t0 = time.time()
            runs = [subprocess.Popen([sys.executable, '-m', 'kvmbench.kernels.build', 'packages',
                                      '--why', 'for the test', 'fakepkg'], env=env,
                                     stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
                    for _ in range(2)]
            outs = [p.communicate(timeout=60) for p in runs]
            holder.wait()
            took = time.time() - t0
            for p, (out, err) in zip(runs, outs):
                self.assertEqual(p.returncode, 0, err)
                self.assertNotIn('Setting up', out + err)
            with open(os.path.join(fake, 'calls')) as f:
                calls = f.read().split('\n')
            self.assertEqual(calls.count('install fakepkg'), 1, calls)
            self.assertGreaterEqual(took, 2.5)  # it waited for the holder
            said = ''.join(e for _, e in outs)
            log = os.path.join(d, 'cache', 'kvm-selftests', 'logs', 'apt.log')
            self.assertIn('installing fakepkg for the test (apt-get install '
                          '--no-install-recommends --no-upgrade; log: %s)' % log, said)
            self.assertIn('also upgrading, as fakepkg needs newer: libold', said)
            with open(log) as f:
                text = f.read()
            self.assertIn('Setting up fakepkg', text)
            self.assertIn('Could not get lock', text)


LAND = r'''
import os, sys, time
from kvmbench.kernels import debian
def fill(tmp):
    with open(os.path.join(tmp, 'count'), 'a') as f:
        f.write('x')
    with open(sys.argv[2], 'a') as f:
        f.write('filled\n')
    time.sleep(1.5)
    with open(os.path.join(tmp, 'vmlinuz'), 'w') as f:
        f.write('kernel')
print(debian.landed(sys.argv[1], fill, '.complete'))
'''


class Landed(unittest.TestCase):
    """A cache entry made by two processes at once in an empty cache:
    made once, whole when either sees it; a failed one leaves nothing."""

    def test_two_at_once(self):
        with tempfile.TemporaryDirectory() as d:
            env = dict(os.environ, XDG_CACHE_HOME=d, PYTHONPATH=BENCH)
            dest = os.path.join(d, 'kvm-selftests', 'linux-image-x')
            count = os.path.join(d, 'fills')
            ps = [subprocess.Popen([sys.executable, '-c', LAND, dest, count], env=env,
                                   stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
                  for _ in range(3)]
            errs = []
            for p in ps:
                out, err = p.communicate(timeout=60)
                errs.append(err)
                self.assertEqual(p.returncode, 0, err)
                self.assertEqual(out.strip(), dest)
                # each saw it whole
                with open(os.path.join(dest, 'vmlinuz')) as f:
                    self.assertEqual(f.read(), 'kernel')
            with open(count) as f:
                self.assertEqual(f.read(), 'filled\n')
            self.assertIn('waiting for linux-image-x', ''.join(errs))
            self.assertEqual(sorted(os.listdir(os.path.dirname(dest))),
                             ['.locks', 'linux-image-x'])

    def test_failed_leaves_nothing(self):
        with tempfile.TemporaryDirectory() as d:
            old = os.environ.get('XDG_CACHE_HOME')
            os.environ['XDG_CACHE_HOME'] = d
            try:
                dest = os.path.join(debian.cache_dir(), 'pkg')

                def fill(tmp):
                    open(os.path.join(tmp, 'half'), 'w').close()
                    raise debian.FetchError(6, 'download failed')
                with self.assertRaises(debian.FetchError):
                    debian.landed(dest, fill, '.complete')
                self.assertEqual(os.listdir(debian.cache_dir()), ['.locks'])
            finally:
                if old is None:
                    del os.environ['XDG_CACHE_HOME']
                else:
                    os.environ['XDG_CACHE_HOME'] = old


SIGNALLED = r'''
import subprocess, sys, time
from kvmbench.vmrun import cli
cli.on_signals()
try:
    p = subprocess.Popen(['sleep', '300'])
    with open(sys.argv[1], 'w') as f:
        f.write('%d' % p.pid)
    p.wait()
except KeyboardInterrupt as e:
    sys.exit(cli.interrupted('prog', e, 'the same command resumes', wait=3))
'''


class Signals(unittest.TestCase):
    """SIGTERM to a program alone (not its group) while a child runs: the
    child is ended, one line, exit 143; SIGINT: 130."""

    def one(self, sig, status, name):
        with tempfile.TemporaryDirectory() as d:
            pidf = os.path.join(d, 'pid')
            p = subprocess.Popen([sys.executable, '-c', SIGNALLED, pidf], text=True,
                                 env=dict(os.environ, PYTHONPATH=BENCH),
                                 stderr=subprocess.PIPE, start_new_session=True)
            for _ in range(100):
                if os.path.exists(pidf) and os.path.getsize(pidf):
                    break
                time.sleep(0.1)
            with open(pidf) as f:
                child = int(f.read())
            p.send_signal(sig)
            err = p.communicate(timeout=15)[1]
            self.assertEqual(p.returncode, status, err)
            self.assertEqual(err, 'prog: interrupted by %s: the VMs and builds it started are '
                             'stopped; the same command resumes\n' % name)
            # the child (the signal was sent to its parent alone) was ended
            self.assertFalse(running(child), 'the child is left running')

    def test_sigterm(self):
        self.one(signal.SIGTERM, 143, 'SIGTERM')

    def test_sigint(self):
        self.one(signal.SIGINT, 130, 'SIGINT')

    def test_compare_sigterm(self):
        """bench/compare (on this host, fake tests that hang) stopped by
        SIGTERM to it alone: its test ended at once, one line, 143."""
        with tempfile.TemporaryDirectory() as d:
            a, b = fake_tree(os.path.join(d, 'A'), 1000), fake_tree(os.path.join(d, 'B'), 1000)
            prog = ('import sys; from kvmbench.measure import compare; from kvmbench.vmrun import runner; '
                    'runner.host_kvm_why = lambda d: ""; sys.exit(compare.main(sys.argv[1:]))')
            p = subprocess.Popen([sys.executable, '-c', prog, '--builds', '%s,%s' % (a, b),
                                  '--where', 'host', '--arch', runner.host_arch(), '--out',
                                  os.path.join(d, 'out'), '--runs', '6', '--', 'fake_test',
                                  '-hang'], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                 text=True, env=dict(os.environ, PYTHONPATH=BENCH),
                                 start_new_session=True)

            def tests():    # the fake tests running (in a tree's kvm/)
                return [q for q in os.listdir('/proc') if q.isdigit() and
                        (cwd_of(q) or '').startswith((a, b)) and running(int(q), 0)]
            for _ in range(100):    # its first run (exec sleep 5) started
                if tests():
                    break
                time.sleep(0.1)
            self.assertTrue(tests(), 'no test started')
            t0 = time.monotonic()
            p.send_signal(signal.SIGTERM)
            err = p.communicate(timeout=30)[1]
            self.assertEqual(p.returncode, 143, err)
            self.assertLess(time.monotonic() - t0, 4)
            self.assertTrue(err.endswith('bench/compare: interrupted by SIGTERM: the VMs and '
                                         'builds it started are stopped\n'), err)
            time.sleep(0.5)
            self.assertEqual(tests(), [])


class OutDir(unittest.TestCase):
    """An output folder: new, empty, or one the same program made; a
    folder of the user's files is refused before any work and untouched."""

    def test_rule(self):
        with tempfile.TemporaryDirectory() as d:
            mine, theirs, f = (os.path.join(d, n) for n in ('mine', 'theirs', 'file'))
            os.makedirs(theirs)
            for p in (os.path.join(theirs, 'kernel'), f):
                with open(p, 'w') as o:
                    o.write('user data\n')
            cli.check_out('--out', os.path.join(d, 'new'), 'prog')
            cli.check_out('--out', d + '/new/deeper')
            cli.make_out(mine, 'prog')
            with open(os.path.join(mine, 'result'), 'w') as o:
                o.write('x')
            cli.check_out('--out', mine, 'prog')
            cli.check_out('--out', theirs, 'prog', ('kernel',))    # an output of before
            for path, prog, why in ((theirs, 'prog', 'not an empty directory nor one prog made'),
                                    (mine, 'other', 'not an empty directory nor one other made'),
                                    (mine, None, 'not an empty directory \\(nothing'),
                                    (f, 'prog', 'not a directory')):
                with self.assertRaisesRegex(cli.Usage, '^--out %s: %s' % (path, why)):
                    cli.check_out('--out', path, prog)

    def test_vm_export_refuses_a_users_folder(self):
        with tempfile.TemporaryDirectory() as d:
            with open(os.path.join(d, 'kernel'), 'w') as o:
                o.write('my kernel\n')
            with self.assertRaisesRegex(boot.Exit, '--export %s: not an empty directory' % d):
                vm.parse(['--export', d])
            p = subprocess.run([os.path.join(os.path.dirname(BENCH), 'vm', 'run'),
                                '--export', d], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                               text=True, timeout=60)
            self.assertEqual(p.returncode, 2)
            self.assertTrue(p.stderr.startswith('vm/run: --export %s: not an empty directory '
                                                'nor one vm/run --export made' % d), p.stderr)
            with open(os.path.join(d, 'kernel')) as o:
                self.assertEqual(o.read(), 'my kernel\n')
            self.assertEqual(os.listdir(d), ['kernel'])
            # an export of before is ours to write again
            cli.make_out(os.path.join(d, 'exp'), 'vm/run --export')
            self.assertEqual(vm.parse(['--export', os.path.join(d, 'exp')]).export,
                             os.path.join(d, 'exp'))

    def test_bisect_run_refuses_a_users_folder(self):
        with tempfile.TemporaryDirectory() as d:
            with open(os.path.join(d, 'notes'), 'w') as o:
                o.write('mine\n')
            base = os.path.join(BENCH, 'testdata')
            p = subprocess.run([os.path.join(BENCH, 'bisect-run'), '--debian-kernel', '6.12',
                                '--baseline', os.path.join(base, 'bad-input', 'compare.json'),
                                '--figure', 'rate', '--threshold', '10', '--out', d, '--',
                                'demand_paging_test'], stdout=subprocess.PIPE,
                               stderr=subprocess.PIPE, text=True, timeout=60, cwd=base)
            self.assertEqual(p.returncode, 128, p.stderr)     # its usage status
            self.assertIn('--out %s: not an empty directory nor one bench/bisect-run made' % d,
                          p.stderr)
            self.assertEqual(os.listdir(d), ['notes'])


POOL = r'''
set -euo pipefail   # as vm/suite
. "$1/vm/pool.sh"
JOBS=2 POOL_PROG=suite POOL_LOGS=$2
job_counts() { echo "1 passed, 0 failed, 0 skipped"; }
job_a() { sleep "$1"; }
job_hang() { sleep 300 & echo $! >>"$POOL_LOGS/pids"; wait; }
pool_traps
pool_run "$3" "$4" "$5"
echo "all done"
'''


class Pool(unittest.TestCase):
    """vm/pool.sh: 3 jobs 2 at a time, a line as each starts and ends
    (counts, time, how many done and the time left); SIGTERM to the script
    alone stops every job (no process left), one line, exit 143."""

    def pool(self, d, *jobs):
        return subprocess.Popen(['bash', '-c', POOL, 'pool', os.path.dirname(BENCH), d] +
                                list(jobs), stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                text=True, start_new_session=True)

    def test_progress(self):
        with tempfile.TemporaryDirectory() as d:
            out, err = self.pool(d, 'job_a 1', 'job_a 4', 'job_a 1').communicate(timeout=60)
            lines = out.splitlines()
            self.assertEqual(lines[:2], ['suite: start a 1 (1 of 3 started, 1 running)',
                                         'suite: start a 4 (2 of 3 started, 2 running)'], err)
            # the third starts when the first ends; the longest ends last
            self.assertRegex(lines[2], r'^suite: done a 1: 1 passed, 0 failed, 0 skipped, '
                             r'[0-9]+ s; 1 of 3, 0:0[0-9] elapsed, ~0 min left$')
            self.assertEqual(lines[3], 'suite: start a 1 (3 of 3 started, 2 running)')
            self.assertRegex(lines[4], r'^suite: done a 1: .*; 2 of 3, 0:0[0-9] elapsed, '
                             r'~0 min left$')
            self.assertRegex(lines[5], r'^suite: done a 4: .*, [4-9] s; 3 of 3, 0:0[4-9] '
                             r'elapsed$')
            self.assertEqual(lines[6:], ['all done'], err)

    def test_sigterm_stops_every_job(self):
        with tempfile.TemporaryDirectory() as d:
            p = self.pool(d, 'job_hang', 'job_hang', 'job_a 1')
            pids = os.path.join(d, 'pids')
            for _ in range(100):
                if os.path.exists(pids):
                    with open(pids) as f:
                        if len(f.read().split()) == 2:
                            break
                time.sleep(0.1)
            p.send_signal(signal.SIGTERM)
            out, err = p.communicate(timeout=60)
            self.assertEqual(p.returncode, 143, err)
            self.assertEqual(err, 'suite: interrupted by SIGTERM: its jobs are stopped '
                             '(logs in %s)\n' % d)
            self.assertNotIn('all done', out)
            with open(pids) as f:
                for pid in f.read().split():
                    self.assertFalse(running(int(pid)), 'a job is left running')


if __name__ == '__main__':
    if sys.argv[1:] == ['--tap']:
        sys.exit(tap(sys.modules[__name__], 'hostsetup'))
    unittest.main(verbosity=2)
