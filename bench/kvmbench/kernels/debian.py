# SPDX-License-Identifier: GPL-2.0-only
"""kvmbench.kernels.debian: Debian's kernels, the one place for them.

  facts      Debian's arch names (DEB_ARCH), the download cache
             (cache_dir()), the forms a kernel is named in (SERIES 6.12,
             NAME 6.1.0-57 or 6.12.117+deb12 as linux-image-NAME-ARCH
             has it, SPEC what --debian-kernel takes: a series or a
             version), their order (version_key: dpkg's), a version's
             series and a package version's upstream version;
  versions   the kernel versions apt lists or the cache holds
             (kernel_versions, known_versions), one picked
             (pick_version, pick_versions);
  packages   Debian packages downloaded once with apt-get into the cache
             (fetch_deb, stock_kernel_dir, debian_kernel_dir; a failure
             is FetchError(status, message): 2 the user's mistake, 6 the
             host's set-up); a kernel's headers and linux-source-SERIES
             for a KVM build (Kernel, debian_source);
  apt        apt-get as every program calls it (apt_get: waiting for
             apt's locks, its output in the cache's logs/apt.log), the
             cache's locks (locked, landed: an entry lands whole).

It imports only kvmbench.base.errors: kvmbench.kernels.build, fetch, track and the
others ask it."""

import contextlib
import fcntl
import glob
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time

from kvmbench.base import errors
from kvmbench.base.errors import SetupError, UsageError

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))
DEB_ARCH = {"x86_64": "amd64", "arm64": "arm64"}
# The kernel's arch names that Debian's changelogs tag entries with
# ("[x86] KVM: ...", 6.1's; "[amd64] ...", 6.12's), beside its own
# package arch names: the package arches each stands for.
CHANGELOG_ARCH = {"x86": ("amd64", "i386"), "arm": ("armel", "armhf")}
PROG = ["vm/run"]   # the download's messages' prefix (kvmbench.kernels.fetch's --prog)

# The forms of a Debian kernel's name.  SERIES: 6.12.  NAME: the version
# in a kernel package's name, linux-image-NAME-ARCH (6.1.0-57: 6.1's ABI
# names, always X.Y.0-N; 6.12.117+deb12).  SPEC: what --debian-kernel and
# bench/track take, a series or a version (a full one is checked against
# apt, kernel_versions).
SERIES = r"[0-9]+\.[0-9]+"
NAME = r"[0-9]+\.[0-9]+\.[0-9]+\+deb[0-9]+|[0-9]+\.[0-9]+\.0-[0-9]+"
SPEC = SERIES + r"([.+-][0-9a-z.+-]*)?"


class FetchError(Exception):
    def __init__(self, status, msg):
        super().__init__(msg)
        self.status = status


def say(msg):
    errors.say(PROG[0], msg)


def cache_dir():
    """${XDG_CACHE_HOME:-~/.cache}/kvm-selftests, where Debian's packages
    (and the KVM builds, kvmbench.kbuild.kvm_build) are kept."""
    return os.path.join(os.environ.get("XDG_CACHE_HOME") or
                        os.path.join(os.path.expanduser("~"), ".cache"), "kvm-selftests")


def _order(part):
    """dpkg's order of the characters of a version's non-digit part: '~'
    before the end, the end before letters, letters before the rest."""
    return tuple(-1 if c == "~" else ord(c) if c.isalpha() else ord(c) + 256
                 for c in part) + (0,)


def _fragment_key(s):
    """dpkg's comparison of an upstream version or revision as a sort key:
    alternately a non-digit part (_order) and a number."""
    out = []
    for text, num in re.findall(r"([^0-9]*)([0-9]*)", s)[:-1] or [("", "")]:
        out.append((_order(text), int(num or 0)))
    return out + [((0,), 0)]


def version_key(v):
    """A sort key ordering Debian versions (package versions
    6.12.117-1~deb12u1, kernel names 6.1.0-9 < 6.1.0-10, 6.12.9+deb12 <
    6.12.10+deb12, package names linux-image-6.1.0-57-amd64) as
    `dpkg --compare-versions` does: epoch, upstream version, revision
    (after the last '-')."""
    epoch, rest = v.split(":", 1) if re.match(r"[0-9]+:", v) else ("0", v)
    up, dash, rev = rest.rpartition("-")
    if not dash:
        up, rev = rest, ""
    return (int(epoch), _fragment_key(up), _fragment_key(rev))


