/*
 * core: the session core, the bottom of the manager's layers (the list is
 * in tests/lint/layers.py).  Finding and caching sessions, replaying
 * them, the log capture, and struct change: the one way a session
 * changes, committed in one store transaction before anything is sent.
 * A change carries its messages (struct pending) and pictures (struct
 * pic) as data; outbox.c and pictures.c make and send them.
 *
 * The core calls nothing above it: what a commit needs from the layers
 * above (the updates of a move, delivering a committed message, the due
 * time) it calls through struct session_hooks, which bot/manager.c
 * registers at session_mgr_init.  These functions assume the caller's
 * session is loaded and check nothing beyond what their comments say.
 */
#ifndef BOT_CORE_H
#define BOT_CORE_H

#include <jansson.h>

#include "bot/session.h"
#include "util/rich.h"
#include "util/scene.h"

int64_t session_now(struct session_mgr *m);
int session_copy_field(char *dst, size_t n, const char *src);
/* The room's language (s may be NULL: the bot's default). */
enum locale session_loc(const struct session *s, struct session_mgr *m);
/* The room's language, else the caller's client's, else the default. */
enum locale cmd_loc(struct session_mgr *m, const struct command *cmd,
		    const struct session *s);
struct adapter *session_adapter(struct session_mgr *m, const char *platform);
/* user's human seat in s, or -1. */
int session_seat_of(const struct session *s, const char *user);
void session_seat_names(const struct session *s, const char *names[GAME_MAX_SEATS]);
void session_view_init(const struct session *s, enum locale loc, const char **names,
		       struct game_view *v);
/* Answers cmd (priv: privately) with text, one rich line per text line. */
void session_reply_text(struct adapter *a, const struct command *cmd, int priv, const char *text);
void session_reply_rich(struct adapter *a, const struct command *cmd, int priv, const struct rich *r);
/* After a failed change_commit: tells the user nothing changed (unless the
 * command will run again, or this process lost the platform's lease). */
void session_reply_commit_failed(struct session_mgr *m, struct adapter *a, const struct command *cmd,
				 enum locale loc);

/* session_mgr_find without starting an entry: a cached copy is checked
 * against the store at most once per epoch (several processes). */
struct session *session_find(struct session_mgr *m, const char *platform, const char *room,
			     struct buf *err);
/* The platforms of the manager's adapters, NULL-terminated; their count. */
int session_platforms(struct session_mgr *m, const char *out[SESSION_MAX_ADAPTERS + 1]);

/* The cache of sessions by room.  cache_put takes s (and frees the
 * session it replaces); cache_get reads no store. */
void session_free(struct session *s);
void session_cache_put(struct session_mgr *m, struct session *s);
struct session *session_cache_get(struct session_mgr *m, const char *platform, const char *room);

/* session_replay, also marking each line with its action (marks) and
 * finding the seq of user's last action (*user_last, 0 when none). */
struct capture;
int session_replay_marked(const struct game_ops *ops, const struct session_rec *rec,
			  struct store *store, void *st, struct game_log *log,
			  struct capture *marks, const char *user, int64_t *user_last,
			  struct buf *err);

/* One log line, with where it came from: the action (seq; 0 when not
 * known) and whether an AI seat's decision wrote it (a room update may
 * shorten those; a human's outcome is never cut). */
struct line {
	int seat;
	int by_ai;
	int64_t seq;
	char *text;
};

/* A game_log sink that keeps every line (capture.log). */
struct capture {
	struct game_log log;
	struct line *v;
	size_t n, cap;
	int by_ai;		/* lines written now are an AI seat's */
	int64_t seq;
};

void session_capture_init(struct capture *c, enum locale loc, const char *const *names);
void session_capture_mark(struct capture *c, int64_t seq, int by_ai);
void session_capture_release(struct capture *c);

/* ---- what a change carries ---- */

/*
 * The picture that goes with a message: the game's display list of a view
 * (the board, or a seat's), the text board it shows (alt, plain), and the
 * whole message with its text board (full: what is sent when painting
 * fails, or where pictures cannot go).  Owns its members.
 */
