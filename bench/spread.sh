#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# bench/spread.sh: how far the same command's timings move from run to
# run in one boot: populate and the second dirty pass of
# dirty_log_perf_test -i 2, and the rate of demand_paging_test -u MISSING,
# each run --runs times after one dropped warm-up, in one x86_64 VM
# (vm/run; --cpu intel: Bochs, whose clock counts instructions; default:
# QEMU TCG, whose clock is the host's).  Cells: median, [min-max], the
# spread (max-min)/median and the coefficient of variation sd/mean.
#
# usage: bench/spread.sh [--runs 5] [--size 4M] [--cpu amd|intel]
#                        [--debian-kernel 6.1] [--raw FILE] [--timeout SECS]
#        bench/spread.sh --parse FILE   (the table of an earlier --raw FILE)
set -euo pipefail

REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
RUNS=5 SIZE=4M CPU='' DEBIAN_KERNEL='' RAW='' TIMEOUT=5400 PARSE=''

usage() { sed -n '3,13p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//'; }
die_usage() { echo "bench/spread.sh: $*" >&2; exit 2; }

# shellcheck source=bench/lib.sh
. "$REPO/bench/lib.sh"
bench_parse_args bench/spread.sh \
	"runs=RUNS size=SIZE cpu=CPU debian-kernel=DEBIAN_KERNEL raw=RAW timeout=TIMEOUT parse=PARSE" "$@"
[[ $SIZE =~ ^[1-9][0-9]*[KMG]?$ ]] || die_usage "bad --size '$SIZE'"
[[ $TIMEOUT =~ ^[1-9][0-9]*$ ]] || die_usage "bad --timeout '$TIMEOUT'"
bench_check_cpu "$CPU" x86_64
VM_ARGS=(${CPU:+--cpu "$CPU"} ${DEBIAN_KERNEL:+--debian-kernel "$DEBIAN_KERNEL"})

# One line a run: "RUN name index" and its RESULT lines.
# shellcheck disable=SC2016 # $tst: the guest shell's, not ours
guest_loop() {
	cat <<LOOP
run() {
  what=\$1; idx=\$2; tst=\$3; shift 3
$(bench_guest_watch '$tst' 600)
  echo "RUN \$what \$idx \$(grep '^RESULT' /tmp/out | tr '\n' ' ')"
  grep -q '^RESULT ' /tmp/out || { echo "FAILED \$what \$idx"; tail -3 /tmp/out; }
}
for i in \$(seq 0 $RUNS); do
  run dirty_log \$i dirty_log_perf_test -b $SIZE -v 1 -i 2
  run missing \$i demand_paging_test -u MISSING -b $SIZE -v 1
done
LOOP
}

# run_vm: boot, run guest_loop, its console into $raw.
run_vm() {
	local rc=0
	make -s -C "$REPO" ARCH=x86_64 STATIC=1 O="$REPO/build/x86_64" -j2 kselftest_install \
		>/dev/null 2>&1 || { echo "bench/spread.sh: build failed" >&2; exit 1; }
	"$REPO/vm/run" --arch x86_64 --dir "$REPO/build/x86_64/kselftest_install" \
		--timeout "$TIMEOUT" "${VM_ARGS[@]}" -- sh -c "$(guest_loop)" </dev/null |
		tr -d '\r' >"$raw" || rc=$?
	grep -a -A3 '^FAILED\|^HANG' "$raw" >&2 || true
	((rc == 0)) || { echo "bench/spread.sh: vm/run exited $rc" >&2; exit 1; }
}

if [[ -n $PARSE ]]; then
	[[ -r $PARSE ]] || die_usage "cannot read '$PARSE'"
	raw=$PARSE
else
	raw=${RAW:-$(mktemp)}
	[[ -n $RAW ]] || trap 'rm -f "$raw"' EXIT
	run_vm
fi

# values NAME FIELD: FIELD's value (its last one on the line: iteration
# 2's dirty_ns) of every measured run of NAME, the warm-up (0) dropped.
values() {
	grep -a "^RUN $1 [1-9][0-9]* .*RESULT " "$raw" | sed -n "s/.* $2=\([^ ]*\).*/\1/p"
}

# row LABEL NAME FIELD SCALE
row() {
	local m lo hi cv
	read -r m lo hi cv < <(values "$2" "$3" | python3 "$REPO/bench/stats.py" median --cv)
	awk -v l="$1" -v m="$m" -v lo="$lo" -v hi="$hi" -v s="$4" -v cv="$cv" -v n="$(values "$2" "$3" | wc -l)" \
		'BEGIN { printf "| %-30s | %2d | %10.2f | %10.2f-%-10.2f | %6.1f%% | %5s%% |\n",
			l, n, m / s, lo / s, hi / s, m ? 100 * (hi - lo) / m : 0, cv }'
}

echo "bench/spread.sh: x86_64 VM (vm/run ${VM_ARGS[*]}), -b $SIZE -v 1, runs after a warm-up, one boot"
printf '| %-30s | %2s | %10s | %-21s | %7s | %6s |\n' figure n median "min-max" spread CV
row "Populate memory time (ms)" dirty_log populate_ns 1000000
row "Iteration 2 dirty pass (ms)" dirty_log dirty_ns 1000000
row "-u MISSING rate (pgs/s)" missing rate 1
