#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
#
# kvm_page_table_test over a table of cases: every backing source the
# host can give, with and without -L (huge guest pages), 1..2 vCPUs and
# memslots, and bad input (exit 1 with the reason on stderr).  Every
# passing case also checked the story the KVM stats tell (mappings made,
# huge mappings gone under dirty logging and back after, faults per page
# written under logging; each part skipped with its reason where the KVM
# lacks the stat), the dirty log and the memory's contents.  Prints TAP;
# exits 1 if any case failed, 4 if all were skipped.
#
# usage: kvm_page_table_cases.sh [PATH_TO_kvm_page_table_test]

TEST=${1:-$(dirname "$0")/kvm_page_table_test}
SUMMARY='Mapping sizes'
# shellcheck source=cases_lib.sh
. "$(dirname "$0")/cases_lib.sh"

cases() {
	# The first guest mode the host lists; sizes fit 64K guest pages.
	M=$(case_first_mode)
	run ok -m "$M" -b 4M
	run ok -m "$M" -b 4M -v 2 -x 2
	ram_kb=$(sed -n 's/^MemAvailable: *\([0-9]*\) kB/\1/p' /proc/meminfo)
	for s in $(case_backings -s -c); do
		kb=$(case_hugepage_kb "$s")
		kb=$((${kb:-0} > 2048 ? ${kb:-0} : 2048))
		for opt in "" -L; do
			# shellcheck disable=SC2086 # $opt: no option or one
			if [ $((kb * 2)) -ge "$ram_kb" ] || [ $((16 * 1024)) -ge "$ram_kb" ]; then
				skip "$((kb / 1024))M pages do not fit in this machine's memory" \
				     -s "$s" $opt
			else
				# -L: 256 guest pages of 64K or more (faults judged)
				b=$((kb * 2 / 1024))
				[ -n "$opt" ] && [ $b -lt 16 ] && b=16
				run ok -m "$M" -s "$s" -b ${b}M $opt
			fi
		done
	done
	run "each vCPU writes its own slice" -o
	run "the mapping story is L1's" -n
	run "is not a multiple of the" -b 3K
	run "Unknown backing source type" -s bogus
	run "Unexpected argument" -b 4M extra
}

cases_main
