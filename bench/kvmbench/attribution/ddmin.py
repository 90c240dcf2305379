# SPDX-License-Identifier: GPL-2.0-only
"""kvmbench.attribution.ddmin: delta debugging (Zeller's ddmin) over the units of a
change (files, or hunks), for bench/attribute.

The change is an ordered list of units; test(subset) builds the first
tree with that subset applied and judges it: 'bad' (it shows the
step), 'good' (it does not) or 'cannot' (it does not build or boot).
The whole change is bad (the second tree was measured so).  ddmin
returns a subset that is bad and from which no single chunk at the
finest granularity tried can be dropped: the smallest change that
carries the step.  A 'cannot' never ends the search: the subset is
joined with its neighbour chunk and tried again, and failing that the
split is made finer (more, smaller chunks; their complements are tried
too), so a header and its user are found together.

Every test is a verdict, and the verdicts' promise (a family error rate)
is split over the most tests the search may make (plan(n)), fixed
before the first build: a search that reaches that many stops
undecided rather than make one more verdict than was paid for.
"""
import math


def plan(n):
    """The most tests a search over @n units makes: 0 for one unit
    (nothing to search); else two a halving (a chunk and its neighbour
    joined, or the other chunk), ceil(log2 n) halvings, and two more
    for a 'cannot' the joins do not resolve."""
    if n <= 1:
        return 0
    return 2 * math.ceil(math.log2(n)) + 2


class Undecided(Exception):
    """The search ran out of its planned tests, or no subset tested bad."""


def split(units, n):
    """@units in @n contiguous chunks, as even as can be."""
    n = min(n, len(units))
    out, start = [], 0
    for i in range(n):
        end = start + (len(units) - start) // (n - i)
        out.append(units[start:end])
        start = end
    return out


def ddmin(units, test, budget):
    """The minimal bad subset of @units (a list, in order) by delta
    debugging with @test (subset -> 'bad' | 'good' | 'cannot'), making
    at most @budget tests: (subset, [(subset, outcome)] in the order
    tested).  Raises Undecided when the budget ends the search before a
    single unit is left and no smaller bad subset was found, with the
    smallest bad one in its args."""
    log, seen = [], {}

    def t(sub):
        key = tuple(sub)
        if key not in seen:
            if len(log) >= budget:
                raise Undecided(cur, log)
            seen[key] = test(list(sub))
            log.append((list(sub), seen[key]))
        return seen[key]

    cur, n = list(units), 2
    try:
        while len(cur) >= 2:
            chunks = split(cur, n)
            found = None
            for i, ch in enumerate(chunks):
                r = t(ch)
                if r == 'bad':
                    found, n = ch, 2
                    break
                if r == 'cannot' and len(chunks) > 2:
                    # Join it with its neighbour: a header and its user.
                    j = i + 1 if i + 1 < len(chunks) else i - 1
                    both = [u for u in cur if u in ch or u in chunks[j]]
                    if t(both) == 'bad':
                        found, n = both, 2
                        break
            if found is None and len(chunks) > 2:
                for ch in chunks:
                    comp = [u for u in cur if u not in ch]
                    if t(comp) == 'bad':
                        found, n = comp, max(n - 1, 2)
                        break
            if found is not None:
                cur = found
                continue
            if n >= len(cur):
                break
            n = min(2 * n, len(cur))
    except Undecided:
        if len(cur) > 1:
            raise
    return cur, log
