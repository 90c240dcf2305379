# SPDX-License-Identifier: GPL-2.0-only
"""A local LAVA lab on 127.0.0.1 (lava/lab): Debian's LAVA 2023.01 run by
hand, without systemd: PostgreSQL (pg_ctlcluster), the server (gunicorn3
lava_server.wsgi), the scheduler, the publisher and one worker, with N
QEMU devices whose dictionaries extend qemu.jinja2 with no_kvm = True.

Its state (URL, token, process ids, logs) lives in LAVA_LAB_DIR (default
/var/lib/kvm-selftests-lava); `--lava local` reads the URL and token there.
"""

import argparse
import os
import secrets
import signal
import subprocess
import sys
import time

from kvmbench.base import errors
from kvmbench.kernels import build
from kvmbench.vmrun import cli
from kvmbench.vmrun.cli import Parser, Usage
from . import lava

STATE = os.environ.get('LAVA_LAB_DIR', '/var/lib/kvm-selftests-lava')
# No lavacli: the jobs go through LAVA's REST API (kvmbench.labs.lava), which
# submits, waits with a timeout, cancels and reads results in one place.
PACKAGES = ('lava-server', 'lava-dispatcher', 'lava-common', 'postgresql',
            'qemu-system-x86', 'qemu-system-arm')
USER = 'kvmlab'
WORKER = 'kvmlab-worker'
DEVICE = 'kvmlab-qemu-%02d'
DEVICES_DIR = '/etc/lava-server/dispatcher-config/devices'
SERVICES = ('gunicorn', 'scheduler', 'publisher', 'worker')
# /usr/bin first: LAVA's tools run with the system's python3 and modules.
ENV = dict(os.environ, PATH='/usr/bin:/usr/sbin:/bin:/sbin:' + os.environ.get('PATH', ''))


def say(msg):
    errors.say('lava/lab', msg)


def die(msg, code=1):
    say(msg)
    sys.exit(code)


def run(cmd, check=True):
    """Run @cmd; its output, '' if it failed.  A failure (with @check)
    ends lava/lab with the command's last line."""
    p = subprocess.run(cmd, env=ENV, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                       universal_newlines=True, stdin=subprocess.DEVNULL)
    if check and p.returncode:
        die('%s failed (exit %d): %s' % (' '.join(cmd), p.returncode,
                                         ''.join(p.stdout.strip().splitlines()[-1:])))
    return '' if p.returncode else p.stdout


def manage(*args, check=True):
    return run(['lava-server', 'manage'] + list(args), check=check)


def path(*names):
    return os.path.join(STATE, *names)


def read(name, default=''):
    try:
        with open(path(name)) as f:
            return f.read().strip()
    except OSError:
        return default


def write(name, text):
    with open(path(name), 'w') as f:
        f.write(text + '\n')


def apt_install(pkgs):
    """kvmbench.kernels.build's installer, for the lab; a failure ends lava/lab (6)."""
    try:
        build.install(list(pkgs), 'for the local LAVA lab', say)
    except build.BuildError as e:
        die(str(e), 6)


def pg_cluster():
    """(version, name, online) of the first PostgreSQL cluster."""
    out = run(['pg_lsclusters', '-h'], check=False)
    for line in out.splitlines():
        f = line.split()
        if len(f) >= 4:
            return f[0], f[1], f[3] == 'online'
    return None


def start_postgres():
    c = pg_cluster()
    if not c:
        die('no PostgreSQL cluster (pg_lsclusters); reinstall postgresql', 6)
    if not c[2]:
        run(['pg_ctlcluster', c[0], c[1], 'start'])
        write('pg-started', '%s %s' % c[:2])


def install():
    """LAVA's packages; PostgreSQL runs before lava-server's postinst."""
    missing = build.missing(PACKAGES)
    if not missing:
        return
    if 'postgresql' in missing:
        apt_install(['postgresql'])
    start_postgres()
    apt_install(missing)


def pid_alive(pid):
    try:
        os.kill(pid, 0)
    except OSError:
        return False
    return True


def service_pid(name):
    pid = read('%s.pid' % name)
    return int(pid) if pid.isdigit() and pid_alive(int(pid)) else 0


