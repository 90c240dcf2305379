// SPDX-License-Identifier: GPL-2.0-only
/*
 * Intel VMX for nested vCPUs (the Intel SDM vol. 3C, chapters 24-28):
 * a VMCS per vCPU, EPT for L2 and L1's VMLAUNCH.
 *
 * The VMCS lives in the CPU, so the host cannot fill it as svm.c fills a
 * VMCB: it writes a list of (field, value) into the vCPU's page instead,
 * L2's state being L1's (segments, descriptor tables, CR0/CR3/CR4) with
 * L2's code, stack and EPT.  L1 reads its IA32_VMX_* MSRs, turns VMX on
 * (IA32_FEATURE_CONTROL, CR4.VMXE, VMXON), makes the VMCS current
 * (VMCLEAR, VMPTRLD), computes the controls from the allowed-0/allowed-1
 * settings, writes the list and VMLAUNCHes.  L1 intercepts nothing it
 * can leave out: no exceptions, no I/O (no I/O bitmaps, no unconditional
 * I/O exiting: L2's ucalls reach the host as L1's would), no MSRs (empty
 * MSR bitmaps), no CR0/CR4 bits.  What still exits (CPUID, an EPT
 * violation, a triple fault, a failed entry) fails the test from L1 with
 * the exit reason and qualification, as a failed VMLAUNCH does with the
 * VM-instruction error.
 */
#include <fcntl.h>

#include "nested.h"
#include "vmx.h"

/* CPUID 1 ECX bit 5: VMX. */
#define CPUID_ECX_VMX		(1U << 5)

#define VMX_STR(x)		#x
#define VMX_XSTR(x)		VMX_STR(x)

struct vmcs_field {
	uint64_t encoding;
	uint64_t value;
};

/* struct nested_vcpu's vendor area: what L1 writes to the VMCS. */
struct vmx_vcpu {
	uint64_t nr_fields;
	struct vmcs_field fields[];
};

#define VMX_MAX_FIELDS							\
	((4096 - sizeof(struct nested_vcpu) - sizeof(struct vmx_vcpu)) / \
	 sizeof(struct vmcs_field))

/* Host: KVM's VMX capabilities for its guests, read as feature MSRs. */
struct vmx_caps {
	uint64_t procbased, procbased2, ept_vpid;
};

static bool vmx_caps_read(struct vmx_caps *c)
{
	static const uint32_t msrs[] = {
		MSR_IA32_VMX_PROCBASED_CTLS, MSR_IA32_VMX_PROCBASED_CTLS2,
		MSR_IA32_VMX_EPT_VPID_CAP,
	};
	const unsigned int nr = ARRAY_SIZE(msrs);
	struct kvm_msrs *m;
	unsigned int i;
	int fd, n;

	if (!kvm_has_cap(KVM_CAP_GET_MSR_FEATURES))
		return false;
	m = calloc(1, sizeof(*m) + nr * sizeof(m->entries[0]));
	TEST_ASSERT(m, "Out of memory");
	m->nmsrs = nr;
	for (i = 0; i < nr; i++)
		m->entries[i].index = msrs[i];
	fd = open_kvm_dev_path_or_exit(O_RDONLY);
	n = __kvm_ioctl(fd, KVM_GET_MSRS, m);
	close(fd);
	if (n == (int)nr) {
		c->procbased = m->entries[0].data;
		c->procbased2 = m->entries[1].data;
		c->ept_vpid = m->entries[2].data;
	}
	free(m);
	return n == (int)nr;
}

/* Allowed-1 settings: bits 63:32 of a control MSR. */
static bool may_set(uint64_t ctl_msr, uint32_t bits)
{
	return ((ctl_msr >> 32) & bits) == bits;
}

