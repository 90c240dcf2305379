// SPDX-License-Identifier: GPL-2.0-only
/*
 * eventfd_perf_test: how fast KVM passes notifications between vCPUs and
 * host threads through eventfds, the way every virtio device does, and
 * how that scales with the number of pairs (like Xen's evtchn-stress).
 *
 * Pair i is vCPU i and a host server (eventfd_serve).  The vCPU writes
 * its doorbell, a port (x86_64) or MMIO address registered with
 * KVM_IOEVENTFD, so KVM signals the doorbell eventfd without an exit to
 * user space; the server reads it and writes the pair's irqfd (KVM_IRQFD),
 * whose GSI is routed to vCPU i alone; the vCPU, halted (HLT / WFI) since
 * it rang, takes the interrupt, counts it, EOIs and rings again: one
 * round trip.  -H runs the same ping-pong between two plain host threads
 * per pair through the same two eventfds: the floor KVM's share is
 * measured against.
 *
 * Checked for every pair: the doorbells the host served, the doorbells
 * the vCPU rang and the interrupts it took are all equal (and equal to
 * -e unless timed with -t), no interrupt arrived with another pair's
 * number (wrong vCPU or vector), none without a doorbell outstanding
 * (spurious), no doorbell was coalesced with another; a lost one stalls
 * the pair, and the stall is reported with the counts.
 */
#include <fcntl.h>
#include <pthread.h>

#include "eventfd_serve.h"
#include "kvm_irq.h"
#include "perf_report.h"
#include "perf_test_util.h"

#define DEFAULT_EVENTS		2000
#define MAX_EVENTS		(1L << 40)
#define MAX_PAIRS		128
#define MAX_POOL		1024
#define MAX_SECONDS		3600
/* Doorbells: a port or an MMIO address per pair, 8 bytes apart. */
#define DOORBELL_PORT		0xe000
#define DOORBELL_GPA		0x0c000000ULL
#define DOORBELL_STRIDE		8
#define DOORBELL_LEN		4
/* No pair made progress for this long: something was lost. */
#define STALL_SECONDS		10

struct ef_params {
	struct perf_test_options o;	/* -v pairs, -c pinning, -B */
	uint64_t events;		/* -e, round trips per pair */
	bool events_set;
	unsigned int seconds;		/* -t, instead of -e */
	enum efd_wait wait;		/* -w */
	int pool;			/* -r, threads of the pool modes */
	bool mmio;			/* -M: MMIO doorbells on x86_64 */
	bool host_only;			/* -H */
};

/* One pair's guest side, in guest memory (the host reads it live). */
struct guest_pair {
	uint64_t rings;		/* doorbells written */
	uint64_t irqs;		/* its interrupts taken */
	uint64_t wrong;		/* interrupts with another number */
	uint64_t last_wrong;
	uint64_t spurious;	/* its interrupts the host did not send */
	uint64_t served;	/* doorbells the host served (it writes this) */
	uint32_t expect;	/* its interrupt number (set by the host) */
} __aligned(64);

/* Shared with the guest (and with the threads of -H). */
static struct guest_pair guest_pairs[MAX_PAIRS];
static uint64_t guest_events;	/* round trips to make; 0: until stopped */
static bool guest_stop;		/* -t is over: ring no more */
static bool guest_abort;	/* a stall: stop waiting too */
static bool guest_pio;
static uint64_t guest_doorbell;	/* pair 0's port or GPA */

static struct efd_server *server;

static __guest_code void guest_irq(uint32_t cpu, uint32_t irq)
{
	struct guest_pair *g = &guest_pairs[cpu];

	if (irq != g->expect) {
		g->wrong++;
		g->last_wrong = irq;
		return;
	}
	if (g->irqs >= g->rings || g->irqs >= READ_ONCE(g->served)) {
		g->spurious++;
		return;
	}
	WRITE_ONCE(g->irqs, g->irqs + 1);
}

static __guest_code void guest_code(uint32_t idx)
{
	struct guest_pair *g = &guest_pairs[idx];
	uint64_t n = 0;

	guest_irq_init(idx);
	while (!READ_ONCE(guest_stop) && (!guest_events || n < guest_events)) {
		WRITE_ONCE(g->rings, ++n);
		guest_doorbell_write(guest_doorbell + idx * DOORBELL_STRIDE, guest_pio, n);
		while (READ_ONCE(g->irqs) < n && !READ_ONCE(guest_abort))
			guest_irq_wait();
		if (READ_ONCE(guest_abort))
			break;
	}
	GUEST_SYNC(1);
}

