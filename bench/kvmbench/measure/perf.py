# SPDX-License-Identifier: GPL-2.0-only
"""kvmbench.measure.perf: bench/perf, the main job.

Builds the suite, decides where to measure (this host's /dev/kvm when a
tiny guest runs there, else a VM), runs the perf tests' command lines
(perf_commands) through perf.sh there, passing their output through as
it comes, and ends with the summary table (render.Table) of the figures
of their RESULT lines; --json FILE writes every run's command, exit
status and the test's own --json object.
"""
import datetime
import json
import os
import re
import subprocess
import sys

from kvmbench.verdicts.render import Table
from kvmbench.kernels import build
from kvmbench.vmrun import cli, runner, vm
from kvmbench.vmrun.cli import Parser, Usage

PROG = 'bench/perf'
HELP = r"""
bench/perf: the main job.  Sets up a fresh Debian 12 machine (as root),
builds the suite statically and runs the perf tests against real KVM: on
this host's /dev/kvm when it runs the suite's guests (a tiny guest decides),
else in a VM (vm/run); --vm forces the VM (--debian-kernel VERSION picks
its kernel), --host the host.  Says which KVM it measured, prints each
test's output as the test prints it, and ends with one summary table of
the figures (read from the tests' RESULT lines); --json FILE writes every
run's command, exit status and the test's own --json object to FILE.

usage: bench/perf [--arch x86_64|arm64] [--size 64M] [--vcpus 4] [--readers 4]
                  [--iterations 3] [--host | --vm [--debian-kernel VERSION]]
                  [--json FILE]
"""
PERF_SH = os.path.join(os.path.dirname(os.path.abspath(__file__)), 'perf.sh')


def parser():
    """perf's options (HELP says them; -h prints HELP)."""
    p = Parser(prog=PROG, add_help=False)
    p.add_argument('--arch', default=runner.host_arch())
    p.add_argument('--size', type=cli.size("bad --size '{0}'", 'KMG'), default='64M')
    for o in ('--vcpus', '--readers'):
        p.add_argument(o, type=cli.positive("not a positive number: '{0}'"), default=4)
    p.add_argument('--iterations', type=cli.positive("not a positive number: '{0}'"),
                   default=3)
    p.add_argument('--debian-kernel', dest='kver', default='')
    p.add_argument('--json', default='')
    p.add_argument('--host', action='store_true')
    p.add_argument('--vm', action='store_true')
    return p


def parse(argv):
    """The command line, checked (its options as attributes, .where
    host, vm or '' for either); None for --help; Usage on errors."""
    c = parser().parse_options(argv)
    if c is None:
        return None
    if c.host and c.vm:
        raise Usage('--host and --vm exclude each other')
    c.where = 'host' if c.host else 'vm' if c.vm else ''
    c.arch = 'arm64' if c.arch == 'aarch64' else c.arch
    if c.arch not in ('x86_64', 'arm64'):
        raise Usage("unknown arch '%s'" % c.arch)
    if c.json:
        d = os.path.dirname(c.json) or '.'
        if not os.path.isdir(d):
            raise Usage('--json %s: no directory %s' % (c.json, d))
        if os.path.isdir(c.json) or c.json.endswith('/'):
            raise Usage('--json %s is a directory: name a file' % c.json)
        c.json = os.path.abspath(c.json)
    if c.kver:
        if c.where == 'host':
            raise Usage("--debian-kernel is a VM's kernel: not with --host")
        c.where = 'vm'
    return c


def perf_commands(c):
    """The perf runs, one command line each, as a maintainer would type them."""
    return ['./demand_paging_test -b %s -v %s' % (c.size, c.vcpus),
            './demand_paging_test -u MISSING -b %s -v %s -r %s' % (c.size, c.vcpus, c.readers),
            './demand_paging_test -u MISSING -b %s -v %s -r %s -H' % (c.size, c.vcpus,
                                                                      c.readers),
            './dirty_log_perf_test -b %s -v %s -i %s' % (c.size, c.vcpus, c.iterations)]


