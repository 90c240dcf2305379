// SPDX-License-Identifier: GPL-2.0-only
/*
 * Binary statistics (KVM_GET_STATS_FD): one VM or vCPU stat by name, or
 * every single-valued stat at once, or a snapshot of all of them, to see
 * which moved during a timed phase.
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
