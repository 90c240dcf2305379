# SPDX-License-Identifier: GPL-2.0-only
"""kvmbench.attribution: which change carries a step.  bisect:
bench/bisect-run, a performance verdict git bisect run understands
(kvm_bisect: its candidates built from source); config_bisect:
bench/config-bisect, the Kconfig options that carry it; attribute_cli
and ddmin: bench/attribute, the hunk between two trees by delta
debugging, and mail its report (a regression mail); attribute: what Debian's changelogs and sources say changed
between two Debian kernels (for bench/track too).  It may import
kbuild, vmrun, kernels, verdicts and base.
"""
