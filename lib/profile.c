// SPDX-License-Identifier: GPL-2.0-only
/*
 * profile: the kernel's share of a perf test's timed phases, by function:
 * CPU-clock samples of every CPU the test may run on, symbolized from
 * /proc/kallsyms.  See profile.h.
 */
#include <linux/perf_event.h>
#include <sched.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/syscall.h>

#include "profile.h"
#include "test_util.h"

#define PROFILE_PERIOD_NS	500000		/* 2 kHz a CPU */
#define PROFILE_DATA_PAGES	512		/* ring of 2 MiB a CPU: ~40 s of samples */
#define PROFILE_MAX_FUNCS	100		/* per run in FILE; the rest summed */
#define PROFILE_MAX_RUNS	64
#define PROFILE_IP_GUEST	UINT64_MAX	/* sorts last, past every symbol */
#define PROFILE_MAX_PHASES	16

struct profile_cpu {
	int cpu;
	int fd;
	struct perf_event_mmap_page *page;
	size_t map_len;
};

struct profile_func {
	const char *name;
	uint64_t samples;
};

struct profile_funcs {
	struct profile_func *funcs;
	int nr_funcs;
};

struct profile_run {
	char result[64];
	uint64_t samples, other_tasks, idle, lost;
	struct profile_funcs all;
	/* By phase, when the test named phases (perf_report_phase()). */
	const char *phase_names[PROFILE_MAX_PHASES];
	struct profile_funcs phases[PROFILE_MAX_PHASES];
	int nr_phases;
};

struct profile_sample {
	uint64_t ip;
	int phase;
};

static struct {
	const char *path;
	const char *test;
	struct ksyms ksyms;
	struct profile_cpu *cpus;
	int nr_cpus;
	pid_t pid;
	struct profile_sample *ips;	/* this run's kernel samples of the test's threads */
	size_t nr_ips, cap_ips;
	int phase;			/* of the samples now drained */
	struct profile_run cur;
	struct profile_run runs[PROFILE_MAX_RUNS];
	int nr_runs;
} p;

/* ---- kallsyms ------------------------------------------------------------ */

static int ksym_cmp(const void *a, const void *b)
{
	const struct ksym *x = a, *y = b;

	return x->addr < y->addr ? -1 : x->addr > y->addr;
}

static bool is_text(char type)
{
	return type == 't' || type == 'T' || type == 'w' || type == 'W';
}

bool ksyms_load(struct ksyms *k, FILE *f, const char **why)
{
	char line[512], name[256], mod[128], type;
	unsigned long long addr;
	size_t cap = 0;
	bool nonzero = false;
	int n;

	*k = (struct ksyms){ 0 };
	while (fgets(line, sizeof(line), f)) {
		mod[0] = 0;
		n = sscanf(line, "%llx %c %255s %127s", &addr, &type, name, mod);
		if (n < 3 || !is_text(type))
			continue;
		if (k->n == cap) {
			cap = cap ? 2 * cap : 4096;
			k->syms = realloc(k->syms, cap * sizeof(*k->syms));
			TEST_ASSERT(k->syms, "Out of memory for %zu kernel symbols", cap);
		}
		k->syms[k->n].addr = addr;
		TEST_ASSERT(asprintf(&k->syms[k->n].name, n == 4 ? "%s %s" : "%s", name, mod) > 0,
			    "Out of memory for a kernel symbol");
		nonzero |= addr != 0;
		k->n++;
	}
	*why = !k->n ? "no kernel text symbols in kallsyms" :
	       !nonzero ? "kallsyms shows every address as 0" : NULL;
	if (*why) {
		ksyms_free(k);
		return false;
	}
	qsort(k->syms, k->n, sizeof(*k->syms), ksym_cmp);
	return true;
}

