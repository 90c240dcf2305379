# SPDX-License-Identifier: GPL-2.0-only
"""kvmbench.measure.kvm_sides: bench/compare's sides built from source.

--patch FILE[,FILE...]: A is KVM built from Debian's source of
--debian-kernel, B the same with the patches applied in order; --kvm-src
TREE_A,TREE_B: KVM built from two trees.  Both are built by
kvmbench.kbuild.kvm_build (vm/kvm-build) into the comparison's directory, and
then compared as --kernels compares: VM boots alternate, each side the
Debian kernel with its KVM (vm/run --kvm-modules).  The comparison ends
with the cover-letter table (kvmbench.verdicts.cover)."""

import json
import os
import sys

from kvmbench.base.errors import Fail, UsageError
from kvmbench.verdicts import cover
from kvmbench.kernels import build as _build
from kvmbench.kbuild import kvm_build

MODES = ('patch', 'kvm-src')
HELP = """  --patch FILES     KVM from Debian's source of --debian-kernel (A) against
                    the same with the patches applied in order (B), built
                    by vm/kvm-build (docs/kvm-build.md); VM boots alternate
  --kvm-src TREE    with --patch: TREE (only read) is A's source, not Debian's
  --kvm-src A,B     KVM built from two kernel source trees (A, B): a tree at
                    the version of --debian-kernel gives KVM modules for it,
                    any other a whole kernel (vm/kvm-build --whole)
  --config C        with --kvm-src: whole kernels with the small config (small,
                    the default), Debian's (debian[:VERSION]: vm/kvm-build
                    --whole --config) or a .config file (a path with a /),
                    whatever the trees' versions; NAME=VALUE (repeated): an
                    option set on both sides (vm/kvm-build --config)
  --debian-kernel V  --patch, --kvm-src: the Debian kernel (default 6.12)
  --table FILE      the cover-letter table (the command, base and change,
                    the figures that moved, those that did not and what
                    they rule out): FILE in Markdown, FILE.txt in text
"""


def parse(c, opt, value):
    """--patch, --kvm-src A,B, --kvm-src TREE (--patch's base): the
    sides' specs on Config @c."""
    if opt == '--patch':
        c.patches = [p for p in value.split(',') if p]
        for p in c.patches:
            if not os.path.isfile(p):
                raise UsageError("no patch '%s'" % p)
        c.patches = [os.path.abspath(p) for p in c.patches]
        c.spec_a, c.spec_b = '', ','.join(c.patches)
    elif ',' not in value:
        if not os.path.isdir(value):
            raise UsageError("no kernel source tree '%s'" % value)
        c.src_tree = os.path.abspath(value)
    else:
        for t in (c.spec_a, c.spec_b):
            if not os.path.isdir(t):
                raise UsageError("no kernel source tree '%s'" % t)


def build(c, out):
    """Build both sides into OUT/kvm-a, OUT/kvm-b; vm/run's arguments of
    each side in c.kernel, their descriptions in c.spec_a, c.spec_b; a
    whole kernel's side has the suite built against its tree's uapi
    headers (right after its build: the sides may share one build
    directory) in c.kvm[side]['tests'].  A patch that does not apply or
    a bad tree: UsageError (exit 2); a failed build: BuildError (exit 1)."""
    c.kvm = {}
    for s in 'ab':
        kw = {'kernel': c.debian_kernel, 'arch': c.arch, 'base': c.config,
              'configs': c.config_opts}
        if c.mode == 'patch':
            kw['patches'] = c.patches if s == 'b' else []
            kw['src'] = c.src_tree or None
        else:
            kw['src'] = c.spec_a if s == 'a' else c.spec_b
        try:
            c.kvm[s] = kvm_build.build_side(os.path.join(out, 'kvm-' + s), **kw)
            if c.kvm[s].get('whole'):
                c.kvm[s]['tests'] = _build.uapi_tree(c.arch, c.kvm[s]['uapi'])
        except Fail as e:           # a BuildError (uapi_tree's too) or a UsageError
            if str(e):
                print('bench/compare: %s' % e, file=sys.stderr)
            raise
    c.kernel = {s: c.kvm[s]['vm_args'] for s in 'ab'}
    base = side_text(c.kvm['a'])
    c.spec_a = base
    if c.mode == 'patch':
        c.spec_b = base + ' + ' + '; '.join(p['subject'] for p in c.kvm['b']['patches'])
    else:
        c.spec_b = side_text(c.kvm['b'])


def side_text(desc):
    """A side in words: KVM modules for a Debian kernel, or a whole kernel."""
    if desc.get('whole'):
        base = desc.get('base', 'small')
        return 'Linux %s (whole kernel, KVM built in%s) built from %s' % (
            desc['release'], ', %s config' % base if base != 'small' else '', desc['src'])
    return 'KVM of %s built from %s' % (desc['release'], desc['src'])


def cover_table(c, argv, compare_json, runs_text):
    """Print the cover-letter table (text) and write --table's files."""
    try:
        with open(compare_json) as f:
            res = json.load(f)
    except (OSError, ValueError) as e:
        print('bench/compare: no comparison to tabulate: %s' % e, file=sys.stderr)
        return
    if getattr(c, 'kvm', None):
        base = c.spec_a
        change = ('; '.join(p['subject'] for p in c.kvm['b']['patches'])
                  if c.mode == 'patch' else c.spec_b)
    else:
        base, change = 'A: ' + c.describe_a, 'B: ' + c.describe_b
    md, tx = cover.cover('bench/compare ' + ' '.join(argv), base, change,
                         res['results'], res['family_level'], runs_text)
    print('\ncover letter table%s:\n' % (' (--table %s)' % c.table if c.table else ''))
    print(tx, end='')
    if c.table:
        cover.write(c.table, md, tx)
