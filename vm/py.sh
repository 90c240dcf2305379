# shellcheck shell=bash
# Shell scripts' way into bench/kvmbench (Python): kvmbench_py runs one of
# its modules; tap_result prints kselftest TAP through kvmbench.base.tap.

# kvmbench_py MODULE ARGS...: python3 -m kvmbench.MODULE ARGS with bench/
# on PYTHONPATH (python3 installed first where it is missing).
kvmbench_py() {
	local bench
	bench="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)/bench"
	command -v python3 >/dev/null || bootstrap_python3 || return 1
	PYTHONPATH="$bench${PYTHONPATH:+:$PYTHONPATH}" python3 -m "kvmbench.$1" "${@:2}"
}

# bootstrap_python3: install python3 with apt-get (as root; otherwise
# print the command and fail), as kvmbench.kernels.build.install does the rest
# (it needs python3): apt's output in the cache's logs/apt.log, apt's
# locks waited for (apt-get update retried while another holds the
# lists lock), --no-upgrade.
bootstrap_python3() {
	local log=${XDG_CACHE_HOME:-$HOME/.cache}/kvm-selftests/logs/apt.log t=0
	if ((EUID != 0)); then
		echo "missing packages; run: sudo apt-get update && sudo apt-get install -y python3" >&2
		return 1
	fi
	mkdir -p "${log%/*}"
	echo "installing python3 (the bench tools are Python; apt-get install --no-install-recommends --no-upgrade; log: $log)" >&2
	until apt-get -o DPkg::Lock::Timeout=600 update -q >>"$log" 2>&1; do
		((t < 300)) && tail -n 3 "$log" | grep -q 'Could not get lock' || return 1
		sleep 2
		t=$((t + 2))
	done
	DEBIAN_FRONTEND=noninteractive apt-get -o DPkg::Lock::Timeout=600 install -y -q \
		--no-install-recommends --no-upgrade python3 >>"$log" 2>&1
}

# tap_result STATUS NAME [WHY]: the next TAP result (TAP_NUM counts them,
# TAP_FAILED is 1 after a failure); STATUS ok, skip, fail or an exit
# status (0 ok, 4 skip, else fail).
TAP_NUM=0 TAP_FAILED=0
tap_result() {
	TAP_NUM=$((TAP_NUM + 1))
	# shellcheck disable=SC2034 # read by the scripts that source this
	kvmbench_py base.tap "$TAP_NUM" "$@" || TAP_FAILED=1
}

# tap_plan: the plan line of the results printed so far.
tap_plan() { echo "1..$TAP_NUM"; }

# tap_line STATUS NAME [WHY]: one unnumbered result line (vm/suite's
# summaries); false if STATUS is a failure.
tap_line() { kvmbench_py base.tap - "$@"; }
