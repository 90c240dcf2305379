// SPDX-License-Identifier: GPL-2.0-only
/*
 * The table of guest modes, which of them a test runs (-m N) and a runner
 * over them.
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

bool guest_modes_enabled[NUM_VM_MODES];

const struct vm_guest_mode_params *vm_guest_mode(enum vm_guest_mode mode)
{
	TEST_ASSERT(mode < NUM_VM_MODES, "Guest mode %u out of range", mode);
	return &guest_modes[mode];
}

const char *vm_guest_mode_string(enum vm_guest_mode mode)
{
	return mode < NUM_VM_MODES ? guest_modes[mode].name : "(unknown mode)";
}

void guest_modes_append_default(void)
{
	int i;

	for (i = 0; i < NUM_VM_MODES; i++)
		guest_modes_enabled[i] = guest_mode_arch_supported(i);
}

void guest_modes_help(FILE *out)
{
	int i;

	fprintf(out, " -m: specify the guest mode ID to test, or first: the first listed\n"
		"     (default: all supported):\n");
	for (i = 0; i < NUM_VM_MODES; i++)
		if (guest_mode_arch_supported(i))
			fprintf(out, "     %2d: %s\n", i, guest_modes[i].name);
}

int try_parse_guest_mode(const char *arg)
{
	long mode;

	if (try_parse_long(arg, 0, NUM_VM_MODES - 1, &mode))
		return -EINVAL;
	return guest_mode_arch_supported(mode) ? (int)mode : -EOPNOTSUPP;
}

void guest_modes_cmdline(const char *arg)
{
	int mode, i;

	for (mode = 0; !strcmp(arg, "first") && mode < NUM_VM_MODES - 1; mode++)
		if (guest_mode_arch_supported(mode))
			break;
	if (strcmp(arg, "first"))
		mode = parse_long("guest mode (-m)", arg, 0, NUM_VM_MODES - 1);
	if (!guest_mode_arch_supported(mode)) {
		guest_modes_help(stderr);
		test_usage_error("Guest mode %d (%s) is not supported by this host",
				 mode, guest_modes[mode].name);
	}
	for (i = 0; i < NUM_VM_MODES; i++)
		guest_modes_enabled[i] = i == mode;
}

void for_each_guest_mode(guest_mode_fn fn, void *arg)
{
	int i;

	for (i = 0; i < NUM_VM_MODES; i++) {
		if (!guest_modes_enabled[i])
			continue;
		ksft_print_msg("Testing guest mode: %s\n", guest_modes[i].name);
		fn(i, arg);
	}
}
