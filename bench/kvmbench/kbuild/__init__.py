# SPDX-License-Identifier: GPL-2.0-only
"""kvmbench.kbuild: KVM, or a whole kernel, built from source
(vm/kvm-build).  kvm_build: the build for a Debian kernel (KVM's modules
with its config and symbols, or a whole small kernel) out of tree and
cached; kvm_tree: the read-only shadow of the user's tree and the
patches applied to private copies; kvm_config: a whole kernel's small
config (tinyconfig, the suite's fragment, what the guest needs).  It may
import vmrun, kernels and base.
"""
