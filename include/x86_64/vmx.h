/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Intel VMX as lib/x86_64/vmx.c uses it, from the Intel SDM vol. 3C
 * (chapter 24: VMCS, controls, EPT entries; appendix A: the capability
 * MSRs; appendix B: the VMCS field encodings; appendix C: exit reasons).
 */
#ifndef SELFTEST_KVM_X86_VMX_H
#define SELFTEST_KVM_X86_VMX_H

/* Capability and control MSRs (SDM appendix A). */
#define MSR_IA32_FEAT_CTL		0x3a
#define FEAT_CTL_LOCKED			(1ULL << 0)
#define FEAT_CTL_VMX_OUTSIDE_SMX	(1ULL << 2)

#define MSR_IA32_VMX_BASIC		0x480
#define MSR_IA32_VMX_PINBASED_CTLS	0x481
#define MSR_IA32_VMX_PROCBASED_CTLS	0x482
#define MSR_IA32_VMX_EXIT_CTLS		0x483
#define MSR_IA32_VMX_ENTRY_CTLS		0x484
#define MSR_IA32_VMX_PROCBASED_CTLS2	0x48b
#define MSR_IA32_VMX_EPT_VPID_CAP	0x48c
#define MSR_IA32_VMX_TRUE_PINBASED_CTLS	0x48d
#define MSR_IA32_VMX_TRUE_PROCBASED_CTLS 0x48e
#define MSR_IA32_VMX_TRUE_EXIT_CTLS	0x48f
#define MSR_IA32_VMX_TRUE_ENTRY_CTLS	0x490

/* IA32_VMX_BASIC: bits 30:0 the VMCS revision, bit 55 the TRUE_* MSRs. */
#define VMX_BASIC_REVISION_MASK		0x7fffffffULL
#define VMX_BASIC_TRUE_CTLS		(1ULL << 55)

/* IA32_VMX_EPT_VPID_CAP. */
#define EPT_CAP_WALK_4			(1ULL << 6)
#define EPT_CAP_MEMTYPE_WB		(1ULL << 14)
#define EPT_CAP_2M			(1ULL << 16)
#define EPT_CAP_1G			(1ULL << 17)

/* Primary processor-based VM-execution controls. */
#define CPU_UNCOND_IO_EXITING		(1U << 24)
#define CPU_USE_IO_BITMAPS		(1U << 25)
#define CPU_USE_MSR_BITMAPS		(1U << 28)
#define CPU_SECONDARY_CONTROLS		(1U << 31)

/* Secondary processor-based VM-execution controls. */
#define CPU2_ENABLE_EPT			(1U << 1)
#define CPU2_ENABLE_VPID		(1U << 5)

/* VM-exit and VM-entry controls. */
#define EXIT_HOST_ADDR_SPACE_SIZE	(1U << 9)
#define EXIT_SAVE_IA32_EFER		(1U << 20)
#define EXIT_LOAD_IA32_EFER		(1U << 21)
#define ENTRY_IA32E_MODE_GUEST		(1U << 9)
#define ENTRY_LOAD_IA32_EFER		(1U << 15)

/* EPT pointer and entries (read, write, execute; leaves: memory type). */
#define EPTP_MEMTYPE_WB			6ULL
#define EPTP_WALK_4			(3ULL << 3)
#define EPT_RWX				(7ULL << 0)
#define EPT_LEAF_MEMTYPE_WB		(6ULL << 3)

/* Segment access rights in the VMCS: as the descriptor's, bit 16 unusable. */
#define VMX_AR_UNUSABLE			(1U << 16)

/*
 * VMCS field encodings (appendix B).  The guest's segment fields go in
 * the order ES, CS, SS, DS, FS, GS, LDTR, TR, 2 apart; the host's
 * selectors ES ... GS, TR the same way.
 */
