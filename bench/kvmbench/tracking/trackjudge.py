# SPDX-License-Identifier: GPL-2.0-only
"""kvmbench.tracking.trackjudge: the changes in a tracked stream.

For each arch and command, the kernels in stream order, and for each
figure the command judges:

  neighbours    every pair of neighbours judged by kvmbench.verdicts.stats
                (compare_figures: the Hodges-Lehmann ratio and its exact
                interval, worse / better / no change larger than X%),
                simultaneous at the track's level over all pairs,
                commands and figures (Bonferroni);
  change points E-Divisive means over the whole stream
                (kvmbench.verdicts.changepoint), each sized as the stats' ratio of
                the segment after it to the segment before it, with its
                interval at the same per-figure level.

The two differ by design: a neighbour verdict sees two kernels' runs
only, and a step spread over several kernels (two 3% steps) can pass
every neighbour test and still be a change point; a change point needs
a step that stands out of the whole stream's scatter, and an isolated
one-kernel excursion (up, then back) is two neighbour verdicts but may
be no change point (or two).  docs/track.md says more.
"""
import math
import os
import random

from kvmbench.verdicts import changepoint, stats
from kvmbench.kernels.debian import version_key


def pair_level(level, pairs, ncmds):
    """The family level of one command on one neighbour pair: @level
    (percent) split over the pairs and the commands (Bonferroni; each
    command's figures share it, kvmbench.verdicts.stats.compare_figures)."""
    return 1 - (1 - level / 100) / (max(pairs, 1) * max(ncmds, 1))


def stream_order(names):
    """Debian versions in version order, others as stored, after them."""
    deb = [n for n in names if n[:1].isdigit()]
    return sorted(deb, key=version_key) + [n for n in names if not n[:1].isdigit()]


def judge(db, cmds, level, order=None, permutations=changepoint.PERMUTATIONS):
    """{'streams': [...], 'unjudged': [...], 'level': level} of what @db holds
    for @cmds (kvmbench.tracking.track.Command); @order: {arch: [kernel]} (default:
    stream_order of what is stored)."""
    values, units = db.values()
    by_cmd = {c.name: c for c in cmds}
    streams, unjudged = [], []
    ncmds = len({c for (_, c) in values if c in by_cmd})
    for (arch, cname) in sorted(values):
        c = by_cmd.get(cname)
        if c is None:
            continue
        kv = values[(arch, cname)]
        kernels = [k for k in (order or {}).get(arch) or stream_order(list(kv)) if k in kv]
        fam = pair_level(level, len(kernels) - 1, ncmds)
        m = max(len(c.figures), 1)
        alpha = stats.figure_alpha(fam, m)
        s = {'arch': arch, 'command': cname, 'line': c.line(arch), 'kernels': kernels,
             'runs': {k: len(next(iter(kv[k].values()), [])) for k in kernels},
             'figures': [], 'family': fam, 'alpha': alpha}
        for fig in c.figures:
            if not any(fig in kv[k] for k in kernels):
                modes = sorted({n for k in kernels for n in kv[k] if n.startswith(fig + '[')})
                unjudged.append('%s %s: no figure %s in its runs%s' % (
                    arch, cname, fig, ' (one a guest mode: %s; give the test one mode, -m)'
                    % ', '.join(modes[:3] + ['...'] * (len(modes) > 3)) if modes else ''))
                continue
            f = {'figure': fig, 'unit': units.get(fig, ''),
                 'values': [kv[k].get(fig, []) for k in kernels],
                 'neighbours': [], 'points': []}
            for i in range(1, len(kernels)):
                a, b = kernels[i - 1], kernels[i]
                try:
                    res, _, _ = stats.compare_figures({fig: kv[a].get(fig, [])},
                                                      {fig: kv[b].get(fig, [])},
                                                      {fig: f["unit"]}, fam)
                except stats.TooFewRuns as e:
                    unjudged.append('%s %s %s %s -> %s: %s' % (arch, cname, fig, a, b, e))
                    continue
                if not res:
                    unjudged.append('%s %s %s %s -> %s: no runs' % (arch, cname, fig, a, b))
                    continue
                r = res[0]
                f['neighbours'].append(dict(r, i=i, a_kernel=a, b_kernel=b))
            groups = f['values']
            if all(groups) and len(groups) > 1:
                f['points'] = [dict(pt, a_kernel=kernels[pt['g'] - 1], b_kernel=kernels[pt['g']])
                               for pt in sized_points(groups, alpha, f['unit'], permutations)]
            s['figures'].append(f)
        streams.append(s)
    judged = {'streams': streams, 'unjudged': unjudged, 'level': level}
    judged['boot_effects'] = boot_effects(db, judged, permutations)
    return judged


