# SPDX-License-Identifier: GPL-2.0-only
"""kvmbench.tracking.trackplan: bench/track's plan, the same for boots on this
machine (kvmbench.tracking.track) and jobs on a LAVA lab (kvmbench.tracking.tracklava):
the boots in rounds, one boot a kernel, every other round reversed, and
those whose runs the database does not hold yet."""


def plan(kernels, archs, runs, per_boot):
    """The boots in order: [(round, arch, kernel, [run_idx])]; rounds of
    one boot a kernel, every other round reversed."""
    boots = []
    rounds = -(-runs // per_boot)
    for r in range(rounds):
        idx = list(range(r * per_boot, min(runs, (r + 1) * per_boot)))
        for arch in archs:
            order = kernels[arch] if r % 2 == 0 else kernels[arch][::-1]
            boots += [(r, arch, k, idx) for k in order]
    return boots


def todo_boots(a, cmds, kernels, db, covered=frozenset()):
    """The boots of the plan whose runs are neither stored nor @covered
    {(arch, kernel, command, run_idx)} (a LAVA job's, still running), in
    plan order: [(round, arch, Kernel, [run_idx], runs wanted)]."""
    archs = list(kernels)
    todo = []
    for arch in archs:
        have = db.done(arch)
        for b in plan(kernels, [arch], a.runs, a.per_boot):
            want = [(i, c.name) for i in b[3] for c in cmds if (b[2].name, c.name, i) not in have
                    and (arch, b[2].name, c.name, i) not in covered]
            if want:
                todo.append((b[0], arch, b[2], sorted({i for i, _ in want}), len(want)))
    todo.sort(key=lambda b: (b[0], archs.index(b[1])))
    return todo


def todo_text(a, cmds, kernels, todo, at_once, what='boots'):
    """What is still to run of the plan, in words."""
    total = sum(map(len, kernels.values())) * -(-a.runs // a.per_boot)
    return '%d of %d %s to go (%s kernels, %d runs of %d commands each, %d a boot%s)' % (
        len(todo), total, what,
        ', '.join('%d %s' % (len(ks), arch) for arch, ks in kernels.items()),
        a.runs, len(cmds), a.per_boot, ', %d %s at a time' % (at_once, what)
        if at_once > 1 else '')
