// SPDX-License-Identifier: GPL-2.0-only
/*
 * perf_report: the RESULT line and the JSON object of a perf test.
 */
#include <dirent.h>
#include <fcntl.h>
#include <fnmatch.h>
#include <sys/stat.h>
#include <sys/utsname.h>

#include "json_writer.h"
#include "perf_report.h"
#include "profile.h"

#define MAX_ITEMS	64
#define MAX_DELTAS	512

struct report_item {
	char key[64];		/* a copy: callers may reuse their buffer */
	const char *unit;	/* NULL: an option */
	enum { ITEM_STR, ITEM_INT, ITEM_U64, ITEM_DOUBLE } type;
	char str[64];
	long i;
	uint64_t u;
	double d;
};

static struct {
	struct json_writer w;
	FILE *f;
	char path[4096];
	char tmp[4104];
	struct report_item items[MAX_ITEMS];
	int nr_items;
	const char *guest_mode;
	bool stats;
	bool stats_in_result;
	const char *const *figures;
	struct kvm_stats_snapshot vm[2], vcpu[2];
	struct kvm_stat_delta moved[2][MAX_DELTAS];	/* the VM's, the vCPUs' */
	int nr_moved[2];
} r;

static void remove_tmp(void)
{
	if (r.f)
		unlink(r.tmp);
}

static void write_kvm(struct json_writer *w)
{
	struct dirent *e;
	DIR *dir;
	int fd;

	json_object_begin(w, "kvm");
	fd = open(KVM_DEV_PATH, O_RDWR | O_CLOEXEC);
	json_i64(w, "api_version", fd >= 0 ? __kvm_ioctl(fd, KVM_GET_API_VERSION, NULL) : -1);
	if (fd >= 0)
		close(fd);
	json_array_begin(w, "modules");
	dir = opendir("/sys/module");
	while (dir && (e = readdir(dir)))
		if (!strncmp(e->d_name, "kvm", 3))
			json_string(w, NULL, e->d_name);
	if (dir)
		closedir(dir);
	json_array_end(w);
	json_object_end(w);
}

static void write_header(const char *test, int argc, char *argv[])
{
	struct json_writer *w = &r.w;
	struct utsname u;
	int i;

	TEST_ASSERT(!uname(&u), "uname");
	json_object_begin(w, NULL);
	json_string(w, "test", test);
	json_array_begin(w, "argv");
	for (i = 0; i < argc; i++)
		json_string(w, NULL, argv[i]);
	json_array_end(w);
	json_object_begin(w, "kernel");
	json_string(w, "release", u.release);
	json_string(w, "version", u.version);
	json_object_end(w);
	json_string(w, "arch", u.machine);
	write_kvm(w);
	json_array_begin(w, "runs");
}

/* --json @path names a file, new or not, in a directory that exists. */
static void check_json_path(const char *path)
{
	char dir[sizeof(r.path)];
	const char *slash = strrchr(path, '/');
	struct stat st;

	if (!*path || (slash && !slash[1]) || (!stat(path, &st) && S_ISDIR(st.st_mode)))
		test_usage_error("The JSON file (--json) '%s' is a directory: name a file", path);
	if (!slash)
		return;
	snprintf(dir, sizeof(dir), "%.*s", (int)(slash - path) ?: 1, path);
	if (stat(dir, &st) || !S_ISDIR(st.st_mode))
		test_usage_error("The JSON file (--json) '%s': no directory '%s'", path, dir);
}

void perf_report_figures(const char *const *keys)
{
	r.figures = keys;
}

static bool declared(const char *key)
{
	const char *const *k;

	for (k = r.figures; *k; k++)
		if (!fnmatch(*k, key, 0))
			return true;
	return false;
}

