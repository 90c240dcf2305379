#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# bench/eventfd.sh: how KVM's notification path (ioeventfd doorbell, host
# thread, irqfd interrupt, HLT/WFI wake-up) scales with the number of
# vCPU/host-thread pairs, in each way host threads wait (read, epoll, an
# EPOLLEXCLUSIVE pool, a poll() pool), beside the same ping-pong between
# plain host threads (-H): eventfd_perf_test's total rate (event/s summed
# over the pairs), median of --runs runs with the spread [min-max].
# Beside each pair count: KVM's vCPU stats per round trip of the read
# runs (exits, halt wake-ups, microseconds halted).  Configurations
# take turns, so drift hits all alike; a warm-up run goes first.
#
# --where host runs on this machine's /dev/kvm (the default), --where vm
# in the x86_64 VM (vm/run --smp 4).  --plot FILE.png draws the table
# with gnuplot.  --from FILE makes the table from the RESULT lines of an
# earlier --raw FILE instead of running.
#
# usage: bench/eventfd.sh [--runs N] [--pairs "1 2 4"] [--events N]
#                         [--where host|vm] [--plot FILE.png] [--raw FILE]
#                         [--from FILE] [--timeout SECS]
set -euo pipefail

REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
RUNS=3 PAIRS="1 2 4 8 16 32" EVENTS=1000 WHERE=host TIMEOUT=3000 PLOT='' RAW='' FROM=''
WAITS="read epoll pool pool-poll"

usage() { sed -n '3,22p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//'; }

# shellcheck source=bench/lib.sh
. "$REPO/bench/lib.sh"
bench_parse_args bench/eventfd.sh "runs=RUNS pairs=PAIRS events=EVENTS where=WHERE \
	plot=PLOT raw=RAW from=FROM timeout=TIMEOUT" "$@"
[[ $WHERE == host || $WHERE == vm ]] || { echo "bad --where '$WHERE'" >&2; exit 2; }
[[ $EVENTS =~ ^[1-9][0-9]*$ ]] || { echo "bad --events" >&2; exit 2; }
for p in $PAIRS; do
	[[ $p =~ ^[1-9][0-9]*$ ]] || { echo "bad --pairs '$PAIRS'" >&2; exit 2; }
done
if [[ -n $PLOT ]] && ! command -v gnuplot >/dev/null; then
	echo "--plot needs gnuplot (apt-get install gnuplot-nox)" >&2
	exit 2
fi

# One RESULT line per run; a run still going after RUN_TIMEOUT seconds is
# killed after its threads' kernel stacks are dumped, and counted failed.
RUN_TIMEOUT=300
run_loop() {
	cat <<LOOP
$(bench_guest_run eventfd_perf_test $RUN_TIMEOUT)
./eventfd_perf_test -e $EVENTS >/dev/null 2>&1   # warm-up, not counted
for rep in \$(seq $RUNS); do
  for p in $PAIRS; do
    for w in $WAITS; do
      for h in "" -H; do
        run -v \$p -e $EVENTS -w \$w \$h
      done
    done
  done
done
LOOP
}

tmpfiles=()
cleanup() { rm -f "${tmpfiles[@]}"; }
trap cleanup EXIT
raw=${RAW:-$(mktemp)}
[[ -n $RAW ]] || tmpfiles+=("$raw")

if [[ -n $FROM ]]; then
	[[ -r $FROM ]] || { echo "cannot read --from '$FROM'" >&2; exit 2; }
	raw=$FROM
	where=$(sed -n 's/^WHERE //p' "$FROM" | head -n1)
elif [[ $WHERE == vm ]]; then
	bench_vm_run "$(run_loop)" "$raw"
	where="x86_64 VM (vm/run --smp 4, TCG with emulated SVM, KVM 6.1)"
