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

while (($#)); do
	case "$1" in
	--runs) RUNS=${2:?}; shift 2 ;;
	--size) SIZE=${2:?}; shift 2 ;;
	--readers) READERS=${2:?}; shift 2 ;;
	--raw) RAW=${2:?}; shift 2 ;;
	--timeout) TIMEOUT=${2:?}; shift 2 ;;
	-h|--help) usage; exit 0 ;;
	*) echo "bench/demand_paging.sh: unknown option '$1'" >&2; usage >&2; exit 2 ;;
	esac
done
[[ $RUNS =~ ^[1-9][0-9]*$ ]] || { echo "bad --runs" >&2; exit 2; }

# The loop run inside the VM: one RESULT line per run.  A run that takes
# more than RUN_TIMEOUT seconds is killed after its threads' kernel
# stacks are dumped, and counted as failed.
RUN_TIMEOUT=180
guest_loop() {
	cat <<LOOP
run() {
  ./demand_paging_test "\$@" >/tmp/out 2>&1 &
  pid=\$!; n=0
  while [ \$n -lt $RUN_TIMEOUT ] && kill -0 \$pid 2>/dev/null; do sleep 1; n=\$((n + 1)); done
  if kill -0 \$pid 2>/dev/null; then
    echo "HANG \$*"
    for t in /proc/\$pid/task/*; do
      echo "HANG task \$t \$(cat \$t/comm) \$(grep State \$t/status) wchan=\$(cat \$t/wchan)"
      sed 's/^/HANG   /' \$t/stack 2>/dev/null | head -8
    done
    kill -9 \$pid
  fi
  wait \$pid
  grep '^RESULT' /tmp/out || echo "RESULT failed \$*"
}
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

make -s -C "$REPO" ARCH=x86_64 STATIC=1 O="$REPO/build/x86_64" -j2 kselftest_install \
	>/dev/null 2>&1 || { echo "build failed" >&2; exit 1; }
"$REPO/vm/run" --arch x86_64 --smp 4 --dir "$REPO/build/x86_64/kselftest_install" \
	--timeout "$TIMEOUT" -- sh -c "$(guest_loop)" | tr -d '\r' >"$raw"
if grep -q '^RESULT failed' "$raw"; then
	echo "failed runs (left out of the table):" >&2
	grep '^RESULT failed\|^HANG' "$raw" >&2
fi

# field NAME: the value of NAME=... on each line of stdin.
field() { sed -n "s/.* $1=\([^ ]*\).*/\1/p"; }

# stats HOST WAKE READERS FIELD: "median min max" of FIELD over the runs.
stats() {
	grep "^RESULT .*host_only=$1 " "$raw" | grep " readers=$3 wake=$2 " |
		field "$4" | sort -g |
		awk '{ v[NR] = $1 } END {
			if (!NR) { print "0 0 0"; exit }
			m = NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2
			print m, v[1], v[NR] }'
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
