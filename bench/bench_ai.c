/*
 * Strength and answer time of the searching AI (games/search.h) against
 * the baseline AI (ops->bot_move), every registered game with a determinize
 * op, with 2 players (3 for a game of 3 or more, e.g. Sylla: the search
 * against two baselines).  Game g is set up with seed g + 1; the search
 * sits at seat g % n (in turn), the baseline at the others, the search and
 * the baselines each with their own rng.  Figures, one per line on stdout:
 *
 *   ai.<game>.<n>p.search.winrate <pct> %   (a win shared by k seats counts 1/k)
 *   ai.<game>.<n>p.search.answer.p50|p99|max <ms> ms
 *   ai.<game>.<n>p.search.iterations <n> playouts   (the budget per decision)
 *
 * Answer times are the CPU time of search_move (one core; other load on the
 * machine does not inflate them) on decisions with more than one non-meta
 * move (the others return at once without searching).  Two workers (fork)
 * play alternate games and send their results through a pipe.
 * BENCH_AI_GAMES (200) games per game; arguments (game ids) restrict the
 * run to those games; for tuning, the knobs of override() replace the
 * search's defaults.
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "games/game.h"
#include "games/search.h"

#define WORKERS 2

enum outcome { OUT_WIN, OUT_TIE, OUT_LOSS, OUT_NONE, OUT_COUNT };

/* What a worker sends per game: this header, then `decisions` float
 * answer times in ms. */
struct record {
	int game;
	int outcome;		/* enum outcome */
	int decisions;		/* search decisions timed */
	int cpu_ms;		/* the game's CPU time (all seats) */
	int share;		/* seats sharing the win (OUT_TIE), or all seats (OUT_NONE) */
};

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* CPU time of this process: an answer's cost on one core, whatever else
 * the machine is running. */
