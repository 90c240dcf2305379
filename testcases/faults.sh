#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
#
# testcases/faults.sh: the checks of a case that its exit status alone
# cannot tell, for testcases/run.sh (which finds it in PATH).  Injected
# faults need none of this: a case runs `env KVM_SELFTEST_FAIL=SITE TEST`
# with "# expect-fail:" (include/fault_inject.h).
#
#   signal SIG TEST ARGS...   SIG after 0.5 s of a longer run: TEST must be
#                             gone within a second, killed by SIG, with no
#                             thread left
#   json TEST ARGS...         TEST ARGS --json FILE passes, and FILE was
#                             written and parses (python3, else jq; with
#                             neither, as in the busybox guest: written)
#   kept PARAM... -- CMD...   CMD's status, but 3 if one of the kvm module
#                             parameters PARAM is not what it was before
#
# Exit status: 0 passed, 1 failed, 4 skipped (the test's), 2 usage.

# The tests beside this script first (as installed), then PATH's.
PATH=$(cd "$(dirname "$0")" && pwd):$PATH

die() {
	echo "faults.sh: $*" >&2
	exit 2
}

# need CMD...: skip (exit 4) unless CMD's program (past env and VAR=)
# is here, as testcases/run.sh does for a case's own.
need() {
	for w in "$@"; do
		case $w in env|*=*) continue ;; esac
		command -v "$w" >/dev/null && return 0
		echo "1..0 # SKIP not run: no $w here"
		exit 4
	done
}

uptime_cs() {
	read -r up _ </proc/uptime
	echo "${up%.*}${up#*.}"
}

signal() {
	sig=$1
	shift
	"$@" &
	pid=$!
	sleep 0.5
	if ! kill -0 $pid 2>/dev/null; then
		wait $pid
		echo "faults.sh: $1 ended (status $?) before SIG$sig" >&2
		return 1
	fi
	t0=$(uptime_cs)
	kill -s "$sig" $pid
	n=0
	while kill -0 $pid 2>/dev/null && [ $n -lt 50 ]; do
		sleep 0.1
		n=$((n + 1))
	done
	left=$(find /proc/$pid/task -mindepth 1 -maxdepth 1 2>/dev/null | wc -l)
	kill -9 $pid 2>/dev/null
	wait $pid
	rc=$?
	cs=$(($(uptime_cs) - t0))
	case $sig in INT) want=130 ;; *) want=143 ;; esac
	if [ "$left" -eq 0 ] && [ $rc -eq $want ] && [ $cs -le 100 ]; then
		echo "killed by SIG$sig (status $rc) in 0.$(printf %02d $cs) s"
		return 0
	fi
	echo "faults.sh: status $rc (want $want), $left threads left, ${cs}0 ms" >&2
	return 1
}

json() {
	file=$PWD/faults-json.$$.json
	"$@" --json "$file"
	rc=$?
	[ $rc -eq 0 ] || return $rc
	if [ ! -s "$file" ]; then
		echo "faults.sh: no JSON file written" >&2
		return 1
	fi
	if command -v python3 >/dev/null; then
		python3 -m json.tool "$file" >/dev/null || return 1
		echo "--json: $(wc -c <"$file") bytes, parsed by python3"
	elif command -v jq >/dev/null; then
		jq -e .runs "$file" >/dev/null || return 1
		echo "--json: $(wc -c <"$file") bytes, parsed by jq"
	else
		echo "--json: $(wc -c <"$file") bytes written; no python3 or jq to parse it"
	fi
}

params() {
	for p in $1; do
		printf '%s=%s ' "$p" "$(cat "/sys/module/kvm/parameters/$p" 2>/dev/null || echo absent)"
	done
}

kept() {
	names=
	while [ $# -gt 0 ] && [ "$1" != -- ]; do
		names="$names $1"
		shift
	done
	[ $# -gt 1 ] || die "kept: no -- CMD"
	shift
	need "$@"
	before=$(params "$names")
	"$@"
	rc=$?
	now=$(params "$names")
	if [ "$now" != "$before" ]; then
		echo "faults.sh: kvm parameters now: $now; before: $before" >&2
		return 3
	fi
	echo "kvm parameters put back: $now"
	return $rc
}

[ $# -ge 2 ] || die "usage: faults.sh signal SIG TEST ARGS... | json TEST ARGS... | kept PARAM... -- CMD..."
what=$1
shift
case $what in
signal) need "$2"; signal "$@" ;;
json) need "$1"; json "$@" ;;
kept) kept "$@" ;;
*) die "unknown check '$what'" ;;
esac
