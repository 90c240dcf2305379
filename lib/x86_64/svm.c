// SPDX-License-Identifier: GPL-2.0-only
/*
 * AMD SVM for nested vCPUs: the VMCB (layout from the AMD64 APM vol. 2,
 * appendix B), nested paging (NPT) for L2, and L1's VMRUN loop.
 *
 * The host fills each vCPU's VMCB: L2 starts in the same 64-bit state as
 * L1 (segments, descriptor tables, CR0/CR3/CR4, EFER), at L2's code with
 * its own stack, with NPT on.  L1 intercepts only what it must (VMRUN),
 * VMMCALL and shutdown; I/O is not intercepted, so L2's ucalls reach the
 * host directly.  L1 enables SVM, sets its host save area and VMRUNs; a
 * #VMEXIT means L2 left for a reason the test does not expect, and L1
 * fails the test with the exit code.
 */
#include "nested.h"

/* CPUID 0x80000001 ECX bit 2: SVM; 0x8000000A EDX bit 0: nested paging. */
#define CPUID_EXT_ECX_SVM	(1U << 2)
#define CPUID_SVM_EDX_NP	(1U << 0)

/* Intercept vector 3 (misc1) and 4 (misc2) bits. */
#define INTERCEPT_SHUTDOWN	(1U << 31)
#define INTERCEPT_VMRUN		(1U << 0)
#define INTERCEPT_VMMCALL	(1U << 1)

#define NESTED_CTL_NP_ENABLE	(1ULL << 0)
#define TLB_CONTROL_FLUSH_ALL	1

/* NPT entries: present, writable, user (NPT walks are user accesses). */
#define NPT_FLAGS		(1ULL << 0 | 1ULL << 1 | 1ULL << 2)

#define PAT_DEFAULT		0x0007040600070406ULL

struct vmcb_seg {
	uint16_t selector;
	uint16_t attrib;
	uint32_t limit;
	uint64_t base;
};

struct vmcb_control {
	uint32_t intercept_cr;		/* 0x000 */
	uint32_t intercept_dr;		/* 0x004 */
	uint32_t intercept_exceptions;	/* 0x008 */
	uint32_t intercept_misc1;	/* 0x00c */
	uint32_t intercept_misc2;	/* 0x010 */
	uint32_t intercept_misc3;	/* 0x014 */
	uint8_t reserved_018[0x03c - 0x018];
	uint16_t pause_filter_thresh;	/* 0x03c */
	uint16_t pause_filter_count;	/* 0x03e */
	uint64_t iopm_base_pa;		/* 0x040 */
	uint64_t msrpm_base_pa;		/* 0x048 */
	uint64_t tsc_offset;		/* 0x050 */
	uint32_t asid;			/* 0x058 */
	uint8_t tlb_control;		/* 0x05c */
	uint8_t reserved_05d[3];
	uint64_t int_ctl;		/* 0x060 */
	uint64_t int_state;		/* 0x068 */
	uint64_t exit_code;		/* 0x070 */
	uint64_t exit_info_1;		/* 0x078 */
	uint64_t exit_info_2;		/* 0x080 */
	uint64_t exit_int_info;		/* 0x088 */
	uint64_t nested_ctl;		/* 0x090 */
	uint64_t avic_apic_bar;		/* 0x098 */
	uint64_t ghcb_gpa;		/* 0x0a0 */
	uint64_t event_inj;		/* 0x0a8 */
	uint64_t nested_cr3;		/* 0x0b0 */
	uint64_t virt_ext;		/* 0x0b8 */
	uint32_t clean;			/* 0x0c0 */
	uint32_t reserved_0c4;
	uint64_t next_rip;		/* 0x0c8 */
	uint8_t reserved_0d0[0x400 - 0x0d0];
};

struct vmcb_save {
	struct vmcb_seg es, cs, ss, ds, fs, gs;	/* 0x400 */
	struct vmcb_seg gdtr, ldtr, idtr, tr;	/* 0x460 */
	uint8_t reserved_4a0[0x4cb - 0x4a0];
	uint8_t cpl;			/* 0x4cb */
	uint32_t reserved_4cc;
	uint64_t efer;			/* 0x4d0 */
	uint8_t reserved_4d8[0x548 - 0x4d8];
	uint64_t cr4;			/* 0x548 */
	uint64_t cr3;			/* 0x550 */
	uint64_t cr0;			/* 0x558 */
	uint64_t dr7;			/* 0x560 */
	uint64_t dr6;			/* 0x568 */
	uint64_t rflags;		/* 0x570 */
	uint64_t rip;			/* 0x578 */
	uint8_t reserved_580[0x5d8 - 0x580];
	uint64_t rsp;			/* 0x5d8 */
	uint8_t reserved_5e0[0x5f8 - 0x5e0];
	uint64_t rax;			/* 0x5f8 */
	uint8_t reserved_600[0x668 - 0x600];
	uint64_t g_pat;			/* 0x668 */
};

struct vmcb {
	struct vmcb_control control;
	struct vmcb_save save;
};

_Static_assert(offsetof(struct vmcb, control.exit_code) == 0x070, "VMCB layout");
_Static_assert(offsetof(struct vmcb, control.nested_cr3) == 0x0b0, "VMCB layout");
_Static_assert(offsetof(struct vmcb, save.efer) == 0x4d0, "VMCB layout");
_Static_assert(offsetof(struct vmcb, save.rip) == 0x578, "VMCB layout");
_Static_assert(offsetof(struct vmcb, save.rsp) == 0x5d8, "VMCB layout");
_Static_assert(offsetof(struct vmcb, save.g_pat) == 0x668, "VMCB layout");

