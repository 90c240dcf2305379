# SPDX-License-Identifier: GPL-2.0-only
"""docs_check_code: docs_check's checks of the C code against
docs/design.md (layers, lib, arch; docs_check.py's docstring says what
each holds), the C source read the way they need it (includes, top-level
definitions, identifiers, header aliases), and what both files share
(read, the design page and its marks, the arch directories)."""
import glob
import os
import re

ARCH_DIRS = ('x86_64', 'aarch64')
# Where the layer table is, and the marker before it.
DESIGN = 'docs/design.md'
LAYERS_MARK = '<!-- layers:'
ONE_TEST_MARK = '<!-- one-test -->'


def read(path):
    with open(path, encoding='utf-8', errors='replace') as f:
        return f.read()


# ---- C sources ----------------------------------------------------------

def includes(src):
    return re.findall(r'^\s*#\s*include\s+"([^"]+)"', src, re.M)


def strip_c(src):
    """The C text without comments, strings, character constants and
    preprocessor lines (#define bodies kept apart by macros())."""
    src = re.sub(r'/\*.*?\*/|//[^\n]*', ' ', src, flags=re.S)
    src = re.sub(r'"(\\.|[^"\\\n])*"|\'(\\.|[^\'\\\n])*\'', '""', src)
    return re.sub(r'^\s*#(?:[^\n]*\\\n)*[^\n]*', ' ', src, flags=re.M)


IDENT = re.compile(r'\b[A-Za-z_]\w*\b')


def identifiers(src):
    return set(IDENT.findall(strip_c(src)))


def top_level(src):
    """(text, end) of each top-level declaration or definition; end is
    '{' for a body or initializer, ';' for the end of a declaration."""
    out, buf, depth, cont = [], [], 0, ''
    for ch in strip_c(src):
        if depth:
            depth += {'{': 1, '}': -1}.get(ch, 0)
        elif ch in '{;':
            text = ' '.join((cont + ' ' + ''.join(buf)).split())
            out.append((text, ch))
            buf = []
            # After a struct's body or an initializer, the declaration
            # goes on to its ';' ("static struct s {...} name;").
            paren, eq = text.find('('), text.find('=')
            cont = text + ' {}' if ch == '{' and (paren < 0 or 0 <= eq < paren) else ''
            depth = 1 if ch == '{' else 0
        else:
            buf.append(ch)
    return out


def defined_globals(src):
    """The names a .c file defines for others: functions and variables
    not static."""
    names = set()
    for text, end in top_level(src):
        text = re.sub(r'__attribute__\s*\(\(.*?\)\)', ' ', text)
        if not text or re.search(r'\b(static|extern|typedef)\b', text):
            continue
        paren, eq = text.find('('), text.find('=')
        if paren >= 0 and (eq < 0 or paren < eq):
            if end != '{':
                continue        # a prototype
            m = re.search(r'(\w+)\s*$', text[:paren])
        else:
            if end == '{' and eq < 0:
                continue        # struct/union/enum definition
            m = re.search(r'(\w+)\s*(\[[^\]]*\]\s*)*$', text[:eq] if eq >= 0 else text)
        if m:
            names.add(m.group(1))
    return names


def header_aliases(src):
    """For a header: each macro's and static inline function's name ->
    the identifiers its body uses."""
    aliases = {}
    for m in re.finditer(r'^\s*#\s*define\s+(\w+)((?:[^\n]*\\\n)*[^\n]*)', src, re.M):
        aliases[m.group(1)] = set(IDENT.findall(m.group(2)))
    text = strip_c(src)
    for m in re.finditer(r'static\s+inline\b[^;{]*?\b(\w+)\s*\([^;{]*\)\s*\{', text):
        depth, i = 1, m.end()
        while depth and i < len(text):
            depth += {'{': 1, '}': -1}.get(text[i], 0)
            i += 1
        aliases[m.group(1)] = set(IDENT.findall(text[m.end():i]))
    return aliases


# ---- the layers of design.md -------------------------------------------

