# SPDX-License-Identifier: GPL-2.0-only
"""kvmbench.tracking: bench/track, KVM's figures across a stream of
kernels.  track: the command (kernels resolved, rounds of boots, the
report); trackplan: the rounds, the same for local boots and LAVA jobs;
trackdb: the database of runs; trackjudge: neighbour verdicts and change
points; tracklava: the boots as LAVA jobs; trackreport: track.html and
track.md; track_checks: bench/track_checks.sh's proofs in TAP.  It may
import attribution, labs, vmrun, kernels, verdicts and base.
"""
