# SPDX-License-Identifier: GPL-2.0-only
"""kvmbench.verdicts.results: what the runs left, read and filed.

The perf tests write their figures as one JSON object a run (--json
FILE); run_figures() and load_side() turn a side's files into
{figure: [values]} for kvmbench.verdicts.stats, baseline_values() reads a
bench/compare comparison (compare.json) back.  Results files runs as
they end, wherever they ran (kvmbench.vmrun.runner), under one directory:

  OUT/a/IDX.json, OUT/b/IDX.json   the kept runs' JSON (a warm-up's in
                                   OUT/warmup/SIDE-IDX.json)
  OUT/logs/SIDE-IDX.log            each run's output
  OUT/status                       one line a run: ok|fail|skip SIDE IDX RC,
                                   and a lost boot: bootfail SIDE IDX RC
  OUT/console.log                  the VM's other output

A run in the VM reports through a protocol on its console (guest.sh):
  CMP-START SIDE IDX WARM / CMP-OUT LINE... / CMP-JSON-BEGIN ... CMP-JSON-END
  / CMP-END SIDE IDX RC
which Results.feed() reads.
"""
import glob
import json
import os
import re
import sys
import time

# ---- the perf tests' JSON objects ----------------------------------------

STAT_TYPES = ('cumulative', 'linear_hist', 'log_hist')


def mode_tag(run, i):
    """A short name of a run's guest mode ('pa40 4K'), so that runs of
    the same mode are compared whatever modes each kernel offers."""
    m = re.match(r'PA-bits:(\w+),\s*VA-bits:\d+,\s*(\w+) pages', run.get('guest_mode', ''))
    if m:
        return 'pa%s %s' % (m.group(1).lower(), m.group(2))
    return run.get('options', {}).get('mode', i)


def run_figures(obj):
    """{figure: (value, unit)} of one test's JSON object: its figures and
    its cumulative KVM stats per page (vcpu.NAME/page, vm.NAME/page)."""
    out = {}
    runs = obj.get('runs', [])
    for i, run in enumerate(runs):
        tag = '' if len(runs) == 1 else '[%s]' % mode_tag(run, i)
        figs = run.get('figures', {})
        for name, f in figs.items():
            if isinstance(f.get('value'), (int, float)):
                out[name + tag] = (float(f['value']), f.get('unit', ''))
        pages = (figs.get('pages') or figs.get('checked') or {}).get('value')
        for scope, stats in run.get('stats', {}).items():
            for name, s in stats.items():
                if pages and s.get('type') in STAT_TYPES:
                    out['%s.%s/page%s' % (scope, name, tag)] = (s['delta'] / pages,
                                                                'per page')
    return out


def load_side(paths):
    """{figure: [values]} and {figure: unit} over the JSON files; a stat
    that did not move in a run counts 0 there."""
    figs, units, runs = {}, {}, []
    for p in paths:
        with open(p) as f:
            runs.append(run_figures(json.load(f)))
    for r in runs:
        for name, (_, unit) in r.items():
            units[name] = unit
    for name, unit in units.items():
        for r in runs:
            if name in r:
                figs.setdefault(name, []).append(r[name][0])
            elif unit == 'per page':
                figs.setdefault(name, []).append(0.0)
    return figs, units


def load_sides(a_dir, b_dir):
    """load_side() of the runs in @a_dir and @b_dir: A's figures, B's and
    the units.  A KVM stat that moved on one side only (a patch's TLB
    flushes, where the stock kernel makes none) is 0 in every run of the
    other, whose runs did not list it."""
    sides = []
    for d in (a_dir, b_dir):
        files = side_files(d)
        sides.append((len(files),) + load_side(files))
    units = dict(sides[1][2], **sides[0][2])
    for n, figs, _ in sides:
        for name, unit in units.items():
            if figs and unit == 'per page' and name not in figs:
                figs[name] = [0.0] * n
    return sides[0][1], sides[1][1], units


def side_hosts(paths):
    """'kernel RELEASE (ARCH, KVM: modules) xN' for the runs in @paths."""
    seen = {}
    for p in paths:
        with open(p) as f:
            o = json.load(f)
        key = 'kernel %s (%s, KVM: %s)' % (o.get('kernel', {}).get('release', '?'),
                                           o.get('arch', '?'),
                                           ','.join(sorted(o.get('kvm', {}).get('modules', []))))
        seen[key] = seen.get(key, 0) + 1
    return '; '.join('%s x%d' % kv for kv in seen.items())


def side_files(d):
    return sorted(glob.glob(os.path.join(d, '*.json')))


def load_profiles(paths, phase=None):
    """Per run (JSON file): {function: percent of the kernel samples of
    the test's threads} (in @phase only, if given), and those samples in
    ms; runs without a profile are left out."""
    shares, ms = [], []
    for p in paths:
        with open(p) as f:
            obj = json.load(f)
        funcs, total = {}, 0
        profs = [r['profile'] for r in obj.get('runs', []) if 'profile' in r]
        if not profs:
            continue
        period = profs[0].get('period_ns', 0)
        for prof in profs:
            got = prof['functions'] if not phase else prof.get('phases', {}).get(phase, {})
            total += sum(got.values())
            for name, n in got.items():
                funcs[name] = funcs.get(name, 0) + n
        shares.append({k: 100.0 * v / total for k, v in funcs.items()} if total else {})
        ms.append(dict({k: v * period / 1e6 for k, v in funcs.items()},
                       **{'[all kernel samples]': total * period / 1e6}))
    return shares, ms


