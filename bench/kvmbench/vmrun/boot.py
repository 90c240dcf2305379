# SPDX-License-Identifier: GPL-2.0-only
"""kvmbench.vmrun.boot: the boot half of vm/run (kvmbench.vmrun.vm settles the options,
the kernel and the initramfs in a work directory, then calls run()).

It runs the emulator, reads its serial console through one filter that
turns the guest's marker lines (vm/init) into vm/run's messages and exit
status, stops the emulator on the whole-VM timeout, a hung boot, a reset
or a signal, and leaves no emulator behind.  The emulator is one entry of
EMULATORS, a small table of operations (QEMU: TCG or KVM; Bochs: Intel
VMX); nothing else here knows which one runs.
"""
import collections
import contextlib
import errno
import os
import re
import select
import shutil
import signal
import subprocess
import sys
import time

from kvmbench.base.errors import say
from . import cli

PROG = 'vm/run'


class Exit(Exception):
    """End vm/run: @status, after @msg (and the usage if @usage)."""

    def __init__(self, status, msg='', usage=False):
        super().__init__(msg)
        self.status, self.msg, self.usage = status, msg, usage


def info(msg):
    say(PROG, msg)


def elapsed(t0, now=None):
    """Seconds since @t0, with one decimal."""
    return '%.1f' % ((time.time() if now is None else now) - t0)


# ---- QEMU ----------------------------------------------------------------

def tcg_accel(env):
    """One TCG thread (VMRUN_TCG_THREAD=multi for more): with
    multi-threaded TCG, nested SVM guests froze after dozens of test runs
    in a boot (soft lockup on every vCPU at once), single-threaded ran 540
    runs clean and no slower on 2 host cores; arm64 guests running KVM
    guests froze whole too (the demand-paging cases, twice, on 6.12), so
    both arches take one."""
    return 'tcg,thread=%s' % (env.get('VMRUN_TCG_THREAD') or 'single')


def icount_args(a, env):
    """VMRUN_ICOUNT=OPTS (e.g. shift=3,sleep=off): TCG's clock counts
    instructions (-icount), steady run to run (docs/results/clocks.md);
    x86_64 boots with it only with one vCPU (--smp 1: AP bring-up hangs);
    arm64 boots with more (20 s to init at --smp 2, once)."""
    opts = env.get('VMRUN_ICOUNT')
    return ['-icount', opts] if opts and a.accel != 'kvm' else []


def qemu_append(a):
    """The kernel command line under QEMU."""
    append = 'console=%s panic=-1 rdinit=/init' % ('ttyS0' if a.arch == 'x86_64' else 'ttyAMA0')
    # Under slow TCG on a loaded host, x86's boot-time check of the timer
    # interrupt can fail and panic ("IO-APIC + timer doesn't work!").
    if a.arch == 'x86_64':
        append += ' no_timer_check'
    if not a.verbose:
        append += ' quiet loglevel=1'
    return append


def numa_args(smp, mem_mib, numa):
    """-object/-numa pairs splitting @smp CPUs and @mem_mib over @numa nodes."""
    out = []
    if numa <= 1:
        return out
    per = mem_mib // numa
    for i in range(numa):
        first, last = i * smp // numa, (i + 1) * smp // numa - 1
        cpus = '%d-%d' % (first, last) if last > first else str(first)
        if i == numa - 1:
            per = mem_mib - per * (numa - 1)
        out += ['-object', 'memory-backend-ram,id=mem%d,size=%dM' % (i, per),
                '-numa', 'node,nodeid=%d,cpus=%s,memdev=mem%d' % (i, cpus, i)]
    return out


def qemu_command(a, env):
    """QEMU's command line; the serial console is its stdout."""
    if a.arch == 'x86_64':
        cmd = ['qemu-system-x86_64', '-M', 'q35']
        cpu = 'EPYC,+svm'
    else:
        cmd = ['qemu-system-aarch64', '-M', 'virt,virtualization=on,gic-version=3']
        cpu = 'max,pauth-impdef=on'
    if a.accel == 'kvm':
        cmd += ['-accel', 'kvm', '-cpu', 'host']
    else:
        cmd += ['-accel', tcg_accel(env), '-cpu', cpu]
    cmd += icount_args(a, env)
    cmd += ['-smp', str(a.smp), '-m', '%dM' % a.mem_mib, '-nodefaults', '-no-user-config',
            '-no-reboot', '-display', 'none', '-monitor', 'none', '-serial', 'stdio',
            '-kernel', a.kernel, '-initrd', os.path.join(a.work, 'initrd.cpio')]
    return cmd + numa_args(a.smp, a.mem_mib, a.numa) + ['-append', qemu_append(a)]


