# SPDX-License-Identifier: GPL-2.0-only
"""kvmbench.attribution.coupling: the changes that only build together,
grouped before bench/attribute's search.

A unit (a file, or a hunk) of the change from A to B that declares a
name anew, removes it or changes its declaration (a function's
parameters, a macro, a struct member, an enum constant, an exported
symbol, a global) cannot build without the units whose changes use that
name, nor they without it: kvm_inject_page_fault() given an argument
in kvm_host.h and its callers in x86.c and both nested.c, a
cpufeatures.h bit and the reverse_cpuid.h that reads it, a function
moved from x86.c to a new regs.c.  So does a file that only one tree
has with the kbuild line that builds it (regs.o in arch/x86/kvm's
Makefile).  Such units are one group: the search tries them together,
and a 'cannot test' costs no step for them.

Read as text, no parsing: a changed line counts with the whole
statement it is part of (the declaration's name on its first line, the
arguments on the next); a name is a declaration's where it stands at
column 0 as a function, a global, a #define, a struct, union or enum
tag, or the argument of a macro such as EXPORT_SYMBOL_GPL(), or as a
member or constant inside a struct, union or enum block.  A name used by
the changes of more than a few units (COMMON) says nothing about which
belong together (vcpu, kvm, ret) and is passed over: what the grouping
misses, the search's join of a 'cannot test' chunk with its neighbour
still finds.  Nothing here runs a build; imports only the standard
library.
"""
import os
import re

WORD = re.compile(r'[A-Za-z_][A-Za-z0-9_]*')
DEFINE = re.compile(r'^#\s*(?:define|undef)\s+([A-Za-z_][A-Za-z0-9_]*)')
# Column 0: a type (words and stars), then the name, then '(' (a
# function) or '=', ';', '[' (a global).
FUNC_DECL = re.compile(r'^[A-Za-z_][A-Za-z0-9_\s\*]*?[\s\*]([A-Za-z_][A-Za-z0-9_]*)\s*\(')
VAR_DECL = re.compile(r'^[A-Za-z_][A-Za-z0-9_\s\*]*?[\s\*]([A-Za-z_][A-Za-z0-9_]*)\s*'
                      r'(?:\[[^\]]*\]\s*)*(?:=|;|__\w+)')
MACRO_DECL = re.compile(r'^(?:static\s+)?([A-Z][A-Z0-9_]*)\s*\(([^()]*)\)')
TAG = re.compile(r'^(?:typedef\s+)?(?:struct|union|enum)\s+([A-Za-z_][A-Za-z0-9_]*)?\s*\{?')
FUNC_PTR = re.compile(r'\(\s*\*\s*([A-Za-z_][A-Za-z0-9_]*)\s*\)\s*\(')
MEMBER = re.compile(r'([A-Za-z_][A-Za-z0-9_]*)\s*(?:\[[^\]]*\]\s*)*(?::\s*\w+\s*)?;')
ENUM_CONST = re.compile(r'^\s*([A-Za-z_][A-Za-z0-9_]*)\s*(?:=[^,]*)?,?\s*$')
KBUILD_OBJ = re.compile(r'([A-Za-z0-9_./-]+)\.o\b')
# C's words and the kernel's commonest types: never a coupling.
KEYWORDS = frozenset((
    'auto break case char const continue default do double else enum extern float for goto if '
    'inline int long register restrict return short signed sizeof static struct switch typedef '
    'union unsigned void volatile while bool true false NULL u8 u16 u32 u64 s8 s16 s32 s64 '
    'size_t ssize_t unlikely likely define ifdef ifndef endif elif include undef defined '
    'static_assert __init __exit __always_inline noinline asmlinkage').split())
# A name used by more units than this (or than COMMON_SHARE of them) is
# too common to say which belong together.
COMMON = 8
COMMON_SHARE = 0.02
# A name that can say which belong together: compound (foo_bar, FOO_BAR,
# __foo_bar), never a plain word (irq, folio, vendor: a member in one
# driver, a local in the next).
COMPOUND = re.compile(r'^_*[A-Za-z0-9]+_[A-Za-z0-9_]')
SPAN = 8


def _strip(line):
    """@line without its string and character literals and comments (as
    far as one line shows them)."""
    line = re.sub(r'"(?:\\.|[^"\\])*"|\'(?:\\.|[^\'\\])*\'', '""', line)
    line = re.sub(r'/\*.*?\*/', ' ', line)
    return re.sub(r'//.*|/\*.*', '', line)


def _ends(line):
    """Whether @line ends a statement (or a declaration, a block's start
    or end, a preprocessor line that does not continue)."""
    s = _strip(line).rstrip()
    if s.startswith('#'):
        return not s.endswith('\\')
    return not s or s.endswith((';', '{', '}', ':')) or line.rstrip().endswith('*/')


