# SPDX-License-Identifier: GPL-2.0-only
"""bench/compare --lava URL: A's and B's runs as LAVA jobs (lava/qemu-ARCH.yaml,
one boot a job: a warm-up run, dropped, and --per-job measured runs of one
side), submitted interleaved (A B B A ...) so the lab spreads them over its
devices; the figures come back as LAVA measurements and are judged by
bench/stats.py as a local run's.  --jobs A_IDS B_IDS judges jobs already
run (each a job of lava/kvm-selftests.yaml's perf step).  Every job's
definition, log and results are kept under --out."""

import argparse
import json
import os
import re
import subprocess
import sys
import time

from kvmbench.kernels import debian
from kvmbench.labs import lava, lavajobs
from kvmbench.vmrun import cli

PROG = 'bench/compare'
STATS = os.path.join(lavajobs.REPO, 'bench', 'stats.py')


def ids(text):
    try:
        out = [int(x) for x in text.split(',') if x]
    except ValueError:
        out = []
    if not out or any(i <= 0 for i in out):
        raise argparse.ArgumentTypeError("bad job ids '%s' (e.g. 41,43,44)" % text)
    return out


def parse(argv):
    ap = argparse.ArgumentParser(prog='bench/compare --lava', description=__doc__)
    ap.add_argument('--lava', required=True, help='LAVA server URL, or local (lava/lab)')
    ap.add_argument('--token', help="API token (default $LAVA_TOKEN; local: the lab's)")
    g = ap.add_mutually_exclusive_group(required=True)
    g.add_argument('--options', nargs=2, metavar=('A', 'B'))
    g.add_argument('--kernels', help='A,B: Debian versions or IMAGE[:MODULES]')
    g.add_argument('--builds', help='A,B: kselftest install trees')
    g.add_argument('--jobs', nargs=2, type=ids, metavar=('A_IDS', 'B_IDS'),
                   help='judge these finished jobs (comma-separated ids a side)')
    ap.add_argument('--runs', type=int, default=10, help='measured runs a side')
    ap.add_argument('--per-job', type=int, default=2, help='measured runs a job (one boot)')
    ap.add_argument('--arch', default=os.uname().machine.replace('aarch64', 'arm64'))
    ap.add_argument('--smp', type=int)
    ap.add_argument('--mem', default='2G')
    ap.add_argument('--hugepages', type=int, default=0)
    ap.add_argument('--clock', choices=('icount', 'tcg'))
    ap.add_argument('--level', type=float, default=95)
    ap.add_argument('--figures')
    ap.add_argument('--out')
    ap.add_argument('--artifacts', help='DIR=URL: where a remote lab fetches the boot pieces')
    ap.add_argument('--timeout', type=int, default=60, help='minutes a job may take')
    ap.add_argument('cmd', nargs='*', help='-- TEST ARGS...')
    a = ap.parse_args(argv)
    if a.arch not in ('x86_64', 'arm64'):
        ap.error("unknown arch '%s' (x86_64 or arm64)" % a.arch)
    if a.runs < 1 or a.per_job < 1 or a.hugepages < 0 or a.timeout < 1:
        ap.error('--runs, --per-job and --timeout must be positive')
    if not 0 < a.level < 100:
        ap.error("bad --level '%g'" % a.level)
    try:
        cli.size("bad --mem '{0}'")(a.mem)
    except cli.Usage as e:
        ap.error(str(e))
    if a.artifacts and '=' not in a.artifacts:
        ap.error('--artifacts takes DIR=URL')
    if not a.jobs:
        if not a.cmd:
            ap.error('no test command after --')
        if not re.match(r'^[a-z0-9_/]+$', a.cmd[0].lstrip('./')):
            ap.error("bad test name '%s'" % a.cmd[0])
        for spec in (a.kernels, a.builds):
            if spec is not None and (spec.count(',') != 1 or '' in spec.split(',')):
                ap.error("two values, A,B: '%s'" % spec)
    a.clock = a.clock or 'icount'
    if a.clock == 'icount' and a.smp not in (None, 1):
        a.clock = 'tcg'
    a.smp = a.smp or (1 if a.clock == 'icount' else 2)
    return a


