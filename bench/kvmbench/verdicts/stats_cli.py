# SPDX-License-Identifier: GPL-2.0-only
"""kvmbench.verdicts.stats_cli: the statistics on the command line (bench/stats.py).

  compare A_DIR B_DIR   the table and VERDICT lines of A against B
  judge B_DIR           good or bad of one figure against a baseline
  until A_DIR B_DIR     is every timing resolved to +-PCT at this look?
  spread DIR...         the A/A spread of the timings, runs to decide a change
  schedule FIRST LAST   runs a side at each look of --until
  median [--cv]         numbers on stdin, one a line: "median min max [cv%]"
"""
import argparse
import json
import math
import sys

from .render import (Table, default_plot, fmt, fmt_exact, print_profile, print_table, verdict_line,
                     write_plot)
from .results import (baseline_values, load_profiles, load_side, load_sides, side_files,
                      side_hosts)
from .stats import (FAMILY_LEVEL, TooFewRuns, compare_figures, compare_profiles,
                    figure_alpha, is_timing, judge, look_schedule, median_min_max,
                    runs_to_decide, summary, widest)


# ---- subcommands -----------------------------------------------------------

def cmd_compare(args):
    a_figs, b_figs, units = load_sides(args.a, args.b)
    if not a_figs or not b_figs:
        print('stats.py: no figures: A has %d runs, B %d' %
              (len(side_files(args.a)), len(side_files(args.b))), file=sys.stderr)
        return 1
    try:
        results, level, m = compare_figures(a_figs, b_figs, units, args.level / 100,
                                            args.looks)
    except TooFewRuns as e:
        print('stats.py: %s; no verdict' % e, file=sys.stderr)
        return 3
    if args.figures:
        wanted = args.figures.split(',')
        results = [r for r in results
                   if r['figure'] in wanted or is_timing(r) or r['verdict'] != 'same']
    for side, d in (('A', args.a), ('B', args.b)):
        print('%s ran on %s' % (side, side_hosts(side_files(d))))
    print('%d runs of A, %d of B; B/A is the Hodges-Lehmann shift of log values (the '
          'median of the ratios of each run of B to each of A), [lo, hi] its exact '
          'Mann-Whitney interval, simultaneous %g%% over the %d figures that vary%s '
          '(Bonferroni: each at %.3f%%)' %
          (len(side_files(args.a)), len(side_files(args.b)), args.level, m,
           ' and %d looks' % args.looks if args.looks > 1 else '', level * 100))
    print_table(results)
    prof, prof_level, judged = compare_profiles(
        load_profiles(side_files(args.a), args.profile_phase),
        load_profiles(side_files(args.b), args.profile_phase), args.level / 100)
    if judged or prof:
        print_profile(prof, prof_level, judged, len(side_files(args.a)),
                      len(side_files(args.b)), args.level / 100, args.profile_phase)
    print()
    for r in results:
        print(verdict_line(r))
    if args.json:
        with open(args.json, 'w') as f:
            json.dump({'title': args.title, 'family_level': args.level / 100,
                       'figure_level': level, 'looks': args.looks,
                       'method': 'hodges-lehmann log shift, exact mann-whitney interval',
                       'results': results, 'profile': prof,
                       'samples': {'a': a_figs, 'b': b_figs}}, f, indent=1)
    if args.plot:
        figs = args.figures.split(',') if args.figures else default_plot(results)
        try:
            png = write_plot(results, figs, a_figs, b_figs, args.plot, args.title or '')
        except ImportError:
            print('no plot: matplotlib is missing (apt-get install python3-matplotlib)',
                  file=sys.stderr)
        else:
            if png:
                print('plot: %s' % png, file=sys.stderr)
    return 0