static const char *vmx_unavailable(char *why, size_t len)
{
	const char *lack = NULL;
	struct vmx_caps c;

	if (!vmx_caps_read(&c))
		lack = "does not report its VMX capabilities (IA32_VMX_* as feature MSRs)";
	else if (!may_set(c.procbased, CPU_SECONDARY_CONTROLS) ||
		 !may_set(c.procbased2, CPU2_ENABLE_EPT))
		lack = "offers VMX without EPT to its guests";
	else if (!(c.ept_vpid & EPT_CAP_WALK_4) || !(c.ept_vpid & EPT_CAP_MEMTYPE_WB))
		lack = "offers EPT without 4-level tables in write-back memory";
	else if (!(c.ept_vpid & (EPT_CAP_2M | EPT_CAP_1G)))
		lack = "offers EPT without 2M or 1G pages";
	else if (!may_set(c.procbased, CPU_USE_MSR_BITMAPS))
		lack = "offers VMX without MSR bitmaps";
	if (!lack)
		return NULL;
	snprintf(why, len, "Nested vCPUs (-n): this KVM %s", lack);
	return why;
}

static uint64_t vmx_leaf_size(struct kvm_vm *vm)
{
	struct vmx_caps c;

	TEST_ASSERT(vmx_caps_read(&c), "IA32_VMX_EPT_VPID_CAP unreadable");
	return (c.ept_vpid & EPT_CAP_1G) ? 1ULL << 30 : 1ULL << 21;
}

static void field(struct vmx_vcpu *x, uint64_t encoding, uint64_t value)
{
	TEST_ASSERT(x->nr_fields < VMX_MAX_FIELDS, "More than %zu VMCS fields",
		    (size_t)VMX_MAX_FIELDS);
	x->fields[x->nr_fields++] = (struct vmcs_field){ encoding, value };
}

/* A kvm_segment as the VMCS's access rights hold it. */
static uint32_t vmx_ar(const struct kvm_segment *s)
{
	if (s->unusable)
		return VMX_AR_UNUSABLE;
	return s->type | s->s << 4 | s->dpl << 5 | s->present << 7 |
	       s->avl << 12 | s->l << 13 | s->db << 14 | s->g << 15;
}

/* Guest segment @i (0 ES ... 7 TR): the four fields, each group 2 apart. */
static void guest_seg(struct vmx_vcpu *x, int i, const struct kvm_segment *s)
{
	field(x, VMCS_GUEST_ES_SELECTOR + 2 * i, s->selector);
	field(x, VMCS_GUEST_ES_LIMIT + 2 * i, s->limit);
	field(x, VMCS_GUEST_ES_AR + 2 * i, vmx_ar(s));
	field(x, VMCS_GUEST_ES_BASE + 2 * i, s->base);
}

static void guest_state(struct vmx_vcpu *x, const struct kvm_sregs *sr, uint64_t rip,
			uint64_t rsp)
{
	const struct kvm_segment *segs[] = {
		&sr->es, &sr->cs, &sr->ss, &sr->ds, &sr->fs, &sr->gs, &sr->ldt, &sr->tr,
	};
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(segs); i++)
		guest_seg(x, i, segs[i]);
	field(x, VMCS_GUEST_GDTR_BASE, sr->gdt.base);
	field(x, VMCS_GUEST_GDTR_LIMIT, sr->gdt.limit);
	field(x, VMCS_GUEST_IDTR_BASE, sr->idt.base);
	field(x, VMCS_GUEST_IDTR_LIMIT, sr->idt.limit);
	field(x, VMCS_GUEST_CR0, sr->cr0);
	field(x, VMCS_GUEST_CR3, sr->cr3);
	/* In VMX operation CR4.VMXE is fixed to 1, in L2 too. */
	field(x, VMCS_GUEST_CR4, sr->cr4 | X86_CR4_VMXE);
	field(x, VMCS_GUEST_DR7, 0x400);
	field(x, VMCS_GUEST_DEBUGCTL, 0);
	field(x, VMCS_GUEST_RFLAGS, X86_EFLAGS_FIXED);
	field(x, VMCS_GUEST_RIP, rip);
	field(x, VMCS_GUEST_RSP, rsp);
	field(x, VMCS_GUEST_PENDING_DBG, 0);
	field(x, VMCS_GUEST_INTERRUPTIBILITY, 0);
	field(x, VMCS_GUEST_ACTIVITY, 0);
	field(x, VMCS_GUEST_SYSENTER_CS, 0);
	field(x, VMCS_GUEST_SYSENTER_ESP, 0);
	field(x, VMCS_GUEST_SYSENTER_EIP, 0);
	field(x, VMCS_LINK_POINTER, ~0ULL);	/* no shadow VMCS */
}

