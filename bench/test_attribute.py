#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-only
"""Unit tests of bench/attribute on known inputs: delta debugging finds a
planted unit and a header with its user around "cannot test" steps; the
whole search on simulated figures names a planted hunk with the proof
both ways and, on an A/A pair (trees that differ in files that change
nothing), names nothing beyond the promised rate; hunks, functions, the
build's dependency files; bad input refused (exit 2) before any build.
Run: python3 bench/test_attribute.py (--tap: kselftest TAP)"""
import contextlib
import io
import math
import os
import random
import sys
import tempfile
import unittest
from unittest import mock

BENCH = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, BENCH)
from kvmbench.base.tap import tap  # noqa: E402
from kvmbench.vmrun import runner  # noqa: E402
from kvmbench.attribution import attribute, attribute_cli as ac, coupling, ddmin, mail  # noqa: E402
from kvmbench.tracking import trackjudge, trackreport  # noqa: E402
from test_stats import JITTER, profile_runs, write_profiles  # noqa: E402


class DeltaDebugging(unittest.TestCase):
    def test_planted_unit(self):
        units = list(range(16))
        for bad in (0, 5, 15):
            found, log = ddmin.ddmin(units, lambda s: 'bad' if bad in s else 'good',
                                     ddmin.plan(16))
            self.assertEqual(found, [bad])
            self.assertLessEqual(len(log), ddmin.plan(16))

    def test_header_and_user_around_cannot(self):
        # Unit 6 (a user) does not build without 5 (its header); 6 carries the step.
        def test(s):
            if 6 in s and 5 not in s:
                return 'cannot'
            return 'bad' if 6 in s else 'good'
        found, log = ddmin.ddmin(list(range(12)), test, 3 * ddmin.plan(12))
        self.assertEqual(found, [5, 6])
        self.assertIn('cannot', [r for _, r in log])

    def test_two_units_needed(self):
        found, _ = ddmin.ddmin(list(range(8)), lambda s: 'bad' if 1 in s and 6 in s else 'good',
                               100)
        self.assertEqual(found, [1, 6])

    def test_budget_stops_undecided(self):
        with self.assertRaises(ddmin.Undecided):
            ddmin.ddmin(list(range(8)), lambda s: 'cannot', 5)

    def test_plan(self):
        self.assertEqual(ddmin.plan(1), 0)
        self.assertEqual(ddmin.plan(2), 4)
        self.assertEqual(ddmin.plan(5), 8)


C_A = ''.join('line %d\n' % i for i in range(40))


def c_source(changed):
    lines = (['static int first_fn(int x)\n', '{\n'] + ['\tx++;\n'] * 12 + ['}\n', '\n'] +
             ['int second_fn(void)\n', '{\n'] + ['\treturn 0;\n'] * 12 + ['}\n'])
    for i in changed:
        lines[i] = '\tchanged();\n'
    return ''.join(lines).encode()


class Hunks(unittest.TestCase):
    def test_hunks_functions_and_subsets(self):
        a, b = c_source([]), c_source([4, 24])
        d = ac.FileDiff('x.c', a, b)
        self.assertEqual([h['function'] for h in d.hunks], ['first_fn', 'second_fn'])
        self.assertEqual(d.apply({1, 2}), b)
        self.assertEqual(d.apply(set()), a)
        self.assertEqual(d.apply({2}), c_source([24]))
        self.assertEqual(d.apply({1}), c_source([4]))

    def test_changelog_ranked(self):
        d = ac.FileDiff('arch/x86/kvm/mmu/mmu.c', c_source([]), c_source([4]))
        att = {'entries': [('6.12.2', 'mm: shmem: a fix'),
                           ('6.12.2', 'KVM: x86/mmu: Drop a stale check'),
                           ('6.12.3', 'KVM: x86/mmu: Flush in first_fn only when needed'),
                           ('6.12.3', 'KVM: x86: Say what mmu does'),
                           ('6.12.3', 'KVM: fix a race in mmu.c')]}
        got = mail.ranked_entries(att, [('arch/x86/kvm/mmu/mmu.c', 1)],
                                  {'arch/x86/kvm/mmu/mmu.c': d})
        self.assertEqual([(s, e) for s, _, e in got], [
            (3, 'KVM: x86/mmu: Flush in first_fn only when needed'),
            (2, 'KVM: fix a race in mmu.c'), (1, 'KVM: x86/mmu: Drop a stale check'),
            (1, 'KVM: x86: Say what mmu does')])
        d = ac.FileDiff('arch/x86/kvm/svm/svm.c', c_source([]), c_source([4]))
        entry = "[amd64] KVM: SVM: Use the active VMCB's MSR bitmap when checking if MSR is " \
                "intercepted"
        got = mail.ranked_entries({'entries': [('6.12.113', entry), ('6.12.113', 'KVM: VMX: x')]},
                                  [('arch/x86/kvm/svm/svm.c', 1)], {'arch/x86/kvm/svm/svm.c': d})
        self.assertEqual([(s, e) for s, _, e in got], [(1, entry)])

    def test_build_deps(self):
        with tempfile.TemporaryDirectory() as t:
            os.makedirs(os.path.join(t, 'src', 'arch', 'x86', 'kvm'))
            with open(os.path.join(t, 'src', 'arch', 'x86', 'kvm', '.mmu.o.cmd'), 'w') as f:
                f.write('savedcmd_x := gcc\n\nsource_x := %s/src/arch/x86/kvm/mmu.c\n\n'
                        'deps_x := \\\n  %s/src/include/linux/kvm_host.h \\\n'
                        '  $(wildcard include/config/KVM) \\\n\nx: $(deps_x)\n' % (t, t))
            got = ac.build_deps([os.path.join(t, 'src'), os.path.join(t, 'obj')])
        self.assertIn('arch/x86/kvm/mmu.c', got)
        self.assertIn('include/linux/kvm_host.h', got)
        self.assertFalse(any('wildcard' in g for g in got))


