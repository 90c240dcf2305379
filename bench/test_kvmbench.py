#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-only
"""Unit tests of bench/kvmbench beside the statistics: the run filing
and the VM console protocol (results), the guest shell and the host
backend with fake tests that pass, fail and hang (runner), the option
checks, order and budget of bench/compare and bench/bisect-run, the
tables (render), and bench/compare end to end on fake builds on the host.
Run: python3 bench/test_kvmbench.py (--tap: kselftest TAP, one result a
test)"""
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
sys.path.insert(0, BENCH)
from kvmbench import bisect, compare, perf, render, results, runner, stats_cli  # noqa: E402
from kvmbench import build, cli, cover, debian, kvm_tree, lavajobs, lavasuite  # noqa: E402
from kvmbench import fetch, initramfs, tap as tapmod, vm  # noqa: E402
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


class Build(unittest.TestCase):
    """kvmbench.build: arch names, kernel options, packages, the build."""

    MAKEFILE = ('kselftest_install:\n'
                '\t@test "$(STATIC)" = 1 || { echo not static; exit 1; }\n'
                '\t@test "$(notdir $(O))" != bad || { echo broken build; exit 1; }\n'
                '\tmkdir -p $(O)/kselftest_install && echo $(ARCH) >$(O)/kselftest_install/'
                'kselftest-list.txt\n')

    def test_arches(self):
        self.assertEqual([build.arch_name(a) for a in ('amd64', 'x86_64', 'aarch64', 'arm64')],
                         ['x86_64', 'x86_64', 'arm64', 'arm64'])
        with self.assertRaisesRegex(ValueError, "unknown arch 'riscv64'"):
            build.arch_name('riscv64')
        self.assertEqual([build.arch_dir(a) for a in ('x86_64', 'arm64', 'aarch64')],
                         ['x86_64', 'aarch64', 'aarch64'])
        self.assertEqual(runner.arch_dir, build.arch_dir)
        self.assertEqual(cli.vm_size('aarch64', '2G'), 'arm64')
        with self.assertRaisesRegex(cli.Usage, "unknown arch 'mips'"):
            cli.vm_size('mips', '2G')

    def test_kernel_args(self):
        self.assertEqual(build.kernel_args('6.1'), ['--debian-kernel', '6.1'])
        self.assertEqual(lavajobs.kernel_args('6.1.0-57'), ['--debian-kernel', '6.1.0-57'])
        with tempfile.TemporaryDirectory() as d:
            img = os.path.join(d, 'bzImage')
            open(img, 'w').close()
            self.assertEqual(build.kernel_args(img + ':' + d),
                             ['--kernel', img, '--modules', d])
        with self.assertRaisesRegex(lavajobs.JobSetupError, "kernel 'latest' is neither"):
            lavajobs.kernel_args('latest')
        self.assertTrue(lavajobs.DEBIAN_KERNEL.match('6.12.115+deb12'))
        self.assertFalse(lavajobs.DEBIAN_KERNEL.match('v6.12'))

    def test_deps(self):
        x86 = build.deps(['x86_64'], host='x86_64')
        self.assertIn('linux-source-6.12', x86)
        self.assertNotIn('gcc-aarch64-linux-gnu', x86)
        both = build.deps(['x86_64', 'arm64', 'clang', 'aarch64'], host='x86_64')
        self.assertEqual(both, x86 + build.ARM64_CROSS + build.CLANG)
        self.assertEqual(build.deps(['arm64'], host='arm64'), x86)
        self.assertEqual(build.missing(['dpkg', 'no-such-package-kvmbench']),
                         ['no-such-package-kvmbench'])
        self.assertIsNone(build.install([]))

    def test_tree_path(self):
        with tempfile.TemporaryDirectory() as d:
            self.assertEqual(build.tree_path('arm64', d),
                             os.path.join(d, 'build', 'aarch64', 'kselftest_install'))
            os.makedirs(os.path.join(d, 'build', 'arm64', 'kselftest_install'))
            self.assertEqual(build.tree_path('aarch64', d),
                             os.path.join(d, 'build', 'arm64', 'kselftest_install'))
            self.assertEqual(build.tree_path('x86_64', d),
                             os.path.join(d, 'build', 'x86_64', 'kselftest_install'))

    def fake_src(self, d):
        src = os.path.join(d, 'src')
        os.makedirs(src)
        with open(os.path.join(src, 'Makefile'), 'w') as f:
            f.write(self.MAKEFILE)
        return src

    def test_build_suite(self):
        with tempfile.TemporaryDirectory() as d:
            src = self.fake_src(d)
            out = os.path.join(d, 'build', 'x')
            self.assertTrue(build.build_suite(src, 'amd64', out))
            with open(os.path.join(out, 'kselftest_install', 'kselftest-list.txt')) as f:
                self.assertEqual(f.read(), 'x86_64\n')
            self.assertTrue(os.path.isfile(out + '.build.log'))
            with Quiet() as q:
                ok = build.build_suite(src, 'x86_64', os.path.join(d, 'bad'),
                                       os.path.join(d, 'logs', 'b.log'))
            self.assertFalse(ok)
            self.assertIn('broken build', q.err)
            # The shell callers' wrapper (vm/build-deps.sh) runs the same code.
            sh = '. "$0/vm/build-deps.sh" && build_suite "$@"'
            p = subprocess.run(['bash', '-c', sh, os.path.dirname(BENCH), src, 'aarch64',
                                os.path.join(d, 'sh'), os.path.join(d, 'sh.log')])
            self.assertEqual(p.returncode, 0)
            with open(os.path.join(d, 'sh', 'kselftest_install', 'kselftest-list.txt')) as f:
                self.assertEqual(f.read(), 'arm64\n')

    def test_ensure_tree(self):
        with tempfile.TemporaryDirectory() as d:
            tree = build.tree_path('x86_64', d)
            os.makedirs(tree)
            open(os.path.join(tree, 'kselftest-list.txt'), 'w').close()
            self.assertEqual(build.ensure_tree('x86_64', repo=d), tree)
            with open(os.path.join(d, 'Makefile'), 'w') as f:
                f.write(self.MAKEFILE.replace('$(notdir $(O))" != bad', '$(ARCH)" != arm64'))
            if build.missing(build.deps(['arm64'])):
                self.skipTest("the arm64 build's packages are not installed")
            said = []
            with Quiet():
                with self.assertRaisesRegex(build.BuildError, 'building the suite for arm64 '
                                            'failed'):
                    build.ensure_tree('arm64', repo=d, say=said.append)
            self.assertRegex(said[0], r'^no build/aarch64/kselftest_install: building')


