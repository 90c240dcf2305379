#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
#
# dirty_log_perf_test over a table of cases: every backing source the
# host can give, 1..4 vCPUs by 1..4 memslots, manual protect on and off
# (-g), the dirty ring on and off (-R; a skip where KVM lacks it), the
# ring filling up, -w, -a, -o, -e, -B, -c, nested vCPUs (-n: each
# backing, -g, the ring; a skip where KVM cannot nest), -p, -L, and bad
# input (exit 1 with the reason on stderr).  Every passing case also
# checked the dirty log of each pass against the pages written.  Prints TAP; exits 1 if any case
# failed, 4 if all were skipped.
#
# usage: dirty_log_cases.sh [PATH_TO_dirty_log_perf_test]

TEST=${1:-$(dirname "$0")/dirty_log_perf_test}
SUMMARY='^Get dirty log over'
# shellcheck source=cases_lib.sh
. "$(dirname "$0")/cases_lib.sh"

cases() {
	# The first guest mode the host lists: one mode keeps the table short
	# (the case without arguments runs them all).
	M=$(case_first_mode)
	ring_skip=$("$TEST" -m "$M" -R 4096 -b 64K | sed -n 's/.*# SKIP //p')

	run ok
	for v in 1 2 3 4; do
		for x in 1 2 3 4; do
			run ok -m "$M" -b 3M -v $v -x $x
		done
		run ok -m "$M" -b 3M -v $v -x 2 -g
		run ok -m "$M" -b 3M -v $v -x 2 -R 4096
	done
	# Two vCPUs and slots, a page each (one past 256M), if it fits in RAM.
	ram_kb=$(sed -n 's/^MemTotal: *\([0-9]*\) kB/\1/p' /proc/meminfo)
	for s in $(case_backings -s -c); do
		kb=$(case_hugepage_kb "$s")
		kb=$((${kb:-0} > 2048 ? ${kb:-0} : 2048))
		v=$((kb > 262144 ? 1 : 2))
		for opt in "" -g "-R 4096" -n "-n -g" "-n -R 4096"; do
			# Nested: the backings of 2M pages or less are enough to tell.
			case "$opt" in -n*) [ "$kb" -gt 2048 ] && continue ;; esac
			# shellcheck disable=SC2086 # $opt: no option or one with its value
			if [ $((kb * v)) -ge "$ram_kb" ]; then
				skip "$((kb / 1024))M pages do not fit in this machine's RAM" \
				     -s "$s" $opt
			else
				run ok -m "$M" -s "$s" -b $((kb / 1024))M -v $v -x $v $opt
			fi
		done
	done
	run ok -m "$M" -b 4M -v 2 -R 1024 -i 3
	run ok -m "$M" -b 4M -v 2 -R 1024 -e
	run ok -m "$M" -b 4M -v 2 -e
	run ok -m "$M" -b 4M -v 2 -e -g
	run ok -m "$M" -b 2M -v 2 -w 0
	run ok -m "$M" -b 2M -v 2 -w 0 -g
	run ok -m "$M" -b 2M -v 2 -w 0 -R 4096
	run ok -m "$M" -b 2M -v 3 -w 30 -a -r 7 -x 3
	run ok -m "$M" -b 2M -v 2 -w 50 -R 4096 -a
	run ok -m "$M" -b 2M -v 3 -o -x 2
	run ok -m "$M" -b 2M -v 3 -o -R 4096
	run ok -m "$M" -b 2M -v 4 -B -a
	run ok -m "$M" -b 2M -v 2 -c 0,0,0
	run ok -m "$M" -b 2M -v 2 -N 0
	run ok -m "$M" -b 1M -i 6
	run ok -m "$M" -b 2M -v 2 -L
	run ok -m "$M" -b 2M -v 2 -x 2 -p 0x40000000
	run ok -m "$M" -b 2M -v 2 -n -w 50 -a -i 3
	run ok -m "$M" -b 2M -v 3 -n -o -x 2
	run ok -m "$M" -b 2M -v 2 -n -e

	run "Invalid iteration count" -i 1
	run "Invalid iteration count" -i x
	run "must not be zero" -b 0
	run "exceeds this host's RAM" -b 1T
	run "overflows" -b 4611686018427387904 -v 4
	run "not a multiple" -b 4097
	run "does not split" -b 4M -x 3
	run "Invalid memslot count" -x 0
	run "KVM allows" -x 32767 -b 134213632
	run "Invalid write percentage" -w 101
	run "Invalid write percentage" -w -1
	run "Invalid seed" -r x
	run "Invalid ring entry count" -R 0
	run "not a power of two" -R 1000
	run "is about the dirty bitmap" -R 4096 -g
	if [ -z "$ring_skip" ]; then
		run "KVM refuses a dirty ring" -R 64
		run "exceeds KVM's maximum" -R 1073741824
	else
		skip "$ring_skip" -R 64
		skip "$ring_skip" -R 1073741824
	fi
	run "Invalid guest mode" -m 99
	run "Unknown backing source" -s nosuch
	run "Invalid vCPU count" -v 0
	run "has 1 CPUs" -v 2 -c 0
	run "invalid option" -z
	run "Unexpected argument" extra
	run "overlaps the test binary" -p 0x100000
	run "is not aligned" -p 0x40000800
}

cases_main