def qemu_stderr_shown(line, verbose):
    """QEMU's stderr, minus TCG's per-CPU "unsupported feature" warnings."""
    return verbose or "TCG doesn't support requested feature" not in line


def qemu_diagnose(a):
    return []


# ---- Bochs ---------------------------------------------------------------
#
# An emulated Intel CPU with VMX, EPT and VPID, so that the guest's
# kvm_intel runs.  Bochs cannot load a Linux kernel itself: the kernel and
# the initramfs go onto a GRUB rescue ISO that the Bochs BIOS boots from an
# emulated CD-ROM.  The serial port writes into the console FIFO.

def bochs_append(a):
    append = 'console=ttyS0 panic=-1 rdinit=/init no_timer_check'
    return append if a.verbose else append + ' quiet loglevel=1'


def grub_cfg(append):
    """GRUB's config; VMRUN-BOOT tells the console filter that the machine
    (re)booted."""
    return ('serial --unit=0 --speed=115200\nterminal_input serial\nterminal_output serial\n'
            'set timeout=0\necho VMRUN-BOOT\nlinux /boot/vmlinuz %s\ninitrd /boot/initrd\n'
            'boot\n' % append)


def bochsrc(a, env):
    """Bochs' config.  Its CPU model (VMRUN_BOCHS_CPU; also
    corei7_skylake_x, corei7_icelake_u) has VMX, EPT and VPID.  ips
    (VMRUN_BOCHS_IPS): instructions per emulated second; with clock
    sync=none the guest's time is the instruction count divided by it, a
    steady emulated time; the value is about what a 2-core host emulates
    per wall second (docs/intel.md).  Bochs holds at most 2G of guest
    memory in host memory (host=), beyond that it swaps blocks to a file.
    The sound drivers are dummies: with ALSA and no sound card, Debian's
    Bochs 2.7 aborts at start."""
    w = a.work
    return ('memory: guest=%d, host=%d\n' % (a.mem_mib, min(a.mem_mib, 2048)) +
            'cpu: model=%s, count=%d, ips=%s, reset_on_triple_fault=1\n'
            % (env.get('VMRUN_BOCHS_CPU') or 'corei7_haswell_4770', a.smp,
               env.get('VMRUN_BOCHS_IPS') or '40000000') +
            'romimage: file=/usr/share/bochs/BIOS-bochs-latest\n'
            'vgaromimage: file=/usr/share/vgabios/vgabios.bin\n'
            'ata0-master: type=cdrom, path="%s/boot.iso", status=inserted\n' % w +
            'boot: cdrom\n'
            'com1: enabled=1, mode=file, dev="%s/console"\n' % w +
            'clock: sync=none, time0=local\n'
            'display_library: rfb, options="timeout=0"\n'
            'sound: waveoutdrv=dummy, waveindrv=dummy, midioutdrv=dummy\n'
            'log: %s/bochs.log\n' % w +
            'panic: action=fatal\nerror: action=report\ninfo: action=ignore\n'
            'debug: action=ignore\n')


def zstd_kernel(kernel):
    """Whether @kernel's config next to it says it unpacks zstd."""
    d = os.path.dirname(kernel) or '.'
    for name in sorted(os.listdir(d)):
        if name.startswith('config-'):
            try:
                with open(os.path.join(d, name), errors='replace') as f:
                    if any(line.rstrip('\n') == 'CONFIG_RD_ZSTD=y' for line in f):
                        return True
            except OSError:
                pass
    return False


def bochs_iso(a):
    """Write WORK/boot.iso: GRUB, the kernel and the initramfs (compressed:
    GRUB reads it through the BIOS, slowly; zstd if the kernel can unpack
    it, else gzip)."""
    iso = os.path.join(a.work, 'iso')
    os.makedirs(os.path.join(iso, 'boot', 'grub'))
    vmlinuz = os.path.join(iso, 'boot', 'vmlinuz')
    try:
        os.link(a.kernel, vmlinuz)
    except OSError:
        shutil.copyfile(a.kernel, vmlinuz)
    cpio, initrd = os.path.join(a.work, 'initrd.cpio'), os.path.join(iso, 'boot', 'initrd')
    if zstd_kernel(a.kernel) and shutil.which('zstd'):
        subprocess.run(['zstd', '-q', '-3', '-T0', '--rm', cpio, '-o', initrd], check=True)
    else:
        with open(cpio, 'rb') as src, open(initrd, 'wb') as dst:
            subprocess.run(['gzip', '-1'], stdin=src, stdout=dst, check=True)
        os.unlink(cpio)
    with open(os.path.join(iso, 'boot', 'grub', 'grub.cfg'), 'w') as f:
        f.write(grub_cfg(bochs_append(a)))
    p = subprocess.run(['grub-mkrescue', '-o', os.path.join(a.work, 'boot.iso'),
                        '--compress=no', '--fonts=', '--locales=', '--themes=',
                        '--install-modules=linux normal iso9660 biosdisk serial terminal echo',
                        iso], stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                       errors='replace')
    if p.returncode:
        sys.stderr.write(p.stdout)
        raise Exit(6, 'grub-mkrescue failed')
    shutil.rmtree(iso)


