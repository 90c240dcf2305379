// SPDX-License-Identifier: GPL-2.0-only
/*
 * Binary statistics (KVM_GET_STATS_FD): one VM or vCPU stat by name.
 */
#include "kvm_util.h"

static bool stat_find(int stats_fd, const char *name, uint64_t *value)
{
	struct kvm_stats_header h;
	struct kvm_stats_desc *d;
	size_t dsize;
	bool found = false;
	uint32_t i;

	TEST_ASSERT(pread(stats_fd, &h, sizeof(h), 0) == sizeof(h),
		    "Reading the stats header failed");
	dsize = sizeof(*d) + h.name_size;
	d = malloc(dsize);
	TEST_ASSERT(d, "Out of memory");
	for (i = 0; i < h.num_desc && !found; i++) {
		TEST_ASSERT(pread(stats_fd, d, dsize, h.desc_offset + i * dsize) ==
			    (ssize_t)dsize, "Reading stats descriptor %u failed", i);
		if (strncmp(d->name, name, h.name_size))
			continue;
		TEST_ASSERT(d->size >= 1, "Stat %s has no value", name);
		TEST_ASSERT(pread(stats_fd, value, sizeof(*value),
				  h.data_offset + d->offset) == sizeof(*value),
			    "Reading stat %s failed", name);
		found = true;
	}
	free(d);
	return found;
}

bool kvm_read_stat(int fd, const char *name, uint64_t *value)
{
	int stats_fd = kvm_ioctl(fd, KVM_GET_STATS_FD, NULL);
	bool found = stat_find(stats_fd, name, value);

	close(stats_fd);
	return found;
}

static uint64_t read_stat_or_die(int fd, const char *what, const char *name)
{
	uint64_t v = 0;

	TEST_REQUIRE(kvm_has_cap(KVM_CAP_BINARY_STATS_FD));
	TEST_ASSERT(kvm_read_stat(fd, name, &v), "No %s stat named \"%s\"", what, name);
	return v;
}

uint64_t vm_get_stat(struct kvm_vm *vm, const char *name)
{
	return read_stat_or_die(vm->fd, "VM", name);
}

uint64_t vcpu_get_stat(struct kvm_vcpu *vcpu, const char *name)
{
	return read_stat_or_die(vcpu->fd, "vCPU", name);
}
