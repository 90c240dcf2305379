# SPDX-License-Identifier: GPL-2.0-only
"""kvmbench.tracking.trackreport: bench/track's report, track.html (one file, its
plots embedded as PNG) and track.md (for a mail: the same tables, the
plots as files beside it).

The changes come first (kvmbench.tracking.trackjudge.changes), a table, then a
block a change (one step of one figure: its neighbour verdict and
change point together): its plot beside its verdicts, the changelog
entries most likely on its path, every entry folded (<details>); a
block is CHANGE_PARTS, each a function of the change, in order (add one
to show more).  Then a plot a figure across the stream: every run a
point, each kernel's median, each neighbour pair's interval drawn as the
range of the later kernel's median that the pair's ratio interval
allows, change points as vertical lines between the two kernels, the
axis in the figure's unit at a readable scale, a legend; then the tables
of every neighbour verdict.  Every changelog entry of a change is also in
trackjudge.changelog_file()."""
import base64
import html
import io
import os

from kvmbench.verdicts.render import Table
from kvmbench.vmrun import cli, runner
from . import trackjudge

STYLE = ('body{font-family:sans-serif;max-width:80em;margin:1em auto}'
         'table{border-collapse:collapse}td,th{border:1px solid #bbb;padding:2px 6px}'
         '.worse{color:#b00}.better{color:#070}'
         '.change-row{display:flex;gap:1em;align-items:flex-start}'
         '.change-row img{flex:none;max-width:60%}.change-text{flex:1;font-size:90%}')


def scale(unit, values):
    """(divisor, unit) that shows @values (in @unit) at a readable scale:
    ns as us, ms or s; a rate (X/s) in thousands or millions."""
    top = max((abs(v) for v in values), default=0)
    if unit == 'ns':
        for div, name in ((1e9, 's'), (1e6, 'ms'), (1e3, 'us')):
            if top >= div:
                return div, name
    elif unit.endswith('/s'):
        for div, name in ((1e6, 'M '), (1e3, 'k ')):
            if top >= div:
                return div, name + unit
    return 1, unit


def have_matplotlib():
    return runner.debian_module('matplotlib') is not None