def grouped(files):
    """coupling's groups of {path: (A's text or None, B's)}, as FileDiffs
    make them."""
    diffs = {f: ac.FileDiff(f, a and a.encode(), b and b.encode()) for f, (a, b) in files.items()}
    return coupling.groups([diffs[f].coupling_unit(f) for f in sorted(diffs)])


HDR_A = 'struct mmu {\n\tint level;\n\tvoid (*inject_fault)(struct vcpu *v,\n\t\t\t     int code);\n};\n\n' \
    'void kvm_inject_fault(struct vcpu *v,\n\t\t      int code);\n'
HDR_B = HDR_A.replace('int code);', 'int code, bool hw);')


def body(name, lines):
    return 'int %s(struct vcpu *v)\n{\n%s\treturn 0;\n}\n' % (name, ''.join(
        '\t%s\n' % ln for ln in lines))


class Coupling(unittest.TestCase):
    def test_declaration_and_its_users(self):
        # The header's parameters change on continuation lines (the
        # names stand on the line above); x.c calls it; nested.c's
        # changed function is assigned to the pointer on a line that
        # stays; other.c changes only locals and plain words.
        nested_a = 'static void ept_fault(struct vcpu *v,\n\t\tint code)\n{\n}\n\n' + \
            body('setup', ['v->mmu->inject_fault = ept_fault;'])
        files = {
            'kvm_host.h': (HDR_A, HDR_B),
            'x86.c': (body('f', ['kvm_inject_fault(v, 1);']),
                      body('f', ['kvm_inject_fault(v, 1, true);'])),
            'nested.c': (nested_a, nested_a.replace('int code)', 'int code, bool hw)')),
            'other.c': (body('g', ['int ret, irq = 0;']), body('g', ['int ret, irq = 1;'])),
        }
        self.assertEqual(grouped(files), [('kvm_host.h', 'nested.c', 'x86.c'), ('other.c',)])

    def test_pasted_macro_and_new_define(self):
        files = {
            'cpufeatures.h': ('#define X86_FEATURE_TSA_L1_NO (21*32+7)\n',
                              '#define X86_FEATURE_TSA_L1_NO (21*32+7)\n'
                              '#define X86_FEATURE_TSA_FILL_NO (21*32+8)\n'),
            'reverse_cpuid.h': ('\tTRANSLATE(TSA_L1_NO);\n',
                                '\tTRANSLATE(TSA_L1_NO);\n\tTRANSLATE(TSA_FILL_NO);\n'),
            'lbr.c': (body('h', ['x = 1;']), body('h', ['x = 2;'])),
        }
        self.assertEqual(grouped(files), [('cpufeatures.h', 'reverse_cpuid.h'), ('lbr.c',)])

    def test_moved_function_new_file_and_its_kbuild_line(self):
        seg = 'unsigned long get_segment_base(struct vcpu *v, int seg)\n{\n\treturn 0;\n}\n'
        files = {
            'kvm/Makefile': ('kvm-y += x86.o\n', 'kvm-y += x86.o regs.o\n'),
            'kvm/regs.c': (None, seg),
            'kvm/x86.c': (seg + body('f', ['a();']), body('f', ['a();'])),
            'kvm/pmu.c': (body('p', ['a();']), body('p', ['b();'])),
        }
        self.assertEqual(grouped(files), [('kvm/Makefile', 'kvm/regs.c', 'kvm/x86.c'),
                                          ('kvm/pmu.c',)])

    def test_common_and_plain_names_join_nothing(self):
        # A plain word (a member named irq) and a compound name used by
        # more units than coupling.COMMON say nothing.
        files = {'dev.h': ('struct dev {\n\tint irq;\n};\n', 'struct dev {\n\tlong irq;\n};\n')}
        for i in range(coupling.COMMON + 1):
            files['d%d.c' % i] = (body('f%d' % i, ['dev_lock(d);']),
                                  body('f%d' % i, ['dev_lock(d, 1);']))
        files['irq.c'] = (body('i', ['d->irq = 0;']), body('i', ['d->irq = 1;']))
        files['lock.h'] = ('void dev_lock(struct dev *d);\n', 'void dev_lock(const struct dev *d);\n')
        self.assertEqual(len(grouped(files)), len(files))

    def test_struct_member_hunk_names_its_struct(self):
        a = 'static int f(void)\n{\n}\n\nstruct svm_cpu_data {\n\tu32 min_asid;\n\n\tbool x;\n};\n'
        d = ac.FileDiff('svm.h', a.encode(), a.replace('\tbool x;', '\tbool flush;\n\tbool x;').encode())
        self.assertEqual(d.hunks[0]['function'], 'struct:svm_cpu_data')
        self.assertEqual(d.coupling_unit('svm.h').declared, {'flush'})

    def test_hunks_of_one_file(self):
        # A new static helper in one hunk, its caller in another, a
        # third hunk apart.
        a = body('one', ['a();']) + '\n' * 8 + body('two', ['b();']) + '\n' * 8 + \
            body('three', ['c();'])
        b = 'static int new_helper(int x)\n{\n\treturn x;\n}\n' + body('one', ['a();']) + \
            '\n' * 8 + body('two', ['new_helper(2);']) + '\n' * 8 + body('three', ['d();'])
        d = ac.FileDiff('x.c', a.encode(), b.encode())
        self.assertEqual(len(d.hunks), 3)
        got = coupling.groups([d.coupling_unit(('x.c', h['n']), {h['n']}) for h in d.hunks])
        self.assertEqual(got, [(('x.c', 1), ('x.c', 2)), (('x.c', 3),)])


