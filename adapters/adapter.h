/*
 * adapter.h: what a chat platform brings (console, Discord, Matrix).
 *
 * An adapter turns platform events into struct command and hands them to
 * its `on_command` callback (the session manager); it delivers what the
 * manager asks through send (a room or a private message, from the outbox)
 * and reply (the answer to one command: public, or private/ephemeral).
 *
 * Delivery of outbox messages is asynchronous on real platforms: send()
 * returns 0 once the message is accepted, and the adapter calls
 * `on_sent(ctx, outbox_id)` when the platform confirmed it, so that the
 * manager can mark it delivered.  A restart re-sends what was never
 * confirmed, with the same idempotency key.
 */
#ifndef ADAPTERS_ADAPTER_H
#define ADAPTERS_ADAPTER_H

#include <stdint.h>

#include <uv.h>

#include "util/buf.h"
#include "util/rich.h"

#define ADAPTER_API_VERSION 1
#define COMMAND_MAX_BYTES 2000	/* longer command texts are refused */

/*
 * Capabilities (adapter_ops.caps).
 * ADAPTER_CAP_PRIVATE_ON_DEMAND: players see their private views by asking
 * (Discord's ephemeral answers and buttons), so the manager sends unasked
 * private messages only to players who turned DM notifications on, and
 * answers the acting player privately instead.
 */
#define ADAPTER_CAP_PRIVATE_ON_DEMAND 0x1u
/*
 * ADAPTER_CAP_IMAGES: the platform shows pictures inside the conversation
 * (Discord attachments, Matrix m.image), so a room's boards come as
 * pictures unless it chose text (`game settings board`).  Without it
 * (the console) boards stay text unless asked for; send() and
 * reply_image() still receive pictures then, and deal with them.
 */
#define ADAPTER_CAP_IMAGES 0x2u
/*
 * ADAPTER_CAP_ONE_STREAM: everything the adapter shows is read as one
 * stream, in order (the console's terminal), so pictures that follow their
 * messages (adapter_image.follow) come in the order of those messages
 * across rooms and players, not only per room.
 */
#define ADAPTER_CAP_ONE_STREAM 0x4u

/* One move offered in a menu or an autocomplete list. */
#define ADAPTER_CHOICES_MAX 25
#define ADAPTER_CHOICE_SIZE 256
struct adapter_choice {
	char value[ADAPTER_CHOICE_SIZE];	/* what `play` accepts back */
	char label[ADAPTER_CHOICE_SIZE];	/* shown (localised) */
};

/*
 * The command surface: every command the bot answers, defined once in
 * bot/commands.c and handed to each adapter as struct adapter.commands.
 * A text platform (console, Matrix) needs none of it: it passes the typed
 * text on.  A platform with a command registry (Discord's slash commands)
 * builds its registration from it and turns what the user filled in back
 * into the same text ("game new fortuna nofunctions"), its arguments in
 * the order listed here.
 */

/* A text in each of the bot's languages (games/game.h's locales). */
struct adapter_text {
	const char *en, *es;
};

enum adapter_arg_type {
	ADAPTER_ARG_WORD,	/* one word: "locale" */
	ADAPTER_ARG_TEXT,	/* the rest of the line: "take water" */
	ADAPTER_ARG_INT,	/* a whole number from min to max */
	ADAPTER_ARG_USER,	/* a player; the text carries "<@user id>" */
	ADAPTER_ARG_GAME,	/* a game id; the choices: the game registry */
	ADAPTER_ARG_OPTIONS,	/* a game's option words: "nofunctions draft" */
	ADAPTER_ARG_FLAG,	/* yes or no; when yes, the text carries its name */
};

enum adapter_arg_flags {
	ADAPTER_ARG_REQUIRED = 1 << 0,
	/* completed from the caller's legal moves (struct adapter.on_complete) */
	ADAPTER_ARG_MOVES = 1 << 1,
	/* ADAPTER_ARG_INT: the text carries it as "#<n>" (an old game's
	 * number: `log #12`, where `log 12` is twelve lines) */
	ADAPTER_ARG_HASH = 1 << 2,
};

struct adapter_arg {
	const char *name, *name_es;	/* "game", "juego" (platforms that name them) */
	struct adapter_text desc;	/* one line, for a platform's form */
	enum adapter_arg_type type;
	unsigned flags;			/* enum adapter_arg_flags */
	int min, max;			/* ADAPTER_ARG_INT: the values accepted */
	/* ADAPTER_ARG_INT: the top of a platform's number picker when it
	 * differs from max (0: max).  Discord's, as first registered. */
	int pick_max;
};

