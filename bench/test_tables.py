#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-only
"""Unit tests of bench/table (kvmbench.measure.tables): each table made from fixed
RESULT lines, against the table the shell scripts it replaced printed for
the same lines (bench/testdata/tables/NAME.raw and NAME.table, recorded in
the x86_64 VM), or against medians worked out by hand; the option checks;
the paths list and its rows read from a compare.json.
Run: python3 bench/test_tables.py (--tap: kselftest TAP, one result a test)"""
import contextlib
import io
import json
import math
import os
import sys
import tempfile
import unittest

BENCH = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, BENCH)
from kvmbench.base.errors import UsageError  # noqa: E402
from kvmbench.base.tap import tap  # noqa: E402
from kvmbench.verdicts import stats, stats_cli  # noqa: E402
from kvmbench.vmrun import runner  # noqa: E402
from kvmbench.measure import tables  # noqa: E402
from kvmbench.measure.tables import common, dirty, nesting, noise, notify, paging, two_kernels  # noqa: E402

DATA = os.path.join(BENCH, 'testdata', 'tables')


def data(name):
    with open(os.path.join(DATA, name)) as f:
        return f.read()


def parsed(*argv):
    return tables.parse(list(argv))[1]


class Recorded(unittest.TestCase):
    """The tables of RESULT lines recorded in the VM (eventfd: on the host),
    as the shell scripts printed them (bench/demand_paging.sh --runs 1
    --readers "1 2" --size 1M; bench/dirty_log.sh --runs 1 --size 1M
    --slot-mem 8M; the others as said)."""

    def test_demand_paging(self):
        a = parsed('demand_paging', '--runs', '1', '--readers', '1 2', '--size', '1M')
        got = paging.dp_table(a, data('demand_paging.raw'))
        self.assertEqual('\n'.join(got) + '\n', data('demand_paging.table'))

    def test_dirty_log(self):
        a = parsed('dirty_log', '--runs', '1', '--size', '1M', '--slot-mem', '8M')
        got = dirty.dl_table(a, data('dirty_log.raw'))
        self.assertEqual('\n'.join(got) + '\n', data('dirty_log.table'))

    def test_nested(self):
        # bench/nested.sh --runs 1 --size 1M --vcpus 1
        a = parsed('nested', '--runs', '1', '--size', '1M', '--vcpus', '1')
        got = nesting.nested_table(a, data('nested.raw'))
        self.assertEqual('\n'.join(got) + '\n', data('nested.table'))

    def test_spread(self):
        # bench/spread.sh --runs 2 --size 1M, but its first line (its name).
        a = parsed('spread', '--runs', '2', '--size', '1M')
        got = noise.spread_table(a, data('spread.raw'))
        self.assertEqual('\n'.join(got[1:]) + '\n', data('spread.table'))

    def test_eventfd(self):
        # bench/eventfd.sh --runs 1 --pairs "1 2" --events 200 on the host's /dev/kvm
        a = parsed('eventfd', '--runs', '1', '--pairs', '1 2', '--events', '200')
        got = notify.ev_table(a, data('eventfd.raw'), data('eventfd.raw').split('\n')[0][6:])[0]
        self.assertEqual('\n'.join(got) + '\n', data('eventfd.table'))

    def test_eventfd_plot(self):
        """--plot (matplotlib): a line a wait and side, holding the table's medians."""
        if runner.install_module('matplotlib', 'python3-matplotlib', 'for the plot test') is None:
            self.skipTest('no matplotlib (python3-matplotlib)')
        a = parsed('eventfd', '--runs', '1', '--pairs', '1 2', '--events', '200')
        _, rows = notify.ev_table(a, data('eventfd.raw'), 'here')
        lines = notify.ev_figure(rows, 'here').get_axes()[0].get_lines()
        self.assertEqual(len(lines), 2 * len(notify.EV_WAITS))
        for i, ln in enumerate(lines):
            self.assertEqual(list(ln.get_xdata()), [1.0, 2.0])
            self.assertEqual(list(ln.get_ydata()), [float(r.split()[1 + i]) for r in rows])
        with tempfile.TemporaryDirectory() as d:
            a.plot = os.path.join(d, 'ev.png')
            self.assertEqual(notify.ev_plot(a, rows, 'here'), ['plot: ' + a.plot])
            with open(a.plot, 'rb') as f:
                self.assertEqual(f.read(8), b'\x89PNG\r\n\x1a\n')


