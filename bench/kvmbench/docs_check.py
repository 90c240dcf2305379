# SPDX-License-Identifier: GPL-2.0-only
"""docs_check: the manual's claims about the code that a program can check.

  tests    every test the Makefile builds (x86_64 and arm64) has a row in
           docs/tests.md, and its cases in testcases/<test>/ or the words
           "no cases" in its row
  paths    every repo path in backticks in docs/*.md and README.md exists
  layers   lib/ and include/ follow the layer table of docs/design.md:
           every file in one layer, each #include going where the table's
           "may include" column lets it
  lib      every lib/*.c is used by at least two tests, directly or
           through other library files, or is on design.md's list of
           what one test uses (a list kept exact)
  arch     design.md's "no inline assembly outside lib/<arch>" and "common
           code has no arch #ifdef": no asm and no #if on an arch macro
           in C outside lib/<arch>/ and include/<arch>/
  shell    the shell scripts past a page (60 lines of logic) are the
           guest's or on design.md's list of the host's, exactly
  names    every function written `name()` in docs/*.md and README.md is a
           name in the code (C, Python, shell)
  options  each --option of a command of the manual whose first word is
           a file of the repo (vm/run, bench/compare) is in the code
  machine  no path of a machine (under /home, /root or /work) in docs/ or
           README.md

Paths: an inline code span without spaces is a path when its first
component names a top-level entry of the repo (`lib/kvm_util.c`,
`Makefile`) or it is a bare C file name (`kvm_util.c`: found anywhere in
the repo); in a span with spaces (a command line) only the first word is.
`<...>`, `*` and all-capital words are placeholders, matched as globs; a
trailing `:LINE` or `#anchor` is dropped; `build/` holds build outputs and
is not checked; code blocks are not checked.  Names: `foo()` and
`__foo()` are placeholders, `_suffix()` continues the name before it,
and a name after the word "upstream" on its line is upstream's.

Run: python3 bench/kvmbench/docs_check.py [--root DIR] [--only CHECK,...]
Exit 0 when every check holds, 1 with one line a problem, 2 on bad usage.
"""
import argparse
import fnmatch
import glob
import os
import re
import subprocess
import sys

CHECKS = ('tests', 'paths', 'layers', 'lib', 'arch', 'shell', 'names', 'options', 'machine')
PAGE = 60
ARCH_DIRS = ('x86_64', 'aarch64')
# Where the layer table is, and the marker before it.
DESIGN = 'docs/design.md'
LAYERS_MARK = '<!-- layers:'
ONE_TEST_MARK = '<!-- one-test -->'
MACHINE_PATH = re.compile(r'(?<![\w.])(/(?:work|root)/|/home/\w)')


def read(path):
    with open(path, encoding='utf-8', errors='replace') as f:
        return f.read()


# ---- the tests the Makefile builds -------------------------------------

def built_tests(root, arch):
    """TEST_GEN_PROGS for ARCH=arch, as the Makefile computes it: its
    lines up to lib.mk's include, evaluated by make (without the kernel
    source that lib.mk needs)."""
    head = []
    for line in read(os.path.join(root, 'Makefile')).splitlines():
        if line.startswith('include $(KSFT_DIR)/lib.mk'):
            break
        if not line.startswith('include '):
            head.append(line)
    head.append('print_progs:\n\t@echo $(TEST_GEN_PROGS)\n')
    r = subprocess.run(['make', '-s', '--no-print-directory', '-f', '-', '-C', root,
                        'ARCH=' + arch, 'CROSS_COMPILE=', 'LLVM=1', 'print_progs'],
                       input='\n'.join(head), capture_output=True, text=True)
    if r.returncode:
        raise RuntimeError('make could not list the tests for ARCH=%s: %s'
                           % (arch, r.stderr.strip()))
    return r.stdout.split()


def table_rows(text):
    """The rows of the markdown tables in text, as lists of cells."""
    rows = []
    for line in text.splitlines():
        if line.startswith('|') and not re.match(r'^\|\s*-', line):
            rows.append([c.strip() for c in line.strip().strip('|').split('|')])
    return rows


