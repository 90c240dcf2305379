# shellcheck shell=bash
# The suite's build and its Debian packages, for shell callers: thin
# wrappers of bench/kvmbench/build.py (python3 -m kvmbench.build), where
# the package lists, the make command and the arch names live.

# kvmbench_build ARGS...: python3 -m kvmbench.build ARGS (python3
# installed first where it is missing).
kvmbench_build() {
	command -v python3 >/dev/null || bootstrap_python3 || return 1
	PYTHONPATH="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)/bench${PYTHONPATH:+:$PYTHONPATH}" \
		python3 -m kvmbench.build "$@"
}

# ensure_build_deps ARCH|clang...: install what building the suite for
# each ARCH (x86_64, arm64; "clang": clang and its runtimes) needs; as
# root it installs, otherwise it prints the command and fails.
ensure_build_deps() { kvmbench_build deps "$@"; }

# build_suite SRC ARCH OUT LOG: a static build of the suite in SRC for ARCH
# under OUT, its kselftest install tree in OUT/kselftest_install; make's
# output in LOG, its last lines on stderr if it fails.
build_suite() { kvmbench_build suite "$@"; }

# packages_missing PKG...: those of PKG not installed, one a line.
packages_missing() { kvmbench_build missing "$@"; }

# ensure_packages PKG... / install_packages PKG...: install those of PKG
# that are missing.
ensure_packages() { kvmbench_build packages "$@"; }
install_packages() { (($# == 0)) || kvmbench_build packages "$@"; }

# bootstrap_python3: install python3 with apt-get (as root; otherwise
# print the command and fail).
bootstrap_python3() {
	if ((EUID != 0)); then
		echo "missing packages; run: sudo apt-get update && sudo apt-get install -y python3" >&2
		return 1
	fi
	echo "installing: python3" >&2
	apt-get -o DPkg::Lock::Timeout=600 update -qq >&2 &&
		DEBIAN_FRONTEND=noninteractive apt-get -o DPkg::Lock::Timeout=600 install \
			-y -qq --no-install-recommends python3 >&2
}
