#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# bench/dirty_log.sh: what dirty logging costs, from dirty_log_perf_test,
# in three tables:
#   1. populate time with the start barrier on and off (-B), 1/4/16 vCPUs;
#   2. get and clear of the dirty log against the memslot count (1/2/4/8)
#      at fixed memory, with manual protect and without (-g: get only);
#   3. the dirty bitmap against the dirty ring (-R) at 1 and 4 vCPUs.
#
# Boots the x86_64 VM once (vm/run --smp 4) and loops inside it.  Emulated
# timings are noisy, so every cell is the median of --runs runs with the
# spread [min-max]; configurations take turns, so drift hits all alike.
# Every run also checked each pass's dirty log against the pages written.
#
# usage: bench/dirty_log.sh [--runs N] [--size 2M] [--slot-mem 32M]
#                           [--ring ENTRIES] [--raw FILE] [--timeout SECS]
#   --size      memory per vCPU in tables 1 and 3
#   --slot-mem  total memory of table 2 (2 vCPUs), split into the slots
set -euo pipefail

REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
RUNS=5 SIZE=2M SLOT_MEM=32M RING=4096 TIMEOUT=3000 RAW=

usage() { sed -n '3,20p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//'; }

# shellcheck source=bench/lib.sh
. "$REPO/bench/lib.sh"
bench_parse_args bench/dirty_log.sh \
	"runs=RUNS size=SIZE slot-mem=SLOT_MEM ring=RING raw=RAW timeout=TIMEOUT" "$@"

# The loop run inside the VM: one RESULT line per run, tagged with its
# table.  A run that takes more than RUN_TIMEOUT seconds is killed after
# its threads' kernel stacks are dumped, and counted as failed.
RUN_TIMEOUT=180
guest_loop() {
	cat <<LOOP
run() {
  tag=\$1; shift
$(bench_guest_watch dirty_log_perf_test $RUN_TIMEOUT)
  grep '^RESULT ' /tmp/out | sed "s/^RESULT /RESULT table=\$tag /" || echo "RESULT failed \$*"
}
slot_bytes=\$(( $(numfmt_m "$SLOT_MEM") / 2 ))
for rep in \$(seq $RUNS); do
  for v in 1 4 16; do
    run 1 -b $SIZE -v \$v
    run 1 -b $SIZE -v \$v -B
  done
  for x in 1 2 4 8; do
    run 2 -b \$slot_bytes -v 2 -x \$x -i 3
    run 2 -b \$slot_bytes -v 2 -x \$x -i 3 -g
  done
  for v in 1 4; do
    run 3 -b $SIZE -v \$v -i 3
    run 3 -b $SIZE -v \$v -i 3 -R $RING
  done
done
LOOP
}

# numfmt_m SIZE: bytes of "32M", "1G", "4096".
numfmt_m() {
	local n=${1%[KkMmGg]}
	case "$1" in
	*[Kk]) echo $((n << 10)) ;;
	*[Mm]) echo $((n << 20)) ;;
	*[Gg]) echo $((n << 30)) ;;
	*) echo "$1" ;;
	esac
}

raw=${RAW:-$(mktemp)}
[[ -n $RAW ]] || trap 'rm -f "$raw"' EXIT

bench_vm_run "$(guest_loop)" "$raw"
if grep -q '^RESULT failed\|^HANG' "$raw"; then
	echo "failed runs (left out of the tables):" >&2
	grep '^RESULT failed\|^HANG' "$raw" >&2
fi

# stats FIELD MATCH...: "median min max" of FIELD over the RESULT lines
# that contain every " MATCH " (key=value).
stats() {
	local field=$1 line
	shift
	grep '^RESULT table=' "$raw" | while read -r line; do
		local ok=1 m
		for m in "$@"; do
			[[ " $line " == *" $m "* ]] || ok=0
		done
		((ok)) && sed -n "s/.* $field=\([^ ]*\).*/\1/p" <<<"$line"
	done | bench_spread
}

# cell DIV FIELD MATCH...: "median [min-max]" of FIELD / DIV.
cell() {
	local div=$1 m lo hi
	shift
	read -r m lo hi < <(stats "$@")
	awk -v m="$m" -v lo="$lo" -v hi="$hi" -v d="$div" \
		'BEGIN { printf "%8.2f [%7.2f-%7.2f]", m / d, lo / d, hi / d }'
}

MS=1000000 US=1000
echo "dirty_log_perf_test in the x86_64 VM (vm/run --smp 4, nested SVM under TCG):" \
	"median of $RUNS runs [min-max]"
echo
echo "Table 1: Populate memory time (ms), -b $SIZE per vCPU"
printf '%-6s | %-26s | %-26s\n' vCPUs "barrier (default)" "no barrier (-B)"
for v in 1 4 16; do
	printf '%-6s | %s | %s\n' "$v" \
		"$(cell $MS populate_ns table=1 vcpus=$v barrier=1)" \
		"$(cell $MS populate_ns table=1 vcpus=$v barrier=0)"
done
echo
echo "Table 2: dirty log per iteration (us) against memslots, $SLOT_MEM over 2 vCPUs, -i 3"
printf '%-5s | %-26s | %-26s | %-26s\n' slots "get (manual protect)" \
	"clear (manual protect)" "get (-g: get + protect)"
for x in 1 2 4 8; do
	printf '%-5s | %s | %s | %s\n' "$x" \
		"$(cell $US get_ns_avg table=2 slots=$x manual_protect=1)" \
		"$(cell $US clear_ns_avg table=2 slots=$x manual_protect=1)" \
		"$(cell $US get_ns_avg table=2 slots=$x manual_protect=0)"
done
echo
echo "Table 3: bitmap against ring (-R $RING), -b $SIZE per vCPU, -i 3;" \
	"dirty pass in ms, get/clear in us"
printf '%-6s %-6s | %-26s | %-26s | %-26s | %s\n' vCPUs log "dirty pass (ms)" \
	"get / harvest (us)" "clear / reset (us)" "ring full exits"
for v in 1 4; do
	for log in bitmap ring; do
		printf '%-6s %-6s | %s | %s | %s | %s\n' "$v" "$log" \
			"$(cell $MS dirty_ns_avg table=3 vcpus=$v log=$log)" \
			"$(cell $US get_ns_avg table=3 vcpus=$v log=$log)" \
			"$(cell $US clear_ns_avg table=3 vcpus=$v log=$log)" \
			"$(stats ring_full_exits table=3 vcpus=$v log=$log | cut -d' ' -f1)"
	done
done
