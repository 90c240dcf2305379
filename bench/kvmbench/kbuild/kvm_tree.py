# SPDX-License-Identifier: GPL-2.0-only
"""The source side of a KVM build: a shadow of the user's tree (symbolic
links to its files, real directories where KVM's objects are written or a
patched file lives), patches applied to private copies of the files they
touch, and the check that a --config option is read by KVM's code only.
The user's tree is only ever read."""

import hashlib
import json
import os
import re
import subprocess
import tempfile
import time

from kvmbench.base.errors import UsageError

SRCARCH = {"x86_64": "x86", "arm64": "arm64"}
# The option every config of the arch has =y.
ARCH_SYMBOL = {"x86_64": "X86_64", "arm64": "ARM64"}


def kvm_dirs(arch):
    """The directories of KVM's own code (its modules on x86)."""
    return (f"arch/{SRCARCH[arch]}/kvm", "virt/kvm")


def is_kvm_path(arch, path):
    """True for KVM's code and KVM's own headers."""
    s = SRCARCH[arch]
    if any(path == d or path.startswith(d + "/") for d in kvm_dirs(arch)):
        return True
    if path.startswith("include/kvm/"):
        return True
    base = os.path.basename(path)
    return base.startswith("kvm") and os.path.dirname(path) in (
        "include/linux", "include/uapi/linux", f"arch/{s}/include/asm",
        f"arch/{s}/include/uapi/asm", "include/trace/events")


# Left out of the shadow: what an in-place build of the user's tree leaves
# there and kbuild refuses to build out of tree with (and .git).
SKIP = {".git", ".config", "include/config", "include/generated"}


def _is_source(name):
    """In KVM's directories only sources are linked: make writes every
    other name (objects, .cmd, .mod.c) and must never write through a link."""
    if name.endswith(".mod.c"):
        return False
    return name.endswith((".c", ".h", ".S", ".rs")) or \
        name.split(".")[0] in ("Makefile", "Kconfig", "Kbuild")


# ---- patches -------------------------------------------------------------

class Patch:
    """One patch file: its subject and, per file it touches (-p1 paths),
    the headers of its hunks in order."""

    def __init__(self, path):
        self.path = path
        try:
            with open(path, encoding="utf-8", errors="replace") as f:
                text = f.read()
        except OSError as e:
            raise UsageError(f"cannot read patch '{path}': {e.strerror}") from None
        self.subject = self._subject(text) or os.path.basename(path)
        self.hunks = {}
        self._parse(text.splitlines())
        if not self.hunks:
            raise UsageError(f"{path}: not a patch (no file changes found)")
        h = hashlib.sha256(text.encode()).hexdigest()
        self.digest = h[:16]

    @staticmethod
    def _subject(text):
        m = re.search(r"^Subject:\s*(.*(?:\n[ \t].*)*)", text, re.M)
        if not m:
            return ""
        s = re.sub(r"\s+", " ", m.group(1)).strip()
        return re.sub(r"^\[[^]]*\]\s*", "", s)

    def _parse(self, lines):
        i, old = 0, None
        while i < len(lines):
            line = lines[i]
            if line.startswith("--- ") and i + 1 < len(lines) and lines[i + 1].startswith("+++ "):
                old = self._strip(line[4:])
                new = self._strip(lines[i + 1][4:])
                cur = new if new != "/dev/null" else old
                self.hunks.setdefault(cur, [])
                i += 2
                while i < len(lines) and lines[i].startswith("@@ "):
                    m = re.match(r"@@ -\d+(?:,(\d+))? \+\d+(?:,(\d+))? @@", lines[i])
                    if not m:
                        break
                    self.hunks[cur].append(lines[i])
                    n_old = int(m.group(1) if m.group(1) is not None else 1)
                    n_new = int(m.group(2) if m.group(2) is not None else 1)
                    i += 1
                    while (n_old > 0 or n_new > 0) and i < len(lines):
                        c = lines[i][:1]
                        if c in (" ", ""):
                            n_old -= 1
                            n_new -= 1
                        elif c == "-":
                            n_old -= 1
                        elif c == "+":
                            n_new -= 1
                        i += 1
                    while i < len(lines) and lines[i].startswith("\\"):
                        i += 1
                continue
            i += 1

    @staticmethod
    def _strip(name):
        name = name.split("\t")[0].strip()
        if name == "/dev/null":
            return name
        return name.split("/", 1)[1] if "/" in name else name


