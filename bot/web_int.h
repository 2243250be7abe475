/*
 * web_int: what the game pages' two files share (bot/web.h is the API):
 * webview.c keeps the replayed games and makes the view of a position,
 * web.c answers the addresses and publishes the events.
 */
#ifndef BOT_WEB_INT_H
#define BOT_WEB_INT_H

#include "bot/web.h"

struct web_line {
	long at;		/* the position the line led to (0: the intro) */
	char *text;
};

struct web_game {
	int64_t id, version;
	const struct game_ops *ops;
	struct session_rec rec;		/* without state and votes */
	enum locale loc;
	const char *names[GAME_MAX_SEATS];	/* into rec.seats */
	int lobby;			/* no board yet: no position */
	/* the moves replayed: nacts of them, parsed once */
	size_t nacts, actcap;
	struct move *mv;
	int *seat;
	uint64_t *hash;			/* of (seq, seat, move id): a prefix check */
	void **snap;			/* snap[k]: the state at position k * WEB_SNAP_EVERY */
	size_t nsnap;
	void *work;			/* the last state stepped to */
	long work_at;			/* its position, -1: none */
	/* the replay failed (a move no longer replays): one position, the
	 * stored snapshot */
	int broken;
	struct web_line *log;
	size_t nlog, logcap;
	long log_at;			/* the position lines written now lead to */
	json_t *log_json;		/* the log as state.json says it, or NULL */
	char *log_text;			/* log_json as JSON text, or NULL */
	/* the pictures painted last (webview_pic_*) */
	struct web_pic {
		unsigned char *png;	/* NULL: a free slot */
		size_t len;
		long at;
		uint64_t used;
	} pics[WEB_PICS];
	uint64_t used;
	uint64_t gen;			/* bumped by every commit of the session */
};

/* A session with event streams open here, watched for what other
 * processes commit (bot/webwatch.c). */
struct web_watch {
	int64_t session;
	int64_t version;		/* the store's, when last looked */
	int64_t last_seq;		/* the viewers were told of, -1: not known */
	int status, paused;
	char hash[65];			/* the link the streams were opened with */
};

/* Watches rec's session for its streams (a stream of token opens now);
 * a link changed since the streams open here were opened ends them
 * (`gone`) first.  Starts the timer with the first watch.  Nothing when
 * the store is this process's alone. */
void webwatch_add(struct web *w, const struct session_rec *rec, const char *token);
/* This process committed rec (its last action last_seq): its viewers
 * were told already, the next tick does not tell them again. */
void webwatch_committed(struct web *w, const struct session_rec *rec, int64_t last_seq);
/* The session's streams were ended here. */
void webwatch_forget(struct web *w, int64_t session);
void webwatch_release(struct web *w);

/* The cached game of rec (read from the store just now), brought up to
 * rec's version; NULL + err when it cannot be shown.  Owned by the cache
 * (w->games), valid until the next call. */
struct web_game *webview_game(struct web *w, const struct session_rec *rec, struct buf *err);
/* g's picture of position at, or NULL; keeping png (taken) as the
 * picture of position at, in place of the least recently used. */
const struct web_pic *webview_pic_get(struct web *w, struct web_game *g, long at);
void webview_pic_put(struct web *w, struct web_game *g, long at, unsigned char *png, size_t len);
/* The cached game of session id, or NULL (nothing is read or made). */
struct web_game *webview_cached(struct web *w, int64_t id);
/* The number of positions of g's game (0: a lobby). */
long webview_positions(const struct web_game *g);
/* Frees g; webview_drop frees the cached game of session id, if any. */
void webview_free(struct web_game *g);
void webview_drop(struct web *w, int64_t id);
/* The view of position at (-1: the latest) without its log; *npos and *g
 * set once the game is read; NULL + err ("no such position" when at >=
 * *npos). */
json_t *webview_of(struct web *w, const struct session_rec *rec, const char *base, long at,
		   long *npos, struct web_game **g, struct buf *err);
/* state.json's text: view, then g's log (kept as text per game). */
void webview_state_json(struct web_game *g, json_t *view, struct buf *out);
/* The UI word of key in loc, or NULL. */
const char *webview_label(const char *key, enum locale loc);

#endif
