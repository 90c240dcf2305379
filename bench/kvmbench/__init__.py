# SPDX-License-Identifier: GPL-2.0-only
"""kvmbench: the bench scripts' Python (3.11: the standard library, and
Debian's python3-matplotlib and python3-psycopg2 where a command needs
them, installed by that command).

Run as python3 -m kvmbench.PACKAGE.MODULE with bench/ on PYTHONPATH: the
thin shell entry points do that (bench/compare, bench/bisect-run,
bench/perf, bench/table, bench/track, bench/attribute, bench/config-bisect
and vm/run through exec.sh; vm/kvm-build, lava/lab, vm/suite --lava);
bench/stats.py runs verdicts/stats_cli.py.  One subpackage a concern,
lowest layer first (each __init__.py says what it owns and may import;
docs/design.md's package table is the rule, checked by
checks/docs_check.py: imports go down it, never up, and never in a
circle):

  base         errors (a one-line message, an exit status), tap (TAP)
  verdicts     stats, changepoint, results, render, stats_cli, cover
  kernels      debian (Debian's kernels), build (the suite's), fetch
  vmrun        vm and boot (vm/run), initramfs, runner (host or VM), cli
  kbuild       kvm_build (vm/kvm-build), kvm_tree, kvm_config
  labs         lava (REST API), lab (lava/lab), lavajobs, lavasuite
  attribution  bisect (bench/bisect-run), kvm_bisect, config_bisect,
               attribute_cli, ddmin and mail (bench/attribute), attribute
  tracking     track (bench/track), trackplan, trackdb, trackjudge,
               tracklava, trackreport, track_checks
  measure      compare (bench/compare), kvm_sides, lavacompare, perf
               (bench/perf), tables/ (bench/table NAME)
  checks       docs_check, docs_check_code, py_layers

A new kind of setup for bench/compare (two sides it compares) is a mode
in compare.parse() and describe(); a new place for runs (another machine,
a lab) is a backend in runner with a run(runs, results) method, chosen
in compare.Compare.setup(); runs that already happened elsewhere only
need their JSON files in Results' a/ and b/.  Tested by bench/test_stats.py
(stats), bench/test_tables.py (tables), bench/test_track.py (bench/track)
and bench/test_*.py (the rest, one file an area), all run by
bench/verdict_tests.sh.
"""