def upstream(pkgver):
    """The upstream version of a kernel package's version: 6.12.117 of
    6.12.117-1~deb12u1 (linux-image-*, linux-source-*) and of
    6.12.117+1~deb12u1 (linux-signed-*: Debian's revision after '+')."""
    return re.split(r"[-+]", pkgver, maxsplit=1)[0]


def series(version):
    """The series (6.12) of a version or a kernel's name: 6.12.117,
    6.12.117+deb12, 6.12-newest, 6.12; None if it names none."""
    m = re.match(SERIES, version)
    return m.group(0) if m else None


def is_version(spec):
    """True if @spec is a full Debian kernel version (6.12.117+deb12,
    6.1.0-57), not a series: one apt is asked about (kernel_versions)."""
    return is_spec(spec) and not re.fullmatch(SERIES, spec)


def is_spec(spec):
    """True if @spec has the form of a Debian kernel a user may name: a
    series (6.12) or a version (6.12.115+deb12, 6.1.0-57)."""
    return bool(re.fullmatch(SPEC, spec))


def out(cmd):
    return subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                          text=True).stdout


def fetched(fn, *args):
    """@fn(*@args) of the download (fetch_deb, debian_kernel_dir, landed)
    or of kvmbench.kernels.build: its FetchError or BuildError as ours (2 the
    user's mistake, else the host's set-up)."""
    try:
        return fn(*args)
    except FetchError as e:
        raise (UsageError if e.status == 2 else SetupError)(str(e))
    except errors.BuildError as e:
        raise SetupError(str(e))


def cache_lock(name):
    """The lock (locked) of cache entry @name: .locks/NAME.lock in
    the cache, waited for."""
    return locked(os.path.join(cache_dir(), '.locks', name.replace('/', '_') + '.lock'),
                  say, name)


def landed(dest, fill, stamp=None):
    """@dest, made once by @fill(tmp) (which fills the new directory tmp):
    whole or not at all, under cache_lock of its name (a second run
    making it waits, then finds it), in a temporary directory beside it
    renamed into place; done when file @stamp is in it (else: when it
    exists).  An unfinished @dest of before is replaced."""
    def done():
        return os.path.exists(os.path.join(dest, stamp) if stamp else dest)
    if done():
        return dest
    full = os.path.abspath(dest)
    parent, name = os.path.split(full)
    inside = full.startswith(os.path.join(cache_dir(), ''))
    with cache_lock(os.path.relpath(full, cache_dir()) if inside else name):
        if done():
            return dest
        os.makedirs(parent, exist_ok=True)
        tmp = tempfile.mkdtemp(prefix='.%s.' % name, dir=parent)
        try:
            os.chmod(tmp, 0o755)    # apt's _apt sandbox user writes into it
            fill(tmp)
            if stamp:
                open(os.path.join(tmp, stamp), 'w').close()
            if os.path.lexists(dest):
                os.rename(dest, tmp + '.old')
                shutil.rmtree(tmp + '.old', ignore_errors=True)
            os.rename(tmp, dest)
        finally:
            shutil.rmtree(tmp, ignore_errors=True)
    return dest


def apt_update():
    """apt-get update (as root), one at a time (the cache's apt.lock, as
    build.install), waiting for apt's own lock; False if it failed."""
    if os.geteuid() != 0:
        return False
    with locked(os.path.join(cache_dir(), 'apt.lock'), say, 'another apt-get'):
        say('apt-get update (log: %s)' % apt_log())
        return apt_get(['update', '-q']) == 0


def ensure_dpkg_arch(darch):
    """apt configured to download @darch packages (added as root)."""
    if darch == out(['dpkg', '--print-architecture']).strip():
        return
    if darch in out(['dpkg', '--print-foreign-architectures']).split():
        return
    if os.geteuid() != 0:
        raise FetchError(6, 'dpkg architecture %s not configured; run: sudo dpkg '
                         '--add-architecture %s && sudo apt-get update' % (darch, darch))
    say('adding dpkg architecture %s (to fetch its kernels and busybox)' % darch)
    subprocess.run(['dpkg', '--add-architecture', darch], check=False)
    if not apt_update():
        raise FetchError(6, 'apt-get update failed (log: %s)' % apt_log())


