#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-only
"""Unit tests of bench's commands: the option checks, order and budget of
bench/compare and bench/bisect-run (kvmbench.measure.compare, kvmbench.attribution.bisect), the
tables (kvmbench.verdicts.render), bench/perf's options and summary (kvmbench.measure.perf),
the cover letter (kvmbench.verdicts.cover), and bench/compare end to end on fake
builds on the host.
Run: python3 bench/test_compare.py (--tap: kselftest TAP, one result a test)"""
import glob
import io
import json
import math
import os
import subprocess
import sys
import tempfile
import unittest

BENCH = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(BENCH)
sys.path.insert(0, BENCH)
from kvmbench.base.tap import tap  # noqa: E402
from kvmbench.verdicts import cover, render, stats_cli  # noqa: E402
from kvmbench.verdicts import stats  # noqa: E402
from kvmbench.kernels import debian  # noqa: E402
from kvmbench.vmrun import cli, runner  # noqa: E402
from kvmbench.attribution import bisect  # noqa: E402
from kvmbench.measure import compare, perf  # noqa: E402
from kvmbench.checks import docs_check  # noqa: E402
from testkit import Quiet, fake_tree  # noqa: E402


class CompareOptions(unittest.TestCase):
    def usage(self, argv):
        with self.assertRaises(compare.Usage) as e:
            compare.parse(argv)
        return str(e.exception)

    def test_errors(self):
        for argv, msg in (
                (['--runs', '0', '--options', 'a', 'b', '--', 'guest_print_test'],
                 "--runs must be a positive number: '0'"),
                (['--per-boot', 'x', '--options', 'a', 'b', '--', 'guest_print_test'],
                 "--per-boot must be a positive number: 'x'"),
                (['--kernels', '6.1', '--', 'guest_print_test'], "--kernels takes two values, A,B: '6.1'"),
                (['--kernels', '6.1,6.12', '--builds', 'a,b'],
                 'give one of --kernels, --builds, --options, --patch, --kvm-src'),
                (['--options', 'a'],
                 "--options takes 2 values ('A' 'B'), then the next option: got 'a' (an empty one is '')"),
                (['--options', '-d 200', '--runs', '6', '--', 'guest_print_test'],
                 "--options takes 2 values ('A' 'B'), then the next option: got '-d 200' before --runs "
                 "(an empty one is '')"),
                (['--options', 'a', 'b'], 'no test command after --'),
                (['--options', 'a', 'b', '--', 'T!'], "bad test name 'T!'"),
                (['--bogus'], "unknown option '--bogus' (-h for help)"),
                (['--runs'], 'argument --runs: expected one argument (-h for help)'),
                (['--options', 'a', 'b', '--options', 'c', 'd', '--', 'guest_print_test'],
                 'give one of --kernels, --builds, --options, --patch, --kvm-src'),
                (['--options', 'a', 'b', 'stray', '--', 'guest_print_test'], "unknown option 'stray' (-h for help)"),
                (['--budget', '1', '--options', 'a', 'b', '--', 'guest_print_test'],
                 '--budget goes with --until'),
                (['--until', '5', '--runs', '50', '--options', 'a', 'b', '--', 'guest_print_test'],
                 '--max-runs 40 is below --runs 50'),
                (['--where', 'host', '--kernels', '6.1,6.12', '--', 'guest_print_test'],
                 '--kernels boots VMs: not --where host'),
                (['--clock', 'icount', '--smp', '2', '--options', 'a', 'b', '--', 'guest_print_test'],
                 '--clock icount needs --smp 1 (give --clock tcg for more)'),
                (['--cpu', 'intel', '--clock', 'tcg', '--options', 'a', 'b', '--', 'guest_print_test'],
                 "--clock is QEMU's; --cpu intel runs Bochs, whose clock counts instructions")):
            self.assertEqual(self.usage(argv), msg, argv)

    def test_defaults(self):
        c = compare.parse(['--arch', 'x86_64', '--options', '-a 1', '', '--', './guest_print_test', 'x'])
        self.assertEqual((c.runs, c.clock, c.smp, c.test, c.args, c.opts),
                         (10, 'icount', 1, 'guest_print_test', ['x'], {'a': ['-a', '1'], 'b': []}))
        c = compare.parse(['--arch', 'aarch64', '--until', '2', '--options', '', '', '--', 'guest_print_test'])
        self.assertEqual((c.arch, c.runs, c.clock, c.smp), ('arm64', 8, 'icount', 1))
        c = compare.parse(['--arch', 'x86_64', '--smp', '4', '--options', '', '', '--', 'guest_print_test'])
        self.assertEqual(c.clock, 'tcg')
        # The numbers typed once (cli.number, argparse types): floats, --hugepages an int.
        c = compare.parse(['--until', '2.5', '--budget', '1.5', '--level', '10', '--hugepages',
                           '3', '--options', '', '', '--', 'guest_print_test'])
        self.assertEqual((c.until, c.budget, c.budget_s, c.level, c.hugepages),
                         (2.5, 1.5, 90, 10.0, 3))
        self.assertIs(type(c.hugepages), int)
        for argv, msg in ((['--level', '0'], "bad --level '0' (a percentage below 100)"),
                          (['--level', '100'], "bad --level '100' (a percentage below 100)"),
                          (['--until', '0'], "bad --until '0' (a percentage)"),
                          (['--until', '5', '--budget', 'x'], "bad --budget 'x' (minutes)"),
                          (['--hugepages', '-1'], "bad --hugepages '-1'")):
            self.assertEqual(self.usage(argv + ['--options', '', '', '--', 'guest_print_test']),
                             msg, argv)
        self.assertIsNone(compare.parse(['--runs', '1', '-h']))
        # Values as given, even those that start with '-'.
        c = compare.parse(['--options', '', '-n', '--figures', '-', '--', 'guest_print_test', '-h'])
        self.assertEqual((c.opts, c.spec_b, c.figures, c.args), ({'a': [], 'b': ['-n']}, '-n',
                                                                 '-', ['-h']))

    def test_order_and_budget(self):
        self.assertEqual(compare.schedule(4, 0), [('a', 'b'), ('b', 'a'), ('a', 'b'), ('b', 'a')])
        self.assertEqual(compare.schedule(1, 3), [('b', 'a')])
        self.assertFalse(compare.over_budget(100, 0, 8, 6))      # the first look always runs
        self.assertFalse(compare.over_budget(10, 8, 12, 15))     # 10 s for 8: 12 take 15 s
        self.assertTrue(compare.over_budget(10, 8, 12, 14))
        self.assertFalse(compare.over_budget(1000, 8, 12, 0))    # no budget
        c = compare.parse(['--kernels', '6.1,6.12', '--per-boot', '3', '--', 'guest_print_test'])
        cmp = compare.Compare(c)
        self.assertEqual((cmp.units(7), cmp.total_runs(7)), (3, 24))
        c = compare.parse(['--no-warmup', '--options', '', '', '--', 'guest_print_test'])
        cmp = compare.Compare(c)
        self.assertEqual((cmp.units(7), cmp.total_runs(7)), (7, 14))


