# shellcheck shell=bash
# The emulator-neutral side of vm/run: the console filter that turns the
# guest's marker lines (vm/init) into vm/run's messages and exit status.
# Every emulator (vm/qemu.sh, vm/bochs.sh) feeds its serial console into
# it.  Sourced by vm/boot.sh; uses its globals (WORK, VERBOSE, TIMING,
# BOOT_TIMEOUT) and info().

# Seconds since EPOCHREALTIME value $1, with one decimal.
elapsed() {
	local now=${EPOCHREALTIME/,/.}
	awk -v a="$1" -v b="$now" 'BEGIN { printf "%.1f", b - a }'
}

# Read the console on stdin: show the guest's output, hide boot chatter,
# turn marker lines into messages and record the outcome in $WORK/outcome.
# $1: pid of the emulator (timeout) process, stopped if the boot hangs or
# the machine resets (a second VMRUN-BOOT: printed by the boot loader of an
# emulator that cannot refuse to reboot, as Bochs after a kernel panic).
filter_console() {
	local qpid=$1 line started=0 status='' nokvm=0 t0=${EPOCHREALTIME/,/.} left r boots=0
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
		*VMRUN-BOOT*)
			((++boots == 1)) && continue
			info "the machine reset (kernel panic or triple fault; try --verbose)"
			kill -TERM "$qpid" 2>/dev/null
			break
			;;
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
