# SPDX-License-Identifier: GPL-2.0-only
"""kvmbench.tracking: bench/track: a stream of kernels measured, stored, judged and reported."""
