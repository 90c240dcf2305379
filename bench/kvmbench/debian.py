# SPDX-License-Identifier: GPL-2.0-only
"""Debian's kernel packages for a KVM build: the kernel (kvmbench.fetch owns
the download cache and the version lookup: it is called, not copied), its
headers package (.config, Module.symvers, release string) and
linux-source-SERIES, unpacked once into the cache."""

import os
import re
import shutil
import subprocess
import sys

from kvmbench import build, fetch
from kvmbench.errors import SetupError, UsageError

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
CACHE = os.path.join(os.environ.get("XDG_CACHE_HOME") or
                     os.path.expanduser("~/.cache"), "kvm-selftests")
DEB_ARCH = {"x86_64": "amd64", "arm64": "arm64"}

def fetched(fn, *args):
    """kvmbench.fetch's (or kvmbench.build's) @fn(*@args): the download
    cache and the version lookup are vm/run's, called, not copied; their
    error as ours (2 the user's mistake, else the host's set-up)."""
    try:
        return fn(*args)
    except fetch.FetchError as e:
        raise (UsageError if e.status == 2 else SetupError)(str(e))
    except build.BuildError as e:
        raise SetupError(str(e))


def ensure_packages(*pkgs):
    """Install those of @pkgs that are missing (SetupError if that fails)."""
    fetched(build.ensure_packages, list(pkgs), "to build the kernel's KVM")


def kernel_versions(arch, cached=True):
    """The Debian kernel versions of ARCH (6.1.0-57, 6.12.117+deb12),
    oldest first: those apt lists, and those the cache holds if CACHED."""
    darch = DEB_ARCH[arch]
    if cached:
        return fetch.debian_kernel_versions(darch)
    return fetch.debian_kernel_versions(darch, fetch.out(["apt-cache", "pkgnames",
                                                          "linux-image-"]).split())


def series(version):
    """The series (6.12) of a version or a kernel's name: 6.12.117,
    6.12.117+deb12, 6.12-newest, 6.12; None if it names none."""
    m = re.match(r"[0-9]+\.[0-9]+", version)
    return m.group(0) if m else None


WORDS = ("oldest", "newest", "all")


def pick_versions(spec, versions):
    """SERIES-oldest, SERIES-newest, SERIES-all (6.12-oldest): the
    versions of that series among VERSIONS (oldest first) the word
    names, so that examples name kernels the archive has whatever it
    holds today; any other SPEC as given.  UsageError if the series has
    none."""
    m = re.fullmatch(r"([0-9]+\.[0-9]+)-(" + "|".join(WORDS) + ")", spec)
    if not m:
        return [spec]
    series, word = m.groups()
    have = [v for v in versions if v.startswith(series + ".")]
    if not have:
        raise UsageError(f"no Debian kernel of {series} for '{spec}'; there are: "
                         f"{' '.join(versions) or 'none (apt-get update?)'}")
    return {"oldest": have[:1], "newest": have[-1:], "all": have}[word]


class Kernel:
    """A Debian kernel package: release (6.12.117+deb12-amd64), version
    (6.12.117, from its config's header), config and Module.symvers."""

    def __init__(self, want, arch):
        self.arch = arch
        darch = DEB_ARCH[arch]
        self.image_dir = fetched(fetch.debian_kernel_dir, want, arch)
        mods = os.path.join(self.image_dir, "lib", "modules")
        rels = sorted(os.listdir(mods)) if os.path.isdir(mods) else []
        if not rels:
            raise SetupError(f"no lib/modules in {self.image_dir} (remove it to re-download)")
        self.release = rels[-1]
        self.modules = os.path.join(mods, self.release)
        pkgver = self.release[:-len("-" + darch)] if self.release.endswith("-" + darch) \
            else self.release
        hdr = f"linux-headers-{self.release}"
        self.headers_dir = os.path.join(CACHE, hdr)
        fetched(fetch.fetch_deb, f"{hdr}:{darch}", self.headers_dir)
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


def _upstream(pkgver):
    """6.12.117 of Debian's package version 6.12.117-1~deb12u1."""
    return re.sub(r"-[^-]*$", "", pkgver)


def _apt_versions(pkg):
    """The versions of pkg that apt can download, newest first."""
    p = subprocess.run(["apt-cache", "madison", pkg], stdout=subprocess.PIPE,
                       stderr=subprocess.DEVNULL, text=True)
    return [f.split("|")[1].strip() for f in p.stdout.splitlines() if f.count("|") >= 2]


def source_version(version, installed, available):
    """The linux-source package version to build a kernel of upstream
    version `version` from: `installed` when it is that version, else the
    newest of `available` (apt's, newest first) that is; None if none is."""
    if installed and _upstream(installed) == version:
        return installed
    return next((v for v in available if _upstream(v) == version), None)


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
        have = _apt_versions(pkg)
        if not have and fetch.apt_update():
            have = _apt_versions(pkg)
        pkgver = source_version(kernel.version, installed, have)
        if not pkgver:
            raise SetupError(f"apt has no {pkg} at {kernel.version}, the version of "
                             f"{kernel.release} (it has: {', '.join(have) or 'none'}): "
                             f"give --src TREE at {kernel.version}")
    dest = os.path.join(CACHE, f"{pkg}-{pkgver}")
    if os.path.isdir(dest):
        return dest
    deb_dir = None
    if pkgver != installed:
        deb_dir = os.path.join(CACHE, f"{pkg}_{pkgver}.deb")
        fetched(fetch.fetch_deb, f"{pkg}={pkgver}", deb_dir)
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
    fetched(fetch.landed, dest, fill)
    if deb_dir:
        shutil.rmtree(deb_dir, ignore_errors=True)
    return dest





VERSION_RE = re.compile(r"\b([0-9]+\.[0-9]+\.[0-9]+\+deb[0-9]+|[0-9]+\.[0-9]+\.0-[0-9]+)\b")


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
        found += [(i, m.group(1)) for m in VERSION_RE.finditer(line)]
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
