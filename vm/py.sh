# shellcheck shell=bash
# Shell scripts' way into bench/kvmbench (Python): kvmbench_py runs one of
# its modules; tap_result prints kselftest TAP through kvmbench.tap.

# kvmbench_py MODULE ARGS...: python3 -m kvmbench.MODULE ARGS with bench/
# on PYTHONPATH (python3 installed first where it is missing).
kvmbench_py() {
	local bench
	bench="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)/bench"
	command -v python3 >/dev/null || bootstrap_python3 || return 1
	PYTHONPATH="$bench${PYTHONPATH:+:$PYTHONPATH}" python3 -m "kvmbench.$1" "${@:2}"
}

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

# tap_result STATUS NAME [WHY]: the next TAP result (TAP_NUM counts them,
# TAP_FAILED is 1 after a failure); STATUS ok, skip, fail or an exit
# status (0 ok, 4 skip, else fail).
TAP_NUM=0 TAP_FAILED=0
tap_result() {
	TAP_NUM=$((TAP_NUM + 1))
	# shellcheck disable=SC2034 # read by the scripts that source this
	kvmbench_py tap "$TAP_NUM" "$@" || TAP_FAILED=1
}

# tap_plan: the plan line of the results printed so far.
tap_plan() { echo "1..$TAP_NUM"; }

# tap_line STATUS NAME [WHY]: one unnumbered result line (vm/suite's
# summaries); false if STATUS is a failure.
tap_line() { kvmbench_py tap - "$@"; }
