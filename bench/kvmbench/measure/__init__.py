# SPDX-License-Identifier: GPL-2.0-only
"""kvmbench.measure: bench/compare, bench/perf and bench/table."""