def check_tests(root):
    progs = set()
    for arch in ('x86_64', 'arm64'):
        progs.update(built_tests(root, arch))
    tests_md = os.path.join(root, 'docs/tests.md')
    rows = table_rows(read(tests_md))
    problems = []
    for prog in sorted(progs):
        name = os.path.basename(prog)
        # A row whose first cell names the test: `x86_64/exception_test`,
        # or in a list after the first of an arch (`x86_64/a`, `b`).
        cell_re = re.compile(r'`(?:[\w-]+/)?%s`' % re.escape(name))
        if prog.startswith(ARCH_DIRS):
            rowsof = [r for r in rows if r and cell_re.search(r[0])
                      and prog.split('/')[0] in r[0]]
        else:
            rowsof = [r for r in rows if r and re.search(r'`%s`' % re.escape(prog), r[0])]
        if not rowsof:
            problems.append('docs/tests.md: no row for %s (the Makefile builds it)' % prog)
            continue
        if prog.startswith('unit/'):
            continue
        has_cases = glob.glob(os.path.join(root, 'testcases', name, '*.test'))
        said_none = any('no cases' in ' '.join(r) for r in rowsof)
        if not has_cases and not said_none:
            problems.append('docs/tests.md: %s: no testcases/%s/*.test and its row '
                            'does not say "no cases"' % (prog, name))
        if has_cases and said_none:
            problems.append('docs/tests.md: %s: its row says "no cases" but '
                            'testcases/%s/ has %d' % (prog, name, len(has_cases)))
    return problems


# ---- paths in backticks ------------------------------------------------

def doc_pages(root, results=False):
    pages = sorted(glob.glob(os.path.join(root, 'docs', '*.md')))
    if results:
        for dirpath, _, files in os.walk(os.path.join(root, 'docs')):
            pages += [os.path.join(dirpath, f) for f in sorted(files)
                      if f.endswith(('.md', '.txt')) and dirpath != os.path.join(root, 'docs')]
    pages.append(os.path.join(root, 'README.md'))
    return [p for p in pages if os.path.exists(p)]


def code_spans(text):
    """(line number, content) of each inline code span outside fenced
    code blocks."""
    spans, fenced = [], False
    for n, line in enumerate(text.splitlines(), 1):
        if line.lstrip().startswith('```'):
            fenced = not fenced
            continue
        if fenced:
            continue
        for m in re.finditer(r'(`+)(.+?)\1', line):
            spans.append((n, m.group(2).strip()))
    return spans


def as_glob(path):
    path = re.sub(r'<[^>]*>', '*', path)
    path = re.sub(r'(?<![A-Za-z0-9])[A-Z][A-Z0-9]*(?![a-z0-9])', '*', path)
    return path.replace('...', '*')


def path_exists(root, path):
    """path, a glob of it with its placeholders, or a test binary's
    source (path.c) is in the repo."""
    for p in (path, path.rstrip('/') + '.c'):
        if os.path.exists(os.path.join(root, p)) or \
           glob.glob(os.path.join(root, as_glob(p))):
            return True
    return False


def repo_names(root):
    """Every file name in the repo (for bare C file names), build/ and
    .git/ aside."""
    names = set()
    for dirpath, dirs, files in os.walk(root):
        dirs[:] = [d for d in dirs if not (dirpath == root and d in ('build', '.git'))]
        names.update(files)
    return names


def check_paths(root):
    top = set(os.listdir(root)) - {'build', '.git'}
    names = None
    problems = []
    for page in doc_pages(root):
        rel = os.path.relpath(page, root)
        for n, span in code_spans(read(page)):
            word = span.split()[0] if span.split() else ''
            word = re.sub(r'(:\d[\w.-]*|#[\w-]*|[,.;:)]+)$', '', word)
            if not word or '://' in word or word.startswith(('/', '~', '$', '-', '.')):
                continue
            first = word.split('/')[0]
            if first == 'build':
                continue
            if first in top and (word != first or '/' in span.split()[0]):
                if not path_exists(root, word):
                    problems.append('%s:%d: `%s`: no such path in the repo' % (rel, n, word))
            elif ' ' not in span and '/' not in word and re.fullmatch(r'[\w-]+\.[ch]', word):
                if names is None:
                    names = repo_names(root)
                if not fnmatch.filter(names, as_glob(word)):
                    problems.append('%s:%d: `%s`: no such file in the repo' % (rel, n, word))
    return problems


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

