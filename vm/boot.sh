#!/bin/bash
# vm/boot.sh: the boot half of vm/run, run by its Python half
# (bench/kvmbench/vm.py) with its settings as NAME=VALUE words (the host
# tools, the kernel and the initramfs in WORK are ready: kvmbench.fetch, kvmbench.initramfs): run
# QEMU (vm/qemu.sh) or Bochs (vm/bochs.sh) and turn its console into
# vm/run's output and exit status (vm/console.sh).  Not a user command:
# run vm/run.
set -euo pipefail

VM_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=vm/console.sh
. "$VM_DIR/console.sh"
# shellcheck source=vm/qemu.sh
. "$VM_DIR/qemu.sh"
# shellcheck source=vm/bochs.sh
. "$VM_DIR/bochs.sh"

info() { echo "vm/run: $*" >&2; }
die() {
	info "$*"
	exit 2
}

# --export: the boot's pieces for a LAVA job, then exit.
export_boot() {
	mkdir -p "$EXPORT" || die "cannot create '$EXPORT'"
	cp "$KERNEL" "$EXPORT/kernel"
	gzip -1 -c "$WORK/initrd.cpio" >"$EXPORT/initrd.cpio.gz"
	VERBOSE=1 qemu_command	# LAVA waits for the "Linux version" banner
	local i
	for ((i = 0; i < ${#EMU_CMD[@]}; i++)); do
		[[ ${EMU_CMD[i]} != -append ]] || echo "${EMU_CMD[i + 1]}" >"$EXPORT/cmdline"
	done
	exit 0
}

# On exit: stop the emulator if it still runs (timeout passes the signal on), and
# remove the work dir.
# shellcheck disable=SC2317  # called from the EXIT trap
cleanup() {
	if [[ -n ${QPID:-} ]]; then
		kill -TERM "$QPID" 2>/dev/null || true
		wait "$QPID" 2>/dev/null || true
	fi
	rm -rf "${WORK:-}"
}

# The settings vm/run's Python part settled: NAME=VALUE words.
read_settings() {
	local kv
	for kv in "$@"; do
		case "$kv" in
		ARCH=* | CPU=* | EMU=* | KERNEL=* | SMP=* | MEM_MIB=* | NUMA=* | TIMEOUT=* | ACCEL=* | \
			VERBOSE=* | EXPORT=* | T_START=* | WORK=*)
			printf -v "${kv%%=*}" '%s' "${kv#*=}"
			;;
		*) die "vm/boot.sh: unknown setting '$kv' (run vm/run)" ;;
		esac
	done
}

main() {
	read_settings "$@"
	TIMING=${VMRUN_TIMING:-$VERBOSE}
	BOOT_TIMEOUT=${VMRUN_BOOT_TIMEOUT:-$("${EMU}_boot_timeout")}
	QPID=''
	trap cleanup EXIT
	trap 'exit 130' INT
	trap 'exit 143' TERM
	trap 'exit 129' HUP
	[[ -z $EXPORT ]] || export_boot
	((TIMING)) && info "initramfs ready after $(elapsed "$T_START") s"
	mkfifo "$WORK/console"
	"${EMU}_command"
	((VERBOSE)) && info "cpu=${CPU:-default} accel=$ACCEL kernel=$KERNEL" && info "${EMU_CMD[*]}"
	((TIMING)) && info "$EMU ready after $(elapsed "$T_START") s"
	local rc outcome fpid fd
	set +e
	# The emulator and the filter run in the background, connected by a
	# FIFO (QEMU's stdout, Bochs' serial port file), so that the INT/TERM
	# traps run at once and can stop the emulator (via timeout).
	timeout --foreground -k 10 "$TIMEOUT" "${EMU_CMD[@]}" </dev/null \
		>"$("${EMU}_stdout")" 2> >("${EMU}_stderr") &
	QPID=$!
	filter_console "$QPID" <"$WORK/console" &
	fpid=$!
	wait "$QPID"
	rc=$?
	QPID=''
	# An emulator that died before opening the FIFO leaves the filter
	# blocked in open(): a read-write open never blocks and releases it.
	exec {fd}<>"$WORK/console"
	exec {fd}>&-
	wait "$fpid"
	set -e
	outcome=$(cat "$WORK/outcome" 2>/dev/null || echo died)
	if [[ $outcome == boothang ]]; then
		info "guest init did not start within $BOOT_TIMEOUT s (hung boot; try --verbose)"
		exit 3
	fi
	if ((rc == 124 || rc == 137)); then
		info "whole-VM timeout: killed after $TIMEOUT s (--timeout)"
		exit 124
	fi
	case "$outcome" in
	"exit "*) exit "${outcome#exit }" ;;
	nokvm)
		info "/dev/kvm missing in the guest"
		exit 5
		;;
	*)
		"${EMU}_diagnose"
		info "VM died without reporting a status (kernel panic or $EMU error; $EMU exit $rc; try --verbose)"
		exit 3
		;;
	esac
}

main "$@"