def fetch_deb(pkg, dest):
    """Debian package @pkg (name[:arch][=version]) unpacked into @dest,
    once (landed(): a .complete stamp marks a finished unpack, so that an
    interrupted one is redone, and two runs fetching it at once download
    it once)."""
    def fill(tmp):
        dl = os.path.join(tmp, '.deb')
        os.mkdir(dl)
        os.chmod(dl, 0o755)     # apt's _apt sandbox user writes here
        say('downloading %s into %s (once)' % (pkg, dest))
        if apt_get(['download', '-q', pkg], cwd=dl):
            sys.stderr.write(log_tail(apt_log(), 5))
            raise FetchError(6, 'apt-get download %s failed (log: %s)' % (pkg, apt_log()))
        debs = glob.glob(os.path.join(dl, '*.deb'))
        if len(debs) != 1 or subprocess.call(['dpkg-deb', '-x', debs[0], tmp]):
            raise FetchError(6, 'dpkg-deb -x failed for %s' % pkg)
        shutil.rmtree(dl)
    return landed(dest, fill, '.complete')


def cached_dirs(pattern):
    """Complete cached package directories matching @pattern, oldest first."""
    dirs = [os.path.dirname(c) for c in glob.glob(os.path.join(cache_dir(), pattern, '.complete'))]
    return sorted(dirs, key=lambda d: version_key(os.path.basename(d)))


def stock_kernel_dir(arch):
    """The cached stock kernel (linux-image-6.1.0-*) of @arch (x86_64,
    arm64), downloaded if none is cached (what linux-image-<arch>
    depends on)."""
    darch = DEB_ARCH[arch]
    have = cached_dirs('linux-image-6.1.0-*-%s' % darch)
    if have:
        return have[-1]
    ensure_dpkg_arch(darch)
    meta = 'linux-image-' + darch
    if darch != out(['dpkg', '--print-architecture']).strip():
        meta += ':' + darch
    m = re.search(r'^ *Depends: (linux-image-[0-9][^:\s]*)', out(['apt-cache', 'depends', meta]),
                  re.M)
    if not m:
        raise FetchError(6, 'cannot resolve %s with apt-cache (not Debian? use --kernel)' % meta)
    return fetch_deb('%s:%s' % (m.group(1), darch), os.path.join(cache_dir(), m.group(1)))


def kernel_versions(arch, cached=True, names=None):
    """The NAME of each linux-image-NAME-ARCH package (6.1.0-57,
    6.12.117+deb12; no flavours, no metapackages) of @arch (x86_64,
    arm64) that apt lists, and the cache holds if @cached, oldest first;
    in @names (package names) instead if given."""
    if names is None:
        names = out(['apt-cache', 'pkgnames', 'linux-image-']).split()
        if cached:
            names += [os.path.basename(d) for d in cached_dirs('linux-image-*')]
    pat = re.compile(r'linux-image-(%s)-%s' % (NAME, re.escape(DEB_ARCH[arch])))
    return sorted({m.group(1) for m in map(pat.fullmatch, names) if m}, key=version_key)


def known_versions(arch):
    """kernel_versions(@arch) with apt configured for its packages and,
    if it lists none and we are root, after an apt-get update: the
    versions a kernel name is looked up in (FetchError)."""
    ensure_dpkg_arch(DEB_ARCH[arch])
    versions = kernel_versions(arch)
    if not versions and apt_update():
        versions = kernel_versions(arch)
    return versions


def pick_version(want, versions, darch):
    """@want (a series: its newest; a full version: exactly it) among
    @versions; FetchError(2) naming those there are."""
    if re.fullmatch(SERIES, want):
        pick = [v for v in versions if series(v) == want][-1:]
    else:
        pick = [v for v in versions if v == want]
    if not pick:
        raise FetchError(2, "no Debian kernel '%s' for %s; there are: %s" % (
            want, darch, ' '.join(versions) or 'none (apt-get update?)'))
    return pick[0]


def debian_kernel_dir(want, arch):
    """The cached linux-image-VERSION-<arch> package for @want (a series
    or a version, pick_version), fetched once."""
    darch = DEB_ARCH[arch]
    pkg = 'linux-image-%s-%s' % (pick_version(want, known_versions(arch), darch), darch)
    return fetch_deb('%s:%s' % (pkg, darch), os.path.join(cache_dir(), pkg))


WORDS = ("oldest", "newest", "all")


