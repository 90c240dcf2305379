# shellcheck shell=bash
# The Debian package cache and the kernels vm/run boots, for shell callers
# (vm/kvm-build's bench/kvmbench/kernels/debian.py, bench/verdict_tests.sh): thin
# wrappers of bench/kvmbench/kernels/fetch.py.  Expects info() (the messages'
# prefix) and kvmbench_py() (vm/py.sh, sourced by vm/build-deps.sh).

# The package cache and the kernels are kvmbench.kernels.debian's (Python, through
# kvmbench.kernels.fetch's command line); these wrappers keep the shell's names.
# Its messages take the prefix info() prints (vm/run:, vm/kvm-build:); a
# failure exits as die/die_env would (2, 6) from the caller's subshell.
fetch_py() {
	local prog=vm/run
	! declare -F info >/dev/null || prog=$(info '' 2>&1)
	kvmbench_py kernels.fetch --prog "${prog%: }" "$@"
}

# ensure_dpkg_arch DEB_ARCH: apt configured to download DEB_ARCH packages.
ensure_dpkg_arch() { fetch_py ensure-dpkg-arch "$1" || exit; }

# fetch_deb PKG DEST: Debian package PKG (name[:arch][=version]) unpacked
# into DEST, once.
fetch_deb() { fetch_py fetch-deb "$1" "$2" >/dev/null || exit; }

# stock_kernel_dir ARCH: the cached stock kernel package's directory.
stock_kernel_dir() { fetch_py stock-kernel-dir "$1" || exit; }

# debian_kernel_dir VERSION ARCH: linux-image-VERSION-<arch>'s directory (a
# series such as 6.12: its newest), fetched once.
debian_kernel_dir() { fetch_py debian-kernel-dir "$1" "$2" || exit; }

# pvh_vmlinux BZIMAGE: its uncompressed vmlinux (QEMU boots it through PVH),
# extracted once beside it; BZIMAGE if it cannot be.
pvh_vmlinux() { fetch_py pvh-vmlinux "$1" || exit; }
