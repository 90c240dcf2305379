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
tree and the verdict command; H1's bench/attribute calls bisect() with
its own verdicts.  Both trees and configs given are only read."""

import argparse
import os
import subprocess
import sys
import time

from kvmbench.base.errors import Fail, UsageError
from kvmbench.kbuild import kvm_tree

PROG = "bench/config-bisect"
GOOD, BAD, SKIP = "good", "bad", "skip"
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
    others are what it selects).  Returns a Result."""
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
        for o in [o for o in res.options if settable is None or o in settable]:
            if not differing(resolve(with_options(g, b, [o])), b):
                say(f"config-bisect: {o} brings the other {len(res.options) - 1} with it")
                res.options, res.why = [o], \
                    f"one option left, with the {len(res.options) - 1} it selects"
                break
    if not res.why:
        res.why = "one option left" if len(res.options) == 1 else \
            f"{len(res.options)} options olddefconfig does not part" \
            if len(res.steps) < max_steps else f"stopped after {max_steps} verdicts"
    res.good, res.bad = g, b
    return res


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
    the result read back."""
    if not os.path.isfile(os.path.join(src, "arch", kvm_tree.SRCARCH[arch], "Kconfig")):
        raise UsageError(f"'{src}' is not a kernel source tree (no "
                         f"arch/{kvm_tree.SRCARCH[arch]}/Kconfig)")
    os.makedirs(work, exist_ok=True)
    dot = os.path.join(work, ".config")
    karch = "arm64" if arch == "arm64" else "x86_64"

    def resolve(cfg):
        write_dotconfig(cfg, dot)
        r = subprocess.run(["make", "-C", src, f"O={work}", f"-j{jobs}", f"ARCH={karch}",
                            "olddefconfig"], stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                           stdin=subprocess.DEVNULL, text=True, errors="replace")
        if r.returncode:
            raise Fail("make olddefconfig failed: " +
                       (r.stdout.strip().splitlines() or ["no output"])[-1])
        return kvm_tree.read_config(dot)
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


def write_dotconfig(cfg, path):
    """CFG ({NAME: VALUE}) as a .config file."""
    with open(path, "w", encoding="utf-8") as f:
        for n in sorted(cfg):
            v = cfg[n]
            f.write(f"# CONFIG_{n} is not set\n" if v == "n" else f"CONFIG_{n}={v}\n")


def command_verdict(cmd, work):
    """A verdict function: the config written to WORK/candidate.config,
    CMD run with it as its last argument; exit 0 good, 125 cannot test,
    any other 1-127 bad (git bisect run's reading)."""
    path = os.path.join(work, "candidate.config")

    def verdict(cfg):
        write_dotconfig(cfg, path)
        rc = subprocess.run(list(cmd) + [path], stdin=subprocess.DEVNULL).returncode
        if rc == 0:
            return GOOD
        if rc == 125 or rc < 0 or rc > 127:
            return SKIP
        return BAD
    return verdict


def parse_args(argv):
    p = argparse.ArgumentParser(
        prog=PROG,
        description="Bisect the Kconfig options that differ between a good and a bad "
        "config of one tree (as ktest's config-bisect: half the options at a time, "
        "dependencies resolved by make olddefconfig) to the option(s) that carry a step.",
        epilog="The verdict command gets the candidate .config as its last argument and "
        "exits as git bisect run reads it: 0 good, 125 cannot test, other 1-127 bad.  It "
        "prints CONFIG_BISECT option=NAME good=VALUE bad=VALUE for each option left.  "
        "Exit status: 0 done (options named, or none: the reason printed); 1 a verdict "
        "or make failed; 2 usage or bad input.")
    p.add_argument("--src", required=True, metavar="TREE", help="the kernel tree (only read)")
    p.add_argument("--good", required=True, metavar="CONFIG", help="the good .config")
    p.add_argument("--bad", required=True, metavar="CONFIG", help="the bad .config")
    p.add_argument("--arch", default="x86_64", choices=["x86_64", "arm64"])
    p.add_argument("--work", metavar="DIR", default=None,
                   help="scratch directory (default: build/config-bisect)")
    p.add_argument("cmd", nargs=argparse.REMAINDER, help="-- VERDICT_COMMAND ARGS")
    a = p.parse_args(argv)
    if a.cmd[:1] == ["--"]:
        a.cmd = a.cmd[1:]
    if not a.cmd:
        p.error("a verdict command is needed after --")
    for f in (a.good, a.bad):
        if not os.path.isfile(f):
            p.error(f"config '{f}' not found")
    return a


def run(a):
    """bench/config-bisect on the checked command line @a: its exit status."""
    from kvmbench.kernels import debian
    work = a.work or os.path.join(debian.REPO, "build", "config-bisect")
    resolve = olddefconfig(os.path.realpath(a.src), a.arch, os.path.join(work, "obj"))
    res = bisect(kvm_tree.read_config(a.good), kvm_tree.read_config(a.bad), resolve,
                 command_verdict(a.cmd, work), settable=settable_options(a.src),
                 log=lambda m: print(f"{PROG}: {m}", file=sys.stderr, flush=True))
    print(f"{PROG}: {res.why} ({len(res.steps)} verdicts)")
    for n in res.options:
        print(f"CONFIG_BISECT option={n} good={res.good.get(n, 'n')} bad={res.bad.get(n, 'n')}")
    return 0


def main(argv=None):
    from kvmbench.vmrun import cli
    return cli.program(PROG, sys.argv[1:] if argv is None else argv, parse_args, run)


if __name__ == "__main__":
    sys.exit(main())
