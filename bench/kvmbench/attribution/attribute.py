# SPDX-License-Identifier: GPL-2.0-only
"""kvmbench.attribution.attribute: what changed in KVM between two Debian kernels.

  changelog   the entries of the newer linux-image package's Debian
              changelog (usr/share/doc/linux-image-*/changelog.gz, in the
              package vm/run unpacks into its cache) above the older
              one's version: upstream stable commits, one line each, kept
              when they touch KVM or mm and are for this arch (Debian
              tags arch-only entries [amd64], [arm64]);
  sources     where linux-source-SERIES of both upstream versions is in
              the archive: the files under arch/*/kvm, virt/kvm and mm/
              that differ (only those members are unpacked, cached);
  bisect      when only KVM's module sources differ (x86_64: arch/x86/kvm,
              virt/kvm; no mm/), the commands that bisect it: the diff
              split into a series for bench/bisect-run --series.
"""
import filecmp
import gzip
import glob
import os
import re
import subprocess

from kvmbench.base.errors import SetupError, UsageError
from kvmbench.kernels import debian
from kvmbench.kernels.debian import fetched, upstream, version_key

STANZA = re.compile(r'^(\S+) \(([^)]+)\) [^;]*;')
KVM_WORDS = re.compile(r'\bKVM\b|\bkvm\b|virt/kvm|\bkvm_|^mm\b|^mm/|^mm[,:]|\bhugetlb|'
                       r'\bshmem\b|\bmemfd\b|\buserfaultfd\b|\bguest_memfd\b')
TAG = re.compile(r'^\[([^\]]+)\]\s*')
PATHS = ('arch/*/kvm', 'virt/kvm', 'mm')


# The KVM and mm code a figure's timed phase runs through, as a changelog
# entry (an upstream commit's subject) names it: its subsystem prefix,
# files and functions, and the mechanism's words.  (the command, TEST
# ARGS, and the figure: regular expressions; terms.)  Every row that
# matches a command and figure adds its terms; the first row holds what every guest memory access shares, and
# weighs less (rank()).
PATHS = [
    (r'.*', r'.*', ['x86/mmu', 'arm64: mmu', 'tdp_mmu', 'mmu', 'spte', 'sptes', 'stage-2',
                    'stage2', 'page table', 'page tables', 'memslot', 'memslots', 'tlb',
                    'kvm_flush_remote_tlbs', 'npt', 'ept']),
    (r'demand_paging|pre_fault|kvm_page_table|access_tracking|mmu_stress', r'.*',
     ['fault', 'faults', 'page fault', 'kvm_mmu_page_fault', 'kvm_faultin_pfn',
      'kvm_tdp_page_fault', 'direct_page_fault', 'user_mem_abort', 'hva_to_pfn', 'gfn_to_pfn',
      'get_user_pages', 'gup', 'mm/gup', 'pfn', 'hugepage', 'huge page', 'thp',
      'mm/memory', 'handle_mm_fault', 'mmu_notifier', 'mmu notifier', 'pre-fault', 'prefault']),
    (r'hugetlb', r'.*', ['hugetlb', 'mm/hugetlb', 'hugetlbfs']),
    (r'shmem', r'.*', ['shmem', 'mm/shmem', 'tmpfs']),
    (r'guest_memfd', r'.*', ['guest_memfd', 'gmem', 'kvm_gmem']),
    (r'demand_paging', r'rate|time_ns|lat_|faults', ['userfaultfd', 'uffd', 'mm/userfaultfd',
                                                     'handle_userfault', 'UFFDIO']),
    (r'dirty_log', r'.*', ['dirty', 'dirty log', 'dirty logging', 'dirty ring',
                           'kvm_vm_ioctl_get_dirty_log', 'get_dirty_log', 'clear_dirty_log',
                           'kvm_get_dirty_log_protect', 'kvm_clear_dirty_log_protect',
                           'dirty_bitmap', 'write-protect', 'write protect', 'wrprot',
                           'mmu_spte', 'pml', 'huge page split', 'eager split', 'split',
                           'kvm_mmu_slot_remove_write_access', 'rmap']),
    (r'memslot', r'.*', ['set_memory_region', 'kvm_set_memslot', 'kvm_set_memory_region',
                         'zap', 'kvm_zap_gfn_range', 'invalidate', 'rmap', 'srcu',
                         'mmu_notifier', 'slot']),
    (r'access_tracking', r'.*', ['accessed', 'young', 'aging', 'age_gfn', 'test_age',
                                 'mglru', 'lru_gen', 'page_idle', 'A/D']),
    (r'.*', r'^vcpu\.|^vm\.', ['stat', 'stats']),
]


