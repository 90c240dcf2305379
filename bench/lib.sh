#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# bench/lib.sh: sourced by the table scripts (bench/*.sh) for what they
# share: option parsing, the guest-side watchdog of one test run, and the
# build and VM boot; their statistics and checks are the Python package's
# (bench/kvmbench).  The script sets REPO and defines usage() before
# sourcing.

# bench_parse_args NAME "OPT=VAR ..." ARGS...: "--OPT VALUE" sets VAR,
# -h/--help prints usage, anything else is a usage error; then --runs
# (RUNS) must be a positive number.
bench_parse_args() {
	local name=$1 map=$2 m var
	shift 2
	while (($#)); do
		case "$1" in
		-h|--help) usage; exit 0 ;;
		esac
		var=
		for m in $map; do
			[[ $1 == "--${m%%=*}" ]] && var=${m#*=}
		done
		if [[ -z $var ]]; then
			echo "$name: unknown option '$1'" >&2
			usage >&2
			exit 2
		fi
		printf -v "$var" '%s' "${2:?}"
		shift 2
	done
	[[ $RUNS =~ ^[1-9][0-9]*$ ]] || { echo "bad --runs" >&2; exit 2; }
}

# bench_py ARGS...: python3 -m kvmbench ARGS (kernel-args, check-cpu).
bench_py() { PYTHONPATH=$REPO/bench${PYTHONPATH:+:$PYTHONPATH} python3 -m kvmbench "$@"; }

# bench_spread: numbers on stdin, one a line: "median min max" of them
# ("0 0 0" if there are none).
bench_spread() { python3 "$REPO/bench/stats.py" median; }

# bench_guest_watch TEST TIMEOUT [OUT]: guest shell lines that run ./TEST
# "$@" to OUT (default /tmp/out) and, if it still runs after TIMEOUT
# seconds, print its threads' kernel stacks as HANG lines and kill it
# (bench_watch of bench/kvmbench/guest.sh).
bench_guest_watch() {
	cat "$REPO/bench/kvmbench/guest.sh"
	echo "  bench_watch $2 ${3:-/tmp/out} ./$1 \"\$@\""
}

# bench_guest_run TEST TIMEOUT: a shell function run() that runs ./TEST
# "$@" under bench_guest_watch and prints its RESULT line, or "RESULT
# failed ARGS" if it printed none.
bench_guest_run() {
	echo 'run() {'
	bench_guest_watch "$1" "$2"
	echo "  grep '^RESULT' /tmp/out || echo \"RESULT failed \$*\""
	echo '}'
}

# bench_vm_run SCRIPT RAW: build the x86_64 tests, boot the VM (4 vCPUs,
# --timeout TIMEOUT) once and run the shell SCRIPT in it; its output to RAW.
bench_vm_run() {
	make -s -C "$REPO" ARCH=x86_64 STATIC=1 O="$REPO/build/x86_64" -j2 kselftest_install \
		>/dev/null 2>&1 || { echo "build failed" >&2; exit 1; }
	"$REPO/vm/run" --arch x86_64 --smp 4 --dir "$REPO/build/x86_64/kselftest_install" \
		--timeout "$TIMEOUT" -- sh -c "$1" | tr -d '\r' >"$2"
}

# bench_kernel_args SPEC: vm/run's arguments, one a line, for a kernel
# given as a Debian kernel version (6.1, 6.12.115+deb12) or IMAGE or
# IMAGE:MODULES_DIR; nothing and the reason on stderr if it is neither.
bench_kernel_args() { bench_py kernel-args "$1" || true; }

# bench_check_cpu CPU ARCH: a usage error (die_usage) unless CPU, vm/run's
# --cpu, is empty, or amd or intel on x86_64.
bench_check_cpu() {
	local why
	why=$(bench_py check-cpu "$1" "$2") || die_usage "$why"
}

# bench_arch_dir ARCH: build/ subdirectory name (x86_64, aarch64).
bench_arch_dir() { [[ $1 == arm64 ]] && echo aarch64 || echo x86_64; }

# bench_build SRC ARCH OUT: a static kselftest install of the suite in SRC
# for ARCH under OUT (OUT/kselftest_install); the log on failure.
# (build_suite: vm/build-deps.sh, which every caller sources)
bench_build() { mkdir -p "$(dirname "$3")" && build_suite "$1" "$2" "$3" "$3.build.log"; }