def baseline_samples(path):
    """{figure: (samples, unit)} of a baseline: a bench/compare JSON
    (side A, or B with FILE:b), or a directory of the perf tests' JSON
    files.  OSError, ValueError (not JSON) or KeyError/TypeError (not
    compare's)."""
    side = 'a'
    if path.endswith(':a') or path.endswith(':b'):
        path, side = path[:-2], path[-1]
    if os.path.isdir(path):
        figs, units = load_side(side_files(path))
        return {f: (v, units.get(f)) for f, v in figs.items()}
    with open(path) as f:
        obj = json.load(f)
    return {r['figure']: (obj['samples'][side][r['figure']], r['unit'])
            for r in obj.get('results', [])}


def baseline_values(path, figure):
    """The baseline samples of @figure and its unit (None, None if the
    baseline has no such figure): baseline_samples()."""
    return baseline_samples(path).get(figure, (None, None))


def rc_text(rc):
    """A run's exit status in words."""
    return {0: 'ok', 4: 'SKIPPED (exit 4)',
            137: 'FAILED: hung, killed (exit 137)'}.get(rc, 'FAILED (exit %d)' % rc)


def elapsed(start, now=None):
    """'M:SS elapsed' since @start (time.monotonic())."""
    el = int((time.monotonic() if now is None else now) - start)
    return '%d:%02d elapsed' % (el // 60, el % 60)


def progress(done, total, start, now=None):
    """'DONE of TOTAL, M:SS elapsed, ~N min left'."""
    now = time.monotonic() if now is None else now
    el = int(now - start)
    left = ''
    if done:
        left = ', ~%d min left' % ((el * (total - done) // done + 30) // 60)
    return '%d of %d, %s%s' % (done, total, elapsed(start, now), left)


class Results:
    """A comparison's output directory (see the module's doc): record()
    files one run, feed() a VM's console; progress and every failed run's
    output on @err as 'NAME: ...'."""

    def __init__(self, out, name, start=None, err=None):
        self.out, self.name = out, name
        self.start = time.monotonic() if start is None else start
        self.total = 0
        self.err = err or sys.stderr
        for d in ('a', 'b', 'warmup', 'logs'):
            os.makedirs(os.path.join(out, d), exist_ok=True)

    def path(self, *parts):
        return os.path.join(self.out, *parts)

    def status(self):
        """The lines of OUT/status, split."""
        try:
            with open(self.path('status')) as f:
                return [line.split() for line in f if line.strip()]
        except FileNotFoundError:
            return []

    def _status(self, *words):
        with open(self.path('status'), 'a') as f:
            f.write(' '.join(str(w) for w in words) + '\n')

    def count(self, what, side=None):
        """Runs (or bootfail lines) that were @what, warm-ups included."""
        return sum(1 for s in self.status()
                   if s[0] == what and (side is None or s[1] == side))

    def kept(self, side):
        """The JSON files of @side's kept runs."""
        return side_files(self.path(side))

    def record(self, side, idx, warm, rc, output, json_text=None):
        """File one run: its output lines, its JSON (text, or None)."""
        log = self.path('logs', '%s-%s.log' % (side, idx))
        with open(log, 'w') as f:
            f.writelines(line + '\n' for line in output)
        if json_text is not None:
            dest = (self.path('warmup', '%s-%s.json' % (side, idx)) if warm
                    else self.path(side, '%s.json' % idx))
            with open(dest, 'w') as f:
                f.write(json_text)
        what = 'ok' if rc == 0 and (warm or json_text) else 'fail'
        if rc == 4:
            what = 'skip'
        self._status(what, side, idx, rc)
        if what != 'ok':
            print('---- %s run #%s: %s; its output:' % (side.upper(), idx, rc_text(rc)),
                  file=self.err)
            for line in output[-40:]:
                print(line, file=self.err)
            print('----', file=self.err)
        print('%s: run %s: %s #%s%s %s' %
              (self.name, progress(len(self.status()), self.total, self.start),
               side.upper(), idx, ' (warm-up)' if warm else '', rc_text(rc)),
              file=self.err, flush=True)

    def boot_failed(self, side, idx, rc):
        self._status('bootfail', side, idx, rc)

    def feed(self, lines):
        """File the runs reported on a VM's console (the protocol above);
        other lines go to OUT/console.log, a hung run's HANG lines to its
        output."""
        run = None          # [side, idx, warm, output]
        json_lines = json_text = None
        with open(self.path('console.log'), 'a') as console:
            for line in lines:
                line = line.rstrip('\n').replace('\r', '')
                if line.startswith('CMP-START '):
                    w = line.split()
                    run = [w[1], w[2], w[3] == '1', []]
                    json_text = None
                elif line.startswith('CMP-OUT ') and run:
                    run[3].append(line[len('CMP-OUT '):])
                elif line == 'CMP-JSON-BEGIN':
                    json_lines = []
                elif line == 'CMP-JSON-END':
                    json_text = '\n'.join(json_lines) + '\n'
                    json_lines = None
                elif line.startswith('CMP-END ') and run:
                    rc = int(line.split()[3])
                    self.record(run[0], run[1], run[2], rc, run[3], json_text)
                    run[3], json_text = [], None
                elif json_lines is not None:
                    json_lines.append(line)
                elif run and line.startswith('HANG'):
                    run[3].append(line)
                else:
                    console.write(line + '\n')
        if run and run[3]:      # the boot ended inside a run: its output so far
            with open(self.path('logs', '%s-%s.log' % (run[0], run[1])), 'w') as f:
                f.writelines(line + '\n' for line in run[3])

    def first_skip_reason(self):
        """The first line of the logs that says why the test skipped."""
        for log in sorted(glob.glob(self.path('logs', '*'))):
            with open(log, errors='replace') as f:
                for line in f:
                    if 'skip' in line.lower():
                        return line.rstrip('\n')
        return ''