class Simulated(ac.Attribution):
    """The search and its verdicts as bench/attribute runs them, builds
    and boots replaced by figures drawn from lognormal noise: a candidate
    is slower by the product of the effects of the hunks it has from B;
    one that has @needs's file from B without @needs_with's cannot build."""

    def __init__(self, rng, diffs, effects, out, cannot=None, modules=None, profile_moves=None):
        c = ac.Config()
        c.figure, c.threshold, c.test, c.args, c.arch = 'populate_ns', 3.0, 't', [], 'x86_64'
        super().__init__(c)
        self.rng, self.effects, self.cannot = rng, effects, cannot
        # The profiled runs: {function: samples} a run moves where the
        # change is applied (known shares, jittered; test_stats.profile_runs).
        self.profile_moves = profile_moves or {}
        c.profile_phase = ''
        self.diffs = diffs
        self.inputs = sorted(diffs)
        self.hunks_total = sum(len(d.hunks) for d in diffs.values())
        # @modules: the files a build of KVM's modules reads (the stage
        # "modules" first, then whole kernels), or None (whole kernels).
        self.modules = modules
        self.modules_stage, self.kvm_only = modules is not None, False
        self.steps = self.plan()
        self.runs = max(ac.least_runs(looks=self.steps), 6)
        self.out = out
        self.builds, self.shared = [], []
        self.a = self.b = self.out
        self.deb_a = self.deb_b = None
        self.ver_a = self.ver_b = '6.12.1'
        self.kernel, self.kernel_release, self.whole = '6.12', '6.12.1+deb12-amd64', False
        self.unread = []
        c.clock, c.smp, c.mem, c.config = 'icount', '1', '2G', None
        c.env = {'VMRUN_ICOUNT': 'shift=3,sleep=off'}
        self.unit = 'ns'

    def built_files(self, empty, name):
        self.builds.append((self.whole, name))
        return list(self.inputs) if self.whole or self.modules is None else [
            f for f in self.inputs if f in self.modules]

    def scratch_repo(self, files):
        return ''

    def patch_for(self, contents, name):
        return None

    def measure(self, contents, name, profile=False):
        if profile:
            changed = any(contents[f] != d.a for f, d in self.diffs.items())
            order = self.rng.sample(JITTER, len(JITTER))
            self.paths[name] = write_profiles(os.path.join(self.out, 'runs', name), profile_runs(
                self.profile_moves if changed else None, order))
            return [1.0] * len(JITTER)
        self.builds.append((self.whole, name))
        if self.cannot and contents[self.cannot[0]] != self.diffs[self.cannot[0]].a and \
                contents[self.cannot[1]] == self.diffs[self.cannot[1]].a:
            return None
        k = 1.0
        for (f, n), e in self.effects.items():
            if f in contents and n in applied(self.diffs[f], contents[f]):
                k *= e
        vals = [1000 * k * math.exp(self.rng.gauss(0, 0.01)) for _ in range(self.runs)]
        self.measured[name] = vals
        return vals


