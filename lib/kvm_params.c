// SPDX-License-Identifier: GPL-2.0-only
/*
 * kvm_params: reading and (temporarily) writing KVM's module parameters.
 *
 * The restore runs from atexit() and from a signal handler, so it only
 * uses open/write/close on what kvm_param_set() saved beforehand.
 */
#include <fcntl.h>
#include <signal.h>

#include "kvm_params.h"
#include "test_util.h"

#define MAX_SAVED	8

static struct {
	char path[128];
	char old[KVM_PARAM_LEN];
} saved[MAX_SAVED];
static int nr_saved;
static pid_t owner;		/* a forked child restores nothing */

static void param_path(char *path, size_t len, const char *name)
{
	snprintf(path, len, "/sys/module/kvm/parameters/%s", name);
}

bool kvm_param_read(const char *name, char *buf, size_t len)
{
	char path[128];

	param_path(path, sizeof(path), name);
	return read_sys_line(path, buf, len);
}

int kvm_param_bool(const char *name)
{
	char v[KVM_PARAM_LEN];

	if (!kvm_param_read(name, v, sizeof(v)))
		return -1;
	if (!strcmp(v, "Y") || !strcmp(v, "1"))
		return 1;
	if (!strcmp(v, "N") || !strcmp(v, "0"))
		return 0;
	return -1;
}

static bool write_path(const char *path, const char *value)
{
	int fd = open(path, O_WRONLY), err;
	ssize_t n, len = strlen(value);

	if (fd < 0)
		return false;
	n = write(fd, value, len);
	err = errno;
	close(fd);
	errno = n < 0 ? err : EIO;
	return n == len;
}

void kvm_params_restore(void)
{
	int i;

	if (getpid() != owner)
		return;
	/* Newest first, as the parameters were changed. */
	for (i = nr_saved - 1; i >= 0; i--)
		write_path(saved[i].path, saved[i].old);
	WRITE_ONCE(nr_saved, 0);
}

static void restore_on_signal(int sig)
{
	kvm_params_restore();
	signal(sig, SIG_DFL);
	raise(sig);
}

/* Once, before the first change: restore at exit and on a signal. */
static void arm_restore(void)
{
	struct sigaction sa = { .sa_handler = restore_on_signal };
	static bool armed;

	if (armed)
		return;
	armed = true;
	owner = getpid();
	TEST_ASSERT(!atexit(kvm_params_restore), "atexit");
	sigemptyset(&sa.sa_mask);
	TEST_ASSERT(!sigaction(SIGINT, &sa, NULL) && !sigaction(SIGTERM, &sa, NULL),
		    "sigaction(SIGINT, SIGTERM)");
}

bool kvm_param_set(const char *name, const char *value, char *why, size_t len)
{
	char old[KVM_PARAM_LEN], path[128];
	int i;

	if (!kvm_param_read(name, old, sizeof(old))) {
		snprintf(why, len, "KVM has no parameter %s", name);
		return false;
	}
	param_path(path, sizeof(path), name);
	/* The first value of each parameter is the one put back. */
	for (i = 0; i < nr_saved && strcmp(saved[i].path, path); i++)
		;
	if (i == nr_saved) {
		TEST_ASSERT(i < MAX_SAVED, "More than %d KVM parameters changed", MAX_SAVED);
		arm_restore();
		snprintf(saved[i].path, sizeof(saved[i].path), "%s", path);
		snprintf(saved[i].old, sizeof(saved[i].old), "%s", old);
	}
	if (!write_path(path, value)) {
		snprintf(why, len, "/sys/module/kvm/parameters/%s cannot be written here (%s)", name,
			 strerror(errno));
		return false;
	}
	if (i == nr_saved)
		WRITE_ONCE(nr_saved, i + 1);
	return true;
}
