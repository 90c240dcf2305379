# SPDX-License-Identifier: GPL-2.0-only
"""kvmbench.verdicts.render: what a comparison prints, apart from how it was made.

The verdict table of bench/compare (print_table: two rows a figure, the
verdict on B's), the VERDICT and PROFILE lines scripts read, the kernel
profile's table, the plot (matplotlib), and Table: rows rendered as Markdown
or as aligned plain text, for tables that go into documents and mails.
"""
import math
import sys

from .stats import (FAMILY_LEVEL, PROFILE_MIN_SHARE, PROFILE_TOP, constant,
                    is_timing)


class Table:
    """Rows under a header, rendered as a Markdown table or as plain
    text in aligned columns (columns of numbers right-aligned)."""

    def __init__(self, header):
        self.header = [str(h) for h in header]
        self.rows = []

    def add(self, *cells):
        self.rows.append([str(c) for c in cells])

    def markdown(self):
        lines = ['| %s |' % ' | '.join(self.header),
                 '| %s |' % ' | '.join('---' for _ in self.header)]
        lines += ['| %s |' % ' | '.join(r) for r in self.rows]
        return '\n'.join(lines) + '\n'

    def text(self):
        w = [max(len(r[i]) for r in [self.header] + self.rows)
             for i in range(len(self.header))]

        def numeric(cell):
            try:
                float(cell.rstrip('%'))
                return True
            except ValueError:
                return False

        right = [all(numeric(r[i]) for r in self.rows) for i in range(len(w))]

        def line(r):
            return '  '.join(c.rjust(w[i]) if right[i] else c.ljust(w[i])
                             for i, c in enumerate(r)).rstrip()
        out = [line(self.header), '  '.join('-' * x for x in w)]
        return '\n'.join(out + [line(r) for r in self.rows]) + '\n'


def print_profile(rows, level, judged, n_a, n_b, family_level, phase=None, out=None):
    out = out or sys.stdout
    print('\nkernel functions whose share of the samples changed most (--profile: CPU-clock '
          'samples of the test\'s threads in the kernel while timed%s; %d runs of A, %d of B; '
          'B-A in percentage points, Hodges-Lehmann, [lo, hi] exact, simultaneous %g%% over '
          'the %d functions with >= %g%% of the samples%s):' %
          (', phase %s only' % phase if phase else '', n_a, n_b, family_level * 100,
           judged, PROFILE_MIN_SHARE,
           '' if level else '; too few runs for intervals at that level: no verdict'), file=out)
    if not rows:
        print('  (no function with that share)', file=out)
        return
    shown = rows[:-1][:PROFILE_TOP] + rows[-1:]     # the last: all samples, in ms
    w = max(len(r['function']) for r in shown)
    print('  %-*s %8s %8s %9s %9s  %-20s %s' % (w, 'function', 'A %', 'B %', 'A ms', 'B ms',
                                                'B-A [lo, hi]', 'verdict'), file=out)
    for r in shown:
        iv = '[%.2f, %.2f]' % (r['lo'], r['hi']) if level else ''
        print('  %-*s %8.2f %8.2f %9.2f %9.2f  %-20s %s' %
              (w, r['function'], r['a'], r['b'], r['a_ms'], r['b_ms'],
               '%+.2f %s' % (r['shift'], iv), r['verdict'] if level else '-'), file=out)
    for r in rows[:-1]:
        print('PROFILE function=%s a=%.4g b=%.4g shift=%.4g lo=%s hi=%s verdict=%s' %
              (r['function'].replace(' ', '_'), r['a'], r['b'], r['shift'],
               fmt_exact(r['lo']) if level else 'nan', fmt_exact(r['hi']) if level else 'nan',
               r['verdict'] if level else 'none'), file=out)


# ---- printing ------------------------------------------------------------

def fmt(v):
    if v is None or (isinstance(v, float) and math.isnan(v)):
        return 'nan'
    if math.isinf(v):
        return 'inf'
    a = abs(v)
    if a and (a >= 1e7 or a < 1e-3):
        return '%.3e' % v
    if a >= 100:
        return '%.0f' % v
    return '%.4g' % v


def verdict_text(r):
    if r['verdict'] == 'same':
        if constant(r):
            return 'no difference: the same in every run'
        if math.isinf(r['rules_out']) or math.isnan(r['rules_out']):
            return "no difference beyond the noise (A's median is 0: no bound in %)"
        return 'no change larger than %.3g%% in either direction at %g%%' % (
            r['rules_out'], r.get('family', FAMILY_LEVEL) * 100)
    if math.isinf(r['pct']):
        return "B %s: A's median is 0, B's %s (no ratio)" % (r['verdict'],
                                                             fmt(r['b']['median']))
    return 'B %s by %.1f%% [%.1f, %.1f]' % (r['verdict'], r['pct'], r['pct_lo'],
                                            r['pct_hi'])


