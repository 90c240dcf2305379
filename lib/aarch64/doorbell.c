// SPDX-License-Identifier: GPL-2.0-only
/*
 * aarch64 doorbells: MMIO addresses no memslot holds (no port I/O here),
 * mapped as device memory and written with one plain STR, which KVM can
 * decode (ESR_EL2.ISV) in the kernel.
 */
#include "kvm_irq.h"
#include "processor.h"

bool kvm_arch_has_pio(void)
{
	return false;
}

void vm_map_mmio(struct kvm_vm *vm, uint64_t gpa, uint64_t size)
{
	uint64_t off;

	vm_vaddr_reserve(vm, gpa, size);
	for (off = 0; off < size; off += vm->page_size)
		aarch64_pg_map_attr(vm, gpa + off, gpa + off, vm->page_size, MT_DEVICE_nGnRE);
}

__guest_code void guest_doorbell_write(uint64_t addr, bool pio, uint32_t val)
{
	__asm__ __volatile__("str %w0, [%1]" : : "rZ"(val), "r"(addr) : "memory");
}
