# SPDX-License-Identifier: GPL-2.0-only
"""vm/suite --lava URL: the kernel matrix as LAVA jobs (lava/qemu-ARCH.yaml),
one a arch and kernel, each the kselftest list (and the cases) in a
VM with KVM; waits for them and prints TAP from LAVA's results and the
"N passed, N failed, N skipped" line.  A job that did not complete
counts as failed with LAVA's reason."""

import argparse
import os
import sys
import time

from kvmbench.base.tap import Tap
from kvmbench.kernels import debian
from . import lava, lavajobs

PROG = 'vm/suite'


def tap_of_job(w, jid, label, health, reason, tests):
    """One job's cases as results of the Tap @w."""
    n0 = w.num
    for t in lavajobs.suite_cases(tests):
        res = t.get('result')
        name = '%s: %s' % (label, t['name'])
        if res in ('pass', 'skip'):
            w.result(res, name)
        else:
            w.result('fail', name, res)
    if health != 'Complete':
        w.result('fail', '%s: job %d %s' % (label, jid, health), reason)
    elif w.num == n0:
        w.result('fail', '%s: job %d reported no test case' % (label, jid))


def main(argv=None):
    ap = argparse.ArgumentParser(prog='vm/suite --lava', description=__doc__)
    ap.add_argument('--lava', required=True, help='the LAVA server URL, or local (lava/lab)')
    ap.add_argument('--token', help='API token (default: $LAVA_TOKEN; local: the lab\'s)')
    ap.add_argument('--arch', default='x86_64 arm64')
    ap.add_argument('--kernels', default='6.1 6.12')
    ap.add_argument('--steps', default='list tables',
                    help='what each job runs: list, tables (the cases; default: both)')
    ap.add_argument('--tables', default='', help="whose cases (grep -E on the tests' names; "
                    'default: all)')
    ap.add_argument('--hugepages', type=int, default=128)
    ap.add_argument('--timeout', type=int, default=60, help='minutes a job may take')
    ap.add_argument('--out', help='jobs\' logs and results (default build/lava/<date>)')
    ap.add_argument('--artifacts', help='DIR=URL: where a remote lab fetches the boot pieces')
    for flag in ('--no-intree', '--no-gates', '--no-intel'):   # the local run's
        ap.add_argument(flag, action='store_true', help=argparse.SUPPRESS)
    a = ap.parse_args(argv)
    arches = a.arch.split()
    kernels = a.kernels.split()
    for x in arches:
        if x not in ('x86_64', 'arm64'):
            ap.error("unknown arch '%s' (x86_64, arm64)" % x)
    for k in kernels:
        if not debian.is_spec(k):
            ap.error("bad kernel '%s' in --kernels" % k)
    steps = a.steps.split()
    if not steps or any(s not in ('list', 'tables') for s in steps):
        ap.error("bad --steps '%s' (list, tables)" % a.steps)
    if a.hugepages < 0 or a.timeout < 1:
        ap.error('bad --hugepages or --timeout')
    if a.artifacts and '=' not in a.artifacts:
        ap.error('--artifacts takes DIR=URL')
    t0 = time.time()
    api = lavajobs.connect(PROG, a.lava, a.token)
    out = a.out or os.path.join(lavajobs.REPO, 'build', 'lava', time.strftime('%Y%m%d-%H%M%S'))
    os.makedirs(out, exist_ok=True)
    out = os.path.abspath(out)
    jobs, names, defs = [], {}, {}
    try:
        for arch in arches:
            tree = lavajobs.ensure_tree(arch, os.path.join(out, 'logs'))
            for k in kernels:
                label = '%s-%s' % (arch, k)
                boot = lavajobs.export_boot(arch, k, tree, os.path.join(out, 'boot-' + label),
                                            a.hugepages)
                urls = lavajobs.publish(api, boot, a.artifacts)
                y = lavajobs.job_yaml('kvm-selftests %s' % label, arch, boot, urls,
                                      {'STEPS': ' '.join(steps), 'TABLES': a.tables},
                                      minutes=a.timeout)
                jid = api.submit(y)
                lavajobs.say(PROG, 'job %d: %s, %s (%s)' % (jid, label, ' and '.join(steps),
                                                            api.url + 'scheduler/job/%d' % jid))
                jobs.append((jid, label))
                names[jid] = label
                defs[jid] = y
    except lavajobs.JobSetupError as e:
        lavajobs.say(PROG, str(e))
        for jid, _ in jobs:
            api.cancel(jid)
        return 2
    except lava.LavaError as e:
        lavajobs.say(PROG, str(e))
        return 2
    done = lavajobs.wait_all(api, PROG, [j for j, _ in jobs], a.timeout * 60 + 900, names)
    w = Tap()
    w.header()
    for jid, label in jobs:
        health, reason, tests = lavajobs.job_outcome(api, jid, done[jid], out, defs[jid])
        job = done[jid]
        took = ''
        if job.get('start_time') and job.get('end_time'):
            took = ', %s to %s' % (job['start_time'], job['end_time'])
        print('# job %d: %s on %s: %s%s (log and results: %s/job-%d)' %
              (jid, label, job.get('actual_device') or '?', health, took, out, jid))
        tap_of_job(w, jid, label, health, reason, tests)
    w.plan()
    w.comment('%d jobs in %.0f s' % (len(jobs), time.time() - t0))
    w.write(w.summary())
    return 1 if w.failed else 0


if __name__ == '__main__':
    sys.exit(main())