def path_terms(command, figure):
    """{term: weight} of @figure of @command, TEST ARGS (PATHS): 1 for what every
    memory access shares (the first row), else 4 for a file or function
    (a term with '_', '/' or ':'), 3 for a word of the mechanism."""
    out = {}
    for n, (t, f, terms) in enumerate(PATHS):
        if re.search(t, command) and re.search(f, figure):
            for x in terms:
                out[x] = max(out.get(x, 0), 1 if n == 0 else 4 if re.search('[_/:]', x) else 3)
    return out


def rank(entries, command, figure):
    """The entries [(version, text)] likely on the path of @figure of
    @command (TEST ARGS), most likely first: [(score, version, text)],
    score > 0: the sum of the weights of the path_terms() an entry names
    (whole words, any case, or the start of a name: UFFDIO of
    UFFDIO_COPY); ties keep the changelog's order (newest first)."""
    pats = [(w, re.compile(r'(?<![A-Za-z0-9_])%s(?![A-Za-z0-9])' % re.escape(t), re.I))
            for t, w in path_terms(command, figure).items()]
    scored = []
    for i, (ver, text) in enumerate(entries):
        score = sum(w for w, p in pats if p.search(text))
        if score:
            scored.append((-score, i, ver, text))
    return [(-s, v, t) for s, _, v, t in sorted(scored)]


def parse_changelog(text):
    """[(source, version, [entries])] of a Debian changelog, newest
    first; an entry is one '- ' item (its continuation lines joined)."""
    out = []
    for line in text.splitlines():
        m = STANZA.match(line)
        if m:
            out.append((m.group(1), m.group(2), []))
            continue
        if not out:
            continue
        s = line.strip()
        if line.startswith('    - '):
            out[-1][2].append(s[2:])
        elif out[-1][2] and line.startswith('      ') and s:
            out[-1][2][-1] += ' ' + s
    return out


def for_arch(entry, deb_arch):
    """(entry without its arch tag, whether it is for @deb_arch)."""
    m = TAG.match(entry)
    if not m:
        return entry, True
    archs = re.split(r'[ ,]+', m.group(1))
    ok = any(a == deb_arch or deb_arch in debian.CHANGELOG_ARCH.get(a, ()) or
             (a.endswith('*') and deb_arch.startswith(a[:-1])) for a in archs)
    return entry[m.end():], ok


def kvm_entries(stanzas, older, newer, deb_arch):
    """The KVM and mm entries for @deb_arch of the stanzas with upstream
    versions above @older and at most @newer: [(version, entry)]."""
    out, seen = [], set()
    for _, ver, entries in stanzas:
        up = upstream(ver)
        if not version_key(older) < version_key(up) <= version_key(newer):
            continue
        for e in entries:
            text, ok = for_arch(e, deb_arch)
            if ok and KVM_WORDS.search(text) and text not in seen:
                seen.add(text)
                out.append((up, text))
    return out


def image_changelog(version, arch):
    """The changelog text of Debian's linux-image-VERSION-ARCH (the
    package vm/run boots: downloaded and unpacked once into its cache)."""
    d = fetched(debian.debian_kernel_dir, version, arch)
    logs = glob.glob(os.path.join(d, 'usr', 'share', 'doc', 'linux-image-*',
                                  'changelog*.gz'))
    if not logs:
        raise SetupError('no changelog in %s' % d)
    with gzip.open(sorted(logs)[0], 'rt', errors='replace') as f:
        return f.read()


