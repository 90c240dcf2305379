#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
#
# nx_huge_pages_test (x86_64) over a table of cases: recovery periods,
# -r, upstream's wrapper's arguments, a check made to fail by fault
# injection, the kvm parameters it changes put back after each (also
# after that failure), and bad input (exit 1 with the reason on stderr).
# Prints TAP; exits 1 if any case failed, 4 if all were skipped (also
# where the test is not built: other arches).
#
# usage: nx_huge_pages_cases.sh [PATH_TO_nx_huge_pages_test]

TEST=${1:-$(dirname "$0")/nx_huge_pages_test}
DIR=$(dirname "$TEST")
SUMMARY='^# Totals'
# shellcheck source=cases_lib.sh
. "$(dirname "$0")/cases_lib.sh"

if [ ! -x "$TEST" ]; then
	echo "1..0 # SKIP $TEST not built: nx_huge_pages_test is x86_64 only"
	exit 4
fi

P=/sys/module/kvm/parameters
params() {
	for f in nx_huge_pages nx_huge_pages_recovery_ratio nx_huge_pages_recovery_period_ms; do
		printf '%s=%s ' "$f" "$(cat "$P/$f" 2>/dev/null || echo absent)"
	done
}

cases() {
	before=$(params)
	skipped=$("$TEST" -p 20 | sed -n 's/.*# SKIP //p' | head -n1)

	run ok
	run ok -p 20
	run ok -p 250 -r
	run ok -t 887563923 -p 100 -r
	same "kvm parameters" "$before" "$(params)"
	if [ -n "$skipped" ]; then
		skip "$skipped" KVM_SELFTEST_FAIL=nx_expect:3
	else
		fault nx_expect:3 "After execute page 0 (mitigation disabled for the VM)" \
		      "${TEST##*/}" -p 20
	fi
	same "kvm parameters" "$before" "$(params)"

	run "Invalid recovery period" -p 0
	run "Invalid recovery period" -p x
	run "Invalid token" -t x
	run "invalid option" -z
	run "Unexpected argument" extra
}

cases_main