DP = '''RESULT test=demand_paging readers=1 wake=epoll host_only=0 rate=100 exits=40 pf_taken=8
RESULT test=demand_paging readers=1 wake=epoll host_only=0 rate=300 exits=80 pf_taken=12
RESULT test=demand_paging readers=1 wake=epoll host_only=0 rate=200 exits=60 pf_taken=4
RESULT test=demand_paging readers=1 wake=poll host_only=0 rate=250 exits=1 pf_taken=1
RESULT test=demand_paging readers=16 wake=epoll host_only=0 rate=179 exits=1 pf_taken=1
RESULT test=demand_paging readers=32 wake=epoll host_only=0 rate=180 exits=1 pf_taken=1
RESULT failed -u MISSING -v 4 -b 4M -r 32 -w poll -H
'''


class DemandPaging(unittest.TestCase):
    def test_cells_and_targets(self):
        a = parsed('demand_paging', '--runs', '3', '--readers', '1 16 32')
        out = paging.dp_table(a, DP)
        # Median 200 of 100 200 300; exits 60/4 vCPUs, pf_taken 8/4.
        self.assertEqual(out[2], '1       |     200 [  100-  300] |       0 [    0-    0] |'
                         '     250 [  250-  250] |       0 [    0-    0] |         15 |          2')
        # 179/200 misses 0.9, 180/200 meets it; 200 < 250 misses 1.0.
        self.assertEqual(out[5:], [
            'target: epoll 16 readers / 1 reader = 0.90 (>= 0.9): MISSED',
            'target: epoll 32 readers / 1 reader = 0.90 (>= 0.9): met',
            'target: 1 reader, epoll / poll = 0.80 (>= 1.0): MISSED'])

    def test_no_target_rows_without_16_and_32(self):
        a = parsed('demand_paging', '--readers', '1 2')
        out = paging.dp_table(a, DP)
        self.assertEqual([ln for ln in out if ln.startswith('target')],
                         ['target: 1 reader, epoll / poll = 0.80 (>= 1.0): MISSED'])

    def test_guest_loop(self):
        a = parsed('demand_paging', '--runs', '2', '--readers', '1 4', '--size', '8M')
        loop = paging.dp_loop(a)
        self.assertIn('bench_watch() {', loop)
        self.assertIn('bench_watch 180 /tmp/out ./demand_paging_test "$@"', loop)
        self.assertIn('for rep in $(seq 2); do', loop)
        self.assertIn('  for r in 1 4; do', loop)
        self.assertIn('run -u MISSING -v 4 -b 8M -r $r -w $w $h', loop)


class DirtyLog(unittest.TestCase):
    def test_guest_loop(self):
        loop = dirty.dl_loop(parsed('dirty_log', '--slot-mem', '8M', '--ring', '64'))
        self.assertIn('run 2 -b 4194304 -v 2 -x $x -i 3 -g', loop)
        self.assertIn('run 3 -b 2M -v $v -i 3 -R 64', loop)
        self.assertIn('sed "s/^RESULT /RESULT table=$tag /"', loop)

    def test_ring_full_median_as_printed(self):
        text = ''.join('RESULT table=3 vcpus=1 log=ring ring_full_exits=%s\n' % v
                       for v in ('7', '3'))
        out = dirty.dl_table(parsed('dirty_log'), text)
        row = [ln for ln in out if ln.startswith('1      ring')][0]
        self.assertTrue(row.endswith('| 5'), row)


class Eventfd(unittest.TestCase):
    TEXT = '''WHERE a test
RESULT host_only=0 pairs=1 wait=read events=100 total_rate=10 exits=300 halt_wakeup=100 halt_wait_ns=200000
RESULT host_only=0 pairs=1 wait=read events=100 total_rate=30 exits=500 halt_wakeup=300 halt_wait_ns=400000
RESULT host_only=1 pairs=1 wait=pool total_rate=7.5
'''

    def test_row(self):
        a = parsed('eventfd', '--pairs', '1', '--runs', '2')
        out, rows = notify.ev_table(a, self.TEXT, 'a test')
        self.assertEqual(out[0], 'eventfd_perf_test -v PAIRS -e 1000 -w WAIT [-H], a test,')
        # exits 3 and 5 a round trip: 4; wake-ups 1 and 3: 2; 2 and 4 us: 3.
        self.assertEqual(out[5], '| 1 | 20 [10-30] | 0 [0-0] | 0 [0-0] | 0 [0-0] | 0 [0-0] |'
                         ' 8 [8-8] | 0 [0-0] | 0 [0-0] | 4.00 | 2.00 | 3.00 |')
        self.assertEqual(rows, ['1 20 0 0 0 0 7.5 0 0'])

    def test_from_a_file(self):
        with tempfile.NamedTemporaryFile('w') as f:
            f.write(self.TEXT)
            f.flush()
            a = parsed('eventfd', '--pairs', '1', '--from', f.name)
            self.assertEqual(notify.eventfd(a)[0].split(', ')[1], 'a test,')

    def test_bad_options(self):
        for argv in (['--where', 'moon'], ['--pairs', '1 x'], ['--pairs', ''],
                     ['--events', '0'], ['--runs', '-1']):
            with self.assertRaises(UsageError, msg=argv):
                parsed('eventfd', *argv)


