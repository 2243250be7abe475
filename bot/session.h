/*
 * session: the session manager.  One game per room; every command of every
 * adapter comes through session_mgr_handle().
 *
 * The rule it keeps: commit before send.  A command that changes a game is
 * applied to a scratch copy of the state; the new snapshot, the moves (the
 * player's and any AI moves that follow) and every message they cause are
 * written in one store transaction; only then is the live state replaced
 * and the messages handed to the adapters.  A failed commit changes nothing
 * and the player is told so.  A restart reloads sessions from the store on
 * demand and re-sends the outbox.
 *
 * Several processes on one store (docs/deploy.md): once told its node
 * (session_mgr_set_node), the manager checks each cached session against
 * the store's version once per command, tick or callback; a commit refused
 * because the session moved (STORE_CONFLICT) reloads it and runs the
 * command once more, then answers "try again"; due work and orphaned outbox
 * messages are claimed for the node; a platform with a fence (the Matrix
 * lease) commits only while the fence's lease is this process's.
 *
 * The commands it answers are one table (bot/commands.h); its files, one
 * per responsibility, are listed in bot/session_int.h; their layers in
 * tests/lint/layers.py.
 */
#ifndef BOT_SESSION_H
#define BOT_SESSION_H

#include <stdint.h>

#include "adapters/adapter.h"
#include "bot/throttle.h"
#include "games/game.h"
#include "state/store.h"
#include "util/rng.h"
#include "util/strmap.h"

#define SESSION_BUCKETS 4096
#define SESSION_MAX_ADAPTERS 4
#define SESSION_MAX_FENCES 4

/*
 * Limits (docs/async.md, "Limits"): the open lobbies one user may sit in on
 * a platform, the open lobbies of a whole platform, and the per-user
 * command throttle (burst, then one command per period).  The throttle is
 * off until session_mgr_set_throttle(): main.c turns it on for Discord and
 * Matrix (TABULA_THROTTLE).
 */
#define SESSION_LOBBIES_PER_USER 10
#define SESSION_LOBBIES_PER_PLATFORM 10000
#define SESSION_THROTTLE_BURST 10
#define SESSION_THROTTLE_PERIOD_MS 2000

struct think_job;
struct paint_job;
struct session_hooks;
struct web;

struct session {
	struct session_rec rec;
	const struct game_ops *ops;
	void *st;		/* game state (ops->state_size bytes); NULL in the lobby */
	/* votes (abort, kick, settings) are the users', stored with the
	 * session: rec.votes (docs/async.md, "Votes") */
	int64_t last_at;	/* when the last move was stored (or the start) */
	int64_t last_seq;	/* seq of the last stored action */
	int thinking;		/* a job of its AI seats is out (bot/think.h) */
	/* several processes: a commit found the store's copy newer (reload
	 * before using it again), and the manager epoch in which the cached
	 * copy was last checked against the store */
	int stale;
	unsigned checked;
	struct session *next;	/* hash chain */
};

/* A platform whose commits need a lease (struct store_commit's fence). */
struct session_fence {
	char platform[16];
	char lease[STORE_NAME_MAX + 1];
	char holder[STORE_NAME_MAX + 1];
};

