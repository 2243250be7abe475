/*
 * Memory: the RSS (VmRSS of /proc/self/status) of one session manager
 * holding BENCH_MEM_SESSIONS (default 10,000) Fortuna games in play (3
 * seats: 1 human, 2 AI; 20 moves in), loaded from a temporary store the
 * way the bot loads a game when a command or a due time needs it
 * (session_mgr_find; start-up itself loads none).
 *   memory.10k.rss            MB  (the whole process, store open)
 *   memory.10k.per_session    bytes (RSS growth while loading / sessions)
 */
#include "bench/bench_common.h"

struct rooms {
	char (*v)[256];
	long n, cap;
};

static int collect_room(void *ctx, const struct session_rec *rec)
{
	struct rooms *r = ctx;

	if (r->n == r->cap) {
		r->cap = r->cap ? r->cap * 2 : 1024;
		r->v = xrealloc(r->v, (size_t)r->cap * sizeof(*r->v));
	}
	snprintf(r->v[r->n++], sizeof(r->v[0]), "%s", rec->room);
	return 0;
}

int main(void)
{
	long n = (long)bench_env("BENCH_MEM_SESSIONS", 10000);
	struct bench_db db;
	struct store *store;
	struct session_mgr *m;
	struct buf err = BUF_INIT;
	long rss0, rss1, count = 0;
	size_t i;
	struct session *s;
	struct rooms rooms = { NULL, 0, 0 };
	int rc = 1;

	if (bench_db_make(&db, "mem"))
		return 1;
	if (bench_make_store(db.path, n, "fortuna", 3, 20))
		goto out;
	store = bench_store_open(db.path, "normal");
	if (!store)
		goto out;
	m = xcalloc(1, sizeof(*m));
	session_mgr_init(m, store, 1);
	/* the rooms are listed first (loading reads the store too), and
	 * before the first reading, so that the list does not count */
	if (store_sessions_open(store, collect_room, &rooms, &err)) {
		fprintf(stderr, "bench: sessions_open: %s\n", buf_str(&err));
	} else {
		long k;

		rss0 = bench_rss();
		for (k = 0; k < rooms.n; k++)
			if (!session_mgr_find(m, "console", rooms.v[k], &err))
				fprintf(stderr, "bench: %s: %s\n", rooms.v[k], buf_str(&err));
		rss1 = bench_rss();
		for (i = 0; i < SESSION_BUCKETS; i++)
			for (s = m->buckets[i]; s; s = s->next)
				count += s->st != NULL;
		if (count != n) {
			fprintf(stderr, "bench: %ld games loaded, expected %ld\n", count, n);
		} else {
			printf("memory.%ldk.rss %.1f MB\n", n / 1000, rss1 / 1048576.0);
			printf("memory.%ldk.per_session %.0f bytes\n", n / 1000,
			       (double)(rss1 - rss0) / (double)n);
			fprintf(stderr, "memory: RSS %.1f MB before loading, %.1f MB after; "
				"fortuna state_size %zu bytes\n", rss0 / 1048576.0,
				rss1 / 1048576.0, game_find("fortuna")->state_size);
			rc = 0;
		}
	}
	session_mgr_release(m);
	free(m);
	free(rooms.v);
	store_close(store);
out:
	bench_db_remove(&db);
	buf_release(&err);
	return rc;
}
