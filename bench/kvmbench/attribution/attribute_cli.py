# SPDX-License-Identifier: GPL-2.0-only
"""kvmbench.attribution.attribute_cli: bench/attribute, from a step between two
kernel trees to the hunk that carries it (docs/attribute.md).

The files that differ between trees A and B and that a build of A
compiles or includes (its kbuild .cmd dependency files say which) are
the units; every candidate is A with a subset of B's changes (its
files' contents written as a patch vm/kvm-build applies to a private
copy: neither tree is written), built (first KVM's modules for A's
Debian kernel where A is at its version, the units those the module
build reads; the step not there, whole kernels), booted and measured, and judged against A's runs by
bench/bisect-run's verdict (stats.judge); kvmbench.attribution.ddmin searches the
files, then the hunks of the files it names, the same way.
"""
import difflib
import fcntl
import hashlib
import json
import os
import re
import shutil
import subprocess
import sys
import time

from kvmbench.base.errors import Fail, UsageError
from kvmbench.verdicts.render import print_profile
from kvmbench.verdicts.results import load_profiles
from kvmbench.verdicts.stats import (FAMILY_LEVEL, TooFewRuns, compare_profiles, judge, least_runs,
                                     profile_runs, runs_refusal)
from kvmbench.kernels import debian
from kvmbench.vmrun import cli, runner
from kvmbench.vmrun.cli import Parser, Usage, test_command
from kvmbench.kbuild import kvm_build, kvm_config, kvm_tree
from . import attribute, coupling, ddmin, mail
from .bisect import Bisect, CannotTest, measure_side, vm_checks

PROG = 'bench/attribute'
HELP = r"""
bench/attribute: the hunk of a source change that carries a step between two kernels.

usage: bench/attribute --trees A,B --figure NAME --threshold PCT [--runs N]
                       [--config small|debian[:VERSION]] [--arch ARCH] [--cpu amd|intel]
                       [--clock icount|tcg] [--mem SIZE] [--debian-kernel V]
                       [--profile-phase P] [--report FILE] -- TEST ARGS...

  --trees A,B        two kernel source trees (only read), or Debian kernel versions
                     (6.12.111+deb12: Debian's linux-source at that version)
  --figure NAME      the figure of the step (one the test's --figures declares)
  --threshold PCT    a step is B differing from A beyond the noise and by more than PCT%
  --runs N           measured runs a candidate (default: the fewest that reach a verdict
                     at 95% over every verdict the search may make, at least 6)
  --config C         whole kernels with the small config (small) or Debian's
                     (debian[:VERSION]); default: where A is at the Debian kernel's
                     version, KVM's modules for it first (A's, and A with B's versions
                     of the files their build reads: "MODULES ..."), then, the step not
                     there and not every differing file KVM's, whole kernels (small)
  --debian-kernel V  the Debian kernel the modules are for (default: A's series, e.g. 6.12)
  --arch, --cpu, --clock, --mem   the VM, as bench/bisect-run's
  --report FILE      write the report (a regression mail) there too
  --profile-phase P  the profiled pair (below) compares the test's phase P only
                     (dirty_log_perf_test: populate, enable, dirty, get, clear, disable)

Files (then hunks) that only build together are searched as one group:
a declaration changed and the changes that use it, a new file and the
kbuild line that builds it (the groups are listed on stderr).

Prints the first verdict (MODULES ...: the step in KVM's modules or outside
them; STEP b vs a: ... for whole kernels), then one line a hunk of the
smallest change that carries the step,
  ATTRIBUTED file=PATH hunk=N function=NAME ratio=R lo=L hi=H
(R: A with the change against A, [L, H] its interval), then the proof
both ways, a verdict with its interval each:
  PROOF a+change vs a: ...  holds=yes|no
  PROOF b-change vs b: ...  holds=yes|no
and where the instructions went: A and A with the change, run again with the
test's --profile (on the host's clock where the verdicts' is icount), and the
kernel functions whose share of the samples moved (bench/compare --profile's
table and PROFILE lines; in the report's evidence).

Exit status: 0 attributed with the proof holding both ways, or "no step to
attribute" (A and B measured once, the figure not beyond the threshold);
1 a build of A or B failed (its first error), the search ran out of its
planned steps, or the proof does not hold; 2 bad input, before any build
(identical trees or "nothing built differs", not a kernel tree, no KVM
for the arch, an unknown figure or test, too few --runs); 6 host set-up
failed; 128 + the signal interrupted (SIGINT 130, SIGTERM 143: builds and
VMs ended, one line).
"""
# Names kbuild reads; anything else that differs is left out unbuilt.
BUILD_INPUT = re.compile(r'(\.(c|h|S|lds|rs)|/(Makefile|Kbuild|Kconfig)[^/]*)$')


def info(msg):
    print('%s: %s' % (PROG, msg), file=sys.stderr, flush=True)


