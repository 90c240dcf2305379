# SPDX-License-Identifier: GPL-2.0-only
"""vm/kvm-build: KVM built from a kernel source tree for a Debian kernel.

x86_64: kvm, kvm-amd and kvm-intel, as modules with the Debian kernel's
config, Module.symvers and release string (so they load into its
binary); arm64, where Debian builds KVM in: the whole kernel (Image).
Out of tree and cached per source tree, kernel and --config: the tree
given is only read (a shadow of symbolic links is what make sees, patched
files are private copies), a second build recompiles what changed.
docs/kvm-build.md has the details."""

import argparse
import contextlib
import datetime
import hashlib
import json
import os
import re
import shlex
import shutil
import signal
import subprocess
import sys
import time

from kvmbench.base.errors import BuildError, SetupError, UsageError, say
from kvmbench.kernels import build, debian
from kvmbench.kernels.build import host_arch
from kvmbench.vmrun import cli
from kvmbench.vmrun.cli import Parser
from . import kvm_config, kvm_tree

PROG = "vm/kvm-build"
MODULES = ("kvm", "kvm-amd", "kvm-intel")


def info(msg):
    say(PROG, msg)


def vermagic(ko):
    """The release a module was built for (the first word of vermagic=)."""
    with open(ko, "rb") as f:
        m = re.search(rb"\x00vermagic=([^\x00 ]+)", f.read())
    return m.group(1).decode() if m else ""


class BuildDir:
    """What both kinds of build share: a cache directory (self.dir: its
    lock, self.log, the shadow self.work of self.src), make."""

    def run_make(self, what, *targets):
        return run_make(self.make_cmd(*targets), self.log, what)

    def ensure_tools(self):
        """A kernel build's packages, and this kind's own (TOOLS)."""
        pkgs = ["make", "gcc", "flex", "bison", "bc", "libelf-dev", "libssl-dev",
                *self.TOOLS]
        if self.arch == "arm64" and host_arch() != "arm64":
            pkgs.append("gcc-aarch64-linux-gnu")
        try:
            build.ensure_packages(pkgs)
        except BuildError as e:
            raise SetupError(str(e)) from None

    @contextlib.contextmanager
    def prepared(self):
        """Locked (two builds of one tree wait for each other), the log
        begun, the tools there, the shadow synced with the patches,
        configured: {step: seconds} so far."""
        with debian.locked(os.path.join(self.dir, "lock"), info, f"the build in {self.dir}"):
            if os.path.isfile(self.log):
                os.replace(self.log, self.log + ".prev")
            open(self.log, "w", encoding="utf-8").close()
            self.ensure_tools()
            overrides = kvm_tree.apply_patches(self.src, self.patches) if self.patches else {}
            kvm_tree.Shadow(self.src, self.work, self.arch).sync(overrides)
            yield {"config": self.configure()}


