# SPDX-License-Identifier: GPL-2.0-only
"""kvmbench: the bench scripts' Python (3.11: the standard library, and
Debian's python3-matplotlib and python3-psycopg2 where a command needs
them, installed by that command).

Run as python3 -m kvmbench.NAME with bench/ on PYTHONPATH: the thin shell
entry points do that (bench/compare, bench/bisect-run, bench/perf and
bench/table through exec.sh, vm/kvm-build, lava/lab); bench/stats.py
runs stats_cli.py.  The layers, each usable alone:

  stats      the statistics on plain lists: summaries, the exact
             Hodges-Lehmann / Mann-Whitney interval, verdicts, --until's
             looks (docs/statistics.md)
  results    what runs leave: the perf tests' JSON files read into figures
             (load_side, baseline_values), and Results, the output
             directory runs are filed into as they end (a VM's console
             protocol included)
  render     what is printed: the verdict table, VERDICT/PROFILE lines, the
             plot, Table (Markdown or plain text, for documents and mails)
  runner     where runs happen: Run (side, index, warm-up, arguments) and
             the backends that run a list of them and file each: Host (a
             subprocess a run, killed on timeout) and VM (one vm/run boot,
             the kernel a side names; guest.sh is its shell,
             guest_sh() the one builder of it: runner, track, tables); the VM's
             clock and the host's shell helper (vm/host-kvm.sh)
  build      the suite's build, the one place for it: arch names and
             build/ directories, the build's Debian packages and the one
             installer of host packages (install, apt_get: apt's locks
             waited for, its output in the cache's logs/apt.log), the static
             kselftest install (build_suite, ensure_tree), vm/run's
             options for a kernel (kernel_args); vm/build-deps.sh wraps it
             for shell scripts
  tap        the one TAP writer (Tap, line; tap() for a unittest module;
             shell scripts through vm/py.sh's tap_result)
  debian     Debian's kernels, the one place for them: arch names, the
             cache, the forms of a kernel's name and their order (dpkg's),
             series and upstream versions, the versions apt has, packages
             fetched once into the cache, a kernel's headers and sources;
             it imports only errors, everything else asks it
  fetch      the kernels vm/run boots: kernel images, PVH vmlinux (the
             Debian packages they come from are debian's)
  initramfs  what vm/run puts in the guest: busybox, the tests, KVM's
             modules in load order, /etc/vmrun/conf; the host's tools
  vm         vm/run's options, checks, default build, accelerator,
             kernel and initramfs, then the boot; run_args() (and
             script_args() for a guest shell) builds every vm/run command
             Python runs (runner, track, perf, tables, lavajobs), parse()
             reads it back
  boot       vm/run's boot: the emulator (a table of operations per
             emulator: QEMU, Bochs), the console filter, the timeouts,
             the exit status, no emulator left behind
  compare    bench/compare: options, the order A B B A ..., batches a look
             of --until within --budget, the report
  bisect     bench/bisect-run: one kernel judged against a baseline, or
             `git bisect run` over a list of kernels
  perf       bench/perf, the main job: the perf tests once each, their
             output as it comes, the summary table, --json (perf.sh is
             its runs' shell)
  tables     bench/table NAME: the perf tests' tables (demand_paging,
             dirty_log, eventfd, nested, paths, splitting, spread,
             upstream), each a loop of runs and one table of medians; a
             package: common (what they share), one module a table or a
             pair (paging, dirty, notify, nesting, noise, two_kernels)
  kvm_build  vm/kvm-build: KVM's modules built from a source tree or
             patches for a Debian kernel (kvm_tree, debian); whole
             kernels with the small or Debian's config (kvm_config)
  config_bisect  bench/config-bisect: the Kconfig options between two
             configs that carry a step (bisect(), for bench/attribute too)
  attribute_cli, ddmin
             bench/attribute (docs/attribute.md): the hunk between two
             kernel trees that carries a step, by delta debugging (ddmin)
             over the built files then their hunks, with the proof both
             ways and a report in the kernel test robot's shape
  lava*, lab LAVA: its REST API (lava), jobs (lavajobs), vm/suite --lava
             (lavasuite), bench/compare --lava and --jobs (lavacompare),
             a local lab (lab, lava/lab)
  track*, changepoint, attribute
             bench/track (docs/track.md): a stream of kernels measured
             (track), every run in a database (trackdb), neighbour
             verdicts and change points (trackjudge, changepoint: E-Divisive
             means), Debian's changelogs and sources (attribute), the
             HTML and Markdown report (trackreport)
  cli, errors  the option parser (Parser: argparse, a usage error one
             line) and the argparse types of numbers and sizes (number,
             positive, size) the programs share, their main() (program),
             the one rule for the folders they write (check_out, make_out),
             SIGINT/SIGTERM/SIGHUP ending their children (on_signals,
             interrupted); the errors they end with (a one-line message and
             an exit status)
  stats_cli  bench/stats.py's subcommands (compare, judge, until, spread,
             schedule, median)

A new kind of setup for bench/compare (two sides it compares) is a mode
in compare.parse() and describe(); a new place for runs (another machine,
a lab) is a backend in runner with a run(runs, results) method, chosen
in compare.Compare.setup(); runs that already happened elsewhere only
need their JSON files in Results' a/ and b/.  Tested by bench/test_stats.py
(stats), bench/test_tables.py (tables), bench/test_track.py (bench/track)
and bench/test_*.py (the rest, one file an area), all run by
bench/verdict_tests.sh.
"""