def print_table(results, out=None):
    """Two rows a figure, A then B, the ratio and verdict on B's row;
    timings first; figures constant over all runs of both sides in one
    line at the end."""
    out = out or sys.stdout
    rows = sorted((r for r in results if not constant(r)), key=lambda r: not is_timing(r))
    w = max([len('%s (%s)' % (r['figure'], r['unit'])) for r in rows] + [12])
    print('%-*s %4s %10s %10s %10s %23s %7s  %-24s %s' %
          (w, 'figure (unit)', '', 'median', 'mean', 'sd', '[min-max]', 'spread',
           'B/A [lo, hi]', 'verdict'), file=out)
    for r in rows:
        for side in 'ab':
            s = r[side]
            name = '%s (%s)' % (r['figure'], r['unit']) if side == 'a' else ''
            tail = ''
            if side == 'b':
                tail = '  %-24s %s' % ('%s [%s, %s]' % (fmt(r['ratio']), fmt(r['lo']),
                                                        fmt(r['hi'])), verdict_text(r))
            print('%-*s %4s %10s %10s %10s %23s %6.1f%%%s' %
                  (w, name, side.upper(), fmt(s['median']), fmt(s['mean']),
                   fmt(s['sd']), '[%s-%s]' % (fmt(s['min']), fmt(s['max'])),
                   s['spread'] * 100, tail), file=out)
    same = ['%s=%s' % (r['figure'], fmt(r['a']['median'])) for r in results if constant(r)]
    if same:
        print('the same in every run of A and B: ' + ', '.join(same), file=out)


def verdict_line(r):
    return ('VERDICT figure=%s unit=%s a=%s b=%s ratio=%s lo=%s hi=%s rules_out=%s '
            'verdict=%s' %
            (r['figure'], r['unit'].replace(' ', '_'), fmt_exact(r['a']['median']),
             fmt_exact(r['b']['median']), fmt_exact(r['ratio']), fmt_exact(r['lo']),
             fmt_exact(r['hi']), fmt_exact(r['rules_out']), r['verdict']))


def fmt_exact(v):
    return 'inf' if math.isinf(v) else ('nan' if math.isnan(v) else '%.6g' % v)


# ---- the plot ------------------------------------------------------------


def default_plot(results):
    """Up to four timings: those that moved first."""
    timing = [r for r in results if is_timing(r)]
    timing.sort(key=lambda r: r['verdict'] == 'same')
    return [r['figure'] for r in timing[:4]]


def plot_figure(results, figures, a_figs, b_figs, title):
    """A matplotlib figure drawing both distributions of each chosen
    figure (a row each: every run a point, A blue, B red, the medians
    dashed), or None if none of @figures is in @results.  ImportError
    without matplotlib (Debian's python3-matplotlib)."""
    chosen = [r for r in results if r['figure'] in figures]
    if not chosen:
        return None
    import matplotlib
    matplotlib.use('Agg')
    import matplotlib.pyplot as plt
    rows = len(chosen)
    fig, axes = plt.subplots(rows, 1, figsize=(7.2, (150 * rows + 40) / 100.0), dpi=100,
                             squeeze=False)
    fig.suptitle(title, fontsize=9)
    for ax, r in zip(axes[:, 0], chosen):
        for x, vals, colour in ((1, a_figs[r['figure']], '#1f77b4'),
                                (2, b_figs[r['figure']], '#d62728')):
            ax.plot([x + ((j * 7919) % 21 - 10) / 60.0 for j in range(len(vals))], vals, 'o',
                    ms=3, color=colour)
        for side, colour in (('a', '#1f77b4'), ('b', '#d62728')):
            ax.axhline(r[side]['median'], color=colour, ls='--', lw=1)
        ax.set_xlim(0.4, 2.6)
        ax.set_xticks([1, 2])
        ax.set_xticklabels(['A', 'B'])
        ax.set_title('%s (%s): %s' % (r['figure'], r['unit'], verdict_text(r)), fontsize=8)
        ax.set_ylabel(r['unit'], fontsize=8)
        ax.tick_params(labelsize=7)
    fig.tight_layout()
    return fig


def write_plot(results, figures, a_figs, b_figs, prefix, title):
    """plot_figure's PNG as @prefix.png; its path, or None (no figure
    chosen; ImportError without matplotlib)."""
    fig = plot_figure(results, figures, a_figs, b_figs, title)
    if fig is None:
        return None
    import matplotlib.pyplot as plt
    path = prefix + '.png'
    fig.savefig(path, format='png')
    plt.close(fig)
    return path
