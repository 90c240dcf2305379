// SPDX-License-Identifier: GPL-2.0-only
/*
 * Access tracking with MGLRU (Documentation/admin-guide/mm/multigen_lru.rst).
 *
 * The test joins its own memory cgroup (cgroup v2, mounted if nothing
 * is), so its guest memory is charged there; "+ memcg node max_seq 1 1"
 * written to debugfs lru_gen ages that memcg: it walks the page tables,
 * clearing and testing the Accessed bits (through KVM's clear_young
 * where the kernel's walk notifies secondary MMUs), moves each page found
 * young into generation max_seq and opens a new, empty max_seq + 1.  So
 * after an aging, pages in the two youngest generations were accessed
 * since the previous one; pages in older generations are idle.
 *
 * lru_gen/enabled is turned on (all features) where it is off, debugfs
 * mounted where it is not; every change is undone at teardown.
 */
#include <fcntl.h>
#include <sys/mount.h>
#include <sys/stat.h>

#include "access_tracking.h"

/* Changes to the host, undone at teardown (and at exit). */
#define MAX_RESTORES	16

/* One change to undo: a value to write back, a mount, a directory. */
static struct restore {
	enum { RESTORE_WRITE, RESTORE_UMOUNT, RESTORE_RMDIR } kind;
	char path[256];
	char val[64];
} restores[MAX_RESTORES];
static int nr_restores;
static bool restore_registered;

/* Write @val to @path; false with errno if it fails. */
static bool write_file(const char *path, const char *val)
{
	int fd = open(path, O_WRONLY | O_CLOEXEC);
	ssize_t n;
	int err;

	if (fd < 0)
		return false;
	n = write(fd, val, strlen(val));
	err = errno;
	close(fd);
	errno = err;
	return n == (ssize_t)strlen(val);
}

static void restore_all(void);

static struct restore *push_restore(int kind, const char *path)
{
	struct restore *r;

	TEST_ASSERT(nr_restores < MAX_RESTORES, "More than %d host changes to undo",
		    MAX_RESTORES);
	if (!restore_registered) {
		atexit(restore_all);
		restore_registered = true;
	}
	r = &restores[nr_restores++];
	r->kind = kind;
	snprintf(r->path, sizeof(r->path), "%s", path);
	r->val[0] = '\0';
	return r;
}

/*
 * Write @val to @path; at teardown write @undo back (NULL: the value it
 * had).  False if the write fails.
 */
static bool write_restore(const char *path, const char *val, const char *undo)
{
	char old[64];

	if (!undo && !read_sys_line(path, old, sizeof(old)))
		return false;
	if (!write_file(path, val))
		return false;
	snprintf(push_restore(RESTORE_WRITE, path)->val, sizeof(old), "%s", undo ? undo : old);
	return true;
}

/* Mount @fstype at @dir (created if missing), unmounted at teardown; false if it fails. */
static bool mount_restore(const char *fstype, const char *dir)
{
	mkdir(dir, 0755);
	if (mount(fstype, dir, fstype, 0, NULL))
		return false;
	push_restore(RESTORE_UMOUNT, dir);
	return true;
}

/* rmdir @dir at teardown, after what was pushed later is undone. */
static void rmdir_at_restore(const char *dir)
{
	push_restore(RESTORE_RMDIR, dir);
}

/* Undo every change, last first. */
static void restore_all(void)
{
	struct restore *r;

	while (nr_restores) {
		r = &restores[--nr_restores];
		if (r->kind == RESTORE_WRITE && !write_file(r->path, r->val))
			fprintf(stderr, "WARNING: could not restore %s to %s: %s\n",
				r->path, r->val, strerror(errno));
		if (r->kind == RESTORE_UMOUNT && umount(r->path))
			fprintf(stderr, "WARNING: could not unmount %s: %s\n", r->path,
				strerror(errno));
		if (r->kind == RESTORE_RMDIR && rmdir(r->path))
			fprintf(stderr, "WARNING: could not remove %s: %s\n", r->path,
				strerror(errno));
	}
}

#define LRU_GEN_ENABLED		"/sys/kernel/mm/lru_gen/enabled"
#define DEBUGFS_DIR		"/sys/kernel/debug"
#define LRU_GEN_DEBUGFS		DEBUGFS_DIR "/lru_gen"
#define MGLRU_FEATURES		0x3	/* the core, and page table walks */
#define MAX_NODES		64
#define MAX_GENS		8

struct mglru_node {
	int id;
	int nr_gens;
	unsigned long seq[MAX_GENS];
	uint64_t pages[MAX_GENS];
};

