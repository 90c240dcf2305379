#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-only
"""Unit tests of the config bisection (kvmbench.attribution.config_bisect) and of
vm/kvm-build's base configs (kvmbench.kbuild.kvm_config: small, debian[:VERSION],
a .config file), --patch's verdicts on known runs:
a planted option found on simulated verdicts, nothing named on an A/A
pair, olddefconfig's dependency resolution on a real tree's Kconfig (a
Debian linux-source tree in the cache; SKIP without one), the refusals.
Run: python3 bench/test_config_bisect.py (--tap: kselftest TAP)"""
import glob
import os
import random
import shutil
import subprocess
import sys
import tempfile
import unittest

BENCH = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, BENCH)
from kvmbench.base.errors import UsageError  # noqa: E402
from kvmbench.base.tap import tap  # noqa: E402
from kvmbench.kernels import debian  # noqa: E402
from kvmbench.kbuild import kvm_config, kvm_tree  # noqa: E402
from kvmbench.attribution import config_bisect as cb  # noqa: E402


def configs(n=40, seed=1):
    """Two configs of N options that differ in every one."""
    names = [f"OPT_{i:02d}" for i in range(n)]
    good = {k: "n" for k in names}
    bad = {k: "y" for k in names}
    random.Random(seed).shuffle(names)
    return good, bad


def oracle(planted, calls=None):
    """Bad when every option of PLANTED is y."""
    def verdict(cfg):
        if calls is not None:
            calls.append(dict(cfg))
        return cb.BAD if all(cfg.get(p) == "y" for p in planted) else cb.GOOD
    return verdict


def needs(deps):
    """A resolve that, as olddefconfig, turns off an option whose
    dependency ({option: dependency}) is off."""
    def resolve(cfg):
        out = dict(cfg)
        changed = True
        while changed:
            changed = False
            for o, d in deps.items():
                if out.get(o) == "y" and out.get(d, "n") != "y":
                    out[o], changed = "n", True
        return out
    return resolve