class Build(BuildDir):
    """One build: the kernel, the source, the patches and the options."""

    def __init__(self, kernel, arch, src=None, patches=(), configs=(), jobs=2,
                 other_version=False):
        self.arch = arch
        self.other_version = other_version
        self.kernel = debian.Kernel(kernel, arch)
        self.settings = [kvm_tree.parse_config_opt(c) for c in configs]
        self.patches = [kvm_tree.Patch(p) for p in patches]
        if src is None:
            self.src = debian.debian_source(self.kernel)
        else:
            if not os.path.isdir(src):
                raise UsageError(f"source tree '{src}' not found")
            self.src = os.path.realpath(src)
        ver = debian.tree_version(self.src)
        self.src_version = ver
        if other_version and debian.series(ver) == self.kernel.series:
            if arch != "x86_64":
                raise UsageError("--other-version: KVM is built into arm64's kernel, "
                                 "there are no modules to swap")
        elif ver != self.kernel.version:
            raise UsageError(f"the tree {self.src} is Linux {ver}, the kernel "
                             f"{self.kernel.release} is Linux {self.kernel.version}: "
                             "its KVM would not fit that kernel (give a tree at "
                             f"{self.kernel.version} or another --debian-kernel)")
        if arch == "x86_64":
            kvm_tree.check_patch_paths(arch, self.patches)
        # One build directory a tree and kernel: patch sets and --config
        # switch in it, make rebuilding what they change.
        key = "\0".join([self.src, arch, self.kernel.release])
        self.dir = os.path.join(debian.cache_dir(), "kvm-build",
                                hashlib.sha256(key.encode()).hexdigest()[:12])
        self.work = os.path.join(self.dir, "src")
        self.obj = os.path.join(self.dir, "obj")
        self.log = os.path.join(self.dir, "build.log")
        self.jobs = jobs
        self.changed = set()

    def make_cmd(self, *targets):
        cmd = ["make", "-C", self.work, f"O={self.obj}", f"-j{self.jobs}",
               f"KERNELRELEASE={self.kernel.release}"]
        if self.arch == "arm64" and host_arch() != "arm64":
            cmd += ["ARCH=arm64", "CROSS_COMPILE=aarch64-linux-gnu-"]
        cc = self._debian_cc()
        if cc:
            cmd.append(f"CC={cc}")
        return cmd + list(targets)

    def _debian_cc(self):
        """Debian's compiler: then the config needs no update for another."""
        return debian_cc(self.kernel.config)

    def configure(self):
        """OBJ's .config: Debian's with --config set, after a check that
        what changes (the options and what they select) is read by KVM's
        code only."""
        os.makedirs(self.obj, exist_ok=True)
        want = os.path.join(self.dir, "config.want")
        # A whole kernel signs its modules with a key of its own: Debian's
        # names one its build makes (output/signing_key.pem); kbuild makes
        # certs/signing_key.pem when it is missing.
        own = [("MODULE_SIG_KEY", '"certs/signing_key.pem"')] if self.arch == "arm64" else []
        kvm_tree.write_config(self.kernel.config, own + self.settings, want + ".new")
        with open(want + ".new", encoding="utf-8") as f:
            new = f.read()
        old = None
        if os.path.isfile(want) and os.path.isfile(os.path.join(self.obj, ".config")):
            with open(want, encoding="utf-8") as f:
                old = f.read()
        if new == old:
            os.unlink(want + ".new")
            return 0.0
        t0 = time.monotonic()
        ok = os.path.join(self.dir, "config-ok.json")
        try:
            with open(ok, encoding="utf-8") as f:
                checked = json.load(f)
        except (OSError, ValueError):
            checked = []
        sig = sorted(f"{n}={v}" for n, v in self.settings)
        known = {json.dumps(c[0]): c[1] for c in checked if isinstance(c, list) and len(c) == 2}
        if self.settings and json.dumps(sig) not in known:
            self._check_settings()
            with open(ok, "w", encoding="utf-8") as f:
                json.dump(checked + [[sig, sorted(self.changed)]], f)
        elif self.settings:
            self.changed = set(known[json.dumps(sig)])
        shutil.copyfile(want + ".new", os.path.join(self.obj, ".config"))
        self.run_make("make olddefconfig", "olddefconfig")
        self._same_as_debian()
        os.replace(want + ".new", want)
        return time.monotonic() - t0

    def _same_as_debian(self):
        """Kconfig on this host must land on Debian's config (but for
        --config and what it selects): an option the toolchain cannot
        give (BTF without pahole) changes struct module, and the kernel
        then refuses the modules."""
        deb = kvm_tree.read_config(self.kernel.config)
        got = kvm_tree.read_config(os.path.join(self.obj, ".config"))
        asked = {n for n, _ in self.settings}
        for n in sorted(set(deb) | set(got)):
            # The toolchain's versions, and rustc's (Debian builds no Rust).
            if n in asked or n.endswith(("_VERSION", "_VERSION_TEXT")) or \
                    n.startswith("RUSTC_"):
                continue
            if deb.get(n, "n") != got.get(n, "n") and not self._selected(n):
                hint = " (pahole is missing: apt-get install dwarves)" \
                    if "BTF" in n or "PAHOLE" in n else ""
                if self.arch == "arm64" or self.other_version:
                    # The whole kernel is built: nothing of Debian's must fit it
                    # (or the tree is another version's: its Kconfig may differ).
                    info(f"note: CONFIG_{n}={got.get(n, 'n')} here, {deb.get(n, 'n')} in "
                         f"Debian's kernel{hint}")
                    continue
                raise BuildError(f"Kconfig gives CONFIG_{n}={got.get(n, 'n')} on this host, "
                                 f"Debian's kernel has {deb.get(n, 'n')}{hint}: modules built "
                                 "so would not fit its kernel")

    def _selected(self, name):
        """NAME changed because --config changed it (the check's record)."""
        return name in self.changed

    TOOLS = ("dwarves",)

    def _check_settings(self):
        chk = os.path.join(self.dir, "config-check")
        os.makedirs(chk, exist_ok=True)
        saved = self.obj
        self.obj = chk
        try:
            shutil.copyfile(self.kernel.config, os.path.join(chk, ".config"))
            self.run_make("olddefconfig of Debian's config", "olddefconfig")
            base = kvm_tree.read_config(os.path.join(chk, ".config"))
            kvm_tree.write_config(os.path.join(chk, ".config"), self.settings,
                                  os.path.join(chk, ".config"))
            self.run_make("olddefconfig with --config", "olddefconfig")
            got = kvm_tree.read_config(os.path.join(chk, ".config"))
        finally:
            self.obj = saved
        for name, value in self.settings:
            if got.get(name, "n") != value:
                raise UsageError(f"--config {name}={value} does not take: Kconfig leaves "
                                 f"CONFIG_{name}={got.get(name, 'n')} (its dependencies are "
                                 "not met in Debian's config)")
        changed = {n for n in set(base) | set(got) if base.get(n, "n") != got.get(n, "n")}
        self.changed = changed
        users = kvm_tree.users_outside_kvm(self.src, self.arch, changed)
        if users:
            name, path = sorted(users.items())[0]
            why = "" if any(name == n for n, _ in self.settings) else \
                " (set by " + ", ".join(f"{n}={v}" for n, v in self.settings) + ")"
            raise UsageError(f"--config: CONFIG_{name}{why} is read outside KVM's code, "
                             f"e.g. by {path}: the rest of the kernel is Debian's binary, "
                             "built with Debian's value")

    def build(self):
        """Build; returns {timings, artefacts}."""
        with self.prepared() as t:
            if self.arch == "x86_64":
                shutil.copyfile(self.kernel.symvers, os.path.join(self.obj, "Module.symvers"))
                t["modules_prepare"] = self.run_make("make modules_prepare", "modules_prepare")
                kdir = os.path.join(self.work, "arch/x86/kvm")
                t["kvm"] = self.run_make("make M=arch/x86/kvm modules", f"M={kdir}", "modules")
                kos = [os.path.join(kdir, m + ".ko") for m in MODULES]
                for ko in kos:
                    if not os.path.isfile(ko):
                        raise BuildError(f"the build made no {os.path.basename(ko)} "
                                         f"(log: {self.log})")
                    vm = vermagic(ko)
                    if vm != self.kernel.release:
                        raise BuildError(f"{os.path.basename(ko)} was built for '{vm}', "
                                         f"not {self.kernel.release} (log: {self.log})")
                return t, kos
            t["kernel"] = self.run_make("make Image", "Image")
            return t, [os.path.join(self.obj, "arch/arm64/boot/Image")]

    def install(self, out, artefacts):
        """Write OUT: a modules tree (x86_64: lib/modules/RELEASE/updates/
        kvm/*.ko, debug info stripped as Debian's are) or the kernel
        (arm64: boot/Image-RELEASE), and kvm-build.json describing it."""
        check_out(out)
        for d in ("lib", "boot"):
            shutil.rmtree(os.path.join(out, d), ignore_errors=True)
        rel = self.kernel.release
        if self.arch == "x86_64":
            dest = os.path.join(out, "lib/modules", rel, "updates/kvm")
            os.makedirs(dest)
            for ko in artefacts:
                subprocess.run(["objcopy", "--strip-debug", ko,
                                os.path.join(dest, os.path.basename(ko))], check=True)
        else:
            os.makedirs(os.path.join(out, "boot"))
            shutil.copyfile(artefacts[0], os.path.join(out, "boot", f"Image-{rel}"))
        desc = {
            "arch": self.arch, "release": rel, "version": self.kernel.version,
            "src": self.src, "src_version": self.src_version,
            "patches": [{"file": os.path.abspath(p.path), "subject": p.subject,
                         "sha256": p.digest} for p in self.patches],
            "config": [f"{n}={v}" for n, v in self.settings],
            "built": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
        }
        write_desc(out, desc)
        return desc


