# shellcheck shell=bash
# SPDX-License-Identifier: GPL-2.0-only
#
# vm/gates.sh: the reliability gates vm/suite runs besides the gcc builds:
# clang builds in both VMs, UBSan over the kselftest list in the x86_64
# VM, ASan and TSan over the runs without a guest, the fuzz targets, and
# the host's own /dev/kvm.  Sourced by vm/suite, which provides REPO,
# LOGS, JOBS, step, fail, count_tap, vm_job and vm_report, and (from
# vm/host-kvm.sh) host_kvm_runs_guests.

# count_host RC NAME: one host run's result.
count_host() {
	case $1 in
	0) PASSED=$((PASSED + 1)); echo "ok $2" ;;
	4) SKIPPED=$((SKIPPED + 1)); echo "ok $2 # SKIP" ;;
	*) fail "$2 exited $1" ;;
	esac
}

# clang_check KERNEL ARCH...: LLVM=1 static builds, the kselftest list
# in each arch's VM on Debian kernel KERNEL.
clang_check() {
	local kernel=$1 arch out
	shift
	for arch in "$@"; do
		out=$REPO/build/clang-${arch/arm64/aarch64}
		if ! make -s -C "$REPO" LLVM=1 ARCH="$arch" STATIC=1 O="$out" -j"$JOBS" \
			kselftest_install >"$LOGS/build-clang-$arch.log" 2>&1; then
			tail -30 "$LOGS/build-clang-$arch.log"
			fail "clang build $arch (make LLVM=1)"
			continue
		fi
		vm_job "$arch" "$kernel" "$out/kselftest_install" "vm-clang-$arch" 1200
		vm_report "vm-clang-$arch"
	done
}

# ubsan_check KERNEL: the kselftest list built with SANITIZE=undefined
# (gcc, static) in the x86_64 VM; a UBSan report fails the run too.
ubsan_check() {
	local out=$REPO/build/ubsan-x86_64 n
	if ! make -s -C "$REPO" SANITIZE=undefined STATIC=1 O="$out" -j"$JOBS" \
		kselftest_install >"$LOGS/build-ubsan.log" 2>&1; then
		tail -30 "$LOGS/build-ubsan.log"
		fail "UBSan build"
		return
	fi
	vm_job x86_64 "$1" "$out/kselftest_install" vm-ubsan-x86_64 1200
	vm_report vm-ubsan-x86_64
	n=$(grep -c 'runtime error:' "$LOGS/vm-ubsan-x86_64.log" || true)
	((n == 0)) || fail "UBSan: $n reports in vm-ubsan-x86_64.log"
}

# The runs without a guest, for ASan and TSan: readers, exit pipe,
# barrier and statistics of host-only demand paging, epoll and poll; the
# host-only eventfd ping-pong, its pool modes too.
HOST_ONLY_RUNS=(
	"demand_paging_test -H -v 4 -b 16M"
	"demand_paging_test -H -u MISSING -v 4 -r 4 -b 16M"
	"demand_paging_test -H -u MISSING -v 4 -r 4 -b 16M -w poll"
	"demand_paging_test -H -u MISSING -v 2 -r 8 -b 16M -o"
	"demand_paging_test -H -u MINOR -s shmem -v 2 -r 4 -b 16M"
	"eventfd_perf_test -H -v 4 -e 500"
	"eventfd_perf_test -H -v 4 -e 500 -w pool -r 4"
	"eventfd_perf_test -H -v 2 -e 500 -w pool-poll -r 4"
)

# sanitizer_check KIND: SANITIZE=KIND build (dynamic), unit tests and the
# host-only runs; any report fails (the sanitizers exit non-zero).
sanitizer_check() {
	local kind=$1 out=$REPO/build/$1 t args rc
	if ! make -s -C "$REPO" SANITIZE="$kind" O="$out" -j"$JOBS" \
		>"$LOGS/build-$kind.log" 2>&1; then
		tail -30 "$LOGS/build-$kind.log"
		fail "SANITIZE=$kind build"
		return
	fi
	for t in "$out"/unit/*; do
		rc=0
		"$t" >"$LOGS/$kind-${t##*/}.log" 2>&1 || rc=$?
		((rc == 0 || rc == 4)) || cat "$LOGS/$kind-${t##*/}.log"
		count_host $rc "$kind: unit/${t##*/}"
	done
	for args in "${HOST_ONLY_RUNS[@]}"; do
		rc=0
		# shellcheck disable=SC2086 # the options are words
		"$out"/$args >"$LOGS/$kind-host-only.log" 2>&1 || rc=$?
		((rc == 0 || rc == 4)) || tail -40 "$LOGS/$kind-host-only.log"
		count_host $rc "$kind: $args"
	done
}

# fuzz_check: every fuzz target for a few seconds (fuzz/run).
fuzz_check() {
	"$REPO/fuzz/run" --seconds "${FUZZ_SECONDS:-10}" | tee "$LOGS/fuzz.log"
	PASSED=$((PASSED + $(grep -c '^ok ' "$LOGS/fuzz.log" || true)))
	FAILED=$((FAILED + $(grep -c '^not ok ' "$LOGS/fuzz.log" || true)))
}

# host_kvm_check DIR: the kselftest list, the case tables and the fault
# cases of the install tree DIR on this host's /dev/kvm, if it runs them.
host_kvm_check() {
	local dir=$1 c rc
	if ! host_kvm_runs_guests "$dir/kvm"; then
		echo "ok host /dev/kvm # SKIP $HOST_KVM_WHY"
		SKIPPED=$((SKIPPED + 1))
		return
	fi
	(cd "$dir" && ./run_kselftest.sh) </dev/null 2>&1 | tee "$LOGS/host-kvm.log"
	count_tap "$LOGS/host-kvm.log"
	for c in demand_paging_cases.sh dirty_log_cases.sh fault_cases.sh \
		mmu_stress_cases.sh kvm_page_table_cases.sh; do
		rc=0
		(cd "$dir/kvm" && "./$c") </dev/null >"$LOGS/host-$c.log" 2>&1 || rc=$?
		grep -E '^not ok|^# [0-9]+ passed' "$LOGS/host-$c.log" || true
		count_tap "$LOGS/host-$c.log"
		grep -q '^not ok' "$LOGS/host-$c.log" || ((rc == 0 || rc == 4)) ||
			fail "host /dev/kvm: $c exited $rc"
	done
}

# run_gates KERNEL ARCH...: every gate, for the arches that built.
run_gates() {
	local kernel=$1 kind
	shift
	if [[ " $* " == *" x86_64 "* ]]; then
		step "the host's own /dev/kvm ($(kvm_describe))"
		host_kvm_check "$REPO/build/x86_64/kselftest_install"
	fi
	step "clang builds (LLVM=1), the kselftest list in the VMs"
	clang_check "$kernel" "$@"
	if [[ " $* " == *" x86_64 "* ]]; then
		step "UBSan: the kselftest list in the x86_64 VM"
		ubsan_check "$kernel"
	fi
	for kind in address thread; do
		step "SANITIZE=$kind: unit tests and host-only runs"
		sanitizer_check $kind
	done
	step "fuzz targets"
	fuzz_check
}
