# SPDX-License-Identifier: GPL-2.0-only
# shellcheck shell=sh
#
# cases_lib.sh: what the *_cases.sh scripts share.  Each runs one test
# binary over a table of cases and prints TAP.  A script sets TEST (the
# binary) and SUMMARY (a pattern for the output line to show beside a
# passing case), sources this file, defines cases() and calls cases_main.
#
#   run EXPECT ARGS...  EXPECT is "ok" (exit 0, or 4 = skip) or the text a
#                       bad input must print first on stderr, with exit 1.
#   skip REASON ARGS... a case this host cannot express, with the reason.
#
# A case still running after CASE_TIMEOUT seconds (default 120) is killed,
# its threads' kernel stacks shown, and fails.  CASES_ONLY=PATTERN (grep
# -E) runs only the cases whose arguments match it; CASES_OK_ONLY=PATTERN
# likewise, but only for the cases expected to pass (bad input all runs:
# it starts no guest), to size a table down for a slow machine.
#
# cases_main exits 1 if any case failed, 4 if all were skipped, else 0.

N=0
FAILED=0
PASSED=0
OUT=$(mktemp)
ERR=$(mktemp)
trap 'rm -f "$OUT" "$ERR"' EXIT

# watch_case PID: after CASE_TIMEOUT seconds, dump PID's threads' kernel
# stacks into $ERR and kill it (the case then fails).
CASE_TIMEOUT=${CASE_TIMEOUT:-120}
watch_case() {
	n=0
	while [ $n -lt $((CASE_TIMEOUT * 10)) ] && kill -0 "$1" 2>/dev/null; do
		sleep 0.1
		n=$((n + 1))
	done
	kill -0 "$1" 2>/dev/null || return
	for t in /proc/"$1"/task/*; do
		echo "hung after ${CASE_TIMEOUT}s: $t $(cat "$t/comm") $(grep State "$t/status")"
		head -n 8 "$t/stack" 2>/dev/null
	done >>"$ERR"
	kill -9 "$1"
}

# selected EXPECT ARGS...: true if CASES_ONLY is unset or matches ARGS, and
# (for an EXPECT of ok) so does CASES_OK_ONLY.
selected() {
	if [ "$1" = ok ] && [ -n "${CASES_OK_ONLY:-}" ]; then
		shift
		printf '%s\n' "$*" | grep -Eq -- "$CASES_OK_ONLY" || return 1
	else
		shift
	fi
	[ -z "${CASES_ONLY:-}" ] || printf '%s\n' "$*" | grep -Eq -- "$CASES_ONLY"
}

run() {
	expect=$1
	selected "$@" || return 0
	shift
	N=$((N + 1))
	"$TEST" "$@" >"$OUT" 2>"$ERR" </dev/null &
	watch_case $!
	wait $!
	rc=$?
	if [ "$expect" = ok ] && [ $rc -eq 4 ]; then
		echo "ok $N $* # SKIP $(grep -m1 SKIP "$OUT" | sed 's/.*# SKIP //')"
		return
	fi
	if [ "$expect" = ok ] && [ $rc -eq 0 ]; then
		PASSED=$((PASSED + 1))
		echo "ok $N $* # $(grep -m1 -- "$SUMMARY" "$OUT")"
		return
	fi
	# The reason is the first line (-s lists the valid names after it).
	if [ "$expect" != ok ] && [ $rc -eq 1 ] &&
	   head -n1 "$ERR" | grep -q -- "$expect"; then
		PASSED=$((PASSED + 1))
		echo "ok $N $* # exit 1: $(head -n1 "$ERR")"
		return
	fi
	FAILED=$((FAILED + 1))
	echo "not ok $N $* # exit $rc, expected $expect"
	sed 's/^/#   /' "$OUT" "$ERR"
}

skip() {
	reason=$1
	shift
	selected ok "$@" || return 0
	N=$((N + 1))
	echo "ok $N $* # SKIP $reason"
}

cases_main() {
	echo "TAP version 13"
	cases
	echo "1..$N"
	echo "# $PASSED passed, $FAILED failed, $((N - PASSED - FAILED)) skipped"
	[ $FAILED -eq 0 ] || exit 1
	[ $PASSED -gt 0 ] || exit 4
	exit 0
}
