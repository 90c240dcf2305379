# SPDX-License-Identifier: GPL-2.0-only
"""kvmbench.vmrun.cli: the command-line parser and checks the bench programs
share (a usage error is one line, exit 2)."""
import argparse
import difflib
import glob
import math
import os
import re
import shutil
import signal
import sys
import time

from kvmbench.base.errors import Fail, say, UsageError as Usage  # Usage: a bad command line, exit 2
from kvmbench.kernels import build, debian, fetch


class Parser(argparse.ArgumentParser):
    """argparse with the bench scripts' usage error: Usage (one line, exit
    2, said by the caller) rather than argparse's usage and message; no
    abbreviated options."""

    status = 2      # a usage error's exit status

    def __init__(self, *args, command=False, **kw):
        """@command: the words after '--' are the test command
        (parse_options)."""
        kw.setdefault('allow_abbrev', False)
        kw.setdefault('formatter_class', argparse.RawDescriptionHelpFormatter)
        super().__init__(*args, **kw)
        if not self.add_help:           # the program prints its own HELP
            self.add_argument('-h', '--help', action='store_true')
        if command:
            self.add_argument('command', nargs=argparse.REMAINDER)

    def error(self, message):
        raise Usage('%s (-h for help)' % message, self.status)

    def parse_known_args(self, *args, **kw):
        try:
            return super().parse_known_args(*args, **kw)
        except Usage as e:          # a type's refusal (number()): ours
            e.status = self.status
            raise

    def unknown(self, word):
        raise Usage("unknown option '%s' (-h for help)" % word, self.status)

    def parse_options(self, argv):
        """The options of @argv as argparse reads them, None for -h or
        --help; with a command (__init__), the words after '--' in
        .command.  An option not known, or a word that is no option's
        value before '--', is "unknown option 'X'"."""
        ns, extra = self.parse_known_args(argv)
        if ns.help:
            return None
        if extra:
            self.unknown(extra[0])
        words = getattr(ns, 'command', None)
        if words and words[0] != '--':
            self.unknown(words[0])
        if words is not None:
            ns.command = words[1:]
        return ns

    def parse_command(self, argv):
        """(the options before '--', the words after it) of @argv; None
        for -h/--help.  An option's values are taken as given, even one
        that starts with '-' ("--options '' -n"); a value of a two-value
        option that does comes with a space in front (split or strip
        it); an option not known is "unknown option 'X'"."""
        n = argv.index('--') if '--' in argv else len(argv)
        head, rest, args, i = argv[:n], argv[n + 1:], [], 0
        while i < len(head):
            o = head[i]
            i += 1
            if o in ('-h', '--help'):
                return None
            act = self._option_string_actions.get(o)
            if act is None:
                raise Usage("unknown option '%s' (-h for help)" % o)
            k = 1 if act.nargs is None else act.nargs
            vals = head[i:i + k]
            i += k
            if k > 1:
                short = [v for v in vals if v in self._option_string_actions]
                if short or len(vals) < k:
                    raise Usage("%s takes %d values (%s), then the next option: got %s%s" % (
                        o, k, ' '.join("'%s'" % m for m in act.metavar or ('A', 'B')),
                        ' '.join("'%s'" % v for v in vals[:len(vals) - len(short)]) or
                        'none', ' before %s' % short[0] if short else '') +
                        " (an empty one is '')")
            if k == 1 and vals:
                args.append('%s=%s' % (o, vals[0]))
            else:
                args += [o] + [' ' + v if v.startswith('-') else v for v in vals]
        return self.parse_args(args), rest


def number(kind, refusal=None, least=None, above=None, below=None, name=None):
    """An argparse type: @kind (int or float) of the text, finite, at
    least @least, above @above and below @below where given.  Else the
    usage error @refusal, formatted with the text ({0}), as it stands;
    with none, argparse's "argument --X: invalid NAME value: 'TEXT'"
    (@name, default @kind's)."""
    def convert(text):
        try:
            v = kind(text)
        except ValueError:
            v = None
        if v is None or not math.isfinite(v) or least is not None and v < least or \
                above is not None and v <= above or below is not None and v >= below:
            if refusal is None:
                raise ValueError(text)
            raise Usage(refusal.format(text))
        return v
    convert.__name__ = name or kind.__name__
    return convert


def positive(refusal=None):
    """An argparse type: a whole number from 1 (number()'s; with no
    @refusal argparse says "invalid positive number value")."""
    return number(int, refusal, least=1, name='positive number')


SIZE_UNITS = 'KMGT'


def size(refusal, units=SIZE_UNITS, bare=True):
    """An argparse type: a size as vm/run and the tests take it, a whole
    number from 1 with one of @units after it or (@bare) none (64M, 2G,
    4096); kept as the text; else the usage error @refusal ({0}: the text)."""
    def convert(text):
        digits = text[:-1] if text[-1:] and text[-1] in units else text
        if not (digits.isascii() and digits.isdigit() and int(digits) >= 1) or \
                not bare and digits == text:
            raise Usage(refusal.format(text))
        return text
    return convert


