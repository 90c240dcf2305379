# shellcheck shell=bash
# Bochs side of vm/run (--cpu intel): an emulated Intel CPU with VMX, EPT
# and VPID, so that the guest's kvm_intel runs.  Bochs cannot load a Linux
# kernel itself: the kernel and vm/run's initramfs go onto a GRUB rescue
# ISO that the Bochs BIOS boots from an emulated CD-ROM.  The serial port
# writes into vm/run's console FIFO.  Operations, as vm/qemu.sh has them:
#   bochs_boot_timeout   default seconds to reach guest init
#   bochs_command        fill EMU_CMD (and write the ISO and bochsrc)
#   bochs_stdout         where the emulator's stdout goes
#   bochs_stderr         filter for the emulator's stderr
# Sourced by vm/boot.sh.  What Bochs does not support, its host packages
# and its kernel (a bzImage) are vm/run's Python part's
# (bench/kvmbench/vm.py, initramfs.py); uses the globals (ARCH, SMP, MEM_MIB,
# KERNEL, WORK, VERBOSE) and info().

# A Bochs CPU model with VMX, EPT and VPID (also: corei7_skylake_x,
# corei7_icelake_u).
BOCHS_CPU_MODEL=${VMRUN_BOCHS_CPU:-corei7_haswell_4770}
# Instructions per emulated second.  With clock sync=none the guest's time
# is the instruction count divided by this, so timeouts and figures are in
# a steady emulated time; the value is about what this 2-core host
# emulates per wall second (docs/intel.md), so that emulated and wall
# time stay close.
BOCHS_IPS=${VMRUN_BOCHS_IPS:-40000000}

# Wall seconds: Bochs needs ~3 minutes of one host core to reach init,
# far more wall time on a loaded host (20 minutes gave it 2 at load 20).
bochs_boot_timeout() { echo 2400; }

# Write the ISO with GRUB, the kernel and the initramfs.
bochs_iso() {
	local iso=$WORK/iso append=$1 out
	mkdir -p "$iso/boot/grub"
	ln "$KERNEL" "$iso/boot/vmlinuz" 2>/dev/null || cp "$KERNEL" "$iso/boot/vmlinuz"
	# GRUB reads the initramfs through the BIOS, slowly: compress it
	# (zstd if the kernel's config says it can unpack that, else gzip).
	if grep -qs '^CONFIG_RD_ZSTD=y' "$(dirname "$KERNEL")"/config-* && command -v zstd >/dev/null; then
		zstd -q -3 -T0 --rm "$WORK/initrd.cpio" -o "$iso/boot/initrd"
	else
		gzip -1 <"$WORK/initrd.cpio" >"$iso/boot/initrd"
		rm -f "$WORK/initrd.cpio"
	fi
	# VMRUN-BOOT tells vm/console.sh's filter that the machine (re)booted.
	cat >"$iso/boot/grub/grub.cfg" <<EOF
serial --unit=0 --speed=115200
terminal_input serial
terminal_output serial
set timeout=0
echo VMRUN-BOOT
linux /boot/vmlinuz $append
initrd /boot/initrd
boot
EOF
	if ! out=$(grub-mkrescue -o "$WORK/boot.iso" --compress=no --fonts= --locales= --themes= \
		--install-modules="linux normal iso9660 biosdisk serial terminal echo" \
		"$iso" 2>&1); then
		printf '%s\n' "$out" >&2
		info "grub-mkrescue failed"
		exit 6
	fi
	rm -rf "$iso"
}

# Bochs holds at most 2G of guest memory in host memory (host=); beyond
# that it swaps blocks to a temporary file.
bochs_command() {
	local append="console=ttyS0 panic=-1 rdinit=/init no_timer_check"
	((VERBOSE)) || append+=" quiet loglevel=1"
	bochs_iso "$append"
	cat >"$WORK/bochsrc" <<EOF
memory: guest=$MEM_MIB, host=$((MEM_MIB < 2048 ? MEM_MIB : 2048))
cpu: model=$BOCHS_CPU_MODEL, count=$SMP, ips=$BOCHS_IPS, reset_on_triple_fault=1
romimage: file=/usr/share/bochs/BIOS-bochs-latest
vgaromimage: file=/usr/share/vgabios/vgabios.bin
ata0-master: type=cdrom, path="$WORK/boot.iso", status=inserted
boot: cdrom
com1: enabled=1, mode=file, dev="$WORK/console"
clock: sync=none, time0=local
display_library: rfb, options="timeout=0"
sound: waveoutdrv=dummy, waveindrv=dummy, midioutdrv=dummy
log: $WORK/bochs.log
panic: action=fatal
error: action=report
info: action=ignore
debug: action=ignore
EOF
	# The sound drivers are dummies: with ALSA and no sound card, Debian's
	# Bochs 2.7 aborts at start ("buffer overflow detected", seen on a
	# host without /dev/snd).
	# Debian's Bochs has its debugger built in: it starts at a prompt, so
	# tell it to continue, and to quit when the simulation stops.
	printf 'c\nq\n' >"$WORK/bochs.rc"
	# shellcheck disable=SC2034 # EMU_CMD: run by vm/run
	EMU_CMD=(bochs-bin -q -f "$WORK/bochsrc" -rc "$WORK/bochs.rc")
}

bochs_stdout() { echo /dev/null; }

# Bochs' own messages are in its log; show its stderr only with --verbose
# and, on a failure, the log's panics and errors.
bochs_stderr() {
	if ((VERBOSE)); then
		cat >&2
	else
		cat >/dev/null
	fi
}

# Bochs' panics (but its power-off, which it reports as one) when the VM
# died.
bochs_diagnose() {
	grep -E '^[0-9]+p\[' "$WORK/bochs.log" 2>/dev/null | grep -v 'soft power off' |
		tail -n 5 | sed 's/^/vm\/run: bochs: /' >&2
}