/* -H: pair @va->vcpu_idx's "vCPU" is this host thread. */
static int host_pass(struct perf_test_vcpu_args *va, uint64_t pass)
{
	struct efd_pair *p = &server->pairs[va->vcpu_idx];
	struct guest_pair *g = &guest_pairs[va->vcpu_idx];
	uint64_t one = 1, v;

	while (!READ_ONCE(guest_stop) && (!guest_events || g->rings < guest_events)) {
		WRITE_ONCE(g->rings, g->rings + 1);
		if (write(p->doorbell_fd, &one, sizeof(one)) != sizeof(one) ||
		    read(p->irq_fd, &v, sizeof(v)) != sizeof(v))
			return perf_test_fail("eventfd ping-pong: %s", strerror(errno));
		WRITE_ONCE(g->irqs, g->irqs + v);
	}
	return 0;
}

static void help(const char *name, const void *arg)
{
	const struct ef_params *d = arg;

	printf("usage: %s [-h] [-v pairs] [-e events | -t seconds] [-w mode] [-r threads]\n"
	       "          [-M] [-c cpus] [-B] [-H] [--json file]\n", name);
	printf(" -v: pairs of a vCPU and a host thread (default: %d, at most %d)\n"
	       " -e: round trips each pair makes (default: %lu)\n"
	       " -t: run for this many seconds instead of -e\n"
	       " -w: how host threads wait for doorbells: read (blocking read of their\n"
	       "     own eventfd; default), epoll (epoll_wait on it), pool (a pool of -r\n"
	       "     threads serving every doorbell, one epoll set each, EPOLLEXCLUSIVE)\n"
	       "     or pool-poll (the same pool in poll(): the thundering herd)\n"
	       " -r: threads of the pool modes (default: one per pair, at most %d)\n"
	       " -M: MMIO doorbells on x86_64 too (default there: port I/O)\n"
	       " -c: pin vCPU threads to these CPUs, e.g. 2,3,4-5: one per vCPU, plus\n"
	       "     optionally one more for the main thread\n"
	       " -B: no start barrier: vCPUs start while later ones are being created\n"
	       " -H: host only: the same ping-pong between two host threads per pair\n"
	       " --json FILE: also write the options and figures, with the KVM stats\n"
	       "     that moved while timed, as one JSON object to FILE\n",
	       d->o.nr_vcpus, MAX_PAIRS, (unsigned long)d->events, MAX_POOL);
}

static void parse_args(int argc, char *argv[], struct ef_params *p)
{
	struct ef_params defaults = *p;
	int opt;

	while ((opt = test_getopt(argc, argv, "v:c:Be:t:w:r:MH", help, &defaults)) != -1) {
		switch (opt) {
		case 'v':
			p->o.nr_vcpus = parse_long("pair count (-v)", optarg, 1, MAX_PAIRS);
			break;
		case 'c':
		case 'B':
		case TEST_OPT_JSON:
		case TEST_OPT_PROFILE:
			perf_test_parse_opt(&p->o, opt, optarg);
			break;
		case 'e':
			p->events = parse_long("event count (-e)", optarg, 1, MAX_EVENTS);
			p->events_set = true;
			break;
		case 't':
			p->seconds = parse_long("seconds (-t)", optarg, 1, MAX_SECONDS);
			break;
		case 'w':
			p->wait = parse_efd_wait(optarg);
			break;
		case 'r':
			p->pool = parse_long("pool threads (-r)", optarg, 1, MAX_POOL);
			break;
		case 'M':
			p->mmio = true;
			break;
		case 'H':
			p->host_only = true;
			break;
		}
	}
}

/*
 * NULL if this KVM has everything the test needs (the caps and the arch's
 * in-kernel interrupt controller), else the reason in @why.  Probed on a
 * scratch VM.
 */
