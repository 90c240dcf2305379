#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-only
"""bench/stats.py: every statistic of the bench scripts, in one place.

Reads the JSON objects the perf tests write (--json FILE), one file per
run, and judges whether setup B differs from setup A, figure by figure:

  median, mean and standard deviation (epoll's AVG/SIG pair), min-max and
  relative spread of each side; B/A, the Hodges-Lehmann estimate of the
  shift of log values (the median of the n*m ratios of a run of B to a
  run of A), with its exact Mann-Whitney (Wilcoxon rank-sum) interval; a
  verdict: worse, better, or no change larger than X% either way.

The interval is distribution-free: for B = A shifted (a constant factor,
on log values) it holds the shift with at least the promised probability
for any continuous noise, skewed or bimodal, at every n, exactly (ties
only widen it).  It is simultaneous: with m figures that vary judged at
once, each interval is at level 1 - 0.05/m (Bonferroni), and with L looks
of a sequential comparison (--until) at 1 - 0.05/(m L), so that all of
them hold together with at least 95%.  Below the n where such an interval
exists (2/C(2n, n) <= 0.05/(m L)) there is no verdict: the comparison is
refused (exit 3 here; bench/compare exits 1).

Worse means slower for a time (ns), lower for a rate (/s), and more for a
counter (KVM binary stats per page, counts).  Nothing is random: the same
runs always give the same verdict.

Used by bench/compare (subcommand compare) and bench/bisect-run (judge);
tested by bench/test_stats.py.
"""
import argparse
import functools
import glob
import json
import math
import os
import re
import statistics
import sys

FAMILY_LEVEL = 0.95


# ---- statistics on plain lists ------------------------------------------

def summary(xs):
    """n, median, mean, sd (sample), min, max, spread (max-min)/|median|."""
    xs = sorted(xs)
    med = statistics.median(xs)
    mean = math.fsum(xs) / len(xs)
    var = math.fsum((x - mean) ** 2 for x in xs) / (len(xs) - 1) if len(xs) > 1 else 0.0
    return {
        'n': len(xs),
        'median': med,
        'mean': mean,
        'sd': math.sqrt(var),
        'min': xs[0],
        'max': xs[-1],
        'spread': (xs[-1] - xs[0]) / abs(med) if med else 0.0,
    }


@functools.lru_cache(maxsize=None)
def rank_sum_counts(n, m):
    """How many of the C(n+m, n) orderings of n A values among m B values
    give each Mann-Whitney count U = #{(i, j): b_j < a_i}, U = 0..n*m:
    the coefficients of the Gaussian binomial [n+m, n] in q, built as the
    product over i = 1..n of (1 - q^(m+i)) / (1 - q^i), exactly (ints)."""
    c = [1] + [0] * (n * m + n)
    for i in range(1, n + 1):
        a = m + i
        for u in range(len(c) - 1, a - 1, -1):
            c[u] -= c[u - a]
        for u in range(i, len(c)):
            c[u] += c[u - i]
    return tuple(c[:n * m + 1])


@functools.lru_cache(maxsize=None)
def rank_order(n, m, alpha):
    """The order k of the exact two-sided 1 - alpha interval for a shift:
    [d_(k), d_(nm+1-k)] of the n*m sorted differences b_j - a_i holds the
    true shift with probability 1 - 2 P(U <= k-1) >= 1 - alpha, for any
    continuous noise (ties only widen it).  0 if even k = 1 does not
    reach the level: too few runs."""
    c = rank_sum_counts(n, m)
    total = math.comb(n + m, n)
    k, tail = 0, 0
    while k < len(c) and 2 * (tail + c[k]) <= alpha * total:
        tail += c[k]
        k += 1
    return k


def min_runs(alpha):
    """The fewest runs a side (equal sides) for which the exact 1 - alpha
    interval exists: 2 / C(2n, n) <= alpha."""
    n = 1
    while 2 > alpha * math.comb(2 * n, n):
        n += 1
    return n


