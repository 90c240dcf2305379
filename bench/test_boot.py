#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-only
"""Unit tests of vm/run's boot (bench/kvmbench/vmrun/boot.py) on fixed inputs:
the emulator command lines for x86_64, arm64, KVM, -icount, NUMA and
Bochs (its bochsrc and GRUB config), the console filter on a recorded
console, the exit-status mapping, and whole boots of a stand-in emulator
(a shell command): the guest's status, the whole-VM timeout, a hung boot
and a reset, none leaving its process behind.
Run: python3 bench/test_boot.py (--tap: kselftest TAP, one result a test)"""
import argparse
import os
import sys
import tempfile
import time
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from kvmbench.base.tap import tap  # noqa: E402
from kvmbench.vmrun import boot  # noqa: E402


def settings(**kw):
    a = dict(arch='x86_64', cpu='', emu='qemu', kernel='/k/vmlinux', smp=2, mem_mib=2048,
             numa=1, timeout=3600, accel='tcg', verbose=False, export='', work='/w')
    a.update(kw)
    return argparse.Namespace(**a)


TAIL = ['-nodefaults', '-no-user-config', '-no-reboot', '-display', 'none', '-monitor', 'none',
        '-serial', 'stdio', '-kernel', '/k/vmlinux', '-initrd', '/w/initrd.cpio']


class Commands(unittest.TestCase):
    def test_x86_64(self):
        self.assertEqual(boot.qemu_command(settings(), {}),
                         ['qemu-system-x86_64', '-M', 'q35', '-accel', 'tcg,thread=single',
                          '-cpu', 'EPYC,+svm', '-smp', '2', '-m', '2048M'] + TAIL +
                         ['-append', 'console=ttyS0 panic=-1 rdinit=/init no_timer_check '
                          'quiet loglevel=1'])

    def test_x86_64_kvm_verbose(self):
        self.assertEqual(boot.qemu_command(settings(accel='kvm', verbose=True, smp=4),
                                           {'VMRUN_ICOUNT': 'shift=3,sleep=off'}),
                         ['qemu-system-x86_64', '-M', 'q35', '-accel', 'kvm', '-cpu', 'host',
                          '-smp', '4', '-m', '2048M'] + TAIL +
                         ['-append', 'console=ttyS0 panic=-1 rdinit=/init no_timer_check'])

    def test_arm64(self):
        self.assertEqual(boot.qemu_command(settings(arch='arm64'), {'VMRUN_TCG_THREAD': 'multi'}),
                         ['qemu-system-aarch64', '-M', 'virt,virtualization=on,gic-version=3',
                          '-accel', 'tcg,thread=multi', '-cpu', 'max,pauth-impdef=on',
                          '-smp', '2', '-m', '2048M'] + TAIL +
                         ['-append', 'console=ttyAMA0 panic=-1 rdinit=/init quiet loglevel=1'])

    def test_icount(self):
        cmd = boot.qemu_command(settings(smp=1), {'VMRUN_ICOUNT': 'shift=3,sleep=off'})
        self.assertEqual(cmd[7:11], ['-icount', 'shift=3,sleep=off', '-smp', '1'])
        self.assertNotIn('-icount', boot.qemu_command(settings(), {'VMRUN_ICOUNT': ''}))

    def test_numa(self):
        self.assertEqual(boot.numa_args(2, 2048, 1), [])
        self.assertEqual(boot.numa_args(5, 1000, 3),
                         ['-object', 'memory-backend-ram,id=mem0,size=333M',
                          '-numa', 'node,nodeid=0,cpus=0,memdev=mem0',
                          '-object', 'memory-backend-ram,id=mem1,size=333M',
                          '-numa', 'node,nodeid=1,cpus=1-2,memdev=mem1',
                          '-object', 'memory-backend-ram,id=mem2,size=334M',
                          '-numa', 'node,nodeid=2,cpus=3-4,memdev=mem2'])
        cmd = boot.qemu_command(settings(numa=2), {})
        self.assertEqual(cmd[-6:-2], ['-object', 'memory-backend-ram,id=mem1,size=1024M',
                                      '-numa', 'node,nodeid=1,cpus=1,memdev=mem1'])

    def test_bochs(self):
        a = settings(emu='bochs', cpu='intel', mem_mib=4096, smp=1)
        self.assertEqual(boot.bochs_command(a, {}),
                         ['bochs-bin', '-q', '-f', '/w/bochsrc', '-rc', '/w/bochs.rc'])
        rc = boot.bochsrc(a, {}).splitlines()
        self.assertEqual(rc[:2], ['memory: guest=4096, host=2048',
                                  'cpu: model=corei7_haswell_4770, count=1, ips=40000000, '
                                  'reset_on_triple_fault=1'])
        self.assertIn('ata0-master: type=cdrom, path="/w/boot.iso", status=inserted', rc)
        self.assertIn('com1: enabled=1, mode=file, dev="/w/console"', rc)
        self.assertIn('log: /w/bochs.log', rc)
        rc = boot.bochsrc(settings(mem_mib=512), {'VMRUN_BOCHS_CPU': 'corei7_skylake_x',
                                                  'VMRUN_BOCHS_IPS': '9'}).splitlines()
        self.assertEqual(rc[:2], ['memory: guest=512, host=512',
                                  'cpu: model=corei7_skylake_x, count=2, ips=9, '
                                  'reset_on_triple_fault=1'])
        cfg = boot.grub_cfg(boot.bochs_append(a)).splitlines()
        self.assertEqual(cfg[4:6], ['echo VMRUN-BOOT', 'linux /boot/vmlinuz console=ttyS0 '
                                    'panic=-1 rdinit=/init no_timer_check quiet loglevel=1'])

    def test_table(self):
        self.assertEqual(set(boot.EMULATORS), {'qemu', 'bochs'})
        q, b = boot.EMULATORS['qemu'], boot.EMULATORS['bochs']
        self.assertEqual((q.boot_timeout, b.boot_timeout), (300, 2400))
        self.assertTrue(q.stderr_shown('qemu: bad option', False))
        self.assertFalse(q.stderr_shown("warning: TCG doesn't support requested feature: x",
                                        False))
        self.assertTrue(q.stderr_shown("warning: TCG doesn't support requested feature", True))
        self.assertFalse(b.stderr_shown('anything', False))
        with tempfile.TemporaryDirectory() as d:
            with open(os.path.join(d, 'bochs.log'), 'w') as f:
                f.write('00001i[CPU] x\n'
                        + ''.join('%05dp[CPU0 ] panic %d\n' % (i, i) for i in range(7))
                        + '00009p[SYS ] soft power off\n')
            self.assertEqual(b.diagnose(settings(work=d)),
                             ['bochs: %05dp[CPU0 ] panic %d' % (i, i) for i in range(2, 7)])


