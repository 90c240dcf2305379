# SPDX-License-Identifier: GPL-2.0-only
"""kvmbench.measure.tables: bench/table NAME, the perf tests' tables.

Each table runs a loop of one or more perf tests (in one VM boot of
vm/run, or on this host's /dev/kvm), keeps the lines they print (--raw
FILE) and prints one table of medians with the spread [min-max]
(stats.median_min_max); a target's met/MISSED is stats.target's.  The
common parts: the option parser (cli.Parser), the build
(runner.build), the guest's watchdog (guest.sh's bench_watch), the boot
(vm_run) and the RESULT lines read into key=value dicts (records), in
tables/common.py; the tables in tables/paging.py (demand_paging,
upstream), dirty.py (dirty_log, splitting), notify.py (eventfd),
nesting.py (nested), noise.py (spread), two_kernels.py (paths); here:
each table's help and the command.

  demand_paging  userfaultfd MISSING rates against reader threads, epoll
                 against poll(), beside the host-only rate; the targets
  dirty_log      populate, get/clear against memslots, bitmap against ring
  eventfd        the notification path against vCPU/host-thread pairs
  nested         the perf tests nested (-n) against not nested
  paths          bench/paths.list's headline figures on two kernels
                 (bench/compare, its compare.json read back)
  splitting      eager against lazy page splitting
  spread         how far one boot's timings move from run to run
  upstream       this suite's demand_paging_test beside upstream's
"""
import sys

from kvmbench.base.errors import Fail
from kvmbench.vmrun.cli import Parser, Usage
from . import dirty, nesting, noise, notify, paging, two_kernels
from .common import PROG


HELP = {
    'demand_paging': """\
Demand paging rates with userfaultfd MISSING faults, 4 vCPUs, 1..32 reader
threads, epoll (EPOLLEXCLUSIVE) against poll() wake-ups, each KVM rate
beside the host-only rate of the same pages (-H), in one table.  Boots the
x86_64 VM once (vm/run --smp 4) and loops inside it.  Emulated timings are
noisy, so every cell is the median of --runs runs, with the spread
(min-max); the configurations take turns, so drift hits all.  Beside each
reader count: the per-vCPU KVM stats (exits, pf_taken) of the epoll runs.
Ends with the targets (stats.target): epoll at 16 and 32 readers at least
0.9x its 1-reader rate; at 1 reader epoll no slower than poll.""",
    'dirty_log': """\
What dirty logging costs, from dirty_log_perf_test, in three tables:
  1. populate time with the start barrier on and off (-B), 1/4/16 vCPUs;
  2. get and clear of the dirty log against the memslot count (1/2/4/8)
     at fixed memory, with manual protect and without (-g: get only);
  3. the dirty bitmap against the dirty ring (-R) at 1 and 4 vCPUs.
Boots the x86_64 VM once (vm/run --smp 4) and loops inside it.  Every cell
is the median of --runs runs with the spread [min-max]; configurations take
turns, so drift hits all alike.  Every run also checked each pass's dirty
log against the pages written.""",
    'eventfd': """\
How KVM's notification path (ioeventfd doorbell, host thread, irqfd
interrupt, HLT/WFI wake-up) scales with the number of vCPU/host-thread
pairs, in each way host threads wait (read, epoll, an EPOLLEXCLUSIVE pool,
a poll() pool), beside the same ping-pong between plain host threads (-H):
eventfd_perf_test's total rate (event/s summed over the pairs), median of
--runs runs with the spread [min-max].  Beside each pair count: KVM's vCPU
stats per round trip of the read runs (exits, halt wake-ups, microseconds
halted).  Configurations take turns; a warm-up run goes first.  --where
host runs on this machine's /dev/kvm, --where vm in the x86_64 VM (vm/run
--smp 4).""",
    'nested': """\
The perf tests with their vCPUs nested (-n: L1 runs the page walks in L2
under NPT, every fault and write-protection through KVM's nested MMU)
against not nested, side by side: populate, dirty pass, get and clear of
the dirty log, and the demand paging rate (KVM alone and -u MISSING), with
the nested/not-nested ratio, and the KVM stats (RESULT_STATS, summed over
the vCPUs) that explain it.  Boots the x86_64 VM once (vm/run --smp 4;
emulated SVM, or with --cpu intel Bochs' VMX) and loops inside it; the two
modes take turns.  Cells: median [min-max] of --runs.""",
    'paths': """\
The headline figures of the memory-path tests on two kernels, side by
side.  Reads bench/paths.list (its format is at its top: NAME | COMMAND |
KEY[,KEY...]) and runs each line (or only --only NAME's) with bench/compare
--kernels A,B --arch ARCH, then prints one row a headline figure from its
compare.json: its median on each kernel, B/A with its interval, and the
verdict.  Exit status: 0 every line compared; 1 a line failed (its compare
output is shown); 2 usage or a bad line in the list; 4 every line
skipped.""",
    'splitting': """\
Eager against lazy page splitting when dirty logging starts, from
dirty_log_page_splitting_test.  For each splitting (eager, lazy) and
protect mode (get: KVM_GET_DIRTY_LOG re-arms; manual: manual protect,
initially set), the time of the step that write-protects and, eagerly,
splits (enabling logging; with manual protect the first clear) and of the
first dirty pass after it, which with lazy splitting takes the splits as
write faults; enabling and disabling too.  Every run also checked the
mappings against what its splitting implies.  Boots one VM (vm/run, TCG)
and loops inside it; every cell is the median of --runs runs with the
spread [min-max], in ms.""",
    'spread': """\
How far the same command's timings move from run to run in one boot:
populate and the second dirty pass of dirty_log_perf_test -i 2, and the
rate of demand_paging_test -u MISSING, each run --runs times after one
dropped warm-up, in one x86_64 VM (vm/run; --cpu intel: Bochs, whose clock
counts instructions; default: QEMU TCG, whose clock is the host's).
Cells: median, [min-max], the spread (max-min)/median and the coefficient
of variation sd/mean.""",
    'upstream': """\
This suite's demand_paging_test beside upstream's own (built elsewhere),
on the same command lines, on this host's /dev/kvm, in one run: "Total
guest execution time" of each (median [min-max] of --runs runs, the two
programs taking turns) and what KVM did for it, from KVM's tracepoints
(perf stat, median): guest instructions KVM emulated and guest page-table
walks it made.  Needs root and perf.""",
}