def layer_table(root):
    """[(layer, names, may_include)] from design.md's table after the
    layers marker; names are file stems (kvm_util: lib/kvm_util.c and
    include/kvm_util.h) or directories (lib/<arch>/)."""
    text = read(os.path.join(root, DESIGN))
    at = text.find(LAYERS_MARK)
    if at < 0:
        raise RuntimeError('%s: no layer table (%s ... -->)' % (DESIGN, LAYERS_MARK))
    table = []
    for line in text[at:].splitlines()[1:]:
        if not line.startswith('|'):
            if table:
                break
            continue
        cells = [c.strip() for c in line.strip().strip('|').split('|')]
        if len(cells) != 3 or cells[0] in ('layer', '') or cells[0].startswith('-'):
            continue
        names = re.findall(r'`([^`]+)`', cells[1])
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


# ---- shell stays thin ---------------------------------------------------

def marked_list(root, mark):
    """The backticked names between <!-- mark --> and <!-- /mark --> in
    design.md, or None if the marks are missing."""
    m = re.search(r'<!-- %s -->(.*?)<!-- /%s -->' % (mark, mark),
                  read(os.path.join(root, DESIGN)), re.S)
    return set(re.findall(r'`([^`]+)`', m.group(1))) if m else None


def shell_scripts(root):
    """path -> lines of logic of every shell script: *.sh, or a shebang
    naming sh or bash."""
    out = {}
    for dirpath, dirs, files in os.walk(root):
        if dirpath == root:
            dirs[:] = [d for d in dirs if d not in ('build', '.git')]
        for f in files:
            p = os.path.join(dirpath, f)
            try:
                with open(p, encoding='utf-8') as fh:
                    text = fh.read(1 << 20)
            except (UnicodeDecodeError, OSError):
                continue
            if f.endswith('.sh') or re.match(r'#!\S*\b(ba)?sh\b|#!\S*env (ba)?sh\b', text):
                out[os.path.relpath(p, root)] = sum(
                    1 for line in text.splitlines() if line.strip() and
                    not line.lstrip().startswith('#'))
    return out


def check_shell(root):
    guest, over = marked_list(root, 'shell-guest'), marked_list(root, 'shell-over')
    if guest is None or over is None:
        return ['%s: no <!-- shell-guest --> or <!-- shell-over --> list' % DESIGN]
    scripts = shell_scripts(root)
    problems = []
    for name in sorted((guest | over) - set(scripts)):
        problems.append('%s: lists %s, which is no shell script' % (DESIGN, name))
    for name, n in sorted(scripts.items()):
        if n > PAGE and name not in guest | over:
            problems.append('%s: %d lines of logic, past a page (%d): Python in '
                            'bench/kvmbench, or on %s\'s list' % (name, n, PAGE, DESIGN))
        if n <= PAGE and name in over:
            problems.append('%s: %d lines of logic, within a page (%d): take it off %s\'s list'
                            % (name, n, PAGE, DESIGN))
    return problems


# ---- function names ------------------------------------------------------

def code_words(root, pattern=IDENT):
    """Every match of pattern in the repo's code: all text files but the
    manual, build/ and .git/."""
    ids = set()
    for dirpath, dirs, files in os.walk(root):
        if dirpath == root:
            dirs[:] = [d for d in dirs if d not in ('build', '.git', 'docs')]
        for f in files:
            if dirpath == root and f == 'README.md':
                continue
            p = os.path.join(dirpath, f)
            if os.path.getsize(p) > 1 << 20:
                continue
            try:
                with open(p, encoding='utf-8') as fh:
                    ids.update(pattern.findall(fh.read()))
            except (UnicodeDecodeError, OSError):
                continue
    return ids