else
	out=$REPO/build/$(uname -m)
	make -s -C "$REPO" STATIC=1 O="$out" -j2 kselftest_install >/dev/null 2>&1 ||
		{ echo "build failed" >&2; exit 1; }
	(cd "$out/kselftest_install/kvm" && sh -c "$(run_loop)") >"$raw"
	where="this host's /dev/kvm ($(nproc) CPUs, kernel $(uname -r))"
fi
[[ -n $FROM ]] || sed -i "1i WHERE $where" "$raw"
if grep -q '^RESULT failed' "$raw"; then
	echo "failed runs (left out of the table):" >&2
	grep '^RESULT failed\|^HANG' "$raw" >&2
fi

# field NAME: the value of NAME=... on each line of stdin (0 if absent).
field() { awk -v k="$1" '{ v = 0; for (i = 1; i <= NF; i++)
	if (index($i, k "=") == 1) v = substr($i, length(k) + 2); print v }'; }

# runs HOST WAIT PAIRS: the RESULT lines of that configuration.
runs() { grep "^RESULT .* host_only=$1 pairs=$3 wait=$2 " "$raw" || true; }

# stats HOST WAIT PAIRS FIELD: "median min max" of FIELD over the runs.
stats() {
	runs "$1" "$2" "$3" | field "$4" | bench_spread
}

# per_rt PAIRS STAT [DIV]: median over the KVM read runs of STAT per round
# trip (divided by DIV).
per_rt() {
	runs 0 read "$1" | awk -v k="$2" -v d="${3:-1}" '{ s = 0; e = 0
		for (i = 1; i <= NF; i++) {
			if (index($i, k "=") == 1) s = substr($i, length(k) + 2)
			if (index($i, "events=") == 1) e = substr($i, 8)
		}
		if (e) printf "%f\n", s / e / d }' |
		bench_spread | cut -d' ' -f1
}

cell() {
	local m lo hi
	read -r m lo hi < <(stats "$@" total_rate)
	printf '%.0f [%.0f-%.0f]' "$m" "$lo" "$hi"
}

echo "eventfd_perf_test -v PAIRS -e $EVENTS -w WAIT [-H], $where,"
echo "total event/s over the pairs, median of $RUNS runs [min-max]; stats per round trip (read, KVM)"
echo
header="| pairs |"
sep="|---|"
for w in $WAITS; do
	header+=" $w KVM | $w -H |"
	sep+="---|---|"
done
echo "$header exits | halt_wakeup | us halted |"
echo "$sep---|---|---|"
data=$(mktemp)
tmpfiles+=("$data")
for p in $PAIRS; do
	line="| $p |"
	row="$p"
	for w in $WAITS; do
		for h in 0 1; do
			line+=" $(cell $h "$w" "$p") |"
			row+=" $(stats $h "$w" "$p" total_rate | cut -d' ' -f1)"
		done
	done
	printf '%s %.2f | %.2f | %.2f |\n' "$line" "$(per_rt "$p" exits)" \
		"$(per_rt "$p" halt_wakeup)" "$(per_rt "$p" halt_wait_ns 1000)"
	echo "$row" >>"$data"
done

[[ -n $PLOT ]] || exit 0
{
	echo "set terminal pngcairo size 900,560 noenhanced"
	echo "set output '$PLOT'"
	echo "set title \"eventfd_perf_test on ${where//\"/}\""
	echo "set xlabel 'pairs (vCPU + host thread)'"
	echo "set ylabel 'total event/s (median)'"
	echo "set logscale xy 2"
	echo "set key outside right"
	echo "set grid"
	printf "plot "
	col=2
	for w in $WAITS; do
		printf "'%s' using 1:%d with linespoints lw 2 title '%s KVM', " "$data" $col "$w"
		printf "'%s' using 1:%d with linespoints dt 2 title '%s -H', " "$data" $((col + 1)) "$w"
		col=$((col + 2))
	done | sed 's/, $//'
	echo
} | gnuplot
echo "plot: $PLOT"
