#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
#
# unit/runner_test.sh: testcases/run.sh against a stand-in test
# (unit/runner/fake_test) and its cases (unit/runner/testcases): each status (pass, skip, fail, timeout, not
# run), bad input's text (first line of stderr, a skip failing it), a
# provoked failure's (any line, a skip a skip), --tag and --exclude-tag,
# -j 2 as -j 1, the closing counts and exit status, a used output
# directory refused.  Prints TAP; exits 1 if a check failed.
HERE=$(cd "$(dirname "$0")/runner" && pwd)
RUN="$HERE/../../testcases/run.sh -d $HERE/testcases -p $HERE"
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
N=0 FAILED=0

check() {
	N=$((N + 1))
	if [ "$2" = "$3" ]; then
		echo "ok $N $1"
	else
		FAILED=$((FAILED + 1))
		echo "not ok $N $1"
		printf '%s\n' "# got:" "$2" "# wanted:" "$3" | sed 's/^/#   /'
	fi
}

# results: the TAP result lines and the closing count, without times.
results() {
	grep -E '^(not )?ok |^# [0-9]+ passed|^1\.\.' | sed 's/ in [0-9]* s$//'
}

$RUN -t 5 -o "$TMP/one" >"$TMP/one.tap" 2>&1
check "exit status 1 with failures" "$?" 1
check "statuses, expectations and counts" "$(results <"$TMP/one.tap")" \
"ok 1 fake_test assert site # exit 1: injected fault (site)
ok 2 fake_test skip # SKIP no widget here
not ok 3 fake_test fail # exit 1
not ok 4 fake_test hang # TIMEOUT 1 s
ok 5 no_such_test pass # SKIP not run: no no_such_test here
ok 6 fake_test pass
ok 7 fake_test skip # SKIP no widget here
ok 8 fake_test usage x # exit 1: Invalid widget 'x'
not ok 9 fake_test usage z # exit 1, expected 1 and 'valid: a' first on stderr
not ok 10 fake_test skip # exit 4, expected 1 and 'Invalid widget' first on stderr
not ok 11 fake_test usage y # exit 1, expected 1 and 'Invalid widget 'x'' first on stderr
1..11
# 3 passed, 5 failed, 3 skipped"
check "a failure's stderr shown" "$(grep -c '^#   boom$' "$TMP/one.tap")" 1
check "a hung case's threads shown" "$(grep -c '^#   hung after 1s: ' "$TMP/one.tap")" 1
check "each case's output kept" "$(cat "$TMP/one/fake_test/pass/stdout")" "all good"

$RUN -j 2 -t 5 -o "$TMP/two" >"$TMP/two.tap" 2>&1
check "-j 2 as -j 1" "$(results <"$TMP/two.tap")" "$(results <"$TMP/one.tap")"

$RUN --tag quick --exclude-tag slow -o "$TMP/tags" >"$TMP/tags.tap" 2>&1
check "--tag, --exclude-tag" "$(grep -c '^ok\|^not ok' "$TMP/tags.tap")" 4
$RUN -o "$TMP/skips" skip assert_skip >/dev/null 2>&1
check "missing test named: usage" "$?" 2
$RUN -o "$TMP/skips" "$HERE/testcases/fake_test/skip.test" \
	"$HERE/testcases/fake_test/assert_skip.test" >"$TMP/skips.tap" 2>&1
check "all skipped: exit 4" "$?" 4
$RUN -o "$TMP/one" pass >/dev/null 2>&1
check "a used output directory refused" "$?" 2

echo "1..$N"
[ $FAILED -eq 0 ]