class Simulated(unittest.TestCase):
    def test_planted_option_found(self):
        good, bad = configs()
        for planted in ("OPT_00", "OPT_17", "OPT_39"):
            res = cb.bisect(good, bad, dict, oracle([planted]))
            self.assertEqual(res.options, [planted], res)
            # log2(40) halvings and the two ends
            self.assertLessEqual(len(res.steps), 2 + 7)

    def test_aa_names_nothing(self):
        good, _ = configs()
        calls = []
        res = cb.bisect(good, dict(good), dict, oracle(["OPT_03"], calls))
        self.assertEqual(res.options, [])
        self.assertIn("nothing differs", res.why)
        self.assertEqual(calls, [])      # not one verdict
        # Two configs that differ, but no step between them (the oracle's
        # option is in neither): the bad end is good, nothing is named.
        good, bad = configs()
        res = cb.bisect(good, bad, dict, oracle(["NOT_THERE"]))
        self.assertEqual(res.options, [])
        self.assertIn("does not show the step", res.why)
        self.assertEqual(len(res.steps), 2)

    def test_dependency_resolved(self):
        # OPT_05 needs OPT_30: a half that sets OPT_05 alone is undone
        # by the resolution and is no step; the search still ends on it.
        good, bad = configs()
        res = cb.bisect(good, bad, needs({"OPT_05": "OPT_30"}), oracle(["OPT_05"]))
        self.assertEqual(res.options, ["OPT_05"], res)

    def test_group_narrowed_to_its_selector(self):
        # OPT_07 selects OPT_08 and OPT_09 (they have no prompt): a
        # half without OPT_07 loses them, one with it brings them.
        good, bad = configs(12)

        def resolve(cfg):
            out = dict(cfg)
            for o in ("OPT_08", "OPT_09"):
                out[o] = out.get("OPT_07", "n")
            return out
        res = cb.bisect(good, bad, resolve, oracle(["OPT_09"]),
                        settable={f"OPT_{i:02d}" for i in range(12)} - {"OPT_08", "OPT_09"})
        self.assertEqual(res.options, ["OPT_07"], res)

    def test_group_member_that_carries_it(self):
        # OPT_03 needs OPT_02 (default y once OPT_02 is on: absent from
        # the good config, as an option whose dependencies are off):
        # setting OPT_02 brings OPT_03, so the halves cannot part them;
        # OPT_03 set back alone on the bad end takes the step away.
        good, bad = configs(12)
        del good["OPT_03"]

        def resolve(cfg):
            out = dict(cfg)
            if out.get("OPT_02") != "y":
                out.pop("OPT_03", None)
            elif "OPT_03" not in out:
                out["OPT_03"] = "y"
            return out
        calls = []
        res = cb.bisect(good, bad, resolve, oracle(["OPT_03"], calls))
        self.assertEqual(res.options, ["OPT_03"], res)
        self.assertIn("OPT_02 brings it", res.why)
        # The step in OPT_02 itself: it stays the one named.
        res = cb.bisect(good, bad, resolve, oracle(["OPT_02"]))
        self.assertEqual(res.options, ["OPT_02"], res)

    def test_command_verdict(self):
        # git bisect run's reading of the command's status; 128 and
        # above stop the bisection (bench/inlined's bad command line).
        from kvmbench.base.errors import Fail
        with tempfile.TemporaryDirectory() as d:
            for rc, want in ((0, cb.GOOD), (1, cb.BAD), (127, cb.BAD), (125, cb.SKIP)):
                v = cb.command_verdict(["sh", "-c", f"test -s \"$1\" && exit {rc}", "sh"], d)
                self.assertEqual(v({"KVM": "y"}), want, rc)
            with self.assertRaises(Fail):
                cb.command_verdict(["sh", "-c", "exit 128"], d)({"KVM": "y"})

    def test_two_options_together(self):
        # The step needs both: the search ends on a group it cannot part.
        good, bad = configs()
        res = cb.bisect(good, bad, dict, oracle(["OPT_02", "OPT_33"]))
        self.assertIn("OPT_02", res.options + list(res.good))
        self.assertTrue(res.bad.get("OPT_02") == "y" and res.bad.get("OPT_33") == "y")
        self.assertEqual(res.good.get("OPT_02") == "y" and res.good.get("OPT_33") == "y",
                         False)

    def test_skip_adapts(self):
        # Every config with OPT_10 on but OPT_11 off cannot be tested;
        # the search splits finer and still names the planted option.
        good, bad = configs()
        inner = oracle(["OPT_20"])

        def verdict(cfg):
            if cfg["OPT_10"] == "y" and cfg["OPT_11"] == "n":
                return cb.SKIP
            return inner(cfg)
        res = cb.bisect(good, bad, dict, verdict)
        self.assertEqual(res.options, ["OPT_20"], res)

    def test_broken_code_fails(self):
        # A bisection that kept the wrong half would name another option:
        # the planted one must come out for every position.
        good, bad = configs(16)
        for i in range(16):
            p = f"OPT_{i:02d}"
            self.assertEqual(cb.bisect(good, bad, dict, oracle([p])).options, [p])


def cached_tree():
    """A Debian linux-source tree unpacked in the cache (vm/kvm-build's), or None."""
    for d in sorted(glob.glob(os.path.join(debian.cache_dir(), "linux-source-*-*"))):
        if os.path.isfile(os.path.join(d, "arch/x86/Kconfig")) and \
                os.path.isfile(os.path.join(d, "scripts/kconfig/conf.c")):
            return d
    return None


