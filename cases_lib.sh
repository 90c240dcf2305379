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
#   fault SITE PATTERN TEST ARGS...  fault injection (include/fault_inject.h)
#   same WHAT BEFORE NOW  NOW must equal BEFORE (settings put back)
#
# A case still running after CASE_TIMEOUT seconds (default 120) is killed,
# its threads' kernel stacks shown, and fails.  CASES_ONLY=PATTERN (grep
# -E) runs only the cases whose arguments match it; CASES_OK_ONLY=PATTERN
# likewise, but only for the cases expected to pass (bad input all runs:
# it starts no guest), to size a table down for a slow machine.
#
# cases_main exits 1 if any case failed, 4 if all were skipped, else 0.
#
#   case_backings OPT NEXT  the backing source names of $TEST's -h: the
#                           lines of its OPT help up to NEXT's
#   case_hugepage_kb NAME   the huge page size in kB backing NAME asks for
#                           (THP: the PMD size), empty if none
#   case_first_mode         the first guest mode $TEST -h lists

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

# since T0: whole seconds since /proc/uptime read T0.
since() {
	read -r t1 _ </proc/uptime
	echo "$1 $t1" | awk '{ printf "%.0f", $2 - $1 }'
}

# slow_note T0: a diagnostic line before a case's result if it took 10 s
# or more since T0 (to size a table for CI).
slow_note() {
	t=$(since "$1")
	[ "$t" -lt 10 ] || echo "# took $t s"
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
	read -r t0 _ </proc/uptime
	"$TEST" "$@" >"$OUT" 2>"$ERR" </dev/null &
	watch_case $!
	wait $!
	rc=$?
	slow_note "$t0"
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

# fault SITE PATTERN TEST ARGS...: KVM_SELFTEST_FAIL=SITE; DIR/TEST must
# exit 1 with PATTERN on stderr (anywhere: an assert's reason is its last
# line).  A script using it sets DIR.
fault() {
	site=$1 pattern=$2 prog=$3
	shift 3
	N=$((N + 1))
	read -r t0 _ </proc/uptime
	KVM_SELFTEST_FAIL=$site "$DIR/$prog" "$@" >"$OUT" 2>"$ERR" </dev/null &
	pid=$!
	watch_case $pid
	wait $pid
	rc=$?
	slow_note "$t0"
	if [ $rc -eq 4 ]; then
		echo "ok $N $site: $prog $* # SKIP $(grep -m1 SKIP "$OUT" | sed 's/.*# SKIP //')"
	elif [ $rc -eq 1 ] && grep -q -- "$pattern" "$ERR"; then
		PASSED=$((PASSED + 1))
		echo "ok $N $site: $prog $* # exit 1: $(grep -m1 -- "$pattern" "$ERR" | sed 's/^ *//')"
	else
		FAILED=$((FAILED + 1))
		echo "not ok $N $site: $prog $* # exit $rc, expected 1 and '$pattern'"
		sed 's/^/#   /' "$OUT" "$ERR"
	fi
}

# same WHAT BEFORE NOW: a case of its own, that NOW is still BEFORE (e.g.
# settings a test changes and must put back).
same() {
	N=$((N + 1))
	if [ "$3" = "$2" ]; then
		PASSED=$((PASSED + 1))
		echo "ok $N $1 put back: $3"
	else
		FAILED=$((FAILED + 1))
		echo "not ok $N $1 now: $3; before: $2"
	fi
}

skip() {
	reason=$1
	shift
	selected ok "$@" || return 0
	N=$((N + 1))
	echo "ok $N $* # SKIP $reason"
}

case_backings() {
	"$TEST" -h | sed -n "/^ $1:/,/^ $2/p" | grep -v : | tr ',' '\n' | tr -d ' '
}

case_hugepage_kb() {
	case "$1" in
	anonymous_thp)
		f=/sys/kernel/mm/transparent_hugepage/hpage_pmd_size
		[ -r $f ] && echo $(($(cat $f) / 1024)) || echo 2048 ;;
	*_hugetlb)
		sed -n 's/^Hugepagesize: *\([0-9]*\) kB/\1/p' /proc/meminfo ;;
	*_hugetlb_*)
		n=${1##*_}
		case $n in
		*kb) echo "${n%kb}" ;;
		*mb) echo $((${n%mb} * 1024)) ;;
		*gb) echo $((${n%gb} * 1048576)) ;;
		esac ;;
	esac
}

case_first_mode() {
	"$TEST" -h | sed -n 's/^ *\([0-9][0-9]*\): PA-bits.*/\1/p' | head -n1
}

cases_main() {
	read -r main_t0 _ </proc/uptime
	echo "TAP version 13"
	cases
	echo "1..$N"
	echo "# $PASSED passed, $FAILED failed, $((N - PASSED - FAILED)) skipped" \
		"in $(since "$main_t0") s"
	[ $FAILED -eq 0 ] || exit 1
	[ $PASSED -gt 0 ] || exit 4
	exit 0
}