def top_version(text):
    """The upstream version of a changelog's newest stanza: the kernel's,
    whether that stanza is the linux-signed package's (6.12: a wrapper
    above the kernel's own stanza; 6.1: the stanza that holds the
    release's entries, above the previous release's) or the kernel's."""
    st = parse_changelog(text)
    if not st:
        raise SetupError('no kernel version in the changelog')
    return upstream(st[0][1])


def changelog_between(older, newer, arch):
    """(older's upstream version, newer's, [(version, entry)])."""
    a = top_version(image_changelog(older, arch))
    text = image_changelog(newer, arch)
    b = top_version(text)
    return a, b, kvm_entries(parse_changelog(text), a, b, debian.DEB_ARCH[arch])


def source_pick(series, version):
    """The Debian version of linux-source-SERIES at upstream @version that
    apt has, or None."""
    have = debian.apt_versions('linux-source-%s' % series)
    return next((v for v in have if upstream(v) == version), None)


def source_members(series, pick):
    """linux-source-SERIES of Debian version @pick: its arch/*/kvm,
    virt/kvm and mm/ unpacked once into the cache."""
    pkg = 'linux-source-%s' % series
    dest = os.path.join(debian.cache_dir(), 'track-src', '%s-%s' % (pkg, pick))
    if os.path.isdir(dest):
        return dest
    deb = dest + '.deb'
    fetched(debian.fetch_deb, '%s=%s' % (pkg, pick), deb)
    tarball = os.path.join(deb, 'usr', 'src', pkg + '.tar.xz')

    def fill(tmp):
        p = subprocess.run(['tar', '-xJf', tarball, '-C', tmp, '--strip-components=1',
                            '--wildcards', '--no-wildcards-match-slash'] +
                           ['%s/%s' % (pkg, x) for x in PATHS], stderr=subprocess.PIPE, text=True)
        if p.returncode:
            raise SetupError('unpacking %s failed: %s' % (tarball, p.stderr.strip()[-200:]))
    debian.landed(dest, fill)
    subprocess.run(['rm', '-rf', deb])
    return dest


def differing(a, b):
    """The files (relative) under PATHS that differ between trees @a, @b,
    or exist in one only."""
    out = []
    for top in sorted(set(glob.glob(os.path.join(a, 'arch', '*', 'kvm')) +
                          glob.glob(os.path.join(b, 'arch', '*', 'kvm')))):
        rel = os.path.relpath(top, a if top.startswith(a) else b)
        out += _walk(a, b, rel)
    for rel in ('virt/kvm', 'mm'):
        out += _walk(a, b, rel)
    return sorted(set(out))


def _walk(a, b, rel):
    files = set()
    for root in (a, b):
        base = os.path.join(root, rel)
        for d, _, fs in os.walk(base):
            files |= {os.path.relpath(os.path.join(d, f), root) for f in fs}
    return [f for f in files if not (os.path.isfile(os.path.join(a, f)) and
                                     os.path.isfile(os.path.join(b, f)) and
                                     filecmp.cmp(os.path.join(a, f), os.path.join(b, f),
                                                 shallow=False))]


def module_only(files, arch):
    """Whether only KVM's module sources differ (x86_64, where KVM is
    modules: arch/x86/kvm and virt/kvm; arm64 builds KVM in)."""
    return arch == 'x86_64' and files and all(
        f.startswith(('arch/x86/kvm/', 'virt/kvm/')) for f in files)


def write_series(att, out):
    """The module-only KVM diff of @att as a one-patch series in @out
    (created) for bench/bisect-run --series: its path."""
    a, b = att['trees']
    os.makedirs(out, exist_ok=True)
    path = os.path.join(out, '0001-KVM-Debian-%s-to-%s.patch' % (att['from_version'],
                                                                 att['to_version']))
    with open(path, 'w') as f:
        f.write('From: bench/track\nSubject: [PATCH] KVM: Debian %s to %s\n\n'
                'The KVM sources of linux-source %s against %s.\n---\n' % (
                    att['from'], att['to'], att['to_version'], att['from_version']))
        for rel in att['files']:
            fa, fb = os.path.join(a, rel), os.path.join(b, rel)
            p = subprocess.run(['diff', '-u', '--label', 'a/' + rel, '--label', 'b/' + rel,
                                fa if os.path.exists(fa) else '/dev/null',
                                fb if os.path.exists(fb) else '/dev/null'],
                               stdout=subprocess.PIPE, text=True, errors='replace')
            f.write('diff --git a/%s b/%s\n' % (rel, rel) + p.stdout)
    return path