static const char *irq_unavailable(char *why, size_t len)
{
	static const struct {
		long cap;
		const char *name;
	} caps[] = {
		{ KVM_CAP_IRQFD, "KVM_CAP_IRQFD" },
		{ KVM_CAP_IOEVENTFD, "KVM_CAP_IOEVENTFD" },
		{ KVM_CAP_IRQ_ROUTING, "KVM_CAP_IRQ_ROUTING" },
	};
	const char *ret;
	unsigned int i;
	int kvm, vm;

	for (i = 0; i < ARRAY_SIZE(caps); i++) {
		if (kvm_has_cap(caps[i].cap))
			continue;
		snprintf(why, len, "KVM lacks %s", caps[i].name);
		return why;
	}
	kvm = open_kvm_dev_path_or_exit(O_RDWR);
	vm = kvm_ioctl(kvm, KVM_CREATE_VM, 0);
	ret = kvm_arch_irqchip_unavailable(vm, why, len);
	close(vm);
	close(kvm);
	return ret;
}

/* Usage errors first, then what the host lacks. */
static void check_params(struct ef_params *p)
{
	char why[160];

	if (p->events_set && p->seconds)
		test_usage_error("Give a count of round trips (-e) or a time (-t), not both");
	if (p->pool && !efd_wait_pooled(p->wait))
		test_usage_error("Pool threads (-r) need -w pool or -w pool-poll, not -w %s",
				 efd_wait_name(p->wait));
	if (!p->pool)
		p->pool = p->o.nr_vcpus;
	if (p->mmio && p->host_only)
		test_usage_error("MMIO doorbells (-M) are the guest's: not with -H");
	perf_test_options_check(&p->o, p->host_only);
	if (p->host_only)
		return;
	if (irq_unavailable(why, sizeof(why)))
		test_skip("%s", why);
	if ((uint32_t)p->o.nr_vcpus > kvm_irq_max_routes())
		test_skip("%d pairs: this arch's irqchip set-up routes at most %u",
			  p->o.nr_vcpus, kvm_irq_max_routes());
	if (!kvm_arch_has_pio())
		p->mmio = true;
}

static uint64_t doorbell_addr(const struct ef_params *p, int i)
{
	return (p->mmio ? DOORBELL_GPA : DOORBELL_PORT) + i * DOORBELL_STRIDE;
}

/* The guest's counters: the live copy in guest memory, or ours with -H. */
static struct guest_pair *pair_state(struct kvm_vm *vm, int i)
{
	return vm ? addr_gva2hva(vm, (uint64_t)&guest_pairs[i]) : &guest_pairs[i];
}

/* The VM: irqchip, vCPUs, one route + irqfd + ioeventfd per pair. */
static struct kvm_vm *create_vm(const struct ef_params *p)
{
	struct kvm_vm *vm = vm_create(p->o.nr_vcpus);
	struct kvm_vcpu *vcpus[KVM_MAX_VCPUS];
	struct kvm_irq_routing *r;
	int i;

	vm_irqchip_create(vm, p->o.nr_vcpus);
	for (i = 0; i < p->o.nr_vcpus; i++) {
		vcpus[i] = vm_vcpu_add(vm, i, guest_code);
		vcpu_args_set(vcpus[i], 1, (uint64_t)i);
	}
	perf_test_set_vcpus(p->o.nr_vcpus, vcpus);
	vm_irqchip_finalize(vm);
	vm_install_irq_handler(vm, guest_irq);
	if (p->mmio)
		vm_map_mmio(vm, DOORBELL_GPA,
			    ALIGN_UP(p->o.nr_vcpus * DOORBELL_STRIDE, vm->page_size));
	for (i = 0; i < p->o.nr_vcpus; i++)
		server->pairs[i].served_mirror = &pair_state(vm, i)->served;
	r = kvm_gsi_routing_create();
	for (i = 0; i < p->o.nr_vcpus; i++)
		write_guest_global(vm, guest_pairs[i].expect, vm_irq_route(vm, r, i, i));
	vm_gsi_routing_set(vm, r);
	for (i = 0; i < p->o.nr_vcpus; i++) {
		vm_irqfd_assign(vm, server->pairs[i].irq_fd, i);
		vm_ioeventfd_assign(vm, doorbell_addr(p, i), DOORBELL_LEN, !p->mmio,
				    server->pairs[i].doorbell_fd);
	}
	write_guest_global(vm, guest_events, p->events);
	write_guest_global(vm, guest_pio, !p->mmio);
	write_guest_global(vm, guest_doorbell, doorbell_addr(p, 0));
	return vm;
}

