/*
 * Lookups by user among many open sessions: `mygames` and a command typed in
 * a private chat with the bot (struct command's direct: the manager finds the
 * caller's one game), with BENCH_LOBBIES open lobbies of other people in the
 * store (default 20000, each its own user and room, written straight to the
 * store).  Issue 11 saw about 158 ms per `mygames` at 20k lobbies when both
 * scanned every open session; they now read the seats(user) index
 * (docs/store.md).  Measured on the development VM (2 vCPUs, shared):
 * before the index about 85 ms for each of the three; after it, see
 * docs/performance.md.
 *
 * Figures (median of BENCH_LOOKUP_REPS calls, default 50):
 *   lookup.mygames.p50         us  (a user with three games)
 *   lookup.mygames_none.p50    us  (a user with none)
 *   lookup.direct.p50          us  (`moves` from a DM, routed to the one game)
 *   lookup.game_new.p50        us  (`game new` by a new user in a new room:
 *                                   the lobby caps count with the indexes)
 */
#include "bench/bench_common.h"

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

/* n lobbies of strangers, one transaction each as the manager would. */
static int fill(struct store *store, int n)
{
	struct session_rec rec;
	struct buf err = BUF_INIT;
	int i, rc = 0;

	for (i = 0; i < n && !rc; i++) {
		struct store_commit c = { .session = &rec };

		session_rec_init(&rec);
		snprintf(rec.platform, sizeof(rec.platform), "console");
		snprintf(rec.room, sizeof(rec.room), "lobby-%d", i);
		snprintf(rec.game, sizeof(rec.game), "%s", i % 2 ? "gtr" : "fortuna");
		snprintf(rec.creator, sizeof(rec.creator), "user-%d", i);
		snprintf(rec.locale, sizeof(rec.locale), "en");
		rec.status = SESSION_LOBBY;
		rec.version = 1;
		rec.created = rec.updated = 1700000000;
		rec.nseats = 1;
		snprintf(rec.seats[0].user, sizeof(rec.seats[0].user), "user-%d", i);
		snprintf(rec.seats[0].name, sizeof(rec.seats[0].name), "user-%d", i);
		if (store_commit(store, &c, &err)) {
			fprintf(stderr, "bench: %s\n", buf_str(&err));
			rc = -1;
		}
		session_rec_release(&rec);
	}
	buf_release(&err);
	return rc;
}

/* The median time of reps runs of one command (s), in microseconds. */
static double time_cmd(struct session_mgr *m, struct bench_adapter *b, const char *room,
		       const char *user, const char *text, int direct, int reps)
{
	double *v = xcalloc((size_t)reps, sizeof(*v)), med;
	int i;

	for (i = 0; i < reps; i++) {
		struct command cmd = {
			.platform = "console", .room = room, .user = user, .name = user,
			.text = text, .text_len = strlen(text), .direct = direct,
		};
		double t0 = bench_now();

		session_mgr_handle(m, &b->base, &cmd);
		v[i] = bench_now() - t0;
	}
	qsort(v, (size_t)reps, sizeof(*v), cmp_double);
	med = v[reps / 2] * 1e6;
	free(v);
	return med;
}

int main(void)
{
	int nlobbies = (int)bench_env("BENCH_LOBBIES", 20000);
	int reps = (int)bench_env("BENCH_LOOKUP_REPS", 50);
	struct bench_db db;
	struct store *store;
	struct session_mgr *m;
	struct bench_adapter *b;
	double t0, mine, none, direct, opened;
	int rc = 1;

	if (reps < 1)
		reps = 1;
	if (bench_db_make(&db, "lookup"))
		return 1;
	store = bench_store_open(db.path, "normal");
	if (!store)
		goto out;
	t0 = bench_now();
	if (fill(store, nlobbies))
		goto close;
	fprintf(stderr, "lookup: %d lobbies written in %.1f s\n", nlobbies, bench_now() - t0);
	m = xcalloc(1, sizeof(*m));
	session_mgr_init(m, store, 4321);
	m->max_lobbies_platform = 0;	/* 20k lobbies are past the platform cap */
	b = bench_adapter_new(m);
	/* ana: two games in play and a lobby; bob: one game in play */
	if (!bench_open_game(m, b, "ana-1", "fortuna", 1, 1) ||
	    !bench_open_game(m, b, "ana-2", "gtr", 1, 2))
		goto release;
	bench_cmd(m, b, "ana-3", "ana-1-0", "game new fortuna");
	if (!bench_open_game(m, b, "bob", "fortuna", 1, 1))
		goto release;
	bench_confirm(m, b);
	/* the users of bench_open_game are "<room>-0" */
	mine = time_cmd(m, b, "elsewhere", "ana-1-0", "mygames", 0, reps);
	none = time_cmd(m, b, "elsewhere", "nobody", "mygames", 0, reps);
	direct = time_cmd(m, b, "dm-bob", "bob-0", "moves", 1, reps);
	bench_confirm(m, b);
	{
		double *v = xcalloc((size_t)reps, sizeof(*v));
		char room[32], user[32];
		int i;

		for (i = 0; i < reps; i++) {
			struct command cmd = {
				.platform = "console", .room = room, .user = user, .name = user,
				.text = "game new fortuna", .text_len = 16,
			};
			double c0;

			snprintf(room, sizeof(room), "new-%d", i);
			snprintf(user, sizeof(user), "newcomer-%d", i);
			c0 = bench_now();
			session_mgr_handle(m, &b->base, &cmd);
			v[i] = bench_now() - c0;
			bench_confirm(m, b);
		}
		qsort(v, (size_t)reps, sizeof(*v), cmp_double);
		opened = v[reps / 2] * 1e6;
		free(v);
	}
	printf("lookup.mygames.p50 %.0f us\n", mine);
	printf("lookup.mygames_none.p50 %.0f us\n", none);
	printf("lookup.direct.p50 %.0f us\n", direct);
	printf("lookup.game_new.p50 %.0f us\n", opened);
	fprintf(stderr, "lookup: %d lobbies, %d calls each\n", nlobbies, reps);
	rc = 0;
release:
	session_mgr_release(m);
	free(m);
	adapter_free(&b->base);
close:
	store_close(store);
out:
	bench_db_remove(&db);
	return rc;
}