def layer_table(root, mark=LAYERS_MARK):
    """[(layer, names, may_include)] from design.md's table after @mark
    (the C layers' by default: names are file stems, kvm_util for
    lib/kvm_util.c and include/kvm_util.h, or directories, lib/<arch>/;
    py_layers reads the Python packages' table the same way)."""
    text = read(os.path.join(root, DESIGN))
    at = text.find(mark)
    if at < 0:
        raise RuntimeError('%s: no layer table (%s ... -->)' % (DESIGN, mark))
    table = []
    for line in text[at:].splitlines()[1:]:
        if not line.startswith('|'):
            if table:
                break
            continue
        cells = [c.strip() for c in line.strip().strip('|').split('|')]
        if len(cells) != 3 or cells[0] in ('layer', 'package', '') or cells[0].startswith('-'):
            continue
        names = re.findall(r'`([^`]+)`', re.sub(r'\([^()]*\)', '', cells[1]))  # (what it is)
        may = [w.strip() for w in cells[2].split(',') if w.strip()]
        table.append((cells[0], names, may))
    return table


def lib_files(root):
    files = []
    for pat in ('lib/*.c', 'lib/*/*.c', 'include/*.h', 'include/*/*.h'):
        files += sorted(os.path.relpath(p, root) for p in glob.glob(os.path.join(root, pat)))
    return files


def stem_of(f):
    """NAME for lib/NAME.c, include/NAME.h, include/<arch>/NAME.h; else
    None (lib/<arch>/ files go by their directory)."""
    if f.startswith('lib/') and f.count('/') > 1:
        return None
    return os.path.splitext(os.path.basename(f))[0]


def one_test_list(root):
    """The stems design.md lists as library parts one test uses: the
    backticked names of the paragraph after <!-- one-test -->."""
    text = read(os.path.join(root, DESIGN))
    at = text.find(ONE_TEST_MARK)
    if at < 0:
        return set()
    para = text[at + len(ONE_TEST_MARK):].strip().split('\n\n')[0]
    return set(re.findall(r'`([^`]+)`', para))


def file_layers(root, table, problems):
    """lib/ and include/ file -> its layer.  A stem NAME names lib/NAME.c,
    include/NAME.h and include/<arch>/NAME.h, and wins over a directory
    entry."""
    files = lib_files(root)
    by_stem, by_dir = {}, {}
    for layer, names, _ in table:
        for name in names:
            if '/' in name:
                for arch in ARCH_DIRS:
                    by_dir[name.replace('<arch>', arch).rstrip('/')] = layer
            else:
                if not any(stem_of(f) == name for f in files):
                    problems.append('%s: the layer table names %s, which is no file '
                                    'in lib/ or include/' % (DESIGN, name))
                by_stem[name] = layer
    layers = {}
    for f in files:
        layer = by_stem.get(stem_of(f), by_dir.get(os.path.dirname(f)))
        if layer is None:
            problems.append('%s: in no layer of %s\'s table' % (f, DESIGN))
        else:
            layers[f] = layer
    return layers


def resolve_include(root, f, name):
    """The repo headers an #include "name" in f can mean."""
    d = os.path.dirname(f)
    cands = [os.path.join(d, name), os.path.join('include', name)]
    arch = [a for a in ARCH_DIRS if a in f.split('/')]
    for a in (arch or ARCH_DIRS):
        cands.append(os.path.join('include', a, name))
    return sorted({os.path.normpath(c) for c in cands
                   if os.path.exists(os.path.join(root, c))})


def check_layers(root):
    problems = []
    table = layer_table(root)
    may = {layer: set(m) for layer, _, m in table}
    for layer, allowed in may.items():
        for m in allowed - set(may):
            problems.append('%s: layer %s may include %s, which is no layer'
                            % (DESIGN, layer, m))
    layers = file_layers(root, table, problems)
    for f, layer in sorted(layers.items()):
        for name in includes(read(os.path.join(root, f))):
            for h in resolve_include(root, f, name):
                to = layers.get(h)
                if to and to not in may[layer]:
                    problems.append('%s (%s) includes %s (%s): %s may include only %s'
                                    % (f, layer, h, to, layer, ', '.join(sorted(may[layer]))))
    return problems


# ---- lib/ holds what more than one test uses ---------------------------

