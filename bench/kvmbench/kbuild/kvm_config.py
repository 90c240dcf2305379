# SPDX-License-Identifier: GPL-2.0-only
"""kvmbench.kbuild.kvm_config: the small config of a whole kernel built from any
tree (vm/kvm-build --whole): `make tinyconfig`, then the suite's `config`
fragment with modules built in, what vm/run's guest needs, and the
options the tree's Kconfig has of those wanted where present; checked
after olddefconfig (missing_options)."""

import os
import re
import subprocess

from kvmbench.base.errors import UsageError
from kvmbench.kernels import build, debian
from kvmbench.vmrun import initramfs
from . import kvm_tree

# A whole kernel: `make tinyconfig`, then the suite's `config` fragment
# (modules built in) and what vm/run's guest needs, then olddefconfig.
# (option, why): each must come out =y, or the tree cannot serve (exit 2).
BOOT = {
    "common": [
        ("64BIT", "the suite's binaries are 64-bit"), ("SMP", "vm/run --smp"),
        ("PRINTK", "the console"), ("TTY", "the console"),
        ("BLK_DEV_INITRD", "vm/run boots an initramfs"),
        ("BINFMT_ELF", "the tests"), ("BINFMT_SCRIPT", "vm/init is a script"),
        ("PROC_FS", "vm/init mounts /proc"), ("PROC_SYSCTL", "the tests' /proc/sys"),
        ("SYSFS", "vm/init mounts /sys"), ("DEVTMPFS", "vm/init mounts /dev"),
        ("TMPFS", "vm/init's /tmp, /dev/shm"), ("UNIX98_PTYS", "vm/init mounts devpts"),
        ("DEBUG_FS", "vm/init mounts debugfs; KVM's debugfs stats"),
        ("FUTEX", "pthreads"), ("EPOLL", "the tests"), ("EVENTFD", "irqfd, ioeventfd"),
        ("TIMERFD", "the tests"), ("SIGNALFD", "the tests"), ("POSIX_TIMERS", "the tests"),
        ("MULTIUSER", "the tests"), ("SHMEM", "memfd"), ("VIRTUALIZATION", "KVM"),
        ("HIGH_RES_TIMERS", "the tests' clocks"), ("ADVISE_SYSCALLS", "the tests' madvise()"),
        ("PERF_EVENTS", "the tests' perf_event_open()"),
        ("KALLSYMS", "--profile names the kernel's functions (/proc/kallsyms)"),
    ],
    "x86_64": [
        ("SERIAL_8250", "vm/run's console (ttyS0)"),
        ("SERIAL_8250_CONSOLE", "vm/run's console (ttyS0)"),
        ("ACPI", "SMP and poweroff on QEMU's q35"), ("PCI", "QEMU's q35"),
        ("X86_LOCAL_APIC", "KVM"), ("CPU_SUP_AMD", "KVM_AMD"),
        ("CPU_SUP_INTEL", "KVM_INTEL"),
    ],
    "arm64": [
        ("SERIAL_AMBA_PL011", "vm/run's console (ttyAMA0)"),
        ("SERIAL_AMBA_PL011_CONSOLE", "vm/run's console (ttyAMA0)"),
        ("ARM_AMBA", "the PL011"),
    ],
}
# Set where the tree's Kconfig has them, required then.
WHERE_PRESENT = {
    "common": [("CC_OPTIMIZE_FOR_PERFORMANCE", "KVM at -O2, as distributions build it"),
               ("EXPERT", "KVM_SW_PROTECTED_VM"),
               ("KVM_SW_PROTECTED_VM", "guest_memfd's private memory"),
               ("RD_GZIP", "the initrd Bochs boots"), ("RD_ZSTD", "the initrd Bochs boots"),
               ("IDLE_PAGE_TRACKING", "access_tracking_perf_test's page_idle")],
    "x86_64": [("HYPERVISOR_GUEST", "PVH"),
               ("PVH", "vm/run boots the uncompressed vmlinux (faster under TCG)"),
               ("KERNEL_XZ", "vm/run extracts an xz-compressed vmlinux for PVH"),
               ("X86_64_ACPI_NUMA", "vm/run --numa")],
    "arm64": [],
}


def suite_fragment(path=None):
    """The suite's `config` fragment (the repo's top level) as (NAME,
    VALUE), modules built in (=m made =y): a whole kernel has no modules."""
    path = path or os.path.join(debian.REPO, "config")
    out = []
    with open(path, encoding="utf-8") as f:
        for line in f:
            m = re.match(r"CONFIG_([A-Za-z0-9_]+)=(.*)", line.strip())
            if m:
                out.append((m.group(1), "y" if m.group(2) == "m" else m.group(2)))
    return out


