/*
 * bench_util.h: the clock, the environment and the memory figure every
 * bench reads (header only, like bench_common.h, which includes it; a
 * bench that needs no session includes this alone).
 */
#ifndef BENCH_UTIL_H
#define BENCH_UTIL_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static inline double bench_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static inline double bench_env(const char *name, double def)
{
	const char *v = getenv(name);

	return v && *v ? atof(v) : def;
}

/* VmRSS of this process in bytes, 0 if unknown. */
static inline long bench_rss(void)
{
	FILE *f = fopen("/proc/self/status", "r");
	char line[256];
	long kb = 0;

	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f))
		if (!strncmp(line, "VmRSS:", 6))
			kb = atol(line + 6);
	fclose(f);
	return kb * 1024;
}

#endif
