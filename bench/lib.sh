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

# bench_spread: numbers on stdin, one a line: "median min max" of them
# ("0 0 0" if there are none).
bench_spread() {
	sort -g | awk '{ v[NR] = $1 } END {
		if (!NR) { print "0 0 0"; exit }
		m = NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2
		print m, v[1], v[NR] }'
}

# bench_guest_watch TEST TIMEOUT [OUT]: guest shell lines that run ./TEST
# "$@" to OUT (default /tmp/out) and, if it still runs after TIMEOUT
# seconds, print its threads' kernel stacks as HANG lines and kill it;
# $? is then the test's status.  The watchdog sleeps once rather than
# polling: under the instruction clock (--clock icount, one vCPU) every
# wakeup of a poller would count in the test's timings (a 0.1 s poll
# added 12% to some 20 ms passes).
bench_guest_watch() {
	cat <<WATCH
  ./$1 "\$@" >${3:-/tmp/out} 2>&1 &
  pid=\$!
  (
    trap 'kill \$s 2>/dev/null; exit 0' TERM
    sleep $2 & s=\$!
    wait \$s
    if kill -0 \$pid 2>/dev/null; then
      echo "HANG \$*"
      for t in /proc/\$pid/task/*; do
        echo "HANG task \$t \$(cat \$t/comm) \$(grep State \$t/status) wchan=\$(cat \$t/wchan)"
        sed 's/^/HANG   /' \$t/stack 2>/dev/null | head -8
      done
      kill -9 \$pid
    fi
  ) &
  wd=\$!
  wait \$pid
  wst=\$?
  kill \$wd 2>/dev/null
  wait \$wd
  (exit \$wst)
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

# ---- runs that write JSON (bench/compare, bench/bisect-run) ----------------
#
# A run is one test command writing its figures with --json.  Runs print
# a protocol on stdout, the same on the host and in the VM:
#   CMP-START SIDE IDX WARM     (WARM 1: a warm-up run, dropped)
#   CMP-OUT LINE...             (the test's output)
#   CMP-JSON-BEGIN / ... / CMP-JSON-END   (its JSON, if it passed)
#   CMP-END SIDE IDX RC
# and bench_read_runs files them under OUT: SIDE/IDX.json (or
# warmup/SIDE-IDX.json), logs/SIDE-IDX.log, and one line per run in
# OUT/status: "ok|fail|skip SIDE IDX RC".

# bench_shquote ARG...: each ARG single-quoted for a POSIX shell.
bench_shquote() {
	local a out=
	for a in "$@"; do out+="'${a//\'/\'\\\'\'}' "; done
	printf '%s' "${out% }"
}

# bench_kernel_args SPEC: vm/run's arguments, one a line, for a kernel
# given as a Debian kernel version (6.1, 6.12.115+deb12) or IMAGE or
# IMAGE:MODULES_DIR; nothing and the reason on stderr if it is neither.
bench_kernel_args() {
	local img=${1%%:*} mods=''
	[[ $1 == *:* ]] && mods=${1#*:}
	if [[ -f $img ]]; then
		[[ -z $mods || -d $mods ]] || { echo "no modules dir '$mods'" >&2; return 0; }
		printf '%s\n' --kernel "$img" ${mods:+--modules "$mods"}
	elif [[ $1 =~ ^[0-9]+\.[0-9]+([.+-][0-9a-z.+-]*)?$ ]]; then
		printf '%s\n' --debian-kernel "$1"
	else
		echo "kernel '$1' is neither an image file nor a Debian kernel version" >&2
	fi
}

# bench_check_cpu CPU ARCH: a usage error (die_usage) unless CPU, vm/run's
# --cpu, is empty, or amd or intel on x86_64.
bench_check_cpu() {
	case $1 in
	'') return 0 ;;
	amd|intel) ;;
	*) die_usage "bad --cpu '$1' (amd or intel)" ;;
	esac
	[[ $2 == x86_64 ]] || die_usage "--cpu $1 is for --arch x86_64 only"
}

# bench_arch_dir ARCH: build/ subdirectory name (x86_64, aarch64).
bench_arch_dir() { [[ $1 == arm64 ]] && echo aarch64 || echo x86_64; }

# bench_build SRC ARCH OUT: a static kselftest install of the suite in SRC
# for ARCH under OUT (OUT/kselftest_install); the log on failure.
# (build_suite: vm/build-deps.sh, which every caller sources)
bench_build() { build_suite "$1" "$2" "$3" "$3.build.log"; }

# bench_run_fn TEST TIMEOUT [PROFILE]: shell (POSIX sh, for the guest too)
# defining bench_run SIDE IDX WARM DIR ARGS...: runs ./TEST ARGS --json in
# DIR (files in $BENCH_TMP, default /tmp; PROFILE non-empty: --profile too,
# its samples in the JSON),
# killing it after TIMEOUT seconds (its kernel stacks shown), and prints
# the protocol.
bench_run_fn() {
	cat <<RUN
bench_run() {
  side=\$1 idx=\$2 warm=\$3; cd "\$4" || exit 1; shift 4
  bt=\${BENCH_TMP:-/tmp}
  rm -f "\$bt/bench.json"
  echo "CMP-START \$side \$idx \$warm"
  set -- "\$@" --json "\$bt/bench.json"${3:+ --profile "\$bt/profile.json"}
$(bench_guest_watch "$1" "$2" "\"\$bt/out\"")
  rc=\$?
  sed 's/^/CMP-OUT /' "\$bt/out"
  if [ \$rc = 0 ] && [ -s "\$bt/bench.json" ]; then
    echo CMP-JSON-BEGIN; cat "\$bt/bench.json"; echo; echo CMP-JSON-END
  fi
  echo "CMP-END \$side \$idx \$rc"
}
RUN
}

# bench_progress DONE TOTAL START: "i of N, elapsed, ~left".
bench_progress() {
	local el=$((SECONDS - $3)) left=
	(($1)) && left=", ~$(((el * ($2 - $1) / $1 + 30) / 60)) min left"
	printf '%d of %d, %d:%02d elapsed%s' "$1" "$2" $((el / 60)) $((el % 60)) "$left"
}

# bench_read_runs OUT TOTAL START NAME: file the protocol from stdin (see
# above), print progress on stderr as "NAME: ..." and every failed run's
# output; other lines go to OUT/console.log.
bench_read_runs() {
	local out=$1 total=$2 start=$3 name=$4 line side='' idx='' warm='' rc json='' log
	local n
	mkdir -p "$out/a" "$out/b" "$out/warmup" "$out/logs"
	n=0
	[[ ! -f $out/status ]] || n=$(wc -l <"$out/status")
	while IFS= read -r line; do
		case $line in
		"CMP-START "*)
			read -r _ side idx warm <<<"$line"
			log=$out/logs/$side-$idx.log
			: >"$log"
			;;
		"CMP-OUT "*) echo "${line#CMP-OUT }" >>"$log" ;;
		CMP-JSON-BEGIN)
			json=$out/$side/$idx.json
			[[ $warm == 1 ]] && json=$out/warmup/$side-$idx.json
			: >"$json"
			;;
		CMP-JSON-END) json= ;;
		"CMP-END "*)
			read -r _ side idx rc <<<"$line"
			n=$((n + 1))
			bench_run_done "$out" "$side" "$idx" "$rc" "$warm"
			echo "$name: run $(bench_progress "$n" "$total" "$start"):" \
				"${side^^} #$idx$([[ $warm == 1 ]] && echo ' (warm-up)')" \
				"$(bench_rc_text "$rc")" >&2
			;;
		*)
			if [[ -n $json ]]; then
				echo "$line" >>"$json"
			elif [[ -n $side && $line == HANG* ]]; then
				echo "$line" >>"$log"
			else
				echo "$line" >>"$out/console.log"
			fi
			;;
		esac
	done
}

bench_rc_text() {
	case $1 in
	0) echo ok ;;
	4) echo "SKIPPED (exit 4)" ;;
	137) echo "FAILED: hung, killed (exit 137)" ;;
	*) echo "FAILED (exit $1)" ;;
	esac
}

# bench_run_done OUT SIDE IDX RC WARM: record a run; a failed one's output
# goes to stderr.
bench_run_done() {
	local what=ok log=$1/logs/$2-$3.log
	[[ $4 == 0 && -s $1/$2/$3.json || $4 == 0 && $5 == 1 ]] || what=fail
	[[ $4 == 4 ]] && what=skip
	echo "$what $2 $3 $4" >>"$1/status"
	[[ $what == ok ]] && return 0
	{
		echo "---- ${2^^} run #$3: $(bench_rc_text "$4"); its output:"
		tail -40 "$log"
		echo "----"
	} >&2
}

# bench_count OUT WHAT [SIDE]: runs in OUT/status that were WHAT (ok,
# fail, skip), warm-ups included.
bench_count() {
	grep -c "^$2 ${3:-[ab]} " "$1/status" 2>/dev/null || true
}

# bench_clock_pick CLOCK CPU SMP: the clock of a bench run, CLOCK (--clock)
# if given: bochs with --cpu intel (Bochs' clock counts instructions;
# --clock is QEMU's), else tcg with --smp N > 1, else icount.  Prints it,
# or the reason and returns 1.
bench_clock_pick() {
	if [[ $2 == intel ]]; then
		[[ -z $1 ]] || { echo "--clock is QEMU's; --cpu intel runs Bochs, whose clock counts instructions"; return 1; }
		echo bochs
	elif [[ -n $1 ]]; then
		[[ $1 == icount || $1 == tcg ]] || { echo "bad --clock '$1' (icount or tcg)"; return 1; }
		echo "$1"
	elif [[ -n $3 && $3 != 1 ]]; then
		echo tcg
	else
		echo icount
	fi
}

# bench_clock CLOCK ARCH SMP: the VM's clock for bench runs.  icount (the
# default): TCG's clock counts instructions (-icount shift=3,sleep=off,
# about real time on this machine for x86_64, 1.8 times faster for arm64),
# its timings steady to about 1% run to run where the host's clock under
# TCG moves 100-1400% (docs/results/clocks.md); one vCPU (x86_64 hangs
# bringing up a second with -icount).  tcg: the host's clock; bochs
# (bench_clock_pick's for --cpu intel): no QEMU option.  Exports
# VMRUN_ICOUNT for vm/run; prints the reason and returns 1 on a conflict.
bench_clock() {
	case $1 in
	icount)
		(($3 == 1)) || { echo "--clock icount needs --smp 1 (give --clock tcg for more)"; return 1; }
		export VMRUN_ICOUNT=shift=3,sleep=off ;;
	tcg|bochs) unset VMRUN_ICOUNT ;;
	*) echo "bad --clock '$1' (icount or tcg)"; return 1 ;;
	esac
}
