# SPDX-License-Identifier: GPL-2.0-only
"""kvmbench.cli: the command-line checks bench/compare and bench/bisect-run
share (a usage error is one line, exit 2)."""
import re

from . import build
from .errors import UsageError as Usage  # a bad command line: the message, exit 2


def scan(argv, arity, short=None, unknown="unknown option '%s' (-h for help)"):
    """The options before '--' as [(option, [values])], and the words
    after it; None for -h/--help.  @arity: {option: how many values};
    @short: {option: the message when its values are missing}."""
    pairs, i = [], 0
    while i < len(argv):
        o = argv[i]
        if o in ('-h', '--help'):
            return None
        if o == '--':
            i += 1
            break
        if o not in arity:
            raise Usage(unknown % o)
        n = arity[o]
        if len(argv) - i - 1 < n:
            raise Usage((short or {}).get(o, '%s needs a value' % o))
        pairs.append((o, argv[i + 1:i + 1 + n]))
        i += 1 + n
    return pairs, argv[i:]


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
