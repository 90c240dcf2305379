# shellcheck shell=bash
# QEMU side of vm/run: the command line and the console filter.
# Sourced by vm/run; uses its globals (ARCH, ACCEL, SMP, MEM_MIB, NUMA,
# KERNEL, WORK, VERBOSE) and info().

# One TCG thread (VMRUN_TCG_THREAD=multi for more): with multi-threaded
# TCG, nested SVM guests froze after dozens of test runs in a boot (soft
# lockup on every vCPU at once), single-threaded ran 540 runs clean and
# no slower on 2 host cores; arm64 guests running KVM guests froze whole
# too (demand_paging_cases.sh, twice, on 6.12), so both arches take one.
tcg_accel() {
	echo "tcg,thread=${VMRUN_TCG_THREAD:-single}"
}

# VMRUN_ICOUNT=OPTS (e.g. shift=3,sleep=off): TCG's clock counts
# instructions (-icount), steady run to run (docs/results/clocks.md);
# x86_64 boots with it only with one vCPU (--smp 1: AP bring-up hangs).
icount_args() {
	[[ -z ${VMRUN_ICOUNT:-} || $ACCEL == kvm ]] || echo "-icount $VMRUN_ICOUNT"
}

# Fill QEMU_CMD for the chosen arch/accel/resources.
qemu_command() {
	local console append i first last per cpus
	if [[ $ARCH == x86_64 ]]; then
		console=ttyS0
		QEMU_CMD=(qemu-system-x86_64 -M q35)
		if [[ $ACCEL == kvm ]]; then
			QEMU_CMD+=(-accel kvm -cpu host)
		else
			QEMU_CMD+=(-accel "$(tcg_accel)" -cpu "EPYC,+svm")
		fi
	else
		console=ttyAMA0
		QEMU_CMD=(qemu-system-aarch64 -M "virt,virtualization=on,gic-version=3")
		if [[ $ACCEL == kvm ]]; then
			QEMU_CMD+=(-accel kvm -cpu host)
		else
			QEMU_CMD+=(-accel "$(tcg_accel)" -cpu "max,pauth-impdef=on")
		fi
	fi
	# shellcheck disable=SC2207  # two words: -icount OPTS
	QEMU_CMD+=($(icount_args))
	QEMU_CMD+=(-smp "$SMP" -m "${MEM_MIB}M" -nodefaults -no-user-config -no-reboot
		-display none -monitor none -serial stdio
		-kernel "$KERNEL" -initrd "$WORK/initrd.cpio")
	if ((NUMA > 1)); then
		per=$((MEM_MIB / NUMA))
		for ((i = 0; i < NUMA; i++)); do
			first=$((i * SMP / NUMA))
			last=$(((i + 1) * SMP / NUMA - 1))
			cpus=$first
			((last > first)) && cpus="$first-$last"
			((i == NUMA - 1)) && per=$((MEM_MIB - per * (NUMA - 1)))
			QEMU_CMD+=(-object "memory-backend-ram,id=mem$i,size=${per}M"
				-numa "node,nodeid=$i,cpus=$cpus,memdev=mem$i")
		done
	fi
	append="console=$console panic=-1 rdinit=/init"
	# Under slow TCG on a loaded host, x86's boot-time check of the timer
	# interrupt can fail and panic ("IO-APIC + timer doesn't work!").
	[[ $ARCH != x86_64 ]] || append+=" no_timer_check"
	((VERBOSE)) || append+=" quiet loglevel=1"
	QEMU_CMD+=(-append "$append")
}

# QEMU's stderr, minus TCG's per-CPU "unsupported feature" warnings.
qemu_stderr() {
	if ((VERBOSE)); then
		cat >&2
	else
		grep --line-buffered -v "TCG doesn't support requested feature" >&2 || true
	fi
}

# Seconds since EPOCHREALTIME value $1, with one decimal.
elapsed() {
	local now=${EPOCHREALTIME/,/.}
	awk -v a="$1" -v b="$now" 'BEGIN { printf "%.1f", b - a }'
}

# Read the console on stdin: show the guest's output, hide boot chatter,
# turn marker lines into messages and record the outcome in $WORK/outcome.
# $1: pid of the QEMU (timeout) process, stopped if the boot hangs.
filter_console() {
	local qpid=$1 line started=0 status='' nokvm=0 t0=${EPOCHREALTIME/,/.} left r
	local -a ring=()
	SECONDS=0
	while :; do
		line=''
		if ((started)); then
			IFS= read -r line || [[ -n $line ]] || break
		else
			# A guest that never reaches init (bad kernel, hang) is stopped
			# after BOOT_TIMEOUT seconds.
			left=$((BOOT_TIMEOUT - SECONDS))
			r=0
			if ((left <= 0)); then
				r=142
			else
				IFS= read -r -t "$left" line || r=$?
			fi
			if ((r > 128)); then
				echo boothang >"$WORK/outcome"
				kill -TERM "$qpid" 2>/dev/null
				[[ -z $line ]] || ring+=("$line")
				((${#ring[@]} == 0)) || printf 'vm/run: console: %s\n' "${ring[@]}" >&2
				return 0
			fi
			((r == 0)) || [[ -n $line ]] || break
		fi
		line=${line//$'\r'/}
		[[ -n $status ]] && continue # poweroff chatter
		case "$line" in
		*VMRUN-START*)
			started=1
			((TIMING)) && info "guest init started after $(elapsed "$t0") s"
			;;
		*"VMRUN-EXIT: "*)
			status=${line##*VMRUN-EXIT: }
			status=${status%%[!0-9]*}
			((TIMING)) && info "guest finished after $(elapsed "$t0") s"
			;;
		*"VMRUN-TIME: "*)
			((TIMING)) && info "${line#*VMRUN-TIME: } (wall $(elapsed "$t0") s)"
			;;
		*"VMRUN-WARN: "*) info "warning: ${line#*VMRUN-WARN: }" ;;
		*"VMRUN-NOKVM: "*)
			nokvm=1
			info "guest: ${line#*VMRUN-NOKVM: }"
			;;
		*)
			if ((started || VERBOSE)); then
				printf '%s\n' "$line"
			else
				ring+=("$line")
				((${#ring[@]} <= 60)) || ring=("${ring[@]:1}")
			fi
			;;
		esac
	done
	if ((nokvm)); then
		echo nokvm >"$WORK/outcome"
	elif [[ -n $status ]]; then
		echo "exit $status" >"$WORK/outcome"
	else
		((started || ${#ring[@]} == 0)) || printf 'vm/run: console: %s\n' "${ring[@]}" >&2
		echo died >"$WORK/outcome"
	fi
}
