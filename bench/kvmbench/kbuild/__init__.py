# SPDX-License-Identifier: GPL-2.0-only
"""kvmbench.kbuild: KVM and whole kernels built from source (vm/kvm-build)."""
