#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# bench/track_checks.sh: bench/track proven small, in kselftest TAP (for
# vm/suite's pool, like vm/kvm_checks.sh; docs/track.md):
#
#  - bench/test_track.py (the database, change points with the A/A
#    simulation, attribution on a fixture changelog, the report);
#  - bad input, one line and exit 2, nothing written: an unknown
#    version, too few runs for a verdict, a database that is not ours;
#  - a small track: the three newest x86_64 6.12 kernels apt has,
#    demand paging, the fewest runs (5), interrupted in its second boot
#    and continued by the same command: every run stored once, the
#    verdicts and the report; the same command again boots nothing;
#  - the report in headless chromium (bench/browser_check.sh).
#
# usage: bench/track_checks.sh [--logs DIR]   (default build/logs/track)
set -uo pipefail

REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
LOGS=$REPO/build/logs/track
case ${1:-} in
'') ;;
--logs) [[ -n ${2:-} ]] || { echo "track_checks.sh: --logs needs a directory" >&2; exit 2; }
	LOGS=$2 ;;
*) echo "usage: bench/track_checks.sh [--logs DIR]" >&2; exit 2 ;;
esac
rm -rf "$LOGS"
mkdir -p "$LOGS"
TRACK=$REPO/bench/track DB=$LOGS/track.sqlite NUM=0 FAILED=0

ok() { NUM=$((NUM + 1)); echo "ok $NUM $*"; }
not_ok() { NUM=$((NUM + 1)); FAILED=1; echo "not ok $NUM $*"; }
# run LOG CMD...: CMD's output to LOG, its status in $RC.
run() {
	local log=$LOGS/$1
	shift
	"$@" >"$log" 2>&1
	RC=$?
}
# expect NAME LOG STATUS PATTERN: the last run's status was STATUS and its
# output matches PATTERN (grep -E).
expect() {
	if [[ $RC == "$3" ]] && grep -qE -- "$4" "$LOGS/$2"; then ok "$1"; else
		tail -25 "$LOGS/$2" | sed 's/^/# /'
		not_ok "$1 (exit $RC, wanted $3 and /$4/)"
	fi
}

echo "TAP version 13"
t0=$SECONDS
run unit.log python3 "$REPO/bench/test_track.py" --tap
expect "bench/test_track.py ($((SECONDS - t0)) s)" unit.log 0 '^1\.\.[0-9]+'
grep -E '^(not )?ok ' "$LOGS/unit.log" | sed 's/^/# /'

run bad-version.log "$TRACK" --dry-run 6.12.1+deb12 6.12.2+deb12
expect "an unknown version: exit 2" bad-version.log 2 "no Debian kernel '6.12.1\+deb12'"
run bad-runs.log "$TRACK" --dry-run all-6.12 --commands dp --runs 2
expect "too few runs for a verdict: exit 2 before any boot" bad-runs.log 2 'cannot reach a verdict'
printf 'not a database\n' >"$LOGS/notours"
run bad-db.log "$TRACK" all-6.12 --commands dp --db "$LOGS/notours"
if [[ $(cat "$LOGS/notours") == 'not a database' ]]; then
	expect "a database not ours: exit 2, unchanged" bad-db.log 2 'not an SQLite database'
else
	not_ok "a database not ours: it was changed"
fi

# The three newest x86_64 6.12 kernels apt has (no version written here).
mapfile -t KS < <("$TRACK" --dry-run all-6.12 --commands dp --runs 6 --per-boot 6 \
	--arch x86_64 | awk '{print $4}' | tail -n 3)
ARGS=("${KS[@]}" --arch x86_64 --commands dp --runs 5 --db "$DB")
stored() {
	python3 -c 'import sqlite3, sys
print(sqlite3.connect(sys.argv[1]).execute("SELECT count(*) FROM runs").fetchone()[0])' "$DB"
}
# Interrupted in its second boot (Ctrl-C), then the same command again.
t0=$SECONDS
run killed.log timeout --preserve-status -s INT 75 nice -n 10 "$TRACK" "${ARGS[@]}"
before=$(stored)
expect "bench/track interrupted: exit 130, $before runs kept" killed.log 130 \
	'interrupted: every run that ended is stored'
run track.log nice -n 10 "$TRACK" "${ARGS[@]}" --report "$LOGS/report"
el=$((SECONDS - t0))
expect "the same command continued: measured and judged (${el} s in all)" track.log 0 \
	'^bench/track: measured in .* runs stored, 0 failed'
if [[ $(stored) == 15 ]] && grep -qE "^bench/track: [0-9] of 9 boots to go" "$LOGS/track.log"; then
	ok "15 runs stored in all, none twice ($before before the interrupt)"
else
	not_ok "$(stored) runs stored, wanted 15; $(grep 'boots to go' "$LOGS/track.log")"
fi
sed -n 's/^bench\/track: time on /# time on /p' "$LOGS/track.log"
grep -E '^(changes|  x86_64|not judged)' "$LOGS/track.log" | sed 's/^/# /'
run again.log "$TRACK" "${ARGS[@]}"
expect "the same track again: nothing to boot, nothing stored twice" again.log 0 \
	'0 of 9 boots to go'
t0=$SECONDS
run browser.log "$REPO/bench/browser_check.sh" "$LOGS/report/track.html" "$LOGS/report.png"
if ((RC == 4)); then
	NUM=$((NUM + 1))
	echo "ok $NUM the report in headless chromium # SKIP $(cat "$LOGS/browser.log")"
else
	expect "the report in headless chromium ($((SECONDS - t0)) s)" browser.log 0 \
		'^ok: .* images rendered, no load or script errors'
fi
echo "1..$NUM"
exit $FAILED