class WholeBuild(BuildDir):
    """A whole kernel from any tree (KVM built in), with a small config,
    Debian's, or a .config file given: out of tree, the tree only read,
    cached per tree, arch and base."""

    def __init__(self, arch, src, patches=(), configs=(), jobs=2, base="small"):
        self.arch = arch
        if not os.path.isdir(src):
            raise UsageError(f"source tree '{src}' not found")
        self.src = os.path.realpath(src)
        self.version = debian.tree_version(self.src)
        if not os.path.isfile(os.path.join(self.src, "arch", kvm_tree.SRCARCH[arch],
                                           "Kconfig")):
            raise UsageError(f"'{src}' is not a kernel source tree (no "
                             f"arch/{kvm_tree.SRCARCH[arch]}/Kconfig)")
        self.patches = [kvm_tree.Patch(p) for p in patches]
        self.settings = [kvm_tree.parse_config_opt(c) for c in configs]
        kind, want = kvm_config.parse_base(base)
        self.kernel = self.file = None
        if kind == "file":
            # A .config given whole (bench/config-bisect's candidates):
            # olddefconfig resolves it; KVM must stay as the file has it.
            self.file = want
            got = kvm_tree.read_config(want)
            if got.get(kvm_tree.ARCH_SYMBOL[arch], "n") != "y":
                raise UsageError(f"--config {base}: not an {arch} config (no "
                                 f"CONFIG_{kvm_tree.ARCH_SYMBOL[arch]}=y)")
            if got.get("KVM", "n") == "n":
                raise UsageError(f"--config {base}: the config has CONFIG_KVM off; the "
                                 "suite tests KVM")
            self.need = [(n, got[n], "the config file has it, the suite tests KVM")
                         for n in ("KVM", "KVM_AMD", "KVM_INTEL") if got.get(n, "n") != "n"]
            self.base = want
        elif kind == "debian":
            # Debian's kernel of that name (its image package's
            # /boot/config-RELEASE is the base config).
            want = kvm_config.debian_kernel_for(want, self.version,
                                                debian.kernel_versions(arch, cached=False))
            self.kernel = debian.Kernel(want, arch)
            deb = kvm_tree.read_config(self.kernel_config())
            self.need = [(n, deb[n], f"Debian's {self.kernel.release} has it, the suite "
                          "tests KVM") for n in ("KVM", "KVM_AMD", "KVM_INTEL") if n in deb]
            self.base = f"debian:{self.kernel.pkgver}"
        else:
            self.need = kvm_config.whole_settings(arch, self.src)
            self.base = "small"
        # One build directory a tree, arch and base config (one for every
        # .config file given: a bisection's candidates): a change of
        # options rebuilds what reads them, in place.
        key = "\0".join([self.src, arch, "whole"] + ([self.base] if self.kernel else []) +
                        (["file"] if self.file else []))
        self.dir = os.path.join(debian.cache_dir(), "kvm-build",
                                hashlib.sha256(key.encode()).hexdigest()[:12])
        self.work = os.path.join(self.dir, "src")
        self.obj = os.path.join(self.dir, "obj")
        self.log = os.path.join(self.dir, "build.log")
        self.uapi = os.path.join(self.dir, "usr")
        self.jobs = jobs
        self.release = ""

    def make_cmd(self, *targets):
        cross = "aarch64-linux-gnu-" if self.arch == "arm64" and host_arch() != "arm64" else ""
        cmd = ["make", "-C", self.work, f"O={self.obj}", f"-j{self.jobs}",
               "ARCH=" + ("arm64" if self.arch == "arm64" else "x86_64"), "LOCALVERSION="]
        if cross:
            cmd.append(f"CROSS_COMPILE={cross}")
        cc = f"{cross}gcc"
        if self.kernel or self.file:
            # The compiler the base config names (CONFIG_CC_VERSION_TEXT:
            # x86_64-linux-gnu-gcc-12 for Debian's) where this host has it.
            cc = self.kernel_cc() or cc
        if shutil.which("ccache"):
            # Its own cache (CCACHE_DIR unless set), kept with the builds;
            # paths relative to the build directories, the same in each
            # (KEY/obj, KEY/src), so a second tree reuses what compiles the same.
            os.environ.setdefault("CCACHE_DIR", os.path.join(debian.cache_dir(), "ccache"))
            os.environ.setdefault("CCACHE_BASEDIR", os.path.join(debian.cache_dir(), "kvm-build"))
            cmd += [f"CC=ccache {cc}", "HOSTCC=ccache gcc"]
        elif cc != f"{cross}gcc":
            cmd.append(f"CC={cc}")
        return cmd + list(targets)

    def kernel_cc(self):
        """The compiler the base config names, if this host has it."""
        return debian_cc(self.kernel_config())

    def kernel_config(self):
        """The base config's file: Debian's kernel's own (its image
        package's /boot/config-*) or the one given."""
        if self.file:
            return self.file
        return os.path.join(self.kernel.image_dir, "boot", "config-" + self.kernel.release)

    def modular(self):
        """Whether the config builds modules (Debian's, a file with =m)."""
        return bool(self.kernel) or "m" in kvm_tree.read_config(
            os.path.join(self.obj, ".config")).values()

    TOOLS = ("ccache", "xz-utils")
    # The rules configure() derives .config by: a build directory whose
    # config.want was written under others is configured again.
    CONFIG_RULES = 2

    def configure(self):
        """OBJ/.config: tinyconfig, the settings, olddefconfig; refused
        (UsageError) when one the suite needs does not survive.  With
        Debian's base: Debian's config, its modules reduced to the guest's
        (localmodconfig), debug info off, the settings, olddefconfig."""
        want = os.path.join(self.dir, "config.want")
        new = "\n".join([f"{n}={v}" for n, v, _ in self.need] +
                        [f"{n}={v}" for n, v in self.settings]) + "\n"
        if self.kernel or self.file:
            with open(self.kernel_config(), encoding="utf-8", errors="replace") as f:
                new = f"base {self.base}\n" + f.read() + new
        new = f"rules {self.CONFIG_RULES}\n" + new
        dot = os.path.join(self.obj, ".config")
        try:
            with open(want, encoding="utf-8") as f:
                if f.read() == new and os.path.isfile(dot):
                    return 0.0
        except OSError:
            pass
        t0 = time.monotonic()
        os.makedirs(self.obj, exist_ok=True)
        if self.kernel:
            self.debian_config(dot)
        elif self.file:
            kvm_tree.write_config(self.file, self.settings, dot)
            self.run_make("make olddefconfig", "olddefconfig")
        else:
            self.run_make("make tinyconfig", "tinyconfig")
            settings = [(n, v) for n, v, _ in self.need] + self.settings
            kvm_tree.write_config(dot, settings, dot)
            self.run_make("make olddefconfig", "olddefconfig")
        got = kvm_tree.read_config(dot)
        miss = kvm_config.missing_options(self.need, got)
        if miss:
            n, v, why = miss
            raise UsageError(f"the tree's Kconfig leaves CONFIG_{n}={got.get(n, 'n')}, the suite "
                             f"needs {v} ({why}): {self.src} cannot build a kernel for it")
        for n, v in self.settings:
            if got.get(n, "n") != v:
                raise UsageError(f"--config {n}={v} does not take: Kconfig leaves "
                                 f"CONFIG_{n}={got.get(n, 'n')} (its dependencies are not met)")
        with open(want, "w", encoding="utf-8") as f:
            f.write(new)
        return time.monotonic() - t0

    def debian_config(self, dot):
        """DOT: Debian's kernel's config with its modules reduced to those
        vm/run's guest loads (make localmodconfig on the guest's module
        list), debug info off, then --config's settings and olddefconfig.
        Debian's =y options that go are the sub-options of the modules
        left out (a y option cannot need a module's code): listed in
        KEY/config-dropped.txt, counted in a note."""
        deb = kvm_tree.read_config(self.kernel_config())
        mods = kvm_config.guest_modules(self.kernel.modules, self.arch)
        lsmod = os.path.join(self.dir, "guest-modules.lsmod")
        with open(lsmod, "w", encoding="utf-8") as f:
            f.write(kvm_config.lsmod_text(mods))
        kvm_tree.write_config(self.kernel_config(), kvm_config.DEBIAN_OFF, dot)
        # make localmodconfig's script, on the user's tree (only read): it
        # finds modules by the Makefiles find(1) lists, which the shadow's
        # links would hide.
        env = dict(os.environ, LSMOD=lsmod, SRCARCH=kvm_tree.SRCARCH[self.arch],
                   ARCH=kvm_tree.SRCARCH[self.arch], srctree=self.src, objtree=self.obj)
        with open(self.log, "a", encoding="utf-8") as log, \
                open(dot + ".lmc", "w", encoding="utf-8") as outf:
            log.write(f"\n=== localmodconfig: streamline_config.pl on {self.src}, {lsmod}\n")
            log.flush()
            r = subprocess.run(["perl", os.path.join(self.src, "scripts/kconfig/streamline_config.pl"),
                                "--localmodconfig", self.src, "Kconfig"], cwd=self.obj, env=env,
                               stdout=outf, stderr=log, stdin=subprocess.DEVNULL)
        if r.returncode:
            raise BuildError(f"localmodconfig failed: {first_error(self.log)} (log: {self.log})")
        os.replace(dot + ".lmc", dot)
        kvm_tree.write_config(dot, self.settings, dot)
        self.run_make("make olddefconfig", "olddefconfig")
        got = kvm_tree.read_config(dot)
        asked = {n for n, _ in self.settings}
        # An option KVM's code reads that went with the modules left out
        # comes back as Debian has it, with what selects it and what that
        # depends on: a module KVM's code tests (HYPERV=m: its Hyper-V
        # TLB flush and clock paths), an option a module selected (i915's
        # KVMGT: KVM_EXTERNAL_WRITE_TRACKING).
        miss = kvm_config.missing_options(self.need, got)
        if miss:
            raise UsageError(f"the config leaves CONFIG_{miss[0]}={got.get(miss[0], 'n')}, the "
                             f"suite needs {miss[1]} ({miss[2]}): {self.src} cannot build a "
                             "kernel for it")
        kvm_reads = kvm_config.read_by_kvm(self.src, self.arch)
        kept = []
        for _ in range(3):
            lost = [n for n in kvm_config.lost_for_kvm(deb, got, kvm_reads) if n not in asked]
            if not lost:
                break
            more = [o for o in kvm_config.keep_for(lost, kvm_config.kconfig_index(self.src), deb)
                    if got.get(o[0], "n") != o[1] and o[0] not in asked and o not in kept]
            if not more:
                info(f"note: CONFIG_{lost[0]}, which KVM's code reads, is off here "
                     f"({got.get(lost[0], 'n')}), {deb[lost[0]]} in Debian's: nothing found "
                     "that brings it back")
                break
            kept += more
            kvm_tree.write_config(dot, more, dot)
            self.run_make("make olddefconfig", "olddefconfig")
            got = kvm_tree.read_config(dot)
        if kept:
            info("note: kept for what KVM's code reads: " +
                 " ".join(f"{n}={v}" for n, v in kept))
        lost = [n for n in kvm_config.lost_builtins(deb, got) if n not in asked]
        with open(os.path.join(self.dir, "config-dropped.txt"), "w", encoding="utf-8") as f:
            f.write("".join(f"CONFIG_{n}=y\n" for n in lost))
        info(f"note: Debian's {self.kernel.release} config, modules reduced to the guest's "
             f"({', '.join(mods)}: {sum(v == 'm' for v in got.values())} of "
             f"{sum(v == 'm' for v in deb.values())} kept, with them {len(lost)} =y "
             f"sub-options of the others: {self.dir}/config-dropped.txt), debug info off "
             "(DWARF, BTF)")

    def image_target(self):
        return "Image" if self.arch == "arm64" else "bzImage"

    def build_object(self, target):
        """Only TARGET (an object, arch/x86/kvm/svm/svm.o) and what it
        needs (make prepare): its path in the build directory."""
        with self.prepared():
            self.run_make("make prepare", "prepare")
            self.run_make(f"make {target}", target)
        return os.path.join(self.obj, target)

    def build(self):
        """Build; returns (timings, [image, config])."""
        with self.prepared() as t:
            t["kernel"] = self.run_make(f"make {self.image_target()}", self.image_target())
            if self.modular():
                t["modules"] = self.run_make("make modules", "modules")
            t["headers"] = self.run_make("make headers_install", "headers_install",
                                         f"INSTALL_HDR_PATH={self.uapi}")
            r = subprocess.run(self.make_cmd("-s", "kernelrelease"), stdout=subprocess.PIPE,
                               stderr=subprocess.DEVNULL, text=True)
            self.release = r.stdout.strip().splitlines()[-1] if r.stdout.strip() else \
                self.version
            img = os.path.join(self.obj, "arch", kvm_tree.SRCARCH[self.arch], "boot",
                               self.image_target())
            return t, [img, os.path.join(self.obj, ".config")]

    def install(self, out, artefacts):
        """OUT/boot/vmlinuz-RELEASE (arm64: Image-RELEASE) and its
        config-RELEASE, and kvm-build.json."""
        check_out(out)
        shutil.rmtree(os.path.join(out, "boot"), ignore_errors=True)
        os.makedirs(os.path.join(out, "boot"))
        name = ("Image-" if self.arch == "arm64" else "vmlinuz-") + self.release
        shutil.copyfile(artefacts[0], os.path.join(out, "boot", name))
        shutil.copyfile(artefacts[1], os.path.join(out, "boot", "config-" + self.release))
        shutil.rmtree(os.path.join(out, "lib"), ignore_errors=True)
        modular = self.modular()
        if modular:
            # The guest's modules (localmodconfig's), for vm/run --modules.
            self.run_make("make modules_install", "modules_install",
                          f"INSTALL_MOD_PATH={os.path.abspath(out)}", "INSTALL_MOD_STRIP=1",
                          "DEPMOD=true")
        desc = {
            "arch": self.arch, "release": self.release, "version": self.version,
            "src": self.src, "whole": True, "uapi": os.path.join(self.uapi, "include"),
            "patches": [{"file": os.path.abspath(p.path), "subject": p.subject,
                         "sha256": p.digest} for p in self.patches],
            "config": [f"{n}={v}" for n, v in self.settings], "base": self.base,
            "built": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
        }
        if modular:
            desc["modules"] = os.path.join(os.path.abspath(out), "lib", "modules", self.release)
        write_desc(out, desc)
        desc["image"] = os.path.join(out, "boot", name)
        return desc


