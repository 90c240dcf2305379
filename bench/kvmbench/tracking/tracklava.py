# SPDX-License-Identifier: GPL-2.0-only
"""kvmbench.tracking.tracklava: bench/track --lava URL|local, each boot of the
track's plan a LAVA job (docs/track.md).

The plan, the runs still missing and the database are bench/track's
(kvmbench.tracking.trackplan, kvmbench.tracking.trackdb); the jobs are kvmbench.labs.lavajobs' (the
kernel and initramfs of vm/run --export, lava/qemu-ARCH.yaml, the perf
step of lava/kvm-selftests.yaml): one job a boot, running the warm-up of
every command and then the boot's runs, on one vCPU under the
instruction clock.  The jobs are submitted in the plan's order, a
bounded number in the lab at a time (--jobs, default twice its qemu
devices), so the lab spreads them over its devices; each job's runs are
read back from its measurements (lavajobs.runs_of) and stored with the
same keys as a local boot's, the job's id as their boot.  Every job
submitted is recorded in the database (lava_jobs) until its results are
stored, so a track killed while jobs ran takes their results from them
the next time instead of submitting them again."""
import datetime
import json
import os
import time

from kvmbench.base.errors import Fail, UsageError, say
from kvmbench.verdicts.results import run_figures
from kvmbench.kernels import debian
from kvmbench.vmrun import runner
from kvmbench.labs import lava, lavajobs
from . import trackplan

PROG = 'bench/track'
OUT_ROOT = os.path.join(runner.REPO, 'build', 'track', 'lava')
POLL = 10           # seconds between looks at the jobs in the lab


def info(msg):
    say(PROG, msg)


def connect(a):
    """The checked lab of --lava (lavajobs.connect: a bad URL, token or lab
    is one line and exit 2, before the database is opened)."""
    api = lavajobs.connect(PROG, a.lava, a.token)
    if not api.local and not a.artifacts:
        raise UsageError('the lab at %s is not on this machine: it fetches the kernels and '
                         'initramfs over HTTP, give --artifacts DIR=URL' % api.url)
    return api


def run_name(command, idx):
    """The LAVA test case of @command's run @idx (None: its warm-up)."""
    return '%s_%s' % (command, 'w' if idx is None else 'r%d' % idx)


def job_runs(cmds, idx, arch):
    """The perf step's runs of a boot: the warm-up of every command, then
    runs @idx of each (the order of a local boot, track.guest_script)."""
    out = [(run_name(c.name, None), c.test, c.argv(arch)) for c in cmds]
    for i in idx:
        out += [(run_name(c.name, i), c.test, c.argv(arch)) for c in cmds]
    return out