def sized_points(groups, alpha, unit, permutations=changepoint.PERMUTATIONS):
    """The change points of @groups (one a kernel, its runs' values),
    each sized by size() over the runs from the change point before it to
    the one after it: [dict(size's, g=g, p=p)] in stream order."""
    found = changepoint.change_points(groups, permutations=permutations)
    segs = changepoint.segments_of(len(groups), found)
    points = []
    for (g, p), (lo, _), (_, hi) in zip(found, segs, segs[1:]):
        before = [v for x in groups[lo:g] for v in x]
        after = [v for x in groups[g:hi] for v in x]
        points.append(dict(size(before, after, alpha, unit), g=g, p=p))
    return points


def boot_ss(cells):
    """The sum of squares between the boots of each kernel: @cells, one a
    kernel, are lists (one a boot) of its runs' values."""
    ss = 0.0
    for boots in cells:
        runs = [v for b in boots for v in b]
        m = sum(runs) / len(runs)
        ss += sum(len(b) * (sum(b) / len(b) - m) ** 2 for b in boots)
    return ss


def boot_effect(cells, permutations=changepoint.PERMUTATIONS, seed=0):
    """Are runs of one boot more alike than runs of different boots of the
    same kernel?  @cells: one a kernel, a list (one a boot) of its runs'
    values in the order they ran.  The permutation p-value of the
    between-boot sum of squares (of log values) against the same with the
    runs exchanged between each kernel's boots position by position (the
    first run of a boot with the first of another: a run's place in its
    boot may matter, alike in every boot), and the largest spread of one
    kernel's boots' means in percent; None where no kernel has two boots
    with two runs."""
    cells = [boots for boots in cells if len(boots) > 1 and all(len(b) > 1 for b in boots)]
    if not cells or any(v <= 0 for boots in cells for b in boots for v in b):
        return None
    spread = max(max(means) / min(means) - 1 for means in
                 ([sum(b) / len(b) for b in boots] for boots in cells)) * 100
    cells = [[[math.log(v) for v in b] for b in boots] for boots in cells]
    rng = random.Random(seed)
    q = boot_ss(cells)
    ge = 0
    for _ in range(permutations):
        shuffled = []
        for boots in cells:
            new = [list(b) for b in boots]
            for i in range(max(len(b) for b in boots)):
                at = [j for j, b in enumerate(boots) if len(b) > i]
                vals = [boots[j][i] for j in at]
                rng.shuffle(vals)
                for j, v in zip(at, vals):
                    new[j][i] = v
            shuffled.append(new)
        ge += boot_ss(shuffled) >= q
    return {'p': (1 + ge) / (1 + permutations), 'spread': spread}


def boot_effects(db, judged, permutations=changepoint.PERMUTATIONS):
    """The judged figures whose runs depend on their boot (boot_effect's p
    below changepoint.THRESHOLD): [(arch, command, figure, result)]."""
    bv = db.boot_values()
    out = []
    for s in judged['streams']:
        kv = bv.get((s['arch'], s['command']), {})
        for f in s['figures']:
            cells = [list(kv.get(k, {}).get(f['figure'], {}).values()) for k in s['kernels']]
            r = boot_effect(cells, permutations)
            if r and r['p'] < changepoint.THRESHOLD:
                out.append((s['arch'], s['command'], f['figure'], r))
    return out