def tiny_tree(test, d):
    """(a cached tree, its resolve function, its tinyconfig resolved)
    with the build in D; TEST skipped when the cache has no tree."""
    src = cached_tree()
    if not src:
        test.skipTest("no Debian linux-source tree in the cache (vm/kvm-build "
                      "--debian-kernel 6.12 unpacks one)")
    r = subprocess.run(["make", "-C", src, f"O={d}", "ARCH=x86_64", "tinyconfig"],
                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    test.assertEqual(r.returncode, 0)
    resolve = cb.olddefconfig(src, "x86_64", d)
    return src, resolve, resolve(kvm_tree.read_config(os.path.join(d, ".config")))


# KVM in a tinyconfig (6.1's KVM also depends on HIGH_RES_TIMERS, 6.12's not).
KVM_ON = {"VIRTUALIZATION": "y", "KVM": "y", "X86_LOCAL_APIC": "y", "HIGH_RES_TIMERS": "y"}


class RealKconfig(unittest.TestCase):
    """olddefconfig on a real tree: KVM_AMD planted among options it needs
    and options it does not; no compile."""

    def test_olddefconfig_bisect(self):
        with tempfile.TemporaryDirectory() as d:
            src, resolve, good = tiny_tree(self, d)
            # KVM in both; B adds KVM_AMD (which needs CPU_SUP_AMD) and
            # options that do not matter.
            good = resolve(dict(good, **KVM_ON))
            self.assertEqual(good.get("KVM"), "y")
            more = {"KVM_AMD": "y", "CPU_SUP_AMD": "y", "PRINTK": "y", "TTY": "y",
                    "BLK_DEV_INITRD": "y", "SYSFS": "y"}
            bad = resolve(dict(good, **more))
            self.assertEqual(bad.get("KVM_AMD"), "y", "the tree's Kconfig keeps KVM_AMD")
            settable = cb.settable_options(src)
            self.assertIn("KVM_AMD", settable)
            self.assertNotIn("KVM_X86", settable)     # def_tristate, no prompt
            res = cb.bisect(good, bad, resolve, oracle(["KVM_AMD"]), settable=settable)
            # KVM_AMD, named alone: the options it selects (KVM_X86 and
            # what that selects) follow it.
            self.assertEqual(res.options, ["KVM_AMD"], res)
            # A config resolved before is not resolved again: the file
            # olddefconfig wrote last is left as it was.
            os.unlink(os.path.join(d, ".config"))
            self.assertEqual(resolve(dict(good, **more)), bad)
            self.assertFalse(os.path.exists(os.path.join(d, ".config")))


class Refusals(unittest.TestCase):
    def test_base_names(self):
        self.assertEqual(kvm_config.parse_base("small"), ("small", ""))
        self.assertEqual(kvm_config.parse_base("debian"), ("debian", ""))
        self.assertEqual(kvm_config.parse_base("debian:6.12.111+deb12"),
                         ("debian", "6.12.111+deb12"))
        for bad in ("fedora", "debian:", "small:6.12", "Debian"):
            with self.assertRaises(UsageError):
                kvm_config.parse_base(bad)
        # A .config file's path (with a /): taken whole; one that is
        # missing or holds no CONFIG_ line refused.
        with tempfile.TemporaryDirectory() as d:
            good, empty = os.path.join(d, "good.config"), os.path.join(d, "empty.config")
            with open(good, "w") as f:
                f.write("CONFIG_X86_64=y\n# CONFIG_KVM is not set\n")
            open(empty, "w").close()
            self.assertEqual(kvm_config.parse_base(good), ("file", good))
            for bad in (empty, os.path.join(d, "missing.config")):
                with self.assertRaises(UsageError):
                    kvm_config.parse_base(bad)
            self.assertEqual(kvm_config.split_configs([good, "A=y"]), (good, ["A=y"]))
        self.assertEqual(kvm_config.split_configs(["debian", "KVM_SW_PROTECTED_VM=y"]),
                         ("debian", ["KVM_SW_PROTECTED_VM=y"]))
        self.assertEqual(kvm_config.split_configs(["A=y"]), ("small", ["A=y"]))
        with self.assertRaises(UsageError):
            kvm_config.split_configs(["debian", "small"])

    def test_default_debian_kernel(self):
        vs = ["6.1.0-53", "6.12.111+deb12", "6.12.113+deb12"]
        self.assertEqual(kvm_config.debian_kernel_for("", "6.12.113", vs), "6.12.113+deb12")
        self.assertEqual(kvm_config.debian_kernel_for("6.1.0-53", "6.1.187", vs), "6.1.0-53")
        with self.assertRaises(UsageError):
            kvm_config.debian_kernel_for("", "6.1.187", vs)

    def test_command_line(self):
        kb = [sys.executable, "-m", "kvmbench.kbuild.kvm_build"]
        env = dict(os.environ, PYTHONPATH=BENCH)
        for args in (["--whole", "--src", "/", "--config", "debian", "--config", "small"],
                     ["--src", "/", "--config", "debian"],
                     ["--whole", "--src", "/", "--config", "fedora"],
                     ["--whole", "--src", "/", "--config", "debian:"],
                     ["--other-version", "--debian-kernel", "6.12"]):
            r = subprocess.run(kb + args + ["--out", "/nonexistent/x"], env=env,
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
            self.assertEqual(r.returncode, 2, (args, r.stderr))
            self.assertNotIn("Traceback", r.stderr)
        cbc = [sys.executable, "-m", "kvmbench.attribution.config_bisect"]
        with tempfile.NamedTemporaryFile("w", suffix=".config") as f:
            for args in (["--src", "/", "--good", f.name, "--bad", f.name, "--", "true"],
                         ["--src", "/", "--good", f.name, "--bad", "/nonexistent", "--",
                          "true"],
                         ["--src", "/", "--good", f.name, "--bad", f.name],
                         # --patch: what it needs, before any build
                         ["--src", "/", "--good", f.name, "--bad", f.name, "--patch",
                          "/nonexistent.patch", "--", "dirty_log_perf_test"],
                         ["--src", "/", "--good", f.name, "--bad", f.name, "--patch",
                          f.name, "--figure", "dirty_ns_avg", "--threshold", "1", "--",
                          "dirty_log_perf_test"],
                         ["--src", "/", "--good", f.name, "--bad", f.name, "--figure",
                          "dirty_ns_avg", "--", "true"]):
                r = subprocess.run(cbc + args, env=env, stdout=subprocess.PIPE,
                                   stderr=subprocess.PIPE, text=True)
                self.assertEqual(r.returncode, 2, (args, r.stderr))
                self.assertNotIn("Traceback", r.stderr)


class FileBase(unittest.TestCase):
    """vm/kvm-build --whole --config PATH: the config refused when it is
    another arch's or has KVM off, else one build directory for every
    file of the tree (a bisection's candidates rebuild in place), the
    compiler the file names, its KVM kept as it has it."""

    def tree(self, d):
        for a in ("x86", "arm64"):
            os.makedirs(os.path.join(d, "src", "arch", a))
            open(os.path.join(d, "src", "arch", a, "Kconfig"), "w").close()
        with open(os.path.join(d, "src", "Makefile"), "w") as f:
            f.write("VERSION = 6\nPATCHLEVEL = 12\nSUBLEVEL = 111\n")
        return os.path.join(d, "src")

    def config(self, d, name, text):
        path = os.path.join(d, name)
        with open(path, "w") as f:
            f.write(text)
        return path

    def test_file_base(self):
        from kvmbench.kbuild import kvm_build
        with tempfile.TemporaryDirectory() as d:
            src = self.tree(d)
            # The compiler the config names, by the name this host's gcc
            # has (x86_64-linux-gnu-gcc-12 on Debian 12), with or without
            # ccache installed.
            cc = os.path.basename(os.path.realpath(shutil.which("gcc")))
            one = self.config(d, "one.config", "CONFIG_X86_64=y\nCONFIG_KVM=m\n"
                              "CONFIG_KVM_AMD=m\n# CONFIG_KVM_INTEL is not set\n"
                              f'CONFIG_CC_VERSION_TEXT="{cc} (Debian 12.2.0-14) 12.2.0"\n')
            two = self.config(d, "two.config", "CONFIG_X86_64=y\nCONFIG_KVM=y\n")
            b1 = kvm_build.WholeBuild("x86_64", src, base=one)
            b2 = kvm_build.WholeBuild("x86_64", src, base=two)
            self.assertEqual(b1.dir, b2.dir)
            self.assertNotEqual(b1.dir, kvm_build.WholeBuild("x86_64", src).dir)
            self.assertEqual(b1.need, [("KVM", "m", b1.need[0][2]), ("KVM_AMD", "m",
                                                                     b1.need[1][2])])
            self.assertEqual(b1.kernel_config(), one)
            self.assertEqual(b1.kernel_cc(), cc)
            if cc != "gcc":
                self.assertIn(cc, [a[3:].split(" ")[-1] for a in b1.make_cmd()
                                   if a.startswith("CC=")])
            # One this host does not have: the build's own gcc.
            absent = self.config(d, "absent.config", "CONFIG_X86_64=y\nCONFIG_KVM=y\n"
                                 'CONFIG_CC_VERSION_TEXT="x86_64-linux-gnu-gcc-99 (x) 99"\n')
            b3 = kvm_build.WholeBuild("x86_64", src, base=absent)
            self.assertEqual(b3.kernel_cc(), "")
            self.assertNotIn("gcc-99", " ".join(b3.make_cmd()))
            for text, why in (("CONFIG_ARM64=y\nCONFIG_KVM=y\n", "not an x86_64 config"),
                              ("CONFIG_X86_64=y\n# CONFIG_KVM is not set\n", "CONFIG_KVM off")):
                with self.assertRaises(UsageError) as e:
                    kvm_build.WholeBuild("x86_64", src, base=self.config(d, "x.config", text))
                self.assertIn(why, str(e.exception))


class PatchVerdicts(unittest.TestCase):
    """bench/config-bisect --patch's verdict on known runs: the step
    shown (bad), not shown (good, also on an A/A pair), a side that
    cannot be built or run (cannot test); and its plan."""

    def verdict(self, a_vals, b_vals, fail=None):
        from kvmbench.attribution import config_verdict as cv
        c = type("C", (), {})()
        c.src, c.arch, c.patches = "/src", "x86_64", ["/p.patch"]
        c.figure, c.threshold, c.runs, c.direction = "dirty_ns_avg", 1.0, 8, "worse"
        built = []

        def build_side(out, **kw):
            built.append((os.path.basename(out), kw["base"], tuple(kw["patches"])))
            if fail == "build" and kw["patches"]:
                raise UsageError("patch does not apply")
            return {"vm_args": []}

        def measure_side(c_, desc, out, side, n):
            vals = b_vals if out.endswith("-b") else a_vals
            if fail == "boot" and out.endswith("-b"):
                raise cv.CannotTest()
            return [], {"dirty_ns_avg": vals}, {"dirty_ns_avg": "ns"}
        saved = cv.kvm_build.build_side, cv.measure_side
        cv.kvm_build.build_side, cv.measure_side = build_side, measure_side
        try:
            with tempfile.TemporaryDirectory() as d:
                v = cv.PatchVerdict(c, d, looks=cv.plan(40))
                got = v({"KVM": "y", "X86_64": "y"})
                self.assertTrue(os.path.isfile(os.path.join(d, "candidate-01.config")))
        finally:
            cv.kvm_build.build_side, cv.measure_side = saved
        self.assertEqual(built[0][0], "kvm-a")
        self.assertEqual(built[0][2], ())
        if len(built) > 1:
            self.assertEqual(built[1][2], ("/p.patch",))
        return got

    def test_verdicts(self):
        a = [100.0 + 0.1 * i for i in range(8)]
        self.assertEqual(self.verdict(a, [x * 1.02 for x in a]), cb.BAD)
        self.assertEqual(self.verdict(a, [x * 1.005 for x in a]), cb.GOOD)    # < threshold
        self.assertEqual(self.verdict(a, [x * 0.98 for x in a]), cb.GOOD)     # the other way
        self.assertEqual(self.verdict(a, list(reversed(a))), cb.GOOD)         # A/A
        self.assertEqual(self.verdict(a, a, fail="build"), cb.SKIP)
        self.assertEqual(self.verdict(a, a, fail="boot"), cb.SKIP)

    def test_plan(self):
        from kvmbench.attribution import config_verdict as cv
        self.assertEqual(cv.plan(1), 4)
        self.assertEqual(cv.plan(1353), 24)
        # Enough for the search: both ends and a halving each, in every
        # planted case of the simulation.
        for n in (2, 5, 40, 1000):
            good, bad = configs(n)
            res = cb.bisect(good, bad, lambda c: c, oracle([sorted(good)[n // 2]]),
                            max_steps=cv.plan(n))
            self.assertEqual(res.options, [sorted(good)[n // 2]])


class Inlined(unittest.TestCase):
    """bench/inlined: the calls read from objdump -dr's text (as the two
    builds of 6.12.113's svm.o print them), and its refusals (128, one
    line, before any build)."""

    DIS = """
0000000000003b80 <msr_write_intercepted>:
    3b80:\tcall   3b85 <msr_write_intercepted+0x5>
\t\t\t3b81: R_X86_64_PLT32\t__fentry__-0x4
0000000000007f40 <svm_vcpu_run>:
    7f40:\tpush   %rbp
    7f5a:\tcall   3b80 <msr_write_intercepted>
    7f70:\tcall   7f75 <svm_vcpu_run+0x35>
\t\t\t7f71: R_X86_64_PLT32\tmsr_write_intercepted_other-0x4
    7f80:\tjmp    8000 <svm_vcpu_enter_exit>
0000000000008000 <svm_vcpu_enter_exit>:
    8000:\tcall   8005 <svm_vcpu_enter_exit+0x5>
\t\t\t8001: R_X86_64_PLT32\tmsr_write_intercepted-0x4
"""

    def test_calls(self):
        from kvmbench.attribution import inlined
        self.assertEqual(inlined.calls(self.DIS, "svm_vcpu_run", "msr_write_intercepted"),
                         (True, 1))
        # A call through a relocation (another section), a tail jump.
        self.assertEqual(inlined.calls(self.DIS, "svm_vcpu_enter_exit",
                                       "msr_write_intercepted"), (True, 1))
        self.assertEqual(inlined.calls(self.DIS, "svm_vcpu_run", "svm_vcpu_enter_exit"),
                         (True, 1))
        # Inlined: the caller there, no call; a caller that is not.
        inl = self.DIS.replace("call   3b80 <msr_write_intercepted>", "testb  $0x1,0x200(%rdi)")
        self.assertEqual(inlined.calls(inl, "svm_vcpu_run", "msr_write_intercepted"),
                         (True, 0))
        self.assertEqual(inlined.calls(self.DIS, "svm_vcpu_load", "msr_write_intercepted"),
                         (False, 0))

    def test_command_line(self):
        cmd = [sys.executable, "-m", "kvmbench.attribution.inlined"]
        env = dict(os.environ, PYTHONPATH=BENCH)
        with tempfile.TemporaryDirectory() as d:
            cfg = os.path.join(d, "c.config")
            with open(cfg, "w") as f:
                f.write("CONFIG_X86_64=y\nCONFIG_KVM=y\n")
            base = ["--src", d, "--in", "svm_vcpu_run", "--call", "msr_write_intercepted"]
            for args in (base + ["--object", "svm.o"],                       # no CONFIG
                         base + ["--object", "/abs/svm.o", cfg],
                         base + ["--object", "svm.c", cfg],
                         base + ["--object", "arch/x86/kvm/svm/svm.o", cfg],   # no such .c
                         base + ["--object", "svm.o", os.path.join(d, "none.config")],
                         ["--src", d, "--object", "svm.o", "--in", "a b", "--call", "x", cfg]):
                r = subprocess.run(cmd + args, env=env, stdout=subprocess.PIPE,
                                   stderr=subprocess.PIPE, text=True)
                self.assertEqual(r.returncode, 128, (args, r.stderr))
                self.assertEqual(len(r.stderr.strip().splitlines()), 1, r.stderr)

    def test_real_object(self):
        """One object of a real tree built with a config: a call to
        another object (kvm.ko's kvm_load_guest_xsave_state) is CALLS,
        exit 1; an __always_inline helper (to_svm) is INLINED, exit 0;
        the tree only read."""
        with tempfile.TemporaryDirectory() as d:
            src, resolve, tiny = tiny_tree(self, d)
            cfg = resolve(dict(tiny, KVM_AMD="y", CPU_SUP_AMD="y", **KVM_ON))
            self.assertEqual(cfg.get("KVM_AMD"), "y")
            path = os.path.join(d, "kvm-amd.config")
            cb.write_dotconfig(cfg, path)
            cmd = [sys.executable, "-m", "kvmbench.attribution.inlined", "--src", src,
                   "--object", "arch/x86/kvm/svm/svm.o", "--in", "svm_vcpu_run"]
            env = dict(os.environ, PYTHONPATH=BENCH)
            for callee, rc, word in (("kvm_load_guest_xsave_state", 1, "CALLS"),
                                     ("to_svm", 0, "INLINED")):
                r = subprocess.run(cmd + ["--call", callee, path], env=env, text=True,
                                   stdout=subprocess.PIPE, stderr=subprocess.PIPE)
                self.assertEqual(r.returncode, rc, r.stdout + r.stderr)
                self.assertRegex(r.stdout, rf"^{word}\b.*svm_vcpu_run", r.stdout)
        for f in (".config", "include/generated", "arch/x86/kvm/svm/svm.o"):
            self.assertFalse(os.path.exists(os.path.join(src, f)), f"{f} written in the tree")


class DebianConfig(unittest.TestCase):
    def test_keep_for(self):
        # i915's KVMGT selects KVM_EXTERNAL_WRITE_TRACKING: it comes back
        # with what it depends on, as Debian has them; what Debian has off
        # stays off.
        index = {"KVMGT": ({"I915", "VFIO"}, {"EXT_TRACK"}), "I915": ({"DRM", "X86"}, set()),
                 "VFIO": (set(), set()), "DRM": ({"OFF"}, set()), "OFF": (set(), set()),
                 "OTHER": (set(), {"NOT_LOST"})}
        base = {"KVMGT": "m", "I915": "m", "VFIO": "m", "DRM": "m", "X86": "y",
                "EXT_TRACK": "y", "OTHER": "m"}
        got = sorted(kvm_config.keep_for(["EXT_TRACK"], index, base))
        self.assertEqual(got, [("DRM", "m"), ("EXT_TRACK", "y"), ("I915", "m"), ("KVMGT", "m"),
                               ("VFIO", "m"), ("X86", "y")])

    def test_lost_builtins(self):
        base = {"A": "y", "B": "m", "DEBUG_INFO_BTF": "y", "GCC_VERSION": "120200", "C": "y"}
        self.assertEqual(kvm_config.lost_builtins(base, {"C": "y"}), ["A"])
        # What KVM's code reads: a module left out counts (HYPERV=m), an
        # option KVM does not read or Debian has off does not.
        base = {"HYPERV": "m", "KVM_HYPERV": "y", "I915": "m", "OFF": "n", "GCC_VERSION": "1"}
        self.assertEqual(kvm_config.lost_for_kvm(base, {"KVM_HYPERV": "y"},
                                                 {"HYPERV", "KVM_HYPERV", "OFF", "GCC_VERSION"}),
                         ["HYPERV"])
        self.assertEqual(kvm_config.lsmod_text(["kvm"]).splitlines()[1], "kvm 0 0")


if __name__ == '__main__':
    if sys.argv[1:] == ['--tap']:
        sys.exit(tap(sys.modules[__name__], 'config_bisect'))
    unittest.main(verbosity=2)
