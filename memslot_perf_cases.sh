#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
#
# memslot_perf_test over a table of cases: all six tests with a few and
# with as many memslots as KVM allows and the memory splits into (-s -1),
# every test with every check (-d), the move tests over many slots and
# with the zap quirk disabled (-q: a skip where KVM lacks it), every
# backing source the host can give (-t), JSON, and bad input (exit 1
# with the reason on stderr).  Every passing case also checked what the
# guest and the host read back through every slot.  Sizes are small:
# a run is a tenth of a second.  Prints TAP; exits 1 if any case failed,
# 4 if all were skipped.
#
# usage: memslot_perf_cases.sh [PATH_TO_memslot_perf_test]

TEST=${1:-$(dirname "$0")/memslot_perf_test}
SUMMARY='^Best slot setup time'
# shellcheck source=cases_lib.sh
. "$(dirname "$0")/cases_lib.sh"

cases() {
	run ok -s 9 -b 1M -l 0.1 -r 2
	run ok -s 9 -b 1M -l 0.1 -r 2 -e 2
	run ok -s -1 -b 512K -l 0.1 -r 1
	run ok -s 3 -b 512K -l 0.1 -r 1 -d
	run ok -s 65 -b 1M -l 0.1 -r 2 -f 3 -e 4 -v
	run ok -s 9 -b 1M -l 0.1 -r 1 -f 3 -e 4 -q
	run ok -s 5 -b 1M -l 0.1 -r 1 -f 5 --json "${TMPDIR:-/tmp}/memslot_perf_cases.json"
	# Two units of each backing's pages, in two slots, if they fit.
	ram_kb=$(sed -n 's/^MemTotal: *\([0-9]*\) kB/\1/p' /proc/meminfo)
	for s in $(case_backings -t --json); do
		# Private memory has no host view to write and check: bad input below.
		[ "$s" = guest_memfd_private ] && continue
		kb=$(case_hugepage_kb "$s")
		kb=${kb:-512}
		if [ $((kb * 4)) -ge "$ram_kb" ]; then
			skip "$((kb / 1024))M pages do not fit twice in this machine's RAM" -t "$s"
		else
			run ok -t "$s" -s 3 -b $((kb * 2))K -l 0.05 -r 1
		fi
	done

	run "must be larger than 1" -s 1
	run "must be larger than 1" -s 0
	run "Invalid memslot count cap" -s x
	run "Invalid first test" -f 6
	run "Invalid last test" -e -1
	run "comes after the last" -f 3 -e 2
	run "Invalid test length" -l 0
	run "Invalid test length" -l 1s
	run "Invalid runs per test" -r 0
	run "too high for" -s 300 -b 1M
	run "need two test slots" -s 2 -b 1M -f 3
	run "less than two" -s 2 -b 4K
	run "not a multiple" -b 4097
	run "must not be zero" -b 0
	run "Unknown backing source" -t nosuch
	run "has no host view" -t guest_memfd_private
	run "Invalid guest mode" -m 99
	run "invalid option" -z
	run "Unexpected argument" extra
	run "Cannot write the JSON file" -b 1M --json /nonexistent/x.json
}

cases_main