def size(before, after, alpha, unit):
    """The stats' ratio after/before with its interval and verdict."""
    ci = stats.shift_ci(before, after, alpha)
    if ci is None:
        r = stats.statistics.median(after) / stats.statistics.median(before)
        return {'ratio': r, 'lo': math.nan, 'hi': math.nan, 'verdict': 'unsized',
                'pct': (r - 1) * 100, 'pct_lo': math.nan, 'pct_hi': math.nan}
    r, lo, hi = ci
    v, pct, plo, phi = stats.verdict(r, lo, hi, unit)
    return {'ratio': r, 'lo': lo, 'hi': hi, 'verdict': v, 'pct': pct, 'pct_lo': plo,
            'pct_hi': phi, 'rules_out': stats.rules_out(lo, hi)}


def attribute_changes(judged, say):
    """The Debian changelogs' KVM and mm entries of every change between
    two Debian versions (judged['attribution'][(arch, from, to)]); a
    changelog that cannot be had is said and left out."""
    from kvmbench.attribution import attribute
    from kvmbench.base.errors import Fail
    got = judged.setdefault('attribution', {})
    for c in changes(judged):
        r = c['r']
        key = (c['arch'], r['a_kernel'], r['b_kernel'])
        if key in got or not all(k[:1].isdigit() for k in key[1:]):
            continue
        try:
            got[key] = attribute.attribute(key[1], key[2], key[0], sources=False)
        except Fail as e:
            say('no changelog for %s -> %s: %s' % (key[1], key[2], e))


def attribute_command(judged, c):
    """The bench/attribute command that names the source change of the
    change @c (one of changes()) between two Debian kernels, or None."""
    from kvmbench.attribution import attribute
    r = c['r']
    if not all(k[:1].isdigit() for k in (r['a_kernel'], r['b_kernel'])):
        return None
    line = next(s['line'] for s in judged['streams']
                if s['arch'] == c['arch'] and s['command'] == c['command'])
    return attribute.attribute_command(r['a_kernel'], r['b_kernel'], c['arch'], c['figure'],
                                       max(abs(r.get('pct', 1.0)) / 2, 0.5), line)


def words(r):
    """The suite's verdict words for a judged change (a stats result or
    a change point's size)."""
    if r['verdict'] == 'same':
        return 'no change larger than %.1f%% in either direction' % r['rules_out']
    if r['verdict'] == 'unsized':
        return 'changed by %+.1f%% (too few runs around it for an interval)' % r['pct']
    return '%s by %.1f%% [%.1f, %.1f]' % (r['verdict'], r['pct'], r['pct_lo'], r['pct_hi'])


def changes(judged):
    """Every change found, neighbours' and change points', as dicts."""
    out = []
    for s in judged['streams']:
        for f in s['figures']:
            for r in f['neighbours']:
                if r['verdict'] != 'same':
                    out.append(dict(kind='neighbours', arch=s['arch'], command=s['command'],
                                    line=s['line'], figure=f['figure'],
                                    unit=f['unit'], r=r))
            for r in f['points']:
                out.append(dict(kind='change point', arch=s['arch'], command=s['command'],
                                line=s['line'], figure=f['figure'],
                                unit=f['unit'], r=r))
    return out


TOP = 5    # changelog entries shown for a change, the most likely on its path


def changelog_file(arch, a, b):
    """The report's file (trackreport) of every KVM/mm entry of @a -> @b."""
    return ''.join(ch if ch.isalnum() or ch in '-_.+' else '_'
                   for ch in 'changelog-%s-%s-%s.txt' % (arch, a, b))


def likely(judged, c):
    """(the changelog entries of change @c most likely on its figure's
    path, ranked: attribute.rank(); the attribution) or ([], None)."""
    from kvmbench.attribution import attribute
    r = c['r']
    att = judged.get('attribution', {}).get((c['arch'], r['a_kernel'], r['b_kernel']))
    if att is None:
        return [], None
    return attribute.rank(att['entries'], c['line'], c['figure']), att


