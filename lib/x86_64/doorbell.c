// SPDX-License-Identifier: GPL-2.0-only
/*
 * x86_64 doorbells: a port (OUT) or an MMIO address no memslot holds.
 */
#include "kvm_irq.h"
#include "processor.h"

bool kvm_arch_has_pio(void)
{
	return true;
}

void vm_map_mmio(struct kvm_vm *vm, uint64_t gpa, uint64_t size)
{
	uint64_t off;

	vm_vaddr_reserve(vm, gpa, size);
	for (off = 0; off < size; off += vm->page_size)
		virt_pg_map(vm, gpa + off, gpa + off);
}

__guest_code void guest_doorbell_write(uint64_t addr, bool pio, uint32_t val)
{
	if (pio)
		outl(addr, val);
	else
		mmio_write32(addr, val);
}
