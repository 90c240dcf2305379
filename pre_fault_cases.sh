#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
#
# pre_fault_memory_test over a table of cases: anonymous, THP, shmem and
# hugetlb backing (a skip without hugepages), 1 and 2 vCPUs, and bad
# input (exit 1 with the reason on stderr).  Every passing case checked
# KVM_PRE_FAULT_MEMORY's semantics (whole and partial ranges, a range
# outside any slot, progress reported back, EINVAL) and that the first
# read pass over pre-faulted memory took no page faults; a skip where
# KVM lacks KVM_CAP_PRE_FAULT_MEMORY.  Prints TAP; exits 1 if any case
# failed, 4 if all were skipped.
#
# usage: pre_fault_cases.sh [PATH_TO_pre_fault_memory_test]

TEST=${1:-$(dirname "$0")/pre_fault_memory_test}
SUMMARY='^KVM_PRE_FAULT_MEMORY'
# shellcheck source=cases_lib.sh
. "$(dirname "$0")/cases_lib.sh"

cases() {
	run "-n: KVM_PRE_FAULT_MEMORY cannot map for a nested guest" -n
	run "-o: each vCPU reads its own slice" -o
	run "Unexpected argument 'x'" x
	run "Invalid size 'x'" -b x
	run ok
	run ok -b 8M -v 2
	run ok -b 16M -s anonymous_thp
	run ok -b 8M -s shmem
	run ok -b 16M -s anonymous_hugetlb
	run ok -b 8M -s guest_memfd
	run ok -b 8M -v 2 -s guest_memfd_private
	run "-N binds the host's mapping" -s guest_memfd_private -N 0
}

cases_main
