# SPDX-License-Identifier: GPL-2.0-only
"""kvmbench.verdicts.cover: the table a maintainer pastes into a cover letter,
from a comparison's results (bench/compare's compare.json): the command,
the base and the change (a patch's subject line), each figure that moved
with before, after, the change and its interval, and the figures that
did not move with the change they rule out.  Markdown or plain text."""

import math

from .render import Table


def fmt(v, unit):
    """A value with its unit, times scaled (ns -> us, ms, s)."""
    if unit == "ns":
        for div, u in ((1e9, "s"), (1e6, "ms"), (1e3, "us")):
            if abs(v) >= div:
                return "%.4g %s" % (v / div, u)
        return "%.4g ns" % v
    return "%.4g%s" % (v, " " + unit if unit and unit != "count" else "")


def pct(x):
    return "%+.1f%%" % x


def cover(command, base, change, results, level, runs):
    """(markdown, text) of the cover-letter table.  @results: compare.json's
    'results'; @level: the family's confidence (0.95); @runs: 'N of A, M of
    B, ...' (how they ran)."""
    moved = [r for r in results if r["verdict"] != "same"]
    still = [r for r in results if r["verdict"] == "same"]
    t = Table(["figure", "before", "after", "change", "interval (%g%%)" % (level * 100)])
    for r in moved:
        if math.isinf(r["ratio"]):
            # From 0 (a stat the base never moves): no ratio to give.
            by, ival = "from 0 (%s)" % r["verdict"], "A's median is 0"
        else:
            by = "%s (%s)" % (pct((r["ratio"] - 1) * 100), r["verdict"])
            ival = "[%s, %s]" % (pct((r["lo"] - 1) * 100), pct((r["hi"] - 1) * 100))
        t.add(r["figure"], fmt(r["a"]["median"], r["unit"]), fmt(r["b"]["median"], r["unit"]),
              by, ival)
    s = Table(["figure", "median", "rules out"])
    for r in still:
        same = r["lo"] == r["hi"] == 1.0
        s.add(r["figure"], fmt(r["a"]["median"], r["unit"]),
              "identical in every run" if same else "a change beyond +-%.1f%%" % r["rules_out"])
    head = [("Command", command), ("Base", base), ("Change", change), ("Runs", runs)]
    md = "".join("- **%s**: %s\n" % (k, "`%s`" % v if k == "Command" else v)
                 for k, v in head)
    tx = "".join("%s: %s\n" % (k, v) for k, v in head)
    md += "\nMoved:\n\n" + (t.markdown() if moved else "none\n")
    tx += "\nMoved:\n" + (t.text() if moved else "none\n")
    md += "\nDid not move (medians; what the %g%% interval rules out):\n\n" % (level * 100)
    tx += "\nDid not move (medians; what the %g%% interval rules out):\n" % (level * 100)
    md += s.markdown() if still else "none\n"
    tx += s.text() if still else "none\n"
    return md, tx


def write(path, md, tx):
    """--table FILE: FILE in Markdown, FILE.txt in plain text."""
    with open(path, "w", encoding="utf-8") as f:
        f.write(md)
    with open(path + ".txt", "w", encoding="utf-8") as f:
        f.write(tx)