def shift_interval(a, b, alpha, logs):
    """Hodges-Lehmann shift of B against A (on log values if @logs) and
    its exact 1 - alpha interval: (shift, lo, hi); None with too few runs."""
    k = rank_order(len(a), len(b), alpha)
    if not k:
        return None
    fa = [math.log(x) for x in a] if logs else a
    fb = [math.log(x) for x in b] if logs else b
    d = sorted(y - x for x in fa for y in fb)
    return statistics.median(d), d[k - 1], d[-k]


def shift_ci(a, b, alpha):
    """Hodges-Lehmann shift of B against A and its exact Mann-Whitney
    interval at 1 - alpha, as a ratio B/A (ratio, lo, hi): on log values
    when every value is positive (the median of the n*m ratios b_j/a_i),
    else on the values themselves, relative to A's median (inf when that
    is 0).  None if the interval does not exist with so few runs."""
    logs = min(a) > 0 and min(b) > 0
    ci = shift_interval(a, b, alpha, logs)
    if ci is None:
        return None
    if logs:
        return tuple(math.exp(v) for v in ci)
    base = abs(statistics.median(a))

    def rel(v):
        if base:
            return 1 + v / base
        return 1.0 if v == 0 else math.copysign(math.inf, v)
    return tuple(rel(v) for v in ci)


def lower_is_better(unit):
    """Times and counters: less is better; rates (anything per second): more."""
    return not unit.endswith('/s')


def verdict(ratio, lo, hi, unit):
    """'worse', 'better' or 'same', and the change in percent [lo, hi]
    in the verdict's direction (positive: by how much worse or better)."""
    if lo <= 1 <= hi or math.isnan(ratio):
        return 'same', (ratio - 1) * 100, (lo - 1) * 100, (hi - 1) * 100
    higher = lo > 1
    worse = higher == lower_is_better(unit)
    if higher:
        pct = ((ratio - 1) * 100, (lo - 1) * 100, (hi - 1) * 100)
    else:
        pct = ((1 - ratio) * 100, (1 - hi) * 100, (1 - lo) * 100)
    return ('worse' if worse else 'better'), pct[0], pct[1], pct[2]


class TooFewRuns(Exception):
    """No interval at the promised level exists with these runs."""


def figure_alpha(family_level, m, looks=1):
    """Each figure's error rate: the family's, split over the m figures
    that vary and the looks of a sequential comparison (Bonferroni)."""
    return (1 - family_level) / (max(m, 1) * looks)


def compare_figures(a_figs, b_figs, units, family_level=None, looks=1):
    """Judge every figure present on both sides.

    a_figs, b_figs: {name: [values]}; units: {name: unit}.  Figures with
    the same constant value on both sides are 'same' without a test; the
    others share the family's error rate (Bonferroni), and so do the
    looks of a sequential comparison (--until).  Raises TooFewRuns when
    the exact interval does not exist at that level."""
    family_level = family_level or FAMILY_LEVEL
    names = [n for n in a_figs if n in b_figs and a_figs[n] and b_figs[n]]
    varying = [n for n in names
               if len(set(a_figs[n]) | set(b_figs[n])) > 1]
    m = max(len(varying), 1)
    alpha = figure_alpha(family_level, m, looks)
    out = []
    for n in names:
        a, b = a_figs[n], b_figs[n]
        r = lo = hi = 1.0
        if n in varying:
            ci = shift_ci(a, b, alpha)
            if ci is None:
                raise TooFewRuns(too_few_text(len(a), len(b), m, family_level, looks))
            r, lo, hi = ci
        v, pct, plo, phi = verdict(r, lo, hi, units[n])
        out.append({'figure': n, 'unit': units[n], 'a': summary(a),
                    'b': summary(b), 'ratio': r, 'lo': lo, 'hi': hi,
                    'verdict': v, 'pct': pct, 'pct_lo': plo, 'pct_hi': phi,
                    'rules_out': rules_out(lo, hi), 'family': family_level})
    return out, 1 - alpha, len(varying)


