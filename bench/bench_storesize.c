/*
 * Store bytes per finished game: the growth of the SQLite file (closed, so
 * checkpointed, WAL folded in) per game played to the end through the
 * session manager, every decision taken by the AI (the one human seat
 * plays the AI's choice by its canonical id, as a `play` command), outbox
 * messages confirmed as a platform would.  BENCH_STORE_GAMES (default 20)
 * games per figure, after one warm-up game.
 *   store.fortuna.3p.bytes_per_game  bytes
 *   store.gtr.3p.bytes_per_game      bytes
 */
#include <sys/stat.h>

#include "bench/bench_common.h"

static long file_size(const char *path)
{
	struct stat sb;

	return stat(path, &sb) ? -1 : (long)sb.st_size;
}

/* Plays games to the end in fresh rooms "<tag>N" from N = first. */
static int play_games(const char *path, const char *game, int players, int first, int n,
		      long *decisions)
{
	struct store *store = bench_store_open(path, "normal");
	struct session_mgr *m;
	struct bench_adapter *b;
	struct move_list *ml = xmalloc(sizeof(*ml));
	struct buf text = BUF_INIT, err = BUF_INIT;
	struct rng r;
	char room[32], user[64];
	int g, rc = -1, guard;

	if (!store)
		return -1;
	m = xcalloc(1, sizeof(*m));
	session_mgr_init(m, store, 77);
	b = bench_adapter_new(m);
	rng_seed(&r, 11, (uint64_t)first);
	for (g = first; g < first + n; g++) {
		struct session *s;

		snprintf(room, sizeof(room), "%s%d", game, g);
		snprintf(user, sizeof(user), "%s-0", room);
		s = bench_open_game(m, b, room, game, 1, players - 1);
		for (guard = 0; s && s->rec.status == SESSION_ACTIVE && guard < 100000; guard++) {
			int seat = bench_human_awaited(s);

			if (seat < 0)
				break;
			bench_pick_play(s, seat, &r, 1, ml, &text);
			bench_cmd(m, b, room, user, buf_str(&text));
			bench_confirm(m, b);
			s = session_mgr_find(m, "console", room, &err);
		}
		bench_confirm(m, b);
		if (!s || s->rec.status != SESSION_FINISHED) {
			fprintf(stderr, "bench: %s did not finish\n", room);
			goto out;
		}
		*decisions += s->last_seq;
	}
	rc = 0;
out:
	session_mgr_release(m);
	free(m);
	adapter_free(&b->base);
	store_close(store);
	free(ml);
	buf_release(&text);
	buf_release(&err);
	return rc;
}

/* Where the bytes are, per table and index (stderr; needs SQLite's dbstat). */
static void breakdown(const char *path, const char *game)
{
	sqlite3 *db = NULL;
	sqlite3_stmt *st = NULL;

	if (sqlite3_open(path, &db) == SQLITE_OK &&
	    sqlite3_prepare_v2(db, "SELECT name, SUM(pgsize) FROM dbstat GROUP BY name"
			       " ORDER BY 2 DESC", -1, &st, NULL) == SQLITE_OK) {
		fprintf(stderr, "store.%s: bytes by table/index:", game);
		while (sqlite3_step(st) == SQLITE_ROW)
			fprintf(stderr, " %s %lld", (const char *)sqlite3_column_text(st, 0),
				(long long)sqlite3_column_int64(st, 1));
		fprintf(stderr, "\n");
	}
	sqlite3_finalize(st);
	sqlite3_close(db);
}

static int run(const char *game, int players, int n)
{
	struct bench_db db;
	long size0, size1, warm = 0, decisions = 0;
	int rc = -1;

	if (bench_db_make(&db, "size"))
		return -1;
	if (play_games(db.path, game, players, 0, 1, &warm))
		goto out;
	size0 = file_size(db.path);
	if (play_games(db.path, game, players, 1, n, &decisions))
		goto out;
	size1 = file_size(db.path);
	printf("store.%s.%dp.bytes_per_game %.0f bytes\n", game, players,
	       (double)(size1 - size0) / n);
	fprintf(stderr, "store.%s: %d games, %.0f stored actions per game, file %ld -> %ld bytes\n",
		game, n, (double)decisions / n, size0, size1);
	breakdown(db.path, game);
	rc = 0;
out:
	bench_db_remove(&db);
	return rc;
}

int main(void)
{
	int n = (int)bench_env("BENCH_STORE_GAMES", 20);

	if (run("fortuna", 3, n) || run("gtr", 3, n))
		return 1;
	return 0;
}
