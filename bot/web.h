/*
 * web: the server side of each game's page (issue 27, docs/web.md): the
 * public view of a session at any position of its game, rebuilt from the
 * seed and the stored moves, as HTML (web/page.html filled), as JSON
 * (state.json) and as a picture (board.png); the page's event stream and
 * the events every accepted move publishes; the page's static files,
 * embedded in the binary at build time (scripts/embed.c).
 *
 *	struct web w;
 *	web_init(&w, &mgr);		// mgr.web = &w: commits publish
 *	web_attach(&w, httpd);		// the routes "/g/" and "/static/"
 *	...
 *	web_release(&w);
 *
 * Only public information, ever: everything it shows comes from the
 * game's public view (render_public, scene(-1), the public log lines);
 * no private line, hand or face-down card reaches it, at any position,
 * even after the game ends (tests/unit/test_web.c scans it all).
 *
 * Replays are cached: per session the states at every WEB_SNAP_EVERY-th
 * position, the moves parsed once, and the last state stepped to, so a
 * viewer stepping through the positions costs a few apply() each, not a
 * replay.  A new move extends the cached game (the stored moves are read
 * again and compared); an undo rebuilds it.  At most WEB_CACHE_GAMES
 * sessions are kept, the least recently used dropped.
 *
 * Single-threaded: every function on the loop's thread.  Pictures are
 * painted on the loop (tens of milliseconds for a board): the last one
 * painted per session is kept, so the latest position, what live viewers
 * ask for, is painted once per move.
 */
#ifndef BOT_WEB_H
#define BOT_WEB_H

#include <stddef.h>
#include <stdint.h>

#include <jansson.h>

#include "bot/session.h"
#include "util/buf.h"
#include "util/scene.h"

#define WEB_SNAP_EVERY 8
#define WEB_CACHE_GAMES 64
#define WEB_TOKEN_MIN 22
#define WEB_TOKEN_MAX 63
/* an answer's Cache-Control for the static files */
#define WEB_STATIC_MAX_AGE 3600
/* Pictures painted on the loop for the pages (a board is 15-30 ms of
 * CPU): at most WEB_PAINTS_BURST at once, then WEB_PAINTS_PER_S a second
 * for all viewers together (a quarter of the loop at most); beyond it
 * 503 (the page asks again). */
#define WEB_PAINTS_BURST 16
#define WEB_PAINTS_PER_S 10
/* pictures kept per session (the latest, and a replay's back and forth) */
#define WEB_PICS 4
/* latest pictures being painted off the loop at once */
#define WEB_PREPAINTS 16
/* how often the sessions watched here are read for what other processes
 * committed (bot/webwatch.c) */
#define WEB_WATCH_MS 1000

struct httpd;
struct change;
struct web_game;
struct paint_job;
struct web_watch;

/* One file of web/, embedded by the build ($(O)/gen/web_assets.c). */
struct web_asset {
	const char *name;		/* "page.css" */
	const char *type;		/* "text/css; charset=utf-8" */
	const unsigned char *data;	/* len bytes, then a NUL */
	size_t len;
};

extern const struct web_asset web_assets[];
extern const size_t web_nassets;

struct web_stats {
	unsigned long replays;		/* games rebuilt from their first move */
	unsigned long extended;		/* cached games stepped on by new moves */
	unsigned long steps;		/* apply() calls to reach a position */
	unsigned long paints, paint_hits, paints_refused;
	unsigned long prepaints, prepaints_kept;	/* latest pictures off the loop */
	unsigned long published, closed;
	unsigned long watch_reads;	/* store_web_marks reads (one per tick) */
	unsigned long remote_moves;	/* moves told that another process committed */
};