def plot(s, f):
    """One figure's PNG (bytes)."""
    import matplotlib
    matplotlib.use('Agg')
    import matplotlib.pyplot as plt
    from matplotlib.lines import Line2D
    ks = s['kernels']
    div, unit = scale(f['unit'], [v for vals in f['values'] for v in vals])
    fig, ax = plt.subplots(figsize=(max(6, 1.1 * len(ks)), 3.6))
    for i, vals in enumerate(f['values']):
        vals = [v / div for v in vals]
        n = len(vals)
        xs = [i + (j - (n - 1) / 2) * 0.06 for j in range(n)]
        ax.plot(xs, vals, 'o', ms=4, color='#1f5fa8', alpha=.75)
        if vals:
            med = sorted(vals)[n // 2] if n % 2 else sum(sorted(vals)[n // 2 - 1:n // 2 + 1]) / 2
            ax.plot([i - .3, i + .3], [med, med], '-', color='#333')
    colours = {'worse': '#b00', 'better': '#070', 'same': '#999'}
    for r in f['neighbours']:
        i = r['i']
        base = r['a']['median'] / div
        lo, hi = base * r['lo'], base * r['hi']
        ax.plot([i - .4, i - .4], [lo, hi], '-', lw=3,
                color=colours.get(r['verdict'], '#999'), alpha=.6)
    for p in f['points']:
        ax.axvline(p['g'] - .5, color='#d60', ls='--', lw=1.5)
        ax.text(p['g'] - .5, ax.get_ylim()[1], ' change point p=%.3f' % p['p'],
                color='#d60', va='top', fontsize=8)
    ax.ticklabel_format(axis='y', style='plain', useOffset=False)
    legend = [Line2D([], [], ls='', marker='o', ms=4, color='#1f5fa8', label='a run'),
              Line2D([], [], color='#333', label="a kernel's median")] + [
        Line2D([], [], lw=3, color=colours[v], alpha=.6, label='its interval from the kernel '
               'before: %s' % ('no change' if v == 'same' else v))
        for v in ('worse', 'better', 'same') if any(r['verdict'] == v for r in f['neighbours'])]
    if f['points']:
        legend.append(Line2D([], [], color='#d60', ls='--', label='change point'))
    ax.legend(handles=legend, fontsize=7, loc='best', framealpha=.8)
    ax.set_xticks(range(len(ks)))
    ax.set_xticklabels([k if len(k) < 24 else '...' + k[-20:] for k in ks], rotation=30,
                       ha='right', fontsize=8)
    ax.set_ylabel('%s (%s)' % (f['figure'], unit))
    ax.set_title('%s %s: %s' % (s['arch'], s['command'], s['line']), fontsize=9)
    fig.tight_layout()
    buf = io.BytesIO()
    fig.savefig(buf, format='png', dpi=90)
    plt.close(fig)
    return buf.getvalue()


def change_rows(judged):
    rows = []
    for c in trackjudge.changes(judged):
        r = c['r']
        rows.append([c['arch'], c['command'], c['figure'], '%s -> %s' % (r['a_kernel'],
                                                                         r['b_kernel']),
                     trackjudge.words(r), c['kind'] + (' p=%.3f' % r['p'] if 'p' in r else ''),
                     r['verdict']])
    return rows


def attribution(c):
    """The report of a bench/attribute run on change @c, or None."""
    from kvmbench.attribution import attribute
    r = c['r']
    try:
        with open(attribute.report_path(c['arch'], r['a_kernel'], r['b_kernel'],
                                        c['figure'])) as f:
            return f.read()
    except OSError:
        return None


def neighbour_rows(s, f):
    return [['%s -> %s' % (r['a_kernel'], r['b_kernel']), '%.4g' % r['a']['median'],
             '%.4g' % r['b']['median'], '%.4f [%.4f, %.4f]' % (r['ratio'], r['lo'], r['hi']),
             trackjudge.words(r), r['verdict']] for r in f['neighbours']]


CHANGE_HEAD = ['arch', 'command', 'figure', 'kernels', 'change', 'found by']
NEIGH_HEAD = ['pair', 'median before', 'median after', 'ratio [interval]', 'verdict']


def html_table(head, rows):
    out = ['<table><tr>' + ''.join('<th>%s</th>' % html.escape(h) for h in head) + '</tr>']
    for r in rows:
        cls = r[-1]
        out.append('<tr class="%s">' % html.escape(cls) +
                   ''.join('<td>%s</td>' % html.escape(str(x)) for x in r[:-1]) + '</tr>')
    return '\n'.join(out + ['</table>'])


def md_table(head, rows):
    """The Markdown table (render.Table) of @rows, each without its last
    cell (the HTML table's class)."""
    t = Table(head)
    for r in rows:
        t.add(*r[:-1])
    return t.markdown().rstrip('\n')


def steps(judged):
    """The changes grouped by step: [(the first change, [every change of
    that arch, command, figure and kernel pair])], in changes() order."""
    out = {}
    for c in trackjudge.changes(judged):
        r = c['r']
        out.setdefault((c['arch'], c['command'], c['figure'], r['a_kernel'], r['b_kernel']),
                       []).append(c)
    return [(cs[0], cs) for cs in out.values()]


def step_name(c):
    r = c['r']
    return '%s %s %s: %s -> %s' % (c['arch'], c['command'], c['figure'], r['a_kernel'],
                                   r['b_kernel'])


def verdict_part(judged, cs):
    """A change's verdicts, one a way it was found."""
    return ['<ul class="verdicts">'] + [
        '<li class="%s">%s (%s)</li>' % (html.escape(c['r']['verdict']), html.escape(
            trackjudge.words(c['r'])), html.escape(c['kind'] + (
                ' p=%.3f' % c['r']['p'] if 'p' in c['r'] else ''))) for c in cs] + ['</ul>']


def likely_part(judged, cs):
    """The changelog entries most likely on the figure's path (TOP)."""
    ranked, att = trackjudge.likely(judged, cs[0])
    if att is None:
        return ['<p>No Debian changelog for these kernels.</p>']
    if not ranked:
        return ['<p>None of the %d KVM/mm changelog entries names this figure\'s path.</p>'
                % len(att['entries'])]
    return ['<h4>Most likely on its path</h4><p>%d of %d KVM/mm changelog entries name the '
            'files, functions or mechanism %s runs through; the first %d:</p><ol>' % (
                len(ranked), len(att['entries']), html.escape(cs[0]['figure']),
                min(trackjudge.TOP, len(ranked)))] + [
        '<li class="changelog-entry">%s: %s</li>' % (html.escape(v), html.escape(e))
        for _, v, e in ranked[:trackjudge.TOP]] + ['</ol>']


def changelog_part(judged, cs):
    """Every KVM/mm entry of the Debian changelog, folded."""
    r = cs[0]['r']
    att = judged.get('attribution', {}).get((cs[0]['arch'], r['a_kernel'], r['b_kernel']))
    if att is None:
        return []
    return ['<details><summary>All %d KVM/mm entries of the Debian changelog, %s -&gt; %s '
            '(also in %s)</summary><ul>' % (
                len(att['entries']), html.escape(r['a_kernel']), html.escape(r['b_kernel']),
                html.escape(trackjudge.changelog_file(cs[0]['arch'], r['a_kernel'],
                                                      r['b_kernel'])))] + [
        '<li class="changelog-entry">%s: %s</li>' % (html.escape(v), html.escape(e))
        for v, e in att['entries']] + ['</ul></details>']


def attribution_head(c):
    return 'bench/attribute, %s %s %s -> %s' % (c['arch'], c['figure'], c['r']['a_kernel'],
                                                c['r']['b_kernel'])


def attribution_part(judged, cs):
    """The report of a bench/attribute run on the step, when one was run."""
    got = attribution(cs[0])
    if not got:
        return []
    return ['<h4>%s</h4><pre class="attribution">%s</pre>' % (
        html.escape(attribution_head(cs[0])), html.escape(got))]


# A change's block, beside its plot: each part a function (judged, the
# step's changes) -> HTML lines, in order.
CHANGE_PARTS = [verdict_part, attribution_part, likely_part, changelog_part]


def change_block(judged, cs, img):
    """One step's block: its plot (@img, HTML) beside CHANGE_PARTS."""
    out = ['<section class="change"><h3>%s</h3><div class="change-row">' %
           html.escape(step_name(cs[0])), img, '<div class="change-text">']
    for part in CHANGE_PARTS:
        out += part(judged, cs)
    return out + ['</div></div></section>']


def write(judged, out):
    """track.html, track.md, the plots (PNG) and every change's changelog
    (trackjudge.changelog_file) into @out: their paths."""
    cli.make_out(out, 'bench/track')
    plots = have_matplotlib()
    title = 'KVM across the kernel stream'
    h = ['<!DOCTYPE html><html><head><meta charset="utf-8"><title>%s</title><style>%s'
         '</style></head><body><h1>%s</h1>' % (title, STYLE, title)]
    md = ['# %s' % title, '']
    intro = ('Changes at %g%% simultaneous over every neighbour pair, command and figure '
             '(bench/stats.py\'s exact intervals); change points by E-Divisive means with a '
             'permutation test.' % judged['level'])
    h.append('<p>%s</p><h2>Changes</h2>' % html.escape(intro))
    md += [intro, '', '## Changes', '']
    rows = change_rows(judged)
    h.append(html_table(CHANGE_HEAD, rows) if rows else '<p>None.</p>')
    md += [md_table(CHANGE_HEAD, rows) if rows else 'None.', '']
    pngs = {}

    def img(s, f):
        """The figure's plot as HTML (and its file, once), '' without matplotlib."""
        name = '%s %s %s' % (s['arch'], s['command'], f['figure'])
        fn = '%s-%s-%s.png' % (s['arch'], s['command'], f['figure'])
        fn = ''.join(ch if ch.isalnum() or ch in '-_.' else '_' for ch in fn)
        if not plots:
            return '', fn
        if fn not in pngs:
            png = plot(s, f)
            with open(os.path.join(out, fn), 'wb') as fh:
                fh.write(png)
            pngs[fn] = '<img alt="%s" src="data:image/png;base64,%s">' % (
                html.escape(name), base64.b64encode(png).decode())
        return pngs[fn], fn
    figs = {(s['arch'], s['command'], f['figure']): (s, f) for s in judged['streams']
            for f in s['figures']}
    for c, cs in steps(judged):
        tag, fn = img(*figs[(c['arch'], c['command'], c['figure'])])
        h += change_block(judged, cs, tag)
        md += ['### ' + step_name(c), ''] + ['- %s (%s)' % (trackjudge.words(x['r']), x['kind'])
                                             for x in cs] + ['']
        if tag:
            md += ['![%s](%s)' % (step_name(c), fn), '']
        lines = trackjudge.likely_lines(judged, c, '')
        md += lines[:1] + [''] * bool(lines[1:]) + ['- ' + ln.strip() for ln in lines[1:]] + ['']
        got = attribution(c)
        if got:
            md += ['#### ' + attribution_head(c), '', '```', got.rstrip('\n'), '```', '']
    paths = [os.path.join(out, 'track.html'), os.path.join(out, 'track.md')]
    for (arch, a, b), att in sorted(judged.get('attribution', {}).items()):
        path = os.path.join(out, trackjudge.changelog_file(arch, a, b))
        with open(path, 'w') as fh:
            fh.write('# Debian changelog, %s -> %s (%s): %d KVM/mm entries\n' % (
                a, b, arch, len(att['entries'])) + ''.join('%s: %s\n' % e
                                                           for e in att['entries']))
        paths.append(path)
        md += ['All %d KVM/mm entries of %s -> %s (%s): %s' % (
            len(att['entries']), a, b, arch, os.path.basename(path)), '']
    fx = trackjudge.boot_effect_lines(judged)
    if fx:
        h.append('<h2>Boots</h2><p>%s</p><ul>' % html.escape(fx[0]) + ''.join(
            '<li>%s</li>' % html.escape(ln.strip()) for ln in fx[1:]) + '</ul>')
        md += ['## Boots', '', fx[0], ''] + ['- ' + ln.strip() for ln in fx[1:]] + ['']
    if judged['unjudged']:
        h.append('<h2>Not judged</h2><ul>' + ''.join('<li>%s</li>' % html.escape(u)
                                                     for u in judged['unjudged']) + '</ul>')
        md += ['## Not judged', ''] + ['- ' + u for u in judged['unjudged']] + ['']
    h.append('<h2>Figures</h2>')
    md += ['## Figures', '']
    for s in judged['streams']:
        for f in s['figures']:
            name = '%s %s %s' % (s['arch'], s['command'], f['figure'])
            h.append('<h3>%s</h3>' % html.escape(name))
            md += ['### ' + name, '']
            tag, fn = img(s, f)
            if tag:
                h.append(tag)
                md += ['![%s](%s)' % (name, fn), '']
            runs = ', '.join('%s: %d' % (k, s['runs'][k]) for k in s['kernels'])
            h.append('<p>runs: %s</p>' % html.escape(runs))
            rows = neighbour_rows(s, f)
            h.append(html_table(NEIGH_HEAD, rows))
            md += ['runs: ' + runs, '', md_table(NEIGH_HEAD, rows), '']
    h.append('</body></html>')
    with open(paths[0], 'w') as fh:
        fh.write('\n'.join(h) + '\n')
    with open(paths[1], 'w') as fh:
        fh.write('\n'.join(md) + '\n')
    return paths
