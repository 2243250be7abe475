/*
 * tabula: the bot's entry point.  Reads the configuration, opens the store,
 * starts the adapters on one libuv loop and runs until input ends or a
 * signal arrives.  Exit codes are listed in usage() and README.md.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "adapters/console/console.h"
#include "adapters/discord/discord.h"
#include "adapters/matrix/matrix.h"
#include "bot/cluster.h"
#include "bot/config.h"
#include "bot/harden.h"
#include "bot/ops.h"
#include "bot/paintjob.h"
#include "bot/platenv.h"
#include "bot/session.h"
#include "bot/think.h"
#include "bot/web.h"
#include "bot/weblink.h"
#include "bot/workers.h"
#include "paint/paint.h"
#include "state/store.h"
#include "util/logging.h"
#include "util/meters.h"
#include "util/version.h"

#define EXIT_RUNTIME 1
#define EXIT_USAGE 2
#define EXIT_STORE 3
#define EXIT_LEASE 26

#define DEFAULT_DB "./var/tabula.db"

static void usage(FILE *f)
{
	fputs("usage: tabula [--console] [--db STORE] [--help] [--version]\n"
	      "       tabula --migrate-store FROM TO\n"
	      "\n"
	      "Hosts board games (Fortuna, Glory to Rome) in chat rooms.  With\n"
	      "DISCORD_TOKEN set it connects to Discord, with MATRIX_HOMESERVER to\n"
	      "Matrix (both at once is fine); with no platform configured\n"
	      "(or with --console) it runs the console adapter: type lines such as\n"
	      "  ana: game new fortuna\n"
	      "on standard input; answers are tagged [room] or [dm user].\n"
	      "\n"
	      "options:\n"
	      "  --console     use the console adapter even if a platform is configured\n"
	      "  --db STORE    the store (same as TABULA_DB)\n"
	      "  --migrate-store FROM TO  copy every game, message and cursor of the\n"
	      "                store FROM into the empty store TO (SQLite paths or\n"
	      "                postgresql:// URIs), then exit\n"
	      "  --help        this text\n"
	      "  --version     the version\n"
	      "\n"
	      "environment:\n"
	      "  TABULA_CONFIG      a KEY=VALUE file of defaults for these variables\n"
	      "  TABULA_DB          the store: a SQLite file (default " DEFAULT_DB "), or a\n"
	      "                     postgresql:// URI shared by several processes\n"
	      "                     (docs/deploy.md)\n"
	      "  TABULA_DB_SYNC     normal (default) or full: SQLite synchronous mode\n"
	      "  TABULA_DB_TIMEOUT  PostgreSQL: longest wait for an answer, ms (default 5000)\n"
	      "  TABULA_LEASE_MS    PostgreSQL: how long a process's leases last (Matrix\n"
	      "                     sync, Discord shard, its node), ms (default 10000);\n"
	      "                     a standby takes over within about that long\n"
	      "  TABULA_LOCALE      default locale of new rooms: en (default) or es\n"
	      "  TABULA_BOARDS      console: where pictures of boards are written\n"
	      "                     (default: boards/ beside the store)\n"
	      "  TABULA_LOG         log level on stderr: debug, info (default), warn, error\n"
	      "  TABULA_PAINT_THREADS threads that paint pictures of boards, 1..16\n"
	      "                     (default 2; off the event loop: docs/pictures.md)\n"
	      "  TABULA_SEED        fixes the bot's random seed (tests, replays)\n"
	      "  TABULA_THROTTLE    per-user command throttle: burst/seconds (a user may\n"
	      "                     send burst commands at once, then one every seconds)\n"
	      "                     or off (default 10/2 on Discord and Matrix, off on\n"
	      "                     the console)\n"
	      "  TABULA_HTTP        HOST:PORT of the operators' HTTP listener (/healthz,\n"
	      "                     /readyz, /metrics), e.g. 127.0.0.1:9464; off when unset\n"
	      "  TABULA_HTTP_PUBLIC 1: TABULA_HTTP may name an address other machines\n"
	      "                     reach (without it only loopback addresses are taken)\n"
	      "  TABULA_PUBLIC_URL  the games' web pages: the https:// address players reach\n"
	      "                     (a proxy in front of TABULA_HTTP, default then\n"
	      "                     127.0.0.1:9464); off when unset\n"
	      "  TABULA_TEST_CLOCK  tests only: a fake clock (unix seconds, or a file)\n"
	      "  TABULA_TEST_PAINT_HOLD tests only: pictures wait to be painted while\n"
	      "                     this file exists\n"
	      "  TABULA_TEST_MATRIX_SENDQ  tests only: the Matrix send queue's bound\n"
	      "  TABULA_TEST_MATRIX_HOLD_MS tests only: how long an encrypted message waits\n"
	      "                     for its key\n"
	      "  TABULA_TEST_MATRIX_HOLD_MAX tests only: how many encrypted messages wait\n"
	      "                     for their keys at most\n"
	      "  DISCORD_TOKEN      Discord bot token: runs the Discord adapter (never logged)\n"
	      "  DISCORD_APPLICATION_ID  the application id (default: learnt at connect)\n"
	      "  DISCORD_GUILD_ID   register the slash commands in this server only\n"
	      "                     (they appear at once; global ones can take an hour)\n"
	      "  DISCORD_API_URL    REST base (default https://discord.com/api/v10), or a\n"
	      "                     shared REST proxy's (DISCORD_API_PROXY)\n"
	      "  DISCORD_API_PROXY  1: DISCORD_API_URL is a REST proxy every process shares\n"
	      "                     (docs/deploy.md): plain http:// to a private address\n"
	      "                     or unix:/path of its socket allowed\n"
	      "  TABULA_TEST_DISCORD_DIRECT_URL tests only: where interaction callbacks go\n"
	      "                     around the proxy (default Discord's REST base)\n"
	      "  DISCORD_GATEWAY_URL gateway URL (default: asked with GET /gateway/bot)\n"
	      "  DISCORD_SHARD      id/count, e.g. 0/2, when the bot runs sharded; with a\n"
	      "                     PostgreSQL store also auto/count: the first shard no\n"
	      "                     other process serves (or stand by for one)\n"
	      "  DISCORD_REST_QUEUE most requests waiting for Discord (default 4096)\n"
	      "  MATRIX_HOMESERVER  Matrix homeserver URL: runs the Matrix adapter\n"
	      "  MATRIX_ACCESS_TOKEN the bot account's access token, or:\n"
	      "  MATRIX_USER, MATRIX_PASSWORD  its user and password (never logged)\n"
	      "  MATRIX_PREFIX      command prefix in rooms (default !)\n"
	      "  MATRIX_ALLOW       accept invites only from these users/servers (comma-separated)\n"
	      "  MATRIX_PICKLE_KEY  the key sealing the bot's encryption keys in the store\n"
	      "                     (default: a key file made beside the store, PATH.matrix-key)\n"
	      "\n"
	      "exit codes:\n"
	      "  0  input ended or a signal asked to stop\n"
	      "  1  a runtime failure (event loop)\n"
	      "  2  bad command line or configuration (also: a TABULA_CONFIG file that\n"
	      "     others can write, or read while it holds a secret)\n"
	      "  3  the store could not be opened (also: its path is a symbolic link,\n"
	      "     or the file is not tabula's)\n"
	      "  14 Discord refused the token (close 4004 or HTTP 401)\n"
	      "  15 the Matrix homeserver refused the credentials\n"
	      "  16 the Matrix encryption keys in the store do not open with the pickle key\n"
	      "  20-24 Discord closed with 4010-4014 (shard, sharding, API version,\n"
	      "     invalid or disallowed intents): fix the configuration first\n"
	      "  25 Discord's daily session starts are down to the reserve: find out\n"
	      "     from the log why the bot kept reconnecting before restarting it\n"
	      "  26 a lease this process held (the Matrix sync, a Discord shard) was\n"
	      "     lost: the store was out of reach for longer than TABULA_LEASE_MS, or\n"
	      "     another process took it; restarted, the process stands by\n", f);
}

/*
 * The clock and the one timer of reminders and timeouts.  TABULA_TEST_CLOCK
 * (tests only) replaces the clock: a number is the starting unix time, moved
 * by the console's "@clock <t>" lines; a path names a file holding the time,
 * read at every use, and SIGUSR1 asks the bot to look at it now.
 */