# ---- the trees and their difference ---------------------------------------

def differing(a, b):
    """The files (relative paths) that differ between trees @a and @b or
    are in one only; .git left out."""
    out = []
    names = set()
    for root in (a, b):
        for d, dirs, files in os.walk(root):
            dirs[:] = [x for x in dirs if x != '.git']
            rel = os.path.relpath(d, root)
            names |= {f if rel == '.' else rel + '/' + f for f in files}
    for n in sorted(names):
        fa, fb = os.path.join(a, n), os.path.join(b, n)
        if not (os.path.isfile(fa) and os.path.isfile(fb)):
            out.append(n)
        elif os.path.realpath(fa) == os.path.realpath(fb):
            continue
        elif os.path.getsize(fa) != os.path.getsize(fb) or read(fa) != read(fb):
            out.append(n)
    return out


def read(path):
    try:
        with open(path, 'rb') as f:
            return f.read()
    except (FileNotFoundError, IsADirectoryError):
        return None


def build_deps(dirs, compiled=None):
    """The files the build read, relative to its tree: every path in the
    kbuild .cmd files (source_ and deps_ lines) under @dirs, whose
    leading build directory (the shadow, OBJ, the tree) is cut off.  The
    directories of the sources it compiled are added to the set
    @compiled when given."""
    roots = [os.path.realpath(d) + '/' for d in dirs]
    got = set()
    for top in dirs:
        for d, _, files in os.walk(top):
            for f in files:
                if not (f.startswith('.') and f.endswith('.cmd')):
                    continue
                try:
                    with open(os.path.join(d, f), errors='replace') as fh:
                        text = fh.read()
                except OSError:
                    continue
                for m in re.finditer(r'^(?:source_\S+|deps_\S+)\s*:=(.*?)(?=^\S|\Z)', text,
                                     re.M | re.S):
                    for w in m.group(1).split():
                        if w == '\\' or w.startswith('$('):
                            continue
                        w = os.path.normpath(w)
                        for r in roots:
                            if w.startswith(r):
                                w = w[len(r):]
                                break
                        w = re.sub(r'^(\.\./)?src/', '', w)
                        got.add(w)
                        if compiled is not None and m.group(0).startswith('source_'):
                            compiled.add(os.path.dirname(w))
    return got


# ---- hunks ------------------------------------------------------------------

FUNC = re.compile(r'^[A-Za-z_][^;{]*?\b([A-Za-z_][A-Za-z0-9_]*)\s*\(')


def lines_of(data):
    return (data or b'').decode('latin-1').splitlines(keepends=True)


class FileDiff:
    """One file's change from A to B as hunks (those of a unified diff
    with 3 lines of context); apply() builds A with any subset of them."""

    def __init__(self, path, a, b):
        self.path, self.a, self.b = path, a, b
        al, bl = lines_of(a), lines_of(b)
        self.al, self.bl = al, bl
        self.texts = coupling.Text(al), coupling.Text(bl)
        sm = difflib.SequenceMatcher(None, al, bl, autojunk=False)
        self.ops, self.hunks = [], []
        for g, group in enumerate(sm.get_grouped_opcodes(3)):
            i1, i2, j1, j2 = group[0][1], group[-1][2], group[0][3], group[-1][4]
            first = next(op[1] for op in group if op[0] != 'equal')
            block = self.texts[0].block[first] if first < len(al) else None
            self.hunks.append({'n': g + 1, 'header': '@@ -%d,%d +%d,%d @@' % (
                i1 + 1, i2 - i1, j1 + 1, j2 - j1),
                'function': '%s:%s' % block if block and block[1] else function_at(al, first),
                'lines': sum(max(op[2] - op[1], op[4] - op[3]) for op in group
                             if op[0] != 'equal')})
            self.ops += [(g + 1,) + tuple(op[1:]) for op in group if op[0] != 'equal']

    def coupling_unit(self, key, hunks=None):
        """coupling.Unit @key of the hunks numbered in @hunks (all when
        None): the names their changes declare and use on either side."""
        ops = [op for op in self.ops if hunks is None or op[0] in hunks]
        ia = [i for _, i1, i2, _, _ in ops for i in range(i1, i2)]
        ib = [j for _, _, _, j1, j2 in ops for j in range(j1, j2)]
        (da, ua), (db, ub) = coupling.names(self.texts[0], ia), coupling.names(self.texts[1], ib)
        ua |= coupling.context(self.texts[0], da | db)
        ub |= coupling.context(self.texts[1], da | db)
        builds = coupling.kbuild_objects(self.path, [self.al[i] for i in ia] +
                                         [self.bl[j] for j in ib]) \
            if coupling.is_kbuild(self.path) else ()
        return coupling.Unit(key, da | db, ua | ub, self.path,
                             alone=self.a is None or self.b is None, builds=builds)

    def apply(self, chosen):
        """A's contents with the hunks numbered in @chosen from B (bytes;
        B's own when all are chosen, None for a file B deletes)."""
        if len(chosen) == len(self.hunks):
            return self.b
        if not chosen:
            return self.a
        out, pos = [], 0
        for n, i1, i2, j1, j2 in self.ops:
            out += self.al[pos:i1]
            out += self.bl[j1:j2] if n in chosen else self.al[i1:i2]
            pos = i2
        out += self.al[pos:]
        return ''.join(out).encode('latin-1')


