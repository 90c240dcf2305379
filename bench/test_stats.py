#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-only
"""Unit tests of bench/stats.py on fixed inputs: the summaries, the
bootstrap interval, the verdict's direction for times, rates and
counters, a fixed A/A sample and known shifted samples, and the reading
of the perf tests' JSON objects.  Run: python3 bench/test_stats.py
(--tap: kselftest TAP, one result a test)"""
import json
import math
import os
import random
import sys
import tempfile
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import stats  # noqa: E402

# Fixed noisy samples (drawn once from a log-normal, sigma 0.3, and
# written down): emulated timings look like this.
AA_A = [1.00, 1.31, 0.84, 1.12, 0.93, 1.48, 0.97, 1.05, 0.78, 1.22, 1.09, 0.88]
AA_B = [1.18, 0.91, 1.03, 0.86, 1.37, 0.95, 1.11, 0.82, 1.26, 1.01, 0.89, 1.15]


def shifted(xs, factor):
    return [x * factor for x in xs]


class Summary(unittest.TestCase):
    def test_values(self):
        s = stats.summary([4, 1, 3, 2])
        self.assertEqual(s['n'], 4)
        self.assertEqual(s['median'], 2.5)
        self.assertEqual(s['mean'], 2.5)
        self.assertAlmostEqual(s['sd'], math.sqrt(5 / 3))
        self.assertEqual((s['min'], s['max']), (1, 4))
        self.assertAlmostEqual(s['spread'], 3 / 2.5)

    def test_single_and_zero(self):
        s = stats.summary([0])
        self.assertEqual((s['sd'], s['spread']), (0.0, 0.0))

    def test_quantile(self):
        xs = [0, 10, 20, 30]
        self.assertEqual(stats.quantile(xs, 0), 0)
        self.assertEqual(stats.quantile(xs, 1), 30)
        self.assertEqual(stats.quantile(xs, 0.5), 15)


class Interval(unittest.TestCase):
    def test_contains_ratio_and_is_deterministic(self):
        r1 = stats.ratio_ci(AA_A, shifted(AA_B, 1.3), 0.95, seed=7)
        r2 = stats.ratio_ci(AA_A, shifted(AA_B, 1.3), 0.95, seed=7)
        self.assertEqual(r1, r2)
        r, lo, hi = r1
        self.assertLess(lo, r)
        self.assertLess(r, hi)

    def test_wider_at_higher_level(self):
        _, lo95, hi95 = stats.ratio_ci(AA_A, AA_B, 0.95, seed=1)
        _, lo99, hi99 = stats.ratio_ci(AA_A, AA_B, 0.995, seed=1)
        self.assertLessEqual(lo99, lo95)
        self.assertGreaterEqual(hi99, hi95)

    def test_zero_median(self):
        r, lo, hi = stats.ratio_ci([0, 0, 0], [0, 0, 0], 0.95, seed=1)
        self.assertEqual((r, lo, hi), (1.0, 1.0, 1.0))
        r, lo, hi = stats.ratio_ci([0, 0, 0], [5, 6, 7], 0.95, seed=1)
        self.assertTrue(math.isinf(r) and lo > 1)


class Verdict(unittest.TestCase):
    def test_directions(self):
        self.assertEqual(stats.verdict(1.2, 1.1, 1.3, 'ns')[0], 'worse')
        self.assertEqual(stats.verdict(0.8, 0.7, 0.9, 'ns')[0], 'better')
        self.assertEqual(stats.verdict(0.8, 0.7, 0.9, 'pages/s')[0], 'worse')
        self.assertEqual(stats.verdict(1.2, 1.1, 1.3, 'pages/s')[0], 'better')
        self.assertEqual(stats.verdict(1.2, 1.1, 1.3, 'per page')[0], 'worse')
        self.assertEqual(stats.verdict(1.05, 0.9, 1.2, 'ns')[0], 'same')

    def test_percent_in_direction(self):
        v, pct, lo, hi = stats.verdict(0.8, 0.7, 0.9, 'pages/s')
        self.assertAlmostEqual(pct, 20)
        self.assertAlmostEqual(lo, 10)
        self.assertAlmostEqual(hi, 30)


