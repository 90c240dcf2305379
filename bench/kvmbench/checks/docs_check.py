# SPDX-License-Identifier: GPL-2.0-only
"""docs_check: the manual's claims about the code that a program can check.

  tests    every test the Makefile builds (x86_64 and arm64) has a row in
           docs/tests.md, and its cases in testcases/<test>/ or the words
           "no cases" in its row
  paths    every repo path in backticks in docs/*.md and README.md exists
  layers   lib/ and include/ follow the layer table of docs/design.md:
           every file in one layer, each #include going where the table's
           "may include" column lets it
  python   bench/kvmbench follows the package table of docs/design.md:
           every module in a package and in its row, each import going
           where the row's "may import" column lets it (the column a
           layer order), no modules importing each other in a circle
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

The checks of the C code (layers, lib, arch) are in docs_check_code.py,
the check of the Python layout (python) in py_layers.py.

Run: python3 bench/kvmbench/checks/docs_check.py [--root DIR] [--only CHECK,...]
Exit 0 when every check holds, 1 with one line a problem, 2 on bad usage.
"""
import argparse
import fnmatch
import glob
import os
import re
import subprocess
import sys

if not __package__:  # run as a file: python3 bench/kvmbench/checks/docs_check.py
    sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))
    __package__ = 'kvmbench.checks'
from kvmbench.kernels import debian  # noqa: E402
from .docs_check_code import (  # noqa: E402
    ARCH_DIRS, DESIGN, IDENT, check_arch, check_layers, check_lib, read)
from .py_layers import check_python  # noqa: E402

CHECKS = ('tests', 'paths', 'layers', 'python', 'lib', 'arch', 'shell', 'names', 'options', 'machine')
PAGE = 60
MACHINE_PATH = re.compile(r'(?<![\w.])(/(?:work|root)/|/home/\w)')


# ---- the Debian kernels the examples name ----------------------------

KERNEL_NAME = re.compile(r"\b(%s)\b" % debian.NAME)


def versions_in_examples(text):
    """[(line number, version)] of each Debian kernel version (6.1.0-57,
    6.12.117+deb12) that a command in TEXT's fenced code blocks
    (Markdown) names: a line starting with one of the suite's commands,
    make or git (an optional '$ ' prompt before it); output lines
    ('bench/perf: ...') are not commands."""
    found, inblock = [], False
    for i, line in enumerate(text.splitlines(), 1):
        if line.startswith("```"):
            inblock = not inblock
            continue
        words = line.removeprefix("$ ").split()
        if not inblock or not words or words[0].endswith(":") or \
                not re.match(r"(vm|bench|lava)/|(make|git)$", words[0]):
            continue
        found += [(i, m.group(1)) for m in KERNEL_NAME.finditer(line)]
    return found


def missing_in_docs(paths, versions):
    """['FILE:LINE: VERSION'] of each version an example of PATHS names
    that is not in VERSIONS."""
    out = []
    for p in paths:
        with open(p, encoding="utf-8") as f:
            out += [f"{p}:{n}: {v}" for n, v in versions_in_examples(f.read())
                    if v not in versions]
    return out


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


def text_lines(text):
    """(line number, line, whether inside a fenced code block) of @text,
    the fences' own lines left out."""
    fenced = False
    for n, line in enumerate(text.splitlines(), 1):
        if line.lstrip().startswith('```'):
            fenced = not fenced
            continue
        yield n, line, fenced


def code_spans(text):
    """(line number, content) of each inline code span outside fenced
    code blocks."""
    return [(n, m.group(2).strip()) for n, line, fenced in text_lines(text) if not fenced
            for m in re.finditer(r'(`+)(.+?)\1', line)]


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
        for n, line, fenced in text_lines(read(page)):
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
        for n, line, fenced in text_lines(read(page)):
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
    funcs = {'tests': check_tests, 'paths': check_paths, 'layers': check_layers, 'python': check_python,
             'lib': check_lib, 'arch': check_arch, 'shell': check_shell, 'names': check_names,
             'options': check_options, 'machine': check_machine}
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
    p.add_argument('--root', default=os.path.dirname(os.path.dirname(os.path.dirname(
        os.path.dirname(os.path.abspath(__file__))))), help='the repo (default: this one)')
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
