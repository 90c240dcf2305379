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

from . import lava, lavajobs

PROG = 'vm/suite'


def tap_of_job(jid, label, health, reason, tests, n0):
    """TAP lines of one job's cases, numbered from @n0 + 1; (lines, p, f, s)."""
    lines, p, f, s = [], 0, 0, 0
    for t in lavajobs.suite_cases(tests):
        n0 += 1
        res = t.get('result')
        if res == 'pass':
            lines.append('ok %d %s: %s' % (n0, label, t['name']))
            p += 1
        elif res == 'skip':
            lines.append('ok %d %s: %s # SKIP' % (n0, label, t['name']))
            s += 1
        else:
            lines.append('not ok %d %s: %s # %s' % (n0, label, t['name'], res))
            f += 1
    if health != 'Complete':
        n0 += 1
        lines.append('not ok %d %s: job %d %s # %s' % (n0, label, jid, health, reason))
        f += 1
    elif not lines:
        n0 += 1
        lines.append('not ok %d %s: job %d reported no test case' % (n0, label, jid))
        f += 1
    return lines, p, f, s


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
        if not lavajobs.DEBIAN_KERNEL.match(k):
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
    p = f = s = n = 0
    print('TAP version 13')
    for jid, label in jobs:
        health, reason, tests = lavajobs.job_outcome(api, jid, done[jid], out, defs[jid])
        job = done[jid]
        took = ''
        if job.get('start_time') and job.get('end_time'):
            took = ', %s to %s' % (job['start_time'], job['end_time'])
        print('# job %d: %s on %s: %s%s (log and results: %s/job-%d)' %
              (jid, label, job.get('actual_device') or '?', health, took, out, jid))
        lines, jp, jf, js = tap_of_job(jid, label, health, reason, tests, n)
        print('\n'.join(lines))
        n += len(lines)
        p, f, s = p + jp, f + jf, s + js
    print('1..%d' % n)
    print('# %d jobs in %.0f s' % (len(jobs), time.time() - t0))
    print('%d passed, %d failed, %d skipped' % (p, f, s))
    return 1 if f else 0


if __name__ == '__main__':
    sys.exit(main())
