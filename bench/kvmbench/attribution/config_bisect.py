# SPDX-License-Identifier: GPL-2.0-only
"""kvmbench.attribution.config_bisect: the Kconfig options that carry a step between two
configs of one tree, bisected as ktest's config-bisect does: half of the
options that differ between the good and the bad config set as the bad
one has them on the good one, the dependencies resolved by `make
olddefconfig`, the result judged; the half that carries the step is kept
and split again, until one option (or a group olddefconfig will not
part) is left.

    bisect(good, bad, resolve, verdict)   the search (configs as {NAME: VALUE})
    olddefconfig(src, arch, work)         a resolve function on a real tree
    command_verdict(cmd)                  a verdict from a command's exit
                                          status, as git bisect run reads it

The command (bench/config-bisect, main()) takes the two .config files, the
tree and the verdict command, or with --patch judges with the suite's
own verdicts (config_verdict).  The tree and configs given are only
read."""

import argparse
import os
import subprocess
import sys
import time

from kvmbench.base.errors import Fail, UsageError
from kvmbench.kbuild import kvm_tree
from .config_verdict import BAD, GOOD, SKIP, write_dotconfig
from kvmbench.vmrun.cli import Parser, Usage, test_command

PROG = "bench/config-bisect"
TOOLCHAIN = ("CC_VERSION_TEXT", "GCC_VERSION", "LD_VERSION", "AS_VERSION", "PAHOLE_VERSION",
             "CLANG_VERSION", "LLD_VERSION", "RUSTC_VERSION", "RUSTC_LLVM_VERSION")


def differing(a, b):
    """The option names whose values differ between configs A and B (an
    absent option is off), the toolchain's versions aside, sorted."""
    return sorted(n for n in set(a) | set(b)
                  if a.get(n, "n") != b.get(n, "n") and n not in TOOLCHAIN)


def with_options(base, src, names):
    """BASE with the options NAMES as config SRC has them."""
    out = dict(base)
    for n in names:
        out[n] = src.get(n, "n")
    return out


class Result:
    """The search's end: the options left (names), the steps (one a
    verdict: the options tried, the verdict, seconds) and why it ended."""

    def __init__(self):
        self.options, self.steps, self.why = [], [], ""
        self.good, self.bad = {}, {}

    def __repr__(self):
        return f"Result({self.options}, {self.why!r})"


def bisect(good, bad, resolve, verdict, log=None, max_steps=64, settable=None):
    """The options of BAD ({NAME: VALUE}) that carry its step over GOOD.

    RESOLVE(config) -> config after make olddefconfig; VERDICT(config) ->
    GOOD, BAD or SKIP (cannot test: a build that fails).  Both ends are
    judged first: GOOD must be good and BAD bad, else nothing is named (an
    A/A pair, or a step the config does not carry).  Each step sets half
    the differing options (after resolution: a half olddefconfig undoes
    is no step) and keeps the half whose verdict differs; SKIP tries the
    other half, then smaller pieces.  A group olddefconfig does not part
    is narrowed, with no verdict, to the option of it (of SETTABLE, the
    options with a prompt, when given) that brings all of it alone (the
    others are what it selects); then the settable ones it brings are set
    back, one at a time, on the bad end (those that take the fewest others
    with them first, a verdict each): one whose going takes the step away
    is named instead (AMD_IOMMU brings KVM_AMD_SEV, which carries it).
    Returns a Result."""
    say = log or (lambda msg: None)
    res = Result()
    g, b = resolve(good), resolve(bad)
    diff = differing(g, b)
    if not diff:
        res.why = "the two configs are the same after olddefconfig: nothing differs"
        return res

    def judge(cfg, what):
        t0 = time.monotonic()
        v = verdict(cfg)
        res.steps.append((what, v, round(time.monotonic() - t0, 1)))
        say(f"config-bisect: {what}: {v}")
        return v

    if judge(g, f"good end ({len(diff)} options differ)") != GOOD:
        res.why = "the good config is not good: no step to bisect"
        return res
    if judge(b, "bad end") != BAD:
        res.why = "the bad config does not show the step: the config does not carry it"
        return res
    cand = differing(g, b)
    while len(res.steps) < max_steps and len(differing(g, b)) > 1 and len(cand) > 1:
        half = (len(cand) + 1) // 2
        h1, h2 = cand[:half], cand[half:]
        t1 = resolve(with_options(g, b, h1))
        # A half that olddefconfig turns into the bad end carries all of
        # it (look inside it, no verdict needed); one it leaves at the
        # good end is inert (the other half carries it).
        if not differing(t1, b):
            cand = h1
            continue
        if not differing(t1, g):
            h1 = h2
            t1 = resolve(with_options(g, b, h2))
            if not differing(t1, b):
                cand = h2
                continue
            if not differing(t1, g):
                break       # neither half alone changes anything: bound together
        v = judge(t1, f"{len(h1)} of {len(differing(g, b))}: " + " ".join(h1[:6]) +
                  (" ..." if len(h1) > 6 else ""))
        if v == SKIP:
            t1, v = skip_around(g, b, cand, resolve, judge)
        if v == BAD:
            b = t1
        elif v == GOOD:
            g = t1
        else:
            res.why = "no piece of the difference can be tested (every build of it " \
                "failed)"
            break
        cand = differing(g, b)
    res.options = differing(g, b)
    if len(res.options) > 1 and len(res.steps) < max_steps:
        group = [o for o in res.options if settable is None or o in settable]
        root = next((o for o in group if not differing(resolve(with_options(g, b, [o])), b)),
                    None)
        if root:
            say(f"config-bisect: {root} brings the other {len(res.options) - 1} with it")
            # What it brings may carry the step alone: undone one at a
            # time on the bad end (olddefconfig lets an option that needs
            # the root go, not the root stay without what it selects).
            leaf = carrier(g, b, [o for o in group if o != root], resolve, judge,
                           max_steps - len(res.steps))
            res.why = f"one option left, with the {len(res.options) - 1} it selects"
            res.options = [root]
            if leaf:
                res.options, res.why = [leaf], \
                    f"one option left: the bad config with {leaf} as the good one has " \
                    f"it does not show the step ({root} brings it)"
    if not res.why:
        res.why = "one option left" if len(res.options) == 1 else \
            f"{len(res.options)} options olddefconfig does not part" \
            if len(res.steps) < max_steps else f"stopped after {max_steps} verdicts"
    res.good, res.bad = g, b
    return res