def bochs_command(a, env):
    """Bochs' command line.  Debian's Bochs has its debugger built in: it
    starts at a prompt, so -rc tells it to continue, and to quit when the
    simulation stops; -q skips the start menu."""
    return ['bochs-bin', '-q', '-f', os.path.join(a.work, 'bochsrc'),
            '-rc', os.path.join(a.work, 'bochs.rc')]


def bochs_prepare(a, env):
    """The ISO, bochsrc and the debugger's commands in WORK."""
    bochs_iso(a)
    with open(os.path.join(a.work, 'bochsrc'), 'w') as f:
        f.write(bochsrc(a, env))
    with open(os.path.join(a.work, 'bochs.rc'), 'w') as f:
        f.write('c\nq\n')


def bochs_stderr_shown(line, verbose):
    """Bochs' own messages are in its log: its stderr only with --verbose."""
    return verbose


def bochs_diagnose(a):
    """Bochs' last panics (but its power-off, which it reports as one)."""
    try:
        with open(os.path.join(a.work, 'bochs.log'), errors='replace') as f:
            lines = [ln.rstrip('\n') for ln in f
                     if re.match(r'[0-9]+p\[', ln) and 'soft power off' not in ln]
    except OSError:
        return []
    return ['bochs: ' + ln for ln in lines[-5:]]


def no_files(a, env):
    pass


# The operations per emulator:
#   boot_timeout    wall seconds to reach guest init (VMRUN_BOOT_TIMEOUT
#                   overrides); Bochs needs ~3 minutes of one host core,
#                   far more wall time on a loaded host
#   prepare         write what the command needs into WORK
#   command         the command line
#   console_stdout  the serial console is the emulator's stdout (else it
#                   writes the console FIFO itself)
#   stderr_shown    whether a line of its stderr is shown
#   diagnose        more lines to show when the VM died
Emulator = collections.namedtuple(
    'Emulator', 'boot_timeout prepare command console_stdout stderr_shown diagnose')

EMULATORS = {
    'qemu': Emulator(300, no_files, qemu_command, True, qemu_stderr_shown, qemu_diagnose),
    'bochs': Emulator(2400, bochs_prepare, bochs_command, False, bochs_stderr_shown,
                      bochs_diagnose),
}


# ---- the console ---------------------------------------------------------

def write_line(line):
    sys.stdout.buffer.write(line.encode('utf-8', 'surrogateescape') + b'\n')
    sys.stdout.flush()