enum adapter_command_flags {
	/* words name a group ("game"): its commands ("game new", ...) follow
	 * it in the list; typed alone or with an unknown word, the group
	 * answers with its commands */
	ADAPTER_COMMAND_GROUP = 1 << 0,
};

struct adapter_command {
	const char *words;		/* "game new", "play": what the text starts with */
	const char *name_es;		/* the last word in Spanish, where platforms
					 * show names ("nueva") */
	struct adapter_text desc;	/* one line, for a platform's command list */
	const struct adapter_arg *args;	/* in text order, ends with name == NULL;
					 * NULL: none */
	unsigned flags;			/* enum adapter_command_flags */
};

/* One normalised command.  Strings are borrowed for the call's duration. */
struct command {
	const char *platform;	/* "console", "discord", "matrix" */
	const char *room;	/* platform room / channel id */
	const char *user;	/* platform user id */
	const char *name;	/* display name (user text: escape when shown) */
	const char *locale;	/* "en", "es-ES", or NULL when unknown */
	const char *text;	/* command without prefix: "play take water" */
	size_t text_len;	/* bytes of text (it may hold a NUL) */
	void *reply_ctx;	/* the adapter's handle for reply() */
	/*
	 * A click on a button or menu of an earlier message: the session and
	 * game position (moves stored) that message showed.  When
	 * expect_session > 0 and the room's game is another one, is over, or
	 * has moved on, the manager refuses the command politely and changes
	 * nothing.  0 for typed commands.
	 */
	int64_t expect_session, expect_version;
	/*
	 * A click on the Rematch control of a finished game's last board:
	 * that game's session id (the command's text is "rematch").  The
	 * manager opens the rematch, or joins the caller to the rematch
	 * lobby already open, or refuses politely.  0 otherwise.
	 */
	int64_t rematch_of;
	/*
	 * A platform position (Matrix: the sync token and the events done) to
	 * store in the same transaction as whatever this command changes, so a
	 * restart neither replays nor misses it.  NULL: none.
	 */
	const char *cursor_key, *cursor_value;
	/*
	 * Sent in a private chat with the bot (a Matrix DM room).  When that
	 * room has no game of its own, the manager applies the command to the
	 * one game the user is seated in on this platform.
	 */
	int direct;
	/*
	 * The community the room belongs to, where its games are rated beside
	 * the whole platform: a Discord guild id; on Matrix the space's room
	 * id, or the room's own id when it is in no space.  NULL or "" =
	 * none (a DM, the console).
	 */
	const char *community;
};

/*
 * A picture that goes with a message: a board or a private view, painted
 * (paint/paint.h).  The message's body says what happened and who is
 * asked; the picture shows the board.  Borrowed for the call's duration.
 *
 * A picture may follow its message (follow != 0; only to adapters with
 * a `picture` op): it is painted on a worker thread while the message's
 * text goes at once.  send() and reply_image() then get the picture's
 * description without its pixels (png NULL, width and height 0), send the
 * text now and hold the message open -- an outbox message is not
 * confirmed (on_sent) before its picture is out -- until `picture` is
 * called with the same follow id, exactly once, on the loop.
 */
struct adapter_image {
	const unsigned char *png;	/* a PNG file; NULL while it follows */
	size_t len;
	int width, height;		/* pixels */
	const char *name;		/* a file name: "board-s12-m40.png" */
	const char *alt;		/* the text board it shows (plain text): for
					 * those who cannot see it, and platforms
					 * that carry a description */
	/* the body holds the text board too (`game settings board both`);
	 * 0: only here, in alt (a platform may offer it: Discord's Text) */
	int text_in_body;
	uint64_t follow;		/* != 0: the picture follows (above) */
};

/* One message to deliver.  Borrowed for the call's duration. */
struct outmsg {
	int64_t outbox_id;	/* 0 when not from the outbox */
	const char *room;
	const char *user;	/* NULL: to the room; else privately to this user */
	const char *key;	/* idempotency key, or NULL */
	const struct rich *body;
	const char *locale;	/* the room's language ("en", "es"), or NULL */
	/*
	 * Filled for messages about a game in play (0 otherwise), so a
	 * platform can attach controls that act on that position: the session
	 * and the game position (moves stored, the `version` of Discord's
	 * custom_id) the message shows.  A move list never travels here: moves
	 * are private, and a room message is read by everyone in the room;
	 * a platform offers them only in answers to the player who asks
	 * (Discord's ephemeral "My moves", through on_complete).
	 */
	int64_t session, version;
	/*
	 * A finished game's last board, to the room: that game's session id,
	 * so a platform may offer a Rematch control (struct command's
	 * rematch_of).  0 otherwise.
	 */
	int64_t over_session;
	/* A picture of the board (or of the private view) this message is
	 * about, sent with it, after its text; NULL: none. */
	const struct adapter_image *image;
};