class BisectOptions(unittest.TestCase):
    def test_errors(self):
        base = ['--figure', 'rate', '--threshold', '5', '--', 'guest_print_test']
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
        with self.assertRaises(bisect.Usage) as e:
            bisect.parse(['--baseline', '6.1', '--kvm-modules', 'x'] + base)
        self.assertEqual(str(e.exception), "unknown option 'x' (-h for help)")
        c = bisect.parse(['--kvm-modules', '--baseline', '6.1', '--smp', '2', '--clock', 'tcg']
                         + base)
        self.assertEqual((c.kvm_modules, c.kvm_kernel, c.smp, c.clock), (True, '6.12', 2, 'tcg'))
        with Quiet():
            self.assertEqual(bisect.main(['--kernel-file', '/nonexistent', '--', 'guest_print_test']), 125)
            self.assertEqual(bisect.main(['--runs', '1']), bisect.USAGE)

    def test_baseline_path(self):
        with tempfile.NamedTemporaryFile('w', suffix='.json') as f:
            json.dump({'results': [{'figure': 'rate', 'unit': 'pages/s'}],
                       'samples': {'a': {'rate': [1] * 10}, 'b': {'rate': [2] * 10}}}, f)
            f.flush()
            rel = os.path.relpath(f.name)
            c = bisect.parse(['--debian-kernel', '6.1', '--baseline', rel + ':b', '--figure',
                              'rate', '--threshold', '5', '--', 'guest_print_test'])
            self.assertEqual((c.base_kind, c.baseline), ('json', os.path.realpath(f.name) + ':b'))