class Tap(unittest.TestCase):
    """kvmbench.tap, the one TAP writer, and its shell entry (vm/py.sh)."""

    def test_lines(self):
        self.assertEqual(tapmod.line(3, 0, 'a'), 'ok 3 a')
        self.assertEqual(tapmod.line(3, 'ok', 'a', '2 s'), 'ok 3 a # 2 s')
        self.assertEqual(tapmod.line(4, 4, 'b', 'no x'), 'ok 4 b # SKIP no x')
        self.assertEqual(tapmod.line(None, 'skip', 'b'), 'ok b # SKIP')
        self.assertEqual(tapmod.line(5, 137, 'c', 'exit 137'), 'not ok 5 c # exit 137')
        self.assertEqual(tapmod.line(6, 'fail', 'd'), 'not ok 6 d')
        with self.assertRaisesRegex(ValueError, "bad TAP status 'maybe'"):
            tapmod.line(1, 'maybe', 'e')

    def test_writer(self):
        out = io.StringIO()
        w = tapmod.Tap(out, start=10)
        self.assertEqual([w.result(s, 'n') for s in ('pass', 1, 'skip', 0)],
                         ['ok', 'fail', 'skip', 'ok'])
        w.plan()
        self.assertEqual(out.getvalue().splitlines()[-2:], ['ok 14 n', '1..14'])
        self.assertEqual((w.failed, w.summary()), (1, '2 passed, 1 failed, 1 skipped'))

    def test_unittest_module(self):
        class T(unittest.TestCase):
            def test_a(self):
                pass

            def test_b(self):
                self.skipTest('why')

            def test_c(self):
                self.fail('boom')
        T.__qualname__, T.__module__ = 'T', 'fake_tests'
        mod = type(sys)('fake_tests')
        mod.T = T
        out = io.StringIO()
        self.assertEqual(tapmod.tap(mod, 'x', out), 1)
        lines = out.getvalue().splitlines()
        self.assertEqual(lines[:5], ['TAP version 13', '1..3', 'ok 1 x: T.test_a',
                                     'ok 2 x: T.test_b # SKIP why', 'not ok 3 x: T.test_c'])
        self.assertIn('# AssertionError: boom', lines)

    def test_shell(self):
        sh = ('. "$0/vm/py.sh"; tap_result 0 a; tap_result skip b "no x"; tap_line 4 c; '
              'tap_result 1 d "exit 1"; tap_plan; echo "failed=$TAP_FAILED"; '
              'kvmbench_py tap 1 maybe e')
        p = subprocess.run(['bash', '-c', sh, os.path.dirname(BENCH)], stdout=subprocess.PIPE,
                           stderr=subprocess.PIPE, text=True)
        self.assertEqual(p.stdout.splitlines(), ['ok 1 a', 'ok 2 b # SKIP no x', 'ok c # SKIP',
                                                 'not ok 3 d # exit 1', '1..3', 'failed=1'])
        self.assertEqual((p.returncode, p.stderr.strip()),
                         (2, "kvmbench.tap: bad TAP status 'maybe' (ok, skip, fail or an exit "
                          "status)"))

    def test_lava_jobs(self):
        out = io.StringIO()
        w = tapmod.Tap(out)
        cases = [{'suite_name': '1_kvm-selftests', 'name': n, 'result': r}
                 for n, r in (('a', 'pass'), ('b', 'skip'), ('c', 'fail'))]
        lavasuite.tap_of_job(w, 7, 'x86_64 6.1', 'Complete', '', cases)
        lavasuite.tap_of_job(w, 8, 'arm64 6.1', 'Incomplete', 'timed out', [])
        lavasuite.tap_of_job(w, 9, 'arm64 6.12', 'Complete', '', [])
        self.assertEqual(out.getvalue().splitlines(), [
            'ok 1 x86_64 6.1: a', 'ok 2 x86_64 6.1: b # SKIP', 'not ok 3 x86_64 6.1: c # fail',
            'not ok 4 arm64 6.1: job 8 Incomplete # timed out',
            'not ok 5 arm64 6.12: job 9 reported no test case'])
        self.assertEqual(w.summary(), '1 passed, 3 failed, 1 skipped')


