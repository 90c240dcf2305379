// SPDX-License-Identifier: GPL-2.0-only
/*
 * aarch64 interrupts through KVM's vGICv3: the device (distributor and
 * one redistributor per vCPU), SPIs configured from the host through the
 * device's distributor registers (edge, group 1, enabled, routed to one
 * vCPU's affinity), GSI n routed to SPI n (INTID 32 + n), and the guest's
 * GIC CPU interface through its system registers, with a handler on the
 * IRQ vector.
 */
#include "kvm_irq.h"
#include "processor.h"

/* Guest-physical addresses clear of slot 0 and of the doorbells above. */
#define GICD_GPA		0x08000000ULL
#define GICR_GPA		0x080a0000ULL
#define GICR_SIZE		(2 * 64 * KB)	/* RD_base and SGI_base frames */
#define GIC_GPA_END		0x0c000000ULL

#define GIC_SPI_BASE		32
#define GIC_NR_SPIS		128
#define GIC_SPECIAL		1020	/* 1020-1023: special INTIDs, 1023 spurious */

/* Distributor registers (offsets). */
#define GICD_CTLR		0x0000
#define GICD_CTLR_ENABLE_G1A	(1U << 1)
#define GICD_IGROUPR(n)		(0x0080 + 4 * ((n) / 32))
#define GICD_ISENABLER(n)	(0x0100 + 4 * ((n) / 32))
#define GICD_ICFGR(n)		(0x0c00 + 4 * ((n) / 16))
#define GICD_IROUTER(n)		(0x6000 + 8 * (n))

/* GIC CPU interface system registers, by encoding. */
#define ICC_IAR1_EL1		S3_0_C12_C12_0
#define ICC_EOIR1_EL1		S3_0_C12_C12_1
#define ICC_SRE_EL1		S3_0_C12_C12_5
#define ICC_IGRPEN1_EL1		S3_0_C12_C12_7
#define ICC_PMR_EL1		S3_0_C4_C6_0
#define __read_icc(r)		read_sysreg(r)
#define __write_icc(v, r)	write_sysreg(v, r)
#define read_icc(r)		__read_icc(r)
#define write_icc(v, r)		__write_icc(v, r)

/* Guest state, written by the host. */
static guest_irq_handler_t irq_handler;

static int vgic_attr(int fd, bool set, uint32_t group, uint64_t attr, void *val)
{
	struct kvm_device_attr a = {
		.group = group, .attr = attr, .addr = (uintptr_t)val,
	};

	return set ? __kvm_ioctl(fd, KVM_SET_DEVICE_ATTR, &a) :
		     __kvm_ioctl(fd, KVM_GET_DEVICE_ATTR, &a);
}

static void vgic_set(struct kvm_vm *vm, uint32_t group, uint64_t attr, void *val)
{
	int ret = vgic_attr(vm->arch.vgic_fd, true, group, attr, val);

	TEST_ASSERT(!ret, "KVM_SET_DEVICE_ATTR(vGICv3 group %u attr 0x%lx) failed, errno: %d (%s)",
		    group, (unsigned long)attr, errno, strerror(errno));
}

static uint32_t dist_read(struct kvm_vm *vm, uint32_t off)
{
	uint32_t v = 0;
	int ret = vgic_attr(vm->arch.vgic_fd, false, KVM_DEV_ARM_VGIC_GRP_DIST_REGS, off, &v);

	TEST_ASSERT(!ret, "Reading GICD offset 0x%x failed, errno: %d (%s)", off, errno,
		    strerror(errno));
	return v;
}

static void dist_write(struct kvm_vm *vm, uint32_t off, uint32_t v)
{
	vgic_set(vm, KVM_DEV_ARM_VGIC_GRP_DIST_REGS, off, &v);
}

const char *kvm_arch_irqchip_unavailable(int vm_fd, char *why, size_t len)
{
	struct kvm_create_device dev = {
		.type = KVM_DEV_TYPE_ARM_VGIC_V3, .flags = KVM_CREATE_DEVICE_TEST,
	};

	if (!__kvm_ioctl(vm_fd, KVM_CREATE_DEVICE, &dev))
		return NULL;
	snprintf(why, len, "No vGICv3: KVM_CREATE_DEVICE(KVM_DEV_TYPE_ARM_VGIC_V3) failed: %s",
		 strerror(errno));
	return why;
}

void vm_irqchip_create(struct kvm_vm *vm, uint32_t nr_vcpus)
{
	TEST_ASSERT(GICR_GPA + nr_vcpus * GICR_SIZE <= GIC_GPA_END,
		    "%u redistributors do not fit below 0x%llx", nr_vcpus, GIC_GPA_END);
}

