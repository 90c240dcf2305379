# SPDX-License-Identifier: GPL-2.0-only
"""kvmbench.trackreport: bench/track's report, track.html (one file, its
plots embedded as PNG) and track.md (for a mail: the same tables, the
plots as files beside it).

The changes come first (kvmbench.trackjudge.changes), then a plot a
figure across the stream: every run a point, each kernel's median, each
neighbour pair's interval drawn as the range of the later kernel's
median that the pair's ratio interval allows, change points as
vertical lines between the two kernels, then the tables of every
neighbour verdict."""
import base64
import html
import io
import os

from . import runner, trackjudge

STYLE = ('body{font-family:sans-serif;max-width:72em;margin:1em auto}'
         'table{border-collapse:collapse}td,th{border:1px solid #bbb;padding:2px 6px}'
         '.worse{color:#b00}.better{color:#070}')


def have_matplotlib():
    return runner.debian_module('matplotlib', 'python3-matplotlib') is not None


def plot(s, f):
    """One figure's PNG (bytes)."""
    import matplotlib
    matplotlib.use('Agg')
    import matplotlib.pyplot as plt
    ks = s['kernels']
    fig, ax = plt.subplots(figsize=(max(6, 1.1 * len(ks)), 3.6))
    for i, vals in enumerate(f['values']):
        n = len(vals)
        xs = [i + (j - (n - 1) / 2) * 0.06 for j in range(n)]
        ax.plot(xs, vals, 'o', ms=4, color='#1f5fa8', alpha=.75)
        if vals:
            med = sorted(vals)[n // 2] if n % 2 else sum(sorted(vals)[n // 2 - 1:n // 2 + 1]) / 2
            ax.plot([i - .3, i + .3], [med, med], '-', color='#333')
    for r in f['neighbours']:
        i = r['i']
        base = r['a']['median']
        lo, hi = base * r['lo'], base * r['hi']
        colour = {'worse': '#b00', 'better': '#070'}.get(r['verdict'], '#999')
        ax.plot([i - .4, i - .4], [lo, hi], '-', lw=3, color=colour, alpha=.6)
    for p in f['points']:
        ax.axvline(p['g'] - .5, color='#d60', ls='--', lw=1.5)
        ax.text(p['g'] - .5, ax.get_ylim()[1], ' change point p=%.3f' % p['p'],
                color='#d60', va='top', fontsize=8)
    ax.set_xticks(range(len(ks)))
    ax.set_xticklabels([k if len(k) < 24 else '...' + k[-20:] for k in ks], rotation=30,
                       ha='right', fontsize=8)
    ax.set_ylabel('%s (%s)' % (f['figure'], f['unit']))
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
    from . import attribute
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
    out = ['| ' + ' | '.join(head) + ' |', '|' + ' --- |' * len(head)]
    out += ['| ' + ' | '.join(str(x) for x in r[:-1]) + ' |' for r in rows]
    return '\n'.join(out)


def write(judged, out):
    """track.html, track.md and the plots (PNG) into @out: their paths."""
    os.makedirs(out, exist_ok=True)
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
    for c in trackjudge.changes(judged):
        got = attribution(c)
        if got:
            head = 'bench/attribute, %s %s %s -> %s' % (c['arch'], c['figure'],
                                                       c['r']['a_kernel'], c['r']['b_kernel'])
            h.append('<h3>%s</h3><pre>%s</pre>' % (html.escape(head), html.escape(got)))
            md += ['### ' + head, '', '```', got.rstrip('\n'), '```', '']
    for (arch, a, b), att in sorted(judged.get('attribution', {}).items()):
        head = 'Debian changelog, %s -> %s (%s): %d KVM/mm entries' % (
            a, b, arch, len(att['entries']))
        h.append('<h3>%s</h3><ul>' % html.escape(head) + ''.join(
            '<li>%s: %s</li>' % (html.escape(v), html.escape(e)) for v, e in att['entries'])
            + '</ul>')
        md += ['### ' + head, ''] + ['- %s: %s' % e for e in att['entries']] + ['']
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
            if plots:
                png = plot(s, f)
                fn = '%s-%s-%s.png' % (s['arch'], s['command'], f['figure'])
                fn = ''.join(ch if ch.isalnum() or ch in '-_.' else '_' for ch in fn)
                with open(os.path.join(out, fn), 'wb') as fh:
                    fh.write(png)
                h.append('<img alt="%s" src="data:image/png;base64,%s">' % (
                    html.escape(name), base64.b64encode(png).decode()))
                md += ['![%s](%s)' % (name, fn), '']
            runs = ', '.join('%s: %d' % (k, s['runs'][k]) for k in s['kernels'])
            h.append('<p>runs: %s</p>' % html.escape(runs))
            rows = neighbour_rows(s, f)
            h.append(html_table(NEIGH_HEAD, rows))
            md += ['runs: ' + runs, '', md_table(NEIGH_HEAD, rows), '']
    h.append('</body></html>')
    paths = [os.path.join(out, 'track.html'), os.path.join(out, 'track.md')]
    with open(paths[0], 'w') as fh:
        fh.write('\n'.join(h) + '\n')
    with open(paths[1], 'w') as fh:
        fh.write('\n'.join(md) + '\n')
    return paths