def likely_lines(judged, c, indent='    '):
    """The text of likely(): a head and the TOP entries, or []."""
    ranked, att = likely(judged, c)
    if att is None:
        return []
    if not ranked:
        return ['%snone of the %d KVM/mm changelog entries names %s\'s path' % (
            indent, len(att['entries']), c['figure'])]
    return ['%smost likely on its path: %d of %d KVM/mm changelog entries name it, the first '
            '%d (docs/track.md: the ranking):' % (indent, len(ranked), len(att['entries']),
                                                  min(TOP, len(ranked)))] + [
        '%s  %s: %s' % (indent, v, e) for _, v, e in ranked[:TOP]]


BOOT_EFFECT_HEAD = ('runs of one boot more alike than runs of different boots, p < %g (the '
                    'intervals take every run as independent: for these figures they are too '
                    'narrow; more boots a kernel, --per-boot 1 or 2, give honest ones):'
                    % changepoint.THRESHOLD)


def boot_effect_lines(judged):
    """The boot_effects found, a line each under BOOT_EFFECT_HEAD; [] if none."""
    fx = judged.get('boot_effects') or []
    return ([BOOT_EFFECT_HEAD] + ['  %s %s %s: p=%.3f, one kernel\'s boots differ by up to '
                                  '%.1f%%' % (a, c, f, r['p'], r['spread'])
                                  for a, c, f, r in fx]) if fx else []


def text(judged, changelog=True, report=None):
    """The plain-text verdicts: the changes first, each with its few
    changelog entries most likely on the figure's path (not when
    @changelog is False: a run that measured nothing shows them no
    more), then what did not move; every entry is in @report's files."""
    lines = []
    ch = changes(judged)
    lines.append('changes (%d), at %g%% simultaneous over every neighbour pair, command and '
                 'figure; change points by E-Divisive means, p < %g:' % (
                     len(ch), judged['level'], changepoint.THRESHOLD))
    shown = set()      # a step's entries once (its neighbour verdict and change point)
    for c in ch:
        r = c['r']
        extra = ' (p=%.3f)' % r['p'] if c['kind'] == 'change point' else ''
        lines.append('  %s %s %s (%s): %s -> %s: %s%s [%s]' % (
            c['arch'], c['command'], c['figure'], c['unit'], r['a_kernel'], r['b_kernel'],
            words(r), extra, c['kind']))
        step = (c['arch'], c['command'], c['figure'], r['a_kernel'], r['b_kernel'])
        if changelog and step not in shown:
            shown.add(step)
            lines += likely_lines(judged, c)
        cmd = attribute_command(judged, c)
        if cmd:
            lines.append('    the source change: ' + cmd)
    if not ch:
        lines.append('  none')
    lines.append('no change between neighbours:')
    for s in judged['streams']:
        for f in s['figures']:
            same = [r for r in f['neighbours'] if r['verdict'] == 'same']
            if same:
                worst = max(r['rules_out'] for r in same)
                lines.append('  %s %s %s: %d of %d pairs, each rules out a change larger '
                             'than %.1f%% or less' % (s['arch'], s['command'], f['figure'],
                                                      len(same), len(s['kernels']) - 1, worst))
    if not any(r['verdict'] == 'same' for s in judged['streams'] for f in s['figures']
               for r in f['neighbours']):
        lines.append('  none')
    lines += boot_effect_lines(judged)
    for (arch, a, b), att in sorted(judged.get('attribution', {}).items()):
        lines.append('Debian changelog, %s -> %s (%s): %d KVM/mm entries, all in %s' % (
            a, b, arch, len(att['entries']), os.path.join(report, changelog_file(arch, a, b))
            if report else 'bench/track --attribute %s..%s --arch %s' % (a, b, arch)))
    for u in judged['unjudged']:
        lines.append('not judged: ' + u)
    for c in ch:
        r = c['r']
        lines.append('CHANGE kind=%s arch=%s command=%s figure=%s unit=%s from=%s to=%s '
                     'ratio=%.4g lo=%.4g hi=%.4g verdict=%s%s' % (
                         c['kind'].replace(' ', '-'), c['arch'], c['command'], c['figure'],
                         c['unit'].replace(' ', '_'), r['a_kernel'], r['b_kernel'], r['ratio'],
                         r['lo'], r['hi'], r['verdict'],
                         ' p=%.4g' % r['p'] if 'p' in r else ''))
    return '\n'.join(lines) + '\n'
