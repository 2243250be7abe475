/*
 * Runs scripts/bench-e2e.py (end-to-end latency through the fake Discord
 * and Matrix servers against ./tabula), so that `make bench`, which runs
 * every bench binary, includes it.  Named bench_z_* to run last.  Its
 * figures (the script's docstring, docs/performance.md):
 *   e2e.discord.<N>rooms.text|picture.p50|p99|max   ms, N = 1, 100, 1000
 *   e2e.matrix.<N>rooms.text|picture.p50|p99|max    ms
 *   e2e.matrix.flood.p50|p99|max                    ms
 * Its exit status is the script's: a run that cannot print what it
 * promises (the binary or python3 missing, a refused set-up, a bot that
 * does not answer) fails `make bench`, the reason on stderr.  BENCH_E2E=0
 * skips it; BENCH_TABULA names another binary (a build with O=..., whose
 * binary is $(O)/tabula, not ./tabula); the script's knobs (E2E_*) pass
 * through.
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
			"(run from the top directory after `make`; BENCH_E2E=0 skips "
			"the end-to-end figures)\n", bin);
		return 1;
	}
	fflush(stdout);
	execlp("python3", "python3", "scripts/bench-e2e.py", bin, (char *)NULL);
	perror("bench_z_e2e: python3 (BENCH_E2E=0 skips the end-to-end figures)");
	return 1;
}
