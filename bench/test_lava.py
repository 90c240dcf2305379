#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-only
"""Unit tests of bench/kvmbench's LAVA side without a lab: the REST client
(lava) against a fake LAVA server on 127.0.0.1 (http.server: its API's
pages, a token, errors, pagination, jobs that finish or never do), the TAP
of vm/suite --lava (lavasuite), bench/compare --lava --jobs end to end on
the fake server's jobs (lavacompare), and lava/lab's state files, status
and service processes (lab, in a temporary state directory).
Run: python3 bench/test_lava.py (--tap: kselftest TAP, one result a test)"""
import contextlib
import http.server
import io
import json
import os
import re
import socket
import sqlite3
import subprocess
import sys
import tempfile
import threading
import unittest
from unittest import mock

BENCH = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, BENCH)
from kvmbench.base.tap import Tap, tap  # noqa: E402
from kvmbench.labs import lab, lava, lavasuite  # noqa: E402
from kvmbench.tracking import track, tracklava  # noqa: E402
from kvmbench.measure import lavacompare  # noqa: E402

TOKEN = 'sekrit'


def case(name, result='pass', measurement=None, unit='', suite=1):
    return {'name': name, 'result': result, 'measurement': measurement, 'unit': unit,
            'suite': suite}


class FakeLava:
    """A LAVA server's API v0.2 on 127.0.0.1: @jobs {id: (job, tests)};
    devices in two pages; jobs/ takes a definition (not one that says
    'refuse'; @perform makes the job it becomes); 'flaky/' fails with 500
    once; every request is recorded."""

    def __init__(self, jobs=None, devices=None):
        self.jobs = jobs or {}
        self.devices = devices if devices is not None else [
            {'hostname': 'q1', 'device_type': 'qemu', 'health': 'Good', 'state': 'Idle'},
            {'hostname': 'q2', 'device_type': 'qemu', 'health': 'Retired', 'state': 'Idle'},
            {'hostname': 'b1', 'device_type': 'bbb', 'health': 'Good', 'state': 'Idle'}]
        self.requests, self.submitted, self.cancelled = [], [], []
        self.perform = None     # (id, definition) -> (job, tests) of a job submitted
        self.flaky = 1
        fake = self

        class Handler(http.server.BaseHTTPRequestHandler):
            def log_message(self, *args):
                pass

            def send(self, code, obj=None, raw=None):
                body = raw if raw is not None else json.dumps(obj).encode()
                self.send_response(code)
                self.send_header('Content-Length', str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def do_GET(self):
                fake.requests.append(('GET', self.path, self.headers.get('Authorization')))
                code, obj, raw = fake.route(self.path, self.headers.get('Authorization'))
                self.send(code, obj, raw)

            def do_POST(self):
                n = int(self.headers.get('Content-Length', 0))
                data = json.loads(self.rfile.read(n) or b'null')
                fake.requests.append(('POST', self.path, self.headers.get('Authorization')))
                if self.headers.get('Authorization') != 'Token ' + TOKEN:
                    return self.send(403, {'detail': 'no'})
                if 'refuse' in data['definition']:
                    return self.send(200, {'message': 'invalid definition'})
                fake.submitted.append(data['definition'])
                jid = 100 + len(fake.submitted)
                if fake.perform:
                    fake.jobs[jid] = fake.perform(jid, data['definition'])
                self.send(201, {'job_ids': [jid]})

        self.server = http.server.ThreadingHTTPServer(('127.0.0.1', 0), Handler)
        self.url = 'http://127.0.0.1:%d/' % self.server.server_address[1]
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def close(self):
        if self.server:
            self.server.shutdown()
            self.server.server_close()
            self.server = None

    def route(self, path, auth):
        p = path[len('/api/v0.2/'):] if path.startswith('/api/v0.2/') else path
        p, _, query = p.partition('?')
        if p == 'system/version/':
            return 200, {'version': '2023.01'}, None
        if p == 'system/whoami/':
            return 200, {'user': 'tester' if auth == 'Token ' + TOKEN else ''}, None
        if p == 'flaky/':
            self.flaky -= 1
            return (500, {'detail': 'busy'}, None) if self.flaky >= 0 else (200, [1], None)
        if p == 'devices/':
            if 'page=2' in query:
                return 200, {'results': self.devices[2:], 'next': None}, None
            return 200, {'results': self.devices[:2],
                         'next': self.url + 'api/v0.2/devices/?limit=500&page=2'}, None
        parts = p.strip('/').split('/')
        if parts[0] == 'jobs' and len(parts) >= 2 and int(parts[1]) in self.jobs:
            job, tests = self.jobs[int(parts[1])]
            rest = parts[2:]
            if not rest:
                return 200, job, None
            if rest == ['suites']:
                return 200, {'results': [{'id': 1, 'name': '0_kvm-selftests'},
                                         {'id': 2, 'name': 'lava'}], 'next': None}, None
            if rest == ['tests']:
                return 200, {'results': tests, 'next': None}, None
            if rest == ['logs']:
                return 200, None, b'- {"msg": "booted"}\n'
            if rest == ['cancel']:
                self.cancelled.append(int(parts[1]))
                return 200, {}, None
        return 404, {'detail': 'not found'}, None


class Server(unittest.TestCase):
    def setUp(self):
        self.fake = FakeLava()
        self.addCleanup(self.fake.close)
        # No waiting between retries.
        patcher = mock.patch.object(lava.time, 'sleep', lambda s: None)
        patcher.start()
        self.addCleanup(patcher.stop)


class Client(Server):
    def test_token_and_check(self):
        self.assertEqual(lava.Lava(self.fake.url, TOKEN).check(), 'tester')
        self.assertEqual(self.fake.requests[-1][2], 'Token ' + TOKEN)
        for tok, msg in ((None, 'no token'), ('wrong', 'did not accept the token')):
            with self.assertRaisesRegex(lava.LavaError, msg) as e:
                lava.Lava(self.fake.url, tok).check()
            self.assertEqual(e.exception.kind, 'token')

    def test_pages_and_device_types(self):
        api = lava.Lava(self.fake.url, TOKEN)
        self.assertEqual([d['hostname'] for d in api.list('devices/')], ['q1', 'q2', 'b1'])
        # The retired one is not counted.
        self.assertEqual(lava.device_types(api.devices()), {'qemu': 1, 'bbb': 1})

    def test_errors(self):
        api = lava.Lava(self.fake.url, TOKEN)
        with self.assertRaises(lava.LavaError) as e:
            api.get('nonesuch/')
        self.assertEqual(e.exception.kind, 'notfound')
        with self.assertRaises(lava.LavaError) as e:
            lava.Lava(self.fake.url, 'x').submit('job')
        self.assertEqual(e.exception.kind, 'token')
        # A server error is tried again.
        self.assertEqual(api.get('flaky/'), [1])
        with self.assertRaisesRegex(lava.LavaError, 'did not take the job: invalid definition'):
            api.submit('refuse me')
        with self.assertRaises(lava.LavaError) as e:
            s = self.fake.server.server_address
            self.fake.close()       # nothing listens there now
            lava.Lava('http://%s:%d/' % s, TOKEN, timeout=2).get('system/version/')
        self.assertEqual(e.exception.kind, 'unreachable')

    def test_submit(self):
        api = lava.Lava(self.fake.url, TOKEN)
        self.assertEqual(api.submit('device_type: qemu'), 101)
        self.assertEqual(self.fake.submitted, ['device_type: qemu'])

    def test_wait_and_cancel(self):
        self.fake.jobs = {1: ({'id': 1, 'state': 'Finished', 'health': 'Complete'}, []),
                          2: ({'id': 2, 'state': 'Running', 'health': 'Unknown'}, [])}
        api = lava.Lava(self.fake.url, TOKEN)
        seen = []
        done = api.wait([1], 10, poll=0, progress=lambda j, job, t: seen.append(j))
        self.assertEqual((list(done), seen), ([1], [1]))
        done = api.wait([1, 2], 0, poll=0)
        self.assertEqual(done[2]['health'], 'Canceled')
        self.assertIn('not done after 0 s: cancelled', done[2]['failure_comment'])
        self.assertEqual(self.fake.cancelled, [2])

    def test_wait_takes_more(self):
        """more() adds jobs as others end (bench/track --lava), each timed
        from when the wait took it; queued() hears when all are queued."""
        self.fake.jobs = {1: ({'id': 1, 'state': 'Finished', 'health': 'Complete'}, []),
                          2: ({'id': 2, 'state': 'Finished', 'health': 'Incomplete'}, []),
                          3: ({'id': 3, 'state': 'Submitted', 'health': 'Unknown'}, [])}
        api = lava.Lava(self.fake.url, TOKEN)
        todo, asked, seen = [3, 2], [], []

        def more(n):
            asked.append(n)
            return [todo.pop()] if todo and n < 1 else []
        done = api.wait([1], 0, poll=0, more=more, progress=lambda j, job, t: seen.append(j))
        self.assertEqual((seen, asked[:3], sorted(done)), ([1, 2], [1, 0, 0], [1, 2, 3]))
        self.assertEqual(done[3]['health'], 'Canceled')
        self.assertEqual(self.fake.cancelled, [3])
        with self.assertRaisesRegex(RuntimeError, 'stuck 1'):
            api.wait([3], 10, poll=0, queued=lambda n: (_ for _ in ()).throw(
                RuntimeError('stuck %d' % n)))

    def test_keep_and_reason(self):
        tests = [case('boot', 'fail', suite=2)]
        tests[0]['metadata'] = 'error_type: Infrastructure\nerror_msg: no console\n'
        self.fake.jobs = {5: ({'id': 5, 'state': 'Finished', 'health': 'Incomplete',
                               'definition': 'job: 5'}, tests)}
        api = lava.Lava(self.fake.url, TOKEN)
        with tempfile.TemporaryDirectory() as d:
            job, got = api.keep(5, d)
            self.assertEqual(got[0]['suite_name'], 'lava')
            for f, want in (('definition.yaml', 'job: 5'), ('log.yaml', '- {"msg": "booted"}\n')):
                with open(os.path.join(d, 'job-5', f)) as fh:
                    self.assertEqual(fh.read(), want)
            with open(os.path.join(d, 'job-5', 'results.json')) as fh:
                self.assertEqual(json.load(fh)[0]['name'], 'boot')
        self.assertEqual(api.reason(job, got), 'Infrastructure: no console')
        self.assertEqual(api.reason({'failure_comment': 'a\nb'}, got), 'a b')
        self.assertEqual(api.reason({}, []), 'no reason given')
        self.assertEqual(api.log(404), '')

    def test_resolve(self):
        with tempfile.TemporaryDirectory() as d, mock.patch.object(lava, 'LAB_STATE', d):
            with self.assertRaises(lava.LavaError) as e:
                lava.resolve('local')
            self.assertEqual(e.exception.kind, 'unreachable')
            for n, text in (('url', self.fake.url), ('token', TOKEN)):
                with open(os.path.join(d, n), 'w') as f:
                    f.write(text + '\n')
            self.assertEqual(lava.resolve('local'), (self.fake.url, TOKEN))
            self.assertEqual(lava.resolve('local', 'mine'), (self.fake.url, 'mine'))
        with mock.patch.dict(os.environ, {'LAVA_TOKEN': 'env'}):
            self.assertEqual(lava.resolve('https://lab.example/x/'),
                             ('https://lab.example/x/', 'env'))
        with self.assertRaises(lava.LavaError) as e:
            lava.resolve('lab.example')
        self.assertEqual(e.exception.kind, 'usage')


class Checks(unittest.TestCase):
    """The lab checks on fixed device lists: counts by type, and whether a
    type has a device that can take a job (RUNNABLE healths only)."""

    def dev(self, host, typ, health):
        return {'hostname': host, 'device_type': typ, 'health': health}

    def test_device_types(self):
        devs = [self.dev('q%d' % i, 'qemu', 'Good') for i in range(3)] + [
            self.dev('b1', 'bbb', 'Bad')]
        self.assertEqual(lava.device_types(devs), {'qemu': 3, 'bbb': 1})
        self.assertEqual(lava.device_types([]), {})

    def test_unable(self):
        bad, maint = self.dev('q1', 'qemu', 'Bad'), self.dev('q2', 'qemu', 'Maintenance')
        self.assertEqual(lava.unable([], 'qemu'), 'none')
        self.assertEqual(lava.unable([bad, maint], 'qemu'), 'q1 Bad, q2 Maintenance')
        # Another type's good device does not make this type able.
        self.assertEqual(lava.unable([bad, self.dev('b1', 'bbb', 'Good')], 'qemu'), 'q1 Bad')
        for health in lava.RUNNABLE:
            self.assertIsNone(lava.unable([bad, self.dev('q3', 'qemu', health), maint], 'qemu'))
            self.assertIsNone(lava.unable([self.dev('q3', 'qemu', health)], 'qemu'))
        self.assertEqual(lava.RUNNABLE, ('Good', 'Unknown', 'Looping'))
        self.assertEqual(lava.unable([{'hostname': 'q9', 'device_type': 'qemu'}], 'qemu'),
                         'q9 None')

    def test_reason_cut(self):
        api = lava.Lava('http://127.0.0.1:9/', TOKEN)
        self.assertEqual(api.reason({'failure_comment': 'x' * 399 + 'yz'}), 'x' * 399 + 'y')


class Suite(unittest.TestCase):
    def test_tap_of_job(self):
        tests = [dict(case('mmu_stress_test'), suite_name='0_kvm-selftests'),
                 dict(case('nested', 'skip'), suite_name='0_kvm-selftests'),
                 dict(case('access', 'fail'), suite_name='0_kvm-selftests'),
                 dict(case('rate', 'pass', '12.5'), suite_name='0_kvm-selftests'),
                 dict(case('job', 'pass'), suite_name='lava')]

        def run(jid, label, health, reason, tests, start):
            out = io.StringIO()
            w = Tap(out, start)
            lavasuite.tap_of_job(w, jid, label, health, reason, tests)
            return out.getvalue().splitlines(), w.counts

        lines, n = run(7, 'x86_64-6.1', 'Complete', '', tests, 3)
        self.assertEqual(lines, ['ok 4 x86_64-6.1: mmu_stress_test',
                                 'ok 5 x86_64-6.1: nested # SKIP',
                                 'not ok 6 x86_64-6.1: access # fail'])
        self.assertEqual(n, {'ok': 1, 'fail': 1, 'skip': 1})
        lines, n = run(7, 'arm64-6.12', 'Incomplete', 'no console', tests[:1], 0)
        self.assertEqual(lines[-1], 'not ok 2 arm64-6.12: job 7 Incomplete # no console')
        self.assertEqual(n, {'ok': 1, 'fail': 1, 'skip': 0})
        lines, n = run(8, 'x', 'Complete', '', [], 0)
        self.assertEqual((lines, n['fail']), (['not ok 1 x: job 8 reported no test case'], 1))

    def test_usage(self):
        for argv in (['--lava', 'local', '--arch', 'mips'], ['--lava', 'local', '--kernels', 'x'],
                     ['--lava', 'local', '--steps', 'boot'], ['--arch', 'x86_64'],
                     ['--lava', 'local', '--artifacts', 'nowhere']):
            with contextlib.redirect_stderr(io.StringIO()), self.assertRaises(SystemExit) as e:
                lavasuite.main(argv)
            self.assertEqual(e.exception.code, 2, argv)

    def test_bad_token_exits_2(self):
        fake = FakeLava()
        self.addCleanup(fake.close)
        err = io.StringIO()
        with contextlib.redirect_stderr(err), self.assertRaises(SystemExit) as e:
            lavasuite.main(['--lava', fake.url, '--token', 'wrong'])
        self.assertEqual(e.exception.code, 2)
        self.assertIn('did not accept the token', err.getvalue())


def perf_tests(runs, base):
    """A compare job's tests: run cases (a pass each, and its figures as
    measurements NAME.FIGURE), the warm-up, LAVA's own."""
    out = [case('warm'), case('warm.time_ns', measurement='1', unit='ns')]
    for i, n in enumerate(runs):
        out += [case(n), case(n + '.time_ns', measurement=str(base + i), unit='ns'),
                case(n + '.stat.vm.exits', measurement='5', unit='count')]
    return out + [case('job', suite=2)]


class Compare(Server):
    def test_options(self):
        a = lavacompare.parse(['--lava', 'local', '--options', '', '-d 10', '--', './t', '-x'])
        self.assertEqual(lavacompare.sides(a), [("options ''", '6.1', None, []),
                                                ("options '-d 10'", '6.1', None, ['-d', '10'])])
        self.assertEqual((a.clock, a.smp), ('icount', 1))
        a = lavacompare.parse(['--lava', 'local', '--kernels', '6.1,6.12', '--smp', '2', '--', 't'])
        self.assertEqual((a.clock, a.smp), ('tcg', 2))
        self.assertEqual([s[1] for s in lavacompare.sides(a)], ['6.1', '6.12'])
        self.assertEqual(lavacompare.schedule(3), ['a', 'b', 'b', 'a', 'a', 'b'])
        for argv in (['--kernels', '6.1', '--', 't'], ['--options', 'a', 'b'],
                     ['--options', 'a', 'b', '--', 'T!'], ['--jobs', '1,x', '2'],
                     ['--options', 'a', 'b', '--mem', '2X', '--', 't'],
                     ['--options', 'a', 'b', '--level', '100', '--', 't']):
            with contextlib.redirect_stderr(io.StringIO()), self.assertRaises(SystemExit) as e:
                lavacompare.parse(['--lava', 'local'] + argv)
            self.assertEqual(e.exception.code, 2, argv)

    def test_run_names(self):
        tests = [dict(t, suite_name='0_kvm-selftests' if t['suite'] == 1 else 'lava')
                 for t in perf_tests(['a00', 'a01'], 10)]
        self.assertEqual(lavacompare.run_names(tests), ['a00', 'a01'])

    def jobs(self, health_b='Complete'):
        self.fake.jobs = {
            1: ({'id': 1, 'state': 'Finished', 'health': 'Complete'}, perf_tests(['a00', 'a01'], 100)),
            2: ({'id': 2, 'state': 'Finished', 'health': 'Complete'}, perf_tests(['a02', 'a03'], 102)),
            3: ({'id': 3, 'state': 'Finished', 'health': 'Complete'}, perf_tests(['b00', 'b01'], 200)),
            4: ({'id': 4, 'state': 'Finished', 'health': health_b,
                 'failure_comment': 'lost the console' if health_b != 'Complete' else ''},
                perf_tests(['b02', 'b03'], 202))}

    def compare(self, out, *argv):
        buf, err = io.StringIO(), io.StringIO()
        with contextlib.redirect_stdout(buf), contextlib.redirect_stderr(err):
            rc = lavacompare.main(['--lava', self.fake.url, '--token', TOKEN, '--jobs', '1,2',
                                   '3,4', '--out', out] + list(argv))
        return rc, buf.getvalue(), err.getvalue()

    def test_jobs_end_to_end(self):
        # The stats subprocess writes to the real stdout: run it quietly.
        self.jobs()
        with tempfile.TemporaryDirectory() as d:
            out = os.path.join(d, 'cmp')
            with mock.patch.object(lavacompare.subprocess, 'call', quiet_call):
                rc, text, err = self.compare(out)
            self.assertEqual(rc, 0, err)
            self.assertIn('A: the runs of the jobs: LAVA job 1, job 2', text)
            self.assertEqual(sorted(os.listdir(os.path.join(out, 'b'))),
                             ['3-b00.json', '3-b01.json', '4-b02.json', '4-b03.json'])
            with open(os.path.join(out, 'compare.json')) as f:
                res = {r['figure']: r for r in json.load(f)['results']}
            # 100..103 against 200..203: B is twice as slow.
            self.assertEqual(res['time_ns']['verdict'], 'worse')
            self.assertEqual(res['time_ns']['a']['median'], 101.5)
            self.assertTrue(os.path.isfile(os.path.join(out, 'job-4', 'log.yaml')))
            self.assertIn('job 4 (B): Complete, 2 runs kept', err)
            # Nothing given is overwritten: a second run into it is refused.
            rc, _, err = self.compare(out)
            self.assertEqual(rc, 2)
            self.assertIn('is not empty', err)

    def test_a_failed_job_leaves_too_few(self):
        self.jobs('Incomplete')
        self.fake.jobs[3] = (self.fake.jobs[3][0], perf_tests(['b00'], 200))
        self.fake.jobs[4] = (self.fake.jobs[4][0], [case('job', 'fail', suite=2)])
        with tempfile.TemporaryDirectory() as d:
            rc, _, err = self.compare(os.path.join(d, 'cmp'))
        self.assertEqual(rc, 1)
        self.assertIn('job 4 (B): Incomplete: lost the console', err)
        self.assertIn('too few runs to compare', err)


KERNELS = ['6.12.1+deb12', '6.12.2+deb12', '6.12.3+deb12']


def perf_of(definition):
    """[(run, test line)] of a job's perf step (its PERF parameter)."""
    m = re.search(r'parameters: (\{.*\})', definition)
    perf = json.loads(m.group(1))['PERF']
    return [tuple(r.split(' ', 1)) for r in perf.split(';')]


def track_job(health='Complete', state='Finished', rate=None):
    """@perform of a fake lab: the job measures each perf run (a pass,
    rate and an exit count a run), as lava/guest.sh reports them."""
    def perform(jid, definition):
        kernel = re.search(r'job_name: "kvm-selftests track x86_64 (\S+) ', definition).group(1)
        tests = []
        if health == 'Complete':
            for n, _ in perf_of(definition):
                v = rate(kernel) if rate else 1000 + KERNELS.index(kernel) + jid % 7 / 10
                tests += [case(n), case(n + '.rate', measurement=str(v), unit='pages/s'),
                          case(n + '.pages', measurement='4096', unit='count'),
                          case(n + '.stat.vcpu.exits', measurement='8192', unit='count')]
        job = {'id': jid, 'state': state, 'health': health, 'actual_device': 'q1',
               'start_time': '2026-12-03T04:00:00.000000Z',
               'end_time': '2026-12-03T04:01:10.500000Z',
               'failure_comment': '' if health == 'Complete' else 'lost the console'}
        return job, tests + [case('job', suite=2)]
    return perform


class TrackJobs(Server):
    """bench/track --lava against the fake lab: each boot a job, its runs
    stored from the job's measurements with the keys of a local boot."""

    def setUp(self):
        super().setUp()
        d = tempfile.TemporaryDirectory()
        self.addCleanup(d.cleanup)
        self.dir = d.name
        self.db = os.path.join(self.dir, 't.sqlite')
        boot = {'kernel': os.path.join(self.dir, 'kernel'),
                'ramdisk': os.path.join(self.dir, 'initrd.cpio.gz'), 'cmdline': 'console=ttyS0'}
        self.exported = []

        def export(arch, kernel, tree, out, hugepages=0, mem='2G', vm_args=None):
            self.exported.append((kernel, vm_args))
            return boot
        for patcher in (mock.patch.object(track, 'debian_versions', lambda arch: KERNELS),
                        mock.patch.object(track, 'build_suites',
                                          lambda archs: {a: self.dir for a in archs}),
                        mock.patch.object(tracklava.lavajobs, 'export_boot', export),
                        mock.patch.object(tracklava, 'OUT_ROOT', os.path.join(self.dir, 'lava')),
                        mock.patch.object(tracklava.time, 'sleep', lambda s: None)):
            patcher.start()
            self.addCleanup(patcher.stop)

    def track(self, *argv, url=None, token=TOKEN):
        out, err = io.StringIO(), io.StringIO()
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            try:
                rc = track.main(['--lava', url or self.fake.url, '--token', token, '--arch',
                                 'x86_64', '--commands', 'dp', '--db', self.db] + list(argv)
                                + KERNELS[:2])
            except SystemExit as e:
                rc = e.code
        return rc, out.getvalue(), err.getvalue()

    def rows(self, sql):
        conn = sqlite3.connect(self.db)
        try:
            return conn.execute(sql).fetchall()
        finally:
            conn.close()

    def test_runs_stored_from_jobs(self):
        self.fake.perform = track_job()
        rc, out, err = self.track()
        self.assertEqual(rc, 0, err)
        # 6 runs a kernel (the least, at least 6), 2 a boot: 3 rounds of 2 jobs.
        self.assertEqual(len(self.fake.submitted), 6)
        self.assertEqual([k for k, _ in self.exported], KERNELS[:2])
        self.assertEqual(self.exported[0][1], ['--debian-kernel', KERNELS[0]])
        first = self.fake.submitted[0]
        self.assertEqual(perf_of(first), [('dp_w', 'demand_paging_test -b 16M'),
                                          ('dp_r0', 'demand_paging_test -b 16M'),
                                          ('dp_r1', 'demand_paging_test -b 16M')])
        self.assertIn('-icount shift=3,sleep=off', first)
        self.assertIn('-smp 1', first)
        # Rounds alternate the order: A B, B A, A B.
        order = [re.search(r'track x86_64 (\S+) round', d).group(1) for d in self.fake.submitted]
        self.assertEqual(order, [KERNELS[0], KERNELS[1], KERNELS[1], KERNELS[0], KERNELS[0],
                                 KERNELS[1]])
        runs = self.rows('SELECT kernel, arch, command, run_idx, boot, release FROM runs '
                         'ORDER BY kernel, run_idx')
        want = []
        for k in KERNELS[:2]:
            jobs = [101 + i for i, x in enumerate(order) if x == k]
            want += [(k, 'x86_64', 'dp', i, jobs[i // 2], 'Debian ' + k) for i in range(6)]
        self.assertEqual(runs, want)
        figs = dict(self.rows("SELECT f.name, f.value FROM figures f JOIN runs r ON "
                              "r.id = f.run_id WHERE r.boot = 101"))
        self.assertEqual(figs['vcpu.exits/page'], 2.0)
        self.assertAlmostEqual(figs['rate'], 1000 + 101 % 7 / 10)
        self.assertEqual(self.rows("SELECT DISTINCT state FROM lava_jobs"), [('collected',)])
        # 1000 against 1001 pages/s, higher is better: a change.
        self.assertIn('from=%s to=%s ratio=1.001' % tuple(KERNELS[:2]), out)
        self.assertIn('verdict=better', out)
        self.assertTrue(os.path.isfile(os.path.join(self.dir, 'lava', os.listdir(
            os.path.join(self.dir, 'lava'))[0], 'job-101', 'results.json')))
        # The same command again submits nothing.
        rc, out2, err = self.track()
        self.assertEqual((rc, len(self.fake.submitted)), (0, 6), err)
        self.assertIn('0 of 6 jobs to go', err)
        self.assertEqual(self.rows('SELECT count(*) FROM runs'), [(12,)])

    def test_failed_job(self):
        perform = track_job()
        broken = track_job('Incomplete')
        self.fake.perform = lambda jid, d: (broken if jid == 103 else perform)(jid, d)
        rc, _, err = self.track()
        self.assertEqual(rc, 1)
        self.assertIn('job 103 (x86_64 %s, runs 2,3) Incomplete' % KERNELS[1], err)
        fails = self.rows('SELECT kernel, command, run_idx, rc, output FROM failures '
                          'ORDER BY run_idx')
        self.assertEqual([f[:4] for f in fails], [(KERNELS[1], 'dp', -1, -1),
                                                  (KERNELS[1], 'dp', 2, -1),
                                                  (KERNELS[1], 'dp', 3, -1)])
        self.assertIn('LAVA job 103: run dp_r2 missing (job Incomplete: lost the console)',
                      fails[1][4])
        self.assertEqual(self.rows('SELECT count(*) FROM runs'), [(10,)])
        # The same command again runs only that boot's runs.
        self.fake.perform = perform
        rc, _, err = self.track()
        self.assertEqual((rc, len(self.fake.submitted)), (0, 7), err)
        self.assertEqual(perf_of(self.fake.submitted[-1])[1:],
                         [('dp_r2', 'demand_paging_test -b 16M'),
                          ('dp_r3', 'demand_paging_test -b 16M')])
        self.assertEqual(self.rows('SELECT boot FROM runs WHERE kernel = ? AND run_idx = 2'
                                   .replace('?', "'%s'" % KERNELS[1])), [(107,)])

    def test_killed_jobs_taken_up(self):
        # The jobs are still running when the track is killed: two in the
        # lab at a time (twice its one qemu device).
        self.fake.perform = track_job(state='Running')
        with mock.patch.object(tracklava.time, 'sleep', side_effect=KeyboardInterrupt):
            rc, _, err = self.track()
        self.assertEqual((rc, len(self.fake.submitted)), (130, 2), err)
        self.assertEqual(self.rows('SELECT job, state FROM lava_jobs ORDER BY job'),
                         [(101, 'submitted'), (102, 'submitted')])
        # They finish; the next track stores their runs and submits the rest.
        for jid in (101, 102):
            self.fake.jobs[jid][0]['state'] = 'Finished'
        self.fake.perform = track_job()
        rc, _, err = self.track()
        self.assertEqual((rc, len(self.fake.submitted)), (0, 6), err)
        self.assertEqual(self.rows('SELECT boot, count(*) FROM runs GROUP BY boot'),
                         [(j, 2) for j in range(101, 107)])
        # A job the lab no longer has is run again.
        self.fake.perform = track_job(state='Running')
        with mock.patch.object(tracklava.time, 'sleep', side_effect=KeyboardInterrupt):
            rc, _, _ = self.track('--runs', '8')
        self.assertEqual((rc, len(self.fake.submitted)), (130, 8))
        del self.fake.jobs[107]
        self.fake.jobs[108][0]['state'] = 'Finished'
        self.fake.perform = track_job()
        rc, _, err = self.track('--runs', '8')
        self.assertEqual(rc, 0, err)
        self.assertIn('job 107 (x86_64 %s) is no longer in the lab' % KERNELS[1], err)
        self.assertEqual(self.rows("SELECT job, state FROM lava_jobs WHERE job >= 107"),
                         [(107, 'lost'), (108, 'collected'), (109, 'collected')])
        self.assertEqual(self.rows('SELECT count(*) FROM runs'), [(16,)])

    def test_no_device_can_take_the_jobs(self):
        # Every qemu device goes Bad once the jobs are in: they stay
        # queued, and the track stops with the reason, not waits for ever.
        perform = track_job(state='Submitted')

        def bad(jid, definition):
            self.fake.devices[0]['health'] = 'Bad'
            return perform(jid, definition)
        self.fake.perform = bad
        rc, _, err = self.track()
        self.assertEqual((rc, len(self.fake.submitted)), (1, 2), err)
        self.assertIn('no qemu device of the lab at %s can take a job now (q1 Bad): 2 jobs '
                      'left queued there' % self.fake.url, err)
        self.assertEqual(self.rows('SELECT job, state FROM lava_jobs ORDER BY job'),
                         [(101, 'submitted'), (102, 'submitted')])
        # A device Good again, the same command takes the two up (they ran)
        # and runs the rest.
        self.fake.devices[0]['health'] = 'Good'
        for jid in (101, 102):
            self.fake.jobs[jid] = track_job()(jid, self.fake.submitted[jid - 101])
        self.fake.perform = track_job()
        rc, _, err = self.track()
        self.assertEqual((rc, len(self.fake.submitted)), (0, 6), err)
        self.assertEqual(self.rows('SELECT count(*) FROM runs'), [(12,)])
        # A lab whose qemu devices can take nothing is refused before a job.
        for health in ('Bad', 'Maintenance'):
            self.fake.devices[0]['health'] = health
            rc, _, err = self.track('--db', os.path.join(self.dir, 'other.sqlite'))
            self.assertEqual((rc, len(self.fake.submitted)), (2, 6), err)
            self.assertIn('can take a job (q1 %s)' % health, err)
            self.assertEqual(len(err.strip().splitlines()), 1, err)
        for health in ('Unknown', 'Looping'):
            self.fake.devices[0]['health'] = health
            devs = tracklava.lava.Lava(self.fake.url, TOKEN).devices()
            self.assertIsNone(tracklava.lava.unable(devs, 'qemu'))

    def test_bad_lab_exits_2(self):
        s = socket.socket()
        s.bind(('127.0.0.1', 0))
        dead = 'http://127.0.0.1:%d/' % s.getsockname()[1]
        s.close()
        for url, token, msg in ((dead, TOKEN, 'is unreachable'),
                                (None, 'wrong', 'did not accept the token'),
                                ('nowhere', TOKEN, "bad --lava 'nowhere'")):
            rc, _, err = self.track(url=url, token=token)
            self.assertEqual(rc, 2, err)
            self.assertIn(msg, err)
            self.assertEqual(len(err.strip().splitlines()), 1, err)
        rc, _, err = self.track('--artifacts', 'nowhere')
        self.assertEqual(rc, 2)
        self.assertIn("--artifacts 'nowhere': DIR=URL", err)
        # A lab not on this machine needs the boot pieces served.
        real = tracklava.lavajobs.connect

        def remote(*args):
            api = real(*args)
            api.local = False
            return api
        with mock.patch.object(tracklava.lavajobs, 'connect', remote):
            rc, _, err = self.track()
        self.assertEqual(rc, 2)
        self.assertIn('give --artifacts DIR=URL', err)
        self.fake.devices = [d for d in self.fake.devices if d['device_type'] != 'qemu']
        rc, _, err = self.track()
        self.assertEqual(rc, 2)
        self.assertIn('has no qemu devices', err)
        self.assertFalse(os.path.exists(self.db))
        self.assertEqual(self.fake.submitted, [])


def quiet_call(cmd, **kw):
    """subprocess.call with the output into this test's stdout."""
    p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, **kw)
    sys.stdout.write(p.stdout)
    return p.returncode


class Lab(unittest.TestCase):
    def setUp(self):
        d = tempfile.TemporaryDirectory()
        self.addCleanup(d.cleanup)
        self.state = d.name
        os.makedirs(os.path.join(self.state, 'logs'))
        for patcher in (mock.patch.object(lab, 'STATE', self.state),
                        mock.patch.object(lava.time, 'sleep', lambda s: None)):
            patcher.start()
            self.addCleanup(patcher.stop)

    def test_state_files(self):
        self.assertEqual(lab.read('url', 'none'), 'none')
        lab.write('url', 'http://127.0.0.1:1/')
        self.assertEqual(lab.read('url'), 'http://127.0.0.1:1/')
        lab.write('gunicorn.pid', 'junk')
        self.assertEqual(lab.service_pid('gunicorn'), 0)

    def test_status_counts(self):
        """Nothing running: exit 1, no request to the lab; every service
        running: exit 0; pid_alive only asks (signal 0)."""
        fake = FakeLava()
        self.addCleanup(fake.close)
        lab.write('url', fake.url)
        lab.write('token', TOKEN)
        out = io.StringIO()
        with contextlib.redirect_stdout(out):
            self.assertEqual(lab.status(None), 1)
        self.assertNotIn('devices', out.getvalue())
        self.assertEqual(out.getvalue().count('stopped'), len(lab.SERVICES))
        kids = [subprocess.Popen(['sleep', '60']) for _ in lab.SERVICES]
        for name, k in zip(lab.SERVICES, kids):
            self.addCleanup(k.wait)
            self.addCleanup(k.kill)
            lab.write('%s.pid' % name, str(k.pid))
        with contextlib.redirect_stdout(io.StringIO()):
            self.assertEqual(lab.status(None), 0)
        self.assertTrue(lab.pid_alive(kids[0].pid))
        with self.assertRaises(subprocess.TimeoutExpired):     # still running
            kids[0].wait(timeout=0.3)

    def test_spawn_status_stop(self):
        fake = FakeLava()
        self.addCleanup(fake.close)
        lab.write('url', fake.url)
        lab.write('token', TOKEN)
        self.assertTrue(lab.http_ok(fake.url))
        lab.spawn('worker', ['sleep', '60'])
        pid = lab.service_pid('worker')
        self.assertGreater(pid, 0)
        lab.spawn('worker', ['sleep', '60'])        # running: not a second one
        self.assertEqual(lab.service_pid('worker'), pid)
        out = io.StringIO()
        with contextlib.redirect_stdout(out):
            self.assertEqual(lab.status(None), 1)       # not every service runs
        self.assertIn('worker     running (pid %d)' % pid, out.getvalue())
        self.assertIn('gunicorn   stopped', out.getvalue())
        self.assertIn('devices    q1 Idle/Good, b1 Idle/Good', out.getvalue())
        # Reaped as it ends (it is this test's child), so that stop sees it gone.
        reaper = threading.Thread(target=os.waitpid, args=(pid, 0))
        reaper.start()
        err = io.StringIO()
        with contextlib.redirect_stderr(err):
            lab.stop(None)
        reaper.join()
        self.assertIn('stopped: worker', err.getvalue())
        self.assertFalse(os.path.exists(os.path.join(self.state, 'worker.pid')))
        self.assertFalse(lab.pid_alive(pid))
        fake.close()
        self.assertFalse(lab.http_ok(fake.url))

    def test_usage(self):
        for argv in (['start', '--port', '70000'], ['start', '--devices', '-1'], ['restart'], []):
            with contextlib.redirect_stderr(io.StringIO()), self.assertRaises(SystemExit) as e:
                lab.main(argv)
            self.assertEqual(e.exception.code, 2, argv)

    def test_run(self):
        self.assertEqual(lab.run(['echo', 'hi']), 'hi\n')
        self.assertEqual(lab.run(['false'], check=False), '')
        err = io.StringIO()
        with contextlib.redirect_stderr(err), self.assertRaises(SystemExit) as e:
            lab.run(['sh', '-c', 'echo one; echo last words; exit 3'])
        self.assertEqual(e.exception.code, 1)
        self.assertIn('failed (exit 3): last words', err.getvalue())


class LavaLocalToken(unittest.TestCase):
    """vm/suite --lava URL with the URL lava/lab start printed: the lab's
    own token, read where lava/lab keeps it."""

    def test_resolve(self):
        saved = lava.LAB_STATE, os.environ.pop('LAVA_TOKEN', None)
        try:
            with tempfile.TemporaryDirectory() as d:
                lava.LAB_STATE = d
                with self.assertRaises(lava.LavaError):
                    lava.resolve('local')
                self.assertEqual(lava.resolve('http://127.0.0.1:18080'),
                                 ('http://127.0.0.1:18080/', ''))
                for name, text in (('url', 'http://127.0.0.1:18080/\n'), ('token', 'abc\n')):
                    with open(os.path.join(d, name), 'w') as f:
                        f.write(text)
                for spec in ('local', 'http://127.0.0.1:18080', 'http://127.0.0.1:18080/'):
                    self.assertEqual(lava.resolve(spec), ('http://127.0.0.1:18080/', 'abc'))
                self.assertEqual(lava.resolve('http://127.0.0.1:18080/', 'mine'),
                                 ('http://127.0.0.1:18080/', 'mine'))
                self.assertEqual(lava.resolve('http://lava.example:80/'),
                                 ('http://lava.example:80/', ''))
                os.environ['LAVA_TOKEN'] = 'env'
                self.assertEqual(lava.resolve('http://127.0.0.1:18080/'),
                                 ('http://127.0.0.1:18080/', 'env'))
        finally:
            lava.LAB_STATE = saved[0]
            os.environ.pop('LAVA_TOKEN', None)
            if saved[1] is not None:
                os.environ['LAVA_TOKEN'] = saved[1]


if __name__ == '__main__':
    if sys.argv[1:] == ['--tap']:
        sys.exit(tap(sys.modules[__name__], 'lava'))
    unittest.main()