/* L1's own state to return to on a VM exit; L1 adds CRs, bases, RSP, RIP. */
static void host_state(struct vmx_vcpu *x, const struct kvm_sregs *sr)
{
	const struct kvm_segment *segs[] = {
		&sr->es, &sr->cs, &sr->ss, &sr->ds, &sr->fs, &sr->gs,
	};
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(segs); i++)
		field(x, VMCS_HOST_ES_SELECTOR + 2 * i, segs[i]->selector);
	field(x, VMCS_HOST_TR_SELECTOR, sr->tr.selector);
	field(x, VMCS_HOST_TR_BASE, sr->tr.base);
	field(x, VMCS_HOST_GDTR_BASE, sr->gdt.base);
	field(x, VMCS_HOST_IDTR_BASE, sr->idt.base);
	field(x, VMCS_HOST_SYSENTER_CS, 0);
	field(x, VMCS_HOST_SYSENTER_ESP, 0);
	field(x, VMCS_HOST_SYSENTER_EIP, 0);
}

/* Intercept nothing that can be left out; EPT on. */
static void exec_state(struct vmx_vcpu *x, const struct nested_vcpu *n, uint64_t root,
		       const struct kvm_sregs *sr)
{
	field(x, VMCS_EPT_POINTER, root | EPTP_WALK_4 | EPTP_MEMTYPE_WB);
	field(x, VMCS_MSR_BITMAP, n->bitmap_gpa);
	field(x, VMCS_EXCEPTION_BITMAP, 0);
	field(x, VMCS_PF_ERROR_MASK, 0);
	field(x, VMCS_PF_ERROR_MATCH, 0);
	field(x, VMCS_CR3_TARGET_COUNT, 0);
	field(x, VMCS_CR0_MASK, 0);
	field(x, VMCS_CR4_MASK, 0);
	field(x, VMCS_CR0_SHADOW, sr->cr0);
	field(x, VMCS_CR4_SHADOW, sr->cr4 | X86_CR4_VMXE);
	field(x, VMCS_TSC_OFFSET, 0);
	field(x, VMCS_EXIT_MSR_STORE_COUNT, 0);
	field(x, VMCS_EXIT_MSR_LOAD_COUNT, 0);
	field(x, VMCS_ENTRY_MSR_LOAD_COUNT, 0);
	field(x, VMCS_ENTRY_INTR_INFO, 0);
}

static void vmx_vcpu_setup(struct kvm_vm *vm, struct kvm_vcpu *vcpu,
			   const struct nested_vcpu *n, uint64_t root, uint64_t rip,
			   uint64_t rsp)
{
	struct vmx_vcpu *x = (struct vmx_vcpu *)n->vendor;
	struct kvm_sregs sr;

	vcpu_sregs_get(vcpu, &sr);
	x->nr_fields = 0;
	guest_state(x, &sr, rip, rsp);
	host_state(x, &sr);
	exec_state(x, n, root, &sr);
}

/*
 * Guest: the VMX instructions.  Each returns 0 (VMsucceed), 1
 * (VMfailInvalid: CF, no current VMCS) or 2 (VMfailValid: ZF, the reason
 * in the VM-instruction error field).
 */
#define VMX_STATUS	"setc %[cf]\n\tsetz %[zf]"

