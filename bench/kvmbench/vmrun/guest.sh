# SPDX-License-Identifier: GPL-2.0-only
# shellcheck shell=sh
#
# bench/kvmbench/vmrun/guest.sh: the runs' shell where they run in a VM (its
# busybox sh), for kvmbench.vmrun.runner and kvmbench.measure.tables' guest loops.
# Defines functions only.
#
# bench_watch TIMEOUT OUT PROG ARGS...: run PROG ARGS, its output to OUT;
# if it still runs after TIMEOUT seconds, print its threads' kernel stacks
# as HANG lines and kill it (status 137).  Its status.  The watchdog
# sleeps once rather than polling: under the instruction clock (--clock
# icount, one vCPU) every wakeup of a poller would count in the test's
# timings (a 0.1 s poll added 12% to some 20 ms passes).
bench_watch() {
  bw_t=$1 bw_o=$2 bw_p=$3
  shift 3
  "$bw_p" "$@" >"$bw_o" 2>&1 &
  bw_pid=$!
  (
    trap 'kill $bw_s 2>/dev/null; exit 0' TERM
    sleep "$bw_t" &
    bw_s=$!
    wait $bw_s
    if kill -0 $bw_pid 2>/dev/null; then
      echo "HANG $*"
      for bw_task in "/proc/$bw_pid/task/"*; do
        echo "HANG task $bw_task $(cat "$bw_task/comm") $(grep State "$bw_task/status") wchan=$(cat "$bw_task/wchan")"
        sed 's/^/HANG   /' "$bw_task/stack" 2>/dev/null | head -8
      done
      kill -9 $bw_pid
    fi
  ) &
  bw_wd=$!
  wait $bw_pid
  bw_st=$?
  kill $bw_wd 2>/dev/null
  wait $bw_wd
  return $bw_st
}

# bench_run SIDE IDX WARM DIR ARGS...: one run of ./$BENCH_TEST ARGS --json
# in DIR (--profile too if BENCH_PROFILE is set; files in $BENCH_TMP,
# default /tmp), killed after $BENCH_TIMEOUT seconds, reported in the
# protocol kvmbench.verdicts.results reads (CMP-START ... CMP-END SIDE IDX RC).
bench_run() {
  br_side=$1 br_idx=$2 br_warm=$3
  cd "$4" || exit 1
  shift 4
  br_tmp=${BENCH_TMP:-/tmp}
  rm -f "$br_tmp/bench.json"
  echo "CMP-START $br_side $br_idx $br_warm"
  set -- "$@" --json "$br_tmp/bench.json"
  [ -z "$BENCH_PROFILE" ] || set -- "$@" --profile "$br_tmp/profile.json"
  bench_watch "$BENCH_TIMEOUT" "$br_tmp/out" "./$BENCH_TEST" "$@"
  br_rc=$?
  sed 's/^/CMP-OUT /' "$br_tmp/out"
  if [ $br_rc = 0 ] && [ -s "$br_tmp/bench.json" ]; then
    echo CMP-JSON-BEGIN
    cat "$br_tmp/bench.json"
    echo
    echo CMP-JSON-END
  fi
  echo "CMP-END $br_side $br_idx $br_rc"
}