def too_few_text(n_a, n_b, m, family_level, looks=1):
    alpha = figure_alpha(family_level, m, looks)
    return ('too few runs for a verdict: %d of A and %d of B, but %g%% simultaneous over '
            '%d figures%s puts each at %.4g%%, where the exact interval needs at least %d '
            'runs a side (2/C(2n,n) <= %.3g)' %
            (n_a, n_b, family_level * 100, m,
             ' and %d looks' % looks if looks > 1 else '', (1 - alpha) * 100,
             min_runs(alpha), alpha))


def rules_out(lo, hi):
    """The largest change in either direction the interval leaves open,
    in percent: B/A outside [lo, hi] is ruled out."""
    return max(hi - 1, 1 - lo) * 100


def look_schedule(first, last):
    """The runs a side at each look of a sequential comparison: first,
    then 1.5 times more each look, up to last (always the last look)."""
    looks, n = [], first
    while n < last:
        looks.append(n)
        n = max(n + 1, math.ceil(n * 1.5))
    return looks + [last]


def widest(results, pct):
    """(resolved, the widest timing interval): resolved when every timing
    figure's interval lies within +-pct percent of its estimate."""
    worst, name = 0.0, None
    for r in results:
        if not is_timing(r) or not r['ratio'] or math.isinf(r['ratio']):
            continue
        w = max(r['hi'] / r['ratio'] - 1, 1 - r['lo'] / r['ratio']) * 100
        if w >= worst:
            worst, name = w, r['figure']
    return worst < pct, worst, name


# ---- the perf tests' JSON objects ----------------------------------------

STAT_TYPES = ('cumulative', 'linear_hist', 'log_hist')


def mode_tag(run, i):
    """A short name of a run's guest mode ('pa40 4K'), so that runs of
    the same mode are compared whatever modes each kernel offers."""
    m = re.match(r'PA-bits:(\w+),\s*VA-bits:\d+,\s*(\w+) pages', run.get('guest_mode', ''))
    if m:
        return 'pa%s %s' % (m.group(1).lower(), m.group(2))
    return run.get('options', {}).get('mode', i)


def run_figures(obj):
    """{figure: (value, unit)} of one test's JSON object: its figures and
    its cumulative KVM stats per page (vcpu.NAME/page, vm.NAME/page)."""
    out = {}
    runs = obj.get('runs', [])
    for i, run in enumerate(runs):
        tag = '' if len(runs) == 1 else '[%s]' % mode_tag(run, i)
        figs = run.get('figures', {})
        for name, f in figs.items():
            if isinstance(f.get('value'), (int, float)):
                out[name + tag] = (float(f['value']), f.get('unit', ''))
        pages = (figs.get('pages') or figs.get('checked') or {}).get('value')
        for scope, stats in run.get('stats', {}).items():
            for name, s in stats.items():
                if pages and s.get('type') in STAT_TYPES:
                    out['%s.%s/page%s' % (scope, name, tag)] = (s['delta'] / pages,
                                                                'per page')
    return out


def load_side(paths):
    """{figure: [values]} and {figure: unit} over the JSON files; a stat
    that did not move in a run counts 0 there."""
    figs, units, runs = {}, {}, []
    for p in paths:
        with open(p) as f:
            runs.append(run_figures(json.load(f)))
    for r in runs:
        for name, (_, unit) in r.items():
            units[name] = unit
    for name, unit in units.items():
        for r in runs:
            if name in r:
                figs.setdefault(name, []).append(r[name][0])
            elif unit == 'per page':
                figs.setdefault(name, []).append(0.0)
    return figs, units


def side_hosts(paths):
    """'kernel RELEASE (ARCH, KVM: modules) xN' for the runs in @paths."""
    seen = {}
    for p in paths:
        with open(p) as f:
            o = json.load(f)
        key = 'kernel %s (%s, KVM: %s)' % (o.get('kernel', {}).get('release', '?'),
                                          o.get('arch', '?'),
                                          ','.join(sorted(o.get('kvm', {}).get('modules', []))))
        seen[key] = seen.get(key, 0) + 1
    return '; '.join('%s x%d' % kv for kv in seen.items())


def side_files(d):
    return sorted(glob.glob(os.path.join(d, '*.json')))


# ---- --profile: kernel functions' share of samples ---------------------------

