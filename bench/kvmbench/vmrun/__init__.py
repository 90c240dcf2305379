# SPDX-License-Identifier: GPL-2.0-only
"""kvmbench.vmrun: vm/run (options, initramfs, boot), where runs happen, the programs' shared command line."""