static struct {
	int mode;		/* 0 real, 1 value, 2 file */
	int64_t value;
	char path[512];
} tclock;
static uv_timer_t due_timer;
static int due_timer_on;
/* the game pages' look at what other processes committed (bot/webwatch.c) */
static uv_timer_t web_timer;
static int web_timer_init;

static int64_t test_now(void *ctx)
{
	if (tclock.mode == 2) {
		FILE *f = fopen(tclock.path, "r");
		long long t = 0;

		if (f) {
			if (fscanf(f, "%lld", &t) != 1)
				t = 0;
			fclose(f);
		}
		return t > 0 ? (int64_t)t : tclock.value;
	}
	return tclock.value;
}

static void on_due(uv_timer_t *t);

/* Arms the timer for the manager's next due time. */
static void rearm(struct session_mgr *m, int64_t due)
{
	int64_t now = m->now(m->now_ctx), wait;

	if (!due_timer_on)
		return;
	uv_timer_stop(&due_timer);
	if (!due)
		return;
	wait = due > now ? due - now : 0;
	if (wait > 86400 * 7)
		wait = 86400 * 7;	/* re-check weekly; uv timers are ms */
	uv_timer_start(&due_timer, on_due, (uint64_t)wait * 1000 + (wait ? 0 : 1), 0);
}

static void on_due(uv_timer_t *t)
{
	struct session_mgr *m = t->data;

	rearm(m, session_mgr_tick(m));
}

static void on_web_watch(uv_timer_t *t)
{
	web_watch_tick(t->data);
}

/* web.watch_timer: runs only while page viewers' streams are open here */
static void web_watch_timer(void *ctx, int on)
{
	if (!web_timer_init)
		return;
	if (on)
		uv_timer_start(&web_timer, on_web_watch, WEB_WATCH_MS, WEB_WATCH_MS);
	else
		uv_timer_stop(&web_timer);
}

static void on_command(void *ctx, struct adapter *a, const struct command *cmd)
{
	session_mgr_handle(ctx, a, cmd);
	rearm(ctx, session_mgr_next_due(ctx));
}

static void on_clock(void *ctx, struct adapter *a, int64_t now)
{
	tclock.value = now;
	rearm(ctx, session_mgr_tick(ctx));
}

static void on_usr1(uv_signal_t *h, int signum)
{
	struct session_mgr *m = h->data;

	rearm(m, session_mgr_tick(m));
}

static void on_sent(void *ctx, struct adapter *a, int64_t outbox_id)
{
	session_mgr_sent(ctx, outbox_id);
}

static size_t on_complete(void *ctx, struct adapter *a, const struct command *cmd,
			  struct adapter_choice *out, size_t max)
{
	return session_mgr_complete(ctx, cmd, out, max);
}

