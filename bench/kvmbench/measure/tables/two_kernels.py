# SPDX-License-Identifier: GPL-2.0-only
"""kvmbench.measure.tables.two_kernels: the paths table (bench/paths.list on two kernels)."""
import datetime
import json
import os
import re
import subprocess
import sys

from kvmbench.base.errors import Fail
from kvmbench.verdicts.render import fmt_exact
from kvmbench.vmrun import runner
from kvmbench.vmrun.cli import Usage
from .common import PROG, REPO, positive, read_file


def paths_lines(path):
    """[(name, command, [keys])] of a paths list (bench/paths.list's
    format); Usage naming a bad line."""
    out = []
    for n, line in enumerate(read_file(path, 'the list').splitlines(), 1):
        if re.fullmatch(r'\s*(#.*)?', line):
            continue
        parts = line.split(' | ')
        if len(parts) != 3:
            raise Usage('%s:%d: not NAME | COMMAND | KEY[,KEY...]' % (path, n))
        name, cmd, keys = parts
        if not re.fullmatch(r'[A-Za-z0-9_-]+', name):
            raise Usage("%s:%d: bad name '%s'" % (path, n, name))
        if not re.fullmatch(r'[A-Za-z0-9_.]+(,[A-Za-z0-9_.]+)*', keys):
            raise Usage("%s:%d: bad key list '%s'" % (path, n, keys))
        if not re.fullmatch(r'[a-z0-9_/]+(\s+[^\s\'"$`;&|<>]+)*', cmd):
            raise Usage("%s:%d: bad command '%s' (a test and plain options)" % (path, n, cmd))
        out.append((name, cmd, keys.split(',')))
    return out


def verdict_rows(name, keys, results):
    """A row for each result (compare.json's) whose figure is one of
    @keys or KEY[mode]."""
    out = []
    for key in keys:
        found = [r for r in results if r['figure'] == key or r['figure'].startswith(key + '[')]
        for r in found:
            out.append('%-28s %-36s %14s %14s %8s [%s, %s] %s' % (
                name, '%s (%s)' % (r['figure'], r['unit'].replace(' ', '_')),
                fmt_exact(r['a']['median']), fmt_exact(r['b']['median']), fmt_exact(r['ratio']),
                fmt_exact(r['lo']), fmt_exact(r['hi']), r['verdict']))
        if not found:
            out.append('%-28s %-36s %s' % (name, key, "(no such figure in the test's JSON)"))
    return out


def compare_results(path):
    """compare.json's results, [] if there is none."""
    try:
        with open(path) as f:
            return json.load(f)['results']
    except (OSError, ValueError, KeyError):
        return []


def paths(a):
    """bench/paths.list's headline figures on two kernels"""
    lines = paths_lines(a.list)
    if a.only:
        lines = [x for x in lines if x[0] == a.only]
        if not lines:
            raise Usage("no line '%s' in %s" % (a.only, a.list))
    out = a.out
    if a.print:
        if not os.path.isdir(a.print):
            raise Usage("no results directory '%s'" % a.print)
        out = a.print
    out = out or os.path.join(REPO, 'build', 'paths', datetime.datetime.now().strftime('%Y%m%d-%H%M%S'))
    os.makedirs(out, exist_ok=True)
    rows, failed, skipped = [], 0, 0
    for name, cmd, keys in lines:
        base = os.path.join(out, name)
        if a.print:
            if not os.path.isfile(base + '.rc'):
                continue
            rc = int(read_file(base + '.rc', 'the status').strip() or 1)
        else:
            print('%s: %s: bench/compare --kernels %s --arch %s --runs %d -- %s' % (
                PROG + ' paths', name, a.kernels, a.arch, a.runs, cmd), file=sys.stderr)
            with open(base + '.txt', 'w') as o, open(base + '.log', 'w') as e:
                rc = subprocess.run([os.path.join(REPO, 'bench', 'compare'), '--kernels', a.kernels,
                                     '--arch', a.arch, '--runs', str(a.runs), '--per-boot',
                                     str(a.per_boot), '--out', base, '--'] + cmd.split(),
                                    stdout=o, stderr=e, stdin=subprocess.DEVNULL).returncode
            with open(base + '.rc', 'w') as f:
                f.write('%d\n' % rc)
        results = compare_results(os.path.join(base, 'compare.json'))
        if rc == 0:
            rows += verdict_rows(name, keys, results)
        elif rc == 4:
            skipped += 1
            why = next((ln for ln in read_file(base + '.log', 'the log').splitlines()
                        if 'skipped' in ln), '')
            rows.append('%-28s skipped: %s' % (name, why))
        else:
            failed += 1
            print('%s paths: %s: bench/compare exited %d; its output:' % (PROG, name, rc),
                  file=sys.stderr)
            print('\n'.join(read_file(base + '.log', 'the log').splitlines()[-40:]), file=sys.stderr)
            rows += verdict_rows(name, keys, results)
            rows.append('%-28s failed: bench/compare exited %d (%s.log)' % (name, rc, base))
    with open(os.path.join(out, 'rows.txt'), 'w') as f:
        f.write(''.join(r + '\n' for r in rows))
    ka, kb = a.kernels.split(',')
    head = ['%s paths: the results in %s' % (PROG, out)] if a.print else []
    head += ['%s paths: %s VM, kernels A=%s B=%s, %d runs each (%s)' % (
        PROG, a.arch, ka, kb, a.runs, datetime.datetime.now(datetime.timezone.utc).strftime('%Y-%m-%d')),
        '%-28s %-36s %14s %14s %8s %s' % ('test', 'figure (unit)', '%s median' % ka,
                                          '%s median' % kb, 'B/A', '[lo, hi] verdict')]
    print('\n'.join(head + rows + ['results: %s' % out]))
    if failed:
        raise Fail('', status=1)
    if skipped == len(lines):
        raise Fail('', status=4)
    return []


def paths_args(p):
    p.add_argument('--arch', default=runner.host_arch(), help="the VM's arch (default: this host's)")
    p.add_argument('--only', default='', metavar='NAME', help='run only the line NAME')
    p.add_argument('--runs', type=positive, default=6,
                   help='measured runs on each kernel (default 6: with a test of 11 figures '
                   'that vary, bench/compare gives no verdict below 6; at least 2)')
    p.add_argument('--per-boot', type=positive, default=2,
                   help='measured runs per VM boot (default 2)')
    p.add_argument('--kernels', default='6.1,6.12',
                   help='the two kernels, as bench/compare takes them (default 6.1,6.12)')
    p.add_argument('--list', default=os.path.join(REPO, 'bench', 'paths.list'),
                   help='the table (default bench/paths.list)')
    p.add_argument('--out', default='', metavar='DIR',
                   help="bench/compare's results, one directory a line (default build/paths/<date>)")
    p.add_argument('--print', default='', metavar='DIR',
                   help="print the table of an earlier run's results in DIR again, without running")


def paths_check(a):
    if a.runs < 2:
        raise Usage('--runs must be at least 2 (bench/compare compares two or more)')
    a.arch = 'arm64' if a.arch == 'aarch64' else a.arch
    if a.arch not in ('x86_64', 'arm64'):
        raise Usage("unknown arch '%s' (x86_64 or arm64)" % a.arch)
    if not re.fullmatch(r'[^,]+,[^,]+', a.kernels):
        raise Usage("--kernels takes A,B: '%s'" % a.kernels)
