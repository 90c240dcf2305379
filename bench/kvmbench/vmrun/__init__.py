# SPDX-License-Identifier: GPL-2.0-only
"""kvmbench.vmrun: vm/run and the runs.  vm: vm/run's command line,
checks and set-up (python3 -m kvmbench.vmrun.vm is what vm/run execs);
boot: its boot (the emulators' table of operations, the console filter,
timeouts, the exit status, no emulator left behind); initramfs: what
the guest gets (busybox, the tests, KVM's modules); runner: where runs
happen, this host's /dev/kvm or a VM boot (guest.sh, beside it, is the
guest's shell); cli: the parser, the argparse types of numbers and sizes,
program() (a program's main), output folders and signal handling the
programs share.  It may import kernels and base.
"""
