# SPDX-License-Identifier: GPL-2.0-only
"""py_layers: docs_check's check of bench/kvmbench against the package
table of docs/design.md, as docs_check_code checks the C layers.

Every module is in a subpackage (bench/kvmbench/PACKAGE/NAME.py, or a
folder of one, NAME/) and in that package's row of the table; each import
of a kvmbench module, at the top or inside a function, goes to a package
the row's "may import" column names; the column itself is a layer order
(no two packages that may import each other, through others or
directly); and no modules import each other in a circle.
"""
import ast
import os

from .docs_check_code import DESIGN, layer_table

PACKAGES_MARK = '<!-- packages:'
TOP = 'bench/kvmbench'
ROOT_NAME = 'kvmbench'


def modules(root):
    """{dotted name: path relative to root} of every .py of bench/kvmbench;
    a package's __init__.py is the package's name."""
    out = {}
    top = os.path.join(root, TOP)
    for d, dirs, files in os.walk(top):
        dirs[:] = sorted(x for x in dirs if x != '__pycache__')
        rel = os.path.relpath(d, os.path.join(root, 'bench'))
        for f in sorted(files):
            if f.endswith('.py'):
                parts = rel.split(os.sep) + ([] if f == '__init__.py' else [f[:-3]])
                out['.'.join(parts)] = os.path.relpath(os.path.join(d, f), root)
    return out


def imports(path, name, mods):
    """The kvmbench modules the file @path (module @name) imports, as
    (line, dotted name): `from PKG import NAME` counts NAME where it is a
    module, else PKG."""
    with open(path, encoding='utf-8') as f:
        tree = ast.parse(f.read(), path)
    package = name if path.endswith('__init__.py') else name.rpartition('.')[0]
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found += [(node.lineno, a.name) for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                up = package.split('.')[:len(package.split('.')) - node.level + 1]
                base = '.'.join(up + ([node.module] if node.module else []))
            else:
                base = node.module or ''
            for a in node.names:
                sub = base + '.' + a.name
                found.append((node.lineno, sub if sub in mods else base))
    return [(n, m) for n, m in found if m in mods and m != ROOT_NAME]


def package_of(dotted):
    parts = dotted.split('.')
    return parts[1] if len(parts) > 1 else None


def circles(graph):
    """Each circle of @graph ({node: set of nodes}) once, as a list of
    nodes, the first repeated at the end (Tarjan's strongly connected
    components, a circle walked through each component of two or more)."""
    index, low, stack, on, comps = {}, {}, [], set(), []

    def visit(v):
        index[v] = low[v] = len(index)
        stack.append(v)
        on.add(v)
        for w in sorted(graph.get(v, ())):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1 or v in graph.get(v, ()):
                comps.append(sorted(comp))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    out = []
    for comp in comps:
        path, seen = [comp[0]], {comp[0]}
        while True:
            nxt = sorted(w for w in graph[path[-1]] if w in comp)
            step = next((w for w in nxt if w not in seen), None) or next(w for w in nxt)
            path.append(step)
            if step in seen:
                out.append(path[path.index(step):])
                break
            seen.add(step)
    return out


def check_python(root):
    problems = []
    try:
        table = layer_table(root, PACKAGES_MARK)
    except RuntimeError as e:
        return [str(e)]
    may = {p: set(m) for p, _, m in table}
    rows = {p: set(n.rstrip('/') for n in names) for p, names, _ in table}
    for p, allowed in sorted(may.items()):
        for q in sorted(allowed - set(may)):
            problems.append('%s: package %s may import %s, which is no package' % (DESIGN, p, q))
    order = {p: allowed - {p} for p, allowed in may.items()}
    for c in circles(order):
        problems.append('%s: the packages may import each other: %s' % (DESIGN, ' -> '.join(c)))
    mods = modules(root)
    for dotted, path in sorted(mods.items()):
        parts = dotted.split('.')
        if len(parts) == 2 and not path.endswith('__init__.py'):
            problems.append('%s: in no package (bench/kvmbench/PACKAGE/)' % path)
        elif len(parts) >= 2 and parts[1] not in may:
            problems.append('%s: package %s has no row in %s' % (path, parts[1], DESIGN))
        elif len(parts) >= 3 and parts[2] not in rows[parts[1]]:
            problems.append('%s: not in %s\'s row of %s' % (path, parts[1], DESIGN))
    for p, names in sorted(rows.items()):
        for n in sorted(names):
            if '%s.%s.%s' % (ROOT_NAME, p, n) not in mods:
                problems.append('%s: %s\'s row names %s, which is no module of bench/kvmbench/%s/'
                                % (DESIGN, p, n, p))
    graph = {}
    for dotted, path in sorted(mods.items()):
        edges = graph.setdefault(dotted, set())
        try:
            found = imports(os.path.join(root, path), dotted, mods)
        except SyntaxError as e:
            problems.append('%s: %s' % (path, e))
            continue
        here = package_of(dotted)
        for line, to in found:
            if to == dotted:
                continue
            edges.add(to)
            there = package_of(to)
            if here in may and there and there not in may[here]:
                problems.append('%s:%d (%s) imports %s (%s): %s may import only %s'
                                % (path, line, here, to, there, here, ', '.join(sorted(may[here]))))
    for c in circles(graph):
        problems.append('bench/kvmbench: modules import each other in a circle: %s' % ' -> '.join(c))
    return problems