class CliTypes(unittest.TestCase):
    """cli's argparse types and program(): what every program's numbers
    and main() go through."""

    def refused(self, convert, text):
        with self.assertRaises(cli.Usage) as e:
            convert(text)
        return str(e.exception)

    def test_numbers(self):
        pct = cli.number(float, "bad --level '{0}'", above=0, below=100)
        self.assertEqual((pct('95'), pct('0.5'), pct('99.9')), (95.0, 0.5, 99.9))
        for t in ('0', '100', '-1', 'x', '', 'nan', 'inf', '1e9'):
            self.assertEqual(self.refused(pct, t), "bad --level '%s'" % t, t)
        n = cli.positive("--runs must be a positive number: '{0}'")
        self.assertEqual((n('1'), n('40')), (1, 40))
        self.assertIs(type(n('3')), int)
        for t in ('0', '-2', '1.5', 'nan', 'ten', ''):
            self.assertEqual(self.refused(n, t), "--runs must be a positive number: '%s'" % t)
        zero = cli.number(int, "bad --hugepages '{0}'", least=0)
        self.assertEqual(zero('0'), 0)
        self.assertEqual(self.refused(zero, '-1'), "bad --hugepages '-1'")
        # No refusal given: argparse's own words, the type's name in them.
        with self.assertRaises(ValueError):
            cli.positive()('0')
        self.assertEqual(cli.positive().__name__, 'positive number')

    def test_size(self):
        mem = cli.size("bad --mem '{0}'")
        for t in ('2G', '512M', '4096', '1T'):
            self.assertEqual(mem(t), t)
        for t in ('0', '0M', '2X', 'G', '', '-1G', '+2G', '1.5G', '2g'):
            self.assertEqual(self.refused(mem, t), "bad --mem '%s'" % t, t)
        self.assertEqual(self.refused(cli.size("bad --size '{0}'", 'KMG'), '4T'),
                         "bad --size '4T'")
        unit = cli.size("bad --size '{0}'", 'MG', bare=False)
        self.assertEqual(unit('32M'), '32M')
        for t in ('32', '4K', 'M'):
            self.assertEqual(self.refused(unit, t), "bad --size '%s'" % t, t)
        for t, n in (('4096', 4096), ('4K', 4 << 10), ('32M', 32 << 20), ('2G', 2 << 30), ('1T', 1 << 40)):
            self.assertEqual(cli.size_bytes(t), n, t)

    def test_positives(self):
        counts = cli.positives("bad --pairs '{0}'")
        self.assertEqual(counts('1 2  16'), ['1', '2', '16'])
        self.assertEqual(counts(' 08\t4 '), ['8', '4'])
        for t in ('', ' ', '0', '1 x', '1,2', '-1', '1.5', '1_0', '\u0662'):
            self.assertEqual(self.refused(counts, t), "bad --pairs '%s'" % t, t)

    def test_parser_status(self):
        """A usage error of bisect-run's parser is USAGE (stops git bisect
        run), a type's refusal too; compare's is 2."""
        for argv, msg in ((['--bogus'], "unknown option '--bogus' (-h for help)"),
                          (['--runs'], 'argument --runs: expected one argument (-h for help)'),
                          (['--smp', '0'], "bad --smp '0'"),
                          (['--figure', 'rate', 'stray', '--', 't'],
                           "unknown option 'stray' (-h for help)")):
            with self.assertRaises(cli.Usage) as e:
                bisect.parser().parse_options(argv)
            self.assertEqual((str(e.exception), e.exception.status), (msg, bisect.USAGE), argv)
        ns = bisect.parser().parse_options(['--runs', '3', '--', 't', '--runs', 'x'])
        self.assertEqual((ns.runs, ns.command), (3, ['t', '--runs', 'x']))
        self.assertIsNone(bisect.parser().parse_options(['--figure', 'x', '-h']))
        with self.assertRaises(cli.Usage) as e:
            compare.parse(['--smp', '0', '--options', '', '', '--', 'guest_print_test'])
        self.assertEqual((str(e.exception), e.exception.status),
                         ("--smp must be a positive number: '0'", 2))

    def test_lava_dispatch(self):
        """--lava hands the command line to kvmbench.measure.lavacompare, as given;
        its own options refused without it."""
        argv = ['--lava', 'local', '--options', '', '-d 10', '--per-job', '3', '--', 't']
        c = compare.parse(argv)
        self.assertEqual((c.lava, c.argv), (True, argv))
        self.assertFalse(compare.parse(['--options', '', '', '--', 'guest_print_test']).lava)
        for o in ('--token', '--per-job', '--timeout'):
            with self.assertRaises(cli.Usage) as e:
                compare.parse([o, '1', '--options', '', '', '--', 'guest_print_test'])
            self.assertEqual(str(e.exception), '%s goes with --lava' % o)

    def test_program(self):
        """program(): -h prints the help, a Fail is one line and its status,
        the run's status otherwise."""
        def parse(argv):
            if argv == ['-h']:
                return None
            if argv == ['bad']:
                raise cli.Usage('bad thing', 128)
            return argv

        def run(c):
            if c == ['fail']:
                raise cli.Fail('it failed', 6)
            if c == ['quiet']:
                raise cli.Fail('')
            return 7
        for argv, rc, out, err in ((['-h'], 0, 'HELP\n', ''), (['bad'], 128, '', 'p: bad thing\n'),
                                   (['fail'], 6, '', 'p: it failed\n'), (['quiet'], 1, '', ''),
                                   (['ok'], 7, '', '')):
            with Quiet() as q:
                self.assertEqual(cli.program('p', argv, parse, run, 'HELP\n'), rc, argv)
            self.assertEqual((q.out, q.err), (out, err), argv)