def kconfig_symbols(src, arch, names):
    """The NAMES a Kconfig file of SRC defines for ARCH (outside arch/,
    or in arch/ARCH)."""
    pat = r"^\s*(menu)?config (" + "|".join(sorted(names)) + r")\s*$"
    # -R: a tree of symbolic links (cp -rs) is read through them.
    r = subprocess.run(["grep", "-RHoE", pat, "--include=Kconfig*", "."], cwd=src,
                       stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    mine = f"./arch/{kvm_tree.SRCARCH[arch]}/"
    return {ln.split()[-1] for ln in r.stdout.splitlines()
            if not ln.startswith("./arch/") or ln.startswith(mine)}


def whole_settings(arch, src, fragment=None):
    """[(NAME, VALUE, why)] a whole kernel's config needs on ARCH: the
    guest's needs, KVM, and those of the suite's fragment and of
    WHERE_PRESENT that SRC's Kconfig has for ARCH (KVM_AMD is x86's)."""
    frag = [(n, v, "the suite's config fragment") for n, v in suite_fragment(fragment)]
    opt = [(n, "y", why) for n, why in WHERE_PRESENT["common"] + WHERE_PRESENT[arch]]
    have = kconfig_symbols(src, arch, [n for n, _, _ in frag + opt])
    need = [o for o in frag if o[0] in have]
    need += [(n, "y", why) for n, why in BOOT["common"] + BOOT[arch]]
    need += [o for o in opt if o[0] in have] + [("KVM", "y", "the suite tests KVM")]
    seen, out = set(), []
    for n, v, why in need:
        if n not in seen:
            seen.add(n)
            out.append((n, v, why))
    return out


def missing_options(settings, got):
    """The first (NAME, VALUE, why) of SETTINGS the config GOT ({NAME:
    VALUE}) does not have, or None."""
    return next(((n, v, why) for n, v, why in settings if got.get(n, "n") != v), None)


# ---- the base config of a whole kernel: small (above) or Debian's ------

BASES = ("small", "debian")
# Left out of Debian's config, each a `note:` of the build: debug info
# (DWARF and BTF: code generation is the same without -g; it would
# double a cold build).
DEBIAN_OFF = [("DEBUG_INFO_NONE", "y"), ("DEBUG_INFO_DWARF_TOOLCHAIN_DEFAULT", "n"),
              ("DEBUG_INFO_DWARF4", "n"), ("DEBUG_INFO_DWARF5", "n")]
# Options whose change a base config's check leaves aside: the
# toolchain's versions, and what dropping debug info takes with it.
TOOLCHAIN = ("_VERSION", "_VERSION_TEXT")


def config_file(value, name="--config"):
    """The absolute path of the kernel .config file VALUE (given as NAME);
    UsageError when there is none or it has no CONFIG_ line."""
    path = os.path.abspath(value)
    if not os.path.isfile(path):
        raise UsageError(f"{name} {value}: no such config file")
    if not kvm_tree.read_config(path):
        raise UsageError(f"{name} {value}: not a kernel .config (no CONFIG_ line)")
    return path


def parse_base(value):
    """('small', ''), ('debian', VERSION or '') or ('file', PATH) of a
    base config ('small', 'debian', 'debian:6.12.111+deb12', or a path
    with a '/' to a .config file: ./good.config); UsageError otherwise."""
    if "/" in value and not value.startswith("debian:"):
        return "file", config_file(value)
    name, _, ver = value.partition(":")
    if name not in BASES or (name == "small" and ver) or (":" in value and not ver):
        raise UsageError(f"--config {value}: a base config is 'small', "
                         "'debian[:VERSION]' (VERSION as vm/run --debian-kernel takes it) "
                         "or a .config file's path (with a /), an option NAME=VALUE")
    return name, ver


def base_config(value):
    """An argparse type: --config of bench/compare and bench/attribute, a
    whole kernel's base config (parse_base's: small, debian[:VERSION], a
    .config file's path) as given; UsageError otherwise."""
    parse_base(value)
    return value


def split_configs(values):
    """(base, [NAME=VALUE...]) of --config's values: those without '='
    name the base config (one at most; default 'small')."""
    bases = [v for v in values if "=" not in v]
    if len(set(bases)) > 1:
        raise UsageError(f"--config names two base configs: {' and '.join(bases)}")
    return (bases[0] if bases else "small"), [v for v in values if "=" in v]


def debian_kernel_for(base_version, tree_version, versions):
    """The Debian kernel a 'debian[:VERSION]' base names: VERSION, or the
    one of VERSIONS (kernel names, 6.12.111+deb12) at the tree's own
    TREE_VERSION; UsageError when there is none."""
    if base_version:
        return base_version
    have = [v for v in versions if v.split("+")[0] == tree_version]
    if not have:
        raise UsageError(f"--config debian: no Debian kernel named for Linux {tree_version} "
                         "(a 6.1.0-N kernel's Linux version is in its changelog): give "
                         "--config debian:VERSION")
    return have[-1]


def guest_modules(modtree, arch):
    """The modules vm/run's guest loads from the kernel modules tree
    MODTREE (KVM's chains and what they depend on), in load order."""
    index = initramfs.modules_in(modtree)
    data = {}

    def deps(name):
        data.setdefault(name, initramfs.mod_data(index[name]))
        return [d.replace("-", "_") for d in
                initramfs.modinfo(data[name], "depends").split(",") if d]
    out = []
    for _, top in initramfs.FLAVOURS[build.arch_name(arch)]:
        out += [n for n in initramfs.load_order(top, index, deps) or [] if n not in out]
    return out


def lsmod_text(names):
    """NAMES as `lsmod` prints them (what make localmodconfig's LSMOD reads)."""
    return "Module                  Size  Used by\n" + "".join(f"{n} 0 0\n" for n in names)


def lost_builtins(base, got):
    """The options BASE ({NAME: VALUE}) has =y that GOT has not, but for
    the toolchain's versions and the debug info DEBIAN_OFF drops."""
    off = {n for n, _ in DEBIAN_OFF}
    return sorted(n for n, v in base.items() if v == "y" and got.get(n, "n") != "y"
                  and n not in off and not n.endswith(TOOLCHAIN)
                  and not n.startswith(("DEBUG_INFO", "PAHOLE", "RUSTC_")))


def lost_for_kvm(base, got, reads):
    """The options of READS (those KVM's code reads) that BASE ({NAME:
    VALUE}) has on, =y or =m, and GOT has otherwise: a module the guest
    does not load is one (Debian's HYPERV=m: KVM's code compiles its
    Hyper-V paths in when IS_ENABLED(CONFIG_HYPERV))."""
    return sorted(n for n in reads if base.get(n, "n") in ("y", "m") and
                  got.get(n, "n") != base[n] and not n.endswith(TOOLCHAIN))


def read_by_kvm(src, arch):
    """The options (NAME) KVM's code (its directories and headers) reads."""
    s = kvm_tree.SRCARCH[arch]
    paths = [p for p in (*kvm_tree.kvm_dirs(arch), "include/kvm") if os.path.isdir(
        os.path.join(src, p))]
    for d in ("include/linux", f"arch/{s}/include/asm"):
        full = os.path.join(src, d)
        paths += [os.path.join(d, f) for f in sorted(os.listdir(full))
                  if f.startswith("kvm")] if os.path.isdir(full) else []
    r = subprocess.run(["grep", "-RhoE", r"CONFIG_[A-Za-z0-9_]+", *paths], cwd=src,
                       stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    return {w[len("CONFIG_"):].removesuffix("_MODULE") for w in r.stdout.split()}


KCONFIG_SYM = re.compile(r"\s*(?:menu)?config\s+([A-Za-z0-9_]+)\s*$")
KCONFIG_IDS = re.compile(r"\b[A-Z][A-Z0-9_]*[A-Z0-9]\b")


def kconfig_index(src):
    """{NAME: (depends, selects)} of every symbol a Kconfig file of SRC
    defines: the symbols its 'depends on' lines and the 'if' blocks around
    it name, and those it selects (a reading good enough to find what
    keeps an option on, checked by olddefconfig after)."""
    index = {}
    for d, dirs, files in os.walk(src, followlinks=True):
        dirs[:] = [x for x in dirs if x not in (".git", "Documentation", "tools")]
        for f in files:
            if not f.startswith("Kconfig"):
                continue
            cur, ifs = None, []
            with open(os.path.join(d, f), encoding="utf-8", errors="replace") as fh:
                for line in fh:
                    m = KCONFIG_SYM.match(line)
                    word = line.split(None, 1)[0] if line.strip() else ""
                    if m:
                        cur = index.setdefault(m.group(1), (set(), set()))
                        cur[0].update(*ifs)
                    elif word == "if":
                        ifs.append(set(KCONFIG_IDS.findall(line[3:])))
                        cur = None
                    elif word == "endif":
                        ifs = ifs[:-1]
                        cur = None
                    elif word in ("menu", "endmenu", "choice", "endchoice", "comment",
                                  "source", "mainmenu"):
                        cur = None
                    elif cur is not None and word == "depends":
                        cur[0].update(KCONFIG_IDS.findall(line.split("on", 1)[-1]))
                    elif cur is not None and word == "select":
                        cur[1].update(KCONFIG_IDS.findall(line.split(None, 1)[1])[:1])
    return index


def keep_for(lost, index, base):
    """[(NAME, VALUE)] that bring the options LOST back: each itself, the
    symbols that select it and, transitively, what those depend on, each
    as the config BASE ({NAME: VALUE}) has it (those BASE has off left
    out)."""
    want = [s for s, (_, sel) in index.items() if sel & set(lost)] + sorted(lost, reverse=True)
    seen, out = set(), []
    while want:
        s = want.pop()
        if s in seen or base.get(s, "n") == "n":
            continue
        seen.add(s)
        out.append((s, base[s]))
        want += sorted(index.get(s, (set(), set()))[0])
    return out
