#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# bench/paths.sh: the headline figures of the memory-path tests on two
# kernels, side by side.  Reads bench/paths.list (its format is at its
# top: NAME | COMMAND | KEY[,KEY...]) and runs each line (or only --only
# NAME's) with bench/compare --kernels A,B --arch ARCH, then prints one
# row a headline figure: its median on each kernel, B/A with its
# interval, and bench/compare's verdict.
#
# usage: bench/paths.sh [--arch x86_64|arm64] [--only NAME] [--runs N]
#                       [--per-boot N] [--kernels A,B] [--list FILE] [--out DIR]
#   --arch      the VM's arch (default: this host's)
#   --only      run only the line NAME
#   --runs      measured runs on each kernel (default 2, bench/compare's minimum)
#   --per-boot  measured runs per VM boot (default 2)
#   --kernels   the two kernels, as bench/compare takes them (default 6.1,6.12)
#   --list      the table (default bench/paths.list)
#   --out       bench/compare's results, one directory a line (default
#               build/paths/<date>)
#   --print DIR print the table of an earlier run's results in DIR again,
#               without running anything
#
# Exit status: 0 every line compared; 1 a line failed (its compare output
# is shown); 2 usage or a bad line in the list; 4 every line skipped.
set -euo pipefail

REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
ARCH=$(uname -m) ONLY='' RUNS=2 PER_BOOT=2 KERNELS=6.1,6.12 LIST=$REPO/bench/paths.list OUT=''
PRINT=''

usage() { sed -n '3,/^\([^#]\|$\)/s/^# \{0,1\}//p' "${BASH_SOURCE[0]}"; }
die_usage() { echo "bench/paths.sh: $*" >&2; exit 2; }

# shellcheck source=bench/lib.sh
. "$REPO/bench/lib.sh"
bench_parse_args bench/paths.sh \
	"arch=ARCH only=ONLY runs=RUNS per-boot=PER_BOOT kernels=KERNELS list=LIST out=OUT print=PRINT" "$@"
[[ $RUNS -ge 2 ]] || die_usage "--runs must be at least 2 (bench/compare compares two or more)"
[[ $PER_BOOT =~ ^[1-9][0-9]*$ ]] || die_usage "bad --per-boot '$PER_BOOT'"
case $ARCH in
x86_64) ;;
arm64|aarch64) ARCH=arm64 ;;
*) die_usage "unknown arch '$ARCH' (x86_64 or arm64)" ;;
esac
[[ $KERNELS == ?*,?* && $KERNELS != *,*,* ]] || die_usage "--kernels takes A,B: '$KERNELS'"
[[ -r $LIST ]] || die_usage "cannot read the list '$LIST'"