PROFILE_MIN_SHARE = 0.5     # percent, pooled over both sides: the functions judged
PROFILE_TOP = 10


def load_profiles(paths, phase=None):
    """Per run (JSON file): {function: percent of the kernel samples of
    the test's threads} (in @phase only, if given), and those samples in
    ms; runs without a profile are left out."""
    shares, ms = [], []
    for p in paths:
        with open(p) as f:
            obj = json.load(f)
        funcs, total = {}, 0
        profs = [r['profile'] for r in obj.get('runs', []) if 'profile' in r]
        if not profs:
            continue
        period = profs[0].get('period_ns', 0)
        for prof in profs:
            got = prof['functions'] if not phase else prof.get('phases', {}).get(phase, {})
            total += sum(got.values())
            for name, n in got.items():
                funcs[name] = funcs.get(name, 0) + n
        shares.append({k: 100.0 * v / total for k, v in funcs.items()} if total else {})
        ms.append(dict({k: v * period / 1e6 for k, v in funcs.items()},
                       **{'[all kernel samples]': total * period / 1e6}))
    return shares, ms


def compare_profiles(a_paths, b_paths, family_level=None, phase=None):
    """The functions with at least PROFILE_MIN_SHARE percent of the pooled
    samples (chosen without looking at which side they came from), each
    with the Hodges-Lehmann shift of its share in percentage points B-A
    and its exact interval, simultaneous over those functions.  Returns
    (rows by |shift|, most first; the per-function level or None when too
    few runs for any interval; the functions judged)."""
    a, a_ms = load_profiles(a_paths, phase)
    b, b_ms = load_profiles(b_paths, phase)
    if not a or not b:
        return [], None, 0
    names = set().union(*a, *b)
    pooled = {n: statistics.fmean([r.get(n, 0.0) for r in a + b]) for n in names}
    judged = sorted(n for n in names if pooled[n] >= PROFILE_MIN_SHARE)
    alpha = figure_alpha(family_level or FAMILY_LEVEL, len(judged))
    rows = []
    for n in judged:
        xa = [r.get(n, 0.0) for r in a]
        xb = [r.get(n, 0.0) for r in b]
        ci = shift_interval(xa, xb, alpha, False)
        shift = statistics.median([y - x for x in xa for y in xb])
        rows.append({'function': n, 'a': statistics.median(xa), 'b': statistics.median(xb),
                     'a_ms': statistics.median([r.get(n, 0.0) for r in a_ms]),
                     'b_ms': statistics.median([r.get(n, 0.0) for r in b_ms]),
                     'shift': shift, 'lo': ci[1] if ci else None,
                     'hi': ci[2] if ci else None,
                     'verdict': ('same' if not ci or ci[1] <= 0 <= ci[2] else
                                 'more' if ci[1] > 0 else 'less')})
    rows.sort(key=lambda r: (-abs(r['shift']), r['function']))
    ok = rank_order(len(a), len(b), alpha) > 0
    total = '[all kernel samples]'
    rows.append({'function': total, 'a': 100.0, 'b': 100.0, 'shift': 0.0, 'lo': 0.0,
                 'hi': 0.0, 'verdict': 'same',
                 'a_ms': statistics.median([r[total] for r in a_ms]),
                 'b_ms': statistics.median([r[total] for r in b_ms])})
    return rows, (1 - alpha) if ok else None, len(judged)