class VmRun(unittest.TestCase):
    """kvmbench.vm: vm/run's options and checks, without a boot."""

    def parse_err(self, *argv):
        with self.assertRaises(vm.Exit) as c:
            vm.parse(argv, host='x86_64')
        return c.exception.status, c.exception.msg, c.exception.usage

    def test_defaults(self):
        a = vm.parse(['--', './t', '-x'], host='x86_64')
        self.assertEqual((a.arch, a.emu, a.smp, a.mem, a.mem_mib, a.numa, a.timeout, a.accel,
                          a.cmd), ('x86_64', 'qemu', 2, '2G', 2048, 1, 3600, 'auto', ['./t', '-x']))
        a = vm.parse(['--arch=aarch64', '--mem', '1536M', '-v', '--cpu', ''], host='x86_64')
        self.assertEqual((a.arch, a.mem_mib, a.verbose, a.cpu), ('arm64', 1536, True, ''))
        self.assertEqual(vm.parse(['--cpu', 'intel'], host='x86_64').emu, 'bochs')

    def test_usage_errors(self):
        for argv, msg in (
                (['--bogus'], 'unknown option --bogus'),
                (['--bogus=1'], 'unknown option --bogus'),
                (['--smp'], 'option --smp needs a value'),
                (['foo'], "unexpected argument 'foo' (use -- CMD to run a command)"),
                (['--'], '-- needs a command'),
                (['--arch', 'mips'], "unknown arch 'mips' (x86_64 or arm64)"),
                (['--cpu', 'via'], "bad --cpu 'via' (amd or intel)"),
                (['--arch', 'arm64', '--cpu', 'amd'], '--cpu amd is for --arch x86_64 only'),
                (['--smp', '0'], "bad --smp '0'"),
                (['--smp', '2', '--numa', '3'], '--numa 3 needs at least as many CPUs (--smp 2)'),
                (['--hugepages', '-1'], "bad --hugepages '-1'"),
                (['--timeout', '0'], "bad --timeout '0'"),
                (['--mem', '64M'], "bad --mem '64M' (e.g. 2G, 1536M; at least 128M)"),
                (['--mem', '200M', '--numa', '4', '--smp', '4'], '--mem 200M too small for --numa 4'),
                (['--accel', 'hvf'], "bad --accel 'hvf' (auto, kvm or tcg)"),
                (['--cpu', 'intel', '--accel', 'tcg'], '--accel tcg: --cpu intel always runs under Bochs'),
                (['--cpu', 'intel', '--mem', '9G'], '--mem 9G: at most 8G under Bochs (--cpu intel)'),
                (['--modules', '/'], '--modules needs --kernel'),
                (['--debian-kernel', '6.12', '--kernel', '/x'], '--debian-kernel and --kernel exclude each other'),
                (['--debian-kernel', '6.x'], "bad --debian-kernel '6.x' (e.g. 6.12, 6.12.115+deb12, 6.1.0-57)"),
                (['--kernel', '/nonexistent'], "kernel '/nonexistent' not found"),
                (['--kvm-modules', '/nonexistent'], "--kvm-modules dir '/nonexistent' not found"),
                (['--kernel', __file__, '--kvm-modules', '/'], "--kvm-modules needs the kernel's modules")):
            status, got, usage = self.parse_err(*argv)
            self.assertEqual((status, usage), (2, True), argv)
            self.assertTrue(got.startswith(msg), (argv, got))
        self.assertEqual(self.parse_err('--smp', 'x', '-h')[0], 0)
        self.assertEqual(self.parse_err('--bogus', '-h')[:2], (2, 'unknown option --bogus'))

    def test_mem(self):
        self.assertEqual([vm.mem_mib(m) for m in ('2G', '2048', '1536m', '1048576K', '1T', 'G', '')],
                         [2048, 2048, 1536, 1024, 1048576, None, None])

    def test_dir_checks(self):
        with tempfile.TemporaryDirectory() as d:
            a = vm.parse(['--dir', d], host='x86_64')
            with self.assertRaises(vm.Exit) as c:
                vm.check_dir(a)
            self.assertEqual(c.exception.msg, "no kselftest-list.txt in '%s'" % d)
            a = vm.parse(['--dir', d, '--list-first', '--', './t'], host='x86_64')
            open(os.path.join(d, 'kselftest-list.txt'), 'w').close()
            self.assertIsNone(vm.check_dir(a))
            a = vm.parse(['--dir', d, '--export', d, '--', './t'], host='x86_64')
            with self.assertRaisesRegex(vm.Exit, '--export takes no CMD'):
                vm.check_dir(a)
            a = vm.parse(['--dir', d, '--list-first'], host='x86_64')
            with self.assertRaisesRegex(vm.Exit, '--list-first needs -- CMD'):
                vm.check_dir(a)
            # The default tree is found where it is, never rebuilt.
            tree = build.tree_path('x86_64', d)
            os.makedirs(tree)
            self.assertEqual(vm.default_dir(a, repo=d), tree)

    def test_accel(self):
        a = vm.parse(['--arch', 'arm64'], host='x86_64')
        self.assertEqual(vm.choose_accel(a, host='x86_64'), 'tcg')
        a = vm.parse(['--arch', 'arm64', '--accel', 'kvm'], host='x86_64')
        with self.assertRaisesRegex(vm.Exit, 'cannot run an arm64 guest on an x86_64 host'):
            vm.choose_accel(a, host='x86_64')
        self.assertEqual(vm.choose_accel(vm.parse(['--accel', 'tcg'], host='x86_64')), 'tcg')

    def test_run_args(self):
        self.assertEqual(vm.run_args('arm64', '6.12', '/t', ['./x', '-b', '4M'], smp=4,
                                     verbose=True, numa=None)[1:],
                         ['--arch', 'arm64', '--debian-kernel', '6.12', '--dir', '/t', '--smp', '4',
                          '--verbose', '--', './x', '-b', '4M'])

    def test_lava_export_command(self):
        seen = []

        def fake_run(cmd, **kw):
            seen.append(cmd)
            return subprocess.CompletedProcess(cmd, 2, 'vm/run: bad --mem\n')
        with tempfile.TemporaryDirectory() as d:
            real, lavajobs.subprocess.run = lavajobs.subprocess.run, fake_run
            try:
                with self.assertRaisesRegex(lavajobs.JobSetupError, r"failed: \['vm/run: bad"):
                    lavajobs.export_boot('arm64', '6.12', fake_tree(os.path.join(d, 't'), 1),
                                         os.path.join(d, 'out'), hugepages=4, mem='1G')
            finally:
                lavajobs.subprocess.run = real
            self.assertFalse(os.path.exists(os.path.join(d, 'out.tests')))
        self.assertEqual(seen[0][1:], ['--arch', 'arm64', '--dir', os.path.join(d, 'out.tests'),
                                       '--export', os.path.join(d, 'out'), '--hugepages', '4',
                                       '--mem', '1G', '--accel', 'tcg', '--debian-kernel', '6.12'])

    def test_entry(self):
        run = os.path.join(os.path.dirname(BENCH), 'vm', 'run')
        p = subprocess.run([run, '--smp', 'x'], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                           text=True)
        self.assertEqual(p.returncode, 2)
        self.assertEqual(p.stderr.splitlines()[:2], [
            "vm/run: bad --smp 'x'", 'usage: vm/run [--arch x86_64|arm64] [--cpu amd|intel] '
            '[--dir DIR] [--debian-kernel VERSION]'])
        p = subprocess.run([run, '--help'], stdout=subprocess.PIPE, text=True)
        self.assertEqual((p.returncode, p.stdout), (0, vm.USAGE))
        self.assertIs(runner.check_cpu, vm.check_cpu)


