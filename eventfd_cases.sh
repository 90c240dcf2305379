#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
#
# eventfd_perf_test over a table of cases: 1..4 pairs in every wait mode
# (read, epoll, an EPOLLEXCLUSIVE pool, a poll() pool) with pools smaller
# and larger than the pairs, MMIO doorbells, a timed run, -B, -c, the
# host-only ping-pong (-H), --json FILE (written, and parses as JSON),
# and bad input (exit 1 with the reason on stderr).  Every passing case also checked each pair's counts: doorbells
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

# json_ok ARGS...: a passing run of ARGS --json FILE, then a case of its
# own: FILE was written, and parses (python3 -m json.tool, else jq; with
# neither, as in the busybox guest, only written is checked: a SKIP).
json_ok() {
	json=$(mktemp)
	rm -f "$json"
	run ok "$@" --json "$json"
	run_rc=$rc
	selected ok "$@" --json || return 0
	N=$((N + 1))
	if [ "$run_rc" -eq 4 ]; then
		echo "ok $N --json parses # SKIP the run was skipped"
	elif [ ! -s "$json" ]; then
		FAILED=$((FAILED + 1))
		echo "not ok $N --json parses # no JSON file written"
	elif command -v python3 >/dev/null && ! python3 -m json.tool "$json" >/dev/null; then
		FAILED=$((FAILED + 1))
		echo "not ok $N --json parses # python3 -m json.tool failed"
	elif ! command -v python3 >/dev/null && command -v jq >/dev/null &&
	     ! jq -e .runs "$json" >/dev/null; then
		FAILED=$((FAILED + 1))
		echo "not ok $N --json parses # jq failed"
	elif ! command -v python3 >/dev/null && ! command -v jq >/dev/null; then
		echo "ok $N --json parses # SKIP written; no python3 or jq to parse it"
	else
		PASSED=$((PASSED + 1))
		echo "ok $N --json parses # $(wc -c <"$json") bytes"
	fi
	rm -f "$json"
}

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
	json_ok -v 2 -e $E

	run "Invalid pair count" -v 0
	run "Invalid pair count" -v 1000
	run "Invalid event count" -e 0
	run "Invalid seconds" -t 0
	run "not both" -e 10 -t 1
	run "Unknown wait mode" -w foo
	run "need -w pool" -r 2
	run "not with -H" -H -M
	run "has 1 CPUs" -v 2 -c 0
	run "Cannot write the JSON file" --json /nonexistent/dir/out.json
	run "Unexpected argument" extra
}

cases_main