def print_profile(rows, level, judged, n_a, n_b, family_level, phase=None, out=None):
    out = out or sys.stdout
    print('\nkernel functions whose share of the samples changed most (--profile: CPU-clock '
          'samples of the test\'s threads in the kernel while timed%s; %d runs of A, %d of B; '
          'B-A in percentage points, Hodges-Lehmann, [lo, hi] exact, simultaneous %g%% over '
          'the %d functions with >= %g%% of the samples%s):' %
          (', phase %s only' % phase if phase else '', n_a, n_b, family_level * 100,
           judged, PROFILE_MIN_SHARE,
           '' if level else '; too few runs for intervals at that level: no verdict'), file=out)
    if not rows:
        print('  (no function with that share)', file=out)
        return
    shown = rows[:PROFILE_TOP] + rows[-1:]     # the last: all samples, in ms
    w = max(len(r['function']) for r in shown)
    print('  %-*s %8s %8s %9s %9s  %-20s %s' % (w, 'function', 'A %', 'B %', 'A ms', 'B ms',
                                               'B-A [lo, hi]', 'verdict'), file=out)
    for r in shown:
        iv = '[%.2f, %.2f]' % (r['lo'], r['hi']) if level else ''
        print('  %-*s %8.2f %8.2f %9.2f %9.2f  %-20s %s' %
              (w, r['function'], r['a'], r['b'], r['a_ms'], r['b_ms'],
               '%+.2f %s' % (r['shift'], iv), r['verdict'] if level else '-'), file=out)
    for r in rows[:-1]:
        print('PROFILE function=%s a=%.4g b=%.4g shift=%.4g lo=%s hi=%s verdict=%s' %
              (r['function'].replace(' ', '_'), r['a'], r['b'], r['shift'],
               fmt_exact(r['lo']) if level else 'nan', fmt_exact(r['hi']) if level else 'nan',
               r['verdict'] if level else 'none'), file=out)


# ---- printing ------------------------------------------------------------

def fmt(v):
    if v is None or (isinstance(v, float) and math.isnan(v)):
        return 'nan'
    if math.isinf(v):
        return 'inf'
    a = abs(v)
    if a and (a >= 1e7 or a < 1e-3):
        return '%.3e' % v
    if a >= 100:
        return '%.0f' % v
    return '%.4g' % v


def verdict_text(r):
    if r['verdict'] == 'same':
        if constant(r):
            return 'no difference: the same in every run'
        if math.isinf(r['rules_out']) or math.isnan(r['rules_out']):
            return "no difference beyond the noise (A's median is 0: no bound in %)"
        return 'no change larger than %.3g%% in either direction at %g%%' % (
            r['rules_out'], r.get('family', FAMILY_LEVEL) * 100)
    return 'B %s by %.1f%% [%.1f, %.1f]' % (r['verdict'], r['pct'], r['pct_lo'],
                                          r['pct_hi'])


def constant(r):
    """The same value in every run of both sides."""
    return r['a']['min'] == r['a']['max'] == r['b']['min'] == r['b']['max']


def is_timing(r):
    return r['unit'] == 'ns' or r['unit'].endswith('/s')


def print_table(results, out=None):
    """Two rows a figure, A then B, the ratio and verdict on B's row;
    timings first; figures constant over all runs of both sides in one
    line at the end."""
    out = out or sys.stdout
    rows = sorted((r for r in results if not constant(r)), key=lambda r: not is_timing(r))
    w = max([len('%s (%s)' % (r['figure'], r['unit'])) for r in rows] + [12])
    print('%-*s %4s %10s %10s %10s %23s %7s  %-24s %s' %
          (w, 'figure (unit)', '', 'median', 'mean', 'sd', '[min-max]', 'spread',
           'B/A [lo, hi]', 'verdict'), file=out)
    for r in rows:
        for side in 'ab':
            s = r[side]
            name = '%s (%s)' % (r['figure'], r['unit']) if side == 'a' else ''
            tail = ''
            if side == 'b':
                tail = '  %-24s %s' % ('%s [%s, %s]' % (fmt(r['ratio']), fmt(r['lo']),
                                                        fmt(r['hi'])), verdict_text(r))
            print('%-*s %4s %10s %10s %10s %23s %6.1f%%%s' %
                  (w, name, side.upper(), fmt(s['median']), fmt(s['mean']),
                   fmt(s['sd']), '[%s-%s]' % (fmt(s['min']), fmt(s['max'])),
                   s['spread'] * 100, tail), file=out)
    same = ['%s=%s' % (r['figure'], fmt(r['a']['median'])) for r in results if constant(r)]
    if same:
        print('the same in every run of A and B: ' + ', '.join(same), file=out)