class Nested(unittest.TestCase):
    TEXT = '''RUN dirty_log plain RESULT populate_ns=2000000 dirty_ns_avg=1000000 \
get_ns_avg=1000 clear_ns_avg=2000 exits=5 \
RESULT_STATS exits=10 pf_taken=4
RUN dirty_log -n RESULT populate_ns=6000000 dirty_ns_avg=3000000 get_ns_avg=1000 clear_ns_avg=2000 RESULT_STATS exits=30
RUN kvm_alone plain RESULT rate=100 RESULT_STATS exits=1
RUN kvm_alone -n RESULT rate=50 RESULT_STATS exits=2
RUN missing plain
FAILED missing plain
'''

    def test_ratio_and_last_value(self):
        out = nesting.nested_table(parsed('nested', '--runs', '1'), self.TEXT)
        self.assertEqual(out[0], 'x86_64 VM (vm/run --smp 4 , emulated SVM), -b 16M -v 2, '
                         'median of 1 runs [min-max]')
        self.assertIn('| Populate memory time (ms)          | 2.00 [2.00-2.00]           '
                      '| 6.00 [6.00-6.00]           |   3.00 |', out)
        # The missing runs failed: 0, and no ratio over 0.
        self.assertIn('| Demand paging, -u MISSING (pgs/s)  | 0.00 [0.00-0.00]           '
                      '| 0.00 [0.00-0.00]           |   0.00 |', out)
        # RESULT_STATS' exits, not RESULT's.
        self.assertIn('| exits              |           10 |           30 |            1 |'
                      '            2 |', out)

    def test_intel(self):
        a = parsed('nested', '--cpu', 'intel', '--debian-kernel', '6.12')
        out = nesting.nested_table(a, self.TEXT)
        self.assertTrue(out[0].startswith('x86_64 VM (vm/run --smp 4 --cpu intel --debian-kernel '
                                          '6.12, Bochs, VMX)'), out[0])

    def test_bad_cpu(self):
        with self.assertRaises(UsageError):
            parsed('nested', '--cpu', 'arm')


class Spread(unittest.TestCase):
    def test_warmup_dropped(self):
        text = ''.join('RUN missing %d RESULT rate=%d\n' % (i, v)
                       for i, v in enumerate((999, 90, 100, 110)))
        out = noise.spread_table(parsed('spread'), text)
        cv = stats_cli.cv_pct([90, 100, 110])
        self.assertEqual(out[-1], '| -u MISSING rate (pgs/s)        |  3 |     100.00 |      '
                         '90.00-110.00     |   20.0%% | %5.1f%% |' % cv)
        self.assertEqual(out[-2].split('|')[2].strip(), '0')


class Splitting(unittest.TestCase):
    def test_rows(self):
        text = ('# Eager splitting: on\n# Eager splitting: again\n' + ''.join(
            'RESULT test=dirty_log_page_splitting split=eager protect=get protect_ns=%d '
            'first_dirty_ns=1000000 enable_ns=0 disable_ns=0\n' % v for v in (1000000, 3000000)))
        a = parsed('splitting', '--runs', '2', '--kernel', '6.1')
        out = dirty.split_table(a, text)
        self.assertEqual(out[:2], ['dirty_log_page_splitting_test -b 32M -v 2, 2 runs, x86_64, '
                                   'kernel 6.1 (vm/run, TCG)', '# Eager splitting: on'])
        self.assertEqual(out[5:], ['| eager | get | 2 | 2.00 [1.00-3.00] | 1.00 [1.00-1.00] | '
                                   '0.00 [0.00-0.00] | 0.00 [0.00-0.00] |'])

    def test_options(self):
        self.assertEqual(parsed('splitting', '--kernel', '6.1').kargs, ['--debian-kernel', '6.1'])
        for argv in (['--size', '4K'], ['--arch', 'riscv'], ['--kernel', 'nonesuch']):
            with self.assertRaises(UsageError, msg=argv):
                parsed('splitting', *argv)


