#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-only
"""Unit tests of bench/track on known inputs: the database (runs stored
once, a killed track continued, a database not ours or locked refused
with nothing written; the same on a real PostgreSQL server), the change points (planted steps found where
they are, the A/A false-change rate simulated), the neighbour verdicts
on a planted step, the kernels' forms and the run count refused before
anything boots, the report.  Run: python3 bench/test_track.py (--tap:
kselftest TAP)"""
import hashlib
import json
import math
import os
import random
import shutil
import subprocess
import sys
import tempfile
import unittest

BENCH = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, BENCH)
from kvmbench.base.errors import UsageError  # noqa: E402
from kvmbench.base.tap import tap  # noqa: E402
from kvmbench.verdicts import changepoint  # noqa: E402
from kvmbench.verdicts import stats  # noqa: E402
from kvmbench.vmrun import runner  # noqa: E402
from kvmbench.attribution import attribute  # noqa: E402
from kvmbench.tracking import track, trackdb, trackjudge, trackplan  # noqa: E402
from kvmbench.tracking import trackreport  # noqa: E402
import testkit  # noqa: E402

VERSIONS = ['6.1.0-56', '6.1.0-57', '6.12.100+deb12', '6.12.101+deb12', '6.12.107+deb12',
            '6.12.111+deb12']


def digest(path):
    with open(path, 'rb') as f:
        return hashlib.sha256(f.read()).hexdigest()


def steady(rng, base, n, cv=0.01):
    return [base * math.exp(rng.gauss(0, cv)) for _ in range(n)]


def store_once(test, spec):
    """Database @spec opened to write, three runs stored, one of them
    twice (stored once); the open database."""
    db = trackdb.DB(spec).open(write=True)
    figs = {'rate': (100.0, 'pages/s'), 'vcpu.exits/page': (1.0, 'per page')}
    test.assertTrue(db.store('6.12.100+deb12', 'x86_64', 'dp', 0, 1, 'r', '{}', figs))
    test.assertFalse(db.store('6.12.100+deb12', 'x86_64', 'dp', 0, 2, 'r', '{}', figs))
    test.assertTrue(db.store('6.12.100+deb12', 'x86_64', 'dp', 1, 2, 'r', '{}', figs))
    test.assertEqual(db.count('runs'), 2)
    test.assertEqual(db.count('figures'), 4)
    return db