static int on_position(void *ctx, struct adapter *a, const struct command *cmd,
		       int64_t *session, int64_t *position)
{
	struct buf err = BUF_INIT;
	struct session *s = session_mgr_find(ctx, cmd->platform, cmd->room, &err);

	buf_release(&err);
	if (!s || !s->st || s->rec.status != SESSION_ACTIVE)
		return -1;
	*session = s->rec.id;
	*position = s->last_seq;
	return 0;
}

/* ---- several processes on one store (docs/deploy.md) ---- */

/*
 * With a shared store (PostgreSQL) this process is a node of a cluster
 * (bot/cluster.h): Discord and Matrix start only once their role lease is
 * this process's (a second process waits as a hot standby), and a lost
 * role ends the process with EXIT_LEASE (restarted, it stands by).
 */
static struct {
	int on;
	struct cluster cl;
	struct cluster_role discord_role, matrix_role;
	struct discord_config dcfg;
	struct session_mgr *mgr;
	uv_loop_t *loop;
	struct adapter **discord, **matrix;	/* main's platform slots */
	int *discord_started, *matrix_started;
	int exit_code;
} nodes;

static int attach_adapter(struct session_mgr *mgr, struct adapter *p, uv_loop_t *loop,
			  struct buf *err);

static void on_role_acquired(void *ctx, struct cluster_role *r)
{
	struct buf err = BUF_INIT;
	int is_discord = r == &nodes.discord_role;
	struct adapter **slot = is_discord ? nodes.discord : nodes.matrix;
	int *started = is_discord ? nodes.discord_started : nodes.matrix_started;

	if (is_discord && !*slot) {
		if (nodes.dcfg.shard_count)
			nodes.dcfg.shard_id = r->index;
		*slot = discord_adapter_new(&nodes.dcfg, &err);
		if (!*slot) {
			log_err("discord: %s", buf_str(&err));
			nodes.exit_code = EXIT_USAGE;
			uv_stop(nodes.loop);
			buf_release(&err);
			return;
		}
		if (nodes.dcfg.shard_count)
			log_info("discord: serving shard %d of %d", r->index, nodes.dcfg.shard_count);
	}
	if (attach_adapter(nodes.mgr, *slot, nodes.loop, &err)) {
		log_err("%s: %s", (*slot)->ops->name, buf_str(&err));
		nodes.exit_code = EXIT_RUNTIME;
		uv_stop(nodes.loop);
	} else {
		/* what a dead holder left undelivered needs no flush here: the
		 * cluster's on_tick (on_cluster_tick) runs right after the roles'
		 * steps, and main flushes right after cluster_start */
		*started = 1;
	}
	buf_release(&err);
}

static void on_role_lost(void *ctx, struct cluster_role *r)
{
	struct adapter *a = r == &nodes.discord_role ? *nodes.discord : *nodes.matrix;

	/* nothing more goes out or is claimed for that platform here; the
	 * fence refuses what this process may still try to store for it */
	if (a)
		session_mgr_remove_adapter(nodes.mgr, a);
	log_err("%s is another process's now: stopping (exit %d); restarted, this process"
		" stands by", r->name, EXIT_LEASE);
	nodes.exit_code = EXIT_LEASE;
	uv_stop(nodes.loop);
}

static void rearm(struct session_mgr *m, int64_t due);

/* Every lease period: orphaned messages of dead nodes, and due work that
 * a dead node had claimed, on the platforms this process serves now. */
static void on_cluster_tick(void *ctx)
{
	struct session_mgr *m = ctx;
	struct buf err = BUF_INIT;

	if (session_mgr_flush_outbox(m, &err))
		log_warn("outbox: %s", buf_str(&err));
	buf_release(&err);
	rearm(m, session_mgr_tick(m));
}

/* --migrate-store FROM TO: 0, or an exit status. */
struct copied {
	long n[STORE_ITEM_WEB + 1];	/* by enum store_item_kind */
};

static int count_item(void *ctx, const struct store_item *it)
{
	((struct copied *)ctx)->n[it->kind]++;
	return 0;
}

static int migrate_store(const char *from, const char *to)
{
	struct buf err = BUF_INIT, shown = BUF_INIT;
	struct store *src = NULL, *dst = NULL;
	struct copied c = { { 0 } };
	int rc = EXIT_STORE;

	/* a missing SQLite file would be created empty: that is no source */
	if (!store_is_postgres(from) && access(from, F_OK)) {
		fprintf(stderr, "tabula: --migrate-store: %s does not exist\n", from);
		return EXIT_STORE;
	}
	src = store_open(from, &err);
	if (!src) {
		store_describe(from, &shown);
		fprintf(stderr, "tabula: cannot open the store %s: %s\n", buf_str(&shown),
			buf_str(&err));
		goto out;
	}
	dst = store_open(to, &err);
	if (!dst) {
		store_describe(to, &shown);
		fprintf(stderr, "tabula: cannot open the store %s: %s\n", buf_str(&shown),
			buf_str(&err));
		goto out;
	}
	if (store_migrate(src, dst, &err)) {
		fprintf(stderr, "tabula: --migrate-store: %s (nothing copied)\n", buf_str(&err));
		goto out;
	}
	if (store_dump(dst, count_item, &c, &err)) {
		fprintf(stderr, "tabula: --migrate-store: reading the copy: %s\n", buf_str(&err));
		goto out;
	}
	store_describe(to, &shown);
	printf("copied into %s: %ld sessions, %ld actions, %ld outbox messages, %ld cursors,"
	       " %ld results, %ld ratings, %ld rating points, %ld players, %ld web links\n",
	       buf_str(&shown), c.n[STORE_ITEM_SESSION], c.n[STORE_ITEM_ACTION],
	       c.n[STORE_ITEM_OUTBOX], c.n[STORE_ITEM_CURSOR], c.n[STORE_ITEM_RESULT],
	       c.n[STORE_ITEM_RATING], c.n[STORE_ITEM_POINT], c.n[STORE_ITEM_PLAYER],
	       c.n[STORE_ITEM_WEB]);
	rc = 0;
out:
	store_close(src);
	store_close(dst);
	buf_release(&err);
	buf_release(&shown);
	return rc;
}