class Console:
    """The console filter: feed() each line of the guest's console; it
    shows the guest's output, hides boot chatter (kept, the last 60 lines,
    for a boot that fails), turns marker lines into messages and settles
    the outcome: 'exit N', 'nokvm', 'boothang' or 'died'."""

    def __init__(self, verbose, timing, say=None, show=write_line, clock=time.time):
        self.verbose, self.timing, self.show, self.clock = verbose, timing, show, clock
        self.say = say or (lambda msg: info(msg))
        self.t0 = clock()
        self.started, self.status, self.nokvm, self.boots = False, None, False, 0
        self.ring = collections.deque(maxlen=60)
        self.hung = False

    def feed(self, line):
        """Take one console line; False: stop the emulator and read no more
        (the machine reset: a second VMRUN-BOOT, printed by the boot loader
        of an emulator that cannot refuse to reboot, as Bochs after a
        kernel panic)."""
        line = line.replace('\r', '')
        if self.status is not None:
            return True                 # poweroff chatter
        if 'VMRUN-BOOT' in line:
            self.boots += 1
            if self.boots == 1:
                return True
            self.say('the machine reset (kernel panic or triple fault; try --verbose)')
            return False
        if 'VMRUN-START' in line:
            self.started = True
            if self.timing:
                self.say('guest init started after %s s' % elapsed(self.t0, self.clock()))
        elif 'VMRUN-EXIT: ' in line:
            m = re.match(r'[0-9]*', line.rsplit('VMRUN-EXIT: ', 1)[1])
            self.status = m.group(0) or None
            if self.timing:
                self.say('guest finished after %s s' % elapsed(self.t0, self.clock()))
        elif 'VMRUN-TIME: ' in line:
            if self.timing:
                self.say('%s (wall %s s)' % (line.split('VMRUN-TIME: ', 1)[1],
                                             elapsed(self.t0, self.clock())))
        elif 'VMRUN-WARN: ' in line:
            self.say('warning: ' + line.split('VMRUN-WARN: ', 1)[1])
        elif 'VMRUN-NOKVM: ' in line:
            self.nokvm = True
            self.say('guest: ' + line.split('VMRUN-NOKVM: ', 1)[1])
        elif self.started or self.verbose:
            self.show(line)
        else:
            self.ring.append(line)
        return True

    def boot_left(self, boot_timeout):
        """Seconds left for the guest to reach init; None once it has."""
        return None if self.started else boot_timeout - (self.clock() - self.t0)

    def dump(self):
        for line in self.ring:
            self.say('console: ' + line)

    def hang(self, partial=''):
        """The guest did not reach init in time: show what the console
        said (and @partial, an unfinished line)."""
        self.hung = True
        if partial:
            self.ring.append(partial.replace('\r', ''))
        self.dump()

    def outcome(self):
        """The outcome once the console is read to its end."""
        if self.hung:
            return 'boothang'
        if self.nokvm:
            return 'nokvm'
        if self.status is not None:
            return 'exit ' + self.status
        if not self.started:
            self.dump()
        return 'died'


def verdict(outcome, timed_out, rc, a, boot_timeout, diagnose=()):
    """vm/run's exit status and its messages, from the console's
    @outcome, whether the whole-VM timeout struck and the emulator's exit
    status @rc."""
    if outcome == 'boothang':
        return 3, ['guest init did not start within %d s (hung boot; try --verbose)'
                   % boot_timeout]
    if timed_out:
        return 124, ['whole-VM timeout: killed after %d s (--timeout)' % a.timeout]
    if outcome.startswith('exit '):
        return int(outcome[5:]), []
    if outcome == 'nokvm':
        return 5, ['/dev/kvm missing in the guest']
    return 3, list(diagnose) + [
        'VM died without reporting a status (kernel panic or %s error; %s exit %d; try --verbose)'
        % (a.emu, a.emu, rc)]


# ---- the boot ------------------------------------------------------------

def export(a, out):
    """--export: the kernel, the initramfs (gzip) and the kernel command
    line for a LAVA job (which waits for the "Linux version" banner: the
    verbose command line)."""
    try:
        cli.make_out(out, 'vm/run --export')
    except OSError:
        raise Exit(2, "cannot create '%s'" % out) from None
    shutil.copyfile(a.kernel, os.path.join(out, 'kernel'))
    with open(os.path.join(a.work, 'initrd.cpio'), 'rb') as src, \
            open(os.path.join(out, 'initrd.cpio.gz'), 'wb') as dst:
        subprocess.run(['gzip', '-1', '-c'], stdin=src, stdout=dst, check=True)
    verbose, a.verbose = a.verbose, True
    try:
        with open(os.path.join(out, 'cmdline'), 'w') as f:
            f.write(qemu_append(a) + '\n')
    finally:
        a.verbose = verbose
    return 0


def read_ready(fd):
    """(what can be read from non-blocking @fd now, whether it ended)."""
    data = b''
    while True:
        try:
            chunk = os.read(fd, 65536)
        except OSError as e:
            if e.errno in (errno.EAGAIN, errno.EWOULDBLOCK):
                return data, False
            raise
        if not chunk:
            return data, True
        data += chunk


def lines_of(buf, data):
    """(complete lines, the rest) of @buf + @data."""
    *lines, rest = (buf + data).split(b'\n')
    return [ln.decode('utf-8', 'surrogateescape') for ln in lines], rest


def stop(proc, sig=signal.SIGTERM):
    if proc.poll() is None:
        try:
            proc.send_signal(sig)
        except ProcessLookupError:
            pass


def status_of(returncode):
    """A Popen return code as the shell says it (a signal: 128 + it)."""
    return 128 - returncode if returncode < 0 else returncode