def sides(a):
    """[(label, kernel, tree, extra options)] of A and B."""
    if a.kernels:
        ka, kb = a.kernels.split(',')
        return [('kernel ' + ka, ka, None, []), ('kernel ' + kb, kb, None, [])]
    if a.builds:
        ba, bb = a.builds.split(',')
        for b in (ba, bb):
            if not os.path.isfile(os.path.join(b, 'kselftest-list.txt')):
                raise lavajobs.JobSetupError("build '%s' is no kselftest install tree" % b)
        return [('build ' + ba, '6.1', ba, []), ('build ' + bb, '6.1', bb, [])]
    oa, ob = a.options
    return [("options '%s'" % oa, '6.1', None, oa.split()),
            ("options '%s'" % ob, '6.1', None, ob.split())]


def schedule(njobs):
    """Sides of 2*njobs jobs, A B B A A B ..."""
    out = []
    for i in range(njobs):
        out += ['a', 'b'] if i % 2 == 0 else ['b', 'a']
    return out


def submit_runs(a, api, out):
    """Submit the jobs; [(id, side, [run names])], definitions."""
    test, args = a.cmd[0].lstrip('./'), a.cmd[1:]
    sd = sides(a)
    boots = {}
    icount = 'shift=3,sleep=off' if a.clock == 'icount' else None
    jobs, defs = [], {}
    per = {'a': 0, 'b': 0}
    njobs = (a.runs + a.per_job - 1) // a.per_job
    for k, s in enumerate(schedule(njobs)):
        label, kernel, tree, opts = sd[0 if s == 'a' else 1]
        key = (kernel, tree)
        if key not in boots:
            t = tree or lavajobs.ensure_tree(a.arch, os.path.join(out, 'logs'))
            b = lavajobs.export_boot(a.arch, kernel, t, os.path.join(out, 'boot-%d' % len(boots)),
                                     a.hugepages, a.mem)
            boots[key] = (b, lavajobs.publish(api, b, a.artifacts))
        boot, urls = boots[key]
        runs = [('warm', test, args + opts)]
        names = []
        for _ in range(a.per_job):
            names.append('%s%02d' % (s, per[s]))
            runs.append((names[-1], test, args + opts))
            per[s] += 1
        y = lavajobs.perf_job('kvm-selftests compare %s %d: %s' % (s.upper(), k, label), a.arch,
                              boot, urls, runs, mem=a.mem, smp=a.smp, icount=icount,
                              minutes=a.timeout)
        jid = api.submit(y)
        lavajobs.say(PROG, 'job %d: %s (%s), %d runs and a warm-up' %
                     (jid, s.upper(), label, a.per_job))
        jobs.append((jid, s, names))
        defs[jid] = y
    return jobs, defs, sd


def run_names(tests):
    """The perf runs of a job: its kvm-selftests cases that have figures,
    but the warm-up."""
    cases = {t['name'] for t in lavajobs.suite_cases(tests)}
    meas = lavajobs.measurements(tests)
    return sorted(n for n in cases if n != 'warm' and any(m.startswith(n + '.') for m in meas))


def collect(api, jobs, done, out, defs, where):
    """Each job's runs into @out/a, @out/b (JSON a run); (kept, failed,
    lines about the jobs)."""
    kept = {'a': 0, 'b': 0}
    failed, notes = 0, []
    for jid, s, names in jobs:
        health, reason, tests = lavajobs.job_outcome(api, jid, done.get(jid, {}), out,
                                                     defs.get(jid))
        names = names or run_names(tests)
        job = done.get(jid, {})
        w = where.get(s) or {'kernel': {'release': 'LAVA job %d' % jid},
                             'arch': job.get('requested_device_type', '?')}
        got = lavajobs.runs_of(tests, names, w)
        n = 0
        for name, (res, obj) in got.items():
            if res == 'pass' and obj['runs']:
                path = os.path.join(out, s, '%d-%s.json' % (jid, name))
                with open(path, 'w') as f:
                    json.dump(dict(obj, job=jid, test_case=name), f)
                n += 1
            else:
                failed += 1
                notes.append('job %d: run %s %s' % (jid, name, res))
        kept[s] += n
        notes.append('job %d (%s): %s%s, %d runs kept (log: %s/job-%d)' %
                     (jid, s.upper(), health, '' if health == 'Complete' else ': ' + reason, n,
                      out, jid))
        if health != 'Complete':
            failed += 1
    return kept, failed, notes


