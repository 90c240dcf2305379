#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
#
# access_tracking_perf_test over a table of cases: MGLRU (the default
# where the kernel has it) and page_idle (a skip where it is not built),
# -w warn and fail modes, 1 and 2 vCPUs, -o, THP backing, and bad input
# (exit 1 with the reason on stderr).  Every passing case checked that
# aging found the guest-touched pages young and the untouched ones idle
# (a warning instead where the test says why it cannot be exact).
# Sizes are small: the table runs under TCG.  Prints TAP; exits 1 if any
# case failed, 4 if all were skipped.
#
# usage: access_tracking_cases.sh [PATH_TO_access_tracking_perf_test]

TEST=${1:-$(dirname "$0")/access_tracking_perf_test}
SUMMARY='^Aging ('
# shellcheck source=cases_lib.sh
. "$(dirname "$0")/cases_lib.sh"

# One guest mode per case on arm64 (all of them: ten under TCG).
MODE=
[ "$(uname -m)" = aarch64 ] && MODE="-m 11"

cases() {
	run "Unknown access tracking mechanism (-t) 'lru'" -t lru
	run "Invalid idle page warning (-w) '2'" -w 2
	run "-n: access tracking of nested guests" -n
	run "Unexpected argument 'x'" x
	# shellcheck disable=SC2086 # MODE is one option or none
	{
	run ok $MODE -b 16M
	run ok $MODE -b 16M -w 1
	run ok $MODE -b 8M -v 2
	run ok $MODE -b 8M -v 2 -o
	run ok $MODE -b 16M -s anonymous_thp
	run ok $MODE -b 8M -t page_idle
	}
}

cases_main