class Compare(unittest.TestCase):
    UNITS = {'time_ns': 'ns', 'rate': 'pages/s', 'exits/page': 'per page'}

    def figs(self, a, b):
        return ({'time_ns': a, 'rate': [1 / x for x in a], 'exits/page': [2.0] * len(a)},
                {'time_ns': b, 'rate': [1 / x for x in b], 'exits/page': [2.0] * len(b)})

    def judge(self, a, b):
        fa, fb = self.figs(a, b)
        res, level, m = stats.compare_figures(fa, fb, self.UNITS)
        return {r['figure']: r for r in res}, level, m

    def test_fixed_aa(self):
        res, level, m = self.judge(AA_A, AA_B)
        self.assertEqual(m, 2)          # the constant counter needs no test
        self.assertAlmostEqual(level, 0.975)
        for r in res.values():
            self.assertEqual(r['verdict'], 'same', r['figure'])

    def test_same_list_is_same(self):
        res, _, _ = self.judge(AA_A, list(AA_A))
        self.assertEqual(res['time_ns']['ratio'], 1.0)
        self.assertEqual(res['time_ns']['verdict'], 'same')

    def test_known_slowdown(self):
        res, _, _ = self.judge(AA_A, shifted(AA_B, 1.5))
        t, r = res['time_ns'], res['rate']
        self.assertEqual(t['verdict'], 'worse')
        self.assertEqual(r['verdict'], 'worse')
        self.assertAlmostEqual(t['ratio'], 1.5 * 1.02 / 1.025, places=2)
        self.assertTrue(t['lo'] < 1.5 < t['hi'])
        self.assertTrue(20 < t['pct'] < 80)

    def test_known_speedup(self):
        res, _, _ = self.judge(AA_A, shifted(AA_B, 0.6))
        self.assertEqual(res['time_ns']['verdict'], 'better')
        self.assertEqual(res['rate']['verdict'], 'better')

    def test_small_shift_in_big_noise_is_same(self):
        res, _, _ = self.judge(AA_A, shifted(AA_B, 1.05))
        self.assertEqual(res['time_ns']['verdict'], 'same')

    def test_counter_moved(self):
        fa = {'exits/page': [2.0] * 6}
        fb = {'exits/page': [2.5] * 6}
        res, _, _ = stats.compare_figures(fa, fb, {'exits/page': 'per page'})
        self.assertEqual(res[0]['verdict'], 'worse')
        self.assertAlmostEqual(res[0]['pct'], 25)

    def test_aa_false_alarms_bounded(self):
        """Many A/A comparisons of the same distribution: the family of
        intervals calls a difference in at most ~5% of them."""
        rng = random.Random(42)
        alarms = 0
        trials = 100
        saved, stats.RESAMPLES = stats.RESAMPLES, 1000
        self.addCleanup(setattr, stats, 'RESAMPLES', saved)
        for _ in range(trials):
            fa = {'f%d' % i: [rng.lognormvariate(0, 0.3) for _ in range(10)]
                  for i in range(6)}
            fb = {'f%d' % i: [rng.lognormvariate(0, 0.3) for _ in range(10)]
                  for i in range(6)}
            res, _, _ = stats.compare_figures(fa, fb, {k: 'ns' for k in fa})
            alarms += any(r['verdict'] != 'same' for r in res)
        self.assertLessEqual(alarms, trials * 0.08)