static void set_flag(struct kvm_vm *vm, bool *flag)
{
	if (vm)
		*(bool *)addr_gva2hva(vm, (uint64_t)flag) = true;
	else
		WRITE_ONCE(*flag, true);
}

struct watch {
	struct kvm_vm *vm;
	int nr_pairs;
	struct timespec start, progress;
	uint64_t seconds;	/* -t, 0: none */
	uint64_t last_sum;
	bool stalled;
};

/* Called while waiting: end -t, and notice a stall. */
static bool watch_tick(void *arg)
{
	struct watch *w = arg;
	uint64_t sum = 0;
	int i;

	if (w->seconds && timespec_to_sec(timespec_elapsed(w->start)) >= w->seconds)
		set_flag(w->vm, &guest_stop);
	for (i = 0; i < w->nr_pairs; i++)
		sum += READ_ONCE(server->pairs[i].served) + READ_ONCE(pair_state(w->vm, i)->irqs);
	if (sum != w->last_sum) {
		w->last_sum = sum;
		w->progress = timespec_now();
		return false;
	}
	w->stalled = timespec_to_sec(timespec_elapsed(w->progress)) >= STALL_SECONDS;
	return w->stalled;
}

static void print_pairs_state(struct kvm_vm *vm, int nr)
{
	struct guest_pair *g;
	int i;

	for (i = 0; i < nr; i++) {
		g = pair_state(vm, i);
		ksft_print_msg("pair %d: host served %lu, rang %lu, interrupts %lu, wrong %lu, spurious %lu\n",
			       i, (unsigned long)server->pairs[i].served,
			       (unsigned long)g->rings, (unsigned long)g->irqs,
			       (unsigned long)g->wrong, (unsigned long)g->spurious);
	}
}

/*
 * Run every pair to the end.  On a stall, every pair gets one more
 * interrupt with the abort flag set, so halted vCPUs finish and the
 * checks report the counts; if even that does not end them, fail here.
 */
static uint64_t run_pairs(const struct ef_params *p, struct kvm_vm *vm, bool *stalled)
{
	struct watch w = { .vm = vm, .nr_pairs = p->o.nr_vcpus, .seconds = p->seconds };
	uint64_t one = 1, ns;
	int i;

	efd_server_start(server);
	w.start = w.progress = timespec_now();
	perf_test_start_threads(&p->o, p->host_only ? host_pass : __perf_test_vcpu_pass);
	while (!perf_test_wait_pass(1, watch_tick, &w) && w.stalled) {
		print_pairs_state(vm, p->o.nr_vcpus);
		TEST_ASSERT(!READ_ONCE(*(bool *)(vm ? addr_gva2hva(vm, (uint64_t)&guest_abort) :
						 &guest_abort)),
			    "Pairs still stalled %d s after the abort interrupts", STALL_SECONDS);
		ksft_print_msg("No progress for %d s: aborting every pair\n", STALL_SECONDS);
		set_flag(vm, &guest_abort);
		set_flag(vm, &guest_stop);
		for (i = 0; i < p->o.nr_vcpus; i++)
			TEST_ASSERT(write(server->pairs[i].irq_fd, &one, sizeof(one)) == sizeof(one),
				    "write(irq eventfd %d)", i);
		w.stalled = false;
		w.progress = timespec_now();
		*stalled = true;
	}
	ns = timespec_to_ns(timespec_elapsed(w.start));
	perf_test_join_threads();
	efd_server_stop(server);
	return ns;
}

static bool pair_ok(const struct ef_params *p, const struct efd_pair *e,
		    const struct guest_pair *g)
{
	return !g->wrong && !g->spurious && !e->coalesced && e->served == g->rings &&
	       g->irqs == g->rings && (p->seconds || g->rings == p->events);
}