class DB(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.TemporaryDirectory()
        self.path = os.path.join(self.dir.name, 't.sqlite')

    def tearDown(self):
        self.dir.cleanup()

    def test_store_once(self):
        db = store_once(self, self.path)
        vals, units = db.values()
        self.assertEqual(vals[('x86_64', 'dp')]['6.12.100+deb12']['rate'], [100.0, 100.0])
        self.assertEqual(units['rate'], 'pages/s')
        self.assertEqual(db.done('x86_64'), {('6.12.100+deb12', 'dp', 0),
                                             ('6.12.100+deb12', 'dp', 1)})
        db.close()
        again = trackdb.DB(self.path).open(write=False)
        self.assertEqual(again.count('runs'), 2)
        again.close()

    def test_command_line(self):
        db = trackdb.DB(self.path).open(write=True)
        db.command_line('x86_64', 'dp', 'demand_paging_test -b 16M')
        db.command_line('x86_64', 'dp', 'demand_paging_test -b 16M')
        db.command_line('arm64', 'dp', 'demand_paging_test -b 16M -m 5')
        with self.assertRaisesRegex(UsageError, "has command dp on x86_64 as "):
            db.command_line('x86_64', 'dp', 'demand_paging_test -b 32M')
        db.close()

    def test_not_ours(self):
        import sqlite3
        c = sqlite3.connect(self.path)
        c.execute('CREATE TABLE people (name TEXT)')
        c.commit()
        c.close()
        before = digest(self.path)
        with self.assertRaisesRegex(UsageError, 'not a track database'):
            trackdb.DB(self.path).open(write=True)
        self.assertEqual(digest(self.path), before)

    def test_not_sqlite(self):
        with open(self.path, 'w') as f:
            f.write('my notes\n')
        with self.assertRaisesRegex(UsageError, 'not an SQLite database'):
            trackdb.DB(self.path).open(write=True)
        with open(self.path) as f:
            self.assertEqual(f.read(), 'my notes\n')

    def test_locked(self):
        first = trackdb.DB(self.path).open(write=True)
        with self.assertRaisesRegex(UsageError, 'locked'):
            trackdb.DB(self.path).open(write=True)
        first.close()
        trackdb.DB(self.path).open(write=True).close()

    def test_missing_read_only(self):
        with self.assertRaisesRegex(UsageError, 'no database'):
            trackdb.DB(self.path).open(write=False)
        self.assertFalse(os.path.exists(self.path))


class Postgres(unittest.TestCase):
    """The track database on a real PostgreSQL server: a throwaway one
    (testkit.Postgres: Debian's postgresql, a cluster in a temporary
    directory, stopped at the end), or TRACK_TEST_PG's (its tables are
    emptied)."""

    def setUp(self):
        # A server a test (kvmbench.base.tap runs each test alone: no class
        # fixtures), about a second each.
        psycopg2 = runner.install_module('psycopg2', 'python3-psycopg2', 'for the PostgreSQL test')
        if psycopg2 is None:
            self.skipTest('no python3-psycopg2 (apt-get install python3-psycopg2)')
        self.url = os.environ.get('TRACK_TEST_PG')
        if not self.url:
            server = testkit.Postgres()
            self.addCleanup(server.stop)
            self.url = server.url
        c = psycopg2.connect(self.url)
        c.autocommit = True
        c.cursor().execute('DROP SCHEMA public CASCADE; CREATE SCHEMA public')
        c.close()

    def test_store_once_and_read(self):
        db = store_once(self, self.url)
        with self.assertRaisesRegex(UsageError, 'locked'):
            trackdb.DB(self.url).open(write=True)
        db.close()
        again = trackdb.DB(self.url).open(write=False)
        vals, units = again.values()
        self.assertEqual(vals[('x86_64', 'dp')]['6.12.100+deb12']['rate'], [100.0, 100.0])
        self.assertEqual(units['rate'], 'pages/s')
        again.close()
        trackdb.DB(self.url).open(write=True).close()     # the lock went with it

    def test_command_line(self):
        db = trackdb.DB(self.url).open(write=True)
        db.command_line('x86_64', 'dp', 'demand_paging_test -b 16M')
        with self.assertRaisesRegex(UsageError, "has command dp on x86_64 as "):
            db.command_line('x86_64', 'dp', 'demand_paging_test -b 32M')
        db.close()

    def test_not_ours_and_empty(self):
        with self.assertRaisesRegex(UsageError, 'holds no track'):
            trackdb.DB(self.url).open(write=False)
        import psycopg2
        c = psycopg2.connect(self.url)
        c.autocommit = True
        c.cursor().execute('CREATE TABLE people (name TEXT)')
        with self.assertRaisesRegex(UsageError, 'not a track database'):
            trackdb.DB(self.url).open(write=True)
        cur = c.cursor()
        cur.execute("SELECT table_name FROM information_schema.tables "
                    "WHERE table_schema = 'public'")
        self.assertEqual(cur.fetchall(), [('people',)])    # nothing written
        c.close()


class ChangePoints(unittest.TestCase):
    def test_q_stat(self):
        # By hand: x = [0, 0], y = [1, 1]: E = 2*4/4 - 0 - 0 = 2, Q = 4/4 * 2 = 2.
        self.assertAlmostEqual(changepoint.q_stat([0, 0], [1, 1]), 2.0)
        self.assertAlmostEqual(changepoint.pair_sum([3, 1, 2]), 4.0)

    def test_q_by_definition(self):
        """Q against its definition, sums over every pair, on unequal
        sizes and a one-value side."""
        def e_dist(x, y):
            n, m = len(x), len(y)
            between = sum(abs(a - b) for a in x for b in y)
            within = [sum(abs(v[i] - v[k]) for i in range(len(v)) for k in range(i + 1, len(v)))
                      for v in (x, y)]
            e = 2 * between / (n * m)
            e -= within[0] / (n * (n - 1) / 2) if n > 1 else 0
            e -= within[1] / (m * (m - 1) / 2) if m > 1 else 0
            return n * m / (n + m) * e
        for x, y in (([1, 2, 4], [7, 11]), ([5], [1, 2, 3]), ([1, 3, 3, 8], [2]),
                     ([2, 9], [4, 5, 6]), ([0.5, 0.25, 4, 9, 1], [3, 3.5, 12])):
            self.assertAlmostEqual(changepoint.q_stat(x, y), e_dist(x, y), msg=(x, y))
            vals = x + y
            self.assertAlmostEqual(changepoint.pair_sum(vals), sum(
                abs(vals[i] - vals[k]) for i in range(len(vals)) for k in range(i + 1, len(vals))))
        self.assertEqual(changepoint.q_stat([], [1, 2]), 0.0)
        self.assertEqual(changepoint.q_stat([1, 2], []), 0.0)

    def test_best_split_and_p(self):
        """The split of the largest Q (the first when Qs tie); a split
        every permutation matches has p = 1; too few permutations for the
        threshold refused."""
        self.assertEqual(changepoint.best_split([[0], [0], [10], [10]])[1], 2)
        self.assertEqual(changepoint.best_split([[0, 0], [10], [10, 10]])[1], 1)
        q, g = changepoint.best_split([[0], [10], [10, 10, 10]])
        self.assertEqual((g, round(q, 9)), (1, round(changepoint.q_stat([0], [10] * 4), 9)))
        self.assertEqual(changepoint.best_split([[1], [1], [1]]), (0.0, 1))
        self.assertEqual(changepoint.best_split([[1, 2]]), (0.0, None))
        q = changepoint.best_split([[0.0], [1.0]])[0]
        self.assertEqual(changepoint.p_value([[0.0], [1.0]], q, random.Random(1), 9), 1.0)
        q = changepoint.best_split([[0.0] * 3, [1.0] * 3])[0]
        p = changepoint.p_value([[0.0] * 3, [1.0] * 3], q, random.Random(1), 199)
        self.assertLess(p, 0.2)     # 2 of the 20 splits are as far apart
        self.assertGreater(p, 1 / 200)
        groups = [[1.0, 2.0]] * 3
        with self.assertRaisesRegex(ValueError, '99 permutations cannot give p < 0.01'):
            changepoint.change_points(groups, permutations=99)
        self.assertEqual(changepoint.change_points(groups, permutations=100), [])
        self.assertEqual(changepoint.transform([[1, math.e]]), [[0.0, 1.0]])
        self.assertEqual(changepoint.transform([[0, 2], [3]]), [[0, 2], [3]])
        self.assertEqual(changepoint.change_points([[1.0, 1.1]]), [])
        # Two kernels, a step: found at the first split; a step after the
        # first kernel of three too.
        rng = random.Random(6)
        self.assertEqual([g for g, _ in changepoint.change_points(
            [steady(rng, 100, 8), steady(rng, 130, 8)])], [1])
        self.assertEqual([g for g, _ in changepoint.change_points(
            [steady(rng, 100, 8), steady(rng, 130, 8), steady(rng, 130, 8)])], [1])

    def test_one_step(self):
        rng = random.Random(1)
        groups = [steady(rng, 100, 5) for _ in range(5)] + \
                 [steady(rng, 105, 5) for _ in range(5)]
        pts = changepoint.change_points(groups)
        self.assertEqual([g for g, _ in pts], [5])
        self.assertLess(pts[0][1], changepoint.THRESHOLD)

    def test_two_steps(self):
        rng = random.Random(2)
        groups = ([steady(rng, 100, 5) for _ in range(4)] +
                  [steady(rng, 110, 5) for _ in range(4)] +
                  [steady(rng, 104, 5) for _ in range(4)])
        self.assertEqual([g for g, _ in changepoint.change_points(groups)], [4, 8])

    def test_deterministic(self):
        rng = random.Random(3)
        groups = [steady(rng, 100, 4, 0.05) for _ in range(6)]
        self.assertEqual(changepoint.change_points(groups), changepoint.change_points(groups))

    def test_aa_rate(self):
        """A/A streams (8 kernels x 5 runs, no change, log-normal CV 5%)
        at threshold 0.05: streams with a change point in at most 5% plus
        three standard errors (the promise: at most the threshold)."""
        rng = random.Random(4)
        n, hits, thr = 150, 0, 0.05
        for _ in range(n):
            groups = [steady(rng, 100, 5, 0.05) for _ in range(8)]
            hits += bool(changepoint.change_points(groups, threshold=thr, permutations=59,
                                                   seed=rng.randrange(1 << 30)))
        se = math.sqrt(thr * (1 - thr) / n)
        self.assertLessEqual(hits / n, thr + 3 * se, '%d of %d A/A streams' % (hits, n))

    def test_power(self):
        """A 3% step in 1%-noise streams is found at its place nearly always."""
        rng = random.Random(5)
        right = 0
        for _ in range(20):
            groups = [steady(rng, 100, 5) for _ in range(3)] + \
                     [steady(rng, 103, 5) for _ in range(3)]
            right += [g for g, _ in changepoint.change_points(
                groups, seed=rng.randrange(1 << 30))] == [3]
        self.assertGreaterEqual(right, 18)


class FakeArgs:
    runs, per_boot, run_timeout, mem = 5, 2, 60, '2G'


def fake_boot(step_at=None, die_after=None, rng=None):
    """A boot that stores each run of the plan (rate 1000, 5% lower from
    kernel @step_at on); raises KeyboardInterrupt after @die_after runs."""
    state = {'n': 0}
    rng = rng or random.Random(7)

    def boot(k, arch, cmds, idx, a, db, work, counts, boot_no):
        for i in idx:
            for c in cmds:
                if die_after is not None and state['n'] >= die_after:
                    raise KeyboardInterrupt()
                base = 1000.0 * (0.95 if step_at and k.name >= step_at else 1)
                v = base * math.exp(rng.gauss(0, 0.01))
                if db.store(k.name, arch, c.name, i, boot_no, k.name, '{}',
                            {'rate': (v, 'pages/s'), 'exits': (4130.0, 'count')}):
                    counts['stored'] += 1
                state['n'] += 1
        return 0
    return boot


class Track(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.TemporaryDirectory()
        self.path = os.path.join(self.dir.name, 't.sqlite')
        track.info = lambda msg: None

    def tearDown(self):
        self.dir.cleanup()

    def test_resolve(self):
        r = track.resolve(['all-6.12'], 'x86_64', VERSIONS)
        self.assertEqual([k.name for k in r], VERSIONS[2:])
        r = track.resolve(['6.12.101+deb12..6.12.111+deb12'], 'x86_64', VERSIONS)
        self.assertEqual([k.name for k in r], VERSIONS[3:])
        self.assertEqual(r[0].vm_args, ['--debian-kernel', '6.12.101+deb12'])
        for bad, why in (('6.12.99+deb12', 'not in the archive|in the archive'),
                         ('all-5.10', 'no Debian 5.10'), ('nonsense', 'is not a Debian'),
                         ('6.1.0-56..6.12.100+deb12', 'different series'),
                         ('kvm:/nonexistent', 'kvm-build.json')):
            with self.assertRaisesRegex(UsageError, why):
                track.resolve([bad], 'x86_64', VERSIONS)
        with self.assertRaisesRegex(UsageError, 'twice'):
            track.resolve(['6.1.0-56', 'all-6.1'], 'x86_64', VERSIONS)

    def test_kvm_dir(self):
        d = os.path.join(self.dir.name, 'kvm')
        os.makedirs(d)
        with open(os.path.join(d, 'kvm-build.json'), 'w') as f:
            json.dump({'arch': 'x86_64', 'release': '6.12.117+deb12-amd64'}, f)
        k = track.resolve(['kvm:' + d], 'x86_64', VERSIONS)[0]
        self.assertEqual(k.vm_args, ['--debian-kernel', '6.12.117+deb12', '--kvm-modules',
                                     os.path.abspath(d)])

    def test_runs_needed(self):
        dp = [track.Command('dp', ['rate'], 'demand_paging_test', [])]
        # 2 pairs x 1 figure at 95%: alpha 0.025 each, C(2n,n) >= 80: n = 5.
        self.assertEqual(track.runs_needed(3, dp, 95), 5)
        a = track.parser().parse_args(['6.1.0-56', '6.1.0-57', '--runs', '3',
                                       '--commands', 'dp'])
        track.resolve_orig = track.resolve
        try:
            track.resolve = lambda specs, arch: track.resolve_orig(specs, arch, VERSIONS)
            with self.assertRaisesRegex(UsageError, 'cannot reach a verdict'):
                track.check(a)
            a.runs = None
            track.check(a)
            self.assertEqual(a.runs, 6)
        finally:
            track.resolve = track.resolve_orig

    def test_plan_interleaves(self):
        ks = {'x86_64': [track.Kernel(n, []) for n in 'ABC']}
        p = trackplan.plan(ks, ['x86_64'], 5, 2)
        self.assertEqual([(b[0], b[2].name, b[3]) for b in p],
                         [(0, 'A', [0, 1]), (0, 'B', [0, 1]), (0, 'C', [0, 1]),
                          (1, 'C', [2, 3]), (1, 'B', [2, 3]), (1, 'A', [2, 3]),
                          (2, 'A', [4]), (2, 'B', [4]), (2, 'C', [4])])

    def test_guest_script(self):
        cmds = [track.Command('dp', ['rate'], 'demand_paging_test', ['-b', '16M'])]
        s = track.guest_script(cmds, [2, 3], 60)
        self.assertIn("BENCH_TEST='demand_paging_test' bench_run c0 w 1 /tests/kvm "
                      "'-b' '16M'", s)
        self.assertIn("bench_run c0 3 0 /tests/kvm '-b' '16M'", s)

    def test_arch_args(self):
        cmds = track.commands(track.parser().parse_args(['--commands', 'dp,memslot']))
        self.assertIn("bench_run c0 0 0 /tests/kvm '-b' '16M' '-m' '5'",
                      track.guest_script(cmds, [0], 60, 'arm64'))
        self.assertIn("bench_run c0 0 0 /tests/kvm '-b' '16M'\n",
                      track.guest_script(cmds, [0], 60, 'x86_64'))
        self.assertEqual(cmds[1].line('arm64'), cmds[1].line('x86_64'))

    def test_killed_and_continued(self):
        cmds = [track.Command('dp', ['rate'], 'demand_paging_test', [])]
        ks = {'x86_64': [track.Kernel(n, []) for n in ('k1', 'k2', 'k3')]}
        db = trackdb.DB(self.path).open(write=True)
        with self.assertRaises(KeyboardInterrupt):
            track.measure(FakeArgs, cmds, ks, db, boot=fake_boot(die_after=7))
        self.assertEqual(db.count('runs'), 7)
        db.close()
        db = trackdb.DB(self.path).open(write=True)
        counts, _ = track.measure(FakeArgs, cmds, ks, db, boot=fake_boot())
        self.assertEqual(counts['stored'], 15 - 7)
        self.assertEqual(db.count('runs'), 15)
        counts, _ = track.measure(FakeArgs, cmds, ks, db, boot=fake_boot())
        self.assertEqual(counts['stored'], 0)
        db.close()

    def test_jobs(self):
        """Two boots at a time store every run once, boot numbers distinct."""
        cmds = [track.Command('dp', ['rate'], 'demand_paging_test', []),
                track.Command('dirty', ['rate'], 'dirty_log_perf_test', [])]
        ks = {'x86_64': [track.Kernel(n, []) for n in ('k1', 'k2', 'k3', 'k4')]}
        a = FakeArgs()
        a.jobs = 2
        db = trackdb.DB(self.path).open(write=True)
        counts, per = track.measure(a, cmds, ks, db, boot=fake_boot())
        self.assertEqual((counts['stored'], db.count('runs')), (40, 40))
        boots = db.q('SELECT boot, count(*) FROM runs GROUP BY boot')
        self.assertEqual(sorted(n for _, n in boots), [2] * 4 + [4] * 8)
        db.close()

    def judged(self, step_at, kernels=('k1', 'k2', 'k3', 'k4', 'k5'), runs=8):
        cmds = [track.Command('dp', ['rate', 'exits'], 'demand_paging_test', [])]
        ks = {'x86_64': [track.Kernel(n, []) for n in kernels]}
        db = trackdb.DB(self.path).open(write=True)
        a = FakeArgs()
        a.runs = runs
        track.measure(a, cmds, ks, db, boot=fake_boot(step_at))
        j = trackjudge.judge(db, cmds, 95, {'x86_64': list(kernels)})
        db.close()
        return j

    def test_judge_step(self):
        j = self.judged('k4')
        ch = trackjudge.changes(j)
        kinds = sorted((c['kind'], c['figure'], c['r']['a_kernel'], c['r']['b_kernel'],
                        c['r']['verdict']) for c in ch)
        self.assertEqual(kinds, [('change point', 'rate', 'k3', 'k4', 'worse'),
                                 ('neighbours', 'rate', 'k3', 'k4', 'worse')])
        for c in ch:
            self.assertLess(c['r']['pct_lo'], 5)
            self.assertGreater(c['r']['pct_hi'], 5)
        t = trackjudge.text(j)
        self.assertIn('k3 -> k4: worse by', t)
        self.assertIn('CHANGE kind=change-point arch=x86_64 command=dp figure=rate', t)
        self.assertIn('no change larger than', trackjudge.words(j['streams'][0]['figures'][0]
                                                                ['neighbours'][0]))

    def test_two_steps_sized_apart(self):
        """Each change point is sized over the runs between its neighbours
        in the stream: a 1% step followed by a 20% one is 1% and 20%,
        not the 1% step swallowed by the runs after the 20% one."""
        rng = random.Random(7)
        level = [100] * 4 + [101] * 4 + [121.2] * 4
        groups = [[v * (1 + rng.gauss(0, 0.001)) for _ in range(8)] for v in level]
        pts = trackjudge.sized_points(groups, 0.01, 'ns')
        self.assertEqual([p['g'] for p in pts], [4, 8])
        self.assertAlmostEqual(pts[0]['ratio'], 1.01, delta=0.002)
        self.assertAlmostEqual(pts[1]['ratio'], 1.2, delta=0.004)
        for p in pts:
            self.assertLess(p['lo'], p['ratio'])
            self.assertGreater(p['hi'], p['ratio'])
            self.assertEqual(p['verdict'], 'worse')
        self.assertEqual(changepoint.segments_of(12, [(4, 0.0), (8, 0.0)]),
                         [(0, 4), (4, 8), (8, 12)])

    def stream_of_boots(self, rng, boot_sd, first=0.0, kernels=6, boots=2, runs=4):
        """Cells for boot_effect: each boot's runs 100 * (1 + boot offset
        (sd @boot_sd) + noise (sd 0.001)), the first run of a boot @first
        lower (a place in the boot that matters alike in every boot)."""
        return [[[100 * (1 + off + rng.gauss(0, 0.001) - (first if i == 0 else 0))
                  for i in range(runs)]
                 for off in [rng.gauss(0, boot_sd) for _ in range(boots)]]
                for _ in range(kernels)]

    def test_boot_effect(self):
        """Boots that differ by ~1% with runs steady to 0.1% are found;
        runs independent of their boot are flagged at about the test's
        1%, a first run 3% low in every boot included; no kernel with two
        boots of two runs: None."""
        rng = random.Random(11)
        r = trackjudge.boot_effect(self.stream_of_boots(rng, 0.01))
        self.assertLess(r['p'], changepoint.THRESHOLD)
        self.assertGreater(r['spread'], 0.5)
        flagged = sum(trackjudge.boot_effect(self.stream_of_boots(rng, 0, first))['p'] <
                      changepoint.THRESHOLD for first in [0, 0.03] * 100)
        self.assertLessEqual(flagged, 6)
        self.assertIsNone(trackjudge.boot_effect([[[1, 2, 3]], [[1], [2]]]))
        lines = trackjudge.boot_effect_lines({'boot_effects': [
            ('x86_64', 'dp', 'rate', {'p': 0.005, 'spread': 1.3})]})
        self.assertIn('more boots a kernel', lines[0])
        self.assertEqual(lines[1], "  x86_64 dp rate: p=0.005, one kernel's boots differ by "
                         "up to 1.3%")

    def test_judge_aa(self):
        j = self.judged(None)
        self.assertEqual(trackjudge.changes(j), [])
        self.assertEqual(j['unjudged'], [])

    ENTRIES = [('6.12.3', 'KVM: x86: Move update_cr8_intercept() to lapic.c'),
               ('6.12.3', 'KVM: x86/mmu: Zap fewer SPTEs'),
               ('6.12.2', 'mm/userfaultfd: fix a race in handle_userfault()'),
               ('6.12.2', 'KVM: x86: Fix an MSR')]

    def attributed(self):
        j = self.judged('k4')
        j['attribution'] = {('x86_64', 'k3', 'k4'): {'entries': list(self.ENTRIES)}}
        return j

    def test_text_ranked(self):
        """Each change shows the entries on its path, most likely first;
        all of them only in the report's file; none on a run that
        measured nothing."""
        j = self.attributed()
        t = trackjudge.text(j, report='REP')
        on_path = ['    most likely on its path: 2 of 4 KVM/mm changelog entries name it, the '
                   'first 2 (docs/track.md: the ranking):',
                   '      6.12.2: mm/userfaultfd: fix a race in handle_userfault()',
                   '      6.12.3: KVM: x86/mmu: Zap fewer SPTEs']
        self.assertIn('\n'.join(on_path), t)
        self.assertEqual(t.count('most likely on its path'), 1)     # once for the step
        self.assertNotIn('cr8', t)
        self.assertIn('Debian changelog, k3 -> k4 (x86_64): 4 KVM/mm entries, all in '
                      'REP/changelog-x86_64-k3-k4.txt', t)
        again = trackjudge.text(j, changelog=False)
        self.assertNotIn('userfaultfd', again)
        self.assertIn('all in bench/track --attribute k3..k4 --arch x86_64', again)

    def test_report(self):
        j = self.attributed()
        out = os.path.join(self.dir.name, 'report')
        paths = trackreport.write(j, out)
        with open(paths[0]) as f:
            h = f.read()
        self.assertIn('<h2>Changes</h2>', h)
        self.assertLess(h.index('<h2>Changes</h2>'), h.index('<h2>Figures</h2>'))
        self.assertIn('k3 -&gt; k4', h)
        # One block for the step (both ways it was found), the changelog folded.
        self.assertEqual(h.count('<section class="change">'), 1)
        self.assertIn('<details><summary>All 4 KVM/mm entries', h)
        self.assertEqual(h.count('class="changelog-entry"'), 2 + 4)
        self.assertLess(h.index('userfaultfd'), h.index('Zap fewer'))
        if trackreport.have_matplotlib():
            self.assertEqual(h.count('<img '), 3)       # the change's and both figures'
            self.assertIn('data:image/png;base64,iVBOR', h)
            self.assertLess(h.index('<img '), h.index('class="changelog-entry"'))
        with open(os.path.join(out, 'changelog-x86_64-k3-k4.txt')) as f:
            self.assertEqual(f.read().splitlines()[1:], ['%s: %s' % e for e in self.ENTRIES])
        with open(paths[1]) as f:
            self.assertIn('| x86_64 | dp | rate | k3 -> k4 | worse by', f.read())

    @unittest.skipUnless(shutil.which('chromium') and trackreport.have_matplotlib(),
                         'no chromium (bench/track_checks.sh installs it) or no matplotlib')
    def test_report_in_browser(self):
        """The report of a change with its changelog in headless chromium:
        its images render, the first plot above the first changelog entry."""
        out = os.path.join(self.dir.name, 'report')
        trackreport.write(self.attributed(), out)
        p = subprocess.run([os.path.join(BENCH, 'browser_check.sh'),
                            os.path.join(out, 'track.html')], capture_output=True, text=True)
        self.assertEqual(p.returncode, 0, p.stdout + p.stderr)
        self.assertIn('the first plot above the first changelog entry', p.stdout)

    def test_scale(self):
        """Axes in the figure's unit at a readable scale."""
        self.assertEqual(trackreport.scale('ns', [2.5e7, 3e7]), (1e6, 'ms'))
        self.assertEqual(trackreport.scale('ns', [900]), (1, 'ns'))
        self.assertEqual(trackreport.scale('ns', [4e9]), (1e9, 's'))
        self.assertEqual(trackreport.scale('pages/s', [2e5]), (1e3, 'k pages/s'))
        self.assertEqual(trackreport.scale('count', [2e9]), (1, 'count'))


class FakeDB:
    """trackdb.DB's values() and boot_values() of fixed runs: {(arch,
    command): {kernel: {figure: [values]}}}, each run its own boot."""

    def __init__(self, values, units):
        self.v, self.u = values, units

    def values(self):
        return self.v, self.u

    def boot_values(self):
        return {key: {k: {f: {i: [x] for i, x in enumerate(xs)} for f, xs in figs.items()}
                      for k, figs in kv.items()} for key, kv in self.v.items()}


class Judging(unittest.TestCase):
    """trackjudge's arithmetic exactly: the simultaneous level split over
    pairs and commands, the stream's order, what is judged and what not."""

    def test_pair_level(self):
        self.assertAlmostEqual(trackjudge.pair_level(95, 4, 3), 1 - 0.05 / 12)
        self.assertAlmostEqual(trackjudge.pair_level(90, 2, 1), 0.95)
        self.assertAlmostEqual(trackjudge.pair_level(95, 1, 5), 0.99)
        self.assertAlmostEqual(trackjudge.pair_level(95, 0, 0), 0.95)   # one kernel, none
        # More commands or pairs: each comparison stricter.
        self.assertGreater(trackjudge.pair_level(95, 3, 2), trackjudge.pair_level(95, 3, 1))
        self.assertGreater(trackjudge.pair_level(95, 3, 1), trackjudge.pair_level(95, 2, 1))

    def test_stream_order(self):
        """Versions as versions (6.12.9 before 6.12.10, 6.1 before 6.12),
        then the others as given."""
        names = ['6.12.10+deb12', 'kvm:/b', '6.12.9+deb12', '/boot/vmlinuz', '6.1.0-57',
                 '6.1.0-9']
        self.assertEqual(trackjudge.stream_order(names),
                         ['6.1.0-9', '6.1.0-57', '6.12.9+deb12', '6.12.10+deb12', 'kvm:/b',
                          '/boot/vmlinuz'])
        self.assertEqual(trackjudge.stream_order(['10.1.0-1', '9.1.0-1']), ['9.1.0-1', '10.1.0-1'])

    def judge_two(self, order=None, drop=None):
        rng = random.Random(5)
        kernels = ['6.12.10+deb12', '6.12.9+deb12', '6.12.11+deb12']
        cmds = [track.Command('a', ['rate', 'time_ns'], 't', []),
                track.Command('b', ['rate'], 't', [])]
        values = {('x86_64', c): {k: {'rate': steady(rng, 100, 8),
                                      'time_ns': steady(rng, 1000, 8)} for k in kernels}
                  for c in ('a', 'b', 'other')}
        if drop:
            values[('x86_64', 'a')][drop].pop('time_ns')
        db = FakeDB(values, {'rate': 'pages/s', 'time_ns': 'ns'})
        return trackjudge.judge(db, cmds, 95, order, permutations=199)

    def test_judge_counts(self):
        """The level is split over the neighbour pairs and the commands
        given (not a stored command nobody asked for); each command's
        figures share it; the kernels in version order."""
        j = self.judge_two()
        self.assertEqual([(s['command'], s['kernels']) for s in j['streams']],
                         [(c, ['6.12.9+deb12', '6.12.10+deb12', '6.12.11+deb12'])
                          for c in ('a', 'b')])
        fam = trackjudge.pair_level(95, 2, 2)
        self.assertAlmostEqual(fam, 1 - 0.05 / 4)
        for s, m in zip(j['streams'], (2, 1)):
            self.assertAlmostEqual(s['family'], fam)
            self.assertAlmostEqual(s['alpha'], stats.figure_alpha(fam, m))
            self.assertEqual(s['runs'], {k: 8 for k in s['kernels']})
            for f in s['figures']:
                self.assertEqual([(n['a_kernel'], n['b_kernel']) for n in f['neighbours']],
                                 list(zip(s['kernels'], s['kernels'][1:])))
                self.assertEqual([len(v) for v in f['values']], [8, 8, 8])
        self.assertEqual([len(s['figures']) for s in j['streams']], [2, 1])
        self.assertEqual(j['unjudged'], [])

    def test_unsized_and_modes(self):
        """Too few runs for an interval: the medians' ratio, unsized; a
        figure only in guest modes (rate[4k]...) is named unjudged with
        the first three modes."""
        r = trackjudge.size([100, 100], [110, 110], 0.05, 'ns')
        self.assertEqual(r['verdict'], 'unsized')
        self.assertAlmostEqual(r['ratio'], 1.1)
        self.assertAlmostEqual(r['pct'], 10)
        self.assertTrue(math.isnan(r['lo']) and math.isnan(r['pct_hi']))
        rng = random.Random(3)
        modes = ['rate[a]', 'rate[b]', 'rate[c]', 'rate[d]']
        kv = {k: {m: steady(rng, 100, 6) for m in modes} for k in ('6.1.0-9', '6.1.0-10')}
        db = FakeDB({('x86_64', 'a'): kv}, {m: 'pages/s' for m in modes})
        j = trackjudge.judge(db, [track.Command('a', ['rate'], 't', [])], 95, permutations=199)
        self.assertEqual(j['unjudged'], ['x86_64 a: no figure rate in its runs (one a guest '
                                         'mode: rate[a], rate[b], rate[c], ...; give the test '
                                         'one mode, -m)'])
        for n, listed in ((2, 'rate[a], rate[b]'), (3, 'rate[a], rate[b], rate[c]')):
            kv = {k: {m: steady(rng, 100, 6) for m in modes[:n]} for k in ('6.1.0-9', '6.1.0-10')}
            j = trackjudge.judge(FakeDB({('x86_64', 'a'): kv}, {}),
                                 [track.Command('a', ['rate'], 't', [])], 95, permutations=199)
            self.assertEqual(j['unjudged'], ['x86_64 a: no figure rate in its runs (one a guest '
                                             'mode: %s; give the test one mode, -m)' % listed])

    def test_gap_is_no_change_point(self):
        """A step the stream shows is no change point while one kernel
        lacks the figure (the stream is not whole), and is one without it."""
        rng = random.Random(8)
        ks = ['6.1.0-%d' % i for i in range(1, 6)]
        kv = {k: {'rate': steady(rng, 100 if i < 2 else 130, 8)} for i, k in enumerate(ks)}
        cmds = [track.Command('a', ['rate'], 't', [])]
        j = trackjudge.judge(FakeDB({('x86_64', 'a'): kv}, {'rate': 'pages/s'}), cmds, 95,
                             permutations=199)
        self.assertEqual([p['g'] for p in j['streams'][0]['figures'][0]['points']], [2])
        two = {k: kv[k] for k in ks[1:3]}     # two kernels: one pair, its step a point
        j = trackjudge.judge(FakeDB({('x86_64', 'a'): two}, {'rate': 'pages/s'}), cmds, 95,
                             permutations=199)
        self.assertEqual([p['g'] for p in j['streams'][0]['figures'][0]['points']], [1])
        kv['6.1.0-4'] = {'other': [1.0] * 8}
        j = trackjudge.judge(FakeDB({('x86_64', 'a'): kv}, {'rate': 'pages/s'}), cmds, 95,
                             permutations=199)
        self.assertEqual(j['streams'][0]['figures'][0]['points'], [])

    def test_one_kernel(self):
        """One kernel of a command: no pair, no change point."""
        j = self.judge_two(order={'x86_64': ['6.12.9+deb12']})
        for f in j['streams'][0]['figures']:
            self.assertEqual((f['neighbours'], f['points']), ([], []))

    def test_judge_order_and_gaps(self):
        """A given order is kept (kernels without runs left out); a figure
        a kernel lacks is no neighbour verdict there and no change point."""
        j = self.judge_two(order={'x86_64': ['6.12.11+deb12', 'gone', '6.12.9+deb12']})
        self.assertEqual(j['streams'][0]['kernels'], ['6.12.11+deb12', '6.12.9+deb12'])
        self.assertAlmostEqual(j['streams'][0]['family'], trackjudge.pair_level(95, 1, 2))
        j = self.judge_two(drop='6.12.10+deb12')
        f = [f for f in j['streams'][0]['figures'] if f['figure'] == 'time_ns'][0]
        self.assertEqual(f['points'], [])
        self.assertEqual(len(f['neighbours']), 0)
        self.assertEqual(sorted(u.split(': ')[1] for u in j['unjudged']),
                         ['no runs', 'no runs'])


class Attribution(unittest.TestCase):
    def stanzas(self):
        with open(os.path.join(BENCH, 'testdata', 'track', 'changelog.Debian')) as f:
            return attribute.parse_changelog(f.read())

    def test_parse(self):
        st = self.stanzas()
        self.assertEqual([(s, v) for s, v, _ in st],
                         [('linux-signed-6.12-amd64', '6.12.103+1~deb12u1'),
                          ('linux', '6.12.103-1'), ('linux', '6.12.102-1'),
                          ('linux-6.12', '6.12.101-1~deb12u1'), ('linux', '6.12.101-1')])
        self.assertEqual(st[1][2][0], '[amd64] KVM: x86/mmu: Fixture entry three, for amd64, '
                         'wrapped over two lines')
        self.assertEqual(attribute.upstream('6.12.103+1~deb12u1'), '6.12.103')

    def test_between(self):
        got = attribute.kvm_entries(self.stanzas(), '6.12.101', '6.12.103', 'amd64')
        self.assertEqual(got, [
            ('6.12.103', 'KVM: x86/mmu: Fixture entry three, for amd64, wrapped over two lines'),
            ('6.12.103', 'mm: fixture entry about the page allocator'),
            ('6.12.103', 'KVM: Fixture entry for both arches'),
            ('6.12.102', 'KVM: Fixture entry two, every arch'),
            ('6.12.102', 'mm/hugetlb: fixture entry two for mm')])
        arm = [e for _, e in attribute.kvm_entries(self.stanzas(), '6.12.102', '6.12.103',
                                                   'arm64')]
        self.assertEqual(arm, ['KVM: arm64: Fixture entry for arm64 only',
                               'mm: fixture entry about the page allocator',
                               'KVM: Fixture entry for both arches'])

    def test_kernel_arch_tags(self):
        """6.1's changelogs tag x86 entries with the kernel's arch name,
        [x86]; 6.12's with Debian's, [amd64]: both are amd64's, neither
        arm64's."""
        stanzas = attribute.parse_changelog(
            'linux (6.1.187-1) bookworm-security; urgency=high\n\n'
            '  * New upstream stable update:\n'
            '    - [x86] KVM: x86/mmu: Check write tracking in all address spaces\n'
            '    - [amd64] KVM: SVM: an amd64 entry\n'
            '    - [arm64] KVM: arm64: an arm64 entry\n'
            '    - [armhf] KVM: an armhf entry\n\n'
            ' -- A <a@b>  Mon, 01 Sep 2026 00:00:00 +0000\n')
        got = [e for _, e in attribute.kvm_entries(stanzas, '6.1.180', '6.1.187', 'amd64')]
        self.assertEqual(got, ['KVM: x86/mmu: Check write tracking in all address spaces',
                               'KVM: SVM: an amd64 entry'])
        got = [e for _, e in attribute.kvm_entries(stanzas, '6.1.180', '6.1.187', 'arm64')]
        self.assertEqual(got, ['KVM: arm64: an arm64 entry'])

    def test_rank(self):
        """An entry naming a figure's functions outranks one naming only
        what every access shares; one naming nothing of the path is left
        out; ties keep the changelog's order."""
        entries = [('1', 'KVM: x86: Fix the CR8 intercept'),
                   ('1', 'KVM: x86/mmu: Zap fewer SPTEs'),
                   ('1', 'KVM: Fix kvm_vm_ioctl_get_dirty_log() for a dirty ring'),
                   ('1', 'KVM: x86/mmu: Batch TLB flushes')]
        got = [e for _, _, e in attribute.rank(entries, 'dirty_log_perf_test', 'get_ns_avg')]
        self.assertEqual(got, [entries[2][1], entries[1][1], entries[3][1]])
        self.assertEqual(attribute.rank(entries[:1], 'dirty_log_perf_test', 'get_ns_avg'), [])
        uffd = attribute.rank([('1', 'mm: userfaultfd: fix UFFDIO_COPY')] + entries[1:2],
                              'demand_paging_test', 'rate')
        self.assertEqual(uffd[0][2], 'mm: userfaultfd: fix UFFDIO_COPY')
        self.assertIn('userfaultfd', attribute.path_terms('demand_paging_test', 'rate'))
        self.assertNotIn('userfaultfd', attribute.path_terms('dirty_log_perf_test', 'rate'))
        # The backing source of the command line counts: hugetlb only with it.
        self.assertNotIn('hugetlb', attribute.path_terms('demand_paging_test -b 16M', 'rate'))
        self.assertIn('hugetlb', attribute.path_terms('demand_paging_test -s anonymous_hugetlb',
                                                      'rate'))

    def test_signed_stanza(self):
        """The kernel's version is its newest stanza's, signed or not: in
        6.1's changelogs the signed stanza holds the release's entries."""
        with open(os.path.join(BENCH, 'testdata', 'track', 'changelog-6.1.Debian')) as f:
            text = f.read()
        self.assertEqual(attribute.top_version(text), '6.1.180')
        with open(os.path.join(BENCH, 'testdata', 'track', 'changelog.Debian')) as f:
            self.assertEqual(attribute.top_version(f.read()), '6.12.103')
        got = attribute.kvm_entries(attribute.parse_changelog(text), '6.1.177', '6.1.180',
                                    'amd64')
        self.assertEqual(got, [('6.1.180', "KVM: Fixture entry of 6.1.178, carried by the "
                                "signed stanza"),
                               ('6.1.180', 'mm/vmscan: fixture entry of 6.1.180')])

    def test_files(self):
        with tempfile.TemporaryDirectory() as d:
            a, b = os.path.join(d, 'a'), os.path.join(d, 'b')
            for root, text in ((a, 'one'), (b, 'two')):
                for rel, body in (('arch/x86/kvm/mmu.c', text), ('virt/kvm/kvm_main.c', 'same'),
                                  ('mm/memory.c', 'same')):
                    os.makedirs(os.path.dirname(os.path.join(root, rel)), exist_ok=True)
                    with open(os.path.join(root, rel), 'w') as f:
                        f.write(body + '\n')
            os.makedirs(os.path.join(b, 'arch/arm64/kvm'))
            with open(os.path.join(b, 'arch/arm64/kvm/new.c'), 'w') as f:
                f.write('new\n')
            files = attribute.differing(a, b)
            self.assertEqual(files, ['arch/arm64/kvm/new.c', 'arch/x86/kvm/mmu.c'])
            self.assertFalse(attribute.module_only(files, 'x86_64'))
            self.assertTrue(attribute.module_only(files[1:], 'x86_64'))
            att = {'from': '6.12.101+deb12', 'to': '6.12.103+deb12', 'from_version': '6.12.101',
                   'to_version': '6.12.103', 'files': files[1:], 'trees': (a, b)}
            series = attribute.write_series(att, os.path.join(d, 'series'))
            with open(series) as f:
                patch = f.read()
            self.assertIn('--- a/arch/x86/kvm/mmu.c\n+++ b/arch/x86/kvm/mmu.c\n', patch)
            self.assertIn('-one\n+two\n', patch)


if __name__ == '__main__':
    if '--tap' in sys.argv:
        sys.exit(tap(sys.modules[__name__], 'track'))
    unittest.main(verbosity=2)
