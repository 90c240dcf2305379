// SPDX-License-Identifier: GPL-2.0-only
/*
 * Binary statistics (KVM_GET_STATS_FD): one VM or vCPU stat by name, or
 * every single-valued stat at once (to see which ones moved).
 */
#include "kvm_util.h"

void kvm_stats_read_all(int fd, struct kvm_stats_values *s)
{
	int stats_fd = kvm_ioctl(fd, KVM_GET_STATS_FD, NULL);
	struct kvm_stats_header h;
	struct kvm_stats_desc *d;
	size_t dsize;
	uint32_t i;

	TEST_ASSERT(pread(stats_fd, &h, sizeof(h), 0) == sizeof(h),
		    "Reading the stats header failed");
	dsize = sizeof(*d) + h.name_size;
	d = malloc(dsize);
	TEST_ASSERT(d, "Out of memory");
	s->nr = 0;
	for (i = 0; i < h.num_desc && s->nr < KVM_STATS_MAX; i++) {
		TEST_ASSERT(pread(stats_fd, d, dsize, h.desc_offset + i * dsize) ==
			    (ssize_t)dsize, "Reading stats descriptor %u failed", i);
		/* Histograms (more than one value) are not compared. */
		if (d->size != 1)
			continue;
		snprintf(s->name[s->nr], sizeof(s->name[0]), "%.*s", (int)h.name_size,
			 d->name);
		s->cumulative[s->nr] = (d->flags & KVM_STATS_TYPE_MASK) ==
				       KVM_STATS_TYPE_CUMULATIVE;
		TEST_ASSERT(pread(stats_fd, &s->value[s->nr], sizeof(s->value[0]),
				  h.data_offset + d->offset) == sizeof(s->value[0]),
			    "Reading stat %s failed", s->name[s->nr]);
		s->nr++;
	}
	free(d);
	close(stats_fd);
}

bool kvm_stats_find(const struct kvm_stats_values *s, const char *name, uint64_t *value)
{
	uint32_t i;

	for (i = 0; i < s->nr; i++) {
		if (strcmp(s->name[i], name))
			continue;
		*value = s->value[i];
		return true;
	}
	return false;
}

bool kvm_read_stat(int fd, const char *name, uint64_t *value)
{
	struct kvm_stats_values *s = malloc(sizeof(*s));
	bool found;

	TEST_ASSERT(s, "Out of memory");
	kvm_stats_read_all(fd, s);
	found = kvm_stats_find(s, name, value);
	free(s);
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

void vm_vcpu_stats_sum(struct kvm_vm *vm, struct kvm_stats_values *s)
{
	struct kvm_stats_values *one = malloc(sizeof(*one));
	struct kvm_vcpu *vcpu;
	uint32_t i;

	TEST_ASSERT(one, "Out of memory");
	s->nr = 0;
	for (vcpu = vm->vcpus; vcpu; vcpu = vcpu->next) {
		kvm_stats_read_all(vcpu->fd, one);
		if (!s->nr) {
			memcpy(s, one, sizeof(*s));
			continue;
		}
		TEST_ASSERT(one->nr == s->nr, "vCPU %u has %u stats, another %u",
			    vcpu->id, one->nr, s->nr);
		for (i = 0; i < s->nr; i++)
			s->value[i] += one->value[i];
	}
	free(one);
}