void perf_report_open(const char *test, const char *json_path, int argc, char *argv[])
{
	const char *const *k;

	if (test_figures_wanted) {
		if (!r.figures)
			test_usage_error("%s declares no figures (--figures)", test);
		for (k = r.figures; *k; k++)
			printf("%s\n", *k);
		exit(KSFT_PASS);
	}
	profile_open(test);
	if (!json_path)
		return;
	if (snprintf(r.path, sizeof(r.path), "%s", json_path) >= (int)sizeof(r.path))
		test_usage_error("JSON path (--json) too long");
	check_json_path(r.path);
	snprintf(r.tmp, sizeof(r.tmp), "%s.tmp", r.path);
	r.f = fopen(r.tmp, "w");
	if (!r.f)
		test_usage_error("Cannot write the JSON file (--json) '%s': %s", r.path,
				 strerror(errno));
	atexit(remove_tmp);
	json_writer_init(&r.w, r.f);
	write_header(test, argc, argv);
}

static struct report_item *new_item(const char *key, const char *unit)
{
	struct report_item *it;

	TEST_ASSERT(r.nr_items < MAX_ITEMS, "More than %d report items", MAX_ITEMS);
	TEST_ASSERT(!unit || !r.figures || declared(key),
		    "Figure '%s' is not among the test's (perf_report_figures())", key);
	it = &r.items[r.nr_items++];
	*it = (struct report_item) { .unit = unit };
	TEST_ASSERT(snprintf(it->key, sizeof(it->key), "%s", key) < (int)sizeof(it->key),
		    "Report key '%s' too long", key);
	return it;
}

void perf_report_opt_str(const char *key, const char *value)
{
	struct report_item *it = new_item(key, NULL);

	it->type = ITEM_STR;
	snprintf(it->str, sizeof(it->str), "%s", value);
}

void perf_report_opt_int(const char *key, long value)
{
	struct report_item *it = new_item(key, NULL);

	it->type = ITEM_INT;
	it->i = value;
}

void perf_report_u64(const char *key, uint64_t value, const char *unit)
{
	struct report_item *it = new_item(key, unit);

	it->type = ITEM_U64;
	it->u = value;
}

void perf_report_double(const char *key, double value, const char *unit)
{
	struct report_item *it = new_item(key, unit);

	it->type = ITEM_DOUBLE;
	it->d = value;
}

void perf_report_guest_mode(const char *name)
{
	r.guest_mode = name;
}

void perf_report_stats_begin(struct kvm_vm *vm)
{
	r.stats = false;
	if (vm)
		kvm_stats_snapshot_vm(vm, &r.vm[0], &r.vcpu[0]);
	profile_start();
}

void perf_report_stats_end(struct kvm_vm *vm)
{
	profile_stop();
	if (!vm)
		return;
	kvm_stats_snapshot_vm(vm, &r.vm[1], &r.vcpu[1]);
	r.nr_moved[0] = kvm_stats_snapshot_diff(&r.vm[0], &r.vm[1], r.moved[0], MAX_DELTAS);
	r.nr_moved[1] = kvm_stats_snapshot_diff(&r.vcpu[0], &r.vcpu[1], r.moved[1], MAX_DELTAS);
	r.stats = true;
}

void perf_report_phase(const char *name)
{
	profile_phase(name);
}

int perf_report_stats_moved(bool vcpu, const struct kvm_stat_delta **moved)
{
	*moved = r.moved[vcpu];
	return r.stats ? r.nr_moved[vcpu] : 0;
}

void perf_report_stats_in_result(void)
{
	r.stats_in_result = true;
}

static bool is_cumulative(const struct kvm_stat_delta *d)
{
	return (d->flags & KVM_STATS_TYPE_MASK) == KVM_STATS_TYPE_CUMULATIVE;
}

/* The cumulative stats of the VM or the vCPUs that moved, as " PREFIXname=delta". */
static void print_moved(bool vcpu, const char *prefix)
{
	const struct kvm_stat_delta *d;
	int n = perf_report_stats_moved(vcpu, &d), i;

	for (i = 0; i < n; i++)
		if (is_cumulative(&d[i]))
			printf(" %s%s=%lu", prefix, d[i].name,
			       (unsigned long)(d[i].after - d[i].before));
}

static void print_item(const struct report_item *it)
{
	printf(" %s=", it->key);
	switch (it->type) {
	case ITEM_STR:
		printf("%s", it->str);
		break;
	case ITEM_INT:
		printf("%ld", it->i);
		break;
	case ITEM_U64:
		printf("%lu", (unsigned long)it->u);
		break;
	case ITEM_DOUBLE:
		printf("%.1f", it->d);
		break;
	}
}

