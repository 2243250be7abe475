/*
 * Runs scripts/bench-e2e.py (end-to-end latency through the fake Discord
 * and Matrix servers against ./tabula), so that `make bench`, which runs
 * every bench binary, includes it.  Named bench_z_* to run last.  Needs
 * ./tabula built (`make`); without it, or without python3, it prints a note
 * on stderr and no figures, and succeeds.  BENCH_E2E=0 skips it;
 * BENCH_TABULA names another binary (a build with O=..., whose binary is
 * $(O)/tabula, not ./tabula).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int main(void)
{
	const char *skip = getenv("BENCH_E2E");
	const char *bin = getenv("BENCH_TABULA");

	if (skip && !strcmp(skip, "0"))
		return 0;
	if (!bin || !*bin)
		bin = "./tabula";
	if (access(bin, X_OK) || access("scripts/bench-e2e.py", R_OK)) {
		fprintf(stderr, "bench_z_e2e: %s or scripts/bench-e2e.py missing "
			"(run from the top directory after `make`); no end-to-end figures\n", bin);
		return 0;
	}
	fflush(stdout);
	execlp("python3", "python3", "scripts/bench-e2e.py", bin, (char *)NULL);
	perror("bench_z_e2e: python3");
	return 0;
}