def pick_versions(spec, versions):
    """SERIES-oldest, SERIES-newest, SERIES-all (6.12-oldest): the
    versions of that series among VERSIONS (oldest first) the word
    names, so that examples name kernels the archive has whatever it
    holds today; any other SPEC as given.  UsageError if the series has
    none."""
    m = re.fullmatch("(%s)-(%s)" % (SERIES, "|".join(WORDS)), spec)
    if not m:
        return [spec]
    ser, word = m.groups()
    have = [v for v in versions if series(v) == ser]
    if not have:
        raise UsageError(f"no Debian kernel of {ser} for '{spec}'; there are: "
                         f"{' '.join(versions) or 'none (apt-get update?)'}")
    return {"oldest": have[:1], "newest": have[-1:], "all": have}[word]


class Kernel:
    """A Debian kernel package: release (6.12.117+deb12-amd64), version
    (6.12.117, from its config's header), config and Module.symvers."""

    def __init__(self, want, arch):
        self.arch = arch
        darch = DEB_ARCH[arch]
        self.image_dir = fetched(debian_kernel_dir, want, arch)
        mods = os.path.join(self.image_dir, "lib", "modules")
        rels = sorted(os.listdir(mods)) if os.path.isdir(mods) else []
        if not rels:
            raise SetupError(f"no lib/modules in {self.image_dir} (remove it to re-download)")
        self.release = rels[-1]
        self.modules = os.path.join(mods, self.release)
        pkgver = self.release[:-len("-" + darch)] if self.release.endswith("-" + darch) \
            else self.release
        hdr = f"linux-headers-{self.release}"
        self.headers_dir = os.path.join(cache_dir(), hdr)
        fetched(fetch_deb, f"{hdr}:{darch}", self.headers_dir)
        self.headers = os.path.join(self.headers_dir, "usr", "src", hdr)
        self.config = os.path.join(self.headers, ".config")
        self.symvers = os.path.join(self.headers, "Module.symvers")
        for f in (self.config, self.symvers):
            if not os.path.isfile(f):
                raise SetupError(f"no {f} in {hdr} (remove {self.headers_dir} to re-download)")
        self.version = config_version(self.config)
        self.pkgver = pkgver
        self.series = series(self.version)

    def __str__(self):
        return f"{self.release} (Linux {self.version})"


def config_version(path):
    """The kernel version a .config was made for ("# Linux/x86 6.12.117
    Kernel Configuration")."""
    with open(path, encoding="utf-8", errors="replace") as f:
        for _, line in zip(range(10), f):
            m = re.match(r"# Linux/\S+ (\S+) Kernel Configuration", line)
            if m:
                return m.group(1)
    raise SetupError(f"{path}: no 'Linux/ARCH VERSION Kernel Configuration' line")


def tree_version(tree):
    """VERSION.PATCHLEVEL.SUBLEVEL(EXTRAVERSION) of a kernel source tree."""
    vals = {}
    try:
        with open(os.path.join(tree, "Makefile"), encoding="utf-8", errors="replace") as f:
            for _, line in zip(range(12), f):
                m = re.match(r"(VERSION|PATCHLEVEL|SUBLEVEL|EXTRAVERSION)\s*=\s*(\S*)", line)
                if m:
                    vals[m.group(1)] = m.group(2)
    except OSError:
        pass
    if not all(k in vals for k in ("VERSION", "PATCHLEVEL", "SUBLEVEL")):
        raise UsageError(f"'{tree}' is not a kernel source tree (no version in its Makefile)")
    return "{VERSION}.{PATCHLEVEL}.{SUBLEVEL}".format(**vals) + vals.get("EXTRAVERSION", "")


def apt_versions(pkg):
    """The versions of pkg that apt can download, newest first."""
    p = subprocess.run(["apt-cache", "madison", pkg], stdout=subprocess.PIPE,
                       stderr=subprocess.DEVNULL, text=True)
    return [f.split("|")[1].strip() for f in p.stdout.splitlines() if f.count("|") >= 2]


def source_version(version, installed, available):
    """The linux-source package version to build a kernel of upstream
    version `version` from: `installed` when it is that version, else the
    newest of `available` (apt's, newest first) that is; None if none is."""
    if installed and upstream(installed) == version:
        return installed
    return next((v for v in available if upstream(v) == version), None)


