# shellcheck shell=bash
# SPDX-License-Identifier: GPL-2.0-only
#
# vm/host-kvm.sh: sourced by scripts that choose between this host's own
# /dev/kvm and a VM (bench/perf, bench/compare, vm/suite).
#
#   host_kvm_runs_guests TESTDIR   true if this host's /dev/kvm runs the
#       suite's guests: decided by running a tiny guest, TESTDIR's
#       guest_print_test (a static or host build of this suite), never by
#       the KVM module's name; else false with the reason in HOST_KVM_WHY.
#   kvm_describe                   one line naming the KVM that this
#       kernel offers: kernel release, arch, vendor module.  Plain POSIX
#       sh, so that `declare -f kvm_describe` also runs in the VM's busybox.

# shellcheck disable=SC2034 # HOST_KVM_WHY: read by the caller
host_kvm_runs_guests() {
	local test=$1/guest_print_test out rc=0
	HOST_KVM_WHY=
	if [[ ! -c /dev/kvm ]]; then
		HOST_KVM_WHY="no /dev/kvm"
	elif [[ ! -r /dev/kvm || ! -w /dev/kvm ]]; then
		HOST_KVM_WHY="/dev/kvm not accessible"
	elif [[ ! -x $test ]]; then
		HOST_KVM_WHY="no $test to probe with"
	else
		out=$(cd "$1" && timeout 60 ./guest_print_test 2>&1 </dev/null) || rc=$?
		((rc == 0)) && return 0
		HOST_KVM_WHY="guest_print_test on /dev/kvm exited $rc: $(grep -m1 -E 'SKIP|not ok|Assert|error' <<<"$out" || true)"
	fi
	return 1
}

kvm_describe() {
	local m mods=
	for m in /sys/module/kvm_*; do
		[ -d "$m" ] && mods="$mods, ${m##*/}"
	done
	if [ -z "$mods" ] && [ -d /sys/module/kvm ]; then
		mods=", kvm"
		grep -qs '^kvm ' /proc/modules || mods="$mods (built in)"
	fi
	mods=${mods:-, none}
	echo "kernel $(uname -r), $(uname -m), module ${mods#, }"
}
