#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
#
# eventfd_perf_test over a table of cases: 1..4 pairs in every wait mode
# (read, epoll, an EPOLLEXCLUSIVE pool, a poll() pool) with pools smaller
# and larger than the pairs, MMIO doorbells, a timed run, -B, -c, the
# host-only ping-pong (-H), and bad input (exit 1 with the reason on
# stderr).  Every passing case also checked each pair's counts: doorbells
# served = rung = interrupts taken, none on the wrong vCPU or vector,
# none spurious.  Prints TAP; exits 1 if any case failed, 4 if all were
# skipped.
#
# usage: eventfd_cases.sh [PATH_TO_eventfd_perf_test]

TEST=${1:-$(dirname "$0")/eventfd_perf_test}
E=300
SUMMARY='^rate:'
# shellcheck source=cases_lib.sh
. "$(dirname "$0")/cases_lib.sh"

cases() {
	run ok
	for w in read epoll pool pool-poll; do
		run ok -v 2 -e $E -w $w
		run ok -v 4 -e $E -w $w
		run ok -H -v 4 -e $E -w $w
	done
	run ok -v 4 -e $E -w pool -r 1
	run ok -v 2 -e $E -w pool -r 4
	run ok -v 3 -e $E -w pool-poll -r 2
	run ok -v 2 -e $E -M
	run ok -v 2 -t 1
	run ok -v 2 -e $E -B
	run ok -v 2 -e $E -c 0,0,0

	run "Invalid pair count" -v 0
	run "Invalid pair count" -v 1000
	run "Invalid event count" -e 0
	run "Invalid seconds" -t 0
	run "not both" -e 10 -t 1
	run "Unknown wait mode" -w foo
	run "need -w pool" -r 2
	run "not with -H" -H -M
	run "has 1 CPUs" -v 2 -c 0
	run "Unexpected argument" extra
}

cases_main