struct web {
	struct session_mgr *m;		/* borrowed */
	/*
	 * Where the events go: httpd_publish and httpd_close_topic on the
	 * attached server (web_attach); tests set their own.  NULL: nothing
	 * is published.
	 */
	size_t (*publish)(void *ctx, const char *topic, const char *text, size_t len);
	void (*close_topic)(void *ctx, const char *topic, const char *text);
	void *pub_ctx;
	struct web_game *games[WEB_CACHE_GAMES];	/* owned, NULL: free */
	uint64_t clock;			/* the cache's use counter */
	char topic[32];			/* an answer's stream, until httpd copies it */
	/* the paint budget (WEB_PAINTS_*): tokens left, refilled by the
	 * monotonic clock now_ms (tests set their own) */
	double paint_tokens;
	int64_t paint_ms;
	int64_t (*now_ms)(void *ctx);
	void *now_ctx;
	/*
	 * Painting off the loop (main: the painters' pool, bot/workers.h):
	 * after a move that someone watches, the new latest picture is
	 * painted there and kept, so that the viewers' board.png is ready.
	 * NULL: it is painted on the loop when first asked for.  paint
	 * returns 0 (the job comes back through job->done), or -1.
	 */
	int (*paint)(void *ctx, struct paint_job *job);
	void *paint_ctx;
	struct web_prepaint {
		int64_t session;	/* 0: a free slot */
		long at;
		uint64_t gen;
	} prepaint[WEB_PREPAINTS];
	/*
	 * Watching what other processes commit (bot/webwatch.c), when the
	 * store is shared (web_attach): the sessions with streams open here,
	 * read every WEB_WATCH_MS while there is one.  streams(pub_ctx,
	 * topic): how many streams of topic are open (NULL: watches stay).
	 * watch_timer(watch_ctx, on): main's timer, started with the first
	 * watch, stopped when the last goes; it calls web_watch_tick.
	 */
	int watch_shared;
	unsigned (*streams)(void *ctx, const char *topic);
	void (*watch_timer)(void *ctx, int on);
	void *watch_ctx;
	struct web_watch *watch;	/* owned, nwatch of watchcap */
	size_t nwatch, watchcap;
	struct store_web_mark *marks;	/* owned: a tick's */
	struct web_stats stats;
};

/* An answer (what the HTTP glue copies into struct httpd_response).
 * body owned; type static; stream "" unless an event stream. */
struct web_answer {
	int status;
	const char *type;
	struct buf body;
	char stream[32];		/* "g:<session id>" */
	int cache_seconds;		/* > 0: public, max-age; else no-store */
};

void web_answer_init(struct web_answer *a);
void web_answer_release(struct web_answer *a);

/* Sets w up for m, and m->web = w (its commits publish through w). */
void web_init(struct web *w, struct session_mgr *m);
/* Frees the cache; m->web = NULL. */
void web_release(struct web *w);
/* Serves "/g/" and "/static/" on h and publishes the events on it.
 * 0, or -1 + err (the route table is full). */
int web_attach(struct web *w, struct httpd *h, struct buf *err);

/*
 * The answer to GET rest (the path after "/g/": "<token>",
 * "<token>/state.json", "<token>/board.png", "<token>/events") with query
 * (raw, "" when none).  An unknown, revoked or turned-off token, or any
 * other path: 404 with the same body.  A bad `at` (not a number, out of
 * range): 400 with a short reason.  A store that does not answer: 503.
 */
void web_game_answer(struct web *w, const char *rest, const char *query,
		     struct web_answer *out);
/* The answer to GET /static/<name>: an embedded file (not page.html, the
 * template), or 404. */
void web_static_answer(const char *name, struct web_answer *out);

/*
 * The view of session id at position at (-1: the latest), as state.json
 * says it (base: the page's path, "/g/<token>"); a new reference, or NULL
 * with err ("no such position" when at is out of range, *npos then the
 * number of positions).  Exported for the tests.
 */
json_t *web_view(struct web *w, const struct session_rec *rec, const char *base, long at,
		 long *npos, struct buf *err);
/* The public picture's display list of rec's game at position at (-1:
 * the latest), into out (empty).  0, or -1 + err.  For the tests. */
int web_scene(struct web *w, const struct session_rec *rec, long at, struct scene *out,
	      struct buf *err);

/* session_hooks.committed: after every commit, viewers of c's session
 * are told of a move (`event: move`), or that the page is gone when the
 * room turned it off. */
void web_committed(struct session_mgr *m, const struct change *c);
/* The session's link was reset (or its page turned off): its viewers get
 * `event: gone` and their streams end. */
void web_gone(struct session_mgr *m, int64_t session);

/* One look at the watched sessions (main's timer, every WEB_WATCH_MS):
 * streams closed since are forgotten; when none is left, the timer is
 * stopped and nothing is read; else one store read (store_web_marks),
 * then `event: move` to the viewers of each game another process moved,
 * `event: gone` to those whose link was reset or page turned off. */
void web_watch_tick(struct web *w);
/* How many sessions are watched now. */
size_t web_watch_count(const struct web *w);

/* Whether rec's page is on (the room setting "web", default on). */
int web_enabled(const struct session_rec *rec);

#endif