/* ---- searching AI seats on libuv's thread pool (docs/async.md) ---- */

struct think_req {
	uv_work_t work;
	struct think_job *job;
	struct session_mgr *m;
};

static int thinking_out;	/* jobs queued or running */
static int stopping;		/* answers after the stop are dropped */

static void think_work(uv_work_t *w)
{
	struct think_req *r = w->data;

	think_run(r->job);
}

static void think_after(uv_work_t *w, int status)
{
	struct think_req *r = w->data;

	thinking_out--;
	metric_set(&met_ai_queue, 0, 0, thinking_out);
	if (stopping || status) {
		/* not stored: the session stays due, and the next start thinks
		 * again */
		r->m->thinking--;
		think_free(r->job);
	} else {
		session_mgr_ai_done(r->m, r->job);
		rearm(r->m, session_mgr_tick(r->m));
	}
	free(r);
}

static int think(void *ctx, struct think_job *job)
{
	struct session_mgr *m = ctx;
	struct think_req *r = xcalloc(1, sizeof(*r));

	r->job = job;
	r->m = m;
	r->work.data = r;
	if (uv_queue_work(uv_default_loop(), &r->work, think_work, think_after)) {
		free(r);
		return -1;	/* the manager decides inline */
	}
	thinking_out++;
	metric_set(&met_ai_queue, 0, 0, thinking_out);
	return 0;
}

/* ---- pictures, painted by a pool of worker threads (docs/pictures.md) ---- */

#define PAINT_THREADS_DEFAULT 2

static struct workers *painters;
static const char *paint_hold;	/* TABULA_TEST_PAINT_HOLD */
static atomic_int paint_stopping;	/* ends the hold */

static void paint_run(void *job)
{
	/* tests only: a picture waits while the file exists, so that a test
	 * sees the text of a message before its picture, queues newer boards
	 * behind it, or kills the bot between the two */
	while (paint_hold && !atomic_load(&paint_stopping) && access(paint_hold, F_OK) == 0)
		usleep(2000);
	paint_job_run(job);
}

static void paint_after(void *ctx, void *job)
{
	struct paint_job *pj = job;

	if (stopping) {
		/* its message stays in the outbox, unconfirmed: the next start
		 * sends its text again (deduplicated) and paints it again */
		paint_job_free(job);
		return;
	}
	if (pj->done)		/* a game page's picture (bot/web.c) */
		pj->done(pj->done_ctx, pj);
	else
		session_mgr_paint_done(ctx, job);
}

static void paint_discard(void *job)
{
	paint_job_free(job);
}

static int paint(void *ctx, struct paint_job *job)
{
	return painters ? workers_submit(painters, job) : -1;
}

/* TABULA_PAINT_THREADS: 1..WORKERS_MAX, default PAINT_THREADS_DEFAULT.
 * The count, or -1 on a bad value. */
static int paint_threads_from_env(void)
{
	const char *v = getenv("TABULA_PAINT_THREADS");
	char *e;
	long n;

	if (!v || !*v)
		return PAINT_THREADS_DEFAULT;
	n = strtol(v, &e, 10);
	if (*e || n < 1 || n > WORKERS_MAX)
		return -1;
	return (int)n;
}

static void on_signal(uv_signal_t *h, int signum)
{
	log_info("signal %d: stopping", signum);
	uv_stop(h->loop);
}

static uint64_t random_seed(void)
{
	uint64_t seed = 0;
	int fd = open("/dev/urandom", O_RDONLY);

	if (fd >= 0) {
		if (read(fd, &seed, sizeof(seed)) != (ssize_t)sizeof(seed))
			seed = 0;
		close(fd);
	}
	if (!seed)
		seed = (uint64_t)time(NULL) ^ ((uint64_t)getpid() << 32);
	return seed;
}

/*
 * TABULA_THROTTLE: "off", or "burst/seconds" (burst 1..1000, seconds
 * 1..3600).  Unset: the default for Discord and Matrix; off on the console,
 * where one person types (or pastes a script).  0, or -1 on a bad value.
 */
static int throttle_from_env(struct session_mgr *m, int console)
{
	const char *v = getenv("TABULA_THROTTLE");
	unsigned burst, secs;
	char tail;

	if (!v || !*v) {
		if (!console)
			session_mgr_set_throttle(m, SESSION_THROTTLE_BURST,
						 SESSION_THROTTLE_PERIOD_MS);
		return 0;
	}
	if (!strcmp(v, "off"))
		return 0;
	if (sscanf(v, "%u/%u%c", &burst, &secs, &tail) != 2 || burst < 1 || burst > 1000 ||
	    secs < 1 || secs > 3600)
		return -1;
	session_mgr_set_throttle(m, burst, (int64_t)secs * 1000);
	return 0;
}

/* Creates the directory of the default store path; an explicit path is the
 * operator's to prepare. */
static void make_default_dir(void)
{
	if (mkdir("./var", 0700) && errno != EEXIST)
		log_warn("cannot create ./var: %s", strerror(errno));
}