def verdict_line(r):
    return ('VERDICT figure=%s unit=%s a=%s b=%s ratio=%s lo=%s hi=%s rules_out=%s '
            'verdict=%s' %
            (r['figure'], r['unit'].replace(' ', '_'), fmt_exact(r['a']['median']),
             fmt_exact(r['b']['median']), fmt_exact(r['ratio']), fmt_exact(r['lo']),
             fmt_exact(r['hi']), fmt_exact(r['rules_out']), r['verdict']))


def fmt_exact(v):
    return 'inf' if math.isinf(v) else ('nan' if math.isnan(v) else '%.6g' % v)


# ---- the plot ------------------------------------------------------------



def default_plot(results):
    """Up to four timings: those that moved first."""
    timing = [r for r in results if is_timing(r)]
    timing.sort(key=lambda r: r['verdict'] == 'same')
    return [r['figure'] for r in timing[:4]]


def write_plot(results, figures, a_figs, b_figs, prefix, title):
    """Data and a gnuplot script drawing both distributions of each
    chosen figure (each run a point, the medians as bars); returns the
    script's path."""
    chosen = [r for r in results if r['figure'] in figures]
    if not chosen:
        return None
    rows = len(chosen)
    script = [
        'set terminal pngcairo size 720,%d font ",9"' % (150 * rows + 40),
        "set output '%s.png'" % prefix, 'set termoption noenhanced',
        'set multiplot layout %d,1 title "%s" margins 0.14,0.97,%.3f,%.3f spacing 0,0.16'
        % (rows, title.replace('"', "'"), 20.0 / (150 * rows + 40), 1 - 40.0 / (150 * rows + 40)),
        'set xrange [0.4:2.6]', 'set xtics ("A" 1, "B" 2)', 'unset key',
    ]
    for i, r in enumerate(chosen):
        data = '%s.%d.dat' % (prefix, i)
        with open(data, 'w') as f:
            for x, vals in ((1, a_figs[r['figure']]), (2, b_figs[r['figure']])):
                for j, v in enumerate(vals):
                    jit = ((j * 7919) % 21 - 10) / 60.0
                    f.write('%g %r\n' % (x + jit, v))
                f.write('\n\n')
        script += [
            'set title "%s (%s): %s" offset 0,-0.5' % (r['figure'], r['unit'],
                                                     verdict_text(r)),
            'set ylabel "%s"' % r['unit'],
            'plot "%s" index 0 with points pt 7 ps 0.6 lc rgb "#1f77b4", '
            '"%s" index 1 with points pt 7 ps 0.6 lc rgb "#d62728", '
            '%r with lines lc rgb "#1f77b4" dt 2, %r with lines lc rgb "#d62728" dt 2'
            % (data, data, r['a']['median'], r['b']['median']),
        ]
    script.append('unset multiplot')
    path = prefix + '.gp'
    with open(path, 'w') as f:
        f.write('\n'.join(script) + '\n')
    return path


# ---- subcommands -----------------------------------------------------------

def cmd_compare(args):
    a_figs, a_units = load_side(side_files(args.a))
    b_figs, b_units = load_side(side_files(args.b))
    if not a_figs or not b_figs:
        print('stats.py: no figures: A has %d runs, B %d' %
              (len(side_files(args.a)), len(side_files(args.b))), file=sys.stderr)
        return 1
    units = dict(b_units, **a_units)
    try:
        results, level, m = compare_figures(a_figs, b_figs, units, args.level / 100,
                                            args.looks)
    except TooFewRuns as e:
        print('stats.py: %s; no verdict' % e, file=sys.stderr)
        return 3
    if args.figures:
        wanted = args.figures.split(',')
        results = [r for r in results
                   if r['figure'] in wanted or is_timing(r) or r['verdict'] != 'same']
    for side, d in (('A', args.a), ('B', args.b)):
        print('%s ran on %s' % (side, side_hosts(side_files(d))))
    print('%d runs of A, %d of B; B/A is the Hodges-Lehmann shift of log values (the '
          'median of the ratios of each run of B to each of A), [lo, hi] its exact '
          'Mann-Whitney interval, simultaneous %g%% over the %d figures that vary%s '
          '(Bonferroni: each at %.3f%%)' %
          (len(side_files(args.a)), len(side_files(args.b)), args.level, m,
           ' and %d looks' % args.looks if args.looks > 1 else '', level * 100))
    print_table(results)
    prof, prof_level, judged = compare_profiles(side_files(args.a), side_files(args.b),
                                                args.level / 100, args.profile_phase)
    if judged or prof:
        print_profile(prof, prof_level, judged, len(side_files(args.a)),
                      len(side_files(args.b)), args.level / 100, args.profile_phase)
    print()
    for r in results:
        print(verdict_line(r))
    if args.json:
        with open(args.json, 'w') as f:
            json.dump({'title': args.title, 'family_level': args.level / 100,
                       'figure_level': level, 'looks': args.looks,
                       'method': 'hodges-lehmann log shift, exact mann-whitney interval',
                       'results': results, 'profile': prof,
                       'samples': {'a': a_figs, 'b': b_figs}}, f, indent=1)
    if args.plot:
        figs = args.figures.split(',') if args.figures else default_plot(results)
        gp = write_plot(results, figs, a_figs, b_figs, args.plot, args.title or '')
        if gp:
            print('plot script: %s' % gp, file=sys.stderr)
    return 0


