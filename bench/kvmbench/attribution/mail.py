# SPDX-License-Identifier: GPL-2.0-only
"""kvmbench.attribution.mail: bench/attribute's report, in the shape of
the kernel test robot's regression mails (docs/attribute.md, "The
report"): the figure and its change, the two kernels, the named hunks
and their patch, the evidence (the proof both ways, where the
instructions went), the stages' times, the Debian changelog entries
ranked, how to reproduce.  It reads a finished search (an
attribute_cli.Attribution) and imports nothing of attribute_cli.
"""
import io
import os
import platform
import re
import shlex
import shutil
import subprocess

from kvmbench.base.errors import Fail
from kvmbench.verdicts.render import print_profile
from kvmbench.verdicts.stats import FAMILY_LEVEL, profile_moved
from kvmbench.kernels import debian
from kvmbench.kbuild import kvm_build
from . import attribute


def ranked_entries(att, named, diffs):
    """Debian changelog entries between the two kernels, ranked by how
    much they name of the change: its function (3), its file's name
    (2, mmu.c), its subsystem ('x86/mmu') or its file's stem as a word
    in any case (1: 'SVM' for svm.c); those naming none are left out."""
    scored = []
    for ver, e in att['entries']:
        s = 0
        for f, n in named:
            fn = diffs[f].hunks[n - 1]['function']
            base = os.path.basename(f).rsplit('.', 1)[0]
            sub = '/'.join(p for p in os.path.dirname(f).split('/')
                           if p not in ('arch', 'kvm', 'virt'))
            s = max(s, 3 if fn != '-' and fn in e else 2 if os.path.basename(f) in e else
                    1 if sub and sub in e or re.search(r'\b%s\b' % re.escape(base), e, re.I)
                    else 0)
        if s:
            scored.append((s, ver, e))
    return sorted(scored, key=lambda t: -t[0])


def profile_lines(prof):
    """The report's lines of where the instructions went (Attribution.
    where_went's self.profile): the functions whose share moved beyond
    the noise (stats.profile_moved), then bench/compare --profile's table
    of A and A with the change (B there)."""
    if prof.get('why'):
        return ['  where the instructions went (--profile): not measured: %s' % prof['why']]
    n_a, n_b = prof['n']
    moved = profile_moved(prof['rows'][:-1], prof['level'])
    if not prof['level']:
        said = 'too few runs for intervals: nothing judged'
    elif not moved:
        said = 'no function\'s share moved beyond the noise (of the %d judged)' % prof['judged']
    else:
        said = 'moved beyond the noise, A with the change - A in percentage points:'
    out = ['  where the instructions went (--profile%s, %s clock: A and A with the change, %d '
           'and %d runs apart from those above): %s' % (
               ', phase ' + prof['phase'] if prof.get('phase') else '', prof.get('clock', '?'),
               n_a, n_b, said)]
    out += ['    %s %+.2f [%.2f, %.2f] (%.2f%% -> %.2f%%)' % (
        r['function'], r['shift'], r['lo'], r['hi'], r['a'], r['b']) for r in moved]
    text = io.StringIO()
    print_profile(prof['rows'], prof['level'], prof['judged'], n_a, n_b, FAMILY_LEVEL,
                  prof.get('phase'), out=text)
    return out + ['  ' + ln if ln else ln for ln in text.getvalue().splitlines()]


def machine():
    cpu = ''
    try:
        with open('/proc/cpuinfo') as f:
            cpu = next((ln.split(':', 1)[1].strip() for ln in f if ln.startswith('model name')),
                       '')
    except OSError:
        pass
    q = subprocess.run(['qemu-system-x86_64', '--version'], stdout=subprocess.PIPE,
                       stderr=subprocess.DEVNULL, text=True) if shutil.which(
                           'qemu-system-x86_64') else None
    return '%s, %d cpus, %s; host kernel %s; %s' % (
        cpu or platform.machine(), os.cpu_count() or 0,
        '%.0f GiB' % (os.sysconf('SC_PAGE_SIZE') * os.sysconf('SC_PHYS_PAGES') / 2 ** 30),
        platform.release(), q.stdout.splitlines()[0] if q and q.stdout else 'no QEMU')


