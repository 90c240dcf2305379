# SPDX-License-Identifier: GPL-2.0-only
# shellcheck shell=bash
#
# bench/kvmbench/exec.sh: sourced by the wrappers bench/compare,
# bench/bisect-run, bench/perf and bench/table.
#
# kvmbench_exec MODULE FAIL_RC ARGS...: exec python3 -m kvmbench.MODULE ARGS,
# installing python3 first where it is missing (exit FAIL_RC if that fails).
kvmbench_exec() {
	local bench module=$1 fail=$2
	shift 2
	bench=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
	if ! command -v python3 >/dev/null; then
		# shellcheck source=vm/build-deps.sh
		. "$bench/../vm/build-deps.sh"
		ensure_packages python3 || exit "$fail"
	fi
	PYTHONPATH=$bench${PYTHONPATH:+:$PYTHONPATH} exec python3 -m "kvmbench.$module" "$@"
}
