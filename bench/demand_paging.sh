#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# bench/demand_paging.sh: demand paging rates with userfaultfd MISSING
# faults, 4 vCPUs, 1..32 reader threads, epoll (EPOLLEXCLUSIVE) against
# poll() wake-ups, each KVM rate beside the host-only rate of the same
# pages (-H), in one table.
#
# Boots the x86_64 VM once (vm/run --smp 4) and loops inside it.  Emulated
# timings are noisy, so every cell is the median of --runs runs, with the
# spread (min-max); the configurations take turns, so drift hits all.
# Beside each reader count: the per-vCPU KVM stats (exits, pf_taken) of
# the epoll runs.  Ends with the targets: epoll at 16 and 32 readers at
# least 0.9x its 1-reader rate; at 1 reader epoll no slower than poll.
#
# usage: bench/demand_paging.sh [--runs N] [--size 4M] [--readers "1 2 4"]
#                               [--raw FILE] [--timeout SECS]
set -euo pipefail

REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
RUNS=5 SIZE=4M READERS="1 2 4 8 16 32" TIMEOUT=3000 RAW=
VCPUS=4

usage() { sed -n '3,18p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//'; }

# shellcheck source=bench/lib.sh
. "$REPO/bench/lib.sh"
bench_parse_args bench/demand_paging.sh \
	"runs=RUNS size=SIZE readers=READERS raw=RAW timeout=TIMEOUT" "$@"

# The loop run inside the VM: one RESULT line per run.  A run that takes
# more than RUN_TIMEOUT seconds is killed after its threads' kernel
# stacks are dumped, and counted as failed.
RUN_TIMEOUT=180
guest_loop() {
	cat <<LOOP
$(bench_guest_run demand_paging_test $RUN_TIMEOUT)
for rep in \$(seq $RUNS); do
  for r in $READERS; do
    for w in epoll poll; do
      for h in "" -H; do
        run -u MISSING -v $VCPUS -b $SIZE -r \$r -w \$w \$h
      done
    done
  done
done
LOOP
}

raw=${RAW:-$(mktemp)}
[[ -n $RAW ]] || trap 'rm -f "$raw"' EXIT

bench_vm_run "$(guest_loop)" "$raw"
if grep -q '^RESULT failed' "$raw"; then
	echo "failed runs (left out of the table):" >&2
	grep '^RESULT failed\|^HANG' "$raw" >&2
fi

# field NAME: the value of NAME=... on each line of stdin.
field() { sed -n "s/.* $1=\([^ ]*\).*/\1/p"; }

# stats HOST WAKE READERS FIELD: "median min max" of FIELD over the runs.
stats() {
	grep "^RESULT .*host_only=$1 " "$raw" | grep " readers=$3 wake=$2 " |
		field "$4" | bench_spread
}

cell() {	# "median [min-max]" of the rate
	read -r m lo hi < <(stats "$@" rate)
	printf '%7.0f [%5.0f-%5.0f]' "$m" "$lo" "$hi"
}

median() { stats "$@" | cut -d' ' -f1; }

echo "demand_paging_test -u MISSING -v $VCPUS -b $SIZE, x86_64 VM (vm/run --smp 4)," \
	"median of $RUNS runs [min-max], pages/s"
printf '%-7s | %-21s | %-21s | %-21s | %-21s | %-10s | %-10s\n' readers \
	"epoll KVM" "epoll host-only" "poll KVM" "poll host-only" \
	"exits/vCPU" "pf/vCPU"
for r in $READERS; do
	exits=$(median 0 epoll "$r" exits)
	pf=$(median 0 epoll "$r" pf_taken)
	printf '%-7s | %s | %s | %s | %s | %10.0f | %10.0f\n' "$r" \
		"$(cell 0 epoll "$r")" "$(cell 1 epoll "$r")" \
		"$(cell 0 poll "$r")" "$(cell 1 poll "$r")" \
		"$(echo "$exits / $VCPUS" | bc -l)" "$(echo "$pf / $VCPUS" | bc -l)"
done

# Targets.
first=${READERS%% *}
base=$(median 0 epoll "$first" rate)
for r in 16 32; do
	[[ " $READERS " == *" $r "* ]] || continue
	v=$(median 0 epoll "$r" rate)
	ratio=$(echo "$v / $base" | bc -l)
	verdict=$(echo "$ratio >= 0.9" | bc -l)
	printf 'target: epoll %s readers / %s reader = %.2f (>= 0.9): %s\n' "$r" "$first" \
		"$ratio" "$([[ $verdict == 1 ]] && echo met || echo MISSED)"
done
p=$(median 0 poll "$first" rate)
printf 'target: %s reader, epoll / poll = %.2f (>= 1.0): %s\n' "$first" \
	"$(echo "$base / $p" | bc -l)" \
	"$([[ $(echo "$base >= $p" | bc -l) == 1 ]] && echo met || echo MISSED)"
