#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# bench/splitting.sh: eager against lazy page splitting when dirty logging
# starts, from dirty_log_page_splitting_test.  For each splitting (eager,
# lazy) and protect mode (get: KVM_GET_DIRTY_LOG re-arms; manual: manual
# protect, initially set), the time of the step that write-protects and,
# eagerly, splits (enabling logging; with manual protect the first clear)
# and of the first dirty pass after it, which with lazy splitting takes
# the splits as write faults; enabling and disabling too.  Every run also
# checked the mappings (pages_* stats, or page-table memory on arm64)
# against what its splitting implies.
#
# Boots one VM (vm/run, TCG) and loops inside it; every cell is the median
# of --runs runs with the spread [min-max], in ms.
#
# usage: bench/splitting.sh [--arch x86_64|arm64] [--kernel 6.12] [--runs N]
#                           [--size 32M] [--raw FILE] [--timeout SECS]
#   --size  memory per vCPU (2 vCPUs, 2 memslots, 2M hugetlb pages)
set -euo pipefail

REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
ARCH=x86_64 KERNEL=6.12 RUNS=3 SIZE=32M TIMEOUT=1800 RAW=

usage() { sed -n '3,20p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//'; }

# shellcheck source=bench/lib.sh
. "$REPO/bench/lib.sh"
bench_parse_args bench/splitting.sh \
	"arch=ARCH kernel=KERNEL runs=RUNS size=SIZE raw=RAW timeout=TIMEOUT" "$@"
[[ $ARCH == x86_64 || $ARCH == arm64 ]] || { echo "bad --arch" >&2; exit 2; }
[[ $SIZE =~ ^[1-9][0-9]*[MG]$ ]] || { echo "bad --size (e.g. 32M)" >&2; exit 2; }
mapfile -t KARGS < <(bench_kernel_args "$KERNEL")
((${#KARGS[@]})) || exit 2

mb=${SIZE%?}
[[ $SIZE == *G ]] && mb=$((mb * 1024))
# Two vCPUs' memory in 2M pages, and some to spare.
HUGEPAGES=$((mb + 16))
RUN_TIMEOUT=600
guest_loop() {
	cat <<LOOP
run() {
$(bench_guest_watch dirty_log_page_splitting_test $RUN_TIMEOUT)
  grep -E '^RESULT |^# Eager splitting' /tmp/out || { echo "RESULT failed \$*"; tail -5 /tmp/out; }
}
m=\$(./dirty_log_page_splitting_test -h | sed -n 's/^ *\([0-9][0-9]*\): PA-bits.*/\1/p' | head -n1)
for rep in \$(seq $RUNS); do
  run -m \$m -b $SIZE -v 2
done
LOOP
}

dir=$REPO/build/$(bench_arch_dir "$ARCH")
bench_build "$REPO" "$ARCH" "$dir" || exit 1
raw=${RAW:-$(mktemp)}
"$REPO/vm/run" --arch "$ARCH" "${KARGS[@]}" --mem 2G --hugepages "$HUGEPAGES" \
	--dir "$dir/kselftest_install" --timeout "$TIMEOUT" -- sh -c "$(guest_loop)" |
	tr -d '\r' >"$raw"
if grep -q '^RESULT failed' "$raw"; then
	grep -A5 '^RESULT failed' "$raw" >&2
	exit 1
fi

# fig SPLIT PROTECT KEY: "median [min-max]" of KEY (ns) in ms.
fig() {
	grep "^RESULT test=dirty_log_page_splitting split=$1 .*protect=$2 " "$raw" |
		sed -n "s/.* $3=\([0-9]*\).*/\1/p" | bench_spread |
		awk '{ printf "%.2f [%.2f-%.2f]", $1 / 1e6, $2 / 1e6, $3 / 1e6 }'
}

echo "dirty_log_page_splitting_test -b $SIZE -v 2, $RUNS runs, $ARCH, kernel $KERNEL (vm/run, TCG)"
grep -m1 "^# Eager splitting" "$raw" || true
echo
echo "| split | protect | runs | protect step ms | first dirty pass ms | enable ms | disable ms |"
echo "| --- | --- | --- | --- | --- | --- | --- |"
for s in eager lazy; do
	for p in get manual; do
		n=$(grep -c "^RESULT test=dirty_log_page_splitting split=$s .*protect=$p " "$raw" || true)
		((n)) || continue
		echo "| $s | $p | $n | $(fig $s $p protect_ns) | $(fig $s $p first_dirty_ns) |" \
			"$(fig $s $p enable_ns) | $(fig $s $p disable_ns) |"
	done
done
[[ -n $RAW ]] || rm -f "$raw"