class Text:
    """One side of a file (its lines), read for its statements and for
    the blocks (struct, union, enum) each line sits in."""

    def __init__(self, lines):
        self.lines = lines
        # The block a line is a member of: (struct or enum, its tag or '').
        self.block = [None] * len(lines)
        self._index = None
        depth, opener = 0, None
        for i, line in enumerate(lines):
            s = _strip(line)
            if depth == 1 and opener is not None:
                self.block[i] = opener
            if depth == 0:
                m = TAG.match(s)
                opener = ('enum' if re.match(r'^(?:typedef\s+)?enum\b', s) else 'struct',
                          m.group(1) or '') if m and not s.rstrip().endswith(';') else None
            depth = max(depth + s.count('{') - s.count('}'), 0)
            if depth == 0:
                opener = None

    def index(self):
        """{name: the numbers of the lines that use it}, made once."""
        if self._index is None:
            self._index = {}
            for i, line in enumerate(self.lines):
                for w in set(WORD.findall(_strip(line))):
                    self._index.setdefault(w, []).append(i)
        return self._index

    def statement(self, i):
        """The line numbers of the statement line @i is part of."""
        first = i
        while first > 0 and i - first < SPAN and not _ends(self.lines[first - 1]):
            first -= 1
        last = i
        while last + 1 < len(self.lines) and last - i < SPAN and not _ends(self.lines[last]):
            last += 1
        return range(first, last + 1)

    def declared(self, i):
        """The names the statement that line @i starts declares."""
        line = self.lines[i]
        s = _strip(line)
        m = DEFINE.match(s)
        if m:
            return {m.group(1)}
        kind = self.block[i] and self.block[i][0]
        if kind == 'enum':
            m = ENUM_CONST.match(s)
            return {m.group(1)} if m else set()
        if kind == 'struct':
            m = FUNC_PTR.search(s) or ('(' not in s and MEMBER.search(s))
            return {m.group(1)} if m else set()
        if not s or s[0] in ' \t#{}/*':
            return set()
        m = MACRO_DECL.match(s)
        if m:
            args = WORD.findall(m.group(2))
            return {args[-1]} if args else set()
        m = TAG.match(s)
        if m and m.group(1):
            return {m.group(1)}
        m = FUNC_DECL.match(s) or VAR_DECL.match(s)
        return {m.group(1)} if m else set()


def names(text, changed):
    """(declared, used): the names the statements holding the lines
    @changed (indices into @text, a Text) declare, and every name they
    use."""
    declared, used, seen = set(), set(), set()
    for i in changed:
        span = text.statement(i)
        if span.start in seen:
            continue
        seen.add(span.start)
        declared |= text.declared(span.start)
        for k in span:
            used |= set(WORD.findall(_strip(text.lines[k])))
    return declared - KEYWORDS, used - KEYWORDS


def context(text, declared):
    """The names used by every statement of @text (a Text) that names
    one of @declared, changed or not: a function whose parameters change
    is assigned to a function pointer on a line that stays
    (nested_ept_inject_page_fault to mmu->inject_page_fault), and must
    match the pointer's type."""
    out, seen = set(), set()
    at = text.index()
    for i in sorted({i for d in declared if COMPOUND.match(d) for i in at.get(d, ())}):
        span = text.statement(i)
        if span.start not in seen:
            seen.add(span.start)
            for k in span:
                out |= set(WORD.findall(_strip(text.lines[k])))
    return out - KEYWORDS


def aliases(name):
    """@name and, for a macro's (FOO_BAR_BAZ), the suffixes that token
    pasting builds it from (X86_FEATURE_##name with TSA_FILL_NO: its
    last two parts and more, 8 characters at least)."""
    if not name.isupper():
        return [name]
    parts = name.split('_')
    return [name] + [s for s in ('_'.join(parts[k:]) for k in range(1, len(parts) - 1))
                     if len(s) >= 8]


def kbuild_objects(path, lines):
    """The source files (relative to the tree) that the objects named on
    @lines of the kbuild file @path build, any of .c, .S, .rs."""
    d = os.path.dirname(path)
    out = set()
    for line in lines:
        for o in KBUILD_OBJ.findall(_strip(line)):
            base = os.path.normpath(os.path.join(d, o))
            out |= {base + ext for ext in ('.c', '.S', '.rs')}
    return out


class Unit:
    """What grouping needs of one unit: its name, the names its changes
    declare and use, and for a kbuild file the sources its changed lines
    build; @alone: the file is in one tree only."""

    def __init__(self, key, declared, used, path, alone=False, builds=()):
        self.key, self.declared, self.used = key, declared, used
        self.path, self.alone, self.builds = path, alone, set(builds)


def groups(units):
    """@units (Unit, in the search's order) grouped: a list of tuples of
    their keys, each group in order and the groups in the order of their
    first unit.  Units are joined when one declares a name another uses
    (the name used by at most max(COMMON, COMMON_SHARE of them)), and a
    kbuild file's changed object with the file of it that only one tree
    has."""
    parent = list(range(len(units)))

    def find(x):
        while parent[x] != x:
            parent[x] = parent[parent[x]]
            x = parent[x]
        return x

    def join(x, y):
        x, y = find(x), find(y)
        if x != y:
            parent[max(x, y)] = min(x, y)
    users = {}
    for k, u in enumerate(units):
        for n in u.used | u.declared:
            users.setdefault(n, set()).add(k)
    limit = max(COMMON, int(COMMON_SHARE * len(units)))
    for k, u in enumerate(units):
        for n in u.declared:
            for a in aliases(n) if COMPOUND.match(n) else ():
                who = users.get(a, set())
                if 1 < len(who | {k}) <= limit:
                    for x in who:
                        join(k, x)
    alone = {u.path: k for k, u in enumerate(units) if u.alone}
    for k, u in enumerate(units):
        for src in u.builds:
            if src in alone:
                join(k, alone[src])
    out = {}
    for k, u in enumerate(units):
        out.setdefault(find(k), []).append(u.key)
    return [tuple(out[r]) for r in sorted(out)]


def is_kbuild(path):
    """Whether @path (relative to the tree) is a kbuild file, Makefile*
    or Kbuild*: make reads it, and its lines name the objects built."""
    return re.search(r'(^|/)(Makefile|Kbuild)[^/]*$', path) is not None
