# SPDX-License-Identifier: GPL-2.0-only
"""kvmbench.cli: the command-line parser and checks the bench programs
share (a usage error is one line, exit 2)."""
import argparse
import re

from . import build
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


def vm_size(arch, mem):
    """@arch as vm/run names it (x86_64, arm64), after checking it and
    the VM's --mem."""
    if not re.fullmatch(r'[1-9][0-9]*[KMGT]?', mem):
        raise Usage("bad --mem '%s'" % mem)
    try:
        return build.arch_name(arch)
    except ValueError as e:
        raise Usage(str(e)) from None