def applied(d, content):
    """The hunks of FileDiff @d that @content has from B."""
    ns = [h['n'] for h in d.hunks]
    for mask in range(2 ** len(ns)):
        got = {n for i, n in enumerate(ns) if mask >> i & 1}
        if d.apply(got) == content:
            return got
    raise AssertionError('contents not made of hunks')


def diffs_of():
    """Five files; x.c has two hunks (in first_fn and second_fn)."""
    out = {}
    for i in range(4):
        out['f%d.c' % i] = ac.FileDiff('f%d.c' % i, c_source([]), c_source([5]))
    out['x.c'] = ac.FileDiff('x.c', c_source([]), c_source([4, 24]))
    return out


def quiet(fn):
    with contextlib.redirect_stdout(io.StringIO()) as out, \
            contextlib.redirect_stderr(io.StringIO()):
        rc = fn()
    return rc, out.getvalue()


def diffs_outside():
    """diffs_of()'s five files (KVM's) and mm.c, which KVM's modules do
    not read (one hunk, in first_fn)."""
    out = diffs_of()
    out['mm.c'] = ac.FileDiff('mm.c', c_source([]), c_source([6]))
    return out


class Search(unittest.TestCase):
    def setUp(self):
        # Every simulated search's scratch directory, one for the test,
        # removed when it ends.
        t = tempfile.TemporaryDirectory(prefix='attr-test.')
        self.addCleanup(t.cleanup)
        self.tmp = t.name

    def sim(self, seed, diffs, effects, **kw):
        return Simulated(seed if isinstance(seed, random.Random) else random.Random(seed),
                         diffs, effects, self.tmp, **kw)

    def test_planted_hunk_named_with_proof(self):
        s = self.sim(1, diffs_of(), {('x.c', 2): 1.10})
        rc, out = quiet(s.run)
        self.assertEqual(rc, 0, out)
        self.assertEqual(s.named, [('x.c', 2)])
        self.assertRegex(out, r'ATTRIBUTED file=x.c hunk=2 function=second_fn ratio=1.(09|10|11)')
        self.assertEqual(out.count('holds=yes'), 2, out)
        text = mail.report(s, [ac.PROG, '--trees', 'a,b'])
        for want in ('regression of populate_ns', 'Details are as below',
                     'ATTRIBUTED file=x.c hunk=2 function=second_fn', '%change',
                     'A with the change against A: worse', 'To reproduce'):
            self.assertIn(want, text)
        # The profiled pair (A, A with the change) moved nothing: said so.
        self.assertIn("where the instructions went (--profile, tcg clock: A and A with the change, 7 "
                      "and 7 runs apart from those above): no function's share moved beyond the noise "
                      "(of the 6 judged)", text)
        self.assertNotIn('PROFILE function=rare', text)

    def test_where_the_instructions_went(self):
        """The change moves 30 of a run's 1000 samples to svm_vcpu_run:
        the report's evidence names the functions that moved, most first,
        beside the named hunk (bench/compare --profile's table)."""
        s = self.sim(5, diffs_of(), {('x.c', 2): 1.10}, profile_moves={
            'svm_vcpu_run [kvm_amd]': 30, '[guest]': -20, 'vcpu_enter_guest [kvm]': -10})
        rc, out = quiet(s.run)
        self.assertEqual(rc, 0, out)
        self.assertIn('PROFILE function=svm_vcpu_run_[kvm_amd] a=10', out)
        text = mail.report(s, [ac.PROG, '--trees', 'a,b'])
        ev = text[text.index('Evidence'):text.index('Stages:')]
        moved = ev[ev.index('moved beyond the noise'):].splitlines()[1:4]
        self.assertEqual([ln.split()[0] for ln in moved],
                         ['svm_vcpu_run', '[guest]', 'vcpu_enter_guest'])
        self.assertRegex(moved[0], r'svm_vcpu_run \[kvm_amd\] \+3\.0\d \[')
        self.assertIn('verdict=more', ev)
        self.assertEqual(ev.count('[all kernel samples]'), 1, ev)
        self.assertIn('profile          2 builds/measurements', text)

    def test_planted_around_cannot_test(self):
        # x.c from B does not build without f3.c from B (a header and its user).
        s = self.sim(2, diffs_of(), {('x.c', 2): 1.10}, cannot=('x.c', 'f3.c'))
        s.steps += 2 * ddmin.plan(5)
        s.runs = max(ac.least_runs(looks=s.steps), 6)
        rc, out = quiet(s.run)
        self.assertIn(('x.c', 2), s.named)
        self.assertIn('ATTRIBUTED file=x.c hunk=2', out)

    def test_coupled_files_searched_as_one(self):
        # u.c from B calls kvm_inject_fault() with the argument B's
        # header adds: neither builds without the other.  Grouped before
        # the search, no candidate has one without the other, and the
        # plan counts four groups, not five files.
        diffs = diffs_of()
        del diffs['x.c']
        diffs['kvm_host.h'] = ac.FileDiff('kvm_host.h', HDR_A.encode(), HDR_B.encode())
        diffs['u.c'] = ac.FileDiff('u.c', body('f', ['kvm_inject_fault(v, 1);']).encode(),
                                   body('f', ['kvm_inject_fault(v, 1, true);']).encode())
        s = self.sim(4, diffs, {('u.c', 1): 1.10}, cannot=('u.c', 'kvm_host.h'))
        self.assertIn(('kvm_host.h', 'u.c'), s.file_groups())
        self.assertEqual(len(s.file_groups()), 5)
        self.assertEqual(s.steps, 1 + ddmin.plan(5) + ddmin.plan(s.hunks_total) + 4)
        outcomes, measure = [], s.measure

        def counted(contents, name, profile=False):
            outcomes.append(measure(contents, name, profile))
            return outcomes[-1]
        s.measure = counted
        rc, out = quiet(s.run)
        self.assertEqual(rc, 0, out)
        self.assertEqual(sorted(s.named), [('kvm_host.h', 1), ('u.c', 1)])
        self.assertGreater(len(outcomes), 6)
        self.assertNotIn(None, outcomes)
        self.assertEqual(out.count('holds=yes'), 2, out)

    def test_no_step(self):
        s = self.sim(3, diffs_of(), {})
        rc, out = quiet(s.run)
        self.assertEqual(rc, 0)
        self.assertIn('no step to attribute', out)
        self.assertFalse(hasattr(s, 'named'))

    def test_modules_stage_names_the_step_in_modules(self):
        """The step in KVM's modules: named by module builds alone (no
        whole kernel built), with the proof, MODULES's line first."""
        s = self.sim(5, diffs_outside(), {('x.c', 2): 1.10}, modules=set(diffs_of()))
        self.assertEqual(s.steps, 2 * (1 + ddmin.plan(6) + ddmin.plan(7) + 4))
        rc, out = quiet(s.run)
        self.assertEqual(rc, 0, out)
        self.assertEqual(s.named, [('x.c', 2)])
        self.assertRegex(out, r"^MODULES worse ratio=1\.\d+ lo=\S+ hi=\S+ runs=\d+,\d+: "
                         r"the step is in KVM's modules \(5 files\)\n")
        self.assertNotIn('STEP', out)
        self.assertIn('ATTRIBUTED file=x.c hunk=2 function=second_fn', out)
        self.assertEqual(out.count('holds=yes'), 2, out)
        self.assertEqual({w for w, _ in s.builds}, {False}, s.builds)
        self.assertTrue(all(n.startswith('modules-') for _, n in s.builds), s.builds)
        self.assertIn("KVM's modules (A's modules for Debian", mail.report(s, [ac.PROG, '--trees', 'a,b']))

    def diffs_tied(self):
        """diffs_of()'s five files (KVM's), a kernel header outside KVM
        that adds a feature bit, and KVM's reverse_cpuid.h that reads it
        (only whole kernels can build it)."""
        out = diffs_of()
        for f, a, b in (('cpufeatures.h', '#define X86_FEATURE_A_B_NO 1\n',
                         '#define X86_FEATURE_A_B_NO 1\n#define X86_FEATURE_TSA_FILL_NO 2\n'),
                        ('reverse_cpuid.h', '\tTRANSLATE(A_B_NO);\n',
                         '\tTRANSLATE(A_B_NO);\n\tTRANSLATE(TSA_FILL_NO);\n')):
            out[f] = ac.FileDiff(f, a.encode(), b.encode())
        return out

    def test_modules_stage_leaves_out_what_needs_the_kernel(self):
        """KVM's reverse_cpuid.h goes with cpufeatures.h, outside KVM's
        modules: module builds test the other five (the step in x.c is
        named by them alone); the step in it is ruled out of them and
        named, with the header, by whole kernels."""
        kvm = set(diffs_of()) | {'reverse_cpuid.h'}
        s = self.sim(11, self.diffs_tied(), {('x.c', 2): 1.10}, modules=kvm)
        rc, out = quiet(s.run)
        self.assertEqual(rc, 0, out)
        self.assertEqual(s.tied, ['reverse_cpuid.h'])
        self.assertIn("the step is in KVM's modules (5 files)", out)
        self.assertEqual(s.named, [('x.c', 2)])
        self.assertEqual({w for w, _ in s.builds}, {False}, s.builds)
        self.assertIn("Left to whole kernels (KVM's files that only build with files outside "
                      "KVM's modules): reverse_cpuid.h", mail.report(s, [ac.PROG]))
        s = self.sim(12, self.diffs_tied(), {('reverse_cpuid.h', 1): 1.10}, modules=kvm)
        rc, out = quiet(s.run)
        self.assertEqual(rc, 0, out)
        self.assertRegex(out, r"MODULES same .*: the step is outside KVM's modules or in the 1 "
                         r"files of them that need the kernel around them\n")
        self.assertIn('STEP b vs a: worse', out)
        self.assertEqual(s.named, [('cpufeatures.h', 1), ('reverse_cpuid.h', 1)])

    def test_modules_stage_rules_out_then_whole_kernels(self):
        """The step outside KVM's modules (in mm.c, which they do not
        read): one MODULES line saying so, then whole kernels name it."""
        s = self.sim(6, diffs_outside(), {('mm.c', 1): 1.10}, modules=set(diffs_of()))
        rc, out = quiet(s.run)
        self.assertEqual(rc, 0, out)
        lines = out.splitlines()
        self.assertEqual(len([x for x in lines if x.startswith('MODULES')]), 1, out)
        self.assertRegex(lines[0], r"^MODULES same ratio=\S+ lo=\S+ hi=\S+ runs=\d+,\d+: "
                         r"the step is outside KVM's modules$")
        self.assertRegex(lines[1], r'^STEP b vs a: worse ')
        self.assertEqual(s.named, [('mm.c', 1)])
        self.assertIn('ATTRIBUTED file=mm.c hunk=1 function=first_fn', out)
        self.assertEqual(out.count('holds=yes'), 2, out)
        # The module stage measured A and A with B's five files, no more;
        # every build after it a whole kernel.
        mods = [n for w, n in s.builds if not w]
        self.assertEqual(set(mods), {'modules-a', 'modules-b'}, s.builds)
        self.assertTrue(all(w for w, n in s.builds[len(mods):]), s.builds)

    def test_modules_stage_cannot_test_goes_whole(self):
        """A's modules with B's KVM files not built (B's KVM needs B's
        kernel): one MODULES line saying so, then whole kernels."""
        s = self.sim(8, diffs_outside(), {('x.c', 2): 1.10}, modules=set(diffs_of()))
        real = s.measure
        s.measure = lambda contents, name, **kw: None if name == 'modules-b' else real(contents, name, **kw)
        rc, out = quiet(s.run)
        self.assertEqual(rc, 0, out)
        self.assertRegex(out, r"^MODULES cannot test: .*: on to whole kernels\nSTEP b vs a: worse ")
        self.assertEqual(s.named, [('x.c', 2)])

    def test_aa_names_nothing(self):
        """A/A: B differs in five files that change nothing.  Each of the
        search's verdicts is at 5%/steps, so the whole search names a
        hunk with its proof at most 5% of the time; here none of 2000."""
        rng = random.Random(4)
        named = steps = 0
        trials = 2000
        for _ in range(trials):
            s = self.sim(rng, diffs_of(), {})
            rc, out = quiet(s.run)
            steps += 'STEP b vs a: same' not in out
            named += 'ATTRIBUTED' in out and out.count('holds=yes') == 2
        print('A/A: %d of %d searches saw a step, %d named a hunk with its proof' %
              (steps, trials, named), file=sys.stderr)
        self.assertLessEqual(named, 0)
        # The first verdict alone is at 5%/steps (0.24%): a few of 2000 (4
        # here); at 5% (no split over the search) it would be ~100.
        self.assertLessEqual(steps, 4 * trials * 0.05 / s.steps)

    def test_aa_modules_stage_names_nothing(self):
        """A/A through both stages: six files that change nothing, five
        of them KVM's modules'.  No search names a hunk; the module
        stage and the whole kernels each see a step in at most a few of
        1000 (each verdict at 5%/S, S of both stages)."""
        rng = random.Random(7)
        named = seen = 0
        trials = 1000
        for _ in range(trials):
            s = self.sim(rng, diffs_outside(), {}, modules=set(diffs_of()))
            rc, out = quiet(s.run)
            self.assertRegex(out, r"^MODULES (same|worse|better) ")
            seen += "the step is outside KVM's modules" not in out or \
                'STEP b vs a: same' not in out
            named += 'ATTRIBUTED' in out and out.count('holds=yes') == 2
        print('A/A (modules, then whole kernels): %d of %d saw a step, %d named a hunk' %
              (seen, trials, named), file=sys.stderr)
        self.assertEqual(named, 0)
        self.assertLessEqual(seen, 4 * trials * 2 * 0.05 / s.steps)


