// SPDX-License-Identifier: GPL-2.0-only
/*
 * The table of guest memory backing sources: names as maintainers type
 * them after -s, mmap() flags, page sizes, and what the host must offer.
 */
#include <linux/mman.h>
#include <sys/mman.h>

#include "test_util.h"

#define ANON		(MAP_PRIVATE | MAP_ANONYMOUS)
#define ANON_HUGE	(ANON | MAP_HUGETLB)
#define HUGE_SZ(sz)	(ANON_HUGE | ((__builtin_ctzll(sz)) << MAP_HUGE_SHIFT))
#define SRC_HUGE(_name, sz) { .name = _name, .flags = HUGE_SZ(sz), .hugepage_size = sz }

static const struct vm_mem_backing_src_alias backing_src_table[NUM_SRC_TYPES] = {
	[VM_MEM_SRC_ANONYMOUS] = { .name = "anonymous", .flags = ANON },
	[VM_MEM_SRC_ANONYMOUS_THP] = { .name = "anonymous_thp", .flags = ANON },
	[VM_MEM_SRC_ANONYMOUS_HUGETLB] = { .name = "anonymous_hugetlb", .flags = ANON_HUGE },
	[VM_MEM_SRC_ANONYMOUS_HUGETLB_16KB] = SRC_HUGE("anonymous_hugetlb_16kb", 16 * KB),
	[VM_MEM_SRC_ANONYMOUS_HUGETLB_64KB] = SRC_HUGE("anonymous_hugetlb_64kb", 64 * KB),
	[VM_MEM_SRC_ANONYMOUS_HUGETLB_512KB] = SRC_HUGE("anonymous_hugetlb_512kb", 512 * KB),
	[VM_MEM_SRC_ANONYMOUS_HUGETLB_1MB] = SRC_HUGE("anonymous_hugetlb_1mb", 1 * MB),
	[VM_MEM_SRC_ANONYMOUS_HUGETLB_2MB] = SRC_HUGE("anonymous_hugetlb_2mb", 2 * MB),
	[VM_MEM_SRC_ANONYMOUS_HUGETLB_8MB] = SRC_HUGE("anonymous_hugetlb_8mb", 8 * MB),
	[VM_MEM_SRC_ANONYMOUS_HUGETLB_16MB] = SRC_HUGE("anonymous_hugetlb_16mb", 16 * MB),
	[VM_MEM_SRC_ANONYMOUS_HUGETLB_32MB] = SRC_HUGE("anonymous_hugetlb_32mb", 32 * MB),
	[VM_MEM_SRC_ANONYMOUS_HUGETLB_256MB] = SRC_HUGE("anonymous_hugetlb_256mb", 256 * MB),
	[VM_MEM_SRC_ANONYMOUS_HUGETLB_512MB] = SRC_HUGE("anonymous_hugetlb_512mb", 512 * MB),
	[VM_MEM_SRC_ANONYMOUS_HUGETLB_1GB] = SRC_HUGE("anonymous_hugetlb_1gb", 1 * GB),
	[VM_MEM_SRC_ANONYMOUS_HUGETLB_2GB] = SRC_HUGE("anonymous_hugetlb_2gb", 2 * GB),
	[VM_MEM_SRC_ANONYMOUS_HUGETLB_16GB] = SRC_HUGE("anonymous_hugetlb_16gb", 16 * GB),
	/* Shared kinds are memfd-backed; the flags are for the mapping. */
	[VM_MEM_SRC_SHMEM] = { .name = "shmem", .flags = MAP_SHARED },
	[VM_MEM_SRC_SHARED_HUGETLB] = { .name = "shared_hugetlb", .flags = MAP_SHARED },
	/*
	 * guest_memfd (needs a VM: kvm_util makes it): mmap()ed and shared,
	 * or private with anonymous memory as the slot's shared view.
	 */
	[VM_MEM_SRC_GUEST_MEMFD] = { .name = "guest_memfd", .flags = MAP_SHARED,
				     .guest_memfd = true },
	[VM_MEM_SRC_GUEST_MEMFD_PRIVATE] = { .name = "guest_memfd_private", .flags = ANON,
					     .guest_memfd = true, .private_mem = true },
};

const struct vm_mem_backing_src_alias *vm_mem_backing_src_alias(uint32_t i)
{
	TEST_ASSERT(i < NUM_SRC_TYPES, "Backing source type %u out of range", i);
	return &backing_src_table[i];
}

bool read_sys_line(const char *path, char *buf, size_t len)
{
	FILE *f = fopen(path, "r");
	bool ok;

	if (!f)
		return false;
	ok = fgets(buf, len, f) != NULL;
	fclose(f);
	if (ok)
		buf[strcspn(buf, "\n")] = '\0';
	return ok;
}

uint64_t read_sys_u64(const char *path)
{
	char buf[32];

	return read_sys_line(path, buf, sizeof(buf)) ? strtoull(buf, NULL, 10) : 0;
}

bool meminfo_read(const char *key, uint64_t *bytes)
{
	unsigned long long v = 0;
	char line[128];
	size_t len = strlen(key);
	FILE *f = fopen("/proc/meminfo", "r");
	bool found = false;

	if (!f)
		return false;
	while (!found && fgets(line, sizeof(line), f))
		found = !strncmp(line, key, len) && line[len] == ':' &&
			sscanf(line + len + 1, "%llu", &v) == 1;
	fclose(f);
	*bytes = v * KB;
	return found;
}

uint64_t meminfo_kb(const char *key)
{
	uint64_t v;

	return meminfo_read(key, &v) ? v / KB : 0;
}

