# SPDX-License-Identifier: GPL-2.0-only
"""python3 -m kvmbench.measure.tables: bench/table."""
import sys

from . import main

sys.exit(main(sys.argv[1:]))
