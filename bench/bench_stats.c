/*
 * The rating commands end to end (issue 26): the session manager answering
 * `stats <player>`, `stats <player> <game>`, `leaderboard`,
 * `leaderboard <game>` and `history` in text (an adapter without pictures,
 * as the console), against a store filled as bench_ratings fills it
 * (bench_fill.h: BENCH_RATING_GAMES finished games, default 100,000, of
 * the four games; BENCH_RATING_PLAYERS players, default 10,000; ten
 * communities; the rating points the games leave).  Each command is asked
 * BENCH_STATS_READS times (default 1,000) from a random room, with that
 * room's community; `stats <player>` names, by display name, a player of
 * one of the room's last 50 games (the name is looked up there).  Every
 * answer is checked to be the real one (not a refusal).  SQLite (a file,
 * synchronous=NORMAL) and PostgreSQL (TABULA_TEST_PG: `make bench` runs
 * one):
 *   stats.<backend>.fill                         s
 *   stats.<backend>.<command>.p50/p99            ms, the p99 against the
 *                                                goal (p99 <= 5 ms)
 * command: stats, stats_game, leaderboard, leaderboard_game, history.
 * A goal missed is printed "MISSED"; it fails the run with BENCH_STRICT=1
 * (VM speed varies, as bench_image), and always when missed fourfold
 * (p99 > 20 ms: an index lost, a query per row, not a slow machine).
 */
#include "bench/bench_fill.h"

#define GOAL_MS 5.0
#define WIDE_MS (4 * GOAL_MS)
#define LOOKBACK 50	/* bot/stats.c's NAME_LOOKBACK */

static const char *const kinds[] = { "fortuna", "gtr", "sylla", "builders" };
#define NKINDS 4

enum { C_STATS, C_STATS_GAME, C_BOARD, C_BOARD_GAME, C_HISTORY, NCMDS };

static const char *const cmd_names[NCMDS] = {
	"stats", "stats_game", "leaderboard", "leaderboard_game", "history",
};

/* What each answer must hold: the real answer's words, not a refusal's. */
static const char *const cmd_expect[NCMDS] = {
	"rating", "rating", "Player", "Player", "`log #<id>`",
};

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

/* Prints the command's figures; 1 when the goal is missed, 2 when missed
 * by the wide margin. */
static int report(const char *tag, const char *what, double *t, int n)
{
	double p50, p99;

	qsort(t, (size_t)n, sizeof(*t), cmp_double);
	p50 = t[n / 2] * 1e3;
	p99 = t[n * 99 / 100] * 1e3;
	printf("stats.%s.%s.p50 %.3f ms\n", tag, what, p50);
	printf("stats.%s.%s.p99 %.3f ms (goal <= %.0f ms: %s)\n", tag, what, p99, GOAL_MS,
	       p99 <= GOAL_MS ? "met" : "MISSED");
	return p99 > WIDE_MS ? 2 : p99 > GOAL_MS;
}

/* Writes command c's text, asked in room, into text (the asker into user,
 * the room's community into community). */
static void make_command(const struct gen_store *g, int c, struct rng *r, char *room,
			 char *user, char *community, char *text, size_t n)
{
	long ro = (long)rng_below(r, FILL_ROOMS), last, i;
	const char *kind = kinds[rng_below(r, NKINDS)];
	char who[32];

	snprintf(room, 32, "chan-%ld", ro);
	snprintf(community, 32, "guild-%ld", ro % FILL_SCOPES);
	fill_player_key((long)rng_below(r, (uint32_t)g->players), user, 32);
	/* a game among the room's last LOOKBACK: the rooms take turns */
	last = (g->games - 1) - ((g->games - 1 - ro) % FILL_ROOMS + FILL_ROOMS) % FILL_ROOMS;
	i = last - FILL_ROOMS * (long)rng_below(r, LOOKBACK);
	if (i < 0)
		i = last;
	fill_player_key(fill_seat_player(g, i, (int)rng_below(r, 2)), who, sizeof(who));
	switch (c) {
	case C_STATS:
		snprintf(text, n, "stats Player %s", who + 2);
		break;
	case C_STATS_GAME:
		snprintf(text, n, "stats Player %s %s", who + 2, kind);
		break;
	case C_BOARD:
		snprintf(text, n, "leaderboard");
		break;
	case C_BOARD_GAME:
		snprintf(text, n, "leaderboard %s", kind);
		break;
	default:
		snprintf(text, n, "history");
		break;
	}
}