struct adapter;

struct adapter_ops {
	unsigned api_version;
	const char *name;	/* the platform name commands carry */
	unsigned caps;		/* ADAPTER_CAP_* */
	int (*start)(struct adapter *a, uv_loop_t *loop, struct buf *err);
	void (*stop)(struct adapter *a);	/* closes its handles; loop ends */
	int (*send)(struct adapter *a, const struct outmsg *m, struct buf *err);
	/* Answers a command; private_ != 0 → only the command's user sees it. */
	int (*reply)(struct adapter *a, const struct command *cmd, int private_,
		     const struct rich *body, struct buf *err);
	void (*free)(struct adapter *a);
	/* Optional: reply() with a picture after the body.  NULL: the
	 * manager answers with the text board instead. */
	int (*reply_image)(struct adapter *a, const struct command *cmd, int private_,
			   const struct rich *body, const struct adapter_image *img,
			   struct buf *err);
	/*
	 * Optional: the picture of a message sent or answered with
	 * img->follow == follow.  img: painted; NULL: none comes (a newer
	 * board took its place before it was painted, or painting failed).
	 * text (may be NULL): what to show in its place, after the message
	 * (the text board, when painting failed).  The adapter then finishes
	 * the message (on_sent once every part is out).  An id it no longer
	 * knows (the message failed, the adapter stopped) is ignored.  NULL:
	 * pictures never follow on this adapter; they come with their text.
	 */
	int (*picture)(struct adapter *a, uint64_t follow, const struct adapter_image *img,
		       const struct rich *text, struct buf *err);
};

struct adapter {
	const struct adapter_ops *ops;
	void (*on_command)(void *ctx, struct adapter *a, const struct command *cmd);
	void (*on_sent)(void *ctx, struct adapter *a, int64_t outbox_id);
	/*
	 * Autocompletion: the legal moves of cmd->user in cmd->room whose id
	 * or label contains cmd->text (folded), best first, at most max of
	 * them into out.  Returns how many.  NULL: no completion.
	 */
	size_t (*on_complete)(void *ctx, struct adapter *a, const struct command *cmd,
			      struct adapter_choice *out, size_t max);
	/*
	 * The game in play in cmd->room: its session id and position (moves
	 * stored, what expect_version checks) into *session and *position,
	 * so that a control offered with on_complete's moves names the
	 * position they belong to.  Returns 0, or -1 when no game is in play
	 * there.  NULL: not available.
	 */
	int (*on_position)(void *ctx, struct adapter *a, const struct command *cmd,
			   int64_t *session, int64_t *position);
	/* Tests only (TABULA_TEST_CLOCK): the console's "@clock <unix
	 * seconds>" line sets the bot's clock and runs what is due.  NULL:
	 * not available. */
	void (*on_clock)(void *ctx, struct adapter *a, int64_t now);
	void *ctx;
	/*
	 * The commands the bot answers, NULL-terminated, static (borrowed):
	 * set by the session manager (session_mgr_add_adapter), so before
	 * start.  NULL: not known (an adapter driven without a manager).
	 */
	const struct adapter_command *const *commands;
};

static inline int adapter_start(struct adapter *a, uv_loop_t *loop, struct buf *err)
{
	return a->ops->start(a, loop, err);
}

static inline void adapter_stop(struct adapter *a)
{
	a->ops->stop(a);
}

static inline int adapter_send(struct adapter *a, const struct outmsg *m, struct buf *err)
{
	return a->ops->send(a, m, err);
}

static inline int adapter_reply(struct adapter *a, const struct command *cmd, int private_,
				const struct rich *body, struct buf *err)
{
	return a->ops->reply(a, cmd, private_, body, err);
}

/* Whether a can answer with pictures (adapter_reply_image). */
static inline int adapter_has_reply_image(const struct adapter *a)
{
	return a->ops->reply_image != NULL;
}

static inline int adapter_reply_image(struct adapter *a, const struct command *cmd, int private_,
				      const struct rich *body, const struct adapter_image *img,
				      struct buf *err)
{
	return a->ops->reply_image(a, cmd, private_, body, img, err);
}

/* Whether a's pictures may follow their messages (adapter_image.follow). */
static inline int adapter_has_picture(const struct adapter *a)
{
	return a->ops->picture != NULL;
}

static inline int adapter_picture(struct adapter *a, uint64_t follow,
				  const struct adapter_image *img, const struct rich *text,
				  struct buf *err)
{
	return a->ops->picture(a, follow, img, text, err);
}

static inline void adapter_free(struct adapter *a)
{
	if (a)
		a->ops->free(a);
}

#endif
