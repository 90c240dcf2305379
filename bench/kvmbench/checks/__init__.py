# SPDX-License-Identifier: GPL-2.0-only
"""kvmbench.checks: the manual's claims about the code that a program can
check (python3 bench/kvmbench/checks/docs_check.py).  docs_check: the
checks and their command line; docs_check_code: the C checks (layers,
lib, arch) and the design page's tables; py_layers: this package layout
against design.md's package table.  It may import kernels (Debian's
kernel names the examples use) and base; nothing imports it.
"""
