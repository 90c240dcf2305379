# SPDX-License-Identifier: GPL-2.0-only
"""kvmbench.verdicts.changepoint: change points over a stream of kernels,
E-Divisive means with a permutation test (Matteson and James, "A
nonparametric approach for multiple change point analysis of
multivariate data", JASA 2014; the method of Apache Otava, formerly
Hunter), written here for one figure's values.

The stream is groups (one a kernel, in stream order) of runs.  A change
point can only fall between two groups.  For a split of a segment into
X (the runs before) and Y (after), with alpha = 1:

  E = 2/(n m) sum |x - y| - 1/C(n,2) sum_{i<k} |x_i - x_k|
                          - 1/C(m,2) sum_{j<k} |y_j - y_k|
  Q = n m / (n + m) * E

the energy distance between the two, weighted by their sizes.  The
segment's candidate is the split with the largest Q; its significance
is a permutation test: the segment's runs shuffled over its groups
(keeping each group's size) PERMUTATIONS times, p = (1 + #{Q* >= Q}) /
(1 + PERMUTATIONS).  Hierarchically: the segment with the largest Q is
tested first; if p < the threshold it is split at that point and its
two halves join the others; the first test that fails ends the search.
Under no change at all (every run exchangeable) the first test falsely
finds a change with probability at most the threshold: that is the A/A
promise, simulated in bench/test_track.py.  The permutations are seeded
from the values, so the same runs always give the same change points.

Values are compared as logs when all are positive (a change is a ratio,
as in kvmbench.verdicts.stats).  Pure Python: |x - y| sums come from sorted
values (sum over pairs = sum (2k - n + 1) x_(k)), O(n log n) a split.
"""
import math
import random

PERMUTATIONS = 199
THRESHOLD = 0.01


def pair_sum(xs):
    """sum_{i<k} |x_i - x_k|."""
    s = sorted(xs)
    n = len(s)
    return math.fsum((2 * k - n + 1) * v for k, v in enumerate(s))


def q_stat(x, y):
    """Q of the split into @x and @y (sizes-weighted energy distance)."""
    n, m = len(x), len(y)
    if not n or not m:
        return 0.0
    wx, wy = pair_sum(x), pair_sum(y)
    between = pair_sum(list(x) + list(y)) - wx - wy
    e = 2 * between / (n * m)
    if n > 1:
        e -= wx / (n * (n - 1) / 2)
    if m > 1:
        e -= wy / (m * (m - 1) / 2)
    return n * m / (n + m) * e


def best_split(groups):
    """(Q, g): the largest Q over splits before group g = 1..len-1 of
    @groups (lists of values); (0.0, None) with one group."""
    best = (0.0, None)
    flat = [v for g in groups for v in g]
    cut = 0
    for g in range(1, len(groups)):
        cut += len(groups[g - 1])
        q = q_stat(flat[:cut], flat[cut:])
        if best[1] is None or q > best[0]:
            best = (q, g)
    return best


def p_value(groups, q, rng, permutations):
    """The permutation test of the segment @groups' best split @q."""
    flat = [v for g in groups for v in g]
    sizes = [len(g) for g in groups]
    hits = 0
    for _ in range(permutations):
        rng.shuffle(flat)
        shuffled, i = [], 0
        for s in sizes:
            shuffled.append(flat[i:i + s])
            i += s
        if best_split(shuffled)[0] >= q:
            hits += 1
    return (1 + hits) / (1 + permutations)


def seed_of(groups):
    return hash(tuple(round(v, 12) for g in groups for v in g)) & 0xffffffff


def transform(groups):
    """Log values when all are positive, else the values."""
    if all(v > 0 for g in groups for v in g):
        return [[math.log(v) for v in g] for g in groups]
    return [list(g) for g in groups]


def change_points(groups, threshold=THRESHOLD, permutations=PERMUTATIONS, seed=None):
    """E-Divisive means over @groups (a list, one a kernel, of the runs'
    values): [(g, p)] sorted by g, a change between groups g-1 and g
    found at permutation p-value p < @threshold."""
    if 1 / (1 + permutations) >= threshold:
        raise ValueError('%d permutations cannot give p < %g' % (permutations, threshold))
    groups = transform(groups)
    rng = random.Random(seed_of(groups) if seed is None else seed)
    segments = [(0, len(groups))]
    found = []
    while True:
        cands = []
        for lo, hi in segments:
            if hi - lo < 2:
                continue
            q, g = best_split(groups[lo:hi])
            if g is not None:
                cands.append((q, lo, hi, lo + g))
        if not cands:
            break
        q, lo, hi, g = max(cands)
        p = p_value(groups[lo:hi], q, rng, permutations)
        if p >= threshold:
            break
        found.append((g, p))
        segments.remove((lo, hi))
        segments += [(lo, g), (g, hi)]
    return sorted(found)


def segments_of(n, points):
    """[(lo, hi)] of groups between the change points @points ([(g, p)])."""
    cuts = [0] + [g for g, _ in points] + [n]
    return list(zip(cuts, cuts[1:]))
