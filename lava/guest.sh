#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
#
# lava/guest.sh: the suite inside a LAVA job (lava/kvm-selftests.yaml runs
# it in the test shell), reporting each result with lava-test-case.
#
#   guest.sh fetch URL     a kselftest tarball (KernelCI's kselftest.tar.xz,
#                          or this suite's install tree tarred) into $TESTS
#   guest.sh list          the kselftest list: a test case a test
#   guest.sh tables [RE]   the cases (testcases/run.sh; RE: grep -E on their
#                          tests' names): a test case a case, case.COMMAND
#   guest.sh perf NAME TEST ARGS...
#                          one perf run (TEST ARGS --json): test case NAME,
#                          then each figure of its RESULT lines as NAME.FIGURE
#                          (NAME.rN.FIGURE for its Nth guest mode past the
#                          first) with --measurement and the JSON's --units;
#                          the KVM stats that count as NAME.stat.SCOPE.STAT
#
# The tests are in $TESTS (default /tests: the ramdisk vm/run --export
# made, or a fetched tarball).  Without lava-test-case on PATH (by hand)
# each result is printed as "LAVA-CASE NAME RESULT [VALUE UNIT]".
# POSIX sh (busybox).  Exits 0; a failed test is a failed test case.

TESTS=${TESTS:-/tests}
KVM=$TESTS/kvm
[ -d "$KVM" ] || KVM=$TESTS

# case NAME RESULT [VALUE UNIT]: one test case to LAVA.
case_() {
	n=$(printf '%s' "$1" | tr -c 'A-Za-z0-9_.-' '_' | cut -c1-120)
	if command -v lava-test-case >/dev/null 2>&1; then
		if [ $# -ge 4 ]; then
			lava-test-case "$n" --result "$2" --measurement "$3" --units "$4"
		else
			lava-test-case "$n" --result "$2"
		fi
	else
		shift
		echo "LAVA-CASE $n $*"
	fi
}

# tap PREFIX: TAP on stdin (printed) to test cases PREFIX.DESCRIPTION
# (PREFIX empty: the description's last word, a kselftest list's test).
tap() {
	while IFS= read -r l; do
		printf '%s\n' "$l"
		case "$l" in
		"ok "[0-9]* | "not ok "[0-9]*) ;;
		*) continue ;;
		esac
		res=pass
		case "$l" in
		"not ok"*) res=fail ;;
		*"# SKIP"*) res=skip ;;
		esac
		d=${l#ok }
		d=${d#not ok }
		d=${d#* }
		d=${d%% \# *}
		if [ -z "$1" ]; then
			d=${d##* }
		else
			d="$1.$d"
		fi
		case_ "$d" "$res"
	done
}

list() {
	if [ -r /etc/vmrun/conf ] && [ -x /init ]; then
		/init --list
	elif [ -x "$TESTS/run_kselftest.sh" ]; then
		(cd "$TESTS" && ./run_kselftest.sh -c kvm)
	else
		echo "not ok 1 selftests: kvm: run # no kselftest runner in $TESTS"
	fi | tap ''
}

tables() {
	[ -x "$KVM/testcases/run.sh" ] || return 0
	# shellcheck disable=SC2046 # test names: one word each
	set -- $(cd "$KVM/testcases" && for d in */; do
		[ -z "$1" ] || printf '%s\n' "${d%/}" | grep -Eq -- "$1" || continue
		echo "${d%/}"
	done)
	[ $# -gt 0 ] || return 0
	(cd "$KVM" && ./testcases/run.sh "$@") | tap case
}

# figures JSON: "run FIGURE VALUE UNIT" a figure, "stat SCOPE.NAME DELTA
# UNIT" a counting KVM stat, of a perf test's --json (json_writer's layout:
# one member a line).
figures() {
	awk '
	function key(s) { sub(/^[ \t]*"/, "", s); sub(/".*/, "", s); return s }
	function val(s) { sub(/^[^:]*:[ \t]*/, "", s); sub(/,[ \t]*$/, "", s); gsub(/"/, "", s); return s }
	{
		line = $0
		if (line ~ /[{[][ \t]*$/) {
			k = (line ~ /^[ \t]*"/) ? key(line) : "[]"
			if (k == "[]" && path[d] == "runs") run++
			path[++d] = k
			next
		}
		if (line ~ /^[ \t]*[]}],?[ \t]*$/) { d--; next }
		k = key(line); v = val(line)
		if (path[d - 2] == "[]" && path[d - 1] == "figures") {
			if (k == "value") fv = v
			if (k == "unit") print (run > 1 ? "r" run "." : "") path[d], fv, v
		}
		if (path[d - 2] == "stats") {
			if (k == "delta") sd = v
			if (k == "type") st = v
			if (k == "unit" && st ~ /^(cumulative|linear_hist|log_hist)$/)
				print (run > 1 ? "r" run "." : "") "stat." path[d - 1] "." path[d], sd, v
		}
	}' "$1"
}

perf() {
	name=$1
	shift
	[ $# -ge 1 ] || { case_ "$name" fail; return; }
	t=$1
	shift
	j=/tmp/guest-perf.json
	rm -f "$j"
	(cd "$KVM" && "./$t" "$@" --json "$j" </dev/null)
	rc=$?
	case $rc in
	0) res=pass ;;
	4) res=skip ;;
	*) res=fail ;;
	esac
	case_ "$name" "$res"
	[ "$rc" = 0 ] && [ -s "$j" ] || return 0
	figures "$j" | while read -r f v u; do
		case_ "$name.$f" pass "$v" "$u"
	done
}

fetch() {
	mkdir -p "$TESTS"
	case "$1" in
	*.xz) z=-J ;;
	*.gz) z=-z ;;
	*) z= ;;
	esac
	# shellcheck disable=SC2086 # no option for an uncompressed tarball
	wget -q -O - "$1" | tar -x $z -C "$TESTS" ||
		{ case_ fetch-kselftest fail; return 1; }
	[ -d "$TESTS/kvm" ] || { case_ fetch-kselftest fail; return 1; }
	case_ fetch-kselftest pass
}

cmd=$1
[ $# -eq 0 ] || shift
case "$cmd" in
fetch) fetch "$@" ;;
list) list ;;
tables) tables "${1:-}" ;;
perf) perf "$@" ;;
*)
	echo "usage: guest.sh fetch URL | list | tables [RE] | perf NAME TEST ARGS..." >&2
	exit 2
	;;
esac
exit 0
