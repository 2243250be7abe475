/*
 * Playout throughput of every registered game, one core: uniformly random
 * legal moves, and AI seats (bot_move).  One figure per line,
 * "<name> <value> <unit>", for every player count of every game:
 *   playout.<game>.<n>p.random|ai             games/s
 *   playout.<game>.<n>p.random|ai.decisions   decisions/s
 * BENCH_SECONDS (default 1) sets the time spent per figure; BENCH_GAME
 * (an id, e.g. "fortuna") measures that game only.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "games/game.h"

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static void bench(const struct game_ops *g, int n, int ai, double seconds)
{
	void *st = malloc(g->state_size);
	struct move_list *ml = malloc(sizeof(*ml));
	struct buf err = BUF_INIT;
	struct rng r;
	double t0 = now(), t;
	long games = 0, decisions = 0;
	uint64_t seed = 1;

	rng_seed(&r, 42, 7);
	do {
		memset(st, 0, g->state_size);
		if (g->setup(st, n, seed++, "", &err)) {
			fprintf(stderr, "%s: setup: %s\n", g->id, buf_str(&err));
			exit(1);
		}
		for (;;) {
			unsigned aw = g->awaiting(st);
			struct move m;
			int seat;

			if (!aw)
				break;
			/* the lowest seat awaited, without a loop whose exit the
			 * changing seat makes unpredictable */
			seat = __builtin_ctz(aw);
			if (ai) {
				g->bot_move(st, seat, &r, &m);
			} else {
				g->moves(st, seat, ml);
				m = ml->v[rng_below(&r, (uint32_t)(ml->n - ml->nmeta))];
			}
			if (g->apply(st, seat, m, NULL, &err)) {
				fprintf(stderr, "%s: apply: %s\n", g->id, buf_str(&err));
				exit(1);
			}
			decisions++;
		}
		games++;
		t = now() - t0;
	} while (t < seconds);
	printf("playout.%s.%dp.%s %.0f games/s\n", g->id, n, ai ? "ai" : "random", games / t);
	printf("playout.%s.%dp.%s.decisions %.0f decisions/s\n", g->id, n, ai ? "ai" : "random",
	       decisions / t);
	free(st);
	free(ml);
	buf_release(&err);
}

int main(void)
{
	const struct game_ops *const *all = game_all();
	const char *env = getenv("BENCH_SECONDS"), *only = getenv("BENCH_GAME");
	double seconds = env ? atof(env) : 1.0;
	size_t i;
	int n;

	for (i = 0; all[i]; i++)
		for (n = all[i]->min_players; n <= all[i]->max_players; n++) {
			if (only && *only && strcmp(only, all[i]->id))
				continue;
			bench(all[i], n, 0, seconds);
			bench(all[i], n, 1, seconds);
		}
	return 0;
}
