# SPDX-License-Identifier: GPL-2.0-only
"""kvmbench.labs: LAVA, the engine for more than one machine.  lava: a
LAVA server's REST API (submit, wait, results, logs); lab: the local lab
on 127.0.0.1 (lava/lab); lavajobs: the suite's jobs (vm/run --export's
boot pieces, lava/qemu-ARCH.yaml, results read back as TAP or figures);
lavasuite: vm/suite --lava.  The programs that also run on a lab keep
their own --lava part beside them (measure.lavacompare,
tracking.tracklava).  It may import vmrun, kernels and base.
"""
