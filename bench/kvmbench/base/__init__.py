# SPDX-License-Identifier: GPL-2.0-only
"""kvmbench.base: the errors the programs end with and the one TAP writer."""
