#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
#
# testcases/run.sh: run the suite's cases, print TAP.  A case is a file
# <test>/<name>.test under the cases directory whose first line is one
# command line, as in upstream's proposed KVM selftest runner (which runs
# the same files).  Lines after it that start with "# " (a shell ignores
# them) say more:
#   # expect: TEXT       bad input: the case must exit 1 with TEXT in the
#                        first line of its stderr (a skip fails it too:
#                        bad input is decided before what the host lacks)
#   # expect-fail: TEXT  a failure the case provokes (an injected fault,
#                        what KVM refuses): exit 1 with TEXT on a line of
#                        its stderr; exit 4 is a skip
#   # tags: TAG...       for --tag and --exclude-tag (intel: in the Intel
#                        subset; slow: 10 s or more in a TCG VM; host: runs
#                        no guest)
#   # timeout: SECONDS   this case's limit instead of -t's
# Otherwise the exit status decides: 0 passed, 4 skipped (its reason from
# its "# SKIP" line), anything else failed.  A case still running at its
# timeout has its threads' kernel stacks shown, is killed and fails; a
# case whose program is not here is not run (a skip, saying so).  Each
# case runs in its own directory under the output directory (its stdout
# and stderr kept there), with the test binaries, then this directory,
# first in PATH.
#
# Exit status: 0 if none failed and one passed, 1 if any failed, 4 if all
# were skipped, 2 usage.

usage() {
	cat <<'EOF'
usage: testcases/run.sh [-d DIR] [-p BINDIR] [-o OUTDIR] [-j N] [-t SECONDS] [-v]
                        [--tag TAG]... [--exclude-tag TAG]... [--list] [TEST|FILE.test]...
  TEST, FILE.test    run these tests' cases (a directory name under DIR) or
                     these case files (default: every case under DIR)
  -d DIR             the cases (default: this script's directory)
  -p BINDIR          the test binaries (default: DIR's parent, as in an
                     install tree; in a source tree e.g. -p build/host)
  -o OUTDIR          each case's stdout and stderr in OUTDIR/<test>/<name>/
                     (OUTDIR new or empty; default: a new directory in TMPDIR)
  -j N               run N cases at a time (default 1)
  -t SECONDS         a case's time limit (default 120)
  -v                 show every case's output, not only a failed one's
  --tag TAG          only the cases with one of these tags
  --exclude-tag TAG  not the cases with one of these tags
  --list             print the selected cases' files and command lines
EOF
}

die() {
	echo "testcases/run.sh: $*" >&2
	exit 2
}

HERE=$(cd "$(dirname "$0")" && pwd)
DIR=$HERE BINDIR='' OUT='' JOBS=1 TIMEOUT=120 VERBOSE='' LIST='' TAGS='' XTAGS=''
while [ $# -gt 0 ]; do
	case $1 in
	-d|-p|-o|-j|-t|--tag|--exclude-tag)
		[ $# -ge 2 ] || die "$1 needs a value"
		case $1 in
		-d) DIR=$2 ;;
		-p) BINDIR=$2 ;;
		-o) OUT=$2 ;;
		-j) JOBS=$2 ;;
		-t) TIMEOUT=$2 ;;
		--tag) TAGS="$TAGS $2" ;;
		--exclude-tag) XTAGS="$XTAGS $2" ;;
		esac
		shift 2 ;;
	-v) VERBOSE=1; shift ;;
	--list) LIST=1; shift ;;
	-h|--help) usage; exit 0 ;;
	--) shift; break ;;
	-*) usage >&2; die "unknown option '$1'" ;;
	*) break ;;
	esac
done
case $JOBS in ''|*[!0-9]*|0) die "-j needs a count of 1 or more" ;; esac
case $TIMEOUT in ''|*[!0-9]*|0) die "-t needs whole seconds, 1 or more" ;; esac
[ -d "$DIR" ] || die "no cases directory '$DIR'"
DIR=$(cd "$DIR" && pwd)
BINDIR=$(cd "${BINDIR:-$DIR/..}" 2>/dev/null && pwd) || die "no binaries directory '$BINDIR'"
CASE_PATH=$BINDIR:$BINDIR/$(uname -m):$HERE:$PATH

