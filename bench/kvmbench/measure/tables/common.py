# SPDX-License-Identifier: GPL-2.0-only
"""kvmbench.measure.tables.common: what every table shares: the option helpers,
the RESULT lines read into key=value dicts, the build, the guest's
watchdog and the boot."""
import re
import subprocess
import sys

from kvmbench.base.errors import Fail
from kvmbench.verdicts import stats
from kvmbench.verdicts.stats_cli import median_text
from kvmbench.kernels import build as _build
from kvmbench.vmrun import runner, vm
from kvmbench.vmrun.cli import Usage, positive as _positive, size as _size, size_bytes as _bytes

REPO = runner.REPO
PROG = 'bench/table'


positive = _positive()      # the tables' argparse type of a count


_SIZE = _size("bad size '{0}' (e.g. 32M)", 'KMG')


def size_bytes(text):
    """Bytes of a size such as 32M, 1G, 4K or 4096; Usage if it is none."""
    return _bytes(_SIZE(text))


def fields(line):
    """The key=value words of @line as a dict; a key that comes twice
    keeps its last value (RESULT_STATS after RESULT)."""
    d = {}
    for w in line.split():
        k, eq, v = w.partition('=')
        if eq:
            d[k] = v
    return d


def records(text, prefix):
    """(line, fields) of each line of @text that starts with @prefix."""
    return [(ln, fields(ln)) for ln in text.splitlines() if ln.startswith(prefix)]


def matching(recs, **want):
    """The fields of the records whose fields hold every key=value of @want."""
    return [f for _, f in recs if all(f.get(k) == str(v) for k, v in want.items())]


def values(recs, key, **want):
    """@key's values (numbers) over the records that match @want."""
    out = []
    for f in matching(recs, **want):
        try:
            out.append(float(f[key]))
        except (KeyError, ValueError):
            pass
    return out


def spread(xs, div=1):
    """(median, min, max) of @xs over @div; (0, 0, 0) for none."""
    return tuple(v / div for v in stats.median_min_max(xs))


def words(recs, key, **want):
    """@key's values as printed over the records that match @want."""
    return [f[key] for f in matching(recs, **want) if key in f]


def median_word(ws):
    """The median of the numbers @ws (text) as text: one of them, or the
    mean of the middle two (bench/stats.py median's)."""
    return median_text(ws).split()[0]


class VmFailed(Fail):
    """vm/run failed; @text: what it printed."""

    def __init__(self, msg, text):
        super().__init__(msg)
        self.text = text


def guest_watch(test, timeout, out='/tmp/out'):
    """Guest shell lines that run ./TEST "$@" to @out under guest.sh's
    watchdog: after @timeout seconds its threads' kernel stacks are printed
    as HANG lines and it is killed."""
    return runner.guest_sh('  bench_watch %s %s ./%s "$@"' % (timeout, out, test))


def guest_run(test, timeout):
    """A guest shell function run() that runs ./TEST "$@" under the
    watchdog and prints its RESULT line, or "RESULT failed ARGS"."""
    return ('run() {\n%s'
            "  grep '^RESULT' /tmp/out || echo \"RESULT failed $*\"\n}\n"
            % guest_watch(test, timeout))


def build(arch='x86_64'):
    """The suite built for @arch: the kselftest install directory."""
    try:
        return _build.fresh_tree(arch, repo=REPO)
    except _build.BuildError as e:
        raise Fail(str(e))


def vm_run(script, vm_args, timeout, arch='x86_64'):
    """Build, boot vm/run once with @vm_args and run the guest shell
    @script in it: its console output (Fail if vm/run fails)."""
    cmd = vm.script_args(script, build(arch), timeout, arch, args=vm_args)
    p = subprocess.run(cmd, stdout=subprocess.PIPE, stdin=subprocess.DEVNULL)
    text = p.stdout.decode(errors='replace').replace('\r', '')
    if p.returncode:
        raise VmFailed('vm/run exited %d' % p.returncode, text)
    return text


def keep(raw, text):
    """@text into the --raw file @raw, if one was given."""
    if raw:
        with open(raw, 'w') as f:
            f.write(text)


def read_file(path, what):
    try:
        with open(path, errors='replace') as f:
            return f.read()
    except OSError:
        raise Usage("cannot read %s '%s'" % (what, path))


def show_failed(text, pattern, after=0, head='failed runs (left out of the table):'):
    """The lines of @text that match @pattern (and @after more) on stderr,
    under @head; whether there were any."""
    lines = text.splitlines()
    hits = [i for i, ln in enumerate(lines) if re.match(pattern, ln)]
    if not hits:
        return False
    if head:
        print(head, file=sys.stderr)
    shown = set()
    for i in hits:
        for j in range(i, min(i + after + 1, len(lines))):
            if j not in shown:
                shown.add(j)
                print(lines[j], file=sys.stderr)
    return True


def common(p, runs, timeout=None, raw=True):
    p.add_argument('--runs', type=positive, default=runs, help='runs a cell (default %d)' % runs)
    if timeout:
        p.add_argument('--timeout', type=positive, default=timeout,
                       help="the VM's timeout in seconds (default %d)" % timeout)
    if raw:
        p.add_argument('--raw', default='', metavar='FILE',
                       help='keep the lines the runs printed in FILE')


def run_values(text, name, mode, key, idx=None):
    """@key's values (the last on each line) over the "RUN NAME MODE ..."
    lines that hold a RESULT; @idx: a pattern the third word matches."""
    xs = []
    for ln in text.splitlines():
        w = ln.split()
        if len(w) < 3 or w[:2] != ['RUN', name] or ' RESULT ' not in ln + ' ':
            continue
        if (idx is None and w[2] != mode) or (idx is not None and not re.fullmatch(idx, w[2])):
            continue
        try:
            xs.append(float(fields(ln)[key]))
        except (KeyError, ValueError):
            pass
    return xs