/* The vGIC comes once every vCPU exists; then CTRL_INIT, then enable. */
void vm_irqchip_finalize(struct kvm_vm *vm)
{
	struct kvm_create_device dev = { .type = KVM_DEV_TYPE_ARM_VGIC_V3 };
	uint64_t dist = GICD_GPA, redist = GICR_GPA;
	uint32_t nr_irqs = GIC_SPI_BASE + GIC_NR_SPIS;

	vm_ioctl(vm, KVM_CREATE_DEVICE, &dev);
	vm->arch.vgic_fd = dev.fd;
	vgic_set(vm, KVM_DEV_ARM_VGIC_GRP_ADDR, KVM_VGIC_V3_ADDR_TYPE_DIST, &dist);
	vgic_set(vm, KVM_DEV_ARM_VGIC_GRP_ADDR, KVM_VGIC_V3_ADDR_TYPE_REDIST, &redist);
	vgic_set(vm, KVM_DEV_ARM_VGIC_GRP_NR_IRQS, 0, &nr_irqs);
	vgic_set(vm, KVM_DEV_ARM_VGIC_GRP_CTRL, KVM_DEV_ARM_VGIC_CTRL_INIT, NULL);
	dist_write(vm, GICD_CTLR, dist_read(vm, GICD_CTLR) | GICD_CTLR_ENABLE_G1A);
}

uint32_t kvm_irq_max_routes(void)
{
	return GIC_NR_SPIS;
}

static struct kvm_vcpu *vcpu_by_id(struct kvm_vm *vm, uint32_t id)
{
	struct kvm_vcpu *vcpu;

	for (vcpu = vm->vcpus; vcpu; vcpu = vcpu->next)
		if (vcpu->id == id)
			return vcpu;
	TEST_FAIL("No vCPU %u", id);
}

uint32_t vm_irq_route(struct kvm_vm *vm, struct kvm_irq_routing *r, uint32_t gsi,
		      uint32_t vcpu_id)
{
	uint64_t aff = vcpu_get_reg64(vcpu_by_id(vm, vcpu_id), SYS_MPIDR_EL1) & MPIDR_HWID_MASK;
	uint32_t intid = GIC_SPI_BASE + gsi, bit = 1U << (intid % 32);

	TEST_ASSERT(vm->arch.vgic_fd > 0, "Routes come after vm_irqchip_finalize()");
	TEST_ASSERT(gsi < GIC_NR_SPIS, "GSI %u: at most %u SPIs", gsi, GIC_NR_SPIS);
	dist_write(vm, GICD_ICFGR(intid), dist_read(vm, GICD_ICFGR(intid)) |
		   2U << (2 * (intid % 16)));
	dist_write(vm, GICD_IGROUPR(intid), dist_read(vm, GICD_IGROUPR(intid)) | bit);
	dist_write(vm, GICD_IROUTER(intid), (uint32_t)aff);
	dist_write(vm, GICD_IROUTER(intid) + 4, aff >> 32);
	dist_write(vm, GICD_ISENABLER(intid), bit);
	kvm_gsi_routing_irqchip_add(r, gsi, 0, gsi);
	return intid;
}

static __guest_code void gic_irq_entry(struct ex_regs *regs)
{
	uint32_t intid = read_icc(ICC_IAR1_EL1) & 0xffffff;

	irq_handler(read_sysreg(tpidr_el1), intid);
	if (intid < GIC_SPECIAL)
		write_icc(intid, ICC_EOIR1_EL1);
	isb();
}

void vm_install_irq_handler(struct kvm_vm *vm, guest_irq_handler_t handler)
{
	write_guest_global(vm, irq_handler, handler);
	vm_install_exception_handler(vm, VECTOR_IRQ_CURRENT, gic_irq_entry);
}

__guest_code void guest_irq_init(uint32_t cpu)
{
	write_sysreg(cpu, tpidr_el1);
	write_icc(read_icc(ICC_SRE_EL1) | 1, ICC_SRE_EL1);
	isb();
	write_icc(0xff, ICC_PMR_EL1);
	write_icc(1, ICC_IGRPEN1_EL1);
	isb();
}

/* Nothing to detect: an IRQ exception masks IRQs, WFI has no shadow. */
void vm_irq_anomalies(struct kvm_vm *vm, uint32_t cpu, struct guest_irq_anomalies *a)
{
	*a = (struct guest_irq_anomalies) { 0 };
}

__guest_code void guest_irq_wait(void)
{
	/* WFI wakes for a pending interrupt even while masked: no race. */
	__asm__ __volatile__("wfi\n\tmsr daifclr, #2\n\tisb\n\tmsr daifset, #2"
			     : : : "memory");
}
