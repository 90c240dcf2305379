// SPDX-License-Identifier: GPL-2.0-only
/*
 * Child processes for tests: see test_child.h.
 */
#include <sys/wait.h>

#include "test_child.h"
#include "test_util.h"

static void read_all(int fd, char *buf, size_t size)
{
	size_t len = 0;
	ssize_t n;

	while (len + 1 < size && (n = read(fd, buf + len, size - 1 - len)) > 0)
		len += n;
	buf[len] = '\0';
}

int run_child(void (*fn)(const void *arg), const void *arg,
	      char *out, size_t out_size, char *errout, size_t errout_size)
{
	int o[2], e[2], status;
	pid_t pid;

	TEST_ASSERT(!pipe(o) && (!errout || !pipe(e)), "pipe");
	fflush(stdout);
	pid = fork();
	TEST_ASSERT(pid >= 0, "fork");
	if (!pid) {
		dup2(o[1], STDOUT_FILENO);
		dup2(errout ? e[1] : o[1], STDERR_FILENO);
		close(o[0]);
		if (errout)
			close(e[0]);
		fn(arg);
		exit(0);
	}
	close(o[1]);
	if (errout)
		close(e[1]);
	/* Outputs are small: reading one pipe after the other cannot block. */
	read_all(o[0], out, out_size);
	close(o[0]);
	if (errout) {
		read_all(e[0], errout, errout_size);
		close(e[0]);
	}
	TEST_ASSERT(waitpid(pid, &status, 0) == pid, "waitpid");
	return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

static void exec_self(const void *arg)
{
	execl("/proc/self/exe", program_invocation_short_name, (const char *)arg, NULL);
	_exit(127);
}

int run_self(const char *arg, char *out, size_t out_size)
{
	return run_child(exec_self, arg, out, out_size, NULL, 0);
}
