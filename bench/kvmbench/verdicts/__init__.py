# SPDX-License-Identifier: GPL-2.0-only
"""kvmbench.verdicts: the statistics and what they read and print.  stats:
every statistic of a verdict (summaries, the exact Hodges-Lehmann /
Mann-Whitney interval, verdicts, the level split over looks and the
Bonferroni split over figures); changepoint: E-divisive means over a
stream of kernels; results: what runs leave, read into figures and filed
(Results); render: the verdict table, VERDICT/PROFILE lines, the plot,
Markdown and text tables (Table); stats_cli: bench/stats.py's
subcommands; cover: the cover-letter table of a comparison.  Plain
lists in, verdicts out: it may import only base (and itself), so every
program judges the same way.
"""
