// SPDX-License-Identifier: GPL-2.0-only
/*
 * aarch64 guest exceptions: the per-VM handler table (per vector, and per
 * exception class for the synchronous vectors), the guest side that routes
 * an exception to a test's handler or reports it to the host with ESR, FAR
 * and ELR, and the host side of that report.
 */
#include "elf_util.h"
#include "processor.h"

struct handlers {
	handler_fn fn[VECTOR_NUM][ESR_EC_NUM];
};

/* Guest: GVA of the per-VM handler table, written by vm_arch_setup(). */
static struct handlers *exception_handlers;

__guest_code void route_exception(struct ex_regs *regs, uint64_t vector)
{
	uint64_t esr = read_sysreg(esr_el1);
	unsigned int ec = VECTOR_IS_SYNC(vector) ? ESR_EC(esr) : 0;
	handler_fn h = NULL;

	if (vector < VECTOR_NUM && exception_handlers)
		h = exception_handlers->fn[vector][ec];
	if (h) {
		h(regs);
		return;
	}
	ucall(UCALL_UNHANDLED, 4, vector, esr, read_sysreg(far_el1), regs->pc);
}

__guest_code void guest_code_returned(void)
{
	GUEST_FAIL("guest code returned (without GUEST_DONE?)");
}

void vm_arch_setup(struct kvm_vm *vm)
{
	vm->arch.handlers = vm_vaddr_alloc(vm, sizeof(struct handlers), KVM_UTIL_MIN_VADDR);
	guest_memcpy_to(vm, vm->arch.handlers, NULL, sizeof(struct handlers));
	write_guest_global(vm, exception_handlers, (struct handlers *)vm->arch.handlers);
}

void vm_arch_free(struct kvm_vm *vm)
{
	if (vm->arch.vgic_fd > 0)
		close(vm->arch.vgic_fd);
}

static void handler_set(struct kvm_vm *vm, int vector, int ec, handler_fn handler)
{
	uint64_t gva = vm->arch.handlers + offsetof(struct handlers, fn[vector][ec]);

	guest_memcpy_to(vm, gva, &handler, sizeof(handler));
}

void vm_install_sync_handler(struct kvm_vm *vm, int vector, int ec, handler_fn handler)
{
	TEST_ASSERT(vector >= 0 && vector < VECTOR_NUM && VECTOR_IS_SYNC(vector),
		    "Vector %d is not a synchronous one", vector);
	TEST_ASSERT(ec >= 0 && ec < ESR_EC_NUM, "Exception class %d out of range", ec);
	handler_set(vm, vector, ec, handler);
}

void vm_install_exception_handler(struct kvm_vm *vm, int vector, handler_fn handler)
{
	TEST_ASSERT(vector >= 0 && vector < VECTOR_NUM && !VECTOR_IS_SYNC(vector),
		    "Vector %d out of range or synchronous (use vm_install_sync_handler)",
		    vector);
	handler_set(vm, vector, 0, handler);
}

const char *exception_vector_name(unsigned int vector)
{
	static const char * const kinds[] = { "sync", "IRQ", "FIQ", "SError" };
	static const char * const from[] = {
		"current EL, SP0", "current EL, SPx", "lower EL, AArch64",
		"lower EL, AArch32",
	};
	static char buf[VECTOR_NUM][48];

	if (vector >= VECTOR_NUM)
		return "?";
	snprintf(buf[vector], sizeof(buf[vector]), "%s from %s", kinds[vector % 4],
		 from[vector / 4]);
	return buf[vector];
}

const char *esr_ec_name(unsigned int ec)
{
	static const struct {
		unsigned int ec;
		const char *name;
	} names[] = {
		{ ESR_EC_UNKNOWN, "unknown/undefined instruction" },
		{ ESR_EC_SVC64, "SVC" }, { ESR_EC_HVC64, "HVC" },
		{ ESR_EC_SYS64, "MSR/MRS trap" },
		{ ESR_EC_IABT_CUR, "instruction abort" },
		{ ESR_EC_PC_ALIGN, "PC alignment" },
		{ ESR_EC_DABT_CUR, "data abort" },
		{ ESR_EC_SP_ALIGN, "SP alignment" },
		{ ESR_EC_SERROR, "SError" }, { ESR_EC_BRK64, "BRK" },
	};
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(names); i++)
		if (names[i].ec == ec)
			return names[i].name;
	return "?";
}

void ucall_arch_report_unhandled(struct ucall *uc)
{
	struct elf_image img = { 0 };
	unsigned int vector = uc->args[0];
	uint64_t esr = uc->args[1], off = 0;
	const char *fn = NULL;

	if (!elf_open("/proc/self/exe", &img))
		fn = elf_symbolize(&img, uc->args[3], &off);
	TEST_FAIL("Unexpected exception (%s), ESR 0x%lx (EC 0x%x: %s), FAR 0x%lx, ELR 0x%lx (%s+0x%lx)",
		  exception_vector_name(vector), (unsigned long)esr,
		  (unsigned int)ESR_EC(esr), esr_ec_name(ESR_EC(esr)),
		  (unsigned long)uc->args[2], (unsigned long)uc->args[3],
		  fn ? fn : "??", (unsigned long)off);
}