def baseline_values(path, figure):
    """The baseline samples of @figure: a bench/compare JSON (side A, or
    B with FILE:b), or a directory of the perf tests' JSON files."""
    side = 'a'
    if path.endswith(':a') or path.endswith(':b'):
        path, side = path[:-2], path[-1]
    if os.path.isdir(path):
        figs, units = load_side(side_files(path))
        return figs.get(figure), units.get(figure)
    with open(path) as f:
        obj = json.load(f)
    for r in obj.get('results', []):
        if r['figure'] == figure:
            return obj['samples'][side][figure], r['unit']
    return None, None


def cmd_judge(args):
    """Exit 0 (good), 1 (bad), 2 (figure missing): B is bad if it is worse
    beyond the noise and by more than the threshold."""
    base, unit = baseline_values(args.baseline, args.figure)
    figs, units = load_side(side_files(args.b))
    if not base or args.figure not in figs:
        print('stats.py: figure %s not in the %s' %
              (args.figure, 'baseline' if not base else 'runs'), file=sys.stderr)
        return 2
    try:
        res, _, _ = compare_figures({args.figure: base}, {args.figure: figs[args.figure]},
                                    {args.figure: unit or units[args.figure]})
    except TooFewRuns as e:
        print('stats.py: %s; no verdict' % e, file=sys.stderr)
        return 3
    r = res[0]
    bad = r['verdict'] == 'worse' and r['pct'] > args.threshold
    print_table(res)
    print(verdict_line(r))
    print('JUDGE figure=%s threshold=%g%% verdict=%s' %
          (args.figure, args.threshold, 'bad' if bad else 'good'))
    return 1 if bad else 0


def cmd_until(args):
    """Exit 0 when every timing's interval at this look is narrower than
    +-pct, 1 when not yet, 3 when too few runs for an interval."""
    a_figs, a_units = load_side(side_files(args.a))
    b_figs, b_units = load_side(side_files(args.b))
    n_a, n_b = len(side_files(args.a)), len(side_files(args.b))
    try:
        results, _, _ = compare_figures(a_figs, b_figs, dict(b_units, **a_units),
                                        args.level / 100, args.looks)
    except TooFewRuns:
        print('UNTIL runs=%d,%d resolved=no widest=inf figure=none' % (n_a, n_b))
        return 3
    ok, w, name = widest(results, args.pct)
    print('UNTIL runs=%d,%d resolved=%s widest=%.3g figure=%s' %
          (n_a, n_b, 'yes' if ok else 'no', w, name))
    return 0 if ok else 1


def runs_to_decide(logs, change, alpha, power=0.8):
    """Runs a side for the exact interval (each at 1 - alpha) to exclude
    no change with probability @power when B is @change (0.05: 5%) slower:
    the normal-theory count from a robust sd of the log values (1.4826
    MAD), over the rank test's efficiency against the t-test (3/pi)."""
    med = statistics.median(logs)
    sd = 1.4826 * statistics.median([abs(x - med) for x in logs])
    z = statistics.NormalDist().inv_cdf
    n = 2 * ((z(1 - alpha / 2) + z(power)) * sd / math.log(1 + change)) ** 2 / (3 / math.pi)
    return max(math.ceil(n), min_runs(alpha)), sd


