# SPDX-License-Identifier: GPL-2.0-only
"""kvmbench.attribution.inlined: bench/inlined, a verdict for
bench/config-bisect and git bisect run that needs no boot: one object
of a tree built with a config (vm/kvm-build --whole --config CONFIG's
build directory: make prepare and that object only, through ccache),
its function CALLER disassembled (objdump -dr), and whether it calls
CALLEE.  A step that comes from the compiler no longer inlining a
function (6.12.113's msr_write_intercepted() into svm_vcpu_run()) is
bisected over a config difference in seconds a step instead of a whole
kernel built and measured."""

import os
import re
import subprocess
import sys

from kvmbench.base.errors import BuildError, Fail, UsageError
from kvmbench.kbuild import kvm_build, kvm_config, kvm_tree
from kvmbench.vmrun import cli
from kvmbench.vmrun.cli import Parser

PROG = "bench/inlined"
GOOD, BAD, CANNOT, USAGE = 0, 1, 125, 128
HELP = """bench/inlined: does a function of one object call another, built with a config?

usage: bench/inlined --src TREE --object PATH.o --in CALLER --call CALLEE
                     [--patch FILE] [--arch ARCH] CONFIG

  --src TREE      the kernel tree (only read; built out of tree, as
                  vm/kvm-build --whole --config CONFIG builds it)
  --object PATH   the object, as make names it (arch/x86/kvm/svm/svm.o)
  --in CALLER     the function whose code is read
  --call CALLEE   the function it may call or have inlined
  --patch FILE    apply this patch first (-p1; repeat for a series)
  --arch ARCH     x86_64 (default: this host's) or arm64
  CONFIG          the .config (last, as bench/config-bisect passes it)

Builds only the object and what it needs (make prepare), then prints
  CALLS CALLER calls CALLEE (N calls)     exit 1
  INLINED CALLER has no call to CALLEE    exit 0
as git bisect run and bench/config-bisect read them (1 bad, 0 good):
bench/config-bisect --src TREE --good G --bad B -- bench/inlined --src
TREE --object ... --in ... --call ... names the option that makes the
compiler call CALLEE.  Exit status: 125 the object does not build or has
no CALLER (cannot test); 128 a bad command line (one line, before any
build: stops a bisection).
"""


def parse(argv):
    p = Parser(prog=PROG, add_help=False)
    p.status = USAGE
    p.add_argument("--src")
    p.add_argument("--object")
    p.add_argument("--in", dest="caller")
    p.add_argument("--call", dest="callee")
    p.add_argument("--patch", action="append", default=[])
    p.add_argument("--arch", default=kvm_build.host_arch())
    p.add_argument("config", nargs="?")
    c = p.parse_options(argv)
    if c is None:
        return None
    for o, name in (("src", "--src"), ("object", "--object"), ("caller", "--in"),
                    ("callee", "--call"), ("config", "CONFIG")):
        if not getattr(c, o):
            p.error(f"{name} is needed")
    if c.arch not in kvm_tree.SRCARCH:
        p.error(f"unknown --arch '{c.arch}' (x86_64, arm64)")
    if not re.fullmatch(r"[\w./+-]+\.o", c.object) or c.object.startswith("/"):
        p.error(f"--object {c.object}: an object as make names it, relative to the tree "
                "(arch/x86/kvm/svm/svm.o)")
    for o, name in (("caller", "--in"), ("callee", "--call")):
        if not re.fullmatch(r"[A-Za-z_]\w*", getattr(c, o)):
            p.error(f"{name} {getattr(c, o)}: not a function name")
    try:
        c.config = kvm_config.config_file(c.config, "CONFIG")
        src = os.path.join(c.src, c.object[:-2] + ".c")
        if not os.path.isfile(src) and not os.path.isfile(src[:-2] + ".S"):
            raise UsageError(f"--object {c.object}: no {c.object[:-2]}.c in {c.src}")
        c.build = kvm_build.WholeBuild(c.arch, c.src, c.patch, base=c.config)
        kvm_tree.apply_patches(c.build.src, c.build.patches)
    except UsageError as e:
        e.status = USAGE
        raise
    return c


def calls(disassembly, caller, callee):
    """(CALLER found, the number of its instructions that call or jump
    to CALLEE) in objdump -dr's DISASSEMBLY (a relocation line names a
    callee in another section or object)."""
    body, found, n = False, False, 0
    for line in disassembly.splitlines():
        m = re.match(r"[0-9a-f]+ <([^>]+)>:$", line)
        if m:
            body = m.group(1) == caller
            found = found or body
            continue
        if body and re.search(r"\b(call|jmp)\w*\s.*<%s(\+0x0)?>|R_\w+\s+%s(-0x4)?$" %
                              (re.escape(callee), re.escape(callee)), line):
            n += 1
    return found, n


def run(c):
    """The verdict on the checked command line @c; a failure that is not
    the object's own (the host's set-up, objdump) stops a bisection."""
    try:
        return judge(c)
    except BuildError as e:
        print(f"{PROG}: {c.object} does not build: {e}: cannot test", file=sys.stderr)
        return CANNOT
    except Fail as e:
        e.status = USAGE
        raise


def judge(c):
    path = c.build.build_object(c.object)
    r = subprocess.run(["objdump", "-dr", path], stdout=subprocess.PIPE,
                       stderr=subprocess.PIPE, text=True)
    if r.returncode:
        raise Fail(f"objdump {path}: {r.stderr.strip()}")
    found, n = calls(r.stdout, c.caller, c.callee)
    if not found:
        print(f"{PROG}: no function {c.caller} in {c.object} with this config: cannot test",
              file=sys.stderr)
        return CANNOT
    if n:
        print(f"CALLS {c.caller} calls {c.callee} ({n} call{'s' if n > 1 else ''})")
        return BAD
    print(f"INLINED {c.caller} has no call to {c.callee}")
    return GOOD


def main(argv=None):
    return cli.program(PROG, sys.argv[1:] if argv is None else argv, parse, run, HELP)


if __name__ == "__main__":
    sys.exit(main())