def debian_cc(config):
    """The compiler a Debian kernel's CONFIG was built with
    (CONFIG_CC_VERSION_TEXT's first word, e.g. x86_64-linux-gnu-gcc-12)
    if this host has it, else ''."""
    cfg = kvm_tree.read_config(config)
    cc = cfg.get("CC_VERSION_TEXT", "").strip('"').split(" ")[0]
    return cc if cc and shutil.which(cc) else ""


def check_out(out):
    """Refuse an OUT that holds anything but a vm/kvm-build output (its
    kvm-build.json), as every program's output folder (cli.check_out)."""
    cli.check_out("--out", out, PROG, ("kvm-build.json",))


def write_desc(out, desc):
    with open(os.path.join(out, "kvm-build.json"), "w", encoding="utf-8") as f:
        json.dump(desc, f, indent=1)
        f.write("\n")


def is_whole(src, kernel, arch):
    """A tree at another version than the Debian kernel KERNEL: its KVM
    cannot be modules for that kernel, so the whole kernel is built.  A
    tree of another series than KERNEL names (6.19 against 6.12) is told
    without fetching the Debian kernel."""
    if src is None:
        return False
    if not os.path.isdir(src):
        raise UsageError(f"source tree '{src}' not found")
    ver = debian.tree_version(src)
    if debian.series(kernel) not in (None, debian.series(ver)):
        return True
    return ver != debian.Kernel(kernel, arch).version


