# SPDX-License-Identifier: GPL-2.0-only
"""What bench/test_*.py share: a fake perf test and a kselftest install
tree holding it (fake_tree), stdout and stderr captured (Quiet), a
throwaway PostgreSQL server (Postgres)."""
import glob
import io
import os
import pwd
import shutil
import subprocess
import sys
import tempfile
import unittest

# A fake perf test: writes time_ns from its directory's "base" file and
# its run count (a steady sequence), honours --json FILE; -fail exits 1,
# -hang sleeps, -skip exits 4; -h (the option check) takes every option.
FAKE = r'''#!/bin/sh
for a in "$@"; do [ "$a" != -h ] || exit 0; done
json=
for a in "$@"; do
  case $prev in --json) json=$a ;; esac
  prev=$a
  case $a in
  -fail) echo "bad option"; exit 1 ;;
  -hang) exec sleep 5 ;;
  -skip) echo "SKIP: no such thing"; exit 4 ;;
  esac
done
n=$(cat count 2>/dev/null || echo 0); echo $((n + 1)) >count
v=$(( $(cat base) + (n * 37) % 11 ))
echo "RESULT time_ns=$v"
[ -z "$json" ] || printf '{"runs": [{"figures": {"time_ns": {"value": %d, "unit": "ns"}}}]}\n' "$v" >"$json"
'''


def fake_tree(root, base, name='fake_test'):
    """A kselftest install tree with the fake test (and a guest_print_test
    that passes, for the host probe)."""
    kvm = os.path.join(root, 'kvm')
    os.makedirs(kvm)
    open(os.path.join(root, 'kselftest-list.txt'), 'w').close()
    for n, text in ((name, FAKE), ('guest_print_test', '#!/bin/sh\nexit 0\n')):
        with open(os.path.join(kvm, n), 'w') as f:
            f.write(text)
        os.chmod(os.path.join(kvm, n), 0o755)
    with open(os.path.join(kvm, 'base'), 'w') as f:
        f.write('%d\n' % base)
    return root


class Quiet:
    """stdout and stderr captured."""

    def __enter__(self):
        self.old = sys.stdout, sys.stderr
        sys.stdout, sys.stderr = io.StringIO(), io.StringIO()
        return self

    def __exit__(self, *exc):
        self.out, self.err = sys.stdout.getvalue(), sys.stderr.getvalue()
        sys.stdout, sys.stderr = self.old


class Postgres:
    """A throwaway PostgreSQL server for a test: Debian's postgresql
    (initdb and pg_ctl of /usr/lib/postgresql/N/bin; installed as root
    when missing), a cluster in a temporary directory listening on a Unix
    socket there only, run as the user postgres when we are root (initdb
    refuses root); .url is its postgresql:// URL (user kvmtest, database
    postgres), stop() ends it and removes the directory.  unittest's
    SkipTest (the reason said) if it cannot be had."""

    def __init__(self):
        from kvmbench.kernels import build
        bins = sorted(glob.glob('/usr/lib/postgresql/*/bin/pg_ctl'))
        if not bins and os.geteuid() == 0:
            try:
                build.ensure_packages(['postgresql'], "to test bench/track's PostgreSQL "
                                      "database")
            except build.BuildError as e:
                raise unittest.SkipTest('no PostgreSQL: %s' % e)
            bins = sorted(glob.glob('/usr/lib/postgresql/*/bin/pg_ctl'))
        if not bins:
            raise unittest.SkipTest("no PostgreSQL server (Debian's postgresql: apt-get "
                                    "install postgresql)")
        self.bin = os.path.dirname(bins[-1])
        self.dir = tempfile.mkdtemp(prefix='pgtest.')
        self.user = []
        data, sock = os.path.join(self.dir, 'data'), os.path.join(self.dir, 'sock')
        os.makedirs(sock)
        if os.geteuid() == 0:
            pw = pwd.getpwnam('postgres')
            os.chmod(self.dir, 0o755)
            os.chown(sock, pw.pw_uid, pw.pw_gid)
            os.chown(self.dir, pw.pw_uid, pw.pw_gid)
            self.user = ['runuser', '-u', 'postgres', '--']
        self.data = data
        log = os.path.join(self.dir, 'server.log')
        for cmd in ([os.path.join(self.bin, 'initdb'), '-D', data, '-A', 'trust', '-U',
                     'kvmtest', '--no-sync'],
                    [os.path.join(self.bin, 'pg_ctl'), '-D', data, '-l', log, '-w', '-t', '60',
                     '-o', "-k %s -c listen_addresses='' -c fsync=off" % sock, 'start']):
            p = subprocess.run(self.user + cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                               text=True, cwd=self.dir)
            if p.returncode:
                shutil.rmtree(self.dir, ignore_errors=True)
                raise AssertionError('%s failed: %s' % (os.path.basename(cmd[0]),
                                                        p.stdout[-500:]))
        self.url = 'postgresql://kvmtest@/postgres?host=%s&port=5432' % sock

    def stop(self):
        subprocess.run(self.user + [os.path.join(self.bin, 'pg_ctl'), '-D', self.data, '-m',
                                    'fast', '-w', 'stop'], stdout=subprocess.DEVNULL,
                       stderr=subprocess.DEVNULL)
        shutil.rmtree(self.dir, ignore_errors=True)