static double cpu(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static int write_all(int fd, const void *p, size_t n)
{
	const char *c = p;

	while (n) {
		ssize_t w = write(fd, c, n);

		if (w <= 0)
			return -1;
		c += w;
		n -= (size_t)w;
	}
	return 0;
}

static int read_all(int fd, void *p, size_t n)
{
	char *c = p;

	while (n) {
		ssize_t r = read(fd, c, n);

		if (r <= 0)
			return -1;
		c += r;
		n -= (size_t)r;
	}
	return 0;
}

/* Plays game g; fills rec and times[0..rec->decisions) (room for cap). */
/* Seats of the benchmark's games: 2, or the game's minimum above that. */
static int bench_seats(const struct game_ops *ops)
{
	return ops->min_players > 2 ? ops->min_players : 2;
}

static void play(const struct game_ops *ops, const struct search_params *sp, int g,
		 struct record *rec, float **times, int *cap)
{
	void *st = calloc(1, ops->state_size);
	struct move_list *ml = malloc(sizeof(*ml));
	struct buf err = BUF_INIT;
	struct game_result res;
	struct rng rs, rb;
	int n = bench_seats(ops), me = g % n;
	double t0 = cpu();

	if (!st || !ml) {
		fprintf(stderr, "bench_ai: out of memory\n");
		exit(1);
	}
	memset(rec, 0, sizeof(*rec));
	rec->game = g;
	if (ops->setup(st, n, (uint64_t)g + 1, "", &err)) {
		fprintf(stderr, "%s: setup: %s\n", ops->id, buf_str(&err));
		exit(1);
	}
	rng_seed(&rs, 1000 + (uint64_t)g, 1);
	rng_seed(&rb, 2000 + (uint64_t)g, 2);
	for (;;) {
		unsigned aw = ops->awaiting(st);
		struct move m;
		int seat = 0, r;

		if (!aw)
			break;
		while (!(aw & (1u << seat)))
			seat++;
		if (seat == me) {
			int searched;
			double t;

			ops->moves(st, seat, ml);
			searched = ml->n - ml->nmeta > 1;
			t = cpu();
			r = search_move(ops, st, seat, sp, &rs, &m);
			t = cpu() - t;
			if (searched) {
				if (rec->decisions == *cap) {
					*cap = *cap ? *cap * 2 : 1024;
					*times = realloc(*times, (size_t)*cap * sizeof(**times));
					if (!*times) {
						fprintf(stderr, "bench_ai: out of memory\n");
						exit(1);
					}
				}
				(*times)[rec->decisions++] = (float)(t * 1000.0);
			}
		} else {
			r = ops->bot_move(st, seat, &rb, &m);
		}
		if (r || ops->apply(st, seat, m, NULL, &err)) {
			fprintf(stderr, "%s: game %d: no move or apply failed: %s\n", ops->id, g,
				buf_str(&err));
			exit(1);
		}
	}
	memset(&res, 0, sizeof(res));
	ops->result(st, &res);
	if (!res.winners)
		rec->outcome = OUT_NONE;
	else if (!(res.winners & (1u << me)))
		rec->outcome = OUT_LOSS;
	else
		rec->outcome = res.winners == (1u << me) ? OUT_WIN : OUT_TIE;
	rec->share = rec->outcome == OUT_NONE ? n : __builtin_popcount(res.winners);
	rec->cpu_ms = (int)((cpu() - t0) * 1000.0);
	free(st);
	free(ml);
	buf_release(&err);
}

static void worker(const struct game_ops *ops, const struct search_params *sp, int w,
		   int games, int fd)
{
	float *times = NULL;
	int cap = 0, g;

	for (g = w; g < games; g += WORKERS) {
		struct record rec;

		play(ops, sp, g, &rec, &times, &cap);
		if (write_all(fd, &rec, sizeof(rec)) ||
		    write_all(fd, times, (size_t)rec.decisions * sizeof(*times))) {
			fprintf(stderr, "bench_ai: pipe write failed\n");
			exit(1);
		}
	}
	free(times);
}

static int cmp_float(const void *a, const void *b)
{
	float x = *(const float *)a, y = *(const float *)b;

	return x < y ? -1 : x > y;
}

static double pct(const float *v, long n, double q)
{
	long i;

	if (n == 0)
		return 0.0;
	i = (long)ceil(q * (double)n) - 1;
	if (i < 0)
		i = 0;
	if (i >= n)
		i = n - 1;
	return v[i];
}

/* Tuning knobs: BENCH_AI_ITERATIONS, BENCH_AI_POLICY (bot|random),
 * BENCH_AI_MARGIN, BENCH_AI_BOT_BONUS replace the defaults. */
static void override(struct search_params *sp)
{
	const char *v;

	if ((v = getenv("BENCH_AI_ITERATIONS")) && *v)
		sp->iterations = atoi(v);
	if ((v = getenv("BENCH_AI_POLICY")) && *v)
		sp->policy = strcmp(v, "random") ? SEARCH_POLICY_BOT : SEARCH_POLICY_RANDOM;
	if ((v = getenv("BENCH_AI_MARGIN")) && *v)
		sp->margin = atof(v);
	if ((v = getenv("BENCH_AI_BOT_BONUS")) && *v)
		sp->bot_bonus = atof(v);
}

static void bench(const struct game_ops *ops, int games)
{
	struct search_params sp;
	int fds[WORKERS][2], w, got = 0, count[OUT_COUNT] = { 0 };
	pid_t pid[WORKERS];
	float *all = NULL;
	long n = 0, cap = 0;
	double t0 = now(), tsum = 0.0, game_ms = 0.0, rate, points = 0.0;

	search_defaults(ops, &sp);
	override(&sp);
	fflush(stdout);
	for (w = 0; w < WORKERS; w++) {
		if (pipe(fds[w])) {
			perror("pipe");
			exit(1);
		}
		pid[w] = fork();
		if (pid[w] < 0) {
			perror("fork");
			exit(1);
		}
		if (pid[w] == 0) {
			close(fds[w][0]);
			worker(ops, &sp, w, games, fds[w][1]);
			close(fds[w][1]);
			_exit(0);
		}
		close(fds[w][1]);
	}
	/* Each worker's records in turn: a worker blocked on a full pipe
	 * waits only while the other one's records are read. */
	for (w = 0; w < WORKERS; w++) {
		struct record rec;

		while (read_all(fds[w][0], &rec, sizeof(rec)) == 0) {
			if (n + rec.decisions > cap) {
				cap = (n + rec.decisions) * 2 + 1024;
				all = realloc(all, (size_t)cap * sizeof(*all));
				if (!all) {
					fprintf(stderr, "bench_ai: out of memory\n");
					exit(1);
				}
			}
			if (rec.decisions && read_all(fds[w][0], all + n,
						      (size_t)rec.decisions * sizeof(*all))) {
				fprintf(stderr, "bench_ai: short read\n");
				exit(1);
			}
			n += rec.decisions;
			if (rec.outcome >= 0 && rec.outcome < OUT_COUNT)
				count[rec.outcome]++;
			if (rec.outcome == OUT_WIN)
				points += 1.0;
			else if ((rec.outcome == OUT_TIE || rec.outcome == OUT_NONE) && rec.share > 0)
				points += 1.0 / rec.share;
			game_ms += rec.cpu_ms;
			got++;
		}
		close(fds[w][0]);
	}
	for (w = 0; w < WORKERS; w++) {
		int status;

		if (waitpid(pid[w], &status, 0) < 0 || !WIFEXITED(status) ||
		    WEXITSTATUS(status)) {
			fprintf(stderr, "bench_ai: %s worker %d failed\n", ops->id, w);
			exit(1);
		}
	}
	if (got != games) {
		fprintf(stderr, "bench_ai: %s: %d of %d games reported\n", ops->id, got, games);
		exit(1);
	}
	qsort(all, (size_t)n, sizeof(*all), cmp_float);
	for (long i = 0; i < n; i++)
		tsum += all[i];
	rate = games ? 100.0 * points / games : 0.0;
	fprintf(stderr,
		"bench_ai: %s %dp, %d games, search (%d playouts/decision, policy %s) vs bot_move: "
		"%d wins, %d shared wins, %d losses, %d without a winner; "
		"a win shared by k seats counts 1/k, a game without a winner 1/seats\n",
		ops->id, bench_seats(ops), games, sp.iterations,
		sp.policy == SEARCH_POLICY_BOT ? "bot" : "random",
		count[OUT_WIN], count[OUT_TIE], count[OUT_LOSS], count[OUT_NONE]);
	fprintf(stderr, "bench_ai: %s: %ld searched answers (mean %.1f ms, %.0f per game), "
		"%.1f s CPU a game, %.1f s wall\n",
		ops->id, n, n ? tsum / (double)n : 0.0, games ? (double)n / games : 0.0,
		games ? game_ms / 1000.0 / games : 0.0, now() - t0);
	printf("ai.%s.%dp.search.winrate %.1f %%\n", ops->id, bench_seats(ops), rate);
	printf("ai.%s.%dp.search.answer.p50 %.1f ms\n", ops->id, bench_seats(ops), pct(all, n, 0.50));
	printf("ai.%s.%dp.search.answer.p99 %.1f ms\n", ops->id, bench_seats(ops), pct(all, n, 0.99));
	printf("ai.%s.%dp.search.answer.max %.1f ms\n", ops->id, bench_seats(ops),
	       n ? all[n - 1] : 0.0);
	printf("ai.%s.%dp.search.iterations %d playouts\n", ops->id, bench_seats(ops), sp.iterations);
	fflush(stdout);
	free(all);
}

int main(int argc, char **argv)
{
	const struct game_ops *const *all = game_all();
	const char *env = getenv("BENCH_AI_GAMES");
	int games = env && *env ? atoi(env) : 200;
	size_t i;

	for (i = 0; all[i]; i++) {
		if (!all[i]->determinize || all[i]->min_players > 3)
			continue;
		/* bench_ai [game...]: only those games */
		if (argc > 1) {
			int k, want = 0;

			for (k = 1; k < argc; k++)
				want |= !strcmp(argv[k], all[i]->id);
			if (!want)
				continue;
		}
		bench(all[i], games);
	}
	return 0;
}