def spawn(name, cmd):
    if service_pid(name):
        return
    log = open(path('logs', name + '.log'), 'a')
    p = subprocess.Popen(cmd, env=ENV, stdout=log, stderr=subprocess.STDOUT,
                         stdin=subprocess.DEVNULL, start_new_session=True, cwd='/')
    write('%s.pid' % name, str(p.pid))


def http_ok(url, token=None):
    try:
        lava.Lava(url, token).get('system/version/')
        return True
    except lava.LavaError:
        return False


def wait_for(what, test, secs):
    t0 = time.time()
    while time.time() - t0 < secs:
        if test():
            return
        time.sleep(0.5)
    die('%s not up after %d s (logs in %s)' % (what, secs, path('logs')))


def setup_objects(ndev):
    """The user and its token, the worker, the qemu type, @ndev devices."""
    manage('users', 'add', USER, '--superuser', '--staff', '--passwd',
           secrets.token_hex(16), check=False)
    token = read('token')
    if not token:
        token = secrets.token_hex(20)
        manage('tokens', 'add', '--user', USER, '--secret', token)
        write('token', token)
    manage('workers', 'add', WORKER, check=False)
    details = manage('workers', 'details', WORKER)
    wtoken = [ln.split(':', 1)[1].strip() for ln in details.splitlines()
              if ln.startswith('token')]
    if not wtoken:
        die('no token for worker %s (lava-server manage workers details)' % WORKER)
    write('worker-token', wtoken[0])
    manage('device-types', 'add', 'qemu', check=False)
    os.makedirs(DEVICES_DIR, exist_ok=True)
    existing = manage('devices', 'list', '--all', check=False)
    for i in range(1, 100):
        name = DEVICE % i
        if i > ndev:
            if name in existing:
                manage('devices', 'update', name, '--health', 'RETIRED', check=False)
            continue
        with open(os.path.join(DEVICES_DIR, name + '.jinja2'), 'w') as f:
            f.write("{% extends 'qemu.jinja2' %}\n{% set no_kvm = True %}\n"
                    "{# kvm-selftests local lab (lava/lab): TCG, KVM inside the guest #}\n")
        if name not in existing:
            manage('devices', 'add', '--device-type', 'qemu', '--worker', WORKER, name)
        manage('devices', 'update', name, '--worker', WORKER, '--health', 'GOOD')


def start(args):
    t0 = time.time()
    os.makedirs(path('logs'), exist_ok=True)
    install()
    start_postgres()
    if not read('postinst-done'):
        say('configuring LAVA (postinst.py --config --db --fixup)')
        run(['/usr/share/lava-server/postinst.py', '--config', '--db', '--fixup'])
        write('postinst-done', 'yes')
    port = args.port or int(read('port', '0') or 0) or 18080
    url = 'http://127.0.0.1:%d/' % port
    ndev = args.devices or os.cpu_count() or 1
    setup_objects(ndev)
    write('port', str(port))
    write('url', url)
    lg = path('logs')
    # The publisher's event stream on 127.0.0.1 too (LAVA binds *:5500).
    ENV['LAVA_SETTINGS_EVENT_SOCKET'] = 'tcp://127.0.0.1:%d' % (port + 2)
    ENV['LAVA_YAML_SETTINGS_EVENT_NOTIFICATION'] = 'true'
    spawn('gunicorn', ['gunicorn3', 'lava_server.wsgi', '--bind', '127.0.0.1:%d' % port,
                       '-u', 'lavaserver', '-g', 'lavaserver', '--workers', '2',
                       '--timeout', '300', '--log-file', os.path.join(lg, 'gunicorn-app.log')])
    spawn('publisher', ['lava-server', 'manage', 'lava-publisher', '--host', '127.0.0.1',
                        '--port', str(port + 1), '--level', 'INFO',
                        '--log-file', os.path.join(lg, 'publisher-app.log')])
    spawn('scheduler', ['lava-server', 'manage', 'lava-scheduler', '--level', 'INFO',
                        '--event-url', 'tcp://127.0.0.1:%d' % (port + 2),
                        '--log-file', os.path.join(lg, 'scheduler-app.log')])
    wait_for('the server on %s' % url, lambda: http_ok(url), 120)
    os.makedirs(path('worker'), exist_ok=True)
    spawn('worker', ['lava-worker', '--url', url, '--token', read('worker-token'),
                     '--name', WORKER, '--worker-dir', path('worker'), '--ping-interval', '5',
                     '--level', 'INFO', '--log-file', os.path.join(lg, 'worker-app.log')])
    api = lava.Lava(url, read('token'))

    def worker_online():
        try:
            return api.get('workers/%s/' % WORKER).get('state') == 'Online'
        except lava.LavaError:
            return False
    wait_for('the worker', worker_online, 90)
    say('up in %.0f s: %d QEMU devices (%s..), token %s' %
        (time.time() - t0, ndev, DEVICE % 1, read('token')))
    print('LAVA_TOKEN=%s' % read('token'))
    print(url)


