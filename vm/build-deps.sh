# shellcheck shell=bash
# ensure_build_deps ARCH...: install what building the suite needs for each
# ARCH (x86_64, arm64) on Debian 12: compilers, libnuma, the kselftest
# framework (linux-source-6.1), the uapi headers and the second in-tree
# tree (linux-source-6.12) and rsync (lib.mk's install uses it).
# The word "clang" adds clang and its sanitizer and libFuzzer runtimes.
# As root it installs; otherwise it prints the command and fails.

build_deps_missing() {
	local arch
	local -a pkgs=(make gcc libc6-dev libnuma-dev linux-source-6.1
		linux-source-6.12 rsync xz-utils
		git cpio)
	for arch in "$@"; do
		[[ $arch == clang ]] && pkgs+=(clang libclang-rt-14-dev)
		[[ $arch == arm64 && $(uname -m) != aarch64 ]] || continue
		pkgs+=(gcc-aarch64-linux-gnu libc6-dev-arm64-cross libnuma-dev:arm64)
	done
	packages_missing "${pkgs[@]}"
}

ensure_build_deps() {
	local -a missing
	mapfile -t missing < <(build_deps_missing "$@")
	install_packages "${missing[@]}"
}

# build_suite SRC ARCH OUT LOG: a static build of the suite in SRC for ARCH
# (x86_64, arm64) under OUT, with its kselftest install tree in
# OUT/kselftest_install (what vm/run copies into the VM); make's output in
# LOG, its last lines on stderr if it fails.
build_suite() {
	make -s -C "$1" ARCH="$2" STATIC=1 O="$3" -j"$(nproc)" kselftest_install \
		>"$4" 2>&1 || { tail -30 "$4" >&2; return 1; }
}

# packages_missing PKG...: those of PKG not installed.
packages_missing() {
	local pkg
	for pkg in "$@"; do
		dpkg-query -W -f '${Status}\n' "$pkg" 2>/dev/null |
			grep -q '^install ok installed' || echo "$pkg"
	done
}

# ensure_packages PKG...: install those of PKG that are missing.
ensure_packages() {
	local -a missing
	mapfile -t missing < <(packages_missing "$@")
	install_packages "${missing[@]}"
}

install_packages() {
	(($#)) || return 0
	if ((EUID != 0)); then
		echo "missing packages; run: sudo dpkg --add-architecture arm64 &&" \
			"sudo apt-get update && sudo apt-get install -y $*" >&2
		return 1
	fi
	if [[ " $* " == *:arm64* ]] &&
		! dpkg --print-foreign-architectures | grep -qx arm64; then
		dpkg --add-architecture arm64
	fi
	echo "installing: $*" >&2
	# Another run's install may hold dpkg's lock (vm/suite's jobs start
	# together): wait for it rather than fail.
	apt-get -o DPkg::Lock::Timeout=600 update -qq >&2
	DEBIAN_FRONTEND=noninteractive apt-get -o DPkg::Lock::Timeout=600 install \
		-y -qq --no-install-recommends "$@" >&2
}