def check_names(root):
    ids = code_words(root)
    problems = []
    for page in doc_pages(root):
        rel = os.path.relpath(page, root)
        fenced = False
        for n, line in enumerate(read(page).splitlines(), 1):
            if line.lstrip().startswith('```'):
                fenced = not fenced
            if fenced:
                continue
            for m in re.finditer(r'`([A-Za-z_]\w*)\([^`]*\)`', line):
                name = m.group(1)
                if name in ('foo', '__foo') or re.match(r'_[a-z]', name) or name in ids:
                    continue
                if 'upstream' in line[:m.start()].lower():
                    continue
                problems.append('%s:%d: `%s()`: no such name in the code' % (rel, n, name))
    return problems


# ---- long options of the repo's commands --------------------------------

LONG_OPT = re.compile(r'(?<![\w-])--[a-z][\w-]*')


def check_options(root):
    """A command of the manual (a code span, or a line of a code block)
    whose first word is a file of the repo (vm/run, bench/compare):
    each --option in it is in the code."""
    opts = code_words(root, LONG_OPT)
    problems = []
    for page in doc_pages(root):
        rel = os.path.relpath(page, root)
        fenced = False
        for n, line in enumerate(read(page).splitlines(), 1):
            if line.lstrip().startswith('```'):
                fenced = not fenced
                continue
            for cmd in [line] if fenced else re.findall(r'`([^`]+)`', line):
                words = cmd.split()
                if not words or words[0] in ('$', '#'):
                    continue
                first = words[0]
                if not os.path.isfile(os.path.join(root, first)):
                    continue
                for o in LONG_OPT.findall(cmd):
                    if o not in opts:
                        problems.append('%s:%d: %s %s: no such option in the code'
                                        % (rel, n, first, o))
    return problems


# ---- machine paths -------------------------------------------------------

def check_machine(root):
    problems = []
    for page in doc_pages(root, results=True):
        for n, line in enumerate(read(page).splitlines(), 1):
            m = MACHINE_PATH.search(line)
            if m:
                problems.append('%s:%d: a machine\'s path (%s...): name a path of the '
                                'repo, ~/ or a placeholder' % (os.path.relpath(page, root), n,
                                                                m.group(1)))
    return problems


def run(root, only=CHECKS):
    """{check: [problem, ...]}"""
    funcs = {'tests': check_tests, 'paths': check_paths, 'layers': check_layers,
             'lib': check_lib, 'arch': check_arch, 'shell': check_shell, 'names': check_names, 'options': check_options, 'machine': check_machine}
    out = {}
    for c in only:
        try:
            out[c] = funcs[c](root)
        except (RuntimeError, OSError) as e:
            out[c] = [str(e)]
    return out


def main(argv=None):
    p = argparse.ArgumentParser(prog='docs_check', description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)

    def error(message):
        print('docs_check: %s' % message, file=sys.stderr)
        sys.exit(2)
    p.error = error
    p.add_argument('--root', default=os.path.dirname(os.path.dirname(
        os.path.dirname(os.path.abspath(__file__)))), help='the repo (default: this one)')
    p.add_argument('--only', default=','.join(CHECKS),
                   help='checks to run, comma-separated (default: all): ' + ', '.join(CHECKS))
    a = p.parse_args(argv)
    only = [c for c in a.only.split(',') if c]
    bad = [c for c in only if c not in CHECKS]
    if bad or not only:
        p.error('unknown check %s (known: %s)' % (','.join(bad) or "''", ', '.join(CHECKS)))
    if not os.path.isfile(os.path.join(a.root, DESIGN)):
        p.error('%s: not the repo (no %s)' % (a.root, DESIGN))
    results = run(a.root, only)
    n = 0
    for c in only:
        for line in results[c]:
            print('docs_check: %s: %s' % (c, line))
        n += len(results[c])
        print('docs_check: %s: %s' % (c, 'ok' if not results[c] else
                                      '%d problem%s' % (len(results[c]),
                                                        '' if len(results[c]) == 1 else 's')),
              file=sys.stderr)
    return 1 if n else 0


if __name__ == '__main__':
    sys.exit(main())