def perf_script(c, where):
    """The script (bash on the host, busybox sh in the VM) that says which
    KVM it runs on, then runs each command through perf_run."""
    describe = subprocess.run(['bash', '-c', '. "$0/vm/host-kvm.sh" && declare -f kvm_describe',
                               runner.REPO], stdout=subprocess.PIPE, text=True).stdout
    with open(PERF_SH) as f:
        lines = [describe, f.read(),
                 'echo "bench/perf: measuring KVM on %s: $(kvm_describe)"' % where]
    lines += ['perf_run %d %s' % (n, cmd) for n, cmd in enumerate(perf_commands(c), 1)]
    return '\n'.join(lines + ['exit $perf_rc']) + '\n'


class Gather:
    """The script's output passed through, keeping what the summary and
    --json need: where (the "measuring KVM on" line), and each run's
    command, exit status, RESULT lines and JSON."""

    def __init__(self):
        self.where = None
        self.runs = {}      # n: {'cmd', 'rc', 'results', 'json'}

    def feed(self, lines, out=None):
        out = out or sys.stdout
        n, js = None, None
        for line in lines:
            line = line.rstrip('\n').rstrip('\r')
            if line.startswith('PERF-START '):
                n = line.split()[1]
                self.runs.setdefault(n, {'cmd': None, 'rc': None, 'results': [], 'json': None})
                continue
            if line == 'PERF-JSON-BEGIN':
                js = []
                continue
            if line == 'PERF-JSON-END':
                self.runs[n]['json'] = '\n'.join(js)
                js = None
                continue
            if line.startswith('PERF-END '):
                w = line.split()
                self.runs.setdefault(w[1], {'cmd': None, 'rc': None, 'results': [],
                                            'json': None})['rc'] = w[2]
                continue
            if js is not None:
                js.append(line)
                continue
            print(line, file=out, flush=True)
            if line.startswith('bench/perf: measuring KVM on '):
                self.where = line[len('bench/perf: measuring KVM on '):]
            elif line.startswith('$ ') and n:
                self.runs[n]['cmd'] = line[2:].split(' --json ')[0]
            elif line.startswith('RESULT test=') and n:
                self.runs[n]['results'].append(line)

    def ordered(self):
        """The runs that started, in order: (command, exit or None, ...)."""
        return [self.runs[k] for k in sorted(self.runs, key=int) if self.runs[k]['cmd']]


def readable_ns(v):
    """A time in ns in a readable unit."""
    try:
        ns = float(v)
    except ValueError:
        return v + ' ns'
    if ns >= 1e9:
        return '%.2f s' % (ns / 1e9)
    if ns >= 1e6:
        return '%.1f ms' % (ns / 1e6)
    if ns >= 1e3:
        return '%.1f us' % (ns / 1e3)
    return v + ' ns'


def figures(result):
    """A RESULT line as "test: figure value, ...", the figures a maintainer
    reads first, times in a readable unit."""
    kv = dict(w.split('=', 1) if '=' in w else (w, '') for w in result.split()[1:])

    def t(k):
        return readable_ns(kv.get(k, ''))

    def d(k):
        try:
            return '%d' % float(kv.get(k, '0'))
        except ValueError:
            return '0'
    test = kv.get('test', '')
    if test == 'demand_paging':
        s = 'rate %s pages/s; time %s; %s pages' % (d('rate'), t('time_ns'), d('pages'))
        if kv.get('uffd', '') not in ('', 'NONE'):
            s += '; %s faults served, latency p50 %s p99 %s' % (d('faults'), t('lat_p50_ns'),
                                                                t('lat_p99_ns'))
    elif test == 'dirty_log':
        s = ('populate %s; enable %s; dirty pass %s; get %s, clear %s per iteration; disable '
             '%s; %s pages reported over the passes, %s checked' %
             (t('populate_ns'), t('enable_ns'), t('dirty_ns_avg'), t('get_ns_avg'),
              t('clear_ns_avg'), t('disable_ns'), d('reported'), d('checked')))
    else:
        s = '; '.join(w for w in result.split()[1:] if re.search('(_ns|rate)=', w))
    return '%s: %s' % (test, s)