struct session_mgr {
	struct store *store;		/* borrowed */
	const struct session_hooks *hooks;	/* the layers above the core (bot/core.h) */
	struct adapter *adapters[SESSION_MAX_ADAPTERS];	/* borrowed */
	int nadapters;
	struct session *buckets[SESSION_BUCKETS];
	struct rng rng;			/* seeds of new games */
	int64_t (*now)(void *ctx);	/* injectable clock (unix seconds) */
	void *now_ctx;
	const struct command *current;	/* the command being handled, or NULL */
	enum locale default_loc;
	unsigned max_log_lines;		/* per board message */
	/*
	 * Searching AI seats (`game settings ai strong`).  think, when set,
	 * runs the job away from the caller's thread and returns 0, and the
	 * program hands the job back to session_mgr_ai_done() on the
	 * manager's thread; -1 (or no think) and the manager thinks inline.
	 */
	int (*think)(void *ctx, struct think_job *job);
	void *think_ctx;
	int thinking;			/* jobs out */
	/*
	 * Pictures (docs/pictures.md, "Painted off the loop").  paint, when
	 * set, runs the job away from the loop and returns 0, and the
	 * program hands it back to session_mgr_paint_done() on the loop; the
	 * message's text goes at once and its picture follows, in the order
	 * of the messages (bot/pictures.c).  No paint (or an adapter without
	 * the `picture` op): pictures are painted inline, with their text.
	 */
	int (*paint)(void *ctx, struct paint_job *job);
	void *paint_ctx;
	struct strmap pic_streams;	/* stream key -> struct pic_stream */
	uint64_t pic_ids;		/* the last follow id given */
	size_t pic_depth;		/* pictures waiting or being painted */
	long pics_superseded, pics_failed;	/* counters, for the log and the tests */
	int search_iterations;		/* > 0: overrides search_defaults (tests) */
	unsigned max_lobbies_user;	/* SESSION_LOBBIES_PER_USER; 0: no cap */
	unsigned max_lobbies_platform;	/* SESSION_LOBBIES_PER_PLATFORM; 0: no cap */
	struct throttle throttle;	/* per platform and user; off by default */
	int64_t (*now_ms)(void *ctx);	/* monotonic milliseconds (the throttle) */
	void *now_ms_ctx;
	/* several processes (session_mgr_set_node): this process's node
	 * lease name, "" when the store is the process's alone */
	char node[STORE_NAME_MAX + 1];
	struct session_fence fences[SESSION_MAX_FENCES];
	int nfences;
	unsigned epoch;			/* bumped by every entry point */
	int last_commit;		/* the last change_commit's store answer */
	int conflicted;			/* a commit of this command hit STORE_CONFLICT */
	int outcome;			/* the command's, for its metric (util/meters.h) */
	int may_retry;			/* ... and the command will run again */
	long conflicts, retries;	/* counters, for the log and the tests */
	/* the games' pages (bot/web.h: web_init sets it), or NULL: commits
	 * tell their viewers through it */
	struct web *web;
	/*
	 * The games' web pages (docs/web.md, bot/weblink.h): web_base is
	 * TABULA_PUBLIC_URL checked, without its trailing slash ("" = no
	 * pages: no link is ever posted); set with weblink_set_base.
	 * web_gone, when set, is called after a commit that took a page
	 * away (`game web off`, or `game web reset`: the old link is dead),
	 * so that whatever serves the page can close its open streams.
	 */
	char web_base[512];
	void (*web_gone)(void *ctx, const struct session *s);
	void *web_gone_ctx;
};

/* Sets up in place.  seed feeds new games' seeds (tests fix it); AI
 * choices are seeded by their game's seed and move number. */
void session_mgr_init(struct session_mgr *m, struct store *store, uint64_t seed);
/* Frees the cached sessions and the throttle (not the store or adapters). */
void session_mgr_release(struct session_mgr *m);
/* Turns the per-user command throttle on (burst commands at once, then one
 * every period_ms) or off (burst 0). */
void session_mgr_set_throttle(struct session_mgr *m, unsigned burst, int64_t period_ms);
void session_mgr_add_adapter(struct session_mgr *m, struct adapter *a);

/*
 * Several processes on one store.  set_node: this process's node lease
 * name (held by the caller, bot/cluster.h): cached sessions are checked
 * against the store, due work and orphaned messages are claimed for it,
 * and the outbox rows it commits are its own.  set_fence: commits of
 * platform's sessions are stored only while lease is held by holder
 * (STORE_FENCED otherwise: the change is dropped, nothing is answered).
 * Strings are copied.  session_mgr_remove_adapter takes a platform out
 * (its lease was lost): nothing more is delivered or claimed for it.
 */
