# SPDX-License-Identifier: GPL-2.0-only
"""LAVA jobs of the suite: the boot pieces (vm/run --export), a job from
lava/qemu-ARCH.yaml with lava/kvm-selftests.yaml inline, submitting them
and reading their results back as TAP or as perf runs' figures."""

import json
import os
import re
import shlex
import shutil
import string
import subprocess
import sys

from kvmbench.base.errors import say
from kvmbench.kernels import build
from kvmbench.vmrun import vm
from . import lava

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))
LAVA_DIR = os.path.join(REPO, 'lava')
DEVICE_TYPE = 'qemu'


class JobSetupError(Exception):
    pass


def connect(prog, spec, token=None):
    """A checked Lava for --lava SPEC whose lab has qemu devices; a bad URL,
    token or lab is one line and exit 2."""
    try:
        url, tok = lava.resolve(spec, token)
        api = lava.Lava(url, tok)
        api.check()
        devs = api.devices()
    except lava.LavaError as e:
        if spec == 'local' and e.kind == 'unreachable':
            e = 'the local lab is not running (%s): lava/lab start' % e
        say(prog, str(e))
        sys.exit(2)
    types = lava.device_types(devs)
    if not types.get(DEVICE_TYPE):
        say(prog, 'the lab at %s has no %s devices (it has: %s); the jobs need device type %s '
            '(docs/lava.md)' % (url, DEVICE_TYPE, ', '.join(sorted(types)) or 'none',
                                DEVICE_TYPE))
        sys.exit(2)
    unable = lava.unable(devs, DEVICE_TYPE)
    if unable:
        say(prog, 'no %s device of the lab at %s can take a job (%s): LAVA gives jobs to '
            'devices whose health is %s' % (DEVICE_TYPE, url, unable, '/'.join(lava.RUNNABLE)))
        sys.exit(2)
    api.ndevices = types[DEVICE_TYPE]
    api.local = spec == 'local' or url.startswith(('http://127.0.0.1', 'http://localhost'))
    return api


def ensure_tree(arch, log_dir):
    """build/<arch>/kselftest_install, built (static) if missing."""
    try:
        return build.ensure_tree(arch, os.path.join(log_dir, 'build-%s.log' % arch))
    except build.BuildError as e:
        raise JobSetupError(str(e)) from None


def kernel_args(spec):
    """vm/run's options for a kernel: a Debian version, IMAGE or IMAGE:MODULES."""
    try:
        return build.kernel_args(spec)
    except ValueError as e:
        raise JobSetupError(str(e)) from None


def export_boot(arch, kernel, tree, out, hugepages=0, mem='2G', vm_args=None):
    """The kernel, initramfs (the tests of @tree and lava/guest.sh under
    /tests) and command line vm/run --export writes, in @out; the kernel
    @kernel (a Debian version, IMAGE[:MODULES]) or vm/run's @vm_args."""
    stage = out + '.tests'
    shutil.rmtree(stage, ignore_errors=True)
    shutil.copytree(tree, stage, symlinks=True)
    os.makedirs(os.path.join(stage, 'lava'), exist_ok=True)
    shutil.copy2(os.path.join(LAVA_DIR, 'guest.sh'), os.path.join(stage, 'lava', 'guest.sh'))
    cmd = vm.run_args(arch, tests=stage, export=out, hugepages=hugepages, mem=mem,
                      accel='tcg') + (vm_args if vm_args is not None else kernel_args(kernel))
    p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                       universal_newlines=True, stdin=subprocess.DEVNULL)
    shutil.rmtree(stage, ignore_errors=True)
    if p.returncode:
        raise JobSetupError('vm/run --export (%s, kernel %s) failed: %s' %
                            (arch, kernel, p.stdout.strip().splitlines()[-1:]))
    with open(os.path.join(out, 'cmdline')) as f:
        cmdline = f.read().strip()
    return {'kernel': os.path.join(out, 'kernel'), 'ramdisk': os.path.join(out, 'initrd.cpio.gz'),
            'cmdline': cmdline}


def publish(api, boot, artifacts):
    """URLs of the boot pieces: file:// on a local lab, else copied to
    DIR of --artifacts DIR=URL and named under URL."""
    if not artifacts:
        if not api.local:
            raise JobSetupError('a lab not on this machine fetches the kernel and initramfs '
                                'over HTTP: give --artifacts DIR=URL (docs/lava.md)')
        return {k: 'file://' + boot[k] for k in ('kernel', 'ramdisk')}
    d, _, url = artifacts.partition('=')
    sub = os.path.basename(os.path.dirname(boot['kernel']))
    os.makedirs(os.path.join(d, sub), exist_ok=True)
    out = {}
    for k in ('kernel', 'ramdisk'):
        shutil.copy2(boot[k], os.path.join(d, sub, os.path.basename(boot[k])))
        out[k] = '%s/%s/%s' % (url.rstrip('/'), sub, os.path.basename(boot[k]))
    return out


