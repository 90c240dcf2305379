#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
#
# Faults, each tried: memory larger than the host has, a pthread_create
# that fails part way, a uffd reader error, a guest assert (injected with
# KVM_SELFTEST_FAIL, see include/fault_inject.h), and SIGINT/SIGTERM in
# the middle of a run, against demand_paging_test and dirty_log_perf_test
# (and a failing pthread_create against eventfd_perf_test's servers).
# Each must end with exit 1 and its reason (a signal: killed by it), within
# a second of the signal, with no thread or child left.  Prints TAP; exits
# 1 if a case failed.
#
# usage: fault_cases.sh [DIR_WITH_THE_TESTS]

DIR=${1:-$(dirname "$0")}
export TEST="$DIR/demand_paging_test" SUMMARY=
# shellcheck source=cases_lib.sh
. "$(dirname "$0")/cases_lib.sh"

uptime_cs() {
	read -r up _ </proc/uptime
	echo "${up%.*}${up#*.}"
}

# interrupt SIG TEST ARGS...: SIG after 0.5 s of a longer run; the test
# must be gone within a second, killed by SIG.  A case expected to pass,
# so CASES_ONLY and CASES_OK_ONLY choose it as they do run()'s.
interrupt() {
	sig=$1 test=$2
	shift 2
	selected ok "$test" "$@" || return 0
	N=$((N + 1))
	"$DIR/$test" "$@" >"$OUT" 2>"$ERR" </dev/null &
	pid=$!
	sleep 0.5
	if ! kill -0 $pid 2>/dev/null; then
		FAILED=$((FAILED + 1))
		echo "not ok $N $sig: $test $* # ended before the signal"
		wait $pid
		return
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
		PASSED=$((PASSED + 1))
		echo "ok $N $sig: $test $* # killed by $sig (status $rc) in 0.$(printf %02d $cs) s"
	else
		FAILED=$((FAILED + 1))
		echo "not ok $N $sig: $test $* # status $rc (want $want), $left threads left, ${cs}0 ms"
		sed 's/^/#   /' "$OUT" "$ERR"
	fi
}

cases() {
	run "exceeds this host's RAM" -b 1T
	run "exceeds this host's RAM" -H -b 1T -v 4
	TEST=$DIR/dirty_log_perf_test run "exceeds this host's RAM" -b 1T

	# -v 4 -r 2: threads 1-8 are uffd readers, 9-12 vCPU threads.
	fault pthread_create:3 "uffd reader .*pthread_create failed" \
		demand_paging_test -u MISSING -b 4M -v 4 -r 2
	fault pthread_create:11 "pthread_create: .*threads started were stopped and joined" \
		demand_paging_test -u MISSING -b 4M -v 4 -r 2
	fault pthread_create:3 "pthread_create: .*the 2 threads started were stopped and joined" \
		demand_paging_test -H -b 4M -v 4
	fault pthread_create:2 "pthread_create: .*the 1 threads started were stopped and joined" \
		dirty_log_perf_test -b 4M -v 2
	# The eventfd server threads start before the vCPU threads.
	fault pthread_create:2 "pthread_create(eventfd server 1): .*the 1 threads started were stopped and joined" \
		eventfd_perf_test -v 2 -e 100
	fault uffd_reader "injected fault (KVM_SELFTEST_FAIL=uffd_reader)" \
		demand_paging_test -u MISSING -b 4M -v 2 -r 2
	fault uffd_reader "injected fault (KVM_SELFTEST_FAIL=uffd_reader)" \
		demand_paging_test -H -u MISSING -b 4M -v 2 -r 2 -w poll
	fault guest_assert "injected fault (KVM_SELFTEST_FAIL=guest_assert)" \
		demand_paging_test -u MISSING -b 4M -v 2 -r 2
	fault guest_assert "injected fault (KVM_SELFTEST_FAIL=guest_assert)" \
		dirty_log_perf_test -b 4M -v 2

	# 1 ms per fault served: 16384 faults take far longer than 0.5 s.
	for sig in INT TERM; do
		interrupt "$sig" demand_paging_test -u MISSING -b 64M -v 2 -r 2 -d 1000
		interrupt "$sig" demand_paging_test -H -u MISSING -b 64M -v 2 -r 2 -d 1000
		interrupt "$sig" dirty_log_perf_test -b 16M -v 2 -i 100000
	done
}

cases_main
