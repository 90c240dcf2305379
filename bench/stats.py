#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-only
"""bench/stats.py: the statistics on the command line (kvmbench.verdicts.stats_cli)."""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from kvmbench.verdicts.stats_cli import main  # noqa: E402

if __name__ == '__main__':
    sys.exit(main(sys.argv[1:]))
