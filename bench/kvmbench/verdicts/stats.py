# SPDX-License-Identifier: GPL-2.0-only
"""kvmbench.verdicts.stats: every statistic of the bench scripts, in one place.

Given each figure's values in the runs of setup A and of setup B
(kvmbench.verdicts.results reads them from the perf tests' JSON files), judges
whether B differs from A, figure by figure:

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

Used by bench/compare and bench/bisect-run, and on the command line
through bench/stats.py (kvmbench.verdicts.stats_cli); tested by bench/test_stats.py.
"""
import functools
import math
import statistics

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


def least_runs(family_level=None, looks=1, other=None):
    """The fewest runs a side can have and still reach a verdict: the
    exact interval of one figure (the most lenient case: every further
    figure that varies splits the level more) at the family level over
    @looks looks, the other side having @other runs (None: as many).
    Below it no run can decide, whatever the runs measure."""
    alpha = figure_alpha(family_level or FAMILY_LEVEL, 1, looks)
    if other is None:
        return min_runs(alpha)
    if other < 1:
        return None
    n = 1
    while not rank_order(n, other, alpha):     # C(n + other, n) grows with n
        n += 1
    return n


def runs_refusal(n, family_level=None, looks=1, other=None, opt='--runs'):
    """'' if @n runs a side can reach a verdict, else the one line that
    says the least (bench/compare, bench/bisect-run refuse before any
    build or boot)."""
    least = least_runs(family_level, looks, other)
    if least is not None and n >= least:
        return ''
    level = (family_level or FAMILY_LEVEL) * 100
    against = ' against the baseline\'s %d' % other if other is not None else ' a side'
    if least is None:
        return ('%d runs cannot reach a verdict against a baseline of %d: no run count can '
                '(measure a baseline of more runs)' % (n, other))
    return ('%s %d cannot reach a verdict: at %g%%%s the exact interval needs at least '
            '%d runs%s' % (opt, n, level, ' over %d looks' % looks if looks > 1 else '', least,
                           against))


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


def judge(figure, base, cand, unit, threshold, looks=1, direction='worse'):
    """bench/bisect-run's verdict on one figure: (bad, the compare_figures
    result) of the runs @cand against @base, bad when @cand differs in
    @direction ('worse' or 'better') beyond the noise and by more than
    @threshold percent; @looks verdicts share the family's error rate
    (each at 5%/looks).  Raises TooFewRuns."""
    res, _, _ = compare_figures({figure: base}, {figure: cand}, {figure: unit}, looks=looks)
    r = res[0]
    return r['verdict'] == direction and r['pct'] > threshold, r


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


# ---- --profile: kernel functions' share of samples ---------------------------

PROFILE_MIN_SHARE = 0.5     # percent, pooled over both sides: the functions judged
PROFILE_TOP = 10
PROFILE_FUNCTIONS = 50      # the functions judged that profile_runs() is sized for


def profile_runs(family_level=None):
    """The fewest runs a side for which compare_profiles() has intervals
    over PROFILE_FUNCTIONS judged functions (7 at 95%)."""
    return min_runs(figure_alpha(family_level or FAMILY_LEVEL, PROFILE_FUNCTIONS))


def profile_moved(rows, level):
    """The rows of compare_profiles() whose share moved beyond the noise:
    verdict more or less, i.e. the simultaneous interval excludes 0
    (none without intervals, @level None), most moved first."""
    if not level:
        return []
    return [r for r in rows if r['verdict'] in ('more', 'less')]


def compare_profiles(a_prof, b_prof, family_level=None):
    """The functions with at least PROFILE_MIN_SHARE percent of the pooled
    samples (chosen without looking at which side they came from), each
    with the Hodges-Lehmann shift of its share in percentage points B-A
    and its exact interval, simultaneous over those functions.  Returns
    (rows by |shift|, most first; the per-function level or None when too
    few runs for any interval; the functions judged).  @a_prof, @b_prof:
    (shares, ms) of each side's runs (kvmbench.verdicts.results.load_profiles)."""
    a, a_ms = a_prof
    b, b_ms = b_prof
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


def constant(r):
    """The same value in every run of both sides."""
    return r['a']['min'] == r['a']['max'] == r['b']['min'] == r['b']['max']


def is_timing(r):
    return r['unit'] == 'ns' or r['unit'].endswith('/s')


def median_min_max(xs):
    """(median, min, max) of @xs; (0, 0, 0) for none."""
    if not xs:
        return 0, 0, 0
    return statistics.median(xs), min(xs), max(xs)


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


def target(value, base, least):
    """(value / base, 'met' or 'MISSED'): is @value at least @least times
    @base?  A target on medians, such as bench/table demand_paging's
    "epoll at 16 readers at least 0.9x its 1-reader rate".  The ratio is
    inf for a zero @base (nan when @value is 0 too)."""
    if base:
        ratio = value / base
    else:
        ratio = math.nan if value == 0 else math.copysign(math.inf, value)
    return ratio, 'met' if value >= least * base else 'MISSED'
