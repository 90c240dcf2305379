// SPDX-License-Identifier: GPL-2.0-only
/*
 * Binary statistics (KVM_GET_STATS_FD): a snapshot of every stat of a VM
 * or vCPU fd (or the sum over several), to see which moved during a timed
 * phase; one stat by name is read from a snapshot too.
 */
#include "kvm_util.h"

/* The value of descriptor @d: a histogram counts as the sum of its buckets. */
static uint64_t stat_value(int stats_fd, const struct kvm_stats_header *h,
			   const struct kvm_stats_desc *d)
{
	uint64_t buf[64], sum = 0;
	uint32_t n = d->size, i, chunk;
	off_t off = h->data_offset + d->offset;

	while (n) {
		chunk = n < ARRAY_SIZE(buf) ? n : ARRAY_SIZE(buf);
		TEST_ASSERT(pread(stats_fd, buf, chunk * sizeof(buf[0]), off) ==
			    (ssize_t)(chunk * sizeof(buf[0])), "Reading stat %s failed", d->name);
		for (i = 0; i < chunk; i++)
			sum += buf[i];
		off += chunk * sizeof(buf[0]);
		n -= chunk;
	}
	return sum;
}

/* First fd added to @s: room for its stats. */
static void snapshot_layout(struct kvm_stats_snapshot *s, const struct kvm_stats_header *h)
{
	s->nr = h->num_desc;
	s->stats = calloc(s->nr ? s->nr : 1, sizeof(*s->stats));
	TEST_ASSERT(s->stats, "Out of memory");
}

static void snapshot_add(struct kvm_stats_snapshot *s, int stats_fd)
{
	struct kvm_stats_header h;
	struct kvm_stats_desc *d;
	size_t dsize;
	uint32_t i;

	TEST_ASSERT(pread(stats_fd, &h, sizeof(h), 0) == sizeof(h),
		    "Reading the stats header failed");
	if (!s->stats)
		snapshot_layout(s, &h);
	TEST_ASSERT(h.num_desc == s->nr, "Stats fds with %u and %u stats in one snapshot",
		    h.num_desc, s->nr);
	dsize = sizeof(*d) + h.name_size;
	d = malloc(dsize);
	TEST_ASSERT(d, "Out of memory");
	for (i = 0; i < h.num_desc; i++) {
		TEST_ASSERT(pread(stats_fd, d, dsize, h.desc_offset + i * dsize) ==
			    (ssize_t)dsize, "Reading stats descriptor %u failed", i);
		snprintf(s->stats[i].name, sizeof(s->stats[i].name), "%.*s",
			 (int)h.name_size, d->name);
		s->stats[i].flags = d->flags;
		s->stats[i].value += stat_value(stats_fd, &h, d);
	}
	free(d);
}

void kvm_stats_snapshot_add(struct kvm_stats_snapshot *s, int fd)
{
	int stats_fd = kvm_ioctl(fd, KVM_GET_STATS_FD, NULL);

	snapshot_add(s, stats_fd);
	close(stats_fd);
}

void kvm_stats_snapshot_vm(struct kvm_vm *vm, struct kvm_stats_snapshot *vm_stats,
			   struct kvm_stats_snapshot *vcpu_stats)
{
	struct kvm_vcpu *vcpu;

	kvm_stats_snapshot_free(vm_stats);
	kvm_stats_snapshot_free(vcpu_stats);
	if (!kvm_has_cap(KVM_CAP_BINARY_STATS_FD))
		return;
	kvm_stats_snapshot_add(vm_stats, vm->fd);
	for (vcpu = vm->vcpus; vcpu; vcpu = vcpu->next)
		kvm_stats_snapshot_add(vcpu_stats, vcpu->fd);
}

int kvm_stats_snapshot_diff(const struct kvm_stats_snapshot *before,
			    const struct kvm_stats_snapshot *after,
			    struct kvm_stat_delta *deltas, int max)
{
	uint32_t i;
	int n = 0;

	if (before->nr != after->nr)
		return 0;
	for (i = 0; i < after->nr && n < max; i++) {
		if (after->stats[i].value == before->stats[i].value)
			continue;
		deltas[n++] = (struct kvm_stat_delta) {
			.name = after->stats[i].name,
			.flags = after->stats[i].flags,
			.before = before->stats[i].value,
			.after = after->stats[i].value,
		};
	}
	return n;
}

void kvm_stats_snapshot_free(struct kvm_stats_snapshot *s)
{
	free(s->stats);
	s->stats = NULL;
	s->nr = 0;
}

bool kvm_stats_snapshot_find(const struct kvm_stats_snapshot *s, const char *name,
			     uint64_t *value)
{
	uint32_t i;

	for (i = 0; i < s->nr; i++) {
		if (!strcmp(s->stats[i].name, name)) {
			*value = s->stats[i].value;
			return true;
		}
	}
	return false;
}

bool kvm_read_stat(int fd, const char *name, uint64_t *value)
{
	struct kvm_stats_snapshot s = { 0 };
	bool found;

	kvm_stats_snapshot_add(&s, fd);
	found = kvm_stats_snapshot_find(&s, name, value);
	kvm_stats_snapshot_free(&s);
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
