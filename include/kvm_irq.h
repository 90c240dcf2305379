/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Interrupts and notifications: the eventfd paths a virtio device uses.
 *
 * Arch-neutral (lib/kvm_irq.c): GSI routing tables (KVM_SET_GSI_ROUTING),
 * irqfds (a write to an eventfd injects a GSI) and ioeventfds (a guest
 * write to a port or MMIO address signals an eventfd in the kernel).
 *
 * Each arch provides the in-kernel interrupt controller behind them
 * (lib/x86_64/apic.c: the in-kernel irqchip and the guest's LAPIC, x2APIC
 * or xAPIC; lib/aarch64/gic_v3.c: a vGICv3 and the guest's GIC CPU
 * interface), and the guest side: per-vCPU set-up, an interrupt handler,
 * the halted wait, and the doorbell write.
 */
#ifndef SELFTEST_KVM_IRQ_H
#define SELFTEST_KVM_IRQ_H

#include "kvm_util.h"

/* GSI routing (lib/kvm_irq.c). */
struct kvm_irq_routing *kvm_gsi_routing_create(void);
void kvm_gsi_routing_irqchip_add(struct kvm_irq_routing *r, uint32_t gsi,
				 uint32_t irqchip, uint32_t pin);
void kvm_gsi_routing_msi_add(struct kvm_irq_routing *r, uint32_t gsi,
			     uint64_t address, uint32_t data);
/* KVM_SET_GSI_ROUTING with @r (replacing the whole table), then free it. */
void vm_gsi_routing_set(struct kvm_vm *vm, struct kvm_irq_routing *r);

/* irqfd: a write to @efd raises @gsi (edge). */
void vm_irqfd_assign(struct kvm_vm *vm, int efd, uint32_t gsi);
/* ioeventfd: a @len-byte guest write to @addr (a port if @pio) signals @efd. */
void vm_ioeventfd_assign(struct kvm_vm *vm, uint64_t addr, uint32_t len,
			 bool pio, int efd);

/*
 * NULL if the arch's in-kernel interrupt controller works on scratch VM
 * @vm_fd, else the reason in @why.
 */
const char *kvm_arch_irqchip_unavailable(int vm_fd, char *why, size_t len);

/*
 * The arch's interrupt controller, in this order (lib/<arch>/):
 *   vm_irqchip_create(vm, nr)	before the vCPUs are added
 *   vm_irqchip_finalize(vm)	after all vCPUs exist, before any runs
 *   vm_irq_route(vm, r, gsi, vcpu_id)  add to @r a route of @gsi to that
 *				vCPU as an edge interrupt; returns the
 *				interrupt number its guest handler sees
 */
void vm_irqchip_create(struct kvm_vm *vm, uint32_t nr_vcpus);
void vm_irqchip_finalize(struct kvm_vm *vm);
uint32_t vm_irq_route(struct kvm_vm *vm, struct kvm_irq_routing *r, uint32_t gsi,
		      uint32_t vcpu_id);
/* The highest number of routes (one per vCPU) vm_irq_route() can make. */
uint32_t kvm_irq_max_routes(void);

/*
 * Guest interrupts.  @handler runs for every interrupt a vCPU takes, with
 * the number guest_irq_init() gave that vCPU and the interrupt's number
 * (x86_64: the vector; arm64: the INTID, 1023 if spurious); the arch acks
 * and EOIs around it.  Interrupts stay masked except in guest_irq_wait().
 */
typedef void (*guest_irq_handler_t)(uint32_t cpu, uint32_t irq);

void vm_install_irq_handler(struct kvm_vm *vm, guest_irq_handler_t handler);
void guest_irq_init(uint32_t cpu);
/* Halt (HLT / WFI) until an interrupt is pending, and take it. */
void guest_irq_wait(void);

/*
 * Deliveries the architecture rules out, which the arch's entry detects,
 * counts per vCPU (guest_irq_init()'s number) and corrects for, so the
 * handler sees each interrupt once: the same interrupt delivered twice
 * (x86_64: IF clear in its frame), or taken inside STI's shadow.
 */
struct guest_irq_anomalies {
	uint64_t redelivered;
	uint64_t in_shadow;
};

void vm_irq_anomalies(struct kvm_vm *vm, uint32_t cpu, struct guest_irq_anomalies *a);

/*
 * Doorbells: ports (x86_64 only: kvm_arch_has_pio()) or MMIO addresses
 * no memslot holds.  vm_map_mmio() maps [gpa, gpa + size) at the same GVA
 * as device memory.
 */
bool kvm_arch_has_pio(void);
void vm_map_mmio(struct kvm_vm *vm, uint64_t gpa, uint64_t size);
void guest_doorbell_write(uint64_t addr, bool pio, uint32_t val);

#endif /* SELFTEST_KVM_IRQ_H */
