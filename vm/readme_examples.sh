#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# vm/readme_examples.sh: run the examples of README.md and docs/*.md as
# written, from the top of the repo (or of a fresh clone of it, --clone),
# printing kselftest TAP: one result a command.
#
# An example block is a fenced code block right after a comment line
#   <!-- examples: quick -->             each line runs (a trailing "  # ..."
#                                        is a comment; "\" continues a line)
#   <!-- examples: slow: REASON -->      each line is listed as a skip, REASON
# A command exiting 0 passes, 4 is a skip, anything else fails (its output's
# tail is shown).  A command that runs a test binary on this host
# (build/...) is a skip where this host's /dev/kvm does not run the suite's
# guests.  Untagged blocks (usage, your own kernel tree) are not run.
# Exit status: 0 every example passed or skipped, 1 one failed, 2 usage.
#
# usage: vm/readme_examples.sh [--clone] [--list] [--logs DIR] [--timeout S] [FILE.md...]
#   --clone      run in a fresh clone of this repo (its own builds included)
#   --list       print the examples and their tags, run nothing
#   --logs DIR   each command's output (default build/logs/examples)
#   --timeout S  kill a command after S seconds (default 900), a failure
set -euo pipefail

VM_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
REPO=$(dirname "$VM_DIR")
# shellcheck source=vm/host-kvm.sh
. "$VM_DIR/host-kvm.sh"
# shellcheck source=vm/py.sh
. "$VM_DIR/py.sh"

usage() { sed -n '18,22p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//'; }
die_usage() { echo "vm/readme_examples.sh: $*" >&2; usage >&2; exit 2; }

CLONE='' LIST='' LOGS=$REPO/build/logs/examples TMO=900 FILES=()
while (($#)); do
	case $1 in
	--clone) CLONE=1; shift ;;
	--list) LIST=1; shift ;;
	--logs) (($# >= 2)) || die_usage "--logs needs a value"; LOGS=$2; shift 2 ;;
	--timeout) (($# >= 2)) || die_usage "--timeout needs a value"; TMO=$2; shift 2 ;;
	-h|--help) usage; exit 0 ;;
	-*) die_usage "unknown option '$1'" ;;
	*) [[ -f $1 ]] || die_usage "no file '$1'"; FILES+=("$(cd "$(dirname "$1")" && pwd)/${1##*/}"); shift ;;
	esac
done
[[ $TMO =~ ^[1-9][0-9]*$ ]] || die_usage "bad --timeout '$TMO'"
((${#FILES[@]})) || FILES=("$REPO/README.md" "$REPO"/docs/*.md)

# examples FILE: "quick<TAB>CMD" or "slow: REASON<TAB>CMD", one an example.
examples() {
	awk '
	/^<!-- examples: .* -->$/ { tag = $0; sub(/^<!-- examples: /, "", tag); sub(/ -->$/, "", tag); next }
	/^```/ {
		if (inblock) { inblock = 0; tag = ""; next }
		if (tag != "") inblock = 1
		next
	}
	inblock {
		line = cont $0
		if (line ~ /\\$/) { sub(/\\$/, "", line); cont = line; next }
		cont = ""
		sub(/[ \t][ \t]+#.*$/, "", line)
		gsub(/[ \t]+/, " ", line); sub(/^ /, "", line); sub(/ $/, "", line)
		if (line != "") print tag "\t" line
	}' "$1"
}

mapfile -t ALL < <(for f in "${FILES[@]}"; do
	examples "$f" | sed "s|^|${f#"$REPO"/}\t|"
done)
if [[ -n $LIST ]]; then
	printf '%s\n' "${ALL[@]}"
	exit 0
fi

TOP=$REPO
if [[ -n $CLONE ]]; then
	TOP=$(mktemp -d "${TMPDIR:-/tmp}/readme-examples.XXXXXX")
	trap 'rm -rf "$TOP"' EXIT
	git clone -q "$REPO" "$TOP"
	echo "# in a fresh clone: $TOP" >&2
fi
mkdir -p "$LOGS"
HOST_OK=''
echo "TAP version 13"
for ex in "${ALL[@]}"; do
	n=$((TAP_NUM + 1))
	IFS=$'\t' read -r file tag cmd <<<"$ex"
	name="$file: $cmd"
	if [[ $tag == slow* ]]; then
		tap_result skip "$name" "too slow for CI (${tag#slow: })"
		continue
	fi
	if [[ $cmd == build/* ]]; then
		if [[ -z $HOST_OK ]]; then
			HOST_OK=no
			host_kvm_runs_guests "$TOP/build/x86_64/kselftest_install/kvm" && HOST_OK=yes
		fi
		if [[ $HOST_OK == no ]]; then
			tap_result skip "$name" "this host's /dev/kvm does not run the suite's guests: $HOST_KVM_WHY"
			continue
		fi
	fi
	log=$LOGS/$n.log
	start=$SECONDS
	rc=0
	(cd "$TOP" && timeout -k 10 "$TMO" bash -c "$cmd") </dev/null >"$log" 2>&1 || rc=$?
	case $rc in
	0) why="$((SECONDS - start)) s" ;;
	4) why="exit 4 $(grep -m1 -i skip "$log" | cut -c1-100)" ;;
	*)
		tail -20 "$log" | sed 's/^/# /'
		why="exit $rc after $((SECONDS - start)) s (log: $log)"
		;;
	esac
	tap_result "$rc" "$name" "$why"
done
tap_plan
((TAP_FAILED == 0))
