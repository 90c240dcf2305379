#!/bin/bash
# shellcheck disable=SC2317  # the checks run through check()
# SPDX-License-Identifier: GPL-2.0-only
#
# bench/verdict_tests.sh: proves bench/compare and bench/bisect-run honest,
# in kselftest TAP (vm/suite counts the results).
#
#  - the unit tests of bench/kvmbench (bench/test_*.py: the statistics
#    in test_stats.py, the rest in the others), one result each;
#  - pyflakes finds nothing in the Python, nor flake8 (the house style,
#    setup.cfg);
#  - bad command lines: one line, their status, before any boot (the
#    table bench/testdata/bad-input.tsv, run by bench/test_bad_input.py);
#  - on this host's /dev/kvm, if it runs our guests (probed; else SKIP):
#    A/A comparisons (same kernel, same binary, same options) of
#    demand_paging_test and dirty_log_perf_test at the default --runs and
#    --level must find no difference in any timing (a first false verdict,
#    allowed in 5% of honest comparisons, earns one more try); 3 runs a side must be
#    refused before any run (exit 2); a known slowdown (demand_paging_test -d on the uffd
#    service: DELAY us more per fault) must be worse, in time and rate,
#    by at least DELAY and at most 4x DELAY per fault;
#  - one short real run in the x86_64 VM: the slowdown again, then
#    bench/bisect-run good, bad and cannot-test, and --packages.
#
# usage: bench/verdict_tests.sh [--logs DIR]   (default build/logs/verdict)
set -uo pipefail

REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
# vm/fetch.sh's messages and failures (it expects its caller's).
info() { echo "verdict_tests.sh: $*" >&2; }
die_env() { info "$*"; exit 6; }
# shellcheck source=vm/fetch.sh
. "$REPO/vm/fetch.sh"
# shellcheck source=vm/build-deps.sh
. "$REPO/vm/build-deps.sh"
# shellcheck source=vm/host-kvm.sh
. "$REPO/vm/host-kvm.sh"

usage() { sed -n '3,/^\([^#]\|$\)/s/^# \{0,1\}//p' "${BASH_SOURCE[0]}"; }
LOGS=$REPO/build/logs/verdict
case ${1:-} in
'') ;;
-h|--help) usage; exit 0 ;;
--logs) [[ -n ${2:-} ]] || { echo "verdict_tests.sh: --logs needs a directory" >&2; exit 2; }
	LOGS=$2 ;;