# A console as QEMU shows it for `vm/run -- ./t` (boot chatter, vm/init's
# markers, the test's output, the power-off).
RECORDED = """\
SeaBIOS (version 1.16.2-debian-1.16.2-1)\r
[    0.000000] Linux version 6.1.0-57-amd64\r
VMRUN-START\r
VMRUN-WARN: 1 of 16 hugepages reserved\r
# Testing guest mode: PA-bits:ANY\r
RESULT test=t value=1\r
VMRUN-TIME: tests took 1.5 s\r
VMRUN-EXIT: 4\r
[    2.100000] reboot: Power down\r
"""


class Clock:
    def __init__(self):
        self.t = 100.0

    def __call__(self):
        self.t += 0.5
        return self.t


def filtered(text, verbose=False, timing=False):
    said, shown = [], []
    c = boot.Console(verbose, timing, say=said.append, show=shown.append, clock=Clock())
    going = all(c.feed(line) for line in text.splitlines())
    return going, c, said, shown


class ConsoleFilter(unittest.TestCase):
    def test_recorded(self):
        going, c, said, shown = filtered(RECORDED)
        self.assertTrue(going)
        self.assertEqual(shown, ['# Testing guest mode: PA-bits:ANY', 'RESULT test=t value=1'])
        self.assertEqual(said, ['warning: 1 of 16 hugepages reserved'])
        self.assertEqual(c.outcome(), 'exit 4')

    def test_timing_verbose(self):
        going, c, said, shown = filtered(RECORDED, verbose=True, timing=True)
        self.assertEqual(shown[:2], ['SeaBIOS (version 1.16.2-debian-1.16.2-1)',
                                     '[    0.000000] Linux version 6.1.0-57-amd64'])
        self.assertNotIn('[    2.100000] reboot: Power down', shown)
        self.assertEqual(said, ['guest init started after 0.5 s',
                                'warning: 1 of 16 hugepages reserved',
                                'tests took 1.5 s (wall 1.0 s)', 'guest finished after 1.5 s'])

    def test_died(self):
        going, c, said, shown = filtered('a\r\nb\nKernel panic - not syncing\n')
        self.assertEqual((shown, said), ([], []))
        self.assertEqual(c.outcome(), 'died')
        self.assertEqual(said, ['console: a', 'console: b', 'console: Kernel panic - not syncing'])
        going, c, said, shown = filtered('x\n' * 70)
        c.outcome()
        self.assertEqual(len(said), 60)

    def test_nokvm_reset_hang(self):
        going, c, said, shown = filtered('VMRUN-START\nVMRUN-NOKVM: no /dev/kvm\nVMRUN-EXIT: 5\n')
        self.assertEqual((c.outcome(), said), ('nokvm', ['guest: no /dev/kvm']))
        going, c, said, shown = filtered('VMRUN-BOOT\nboot 1\nVMRUN-BOOT\nnot read\n')
        self.assertFalse(going)
        self.assertEqual(said[0], 'the machine reset (kernel panic or triple fault; try --verbose)')
        c = boot.Console(False, False, say=said.append, show=shown.append, clock=Clock())
        self.assertEqual(c.boot_left(300), 299.5)
        c.feed('early')
        c.hang('half a li')
        self.assertEqual((c.outcome(), said[-2:]), ('boothang',
                                                    ['console: early', 'console: half a li']))
        c.feed('VMRUN-START')
        self.assertIsNone(c.boot_left(300))
        # The last VMRUN-EXIT on a line counts, its leading digits only.
        going, c, said, shown = filtered('VMRUN-EXIT: 9 VMRUN-EXIT: 12x\n')
        self.assertEqual(c.outcome(), 'exit 12')