def stop(_args):
    pids = [(n, service_pid(n)) for n in SERVICES]
    for name, pid in pids:
        if pid:
            try:
                os.killpg(pid, signal.SIGTERM)
            except OSError:
                pass
    t0 = time.time()
    while time.time() - t0 < 20 and any(pid_alive(p) for _, p in pids if p):
        time.sleep(0.2)
    for name, pid in pids:
        if pid and pid_alive(pid):
            try:
                os.killpg(pid, signal.SIGKILL)
            except OSError:
                pass
        if os.path.exists(path('%s.pid' % name)):
            os.unlink(path('%s.pid' % name))
    pg = read('pg-started')
    if pg:
        run(['pg_ctlcluster'] + pg.split() + ['stop'], check=False)
        os.unlink(path('pg-started'))
    say('stopped: %s' % (', '.join(n for n, p in pids if p) or 'nothing was running'))


def status(_args):
    up = 0
    for name in SERVICES:
        pid = service_pid(name)
        up += bool(pid)
        print('%-10s %s' % (name, 'running (pid %d)' % pid if pid else 'stopped'))
    url = read('url')
    if url and up:
        try:
            api = lava.Lava(url, read('token'))
            print('devices    %s' % ', '.join('%s %s/%s' % (d['hostname'], d['state'], d['health'])
                                              for d in api.devices()))
        except lava.LavaError as e:
            print('api        %s' % e)
        print(url)
    return 0 if up == len(SERVICES) else 1


def main(argv=None):
    ap = Parser(prog='lava/lab', formatter_class=argparse.HelpFormatter, description='A local LAVA lab on 127.0.0.1: '
                'start (installs what it needs), stop, status.')
    sub = ap.add_subparsers(dest='cmd', required=True)
    s = sub.add_parser('start', help='start the lab; prints the token and, last, the URL')
    s.add_argument('--port', type=int, default=0, help='server port (default 18080; '
                   'the publisher takes PORT+1 and PORT+2)')
    s.add_argument('--devices', type=int, default=0, help='QEMU devices (default: cores)')
    sub.add_parser('stop', help='stop everything start started')
    sub.add_parser('status', help='what runs, the devices, the URL')
    try:
        return main_args(ap, ap.parse_args(argv))
    except Usage as e:      # one line, exit 2
        die(str(e), 2)


def main_args(ap, a):
    if a.cmd == 'start' and not 0 <= a.port <= 65533:
        ap.error('bad --port %d: a TCP port up to 65533 (it takes PORT+1 and PORT+2 too)'
                 % a.port)
    if a.cmd == 'start' and not 0 <= a.devices <= 99:
        ap.error('bad --devices %d: from 1 to 99 (0: one a core)' % a.devices)
    if os.geteuid() != 0:
        die('needs root (installs packages, runs LAVA)', 2)
    os.makedirs(STATE, exist_ok=True)
    if a.cmd != 'start':
        return {'stop': stop, 'status': status}[a.cmd](a) or 0
    cli.on_signals()
    try:
        return start(a) or 0
    except KeyboardInterrupt as e:     # what it started is stopped: no half lab left
        stop(a)
        return cli.interrupted('lava/lab', e, 'lava/lab start starts it again')


if __name__ == '__main__':
    sys.exit(main())
