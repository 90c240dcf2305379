// SPDX-License-Identifier: GPL-2.0-only
/*
 * Guest port I/O of 1, 2 and 4 bytes: each OUT exits with KVM_EXIT_IO and
 * the data, each IN exits for the host to supply the data the guest reads.
 */
#include "processor.h"

#define TEST_PORT	0x80

struct io_case {
	uint8_t dir;		/* KVM_EXIT_IO_IN or KVM_EXIT_IO_OUT */
	uint8_t size;
	uint16_t port;
	uint32_t data;
};

static const struct io_case cases[] = {
	{ KVM_EXIT_IO_OUT, 1, TEST_PORT, 0xa5 },
	{ KVM_EXIT_IO_OUT, 2, TEST_PORT + 2, 0xbeef },
	{ KVM_EXIT_IO_OUT, 4, TEST_PORT + 4, 0xdeadbeef },
	{ KVM_EXIT_IO_IN, 1, TEST_PORT, 0x5a },
	{ KVM_EXIT_IO_IN, 2, TEST_PORT + 2, 0xcafe },
	{ KVM_EXIT_IO_IN, 4, TEST_PORT + 4, 0x12345678 },
};

static __guest_code uint32_t guest_in(const struct io_case *c)
{
	switch (c->size) {
	case 1:
		return inb(c->port);
	case 2:
		return inw(c->port);
	default:
		return inl(c->port);
	}
}

static __guest_code void guest_out(const struct io_case *c)
{
	switch (c->size) {
	case 1:
		outb(c->port, c->data);
		break;
	case 2:
		outw(c->port, c->data);
		break;
	default:
		outl(c->port, c->data);
	}
}

static __guest_code void guest_code(void)
{
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(cases); i++) {
		if (cases[i].dir == KVM_EXIT_IO_OUT)
			guest_out(&cases[i]);
		else
			GUEST_ASSERT_EQ(guest_in(&cases[i]), cases[i].data);
	}
	GUEST_DONE();
}

static void handle_io(struct kvm_vcpu *vcpu, const struct io_case *c)
{
	struct kvm_run *run = vcpu->run;
	uint8_t *data = (uint8_t *)run + run->io.data_offset;
	uint32_t v = 0;

	TEST_ASSERT_KVM_EXIT_REASON(vcpu, KVM_EXIT_IO);
	TEST_ASSERT_EQ(run->io.direction, c->dir);
	TEST_ASSERT_EQ(run->io.size, c->size);
	TEST_ASSERT_EQ(run->io.port, c->port);
	TEST_ASSERT_EQ(run->io.count, 1U);
	if (c->dir == KVM_EXIT_IO_OUT) {
		memcpy(&v, data, c->size);
		TEST_ASSERT_EQ(v, c->data);
	} else {
		memcpy(data, &c->data, c->size);
	}
}

/*
 * KVM counts each port I/O exit it hands to userspace in io_exits.  A KVM
 * that instead runs IN/OUT through its instruction emulator (kvm_pvm,
 * whose guests trap every privileged instruction) counts insn_emulation
 * and leaves io_exits at 0: that is a skip, told by the counters.
 */
static void check_io_exits_stat(struct kvm_vcpu *vcpu, uint64_t nr_io)
{
	uint64_t exits, emulated = 0;

	if (!kvm_has_cap(KVM_CAP_BINARY_STATS_FD)) {
		ksft_test_result_skip("no KVM_CAP_BINARY_STATS_FD\n");
		return;
	}
	exits = vcpu_get_stat(vcpu, "io_exits");
	if (!exits && kvm_read_stat(vcpu->fd, "insn_emulation", &emulated) &&
	    emulated >= nr_io) {
		ksft_test_result_skip("io_exits 0 after %lu port I/O exits, insn_emulation %lu: this KVM emulates IN/OUT and does not count io_exits\n",
				      (unsigned long)nr_io, (unsigned long)emulated);
		return;
	}
	TEST_ASSERT(exits >= nr_io, "io_exits stat %lu, expected at least %lu",
		    (unsigned long)exits, (unsigned long)nr_io);
	ksft_test_result_pass("vCPU stat io_exits: %lu\n", (unsigned long)exits);
}

static const char *dir_name(uint8_t dir)
{
	return dir == KVM_EXIT_IO_OUT ? "OUT" : "IN";
}

int main(int argc, char *argv[])
{
	struct kvm_vcpu *vcpu;
	struct kvm_vm *vm;
	struct ucall uc;
	unsigned int i;

	parse_no_options(argc, argv, "Guest port I/O of 1, 2 and 4 bytes through KVM_EXIT_IO.");

	kvm_require_dev();
	ksft_print_header();
	ksft_set_plan(ARRAY_SIZE(cases) + 1);
	vm = vm_create_with_one_vcpu(&vcpu, guest_code);
	for (i = 0; i < ARRAY_SIZE(cases); i++) {
		vcpu_run_ucall(vcpu, &uc);
		handle_io(vcpu, &cases[i]);
		ksft_test_result_pass("%s of %u bytes at port 0x%x\n",
				      dir_name(cases[i].dir), cases[i].size, cases[i].port);
	}
	vcpu_run_expect_done(vcpu);

	check_io_exits_stat(vcpu, ARRAY_SIZE(cases) + 1);
	kvm_vm_free(vm);
	ksft_finished();
}