class Verdict(unittest.TestCase):
    def test_statuses(self):
        a = settings(timeout=5)
        self.assertEqual(boot.verdict('exit 0', False, 0, a, 300), (0, []))
        self.assertEqual(boot.verdict('exit 4', False, 0, a, 300), (4, []))
        self.assertEqual(boot.verdict('exit 1', True, 124, a, 300),
                         (124, ['whole-VM timeout: killed after 5 s (--timeout)']))
        self.assertEqual(boot.verdict('boothang', True, 143, a, 300),
                         (3, ['guest init did not start within 300 s (hung boot; try --verbose)']))
        self.assertEqual(boot.verdict('nokvm', False, 0, a, 300),
                         (5, ['/dev/kvm missing in the guest']))
        self.assertEqual(boot.verdict('died', False, 1, a, 300, ['bochs: p']),
                         (3, ['bochs: p', 'VM died without reporting a status (kernel panic or '
                              'qemu error; qemu exit 1; try --verbose)']))
        self.assertEqual(boot.status_of(-15), 143)


class FakeBoot(unittest.TestCase):
    """Whole boots of a stand-in emulator: a shell command writing the
    console on its stdout."""

    def boot(self, script, **kw):
        emu = boot.Emulator(kw.pop('boot_timeout', 300), boot.no_files,
                            lambda a, env: ['sh', '-c', script], True,
                            boot.qemu_stderr_shown, boot.qemu_diagnose)
        real = boot.EMULATORS['qemu']
        boot.EMULATORS['qemu'] = emu
        said = []
        real_info, boot.info = boot.info, said.append
        try:
            with tempfile.TemporaryDirectory() as d:
                t0 = time.monotonic()
                rc = boot.run(settings(work=d, **kw), time.time(), env={})
                took = time.monotonic() - t0
        finally:
            boot.EMULATORS['qemu'] = real
            boot.info = real_info
        return rc, said, took

    def test_status(self):
        rc, said, _ = self.boot('echo VMRUN-START; echo VMRUN-EXIT: 4; echo bye')
        self.assertEqual((rc, said), (4, []))
        rc, said, _ = self.boot('echo chatter; exit 7')
        self.assertEqual(rc, 3)
        self.assertEqual(said[-1], 'VM died without reporting a status (kernel panic or qemu '
                         'error; qemu exit 7; try --verbose)')

    def test_timeout(self):
        rc, said, took = self.boot('echo VMRUN-START; exec sleep 30', timeout=1)
        self.assertEqual(rc, 124)
        self.assertEqual(said, ['whole-VM timeout: killed after 1 s (--timeout)'])
        self.assertLess(took, 10)

    def test_hang_and_reset(self):
        rc, said, took = self.boot('echo booting; exec sleep 30', boot_timeout=1)
        self.assertEqual(rc, 3)
        self.assertEqual(said, ['console: booting', 'guest init did not start within 1 s '
                                '(hung boot; try --verbose)'])
        self.assertLess(took, 10)
        rc, said, took = self.boot('echo VMRUN-BOOT; echo VMRUN-BOOT; exec sleep 30')
        self.assertEqual(rc, 3)
        self.assertEqual(said[0], 'the machine reset (kernel panic or triple fault; try --verbose)')
        self.assertLess(took, 10)


if __name__ == '__main__':
    if sys.argv[1:] == ['--tap']:
        sys.exit(tap(sys.modules[__name__], 'boot'))
    unittest.main()
