#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
#
# memslot_modification_stress_test over a table of cases: 1..4 vCPUs
# walking their memory while a memslot comes and goes, with overlapping
# memory (-o), a delay between changes (-d), the zap quirk disabled (-q:
# a skip where KVM lacks it), every backing source the host can give
# (-s), pinned vCPUs (-c), large guest pages (-L), -p, no start barrier
# (-B), JSON, and bad input (exit 1 with the reason on stderr).  Every
# passing case also checked that every vCPU finished and every page
# holds what its vCPU wrote.  Prints TAP; exits 1 if any case failed, 4
# if all were skipped.
#
# usage: memslot_modification_stress_cases.sh [PATH_TO_memslot_modification_stress_test]

TEST=${1:-$(dirname "$0")/memslot_modification_stress_test}
SUMMARY='^Memslot delete:'
# shellcheck source=cases_lib.sh
. "$(dirname "$0")/cases_lib.sh"

cases() {
	M=$(case_first_mode)
	run ok -b 1M -i 10
	for v in 1 2 3 4; do
		run ok -m "$M" -b 1M -v $v -i 30
	done
	run ok -m "$M" -b 1M -v 3 -o -i 20
	run ok -m "$M" -b 1M -v 2 -i 10 -d 2000
	run ok -m "$M" -b 1M -v 2 -i 20 -q
	run ok -m "$M" -b 1M -v 2 -i 10 -c 0,0,0
	run ok -m "$M" -b 2M -v 2 -i 10 -L
	run ok -m "$M" -b 1M -v 2 -i 10 -p 0x40000000
	run ok -m "$M" -b 1M -v 4 -i 10 -B
	run ok -m "$M" -b 1M -i 10 --json "${TMPDIR:-/tmp}/memslot_stress_cases.json"
	# A page of each backing for each of two vCPUs, if they fit.
	ram_kb=$(sed -n 's/^MemTotal: *\([0-9]*\) kB/\1/p' /proc/meminfo)
	for s in $(case_backings -s -c); do
		kb=$(case_hugepage_kb "$s")
		kb=${kb:-1024}
		if [ $((kb * 4)) -ge "$ram_kb" ]; then
			skip "$((kb / 1024))M pages do not fit in this machine's RAM" -s "$s"
		else
			run ok -m "$M" -s "$s" -b $((kb))K -v 2 -i 10
		fi
	done

	run "Invalid iteration count" -i 0
	run "Invalid iteration count" -i x
	run "Invalid delay" -d -1
	run "do not run nested" -n
	run "must not be zero" -b 0
	run "not a multiple" -b 4097
	run "Unknown backing source" -s nosuch
	run "Invalid vCPU count" -v 0
	run "Invalid guest mode" -m 99
	run "invalid option" -z
	run "Unexpected argument" extra
}

cases_main