def main(argv=None):
    a = parse(argv)
    t0 = time.time()
    api = lavajobs.connect(PROG, a.lava, a.token)
    out = a.out or os.path.join(lavajobs.REPO, 'build', 'compare', time.strftime('%Y%m%d-%H%M%S'))
    if os.path.exists(out) and os.listdir(out):
        lavajobs.say(PROG, "--out '%s' is not empty: give a new folder" % out)
        return 2
    out = os.path.abspath(out)
    for d in ('a', 'b'):
        os.makedirs(os.path.join(out, d), exist_ok=True)
    defs = {}
    if a.jobs:
        jobs = [(j, 'a', None) for j in a.jobs[0]] + [(j, 'b', None) for j in a.jobs[1]]
        labels = ('the runs of the jobs', 'the runs of the jobs')
    else:
        try:
            jobs, defs, sd = submit_runs(a, api, out)
        except lavajobs.JobSetupError as e:
            lavajobs.say(PROG, str(e))
            return 2
        except lava.LavaError as e:
            lavajobs.say(PROG, str(e))
            return 2
        labels = (sd[0][0], sd[1][0])
    try:
        done = lavajobs.wait_all(api, PROG, [j for j, _, _ in jobs],
                                 a.timeout * 60 * len(jobs) + 900,
                                 {j: s.upper() for j, s, _ in jobs})
    except lava.LavaError as e:
        lavajobs.say(PROG, str(e))
        return 2
    where = {}
    if not a.jobs:
        for s, (label, kernel, _, _) in zip('ab', sd):
            where[s] = {'kernel': {'release': 'Debian %s' % kernel if
                                   debian.is_spec(kernel) else kernel},
                        'arch': a.arch}
    kept, failed, notes = collect(api, jobs, done, out, defs, where)
    for n in notes:
        lavajobs.say(PROG, n)
    lavajobs.say(PROG, 'done after %.0f s: A %d runs, B %d runs kept; %d failed'
                 % (time.time() - t0, kept['a'], kept['b'], failed))
    if kept['a'] < 2 or kept['b'] < 2:
        lavajobs.say(PROG, 'too few runs to compare (A %d, B %d; at least 2 each)'
                     % (kept['a'], kept['b']))
        return 1
    test = ' '.join(a.cmd) if a.cmd else 'the perf runs of the jobs'
    print('bench/compare: %s' % test)
    for side, label in zip('ab', labels):
        print('%s: %s: LAVA %s' % (side.upper(), label,
                                   ', '.join('job %d' % j for j, s, _ in jobs if s == side)))
    print('where: LAVA at %s, device type %s%s; each job a boot, its first run dropped as '
          'warm-up' % (api.url, lavajobs.DEVICE_TYPE, '' if a.jobs else
                       ' (%s, --smp %d --mem %s, clock %s)' % (a.arch, a.smp, a.mem, a.clock)))
    cmd = [sys.executable, STATS, 'compare', os.path.join(out, 'a'), os.path.join(out, 'b'),
           '--json', os.path.join(out, 'compare.json'), '--level', str(a.level),
           '--title', '%s: A %s, B %s' % (test, labels[0], labels[1]), '--looks', '1']
    if a.figures:
        cmd += ['--figures', a.figures]
    sys.stdout.flush()
    rc = subprocess.call(cmd)
    if rc == 3:
        lavajobs.say(PROG, 'no verdict with so few runs: give --runs (the least is said above)')
        return 1
    if rc:
        return 1
    print('comparison: %s/compare.json' % out)
    return 1 if failed else 0


if __name__ == '__main__':
    sys.exit(main())