class Upstream(unittest.TestCase):
    def test_table(self):
        text = ('upstream 0 2.0 10 20\nours 0 1.0 30 40\nupstream 0 4.0 10 20\nours 0 1.0 30 40\n'
                'ours 0 failed\n')
        with tempfile.TemporaryDirectory() as d:
            exe = os.path.join(d, 'demand_paging_test')
            with open(exe, 'w') as f:
                f.write('#!/bin/sh\n')
            os.chmod(exe, 0o755)
            a = tables.parser('upstream').parse_args(['--upstream', d, '--rows', '-v 1'])
        out = paging.up_table(a, text)
        self.assertEqual(out[-1], '| -v 1                                   |  3.00 [ 2.00- 4.00] '
                         '|  1.00 [ 1.00- 1.00] |  3.00 |        10 /        30 |        20 /'
                         '        40 |')

    def test_needs_upstream(self):
        with self.assertRaises(UsageError):
            parsed('upstream', '--upstream', '/nonexistent')


def compare_json(d, results):
    os.makedirs(d)
    with open(os.path.join(d, 'compare.json'), 'w') as f:
        json.dump({'results': results}, f)


def result(fig, a, b, verdict='same', unit='ns'):
    return {'figure': fig, 'unit': unit, 'a': {'median': a}, 'b': {'median': b},
            'ratio': b / a, 'lo': 0.9, 'hi': 1.25, 'verdict': verdict}


class Paths(unittest.TestCase):
    def list_file(self, d, text):
        p = os.path.join(d, 'list')
        with open(p, 'w') as f:
            f.write(text)
        return p

    def test_lines(self):
        with tempfile.TemporaryDirectory() as d:
            p = self.list_file(d, '# a comment\n\nx | t_test -b 1M | k1,k2\n')
            self.assertEqual(two_kernels.paths_lines(p), [('x', 't_test -b 1M', ['k1', 'k2'])])
            for bad, why in (('x | t_test', 'not NAME | COMMAND'), ('x y | t | k', 'bad name'),
                             ('x | t | k,', 'bad key list'), ('x | t; rm -rf / | k', 'bad command')):
                self.list_file(d, 'ok | t | k\n' + bad + '\n')
                with self.assertRaisesRegex(UsageError, ':2: ' + why):
                    two_kernels.paths_lines(p)

    def test_rows_from_compare_json(self):
        rows = two_kernels.verdict_rows('mmu', ['walk_ns', 'gone'], [
            result('walk_ns[pa40 4K]', 100.0, 120.0, 'worse'), result('other', 1.0, 1.0)])
        self.assertEqual(rows, [
            'mmu                          walk_ns[pa40 4K] (ns)                           100'
            '            120      1.2 [0.9, 1.25] worse',
            "mmu                          gone                                 (no such figure "
            "in the test's JSON)"])

    def test_print_again(self):
        with tempfile.TemporaryDirectory() as d:
            p = self.list_file(d, 'one | t_test | k\ntwo | t_test | k\nthree | t_test | k\n')
            out = os.path.join(d, 'out')
            compare_json(os.path.join(out, 'one'), [result('k', 2.0, 1.0, 'better')])
            for name, rc, log in (('one', 0, ''), ('two', 4, 'B #00: skipped: no nested\n')):
                with open(os.path.join(out, name + '.rc'), 'w') as f:
                    f.write('%d\n' % rc)
                with open(os.path.join(out, name + '.log'), 'w') as f:
                    f.write(log)
            a = parsed('paths', '--list', p, '--print', out, '--kernels', 'K1,K2')
            buf = io.StringIO()
            with contextlib.redirect_stdout(buf):
                self.assertEqual(two_kernels.paths(a), [])
            lines = buf.getvalue().splitlines()
            self.assertIn('K1 median', lines[2])
            self.assertEqual(lines[3].split(), ['one', 'k', '(ns)', '2', '1', '0.5', '[0.9,',
                                                '1.25]', 'better'])
            self.assertEqual(lines[4].split(), ['two', 'skipped:', 'B', '#00:', 'skipped:', 'no',
                                                'nested'])
            self.assertEqual(len(lines), 6)

    def test_all_skipped_exits_4(self):
        with tempfile.TemporaryDirectory() as d:
            p = self.list_file(d, 'one | t_test | k\n')
            out = os.path.join(d, 'out')
            os.makedirs(out)
            for ext, text in (('.rc', '4\n'), ('.log', 'skipped\n')):
                with open(os.path.join(out, 'one' + ext), 'w') as f:
                    f.write(text)
            with contextlib.redirect_stdout(io.StringIO()):
                self.assertEqual(tables.main(['paths', '--list', p, '--print', out]), 4)

    def test_options(self):
        for argv in (['--runs', '1'], ['--kernels', '6.1'], ['--kernels', 'a,b,c'],
                     ['--arch', 'mips'], ['--only', 'nonesuch'], ['--list', '/nonexistent']):
            with self.assertRaises(UsageError, msg=argv):
                two_kernels.paths(parsed('paths', *argv))
        self.assertEqual(parsed('paths', '--arch', 'aarch64').arch, 'arm64')