def cmd_judge(args):
    """Exit 0 (good), 1 (bad), 2 (figure missing): B is bad if it is worse
    beyond the noise and by more than the threshold."""
    base, unit = baseline_values(args.baseline, args.figure)
    figs, units = load_side(side_files(args.b))
    if not base or args.figure not in figs:
        print('stats.py: figure %s not in the %s' %
              (args.figure, 'baseline' if not base else 'runs'), file=sys.stderr)
        return 2
    try:
        bad, r = judge(args.figure, base, figs[args.figure], unit or units[args.figure],
                       args.threshold)
    except TooFewRuns as e:
        print('stats.py: %s; no verdict' % e, file=sys.stderr)
        return 3
    res = [r]
    print_table(res)
    print(verdict_line(r))
    print('JUDGE figure=%s threshold=%g%% verdict=%s' %
          (args.figure, args.threshold, 'bad' if bad else 'good'))
    return 1 if bad else 0


def until_line(a, b, pct, looks, level=FAMILY_LEVEL * 100):
    """(0 when every timing's interval at this look is narrower than
    +-@pct, 1 when not yet, 3 when too few runs for an interval; the
    UNTIL line saying so) for the runs in directories @a and @b."""
    a_figs, b_figs, units = load_sides(a, b)
    n_a, n_b = len(side_files(a)), len(side_files(b))
    try:
        results, _, _ = compare_figures(a_figs, b_figs, units, level / 100, looks)
    except TooFewRuns:
        return 3, 'UNTIL runs=%d,%d resolved=no widest=inf figure=none' % (n_a, n_b)
    ok, w, name = widest(results, pct)
    return (0 if ok else 1), ('UNTIL runs=%d,%d resolved=%s widest=%.3g figure=%s' %
                              (n_a, n_b, 'yes' if ok else 'no', w, name))


def cmd_until(args):
    rc, line = until_line(args.a, args.b, args.pct, args.looks, args.level)
    print(line)
    return rc


def cmd_spread(args):
    """The A/A spread of each timing in runs of one setup (both sides
    pooled when given two directories), and the runs a side to decide a
    --change with 80% power, each figure at the family level split over
    the timings (Bonferroni)."""
    figs, units = {}, {}
    for d in args.dirs:
        f, u = load_side(side_files(d))
        units.update(u)
        for k, v in f.items():
            figs.setdefault(k, []).extend(v)
    timings = [k for k in figs if is_timing({'unit': units[k]}) and min(figs[k]) > 0
               and (not args.figures or k in args.figures.split(','))]
    alpha = figure_alpha(args.level / 100, len(timings))
    t = Table(['figure', 'runs', 'median', 'spread (max-min)/median', 'robust sd of log',
               'runs a side to decide %g%%' % (args.change * 100)])
    for k in timings:
        s = summary(figs[k])
        n, sd = runs_to_decide([math.log(x) for x in figs[k]], args.change, alpha)
        t.add('%s (%s)' % (k, units[k]), s['n'], fmt(s['median']), '%.1f%%' % (s['spread'] * 100),
              '%.3f' % sd, n)
    print(t.markdown(), end='')
    print('(each figure at %.4g%%: %g%% simultaneous over %d timings; 80%% power)' %
          ((1 - alpha) * 100, args.level, len(timings)))
    return 0


def figure_value(results, figure, key):
    """@key of @figure in compare.json's @results as bench/compare's
    VERDICT line gives it (a and b: the side's median); None if the
    figure is not there."""
    for r in results:
        if r['figure'] == figure:
            if key in ('verdict', 'unit'):
                return r[key]
            return fmt_exact(r[key]['median'] if key in ('a', 'b') else r[key])
    return None


def cmd_figure(args):
    try:
        with open(args.json) as f:
            results = json.load(f)['results']
    except (OSError, ValueError, KeyError) as e:
        print('bench/stats.py figure: %s: %s' % (args.json, e), file=sys.stderr)
        return 2
    v = figure_value(results, args.figure, args.key)
    if v is None:
        print('bench/stats.py figure: no figure %s in %s' % (args.figure, args.json), file=sys.stderr)
        return 1
    print(v)
    return 0