def command(out, kernel="6.12", arch="x86_64", src=None, patches=(), base="small",
            whole=False, configs=()):
    """The words of the vm/kvm-build command that builds into OUT what
    build_side() builds: KVM modules for the Debian kernel KERNEL, or
    (WHOLE) the whole kernel from SRC with the base config BASE; the
    patches and NAME=VALUE CONFIGS on top."""
    words = [PROG, "--arch", arch] + (["--whole"] if whole else ["--debian-kernel", kernel])
    words += (["--src", src] if src else []) + [w for p in patches for w in ("--patch", p)]
    words += [w for c in ([base] if base != "small" else []) + list(configs)
              for w in ("--config", c)]
    return words + ["--out", out]


def build_side(out, kernel="6.12", arch="x86_64", src=None, patches=(), configs=(),
               jobs=2, whole=None, base="small"):
    """Build KVM into OUT for bench/compare and bench/bisect-run: the
    description (kvm-build.json's) with 'vm_args', vm/run's arguments that
    boot it.  KVM modules for the Debian kernel KERNEL when SRC is at its
    version (or not given: Debian's source), else the whole kernel from
    SRC (or as WHOLE says when given); BASE 'debian[:VERSION]' (whole
    kernels only) is the base config of a whole kernel
    (kvm_config.parse_base).  Raises Fail (UsageError for bad input,
    BuildError)."""
    t0 = time.monotonic()
    kvm_config.parse_base(base)
    if base != "small" and src is None:
        raise UsageError(f"--config {base}: a base config is for a whole kernel from a tree "
                         "(--src TREE / --kvm-src)")
    whole = base != "small" or (is_whole(src, kernel, arch) if whole is None else whole)
    info("by hand: " + shlex.join(command(out, kernel, arch, src, patches, base, whole,
                                          configs)))
    if whole:
        b = WholeBuild(arch, src, patches, configs, jobs, base)
        info(f"building a whole kernel from {b.src} (Linux {b.version}, {b.base} config)"
             + "".join(f" + {p.subject}" for p in b.patches) + f" into {out}")
    else:
        b = Build(kernel, arch, src, patches, configs, jobs)
        info(f"building KVM for {b.kernel} from {b.src}"
             + "".join(f" + {p.subject}" for p in b.patches) + f" into {out}")
    _, arts = b.build()
    desc = b.install(out, arts)
    desc["seconds"] = round(time.monotonic() - t0)
    if desc.get("whole"):
        desc["kernel"] = desc["release"]
        desc["vm_args"] = ["--kernel", desc.pop("image")] + \
            (["--modules", desc["modules"]] if desc.get("modules") else [])
    else:
        desc["kernel"] = kernel
        desc["vm_args"] = ["--debian-kernel", kernel, "--kvm-modules", out]
    info(f"built in {desc['seconds']} s")
    return desc


