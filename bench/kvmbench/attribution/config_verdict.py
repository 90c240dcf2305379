# SPDX-License-Identifier: GPL-2.0-only
"""kvmbench.attribution.config_verdict: the suite's own verdict for a
config bisection (bench/config-bisect --patch): on each candidate
config, the tree built whole without and with the patches (vm/kvm-build
--whole --config CANDIDATE: one build directory for every candidate, so
each rebuilds what the options it changes are read by, and the patched
side only the patched files), both booted and run, B judged against A
as bench/bisect-run judges (stats.judge): bad when the patches' step
shows (B differs in the step's direction beyond the noise and by more
than the threshold), good when it does not, cannot test when a build or
boot fails.

    PatchVerdict(c, work, looks)   the verdict function bisect() calls
    plan(n)                        the most verdicts a bisection of N options makes"""

import math
import os
import sys

from kvmbench.base.errors import Fail
from kvmbench.verdicts.stats import judge
from kvmbench.kbuild import kvm_build
from .bisect import CannotTest, measure_side

GOOD, BAD, SKIP = "good", "bad", "skip"


def write_dotconfig(cfg, path):
    """CFG ({NAME: VALUE}) as a .config file."""
    with open(path, "w", encoding="utf-8") as f:
        for n in sorted(cfg):
            v = cfg[n]
            f.write(f"# CONFIG_{n} is not set\n" if v == "n" else f"CONFIG_{n}={v}\n")


def plan(n):
    """The verdicts a bisection of N differing options may make, fixed
    before the first build (the run count's family of looks): both ends,
    then a halving step per halving, twice over for the halves a failed
    build makes it try instead."""
    return 2 + 2 * max(1, math.ceil(math.log2(max(n, 2))))


class PatchVerdict:
    """verdict(config) for config_bisect.bisect(): @c the checked command
    line (src, arch, patches, figure, threshold, runs, direction, the VM's
    options, test, args); @work the scratch directory; @looks the plan."""

    def __init__(self, c, work, looks):
        self.c, self.work, self.looks = c, work, looks
        self.n = 0

    def side(self, config, side):
        """The figure's values of one side on CONFIG (A: the tree, B: with
        the patches), or None when it cannot be tested."""
        c = self.c
        try:
            desc = kvm_build.build_side(os.path.join(self.work, "kvm-" + side), arch=c.arch,
                                        src=c.src, patches=c.patches if side == "b" else [],
                                        whole=True, base=config)
        except Fail as e:
            print(f"bench/config-bisect: {e}: cannot test", file=sys.stderr)
            return None, ""
        out = os.path.join(self.work, "runs", f"{self.n:02d}-{side}")
        try:
            _, figs, units = measure_side(c, desc, out, "b", c.runs)
        except CannotTest:
            return None, ""
        vals = figs.get(c.figure)
        if not vals or len(vals) < 2:
            print(f"bench/config-bisect: {c.figure} missing or fewer than 2 runs passed: "
                  "cannot test", file=sys.stderr)
            return None, ""
        return vals, units.get(c.figure, "")

    def __call__(self, cfg):
        self.n += 1
        path = os.path.join(self.work, f"candidate-{self.n:02d}.config")
        write_dotconfig(cfg, path)
        a, unit = self.side(path, "a")
        b = self.side(path, "b")[0] if a else None
        if not b:
            print(f"STEP {self.n} cannot test", flush=True)
            return SKIP
        c = self.c
        bad, r = judge(c.figure, a, b, unit, c.threshold, looks=self.looks,
                       direction=c.direction)
        line = (f"STEP {self.n} patched vs not: {r['verdict']} " +
                " ".join(f"{k}={r[k]:.4f}" if r[k] is not None else f"{k}=-"
                         for k in ("ratio", "lo", "hi")) +
                f" runs={len(a)},{len(b)}: {'the step shows' if bad else 'no step'}")
        print(line, flush=True)
        return BAD if bad else GOOD