def summary(g):
    """The table of every run's figures."""
    t = Table(['run', 'exit', 'figures'])
    for r in g.ordered():
        rc = r['rc'] if r['rc'] is not None else '?'
        figs = ' / '.join(figures(x) for x in r['results'])
        t.add(r['cmd'], rc, figs or 'no RESULT line' + (': skipped' if rc == '4' else ''))
    return ('\nbench/perf: summary, KVM on %s (from the RESULT lines)\n' %
            (g.where if g.where is not None else '(unknown)')) + t.markdown()


def write_json(c, g, path):
    """One JSON document: every run's command, exit status and the test's
    own --json object (null if it wrote none: skipped, failed)."""
    runs = []
    for r in g.ordered():
        try:
            result = json.loads(r['json']) if r['json'] else None
        except ValueError:
            result = None
        runs.append({'command': r['cmd'], 'exit': int(r['rc']) if r['rc'] else None,
                     'result': result})
    doc = {'tool': PROG,
           'date': datetime.datetime.now(datetime.timezone.utc).strftime('%Y-%m-%dT%H:%M:%SZ'),
           'where': c.where, 'kvm': g.where or '',
           'options': {'arch': c.arch, 'size': c.size, 'vcpus': c.vcpus,
                       'readers': c.readers, 'iterations': c.iterations},
           'runs': runs}
    with open(path, 'w') as f:
        json.dump(doc, f, indent=1)
        f.write('\n')
    print('%s: wrote %s' % (PROG, path), file=sys.stderr)


def vm_mem(size, vcpus):
    """The VM's --mem for @vcpus vCPUs of @size each: twice that and 1G."""
    n = int(size.rstrip('KMG')) * int(vcpus)
    if size.endswith('G'):
        n *= 1024
    elif size.endswith('K'):
        n //= 1024
    elif size[-1].isdigit():
        n //= 1048576
    return '%dM' % (n * 2 + 1024)


def run(c):
    if not runner.ensure(c.arch):
        return 1
    log = os.path.join(runner.REPO, 'build', 'logs', 'build-perf-%s.log' % c.arch)
    os.makedirs(os.path.dirname(log), exist_ok=True)
    print('%s: building for %s' % (PROG, c.arch), file=sys.stderr, flush=True)
    try:
        tests = build.fresh_tree(c.arch, log, runner.REPO)
    except build.BuildError as e:
        print('%s: %s' % (PROG, e), file=sys.stderr)
        return 1
    if not c.where:
        c.where = 'vm'
        if c.arch != runner.host_arch():
            msg = 'an %s guest on an %s host: in a VM' % (c.arch, runner.host_arch())
        else:
            why = runner.host_kvm_why(os.path.join(tests, 'kvm'))
            if not why:
                c.where = 'host'
                msg = "this host's /dev/kvm runs the suite's guests: measuring there (--vm for the VM)"
            else:
                msg = "this host's KVM cannot run the suite's guests (%s): in a VM" % why
        print('%s: %s' % (PROG, msg), file=sys.stderr, flush=True)
    g = Gather()
    if c.where == 'host':
        cmd = ['bash', '-c', perf_script(c, 'host')]
        cwd = os.path.join(tests, 'kvm')
    else:
        cmd = vm_cmd(c, tests)
        cwd = None
    sys.stdout.flush()
    p = subprocess.Popen(cmd, cwd=cwd, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                         text=True, errors='replace')
    g.feed(p.stdout)
    status = p.wait()
    print(summary(g), end='')
    sys.stdout.flush()
    if c.json:
        write_json(c, g, c.json)
    return status


def vm_cmd(c, tests):
    """The vm/run command of the measurement in a VM (vm.run_args)."""
    return vm.script_args(perf_script(c, 'a VM (vm/run%s)' % (' --debian-kernel ' + c.kver if c.kver
                                                              else '')),
                          tests, 3000, c.arch, smp=c.vcpus, mem=vm_mem(c.size, c.vcpus),
                          debian_kernel=c.kver or None)


def main(argv):
    return cli.program(PROG, argv, parse, run, HELP)


if __name__ == '__main__':
    sys.exit(main(sys.argv[1:]))