def function_at(lines, i):
    """The function a change at line @i (0-based) sits in: the name of
    the nearest definition above it (a line at column 0 with a '('), or
    '-'."""
    for k in range(min(i, len(lines)) - 1, -1, -1):
        m = FUNC.match(lines[k])
        if m and not lines[k].rstrip().endswith(';'):
            return m.group(1)
    return '-'


def label(group):
    """A group of files or of hunks ((file, n)) as one word."""
    return '+'.join(m if isinstance(m, str) else '%s#%d' % m for m in group)


# ---- the command line ---------------------------------------------------------

VALUED = ('--trees', '--figure', '--arch', '--report', '--cpu', '--clock', '--mem',
          '--debian-kernel')


class Config:
    pass


def test_checks(c):
    """The test's own checks of its options and of --figure (its
    --figures, runner.figure_why, as bench/compare, bench/bisect-run and
    bench/track ask it), on this host before any kernel build: Usage.
    Nothing is refused where the suite does not build here or is for
    another arch (each candidate finds out then: cannot test)."""
    Bisect(c, None).test_checks()


def resolve_tree(spec, arch):
    """(the tree's directory, its Debian kernel version or None)."""
    if os.path.isdir(spec):
        return os.path.realpath(spec), None
    if debian.is_spec(spec) and not spec.startswith(('/', '.')):
        return debian.debian_source(debian.Kernel(spec, arch)), spec
    raise Usage("--trees: '%s' is neither a directory nor a Debian kernel version" % spec)


def check_tree(tree, arch):
    """Refuse a tree that is not a kernel tree, or has no KVM for @arch."""
    ver = debian.tree_version(tree)
    src = kvm_tree.SRCARCH[arch]
    if not os.path.isfile(os.path.join(tree, 'arch', src, 'Kconfig')):
        raise Usage("'%s' is not a kernel source tree for %s (no arch/%s/Kconfig)" %
                    (tree, arch, src))
    if not os.path.isdir(os.path.join(tree, 'arch', src, 'kvm')):
        raise Usage("'%s' (Linux %s) has no arch/%s/kvm: no KVM for %s" % (tree, ver, src, arch))
    return ver


def parse(argv):
    """A Config (the trees not yet resolved); None for --help."""
    p = Parser(prog=PROG, add_help=False, command=True)
    for o in VALUED:
        p.add_argument(o)
    p.add_argument('--threshold', type=cli.number(
        float, "--threshold must be a percentage, e.g. 3: '{0}'", least=0))
    p.add_argument('--runs', type=cli.positive("--runs must be a number: '{0}'"))
    p.add_argument('--smp', type=cli.positive("bad --smp '{0}'"))
    p.add_argument('--config', type=kvm_config.base_config)     # small, debian[:VERSION]
    p.add_argument('--profile-phase', type=cli.profile_phase, default='')
    c = p.parse_options(argv)
    if c is None:
        return None
    c.test, c.args = test_command(c.command)
    if not c.trees or c.trees.count(',') != 1 or not all(c.trees.split(',')):
        raise Usage('--trees A,B: two trees (or Debian kernel versions)')
    if not c.figure:
        raise Usage('--figure is required (e.g. populate_ns, dirty_ns_avg)')
    if c.threshold is None:
        raise Usage("--threshold must be a percentage, e.g. 3: 'None'")
    c.arch = {'aarch64': 'arm64'}.get(c.arch, c.arch) or runner.host_arch()
    if c.arch not in kvm_tree.SRCARCH:
        raise Usage("unknown --arch '%s' (x86_64, arm64)" % c.arch)
    c.mem = c.mem or '2G'
    vm_checks(c)
    test_checks(c)
    return c


# ---- the search -----------------------------------------------------------------

