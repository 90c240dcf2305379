/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The interface between the arch-neutral core (the lib/ files files) and an arch port
 * (lib/<arch>/, include/<arch>/).  A port provides exactly this:
 *
 * include/<arch>/kvm_arch_types.h
 *   struct kvm_vm_arch	per-VM arch state, embedded in struct kvm_vm
 *   VM_MODE_DEFAULT		the guest mode tests use unless told otherwise
 *   DEFAULT_STACK_PGS	guest stack pages given to each vCPU
 *   KVM_GUEST_PAGE_TABLE_MIN_PADDR  lowest GPA for page-table pages
 *
 * Guest modes (lib/<arch>/processor.c)
 *   guest_mode_arch_supported(mode)	can this host run @mode?
 *   vm_arch_get_pa_va_bits(mode, &pa, &va)  fill in widths the table leaves 0
 *   vm_arch_vm_type(vm)		the KVM_CREATE_VM type for vm->mode (and
 *					vm->private_mem)
 *   vm_arch_private_type(&type, &hint)  the VM type with private memory:
 *					its name, NULL if the arch has none;
 *					@hint: how a KVM gets it
 *
 * Page tables (lib/<arch>/processor.c)
 *   virt_arch_pgd_alloc(vm)		allocate the root table once (vm->pgd)
 *   virt_arch_pg_map(vm, gva, gpa, size)  map one page of @size bytes (the
 *					mode's page size or a larger block size)
 *   virt_arch_page_sizes(vm, sizes)	mapping sizes the port can build
 *   addr_arch_gva2gpa(vm, gva, &gpa)	walk the tables; false if unmapped
 *
 * VM and vCPUs (lib/<arch>/processor.c)
 *   vm_arch_setup(vm)		after the ELF is loaded: descriptor tables,
 *					exception vectors, anything per-VM
 *   vm_arch_free(vm)		release what vm_arch_setup() made
 *   vcpu_arch_add(vm, vcpu)		registers, stack, CPUID... of a new vCPU
 *   vcpu_arch_set_entry(vcpu, code)	start the vCPU at @code
 *   vcpu_args_set(vcpu, n, ...)	up to 6 integer arguments for @code
 *
 * Exceptions (lib/<arch>/processor.c + an assembly entry)
 *   vm_install_exception_handler(vm, vector, handler)  arch-typed handler
 *   ucall_arch_report_unhandled(uc)	fail the test for a UCALL_UNHANDLED
 *
 * Nested vCPUs (lib/<arch>/nested.c): the vCPU runs a small hypervisor
 * (L1) that runs guest code in its own guest (L2), L2's GPAs mapped 1:1
 * onto L1's, L2's ucalls reaching the host directly
 *   nested_arch_unavailable(why, len)	NULL if this host can, else why not
 *   nested_arch_extra_pages(nr_vcpus, bytes)  slot-0 pages the setup needs
 *					for @bytes of test memory
 *   nested_arch_vm_setup(vm)		L1's tables for L2: every memslot, 1:1
 *					(after the last memslot is added)
 *   nested_arch_vcpu_setup(vm, vcpu, l2_code, arg)  the vCPU starts in L1,
 *					which runs @l2_code(@arg) in L2
 *   nested_arch_vcpu_in_l2(vcpu)	1 if the vCPU's last exit came from
 *					L2, 0 from L1, -1 if KVM does not say
 *
 * ucall exit (lib/<arch>/ucall.c)
 *   ucall_arch_init(vm)		reserve whatever the exit needs
 *   ucall_arch_do_ucall(gva)	guest: exit to the host with @gva
 *   ucall_arch_get_ucall(vcpu)	host: the GVA if the exit is a ucall, else 0
 */
#ifndef SELFTEST_KVM_ARCH_H
#define SELFTEST_KVM_ARCH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "guest_modes.h"
#include "kvm_arch_types.h"

struct kvm_vm;
struct kvm_vcpu;
struct ucall;

bool guest_mode_arch_supported(enum vm_guest_mode mode);
void vm_arch_get_pa_va_bits(enum vm_guest_mode mode, unsigned int *pa_bits,
			    unsigned int *va_bits);
unsigned long vm_arch_vm_type(struct kvm_vm *vm);
const char *vm_arch_private_type(unsigned long *type, const char **hint);

void virt_arch_pgd_alloc(struct kvm_vm *vm);
void virt_arch_pg_map(struct kvm_vm *vm, uint64_t gva, uint64_t gpa, uint64_t size);
/* Fills @sizes, largest first, returns how many (at most 4). */
int virt_arch_page_sizes(struct kvm_vm *vm, uint64_t sizes[4]);
bool addr_arch_gva2gpa(struct kvm_vm *vm, uint64_t gva, uint64_t *gpa);

void vm_arch_setup(struct kvm_vm *vm);
void vm_arch_free(struct kvm_vm *vm);
void vcpu_arch_add(struct kvm_vm *vm, struct kvm_vcpu *vcpu);
void vcpu_arch_set_entry(struct kvm_vcpu *vcpu, void *guest_code);
void vcpu_args_set(struct kvm_vcpu *vcpu, unsigned int num, ...);

void ucall_arch_report_unhandled(struct ucall *uc);

const char *nested_arch_unavailable(char *why, size_t len);
uint64_t nested_arch_extra_pages(uint32_t nr_vcpus, uint64_t bytes);
void nested_arch_vm_setup(struct kvm_vm *vm);
void nested_arch_vcpu_setup(struct kvm_vm *vm, struct kvm_vcpu *vcpu, void *l2_code,
			    uint64_t arg);
int nested_arch_vcpu_in_l2(struct kvm_vcpu *vcpu);

void ucall_arch_init(struct kvm_vm *vm);
void ucall_arch_do_ucall(uint64_t uc_gva);
uint64_t ucall_arch_get_ucall(struct kvm_vcpu *vcpu);

#endif /* SELFTEST_KVM_ARCH_H */