struct pic {
	struct scene scene;
	char *alt;
	struct rich view;	/* the text board, as rich text (what a picture
				 * that cannot be painted becomes, after the
				 * text that went before it) */
	struct rich full;
	char name[64];		/* "board-s12-m40.png" */
	int text_in_body;	/* the message's body holds the text board too */
};

void pic_init(struct pic *p);
void pic_release(struct pic *p);

/* The messages of a change, waiting for its commit (outbox.c adds them:
 * pending_add). */
struct pending {
	struct outbox_rec *v;
	struct rich *bodies;	/* v[i]'s message, kept to deliver it without
				 * parsing its JSON back */
	struct pic **pics;	/* v[i]'s picture, or NULL */
	size_t n, cap;
};

void session_pending_release(struct pending *p);

struct change {
	struct session *s;		/* the live session (or a new one) */
	struct session_rec rec;		/* its new record */
	void *st;			/* new game state, owned until applied */
	struct action_rec *actions;
	size_t nactions, cap;
	struct pending out;
	/* On platforms with ADAPTER_CAP_PRIVATE_ON_DEMAND the acting user's
	 * private update is answered to their command after the commit. */
	const char *actor;		/* borrowed user id, or NULL */
	struct rich actor_view;
	int has_actor_view;
	struct pic actor_pic;		/* its picture, when has_actor_pic */
	int has_actor_pic;
	int truncate;			/* undo: drop actions after truncate_after */
	int64_t truncate_after;
};

void change_init(struct change *c, struct session *s);
void change_release(struct change *c);
void change_action(struct change *c, int seat, const char *move_id, const char *user,
		   int64_t at);
/* c->st becomes a copy of the live state, for moves to be applied to. */
void change_copy_state(struct change *c);
/* The game moved in c->st (the log lines are in cap): a game that awaits
 * nobody is over, and the room's and the players' updates are queued
 * (set c->actor first when a person made the move). */
void change_moved(struct session_mgr *m, struct change *c, const struct capture *cap);
/* Stores the change; on success the live session takes the new record and
 * state, and the messages are delivered.  On failure nothing changes. */
int change_commit(struct session_mgr *m, struct change *c, struct buf *err);
/* change_commit for a player's move (c->actor): answers cmd with why it
 * failed, else with the actor's private update where the platform shows
 * it as an answer (reply_actor_view). */
void change_commit_answer(struct session_mgr *m, struct change *c, struct adapter *a,
			  const struct command *cmd, enum locale loc);

/*
 * What the core calls above itself (bot/manager.c fills it with outbox.c's
 * and due.c's functions): the one table, so the core names no function of
 * a higher layer.
 */
struct session_hooks {
	/* Adds the update messages of a game change to c->out (change_moved). */
	void (*queue_updates)(struct session_mgr *m, struct change *c, const struct capture *cap);
	/* Hands a committed message to its adapter (after change_commit). */
	void (*deliver)(struct session_mgr *m, const struct outbox_rec *o,
			const struct rich *known, struct pic *known_pic);
	/* The acting player's private update as the answer to their command. */
	void (*reply_actor_view)(struct session_mgr *m, struct adapter *a,
				 const struct command *cmd, struct change *c);
	/* When a session in this state next needs attention (stored with
	 * every commit), or 0. */
	int64_t (*due)(const struct session_rec *rec, const struct game_ops *ops,
		       const void *st, int64_t last_at);
	/* When c finishes its game: its record (results, ratings) to store
	 * with the commit, one allocation the core frees with free(), or
	 * *out NULL.  -1 (err): it could not be read; nothing is committed.
	 * NULL: nothing is recorded. */
	int (*record)(struct session_mgr *m, const struct change *c, struct store_result **out,
		      struct buf *err);
	/* After c is stored, before the live session takes its record
	 * (c->s->rec is still the one before): the game's web page
	 * publishes the move to its viewers (bot/web.c).  May be NULL. */
	void (*committed)(struct session_mgr *m, const struct change *c);
};

/* The core's part of session_mgr_init / _release / _add_adapter (the
 * public ones, bot/manager.c, also wire the layers above). */
void session_core_init(struct session_mgr *m, struct store *store, uint64_t seed,
		       const struct session_hooks *hooks);
void session_core_release(struct session_mgr *m);
void session_core_add_adapter(struct session_mgr *m, struct adapter *a);

#endif
