#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-only
"""Unit tests of bench/kvmbench beside the statistics: the run filing
and the VM console protocol (results), the guest shell and the host
backend with fake tests that pass, fail and hang (runner), the option
checks, order and budget of bench/compare and bench/bisect-run, the
tables (render), and bench/compare end to end on fake builds on the host.
Run: python3 bench/test_kvmbench.py (--tap: kselftest TAP, one result a
test)"""
import glob
import io
import json
import math
import os
import shutil
import subprocess
import sys
import tempfile
import unittest

BENCH = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(BENCH)
sys.path.insert(0, BENCH)
from kvmbench import bisect, compare, perf, render, results, runner, stats, stats_cli  # noqa: E402
from kvmbench import cover, debian, kvm_bisect, kvm_build, kvm_sides, kvm_tree, lava  # noqa: E402
from kvmbench.tap import tap  # noqa: E402

# A fake perf test: writes time_ns from its directory's "base" file and
# its run count (a steady sequence), honours --json FILE; -fail exits 1,
# -hang sleeps, -skip exits 4.
FAKE = r'''#!/bin/sh
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


class Results(unittest.TestCase):
    def test_progress(self):
        self.assertEqual(results.progress(0, 10, 0, now=65), '0 of 10, 1:05 elapsed')
        self.assertEqual(results.progress(2, 10, 0, now=120),
                         '2 of 10, 2:00 elapsed, ~8 min left')
        self.assertEqual(results.rc_text(137), 'FAILED: hung, killed (exit 137)')

    def test_feed(self):
        console = ['boot noise', 'CMP-START a w0 1', 'CMP-OUT warm', 'CMP-JSON-BEGIN', '{}',
                   'CMP-JSON-END', 'CMP-END a w0 0',
                   'CMP-START a 00 0', 'CMP-OUT hello', 'CMP-JSON-BEGIN',
                   '{"runs": []}', 'CMP-JSON-END', 'CMP-END a 00 0',
                   'CMP-START b 00 0', 'HANG -b 1M', 'HANG task /proc/1/task/1 x',
                   'CMP-OUT partial', 'CMP-END b 00 137',
                   'CMP-START b 01 0', 'CMP-OUT cut off']
        with tempfile.TemporaryDirectory() as d:
            err = io.StringIO()
            r = results.Results(d, 'test', err=err)
            r.total = 4
            r.feed(line + '\r\n' for line in console)
            self.assertEqual(r.status(), [['ok', 'a', 'w0', '0'], ['ok', 'a', '00', '0'],
                                          ['fail', 'b', '00', '137']])
            self.assertEqual((r.count('ok'), r.count('ok', 'b'), r.count('fail')), (2, 0, 1))
            self.assertEqual(len(r.kept('a')), 1)
            self.assertTrue(os.path.exists(r.path('warmup', 'a-w0.json')))
            with open(r.path('logs', 'b-00.log')) as f:
                self.assertEqual(f.read(), 'HANG -b 1M\nHANG task /proc/1/task/1 x\npartial\n')
            with open(r.path('logs', 'b-01.log')) as f:
                self.assertEqual(f.read(), 'cut off\n')
            with open(r.path('console.log')) as f:
                self.assertEqual(f.read(), 'boot noise\n')
            e = err.getvalue()
            self.assertIn('test: run 1 of 4, 0:00 elapsed, ~0 min left: A #w0 (warm-up) ok', e)
            self.assertIn('---- B run #00: FAILED: hung, killed (exit 137); its output:\n'
                          'HANG -b 1M\n', e)

    def test_stat_on_one_side(self):
        # B's patch flushes TLBs on every fault; A's kernel never does, so
        # its runs do not list the stat: 0 there, and B is worse.
        def run(flushes):
            stats = {'vcpu': {'exits': {'delta': 273, 'type': 'cumulative'}}, 'vm': {}}
            if flushes:
                stats['vm']['remote_tlb_flush'] = {'delta': flushes, 'type': 'cumulative'}
            return {'runs': [{'figures': {'checked': {'value': 128, 'unit': 'pages'}},
                              'stats': stats}]}
        with tempfile.TemporaryDirectory() as d:
            for side, flushes in (('a', 0), ('b', 270)):
                os.makedirs(os.path.join(d, side))
                for i in range(8):
                    with open(os.path.join(d, side, '%02d.json' % i), 'w') as f:
                        json.dump(run(flushes), f)
            a, b, units = results.load_sides(os.path.join(d, 'a'), os.path.join(d, 'b'))
            self.assertEqual(a['vm.remote_tlb_flush/page'], [0.0] * 8)
            self.assertEqual(b['vm.remote_tlb_flush/page'], [270 / 128] * 8)
            self.assertEqual(units['vm.remote_tlb_flush/page'], 'per page')
            p = subprocess.run([sys.executable, os.path.join(BENCH, 'stats.py'), 'compare',
                                os.path.join(d, 'a'), os.path.join(d, 'b')],
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
            self.assertEqual(p.returncode, 0, p.stderr)
            self.assertRegex(p.stdout, r'VERDICT figure=vm.remote_tlb_flush/page .*verdict=worse')
            self.assertRegex(p.stdout, r'VERDICT figure=vcpu.exits/page .*verdict=same')
            self.assertIn("B worse: A's median is 0, B's 2.109 (no ratio)", p.stdout)

    def test_skip_reason(self):
        with tempfile.TemporaryDirectory() as d:
            r = results.Results(d, 'test', err=io.StringIO())
            r.record('a', '00', False, 4, ['x', '1..0 # SKIP no thing'])
            self.assertEqual(r.count('skip'), 1)
            self.assertEqual(r.first_skip_reason(), '1..0 # SKIP no thing')


class Runner(unittest.TestCase):
    def test_shquote(self):
        args = ["it's", 'a b', '', '$x']
        out = subprocess.run(['sh', '-c', 'printf "%s|" ' + runner.shquote(args)],
                             stdout=subprocess.PIPE, text=True).stdout
        self.assertEqual(out, "it's|a b||$x|")

    def test_kernel_args_and_checks(self):
        self.assertEqual(runner.kernel_args('6.12.115+deb12'),
                         ['--debian-kernel', '6.12.115+deb12'])
        with tempfile.NamedTemporaryFile() as img:
            self.assertEqual(runner.kernel_args(img.name), ['--kernel', img.name])
            with self.assertRaisesRegex(ValueError, "no modules dir '/nonexistent'"):
                runner.kernel_args(img.name + ':/nonexistent')
        with self.assertRaisesRegex(ValueError, 'neither an image file nor'):
            runner.kernel_args('latest')
        self.assertIsNone(runner.check_cpu('', 'arm64'))
        self.assertEqual(runner.check_cpu('intel', 'arm64'), '--cpu intel is for --arch x86_64 only')
        self.assertEqual(runner.clock_env('icount', 1), {'VMRUN_ICOUNT': 'shift=3,sleep=off'})
        self.assertEqual(runner.clock_env('bochs', 1), {'VMRUN_ICOUNT': None})
        with self.assertRaisesRegex(ValueError, 'needs --smp 1'):
            runner.clock_env('icount', 2)
        self.assertEqual([runner.clock_pick(*a) for a in (('', '', ''), ('', '', '4'),
                                                          ('', 'intel', ''), ('tcg', '', ''))],
                         ['icount', 'tcg', 'bochs', 'tcg'])

    def run_guest(self, d, runs, timeout=5):
        """The guest's script run by sh here, its console filed."""
        script = runner.guest_script('fake_test', timeout, False, runs,
                                     {'a': os.path.join(d, 'kvm'), 'b': os.path.join(d, 'kvm')})
        env = dict(os.environ, BENCH_TMP=d)
        p = subprocess.run(['sh', '-c', script], stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                           text=True, env=env)
        r = results.Results(os.path.join(d, 'res'), 'test', err=io.StringIO())
        r.feed(p.stdout.splitlines())
        return r

    def test_guest_shell(self):
        with tempfile.TemporaryDirectory() as d:
            fake_tree(d, 1000)
            r = self.run_guest(d, [runner.Run('a', 'w0', True, []),
                                   runner.Run('a', '00', False, ['-x', "it's"]),
                                   runner.Run('b', '00', False, ['-fail'])])
            self.assertEqual(r.status(), [['ok', 'a', 'w0', '0'], ['ok', 'a', '00', '0'],
                                          ['fail', 'b', '00', '1']])
            with open(r.kept('a')[0]) as f:
                self.assertEqual(json.load(f)['runs'][0]['figures']['time_ns']['unit'], 'ns')

    def test_guest_hang(self):
        with tempfile.TemporaryDirectory() as d:
            fake_tree(d, 1000)
            r = self.run_guest(d, [runner.Run('b', '00', False, ['-hang'])], timeout=1)
            self.assertEqual(r.status(), [['fail', 'b', '00', '137']])
            with open(r.path('logs', 'b-00.log')) as f:
                log = f.read()
            self.assertRegex(log, r'^HANG -hang --json .*\nHANG task /proc/\d+/task/\d+ ')

    def test_host(self):
        with tempfile.TemporaryDirectory() as d:
            fake_tree(d, 1000)
            r = results.Results(os.path.join(d, 'out'), 'test', err=io.StringIO())
            h = runner.Host('fake_test', {'a': os.path.join(d, 'kvm')}, 1, False,
                            os.path.join(d, 'tmp'))
            h.run([runner.Run('a', '00', False, []), runner.Run('a', '01', False, ['-skip']),
                   runner.Run('a', '02', False, ['-hang'])], r)
            self.assertEqual(r.status(), [['ok', 'a', '00', '0'], ['skip', 'a', '01', '4'],
                                          ['fail', 'a', '02', '137']])
            with open(r.path('logs', 'a-02.log')) as f:
                self.assertRegex(f.read(), r'^HANG -hang --json \S+\nHANG task /proc/')


class CompareOptions(unittest.TestCase):
    def usage(self, argv):
        with self.assertRaises(compare.Usage) as e:
            compare.parse(argv)
        return str(e.exception)

    def test_errors(self):
        for argv, msg in (
                (['--runs', '0', '--options', 'a', 'b', '--', 't'],
                 "--runs must be a positive number: '0'"),
                (['--per-boot', 'x', '--options', 'a', 'b', '--', 't'],
                 "--per-boot must be a positive number: 'x'"),
                (['--kernels', '6.1', '--', 't'], "--kernels takes two values, A,B: '6.1'"),
                (['--kernels', '6.1,6.12', '--builds', 'a,b'],
                 'give one of --kernels, --builds, --options, --patch, --kvm-src'),
                (['--options', 'a'], "--options takes two option sets: 'OPTS_A' 'OPTS_B'"),
                (['--options', 'a', 'b'], 'no test command after --'),
                (['--options', 'a', 'b', '--', 'T!'], "bad test name 'T!'"),
                (['--bogus'], "unknown option '--bogus' (-h for help)"),
                (['--runs'], '--runs needs a value'),
                (['--budget', '1', '--options', 'a', 'b', '--', 't'],
                 '--budget goes with --until'),
                (['--until', '5', '--runs', '50', '--options', 'a', 'b', '--', 't'],
                 '--max-runs 40 is below --runs 50'),
                (['--where', 'host', '--kernels', '6.1,6.12', '--', 't'],
                 '--kernels boots VMs: not --where host'),
                (['--clock', 'icount', '--smp', '2', '--options', 'a', 'b', '--', 't'],
                 '--clock icount needs --smp 1 (give --clock tcg for more)'),
                (['--cpu', 'intel', '--clock', 'tcg', '--options', 'a', 'b', '--', 't'],
                 "--clock is QEMU's; --cpu intel runs Bochs, whose clock counts instructions")):
            self.assertEqual(self.usage(argv), msg, argv)

    def test_defaults(self):
        c = compare.parse(['--arch', 'x86_64', '--options', '-a 1', '', '--', './t', 'x'])
        self.assertEqual((c.runs, c.clock, c.smp, c.test, c.args, c.opts),
                         (10, 'icount', 1, 't', ['x'], {'a': ['-a', '1'], 'b': []}))
        c = compare.parse(['--arch', 'aarch64', '--until', '2', '--options', '', '', '--', 't'])
        self.assertEqual((c.arch, c.runs, c.clock, c.smp), ('arm64', 8, 'icount', 1))
        c = compare.parse(['--arch', 'x86_64', '--smp', '4', '--options', '', '', '--', 't'])
        self.assertEqual(c.clock, 'tcg')
        self.assertIsNone(compare.parse(['--runs', '1', '-h']))

    def test_order_and_budget(self):
        self.assertEqual(compare.schedule(4, 0), [('a', 'b'), ('b', 'a'), ('a', 'b'), ('b', 'a')])
        self.assertEqual(compare.schedule(1, 3), [('b', 'a')])
        self.assertFalse(compare.over_budget(100, 0, 8, 6))      # the first look always runs
        self.assertFalse(compare.over_budget(10, 8, 12, 15))     # 10 s for 8: 12 take 15 s
        self.assertTrue(compare.over_budget(10, 8, 12, 14))
        self.assertFalse(compare.over_budget(1000, 8, 12, 0))    # no budget
        c = compare.parse(['--kernels', '6.1,6.12', '--per-boot', '3', '--', 't'])
        cmp = compare.Compare(c)
        self.assertEqual((cmp.units(7), cmp.total_runs(7)), (3, 24))
        c = compare.parse(['--no-warmup', '--options', '', '', '--', 't'])
        cmp = compare.Compare(c)
        self.assertEqual((cmp.units(7), cmp.total_runs(7)), (7, 14))


class LeastRuns(unittest.TestCase):
    """The run counts refused up front are exactly those whose exact
    interval does not exist."""

    def test_least(self):
        for level, looks in ((0.95, 1), (0.95, 3), (0.99, 1), (0.8, 2)):
            alpha = stats.figure_alpha(level, 1, looks)
            n = stats.least_runs(level, looks)
            self.assertTrue(stats.rank_order(n, n, alpha), (level, looks))
            self.assertFalse(stats.rank_order(n - 1, n - 1, alpha), (level, looks))
            for other in (1, 2, 5, 30):
                k = stats.least_runs(level, looks, other)
                self.assertTrue(stats.rank_order(k, other, alpha))
                if k > 1:
                    self.assertFalse(stats.rank_order(k - 1, other, alpha))
        self.assertEqual((stats.least_runs(), stats.least_runs(looks=3)), (4, 5))
        self.assertIsNone(stats.least_runs(other=0))

    def test_refusal(self):
        self.assertEqual(stats.runs_refusal(4), '')
        self.assertEqual(stats.runs_refusal(2, other=30), '')
        self.assertEqual(stats.runs_refusal(3), '--runs 3 cannot reach a verdict: at 95% the '
                         'exact interval needs at least 4 runs a side')
        self.assertEqual(stats.runs_refusal(1, other=5), "--runs 1 cannot reach a verdict: "
                         "at 95% the exact interval needs at least 3 runs against the "
                         "baseline's 5")

    def test_tools_refuse(self):
        with self.assertRaises(compare.Usage) as e:
            compare.parse(['--runs', '3', '--options', 'a', 'b', '--', 't'])
        self.assertIn('needs at least 4 runs a side', str(e.exception))
        with self.assertRaises(compare.Usage) as e:
            compare.parse(['--until', '2', '--runs', '2', '--max-runs', '3', '--options', 'a',
                           'b', '--', 't'])
        self.assertEqual(str(e.exception), '--max-runs 3 cannot reach a verdict: at 95% over '
                         '2 looks the exact interval needs at least 5 runs a side')
        self.assertEqual(compare.parse(['--runs', '4', '--options', 'a', 'b', '--', 't']).runs,
                         4)
        base = ['--figure', 'rate', '--threshold', '3', '--', 't']
        with self.assertRaises(bisect.Usage) as e:
            bisect.parse(['--series', 'DIR', '--runs', '3'] + base)
        self.assertIn('--runs 3 cannot reach a verdict', str(e.exception))
        # Boots A B B A against a kernel: 3 runs are 2 a boot, 4 a side.
        self.assertEqual(bisect.parse(['--debian-kernel', '6.12', '--baseline', '6.1',
                                       '--runs', '3'] + base).runs, 3)
        with tempfile.NamedTemporaryFile('w', suffix='.json') as f:
            json.dump({'results': [{'figure': 'rate', 'unit': 'x'}],
                       'samples': {'a': {'rate': list(range(1, 11))},
                                   'b': {'rate': [1, 2, 3]}}}, f)
            f.flush()
            self.assertEqual(bisect.parse(['--debian-kernel', '6.12', '--baseline', f.name,
                                           '--runs', '2'] + base).runs, 2)
            with self.assertRaises(bisect.Usage) as e:
                bisect.parse(['--debian-kernel', '6.12', '--baseline', f.name + ':b',
                              '--runs', '4'] + base)
            self.assertEqual(str(e.exception), "--runs 4 cannot reach a verdict: at 95% the "
                             "exact interval needs at least 5 runs against the baseline's 3")


class DebianVersions(unittest.TestCase):
    HAVE = ['6.1.0-56', '6.1.0-57', '6.12.100+deb12', '6.12.101+deb12', '6.12.117+deb12']

    def test_words(self):
        pick = debian.pick_versions
        self.assertEqual(pick('6.12-oldest', self.HAVE), ['6.12.100+deb12'])
        self.assertEqual(pick('6.12-newest', self.HAVE), ['6.12.117+deb12'])
        self.assertEqual(pick('6.1-all', self.HAVE), ['6.1.0-56', '6.1.0-57'])
        self.assertEqual(pick('6.12.38+deb12', self.HAVE), ['6.12.38+deb12'])
        self.assertEqual(pick('6.1', self.HAVE), ['6.1'])
        with self.assertRaises(debian.UsageError) as e:
            pick('6.13-all', self.HAVE)
        self.assertTrue(str(e.exception).startswith("no Debian kernel of 6.13 for '6.13-all'; "
                                                    "there are: 6.1.0-56 "), e.exception)

    def test_versions_in_examples(self):
        text = ('vm/run --debian-kernel 6.12.38+deb12\n```\n'
                '$ vm/run --debian-kernel 6.12.38+deb12 -- t\n'
                'bench/perf: measuring KVM on a VM (vm/run): kernel 6.1.0-57-amd64\n'
                '  6.1.0-50\n'
                'bench/bisect-run --packages 6.1,6.12-all,6.1.0-47 --baseline 6.1.0-57-amd64\n'
                '```\nmake 6.12.1+deb12\n')
        self.assertEqual(debian.versions_in_examples(text),
                         [(3, '6.12.38+deb12'), (6, '6.1.0-47'), (6, '6.1.0-57')])

    def test_docs_name_kernels_apt_has(self):
        """Every Debian kernel a command of README.md or docs/*.md names is
        one apt lists today (the archive moves: examples must not rot)."""
        have = debian.kernel_versions('x86_64', cached=False)
        if not have:
            self.skipTest('apt lists no Debian kernel (no apt-get update?)')
        paths = [os.path.join(REPO, 'README.md')] + sorted(
            glob.glob(os.path.join(REPO, 'docs', '*.md')))
        self.assertEqual(debian.missing_in_docs(paths, have), [],
                         'not in apt: give a version it has, or SERIES-oldest/-newest/-all')


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


class BisectOptions(unittest.TestCase):
    def test_errors(self):
        base = ['--figure', 'rate', '--threshold', '5', '--', 't']
        for argv, msg in (
                (['--baseline', '6.1'] + base,
                 'give one of --kernel, --debian-kernel, --packages, --kvm-modules, --series'),
                (['--debian-kernel', '6.1', '--modules', '/', '--baseline', '6.1'] + base,
                 '--modules and --build go with --kernel'),
                (['--debian-kernel', '6.1', '--baseline', 'nope'] + base,
                 "baseline 'nope' is neither a file, a directory nor a Debian kernel version"),
                (['--packages', '6.1', '--baseline', '6.1'] + base,
                 '--packages needs at least two kernels: first good, last bad'),
                (['--debian-kernel', '6.1', '--clock', 'icount', '--smp', '2', '--baseline',
                  '6.1'] + base, '--clock icount needs --smp 1 (give --clock tcg for more)')):
            with self.assertRaises(bisect.Usage) as e:
                bisect.parse(argv)
            self.assertEqual(str(e.exception), msg)
        with Quiet():
            self.assertEqual(bisect.main(['--kernel-file', '/nonexistent', '--', 't']), 125)
            self.assertEqual(bisect.main(['--runs', '1']), 2)

    def test_baseline_path(self):
        with tempfile.NamedTemporaryFile(suffix='.json') as f:
            rel = os.path.relpath(f.name)
            c = bisect.parse(['--debian-kernel', '6.1', '--baseline', rel + ':b', '--figure',
                              'rate', '--threshold', '5', '--', 't'])
            self.assertEqual((c.base_kind, c.baseline), ('json', os.path.realpath(f.name) + ':b'))


class Render(unittest.TestCase):
    def test_table(self):
        t = render.Table(['figure', 'runs', 'B/A'])
        t.add('time_ns', 10, '1.05')
        t.add('rate', 8, '0.97')
        self.assertEqual(t.markdown(), '| figure | runs | B/A |\n| --- | --- | --- |\n'
                         '| time_ns | 10 | 1.05 |\n| rate | 8 | 0.97 |\n')
        self.assertEqual(t.text(), 'figure   runs   B/A\n-------  ----  ----\n'
                         'time_ns    10  1.05\nrate        8  0.97\n')

    def test_median_as_awk(self):
        for words, want in (([], '0 0 0'), (['3', '1', '2'], '2 1 3'), (['10', '9'], '9.5 9 10'),
                            (['1', '3'], '2 1 3'), (['0.1', '0.25'], '0.175 0.1 0.25'),
                            (['1e3', '5'], '502.5 5 1e3')):
            self.assertEqual(stats_cli.median_text(words), want)
        self.assertAlmostEqual(stats_cli.cv_pct(['1', '2', '4']), 65.4654, places=3)
        self.assertEqual(stats_cli.cv_pct(['5']), 0.0)


class Perf(unittest.TestCase):
    def test_options(self):
        c = perf.parse(['--size', '4M', '--vcpus', '2', '--debian-kernel', '6.1'])
        self.assertEqual((c.where, c.kver, perf.vm_mem(c.size, c.vcpus)), ('vm', '6.1', '1040M'))
        self.assertEqual(perf.vm_mem('1G', '4'), '9216M')
        self.assertEqual(perf.vm_mem('2097152', '1'), '1028M')
        for argv, msg in ((['--host', '--vm'], '--host and --vm exclude each other'),
                          (['--vcpus', '0'], "not a positive number: '0'"),
                          (['--size', '4T'], "bad --size '4T'"),
                          (['--host', '--debian-kernel', '6.1'],
                           "--debian-kernel is a VM's kernel: not with --host"),
                          (['--bogus'], "unknown option '--bogus'")):
            with self.assertRaises(perf.Usage) as e:
                perf.parse(argv)
            self.assertEqual(str(e.exception), msg)

    def test_gather_and_summary(self):
        console = ['bench/perf: measuring KVM on host: kernel 6.1, x86_64, module kvm_amd',
                   'PERF-START 1', '', '$ ./demand_paging_test -u MISSING -b 4M --json /t/j',
                   'RESULT test=demand_paging rate=20411.7 time_ns=100300000 pages=2048 '
                   'uffd=MISSING faults=2048 lat_p50_ns=2900 lat_p99_ns=48100',
                   'PERF-JSON-BEGIN', '{"runs": []}', '', 'PERF-JSON-END', 'PERF-END 1 0',
                   'PERF-START 2', '', '$ ./dirty_log_perf_test -b 4M --json /t/j',
                   'SKIP: no dirty ring', 'PERF-END 2 4']
        g = perf.Gather()
        out = io.StringIO()
        g.feed((line + '\n' for line in console), out)
        self.assertNotIn('PERF-', out.getvalue())
        self.assertIn('SKIP: no dirty ring\n', out.getvalue())
        self.assertEqual(perf.summary(g), (
            '\nbench/perf: summary, KVM on host: kernel 6.1, x86_64, module kvm_amd (from the '
            'RESULT lines)\n| run | exit | figures |\n| --- | --- | --- |\n'
            '| ./demand_paging_test -u MISSING -b 4M | 0 | demand_paging: rate 20411 pages/s; '
            'time 100.3 ms; 2048 pages; 2048 faults served, latency p50 2.9 us p99 48.1 us |\n'
            '| ./dirty_log_perf_test -b 4M | 4 | no RESULT line: skipped |\n'))
        self.assertEqual(perf.figures('RESULT test=other a_ns=5 rate=2 x=1'),
                         'other: a_ns=5; rate=2')


PATCH = """From 0 Mon Sep 17 00:00:00 2001
Subject: [PATCH 1/2] KVM: x86: Say hello
 twice

---
diff --git a/arch/x86/kvm/x.c b/arch/x86/kvm/x.c
--- a/arch/x86/kvm/x.c
+++ b/arch/x86/kvm/x.c
@@ -1,4 +1,5 @@ int f(void)
 a
 b
+--- not a header
 c
 d
@@ -8,3 +9,3 @@ int g(void)
 h
-y
+z
 w
diff --git a/virt/kvm/new.c b/virt/kvm/new.c
--- /dev/null
+++ b/virt/kvm/new.c
@@ -0,0 +1 @@
+n
"""


class KvmPatches(unittest.TestCase):
    """vm/kvm-build's patches: parsed, applied to copies, refused well."""

    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        self.src = os.path.join(self.tmp.name, 'src')
        os.makedirs(os.path.join(self.src, 'arch/x86/kvm'))
        with open(os.path.join(self.src, 'arch/x86/kvm/x.c'), 'w') as f:
            f.write('a\nb\nc\nd\ne\nf\ng\nh\ny\nw\n')
        self.patch = os.path.join(self.tmp.name, 'p.patch')
        with open(self.patch, 'w') as f:
            f.write(PATCH)

    def tearDown(self):
        self.tmp.cleanup()

    def test_parse(self):
        p = kvm_tree.Patch(self.patch)
        self.assertEqual(p.subject, 'KVM: x86: Say hello twice')
        self.assertEqual(sorted(p.hunks), ['arch/x86/kvm/x.c', 'virt/kvm/new.c'])
        self.assertEqual(len(p.hunks['arch/x86/kvm/x.c']), 2)

    def test_apply_leaves_the_tree(self):
        before = open(os.path.join(self.src, 'arch/x86/kvm/x.c')).read()
        out = kvm_tree.apply_patches(self.src, [kvm_tree.Patch(self.patch)])
        self.assertIn(b'--- not a header', out['arch/x86/kvm/x.c'])
        self.assertEqual(out['virt/kvm/new.c'], b'n\n')
        self.assertEqual(open(os.path.join(self.src, 'arch/x86/kvm/x.c')).read(), before)
        self.assertFalse(os.path.exists(os.path.join(self.src, 'virt')))

    def test_first_failing_hunk_named(self):
        with open(os.path.join(self.src, 'arch/x86/kvm/x.c'), 'w') as f:
            f.write('a\nb\nc\nd\ne\nf\ng\nh\nQ\nw\n')
        with self.assertRaises(kvm_tree.UsageError) as e:
            kvm_tree.apply_patches(self.src, [kvm_tree.Patch(self.patch)])
        self.assertIn('arch/x86/kvm/x.c, hunk #2 (@@ -8,3 +9,3 @@ int g(void)) failed',
                      str(e.exception))

    def test_outside_kvm_refused(self):
        kvm_tree.check_patch_paths('x86_64', [kvm_tree.Patch(self.patch)])
        with open(self.patch, 'w') as f:
            f.write(PATCH.replace('virt/kvm/new.c', 'mm/new.c'))
        with self.assertRaises(kvm_tree.UsageError) as e:
            kvm_tree.check_patch_paths('x86_64', [kvm_tree.Patch(self.patch)])
        self.assertIn('touches mm/new.c', str(e.exception))

    def test_config_users_outside_kvm(self):
        for path, text in (('arch/x86/kvm/a.c', '#ifdef CONFIG_KVM_ONLY\n'),
                           ('include/linux/kvm_host.h', 'IS_ENABLED(CONFIG_KVM_HDR)\n'),
                           ('mm/b.c', '#ifdef CONFIG_SHARED\n'),
                           ('arch/arm64/c.c', '#ifdef CONFIG_OTHER_ARCH\n'),
                           ('drivers/Makefile', 'obj-$(CONFIG_SHARED_TOO) += d.o\n')):
            os.makedirs(os.path.dirname(os.path.join(self.src, path)), exist_ok=True)
            with open(os.path.join(self.src, path), 'w') as f:
                f.write(text)
        got = kvm_tree.users_outside_kvm(self.src, 'x86_64', {
            'KVM_ONLY', 'KVM_HDR', 'SHARED', 'OTHER_ARCH', 'SHARED_TOO'})
        self.assertEqual(got, {'SHARED': 'mm/b.c', 'SHARED_TOO': 'drivers/Makefile'})

    def test_source_version(self):
        # The security archive had linux-source 6.12.118 while the newest
        # signed kernel was 6.12.117: the kernel's version is built.
        apt = ['6.12.118-1~deb12u1', '6.12.117-1~deb12u1', '6.12.115-2~deb12u1']
        for installed, kernel, want in (('6.12.118-1~deb12u1', '6.12.117', apt[1]),
                                        ('6.12.117-1~deb12u1', '6.12.117', '6.12.117-1~deb12u1'),
                                        ('', '6.12.115', apt[2]),
                                        ('6.12.118-1~deb12u1', '6.12.116', None)):
            self.assertEqual(debian.source_version(kernel, installed, apt), want)


def write_files(root, files):
    for path, text in files.items():
        os.makedirs(os.path.dirname(os.path.join(root, path)), exist_ok=True)
        with open(os.path.join(root, path), 'w') as f:
            f.write(text)


def snapshot(root):
    """{path: (contents, mtime)} of every file under ROOT."""
    out = {}
    for d, _, names in os.walk(root):
        for n in names:
            p = os.path.join(d, n)
            with open(p, 'rb') as f:
                out[os.path.relpath(p, root)] = (f.read(), os.stat(p).st_mtime_ns)
    return out


TREE = {'Makefile': 'VERSION = 6\nPATCHLEVEL = 15\nSUBLEVEL = 0\nEXTRAVERSION = -rc2\n',
        'arch/x86/Kconfig': 'config PVH\n\tbool "PVH"\n', 'arch/arm64/Kconfig': '',
        'arch/x86/kvm/Kconfig': ''.join('config %s\n\tbool "x"\n' % n for n in (
            'KVM_SW_PROTECTED_VM', 'KVM', 'KVM_AMD', 'KVM_INTEL')),
        'mm/Kconfig': 'config USERFAULTFD\n\tbool\nconfig TRANSPARENT_HUGEPAGE\n',
        'fs/Kconfig': 'config HUGETLBFS\n',
        'arch/x86/kvm/mmu/mmu.c': 'int mmu;\n', 'arch/x86/kvm/x86.o': 'an object\n',
        'virt/kvm/kvm_main.c': 'int k;\n', 'mm/memory.c': 'int m;\n',
        'init/Kconfig': 'menuconfig EXPERT\n\tbool "e"\n',
        '.config': 'CONFIG_X=y\n', 'include/generated/autoconf.h': '#define X 1\n',
        '.git/HEAD': 'ref\n'}


class KvmShadow(unittest.TestCase):
    """The shadow make sees: links to the user's tree, private copies of
    patched files; the tree itself never written."""

    def test_sync(self):
        with tempfile.TemporaryDirectory() as d:
            src, work = os.path.join(d, 'src'), os.path.join(d, 'work')
            write_files(src, TREE)
            before = snapshot(src)
            sh = kvm_tree.Shadow(src, work, 'x86_64')
            sh.sync({'arch/x86/kvm/mmu/mmu.c': b'int patched;\n'})
            mmu = os.path.join(work, 'arch/x86/kvm/mmu/mmu.c')
            self.assertFalse(os.path.islink(mmu))
            with open(mmu) as f:
                self.assertEqual(f.read(), 'int patched;\n')
            self.assertTrue(os.path.islink(os.path.join(work, 'mm')))
            self.assertTrue(os.path.islink(os.path.join(work, 'virt/kvm/kvm_main.c')))
            self.assertFalse(os.path.islink(os.path.join(work, 'arch/x86/kvm')))
            for left_out in ('arch/x86/kvm/x86.o', '.config', '.git', 'include/generated'):
                self.assertFalse(os.path.lexists(os.path.join(work, left_out)), left_out)
            t1 = os.stat(mmu).st_mtime_ns
            kvm_tree.Shadow(src, work, 'x86_64').sync({'arch/x86/kvm/mmu/mmu.c':
                                                       b'int patched;\n'})
            self.assertEqual(os.stat(mmu).st_mtime_ns, t1)       # same: make rebuilds nothing
            kvm_tree.Shadow(src, work, 'x86_64').sync({})          # back to the tree's
            with open(mmu) as f:
                self.assertEqual(f.read(), 'int mmu;\n')
            self.assertNotEqual(os.stat(mmu).st_mtime_ns, t1)
            self.assertEqual(snapshot(src), before)


class KvmConfig(unittest.TestCase):
    def test_parse_config_opt(self):
        self.assertEqual(kvm_tree.parse_config_opt('CONFIG_KVM_SW_PROTECTED_VM=y'),
                         ('KVM_SW_PROTECTED_VM', 'y'))
        self.assertEqual(kvm_tree.parse_config_opt('NR_CPUS=64'), ('NR_CPUS', '64'))
        for bad in ('KVM', 'KVM=maybe', '=y', 'K V=y'):
            with self.assertRaises(kvm_tree.UsageError):
                kvm_tree.parse_config_opt(bad)

    def test_read_write(self):
        with tempfile.TemporaryDirectory() as d:
            p = os.path.join(d, 'c')
            with open(p, 'w') as f:
                f.write('# top\nCONFIG_A=y\n# CONFIG_B is not set\nCONFIG_S="x y"\n')
            kvm_tree.write_config(p, [('A', 'n'), ('B', 'y'), ('C', '3')], p)
            self.assertEqual(kvm_tree.read_config(p), {'A': 'n', 'B': 'y', 'S': '"x y"',
                                                       'C': '3'})
            with open(p) as f:
                self.assertEqual(f.read(), '# top\nCONFIG_S="x y"\n# CONFIG_A is not set\n'
                                 'CONFIG_B=y\nCONFIG_C=3\n')


class KvmWhole(unittest.TestCase):
    """vm/kvm-build --whole: the small config's options, bad trees."""

    def test_fragment_built_in(self):
        with tempfile.NamedTemporaryFile('w') as f:
            f.write('# c\nCONFIG_KVM=y\nCONFIG_KVM_AMD=m\nCONFIG_NR=4\n')
            f.flush()
            self.assertEqual(kvm_build.suite_fragment(f.name),
                             [('KVM', 'y'), ('KVM_AMD', 'y'), ('NR', '4')])
        # The suite's own: every module built in.
        frag = dict(kvm_build.suite_fragment())
        self.assertEqual((frag['KVM'], frag['KVM_AMD'], frag['KVM_INTEL']), ('y', 'y', 'y'))

    def test_settings_where_present(self):
        with tempfile.TemporaryDirectory() as d:
            write_files(d, TREE)
            got = kvm_build.whole_settings('x86_64', d)
            names = [n for n, _, _ in got]
            self.assertEqual(len(names), len(set(names)))
            for n in ('KVM', 'KVM_AMD', 'KVM_INTEL', 'USERFAULTFD', 'HUGETLBFS',
                      'TRANSPARENT_HUGEPAGE', 'SERIAL_8250_CONSOLE', 'DEVTMPFS', 'PVH',
                      'KVM_SW_PROTECTED_VM', 'EXPERT'):
                self.assertIn(n, names)
            for n in ('RD_ZSTD', 'X86_64_ACPI_NUMA', 'SERIAL_AMBA_PL011'):
                self.assertNotIn(n, names)       # not in this tree's Kconfig / not x86
            with tempfile.TemporaryDirectory() as e:    # a tree of symbolic links
                links = os.path.join(e, 'links')
                subprocess.run(['cp', '-rs', d, links], check=True)
                self.assertEqual(kvm_build.whole_settings('x86_64', links), got)
            arm = [n for n, _, _ in kvm_build.whole_settings('arm64', d)]
            self.assertIn('SERIAL_AMBA_PL011_CONSOLE', arm)
            self.assertIn('KVM', arm)
            self.assertIn('USERFAULTFD', arm)
            for n in ('PVH', 'KVM_AMD', 'KVM_SW_PROTECTED_VM'):
                self.assertNotIn(n, arm)                # x86's Kconfig only
            self.assertEqual(kvm_build.missing_options(got, {n: v for n, v, _ in got}), None)
            have = {n: v for n, v, _ in got}
            have['HUGETLBFS'] = 'n'
            self.assertEqual(kvm_build.missing_options(got, have)[:2], ('HUGETLBFS', 'y'))

    def test_bad_trees(self):
        with tempfile.TemporaryDirectory() as d:
            for tree, msg in (({'README': 'x'}, 'is not a kernel source tree'),
                              ({'Makefile': TREE['Makefile']}, 'no arch/x86/Kconfig')):
                shutil.rmtree(d)
                write_files(d, tree)
                with self.assertRaises(kvm_build.UsageError) as e:
                    kvm_build.WholeBuild('x86_64', d)
                self.assertIn(msg, str(e.exception))
            with self.assertRaises(kvm_build.UsageError) as e:
                kvm_build.WholeBuild('x86_64', os.path.join(d, 'nope'))
            self.assertIn('not found', str(e.exception))

    def test_build_dir_and_make(self):
        with tempfile.TemporaryDirectory() as d:
            write_files(d, TREE)
            a, b = kvm_build.WholeBuild('x86_64', d), kvm_build.WholeBuild('x86_64', d)
            self.assertEqual(a.dir, b.dir)
            self.assertEqual(a.version, '6.15.0-rc2')
            self.assertNotEqual(a.dir, kvm_build.WholeBuild('arm64', d).dir)
            cmd = a.make_cmd('bzImage')
            self.assertIn('O=' + a.obj, cmd)
            self.assertIn('ARCH=x86_64', cmd)
            self.assertEqual(cmd[-1], 'bzImage')
            if shutil.which('ccache'):
                self.assertIn('CC=ccache gcc', cmd)
            if runner.host_arch() != 'arm64':
                self.assertIn('CROSS_COMPILE=aarch64-linux-gnu-',
                              kvm_build.WholeBuild('arm64', d).make_cmd())

    def test_first_error_and_out(self):
        with tempfile.TemporaryDirectory() as d:
            log = os.path.join(d, 'log')
            with open(log, 'w') as f:
                f.write('=== make bzImage: make -C x\n  CC  mm/a.o\nmm/a.c:3:1: warning: w\n'
                        'arch/x86/kvm/mmu/mmu.c:10:2: error: expected \';\' before \'}\'\n'
                        'make[4]: *** [scripts/Makefile.build:229: mmu.o] Error 1\n')
            self.assertEqual(kvm_build.first_error(log),
                             "arch/x86/kvm/mmu/mmu.c:10:2: error: expected ';' before '}'")
            with self.assertRaises(kvm_build.BuildError) as e:
                kvm_build.run_make(['sh', '-c', 'echo "x.c:1:1: error: boom"; exit 2'], log,
                                   'make Image')
            self.assertEqual(str(e.exception), "make Image failed: arch/x86/kvm/mmu/mmu.c:10:2: "
                             "error: expected ';' before '}' (log: %s)" % log)
            os.unlink(log)
            with self.assertRaises(kvm_build.BuildError) as e:
                kvm_build.run_make(['sh', '-c', 'echo "x.c:1:1: error: boom"; exit 2'], log,
                                   'make Image')
            self.assertIn('failed: x.c:1:1: error: boom (log: ', str(e.exception))
            with open(log, 'w') as f:
                f.write('  CC  x.o\n../src/arch/x86/kvm/x86.c:9:1: error: e\n')
            self.assertEqual(kvm_build.first_error(log), 'arch/x86/kvm/x86.c:9:1: error: e')
            mine = os.path.join(d, 'mine')
            write_files(mine, {'keep.txt': 'k'})
            with self.assertRaises(kvm_build.UsageError):
                kvm_build.check_out(mine)
            kvm_build.check_out(os.path.join(d, 'new'))
            kvm_build.write_desc(mine, {'a': 1})
            kvm_build.check_out(mine)                   # ours now


class KvmSidesOptions(unittest.TestCase):
    """bench/compare --patch on a tree, bench/bisect-run --series on a tree."""

    def test_parse(self):
        with tempfile.TemporaryDirectory() as d:
            patch = os.path.join(d, 'p.patch')
            with open(patch, 'w') as f:
                f.write(PATCH)
            c = compare.parse(['--patch', patch, '--kvm-src', d, '--', 't'])
            self.assertEqual((c.mode, c.src_tree, c.patches), ('patch', d, [patch]))
            c = compare.parse(['--kvm-src', d + ',' + d, '--', 't'])
            self.assertEqual((c.mode, c.src_tree, c.spec_a), ('kvm-src', '', d))
            for argv, msg in ((['--kvm-src', d, '--', 't'],
                               '--kvm-src takes two trees, A,B (one tree goes with --patch)'),
                              (['--patch', patch, '--kvm-src', d + '/nope', '--', 't'],
                               "no kernel source tree '%s/nope'" % d)):
                with self.assertRaises(compare.Usage) as e:
                    compare.parse(argv)
                self.assertEqual(str(e.exception), msg)
            base = ['--figure', 'f', '--threshold', '3', '--', 't']
            c = bisect.parse(['--series', d, '--kvm-src', d] + base)
            self.assertEqual(c.kvm_src, os.path.realpath(d))
            b = bisect.Bisect(c, d)
            args = b.step_args()
            self.assertEqual(args[args.index('--kvm-src') + 1], os.path.realpath(d))
            for argv, msg in ((['--debian-kernel', '6.12', '--baseline', '6.1', '--kvm-src',
                                d] + base, '--kvm-src TREE goes with --series'),
                              (['--series', d, '--kvm-src', d + '/nope'] + base,
                               "no kernel source tree '%s/nope'" % d)):
                with self.assertRaises(bisect.Usage) as e:
                    bisect.parse(argv)
                self.assertEqual(str(e.exception), msg)

    def test_side_text(self):
        self.assertEqual(kvm_sides.side_text({'release': '6.12.117+deb12-amd64', 'src': '/s'}),
                         'KVM of 6.12.117+deb12-amd64 built from /s')
        self.assertEqual(kvm_sides.side_text({'release': '6.12.118', 'src': '/t',
                                              'whole': True}),
                         'Linux 6.12.118 (whole kernel, KVM built in) built from /t')


class KvmBisectSeries(unittest.TestCase):
    def test_series(self):
        with tempfile.TemporaryDirectory() as d:
            with self.assertRaises(kvm_bisect.UsageError):
                kvm_bisect.series_patches(os.path.join(d, 'nope'))
            with self.assertRaises(kvm_bisect.UsageError):
                kvm_bisect.series_patches(d)
            write_files(d, {'0002-b.patch': PATCH, '0001-a.patch': PATCH, 'cover.txt': ''})
            files = kvm_bisect.series_patches(d)
            self.assertEqual([os.path.basename(f) for f in files],
                             ['0001-a.patch', '0002-b.patch'])
            items = kvm_bisect.series_items(files, ['A', 'B'])
            self.assertEqual(items, [('base: the unpatched source', ''),
                                     ('A', files[0] + '\n'),
                                     ('B', files[0] + '\n' + files[1] + '\n')])
            lst = os.path.join(d, 'list')
            with open(lst, 'w') as f:
                f.write(items[2][1])
            self.assertEqual(kvm_bisect.read_patch_list(lst), files)


class Cover(unittest.TestCase):
    def test_table(self):
        def r(fig, unit, a, b, ratio, lo, hi, verdict):
            return {'figure': fig, 'unit': unit, 'a': {'median': a}, 'b': {'median': b},
                    'ratio': ratio, 'lo': lo, 'hi': hi, 'verdict': verdict,
                    'rules_out': max(hi - 1, 1 - lo) * 100}
        res = [r('populate_ns', 'ns', 1.35e8, 1.45e8, 1.07, 1.06, 1.08, 'worse'),
               r('get_ns_avg', 'ns', 10640, 10640, 1.0, 0.99, 1.012, 'same'),
               r('reported', 'pages', 4096, 4096, 1.0, 1.0, 1.0, 'same'),
               r('vm.remote_tlb_flush/page', 'per page', 0.0, 2.109, math.inf, math.inf,
                 math.inf, 'worse')]
        md, tx = cover.cover('bench/compare --patch p', 'base', 'KVM: Say hello', res, 0.95,
                             '6 of A, 6 of B')
        self.assertIn('| populate_ns | 135 ms | 145 ms | +7.0% (worse) | [+6.0%, +8.0%] |', md)
        self.assertIn("| vm.remote_tlb_flush/page | 0 per page | 2.109 per page | from 0 (worse) "
                      "| A's median is 0 |", md)
        self.assertIn('a change beyond +-1.2%', md)
        self.assertIn('identical in every run', tx)
        self.assertIn('Change: KVM: Say hello', tx)


class CompareEndToEnd(unittest.TestCase):
    """bench/compare --builds on two fake install trees, on this host."""

    def run_compare(self, d, base_b, *extra):
        a, b = fake_tree(os.path.join(d, 'A'), 1000), fake_tree(os.path.join(d, 'B'), base_b)
        # In-process as bench/compare runs it, with the host's /dev/kvm
        # taken as working: the fake tests need no KVM, and a machine
        # whose /dev/kvm does not run guests checks the same logic.
        prog = ('import sys; from kvmbench import compare, runner; '
                'runner.host_kvm_why = lambda d: ""; sys.exit(compare.main(sys.argv[1:]))')
        return subprocess.run([sys.executable, '-c', prog, '--builds', '%s,%s' % (a, b),
                               '--where', 'host', '--arch', runner.host_arch(), '--out',
                               os.path.join(d, 'out')] + list(extra) + ['--', 'fake_test'],
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                              env=dict(os.environ, PYTHONPATH=BENCH))

    def test_slower_b(self):
        with tempfile.TemporaryDirectory() as d:
            p = self.run_compare(d, 2000, '--runs', '6', '--until', '1', '--max-runs', '9')
            self.assertEqual(p.returncode, 0, p.stderr)
            self.assertIn('\nwhere: this host\'s /dev/kvm; order A B B A ...; the first run '
                          'of each setup in each boot dropped as warm-up\n', p.stdout)
            self.assertIn('until: resolved to +-1% at look 1 of 2; 6 runs of A and 6 of B (12 kept), ',
                          p.stdout)
            self.assertIn('looks at 6 9 runs a side', p.stdout)
            self.assertRegex(p.stdout, r'\nVERDICT figure=time_ns unit=ns a=[\d.]+ b=[\d.]+ '
                             r'ratio=[\d.]+ lo=[\d.]+ hi=[\d.]+ rules_out=[\d.]+ verdict=worse\n')
            self.assertIn('bench/compare: look 1 of 2: UNTIL runs=6,6 ', p.stderr)
            self.assertEqual(len(os.listdir(os.path.join(d, 'out', 'a'))), 6)
            with open(os.path.join(d, 'out', 'compare.json')) as f:
                self.assertEqual(json.load(f)['looks'], 2)

    def test_out_kept(self):
        with tempfile.TemporaryDirectory() as d:
            mine = os.path.join(d, 'out', 'mine.txt')
            os.makedirs(os.path.dirname(mine))
            with open(mine, 'w') as f:
                f.write('keep')
            p = self.run_compare(d, 1000, '--runs', '6')
            self.assertEqual(p.returncode, 2)
            self.assertIn('not an empty directory', p.stderr)
            self.assertEqual(len(p.stderr.splitlines()), 1, p.stderr)
            with open(mine) as f:
                self.assertEqual(f.read(), 'keep')

    def test_too_few(self):
        # Refused before any run: 3 a side cannot reach 95%.
        with tempfile.TemporaryDirectory() as d:
            p = self.run_compare(d, 1000, '--runs', '3')
            self.assertEqual(p.returncode, 2)
            self.assertEqual(p.stderr, 'bench/compare: --runs 3 cannot reach a verdict: at 95% '
                             'the exact interval needs at least 4 runs a side\n')
            self.assertFalse(os.path.exists(os.path.join(d, 'out', 'a')))
            self.assertNotIn('VERDICT', p.stdout)


if __name__ == '__main__':
    if sys.argv[1:] == ['--tap']:
        sys.exit(tap(sys.modules[__name__], 'kvmbench'))
    unittest.main(verbosity=2)