/* NPT walks L2's GPAs like a page table: the CPU's own page sizes. */
static uint64_t svm_leaf_size(struct kvm_vm *vm)
{
	uint64_t sizes[4];

	virt_arch_page_sizes(vm, sizes);
	return sizes[0];
}

static const char *svm_unavailable(char *why, size_t len)
{
	const struct kvm_cpuid_entry2 *e = kvm_get_supported_cpuid_entry(0x8000000a, 0);

	if (e && (e->edx & CPUID_SVM_EDX_NP))
		return NULL;
	snprintf(why, len, "Nested vCPUs (-n): KVM offers SVM without nested paging (NPT) to its guests");
	return why;
}

/* A kvm_segment as the VMCB's compressed attributes hold it. */
static void vmcb_seg(struct vmcb_seg *v, const struct kvm_segment *s)
{
	v->selector = s->selector;
	v->attrib = s->type | s->s << 4 | s->dpl << 5 | s->present << 7 |
		    s->avl << 8 | s->l << 9 | s->db << 10 | s->g << 11;
	v->limit = s->limit;
	v->base = s->base;
}

static void svm_vcpu_setup(struct kvm_vm *vm, struct kvm_vcpu *vcpu,
			   const struct nested_vcpu *n, uint64_t root, uint64_t rip,
			   uint64_t rsp)
{
	struct vmcb *vmcb = addr_gpa2hva(vm, n->ctl_gpa);
	struct vmcb_control *c = &vmcb->control;
	struct vmcb_save *s = &vmcb->save;
	struct kvm_sregs sr;

	c->intercept_misc1 = INTERCEPT_SHUTDOWN;
	c->intercept_misc2 = INTERCEPT_VMRUN | INTERCEPT_VMMCALL;
	c->asid = 1;
	c->tlb_control = TLB_CONTROL_FLUSH_ALL;
	c->nested_ctl = NESTED_CTL_NP_ENABLE;
	c->nested_cr3 = root;

	vcpu_sregs_get(vcpu, &sr);
	vmcb_seg(&s->es, &sr.es);
	vmcb_seg(&s->cs, &sr.cs);
	vmcb_seg(&s->ss, &sr.ss);
	vmcb_seg(&s->ds, &sr.ds);
	vmcb_seg(&s->fs, &sr.fs);
	vmcb_seg(&s->gs, &sr.gs);
	vmcb_seg(&s->tr, &sr.tr);
	vmcb_seg(&s->ldtr, &sr.ldt);
	s->gdtr.base = sr.gdt.base;
	s->gdtr.limit = sr.gdt.limit;
	s->idtr.base = sr.idt.base;
	s->idtr.limit = sr.idt.limit;
	s->efer = sr.efer | EFER_SVME;
	s->cr0 = sr.cr0;
	s->cr3 = sr.cr3;
	s->cr4 = sr.cr4;
	s->dr6 = 0xffff0ff0;
	s->dr7 = 0x400;
	s->rflags = X86_EFLAGS_FIXED;
	s->rip = rip;
	s->rsp = rsp;
	s->g_pat = PAT_DEFAULT;
}

/*
 * svm_vmrun(vmcb_gpa, l2_arg): run L2 until a #VMEXIT.  VMRUN loads only
 * RAX, RSP and RIP from the VMCB: L2 starts with L1's other registers
 * (RDI = @l2_arg) and leaves its own, so L1's callee-saved ones are kept
 * on L1's stack around it.
 */
void svm_vmrun(uint64_t vmcb_gpa, uint64_t l2_arg);
__asm__(".pushsection .text\n"
	".globl svm_vmrun\n"
	".type svm_vmrun, @function\n"
	"svm_vmrun:\n"
	NESTED_PUSH_CALLEE_SAVED
	"	mov %rdi, %rax\n"
	"	mov %rsi, %rdi\n"
	"	vmrun\n"
	"	stgi\n"
	NESTED_POP_CALLEE_SAVED
	"	ret\n"
	".size svm_vmrun, . - svm_vmrun\n"
	".popsection\n");

static __guest_code void svm_l1_code(struct nested_vcpu *n)
{
	struct vmcb *vmcb = (struct vmcb *)n->ctl_gva;

	wrmsr(MSR_EFER, rdmsr(MSR_EFER) | EFER_SVME);
	wrmsr(MSR_VM_HSAVE_PA, n->host_gpa);
	svm_vmrun(n->ctl_gpa, n->l2_arg);
	GUEST_FAIL("L2 exited to L1: #VMEXIT 0x%lx, exit info 0x%lx 0x%lx, RIP 0x%lx",
		   (unsigned long)vmcb->control.exit_code,
		   (unsigned long)vmcb->control.exit_info_1,
		   (unsigned long)vmcb->control.exit_info_2,
		   (unsigned long)vmcb->save.rip);
}

const struct nested_vendor nested_svm = {
	.name = "AMD SVM with NPT",
	.cpuid_function = 0x80000001,
	.cpuid_ecx_bit = CPUID_EXT_ECX_SVM,
	.module = "kvm_amd",
	.table_flags = NPT_FLAGS,
	.leaf_flags = NPT_FLAGS,
	.unavailable = svm_unavailable,
	.leaf_size = svm_leaf_size,
	.vcpu_setup = svm_vcpu_setup,
	.l1_code = svm_l1_code,
};
