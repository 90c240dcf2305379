# SPDX-License-Identifier: GPL-2.0-only
"""The errors the bench scripts end with: a one-line message and an exit
status (2 usage or bad input, 1 a failure such as a build, 6 host set-up)."""


import sys


def say(prog, msg):
    """The one way the programs tell the user something: 'PROG: MSG' on
    stderr, at once."""
    print('%s: %s' % (prog, msg), file=sys.stderr, flush=True)


class Fail(Exception):
    """An error that ends the script with STATUS after printing its message."""
    status = 1

    def __init__(self, msg, status=None):
        super().__init__(msg)
        if status is not None:
            self.status = status


class UsageError(Fail):
    status = 2


class SetupError(Fail):
    status = 6


class BuildError(Fail):
    """The build failed: the message ends with the compiler's last lines."""
    status = 1