static void check_pairs(const struct ef_params *p, struct kvm_vm *vm, bool stalled)
{
	struct efd_pair *e;
	struct guest_pair *g;
	int i;

	for (i = 0; i < p->o.nr_vcpus; i++)
		if (!pair_ok(p, &server->pairs[i], pair_state(vm, i)))
			break;
	if (i == p->o.nr_vcpus && !stalled)
		return;
	TEST_ASSERT(i < p->o.nr_vcpus, "A pair stalled for %d s, then finished", STALL_SECONDS);
	print_pairs_state(vm, p->o.nr_vcpus);
	e = &server->pairs[i];
	g = pair_state(vm, i);
	TEST_ASSERT(!g->wrong,
		    "Pair %d: %lu interrupts with number 0x%lx, expected 0x%x: wrong vCPU or vector",
		    i, (unsigned long)g->wrong, (unsigned long)g->last_wrong, g->expect);
	TEST_ASSERT(!g->spurious, "Pair %d: %lu spurious interrupts (none outstanding)",
		    i, (unsigned long)g->spurious);
	TEST_ASSERT(!e->coalesced, "Pair %d: %lu doorbells read together with another",
		    i, (unsigned long)e->coalesced);
	TEST_ASSERT(e->served == g->rings,
		    "Pair %d: the host served %lu doorbells, the guest rang %lu",
		    i, (unsigned long)e->served, (unsigned long)g->rings);
	TEST_ASSERT(g->irqs == g->rings, "Pair %d: %lu interrupts for %lu doorbells: %s", i,
		    (unsigned long)g->irqs, (unsigned long)g->rings,
		    g->irqs < g->rings ? "lost" : "too many");
	TEST_ASSERT(!stalled, "Pair %d stalled after %lu round trips: a doorbell or an interrupt was lost (the counts when it stalled are above)",
		    i, (unsigned long)g->rings);
	TEST_FAIL("Pair %d: %lu round trips, %lu asked for", i, (unsigned long)g->rings,
		  (unsigned long)p->events);
}

/* The cumulative stats that moved, with their change per round trip. */
static void print_moved(const char *what, bool vcpu, uint64_t events)
{
	const struct kvm_stat_delta *d;
	int nr = perf_report_stats_moved(vcpu, &d), n = 0, i;
	uint64_t delta;

	printf("KVM %s stats that moved (per round trip):", what);
	for (i = 0; i < nr; i++) {
		delta = d[i].after - d[i].before;
		if ((d[i].flags & KVM_STATS_TYPE_MASK) != KVM_STATS_TYPE_CUMULATIVE ||
		    strstr(d[i].name, "_ns"))
			continue;
		printf("%s %s %lu (%.2f)", n++ ? "," : "", d[i].name, (unsigned long)delta,
		       events ? (double)delta / events : 0);
	}
	printf("%s\n", n ? "" : " none");
}

struct ef_sums {
	uint64_t events;
	struct guest_irq_anomalies odd;
	double mean, total, lo, hi;
	struct latency_hist lat;
};

static void print_pairs(const struct ef_params *p, struct ef_sums *s)
{
	struct perf_test_vcpu_args *va;
	struct efd_pair *e;
	double r;
	int i;

	for (i = 0; i < p->o.nr_vcpus; i++) {
		va = &perf_test_args.vcpu_args[i];
		e = &server->pairs[i];
		r = rate_per_sec(e->served, va->pass_ns);
		printf("Pair %d: %lu events in %lu.%09lus, %.1f events/s\n", i,
		       (unsigned long)e->served, (unsigned long)(va->pass_ns / NSEC_PER_SEC),
		       (unsigned long)(va->pass_ns % NSEC_PER_SEC), r);
		s->events += e->served;
		s->total += r;
		s->lo = !i || r < s->lo ? r : s->lo;
		s->hi = !i || r > s->hi ? r : s->hi;
		latency_hist_merge(&s->lat, &e->latency);
	}
	s->mean = s->total / p->o.nr_vcpus;
}

static void sum_anomalies(const struct ef_params *p, struct kvm_vm *vm, struct ef_sums *s)
{
	struct guest_irq_anomalies a;
	int i;

	for (i = 0; vm && i < p->o.nr_vcpus; i++) {
		vm_irq_anomalies(vm, i, &a);
		s->odd.redelivered += a.redelivered;
		s->odd.in_shadow += a.in_shadow;
	}
	if (s->odd.redelivered || s->odd.in_shadow)
		ksft_print_msg("WARNING: deliveries no CPU makes (counted once, not as failures): %lu interrupts delivered twice, %lu taken inside STI's shadow\n",
			       (unsigned long)s->odd.redelivered, (unsigned long)s->odd.in_shadow);
}

