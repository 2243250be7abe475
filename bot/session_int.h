/*
 * session_int.h: what the files of the session manager share, and nobody
 * else includes.  The public API is bot/session.h (main, the tests); the
 * command table is bot/commands.h.
 *
 * One file per responsibility (docs/architecture.md, "The session
 * manager"); each says in its opening comment what it owns:
 *
 *   session.c   finding, loading and committing sessions: the hash table,
 *               replay, struct change and change_commit (commit before send)
 *   commands.c  the command table, the dispatcher and its checks, the entry
 *               point session_mgr_handle (throttle, names, DM routing)
 *   lobby.c     game new/join/leave/addbot/start/status/abort, lobby caps
 *   play.c      play, moves, hand, board, undo; move completion
 *   info.c      log, help, mygames, rules, card
 *   settings.c  room settings (stored JSON) and `game settings`
 *   votes.c     votes by user (abort, kick, settings), stored with the session
 *   due.c       reminders and timeouts: idle players
 *   pause.c     game pause/resume/kick: the players' say about idleness
 *   ai.c        AI seats: their moves inline and the searching AI's jobs
 *   outbox.c    what a change tells the room and each player; delivery,
 *               confirmation and re-send of outbox messages
 *   pictures.c  boards as pictures: the room's form of boards, a message's
 *               picture in the outbox, painting it after the commit (off
 *               the loop: the picture follows its text, in order per room)
 *
 * These functions are the manager's internals: no checks of their own
 * beyond what their comments say, and they may assume the caller's
 * session is loaded.
 */
#ifndef BOT_SESSION_INT_H
#define BOT_SESSION_INT_H

#include <jansson.h>

#include "bot/commands.h"
#include "bot/session.h"
#include "util/meters.h"

/* ---- the command being handled (commands.c builds it) ---- */

struct cmd_ctx {
	struct session_mgr *m;
	struct adapter *a;
	const struct command *cmd;
	const struct cmd_def *def;	/* its table entry */
	struct session *s;		/* the room's session (any status), or NULL */
	const char *args;		/* the text after the command's words */
	enum locale loc;		/* the room's language, else the caller's */
	int seat;			/* the caller's human seat in s, or -1 */
};

/* Whether the command's answer is private (CMD_PRIVATE in its entry). */
static inline int cmd_private(const struct cmd_ctx *x)
{
	return (x->def->flags & CMD_PRIVATE) != 0;
}

/* ---- session.c ---- */

int64_t mgr_now(struct session_mgr *m);
int copy_field(char *dst, size_t n, const char *src);
/* The room's language (s may be NULL: the bot's default). */
enum locale session_loc(const struct session *s, struct session_mgr *m);
/* The room's language, else the caller's client's, else the default. */
enum locale cmd_loc(struct session_mgr *m, const struct command *cmd,
		    const struct session *s);
struct adapter *mgr_adapter(struct session_mgr *m, const char *platform);
/* user's human seat in s, or -1. */
int seat_of(const struct session *s, const char *user);
void seat_names(const struct session *s, const char *names[GAME_MAX_SEATS]);
void view_init(const struct session *s, enum locale loc, const char **names,
	       struct game_view *v);
/* Answers cmd (priv: privately) with text, one rich line per text line. */
void reply_text(struct adapter *a, const struct command *cmd, int priv, const char *text);
void reply_rich(struct adapter *a, const struct command *cmd, int priv, const struct rich *r);
/* After a failed change_commit: tells the user nothing changed (unless the
 * command will run again, or this process lost the platform's lease). */