static struct {
	char root[256];		/* a cgroup v2 mount */
	char memcg[256];	/* the test's memcg, relative to root */
	unsigned long memcg_id;
	int nr_nodes;
	struct mglru_node nodes[MAX_NODES];
} m;

static const char *mglru_unavailable(char *why, size_t len)
{
	char buf[64];

	if (!read_sys_line(LRU_GEN_ENABLED, buf, sizeof(buf))) {
		snprintf(why, len, "no %s (CONFIG_LRU_GEN is not set)", LRU_GEN_ENABLED);
		return why;
	}
	if (geteuid()) {
		snprintf(why, len, "aging through %s needs root", LRU_GEN_DEBUGFS);
		return why;
	}
	return NULL;
}

/* Any cgroup v2 mount from /proc/mounts into m.root. */
static bool find_cgroup2(void)
{
	char dev[64], dir[256], type[64];
	bool found = false;
	FILE *f = fopen("/proc/mounts", "r");

	while (f && !found && fscanf(f, "%63s %255s %63s %*[^\n]", dev, dir, type) == 3)
		if (!strcmp(type, "cgroup2")) {
			snprintf(m.root, sizeof(m.root), "%s", dir);
			found = true;
		}
	if (f)
		fclose(f);
	return found;
}

static void enable_lru_gen(void)
{
	char buf[64];
	long v;

	TEST_ASSERT(read_sys_line(LRU_GEN_ENABLED, buf, sizeof(buf)),
		    "Reading %s failed", LRU_GEN_ENABLED);
	v = strtol(buf, NULL, 16);
	if ((v & MGLRU_FEATURES) == MGLRU_FEATURES)
		return;
	if (!write_restore(LRU_GEN_ENABLED, "y", NULL))
		test_skip("mglru: enabling it (y > %s, was %s) failed: %s", LRU_GEN_ENABLED,
			  buf, strerror(errno));
	printf("mglru: enabled %s (was %s; restored at exit)\n", LRU_GEN_ENABLED, buf);
}

static void mount_debugfs(void)
{
	struct stat st;

	if (!stat(LRU_GEN_DEBUGFS, &st))
		return;
	if (!mount_restore("debugfs", DEBUGFS_DIR))
		test_skip("mglru: no %s, and mounting debugfs there failed: %s",
			  LRU_GEN_DEBUGFS, strerror(errno));
	if (stat(LRU_GEN_DEBUGFS, &st))
		test_skip("mglru: no %s in debugfs", LRU_GEN_DEBUGFS);
}

static void mount_cgroup2(void)
{
	char dir[] = "/tmp/access_tracking_cg.XXXXXX";

	if (find_cgroup2())
		return;
	TEST_ASSERT(mkdtemp(dir), "mkdtemp(%s)", dir);
	rmdir_at_restore(dir);
	if (!mount_restore("cgroup2", dir))
		test_skip("mglru: no cgroup v2 mounted, and mounting it failed: %s",
			  strerror(errno));
	snprintf(m.root, sizeof(m.root), "%s", dir);
}

/* The memory controller on for the root's children. */
static void enable_memory_controller(void)
{
	char path[300], buf[256];

	snprintf(path, sizeof(path), "%s/cgroup.controllers", m.root);
	if (!read_sys_line(path, buf, sizeof(buf)) || !strstr(buf, "memory"))
		test_skip("mglru: no memory controller in cgroup v2 at %s (bound to cgroup v1?)",
			  m.root);
	snprintf(path, sizeof(path), "%s/cgroup.subtree_control", m.root);
	if (read_sys_line(path, buf, sizeof(buf)) && strstr(buf, "memory"))
		return;
	if (!write_restore(path, "+memory", "-memory"))
		test_skip("mglru: enabling the memory controller in %s failed: %s", path,
			  strerror(errno));
}

/* Move this process into a memcg of its own; moved back at teardown. */
static void join_memcg(void)
{
	static int nr_joined;
	char path[600], orig[300], pid[24];

	TEST_ASSERT(read_sys_line("/proc/self/cgroup", orig, sizeof(orig)) &&
		    !strncmp(orig, "0::", 3),
		    "This process is not in a cgroup v2 hierarchy: /proc/self/cgroup says '%s'",
		    orig);
	/* A name of its own per guest mode: a removed memcg lingers in lru_gen. */
	snprintf(m.memcg, sizeof(m.memcg), "/access_tracking_perf_test.%d.%d", getpid(),
		 ++nr_joined);
	snprintf(path, sizeof(path), "%s%s", m.root, m.memcg);
	TEST_ASSERT(!mkdir(path, 0755), "mkdir(%s)", path);
	rmdir_at_restore(path);
	snprintf(pid, sizeof(pid), "%d", getpid());
	/* Moving back: this process into the cgroup it came from. */
	snprintf(path, sizeof(path), "%s%s/cgroup.procs", m.root,
		 strcmp(orig + 3, "/") ? orig + 3 : "");
	TEST_ASSERT(write_restore(path, pid, pid), "Writing %s failed", path);
	snprintf(path, sizeof(path), "%s%s/cgroup.procs", m.root, m.memcg);
	TEST_ASSERT(write_file(path, pid), "Joining memcg %s (writing %s) failed",
		    m.memcg, path);
}