/* Hands p to the manager and starts it. */
static int attach_adapter(struct session_mgr *mgr, struct adapter *p, uv_loop_t *loop,
			  struct buf *err)
{
	p->on_command = on_command;
	p->on_sent = on_sent;
	p->on_complete = on_complete;
	p->on_position = on_position;
	p->on_clock = tclock.mode ? on_clock : NULL;
	p->ctx = mgr;
	session_mgr_add_adapter(mgr, p);
	if (adapter_start(p, loop, err)) {
		session_mgr_remove_adapter(mgr, p);
		return -1;
	}
	return 0;
}

/* ---- main(): the process's steps ---- */

/* What the steps of main() share: the process's settings, the store, the
 * manager and its adapters, and the exit code so far. */
struct run {
	const char *db, *mig_from, *mig_to;
	const char *http_spec;		/* TABULA_HTTP, or NULL */
	char public_url[512];		/* TABULA_PUBLIC_URL checked, "" = no web pages */
	int http_public;
	int force_console, use_discord, use_matrix, discord_auto;
	struct store *store, *matrix_store;
	struct session_mgr *mgr;
	/* discord, matrix, console: created here, or (a Discord shard chosen
	 * from the leases) when its role is taken */
	struct adapter *platforms[3];
	int started[3];
	struct ops ops;
	struct web web;			/* the games' pages, when public_url is set */
	uv_loop_t *loop;
	uv_signal_t sigint, sigterm, sigusr1;
	int64_t lease_ms;
	uint64_t seed;
	struct buf err, shown;
	int rc;
};

/* Before any secret is read: a core dump would hold the tokens and every
 * hidden hand. */
static void harden(struct run *r)
{
	if (harden_process(&r->err))
		fprintf(stderr, "tabula: warning: %s\n", buf_str(&r->err));
	buf_reset(&r->err);
	/* a peer that closed its socket must fail a write, not kill the bot */
	signal(SIGPIPE, SIG_IGN);
}

/* The command line.  1: exit now with r->rc (--help, --version, a bad
 * option), else 0. */
static int parse_args(struct run *r, int argc, char **argv)
{
	int i;

	for (i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--console")) {
			r->force_console = 1;
		} else if (!strcmp(argv[i], "--db") && i + 1 < argc) {
			r->db = argv[++i];
		} else if (!strcmp(argv[i], "--migrate-store") && i + 2 < argc) {
			r->mig_from = argv[++i];
			r->mig_to = argv[++i];
		} else if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
			usage(stdout);
			r->rc = 0;
			return 1;
		} else if (!strcmp(argv[i], "--version")) {
			/* the second line is the address Discord's User-Agent names */
			printf("tabula %s\n%s\n", tabula_version, tabula_url);
			r->rc = 0;
			return 1;
		} else {
			fprintf(stderr, "tabula: unknown option '%s'\n", argv[i]);
			usage(stderr);
			r->rc = EXIT_USAGE;
			return 1;
		}
	}
	return 0;
}

/* TABULA_CONFIG and TABULA_LOG.  1: exit now with r->rc. */
static int read_config(struct run *r)
{
	const char *env = getenv("TABULA_CONFIG");

	if (env && *env && config_load(env, &r->err)) {
		fprintf(stderr, "tabula: %s\n", buf_str(&r->err));
		buf_release(&r->err);
		r->rc = EXIT_USAGE;
		return 1;
	}
	env = getenv("TABULA_LOG");
	if (env && *env) {
		enum log_level lvl;

		if (log_level_parse(env, &lvl)) {
			fprintf(stderr, "tabula: TABULA_LOG must be debug, info, warn or error\n");
			r->rc = EXIT_USAGE;
			return 1;
		}
		log_set_level(lvl);
	}
	return 0;
}

/* The operators' listener: checked now, opened once the bot runs.  1: exit
 * now with r->rc. */
static int check_http(struct run *r)
{
	const char *env = getenv("TABULA_HTTP_PUBLIC");

	if (env && *env && strcmp(env, "0") && strcmp(env, "1")) {
		fprintf(stderr, "tabula: TABULA_HTTP_PUBLIC must be 1 or 0\n");
		r->rc = EXIT_USAGE;
		return 1;
	}
	r->http_public = env && !strcmp(env, "1");
	r->http_spec = getenv("TABULA_HTTP");
	if (r->http_spec && !*r->http_spec)
		r->http_spec = NULL;
	if (platenv_public_url(r->public_url, sizeof(r->public_url), &r->err)) {
		fprintf(stderr, "tabula: %s\n", buf_str(&r->err));
		buf_release(&r->err);
		r->rc = EXIT_USAGE;
		return 1;
	}
	/* the games' pages are served by this listener (behind the proxy
	 * TABULA_PUBLIC_URL names): it runs, on loopback, unless told where */
	if (r->public_url[0] && !r->http_spec)
		r->http_spec = PLATENV_WEB_HTTP;
	if (r->http_spec) {
		char host[64];
		int port, v6;

		if (httpd_parse_addr(r->http_spec, r->http_public, host, sizeof(host), &port,
				     &v6, &r->err)) {
			fprintf(stderr, "tabula: TABULA_HTTP: %s\n", buf_str(&r->err));
			buf_release(&r->err);
			r->rc = EXIT_USAGE;
			return 1;
		}
	}
	return 0;
}

/* Which platforms run, and the store.  1: exit now with r->rc. */
static int open_store(struct run *r)
{
	r->use_discord = !r->force_console && getenv("DISCORD_TOKEN") &&
			 *getenv("DISCORD_TOKEN");
	r->use_matrix = !r->force_console && getenv("MATRIX_HOMESERVER") &&
			*getenv("MATRIX_HOMESERVER");
	if (!r->db || !*r->db) {
		r->db = DEFAULT_DB;
		make_default_dir();
	}
	store_describe(r->db, &r->shown);	/* a URI's password never reaches a log */
	r->store = store_open(r->db, &r->err);
	if (!r->store) {
		fprintf(stderr, "tabula: cannot open the store %s: %s\n", buf_str(&r->shown),
			buf_str(&r->err));
		buf_release(&r->err);
		buf_release(&r->shown);
		r->rc = EXIT_STORE;
		return 1;
	}
	return 0;
}

