#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# bench/track_checks.sh [--logs DIR]: bench/track proven small, in
# kselftest TAP, for vm/suite's pool (docs/track.md).  The program is
# bench/kvmbench/tracking/track_checks.py.
# shellcheck source=bench/kvmbench/exec.sh
. "$(dirname "${BASH_SOURCE[0]}")/kvmbench/exec.sh"
kvmbench_exec tracking.track_checks 1 "$@"