class Fetch(unittest.TestCase):
    """kvmbench.fetch: kernel versions, the cache, kernel images (no download)."""

    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        self.old = os.environ.get('XDG_CACHE_HOME')
        os.environ['XDG_CACHE_HOME'] = self.tmp.name
        self.cache = os.path.join(self.tmp.name, 'kvm-selftests')

    def tearDown(self):
        if self.old is None:
            os.environ.pop('XDG_CACHE_HOME')
        else:
            os.environ['XDG_CACHE_HOME'] = self.old
        self.tmp.cleanup()

    def pkg(self, name, image=b'\x7fELF', modules='6.1.0-10-amd64'):
        d = os.path.join(self.cache, name)
        os.makedirs(os.path.join(d, 'boot'))
        os.makedirs(os.path.join(d, 'lib', 'modules', modules))
        with open(os.path.join(d, 'boot', 'vmlinuz-' + modules), 'wb') as f:
            f.write(image)
        open(os.path.join(d, '.complete'), 'w').close()
        return d

    def test_versions(self):
        names = ['linux-image-6.1.0-9-amd64', 'linux-image-6.1.0-10-amd64',
                 'linux-image-6.12.9+deb12-amd64', 'linux-image-6.12.10+deb12-amd64',
                 'linux-image-6.12.10+deb12-cloud-amd64', 'linux-image-amd64',
                 'linux-image-6.1.0-10-arm64']
        v = fetch.debian_kernel_versions('amd64', names)
        self.assertEqual(v, ['6.1.0-9', '6.1.0-10', '6.12.9+deb12', '6.12.10+deb12'])
        self.assertEqual(fetch.pick_version('6.12', v, 'amd64'), '6.12.10+deb12')
        self.assertEqual(fetch.pick_version('6.1', v, 'amd64'), '6.1.0-10')
        self.assertEqual(fetch.pick_version('6.1.0-9', v, 'amd64'), '6.1.0-9')
        with self.assertRaises(fetch.FetchError) as c:
            fetch.pick_version('6.99', v, 'amd64')
        self.assertEqual((c.exception.status, str(c.exception)),
                         (2, "no Debian kernel '6.99' for amd64; there are: 6.1.0-9 6.1.0-10 "
                          "6.12.9+deb12 6.12.10+deb12"))
        with self.assertRaisesRegex(fetch.FetchError, r'there are: none \(apt-get update\?\)'):
            fetch.pick_version('6.1', [], 'arm64')

    def test_cache(self):
        self.pkg('linux-image-6.1.0-9-amd64', modules='6.1.0-9-amd64')
        newest = self.pkg('linux-image-6.1.0-10-amd64')
        os.makedirs(os.path.join(self.cache, 'linux-image-6.1.0-11-amd64'))  # unfinished
        self.assertEqual(fetch.stock_kernel_dir('x86_64'), newest)
        self.assertEqual(fetch.fetch_deb('anything', newest), newest)   # cached: no apt
        self.assertEqual(fetch.kernel_in(newest),
                         (os.path.join(newest, 'boot', 'vmlinuz-6.1.0-10-amd64'),
                          os.path.join(newest, 'lib', 'modules', '6.1.0-10-amd64')))
        with self.assertRaisesRegex(fetch.FetchError, 'no vmlinuz in'):
            fetch.kernel_in(self.tmp.name)

    def write(self, name, data):
        path = os.path.join(self.tmp.name, name)
        with open(path, 'wb') as f:
            f.write(data)
        return path

    def test_images(self):
        bz = self.write('bz', b'\0' * 0x202 + b'HdrS' + b'\0' * 64)
        arm = self.write('Image', b'\0' * 0x38 + b'ARMd' + b'\0' * 8)
        elf = self.write('vmlinux', b'\x7fELF' + b'\0' * 60)
        gz = self.write('Image.gz', b'\x1f\x8b' + b'\0' * 60)
        txt = self.write('text', b'hello, world\n' * 100)
        self.assertEqual([fetch.is_kernel_image('x86_64', f) for f in (bz, arm, elf, gz, txt)],
                         [True, False, True, False, False])
        self.assertEqual([fetch.is_kernel_image('arm64', f) for f in (bz, arm, elf, gz, txt)],
                         [False, True, True, True, False])
        self.assertFalse(fetch.is_kernel_image('arm64', '/nonexistent'))
        a = vm.parse(['--cpu', 'intel', '--kernel', elf], host='x86_64')
        with self.assertRaisesRegex(vm.Exit, 'is not a bzImage'):
            vm.choose_kernel(a)
        a = vm.parse(['--kernel', txt], host='x86_64')
        with self.assertRaisesRegex(vm.Exit, 'is not a bootable x86_64 kernel image') as c:
            vm.choose_kernel(a)
        self.assertEqual(c.exception.status, 3)
        a = vm.parse(['--kernel', elf, '--modules', self.tmp.name], host='x86_64')
        self.assertEqual(vm.choose_kernel(a), (elf, self.tmp.name))

    def test_pvh(self):
        import lzma
        payload = b'\x7fELF' + bytes(range(256)) * 40
        d = os.path.join(self.tmp.name, 'boot')
        os.makedirs(d)
        bz = os.path.join(d, 'vmlinuz-6.1')
        with open(bz, 'wb') as f:
            f.write(b'\0' * 0x202 + b'HdrS' + b'\0' * 500 + lzma.compress(payload) + b'\0' * 64)
        self.assertEqual(fetch.pvh_vmlinux(bz), bz)      # no CONFIG_PVH=y: the bzImage
        with open(os.path.join(d, 'config-6.1'), 'w') as f:
            f.write('CONFIG_X=y\nCONFIG_PVH=y\n')
        out = fetch.pvh_vmlinux(bz)
        self.assertEqual(out, os.path.join(d, 'vmlinux-pvh'))
        with open(out, 'rb') as f:
            self.assertEqual(f.read(), payload)
        # The shell's name for it (vm/fetch.sh) runs the same code.
        sh = ('. "$0/vm/build-deps.sh"; . "$0/vm/fetch.sh"; info() { echo "t: $*" >&2; }; '
              'pvh_vmlinux "$1"; debian_kernel_dir 6.x x86_64')
        os.remove(out)
        p = subprocess.run(['bash', '-c', sh, os.path.dirname(BENCH), bz],
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        self.assertEqual((p.returncode, p.stdout), (2, out + '\n'))
        self.assertRegex(p.stderr, "^t: no Debian kernel '6.x' for amd64")


class Initramfs(unittest.TestCase):
    """kvmbench.initramfs: modules, their order and release, the guest's conf."""

    def ko(self, d, name, depends='', release='6.1.0-10-amd64', xz=False):
        import lzma
        data = (b'\x7fELF junk\0license=GPL\0depends=%s\0vermagic=%s SMP mod_unload\0' %
                (depends.encode(), release.encode()))
        os.makedirs(d, exist_ok=True)
        path = os.path.join(d, name + ('.ko.xz' if xz else '.ko'))
        with open(path, 'wb') as f:
            f.write(lzma.compress(data) if xz else data)
        return path

    def test_modules(self):
        with tempfile.TemporaryDirectory() as d:
            tree = os.path.join(d, 'lib', 'modules', '6.1.0-10-amd64')
            self.ko(os.path.join(tree, 'virt'), 'irqbypass')
            self.ko(os.path.join(tree, 'kvm'), 'kvm', 'irqbypass', xz=True)
            self.ko(os.path.join(tree, 'kvm'), 'kvm-amd', 'kvm,ccp')
            self.ko(os.path.join(tree, 'crypto'), 'ccp')
            self.ko(os.path.join(tree, 'kvm'), 'kvm-intel', 'kvm,missing_one')
            mine = os.path.join(d, 'mine')
            self.ko(mine, 'kvm', 'irqbypass')
            root = os.path.join(d, 'root')
            with Quiet() as q:
                initramfs.install_kvm_modules(tree, root, 'x86_64', mine)
            self.assertIn('warning: dependency missing_one of kvm_intel not found', q.err)
            with open(os.path.join(root, 'etc', 'vmrun', 'mods.amd')) as f:
                self.assertEqual(f.read(), 'irqbypass\nkvm\nccp\nkvm_amd\n')
            with open(os.path.join(root, 'etc', 'vmrun', 'mods.intel')) as f:
                self.assertEqual(f.read(), 'irqbypass\nkvm\nkvm_intel nested=1\n')
            self.assertEqual(sorted(os.listdir(os.path.join(root, 'lib', 'modules'))),
                             ['ccp.ko', 'irqbypass.ko', 'kvm.ko', 'kvm_amd.ko', 'kvm_intel.ko'])
            # --kvm-modules: mine's kvm.ko (plain) replaced the tree's (xz).
            with open(os.path.join(root, 'lib', 'modules', 'kvm.ko'), 'rb') as f:
                self.assertTrue(f.read().startswith(b'\x7fELF'))
            self.assertEqual(initramfs.check_kvm_modules(mine, '6.1.0-10-amd64'), '')
            with self.assertRaisesRegex(fetch.FetchError, 'kvm.ko is for 6.1.0-10-amd64, the '
                                        'kernel to boot is 6.12'):
                initramfs.check_kvm_modules(mine, '6.12')
            with self.assertRaisesRegex(fetch.FetchError, 'no modules and no kernel'):
                initramfs.check_kvm_modules(os.path.join(d, 'root', 'etc'), '6.12')
            boot = os.path.join(d, 'arm', 'boot')
            os.makedirs(boot)
            open(os.path.join(boot, 'Image-6.12.1-arm64'), 'w').close()
            self.assertEqual(initramfs.check_kvm_modules(os.path.dirname(boot), '6.12.1-arm64'),
                             os.path.join(boot, 'Image-6.12.1-arm64'))
            with self.assertRaisesRegex(fetch.FetchError, 'its kernel is 6.12.1-arm64'):
                initramfs.check_kvm_modules(os.path.dirname(boot), '6.12.2-arm64')
            # arm64's KVM is built in: no list.
            root2 = os.path.join(d, 'root2')
            initramfs.install_kvm_modules(os.path.join(d, 'arm'), root2, 'arm64')
            self.assertEqual(os.listdir(os.path.join(root2, 'etc', 'vmrun')), [])

    def test_conf(self):
        cmd = ['sh', '-c', "echo 'a b' \"$0\""]
        text = initramfs.conf(cmd, False, '', 4)
        self.assertTrue(text.startswith('MODE=cmd\nHUGEPAGES=4\nCMD='))
        p = subprocess.run(['sh', '-c', '. "$0"; eval "set -- $CMD"; "$@"', '/dev/stdin'],
                           input=text, stdout=subprocess.PIPE, text=True)
        self.assertEqual(p.stdout, 'a b sh\n')
        self.assertEqual([initramfs.conf(c, lf, ex, 0).split('\n')[0] for c, lf, ex in (
            ([], False, ''), (['x'], True, ''), ([], False, '/out'))],
            ['MODE=tests', 'MODE=both', 'MODE=lava'])

    def test_tools(self):
        missing = initramfs.host_tools_missing('bochs', 'x86_64')
        for check, pkg in initramfs.TOOLS[('bochs', 'x86_64')]:
            there = os.path.exists(check) if check.startswith('/') else shutil.which(check)
            self.assertEqual(pkg in missing, not there, check)


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
                (['--options', 'a'], 'argument --options: expected 2 arguments (-h for help)'),
                (['--options', 'a', 'b'], 'no test command after --'),
                (['--options', 'a', 'b', '--', 'T!'], "bad test name 'T!'"),
                (['--bogus'], "unknown option '--bogus' (-h for help)"),
                (['--runs'], 'argument --runs: expected one argument (-h for help)'),
                (['--options', 'a', 'b', '--options', 'c', 'd', '--', 't'],
                 'give one of --kernels, --builds, --options, --patch, --kvm-src'),
                (['--options', 'a', 'b', 'stray', '--', 't'], "unknown option 'stray' (-h for help)"),
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
        # Values as given, even those that start with '-'.
        c = compare.parse(['--options', '', '-n', '--figures', '-', '--', 't', '-h'])
        self.assertEqual((c.opts, c.spec_b, c.figures, c.args), ({'a': [], 'b': ['-n']}, '-n',
                                                                 '-', ['-h']))

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
        with self.assertRaises(bisect.Usage) as e:
            bisect.parse(['--baseline', '6.1', '--kvm-modules', 'x'] + base)
        self.assertEqual(str(e.exception), "unknown option 'x' (-h for help)")
        c = bisect.parse(['--kvm-modules', '--baseline', '6.1', '--smp', '2', '--clock', 'tcg']
                         + base)
        self.assertEqual((c.kvm_modules, c.kvm_kernel, c.smp, c.clock), (True, '6.12', '2', 'tcg'))
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
                          (['--bogus'], "unknown option '--bogus' (-h for help)"),
                          (['--arch', 'x86_64', '--', 't'], "unknown option '--' (-h for help)"),
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
        with tempfile.TemporaryDirectory() as d:
            p = self.run_compare(d, 1000, '--runs', '3')
            self.assertEqual(p.returncode, 1)
            self.assertIn('too few runs for a verdict: 3 of A and 3 of B', p.stderr)
            self.assertNotIn('VERDICT', p.stdout)


if __name__ == '__main__':
    if sys.argv[1:] == ['--tap']:
        sys.exit(tap(sys.modules[__name__], 'kvmbench'))
    unittest.main(verbosity=2)
