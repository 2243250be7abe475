/*
 * In-process command latency through the session manager
 * (session_mgr_handle), with the SQLite store in a temporary file in WAL
 * mode, for TABULA_DB_SYNC=normal and full.
 *
 * BENCH_ROOMS rooms (default 200; half Fortuna, half Glory to Rome, each
 * 2 human seats and 1 AI seat) get a random stream of commands: 3 in 4 are
 * a legal `play` of an awaited human (a uniformly random move, by its
 * canonical id; the AI seats answer inside the same command), 1 in 4 a
 * `board` or `moves` query.  A finished game is replaced by a new one
 * (those lobby commands are not timed, but count in the throughput).  The
 * latency is that of session_mgr_handle (commit included); the outbox
 * confirmations (one write each, asynchronous on a real platform) are made
 * after each command, outside the timed call but inside the throughput.
 *
 * The same on PostgreSQL (the server TABULA_TEST_PG names: `make bench`
 * starts one with its durable defaults, scripts/pg-test-server.sh), in a
 * fresh schema, the manager as a node of a cluster (every command checks
 * its cached game against the store, as with several processes); then
 * two processes at once, each with its own 200 rooms on the same store,
 * against one process alone, for PostgreSQL and (for comparison: not a
 * supported deployment) for one SQLite file.
 *
 * BENCH_SESSION_SECONDS (default 3) per run.  Figures:
 *   session.<store>.play.p50|p99|max  us    store: normal, full (SQLite), postgres
 *   session.<store>.query.p50|p99|max us
 *   session.<store>.throughput        commands/s
 *   session.<store>.2proc.throughput  commands/s, two processes together
 *   session.<store>.2proc.speedup     x, against one process (postgres, normal)
 *   session.postgres[.2proc].cpu.bot      us of CPU per command in the bot
 *                                         (getrusage of the process)
 *   session.postgres[.2proc].cpu.server   us of CPU per command in its
 *                                         PostgreSQL backend process
 *                                         (/proc/<pid>/stat, the pid from
 *                                         pg_stat_activity)
 *   session.postgres.cpu.server_all       us of CPU per command in the whole
 *                                         server: the backend, the WAL
 *                                         writer, the checkpointer, every
 *                                         other process of its postmaster
 *   session.postgres.roundtrips.play      round trips to PostgreSQL in one
 *   session.postgres.roundtrips.query     `play` / one query (inside the
 *                                         command: the cached game's version
 *                                         check, the commit)
 *   session.postgres.roundtrips.sent      per outbox message marked sent
 *   session.postgres.roundtrips           all of them per command
 * (store_pg_round_trips: a commit's pipeline is one.)  The CPU figures say
 * what the throughput would be on free cores: on a shared machine the
 * wall-clock ones say more about the neighbours.  The 2proc speedup needs
 * a core for each process and each backend (4): on fewer it measures the
 * machine, not the processes (stderr says so).  A figure it cannot
 * measure (no backend process found) fails the bench.
 */
#include <dirent.h>
#include <sys/resource.h>
#include <sys/wait.h>

#include <libpq-fe.h>

#include "bench/bench_common.h"

struct samples {
	double *v;
	size_t n, cap;
};