*) echo "verdict_tests.sh: unknown option '$1'" >&2; exit 2 ;;
esac
# new, empty or ours (under build/, or marked as ours), emptied: nothing
# of the user's removed
[[ $(realpath -m "$LOGS") != "$REPO"/build/* ]] || rm -rf "$LOGS"
kvmbench_py vmrun.cli fresh-out --logs "$LOGS" bench/verdict_tests.sh || exit 2
DELAY=200 VM_DELAY=5000

ok() { tap_result ok "$*"; }
not_ok() { tap_result fail "$*"; }
skip() { tap_result skip "$1" "$2"; }
check() {	# check NAME CMD...: ok if CMD succeeds
	local name=$1
	shift
	if "$@"; then ok "$name"; else not_ok "$name"; fi
}

# verdict DIR FIGURE: the verdict bench/compare gave FIGURE; value DIR
# FIGURE a|b: a side's median (from its compare.json).
verdict() { python3 "$REPO/bench/stats.py" figure "$1/runs/compare.json" "$2" verdict; }
value() { python3 "$REPO/bench/stats.py" figure "$1/runs/compare.json" "$2" "$3"; }

# compare NAME ARGS...: run bench/compare into $LOGS/NAME; its status.
compare() {
	local d=$LOGS/$1
	shift
	mkdir -p "$d"
	"$REPO/bench/compare" --out "$d/runs" "$@" >"$d/out" 2>"$d/err"
}

# Every timing (ns, pages/s) the same; the others may move.
all_timings_same() {
	local bad
	bad=$(grep '^VERDICT ' "$1/out" | grep -E ' unit=(ns|[a-z]+/s) ' | grep -v ' verdict=same$')
	[[ -z $bad ]] && grep -q '^VERDICT figure=time_ns\|^VERDICT figure=populate_ns' "$1/out" &&
		return 0
	echo "# timings that differ in an A/A comparison:"
	echo "${bad//VERDICT/# VERDICT}"
	return 1
}

# aa NAME ARGS...: an A/A comparison (bench/compare ARGS, logs in NAME)
# finds every timing the same.  At 95% a false verdict is allowed in up to
# 5% of honest A/A comparisons, so a first false one is shown and the
# comparison run once more (NAME-again): the check fails if both are
# false, which an honest method does in at most 0.25% of CI runs, and a
# method off its promise (say 30%) in 9%: still caught, not a flake.
aa() {
	local name=$1
	shift
	compare "$name" "$@"
	all_timings_same "$LOGS/$name" && return 0
	echo "# a false verdict in 5% is allowed: once more, as $name-again"
	compare "$name-again" "$@"
	all_timings_same "$LOGS/$name-again"
}

# refused DIR RC: bench/compare exited 1, said why and printed no verdict.
refused() {
	(($2 == 2)) && grep -q -- '--runs 3 cannot reach a verdict: .* at least [0-9]* runs a side' \
		"$1/err" && ! grep -q '^VERDICT' "$1/out" && [[ ! -e $1/runs/a ]] && return 0
	echo "# exit $2; stderr:"
	tail -n 5 "$1/err" | sed 's/^/#   /'
	return 1
}

# until_said DIR TEXT...: bench/compare --until printed each TEXT (a regex).
until_said() {
	local d=$1 t
	shift
	for t in "$@"; do
		grep -q -- "$t" "$d/out" && continue
		echo "# not printed: $t"
		grep '^until\|runs of A' "$d/out" | sed 's/^/#   /'
		return 1
	done
}

# The slowdown: worse in time and rate, and DELAY..4*DELAY us per fault.
slower_by_delay() {
	local d=$1 pages=$2 a b per
	a=$(value "$d" time_ns a) b=$(value "$d" time_ns b)
	per=$(python3 -c "print(($b - $a) / $pages / 1000)")
	echo "# time_ns: $(verdict "$d" time_ns), rate: $(verdict "$d" rate);" \
		"B-A median $per us per fault for -d $DELAY"
	[[ $(verdict "$d" time_ns) == worse && $(verdict "$d" rate) == worse ]] &&
		python3 -c "import sys; sys.exit(not ($DELAY <= $per <= 4 * $DELAY))"
}

# B fails (a bad option) or hangs (1 s a fault, killed after 2 s): each
# run shown with its output, counted, and no comparison.
failures_reported() {
	local d=$LOGS/fail
	compare fail --options '-b 1T' '-u MISSING -d 1000000' --runs 4 --run-timeout 2 \
		-- demand_paging_test -b 1M
	(($? == 1)) && grep -q "^---- A run #00: FAILED (exit 1); its output:" "$d/err" &&
		grep -q "^Test memory .* exceeds this host's RAM" "$d/err" &&
		grep -q "B #00 FAILED: hung, killed (exit 137)" "$d/err" &&
		grep -q "^HANG task" "$d/err" &&
		grep -q "10 failed, 0 skipped" "$d/err" && grep -q "too few runs" "$d/err" && return 0
	sed 's/^/# /' "$d/err" | tail -n 30
	return 1
}

unit_tests() {	# bench/test_*.py --tap, renumbered into this TAP
	local line t
	for t in "$REPO"/bench/test_*.py; do
		t=$(basename "$t" .py)
		python3 "$REPO/bench/$t.py" --tap >"$LOGS/$t.log" 2>&1
		while IFS= read -r line; do
			case $line in
			"ok "*) ok "${line#ok * }" ;;
			"not ok "*) not_ok "${line#not ok * }" ;;
			"#"*) echo "$line" ;;
			esac
		done <"$LOGS/$t.log"
		grep -q '^ok \|^not ok ' "$LOGS/$t.log" || not_ok "bench/$t.py ran"
	done
}

if ! { ensure_build_deps x86_64 && ensure_packages python3 python3-matplotlib; }; then
	echo "verdict_tests.sh: set-up failed" >&2
	exit 1
fi
echo "TAP version 13"
echo "# bench/compare and bench/bisect-run, logs in $LOGS"
unit_tests
# pyflakes: names used but never defined (a NameError only on the path
# that reaches it), imports unused.
pyflakes_clean() {
	command -v pyflakes3 >/dev/null || ensure_packages pyflakes3 >&2 || return 1
	pyflakes3 "$REPO"/bench/*.py "$REPO"/bench/kvmbench >"$LOGS/pyflakes.log" 2>&1 ||
		{ sed 's/^/# /' "$LOGS/pyflakes.log"; return 1; }
}
check "pyflakes: bench/*.py and bench/kvmbench clean" pyflakes_clean
# flake8: the house style (setup.cfg: pycodestyle's rules, lines up to 120).
flake8_clean() {
	command -v flake8 >/dev/null || ensure_packages flake8 >&2 || return 1
	(cd "$REPO" && flake8 bench) >"$LOGS/flake8.log" 2>&1 ||
		{ sed 's/^/# /' "$LOGS/flake8.log"; return 1; }
}
check "flake8: bench/ in the house style (setup.cfg)" flake8_clean

DIR=$REPO/build/x86_64
mkdir -p "$REPO/build"
build_suite "$REPO" x86_64 "$DIR" "$DIR.build.log" || { not_ok "build"; exit 1; }
if [[ $(uname -m) == x86_64 ]] && host_kvm_runs_guests "$DIR/kselftest_install/kvm"; then
	# A/A at the defaults a maintainer uses: --runs 10, --level 95.
	check "A/A demand_paging_test -u MISSING on this host, defaults: no timing differs" \
		aa aa-dp --options '' '' -- demand_paging_test -u MISSING -b 4M
	check "A/A dirty_log_perf_test on this host, defaults: no timing differs" \
		aa aa-dl --options '' '' -- dirty_log_perf_test -b 4M -i 2
	compare few --options '' '' --runs 3 -- dirty_log_perf_test -b 1M -i 2
	check "3 runs a side: refused before any run, the least n said, exit 2" refused "$LOGS/few" $?
	compare until-max --options '' '' --until 1 --runs 4 --max-runs 6 -- dirty_log_perf_test -b 1M -i 2
	check "--until 1%: not resolved by --max-runs 6, looks and runs said, split over the looks" \
		until_said "$LOGS/until-max" "not resolved to +-1% after the last look (--max-runs 6); 6 runs of A and 6 of B" \
		"looks at 4 6 runs a side" "over the [0-9]* figures that vary and 2 looks"
	compare until-budget --options '' '-d 5000' --until 1 --budget 0.1 -- \
		demand_paging_test -u MISSING -b 1M
	check "--until 1% --budget 0.1: stops before look 2, 8 runs a side, B still worse" \
		until_said "$LOGS/until-budget" "stopped by --budget 0.1 min before look 2 (12 runs a side); 8 runs of A and 8 of B" \
		"looks at 8 12 18 27 40 runs a side" "VERDICT figure=time_ns .* verdict=worse"
	compare slow --options '' "-d $DELAY" --runs 6 -- demand_paging_test -u MISSING -b 4M
	check "demand_paging_test -d $DELAY on this host: worse by about $DELAY us a fault" \
		slower_by_delay "$LOGS/slow" 1024
	check "failed and hung runs are reported with their output and counted" \
		failures_reported
else
	for t in "A/A demand_paging_test" "A/A dirty_log_perf_test" "too few runs" "--until max" \
		"--until budget" "known slowdown" \
		"failed and hung runs"; do
		skip "$t on this host" "this host's /dev/kvm does not run our guests: $HOST_KVM_WHY"
	done
fi

# One short real run in the VM (real KVM 6.1 under emulation).
KDIR=$(stock_kernel_dir x86_64)
IMAGE=$(pvh_vmlinux "$(find "$KDIR/boot" -name 'vmlinuz-*' | sort -V | tail -n1)")
KERNEL=$IMAGE:$(find "$KDIR/lib/modules" -mindepth 1 -maxdepth 1 -type d | sort -V | tail -n1)
# The default clock (icount), as bench/bisect-run's, which is judged against these runs.
compare vm --where vm --options "" "-d $VM_DELAY" --runs 6 -- demand_paging_test -u MISSING -b 1M
check "in the VM: demand_paging_test -d $VM_DELAY worse in time and rate" \
	test "$(verdict "$LOGS/vm" time_ns)$(verdict "$LOGS/vm" rate)" = worseworse
CMP=$LOGS/vm/runs/compare.json
bisect() {	# bisect NAME WANT ARGS...: bench/bisect-run exits WANT
	local name=$1 want=$2 rc
	shift 2
	"$REPO/bench/bisect-run" "$@" >"$LOGS/bisect-$name.out" 2>"$LOGS/bisect-$name.err"
	rc=$?
	[[ $rc == "$want" ]] && return 0
	echo "# bench/bisect-run exited $rc, not $want:"
	tail -n 20 "$LOGS/bisect-$name.out" "$LOGS/bisect-$name.err" | sed 's/^/#   /'
	return 1
}
JUDGE=(--figure rate --threshold 30 --runs 4)
check "bisect-run: same command as the baseline's B side is good (0)" \
	bisect good 0 --kernel "${KERNEL%%:*}" --modules "${KERNEL#*:}" --baseline "$CMP:b" \
	"${JUDGE[@]}" -- demand_paging_test -u MISSING -b 1M -d $VM_DELAY
check "bisect-run: -d $VM_DELAY against the A side is bad (1)" \
	bisect bad 1 --kernel "${KERNEL%%:*}" --modules "${KERNEL#*:}" --baseline "$CMP" \
	"${JUDGE[@]}" -- demand_paging_test -u MISSING -b 1M -d $VM_DELAY
check "bisect-run: a file that is no kernel cannot be tested (125)" \
	bisect noboot 125 --kernel "$(find "$KDIR/boot" -name 'config-*' | head -n1)" \
	--baseline "$CMP" "${JUDGE[@]}" -- demand_paging_test -u MISSING -b 1M
check "bisect-run: a failed --build cannot be tested (125)" \
	bisect nobuild 125 --kernel "$IMAGE" --build false --baseline "$CMP" "${JUDGE[@]}" \
	-- demand_paging_test -u MISSING -b 1M
check "bisect-run --packages: a good last kernel ends it, no regression" \
	bisect packages 0 --packages "$KERNEL,$KERNEL" --baseline "$CMP:b" "${JUDGE[@]}" \
	-- demand_paging_test -u MISSING -b 1M -d $VM_DELAY
grep -q '^BISECT no regression' "$LOGS/bisect-packages.out" ||
	echo "# --packages did not say 'no regression'"
tap_plan
exit $TAP_FAILED