#define VMCS_VPID			0x0000
#define VMCS_GUEST_ES_SELECTOR		0x0800
#define VMCS_HOST_ES_SELECTOR		0x0c00
#define VMCS_HOST_TR_SELECTOR		0x0c0c
#define VMCS_MSR_BITMAP			0x2004
#define VMCS_TSC_OFFSET			0x2010
#define VMCS_EPT_POINTER		0x201a
#define VMCS_GUEST_PHYS_ADDR		0x2400
#define VMCS_LINK_POINTER		0x2800
#define VMCS_GUEST_DEBUGCTL		0x2802
#define VMCS_GUEST_EFER			0x2806
#define VMCS_HOST_EFER			0x2c02
#define VMCS_PIN_CONTROLS		0x4000
#define VMCS_CPU_CONTROLS		0x4002
#define VMCS_EXCEPTION_BITMAP		0x4004
#define VMCS_PF_ERROR_MASK		0x4006
#define VMCS_PF_ERROR_MATCH		0x4008
#define VMCS_CR3_TARGET_COUNT		0x400a
#define VMCS_EXIT_CONTROLS		0x400c
#define VMCS_EXIT_MSR_STORE_COUNT	0x400e
#define VMCS_EXIT_MSR_LOAD_COUNT	0x4010
#define VMCS_ENTRY_CONTROLS		0x4012
#define VMCS_ENTRY_MSR_LOAD_COUNT	0x4014
#define VMCS_ENTRY_INTR_INFO		0x4016
#define VMCS_CPU_CONTROLS2		0x401e
#define VMCS_INSN_ERROR			0x4400
#define VMCS_EXIT_REASON		0x4402
#define VMCS_EXIT_INTR_INFO		0x4404
#define VMCS_GUEST_ES_LIMIT		0x4800
#define VMCS_GUEST_GDTR_LIMIT		0x4810
#define VMCS_GUEST_IDTR_LIMIT		0x4812
#define VMCS_GUEST_ES_AR		0x4814
#define VMCS_GUEST_INTERRUPTIBILITY	0x4824
#define VMCS_GUEST_ACTIVITY		0x4826
#define VMCS_GUEST_SYSENTER_CS		0x482a
#define VMCS_HOST_SYSENTER_CS		0x4c00
#define VMCS_CR0_MASK			0x6000
#define VMCS_CR4_MASK			0x6002
#define VMCS_CR0_SHADOW			0x6004
#define VMCS_CR4_SHADOW			0x6006
#define VMCS_EXIT_QUALIFICATION		0x6400
#define VMCS_GUEST_LINEAR_ADDR		0x640a
#define VMCS_GUEST_CR0			0x6800
#define VMCS_GUEST_CR3			0x6802
#define VMCS_GUEST_CR4			0x6804
#define VMCS_GUEST_ES_BASE		0x6806
#define VMCS_GUEST_GDTR_BASE		0x6816
#define VMCS_GUEST_IDTR_BASE		0x6818
#define VMCS_GUEST_DR7			0x681a
#define VMCS_GUEST_RSP			0x681c
#define VMCS_GUEST_RIP			0x681e
#define VMCS_GUEST_RFLAGS		0x6820
#define VMCS_GUEST_PENDING_DBG		0x6822
#define VMCS_GUEST_SYSENTER_ESP		0x6824
#define VMCS_GUEST_SYSENTER_EIP		0x6826
#define VMCS_HOST_CR0			0x6c00
#define VMCS_HOST_CR3			0x6c02
#define VMCS_HOST_CR4			0x6c04
#define VMCS_HOST_FS_BASE		0x6c06
#define VMCS_HOST_GS_BASE		0x6c08
#define VMCS_HOST_TR_BASE		0x6c0a
#define VMCS_HOST_GDTR_BASE		0x6c0c
#define VMCS_HOST_IDTR_BASE		0x6c0e
#define VMCS_HOST_SYSENTER_ESP		0x6c10
#define VMCS_HOST_SYSENTER_EIP		0x6c12
#define VMCS_HOST_RSP			0x6c14
#define VMCS_HOST_RIP			0x6c16

/* Exit reason: bits 15:0 the basic reason, bit 31 a failed VM entry. */
#define VMX_EXIT_REASON_BASIC		0xffffU
#define VMX_EXIT_ENTRY_FAILURE		(1U << 31)

#endif /* SELFTEST_KVM_X86_VMX_H */
