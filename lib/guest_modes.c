// SPDX-License-Identifier: GPL-2.0-only
/*
 * The table of guest modes: page size and address widths by mode.
 */
#include "kvm_util.h"

#define MODE(pa, va, sz, shift) {					\
	.name = "PA-bits:" #pa ",  VA-bits:" #va ", " #sz " pages",	\
	.pa_bits = pa, .va_bits = va, .page_size = 1U << (shift),	\
	.page_shift = shift,						\
}

static const struct vm_guest_mode_params guest_modes[NUM_VM_MODES] = {
	[VM_MODE_P52V48_4K] = MODE(52, 48, 4K, 12),
	[VM_MODE_P52V48_64K] = MODE(52, 48, 64K, 16),
	[VM_MODE_P48V48_4K] = MODE(48, 48, 4K, 12),
	[VM_MODE_P48V48_16K] = MODE(48, 48, 16K, 14),
	[VM_MODE_P48V48_64K] = MODE(48, 48, 64K, 16),
	[VM_MODE_P40V48_4K] = MODE(40, 48, 4K, 12),
	[VM_MODE_P40V48_16K] = MODE(40, 48, 16K, 14),
	[VM_MODE_P40V48_64K] = MODE(40, 48, 64K, 16),
	[VM_MODE_PXXV48_4K] = {
		.name = "PA-bits:ANY, VA-bits:48, 4K pages",
		.pa_bits = 0, .va_bits = 48, .page_size = 4096, .page_shift = 12,
	},
	[VM_MODE_P47V64_4K] = MODE(47, 64, 4K, 12),
	[VM_MODE_P44V64_4K] = MODE(44, 64, 4K, 12),
	[VM_MODE_P36V48_4K] = MODE(36, 48, 4K, 12),
	[VM_MODE_P36V48_16K] = MODE(36, 48, 16K, 14),
	[VM_MODE_P36V48_64K] = MODE(36, 48, 64K, 16),
	[VM_MODE_P36V47_16K] = MODE(36, 47, 16K, 14),
};

const struct vm_guest_mode_params *vm_guest_mode(enum vm_guest_mode mode)
{
	TEST_ASSERT(mode < NUM_VM_MODES, "Guest mode %u out of range", mode);
	return &guest_modes[mode];
}

const char *vm_guest_mode_string(enum vm_guest_mode mode)
{
	return mode < NUM_VM_MODES ? guest_modes[mode].name : "(unknown mode)";
}
