#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# bench/lib.sh: sourced by the bench scripts for what they share: option
# parsing, the guest-side watchdog of one test run, and the build and VM
# boot.  The script sets REPO and defines usage() before sourcing.

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

# bench_guest_watch TEST TIMEOUT: guest shell lines that run ./TEST "$@"
# to /tmp/out and, if it still runs after TIMEOUT seconds, print its
# threads' kernel stacks as HANG lines and kill it.
bench_guest_watch() {
	cat <<WATCH
  ./$1 "\$@" >/tmp/out 2>&1 &
  pid=\$!; n=0
  while [ \$n -lt $2 ] && kill -0 \$pid 2>/dev/null; do sleep 1; n=\$((n + 1)); done
  if kill -0 \$pid 2>/dev/null; then
    echo "HANG \$*"
    for t in /proc/\$pid/task/*; do
      echo "HANG task \$t \$(cat \$t/comm) \$(grep State \$t/status) wchan=\$(cat \$t/wchan)"
      sed 's/^/HANG   /' \$t/stack 2>/dev/null | head -8
    done
    kill -9 \$pid
  fi
  wait \$pid
WATCH
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