class Command(unittest.TestCase):
    def test_usage_errors_are_one_line_exit_2(self):
        for argv in ([], ['nope'], ['dirty_log', '--bogus'], ['dirty_log', '--runs'],
                     ['dirty_log', '--size', 'big'], ['spread', '--run', '3']):
            err = io.StringIO()
            with contextlib.redirect_stderr(err):
                self.assertEqual(tables.main(argv), 2, argv)
            self.assertEqual(len(err.getvalue().splitlines()), 1, (argv, err.getvalue()))

    def test_help(self):
        for argv in (['-h'], ['spread', '--help']):
            out = io.StringIO()
            with contextlib.redirect_stdout(out), self.assertRaises(SystemExit) as e:
                if tables.main(argv) == 0:
                    raise SystemExit(0)
            self.assertEqual(e.exception.code, 0)
            self.assertIn('usage: bench/table', out.getvalue())

    def test_fields_keep_the_last(self):
        self.assertEqual(common.fields('RUN x RESULT a=1 b=2 RESULT_STATS a=3'),
                         {'a': '3', 'b': '2'})

    def test_sizes(self):
        self.assertEqual(common.size_bytes('32M'), 32 << 20)
        self.assertEqual(common.size_bytes('4096'), 4096)
        with self.assertRaises(UsageError):
            common.size_bytes('0M')


class Figure(unittest.TestCase):
    """bench/stats.py figure: a verdict or median from compare.json (what
    bench/verdict_tests.sh and lava/ci read instead of VERDICT lines)."""

    def test_figure(self):
        res = [result('rate', 2.5, 1.0, 'worse', 'pages/s'), result('time_ns', 3e9, 3e9)]
        self.assertEqual(stats_cli.figure_value(res, 'rate', 'verdict'), 'worse')
        self.assertEqual(stats_cli.figure_value(res, 'rate', 'a'), '2.5')
        self.assertEqual(stats_cli.figure_value(res, 'time_ns', 'b'), '3e+09')
        self.assertIsNone(stats_cli.figure_value(res, 'populate_ns', 'verdict'))
        with tempfile.TemporaryDirectory() as d:
            compare_json(os.path.join(d, 'x'), res)
            out = io.StringIO()
            with contextlib.redirect_stdout(out):
                rc = stats_cli.main(['figure', os.path.join(d, 'x', 'compare.json'), 'rate',
                                     'verdict'])
            self.assertEqual((rc, out.getvalue()), (0, 'worse\n'))
            with contextlib.redirect_stderr(io.StringIO()):
                self.assertEqual(stats_cli.main(['figure', os.path.join(d, 'none.json'), 'rate',
                                                 'a']), 2)


class Target(unittest.TestCase):
    def test_target(self):
        self.assertEqual(stats.target(90, 100, 0.9), (0.9, 'met'))
        self.assertEqual(stats.target(89.9, 100, 0.9)[1], 'MISSED')
        self.assertEqual(stats.target(5, 0, 1.0), (math.inf, 'met'))
        self.assertTrue(math.isnan(stats.target(0, 0, 1.0)[0]))


if __name__ == '__main__':
    if sys.argv[1:] == ['--tap']:
        sys.exit(tap(sys.modules[__name__], 'tables'))
    unittest.main()