def carrier(g, b, group, resolve, judge, budget):
    """The option of GROUP (options of a group the search could not part)
    that, set alone on the bad config B as the good config G has it,
    takes the step away (judged GOOD): those that take the fewest other
    options with them first; None when none does within BUDGET verdicts
    (or none parts the group: each takes all of it, or nothing)."""
    whole = len(differing(g, b))
    tries = []
    for o in group:
        t = resolve(with_options(b, g, [o]))
        n = len(differing(t, b))
        if 0 < n < whole:
            tries.append((n, o, t))
    for n, o, t in sorted(tries, key=lambda x: x[:2])[:max(budget, 0)]:
        if judge(t, f"the bad end with {o} as the good end has it ({n} options change)") == \
                GOOD:
            return o
    return None


def skip_around(g, b, cand, resolve, judge):
    """After a piece of CAND could not be tested: the other pieces, finer
    and finer (delta debugging's way round a build that fails), until one
    is judged good or bad: (config, verdict), or (None, SKIP)."""
    size = (len(cand) + 1) // 2
    first = True
    while size >= 1:
        for i in range(0, len(cand), size):
            if first and i == 0:
                continue        # the half already judged
            trial = resolve(with_options(g, b, cand[i:i + size]))
            if not differing(trial, g) or not differing(trial, b):
                continue
            v = judge(trial, f"{size} of {len(cand)} (around an untestable piece): " +
                      " ".join(cand[i:i + size][:6]))
            if v != SKIP:
                return trial, v
        first = False
        size //= 2
    return None, SKIP


def olddefconfig(src, arch, work, jobs=1):
    """A resolve function: the config written to WORK/.config, `make
    olddefconfig` run there on the tree SRC (out of tree: SRC only read),
    the result read back; once a distinct config (the ends, resolved for
    the plan and again by bisect(), and the carrier's trials repeat)."""
    if not os.path.isfile(os.path.join(src, "arch", kvm_tree.SRCARCH[arch], "Kconfig")):
        raise UsageError(f"'{src}' is not a kernel source tree (no "
                         f"arch/{kvm_tree.SRCARCH[arch]}/Kconfig)")
    os.makedirs(work, exist_ok=True)
    dot = os.path.join(work, ".config")
    karch = "arm64" if arch == "arm64" else "x86_64"
    done = {}

    def resolve(cfg):
        key = frozenset(cfg.items())
        if key in done:
            return dict(done[key])
        write_dotconfig(cfg, dot)
        r = subprocess.run(["make", "-C", src, f"O={work}", f"-j{jobs}", f"ARCH={karch}",
                            "olddefconfig"], stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                           stdin=subprocess.DEVNULL, text=True, errors="replace")
        if r.returncode:
            raise Fail("make olddefconfig failed: " +
                       (r.stdout.strip().splitlines() or ["no output"])[-1])
        done[key] = kvm_tree.read_config(dot)
        return dict(done[key])
    return resolve