class ProfileClock(unittest.TestCase):
    def test_host_clock_for_the_profiled_pair(self):
        c = ac.Config()
        c.clock, c.smp, c.env = 'icount', '1', {'VMRUN_ICOUNT': 'shift=3,sleep=off'}
        at = ac.Attribution(c)
        self.assertEqual(at.profile_env(), {'VMRUN_ICOUNT': None})
        c.clock, c.env = 'bochs', {'VMRUN_ICOUNT': None}
        self.assertIs(at.profile_env(), c.env)


class Track(unittest.TestCase):
    def test_command_and_report_beside_the_change(self):
        r = {'verdict': 'worse', 'pct': 1.9, 'a_kernel': '6.12.111+deb12',
             'b_kernel': '6.12.113+deb12'}
        judged = {'streams': [{'arch': 'x86_64', 'command': 'dirty', 'line':
                               'dirty_log_perf_test -b 8M -i 2', 'figures': []}]}
        c = dict(kind='neighbours', arch='x86_64', command='dirty', figure='dirty_ns_avg',
                 unit='ns', r=r)
        cmd = trackjudge.attribute_command(judged, c)
        self.assertEqual(cmd, 'bench/attribute --trees 6.12.111+deb12,6.12.113+deb12 --arch '
                         'x86_64 --figure dirty_ns_avg --threshold 0.95 -- dirty_log_perf_test '
                         '-b 8M -i 2')
        self.assertIsNone(trackjudge.attribute_command(judged, dict(c, r=dict(
            r, a_kernel='k3'))))
        with tempfile.TemporaryDirectory() as t, \
                mock.patch.dict(os.environ, {'XDG_CACHE_HOME': t}):
            self.assertIsNone(trackreport.attribution(c))
            p = attribute.report_path('x86_64', r['a_kernel'], r['b_kernel'], 'dirty_ns_avg')
            os.makedirs(os.path.dirname(p))
            with open(p, 'w') as f:
                f.write('ATTRIBUTED file=x.c\n')
            self.assertEqual(trackreport.attribution(c), 'ATTRIBUTED file=x.c\n')


