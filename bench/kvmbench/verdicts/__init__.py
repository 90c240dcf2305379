# SPDX-License-Identifier: GPL-2.0-only
"""kvmbench.verdicts: the statistics, the results they read and what a verdict prints."""