def settable_options(src):
    """The options of SRC's Kconfig files a user can set (with a prompt:
    'bool "..."', 'tristate "..."', 'prompt "..."' in their entry)."""
    out = set()
    for d, dirs, files in os.walk(src):
        dirs[:] = [x for x in dirs if x not in (".git", "Documentation", "tools")]
        for f in files:
            if not f.startswith("Kconfig"):
                continue
            cur = None
            with open(os.path.join(d, f), encoding="utf-8", errors="replace") as fh:
                for line in fh:
                    w = line.split()
                    if len(w) == 2 and w[0] in ("config", "menuconfig"):
                        cur = w[1]
                    elif cur and w and w[0] in ("bool", "tristate", "int", "hex", "string",
                                                "prompt") and len(w) > 1 and \
                            w[1].startswith('"'):
                        out.add(cur)
                    elif w and w[0] in ("menu", "endmenu", "if", "endif", "choice",
                                        "endchoice", "comment", "source"):
                        cur = None
    return out


def command_verdict(cmd, work):
    """A verdict function: the config written to WORK/candidate.config,
    CMD run with it as its last argument; exit 0 good, 125 cannot test,
    any other 1-127 bad, 128 and above (or a signal) stop the bisection
    (git bisect run's reading)."""
    path = os.path.join(work, "candidate.config")

    def verdict(cfg):
        write_dotconfig(cfg, path)
        rc = subprocess.run(list(cmd) + [path], stdin=subprocess.DEVNULL).returncode
        if rc == 0:
            return GOOD
        if rc < 0 or rc > 127:
            raise Fail(f"the verdict command exited {rc if rc > 0 else 128 - rc}: the "
                       "bisection stops")
        return SKIP if rc == 125 else BAD
    return verdict


def parse_args(argv):
    p = Parser(     # a usage error: one line (cli.Parser), exit 2
        prog=PROG, formatter_class=argparse.HelpFormatter,
        usage=f"{PROG} --src TREE --good CONFIG --bad CONFIG [--arch ARCH] [--work DIR] "
        "-- VERDICT_COMMAND ARGS\n"
        f"       {PROG} --src TREE --good CONFIG --bad CONFIG --patch FILE[,FILE] "
        "--figure NAME --threshold PCT [--runs N] [--direction worse|better] "
        "[--cpu amd|intel] [--clock C] [--smp N] [--mem SIZE] [--arch ARCH] "
        "[--work DIR] -- TEST ARGS",
        description="Bisect the Kconfig options that differ between a good and a bad "
        "config of one tree (as ktest's config-bisect: half the options at a time, "
        "dependencies resolved by make olddefconfig) to the option(s) that carry a step.",
        epilog="The verdict command gets the candidate .config as its last argument and "
        "exits as git bisect run reads it: 0 good, 125 cannot test, other 1-127 bad, "
        "128-255 stops the bisection.  "
        "With --patch the suite judges: each candidate config built whole from TREE "
        "without and with the patches (vm/kvm-build --whole --config CANDIDATE, one "
        "build directory for all), both run in the VM, bad where the patches' step "
        "shows (B against A in --direction beyond the noise and by more than "
        "--threshold), a STEP line each; the runs are chosen for the most verdicts the "
        "search may make, before the first build.  It prints CONFIG_BISECT option=NAME "
        "good=VALUE bad=VALUE for each option left.  Exit status: 0 done (options named, "
        "or none: the reason printed); 1 a verdict or make failed; 2 usage or bad input "
        "(before any build).")
    p.add_argument("--src", required=True, metavar="TREE", help="the kernel tree (only read)")
    p.add_argument("--good", required=True, metavar="CONFIG", help="the good .config")
    p.add_argument("--bad", required=True, metavar="CONFIG", help="the bad .config")
    p.add_argument("--arch", default="x86_64", choices=["x86_64", "arm64"])
    p.add_argument("--work", metavar="DIR", default=None,
                   help="scratch directory (default: build/config-bisect)")
    p.add_argument("--patch", metavar="FILE[,FILE]", action="append", default=[],
                   help="the change whose step the options carry (-p1, applied in order)")
    p.add_argument("--figure", metavar="NAME", help="--patch: the figure judged")
    p.add_argument("--threshold", metavar="PCT", type=float,
                   help="--patch: a step is beyond the noise and more than PCT%%")
    p.add_argument("--runs", metavar="N", type=int,
                   help="--patch: runs a side (default: the fewest the plan needs, 6 "
                   "at least)")
    p.add_argument("--direction", choices=["worse", "better"], default="worse",
                   help="--patch: the step's direction (default worse)")
    p.add_argument("--cpu", choices=["amd", "intel"], help="--patch: the VM's CPU")
    p.add_argument("--clock", choices=["icount", "tcg"], help="--patch: the VM's clock")
    p.add_argument("--smp", metavar="N", type=int, help="--patch: the VM's vCPUs")
    p.add_argument("--mem", metavar="SIZE", default="2G", help="--patch: the VM's memory")
    p.add_argument("cmd", nargs=argparse.REMAINDER, help="-- VERDICT_COMMAND ARGS")
    a = p.parse_args(argv)
    if a.cmd[:1] == ["--"]:
        a.cmd = a.cmd[1:]
    if not a.cmd:
        p.error("a verdict command (or with --patch the test) is needed after --")
    for f in (a.good, a.bad):
        if not os.path.isfile(f):
            p.error(f"config '{f}' not found")
    if not a.patch:
        if a.figure or a.threshold is not None or a.runs:
            p.error("--figure, --threshold and --runs go with --patch")
        return a
    return patch_mode(p, a)