const struct ksym *ksyms_find(const struct ksyms *k, uint64_t addr)
{
	size_t lo = 0, hi = k->n, mid;

	/* The first symbol above @addr is at lo when the search ends. */
	while (lo < hi) {
		mid = lo + (hi - lo) / 2;
		if (k->syms[mid].addr <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo ? &k->syms[lo - 1] : NULL;
}

void ksyms_free(struct ksyms *k)
{
	size_t i;

	for (i = 0; i < k->n; i++)
		free(k->syms[i].name);
	free(k->syms);
	*k = (struct ksyms){ 0 };
}

/* ---- sampling ------------------------------------------------------------- */

static long read_proc_long(const char *path)
{
	char buf[32], *end;
	long v;

	if (!read_sys_line(path, buf, sizeof(buf)))
		return -100;
	v = strtol(buf, &end, 10);
	return end == buf ? -100 : v;
}

static int open_cpu_clock(int cpu)
{
	struct perf_event_attr attr = {
		.type = PERF_TYPE_SOFTWARE,
		.size = sizeof(attr),
		.config = PERF_COUNT_SW_CPU_CLOCK,
		.sample_period = PROFILE_PERIOD_NS,
		.sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_TID,
		.disabled = 1,
		.exclude_user = 1,
		.exclude_hv = 1,
		.wakeup_events = 1U << 30,	/* read at the end of a phase, never woken */
	};

	return syscall(__NR_perf_event_open, &attr, -1, cpu, -1, PERF_FLAG_FD_CLOEXEC);
}

static __noreturn void skip_no_perf(int cpu, int err)
{
	const char *hint = err == EACCES || err == EPERM ? "; needs CAP_PERFMON or a lower value" :
			   err == ENOENT ? "; no CPU-clock event in this kernel" : "";

	test_skip("--profile: kernel CPU-clock samples on CPU %d: %s (perf_event_paranoid %ld%s)",
		  cpu, strerror(err), read_proc_long("/proc/sys/kernel/perf_event_paranoid"), hint);
}

static void open_cpu(struct profile_cpu *c, int cpu)
{
	long page = sysconf(_SC_PAGESIZE);

	c->cpu = cpu;
	c->fd = open_cpu_clock(cpu);
	if (c->fd < 0)
		skip_no_perf(cpu, errno);
	c->map_len = (1 + PROFILE_DATA_PAGES) * page;
	c->page = mmap(NULL, c->map_len, PROT_READ | PROT_WRITE, MAP_SHARED, c->fd, 0);
	TEST_ASSERT(c->page != MAP_FAILED, "mmap of the CPU %d clock event's ring (%zu bytes)",
		    cpu, c->map_len);
}

void profile_request(const char *path)
{
	p.path = path;
}

void profile_open(const char *test)
{
	const char *why;
	cpu_set_t set;
	FILE *f;
	int cpu;

	if (!p.path)
		return;
	p.test = test;
	p.pid = getpid();
	f = fopen(p.path, "w");
	if (!f)
		test_usage_error("Cannot write the profile (--profile) '%s': %s", p.path,
				 strerror(errno));
	fclose(f);
	f = fopen("/proc/kallsyms", "r");
	if (!f)
		test_skip("--profile: cannot read /proc/kallsyms: %s", strerror(errno));
	if (!ksyms_load(&p.ksyms, f, &why))
		test_skip("--profile: %s (kptr_restrict %ld: 0, or 1 with CAP_SYSLOG, shows them)",
			  why, read_proc_long("/proc/sys/kernel/kptr_restrict"));
	fclose(f);
	TEST_ASSERT(!sched_getaffinity(0, sizeof(set), &set), "sched_getaffinity");
	p.cpus = calloc(CPU_COUNT(&set), sizeof(*p.cpus));
	TEST_ASSERT(p.cpus, "Out of memory for %d CPUs", CPU_COUNT(&set));
	for (cpu = 0; cpu < CPU_SETSIZE; cpu++)
		if (CPU_ISSET(cpu, &set))
			open_cpu(&p.cpus[p.nr_cpus++], cpu);
}

static int phase_index(const char *name)
{
	int i;

	for (i = 0; i < p.cur.nr_phases; i++)
		if (!strcmp(p.cur.phase_names[i], name))
			return i;
	TEST_ASSERT(i < PROFILE_MAX_PHASES, "More than %d phases to profile", PROFILE_MAX_PHASES);
	p.cur.phase_names[p.cur.nr_phases] = name;
	return p.cur.nr_phases++;
}

void profile_start(void)
{
	int i;

	if (!p.nr_cpus)
		return;
	if (!p.cur.nr_phases)
		p.phase = phase_index("timed");
	for (i = 0; i < p.nr_cpus; i++)
		TEST_ASSERT(!ioctl(p.cpus[i].fd, PERF_EVENT_IOC_ENABLE, 0),
			    "PERF_EVENT_IOC_ENABLE on CPU %d", p.cpus[i].cpu);
}

static void add_ip(uint64_t ip)
{
	if (p.nr_ips == p.cap_ips) {
		p.cap_ips = p.cap_ips ? 2 * p.cap_ips : 65536;
		p.ips = realloc(p.ips, p.cap_ips * sizeof(*p.ips));
		TEST_ASSERT(p.ips, "Out of memory for %zu samples", p.cap_ips);
	}
	p.ips[p.nr_ips++] = (struct profile_sample){ ip, p.phase };
}

/*
 * A sample taken while a vCPU thread ran its guest carries the guest's
 * IP (KVM's perf callbacks): counted as one pseudo-function, "[guest]".
 */
static bool in_guest(uint16_t misc)
{
	uint16_t mode = misc & PERF_RECORD_MISC_CPUMODE_MASK;

	return mode == PERF_RECORD_MISC_GUEST_KERNEL || mode == PERF_RECORD_MISC_GUEST_USER;
}

/* One record at @off of the ring @data (@size bytes), copied out of the wrap. */
static void read_record(const uint8_t *data, uint64_t size, uint64_t off, void *out, size_t len)
{
	size_t first = size - off % size;

	if (first > len)
		first = len;
	memcpy(out, data + off % size, first);
	memcpy((uint8_t *)out + first, data, len - first);
}

static void drain(struct profile_cpu *c)
{
	struct perf_event_mmap_page *pg = c->page;
	const uint8_t *data = (const uint8_t *)pg + pg->data_offset;
	uint64_t head = __atomic_load_n(&pg->data_head, __ATOMIC_ACQUIRE);
	uint64_t tail = pg->data_tail;
	struct perf_event_header h;
	union {
		struct { uint64_t ip; uint32_t pid, tid; } sample;	/* IP | TID */
		struct { uint64_t id, lost; } lost;
	} rec;

	while (tail < head) {
		read_record(data, pg->data_size, tail, &h, sizeof(h));
		TEST_ASSERT(h.size >= sizeof(h), "Bad perf record of size %u on CPU %d",
			    h.size, c->cpu);
		memset(&rec, 0, sizeof(rec));
		read_record(data, pg->data_size, tail + sizeof(h), &rec,
			    h.size - sizeof(h) < sizeof(rec) ? h.size - sizeof(h) : sizeof(rec));
		if (h.type == PERF_RECORD_SAMPLE) {
			if (rec.sample.pid == (uint32_t)p.pid) {
				p.cur.samples++;
				add_ip(in_guest(h.misc) ? PROFILE_IP_GUEST : rec.sample.ip);
			} else if (!rec.sample.pid) {
				p.cur.idle++;
			} else {
				p.cur.other_tasks++;
			}
		} else if (h.type == PERF_RECORD_LOST) {
			p.cur.lost += rec.lost.lost;
		}
		tail += h.size;
	}
	__atomic_store_n(&pg->data_tail, tail, __ATOMIC_RELEASE);
}

void profile_phase(const char *name)
{
	int i;

	if (!p.nr_cpus)
		return;
	for (i = 0; i < p.nr_cpus; i++)
		drain(&p.cpus[i]);
	p.phase = phase_index(name);
}

void profile_stop(void)
{
	int i;

	for (i = 0; i < p.nr_cpus; i++) {
		TEST_ASSERT(!ioctl(p.cpus[i].fd, PERF_EVENT_IOC_DISABLE, 0),
			    "PERF_EVENT_IOC_DISABLE on CPU %d", p.cpus[i].cpu);
		drain(&p.cpus[i]);
	}
}

/* ---- per function --------------------------------------------------------- */

static int sample_cmp(const void *a, const void *b)
{
	uint64_t x = ((const struct profile_sample *)a)->ip;
	uint64_t y = ((const struct profile_sample *)b)->ip;

	return x < y ? -1 : x > y;
}

static int func_cmp(const void *a, const void *b)
{
	const struct profile_func *x = a, *y = b;

	if (x->samples != y->samples)
		return x->samples < y->samples ? 1 : -1;
	return strcmp(x->name, y->name);
}

/* The function (or pseudo-function) a sample's IP lies in. */
static const char *ip_name(uint64_t ip)
{
	const struct ksym *s;

	if (ip == PROFILE_IP_GUEST)
		return "[guest]";
	s = ksyms_find(&p.ksyms, ip);
	return s ? s->name : "[unknown]";
}

/* The current run's samples of @phase (-1: all) by function, most first. */
static void count_funcs(struct profile_funcs *out, int phase)
{
	const char *name, *last = NULL;
	size_t i;

	out->funcs = calloc(p.nr_ips + 1, sizeof(*out->funcs));
	TEST_ASSERT(out->funcs, "Out of memory for the profile");
	for (i = 0; i < p.nr_ips; i++) {
		if (phase >= 0 && p.ips[i].phase != phase)
			continue;
		name = ip_name(p.ips[i].ip);
		if (name != last)
			out->funcs[out->nr_funcs++].name = name;
		out->funcs[out->nr_funcs - 1].samples++;
		last = name;
	}
	qsort(out->funcs, out->nr_funcs, sizeof(*out->funcs), func_cmp);
}

static void symbolize(void)
{
	int i;

	if (p.cur.all.funcs)
		return;
	qsort(p.ips, p.nr_ips, sizeof(*p.ips), sample_cmp);
	count_funcs(&p.cur.all, -1);
	for (i = 0; p.cur.nr_phases > 1 && i < p.cur.nr_phases; i++)
		count_funcs(&p.cur.phases[i], i);
}

static void write_funcs(struct json_writer *w, const char *key, const struct profile_funcs *f)
{
	uint64_t rest = 0;
	int i;

	json_object_begin(w, key);
	for (i = 0; i < f->nr_funcs; i++) {
		if (i < PROFILE_MAX_FUNCS)
			json_u64(w, f->funcs[i].name, f->funcs[i].samples);
		else
			rest += f->funcs[i].samples;
	}
	if (rest)
		json_u64(w, "[other functions]", rest);
	json_object_end(w);
}

static void write_profile(struct json_writer *w, const char *key, const struct profile_run *run)
{
	int i;

	json_object_begin(w, key);
	if (run->result[0])
		json_string(w, "result", run->result);
	json_u64(w, "period_ns", PROFILE_PERIOD_NS);
	json_u64(w, "samples", run->samples);
	json_u64(w, "other_tasks", run->other_tasks);
	json_u64(w, "idle", run->idle);
	json_u64(w, "lost", run->lost);
	write_funcs(w, "functions", &run->all);
	if (run->nr_phases > 1) {
		json_object_begin(w, "phases");
		for (i = 0; i < run->nr_phases; i++)
			if (run->phases[i].nr_funcs)
				write_funcs(w, run->phase_names[i], &run->phases[i]);
		json_object_end(w);
	}
	json_object_end(w);
}

void profile_write_run(struct json_writer *w, const char *key)
{
	if (!p.nr_cpus)
		return;
	symbolize();
	write_profile(w, key, &p.cur);
}

void profile_run_end(const char *result_name)
{
	struct profile_run *run;

	if (!p.nr_cpus)
		return;
	symbolize();
	TEST_ASSERT(p.nr_runs < PROFILE_MAX_RUNS, "More than %d runs to profile",
		    PROFILE_MAX_RUNS);
	run = &p.runs[p.nr_runs++];
	*run = p.cur;
	snprintf(run->result, sizeof(run->result), "%s", result_name);
	p.cur = (struct profile_run){ 0 };
	p.nr_ips = 0;
}

void profile_close(void)
{
	struct json_writer w;
	bool ok;
	FILE *f;
	int i;

	if (!p.nr_cpus)
		return;
	f = fopen(p.path, "w");
	TEST_ASSERT(f, "Cannot write the profile '%s'", p.path);
	json_writer_init(&w, f);
	json_object_begin(&w, NULL);
	json_string(&w, "test", p.test);
	json_string(&w, "event", "cpu-clock");
	json_u64(&w, "period_ns", PROFILE_PERIOD_NS);
	json_array_begin(&w, "cpus");
	for (i = 0; i < p.nr_cpus; i++)
		json_i64(&w, NULL, p.cpus[i].cpu);
	json_array_end(&w);
	json_array_begin(&w, "runs");
	for (i = 0; i < p.nr_runs; i++)
		write_profile(&w, NULL, &p.runs[i]);
	json_array_end(&w);
	json_object_end(&w);
	ok = json_writer_end(&w);
	ok = !fclose(f) && ok;
	TEST_ASSERT(ok, "Writing the profile %s failed", p.path);
	for (i = 0; i < p.nr_cpus; i++) {
		munmap(p.cpus[i].page, p.cpus[i].map_len);
		close(p.cpus[i].fd);
	}
}
