# SPDX-License-Identifier: GPL-2.0-only
# shellcheck shell=sh
#
# bench/kvmbench/measure/perf.sh: bench/perf's runs, in bash on the host or the
# VM's busybox sh.  Defines functions only; kvmbench.measure.perf reads the
# protocol they print.
#
# perf_run N CMD ARGS...: echo "$ CMD ARGS --json FILE", run it (its output
# as it comes), then its JSON between PERF-JSON-BEGIN and PERF-JSON-END and
# "PERF-END N STATUS"; a failure's status is kept in perf_rc.
perf_run() {
  pr_n=$1
  shift
  pr_json=${TMPDIR:-/tmp}/bench-perf.$$.json
  rm -f "$pr_json"
  echo "PERF-START $pr_n"
  echo
  echo "\$ $* --json $pr_json"
  "$@" --json "$pr_json"
  pr_rc=$?
  [ $pr_rc = 0 ] || perf_rc=$pr_rc
  if [ -s "$pr_json" ]; then
    echo "PERF-JSON-BEGIN"
    cat "$pr_json"
    echo
    echo "PERF-JSON-END"
  fi
  rm -f "$pr_json"
  echo "PERF-END $pr_n $pr_rc"
}
# shellcheck disable=SC2034 # the status the script exits with
perf_rc=0