def patch_mode(p, a):
    """--patch's checks, before any build: the patches apply to the tree,
    the VM's options, the test and its --figure (usage errors, exit 2)."""
    from .bisect import Bisect, vm_checks
    if not a.figure or a.threshold is None:
        p.error("--patch needs --figure NAME and --threshold PCT")
    if a.threshold < 0 or (a.runs is not None and a.runs < 2) or \
            (a.smp is not None and a.smp < 1):
        p.error("--threshold is a percentage (>= 0), --runs 2 at least, --smp 1 at least")
    a.patches = [os.path.abspath(f) for v in a.patch for f in v.split(",") if f]
    try:
        a.src = os.path.realpath(a.src)
        if not os.path.isfile(os.path.join(a.src, "arch", kvm_tree.SRCARCH[a.arch],
                                           "Kconfig")):
            raise UsageError(f"'{a.src}' is not a kernel source tree (no "
                             f"arch/{kvm_tree.SRCARCH[a.arch]}/Kconfig)")
        for f in a.patches:
            if not os.path.isfile(f):
                raise UsageError(f"no patch '{f}'")
        kvm_tree.apply_patches(a.src, [kvm_tree.Patch(f) for f in a.patches])
        a.test, a.args = test_command(a.cmd)
        vm_checks(a)
        Bisect(a, None).test_checks()
    except (UsageError, Usage) as e:
        p.error(str(e))
    return a


def run(a):
    """bench/config-bisect on the checked command line @a: its exit status."""
    from kvmbench.kernels import debian
    work = a.work or os.path.join(debian.REPO, "build", "config-bisect")
    resolve = olddefconfig(os.path.realpath(a.src), a.arch, os.path.join(work, "obj"))
    good, bad = kvm_tree.read_config(a.good), kvm_tree.read_config(a.bad)
    steps = 64
    if a.patch:
        from kvmbench.verdicts.stats import least_runs
        from . import config_verdict
        steps = config_verdict.plan(len(differing(resolve(good), resolve(bad))))
        least = max(least_runs(looks=steps), 6)
        if a.runs is not None and a.runs < least_runs(looks=steps):
            raise UsageError(f"--runs {a.runs} cannot reach a verdict over the plan's "
                             f"{steps} verdicts: {least_runs(looks=steps)} at least")
        a.runs = a.runs or least
        print(f"{PROG}: a verdict a candidate, {steps} at most (each at "
              f"{5 / steps:.3g}%), {a.runs} runs a side", file=sys.stderr)
        verdict = config_verdict.PatchVerdict(a, work, steps)
    else:
        verdict = command_verdict(a.cmd, work)
    res = bisect(good, bad, resolve, verdict, settable=settable_options(a.src), max_steps=steps,
                 log=lambda m: print(f"{PROG}: {m}", file=sys.stderr, flush=True))
    print(f"{PROG}: {res.why} ({len(res.steps)} verdicts)")
    if res.good and res.bad:
        # The last good and bad candidates, the options named apart: the
        # pair to build and measure by hand (or bisect with --patch).
        for side, cfg in (("good", res.good), ("bad", res.bad)):
            write_dotconfig(cfg, os.path.join(work, f"last-{side}.config"))
        print(f"{PROG}: the last good and bad configs: {work}/last-good.config, "
              f"{work}/last-bad.config")
    for n in res.options:
        print(f"CONFIG_BISECT option={n} good={res.good.get(n, 'n')} bad={res.bad.get(n, 'n')}")
    return 0


def main(argv=None):
    from kvmbench.vmrun import cli
    return cli.program(PROG, sys.argv[1:] if argv is None else argv, parse_args, run)


if __name__ == "__main__":
    sys.exit(main())
