/*
 * webwatch: the game pages' viewers of this process told of what other
 * processes commit (several processes on one PostgreSQL, docs/deploy.md).
 * A viewer's event stream is on the process that served its page, but
 * the move may be committed by another one (another Discord shard, the
 * Matrix process), whose commit hook publishes nothing here.  So while
 * this process has streams open, a timer (WEB_WATCH_MS, main.c) reads the
 * version, last move and link of every watched session in one query
 * (store_web_marks) and publishes `event: move` when the game moved, or
 * `event: gone` when its link was reset or its page turned off.  No
 * stream open, no timer, no query.
 */
#include "bot/web_int.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bot/core.h"
#include "bot/roomset.h"
#include "util/logging.h"

static struct web_watch *watch_of(struct web *w, int64_t session)
{
	size_t i;

	for (i = 0; i < w->nwatch; i++)
		if (w->watch[i].session == session)
			return &w->watch[i];
	return NULL;
}

static void watch_remove(struct web *w, struct web_watch *x)
{
	*x = w->watch[--w->nwatch];
}

static void topic_name(int64_t id, char out[32])
{
	snprintf(out, 32, "g:%lld", (long long)id);
}

static void fill_from_rec(struct web_watch *x, const struct session_rec *rec)
{
	struct room_settings rs;

	roomset_read(rec, &rs);
	x->version = rec->version;
	x->status = rec->status;
	x->paused = rs.paused;
}

void webwatch_add(struct web *w, const struct session_rec *rec, const char *token)
{
	struct web_watch *x;
	struct buf err = BUF_INIT;
	char hash[65];

	if (!w->watch_shared)
		return;		/* every commit is this process's own */
	if (store_web_hash(token, hash, &err)) {
		log_warn("web: %s", buf_str(&err));
		buf_release(&err);
		return;
	}
	x = watch_of(w, rec->id);
	if (x && strcmp(x->hash, hash)) {
		/* the link changed elsewhere since the streams open here were
		 * opened: theirs is dead (this new one subscribes after) */
		web_gone(w->m, rec->id);
		x = watch_of(w, rec->id);	/* web_gone removed it */
	}
	if (x)
		return;
	if (w->nwatch == w->watchcap) {
		w->watchcap = w->watchcap ? 2 * w->watchcap : 16;
		w->watch = xrealloc(w->watch, w->watchcap * sizeof(*w->watch));
	}
	x = &w->watch[w->nwatch++];
	memset(x, 0, sizeof(*x));
	x->session = rec->id;
	x->last_seq = -1;	/* not known yet: any change is told */
	snprintf(x->hash, sizeof(x->hash), "%s", hash);
	fill_from_rec(x, rec);
	if (w->nwatch == 1 && w->watch_timer)
		w->watch_timer(w->watch_ctx, 1);
}

void webwatch_committed(struct web *w, const struct session_rec *rec, int64_t last_seq)
{
	struct web_watch *x = watch_of(w, rec->id);

	if (!x)
		return;
	fill_from_rec(x, rec);
	x->last_seq = last_seq;
}

void webwatch_forget(struct web *w, int64_t session)
{
	struct web_watch *x = watch_of(w, session);

	if (x)
		watch_remove(w, x);
}

/* x's session changed elsewhere (its version moved): its viewers are
 * told, or the page is gone.  0, or 1 when x was removed. */
static int changed(struct web *w, struct web_watch *x, const struct store_web_mark *mk)
{
	struct session_rec rec;
	struct room_settings rs;
	struct buf err = BUF_INIT;
	char topic[32], ev[96];
	int r, n, moved;

	session_rec_init(&rec);
	r = store_session_get(w->m->store, x->session, &rec, &err);
	if (r < 0) {
		log_warn("web: watching session %lld: %s", (long long)x->session, buf_str(&err));
		buf_release(&err);
		session_rec_release(&rec);
		return 0;	/* asked again at the next tick */
	}
	buf_release(&err);
	if (r == 0 || !web_enabled(&rec)) {
		session_rec_release(&rec);
		web_gone(w->m, x->session);	/* removes x */
		return 1;
	}
	roomset_read(&rec, &rs);
	moved = mk->last_seq != x->last_seq || (int)rec.status != x->status || rs.paused != x->paused;
	fill_from_rec(x, &rec);
	x->last_seq = mk->last_seq;
	session_rec_release(&rec);
	if (!moved || x->status == (int)SESSION_LOBBY || !w->publish)
		return 0;
	topic_name(x->session, topic);
	n = snprintf(ev, sizeof(ev), "event: move\ndata: {\"positions\":%lld}\n\n",
		     (long long)mk->last_seq + 1);
	w->publish(w->pub_ctx, topic, ev, (size_t)n);
	w->stats.published++;
	w->stats.remote_moves++;
	return 0;
}

/* Reads marks for watch[from, from + n) and acts on them. */
static void tick_some(struct web *w, size_t from, size_t n)
{
	struct store_web_mark *mk;
	struct web_watch *x;
	struct buf err = BUF_INIT;
	int64_t *ids = xcalloc(n, sizeof(*ids));
	size_t i;

	w->marks = xrealloc(w->marks, n * sizeof(*w->marks));
	for (i = 0; i < n; i++) {
		w->marks[i].session = ids[i] = w->watch[from + i].session;
		w->marks[i].known = w->watch[from + i].version;
	}
	w->stats.watch_reads++;
	if (store_web_marks(w->m->store, w->marks, n, &err)) {
		log_warn("web: watching %zu sessions: %s", n, buf_str(&err));
		goto out;
	}
	/* by session id: a watch may be removed (and another moved into its
	 * place) on the way */
	for (i = 0; i < n; i++) {
		x = from + i < w->nwatch && w->watch[from + i].session == ids[i] ?
			&w->watch[from + i] : watch_of(w, ids[i]);
		mk = store_web_mark_find(w->marks, n, ids[i]);
		if (!x || !mk)
			continue;
		if (mk->version < 0 || strcmp(mk->hash, x->hash))
			web_gone(w->m, x->session);	/* deleted, reset: removes x */
		else if (mk->version != x->version)
			changed(w, x, mk);
	}
out:
	free(ids);
	buf_release(&err);
}

void web_watch_tick(struct web *w)
{
	char topic[32];
	size_t i, n;

	/* streams closed since: their watch goes */
	for (i = 0; i < w->nwatch;) {
		topic_name(w->watch[i].session, topic);
		if (w->streams && !w->streams(w->pub_ctx, topic))
			watch_remove(w, &w->watch[i]);
		else
			i++;
	}
	if (!w->nwatch) {
		if (w->watch_timer)
			w->watch_timer(w->watch_ctx, 0);
		return;
	}
	/* watches removed in tick_some are the ones at its end or moved
	 * there from the end: going backwards by chunks misses none */
	n = w->nwatch;
	while (n) {
		size_t k = n > STORE_WEB_MARKS_MAX ? STORE_WEB_MARKS_MAX : n;

		tick_some(w, n - k, k);
		n -= k;
		if (n > w->nwatch)
			n = w->nwatch;
	}
}

size_t web_watch_count(const struct web *w)
{
	return w->nwatch;
}

void webwatch_release(struct web *w)
{
	free(w->watch);
	free(w->marks);
	w->watch = NULL;
	w->marks = NULL;
	w->nwatch = w->watchcap = 0;
}