# read_case FILE: its command line in cmd, its "# KEY: " lines in
# expect, fail, tmo and tags (builtins only: a fork costs under TCG).
read_case() {
	cmd='' expect='' fail='' tmo='' tags=''
	{
		IFS= read -r cmd
		while IFS= read -r l; do
			case $l in
			"# expect: "*) expect=${l#"# expect: "} ;;
			"# expect-fail: "*) fail=${l#"# expect-fail: "} ;;
			"# timeout: "*) tmo=${l#"# timeout: "} ;;
			"# tags: "*) tags=${l#"# tags: "} ;;
			esac
		done
	} <"$1"
}

# wanted FILE: whether FILE's tags pass --tag and --exclude-tag.
wanted() {
	read_case "$1"
	tags=" $tags "
	for t in $XTAGS; do
		case $tags in *" $t "*) return 1 ;; esac
	done
	[ -z "$TAGS" ] && return 0
	for t in $TAGS; do
		case $tags in *" $t "*) return 0 ;; esac
	done
	return 1
}

# The selected case files, one a line; a name that is neither a test
# nor a case file is a usage error.
select_cases() {
	[ $# -gt 0 ] || set -- "$DIR"/*/
	for a in "$@"; do
		case $a in
		*.test) [ -f "$a" ] ;;
		*) [ -d "$DIR/$a" ] || [ -d "$a" ] ;;
		esac || die "no test or case file '$a' (under $DIR)"
	done
	for a in "$@"; do
		case $a in
		*.test) echo "$a"; continue ;;
		esac
		[ -d "$DIR/$a" ] && a=$DIR/$a
		for f in "${a%/}"/*.test; do
			[ -f "$f" ] && echo "$f"
		done
	done | while IFS= read -r f; do
		! wanted "$f" || echo "$f"
	done
}

CASES=$(select_cases "$@") || exit 2
if [ -n "$LIST" ]; then
	printf '%s\n' "$CASES" | while IFS= read -r f; do
		[ -n "$f" ] && echo "$f: $(head -n1 "$f")"
	done
	exit 0
fi

if [ -z "$OUT" ]; then
	OUT=$(mktemp -d "${TMPDIR:-/tmp}/kvm-cases.XXXXXX") || die "cannot make an output directory"
elif [ -e "$OUT" ] && [ -n "$(ls -A "$OUT" 2>/dev/null)" ]; then
	die "output directory '$OUT' is not empty: give a new or empty one"
fi
mkdir -p "$OUT" || die "cannot make '$OUT'"
OUT=$(cd "$OUT" && pwd)

# clock: CS, the uptime in centiseconds.
clock() {
	read -r cs_up _ </proc/uptime
	cs_frac=${cs_up#*.}
	CS=$((${cs_up%.*} * 100 + ${cs_frac#0}))
}

# case_dir FILE: FILE's output directory in dir.
case_dir() {
	cd_name=${1%.test}
	cd_test=${cd_name%/*}
	dir=$OUT/${cd_test##*/}/${cd_name##*/}
}

# watchdog PID SECONDS FILE: after SECONDS, PID's threads' kernel stacks
# into FILE, then PID killed; ends quietly on SIGTERM.
watchdog() {
	trap 'kill $s 2>/dev/null; exit 0' TERM
	sleep "$2" &
	s=$!
	wait $s
	kill -0 "$1" 2>/dev/null || exit 0
	for t in "/proc/$1/task/"*; do
		echo "hung after ${2}s: $t $(cat "$t/comm") $(grep State "$t/status")"
		head -n 8 "$t/stack" 2>/dev/null
	done >"$3"
	kill -9 "$1"
}