def run_make(cmd, log_path, what):
    """Run make CMD, its output appended to LOG_PATH; the seconds it took.
    BuildError with the first error's lines when it fails."""
    t0 = time.monotonic()
    with open(log_path, "a", encoding="utf-8") as log:
        log.write(f"\n=== {what}: {' '.join(cmd)}\n")
        log.flush()
        # Its own process group: a signal to us ends make and every
        # compiler it started, not make alone.
        p = subprocess.Popen(cmd, stdout=log, stderr=subprocess.STDOUT,
                             stdin=subprocess.DEVNULL, start_new_session=True)
        try:
            rc = p.wait()
        except BaseException:
            os.killpg(p.pid, signal.SIGTERM)
            p.wait()
            raise
    dt = time.monotonic() - t0
    if rc:
        raise BuildError(f"{what} failed: {first_error(log_path)} (log: {log_path})")
    return dt


def first_error(path):
    """The first compiler or make error line of a build log (one line)."""
    try:
        with open(path, encoding="utf-8", errors="replace") as f:
            for line in f:
                if re.search(r"\berror\b|\*\*\*", line) and not line.startswith("==="):
                    # The tree's paths, not the shadow's as make saw them
                    # from OBJ (ccache's base directory makes them ../src/).
                    return re.sub(r"^\.\./src/", "", line.strip())
    except OSError:
        pass
    return "no error line in the log"


