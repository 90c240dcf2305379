#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-only
"""Unit tests of the host's set-up when runs start together on a fresh
machine: the installer (kvmbench.build.install) against a fake apt-get
on PATH whose lists lock another installer holds for a while, and the
cache's downloads (kvmbench.fetch.landed) made by two processes at once
in an empty cache (XDG_CACHE_HOME).
Run: python3 bench/test_hostsetup.py (--tap: kselftest TAP, one result a test)"""
import os
import subprocess
import sys
import tempfile
import time
import unittest

BENCH = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, BENCH)
from kvmbench import fetch  # noqa: E402
from kvmbench.tap import tap  # noqa: E402

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


def write_exe(path, text):
    with open(path, 'w') as f:
        f.write(text)
    os.chmod(path, 0o755)


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
            runs = [subprocess.Popen([sys.executable, '-m', 'kvmbench.build', 'packages',
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
from kvmbench import fetch
def fill(tmp):
    with open(os.path.join(tmp, 'count'), 'a') as f:
        f.write('x')
    with open(sys.argv[2], 'a') as f:
        f.write('filled\n')
    time.sleep(1.5)
    with open(os.path.join(tmp, 'vmlinuz'), 'w') as f:
        f.write('kernel')
print(fetch.landed(sys.argv[1], fill, '.complete'))
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
                dest = os.path.join(fetch.cache_dir(), 'pkg')

                def fill(tmp):
                    open(os.path.join(tmp, 'half'), 'w').close()
                    raise fetch.FetchError(6, 'download failed')
                with self.assertRaises(fetch.FetchError):
                    fetch.landed(dest, fill, '.complete')
                self.assertEqual(os.listdir(fetch.cache_dir()), ['.locks'])
            finally:
                if old is None:
                    del os.environ['XDG_CACHE_HOME']
                else:
                    os.environ['XDG_CACHE_HOME'] = old


if __name__ == '__main__':
    if sys.argv[1:] == ['--tap']:
        sys.exit(tap(sys.modules[__name__], 'hostsetup'))
    unittest.main(verbosity=2)