static void mglru_setup(void)
{
	enable_lru_gen();
	mount_debugfs();
	mount_cgroup2();
	enable_memory_controller();
	join_memcg();
	printf("mglru: memcg %s (cgroup v2 at %s), aging through %s\n", m.memcg, m.root,
	       LRU_GEN_DEBUGFS);
}

/* A "memcg ID PATH" line: is it ours? */
static bool parse_memcg_line(const char *line)
{
	unsigned long id;
	char path[256];

	if (sscanf(line, "memcg %lu %255s", &id, path) != 2 || strcmp(path, m.memcg))
		return false;
	m.memcg_id = id;
	return true;
}

static void parse_gen_line(const char *line)
{
	struct mglru_node *n = &m.nodes[m.nr_nodes - 1];
	unsigned long seq, age, anon, file;

	if (sscanf(line, "%lu %lu %lu %lu", &seq, &age, &anon, &file) != 4)
		return;
	TEST_ASSERT(n->nr_gens < MAX_GENS, "%s: more than %d generations", LRU_GEN_DEBUGFS,
		    MAX_GENS);
	n->seq[n->nr_gens] = seq;
	n->pages[n->nr_gens++] = anon + file;
}

/* Our memcg's generations, per node, from debugfs lru_gen. */
static void read_gens(void)
{
	bool ours = false;
	char line[256];
	FILE *f = fopen(LRU_GEN_DEBUGFS, "r");
	int node;

	TEST_ASSERT(f, "Opening %s failed", LRU_GEN_DEBUGFS);
	m.nr_nodes = 0;
	m.memcg_id = 0;
	while (fgets(line, sizeof(line), f)) {
		if (!strncmp(line, "memcg", 5)) {
			if (ours)
				break;
			ours = parse_memcg_line(line);
		} else if (ours && sscanf(line, " node %d", &node) == 1) {
			TEST_ASSERT(m.nr_nodes < MAX_NODES, "More than %d nodes", MAX_NODES);
			m.nodes[m.nr_nodes++] = (struct mglru_node) { .id = node };
		} else if (ours && m.nr_nodes) {
			parse_gen_line(line);
		}
	}
	fclose(f);
	TEST_ASSERT(m.memcg_id, "%s lists no memcg %s", LRU_GEN_DEBUGFS, m.memcg);
}

static unsigned long max_seq(const struct mglru_node *n)
{
	unsigned long max = 0;
	int i;

	for (i = 0; i < n->nr_gens; i++)
		max = n->seq[i] > max ? n->seq[i] : max;
	return max;
}

static void age_node(const struct mglru_node *n)
{
	char cmd[96];

	/* can_swap 1, force_scan 1: walk the page tables, anon pages too. */
	snprintf(cmd, sizeof(cmd), "+ %lu %d %lu 1 1\n", m.memcg_id, n->id, max_seq(n));
	TEST_ASSERT(write_file(LRU_GEN_DEBUGFS, cmd),
		    "Aging '%.*s' through %s failed", (int)strlen(cmd) - 1, cmd,
		    LRU_GEN_DEBUGFS);
}

static void mglru_age(const struct access_range *r, struct access_counts *c)
{
	const struct mglru_node *n;
	int i, g;

	read_gens();
	for (i = 0; i < m.nr_nodes; i++)
		age_node(&m.nodes[i]);
	read_gens();
	for (i = 0; i < m.nr_nodes; i++) {
		n = &m.nodes[i];
		for (g = 0; g < n->nr_gens; g++) {
			if (n->seq[g] + 1 >= max_seq(n))
				c->young += n->pages[g];
			else
				c->idle += n->pages[g];
		}
	}
	/*
	 * The memcg holds what the process allocated since joining it, too
	 * (a few pages: thread stacks, vCPU stacks): no more than test pages.
	 */
	c->young = c->young < c->total ? c->young : c->total;
	c->idle = c->idle < c->total ? c->idle : c->total;
}

static void mglru_teardown(void)
{
	restore_all();
}

const struct access_ops access_mglru_ops = {
	.name = "mglru",
	.unavailable = mglru_unavailable,
	.setup = mglru_setup,
	.age = mglru_age,
	.teardown = mglru_teardown,
};
