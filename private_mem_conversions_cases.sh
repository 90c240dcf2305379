#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
#
# private_mem_conversions_test over a table of cases: 1, 2 and 4 vCPUs,
# chunks of one page to a whole vCPU's memory, several rounds, --json,
# and bad input (exit 1 with the reason on stderr).  Where KVM has no VM
# type with private memory every run case is a skip, with the reason.
# Prints TAP; exits 1 if any case failed, 4 if all were skipped.
#
# usage: private_mem_conversions_cases.sh [PATH_TO_private_mem_conversions_test]

TEST=${1:-$(dirname "$0")/private_mem_conversions_test}
SUMMARY='^Conversions to shared'
# shellcheck source=cases_lib.sh
. "$(dirname "$0")/cases_lib.sh"

cases() {
	run ok
	run ok -v 2
	run ok -v 4 -b 1M -k 1 -r 2
	run ok -v 2 -b 4M -k 1024 -r 1
	run ok -v 2 -k 3 --json "${TMPDIR:-/tmp}/private_mem_conversions_cases.json"
	run "Conversions are of private memory" -s guest_memfd
	run "Conversions are of private memory" -s anonymous
	run "each vCPU converts its own pages" -o
	run "-n: the conversions are the vCPUs' own requests" -n
	run "Invalid conversion size in pages" -k 0
	run "Invalid rounds" -r 0
	run "Unexpected argument" extra
}

cases_main