def report(at, command):
    """The report of search @at, made by @command (its argv, the program
    first), in the shape of the kernel test robot's regression
    mails (the header lines, the commit lines, the comparison table,
    'Details are as below', how to reproduce)."""
    c = at.c
    r = at.ab
    lines = []
    kind = 'regression' if r['verdict'] == 'worse' else 'improvement'
    lines.append('Hello,\n')
    lines.append('bench/attribute noticed a %+.1f%% %s of %s (%s) on:\n' % (
        (r['ratio'] - 1) * 100, kind, c.figure, c.test))
    named = getattr(at, 'named', [])
    files = sorted({f for f, _ in named})
    lines.append('change: %s' % (', '.join(
        '%s hunk %d (%s %s)' % (f, n, at.diffs[f].hunks[n - 1]['header'],
                                at.diffs[f].hunks[n - 1]['function']) for f, n in named)
        or 'none named'))
    lines.append('in: B = %s (Linux %s) against A = %s (Linux %s)\n' % (
        at.deb_b or at.b, at.ver_b, at.deb_a or at.a, at.ver_a))
    lines.append('testcase: %s' % ' '.join([c.test] + c.args))
    lines.append('figure: %s (%s; threshold %g%%)' % (c.figure, at.unit, c.threshold))
    lines.append('config: %s' % ('KVM modules for Debian %s, its config (linux-headers-%s '
                                 '.config)' % (at.kernel, at.kernel_release) if not at.whole
                                 else 'whole kernel, %s config' % (c.config or 'small')))
    cc = subprocess.run(['gcc', '--version'], stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                        text=True).stdout.splitlines() if shutil.which('gcc') else []
    lines.append('compiler: %s' % (cc[0] if cc else 'none'))
    lines.append('vm: %s, %s clock, %s vCPUs, %s' % (c.arch, c.clock, c.smp, c.mem))
    lines.append('test machine: %s\n' % machine())
    lines.append('Details are as below:')
    lines.append('-' * 78 + '>\n')
    lines.append('commit:')
    lines.append('  A  %s (Linux %s)' % (at.deb_a or at.a, at.ver_a))
    lines.append('  B  %s (Linux %s)\n' % (at.deb_b or at.b, at.ver_b))
    lines.append('%16s %27s' % ('A', 'B'))
    lines.append('---------------- ---------------------------')
    lines.append('%16s %11s %15s' % ('median %stddev', '%change', 'median %stddev'))

    def sd(s):
        return 100 * s['sd'] / s['mean'] if s['mean'] else 0.0
    lines.append('%11.6g %3.1f%% %+10.1f%% %10.6g %3.1f%%  %s' % (
        r['a']['median'], sd(r['a']), (r['ratio'] - 1) * 100, r['b']['median'], sd(r['b']),
        c.figure))
    lines.append('\n%%change: the Hodges-Lehmann shift of B against A, [%+.2f%%, %+.2f%%] its '
                 'exact interval; %d and %d runs; each of the search\'s verdicts at %.3g%% '
                 '(95%% over the %d it may make, Bonferroni)' % (
                     (r['lo'] - 1) * 100, (r['hi'] - 1) * 100, r['a']['n'], r['b']['n'],
                     5.0 / at.steps, at.steps))
    mv = getattr(at, 'modules_verdict', None)
    if mv:
        lines.append("\nKVM's modules (A's modules for Debian %s, and with B's versions of the "
                     "files their build reads): %s, ratio %.4f [%.4f, %.4f]: the step is %s "
                     "them" % (at.kernel, mv['verdict'], mv['ratio'], mv['lo'], mv['hi'],
                               'outside' if at.whole else 'in'))
    lines.append('')
    lines.append('The named change (the smallest that carries the step, by delta debugging '
                 'over %d files in %d groups that build alone, then their hunks):' % (
                     sum(len(g) for g in at.files), len(at.files)))
    for f, n in named:
        h = at.diffs[f].hunks[n - 1]
        lines.append('  ATTRIBUTED file=%s hunk=%d function=%s  %s' % (f, n, h['function'],
                                                                       h['header']))
    if getattr(at, 'patch', None):
        with open(at.patch, encoding='latin-1') as fh:
            lines += [''] + ['  ' + ln for ln in fh.read().split('---\n', 1)[-1].splitlines()]
    lines.append('\nEvidence (the proof both ways, fresh builds and runs):')
    for name, against, pr, o, holds in getattr(at, 'proofs', []):
        if pr is None:
            lines.append('  %s: cannot test' % name)
            continue
        lines.append('  %s against %s: %s, ratio %.4f [%.4f, %.4f]; against %s: %s %.4f '
                     '[%.4f, %.4f]: %s' % (
                         name.replace('a+change', 'A with the change').replace(
                             'b-change', 'B with it reverted'), against.upper(), pr['verdict'],
                         pr['ratio'], pr['lo'], pr['hi'], 'B' if against == 'a' else 'A',
                         o['verdict'], o['ratio'], o['lo'], o['hi'],
                         'holds' if holds else 'does NOT hold'))
    lines += profile_lines(getattr(at, 'profile', {'why': 'no change named'}))
    lines.append('\nStages:')
    for name, n, tests, secs in at.stages:
        lines.append('  %-16s %s%d builds/measurements, %.0f s' % (
            name, '%d units, ' % n if n else '', tests, secs))
    if getattr(at, 'tied', None):
        lines.append("Left to whole kernels (KVM's files that only build with files outside "
                     "KVM's modules): %s" % ' '.join(at.tied))
    if at.unbuilt or at.unread:
        lines.append('Left out (differ, not built): %d not build inputs, %d the build does not '
                     'read%s' % (len(at.unread), len(at.unbuilt), ''.join(
                         '\n  ' + f for f in (at.unbuilt + at.unread)[:20])))
    if at.deb_a and at.deb_b and at.ver_a != at.ver_b and files:
        try:
            att = attribute.attribute(at.deb_a, at.deb_b, c.arch, sources=False)
            ent = ranked_entries(att, named, at.diffs)
            lines.append('\nDebian changelog entries that touch %s, ranked (of %d KVM/mm):' % (
                ', '.join(files), len(att['entries'])))
            lines += ['  [%d] %s: %s' % e for e in ent] or ['  none names them']
        except Fail as e:
            lines.append('\nno Debian changelog: %s' % e)
    lines.append('\nTo reproduce (a fresh Debian 12 machine):\n')
    lines.append('  git clone <this suite> kvm-selftests && cd kvm-selftests')
    for t, deb in ((at.a, at.deb_a), (at.b, at.deb_b)):
        if deb or t.startswith(debian.cache_dir()):
            lines.append('  # %s: Debian\'s source%s, unpacked by vm/kvm-build --debian-kernel '
                         '%s' % (t, ' of ' + deb if deb else '', deb or at.kernel))
    lines.append('  ' + shlex.join(command))
    if getattr(at, 'patch', None):
        lines.append('  # the change alone, on A:')
        lines.append('  ' + shlex.join(kvm_build.command(
            'build/attr', at.kernel, c.arch, at.a, [at.patch], c.config or 'small', at.whole)))
    return '\n'.join(lines) + '\n'