def median_text(words):
    """'median min max' of numbers given as text, each as given (min,
    max, an odd count's median) or, for the mean of the middle two, as
    awk prints a number (%.6g unless whole)."""
    vals = sorted(words, key=float)
    if not vals:
        return '0 0 0'
    med, lo, hi = median_min_max([float(v) for v in vals])
    n = len(vals)
    if n % 2:
        med = vals[n // 2]
    else:
        med = '%d' % med if med == int(med) else '%.6g' % med
    return '%s %s %s' % (med, vals[0], vals[-1])


def cv_pct(words):
    """The sample sd over the mean of numbers given as text, in percent;
    0 for fewer than two or a zero mean."""
    xs = [float(w) for w in words]
    if len(xs) < 2 or not sum(xs):
        return 0.0
    s = summary(xs)
    return 100 * s['sd'] / s['mean']


def main(argv):
    ap = argparse.ArgumentParser(prog='bench/stats.py',
                                 description='every statistic of the bench scripts, in one place')
    sub = ap.add_subparsers(dest='cmd', required=True)
    c = sub.add_parser('compare', help='table and VERDICT lines for A against B')
    c.add_argument('a', help='directory of A runs (JSON files)')
    c.add_argument('b', help='directory of B runs')
    c.add_argument('--json', help='write the comparison here')
    c.add_argument('--plot', help='the plot, PREFIX.png (matplotlib)')
    c.add_argument('--figures', help='comma-separated figures to plot')
    c.add_argument('--title', default='')
    c.add_argument('--level', type=float, default=FAMILY_LEVEL * 100,
                   help='simultaneous confidence level in percent (default 95)')
    c.add_argument('--profile-phase', help="--profile: compare this phase's samples only")
    c.add_argument('--looks', type=int, default=1,
                   help='looks of a sequential comparison the level is split over')
    j = sub.add_parser('judge', help='good/bad of one figure against a baseline')
    j.add_argument('b', help='directory of the runs to judge')
    j.add_argument('--baseline', required=True)
    j.add_argument('--figure', required=True)
    j.add_argument('--threshold', type=float, required=True)
    u = sub.add_parser('until', help='is every timing resolved to +-PCT at this look?')
    u.add_argument('a')
    u.add_argument('b')
    u.add_argument('--pct', type=float, required=True)
    u.add_argument('--looks', type=int, required=True)
    u.add_argument('--level', type=float, default=FAMILY_LEVEL * 100)
    sp = sub.add_parser('spread', help='A/A spread of the timings, runs to decide a change')
    sp.add_argument('dirs', nargs='+', help='directories of runs of one setup')
    sp.add_argument('--change', type=float, default=0.05)
    sp.add_argument('--figures', help='comma-separated timings (default: all)')
    sp.add_argument('--level', type=float, default=FAMILY_LEVEL * 100)
    md = sub.add_parser('median', help='numbers on stdin: "median min max"')
    md.add_argument('--cv', action='store_true',
                    help='and the coefficient of variation, sd/mean in percent')
    fg = sub.add_parser('figure', help="one figure's verdict or value from a compare.json")
    fg.add_argument('json', help="bench/compare's compare.json")
    fg.add_argument('figure')
    fg.add_argument('key', choices=('verdict', 'a', 'b', 'ratio', 'lo', 'hi', 'unit'),
                    help="a and b: the side's median")
    s = sub.add_parser('schedule', help='runs a side at each look: FIRST .. LAST')
    s.add_argument('first', type=int)
    s.add_argument('last', type=int)
    args = ap.parse_args(argv)
    if args.cmd == 'median':
        words = sys.stdin.read().split()
        print(median_text(words) + (' %.1f' % cv_pct(words) if args.cv else ''))
        return 0
    if args.cmd == 'figure':
        return cmd_figure(args)
    if args.cmd == 'schedule':
        print(' '.join(map(str, look_schedule(args.first, args.last))))
        return 0
    return {'compare': cmd_compare, 'judge': cmd_judge, 'until': cmd_until,
            'spread': cmd_spread}[args.cmd](args)


if __name__ == '__main__':
    sys.exit(main(sys.argv[1:]))