/* The VMA of /proc/self/smaps holding @addr: its AnonHugePages. */
uint64_t backing_thp_bytes(const void *addr)
{
	unsigned long start, end, kb = 0;
	bool in = false;
	char line[256];
	FILE *f = fopen("/proc/self/smaps", "r");

	TEST_ASSERT(f, "Opening /proc/self/smaps");
	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, "%lx-%lx ", &start, &end) == 2 && strchr(line, '-') < strchr(line, ' '))
			in = (uintptr_t)addr >= start && (uintptr_t)addr < end;
		else if (in && sscanf(line, "AnonHugePages: %lu kB", &kb) == 1)
			break;
	}
	fclose(f);
	return in ? kb * KB : 0;
}

static size_t get_def_hugetlb_pagesz(void)
{
	return meminfo_kb("Hugepagesize") * KB;
}

static size_t get_trans_hugepagesz(void)
{
	return read_sys_u64("/sys/kernel/mm/transparent_hugepage/hpage_pmd_size");
}

bool backing_src_is_hugetlb(uint32_t i)
{
	return (vm_mem_backing_src_alias(i)->flags & MAP_HUGETLB) ||
	       i == VM_MEM_SRC_SHARED_HUGETLB;
}

bool backing_src_is_shared(uint32_t i)
{
	return vm_mem_backing_src_alias(i)->flags & MAP_SHARED;
}

bool backing_src_is_guest_memfd(uint32_t i)
{
	return vm_mem_backing_src_alias(i)->guest_memfd;
}

bool backing_src_is_private(uint32_t i)
{
	return vm_mem_backing_src_alias(i)->private_mem;
}

bool backing_src_host_readable(uint32_t i)
{
	return !backing_src_is_private(i);
}

size_t get_backing_src_pagesz(uint32_t i)
{
	const struct vm_mem_backing_src_alias *src = vm_mem_backing_src_alias(i);

	if (src->hugepage_size)
		return src->hugepage_size;
	switch (i) {
	case VM_MEM_SRC_ANONYMOUS_THP:
		return get_trans_hugepagesz();
	case VM_MEM_SRC_ANONYMOUS_HUGETLB:
	case VM_MEM_SRC_SHARED_HUGETLB:
		return get_def_hugetlb_pagesz();
	default:
		return getpagesize();
	}
}

int try_parse_backing_src_type(const char *name)
{
	int i;

	for (i = 0; i < NUM_SRC_TYPES; i++)
		if (!strcmp(name, backing_src_table[i].name))
			return i;
	return -1;
}

void backing_src_help(FILE *out, const char *flag, uint32_t dflt)
{
	int i;

	fprintf(out, " %s: specify the type of memory that should be used to\n"
		"     back the guest data region. (default: %s)\n     ",
		flag, backing_src_table[dflt].name);
	for (i = 0; i < NUM_SRC_TYPES; i++)
		fprintf(out, "%s%s", backing_src_table[i].name,
			i + 1 < NUM_SRC_TYPES ? (i % 4 == 3 ? ",\n     " : ", ") : "\n");
}

enum vm_mem_backing_src_type parse_backing_src_type(const char *name)
{
	int i = try_parse_backing_src_type(name);

	if (i < 0) {
		fprintf(stderr, "Unknown backing source type '%s'; valid:\n", name);
		backing_src_help(stderr, "-s", DEFAULT_VM_MEM_SRC);
		exit(KSFT_FAIL);
	}
	return i;
}

static const char *hugetlb_unavailable(size_t pagesz, uint64_t size, char *why, size_t len)
{
	uint64_t free_pages, need = DIV_ROUND_UP(size, pagesz);
	char path[128];

	snprintf(path, sizeof(path),
		 "/sys/kernel/mm/hugepages/hugepages-%zukB/free_hugepages",
		 pagesz / KB);
	if (access(path, R_OK)) {
		snprintf(why, len, "%zu kB hugepages are not supported by this host",
			 pagesz / KB);
		return why;
	}
	free_pages = read_sys_u64(path);
	if (free_pages >= need)
		return NULL;
	snprintf(why, len, "%" PRIu64 " free %zu kB hugepages needed, %" PRIu64
		 " available: reserve them in %s", need, pagesz / KB, free_pages,
		 pagesz == get_def_hugetlb_pagesz() ?
		 "/proc/sys/vm/nr_hugepages" : "nr_hugepages of that size");
	return why;
}

const char *backing_src_unavailable(uint32_t type, uint64_t size, char *why, size_t len)
{
	size_t pagesz = get_backing_src_pagesz(type);
	char buf[128];

	if (!pagesz) {
		snprintf(why, len, "Backing source %s is not supported by this host",
			 vm_mem_backing_src_alias(type)->name);
		return why;
	}
	if (type == VM_MEM_SRC_ANONYMOUS_THP &&
	    read_sys_line("/sys/kernel/mm/transparent_hugepage/enabled", buf, sizeof(buf)) &&
	    strstr(buf, "[never]")) {
		snprintf(why, len, "transparent hugepages are disabled");
		return why;
	}
	if (backing_src_is_hugetlb(type))
		return hugetlb_unavailable(pagesz, size, why, len);
	return NULL;
}

void backing_src_require(uint32_t type, uint64_t size)
{
	size_t pagesz = get_backing_src_pagesz(type);
	char why[160];

	if (pagesz && !IS_ALIGNED(size, pagesz))
		test_usage_error("Size 0x%" PRIx64 " is not a multiple of the %s page size 0x%zx",
				 size, vm_mem_backing_src_alias(type)->name, pagesz);
	if (backing_src_unavailable(type, size, why, sizeof(why)))
		test_skip("%s", why);
}