def debian_source(kernel):
    """Debian's linux-source-SERIES at the kernel's version, unpacked once
    into the cache: its directory.  The installed package when it is that
    version; otherwise that version's package, downloaded into the cache
    (the security archive can publish a source before its signed kernel)."""
    pkg = f"linux-source-{kernel.series}"
    tarball = f"/usr/src/{pkg}.tar.xz"
    q = subprocess.run(["dpkg-query", "-W", "-f", "${Version}", pkg],
                       stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    installed = q.stdout.strip() if q.returncode == 0 and os.path.isfile(tarball) else ""
    pkgver = source_version(kernel.version, installed, [])
    if not pkgver:
        have = apt_versions(pkg)
        if not have and apt_update():
            have = apt_versions(pkg)
        pkgver = source_version(kernel.version, installed, have)
        if not pkgver:
            raise SetupError(f"apt has no {pkg} at {kernel.version}, the version of "
                             f"{kernel.release} (it has: {', '.join(have) or 'none'}): "
                             f"give --src TREE at {kernel.version}")
    dest = os.path.join(cache_dir(), f"{pkg}-{pkgver}")
    if os.path.isdir(dest):
        return dest
    deb_dir = None
    if pkgver != installed:
        deb_dir = os.path.join(cache_dir(), f"{pkg}_{pkgver}.deb")
        fetched(fetch_deb, f"{pkg}={pkgver}", deb_dir)
        tarball = os.path.join(deb_dir, "usr", "src", f"{pkg}.tar.xz")
        if not os.path.isfile(tarball):
            raise SetupError(f"no usr/src/{pkg}.tar.xz in {pkg} {pkgver} "
                             f"(remove {deb_dir} to re-download)")

    def fill(tmp):
        print(f"vm/kvm-build: unpacking {tarball} into {dest} (once)", file=sys.stderr,
              flush=True)
        try:
            subprocess.run(["tar", "-xJf", tarball, "-C", tmp, "--strip-components=1"],
                           check=True)
        except (subprocess.CalledProcessError, OSError) as e:
            raise SetupError(f"unpacking {tarball} failed: {e}") from None
    fetched(landed, dest, fill)
    if deb_dir:
        shutil.rmtree(deb_dir, ignore_errors=True)
    return dest


APT_WAIT = 600   # seconds an apt-get call waits for apt's locks


def apt_log():
    """The log apt-get's own output goes to: logs/apt.log in the cache."""
    return os.path.join(cache_dir(), 'logs', 'apt.log')


@contextlib.contextmanager
def locked(path, say=None, what=None):
    """An exclusive flock on file @path (made if missing) for the block,
    waited for; @say('waiting for @what ...') once if another holds it."""
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, 'a') as f:
        try:
            fcntl.flock(f, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            if say:
                say('waiting for %s (another run holds %s)' % (what or path, path))
            fcntl.flock(f, fcntl.LOCK_EX)
        yield


def finish(p):
    """@p's exit status once it ended, even if a signal comes first (it
    is raised after: dpkg is not cut short, which would leave the
    machine's packages half configured)."""
    pending = None
    while True:
        try:
            rc = p.wait()
            break
        except BaseException as e:     # KeyboardInterrupt, a signal's SystemExit
            if pending is None:
                print('apt-get: finishing first (its log: %s)' % apt_log(), file=sys.stderr,
                      flush=True)
            pending = e
    if pending is not None:
        raise pending
    return rc


def apt_get(args, cwd=None, log=None):
    """apt-get @args, its output appended to @log (default apt_log()),
    waiting up to APT_WAIT s for apt's own locks: dpkg's through
    DPkg::Lock::Timeout, the lists' (apt-get update does not wait for it:
    "Could not get lock /var/lib/apt/lists/lock") by trying again every
    2 s; its exit status.  In a session of its own, ended before a
    signal to us is acted on (finish)."""
    log = log or apt_log()
    os.makedirs(os.path.dirname(os.path.abspath(log)), exist_ok=True)
    env = dict(os.environ, DEBIAN_FRONTEND='noninteractive')
    deadline = time.time() + APT_WAIT
    while True:
        with open(log, 'a') as f:
            f.write('$ apt-get %s\n' % ' '.join(args))
            f.flush()
            start = f.tell()
            rc = finish(subprocess.Popen(
                ['apt-get', '-o', 'DPkg::Lock::Timeout=%d' % APT_WAIT] + args, stdout=f,
                stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL, env=env, cwd=cwd,
                start_new_session=True))
        with open(log, errors='replace') as f:
            f.seek(start)
            busy = 'Could not get lock' in f.read()
        if rc == 0 or not busy or time.time() > deadline:
            return rc
        time.sleep(2)


def log_tail(log, n=15):
    """The last @n lines of @log."""
    try:
        with open(log, errors='replace') as f:
            return ''.join(f.readlines()[-n:])
    except OSError:
        return ''