def parse_args(argv):
    p = Parser(     # a usage error: one line (cli.Parser), exit 2
        prog=PROG, formatter_class=argparse.HelpFormatter,
        description="Build KVM (x86_64: the kvm, kvm-amd, kvm-intel modules; arm64: the "
        "whole kernel) from a kernel source tree for a Debian kernel, into DIR, which "
        "vm/run --kvm-modules DIR boots in place of the packaged KVM.",
        epilog="--whole --src TREE: a whole kernel from any tree, KVM built in, with a "
        "small config (tinyconfig, the suite's config fragment, what vm/run's guest "
        "needs), and the tree's uapi headers; vm/run --kernel DIR/boot/IMAGE boots it.  "
        "Exit status: 0 built; 1 the build failed (its first error shown); 2 usage "
        "or bad input (not a kernel tree, a patch that does not apply, a tree of another "
        "version, a config that lacks what KVM needs, a --config read outside KVM); 6 "
        "host set-up failed; 128 + the signal when interrupted (130 SIGINT, 143 SIGTERM: "
        "its make stopped; the same command continues the build).")
    p.add_argument("--debian-kernel", metavar="VERSION", default="6.12",
                   help="the Debian kernel (vm/run --debian-kernel: 6.12, "
                   "6.12.117+deb12; default 6.12)")
    p.add_argument("--src", metavar="TREE",
                   help="kernel source tree at that kernel's version, with --whole any "
                   "version (only read); default: Debian's linux-source-SERIES, unpacked once")
    p.add_argument("--patch", metavar="FILE", action="append", default=[],
                   help="apply this patch (-p1, git format-patch) on top; repeat "
                   "for a series, in order")
    p.add_argument("--config", metavar="NAME=VALUE", action="append", default=[],
                   help="set a Kconfig option only KVM's code reads (e.g. "
                   "KVM_SW_PROTECTED_VM=y); with --whole, a value without '=' names the "
                   "base config: small (default) or debian[:VERSION] (the Debian kernel's "
                   "own config, its modules reduced to the guest's; VERSION as vm/run "
                   "--debian-kernel takes it, default the tree's version) or a .config "
                   "file's path with a / (./good.config: taken whole, olddefconfig)")
    p.add_argument("--other-version", action="store_true",
                   help="--src TREE may be another version of the kernel's series: its "
                   "KVM modules built against that kernel (to place a step between two "
                   "versions in KVM or outside it; x86_64)")
    p.add_argument("--whole", action="store_true",
                   help="build a whole kernel from --src TREE, any version (KVM built in, "
                   "a small config); no Debian kernel involved")
    p.add_argument("--arch", default=host_arch(), choices=["x86_64", "arm64", "aarch64"])
    p.add_argument("--jobs", "-j", type=int, default=min(2, os.cpu_count() or 1),
                   help="make -j (default: 2 at most)")
    p.add_argument("--out", metavar="DIR",
                   help="where the modules tree (arm64, --whole: the kernel, "
                   "boot/IMAGE-RELEASE) goes")
    a = p.parse_args(argv)
    a.arch = "arm64" if a.arch == "aarch64" else a.arch
    if not a.out:       # (after argparse has named an unknown option)
        p.error("the following arguments are required: --out")
    if a.jobs < 1:
        p.error("--jobs must be at least 1")
    if a.whole and not a.src:
        p.error("--whole needs --src TREE")
    if a.other_version and (a.whole or not a.src):
        p.error("--other-version needs --src TREE and KVM modules (not --whole)")
    try:
        a.base, a.config = kvm_config.split_configs(a.config)
        kvm_config.parse_base(a.base)
    except UsageError as e:
        p.error(str(e))
    if a.base != "small" and not a.whole:
        p.error(f"--config {a.base}: a base config is for --whole")
    return a