class Json(unittest.TestCase):
    def write(self, d, name, time_ns, exits, mode=None, runs=1):
        run = {'options': {'mode': 8}, 'figures': {
            'pages': {'value': 100, 'unit': 'pages'},
            'time_ns': {'value': time_ns, 'unit': 'ns'}},
            'stats': {'vcpu': {'exits': {'delta': exits, 'type': 'cumulative'},
                               'halt_poll_ns': {'delta': 5, 'type': 'instant'}}}}
        with open(os.path.join(d, name), 'w') as f:
            json.dump({'test': 't', 'runs': [run] * runs}, f)

    def test_load_side(self):
        with tempfile.TemporaryDirectory() as d:
            self.write(d, '1.json', 10, 200)
            self.write(d, '2.json', 20, 0)
            with open(os.path.join(d, '2.json')) as f:
                obj = json.load(f)
            del obj['runs'][0]['stats']['vcpu']['exits']
            with open(os.path.join(d, '2.json'), 'w') as f:
                json.dump(obj, f)
            figs, units = stats.load_side(stats.side_files(d))
        self.assertEqual(figs['time_ns'], [10.0, 20.0])
        self.assertEqual(figs['vcpu.exits/page'], [2.0, 0.0])
        self.assertEqual(units['vcpu.exits/page'], 'per page')
        self.assertNotIn('vcpu.halt_poll_ns/page', figs)

    def test_modes_tagged(self):
        with tempfile.TemporaryDirectory() as d:
            self.write(d, '1.json', 10, 200, runs=2)
            figs, _ = stats.load_side(stats.side_files(d))
        self.assertIn('time_ns[8]', figs)

    def test_judge_exit(self):
        with tempfile.TemporaryDirectory() as d:
            a, b, c = (os.path.join(d, x) for x in 'abc')
            for x in (a, b, c):
                os.mkdir(x)
            for i, v in enumerate(AA_A):
                self.write(a, '%02d.json' % i, v, 1)
            for i, v in enumerate(AA_B):
                self.write(b, '%02d.json' % i, v, 1)
                self.write(c, '%02d.json' % i, v * 2, 1)
            out = os.path.join(d, 'cmp.json')
            with open(os.devnull, 'w') as null:
                old, sys.stdout = sys.stdout, null
                try:
                    self.assertEqual(stats.main(['compare', a, b, '--json', out]), 0)
                    judge = ['judge', '--figure', 'time_ns', '--threshold', '10']
                    self.assertEqual(stats.main(judge + ['--baseline', a, b]), 0)
                    self.assertEqual(stats.main(judge + ['--baseline', a, c]), 1)
                    self.assertEqual(stats.main(judge + ['--baseline', out, c]), 1)
                    self.assertEqual(stats.main(judge + ['--baseline', out + ':b', b]), 0)
                    # 2x slower is bad at 10%, good at a 150% threshold.
                    judge[4] = '150'
                    self.assertEqual(stats.main(judge + ['--baseline', a, c]), 0)
                    judge[2] = 'nope'
                    self.assertEqual(stats.main(judge + ['--baseline', a, c]), 2)
                finally:
                    sys.stdout = old


def tap():
    """Each test as a kselftest TAP result (vm/suite counts them)."""
    def flat(suite):
        for t in suite:
            if isinstance(t, unittest.TestSuite):
                yield from flat(t)
            else:
                yield t
    tests = list(flat(unittest.defaultTestLoader.loadTestsFromModule(sys.modules[__name__])))
    print('TAP version 13\n1..%d' % len(tests))
    failed = 0
    for i, t in enumerate(tests, 1):
        r = unittest.TestResult()
        t.run(r)
        name = 'stats: ' + t.id().split('.', 1)[1]
        if r.failures or r.errors:
            failed += 1
            print('not ok %d %s' % (i, name))
            for _, tb in r.failures + r.errors:
                print('\n'.join('# ' + line for line in tb.splitlines()))
        elif r.skipped:
            print('ok %d %s # SKIP %s' % (i, name, r.skipped[0][1]))
        else:
            print('ok %d %s' % (i, name))
    return 1 if failed else 0


if __name__ == '__main__':
    if sys.argv[1:] == ['--tap']:
        sys.exit(tap())
    unittest.main(verbosity=2)