def bisect_command(att, series, figure, command, arch):
    """bench/bisect-run over @series on the older kernel."""
    return ('bench/bisect-run --series %s --debian-kernel %s --arch %s --figure %s '
            '--threshold 3 -- %s' % (series, att['from'], arch, figure, command))


def attribute_command(older, newer, arch, figure, threshold, command):
    """bench/attribute naming the source change of a step between the
    Debian kernels @older and @newer (their sources, as trees)."""
    return ('bench/attribute --trees %s,%s --arch %s --figure %s --threshold %.2g -- %s' % (
        older, newer, arch, figure, threshold, command))


def report_path(arch, a, b, figure):
    """Where bench/attribute keeps its report for trees (or Debian
    versions) @a and @b and @figure, for bench/track to show beside its
    change."""
    name = re.sub(r'[^A-Za-z0-9.+_-]', '_', '%s_%s_%s_%s' % (arch, a, b, figure))
    return os.path.join(debian.cache_dir(), 'attribute', 'reports', name + '.txt')


def attribute(older, newer, arch, sources=True):
    """Everything known of the change @older -> @newer (Debian versions):
    a dict with 'from', 'to', 'entries', 'files' (None: no sources in the
    archive) and 'module_only'."""
    for v in (older, newer):
        if not debian.is_version(v):
            raise UsageError("attribution needs two Debian versions, not '%s'" % v)
    a, b, entries = changelog_between(older, newer, arch)
    out = {'from': older, 'to': newer, 'from_version': a, 'to_version': b,
           'entries': entries, 'files': None, 'module_only': False, 'trees': None}
    if sources and debian.series(a) == debian.series(b):
        series = debian.series(a)
        picks = [source_pick(series, v) for v in (a, b)]
        ta, tb = [source_members(series, p) if all(picks) else None for p in picks]
        if ta and tb:
            karch = 'x86' if arch == 'x86_64' else arch
            every = differing(ta, tb)
            out['files'] = [f for f in every if not f.startswith('arch/') or
                            f.startswith('arch/%s/' % karch)]
            out['other_arches'] = len(every) - len(out['files'])
            out['module_only'] = module_only(out['files'], arch)
            out['trees'] = (ta, tb)
        else:
            out['missing'] = [v for v, p in zip((a, b), picks) if not p]
    return out


def text(att, arch, figure='FIGURE', command='TEST ARGS'):
    lines = ['%s -> %s (Linux %s -> %s), %s: %d KVM/mm entries in the Debian changelog' % (
        att['from'], att['to'], att['from_version'], att['to_version'], arch,
        len(att['entries']))]
    lines += ['  %s: %s' % e for e in att['entries']]
    if att['files'] is None:
        lines.append('  sources: linux-source of %s not in the archive' %
                     ', '.join(att.get('missing', [])) if att.get('missing') else
                     '  sources: not compared')
    else:
        lines.append('  %d files differ under arch/%s/kvm, virt/kvm, mm (and %d of other '
                     'arches):' % (len(att['files']), 'x86' if arch == 'x86_64' else arch,
                                   att.get('other_arches', 0)))
        lines += ['    ' + f for f in att['files']]
        if att['module_only']:
            series = write_series(att, os.path.join(
                'build', 'track', 'series-%s-%s' % (att['from'], att['to'])))
            lines.append('  only KVM modules differ: their diff is %s; bisect with' % series)
            lines.append('    ' + bisect_command(att, os.path.dirname(series), figure,
                                                 command, arch))
    return '\n'.join(lines) + '\n'