def tests_sources(root):
    """test name -> its source files: each top-level and arch *.c, each
    test directory (all its files).  unit/ and fuzz/ test the library:
    they do not count as its users."""
    tests = {}
    for p in glob.glob(os.path.join(root, '*.c')):
        tests[os.path.basename(p)[:-2]] = [p]
    for a in ARCH_DIRS:
        for p in glob.glob(os.path.join(root, a, '*.c')):
            tests[a + '/' + os.path.basename(p)[:-2]] = [p]
    for main in glob.glob(os.path.join(root, '*', '*_test.c')):
        d = os.path.dirname(main)
        if os.path.basename(d) in ARCH_DIRS + ('unit', 'fuzz', 'lib'):
            continue
        tests[os.path.basename(main)[:-2]] = sorted(
            glob.glob(os.path.join(d, '*.c')) + glob.glob(os.path.join(d, '*.h')))
    return tests


def expand(ids, aliases):
    seen, todo = set(ids), list(ids)
    while todo:
        for i in aliases.get(todo.pop(), ()):
            if i not in seen:
                seen.add(i)
                todo.append(i)
    return seen


def check_lib(root):
    aliases = {}
    for h in glob.glob(os.path.join(root, 'include', '**', '*.h'), recursive=True):
        for k, v in header_aliases(read(h)).items():
            aliases.setdefault(k, set()).update(v)
    libc = [f for f in lib_files(root) if f.endswith('.c')]
    defs = {f: defined_globals(read(os.path.join(root, f))) for f in libc}
    uses = {f: expand(identifiers(read(os.path.join(root, f))), aliases) for f in libc}
    tests = {t: expand(set().union(*(identifiers(read(p)) for p in srcs)), aliases)
             for t, srcs in tests_sources(root).items()}
    # reach[f]: the tests that use f, directly or through library files.
    reach = {f: {t for t, ids in tests.items() if ids & defs[f]} for f in libc}
    users = {f: [g for g in libc if g != f and uses[g] & defs[f]] for f in libc}
    changed = True
    while changed:
        changed = False
        for f in libc:
            r = set(reach[f]).union(*(reach[g] for g in users[f]))
            if r != reach[f]:
                reach[f], changed = r, True
    problems = []
    listed = one_test_list(root)
    for name in sorted(listed - {stem_of(f) for f in libc}):
        problems.append('%s: lists %s as one test\'s, but there is no lib/%s.c'
                        % (DESIGN, name, name))
    for f in libc:
        if f.count('/') != 1 or not defs[f]:
            continue            # arch ports serve the core; see layers
        if stem_of(f) in listed:
            if len(reach[f]) > 1:
                problems.append('%s: used by %d tests (%s): take it off %s\'s list of '
                                'what one test uses' % (f, len(reach[f]),
                                                        ', '.join(sorted(reach[f])), DESIGN))
        elif len(reach[f]) < 2:
            who = ', '.join(sorted(reach[f])) or 'none'
            problems.append('%s: used by %d test%s (%s): lib/ holds what more than one '
                            'test uses; a test\'s own helpers live beside it'
                            % (f, len(reach[f]), '' if len(reach[f]) == 1 else 's', who))
    return problems


# ---- arch code only under lib/<arch> and include/<arch> ----------------

ARCH_MACRO = re.compile(r'^\s*#\s*(if|ifdef|ifndef|elif)\b.*\b__(x86_64|i386|aarch64|arm|'
                        r'riscv|s390x|powerpc64__|loongarch)\w*', re.M)


def check_arch(root):
    problems = []
    for dirpath, dirs, files in os.walk(root):
        rel = os.path.relpath(dirpath, root)
        if rel == '.':
            dirs[:] = [d for d in dirs if d not in ('build', '.git')]
        if rel in ['lib/' + a for a in ARCH_DIRS] + ['include/' + a for a in ARCH_DIRS]:
            continue
        for f in sorted(files):
            if not f.endswith(('.c', '.h')):
                continue
            src = read(os.path.join(dirpath, f))
            name = os.path.normpath(os.path.join(rel, f))
            if re.search(r'\b(asm|__asm__)\b', strip_c(src)):
                problems.append('%s: inline assembly outside lib/<arch>/ and include/<arch>/'
                                % name)
            m = ARCH_MACRO.search(re.sub(r'/\*.*?\*/|//[^\n]*', ' ', src, flags=re.S))
            if m:
                problems.append('%s: an arch #%s outside lib/<arch>/ and include/<arch>/: '
                                'a function of include/kvm_arch.h' % (name, m.group(1)))
    return problems
