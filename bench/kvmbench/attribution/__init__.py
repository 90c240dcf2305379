# SPDX-License-Identifier: GPL-2.0-only
"""kvmbench.attribution: which change carries a step: bench/bisect-run, bench/config-bisect, bench/attribute, Debian changelogs."""