static inline int vmx_vmxon(uint64_t pa)
{
	uint8_t cf, zf;

	__asm__ __volatile__("vmxon %[pa]\n\t" VMX_STATUS
			     : [cf] "=qm"(cf), [zf] "=qm"(zf) : [pa] "m"(pa) : "cc", "memory");
	return cf | zf << 1;
}

static inline int vmx_vmclear(uint64_t pa)
{
	uint8_t cf, zf;

	__asm__ __volatile__("vmclear %[pa]\n\t" VMX_STATUS
			     : [cf] "=qm"(cf), [zf] "=qm"(zf) : [pa] "m"(pa) : "cc", "memory");
	return cf | zf << 1;
}

static inline int vmx_vmptrld(uint64_t pa)
{
	uint8_t cf, zf;

	__asm__ __volatile__("vmptrld %[pa]\n\t" VMX_STATUS
			     : [cf] "=qm"(cf), [zf] "=qm"(zf) : [pa] "m"(pa) : "cc", "memory");
	return cf | zf << 1;
}

static inline int vmx_vmwrite(uint64_t encoding, uint64_t value)
{
	uint8_t cf, zf;

	__asm__ __volatile__("vmwrite %[v], %[f]\n\t" VMX_STATUS
			     : [cf] "=qm"(cf), [zf] "=qm"(zf) : [v] "rm"(value), [f] "r"(encoding)
			     : "cc", "memory");
	return cf | zf << 1;
}

/* The field's value, or ~0 if VMREAD failed. */
static inline uint64_t vmcs_read(uint64_t encoding)
{
	uint64_t v = ~0ULL;

	__asm__ __volatile__("vmread %[f], %[v]"
			     : [v] "+r"(v) : [f] "r"(encoding) : "cc", "memory");
	return v;
}

static __guest_code void vmx_check(int status, const char *what, uint64_t arg)
{
	if (status == 1)
		GUEST_FAIL("L1: %s 0x%lx: VMfailInvalid", what, (unsigned long)arg);
	if (status)
		GUEST_FAIL("L1: %s 0x%lx: VMfailValid, VM-instruction error %lu", what,
			   (unsigned long)arg, (unsigned long)vmcs_read(VMCS_INSN_ERROR));
}

static __guest_code void vmcs_write(uint64_t encoding, uint64_t value)
{
	vmx_check(vmx_vmwrite(encoding, value), "VMWRITE", encoding);
}

/*
 * A control: @want where the allowed-1 settings (bits 63:32) let it, the
 * allowed-0 settings (bits 31:0, the bits that must be 1) on top; L1
 * fails if one of @need is not allowed.
 */
static __guest_code uint32_t vmx_control(uint32_t msr, uint32_t want, uint32_t need)
{
	uint64_t caps = rdmsr(msr);
	uint32_t v = (want | (uint32_t)caps) & (uint32_t)(caps >> 32);

	if ((v & need) != need)
		GUEST_FAIL("L1: VMX MSR 0x%x allows 0x%x, not 0x%x",
			   msr, (uint32_t)(caps >> 32), need);
	return v;
}