def cmd_spread(args):
    """The A/A spread of each timing in runs of one setup (both sides
    pooled when given two directories), and the runs a side to decide a
    --change with 80% power, each figure at the family level split over
    the timings (Bonferroni)."""
    figs, units = {}, {}
    for d in args.dirs:
        f, u = load_side(side_files(d))
        units.update(u)
        for k, v in f.items():
            figs.setdefault(k, []).extend(v)
    timings = [k for k in figs if is_timing({'unit': units[k]}) and min(figs[k]) > 0
               and (not args.figures or k in args.figures.split(','))]
    alpha = figure_alpha(args.level / 100, len(timings))
    print('| figure | runs | median | spread (max-min)/median | robust sd of log | '
          'runs a side to decide %g%% |' % (args.change * 100))
    print('| --- | --- | --- | --- | --- | --- |')
    for k in timings:
        s = summary(figs[k])
        n, sd = runs_to_decide([math.log(x) for x in figs[k]], args.change, alpha)
        print('| %s (%s) | %d | %s | %.1f%% | %.3f | %d |' %
              (k, units[k], s['n'], fmt(s['median']), s['spread'] * 100, sd, n))
    print('(each figure at %.4g%%: %g%% simultaneous over %d timings; 80%% power)' %
          ((1 - alpha) * 100, args.level, len(timings)))
    return 0


def main(argv):
    ap = argparse.ArgumentParser(prog='bench/stats.py', description=__doc__.split('\n')[0])
    sub = ap.add_subparsers(dest='cmd', required=True)
    c = sub.add_parser('compare', help='table and VERDICT lines for A against B')
    c.add_argument('a', help='directory of A runs (JSON files)')
    c.add_argument('b', help='directory of B runs')
    c.add_argument('--json', help='write the comparison here')
    c.add_argument('--plot', help='prefix of the plot files (PREFIX.gp, .png)')
    c.add_argument('--figures', help='comma-separated figures to plot')
    c.add_argument('--title', default='')
    c.add_argument('--level', type=float, default=FAMILY_LEVEL * 100,
                   help='simultaneous confidence level in percent (default 95)')
    c.add_argument('--profile-phase', help="--profile: compare this phase's samples only")
    c.add_argument('--looks', type=int, default=1,
                   help='looks of a sequential comparison the level is split over')
    j = sub.add_parser('judge', help='good/bad of one figure against a baseline')
    j.add_argument('b', help='directory of the runs to judge')
    j.add_argument('--baseline', required=True)
    j.add_argument('--figure', required=True)
    j.add_argument('--threshold', type=float, required=True)
    u = sub.add_parser('until', help='is every timing resolved to +-PCT at this look?')
    u.add_argument('a')
    u.add_argument('b')
    u.add_argument('--pct', type=float, required=True)
    u.add_argument('--looks', type=int, required=True)
    u.add_argument('--level', type=float, default=FAMILY_LEVEL * 100)
    sp = sub.add_parser('spread', help='A/A spread of the timings, runs to decide a change')
    sp.add_argument('dirs', nargs='+', help='directories of runs of one setup')
    sp.add_argument('--change', type=float, default=0.05)
    sp.add_argument('--figures', help='comma-separated timings (default: all)')
    sp.add_argument('--level', type=float, default=FAMILY_LEVEL * 100)
    s = sub.add_parser('schedule', help='runs a side at each look: FIRST .. LAST')
    s.add_argument('first', type=int)
    s.add_argument('last', type=int)
    args = ap.parse_args(argv)
    if args.cmd == 'schedule':
        print(' '.join(map(str, look_schedule(args.first, args.last))))
        return 0
    return {'compare': cmd_compare, 'judge': cmd_judge, 'until': cmd_until,
            'spread': cmd_spread}[args.cmd](args)


if __name__ == '__main__':
    sys.exit(main(sys.argv[1:]))
