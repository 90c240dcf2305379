# shellcheck shell=bash
# SPDX-License-Identifier: GPL-2.0-only
#
# vm/gates.sh: the reliability gates vm/suite runs besides the gcc builds:
# clang builds in both VMs, UBSan over the kselftest list in the x86_64
# VM, ASan and TSan over the runs without a guest, the fuzz targets, and
# the host's own /dev/kvm.  Sourced by vm/suite, which provides REPO,
# LOGS, JOBS, step, fail and count_tap, runs the VM lists of the builds
# (GATE_VM_JOBS) in its pool, and (from vm/host-kvm.sh)
# host_kvm_runs_guests.

# count_host RC NAME: one host run's result (an exit status), counted.
count_host() {
	case $1 in
	0) PASSED=$((PASSED + 1)) ;;
	4) SKIPPED=$((SKIPPED + 1)) ;;
	*) fail "$2 exited $1"; return 0 ;;
	esac
	tap_line "$1" "$2"
}

# gate_builds ARCH...: the gates' builds (LLVM=1 static for each ARCH,
# SANITIZE=undefined static for x86_64, SANITIZE=address and thread for
# the host), each failure counted; GATE_VM_JOBS gets the pool jobs of the
# builds that worked (vm/suite's job_clang, job_ubsan), GATE_SANS the
# sanitizers whose host build worked.
gate_builds() {
	local arch kind
	GATE_VM_JOBS=() GATE_SANS=()
	for arch in "$@"; do
		gate_make "clang build $arch (make LLVM=1)" "build-clang-$arch" \
			LLVM=1 ARCH="$arch" STATIC=1 O="$REPO/build/clang-$(kvmbench_build arch-dir "$arch")" \
			kselftest_install && GATE_VM_JOBS+=("job_clang $arch")
	done
	if [[ " $* " == *" x86_64 "* ]]; then
		gate_make "UBSan build" build-ubsan SANITIZE=undefined STATIC=1 \
			O="$REPO/build/ubsan-x86_64" kselftest_install && GATE_VM_JOBS+=(job_ubsan)
	fi
	for kind in address thread; do
		gate_make "SANITIZE=$kind build" build-$kind SANITIZE=$kind \
			O="$REPO/build/$kind" && GATE_SANS+=("$kind")
	done
}

# gate_make WHAT LOGNAME MAKEARGS...: make in REPO, output in LOGNAME.log;
# on failure its tail and a counted failure.
gate_make() {
	local what=$1 log=$LOGS/$2.log
	shift 2
	make -s -C "$REPO" -j"$JOBS" "$@" >"$log" 2>&1 && return 0
	tail -30 "$log"
	fail "$what"
	return 1
}

# ubsan_report: a UBSan report in the UBSan list's log fails it too.
ubsan_report() {
	local n
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

# sanitizer_check KIND: the unit tests and the host-only runs of the
# SANITIZE=KIND build (gate_builds); any report fails (the sanitizers exit
# non-zero).
sanitizer_check() {
	local kind=$1 out=$REPO/build/$1 t args rc
	for t in "$out"/unit/*; do
		[[ -x $t ]] || continue		# the build's marks (.refused)
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

# host_kvm_check DIR: the kselftest list and the cases of the install
# tree DIR on this host's /dev/kvm, if it runs them.
host_kvm_check() {
	local dir=$1 rc=0
	if ! host_kvm_runs_guests "$dir/kvm"; then
		tap_line skip "host /dev/kvm" "$HOST_KVM_WHY"
		SKIPPED=$((SKIPPED + 1))
		return
	fi
	(cd "$dir" && ./run_kselftest.sh) </dev/null 2>&1 | tee "$LOGS/host-kvm.log"
	count_tap "$LOGS/host-kvm.log"
	rm -rf "$LOGS/host-cases"
	"$dir/kvm/testcases/run.sh" -o "$LOGS/host-cases" </dev/null >"$LOGS/host-cases.log" 2>&1 || rc=$?
	grep -E '^not ok|^# [0-9]+ passed' "$LOGS/host-cases.log" || true
	count_tap "$LOGS/host-cases.log"
	grep -q '^not ok' "$LOGS/host-cases.log" || ((rc == 0 || rc == 4)) ||
		fail "host /dev/kvm: testcases/run.sh exited $rc"
}

# host_gates X86_BUILT SANITIZER...: the gates that run on this host: its
# own /dev/kvm (if X86_BUILT is 1), the sanitizers' runs, the fuzz targets.
host_gates() {
	local kind
	if [[ $1 == 1 ]]; then
		step "the host's own /dev/kvm ($(kvm_describe))"
		host_kvm_check "$REPO/build/x86_64/kselftest_install"
	fi
	shift
	for kind in "$@"; do
		step "SANITIZE=$kind: unit tests and host-only runs"
		sanitizer_check "$kind"
	done
	step "fuzz targets"
	fuzz_check
}