def testdef_text(indent):
    """lava/kvm-selftests.yaml without its comments and params (an inline
    definition takes none: the job gives them all), indented."""
    lines, skip = [], False
    with open(os.path.join(LAVA_DIR, 'kvm-selftests.yaml')) as f:
        for ln in f:
            if not ln.startswith(' '):
                skip = ln.startswith('params:')
            if ln.strip() and not ln.lstrip().startswith('#') and not skip:
                lines.append(' ' * indent + ln.rstrip('\n'))
    return '\n'.join(lines)


PARAMS = {'KSELFTEST_URL': '', 'STEPS': 'list', 'TABLES': '', 'PERF': ''}


def job_yaml(name, arch, boot, urls, params, smp=2, mem_mib=2048, icount=None, minutes=60):
    """A job of lava/qemu-ARCH.yaml."""
    with open(os.path.join(LAVA_DIR, 'qemu-%s.yaml' % arch)) as f:
        tmpl = string.Template(f.read())
    opts = ['-accel tcg,thread=single', '-smp %d' % smp]
    if arch == 'x86_64':
        opts = ['-M q35', '-cpu EPYC,+svm'] + opts
    if icount:
        opts.append('-icount %s' % icount)
    defs = ('\n    - from: inline\n      name: kvm-selftests\n'
            '      path: inline/kvm-selftests.yaml\n      parameters: %s\n'
            '      repository:\n%s' % (json.dumps(dict(PARAMS, **params)), testdef_text(8)))
    text = tmpl.substitute(JOB_NAME=json.dumps(name), JOB_MINUTES=minutes + 15,
                           MEM_MIB=mem_mib, QEMU_OPTIONS=json.dumps(opts),
                           CMDLINE=boot['cmdline'].replace('"', ''),
                           KERNEL_URL=json.dumps(urls['kernel']),
                           RAMDISK_URL=json.dumps(urls['ramdisk']),
                           TEST_MINUTES=minutes, DEFINITIONS=defs)
    return '\n'.join(ln for ln in text.splitlines() if not ln.startswith('#')) + '\n'


def perf_job(name, arch, boot, urls, runs, mem='2G', smp=1, icount=None, minutes=60):
    """A job of the perf step: @runs [(NAME, TEST, [ARGS])] in order, each a
    test case NAME with its figures as measurements NAME.FIGURE."""
    perf = ';'.join('%s %s' % (n, ' '.join(shlex.quote(x) for x in [test] + list(args)))
                    for n, test, args in runs)
    return job_yaml(name, arch, boot, urls, {'STEPS': 'perf', 'PERF': perf}, smp=smp,
                    mem_mib=vm.mem_mib(mem), icount=icount, minutes=minutes)


def job_outcome(api, jid, job, out, definition=None):
    """(health, reason, tests) of a finished job, its log and results
    kept under @out/job-ID."""
    job, tests = api.keep(jid, out, definition)
    health = job.get('health', '?')
    reason = '' if health == 'Complete' else api.reason(job, tests)
    return health, reason, tests


def suite_cases(tests):
    """The kvm-selftests test cases (not LAVA's own, not measurements)."""
    return [t for t in tests if t.get('suite_name', '').endswith('kvm-selftests')
            and t.get('measurement') in (None, '', 'None')]


def measurements(tests):
    """{case name: (value, unit)} of a job's measured test cases."""
    out = {}
    for t in tests:
        m = t.get('measurement')
        if m in (None, '', 'None'):
            continue
        try:
            out[t['name']] = (float(m), t.get('unit') or '')
        except ValueError:
            pass
    return out


def runs_of(tests, names, where=None):
    """The perf runs @names of a job as the test's JSON would have them
    (runs[].figures, runs[].stats; bench/stats.py reads them), from the
    measurements; {name: (result, obj)}, each obj with @where's keys
    (kernel, arch: what side_hosts() shows)."""
    meas = measurements(tests)
    results = {t['name']: t.get('result') for t in tests}
    out = {}
    for n in names:
        runs = {}
        for key, (v, unit) in meas.items():
            if not key.startswith(n + '.'):
                continue
            rest = key[len(n) + 1:]
            idx = 1
            m = re.match(r'^r([0-9]+)\.(.*)$', rest)
            if m:
                idx, rest = int(m.group(1)), m.group(2)
            run = runs.setdefault(idx, {'figures': {}, 'stats': {}})
            m = re.match(r'^stat\.(vm|vcpu)\.(.*)$', rest)
            if m:
                run['stats'].setdefault(m.group(1), {})[m.group(2)] = {
                    'delta': v, 'type': 'cumulative', 'unit': unit}
            else:
                run['figures'][rest] = {'value': v, 'unit': unit}
        obj = dict(where or {}, runs=[runs[i] for i in sorted(runs)], source='lava')
        out[n] = (results.get(n, 'missing'), obj)
    return out


def wait_all(api, prog, jids, timeout, names):
    """Wait for @jids, saying each one's end; {id: job}."""
    def progress(j, job, secs):
        say(prog, 'job %d (%s) %s after %.0f s%s' % (
            j, names.get(j, ''), job.get('health'), secs,
            '' if job.get('health') == 'Complete' else ': ' + (job.get('failure_comment') or '')))
    try:
        return api.wait(jids, timeout, progress=progress)
    except lava.LavaError as e:
        say(prog, str(e))
        sys.exit(2)