/* The leases' length, the seed and the tests' hooks (a picture that
 * cannot be made, the clock).  -1 on a bad value (r->rc set). */
static int read_process_env(struct run *r)
{
	const char *env;

	nodes.on = store_shared(r->store);
	if (nodes.on && cluster_ttl_from_env(&r->lease_ms, &r->err)) {
		fprintf(stderr, "tabula: %s\n", buf_str(&r->err));
		r->rc = EXIT_USAGE;
		return -1;
	}
	env = getenv("TABULA_SEED");
	r->seed = env && *env ? strtoull(env, NULL, 0) : random_seed();
	/* the tests of a picture that cannot be made (docs/pictures.md) */
	env = getenv("TABULA_TEST_PAINT_FAIL");
	if (env && *env)
		paint_inject_failures((unsigned)strtoul(env, NULL, 10));
	env = getenv("TABULA_TEST_CLOCK");
	if (env && *env) {
		char *e;

		tclock.value = strtoll(env, &e, 10);
		if (*e || tclock.value <= 0) {
			tclock.mode = 2;
			tclock.value = (int64_t)time(NULL);
			snprintf(tclock.path, sizeof(tclock.path), "%s", env);
		} else {
			tclock.mode = 1;
		}
	}
	return 0;
}

/* The painters' pool (TABULA_PAINT_THREADS; none: pictures are painted on
 * the loop).  -1 on a bad value. */
static int start_painters(struct run *r)
{
	int n = paint_threads_from_env();
	const char *env;

	if (n < 0) {
		fprintf(stderr, "tabula: TABULA_PAINT_THREADS must be 1..%d\n", WORKERS_MAX);
		r->rc = EXIT_USAGE;
		return -1;
	}
	env = getenv("TABULA_TEST_PAINT_HOLD");
	paint_hold = env && *env ? env : NULL;
	painters = workers_new(uv_default_loop(), n, paint_run, paint_after, r->mgr,
			       paint_thread_cleanup, &r->err);
	if (!painters) {
		/* pictures are painted on the loop then, as before */
		log_warn("%s; pictures are painted on the event loop", buf_str(&r->err));
		buf_reset(&r->err);
	} else {
		r->mgr->paint = paint;
		r->mgr->paint_ctx = r->mgr;
	}
	return 0;
}

/* The session manager, its AI and painters, and its settings from the
 * environment.  -1 on a bad value (r->rc set). */
static int start_manager(struct run *r)
{
	struct session_mgr *mgr;
	const char *env;

	mgr = r->mgr = xcalloc(1, sizeof(*mgr));
	session_mgr_init(mgr, r->store, r->seed);
	if (weblink_set_base(mgr, r->public_url, &r->err))
		return -1;	/* checked before: cannot fail */
	mgr->think = think;
	mgr->think_ctx = mgr;
	if (start_painters(r))
		return -1;
	/* a smaller search budget for tests and slow machines */
	env = getenv("TABULA_AI_ITERATIONS");
	if (env && *env) {
		char *e;
		long n = strtol(env, &e, 10);

		if (*e || n <= 0 || n > 1000000) {
			fprintf(stderr, "tabula: TABULA_AI_ITERATIONS must be 1..1000000\n");
			r->rc = EXIT_USAGE;
			return -1;
		}
		mgr->search_iterations = (int)n;
	}
	if (tclock.mode) {
		mgr->now = test_now;
		mgr->now_ctx = NULL;
	}
	if (throttle_from_env(mgr, !r->use_discord && !r->use_matrix)) {
		fprintf(stderr, "tabula: TABULA_THROTTLE must be off or burst/seconds, e.g. 10/2\n");
		r->rc = EXIT_USAGE;
		return -1;
	}
	env = getenv("TABULA_LOCALE");
	if (env && *env) {
		enum locale loc;

		if (locale_parse(env, &loc)) {
			fprintf(stderr, "tabula: TABULA_LOCALE must be en or es\n");
			r->rc = EXIT_USAGE;
			return -1;
		}
		mgr->default_loc = loc;
	}
	return 0;
}

/* This process's node among several on one store (the leases). */
static int join_cluster(struct run *r)
{
	r->loop = uv_default_loop();
	nodes.mgr = r->mgr;
	nodes.loop = r->loop;
	nodes.discord = &r->platforms[0];
	nodes.matrix = &r->platforms[1];
	nodes.discord_started = &r->started[0];
	nodes.matrix_started = &r->started[1];
	if (!nodes.on)
		return 0;
	if (cluster_init(&nodes.cl, r->loop, r->store, r->lease_ms, r->seed, &r->err)) {
		fprintf(stderr, "tabula: the store's leases: %s\n", buf_str(&r->err));
		r->rc = EXIT_STORE;
		return -1;
	}
	session_mgr_set_node(r->mgr, nodes.cl.node);
	if (!r->use_discord && !r->use_matrix)	/* the console's end ends the bot */
		uv_unref((uv_handle_t *)&nodes.cl.timer);
	log_info("cluster: node %s, leases of %lld ms", nodes.cl.node, (long long)r->lease_ms);
	return 0;
}

/* The adapters of the platforms that run (checked now, whenever they are
 * started).  -1 on a bad setting (r->rc set). */