def main_whole(a, t0):
    b = WholeBuild(a.arch, a.src, a.patch, a.config, a.jobs, a.base)
    kind = "KVM built in, the small config" if b.base == "small" else \
        f"Debian's {b.kernel.release} config" if b.kernel else f"the config {b.file}"
    info(f"building a whole {a.arch} kernel ({kind}) from {b.src} (Linux {b.version})"
         + "".join(f"\n  + {p.subject} ({p.path})" for p in b.patches)
         + (f"\n  config: {' '.join(a.config)}" if a.config else "")
         + f"\n  cache {b.dir}")
    t, arts = b.build()
    desc = b.install(a.out, arts)
    steps = ", ".join(f"{k} {v:.0f} s" for k, v in t.items() if v)
    print(f"{PROG}: built {b.release} in {time.monotonic() - t0:.0f} s ({steps}): "
          f"{desc['image']}")
    mods = f" --modules {desc['modules']}" if desc.get("modules") else ""
    print(f"{PROG}: boot it: vm/run --arch {a.arch} --kernel {desc['image']}{mods}; the suite "
          f"against its uapi: make KHDR_INCLUDES='-isystem {desc['uapi']}'")
    return 0


def run(a):
    """vm/kvm-build on the checked command line @a: its exit status."""
    t0 = time.monotonic()
    check_out(a.out)        # before the build, and again as it installs
    if a.whole:
        return main_whole(a, t0)
    b = Build(a.debian_kernel, a.arch, a.src, a.patch, a.config, a.jobs,
              a.other_version)
    what = "kvm, kvm-amd, kvm-intel" if a.arch == "x86_64" else "the kernel (KVM built in)"
    info(f"building {what} for {b.kernel} from {b.src}"
         + "".join(f"\n  + {p.subject} ({p.path})" for p in b.patches)
         + (f"\n  config: {' '.join(a.config)}" if a.config else "")
         + f"\n  cache {b.dir}")
    t, arts = b.build()
    b.install(a.out, arts)
    steps = ", ".join(f"{k} {v:.0f} s" for k, v in t.items() if v)
    print(f"{PROG}: built in {time.monotonic() - t0:.0f} s ({steps}): {a.out}")
    return 0


def main(argv=None):
    return cli.program(PROG, sys.argv[1:] if argv is None else argv, parse_args, run,
                       stopped="the same command continues the build")


if __name__ == "__main__":
    sys.exit(main())