/* The RESULT line (with the stats that moved, and RESULT_STATS) and --json. */
static void report(const struct ef_params *p, const struct ef_sums *s, uint64_t ns)
{
	const struct latency_hist *h = &s->lat;

	perf_report_opt_int("host_only", p->host_only);
	perf_report_opt_int("pairs", p->o.nr_vcpus);
	perf_report_opt_str("wait", efd_wait_name(p->wait));
	perf_report_opt_int("pool", server->nr_threads);
	perf_report_opt_str("doorbell", p->host_only ? "eventfd" : p->mmio ? "mmio" : "pio");
	perf_report_u64("events", s->events, "count");
	perf_report_opt_int("seconds", p->seconds);
	perf_report_u64("time_ns", ns, "ns");
	perf_report_double("rate", s->mean, "events/s");
	perf_report_double("total_rate", s->total, "events/s");
	perf_report_double("pair_rate_min", s->lo, "events/s");
	perf_report_double("pair_rate_max", s->hi, "events/s");
	perf_report_u64("lat_p50_ns", latency_hist_percentile(h, 50), "ns");
	perf_report_u64("lat_p99_ns", latency_hist_percentile(h, 99), "ns");
	perf_report_u64("lat_max_ns", h->max, "ns");
	perf_report_u64("wakes", efd_server_wakes(server, false), "count");
	perf_report_u64("empty_wakes", efd_server_wakes(server, true), "count");
	perf_report_u64("irq_redelivered", s->odd.redelivered, "count");
	perf_report_u64("irq_in_shadow", s->odd.in_shadow, "count");
	perf_report_run_end("eventfd");
}

static void print_result(const struct ef_params *p, struct kvm_vm *vm, bool stats, uint64_t ns)
{
	struct ef_sums s = { 0 };
	const struct latency_hist *h = &s.lat;

	print_pairs(p, &s);
	sum_anomalies(p, vm, &s);
	printf("rate: %.1f event/s (mean per pair), total %.1f event/s over %d pairs, %s\n",
	       s.mean, s.total, p->o.nr_vcpus, p->host_only ? "host threads only" : "KVM");
	printf("Round trip latency: p50 %lu ns, p99 %lu ns, max %lu ns\n",
	       (unsigned long)latency_hist_percentile(h, 50),
	       (unsigned long)latency_hist_percentile(h, 99), (unsigned long)h->max);
	printf("Host servers (%s, %d threads): %lu wake-ups, %lu empty\n",
	       efd_wait_name(p->wait), server->nr_threads,
	       (unsigned long)efd_server_wakes(server, false),
	       (unsigned long)efd_server_wakes(server, true));
	if (stats) {
		print_moved("vCPU", true, s.events);
		print_moved("VM", false, s.events);
	}
	report(p, &s, ns);
}

/* The figures this test reports (perf_report.h: --figures lists them). */
static const char *const figures[] = {
	"events", "time_ns", "rate", "total_rate", "pair_rate_min", "pair_rate_max",
	"lat_p50_ns", "lat_p99_ns", "lat_max_ns", "wakes", "empty_wakes", "irq_redelivered",
	"irq_in_shadow", NULL,
};

int main(int argc, char *argv[])
{
	struct ef_params p = { .events = DEFAULT_EVENTS, .wait = EFD_WAIT_READ };
	struct kvm_vm *vm = NULL;
	bool stats = false;
	bool stalled = false;
	uint64_t ns;

	/* No test memory: -b is not offered; a size every guest mode divides. */
	perf_test_options_init(&p.o, 64 * KB, 1);
	parse_args(argc, argv, &p);
	check_params(&p);
	perf_report_figures(figures);
	perf_report_open("eventfd_perf_test", p.o.json_path, argc, argv);
	if (p.seconds)
		p.events = 0;
	guest_events = p.events;
	perf_test_set_vcpus(p.o.nr_vcpus, NULL);
	server = efd_server_create(p.wait, p.o.nr_vcpus, p.pool);
	if (!p.host_only) {
		vm = create_vm(&p);
		stats = kvm_has_cap(KVM_CAP_BINARY_STATS_FD);
	}
	if (stats) {
		perf_report_stats_in_result();
		perf_report_stats_begin(vm);
	}
	ns = run_pairs(&p, vm, &stalled);
	if (stats)
		perf_report_stats_end(vm);
	check_pairs(&p, vm, stalled);
	print_result(&p, vm, stats, ns);
	perf_report_close();
	if (vm)
		kvm_vm_free(vm);
	efd_server_free(server);
	return KSFT_PASS;
}