static int make_adapters(struct run *r)
{
	if (r->use_discord) {
		if (platenv_discord(&nodes.dcfg, &r->discord_auto, r->seed, &r->err)) {
			fprintf(stderr, "tabula: %s\n", buf_str(&r->err));
			r->rc = EXIT_USAGE;
			return -1;
		}
		if (r->discord_auto && !nodes.on) {
			fprintf(stderr, "tabula: DISCORD_SHARD=auto/%d needs a store shared by the"
				" processes (TABULA_DB=postgresql://...)\n", r->discord_auto);
			r->rc = EXIT_USAGE;
			return -1;
		}
		/* checked now, whenever the adapter is made */
		r->platforms[0] = discord_adapter_new(&nodes.dcfg, &r->err);
		if (!r->platforms[0]) {
			fprintf(stderr, "tabula: %s\n", buf_str(&r->err));
			r->rc = EXIT_USAGE;
			return -1;
		}
		if (r->discord_auto) {
			adapter_free(r->platforms[0]);	/* made again for its shard */
			r->platforms[0] = NULL;
		}
	}
	if (r->use_matrix) {
		struct store *ms = r->store;

		if (nodes.on) {
			/* the adapter's own writes (its sync position) and the
			 * manager's commits of Matrix games: only while this
			 * process holds the Matrix lease */
			r->matrix_store = store_fence_wrap(r->store, "matrix", nodes.cl.node);
			ms = r->matrix_store;
			session_mgr_set_fence(r->mgr, "matrix", "matrix", nodes.cl.node);
		}
		r->platforms[1] = platenv_matrix(ms, r->db, r->seed, tclock.mode ? test_now : NULL,
						 &r->err);
		if (!r->platforms[1]) {
			fprintf(stderr, "tabula: %s\n", buf_str(&r->err));
			r->rc = EXIT_USAGE;
			return -1;
		}
	}
	if (!r->use_discord && !r->use_matrix) {
		r->platforms[2] = console_adapter_new(STDIN_FILENO, stdout);
		platenv_console_boards(r->platforms[2], r->db);
		if (isatty(STDIN_FILENO))
			printf("tabula console. Type \"name: command\", e.g. \"ana: game new fortuna\"; "
			       "\"ana: help\" lists the commands; Ctrl-D quits.\n");
	}
	return 0;
}

/* Starts the adapters this process serves now; with a shared store Discord
 * and Matrix wait for their lease (the cluster's roles).  -1 on failure. */
static int start_adapters(struct run *r)
{
	int k;

	for (k = 0; k < 3; k++) {
		if (!r->platforms[k] || (nodes.on && k < 2))
			continue;
		if (attach_adapter(r->mgr, r->platforms[k], r->loop, &r->err)) {
			log_err("%s: %s", r->platforms[k]->ops->name, buf_str(&r->err));
			r->rc = EXIT_RUNTIME;
			return -1;
		}
		r->started[k] = 1;
	}
	if (nodes.on) {
		if (r->use_discord) {
			int first = r->discord_auto ? 0 : nodes.dcfg.shard_id;
			int count = r->discord_auto ? r->discord_auto : 1;
			int total = nodes.dcfg.shard_count ? nodes.dcfg.shard_count : 1;

			cluster_role_init(&nodes.discord_role, "discord.shard", first, count, total,
					  on_role_acquired, on_role_lost, NULL);
			cluster_add_role(&nodes.cl, &nodes.discord_role);
		}
		if (r->use_matrix) {
			cluster_role_init(&nodes.matrix_role, "matrix", 0, 1, 0, on_role_acquired,
					  on_role_lost, NULL);
			cluster_add_role(&nodes.cl, &nodes.matrix_role);
		}
		nodes.cl.on_tick = on_cluster_tick;
		nodes.cl.tick_ctx = r->mgr;
	}
	return 0;
}

/* The due timer, the leases, the outbox a stop left, the open games. */
static void start_due_work(struct run *r)
{
	uv_timer_init(r->loop, &due_timer);
	due_timer.data = r->mgr;
	uv_unref((uv_handle_t *)&due_timer);	/* the console's end still ends the bot */
	due_timer_on = 1;
	if (nodes.on)
		cluster_start(&nodes.cl);	/* starts what this process may serve */
	if (session_mgr_flush_outbox(r->mgr, &r->err))
		log_warn("outbox: %s", buf_str(&r->err));
	if (session_mgr_load_open(r->mgr, &r->err))
		log_warn("loading the open games: %s", buf_str(&r->err));
	rearm(r->mgr, session_mgr_tick(r->mgr));
}

static void start_signals(struct run *r)
{
	uv_signal_init(r->loop, &r->sigusr1);
	r->sigusr1.data = r->mgr;
	if (tclock.mode)
		uv_signal_start(&r->sigusr1, on_usr1, SIGUSR1);
	uv_unref((uv_handle_t *)&r->sigusr1);
	uv_signal_init(r->loop, &r->sigint);
	uv_signal_start(&r->sigint, on_signal, SIGINT);
	uv_signal_init(r->loop, &r->sigterm);
	uv_signal_start(&r->sigterm, on_signal, SIGTERM);
	uv_unref((uv_handle_t *)&r->sigint);
	uv_unref((uv_handle_t *)&r->sigterm);
}

/* The operators' listener (TABULA_HTTP); failing sets r->rc, and the bot
 * does not run. */
