# shellcheck shell=bash
# QEMU side of vm/run (--cpu amd, and arm64): TCG with emulated SVM or
# ARM virtualization, or the host's KVM.  The operations vm/run calls
# (vm/bochs.sh has the same set; the option checks, the host packages and
# the kernel are vm/run's Python part's, bench/kvmbench/vm.py):
#   qemu_boot_timeout    default seconds to reach guest init
#   qemu_command         fill EMU_CMD; the serial console is its stdout
#   qemu_stdout          where its stdout goes: the console FIFO
#   qemu_stderr          filter for its stderr
#   qemu_diagnose        more lines to show when the VM died
# Sourced by vm/boot.sh; uses its globals (ARCH, ACCEL, SMP, MEM_MIB, NUMA,
# KERNEL, WORK, VERBOSE) and info().

qemu_boot_timeout() { echo 300; }
qemu_stdout() { echo "$WORK/console"; }
qemu_diagnose() { :; }

# One TCG thread (VMRUN_TCG_THREAD=multi for more): with multi-threaded
# TCG, nested SVM guests froze after dozens of test runs in a boot (soft
# lockup on every vCPU at once), single-threaded ran 540 runs clean and
# no slower on 2 host cores; arm64 guests running KVM guests froze whole
# too (the demand-paging cases, twice, on 6.12), so both arches take one.
tcg_accel() {
	echo "tcg,thread=${VMRUN_TCG_THREAD:-single}"
}

# VMRUN_ICOUNT=OPTS (e.g. shift=3,sleep=off): TCG's clock counts
# instructions (-icount), steady run to run (docs/results/clocks.md);
# x86_64 boots with it only with one vCPU (--smp 1: AP bring-up hangs);
# arm64 boots with more (20 s to init at --smp 2, once).
icount_args() {
	[[ -z ${VMRUN_ICOUNT:-} || $ACCEL == kvm ]] || echo "-icount $VMRUN_ICOUNT"
}

# Fill EMU_CMD for the chosen arch/accel/resources.
qemu_command() {
	local console append i first last per cpus
	if [[ $ARCH == x86_64 ]]; then
		console=ttyS0
		EMU_CMD=(qemu-system-x86_64 -M q35)
		if [[ $ACCEL == kvm ]]; then
			EMU_CMD+=(-accel kvm -cpu host)
		else
			EMU_CMD+=(-accel "$(tcg_accel)" -cpu "EPYC,+svm")
		fi
	else
		console=ttyAMA0
		EMU_CMD=(qemu-system-aarch64 -M "virt,virtualization=on,gic-version=3")
		if [[ $ACCEL == kvm ]]; then
			EMU_CMD+=(-accel kvm -cpu host)
		else
			EMU_CMD+=(-accel "$(tcg_accel)" -cpu "max,pauth-impdef=on")
		fi
	fi
	# shellcheck disable=SC2207  # two words: -icount OPTS
	EMU_CMD+=($(icount_args))
	EMU_CMD+=(-smp "$SMP" -m "${MEM_MIB}M" -nodefaults -no-user-config -no-reboot
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
			EMU_CMD+=(-object "memory-backend-ram,id=mem$i,size=${per}M"
				-numa "node,nodeid=$i,cpus=$cpus,memdev=mem$i")
		done
	fi
	append="console=$console panic=-1 rdinit=/init"
	# Under slow TCG on a loaded host, x86's boot-time check of the timer
	# interrupt can fail and panic ("IO-APIC + timer doesn't work!").
	[[ $ARCH != x86_64 ]] || append+=" no_timer_check"
	((VERBOSE)) || append+=" quiet loglevel=1"
	EMU_CMD+=(-append "$append")
}

# QEMU's stderr, minus TCG's per-CPU "unsupported feature" warnings.
qemu_stderr() {
	if ((VERBOSE)); then
		cat >&2
	else
		grep --line-buffered -v "TCG doesn't support requested feature" >&2 || true
	fi
}