def kernel_tree(root, readme='x'):
    os.makedirs(os.path.join(root, 'arch', 'x86', 'kvm'))
    with open(os.path.join(root, 'Makefile'), 'w') as f:
        f.write('VERSION = 6\nPATCHLEVEL = 12\nSUBLEVEL = 1\nEXTRAVERSION =\n')
    open(os.path.join(root, 'arch', 'x86', 'Kconfig'), 'w').close()
    with open(os.path.join(root, 'README'), 'w') as f:
        f.write(readme)


class Refusals(unittest.TestCase):
    def run_main(self, argv):
        with contextlib.redirect_stdout(io.StringIO()), \
                contextlib.redirect_stderr(io.StringIO()) as err:
            rc = ac.main(argv)
        return rc, err.getvalue()

    def attribute(self, a, b, *more, figure='populate_ns', test='dirty_log_perf_test'):
        return self.run_main(['--trees', '%s,%s' % (a, b), '--figure', figure,
                              '--threshold', '3'] + list(more) + ['--', test])

    def test_refused(self):
        # The test's --figures (runner.figure_why asks it) as the suite's
        # dirty_log_perf_test would answer, without building the suite.
        with tempfile.TemporaryDirectory() as t, \
                mock.patch.object(runner, 'build', return_value=True), \
                mock.patch.object(runner, 'ensure', return_value=True), \
                mock.patch.object(runner, 'test_figures',
                                  return_value=['populate_ns', 'dirty_ns_avg']):
            a, b, c, d, e = (os.path.join(t, x) for x in 'abcde')
            kernel_tree(a)
            kernel_tree(b)
            kernel_tree(c, 'other')
            kernel_tree(e)
            os.makedirs(d)
            with open(os.path.join(e, 'arch', 'x86', 'kvm', 'x.c'), 'w') as f:
                f.write('int x;\n')
            f_ = os.path.join(t, 'f')
            kernel_tree(f_)
            os.makedirs(os.path.join(f_, 'arch', 'arm64', 'kvm'))
            with open(os.path.join(f_, 'arch', 'arm64', 'kvm', 'x.c'), 'w') as f:
                f.write('int x;\n')
            for args, kw, want in (
                    ((a, b), {}, 'nothing built differs: the trees are identical'),
                    ((a, a), {}, 'nothing built differs: A and B are one tree'),
                    ((a, c), {}, 'nothing built differs: 1 files differ, none a build input for x86_64'),
                    ((a, f_), {}, 'none a build input for x86_64 (arch/arm64/kvm/x.c)'),
                    ((a, d), {}, 'is not a kernel source tree'),
                    ((a, b), {'figure': 'no_such'}, "--figure no_such: dirty_log_perf_test "
                     "has no figure 'no_such'; it reports: populate_ns dirty_ns_avg"),
                    ((a, b), {'test': 'no_such_test'}, "no test 'no_such_test' in this suite"),
                    ((a, e, '--runs', '2'), {}, 'cannot reach a verdict'),
                    ((a, b, '--config', 'large'), {}, "--config large: a base config is 'small'"),
                    ((a, e, '--profile-phase', 'Dirty'), {}, "bad --profile-phase 'Dirty'")):
                rc, err = self.attribute(*args, **kw)
                self.assertEqual(rc, 2, err)
                self.assertIn(want, err)
                self.assertEqual(err.count('\n'), 1, err)

    def test_undecided_names_its_groups(self):
        at = ac.Attribution(ac.Config())
        at.setup = lambda: None

        def out_of_steps():
            raise ddmin.Undecided([('a.c', 'b.h'), ('c.c',)], [1, 2, 3])
        at.run = out_of_steps
        with contextlib.redirect_stderr(io.StringIO()) as err:
            self.assertEqual(ac.finish(at, ac.Config(), []), 1)
        self.assertEqual(err.getvalue(), 'bench/attribute: undecided: the search ran out of its 3 '
                         'planned steps (smallest bad so far, 2 units: a.c+b.h c.c)\n')

    def test_second_run_of_one_search_refused(self):
        # Two runs of one search would share one scratch directory: the
        # second is refused before any build while the first holds it.
        with tempfile.TemporaryDirectory() as t, \
                mock.patch.dict(os.environ, {'XDG_CACHE_HOME': t}), \
                mock.patch.object(runner, 'build', return_value=True), \
                mock.patch.object(runner, 'ensure', return_value=True), \
                mock.patch.object(runner, 'test_figures', return_value=['populate_ns']):
            a, e = os.path.join(t, 'a'), os.path.join(t, 'e')
            kernel_tree(a)
            kernel_tree(e)
            with open(os.path.join(e, 'arch', 'x86', 'kvm', 'x.c'), 'w') as f:
                f.write('int x;\n')
            argv = ['--trees', '%s,%s' % (a, e), '--figure', 'populate_ns', '--threshold', '3',
                    '--config', 'small', '--', 'dirty_log_perf_test']
            with contextlib.redirect_stderr(io.StringIO()):
                first = ac.Attribution(ac.parse(argv))
                first.setup()
                with self.assertRaisesRegex(ac.Usage, 'another run of the same search'):
                    ac.Attribution(ac.parse(argv)).setup()
                first.lock.close()
                again = ac.Attribution(ac.parse(argv))
                again.setup()
                again.lock.close()


if __name__ == '__main__':
    if '--tap' in sys.argv:
        sys.exit(tap(sys.modules[__name__], 'attribute'))
    unittest.main(verbosity=2)
