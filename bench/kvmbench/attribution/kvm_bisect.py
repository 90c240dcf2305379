# SPDX-License-Identifier: GPL-2.0-only
"""kvmbench.attribution.kvm_bisect: bench/bisect-run with KVM built from source.

--kvm-modules: the candidate is KVM built (vm/kvm-build) from the current
directory, a kernel git tree, as a step of `git bisect run`: at
--debian-kernel's version each step builds only KVM, at any other the
whole kernel (kvm_build.build_side).  --series DIR: a `git
format-patch` directory on top of Debian's source of --debian-kernel,
bisected in a scratch repository whose commit N lists the first N
patches (commit 0, the unpatched source, is the baseline: measured first
unless --baseline is given); each step (--patch-list FILE) builds that
list.  A build that fails, or a patch that does not apply inside a step,
is "cannot test" (125); a series that does not apply as a whole is
refused before anything runs (2)."""

import glob
import os

from kvmbench.base.errors import Fail, UsageError
from kvmbench.kbuild import kvm_build, kvm_tree

HELP = """  --kvm-modules      (in a kernel git tree, as the command of git bisect run)
                     judge KVM built from this tree (vm/kvm-build, the tree
                     only read): at --debian-kernel's version KVM modules
                     its packaged kernel boots, at any other the whole
                     kernel (KVM built in), each step incremental
  --series DIR       bisect a git format-patch directory (its *.patch in
                     order) on top of Debian's source of --debian-kernel,
                     in a scratch repository; the unpatched source is the
                     baseline (measured first unless --baseline); prints
                     BISECT first bad: SUBJECT
  --kvm-src TREE      with --series: the patches go on TREE (only read), not
                     Debian's source: a tree at --debian-kernel's version
                     gives KVM modules for it, any other whole kernels
  --debian-kernel V  with --kvm-modules or --series: the kernel (default 6.12)
"""


def series_patches(d):
    """The patches of a format-patch directory, in order."""
    if not os.path.isdir(d):
        raise UsageError("--series: no directory '%s'" % d)
    files = sorted(glob.glob(os.path.join(os.path.abspath(d), '*.patch')))
    if not files:
        raise UsageError("--series: no *.patch in '%s'" % d)
    return files


def check_series(kernel, arch, files, src=None):
    """Refuse (UsageError, exit 2) a series that does not apply as a
    whole on SRC (default: Debian's source of KERNEL); its subjects."""
    patches = [kvm_tree.Patch(f) for f in files]
    if src is None:
        src = kvm_build.Build(kernel, arch, None, files).src
    kvm_tree.apply_patches(src, patches)
    return [p.subject for p in patches]


def read_patch_list(path):
    try:
        with open(path) as f:
            return [ln.strip() for ln in f if ln.strip()]
    except OSError:
        raise UsageError("cannot read '%s'" % path)


def candidate(c, out, info):
    """Build the candidate's KVM into OUT (--kvm-modules: from the
    current directory; --patch-list: Debian's source and those patches);
    its description (vm/run's arguments in 'vm_args', a whole kernel's
    uapi headers in 'uapi').  Fail on a build failure or bad input."""
    kw = {'kernel': c.kvm_kernel, 'arch': c.arch}
    if c.kvm_modules:
        kw['src'] = os.getcwd()
    else:
        kw['patches'] = read_patch_list(c.patch_list)
        kw['src'] = c.kvm_src or None
    try:
        return kvm_build.build_side(out, **kw)
    except Fail as e:
        if str(e):
            info(str(e))
        raise


def stock(c, out):
    """KVM built from the unpatched source (--kvm-src TREE, else
    Debian's): its description, as candidate()'s."""
    return kvm_build.build_side(out, kernel=c.kvm_kernel, arch=c.arch,
                                src=c.kvm_src or None)


def series_items(files, subjects):
    """The scratch repository's commits for --series: (message, contents
    of its file 'patches'), the first the unpatched source."""
    items = [('base: the unpatched source', '')]
    for i, s in enumerate(subjects):
        items.append((s, ''.join(f + '\n' for f in files[:i + 1])))
    return items