static void add_sample(struct samples *s, double x)
{
	if (s->n == s->cap) {
		s->cap = s->cap ? s->cap * 2 : 4096;
		s->v = xrealloc(s->v, s->cap * sizeof(*s->v));
	}
	s->v[s->n++] = x;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

static double pct(const struct samples *s, double p)
{
	size_t i = (size_t)(p * (double)(s->n - 1) + 0.5);

	return s->n ? s->v[i] : 0;
}

static void report(const char *sync, const char *what, struct samples *s)
{
	qsort(s->v, s->n, sizeof(*s->v), cmp_double);
	printf("session.%s.%s.p50 %.0f us\n", sync, what, pct(s, 0.50) * 1e6);
	printf("session.%s.%s.p99 %.0f us\n", sync, what, pct(s, 0.99) * 1e6);
	printf("session.%s.%s.max %.0f us\n", sync, what, s->n ? s->v[s->n - 1] * 1e6 : 0);
	fprintf(stderr, "session.%s.%s: %zu samples\n", sync, what, s->n);
}

static const char *game_of(int room)
{
	return room % 2 ? "gtr" : "fortuna";
}

struct result {
	struct samples play, query, bygame[2];
	long commands, failed, games;
	double seconds;
	double cpu_bot, cpu_server;	/* seconds over the timed loop */
	double cpu_server_all;		/* the whole server's, one process only */
	/* PostgreSQL round trips over the timed loop: inside play and
	 * query commands, marking messages sent (nsent of them), all */
	uint64_t rt_play, rt_query, rt_sent, rt_all;
	long nsent;
};

/* Round trips so far of a PostgreSQL store (0 for SQLite). */
static uint64_t round_trips(struct session_mgr *m)
{
	return strcmp(m->store->ops->name, "postgres") ? 0 : store_pg_round_trips(m->store);
}

/* bench_confirm, counting the messages and their round trips. */
static void confirm(struct session_mgr *m, struct bench_adapter *b, struct result *res)
{
	uint64_t rt = round_trips(m);

	res->nsent += (long)b->nsent;
	bench_confirm(m, b);
	res->rt_sent += round_trips(m) - rt;
}

static double cpu_self(void)
{
	struct rusage ru;

	getrusage(RUSAGE_SELF, &ru);
	return (double)ru.ru_utime.tv_sec + ru.ru_utime.tv_usec * 1e-6 +
	       (double)ru.ru_stime.tv_sec + ru.ru_stime.tv_usec * 1e-6;
}

/*
 * From /proc/<pid>/stat: the parent's pid, the CPU seconds of pid itself
 * and those of its children that have exited and been waited for.  0, or
 * -1 (no such process, or unreadable).
 */
static int proc_stat(long pid, long *ppid, double *self, double *children)
{
	char path[64], line[1024], *p;
	unsigned long long ut = 0, st = 0, cut = 0, cst = 0;
	long pp = 0;
	FILE *f;
	int i;

	if (pid <= 0)
		return -1;
	snprintf(path, sizeof(path), "/proc/%ld/stat", pid);
	f = fopen(path, "r");
	if (!f)
		return -1;
	p = fgets(line, sizeof(line), f) ? strrchr(line, ')') : NULL;
	fclose(f);
	/* after "(comm)": state is field 3, ppid 4; utime, stime, cutime
	 * and cstime are 14 to 17 */
	if (!p || sscanf(p + 1, " %*c %ld", &pp) != 1)
		return -1;
	for (i = 3; p && i < 14; i++)
		p = strchr(p + 1, ' ');
	if (!p || sscanf(p, " %llu %llu %llu %llu", &ut, &st, &cut, &cst) != 4)
		return -1;
	*ppid = pp;
	*self = (double)(ut + st) / (double)sysconf(_SC_CLK_TCK);
	*children = (double)(cut + cst) / (double)sysconf(_SC_CLK_TCK);
	return 0;
}

/* CPU seconds used so far by process pid (0: none, or unreadable). */
static double cpu_of(long pid)
{
	long pp;
	double self, children;

	return proc_stat(pid, &pp, &self, &children) ? 0 : self;
}

/*
 * CPU seconds used so far by the whole PostgreSQL server that backend
 * belongs to: its postmaster (the backend's parent), every live child
 * (backends, WAL writer, checkpointer, autovacuum...) and the children
 * that have exited (the postmaster's cutime), so that a process ending
 * between two readings moves its time rather than losing it.  0 if
 * unreadable.
 */
static double cpu_server_all(long backend)
{
	long pm, pp;
	double self, children, sum;
	DIR *d;
	struct dirent *e;

	if (proc_stat(backend, &pm, &self, &children) ||
	    proc_stat(pm, &pp, &self, &children))
		return 0;
	sum = self + children;
	d = opendir("/proc");
	if (!d)
		return 0;
	while ((e = readdir(d))) {
		char *end;
		long pid = strtol(e->d_name, &end, 10);

		if (pid > 0 && !*end && pid != pm && !proc_stat(pid, &pp, &self, &children) &&
		    pp == pm)
			sum += self;
	}
	closedir(d);
	return sum;
}

/* The server process of the store connection named app (PostgreSQL's
 * application_name), or 0. */
static long backend_of(const char *app)
{
	const char *base = getenv("TABULA_TEST_PG");
	const char *v[1] = { app };
	PGconn *c;
	PGresult *r;
	long pid = 0;

	if (!base)
		return 0;
	c = PQconnectdb(base);
	r = PQexecParams(c, "SELECT pid FROM pg_stat_activity WHERE application_name = $1",
			 1, NULL, v, NULL, NULL, 0);
	if (PQresultStatus(r) == PGRES_TUPLES_OK && PQntuples(r) == 1)
		pid = atol(PQgetvalue(r, 0, 0));
	PQclear(r);
	PQfinish(c);
	if (!pid)
		fprintf(stderr, "bench: no PostgreSQL backend with application_name %s\n", app);
	return pid;
}

static void result_release(struct result *r)
{
	free(r->play.v);
	free(r->query.v);
	free(r->bygame[0].v);
	free(r->bygame[1].v);
}

/*
 * The command stream on m for `seconds`, in rooms "<prefix><i>"; 0 or -1
 * (a game that could not start, or a play that did not apply).
 */
static int workload(struct session_mgr *m, struct bench_adapter *b, const char *prefix,
		    int nrooms, double seconds, uint64_t seed, long backend, struct result *res)
{
	double cpu0, srv0, all0;
	struct move_list *ml = xmalloc(sizeof(*ml));
	struct buf text = BUF_INIT, err = BUF_INIT;
	struct rng r;
	char room[48], user[96];
	double t0, t = 0, c0;
	uint64_t rt0, rt;
	int i, rc = -1;

	memset(res, 0, sizeof(*res));
	rng_seed(&r, 99 ^ seed, 3);
	for (i = 0; i < nrooms; i++) {
		snprintf(room, sizeof(room), "%sroom%d", prefix, i);
		if (!bench_open_game(m, b, room, game_of(i), 2, 1))
			goto out;
		bench_confirm(m, b);
	}
	t0 = bench_now();
	cpu0 = cpu_self();
	srv0 = cpu_of(backend);
	all0 = cpu_server_all(backend);
	rt0 = round_trips(m);
	do {
		struct session *s;
		int seat, k = (int)rng_below(&r, (uint32_t)nrooms);
		int64_t seq;

		snprintf(room, sizeof(room), "%sroom%d", prefix, k);
		/* the bench's own look (each process has its rooms): the
		 * command itself checks the store, as the bot does */
		s = session_mgr_cached(m, "console", room);
		if (!s)
			s = session_mgr_find(m, "console", room, &err);
		seat = s ? bench_human_awaited(s) : -1;
		if (seat < 0) {
			if (!bench_open_game(m, b, room, game_of(k), 2, 1))
				goto out;
			confirm(m, b, res);
			res->commands += 5;
			res->games++;
			t = bench_now() - t0;
			continue;
		}
		snprintf(user, sizeof(user), "%s", s->rec.seats[seat].user);
		if (rng_below(&r, 4) == 0) {
			const char *q = rng_below(&r, 2) ? "board" : "moves";

			rt = round_trips(m);
			c0 = bench_now();
			bench_cmd(m, b, room, user, q);
			add_sample(&res->query, bench_now() - c0);
			res->rt_query += round_trips(m) - rt;
		} else {
			bench_pick_play(s, seat, &r, 0, ml, &text);
			seq = s->last_seq;
			rt = round_trips(m);
			c0 = bench_now();
			bench_cmd(m, b, room, user, buf_str(&text));
			add_sample(&res->play, bench_now() - c0);
			res->rt_play += round_trips(m) - rt;
			add_sample(&res->bygame[k % 2], res->play.v[res->play.n - 1]);
			/* the command may have replaced s (finished games stay) */
			s = session_mgr_cached(m, "console", room);
			if (!s || s->last_seq <= seq) {
				if (res->failed++ < 3)
					fprintf(stderr, "bench: %s: '%s' did not apply\n", room,
						buf_str(&text));
			}
		}
		confirm(m, b, res);
		res->commands++;
		t = bench_now() - t0;
	} while (t < seconds);
	res->seconds = t;
	res->cpu_bot = cpu_self() - cpu0;
	res->cpu_server = backend ? cpu_of(backend) - srv0 : 0;
	res->cpu_server_all = backend ? cpu_server_all(backend) - all0 : 0;
	res->rt_all = round_trips(m) - rt0;
	rc = res->failed ? -1 : 0;
	if (backend && res->cpu_server <= 0) {
		fprintf(stderr, "bench: no CPU time read for PostgreSQL backend %ld "
			"(/proc/%ld/stat)\n", backend, backend);
		rc = -1;
	}
out:
	free(ml);
	buf_release(&text);
	buf_release(&err);
	return rc;
}

static void report_all(const char *tag, struct result *res, int nrooms)
{
	int i;

	for (i = 0; i < 2; i++) {
		qsort(res->bygame[i].v, res->bygame[i].n, sizeof(double), cmp_double);
		fprintf(stderr, "session.%s.play %s: p50 %.0f us, p99 %.0f us, %zu samples\n", tag,
			game_of(i), pct(&res->bygame[i], 0.5) * 1e6,
			pct(&res->bygame[i], 0.99) * 1e6, res->bygame[i].n);
	}
	report(tag, "play", &res->play);
	report(tag, "query", &res->query);
	printf("session.%s.throughput %.0f commands/s\n", tag, res->commands / res->seconds);
	if (res->cpu_server > 0) {
		printf("session.%s.cpu.bot %.0f us\n", tag, res->cpu_bot / res->commands * 1e6);
		printf("session.%s.cpu.server %.0f us\n", tag,
		       res->cpu_server / res->commands * 1e6);
		printf("session.%s.cpu.server_all %.0f us\n", tag,
		       res->cpu_server_all / res->commands * 1e6);
	}
	if (res->rt_all) {
		printf("session.%s.roundtrips.play %.2f round trips\n", tag,
		       (double)res->rt_play / (double)(res->play.n ? res->play.n : 1));
		printf("session.%s.roundtrips.query %.2f round trips\n", tag,
		       (double)res->rt_query / (double)(res->query.n ? res->query.n : 1));
		printf("session.%s.roundtrips.sent %.2f round trips\n", tag,
		       (double)res->rt_sent / (double)(res->nsent ? res->nsent : 1));
		printf("session.%s.roundtrips %.2f round trips\n", tag,
		       (double)res->rt_all / (double)res->commands);
		fprintf(stderr, "session.%s: %.2f messages sent per command\n", tag,
			(double)res->nsent / (double)res->commands);
	}
	fprintf(stderr, "session.%s: %d rooms, %ld commands in %.1f s, %ld new games, "
		"%ld plays not applied\n", tag, nrooms, res->commands, res->seconds, res->games,
		res->failed);
}

/* A store of kind `tag` ("normal"/"full": SQLite at path; "postgres": the
 * URI in path).  A node (several processes) when node is set. */
static struct store *open_store(const char *tag, const char *path, const char *node)
{
	struct buf err = BUF_INIT;
	struct store *st;

	char uri[600];

	if (strcmp(tag, "postgres"))
		return bench_store_open(path, tag);
	/* the application name finds the connection's server process */
	snprintf(uri, sizeof(uri), "%s&application_name=%s", path, node);
	st = store_pg_open(uri, &err);
	if (!st)
		fprintf(stderr, "bench: store: %s\n", buf_str(&err));
	if (st && node && store_lease(st, node, node, 3600 * 1000, &err) != 1) {
		fprintf(stderr, "bench: node lease: %s\n", buf_str(&err));
		store_close(st);
		st = NULL;
	}
	buf_release(&err);
	return st;
}

/* One process: the figures of tag. */
static int run_one(const char *tag, const char *path, int nrooms, double seconds,
		   double *throughput)
{
	struct store *store = open_store(tag, path, "bench-node-0");
	struct session_mgr *m;
	struct bench_adapter *b;
	struct result res = { 0 };
	long backend;
	int rc;

	if (!store)
		return -1;
	m = xcalloc(1, sizeof(*m));
	session_mgr_init(m, store, 1234);
	if (!strcmp(tag, "postgres"))
		session_mgr_set_node(m, "bench-node-0");
	b = bench_adapter_new(m);
	backend = strcmp(tag, "postgres") ? 0 : backend_of("bench-node-0");
	rc = strcmp(tag, "postgres") || backend ? workload(m, b, "", nrooms, seconds, 0, backend, &res)
						: -1;
	if (!rc) {
		report_all(tag, &res, nrooms);
		*throughput = res.commands / res.seconds;
	}
	result_release(&res);
	session_mgr_release(m);
	free(m);
	adapter_free(&b->base);
	store_close(store);
	return rc;
}

/*
 * Two processes at once on the same store, each with its own rooms, as two
 * shards would be; both nodes of a cluster.  The throughput is both
 * processes' commands over the longer of their runs.
 */
static int run_two(const char *tag, const char *path, int nrooms, double seconds,
		   double one)
{
	int fds[2][2], k, rc = 0;
	pid_t pid[2];
	long commands = 0;
	double secs = 0, cpu_bot = 0, cpu_server = 0;

	for (k = 0; k < 2; k++) {
		if (pipe(fds[k]))
			return -1;
		fflush(stdout);
		pid[k] = fork();
		if (pid[k] < 0)
			return -1;
		if (!pid[k]) {
			char node[32], prefix[16];
			struct store *store;
			struct session_mgr *m;
			struct bench_adapter *b;
			struct result res;
			long backend;
			FILE *out;

			close(fds[k][0]);
			snprintf(node, sizeof(node), "bench-node-%d", k + 1);
			snprintf(prefix, sizeof(prefix), "p%d-", k);
			store = open_store(tag, path, node);
			if (!store)
				_exit(1);
			m = xcalloc(1, sizeof(*m));
			session_mgr_init(m, store, 1234 + (uint64_t)k);
			session_mgr_set_node(m, node);
			b = bench_adapter_new(m);
			backend = strcmp(tag, "postgres") ? 0 : backend_of(node);
			if ((!strcmp(tag, "postgres") && !backend) ||
			    workload(m, b, prefix, nrooms, seconds, (uint64_t)k + 1, backend, &res))
				_exit(1);
			out = fdopen(fds[k][1], "w");
			fprintf(out, "%ld %f %f %f\n", res.commands, res.seconds, res.cpu_bot,
				res.cpu_server);
			fclose(out);
			_exit(0);
		}
		close(fds[k][1]);
	}
	for (k = 0; k < 2; k++) {
		FILE *in = fdopen(fds[k][0], "r");
		long c = 0;
		double t = 0, cb = 0, cs = 0;
		int status;

		if (!in || fscanf(in, "%ld %lf %lf %lf", &c, &t, &cb, &cs) != 4)
			rc = -1;
		cpu_bot += cb;
		cpu_server += cs;
		if (in)
			fclose(in);
		if (waitpid(pid[k], &status, 0) < 0 || !WIFEXITED(status) || WEXITSTATUS(status))
			rc = -1;
		commands += c;
		if (t > secs)
			secs = t;
	}
	if (rc || secs <= 0) {
		fprintf(stderr, "bench: the two %s processes failed\n", tag);
		return -1;
	}
	printf("session.%s.2proc.throughput %.0f commands/s\n", tag, commands / secs);
	printf("session.%s.2proc.speedup %.2f x\n", tag, commands / secs / one);
	if (!strcmp(tag, "postgres") && sysconf(_SC_NPROCESSORS_ONLN) < 4)
		fprintf(stderr, "session.postgres.2proc.speedup: %ld CPUs; two processes and "
			"their two PostgreSQL backends want 4, so this is no measure of how "
			"processes scale (the cpu.* figures are: docs/deploy.md, \"Capacity\")\n",
			sysconf(_SC_NPROCESSORS_ONLN));
	if (cpu_server > 0) {
		printf("session.%s.2proc.cpu.bot %.0f us\n", tag, cpu_bot / commands * 1e6);
		printf("session.%s.2proc.cpu.server %.0f us\n", tag, cpu_server / commands * 1e6);
	}
	return 0;
}

/* A fresh schema in the server TABULA_TEST_PG names, into uri. */
static int pg_schema(char *uri, size_t n)
{
	const char *base = getenv("TABULA_TEST_PG");
	PGconn *c;
	PGresult *r;
	char sql[128];
	int ok;

	if (!base || !*base) {
		fprintf(stderr, "bench: TABULA_TEST_PG is not set: run me through"
			" scripts/pg-test-server.sh run --durable (make bench does)\n");
		return -1;
	}
	c = PQconnectdb(base);
	snprintf(sql, sizeof(sql), "DROP SCHEMA IF EXISTS bench_%d CASCADE;"
		 " CREATE SCHEMA bench_%d", (int)getpid(), (int)getpid());
	r = PQexec(c, sql);
	ok = PQresultStatus(r) == PGRES_COMMAND_OK;
	if (!ok)
		fprintf(stderr, "bench: %s: %s\n", sql, PQerrorMessage(c));
	PQclear(r);
	PQfinish(c);
	snprintf(uri, n, "%s&options=-csearch_path%%3Dbench_%d", base, (int)getpid());
	return ok ? 0 : -1;
}

static int run_sqlite(const char *sync, int nrooms, double seconds, int two)
{
	struct bench_db db;
	double one = 0;
	int rc;

	if (bench_db_make(&db, sync))
		return -1;
	rc = run_one(sync, db.path, nrooms, seconds, &one);
	bench_db_remove(&db);
	if (rc || !two)
		return rc;
	/* both processes on one file: each opens it (WAL, busy timeout) */
	if (bench_db_make(&db, sync))
		return -1;
	rc = run_two(sync, db.path, nrooms, seconds, one);
	bench_db_remove(&db);
	return rc;
}

static int run_postgres(int nrooms, double seconds)
{
	char uri[512];
	double one = 0;

	if (pg_schema(uri, sizeof(uri)) || run_one("postgres", uri, nrooms, seconds, &one))
		return -1;
	/* a fresh schema for the pair: the same amount of data to start with */
	if (pg_schema(uri, sizeof(uri)))
		return -1;
	return run_two("postgres", uri, nrooms, seconds, one);
}

int main(void)
{
	int nrooms = (int)bench_env("BENCH_ROOMS", 200);
	double seconds = bench_env("BENCH_SESSION_SECONDS", 3);

	if (run_sqlite("normal", nrooms, seconds, 1) || run_sqlite("full", nrooms, seconds, 0) ||
	    run_postgres(nrooms, seconds))
		return 1;
	return 0;
}