static __guest_code void vmx_controls(uint64_t basic)
{
	bool t = basic & VMX_BASIC_TRUE_CTLS;
	uint32_t cpu, cpu2, exit, entry;

	vmcs_write(VMCS_PIN_CONTROLS, vmx_control(t ? MSR_IA32_VMX_TRUE_PINBASED_CTLS :
						 MSR_IA32_VMX_PINBASED_CTLS, 0, 0));
	cpu = vmx_control(t ? MSR_IA32_VMX_TRUE_PROCBASED_CTLS : MSR_IA32_VMX_PROCBASED_CTLS,
			  CPU_USE_MSR_BITMAPS | CPU_SECONDARY_CONTROLS,
			  CPU_USE_MSR_BITMAPS | CPU_SECONDARY_CONTROLS);
	if (cpu & (CPU_UNCOND_IO_EXITING | CPU_USE_IO_BITMAPS))
		GUEST_FAIL("L1: VMX forces I/O exiting (controls 0x%x): L2's ucalls would exit to L1",
			   cpu);
	vmcs_write(VMCS_CPU_CONTROLS, cpu);
	cpu2 = vmx_control(MSR_IA32_VMX_PROCBASED_CTLS2, CPU2_ENABLE_EPT | CPU2_ENABLE_VPID,
			   CPU2_ENABLE_EPT);
	vmcs_write(VMCS_CPU_CONTROLS2, cpu2);
	if (cpu2 & CPU2_ENABLE_VPID)
		vmcs_write(VMCS_VPID, 1);
	exit = vmx_control(t ? MSR_IA32_VMX_TRUE_EXIT_CTLS : MSR_IA32_VMX_EXIT_CTLS,
			   EXIT_HOST_ADDR_SPACE_SIZE | EXIT_SAVE_IA32_EFER | EXIT_LOAD_IA32_EFER,
			   EXIT_HOST_ADDR_SPACE_SIZE);
	vmcs_write(VMCS_EXIT_CONTROLS, exit);
	if (exit & EXIT_LOAD_IA32_EFER)
		vmcs_write(VMCS_HOST_EFER, rdmsr(MSR_EFER));
	entry = vmx_control(t ? MSR_IA32_VMX_TRUE_ENTRY_CTLS : MSR_IA32_VMX_ENTRY_CTLS,
			    ENTRY_IA32E_MODE_GUEST | ENTRY_LOAD_IA32_EFER, ENTRY_IA32E_MODE_GUEST);
	vmcs_write(VMCS_ENTRY_CONTROLS, entry);
	if (entry & ENTRY_LOAD_IA32_EFER)
		vmcs_write(VMCS_GUEST_EFER, rdmsr(MSR_EFER));
}

/* VMX operation: IA32_FEATURE_CONTROL, CR4.VMXE, VMXON; then a current VMCS. */
static __guest_code void vmx_on(struct nested_vcpu *n, uint64_t basic)
{
	uint32_t revision = basic & VMX_BASIC_REVISION_MASK;
	uint64_t fc = rdmsr(MSR_IA32_FEAT_CTL);

	if (!(fc & FEAT_CTL_LOCKED))
		wrmsr(MSR_IA32_FEAT_CTL, fc | FEAT_CTL_LOCKED | FEAT_CTL_VMX_OUTSIDE_SMX);
	else if (!(fc & FEAT_CTL_VMX_OUTSIDE_SMX))
		GUEST_FAIL("L1: IA32_FEATURE_CONTROL 0x%lx is locked with VMX off",
			   (unsigned long)fc);
	*(uint32_t *)n->host_gva = revision;
	*(uint32_t *)n->ctl_gva = revision;
	set_cr4(get_cr4() | X86_CR4_VMXE);
	vmx_check(vmx_vmxon(n->host_gpa), "VMXON", n->host_gpa);
	vmx_check(vmx_vmclear(n->ctl_gpa), "VMCLEAR", n->ctl_gpa);
	vmx_check(vmx_vmptrld(n->ctl_gpa), "VMPTRLD", n->ctl_gpa);
}

/*
 * vmx_launch(l2_arg): VMLAUNCH L2 and return 0 at its VM exit, else the
 * VMLAUNCH status (1, 2; 3: a VMWRITE of HOST_RSP/RIP failed).  L2 starts
 * with L1's registers but RSP, RIP and RFLAGS (RDI = @l2_arg) and leaves
 * its own, so L1's callee-saved ones are kept on L1's stack, whose top
 * is HOST_RSP, and the exit lands at HOST_RIP, label 1.
 */