def minutes(a, cmds, idx):
    """A job's test time limit: --run-timeout a run, as a local boot's."""
    return max(10, -(-a.run_timeout * (len(cmds) * (len(idx) + 1) + 2) // 60))


def release_of(kernel):
    """The runs' release column: LAVA reports no uname, so the kernel as
    given (a Debian version as bench/compare --lava names it)."""
    return 'Debian %s' % kernel if debian.is_spec(kernel) else kernel


def seconds(job):
    """A finished job's time on its device (LAVA's start and end), or None."""
    try:
        t = [datetime.datetime.fromisoformat(job[k].replace('Z', '+00:00'))
             for k in ('start_time', 'end_time')]
    except (KeyError, TypeError, AttributeError, ValueError):
        return None
    return (t[1] - t[0]).total_seconds()


class Jobs:
    """The track's jobs in one lab: submitting, and storing what they ran."""

    def __init__(self, a, cmds, db, api, out):
        self.a, self.cmds, self.db, self.api, self.out = a, cmds, db, api, out
        self.lab = api.url
        self.boots = {}
        self.counts = {'stored': 0, 'failed': 0, 'bootfail': 0}
        self.per_kernel = {}

    def export(self, arch, kernel):
        """The boot pieces of @kernel (vm/run --export, once a track) and their URLs."""
        key = (arch, kernel.name)
        if key not in self.boots:
            d = os.path.join(self.out, 'boot-%d' % len(self.boots))
            try:
                b = lavajobs.export_boot(arch, kernel.name, self.a.tests[arch], d,
                                         mem=self.a.mem, vm_args=kernel.vm_args)
                self.boots[key] = (b, lavajobs.publish(self.api, b, self.a.artifacts))
            except lavajobs.JobSetupError as e:
                raise Fail(str(e))
        return self.boots[key]

    def submit(self, rnd, arch, kernel, idx):
        boot, urls = self.export(arch, kernel)
        y = lavajobs.perf_job('kvm-selftests track %s %s round %d' % (arch, kernel.name, rnd + 1),
                              arch, boot, urls, job_runs(self.cmds, idx, arch), mem=self.a.mem,
                              smp=1, icount=runner.clock_env('icount', 1)['VMRUN_ICOUNT'],
                              minutes=minutes(self.a, self.cmds, idx))
        jid = self.api.submit(y)
        self.db.lava_submitted(self.lab, jid, kernel.name, arch, [c.name for c in self.cmds], idx)
        return jid

    def collect(self, jid, job, kernel, arch, commands, idx):
        """Store job @jid's runs (a failure row for each it did not
        measure); the number stored."""
        health, reason, tests = lavajobs.job_outcome(self.api, jid, job, self.out)
        warm = {run_name(c, None): c for c in commands}
        want = {run_name(c, i): (c, i) for i in idx for c in commands}
        got = lavajobs.runs_of(tests, list(warm) + list(want),
                               {'kernel': {'release': release_of(kernel)}, 'arch': arch})
        log = os.path.join(self.out, 'job-%d' % jid)
        why = '' if health == 'Complete' else ' (job %s: %s)' % (health, reason)
        stored = 0
        for name, (c, i) in sorted(want.items(), key=lambda x: (x[1][1], x[1][0])):
            res, obj = got[name]
            if res == 'pass' and obj['runs']:
                text = json.dumps(dict(obj, lava={'url': self.lab, 'job': jid,
                                                  'device': job.get('actual_device')}))
                if self.db.store(kernel, arch, c, i, jid, release_of(kernel), text,
                                 run_figures(obj)):
                    stored += 1
                continue
            self.fail(kernel, arch, c, i, res, jid, why, log)
        for name, c in warm.items():
            if got[name][0] != 'pass':
                self.fail(kernel, arch, c, -1, got[name][0], jid, why, log)
        self.counts['stored'] += stored
        if health != 'Complete':
            self.counts['bootfail'] += 1
        self.db.lava_done(self.lab, jid, 'collected')
        took = seconds(job)
        if took is not None:
            self.per_kernel.setdefault((arch, kernel), []).append(took)
        info('job %d (%s %s, runs %s) %s on %s%s: %d of %d runs stored%s (log: %s)' % (
            jid, arch, kernel, ','.join(map(str, idx)), health,
            job.get('actual_device') or '?', ' in %.0f s' % took if took is not None else '',
            stored, len(want), ': ' + reason if reason else '', log))
        return stored

    def fail(self, kernel, arch, command, idx, res, jid, why, log):
        self.counts['failed'] += 1
        rc = {'fail': 1, 'skip': 4}.get(res, -1)
        self.db.failed(kernel, arch, command, idx, rc, 'LAVA job %d: run %s %s%s; log: %s' % (
            jid, run_name(command, None if idx < 0 else idx), res, why, log))


def measure(a, cmds, kernels, db, api):
    """Every boot of the plan whose runs are not all stored yet, each a job
    in the lab; (counts, {(arch, kernel): [seconds a job]}) as
    track.measure's."""
    out = os.path.join(OUT_ROOT, time.strftime('%Y%m%d-%H%M%S'))
    os.makedirs(out, exist_ok=True)
    jobs = Jobs(a, cmds, db, api, out)
    # The jobs an earlier track submitted: taken up, not run again.
    pending, covered = {}, set()
    for jid, kernel, arch, names, idx in db.lava_pending(jobs.lab):
        try:
            job = api.job(jid)
        except lava.LavaError as e:
            if e.kind != 'notfound':
                raise Fail(str(e))
            info('job %d (%s %s) is no longer in the lab: its runs are run again' % (
                jid, arch, kernel))
            db.lava_done(jobs.lab, jid, 'lost')
            continue
        if job.get('state') == 'Finished':
            jobs.collect(jid, job, kernel, arch, names, idx)
            continue
        pending[jid] = (kernel, arch, names, idx)
        covered |= {(arch, kernel, c, i) for c in names for i in idx}
    if pending:
        info('%d jobs of an earlier track still in the lab: %s' % (
            len(pending), ', '.join(map(str, sorted(pending)))))
    todo = trackplan.todo_boots(a, cmds, kernels, db, covered)
    at_once = a.jobs or 2 * api.ndevices
    info(trackplan.todo_text(a, cmds, kernels, todo, at_once, 'jobs'))
    info('LAVA at %s: %d %s devices; jobs kept under %s' % (
        jobs.lab, api.ndevices, lavajobs.DEVICE_TYPE, out))
    todo.reverse()

    def more(n):
        new = []
        while todo and n + len(new) < at_once:
            rnd, arch, k, idx, _ = todo.pop()
            jid = jobs.submit(rnd, arch, k, idx)
            info('job %d: %s %s, round %d, runs %s' % (jid, arch, k.name, rnd + 1,
                                                       ','.join(map(str, idx))))
            pending[jid] = (k.name, arch, [c.name for c in cmds], idx)
            new.append(jid)
        return new

    # A job not ended within its queue (at most at_once jobs over the
    # devices, so as many rounds ahead of it) and its own limit is cancelled.
    limit = (minutes(a, cmds, range(a.per_boot)) * 60 + 900) * (
        -(-at_once // max(1, api.ndevices)) + 1)
    done = api.wait(sorted(pending), limit, poll=POLL, more=more,
                    progress=lambda jid, job, secs: jobs.collect(jid, job, *pending.pop(jid)),
                    queued=lambda n: stuck(api, jobs.lab, n))
    for jid in sorted(pending):     # cancelled by the wait
        jobs.collect(jid, done[jid], *pending.pop(jid))
    if not os.listdir(out):
        os.rmdir(out)       # no job: nothing to keep
    return jobs.counts, jobs.per_kernel


def stuck(api, lab, queued):
    """Fail when none of the lab's devices can take the @queued jobs (all
    of the track's in the lab, none started): they would wait for ever."""
    unable = lava.unable(api.devices(), lavajobs.DEVICE_TYPE)
    if unable:
        raise Fail('no %s device of the lab at %s can take a job now (%s): %d jobs left '
                   'queued there; every run that ended is stored, and the same command '
                   'takes the jobs up once a device is Good' % (
                       lavajobs.DEVICE_TYPE, lab, unable, queued))


def check(a):
    """--lava's own usage errors (UsageError)."""
    if a.lava and (a.no_run or a.attribute):
        raise UsageError('--lava runs the jobs: not with --no-run or --attribute')
    if (a.token or a.artifacts) and not a.lava:
        raise UsageError('--token and --artifacts are for --lava')
    if a.artifacts and '=' not in a.artifacts:
        raise UsageError("--artifacts '%s': DIR=URL" % a.artifacts)
