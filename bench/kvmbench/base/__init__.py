# SPDX-License-Identifier: GPL-2.0-only
"""kvmbench.base: what every program ends with and prints.  errors: the
exceptions a program exits on, a one-line message and an exit status (2
usage or bad input, 1 a failure, 6 host set-up), and say(); tap: the one
writer of kselftest TAP on the host (Tap, tap() for a unittest module;
shell prints through vm/py.sh).  The bottom layer: it imports only the
standard library and itself.
"""
