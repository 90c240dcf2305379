// SPDX-License-Identifier: GPL-2.0-only
/*
 * x86_64 interrupts through KVM's in-kernel irqchip: each vCPU's local
 * APIC in x2APIC mode (MSRs) when KVM offers it, else xAPIC (MMIO at
 * 0xfee00000); GSIs routed as MSIs to one APIC ID, fixed delivery, edge;
 * guest handlers on the IDT's interrupt vectors.
 */
#include "kvm_irq.h"
#include "processor.h"

#define MSR_IA32_APICBASE	0x1b
#define APICBASE_EXTD		(1ULL << 10)	/* x2APIC mode */
#define APICBASE_EN		(1ULL << 11)

#define APIC_DEFAULT_GPA	0xfee00000ULL
/* Register offsets in the xAPIC page; x2APIC MSR = 0x800 + offset / 16. */
#define APIC_TPR		0x80
#define APIC_EOI		0xb0
#define APIC_SVR		0xf0
#define APIC_SVR_ENABLE		(1U << 8)
#define X2APIC_MSR(off)		(0x800 + ((off) >> 4))

/* CPUID.1:ECX bit 21: x2APIC. */
#define CPUID_1_ECX_X2APIC	(1U << 21)

/* Interrupt vectors for routes: one per GSI, 0x40 upwards; 0xff spurious. */
#define IRQ_VECTOR_BASE		0x40
#define IRQ_VECTOR_LAST		0xef
#define APIC_SPURIOUS_VECTOR	0xff

/* MSI address: 0xfee00000 | destination APIC ID << 12 (physical mode). */
#define MSI_ADDR(apic_id)	(APIC_DEFAULT_GPA | ((uint64_t)(apic_id) << 12))

/* Guest state, written by the host before the vCPUs run. */
static bool apic_x2;
static guest_irq_handler_t irq_handler;
static struct guest_irq_anomalies anomalies[KVM_MAX_VCPUS];
/* Per vCPU: what guest_irq_init() was told; GS points at it. */
static uint64_t cpu_slot[KVM_MAX_VCPUS];

static bool host_has_x2apic(void)
{
	const struct kvm_cpuid_entry2 *e = kvm_get_supported_cpuid_entry(1, 0);

	return e && (e->ecx & CPUID_1_ECX_X2APIC);
}

const char *kvm_arch_irqchip_unavailable(int vm_fd, char *why, size_t len)
{
	if (!__kvm_ioctl(vm_fd, KVM_CREATE_IRQCHIP, NULL))
		return NULL;
	snprintf(why, len, "KVM_CREATE_IRQCHIP failed: %s (no in-kernel irqchip)",
		 strerror(errno));
	return why;
}

void vm_irqchip_create(struct kvm_vm *vm, uint32_t nr_vcpus)
{
	TEST_ASSERT(!vm->vcpus, "The irqchip comes before the vCPUs");
	vm_ioctl(vm, KVM_CREATE_IRQCHIP, NULL);
	write_guest_global(vm, apic_x2, host_has_x2apic());
	if (!host_has_x2apic())
		vm_map_mmio(vm, APIC_DEFAULT_GPA, vm->page_size);
}

/* With the in-kernel LAPIC, vCPUs but the BSP wait for INIT/SIPI: not here. */
void vm_irqchip_finalize(struct kvm_vm *vm)
{
	struct kvm_mp_state mp = { .mp_state = KVM_MP_STATE_RUNNABLE };
	struct kvm_vcpu *vcpu;

	for (vcpu = vm->vcpus; vcpu; vcpu = vcpu->next)
		vcpu_ioctl(vcpu, KVM_SET_MP_STATE, &mp);
}

uint32_t kvm_irq_max_routes(void)
{
	return IRQ_VECTOR_LAST - IRQ_VECTOR_BASE + 1;
}

uint32_t vm_irq_route(struct kvm_vm *vm, struct kvm_irq_routing *r, uint32_t gsi,
		      uint32_t vcpu_id)
{
	uint32_t vector = IRQ_VECTOR_BASE + gsi;

	TEST_ASSERT(gsi < kvm_irq_max_routes(), "GSI %u: at most %u routes", gsi,
		    kvm_irq_max_routes());
	/* The APIC ID is the vCPU id; an MSI addresses 8 bits of it. */
	TEST_ASSERT(vcpu_id <= 0xff, "vCPU %u: no MSI to APIC IDs above 255", vcpu_id);
	kvm_gsi_routing_msi_add(r, gsi, MSI_ADDR(vcpu_id), vector);
	return vector;
}

static __guest_code void apic_write(uint32_t off, uint32_t v)
{
	if (apic_x2)
		wrmsr(X2APIC_MSR(off), v);
	else
		mmio_write32(APIC_DEFAULT_GPA + off, v);
}

/*
 * Two deliveries no CPU makes, but emulated ones were seen to: a maskable
 * interrupt with IF clear in its frame (the same event delivered again,
 * at its handler's first instruction: re-injected by KVM after an exit
 * that reported it undelivered), dropped here so it counts once; and one
 * taken between STI and HLT, inside STI's shadow, which would return to
 * the HLT and sleep after its wake-up: it returns past the HLT instead.
 */
static __guest_code bool apic_irq_anomaly(uint64_t cpu, struct ex_regs *regs)
{
	if (!(regs->rflags & X86_EFLAGS_IF)) {
		anomalies[cpu].redelivered++;
		return true;
	}
	if (regs->rip == (uint64_t)irq_wait_hlt) {
		anomalies[cpu].in_shadow++;
		regs->rip++;
	}
	return false;
}

static __guest_code void apic_irq_entry(struct ex_regs *regs)
{
	uint64_t cpu;

	__asm__ __volatile__("movq %%gs:0, %0" : "=r"(cpu));
	if (apic_irq_anomaly(cpu, regs))
		return;
	irq_handler(cpu, regs->vector);
	/* A spurious interrupt is not in service: no EOI. */
	if (regs->vector != APIC_SPURIOUS_VECTOR)
		apic_write(APIC_EOI, 0);
}

void vm_install_irq_handler(struct kvm_vm *vm, guest_irq_handler_t handler)
{
	int v;

	write_guest_global(vm, irq_handler, handler);
	for (v = NUM_EXCEPTION_VECTORS; v < NUM_IDT_VECTORS; v++)
		vm_install_exception_handler(vm, v, apic_irq_entry);
}

__guest_code void guest_irq_init(uint32_t cpu)
{
	uint64_t base = rdmsr(MSR_IA32_APICBASE);

	cpu_slot[cpu] = cpu;
	wrmsr(MSR_GS_BASE, (uint64_t)&cpu_slot[cpu]);
	base |= APICBASE_EN;
	wrmsr(MSR_IA32_APICBASE, base);
	if (apic_x2)
		wrmsr(MSR_IA32_APICBASE, base | APICBASE_EXTD);
	apic_write(APIC_TPR, 0);
	apic_write(APIC_SVR, APIC_SVR_ENABLE | APIC_SPURIOUS_VECTOR);
}

noinline __guest_code void guest_irq_wait(void)
{
	/* STI's shadow covers HLT: an interrupt pending now wakes it. */
	__asm__ __volatile__("sti\n\t"
			     ".globl irq_wait_hlt\n"
			     "irq_wait_hlt:\n\t"
			     "hlt\n\t"
			     "cli" : : : "memory");
}

void vm_irq_anomalies(struct kvm_vm *vm, uint32_t cpu, struct guest_irq_anomalies *a)
{
	*a = ((struct guest_irq_anomalies *)addr_gva2hva(vm, (uint64_t)anomalies))[cpu];
}