class Attribution:
    """One run of bench/attribute: the trees, their difference, the
    builds and the measurements (each a candidate: {path: contents})."""

    def __init__(self, c):
        self.c = c
        self.t0 = time.monotonic()
        self.stages = []
        self.measured = {}
        self.paths = {}

    def setup(self):
        """Everything before the first build: UsageError on bad input."""
        c = self.c
        specs = c.trees.split(',')
        (self.a, self.deb_a), (self.b, self.deb_b) = [resolve_tree(s, c.arch) for s in specs]
        self.ver_a, self.ver_b = check_tree(self.a, c.arch), check_tree(self.b, c.arch)
        if self.a == self.b:
            raise Usage('nothing built differs: A and B are one tree (%s)' % self.a)
        key = hashlib.sha256('\0'.join([self.a, self.b, c.arch, c.figure, c.config or '',
                                        ' '.join([c.test] + c.args)]).encode()).hexdigest()[:12]
        self.out = os.path.join(debian.cache_dir(), 'attribute', key)
        os.makedirs(self.out, exist_ok=True)
        # One run a scratch directory: a second of the same search would
        # remove what the first builds and measures.
        self.lock = open(os.path.join(self.out, '.lock'), 'a')
        try:
            fcntl.flock(self.lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            raise Usage('another run of the same search (trees, figure, test) is under way in '
                        '%s: wait for it, or stop it' % self.out)
        every = differing(self.a, self.b)
        # Never built for this arch: kbuild descends into arch/SRCARCH
        # only, and never into tools/ or Documentation/.
        mine = 'arch/%s/' % kvm_tree.SRCARCH[c.arch]
        self.inputs = [f for f in every if BUILD_INPUT.search('/' + f) and not (
            f.startswith(('tools/', 'Documentation/')) or
            f.startswith('arch/') and not f.startswith(mine))]
        self.unread = [f for f in every if f not in self.inputs]
        if not self.inputs:
            raise Usage('nothing built differs: %s' % (
                'the trees are identical' if not every else
                '%d files differ, none a build input for %s (%s)' % (
                    len(every), c.arch, ', '.join(every[:3]))))
        self.diffs = {f: FileDiff(f, read(os.path.join(self.a, f)), read(os.path.join(self.b, f)))
                      for f in self.inputs}
        self.hunks_total = sum(len(d.hunks) for d in self.diffs.values())
        self.kvm_only = all(kvm_tree.is_kvm_path(c.arch, f) for f in self.inputs)
        self.kernel = c.debian_kernel or self.deb_a or debian.series(self.ver_a)
        # Too few --runs for even one stage's verdicts: refused before
        # the Debian kernel is fetched to tell whether there are two.
        one = self.plan(stages=1)
        why = c.runs and runs_refusal(int(c.runs), looks=one)
        if why:
            raise Usage('%s (each verdict at 5%%/%d, over the %d the search may make)' %
                        (why, one, one))
        # The stage "modules" first where A is at its Debian kernel's
        # version: KVM's modules of A, and of A with B's versions of the
        # files their build reads, for that kernel.
        self.modules_stage = not c.config and c.arch == 'x86_64' and \
            not kvm_build.is_whole(self.a, self.kernel, c.arch)
        self.whole = not self.modules_stage
        self.steps = self.plan()
        least = max(least_runs(looks=self.steps), 6)
        self.runs = int(c.runs) if c.runs else least
        why = runs_refusal(self.runs, looks=self.steps)
        if why:
            raise Usage('%s (each verdict at 5%%/%d, over the %d the search may make)' %
                        (why, self.steps, self.steps))
        self.kernel_release = debian.Kernel(self.kernel, c.arch).release \
            if self.modules_stage else ''
        for d in ('runs', 'patches', 'repo', 'kvm'):
            shutil.rmtree(os.path.join(self.out, d), ignore_errors=True)
        os.makedirs(os.path.join(self.out, 'patches'))
        info('%d files differ: %d build inputs, %d not (left out); %d hunks; %s; %d runs a '
             'candidate (each of at most %d verdicts at %.3g%%)' % (
                 len(every), len(self.inputs), len(self.unread), self.hunks_total,
                 'whole kernels (%s config)' % (c.config or 'small') if self.whole else
                 'KVM modules for Debian %s%s' % (self.kernel, '' if self.kvm_only else
                                                  ', then whole kernels if the step is '
                                                  'not in them'), self.runs, self.steps,
                 100 * 0.05 / self.steps))

    def plan(self, stages=None):
        """The most verdicts the search may make (S), before the first
        build: a stage's are its first (A against A with B's files) +
        its searches over the files and the hunks + the two proofs, each
        against A and against B; the module stage's files and hunks are
        at most all of them.  Two stages where the module stage may hand
        on to whole kernels (A is at its Debian kernel's version and not
        every differing file is KVM's), else one; @stages says how many
        where that is not known yet."""
        one = 1 + ddmin.plan(len(self.file_groups())) + ddmin.plan(self.hunks_total) + 4
        return one * (stages or (2 if self.modules_stage and not self.kvm_only else 1))

    def file_groups(self):
        """The differing files grouped where they only build together
        (kvmbench.attribution.coupling), computed once: tuples in order."""
        if getattr(self, 'groups', None) is None:
            self.groups = coupling.groups([self.diffs[f].coupling_unit(f) for f in self.inputs])
        return self.groups

    def scratch_repo(self, groups):
        """A git repository (in the cache) of the files of @groups:
        commit 0 A's versions, then one commit a group with B's."""
        repo = os.path.join(self.out, 'repo')
        os.makedirs(repo, exist_ok=True)

        def git(*args):
            subprocess.run(['git', '-C', repo, '-c', 'user.name=attribute',
                            '-c', 'user.email=attribute@localhost'] + list(args),
                           check=True, stdout=subprocess.DEVNULL)
        git('init', '-q')

        def put(f, data):
            p = os.path.join(repo, f)
            if data is None:
                if os.path.exists(p):
                    os.unlink(p)
                return
            os.makedirs(os.path.dirname(p), exist_ok=True)
            with open(p, 'wb') as fh:
                fh.write(data)
        for g in groups:
            for f in g:
                put(f, self.diffs[f].a)
        git('add', '-A')
        git('commit', '-q', '--allow-empty', '-m', 'A: %s' % self.a)
        for g in groups:
            for f in g:
                put(f, self.diffs[f].b)
            git('add', '-A')
            git('commit', '-q', '--allow-empty', '-m', '%s (%d hunks)' % (
                ' '.join(g), sum(len(self.diffs[f].hunks) for f in g)))
        return repo

    def patch_for(self, contents, name):
        """A patch (file) that turns A into A with @contents ({path: bytes
        or None}); None when nothing changes."""
        text = []
        tmp = os.path.join(self.out, 'patches', 'file')
        for f, data in sorted(contents.items()):
            old = os.path.join(self.a, f)
            if data == self.diffs[f].a:
                continue
            if data is not None:
                with open(tmp, 'wb') as fh:
                    fh.write(data)
            p = subprocess.run(['diff', '-u', '--label', 'a/' + f, '--label', 'b/' + f,
                                old if os.path.exists(old) else '/dev/null',
                                tmp if data is not None else '/dev/null'],
                               stdout=subprocess.PIPE)
            text.append(p.stdout.decode('latin-1'))
        if not text:
            return None
        path = os.path.join(self.out, 'patches', name + '.patch')
        with open(path, 'w', encoding='latin-1') as fh:
            fh.write('From: bench/attribute\nSubject: [PATCH] %s\n\n---\n' % name +
                     ''.join(text))
        return path

    def build(self, contents, name):
        """Build A with @contents: kvm_build.build_side's description."""
        c = self.c
        patch = self.patch_for(contents, name)
        return kvm_build.build_side(os.path.join(self.out, 'kvm'), kernel=self.kernel,
                                    arch=c.arch, src=self.a, patches=[patch] if patch else [],
                                    whole=self.whole, base=c.config or 'small')

    def measure(self, contents, name, profile=False):
        """Build, boot and run A with @contents (with the test's --profile
        if @profile): the figure's values, the runs' JSON files in
        self.paths[name]; None when it cannot be tested.  BuildError
        propagates (the caller decides: A and B fail the run, a candidate
        cannot be tested)."""
        c = self.c
        desc = self.build(contents, name)
        vm = Config()
        vm.arch, vm.cpu, vm.smp, vm.mem = c.arch, c.cpu, c.smp, c.mem
        vm.env = self.profile_env() if profile else c.env
        vm.test, vm.args = c.test, c.args
        n = max(self.runs, profile_runs()) if profile else self.runs
        try:
            self.paths[name], figs, units = measure_side(
                vm, desc, os.path.join(self.out, 'runs', name), 'b', n, profile)
        except CannotTest:
            return None
        vals = figs.get(c.figure)
        if not vals or len(vals) < 2:
            info('%s: the figure %s is missing or fewer than 2 runs passed' % (name, c.figure))
            return None
        self.unit = units.get(c.figure, '')
        self.measured[name] = vals
        return vals

    def verdict(self, base, vals, direction):
        return judge(self.c.figure, base, vals, self.unit, self.c.threshold,
                     looks=self.steps, direction=direction)

    def search(self, units, contents_of, stage):
        """ddmin over @units, groups (tuples) of files or hunks that only
        build together (contents_of(the members of a subset) -> {path:
        contents}), every step judged against A: (the members of the
        minimal bad subset, its log)."""
        t0 = time.monotonic()
        count = [0]

        def test(sub):
            count[0] += 1
            name = '%s-%d' % (stage, count[0])
            try:
                vals = self.measure(contents_of([m for g in sub for m in g]), name)
            except Fail as e:
                info('%s does not build (%s): cannot test' % (name, e))
                return 'cannot'
            if vals is None:
                return 'cannot'
            bad, r = self.verdict(self.base, vals, self.direction)
            info('%s (%s): %s, %.4f [%.4f, %.4f] against A' % (
                name, ', '.join(label(g) for g in sub), 'bad' if bad else 'good', r['ratio'], r['lo'],
                r['hi']))
            return 'bad' if bad else 'good'
        try:
            found, log = ddmin.ddmin(units, test, ddmin.plan(len(units)))
        finally:
            self.stages.append((stage, len(units), count[0], time.monotonic() - t0))
        return [m for g in found for m in g], log

    def built_files(self, empty, name):
        """Build A as @name (its failure: exit 1 with its first error):
        the differing files its build read, by its kbuild .cmd files, and
        in the directories it compiled in, the kbuild files (read by
        make itself; a whole kernel's every one) and the files only B
        has (B's kbuild files there decide whether they are built).  A
        module build's are those it may change, KVM's own (the kernel
        around them is A's binary): the others it read are kept in
        self.shared."""
        self.build(empty, name)
        compiled = set()
        deps = build_deps([os.path.join(debian.cache_dir(), 'kvm-build', d)
                           for d in self.build_dirs()], compiled)

        def read_by_build(f):
            if f in deps:
                return True
            if self.whole and re.search(r'/(Makefile|Kbuild|Kconfig)[^/]*$', '/' + f):
                return True
            return os.path.dirname(f) in compiled and (
                self.diffs[f].a is None or coupling.is_kbuild(f))
        got = [f for f in self.inputs if read_by_build(f)]
        if self.whole:
            return got
        self.shared = [f for f in got if not kvm_tree.is_kvm_path(self.c.arch, f)]
        return [f for f in got if kvm_tree.is_kvm_path(self.c.arch, f)]

    def run(self):
        """The stages: KVM's modules first where A is at its Debian
        kernel's version, then (the step not there, and not every
        differing file KVM's) whole kernels."""
        self.all_diffs = dict(self.diffs)
        if self.modules_stage:
            self.whole = False
            rc = self.stage('modules')
            if rc is not None:
                return rc
            self.whole = True
        return self.stage('whole')

    def stage(self, kind):
        """One stage (modules or whole kernels): build A, the files its
        build reads, A and A with B's versions of them measured and
        judged; the step there: the searches and the proof (the exit
        status), else None (modules: on to whole kernels) or 0 (no
        step)."""
        c = self.c
        pre = 'modules-' if kind == 'modules' else ''
        self.prefix = pre
        self.diffs = dict(self.all_diffs)
        empty = {f: d.a for f, d in self.diffs.items()}
        t0 = time.monotonic()
        built = self.built_files(empty, pre + 'a')
        self.unbuilt = [f for f in self.inputs if f not in built]
        self.tied = []
        self.stages.append(('build A' + (' modules' if pre else ''), 0, 1,
                            time.monotonic() - t0))
        if not built:
            if pre and not self.kvm_only:
                print("MODULES none: the build of A's KVM modules reads none of the %d files "
                      "that differ: the step is outside KVM's modules" % len(self.inputs))
                return None
            raise Usage('nothing built differs: the build of A reads none of the %d files that '
                        'differ (%s)' % (len(self.inputs), ', '.join(self.inputs[:3])))
        if pre:
            # KVM's files that only build with files outside KVM (B's
            # cpufeatures.h bit that B's reverse_cpuid.h reads): the
            # kernel around the modules is A's binary, so only whole
            # kernels can test them; the module builds test the rest.
            self.tied = sorted(f for g in self.file_groups() if any(
                h not in built and not kvm_tree.is_kvm_path(c.arch, h) for h in g)
                for f in g if f in built)
            if self.tied:
                info("%d of KVM's files only build with files outside KVM's modules, left to "
                     "whole kernels: %s" % (len(self.tied), ' '.join(self.tied)))
                built = [f for f in built if f not in self.tied]
            if not built:
                print("MODULES none: every differing file of KVM's modules only builds with "
                      "files outside them (%s): on to whole kernels" % ' '.join(self.tied))
                return None
        self.files = [g for g in (tuple(f for f in g if f in built)
                                  for g in self.file_groups()) if g]
        self.diffs = {f: self.diffs[f] for f in built}
        empty = {f: d.a for f, d in self.diffs.items()}
        info('%d differing files the %s reads: %s; %d it does not' % (
            len(built), 'build of KVM\'s modules' if pre else 'build', ' '.join(built[:40]) + (
                ' ...' if len(built) > 40 else ''), len(self.unbuilt)))
        if pre and self.shared:
            info('%d more it reads are not KVM\'s (the kernel around the modules is A\'s '
                 'binary: whole kernels test them): %s' % (len(self.shared), ' '.join(
                     self.shared[:20])))
        together = [g for g in self.files if len(g) > 1]
        if together:
            info('%d groups of files that only build together (coupling): %s' % (
                len(together), '; '.join(label(g) for g in together)))
        repo = self.scratch_repo(self.files)
        info('the scratch repository: %s (one commit a group)' % repo)
        t0 = time.monotonic()
        a_vals = self.measure(empty, pre + 'a')
        if a_vals is None:
            raise Fail('A cannot be measured (see above)', 1)
        full = {f: d.b for f, d in self.diffs.items()}
        try:
            b_vals = self.measure(full, pre + 'b')
        except UsageError:
            raise
        except Fail as e:
            if pre and not self.kvm_only:
                # B's KVM may need B's kernel around it: whole kernels.
                print("MODULES cannot test: A's modules with B's files do not build (%s): on "
                      "to whole kernels" % e)
                return None
            raise Fail('the build of %s failed: %s' % (
                "A with B's files of KVM's modules" if pre else 'B', e), 1)
        if b_vals is None:
            if pre and not self.kvm_only:
                print("MODULES cannot test: A's modules with B's files cannot be measured "
                      "(above): on to whole kernels")
                return None
            raise Fail('B cannot be measured (see above)', 1)
        self.stages.append(('measure A and B' + (' modules' if pre else ''), 0, 2,
                            time.monotonic() - t0))
        self.base, self.sides = a_vals, {'a': a_vals, 'b': b_vals}
        worse, r = self.verdict(a_vals, b_vals, 'worse')
        better, _ = self.verdict(a_vals, b_vals, 'better')
        self.ab = r
        figs = 'ratio=%.4f lo=%.4f hi=%.4f runs=%d,%d' % (r['ratio'], r['lo'], r['hi'],
                                                          len(a_vals), len(b_vals))
        no_step = 'no step to attribute: %s of B against A is %s (threshold %g%%)' % (
            c.figure, 'within the noise' if r['verdict'] == 'same' else
            '%s by %.2f%%' % (r['verdict'], r['pct']), c.threshold)
        if pre:
            self.modules_verdict = r
            if worse or better:
                print("MODULES %s %s: the step is in KVM's modules (%d files)" % (
                    r['verdict'], figs, len(built)))
            elif self.kvm_only:
                print("MODULES %s %s: every file that differs is KVM's" % (r['verdict'], figs))
                print(no_step)
                return 0
            else:
                print("MODULES %s %s: the step is outside KVM's modules%s" % (
                    r['verdict'], figs, ' or in the %d files of them that need the kernel '
                    'around them' % len(self.tied) if self.tied else ''))
                return None
        else:
            print('STEP b vs a: %s %s' % (r['verdict'], figs))
            if not (worse or better):
                print(no_step)
                return 0
        self.direction = 'worse' if worse else 'better'
        files, _ = self.search(self.files, lambda sub: dict(
            empty, **{f: self.diffs[f].b for f in sub}), pre + 'files')
        units = coupling.groups([self.diffs[f].coupling_unit((f, h['n']), {h['n']})
                                 for f in files for h in self.diffs[f].hunks])

        def hunks_of(sub):
            return dict(empty, **{f: self.diffs[f].apply({n for g, n in sub if g == f})
                                  for f in files})
        hunks, _ = self.search(units, hunks_of, pre + 'hunks')
        self.named = hunks
        t0 = time.monotonic()
        rc = self.prove(empty, hunks_of, t0)
        self.where_went(empty)
        return rc

    def prove(self, empty, hunks_of, t0):
        """Both ways: A with the change, B with it reverted."""
        pre = self.prefix
        change = hunks_of(self.named)
        rev = {f: d.b for f, d in self.diffs.items()}
        for f in change:
            if f in {g for g, _ in self.named}:
                d = self.diffs[f]
                keep = {h['n'] for h in d.hunks} - {n for g, n in self.named if g == f}
                rev[f] = d.apply(keep)
        self.patch = self.patch_for(change, 'change')
        self.change = change
        other = 'better' if self.direction == 'worse' else 'worse'
        proofs = []
        for name, contents, base, way, against in (
                ('a+change', change, self.base, self.direction, 'a'),
                ('b-change', rev, self.sides['b'], other, 'b')):
            try:
                vals = self.measure(contents, pre + name)
            except Fail as e:
                info('%s does not build: %s' % (name, e))
                vals = None
            if vals is None:
                proofs.append((name, against, None, None, False))
                continue
            holds, r = self.verdict(base, vals, way)
            vs_other = self.verdict(self.sides['b' if against == 'a' else 'a'], vals,
                                    way)[1]
            proofs.append((name, against, r, vs_other, holds))
        self.stages.append(('proof' + (' (modules)' if pre else ''), 0, 2,
                            time.monotonic() - t0))
        self.proofs = proofs
        a_r = proofs[0][2]
        for f, n in self.named:
            h = self.diffs[f].hunks[n - 1]
            print('ATTRIBUTED file=%s hunk=%d function=%s ratio=%s lo=%s hi=%s' % (
                f, n, h['function'], *(('%.4f' % a_r[k]) if a_r else 'nan'
                                       for k in ('ratio', 'lo', 'hi'))))
        for name, against, r, o, holds in proofs:
            if r is None:
                print('PROOF %s vs %s: cannot test holds=no' % (name, against))
                continue
            print('PROOF %s vs %s: %s ratio=%.4f lo=%.4f hi=%.4f runs=%d; vs %s: %s ratio=%.4f '
                  'lo=%.4f hi=%.4f holds=%s' % (
                      name, against, r['verdict'], r['ratio'], r['lo'], r['hi'], r['b']['n'],
                      'b' if against == 'a' else 'a', o['verdict'], o['ratio'], o['lo'],
                      o['hi'], 'yes' if holds else 'no'))
        return 0 if all(p[4] for p in proofs) else 1

    def profile_env(self):
        """The profiled pair's clock: the host's where the verdicts' is
        QEMU's icount, whose samples fall at fixed instruction distances
        and alias with a regular loop (docs/results/attribution.md, "Where
        the instructions went"); Bochs has only its own."""
        c = self.c
        return runner.clock_env('tcg', int(c.smp)) if c.clock == 'icount' else c.env

    def where_went(self, empty):
        """Where the instructions went: A and A with the change, profiled
        apart from the verdicts' runs (--profile perturbs what it
        measures), compared as bench/compare --profile compares
        (stats.compare_profiles): self.profile, its table printed."""
        t0 = time.monotonic()
        self.profile = {'why': None, 'clock': 'tcg' if self.c.clock == 'icount' else self.c.clock}
        for name, contents in (('profile-a', empty), ('profile-change', self.change)):
            try:
                vals = self.measure(contents, name, profile=True)
            except Fail as e:
                vals, self.profile['why'] = None, '%s does not build: %s' % (name, e)
            if vals is None:
                self.profile['why'] = self.profile['why'] or '%s cannot be tested' % name
                break
        self.stages.append(('profile', 0, 2, time.monotonic() - t0))
        if self.profile['why']:
            info('where the instructions went: not measured (%s)' % self.profile['why'])
            return
        a, b = (load_profiles(self.paths[n], self.c.profile_phase or None)
                for n in ('profile-a', 'profile-change'))
        if not a[0] or not b[0]:
            self.profile['why'] = 'the profiled runs of %s have no profile (the test\'s ' \
                '--profile skipped: its reason is in their output)' % (
                    'A' if not a[0] else 'A with the change')
            info('where the instructions went: not measured (%s)' % self.profile['why'])
            return
        rows, level, judged = compare_profiles(a, b)
        self.profile.update(rows=rows, level=level, judged=judged, n=(len(a[0]), len(b[0])),
                            phase=self.c.profile_phase or None)
        print_profile(rows, level, judged, len(a[0]), len(b[0]), FAMILY_LEVEL,
                      self.c.profile_phase or None)

    def build_dirs(self):
        """The kvm-build cache directories A's builds use."""
        c = self.c
        if self.whole:
            key = '\0'.join([self.a, c.arch, 'whole'])
        else:
            key = '\0'.join([self.a, c.arch, debian.Kernel(self.kernel, c.arch).release])
        d = hashlib.sha256(key.encode()).hexdigest()[:12]
        return [os.path.join(d, 'src'), os.path.join(d, 'obj')]


def run(c, argv):
    """bench/attribute on the checked command line @c (@argv as given,
    for the report): its exit status."""
    at = Attribution(c)
    try:
        return finish(at, c, argv)
    finally:
        if getattr(at, 'lock', None):
            at.lock.close()


def finish(at, c, argv):
    """The search of @at run and its report written: the exit status."""
    try:
        at.setup()
        rc = at.run()
    except ddmin.Undecided as e:
        bad = [label(g) for g in e.args[0]]
        print('%s: undecided: the search ran out of its %d planned steps (smallest bad so '
              'far, %d units: %s)' % (PROG, len(e.args[1]), len(bad), ' '.join(bad[:20]) + (
                  ' ...' if len(bad) > 20 else '')), file=sys.stderr)
        return 1
    except TooFewRuns as e:
        print('%s: %s' % (PROG, e), file=sys.stderr)
        return 1
    if hasattr(at, 'ab') and hasattr(at, 'direction'):
        text = mail.report(at, [PROG] + argv)
        paths = [attribute.report_path(c.arch, *c.trees.split(','), c.figure)] + (
            [c.report] if c.report else [])
        for p in paths:
            os.makedirs(os.path.dirname(os.path.abspath(p)), exist_ok=True)
            with open(p, 'w') as f:
                f.write(text)
        with open(os.path.join(at.out, 'result.json'), 'w') as f:
            json.dump({'named': at.named, 'rc': rc}, f)
        info('report: %s' % ' '.join(paths))
    elif c.report:
        with open(c.report, 'w') as f:
            f.write('no step to attribute\n')
    return rc


def main(argv):
    return cli.program(PROG, argv, parse, lambda c: run(c, argv), HELP,
                       'the same command starts the search again')


if __name__ == '__main__':
    sys.exit(main(sys.argv[1:]))