# run_case FILE: run it; leave in its directory "result": the TAP line
# without its number, the seconds it took, and "status" (written last).
run_case() {
	case_dir "$1"
	mkdir -p "$dir"
	read_case "$1"
	tmo=${tmo:-$TIMEOUT}
	set -f
	# shellcheck disable=SC2086 # a command line: its words
	set -- $cmd
	set +f
	if ! PATH=$CASE_PATH command -v "$1" >/dev/null; then
		echo "ok|$cmd # SKIP not run: no $1 here" >"$dir/result"
		echo skipped >"$dir/status"
		return
	fi
	clock
	t0=$CS
	(cd "$dir" && PATH=$CASE_PATH exec "$@") >"$dir/stdout" 2>"$dir/stderr" </dev/null &
	pid=$!
	watchdog $pid "$tmo" "$dir/stacks" &
	wd=$!
	wait $pid
	rc=$?
	kill $wd 2>/dev/null
	wait $wd 2>/dev/null	# no "Terminated" from the shell
	clock
	secs=$(((CS - t0 + 50) / 100))
	first=
	IFS= read -r first <"$dir/stderr"
	status=failed
	if [ -e "$dir/stacks" ]; then
		res="not ok|$cmd # TIMEOUT $tmo s"
	elif [ -n "$expect" ]; then
		res="not ok|$cmd # exit $rc, expected 1 and '$expect' first on stderr"
		if [ $rc -eq 1 ] && printf '%s\n' "$first" | grep -q -- "$expect"; then
			status=passed res="ok|$cmd # exit 1: $first"
		fi
	elif [ $rc -eq 4 ]; then
		status=skipped
		res="ok|$cmd # SKIP $(grep -h -m1 'SKIP' "$dir/stdout" "$dir/stderr" | sed 's/.*SKIP:* *//')"
	elif [ -n "$fail" ]; then
		res="not ok|$cmd # exit $rc, expected 1 and '$fail' on stderr"
		if [ $rc -eq 1 ] && grep -q -- "$fail" "$dir/stderr"; then
			status=passed
			res="ok|$cmd # exit 1: $(grep -m1 -- "$fail" "$dir/stderr" | sed 's/^ *//')"
		fi
	elif [ $rc -eq 0 ]; then
		status=passed res="ok|$cmd"
	else
		res="not ok|$cmd # exit $rc"
	fi
	printf '%s\n%s\n' "$res" "$secs" >"$dir/result"
	echo $status >"$dir/status"
}

P=0 F=0 S=0 N=0
# report FILE: its TAP line, numbered; its output if it failed (or -v).
report() {
	case_dir "$1"
	N=$((N + 1))
	{ IFS='|' read -r ok line; read -r secs; } <"$dir/result"
	[ "${secs:-0}" -lt 10 ] || echo "# took $secs s"
	echo "$ok $N $line"
	read -r status <"$dir/status"
	case $status in
	passed) P=$((P + 1)) ;;
	skipped) S=$((S + 1)) ;;
	*) F=$((F + 1)) ;;
	esac
	if [ "$ok" != ok ] || [ -n "$VERBOSE" ]; then
		for o in stacks stdout stderr; do
			[ -s "$dir/$o" ] && sed 's/^/#   /' "$dir/$o"
		done
	fi
	return 0
}

clock
T0=$CS
echo "TAP version 13"
echo "# output in $OUT"
if [ "$JOBS" -eq 1 ]; then
	for f in $CASES; do
		run_case "$f"
		report "$f"
	done
else
	# Up to JOBS cases at a time; results printed in order as they end.
	i=0 next=1
	for f in $CASES; do
		i=$((i + 1))
		while [ $((i - 1 - $(find "$OUT" -name status | wc -l))) -ge "$JOBS" ]; do
			sleep 0.1
		done
		run_case "$f" &
		while [ $next -le $i ]; do
			case_dir "$(printf '%s\n' "$CASES" | sed -n "${next}p")"
			[ -e "$dir/status" ] || break
			report "$(printf '%s\n' "$CASES" | sed -n "${next}p")"
			next=$((next + 1))
		done
	done
	wait
	while [ $next -le $i ]; do
		report "$(printf '%s\n' "$CASES" | sed -n "${next}p")"
		next=$((next + 1))
	done
fi
clock
echo "1..$N"
echo "# $P passed, $F failed, $S skipped in $(((CS - T0 + 50) / 100)) s"
[ $F -eq 0 ] || exit 1
[ $P -gt 0 ] || exit 4
exit 0