TABLES = {
    'demand_paging': (paging.dp_args, paging.dp_check, paging.demand_paging),
    'dirty_log': (dirty.dl_args, dirty.dl_check, dirty.dirty_log),
    'eventfd': (notify.ev_args, notify.ev_check, notify.eventfd),
    'nested': (nesting.nested_args, nesting.nested_check, nesting.nested),
    'paths': (two_kernels.paths_args, two_kernels.paths_check,
              two_kernels.paths),
    'splitting': (dirty.split_args, dirty.split_check, dirty.splitting),
    'spread': (noise.spread_args, noise.spread_check, noise.spread_),
    'upstream': (paging.up_args, paging.up_check, paging.upstream),
}

USAGE = ('usage: bench/table NAME [OPTIONS]   (bench/table NAME -h: its options)\n\n'
         'The perf tests\' tables, NAME one of:\n\n' +
         ''.join('  %-14s %s\n' % (n, t[2].__doc__) for n, t in TABLES.items()))


def parser(name):
    p = Parser(prog='%s %s' % (PROG, name), description=HELP[name])
    TABLES[name][0](p)
    return p


def parse(argv):
    """(the table's function, its options); Usage on a bad command line."""
    if not argv:
        raise Usage('no table named (bench/table -h lists them)')
    if argv[0] not in TABLES:
        raise Usage("no table '%s' (one of %s)" % (argv[0], ', '.join(TABLES)))
    a = parser(argv[0]).parse_args(argv[1:])
    TABLES[argv[0]][1](a)
    return TABLES[argv[0]][2], a


def main(argv):
    if argv[:1] in (['-h'], ['--help']):
        print(USAGE, end='')
        return 0
    try:
        run, a = parse(argv)
        out = run(a)
    except Fail as e:
        if str(e):
            name = ' ' + argv[0] if argv and argv[0] in TABLES else ''
            print('%s%s: %s' % (PROG, name, e), file=sys.stderr)
        return e.status
    if out:
        print('\n'.join(out))
    return 0