static int run(const char *tag, struct store *st, long games, long players, int reads,
	       int *missed)
{
	struct gen_store g = { .platform = "console", .games = games, .players = players,
			       .kinds = kinds, .nkinds = NKINDS, .points = 1 };
	struct buf err = BUF_INIT;
	double *t = xcalloc((size_t)reads * NCMDS, sizeof(*t)), t0;
	struct session_mgr *m = NULL;
	struct bench_adapter *b = NULL;
	struct rng r;
	char room[32], user[32], community[32], text[96];
	int c, i, rc = -1, worst = 0;

	t0 = bench_now();
	if (bench_fill(&g, st, &err)) {
		fprintf(stderr, "bench: filling %s: %s\n", tag, buf_str(&err));
		goto out;
	}
	printf("stats.%s.fill %.1f s\n", tag, bench_now() - t0);
	m = xcalloc(1, sizeof(*m));
	session_mgr_init(m, st, 4321);
	b = bench_adapter_new(m);
	rng_seed(&r, 9, 10);
	/* the commands take turns, so that each meets the same machine (a
	 * fill's aftermath: autovacuum, a checkpoint; the neighbours) */
	for (i = 0; i < reads; i++)
		for (c = 0; c < NCMDS; c++) {
			struct command cmd = {
				.platform = "console", .room = room, .user = user, .name = user,
				.community = community, .text = text,
			};
			size_t before = b->nmsg;

			make_command(&g, c, &r, room, user, community, text, sizeof(text));
			cmd.text_len = strlen(text);
			t0 = bench_now();
			session_mgr_handle(m, &b->base, &cmd);
			t[c * reads + i] = bench_now() - t0;
			if (b->nmsg != before + 1 || !strstr(buf_str(&b->text), cmd_expect[c])) {
				fprintf(stderr, "bench: `%s` in %s answered %zu messages, the last:\n%s\n",
					text, room, b->nmsg - before, buf_str(&b->text));
				goto out;
			}
			if (!i && getenv("BENCH_STATS_SHOW"))
				fprintf(stderr, "--- %s\n%s\n", text, buf_str(&b->text));
		}
	for (c = 0; c < NCMDS; c++) {
		rc = report(tag, cmd_names[c], t + c * reads, reads);
		if (rc > worst)
			worst = rc;
	}
	*missed = worst;
	rc = 0;
out:
	if (m) {
		session_mgr_release(m);
		free(m);
	}
	if (b)
		adapter_free(&b->base);
	free(t);
	buf_release(&err);
	return rc;
}

int main(void)
{
	long games = (long)bench_env("BENCH_RATING_GAMES", 100000);
	long players = (long)bench_env("BENCH_RATING_PLAYERS", 10000);
	int reads = (int)bench_env("BENCH_STATS_READS", 1000);
	const char *strict = getenv("BENCH_STRICT");
	struct bench_db db;
	struct store *st;
	struct buf err = BUF_INIT;
	char uri[512];
	int rc, missed = 0, missed_pg = 0;

	if (games < FILL_ROOMS * LOOKBACK || players < 4000 || reads < 100 ||
	    bench_db_make(&db, "stats")) {
		fprintf(stderr, "bench: BENCH_RATING_GAMES >= %d, BENCH_RATING_PLAYERS >= 4000,"
			" BENCH_STATS_READS >= 100\n", FILL_ROOMS * LOOKBACK);
		return 1;
	}
	st = bench_store_open(db.path, "normal");
	rc = !st || run("sqlite", st, games, players, reads, &missed);
	store_close(st);
	bench_db_remove(&db);
	if (rc || bench_pg_schema("stats", uri, sizeof(uri), 0))
		return 1;
	st = store_pg_open(uri, &err);
	if (!st)
		fprintf(stderr, "bench: %s\n", buf_str(&err));
	rc = !st || run("postgres", st, games, players, reads, &missed_pg);
	store_close(st);
	buf_release(&err);
	/* BENCH_STATS_KEEP=1 leaves the schema (for EXPLAIN: its name on stderr) */
	if (getenv("BENCH_STATS_KEEP"))
		fprintf(stderr, "bench: schema stats_%d kept\n", (int)getpid());
	else
		bench_pg_schema("stats", uri, sizeof(uri), 1);
	if (missed_pg > missed)
		missed = missed_pg;
	if (!rc && missed) {
		int fail = missed > 1 || (strict && !strcmp(strict, "1"));

		fprintf(stderr, "stats: a time goal was MISSED%s\n",
			missed > 1 ? " by more than fourfold: failing" :
			fail ? " (BENCH_STRICT=1: failing)" :
			" (BENCH_STRICT=1 makes that fail the run; docs/performance.md)");
		rc = fail;
	}
	return rc;
}
