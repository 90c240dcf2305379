# SPDX-License-Identifier: GPL-2.0-only
"""kvmbench.kvm_config: the small config of a whole kernel built from any
tree (vm/kvm-build --whole): `make tinyconfig`, then the suite's `config`
fragment with modules built in, what vm/run's guest needs, and the
options the tree's Kconfig has of those wanted where present; checked
after olddefconfig (missing_options)."""

import os
import re
import subprocess

from kvmbench import debian, kvm_tree

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