static void write_item_value(struct json_writer *w, const char *key,
			     const struct report_item *it)
{
	switch (it->type) {
	case ITEM_STR:
		json_string(w, key, it->str);
		break;
	case ITEM_INT:
		json_i64(w, key, it->i);
		break;
	case ITEM_U64:
		json_u64(w, key, it->u);
		break;
	case ITEM_DOUBLE:
		json_double(w, key, it->d);
		break;
	}
}

static void write_items(struct json_writer *w, bool figures)
{
	const struct report_item *it;
	int i;

	json_object_begin(w, figures ? "figures" : "options");
	for (i = 0; i < r.nr_items; i++) {
		it = &r.items[i];
		if (!it->unit == figures)
			continue;
		if (!figures) {
			write_item_value(w, it->key, it);
			continue;
		}
		json_object_begin(w, it->key);
		write_item_value(w, "value", it);
		json_string(w, "unit", it->unit);
		json_object_end(w);
	}
	json_object_end(w);
}

static const char *stat_type(uint32_t flags)
{
	static const char * const names[] = {
		"cumulative", "instant", "peak", "linear_hist", "log_hist",
	};
	uint32_t t = (flags & KVM_STATS_TYPE_MASK) >> KVM_STATS_TYPE_SHIFT;

	return t < ARRAY_SIZE(names) ? names[t] : "unknown";
}

static const char *stat_unit(uint32_t flags)
{
	static const char * const names[] = {
		"none", "bytes", "seconds", "cycles", "boolean",
	};
	uint32_t u = (flags & KVM_STATS_UNIT_MASK) >> KVM_STATS_UNIT_SHIFT;

	return u < ARRAY_SIZE(names) ? names[u] : "unknown";
}

static void write_deltas(struct json_writer *w, const char *key, bool vcpu)
{
	const struct kvm_stat_delta *d;
	int n = perf_report_stats_moved(vcpu, &d), i;

	json_object_begin(w, key);
	for (i = 0; i < n; i++) {
		json_object_begin(w, d[i].name);
		json_i64(w, "delta", (int64_t)(d[i].after - d[i].before));
		json_u64(w, "before", d[i].before);
		json_u64(w, "after", d[i].after);
		json_string(w, "type", stat_type(d[i].flags));
		json_string(w, "unit", stat_unit(d[i].flags));
		json_object_end(w);
	}
	json_object_end(w);
}

static void write_run(struct json_writer *w, const char *result_name)
{
	json_object_begin(w, NULL);
	json_string(w, "result", result_name);
	if (r.guest_mode)
		json_string(w, "guest_mode", r.guest_mode);
	write_items(w, false);
	write_items(w, true);
	if (r.stats) {
		json_object_begin(w, "stats");
		write_deltas(w, "vm", false);
		write_deltas(w, "vcpu", true);
		json_object_end(w);
	}
	profile_write_run(w, "profile");
	json_object_end(w);
}

void perf_report_run_end(const char *result_name)
{
	int i;

	printf("RESULT test=%s", result_name);
	for (i = 0; i < r.nr_items; i++)
		print_item(&r.items[i]);
	if (r.stats_in_result && r.stats) {
		print_moved(true, "");
		print_moved(false, "vm_");
		printf("\nRESULT_STATS");
		print_moved(true, "");
		print_moved(false, "");
	}
	printf("\n");
	if (r.f)
		write_run(&r.w, result_name);
	profile_run_end(result_name);
	r.nr_items = 0;
	r.guest_mode = NULL;
	r.stats = false;
	for (i = 0; i < 2; i++) {
		kvm_stats_snapshot_free(&r.vm[i]);
		kvm_stats_snapshot_free(&r.vcpu[i]);
	}
}

void perf_report_close(void)
{
	bool ok;

	profile_close();
	if (!r.f)
		return;
	json_array_end(&r.w);
	json_object_end(&r.w);
	ok = json_writer_end(&r.w);
	ok = !fclose(r.f) && ok;
	r.f = NULL;
	ok = ok && !rename(r.tmp, r.path);
	if (!ok)
		unlink(r.tmp);
	TEST_ASSERT(ok, "Writing the JSON file %s failed", r.path);
}