def size_bytes(text):
    """The bytes of a size that size() took: K, M, G and T are powers of 1024."""
    unit = text[-1:]
    if unit in SIZE_UNITS:
        return int(text[:-1]) << 10 * (SIZE_UNITS.index(unit) + 1)
    return int(text)


def positives(refusal):
    """An argparse type: whole numbers from 1 in one string, apart by
    blanks ('1 2 4 8'), at least one; a list of their texts (without
    leading zeros); else the usage error @refusal ({0}: the text)."""
    def convert(text):
        words = text.split()
        if not words or not all(w.isascii() and w.isdigit() and int(w) >= 1 for w in words):
            raise Usage(refusal.format(text))
        return [str(int(w)) for w in words]
    return convert


def profile_phase(name):
    """--profile-phase NAME: @name if it can be a phase of a test
    (perf_report_phase(): lower case and _), else Usage."""
    if not re.fullmatch(r'[a-z_]*', name or ''):
        raise Usage("bad --profile-phase '%s'" % name)
    return name


MARK = '.kvm-selftests'  # in an output folder: the program that made it (make_out)


def made_by(path):
    """The program whose output folder @path is (its MARK), or ''."""
    try:
        with open(os.path.join(path, MARK)) as f:
            return f.read().strip()
    except OSError:
        return ''


def check_out(opt, path, prog=None, ours=()):
    """The one rule for a folder a program writes, checked before any
    work: @path (given as option @opt) is new, an empty directory, or,
    with @prog, one that @prog made before (its MARK, or one of the files
    @ours that its outputs of before hold); else Usage, one line: nothing
    the user gave is written into, deleted or overwritten."""
    if not os.path.lexists(path):
        return
    if not os.path.isdir(path):
        raise Usage('%s %s: not a directory (name a new or empty one)' % (opt, path))
    names = os.listdir(path)
    if not names or prog and (made_by(path) == prog or any(n in names for n in ours)):
        return
    raise Usage('%s %s: not an empty directory%s (nothing you gave is deleted: name a new '
                'or empty one)' % (opt, path, ' nor one %s made' % prog if prog else ''))


def make_out(path, prog):
    """Output folder @path (check_out()'s) created with its parents and
    marked as @prog's (its MARK), so that @prog may write into it again."""
    os.makedirs(path, exist_ok=True)
    if made_by(path) != prog:
        with open(os.path.join(path, MARK), 'w') as f:
            f.write(prog + '\n')
    return path


def fresh_out(opt, path, prog, ours=()):
    """A logs folder @path (option @opt) that @prog empties each run:
    check_out()'s rule (new, empty or @prog's), then emptied and marked."""
    check_out(opt, path, prog, ours)
    if os.path.isdir(path):
        shutil.rmtree(path)
    return make_out(path, prog)


def test_command(words):
    """(test, its arguments) from the words after '--'."""
    if not words:
        raise Usage('no test command after --')
    test = words[0][2:] if words[0].startswith('./') else words[0]
    if not re.fullmatch(r'[a-z0-9_/]+', test):
        raise Usage("bad test name '%s'" % test)
    return test, words[1:]


def suite_tests(arch, root=build.REPO):
    """The names of this suite's tests for @arch, as its Makefile finds
    them: each top-level and <arch>/ *.c, each test directory's *_test.c
    (installed as kvm/NAME)."""
    src = glob.glob(os.path.join(root, '*.c')) + glob.glob(
        os.path.join(root, build.arch_dir(arch), '*.c')) + glob.glob(os.path.join(root, 'unit', '*.c'))
    src += [m for m in glob.glob(os.path.join(root, '*', '*_test.c'))
            if os.path.basename(os.path.dirname(m)) not in ('x86_64', 'aarch64', 'unit', 'fuzz')]
    return sorted(os.path.basename(p)[:-2] for p in src)


def check_test(test, arch):
    """Usage unless @test (from test_command) is one of the suite's tests
    for @arch: known before any build or boot."""
    have = suite_tests(arch)
    if os.path.basename(test) not in have:
        near = difflib.get_close_matches(os.path.basename(test), have, 1)
        raise Usage("no test '%s' in this suite for %s%s" % (
            test, arch, " (did you mean '%s'?)" % near[0] if near else ''))


