#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# bench/nested.sh: the perf tests with their vCPUs nested (-n: L1 runs
# the page walks in L2 under NPT, every fault and write-protection through
# KVM's nested MMU) against not nested, side by side: populate, dirty
# pass, get and clear of the dirty log, and the demand paging rate (KVM
# alone and -u MISSING), with the nested/not-nested ratio, and the KVM
# stats (RESULT_STATS, summed over the vCPUs) that explain it.
#
# Boots the x86_64 VM once (vm/run --smp 4; emulated SVM, or with --cpu
# intel Bochs' VMX) and loops inside it; the two modes take turns.  Cells:
# median [min-max] of --runs.
#
# usage: bench/nested.sh [--runs N] [--size 16M] [--vcpus 2] [--debian-kernel 6.12]
#                        [--kernel PATH] [--modules DIR] [--cpu amd|intel]
#                        [--raw FILE] [--timeout SECS]
set -euo pipefail

REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
RUNS=3 SIZE=16M VCPUS=2 TIMEOUT=3000 RAW='' KERNEL='' MODULES='' DEBIAN_KERNEL='' CPU=''

usage() { sed -n '3,17p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//'; }
die_usage() { echo "bench/nested.sh: $*" >&2; exit 2; }

# shellcheck source=bench/lib.sh
. "$REPO/bench/lib.sh"
bench_parse_args bench/nested.sh \
	"runs=RUNS size=SIZE vcpus=VCPUS raw=RAW timeout=TIMEOUT kernel=KERNEL modules=MODULES debian-kernel=DEBIAN_KERNEL cpu=CPU" "$@"
[[ $VCPUS =~ ^[1-9][0-9]*$ ]] || { echo "bench/nested.sh: bad --vcpus" >&2; exit 2; }
[[ $SIZE =~ ^[1-9][0-9]*[KMG]?$ ]] || { echo "bench/nested.sh: bad --size" >&2; exit 2; }
bench_check_cpu "$CPU" x86_64
VM_ARGS=()
[[ -z $CPU ]] || VM_ARGS+=(--cpu "$CPU")
[[ -z $KERNEL ]] || VM_ARGS+=(--kernel "$KERNEL")
[[ -z $MODULES ]] || VM_ARGS+=(--modules "$MODULES")
[[ -z $DEBIAN_KERNEL ]] || VM_ARGS+=(--debian-kernel "$DEBIAN_KERNEL")

# One line per run: "RUN name nested" + its RESULT and RESULT_STATS lines.
RUN_TIMEOUT=600
# shellcheck disable=SC2016 # $tst: the guest shell's, not ours
guest_loop() {
	cat <<LOOP
run() {
  what=\$1; mode=\$2; tst=\$3; shift 3
  set -- "\$@" \$mode
$(bench_guest_watch '$tst' $RUN_TIMEOUT)
  echo "RUN \$what \${mode:-plain} \$(grep '^RESULT \|^RESULT_STATS ' /tmp/out | tr '\n' ' ')"
  grep -q '^RESULT ' /tmp/out || { echo "FAILED \$what \$mode"; tail -3 /tmp/out; }
}
for rep in \$(seq $RUNS); do
  for m in "" -n; do
    run dirty_log "\$m" dirty_log_perf_test -b $SIZE -v $VCPUS -i 3
    run kvm_alone "\$m" demand_paging_test -b $SIZE -v $VCPUS
    run missing "\$m" demand_paging_test -u MISSING -b $SIZE -v $VCPUS
  done
done
LOOP
}

raw=${RAW:-$(mktemp)}
[[ -n $RAW ]] || trap 'rm -f "$raw"' EXIT

make -s -C "$REPO" ARCH=x86_64 STATIC=1 O="$REPO/build/x86_64" -j2 kselftest_install \
	>/dev/null 2>&1 || { echo "bench/nested.sh: build failed" >&2; exit 1; }
"$REPO/vm/run" --arch x86_64 --smp 4 --dir "$REPO/build/x86_64/kselftest_install" \
	--timeout "$TIMEOUT" "${VM_ARGS[@]}" -- sh -c "$(guest_loop)" | tr -d '\r' >"$raw"
if grep -q '^FAILED\|^HANG' "$raw"; then
	echo "failed runs (left out of the table):" >&2
	grep -A3 '^FAILED\|^HANG' "$raw" >&2
fi
grep -q '^RUN .* -n .*RESULT ' "$raw" ||
	{ echo "bench/nested.sh: no nested run passed (does the VM's KVM nest?)" >&2; exit 1; }

# stats NAME MODE FIELD: "median min max" of FIELD (the last one on the
# line: RESULT_STATS comes after RESULT) over the runs.
stats() {
	grep "^RUN $1 $2 .*RESULT " "$raw" | sed -n "s/.* $3=\([^ ]*\).*/\1/p" | bench_spread
}

# row LABEL NAME FIELD SCALE: both modes' cells, scaled, and the ratio.
row() {
	local p n
	read -r pm pl ph < <(stats "$2" plain "$3")
	read -r nm nl nh < <(stats "$2" -n "$3")
	p=$(printf '%.2f [%.2f-%.2f]' "$(echo "$pm / $4" | bc -l)" \
		"$(echo "$pl / $4" | bc -l)" "$(echo "$ph / $4" | bc -l)")
	n=$(printf '%.2f [%.2f-%.2f]' "$(echo "$nm / $4" | bc -l)" \
		"$(echo "$nl / $4" | bc -l)" "$(echo "$nh / $4" | bc -l)")
	printf '| %-34s | %-26s | %-26s | %6.2f |\n' "$1" "$p" "$n" \
		"$(echo "if ($pm > 0) $nm / $pm else 0" | bc -l)"
}

echo "x86_64 VM (vm/run --smp 4 ${VM_ARGS[*]}, $([[ $CPU == intel ]] && echo "Bochs, VMX" || echo "emulated SVM")), -b $SIZE -v $VCPUS," \
	"median of $RUNS runs [min-max]"
printf '| %-34s | %-26s | %-26s | %-6s |\n' figure "not nested" "nested (-n)" ratio
row "Populate memory time (ms)" dirty_log populate_ns 1000000
row "Dirty pass, avg of 3 (ms)" dirty_log dirty_ns_avg 1000000
row "Get dirty log, avg (us)" dirty_log get_ns_avg 1000
row "Clear dirty log, avg (us)" dirty_log clear_ns_avg 1000
row "Demand paging, KVM alone (pgs/s)" kvm_alone rate 1
row "Demand paging, -u MISSING (pgs/s)" missing rate 1
echo
echo "KVM stats, median, summed over the vCPUs (dirty_log_perf_test run; kvm_alone run):"
printf '| %-18s | %-12s | %-12s | %-12s | %-12s |\n' stat "dirty: plain" "dirty: -n" \
	"alone: plain" "alone: -n"
for s in exits pf_taken pf_fixed pf_fast pf_emulate pf_spurious nested_run insn_emulation \
	 mmu_shadow_zapped mmu_cache_miss mmu_pte_write mmu_unsync pages_4k; do
	printf '| %-18s | %12.0f | %12.0f | %12.0f | %12.0f |\n' "$s" \
		"$(stats dirty_log plain "$s" | cut -d' ' -f1)" \
		"$(stats dirty_log -n "$s" | cut -d' ' -f1)" \
		"$(stats kvm_alone plain "$s" | cut -d' ' -f1)" \
		"$(stats kvm_alone -n "$s" | cut -d' ' -f1)"
done