void session_mgr_set_node(struct session_mgr *m, const char *node);
void session_mgr_set_fence(struct session_mgr *m, const char *platform, const char *lease,
			   const char *holder);
void session_mgr_remove_adapter(struct session_mgr *m, struct adapter *a);

/* Handles one command from adapter a; answers through a.  Never fails: every
 * problem becomes a message to the user.  The per-user throttle is applied
 * first (a refused command reads and writes nothing), and cmd->name is
 * cleaned (text_clean_name) before anything shows or stores it, whatever
 * the adapter did. */
void session_mgr_handle(struct session_mgr *m, struct adapter *a, const struct command *cmd);

/* The adapters' on_complete: cmd->user's legal moves in cmd->room matching
 * cmd->text (see struct adapter).  Returns how many were written to out. */
size_t session_mgr_complete(struct session_mgr *m, const struct command *cmd,
			    struct adapter_choice *out, size_t max);

/*
 * Reminders and timeouts (docs/async.md).  Every commit stores the
 * session's next due time, so session_mgr_load_open() has nothing to load
 * at start-up (games load when first used) and always succeeds.
 * session_mgr_tick() does whatever is due at the manager's clock now and
 * returns the next due time (unix seconds), or 0 when nothing is pending;
 * session_mgr_next_due() only returns it.  The caller arms one timer.
 */
int session_mgr_load_open(struct session_mgr *m, struct buf *err);
int64_t session_mgr_tick(struct session_mgr *m);
int64_t session_mgr_next_due(struct session_mgr *m);

/* A job of m->think is back: stores its decisions if the game has not
 * moved meanwhile, and frees the job. */
void session_mgr_ai_done(struct session_mgr *m, struct think_job *job);

/* A picture job of m->paint is back (painted, or failed): its picture goes
 * to its adapter when the pictures before it in its room have gone; the
 * job is freed.  Then the next picture of that room is painted. */
void session_mgr_paint_done(struct session_mgr *m, struct paint_job *job);

/* Pictures whose text went and that wait to be painted or are being
 * painted (the paint queue's depth, for metrics). */
size_t session_mgr_paint_depth(const struct session_mgr *m);

/* Drops the pictures still waiting to be painted (a stop: their messages
 * stay in the outbox, unconfirmed, and the next start sends them again).
 * The ones being painted come back through session_mgr_paint_done. */
void session_mgr_paint_drop_waiting(struct session_mgr *m);

/* Delivers every undelivered outbox message (at start-up: after a crash).
 * With a node: the messages of no live node on the adapters' platforms,
 * which become this node's (call it again now and then: a node that died
 * leaves its messages to the others). */
int session_mgr_flush_outbox(struct session_mgr *m, struct buf *err);

/* Marks an outbox message delivered (adapters' on_sent). */
void session_mgr_sent(struct session_mgr *m, int64_t outbox_id);

/* The cached session of a room, or NULL, without asking the store (tests
 * and benchmarks: a process that knows nobody else changes its rooms). */
struct session *session_mgr_cached(struct session_mgr *m, const char *platform,
				   const char *room);

/* The session of a room (cache, else store), or NULL.  With a node, a
 * cached copy is checked against the store once after each entry point
 * (a command, a tick, a callback of this API, this call itself). */
struct session *session_mgr_find(struct session_mgr *m, const char *platform,
				 const char *room, struct buf *err);

/*
 * Rebuilds a game from its seed, options and move log into st (zeroed,
 * ops->state_size bytes), writing log lines to log (may be NULL).  Used by
 * `log`, and by tests to prove replay equals the live state.  0 or -1.
 */
int session_replay(const struct game_ops *ops, const struct session_rec *rec,
		   struct store *store, void *st, struct game_log *log, struct buf *err);

#endif