def check_kernels(specs, arch):
    """vm/run's options for each kernel of @specs (build.kernel_args);
    Usage for one that is neither a kernel image for @arch (as vm/run
    reads it) nor a Debian kernel version the archive has for @arch
    (apt's list and the cache, as vm/run picks it).  With no list
    (apt-get update not yet run) the version is left to the boot."""
    out, versions = [], None
    for s in specs:
        try:
            args = build.kernel_args(s)
        except ValueError as e:
            raise Usage(str(e)) from None
        if args[0] == '--kernel' and not fetch.is_kernel_image(arch, args[1]):
            raise Usage("kernel '%s' is a file but no kernel image for %s" % (args[1], arch))
        if args[0] == '--debian-kernel':
            if versions is None:
                versions = debian.kernel_versions(build.arch_name(arch))
            try:
                if versions:
                    debian.pick_version(s, versions, debian.DEB_ARCH[build.arch_name(arch)])
            except debian.FetchError as e:
                raise Usage(str(e)) from None
        out.append(args)
    return out


def vm_size(arch, mem):
    """@arch as vm/run names it (x86_64, arm64), after checking it and
    the VM's --mem."""
    size("bad --mem '{0}'")(mem)
    try:
        return build.arch_name(arch)
    except ValueError as e:
        raise Usage(str(e)) from None


class Interrupted(KeyboardInterrupt):
    """SIGINT, SIGTERM or SIGHUP arrived (on_signals): @signum."""

    def __init__(self, signum=signal.SIGINT):
        super().__init__()
        self.signum = signum


def children():
    """The process ids whose parent is this process (from /proc), but
    those that ended (zombies) and those in a session of their own
    (debian.apt_get's apt-get: an install is not cut short)."""
    me, sid, out = os.getpid(), os.getsid(0), []
    for d in os.listdir('/proc'):
        if not d.isdigit():
            continue
        try:
            with open('/proc/%s/stat' % d) as f:
                stat = f.read().rsplit(')', 1)[1].split()
        except OSError:
            continue
        if int(stat[1]) == me and stat[0] != 'Z' and int(stat[3]) == sid:
            out.append(int(d))
    return out


def signal_children(sig=signal.SIGTERM):
    """@sig to each of children(): vm/run stops its emulator on it, make
    its build, a bench program its own children."""
    for pid in children():
        try:
            os.kill(pid, sig)
        except OSError:
            pass


def _stop(signum, frame):
    signal_children()
    raise Interrupted(signum)


def on_signals():
    """SIGINT, SIGTERM and SIGHUP end the program: each child is sent
    SIGTERM at once (a child that does not share our process group, or a
    SIGTERM sent to us alone, would not see it) and Interrupted is raised
    in the main thread for interrupted() to report."""
    for s in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP):
        signal.signal(s, _stop)


def interrupted(prog, e, what, wait=60):
    """After Interrupted (or KeyboardInterrupt) @e: the children ended
    (SIGTERM again each second for @wait s, then SIGKILL), one line
    "PROG: interrupted by SIGTERM: the VMs and builds it started are
    stopped; WHAT", and its status: 128 + the signal (130 SIGINT, 143
    SIGTERM, 129 SIGHUP)."""
    sig = getattr(e, 'signum', signal.SIGINT)
    for s in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP):
        signal.signal(s, signal.SIG_IGN)     # a second one does not cut this short
    end = time.monotonic() + wait
    while children() and time.monotonic() < end:
        signal_children()
        time.sleep(1)
    signal_children(signal.SIGKILL)
    print('%s: interrupted by %s: the VMs and builds it started are stopped%s' % (
        prog, signal.Signals(sig).name, '; ' + what if what else ''),
        file=sys.stderr, flush=True)
    return 128 + sig


def program(prog, argv, parse, run, help_text=None, stopped=''):
    """A bench program's main(): @parse(@argv) is its checked command
    line (None for -h: @help_text printed, exit 0), @run of it its exit
    status.  SIGINT, SIGTERM and SIGHUP end the run (on_signals): its
    children stopped, one line (interrupted(), @stopped said after it),
    128 + the signal.  A Fail from either (Usage: a bad command line or
    input, found before any build or boot) ends it with its one line,
    'PROG: message' (none for an empty message: said already), and its
    status."""
    try:
        c = parse(argv)
        if c is None:
            print(help_text, end='')
            return 0
        on_signals()
        return run(c)
    except Fail as e:
        if str(e):
            say(prog, str(e))
        return e.status
    except KeyboardInterrupt as e:
        return interrupted(prog, e, stopped)


def main(argv):
    """python3 -m kvmbench.vmrun.cli fresh-out OPT PATH PROG (for shell scripts'
    --logs): fresh_out(); one line and exit 2 if the folder is not theirs."""
    if len(argv) != 4 or argv[0] != 'fresh-out':
        print('usage: python3 -m kvmbench.vmrun.cli fresh-out OPT PATH PROG', file=sys.stderr)
        return 2
    try:
        fresh_out(*argv[1:])
    except Usage as e:
        print('%s: %s' % (argv[3], e), file=sys.stderr)
        return 2
    return 0


if __name__ == '__main__':
    sys.exit(main(sys.argv[1:]))
