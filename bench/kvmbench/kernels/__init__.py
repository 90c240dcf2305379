# SPDX-License-Identifier: GPL-2.0-only
"""kvmbench.kernels: Debian's kernels, the suite's build and the kernel images vm/run boots."""
