// SPDX-License-Identifier: GPL-2.0-only
/*
 * KVM_SELFTEST_FAIL: which call of which site fails (see fault_inject.h).
 * The variable is read once; the call counts are atomic, so any thread
 * may ask.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fault_inject.h"

#define MAX_SITES	8

static struct site {
	char name[32];
	long nth;
	long calls;
} sites[MAX_SITES];
static int nr_sites;
static pthread_once_t parsed = PTHREAD_ONCE_INIT;

static void parse_env(void)
{
	const char *env = getenv("KVM_SELFTEST_FAIL");
	char *copy, *tok, *save, *colon;

	if (!env || !*env)
		return;
	copy = strdup(env);
	for (tok = strtok_r(copy, ",", &save); tok && nr_sites < MAX_SITES;
	     tok = strtok_r(NULL, ",", &save)) {
		colon = strchr(tok, ':');
		sites[nr_sites].nth = colon ? strtol(colon + 1, NULL, 10) : 1;
		if (colon)
			*colon = 0;
		snprintf(sites[nr_sites].name, sizeof(sites[0].name), "%s", tok);
		nr_sites++;
	}
	free(copy);
}

bool fault_inject(const char *site)
{
	int i;

	pthread_once(&parsed, parse_env);
	for (i = 0; i < nr_sites; i++)
		if (!strcmp(sites[i].name, site))
			return __atomic_add_fetch(&sites[i].calls, 1, __ATOMIC_RELAXED) ==
			       sites[i].nth;
	return false;
}

int test_thread_create(pthread_t *thread, const pthread_attr_t *attr,
		       void *(*fn)(void *), void *arg)
{
	/* pthread_create's convention: a positive errno. */
	return fault_inject("pthread_create") ? EAGAIN : pthread_create(thread, attr, fn, arg);
}
