# SPDX-License-Identifier: GPL-2.0-only
"""kvmbench.kernels: the kernels a run boots and the suite it runs.
debian: Debian's kernels, the one place for them (names, versions and
their order, series, arch names, packages, apt-get, the download cache
and its locks); build: the suite's build (arch names, build/ folders,
the host packages a build needs, the static kselftest install, a
kernel's vm/run options); fetch: the kernel images vm/run boots (image
checks, a package's image and modules, the PVH vmlinux).  It may import
base (and itself); everything above asks it rather than keeping its
own copy of a kernel fact.
"""
