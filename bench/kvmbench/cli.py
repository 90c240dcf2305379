# SPDX-License-Identifier: GPL-2.0-only
"""kvmbench.cli: the command-line parser and checks the bench programs
share (a usage error is one line, exit 2)."""
import argparse
import difflib
import glob
import os
import re

from . import build, fetch
from .errors import UsageError as Usage  # a bad command line: the message, exit 2


class Parser(argparse.ArgumentParser):
    """argparse with the bench scripts' usage error: Usage (one line, exit
    2, said by the caller) rather than argparse's usage and message; no
    abbreviated options."""

    def __init__(self, *args, **kw):
        kw.setdefault('allow_abbrev', False)
        kw.setdefault('formatter_class', argparse.RawDescriptionHelpFormatter)
        super().__init__(*args, **kw)

    def error(self, message):
        raise Usage('%s (-h for help)' % message)

    def parse_command(self, argv):
        """(the options before '--', the words after it) of @argv; None
        for -h/--help.  An option's values are taken as given, even one
        that starts with '-' ("--options '' -n"); a value of a two-value
        option that does comes with a space in front (split or strip
        it); an option not known is "unknown option 'X'"."""
        n = argv.index('--') if '--' in argv else len(argv)
        head, rest, args, i = argv[:n], argv[n + 1:], [], 0
        while i < len(head):
            o = head[i]
            i += 1
            if o in ('-h', '--help'):
                return None
            act = self._option_string_actions.get(o)
            if act is None:
                raise Usage("unknown option '%s' (-h for help)" % o)
            k = 1 if act.nargs is None else act.nargs
            vals = head[i:i + k]
            i += k
            if k > 1:
                short = [v for v in vals if v in self._option_string_actions]
                if short or len(vals) < k:
                    raise Usage("%s takes %d values (%s), then the next option: got %s%s" % (
                        o, k, ' '.join("'%s'" % m for m in act.metavar or ('A', 'B')),
                        ' '.join("'%s'" % v for v in vals[:len(vals) - len(short)]) or
                        'none', ' before %s' % short[0] if short else '') +
                        " (an empty one is '')")
            if k == 1 and vals:
                args.append('%s=%s' % (o, vals[0]))
            else:
                args += [o] + [' ' + v if v.startswith('-') else v for v in vals]
        return self.parse_args(args), rest


def test_command(words):
    """(test, its arguments) from the words after '--'."""
    if not words:
        raise Usage('no test command after --')
    test = words[0][2:] if words[0].startswith('./') else words[0]
    if not re.fullmatch(r'[a-z0-9_/]+', test):
        raise Usage("bad test name '%s'" % test)
    return test, words[1:]


def suite_tests(arch, root=build.REPO):
    """The names of this suite's tests for @arch, as its Makefile finds
    them: each top-level and <arch>/ *.c, each test directory's *_test.c
    (installed as kvm/NAME)."""
    src = glob.glob(os.path.join(root, '*.c')) + glob.glob(
        os.path.join(root, build.arch_dir(arch), '*.c')) + glob.glob(os.path.join(root, 'unit', '*.c'))
    src += [m for m in glob.glob(os.path.join(root, '*', '*_test.c'))
            if os.path.basename(os.path.dirname(m)) not in ('x86_64', 'aarch64', 'unit', 'fuzz')]
    return sorted(os.path.basename(p)[:-2] for p in src)


def check_test(test, arch):
    """Usage unless @test (from test_command) is one of the suite's tests
    for @arch: known before any build or boot."""
    have = suite_tests(arch)
    if os.path.basename(test) not in have:
        near = difflib.get_close_matches(os.path.basename(test), have, 1)
        raise Usage("no test '%s' in this suite for %s%s" % (
            test, arch, " (did you mean '%s'?)" % near[0] if near else ''))


def check_kernels(specs, arch):
    """vm/run's options for each kernel of @specs (build.kernel_args);
    Usage for one that is neither a kernel image for @arch (as vm/run
    reads it) nor a Debian kernel version the archive has for @arch
    (apt's list and the cache, as vm/run picks it).  With no list
    (apt-get update not yet run) the version is left to the boot."""
    out, versions, darch = [], None, fetch.deb_arch(arch)
    for s in specs:
        try:
            args = build.kernel_args(s)
        except ValueError as e:
            raise Usage(str(e)) from None
        if args[0] == '--kernel' and not fetch.is_kernel_image(arch, args[1]):
            raise Usage("kernel '%s' is a file but no kernel image for %s" % (args[1], arch))
        if args[0] == '--debian-kernel':
            if versions is None:
                versions = fetch.debian_kernel_versions(darch)
            try:
                if versions:
                    fetch.pick_version(s, versions, darch)
            except fetch.FetchError as e:
                raise Usage(str(e)) from None
        out.append(args)
    return out


def vm_size(arch, mem):
    """@arch as vm/run names it (x86_64, arm64), after checking it and
    the VM's --mem."""
    if not re.fullmatch(r'[1-9][0-9]*[KMGT]?', mem):
        raise Usage("bad --mem '%s'" % mem)
    try:
        return build.arch_name(arch)
    except ValueError as e:
        raise Usage(str(e)) from None
