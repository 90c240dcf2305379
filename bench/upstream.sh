#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# bench/upstream.sh: this suite's demand_paging_test beside upstream's own
# (built elsewhere, e.g. by /work/shared/tools/upstream-6.12), on the same
# command lines, on this host's /dev/kvm, in one run: "Total guest
# execution time" of each (median [min-max] of --runs runs, the two
# programs taking turns) and what KVM did for it, from KVM's tracepoints
# (perf stat, median): guest instructions KVM emulated and guest
# page-table walks it made.  Needs root and perf.
#
# usage: bench/upstream.sh --upstream DIR [--runs N] [--rows "ARGS;ARGS..."]
#                          [--test demand_paging_test|dirty_log_perf_test]
#                          [--raw FILE]
set -euo pipefail

REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
RUNS=3 UPSTREAM='' RAW='' TEST=demand_paging_test
ROWS="-u MISSING -v 1 -b 64M;-v 1 -b 64M;-u MINOR -s shmem -v 4 -b 64M;-s shmem -v 4 -o -b 64M;-u MINOR -s shmem -v 4 -o -r 1 -b 64M"
EVENTS=kvm:kvm_emulate_insn,kvmmmu:kvm_mmu_pagetable_walk

usage() { sed -n '3,14p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//'; }

# shellcheck source=bench/lib.sh
. "$REPO/bench/lib.sh"
bench_parse_args bench/upstream.sh "upstream=UPSTREAM runs=RUNS rows=ROWS test=TEST raw=RAW" "$@"
[[ -x $UPSTREAM/$TEST ]] || { echo "bench/upstream.sh: no $UPSTREAM/$TEST (--upstream DIR)" >&2; exit 2; }
[[ $TEST == demand_paging_test || $TEST == dirty_log_perf_test ]] ||
	{ echo "bench/upstream.sh: bad --test '$TEST'" >&2; exit 2; }
command -v perf >/dev/null || { echo "bench/upstream.sh: needs perf (apt-get install linux-perf)" >&2; exit 2; }

make -s -C "$REPO" STATIC=1 O="$REPO/build/x86_64" -j2 >/dev/null 2>&1 ||
	{ echo "bench/upstream.sh: build failed" >&2; exit 1; }
OURS=$REPO/build/x86_64/$TEST
raw=${RAW:-$(mktemp)}
[[ -n $RAW ]] || trap 'rm -f "$raw" "$raw.stat"' EXIT
: >"$raw"

# one WHO ROW ARGS...: run once under perf stat; one line into $raw:
# "WHO ROW seconds emulated walks" (the figure a maintainer reads).
one() {
	local who=$1 row=$2 bin out s e w
	shift 2
	bin=$OURS
	[[ $who == upstream ]] && bin=$UPSTREAM/$TEST
	out=$(perf stat -x, -e "$EVENTS" -o "$raw.stat" -- "$bin" "$@" 2>&1) ||
		{ echo "$who $row failed" >>"$raw"; return; }
	if [[ $TEST == demand_paging_test ]]; then
		s=$(sed -n 's/^Total guest execution time:[[:space:]]*\([0-9.]*\)s.*/\1/p' <<<"$out")
	else
		s=$(sed -n 's/^Populate memory time:[[:space:]]*\([0-9.]*\)s.*/\1/p' <<<"$out")
	fi
	e=$(awk -F, '$3 == "kvm:kvm_emulate_insn" { print $1 }' "$raw.stat")
	w=$(awk -F, '$3 == "kvmmmu:kvm_mmu_pagetable_walk" { print $1 }' "$raw.stat")
	echo "$who $row ${s:-0} ${e:-0} ${w:-0}" >>"$raw"
}

IFS=';' read -r -a rows <<<"$ROWS"
for ((rep = 0; rep < RUNS; rep++)); do
	for i in "${!rows[@]}"; do
		read -r -a args <<<"${rows[$i]}"
		one upstream "$i" "${args[@]}"
		one ours "$i" "${args[@]}"
	done
done

# col WHO ROW N: "median min max" of column N over the runs.
col() {
	awk -v w="$1" -v r="$2" -v n="$3" '$1 == w && $2 == r && NF == 5 { print $n }' "$raw" |
		bench_spread
}

what="Total guest execution time"
[[ $TEST == dirty_log_perf_test ]] && what="Populate memory time"
echo "$TEST, this host's /dev/kvm, median of $RUNS runs [min-max]: $what (s);"
echo "KVM's work (perf stat, median): guest instructions emulated, guest page-table walks"
printf '| %-38s | %-20s | %-20s | %-5s | %-21s | %-21s |\n' "command" "upstream (s)" \
	"this suite (s)" ratio "emulated up / ours" "walks up / ours"
for i in "${!rows[@]}"; do
	read -r um ul uh < <(col upstream "$i" 3)
	read -r om ol oh < <(col ours "$i" 3)
	ue=$(col upstream "$i" 4 | cut -d' ' -f1)
	oe=$(col ours "$i" 4 | cut -d' ' -f1)
	uw=$(col upstream "$i" 5 | cut -d' ' -f1)
	ow=$(col ours "$i" 5 | cut -d' ' -f1)
	printf '| %-38s | %5.2f [%5.2f-%5.2f] | %5.2f [%5.2f-%5.2f] | %5.2f | %9.0f / %9.0f | %9.0f / %9.0f |\n' \
		"${rows[$i]}" "$um" "$ul" "$uh" "$om" "$ol" "$oh" \
		"$(echo "if ($om > 0) $um / $om else 0" | bc -l)" "$ue" "$oe" "$uw" "$ow"
done
if grep -q ' failed$' "$raw"; then
	echo "failed runs (left out):" >&2
	grep ' failed$' "$raw" >&2
fi
