# SPDX-License-Identifier: GPL-2.0-only
"""kvmbench.measure: the programs that measure the perf tests.  compare:
bench/compare, is B different from A (kvm_sides: its sides built from
source; lavacompare: its runs as LAVA jobs); perf: bench/perf, the
perf tests once each with their summary (perf.sh, beside it, is its
runs' shell); tables/: bench/table NAME, the perf tests' tables.  The
top layer with tracking: it may import attribution, kbuild, labs, vmrun,
kernels, verdicts and base, and nothing imports it.
"""
