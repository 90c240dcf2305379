#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
#
# dirty_log_page_splitting_test over a table of cases: eager and lazy
# splitting, without and with manual protect (each run's mappings checked
# against what its splitting implies), hugetlb (2M, 1G where reserved,
# shared) and THP backing, 1..3 vCPUs and memslots, -o, the expectation
# flipped by fault injection (the checks must fail), the kvm parameter
# eager_page_split put back afterwards, and bad input (exit 1 with the
# reason on stderr).  Prints TAP; exits 1 if any case failed, 4 if all
# were skipped.
#
# usage: dirty_log_page_splitting_cases.sh [PATH_TO_dirty_log_page_splitting_test]

TEST=${1:-$(dirname "$0")/dirty_log_page_splitting_test}
DIR=$(dirname "$TEST")
SUMMARY='^# Mapping checks: '
# shellcheck source=cases_lib.sh
. "$(dirname "$0")/cases_lib.sh"

PARAM=/sys/module/kvm/parameters/eager_page_split

cases() {
	M=$("$TEST" -h | sed -n 's/^ *\([0-9][0-9]*\): PA-bits.*/\1/p' | head -n1)
	before=$(cat "$PARAM" 2>/dev/null || echo absent)
	# Whether this KVM shows its mappings (the fault cases need a check to break).
	probe=$("$TEST" -m "$M" -g -b 2M -v 1 -x 1 2>&1)
	nocheck=$(printf '%s\n' "$probe" | sed -n 's/^# Mapping checks: skipped: //p' | head -n1)
	skipped=$(printf '%s\n' "$probe" | sed -n 's/.*# SKIP //p' | head -n1)

	run ok -m "$M" -b 4M
	run ok -m "$M" -b 2M -g -E eager
	run ok -m "$M" -b 2M -g -E lazy
	run ok -m "$M" -b 2M -v 3 -x 3 -g
	run ok -m "$M" -b 2M -o -g -E eager
	run ok -m "$M" -s anonymous_thp -b 4M -v 1 -g -E lazy
	run ok -m "$M" -s shared_hugetlb -b 2M -g -E eager
	run ok -m "$M" -s anonymous_hugetlb_1gb -b 1G -v 1 -x 1 -g
	if [ -n "$skipped" ]; then
		skip "$skipped" KVM_SELFTEST_FAIL=split_expect
	elif [ -n "$nocheck" ]; then
		skip "$nocheck" KVM_SELFTEST_FAIL=split_expect
	else
		for e in eager lazy; do
			fault split_expect "splitting, due at" "${TEST##*/}" -m "$M" -g -E $e -b 2M
		done
	fi
	now=$(cat "$PARAM" 2>/dev/null || echo absent)
	if [ "$now" = absent ]; then
		skip "no kvm parameter eager_page_split here" eager_page_split put back
	else
		same "kvm parameter eager_page_split" "$before" "$now"
	fi

	run "has no huge pages to split" -s anonymous
	run "is not for this test" -n
	run "Invalid splitting" -E both
	run "not a multiple" -b 1M
	run "does not split" -b 2M -x 2 -v 1
	run "Invalid guest mode" -m 99
	run "invalid option" -z
	run "Unexpected argument" extra
}

cases_main
