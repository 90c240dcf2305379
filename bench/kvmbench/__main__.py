# SPDX-License-Identifier: GPL-2.0-only
"""python3 -m kvmbench: kvmbench.runner's checks for bench/lib.sh.

  kernel-args SPEC   vm/run's arguments for a kernel, one a line
                     (exit 1 and why on stderr if SPEC is none)
  check-cpu CPU ARCH why vm/run's --cpu CPU does not go with ARCH (exit 1)
"""
import sys

from . import runner


def main(argv):
    if len(argv) == 2 and argv[0] == 'kernel-args':
        try:
            print('\n'.join(runner.kernel_args(argv[1])))
        except ValueError as e:
            print(e, file=sys.stderr)
            return 1
        return 0
    if len(argv) == 3 and argv[0] == 'check-cpu':
        why = runner.check_cpu(argv[1], argv[2])
        if why:
            print(why)
        return 1 if why else 0
    print(__doc__, file=sys.stderr)
    return 2


sys.exit(main(sys.argv[1:]))
