# shellcheck shell=bash
# The suite's build and its Debian packages, for shell callers: thin
# wrappers of bench/kvmbench/kernels/build.py (python3 -m kvmbench.kernels.build), where
# the package lists, the make command and the arch names live.

# shellcheck source=vm/py.sh
. "$(dirname "${BASH_SOURCE[0]}")/py.sh"

# kvmbench_build ARGS...: python3 -m kvmbench.kernels.build ARGS.
kvmbench_build() { kvmbench_py kernels.build "$@"; }

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