static void start_ops_listener(struct run *r)
{
	if (!r->http_spec)
		return;
	r->ops.store = r->store;
	r->ops.discord = r->use_discord;
	r->ops.matrix = r->use_matrix;
	r->ops.now = r->mgr->now;
	r->ops.now_ctx = r->mgr->now_ctx;
	if (ops_start(&r->ops, r->loop, r->http_spec, r->http_public, &r->err)) {
		log_err("TABULA_HTTP: %s", buf_str(&r->err));
		r->rc = EXIT_USAGE;
	} else {
		log_info("http: listening on %.*s:%d (/healthz, /readyz, /metrics%s)",
			 (int)(strrchr(r->http_spec, ':') - r->http_spec), r->http_spec,
			 ops_port(&r->ops), r->public_url[0] ? ", the games' pages" : "");
	}
	web_init(&r->web, r->mgr);	/* the pages are off without public_url */
	if (!r->rc && r->public_url[0] && web_attach(&r->web, r->ops.http, &r->err)) {
		log_err("web: %s", buf_str(&r->err));
		r->rc = EXIT_USAGE;
	}
	r->web.paint = r->mgr->paint;	/* the painters' pool, when there is one */
	r->web.paint_ctx = r->mgr->paint_ctx;
	uv_timer_init(r->loop, &web_timer);
	web_timer.data = &r->web;
	uv_unref((uv_handle_t *)&web_timer);
	web_timer_init = 1;
	r->web.watch_timer = web_watch_timer;
}

static void run_loop(struct run *r)
{
	log_debug("ready (store %s)", buf_str(&r->shown));
	if (!nodes.exit_code && !r->rc)
		uv_run(r->loop, UV_RUN_DEFAULT);
}

/* After the loop: the pictures and AI jobs under way, the adapters (their
 * exit codes), the leases, the handles. */
static void shut_down(struct run *r)
{
	int k;

	/* the console's input ended: its pictures still come, in order (the
	 * last lines of a script are often a board); a stopped service leaves
	 * the waiting ones in its outbox, for the next start */
	if (!r->use_discord && !r->use_matrix)
		while (session_mgr_paint_depth(r->mgr) && painters && workers_pending(painters))
			uv_run(r->loop, UV_RUN_ONCE);
	session_mgr_paint_drop_waiting(r->mgr);
	stopping = 1;
	while (thinking_out)	/* a job holds memory a worker still writes */
		uv_run(r->loop, UV_RUN_ONCE);
	atomic_store(&paint_stopping, 1);
	workers_free(painters, paint_discard);	/* waits for the pictures being painted */
	painters = NULL;
	for (k = 0; k < 3; k++) {
		struct adapter *p = r->platforms[k];

		if (!p)
			continue;
		if (!strcmp(p->ops->name, "discord") && discord_adapter_exit_code(p))
			r->rc = discord_adapter_exit_code(p);
		if (!strcmp(p->ops->name, "matrix") && matrix_adapter_exit_code(p))
			r->rc = matrix_adapter_exit_code(p);
		if (r->started[k])
			adapter_stop(p);
	}
	if (nodes.exit_code && !r->rc)
		r->rc = nodes.exit_code;
	/* after the adapters: a standby takes over what is given up now */
	if (nodes.on)
		cluster_stop(&nodes.cl);
	uv_close((uv_handle_t *)&r->sigint, NULL);
	uv_close((uv_handle_t *)&r->sigterm, NULL);
	uv_close((uv_handle_t *)&r->sigusr1, NULL);
	due_timer_on = 0;
	uv_close((uv_handle_t *)&due_timer, NULL);
	if (web_timer_init) {
		web_timer_init = 0;
		uv_close((uv_handle_t *)&web_timer, NULL);
	}
	ops_stop(&r->ops);
	if (r->use_discord || r->use_matrix || nodes.on)
		uv_run(r->loop, UV_RUN_DEFAULT);	/* lets the closed handles go */
	else
		uv_run(r->loop, UV_RUN_NOWAIT);
	/* the listener's teardown takes a few turns (adapters/lwsctx.h) */
	while (!r->ops.gone)
		uv_run(r->loop, UV_RUN_NOWAIT);
}

/* Frees the manager and the adapters (also after an early exit). */
static void release_manager(struct run *r)
{
	int k;

	if (painters) {		/* an early exit */
		atomic_store(&paint_stopping, 1);
		workers_free(painters, paint_discard);
		painters = NULL;
		uv_run(uv_default_loop(), UV_RUN_NOWAIT);	/* its handle closes */
	}
	web_release(&r->web);
	session_mgr_release(r->mgr);
	free(r->mgr);
	for (k = 0; k < 3; k++)
		adapter_free(r->platforms[k]);
	if (r->rc && nodes.on && nodes.cl.started)
		cluster_stop(&nodes.cl);
}

static void close_store(struct run *r)
{
	store_close(r->matrix_store);
	store_close(r->store);
	buf_release(&r->err);
	buf_release(&r->shown);
	paint_cleanup();	/* the painter's caches, for leak checkers */
}

int main(int argc, char **argv)
{
	struct run r = { .ops = { .gone = 1 } };

	r.db = getenv("TABULA_DB");
	harden(&r);
	if (parse_args(&r, argc, argv) || read_config(&r))
		return r.rc;
	if (r.mig_from)
		return migrate_store(r.mig_from, r.mig_to);
	if (check_http(&r) || open_store(&r))
		return r.rc;
	if (read_process_env(&r))
		goto out_store;
	if (start_manager(&r) || join_cluster(&r) || make_adapters(&r) || start_adapters(&r))
		goto out;
	start_due_work(&r);
	start_signals(&r);
	start_ops_listener(&r);
	run_loop(&r);
	shut_down(&r);
out:
	release_manager(&r);
out_store:
	close_store(&r);
	/* a read blocked on a terminal may still hold the loop: do not wait */
	return r.rc;
}
