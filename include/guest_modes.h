/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Guest modes: the physical address width, virtual address width and page
 * size a VM's page tables use.  One table, in lib/guest_modes.c; which modes
 * this host can run is the arch's answer (guest_mode_arch_supported()),
 * which lib/guest_mode_runner.c asks to choose the modes a test runs.
 */
#ifndef SELFTEST_KVM_GUEST_MODES_H
#define SELFTEST_KVM_GUEST_MODES_H

#include <stdbool.h>
#include <stdio.h>

enum vm_guest_mode {
	VM_MODE_P52V48_4K,
	VM_MODE_P52V48_64K,
	VM_MODE_P48V48_4K,
	VM_MODE_P48V48_16K,
	VM_MODE_P48V48_64K,
	VM_MODE_P40V48_4K,
	VM_MODE_P40V48_16K,
	VM_MODE_P40V48_64K,
	VM_MODE_PXXV48_4K,	/* x86_64: PA bits from CPUID 0x80000008 */
	VM_MODE_P47V64_4K,
	VM_MODE_P44V64_4K,
	VM_MODE_P36V48_4K,
	VM_MODE_P36V48_16K,
	VM_MODE_P36V48_64K,
	VM_MODE_P36V47_16K,
	NUM_VM_MODES,
};

struct vm_guest_mode_params {
	const char *name;
	unsigned int pa_bits;	/* 0: decided by the host at VM creation */
	unsigned int va_bits;
	unsigned int page_size;
	unsigned int page_shift;
};

const struct vm_guest_mode_params *vm_guest_mode(enum vm_guest_mode mode);
const char *vm_guest_mode_string(enum vm_guest_mode mode);

/* Which modes a test will run: every mode the host supports, or -m N. */
extern bool guest_modes_enabled[NUM_VM_MODES];

/* Enable every mode the host supports (call once, before parsing -m). */
void guest_modes_append_default(void);
/* Handle "-m N": run only mode N; a usage error if unknown/unsupported. */
void guest_modes_cmdline(const char *arg);
/*
 * Its core, which never exits: the mode, or -EINVAL (not a mode number)
 * or -EOPNOTSUPP (a mode this host does not support).
 */
int try_parse_guest_mode(const char *arg);
void guest_modes_help(FILE *out);
/* Call @fn for each enabled mode, announcing it. */
typedef void (*guest_mode_fn)(enum vm_guest_mode mode, void *arg);
void for_each_guest_mode(guest_mode_fn fn, void *arg);

#endif /* SELFTEST_KVM_GUEST_MODES_H */
