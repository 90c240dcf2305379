# SPDX-License-Identifier: GPL-2.0-only
"""kvmbench.labs: LAVA: its REST API, the local lab, the suite's jobs, vm/suite --lava."""
