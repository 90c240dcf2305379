# shellcheck shell=bash
# SPDX-License-Identifier: GPL-2.0-only
# vm/suite's pool of jobs, for a script to source: pool_run runs jobs (a
# function and its arguments each) JOBS at a time and says as each
# starts and ends; pool_traps stops everything the script started on
# SIGINT, SIGTERM or SIGHUP.  The script sets JOBS, POOL_PROG (its name
# in the lines), POOL_LOGS (named when stopped) and defines job_counts
# JOB (a finished job's "N passed, N failed, N skipped").
# bench/test_hostsetup.py runs it with fake jobs.

declare -A POOL_NAME=() POOL_T0=()
POOL_DONE=0 POOL_SUM=0 POOL_START=$SECONDS

# pool_run JOB...: run the jobs (words: a function and its arguments),
# at most JOBS at once, in the order given (longest first); a line as
# each starts and as each ends (its name, its counts, its time, how many
# are left and the time left, as bench/compare's "DONE of TOTAL, M:SS
# elapsed, ~N min left": the mean job's time so far times the jobs not
# done, over JOBS).  SIGINT, SIGTERM or SIGHUP stop every job (pool_stop).
pool_run() {
	local j n=0 total=$#
	POOL_START=$SECONDS
	for j in "$@"; do
		while (($(jobs -rp | wc -l) >= JOBS)); do
			pool_reap "$total"
		done
		n=$((n + 1))
		# shellcheck disable=SC2086 # a function and its arguments
		$j &
		POOL_NAME[$!]=$j POOL_T0[$!]=$SECONDS
		echo "$POOL_PROG: start ${j#job_} ($n of $total started, $(jobs -rp | wc -l) running)"
	done
	while ((POOL_DONE < total)) && (($(jobs -rp | wc -l) > 0)); do
		pool_reap "$total"
	done
	wait
}

# pool_reap TOTAL: wait for the next job to end and say so (a job's
# status is in its log).
pool_reap() {
	local pid='' took el left=''
	wait -n -p pid || true
	[[ -n $pid && -n ${POOL_NAME[$pid]:-} ]] || return 0
	took=$((SECONDS - POOL_T0[$pid]))
	POOL_DONE=$((POOL_DONE + 1)) POOL_SUM=$((POOL_SUM + took))
	el=$((SECONDS - POOL_START))
	((POOL_DONE == $1)) ||
		left=", ~$(((POOL_SUM * ($1 - POOL_DONE) / POOL_DONE / JOBS + 30) / 60)) min left"
	echo "$POOL_PROG: done ${POOL_NAME[$pid]#job_}: $(job_counts "${POOL_NAME[$pid]}"), $took s;" \
		"$POOL_DONE of $1, $((el / 60)):$(printf %02d $((el % 60))) elapsed$left"
	unset "POOL_NAME[$pid]"
}

# descendants PID [SKIP]: every process below PID, the deepest first,
# but SKIP and those below it (the command substitution asking).
descendants() {
	local c
	for c in $(ps -o pid= --ppid "$1"); do
		[[ $c != "${2:-}" ]] || continue
		descendants "$c" "${2:-}"
		echo "$c"
	done
}

# pool_stop SIGNAL STATUS: on SIGINT, SIGTERM or SIGHUP, every process
# the script started gets SIGTERM (vm/run stops its emulator on it, the
# bench programs their VMs and builds, an apt-get install ends first),
# then one line, exit STATUS (128 + the signal).
pool_stop() {
	local pids t=0
	trap '' INT TERM HUP
	pids=$(descendants $$ "$BASHPID")
	# shellcheck disable=SC2086 # a list of process ids
	[[ -z $pids ]] || kill -TERM $pids 2>/dev/null || true
	while [[ -n $(descendants $$ "$BASHPID") ]] && ((t < 60)); do
		sleep 1
		t=$((t + 1))
	done
	echo "$POOL_PROG: interrupted by $1: its jobs are stopped${POOL_LOGS:+ (logs in $POOL_LOGS)}" >&2
	exit "$2"
}
# pool_traps: pool_stop on SIGINT, SIGTERM and SIGHUP, from now on.
pool_traps() {
	trap 'pool_stop SIGINT 130' INT
	trap 'pool_stop SIGTERM 143' TERM
	trap 'pool_stop SIGHUP 129' HUP
}