# paths_lines: the list's lines as "NAME<TAB>COMMAND<TAB>KEYS"; a bad line
# is a usage error naming it.
paths_lines() {
	local n=0 line name cmd keys
	while IFS= read -r line || [[ -n $line ]]; do
		n=$((n + 1))
		[[ $line =~ ^[[:space:]]*(#|$) ]] && continue
		[[ $line == *' | '*' | '* && $line != *' | '*' | '*' | '* ]] ||
			die_usage "$LIST:$n: not NAME | COMMAND | KEY[,KEY...]"
		name=${line%% | *} keys=${line##* | } cmd=${line#* | } cmd=${cmd% | *}
		[[ $name =~ ^[A-Za-z0-9_-]+$ ]] || die_usage "$LIST:$n: bad name '$name'"
		[[ $keys =~ ^[A-Za-z0-9_.]+(,[A-Za-z0-9_.]+)*$ ]] ||
			die_usage "$LIST:$n: bad key list '$keys'"
		[[ $cmd =~ ^[a-z0-9_/]+([[:space:]]+[^[:space:]\'\"\$\`\;\&\|\<\>]+)*$ ]] ||
			die_usage "$LIST:$n: bad command '$cmd' (a test and plain options)"
		printf '%s\t%s\t%s\n' "$name" "$cmd" "$keys"
	done <"$LIST"
}
LINES=$(paths_lines)
if [[ -n $ONLY ]]; then
	LINES=$(awk -F '\t' -v n="$ONLY" '$1 == n' <<<"$LINES")
	[[ -n $LINES ]] || die_usage "no line '$ONLY' in $LIST"
fi
if [[ -n $PRINT ]]; then
	[[ -d $PRINT ]] || die_usage "no results directory '$PRINT'"
	OUT=$PRINT
fi
OUT=${OUT:-$REPO/build/paths/$(date +%Y%m%d-%H%M%S)}
mkdir -p "$OUT"

# verdict_rows NAME KEYS FILE: a row for each VERDICT line of FILE whose
# figure is one of KEYS (or KEY[mode]).
verdict_rows() {
	local key line found re='^VERDICT figure=(.*) unit=([^ ]*) a=([^ ]*) b=([^ ]*) ratio=([^ ]*) lo=([^ ]*) hi=([^ ]*) verdict=([^ ]*)$'
	for key in ${2//,/ }; do
		found=
		while IFS= read -r line; do
			[[ $line =~ $re ]] || continue
			[[ ${BASH_REMATCH[1]} == "$key" || ${BASH_REMATCH[1]} == "${key}["* ]] || continue
			found=1
			printf '%-28s %-36s %14s %14s %8s [%s, %s] %s\n' "$1" \
				"${BASH_REMATCH[1]} (${BASH_REMATCH[2]})" "${BASH_REMATCH[3]}" \
				"${BASH_REMATCH[4]}" "${BASH_REMATCH[5]}" "${BASH_REMATCH[6]}" \
				"${BASH_REMATCH[7]}" "${BASH_REMATCH[8]}"
		done <"$3"
		[[ -n $found ]] || printf '%-28s %-36s %s\n' "$1" "$key" "(no such figure in the test's JSON)"
	done
}

ROWS=$OUT/rows.txt
: >"$ROWS"
failed=0 skipped=0 total=0
while IFS=$'\t' read -r name cmd keys; do
	total=$((total + 1))
	read -ra argv <<<"$cmd"
	rc=0
	if [[ -n $PRINT ]]; then
		[[ -f $OUT/$name.rc ]] || continue
		rc=$(cat "$OUT/$name.rc")
	else
		echo "bench/paths.sh: $name: bench/compare --kernels $KERNELS --arch $ARCH --runs $RUNS -- $cmd" >&2
		"$REPO/bench/compare" --kernels "$KERNELS" --arch "$ARCH" --runs "$RUNS" \
			--per-boot "$PER_BOOT" --out "$OUT/$name" -- "${argv[@]}" \
			>"$OUT/$name.txt" 2>"$OUT/$name.log" </dev/null || rc=$?
		echo "$rc" >"$OUT/$name.rc"
	fi
	case $rc in
	0) verdict_rows "$name" "$keys" "$OUT/$name.txt" >>"$ROWS" ;;
	4) skipped=$((skipped + 1))
	   printf '%-28s skipped: %s\n' "$name" "$(grep -m1 'skipped' "$OUT/$name.log")" >>"$ROWS" ;;
	*) failed=$((failed + 1))
	   echo "bench/paths.sh: $name: bench/compare exited $rc; its output:" >&2
	   tail -40 "$OUT/$name.log" >&2
	   verdict_rows "$name" "$keys" "$OUT/$name.txt" >>"$ROWS" 2>/dev/null || true
	   printf '%-28s failed: bench/compare exited %s (%s)\n' "$name" "$rc" "$OUT/$name.log" >>"$ROWS" ;;
	esac
done <<<"$LINES"

A=${KERNELS%%,*} B=${KERNELS#*,}
[[ -z $PRINT ]] || echo "bench/paths.sh: the results in $OUT"
echo "bench/paths.sh: $ARCH VM, kernels A=$A B=$B, $RUNS runs each ($(date -u +%Y-%m-%d))"
printf '%-28s %-36s %14s %14s %8s %s\n' test "figure (unit)" "$A median" "$B median" "B/A" "[lo, hi] verdict"
cat "$ROWS"
echo "results: $OUT"
((failed == 0)) || exit 1
((skipped < total)) || exit 4
