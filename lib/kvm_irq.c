// SPDX-License-Identifier: GPL-2.0-only
/*
 * GSI routing, irqfd and ioeventfd: the arch-neutral part of kvm_irq.h.
 */
#include "kvm_irq.h"

/* KVM_SET_GSI_ROUTING takes at most this many entries (KVM_MAX_IRQ_ROUTES). */
#define GSI_ROUTING_MAX		4096

struct kvm_irq_routing *kvm_gsi_routing_create(void)
{
	struct kvm_irq_routing *r;

	r = calloc(1, sizeof(*r) + GSI_ROUTING_MAX * sizeof(r->entries[0]));
	TEST_ASSERT(r, "Out of memory for a GSI routing table");
	return r;
}

static struct kvm_irq_routing_entry *routing_next(struct kvm_irq_routing *r,
						  uint32_t gsi, uint32_t type)
{
	struct kvm_irq_routing_entry *e;

	TEST_ASSERT(r->nr < GSI_ROUTING_MAX, "More than %d GSI routes", GSI_ROUTING_MAX);
	e = &r->entries[r->nr++];
	e->gsi = gsi;
	e->type = type;
	return e;
}

void kvm_gsi_routing_irqchip_add(struct kvm_irq_routing *r, uint32_t gsi,
				 uint32_t irqchip, uint32_t pin)
{
	struct kvm_irq_routing_entry *e = routing_next(r, gsi, KVM_IRQ_ROUTING_IRQCHIP);

	e->u.irqchip.irqchip = irqchip;
	e->u.irqchip.pin = pin;
}

void kvm_gsi_routing_msi_add(struct kvm_irq_routing *r, uint32_t gsi,
			     uint64_t address, uint32_t data)
{
	struct kvm_irq_routing_entry *e = routing_next(r, gsi, KVM_IRQ_ROUTING_MSI);

	e->u.msi.address_lo = (uint32_t)address;
	e->u.msi.address_hi = address >> 32;
	e->u.msi.data = data;
}

void vm_gsi_routing_set(struct kvm_vm *vm, struct kvm_irq_routing *r)
{
	vm_ioctl(vm, KVM_SET_GSI_ROUTING, r);
	free(r);
}

static void irqfd(struct kvm_vm *vm, int efd, uint32_t gsi, uint32_t flags)
{
	struct kvm_irqfd args = { .fd = efd, .gsi = gsi, .flags = flags };

	vm_ioctl(vm, KVM_IRQFD, &args);
}

void vm_irqfd_assign(struct kvm_vm *vm, int efd, uint32_t gsi)
{
	irqfd(vm, efd, gsi, 0);
}

static void ioeventfd(struct kvm_vm *vm, uint64_t addr, uint32_t len, int efd,
		      uint32_t flags)
{
	struct kvm_ioeventfd args = {
		.addr = addr, .len = len, .fd = efd, .flags = flags,
	};

	vm_ioctl(vm, KVM_IOEVENTFD, &args);
}

void vm_ioeventfd_assign(struct kvm_vm *vm, uint64_t addr, uint32_t len,
			 bool pio, int efd)
{
	ioeventfd(vm, addr, len, efd, pio ? KVM_IOEVENTFD_FLAG_PIO : 0);
}