@contextlib.contextmanager
def signals_held():
    """No INT, TERM or HUP interrupts a clean-up: they are delivered after it."""
    old = signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT, signal.SIGTERM, signal.SIGHUP})
    try:
        yield
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, old)


def run(a, t_start, env=None):
    """Boot @a (kvmbench.vmrun.vm's settings; its initramfs ready in a.work) and
    return vm/run's exit status.  The work directory is the caller's to
    remove; the emulator never outlives this call."""
    env = os.environ if env is None else env
    if a.export:
        return export(a, a.export)
    emu = EMULATORS[a.emu]
    timing = int(env.get('VMRUN_TIMING') or a.verbose or 0)
    boot_timeout = int(env.get('VMRUN_BOOT_TIMEOUT') or emu.boot_timeout)
    if timing:
        info('initramfs ready after %s s' % elapsed(t_start))
    fifo = os.path.join(a.work, 'console')
    os.mkfifo(fifo)
    try:
        emu.prepare(a, env)
    except (OSError, subprocess.CalledProcessError) as e:
        raise Exit(6, 'cannot prepare the %s boot: %s' % (a.emu, e)) from None
    cmd = emu.command(a, env)
    if a.verbose:
        info('cpu=%s accel=%s kernel=%s' % (a.cpu or 'default', a.accel, a.kernel))
        info(' '.join(cmd))
    if timing:
        info('%s ready after %s s' % (a.emu, elapsed(t_start)))
    # Read-write: the open never blocks, and the emulator's writes never
    # meet a closed FIFO; the end of the console is the emulator's exit.
    rfd = os.open(fifo, os.O_RDWR | os.O_NONBLOCK)
    proc = None
    try:
        with open(fifo, 'wb') if emu.console_stdout else open(os.devnull, 'wb') as out:
            try:
                proc = subprocess.Popen(cmd, stdin=subprocess.DEVNULL, stdout=out,
                                        stderr=subprocess.PIPE)
            except OSError as e:
                info('cannot run %s: %s' % (cmd[0], e.strerror))
                return verdict('died', False, 127, a, boot_timeout)[0]
        return watch(a, emu, proc, rfd, timing, boot_timeout)
    finally:
        with signals_held():
            if proc is not None and proc.poll() is None:
                stop(proc)
                try:
                    proc.wait(10)
                except subprocess.TimeoutExpired:
                    proc.kill()
                    proc.wait()
            if proc is not None:
                proc.stderr.close()
            os.close(rfd)


def watch(a, emu, proc, rfd, timing, boot_timeout):
    """Read @proc's console (@rfd) and stderr until it exits; stop it on
    the whole-VM timeout (KILL 10 s later), a hung boot or a reset."""
    console = Console(a.verbose, timing)
    efd = proc.stderr.fileno()
    os.set_blocking(efd, False)
    deadline = time.monotonic() + a.timeout
    kill_at, timed_out, reading = None, False, True
    buf, ebuf = b'', b''
    fds = [rfd, efd]
    while True:
        done = proc.poll() is not None
        if not done:
            select.select(fds, [], [], 0.2)
        lines, buf = lines_of(buf, read_ready(rfd)[0])
        if done and buf:
            lines, buf = lines + [buf.decode('utf-8', 'surrogateescape')], b''
        for line in lines:
            if reading and not console.feed(line):
                reading = False
                stop(proc)
        if efd in fds:
            data, ended = read_ready(efd)
            if ended:
                fds.remove(efd)
            elines, ebuf = lines_of(ebuf, data)
            if done and ebuf:
                elines, ebuf = elines + [ebuf.decode('utf-8', 'surrogateescape')], b''
            for line in elines:
                if emu.stderr_shown(line, a.verbose):
                    sys.stderr.buffer.write(line.encode('utf-8', 'surrogateescape') + b'\n')
                    sys.stderr.flush()
        if done:
            break
        now = time.monotonic()
        left = console.boot_left(boot_timeout)
        if reading and left is not None and left <= 0:
            console.hang(buf.decode('utf-8', 'surrogateescape'))
            reading = False
            stop(proc)
        if not timed_out and now >= deadline:
            timed_out, kill_at = True, now + 10
            stop(proc)
        if kill_at is not None and now >= kill_at:
            stop(proc, signal.SIGKILL)
    outcome = console.outcome()
    rc = status_of(proc.returncode)
    diag = emu.diagnose(a) if outcome == 'died' and not timed_out else []
    status, msgs = verdict(outcome, timed_out, rc, a, boot_timeout, diag)
    for m in msgs:
        info(m)
    return status