void reply_commit_failed(struct session_mgr *m, struct adapter *a, const struct command *cmd,
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
void cache_put(struct session_mgr *m, struct session *s);
struct session *cache_get(struct session_mgr *m, const char *platform, const char *room);

/* session_replay, also marking each line with its action (marks) and
 * finding the seq of user's last action (*user_last, 0 when none). */
struct capture;
int replay_marked(const struct game_ops *ops, const struct session_rec *rec,
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

void capture_init(struct capture *c, enum locale loc, const char *const *names);
void capture_mark(struct capture *c, int64_t seq, int by_ai);
void capture_release(struct capture *c);

/* ---- pictures.c: boards as pictures ---- */

/* The form a room's boards take (`game settings board`). */
enum board_mode {
	BOARD_DEFAULT,		/* not set: the platform's (BOARD_IMAGE where it
				 * shows pictures, else BOARD_TEXT) */
	BOARD_TEXT,
	BOARD_IMAGE,		/* the picture; its text on demand (`board text`) */
	BOARD_BOTH,		/* the text board and the picture */
};

struct room_settings;
/* The room's form of boards on adapter a (NULL: not running: text). */
enum board_mode board_mode(const struct session_rec *rec, const struct adapter *a);
const char *board_mode_word(enum board_mode b);	/* "text", "image", "both" */

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
/* The picture of seat's view (-1: the board) of st in loc; view: its text
 * form (render_public / render_private), for alt; what: "board", "hand"
 * (the file's name, with the session and position of s).  The caller
 * fills full.  Returns 0, or -1 when the game has no pictures (out empty). */
int pic_build(const struct session *s, const void *st, int seat, enum locale loc,
	      const struct rich *view, const char *what, struct pic *out);
/* The outbox payload of a message with a picture (a new reference), and
 * back: 0, or -1 with err (body and out left empty). */
json_t *pic_payload(const struct rich *body, const struct pic *p);
int pic_from_payload(const json_t *j, struct rich *body, struct pic *out, struct buf *err);
/* Paints p into *im (release it) and describes it in *img (borrowing im
 * and p).  0, or -1 with err. */
struct paint_image;
int pic_paint(const struct pic *p, struct paint_image *im, struct adapter_image *img,
	      struct buf *err);
/* Answers cmd with body and the picture p; p->full as text where the
 * platform takes no pictures or painting fails (logged).  Where pictures
 * follow (pic_follows), body goes now and the picture when it is painted;
 * p's scene is taken then (p is left without it). */
void reply_picture(struct session_mgr *m, struct adapter *a, const struct command *cmd,
		   int priv, const struct rich *body, struct pic *p);

/* Whether a's pictures are painted off the loop and follow their text. */
int pic_follows(const struct session_mgr *m, const struct adapter *a);
/*
 * The next follow id (adapter_image.follow) and the picture of p that
 * follows its message, sent with that id and img (see struct
 * adapter_image): painted in turn in its stream (the room, or a player's
 * private messages there: platform, room, user ("" for the room); the
 * whole platform when the adapter reads as one stream), then handed to
 * the adapter.  outbox_id: the message's (0: an answer, which no newer
 * board supersedes).  p's scene is taken.
 */
uint64_t pic_next_id(struct session_mgr *m);
void pic_enqueue(struct session_mgr *m, struct adapter *a, uint64_t id, const char *room,
		 const char *user, int64_t outbox_id, struct pic *p);
/* Frees every picture still queued (session_mgr_release). */
void pic_streams_release(struct session_mgr *m);

/* ---- outbox.c: messages waiting for their commit ---- */

struct pending {
	struct outbox_rec *v;
	struct rich *bodies;	/* v[i]'s message, kept to deliver it without
				 * parsing its JSON back */
	struct pic **pics;	/* v[i]'s picture, or NULL */
	size_t n, cap;
};

/* Adds a message for the room (user NULL) or one user; body is copied;
 * pic (may be NULL): its picture, taken (*pic is left empty). */
void pending_add(struct session_mgr *m, struct pending *p, const struct session *s,
		 const char *user, const struct rich *body, struct pic *pic);
void pending_release(struct pending *p);
/* Hands o to its adapter; known: its message (and known_pic its picture,
 * or NULL) when the caller still has it (a fresh commit), else NULL
 * (re-sent from the store: parsed back).  A picture that follows takes
 * known_pic's scene. */
void deliver(struct session_mgr *m, const struct outbox_rec *o, const struct rich *known,
	     struct pic *known_pic);

/* ---- session.c: one change of a session, committed before it is sent ---- */

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

/* ---- outbox.c: what a change tells whom ---- */

/* Appends "Waiting for @x: prompt" lines; mention: the seats to ping
 * (the others are written plain). */
void add_waiting(const struct session *s, const void *st, enum locale loc, struct rich *r,
		 unsigned mention);
void add_result(const struct session *s, const void *st, enum locale loc, struct rich *r);
/* seat's legal moves; limit > 0: past that many, only their number. */
void add_moves(const struct session *s, const void *st, int seat, enum locale loc,
	       struct rich *r, int limit);
/* The moves of seat grouped as the game's move_group says, a group on a
 * line; brief (a step within a turn): the groups that matter next in full,
 * the others by their numbers. */
void add_moves_short(const struct session *s, const void *st, int seat, enum locale loc,
		     struct rich *r, int brief);
/* Adds the update messages of a game change to c->out. */
void queue_updates(struct session_mgr *m, struct change *c, const struct capture *cap);
/* After a successful commit: the acting player's private update, if the
 * platform shows it as an answer rather than a message. */
void reply_actor_view(struct session_mgr *m, struct adapter *a, const struct command *cmd,
		      struct change *c);

/* ---- settings.c ---- */

struct room_settings {
	int64_t since;		/* when the idle clock started (0: unknown) */
	int remind_h;		/* 0: no reminders */
	int timeout_h;		/* 0: no timeout */
	int timeout_ai;		/* at the timeout: 1 the AI decides, 0 pause */
	int paused;
	int reminded;		/* reminders sent since the last move */
	int ai_strong;		/* AI seats search (games/search.h) */
	int rules;		/* game_ops.rules_version at the start (1: unknown) */
	int board;		/* enum board_mode */
};

/* 1 when s's stored move log replays under the game's rules now (the game
 * started under the same rules_version). */
int session_log_replays(const struct session *s);

void settings_read(const struct session_rec *rec, struct room_settings *o);
void settings_write(struct session_rec *rec, const struct room_settings *in);

/* ---- votes.c ---- */

int human_seated(const struct session_rec *rec, const char *user);
int humans_of(const struct session_rec *rec);
/* The votes of rec, a new object ({} when there are none or they do not
 * parse: a damaged record loses its votes, never its game). */
json_t *votes_load(const struct session_rec *rec);
/* The object at v[key], created when missing (borrowed). */
json_t *votes_obj(json_t *v, const char *key);
/* Writes v into rec->votes, without the votes that no longer count (and
 * none at all once the game is over).  Takes v's reference. */
void votes_save(struct session_rec *rec, json_t *v);
/* Drops the kick votes against user (their own move ended the idle spell). */
void votes_drop_kicks_of(struct session_rec *rec, const char *user);
/* Adds user's vote to abort (a second one changes nothing). */
void vote_abort(json_t *v, const char *user);
/* The seated humans who voted to abort. */
int count_abort(const struct session_rec *rec, json_t *v);
/* The seated humans, other than `except` (NULL: none), whose vote in the
 * object o is value. */
int count_for(const struct session_rec *rec, json_t *o, const char *value,
	      const char *except);

/* ---- ai.c ---- */

unsigned bot_seats(const struct session_rec *rec);
/* Whether the AI seats of this record search (`game settings ai strong`). */
int ai_searches(const struct session_rec *rec, const struct game_ops *ops);
/* One AI decision for seat, recorded in c; search: the searching AI, else
 * the game's own bot_move. */
int ai_step_as(struct session_mgr *m, struct change *c, struct capture *cap, int seat,
	       int search, struct buf *err);
/* Plays AI seats while only AI seats are awaited, recording their moves. */
int run_bots(struct session_mgr *m, struct change *c, struct capture *cap, struct buf *err);
/* The AI decides for the idle humans (their pending decisions only). */
int play_for_idle(struct session_mgr *m, struct change *c, struct capture *cap,
		  unsigned idle, struct buf *err);
/* The searching AI seats of s are awaited: a job for m->think, or inline. */
void ai_think(struct session_mgr *m, struct session *s);

/* ---- due.c ---- */

/* When a session in this state next needs attention (unix seconds), or 0. */
int64_t compute_due(const struct session_rec *rec, const struct game_ops *ops,
		    const void *st, int64_t last_at);

/* ---- lobby.c ---- */

const char *status_word(enum session_status st, enum locale loc);
/* "fortuna, gtr": the registered game ids, for help and errors. */
const char *game_ids(void);
void lobby_summary(struct session_mgr *m, const struct session *s, enum locale loc,
		   struct rich *r);

/* ---- the commands' handlers (the table: commands.c) ---- */

void cmd_game_new(const struct cmd_ctx *x);		/* lobby.c */
void cmd_game_join(const struct cmd_ctx *x);
void cmd_game_leave(const struct cmd_ctx *x);
void cmd_game_addbot(const struct cmd_ctx *x);
void cmd_game_start(const struct cmd_ctx *x);
void cmd_game_status(const struct cmd_ctx *x);
void cmd_game_abort(const struct cmd_ctx *x);
void cmd_game_settings(const struct cmd_ctx *x);	/* settings.c */
void cmd_game_pause(const struct cmd_ctx *x);		/* pause.c */
void cmd_game_resume(const struct cmd_ctx *x);
void cmd_game_kick(const struct cmd_ctx *x);
void cmd_play(const struct cmd_ctx *x);			/* play.c */
void cmd_moves(const struct cmd_ctx *x);
void cmd_hand(const struct cmd_ctx *x);
void cmd_board(const struct cmd_ctx *x);
void cmd_undo(const struct cmd_ctx *x);
void cmd_log(const struct cmd_ctx *x);			/* info.c */
void cmd_help(const struct cmd_ctx *x);
void cmd_mygames(const struct cmd_ctx *x);
void cmd_rules(const struct cmd_ctx *x);
void cmd_card(const struct cmd_ctx *x);

/* The command being handled was refused (bad text, not allowed now, an
 * illegal move): its metric's outcome, unless a commit decided it. */
static inline void cmd_refused(struct session_mgr *m)
{
	if (m->outcome == METER_ANSWERED)
		m->outcome = METER_REFUSED;
}

#endif