class TestChecks(unittest.TestCase):
    """The test's own checks, run on the host before any boot: its option
    parser (-h after the options) and its declared figures (--figures)."""

    def fake(self, d):
        """A test that takes -a, refuses the rest, declares rate and *_ns_min."""
        t = os.path.join(d, 'fake_test')
        with open(t, 'w') as f:
            f.write('#!/bin/sh\nfor o; do case $o in -a) ;; -h) exit 0 ;;\n'
                    '--figures) echo "# a comment"; echo rate; echo "*_ns_min"; exit 0 ;;\n'
                    "*) echo \"Invalid option '$o' (-h for help)\" >&2; exit 1 ;; esac; done\n")
        os.chmod(t, 0o755)
        return t

    def test_options_and_figures(self):
        with tempfile.TemporaryDirectory() as d:
            self.fake(d)
            self.assertEqual(runner.options_why(d, 'fake_test', ['-a']), '')
            self.assertEqual(runner.options_why(d, 'fake_test', ['-Z']),
                             "Invalid option '-Z' (-h for help)")
            self.assertEqual(runner.options_why(d, 'no_such_test', ['-Z']), '')
            self.assertEqual(runner.test_figures(d, 'fake_test', []), ['rate', '*_ns_min'])
            for ok in (['rate'], ['map_ns_min'], ['rate[4K]', 'vcpu.exits/page', 'vm.x/page']):
                self.assertEqual(runner.figure_why(d, 'fake_test', [], ok), '', ok)
            self.assertEqual(runner.figure_why(d, 'fake_test', [], ['rate', 'rat']),
                             "fake_test has no figure 'rat'; it reports: rate *_ns_min")
            # A test that cannot say (refuses --figures): no check.
            self.assertEqual(runner.figure_why(d, 'fake_test', ['-Z'], ['rat']), '')


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
                          (['--bogus'], "unknown option '--bogus' (-h for help)"),
                          (['--arch', 'x86_64', '--', 'guest_print_test'], "unknown option '--' (-h for help)"),
                          (['--json'], 'argument --json: expected one argument (-h for help)')):
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
        prog = ('import sys; from kvmbench.measure import compare; from kvmbench.vmrun import runner; '
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
            compare.parse(['--runs', '3', '--options', 'a', 'b', '--', 'guest_print_test'])
        self.assertIn('needs at least 4 runs a side', str(e.exception))
        with self.assertRaises(compare.Usage) as e:
            compare.parse(['--until', '2', '--runs', '2', '--max-runs', '3', '--options', 'a',
                           'b', '--', 'guest_print_test'])
        self.assertEqual(str(e.exception), '--max-runs 3 cannot reach a verdict: at 95% over '
                         '2 looks the exact interval needs at least 5 runs a side')
        self.assertEqual(compare.parse(['--runs', '4', '--options', 'a', 'b', '--', 'guest_print_test']).runs,
                         4)
        base = ['--figure', 'rate', '--threshold', '3', '--', 'guest_print_test']
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
        self.assertEqual(docs_check.versions_in_examples(text),
                         [(3, '6.12.38+deb12'), (6, '6.1.0-47'), (6, '6.1.0-57')])

    def test_docs_name_kernels_apt_has(self):
        """Every Debian kernel a command of README.md or docs/*.md names is
        one apt lists today (the archive moves: examples must not rot)."""
        have = debian.kernel_versions('x86_64', cached=False)
        if not have:
            self.skipTest('apt lists no Debian kernel (no apt-get update?)')
        paths = [os.path.join(REPO, 'README.md')] + sorted(
            glob.glob(os.path.join(REPO, 'docs', '*.md')))
        self.assertEqual(docs_check.missing_in_docs(paths, have), [],
                         'not in apt: give a version it has, or SERIES-oldest/-newest/-all')


if __name__ == '__main__':
    if sys.argv[1:] == ['--tap']:
        sys.exit(tap(sys.modules[__name__], 'compare'))
    unittest.main(verbosity=2)