def apply_patches(src, patches):
    """The contents of every file the patches touch once all are applied
    in order, as {path: bytes, or None if deleted}, from the files of
    SRC.  A patch that does not apply is a UsageError naming the patch,
    the file and its first failing hunk."""
    paths = sorted({p for pt in patches for p in pt.hunks})
    with tempfile.TemporaryDirectory(prefix="kvm-build-patch.") as tmp:
        for p in paths:
            s = os.path.join(src, p)
            if os.path.isfile(s):
                os.makedirs(os.path.dirname(os.path.join(tmp, p)), exist_ok=True)
                with open(s, "rb") as fi, open(os.path.join(tmp, p), "wb") as fo:
                    fo.write(fi.read())
        for pt in patches:
            r = subprocess.run(["patch", "-p1", "--batch", "--forward", "--fuzz=0",
                                "--no-backup-if-mismatch", "--reject-file=-", "-d", tmp,
                                "-i", os.path.abspath(pt.path)],
                               stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
            if r.returncode:
                raise UsageError(_apply_failure(pt, r.stdout))
        out = {}
        for p in paths:
            t = os.path.join(tmp, p)
            if os.path.isfile(t):
                with open(t, "rb") as f:
                    out[p] = f.read()
            else:
                out[p] = None
        return out


def _apply_failure(pt, output):
    """'PATCH does not apply: FILE, hunk #N (@@ ... @@ CONTEXT)'."""
    cur = None
    for line in output.splitlines():
        m = re.match(r"(?:patching|checking) file (.*)", line)
        if m:
            cur = m.group(1).strip().strip("'")
            continue
        m = re.match(r"Hunk #(\d+) FAILED", line)
        if m and cur:
            n = int(m.group(1))
            hs = pt.hunks.get(cur, [])
            where = f" ({hs[n - 1]})" if 0 < n <= len(hs) else ""
            return f"patch {pt.path} does not apply: {cur}, hunk #{n}{where} failed"
        m = re.match(r"(?:can't find file to patch|No file to patch)", line)
        if m:
            first = next(iter(pt.hunks))
            return f"patch {pt.path} does not apply: {first}: no such file in the tree"
        if "Reversed (or previously applied) patch detected" in line and cur:
            return f"patch {pt.path} does not apply: {cur}: already applied (reversed patch)"
    last = output.strip().splitlines()[-1:] or ["patch(1) failed"]
    return f"patch {pt.path} does not apply: {last[0]}"


def check_patch_paths(arch, patches):
    """KVM built as modules (x86): a patch may touch KVM's code only; the
    rest of the kernel is Debian's binary."""
    for pt in patches:
        out = [p for p in pt.hunks if not is_kvm_path(arch, p)]
        if out:
            raise UsageError(f"patch {pt.path} touches {out[0]}, outside KVM's modules "
                             f"({', '.join(kvm_dirs(arch))} and KVM's headers): "
                             "the kernel around them is Debian's binary")


# ---- the shadow tree -----------------------------------------------------

class Shadow:
    """WORK mirrors SRC with symbolic links; KVM's directories are real
    (make writes KVM's objects there in a module build), every file a
    patch ever touched is a private copy whose mtime changes only when its
    contents do (so make rebuilds exactly what changed)."""

    def __init__(self, src, work, arch):
        self.src, self.work, self.arch = src, work, arch
        self.skip = SKIP | {f"arch/{SRCARCH[arch]}/include/generated"}
        self.state_file = os.path.join(work, ".kvm-build-state.json")
        try:
            with open(self.state_file, encoding="utf-8") as f:
                self.state = json.load(f)
        except (OSError, ValueError):
            self.state = {}

    def sync(self, overrides):
        """Make WORK the tree SRC with OVERRIDES ({path: bytes or None})."""
        touched = set(self.state) | set(overrides)
        roots = set(kvm_dirs(self.arch))
        real = set()
        for p in roots | touched | {"include", f"arch/{SRCARCH[self.arch]}/include"}:
            while "/" in p:
                p = p.rsplit("/", 1)[0]
                real.add(p)
        real |= {"include", f"arch/{SRCARCH[self.arch]}/include"}
        self._mirror("", False, roots, real, touched)
        now = time.time()
        for p in sorted(touched):
            if p in overrides:
                data = overrides[p]
            else:
                s = os.path.join(self.src, p)
                data = None
                if os.path.isfile(s):
                    with open(s, "rb") as f:
                        data = f.read()
            self._write(p, data, now)
        tmp = self.state_file + ".tmp"
        with open(tmp, "w", encoding="utf-8") as f:
            json.dump(self.state, f)
        os.replace(tmp, self.state_file)

    def _write(self, p, data, now):
        w = os.path.join(self.work, p)
        sha = hashlib.sha256(data).hexdigest() if data is not None else None
        old = self.state.get(p, {})
        if os.path.islink(w):
            os.unlink(w)
        if data is None:
            if os.path.lexists(w):
                os.unlink(w)
            self.state[p] = {"sha": None, "mtime": now}
            return
        same = old.get("sha") == sha and os.path.isfile(w)
        if not same:
            os.makedirs(os.path.dirname(w), exist_ok=True)
            with open(w, "wb") as f:
                f.write(data)
            os.utime(w, (now, now))
            self.state[p] = {"sha": sha, "mtime": now}
        elif os.path.getmtime(w) != old["mtime"]:
            os.utime(w, (old["mtime"], old["mtime"]))

    def _mirror(self, rel, in_kvm, roots, real, touched):
        sdir = os.path.join(self.src, rel)
        wdir = os.path.join(self.work, rel)
        if os.path.islink(wdir):
            os.unlink(wdir)
        os.makedirs(wdir, exist_ok=True)
        names = set(os.listdir(sdir))
        for name in names:
            p = f"{rel}/{name}" if rel else name
            if p in self.skip or p in touched:
                continue
            s = os.path.join(sdir, name)
            isdir = os.path.isdir(s) and not os.path.islink(s)
            if isdir and (in_kvm or p in roots or p in real):
                self._mirror(p, in_kvm or p in roots, roots, real, touched)
            elif in_kvm and not isdir and not _is_source(name):
                continue
            else:
                self._link(os.path.join(wdir, name), s)
        for name in os.listdir(wdir):
            w = os.path.join(wdir, name)
            if name not in names and os.path.islink(w):
                os.unlink(w)

    @staticmethod
    def _link(w, target):
        if os.path.islink(w):
            if os.readlink(w) == target:
                return
            os.unlink(w)
        elif os.path.isdir(w):
            # A directory of ours that needs no longer be real.
            subprocess.run(["rm", "-rf", "--", w], check=True)
        elif os.path.exists(w):
            os.unlink(w)
        os.symlink(target, w)


# ---- --config ------------------------------------------------------------

def parse_config_opt(opt):
    """NAME=VALUE (NAME with or without CONFIG_): (NAME, VALUE)."""
    m = re.fullmatch(r"(?:CONFIG_)?([A-Za-z0-9_]+)=(y|m|n|-?[0-9]+|0x[0-9a-fA-F]+|\".*\")", opt)
    if not m:
        raise UsageError(f"bad --config '{opt}' (NAME=y, NAME=n, NAME=m, NAME=NUMBER or "
                         "NAME=\"STRING\")")
    return m.group(1), m.group(2)


def read_config(path):
    """{NAME: VALUE} of a .config ('n' for '# CONFIG_X is not set')."""
    vals = {}
    with open(path, encoding="utf-8", errors="replace") as f:
        for line in f:
            m = re.match(r"CONFIG_([A-Za-z0-9_]+)=(.*)", line)
            if m:
                vals[m.group(1)] = m.group(2).strip()
                continue
            m = re.match(r"# CONFIG_([A-Za-z0-9_]+) is not set", line)
            if m:
                vals[m.group(1)] = "n"
    return vals


def write_config(base, settings, dest):
    """BASE's .config with SETTINGS [(NAME, VALUE)] set, written to DEST."""
    with open(base, encoding="utf-8", errors="replace") as f:
        lines = f.read().splitlines()
    for name, value in settings:
        new = f"# CONFIG_{name} is not set" if value == "n" else f"CONFIG_{name}={value}"
        pat = re.compile(rf"(CONFIG_{name}=|# CONFIG_{name} is not set)")
        lines = [ln for ln in lines if not pat.match(ln)] + [new]
    with open(dest, "w", encoding="utf-8") as f:
        f.write("\n".join(lines) + "\n")


def users_outside_kvm(src, arch, names):
    """{NAME: a file outside KVM's code that reads CONFIG_NAME}, for the
    NAMES read elsewhere (sources, headers, Makefiles of this arch and
    the generic code; not Documentation, tools, samples or Kconfig)."""
    if not names:
        return {}
    s = SRCARCH[arch]
    pat = r"CONFIG_(" + "|".join(sorted(names)) + r")(_MODULE)?"
    cmd = ["grep", "-RowE", pat, "--include=*.c", "--include=*.h", "--include=*.S",
           "--include=Makefile*", "--include=Kbuild*", "--include=*.lds*",
           "--exclude-dir=Documentation", "--exclude-dir=tools", "--exclude-dir=samples",
           "--exclude-dir=.git", "."]
    r = subprocess.run(cmd, cwd=src, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                       text=True, errors="replace")
    found = {}
    for line in r.stdout.splitlines():
        path, _, sym = line.partition(":")
        path = path[2:] if path.startswith("./") else path
        if path.startswith("arch/") and not path.startswith(f"arch/{s}/"):
            continue
        if is_kvm_path(arch, path):
            continue
        sym = re.sub(r"^CONFIG_|_MODULE$", "", sym)
        found.setdefault(sym, path)
    return found
