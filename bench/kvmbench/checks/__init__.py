# SPDX-License-Identifier: GPL-2.0-only
"""kvmbench.checks: docs_check: the manual's claims about the code."""
