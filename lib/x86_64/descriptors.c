// SPDX-License-Identifier: GPL-2.0-only
/*
 * x86_64 descriptor tables: a flat GDT (code, data, TSS), an IDT whose
 * 256 vectors enter exception_entry.S (exceptions.c routes them in the
 * guest), the per-VM handler table, and reporting an unhandled exception.
 */
#include "elf_util.h"
#include "processor.h"

#define GDT_ENTRIES	8
#define IDT_ENTRIES	256
#define TSS_SIZE	0x68

/* Encode @seg as a GDT descriptor (16 bytes for a system segment). */
static void gdt_set(uint64_t *gdt, const struct kvm_segment *seg)
{
	uint64_t limit = seg->g ? seg->limit >> 12 : seg->limit, d;

	d = (limit & 0xffff) | ((seg->base & 0xffffff) << 16) |
	    ((uint64_t)seg->type << 40) | ((uint64_t)seg->s << 44) |
	    ((uint64_t)seg->dpl << 45) | ((uint64_t)seg->present << 47) |
	    (((limit >> 16) & 0xf) << 48) | ((uint64_t)seg->avl << 52) |
	    ((uint64_t)seg->l << 53) | ((uint64_t)seg->db << 54) |
	    ((uint64_t)seg->g << 55) | (((seg->base >> 24) & 0xff) << 56);
	gdt[seg->selector >> 3] = d;
	if (!seg->s)
		gdt[(seg->selector >> 3) + 1] = seg->base >> 32;
}

void x86_segment_code(struct kvm_segment *seg)
{
	*seg = (struct kvm_segment) {
		.limit = 0xffffffff, .selector = KERNEL_CS, .type = 0xb,
		.present = 1, .s = 1, .l = 1, .g = 1,
	};
}

void x86_segment_data(struct kvm_segment *seg)
{
	*seg = (struct kvm_segment) {
		.limit = 0xffffffff, .selector = KERNEL_DS, .type = 0x3,
		.present = 1, .s = 1, .db = 1, .g = 1,
	};
}

void x86_segment_tss(struct kvm_vm *vm, struct kvm_segment *seg)
{
	*seg = (struct kvm_segment) {
		.base = vm->arch.tss, .limit = TSS_SIZE - 1, .selector = KERNEL_TSS,
		.type = 0xb, .present = 1,
	};
}

static void gdt_init(struct kvm_vm *vm)
{
	uint64_t *gdt = addr_gva2hva(vm, vm->arch.gdt);
	struct kvm_segment seg;

	x86_segment_code(&seg);
	gdt_set(gdt, &seg);
	x86_segment_data(&seg);
	gdt_set(gdt, &seg);
	x86_segment_tss(vm, &seg);
	gdt_set(gdt, &seg);
}

/* 64-bit interrupt gates: present, DPL 0, type 0xe, no IST. */
static void idt_init(struct kvm_vm *vm)
{
	uint64_t *idt = addr_gva2hva(vm, vm->arch.idt), addr;
	int v;

	for (v = 0; v < NUM_IDT_VECTORS; v++) {
		addr = v < NUM_EXCEPTION_VECTORS ? idt_stubs[v] :
		       (uint64_t)irq_stubs + 16 * (v - NUM_EXCEPTION_VECTORS);
		idt[2 * v] = (addr & 0xffff) | ((uint64_t)KERNEL_CS << 16) |
			     (0x8eULL << 40) | (((addr >> 16) & 0xffff) << 48);
		idt[2 * v + 1] = addr >> 32;
	}
}

void vm_arch_setup(struct kvm_vm *vm)
{
	vm->arch.gdt = vm_vaddr_alloc_pages(vm, 1);
	vm->arch.idt = vm_vaddr_alloc_pages(vm, 1);
	vm->arch.tss = vm_vaddr_alloc_pages(vm, 1);
	vm->arch.handlers = vm_vaddr_alloc_pages(vm, 1);
	gdt_init(vm);
	idt_init(vm);
	write_guest_global(vm, exception_handlers,
			   (exception_handler_t *)vm->arch.handlers);
}

void vm_arch_free(struct kvm_vm *vm)
{
}

void x86_sregs_tables(struct kvm_vm *vm, struct kvm_sregs *sregs)
{
	sregs->gdt.base = vm->arch.gdt;
	sregs->gdt.limit = GDT_ENTRIES * 8 - 1;
	sregs->idt.base = vm->arch.idt;
	sregs->idt.limit = IDT_ENTRIES * 16 - 1;
}

void vm_install_exception_handler(struct kvm_vm *vm, int vector,
				  exception_handler_t handler)
{
	exception_handler_t *table = addr_gva2hva(vm, vm->arch.handlers);

	TEST_ASSERT(vector >= 0 && vector < NUM_IDT_VECTORS,
		    "Exception vector %d out of range", vector);
	table[vector] = handler;
}

const char *exception_vector_name(unsigned int vector)
{
	static const char * const names[NUM_EXCEPTION_VECTORS] = {
		"#DE", "#DB", "NMI", "#BP", "#OF", "#BR", "#UD", "#NM", "#DF",
		"CSO", "#TS", "#NP", "#SS", "#GP", "#PF", "?", "#MF", "#AC",
		"#MC", "#XM", "#VE", "#CP",
	};

	if (vector < NUM_EXCEPTION_VECTORS && names[vector])
		return names[vector];
	return vector < NUM_IDT_VECTORS ? "interrupt" : "?";
}

void ucall_arch_report_unhandled(struct ucall *uc)
{
	struct elf_image img = { 0 };
	const char *fn = NULL;
	uint64_t off = 0;

	if (!elf_open("/proc/self/exe", &img))
		fn = elf_symbolize(&img, uc->args[2], &off);
	TEST_FAIL("Unexpected exception %s (vector %lu), error code 0x%lx, at RIP 0x%lx (%s+0x%lx)",
		  exception_vector_name(uc->args[0]), (unsigned long)uc->args[0],
		  (unsigned long)uc->args[1], (unsigned long)uc->args[2],
		  fn ? fn : "??", (unsigned long)off);
}