int vmx_launch(uint64_t l2_arg);
__asm__(".pushsection .text\n"
	".globl vmx_launch\n"
	".type vmx_launch, @function\n"
	"vmx_launch:\n"
	NESTED_PUSH_CALLEE_SAVED
	"	mov $" VMX_XSTR(VMCS_HOST_RSP) ", %rax\n"
	"	vmwrite %rsp, %rax\n"
	"	jbe 2f\n"
	"	mov $" VMX_XSTR(VMCS_HOST_RIP) ", %rax\n"
	"	lea 1f(%rip), %rdx\n"
	"	vmwrite %rdx, %rax\n"
	"	jbe 2f\n"
	"	vmlaunch\n"
	"	mov $2, %eax\n"
	"	jz 3f\n"
	"	mov $1, %eax\n"
	"	jmp 3f\n"
	"1:	xor %eax, %eax\n"
	"	jmp 3f\n"
	"2:	mov $3, %eax\n"
	"3:"
	NESTED_POP_CALLEE_SAVED
	"	ret\n"
	".size vmx_launch, . - vmx_launch\n"
	".popsection\n");

/* The basic exit reasons L2 can still cause here (SDM appendix C). */
static __guest_code const char *vmx_exit_name(uint32_t reason)
{
	switch (reason & VMX_EXIT_REASON_BASIC) {
	case 0: return "exception or NMI";
	case 1: return "external interrupt";
	case 2: return "triple fault";
	case 10: return "CPUID";
	case 12: return "HLT";
	case 18: return "VMCALL";
	case 28: return "CR access";
	case 30: return "I/O instruction";
	case 31: return "RDMSR";
	case 32: return "WRMSR";
	case 33: return "invalid guest state";
	case 48: return "EPT violation";
	case 49: return "EPT misconfiguration";
	case 55: return "XSETBV";
	default: return "?";
	}
}

static __guest_code void vmx_l1_code(struct nested_vcpu *n)
{
	struct vmx_vcpu *x = (struct vmx_vcpu *)n->vendor;
	uint64_t basic = rdmsr(MSR_IA32_VMX_BASIC), i;
	uint32_t reason;
	int r;

	vmx_on(n, basic);
	vmx_controls(basic);
	for (i = 0; i < x->nr_fields; i++)
		vmcs_write(x->fields[i].encoding, x->fields[i].value);
	vmcs_write(VMCS_HOST_CR0, get_cr0());
	vmcs_write(VMCS_HOST_CR3, get_cr3());
	vmcs_write(VMCS_HOST_CR4, get_cr4());
	vmcs_write(VMCS_HOST_FS_BASE, rdmsr(MSR_FS_BASE));
	vmcs_write(VMCS_HOST_GS_BASE, rdmsr(MSR_GS_BASE));
	r = vmx_launch(n->l2_arg);
	if (r)
		vmx_check(r == 3 ? 2 : r, r == 3 ? "VMWRITE of HOST_RSP/RIP" : "VMLAUNCH", 0);
	reason = vmcs_read(VMCS_EXIT_REASON);
	GUEST_FAIL("L2 exited to L1: %sVM exit %u (%s), qualification 0x%lx, guest RIP 0x%lx, guest-physical address 0x%lx, interruption info 0x%lx",
		   (reason & VMX_EXIT_ENTRY_FAILURE) ? "failed entry, " : "",
		   reason & VMX_EXIT_REASON_BASIC, vmx_exit_name(reason),
		   (unsigned long)vmcs_read(VMCS_EXIT_QUALIFICATION),
		   (unsigned long)vmcs_read(VMCS_GUEST_RIP),
		   (unsigned long)vmcs_read(VMCS_GUEST_PHYS_ADDR),
		   (unsigned long)vmcs_read(VMCS_EXIT_INTR_INFO));
}

const struct nested_vendor nested_vmx = {
	.name = "Intel VMX with EPT",
	.cpuid_function = 1,
	.cpuid_ecx_bit = CPUID_ECX_VMX,
	.module = "kvm_intel",
	.table_flags = EPT_RWX,
	.leaf_flags = EPT_RWX | EPT_LEAF_MEMTYPE_WB,
	.unavailable = vmx_unavailable,
	.leaf_size = vmx_leaf_size,
	.vcpu_setup = vmx_vcpu_setup,
	.l1_code = vmx_l1_code,
};
