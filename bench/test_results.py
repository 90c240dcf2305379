#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-only
"""Unit tests of kvmbench.verdicts.results and kvmbench.vmrun.runner: the run filing
and the VM console protocol (results), the guest shell and the host
backend with fake tests that pass, fail and hang (runner).
Run: python3 bench/test_results.py (--tap: kselftest TAP, one result a test)"""
import io
import json
import os
import subprocess
import sys
import tempfile
import unittest
import warnings

BENCH = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, BENCH)
from kvmbench.base.tap import tap  # noqa: E402
from kvmbench.verdicts import results  # noqa: E402
from kvmbench.vmrun import runner  # noqa: E402
from testkit import fake_tree  # noqa: E402


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
    def test_debian_module_import_warnings_not_shown(self):
        # A library whose import warns (Debian's matplotlib under a newer
        # pyparsing): loaded, and no warning reaches the user (turned into
        # errors here, so one would fail the import).
        with tempfile.TemporaryDirectory() as d:
            with open(os.path.join(d, 'warns_at_import.py'), 'w') as f:
                f.write('import warnings\nwarnings.warn("deprecated", DeprecationWarning)\n'
                        'warnings.warn("old", UserWarning)\nVALUE = 1\n')
            sys.path.insert(0, d)
            try:
                with warnings.catch_warnings():
                    warnings.simplefilter('error')
                    mod = runner.debian_module('warns_at_import')
            finally:
                sys.path.remove(d)
                sys.modules.pop('warns_at_import', None)
        self.assertEqual(mod.VALUE, 1)
        self.assertIsNone(runner.debian_module('no_such_module_here'))

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


if __name__ == '__main__':
    if sys.argv[1:] == ['--tap']:
        sys.exit(tap(sys.modules[__name__], 'results'))
    unittest.main(verbosity=2)
