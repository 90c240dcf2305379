#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
#
# mmu_stress_test over a table of cases: every backing source the host
# can give (-t; -H), 1..3 vCPUs, one to many memslots sharing the buffer,
# and bad input (exit 1 with the reason on stderr).  Every passing case
# also checked that each vCPU's write failed with EFAULT after
# mprotect(PROT_READ) and after munmap (with the memory-fault exit's GPA
# where KVM has KVM_CAP_MEMORY_FAULT_INFO), that writes succeeded again
# after, and what every page held after each stage.  Small sizes: the
# table runs in well under a minute of TCG.  Prints TAP; exits 1 if any
# case failed, 4 if all were skipped.
#
# usage: mmu_stress_cases.sh [PATH_TO_mmu_stress_test]

TEST=${1:-$(dirname "$0")/mmu_stress_test}
SUMMARY='^run1 = '
# shellcheck source=cases_lib.sh
. "$(dirname "$0")/cases_lib.sh"

cases() {
	run ok -m 8M -s 8M -c 1
	run ok -m 8M -s 1M -c 2
	run ok -m 6M -s 2M -c 3
	ram_kb=$(sed -n 's/^MemAvailable: *\([0-9]*\) kB/\1/p' /proc/meminfo)
	for s in $(case_backings -t -H); do
		kb=$(case_hugepage_kb "$s")
		kb=$((${kb:-0} > 2048 ? ${kb:-0} : 2048))
		if [ $((kb * 4)) -ge "$ram_kb" ]; then
			skip "$((kb / 1024))M pages do not fit in this machine's memory" -t "$s"
		else
			run ok -t "$s" -s $((kb / 1024))M -m $((kb * 4 / 1024))M -c 2
		fi
	done
	run ok -H -s 2M -m 8M -c 2
	run "Invalid vCPU count (-c)" -c 0
	run "is not a multiple of the" -s 3K
	run "is less than one slot" -m 1M -s 2M
	run "Bad guest memory (-m)" -m 0
	run "Unknown backing source type" -t bogus
	run "Unexpected argument" -c 1 extra
	run "exceed MemAvailable" -s 1024
}

cases_main
