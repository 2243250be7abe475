/*
 * pictures: boards as pictures.  Which form a room's boards take (the
 * `board` room setting, else the platform's default), the picture that
 * goes with a message (struct pic: the game's display list, the text board
 * it shows, and the whole message as text for when painting fails), its
 * place in the outbox payload, and painting it into what an adapter sends
 * (struct adapter_image).
 *
 * Painting happens after the commit, on the way out (outbox_deliver(), the
 * answers to `board` and `hand`): a commit never waits for a picture, and
 * a picture that cannot be painted becomes the text board, with a log
 * line.  It must not decide what a message says: outbox.c and play.c do;
 * the games describe and paint/ draws.
 *
 * Off the loop (m->paint, adapters with a `picture` op): the message's
 * text goes at once, and its picture is painted by a worker and follows.
 * Pictures wait in streams, one per room (and per player's private
 * messages in it; one per platform where the adapter reads as one
 * stream): only a stream's first picture is being painted, and it goes
 * to its adapter before the next one is started, so a room never shows an
 * older board after a newer one.  A newer board of the same room (or
 * player) supersedes one still waiting: that one is not painted at all,
 * and its message is finished without it (its text went; the newer board
 * follows).  Answers (`board`, `hand`) are never superseded: someone asked
 * for them.  A picture is a message's; it never goes with another one,
 * so no picture shows a state its message does not describe.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bot/paintjob.h"
#include "bot/core.h"
#include "bot/pictures.h"
#include "bot/roomset.h"
#include "paint/paint.h"
#include "util/logging.h"
#include "util/meters.h"

enum pic_board_mode pic_board_mode(const struct session_rec *rec, const struct adapter *a)
{
	struct room_settings rs;

	roomset_read(rec, &rs);
	if (rs.board != BOARD_DEFAULT)
		return rs.board;
	return a && (a->ops->caps & ADAPTER_CAP_IMAGES) ? BOARD_IMAGE : BOARD_TEXT;
}

int pic_build(const struct session *s, const void *st, int seat, enum locale loc,
	      const struct rich *view, const char *what, struct pic *out)
{
	const char *names[GAME_MAX_SEATS];
	struct game_view v;
	struct buf plain = BUF_INIT;

	pic_init(out);
	if (!s->ops->scene)
		return -1;
	session_view_init(s, loc, names, &v);
	if (s->ops->scene(st, seat, &v, &out->scene)) {
		pic_release(out);
		return -1;
	}
	rich_to_plain(view, &plain);
	out->alt = buf_detach(&plain);
	rich_append(&out->view, view);
	snprintf(out->name, sizeof(out->name), "%s-s%lld-m%lld.png", what, (long long)s->rec.id,
		 (long long)s->last_seq);
	return 0;
}

json_t *pic_payload(const struct rich *body, const struct pic *p)
{
	return json_pack("{s:o, s:o, s:o, s:o, s:s, s:s, s:b}", "body", rich_to_json(body),
			 "full", rich_to_json(&p->full), "view", rich_to_json(&p->view),
			 "scene", scene_to_json(&p->scene), "alt", p->alt ? p->alt : "", "name",
			 p->name, "tib", p->text_in_body);
}

int pic_from_payload(const json_t *j, struct rich *body, struct pic *out, struct buf *err)
{
	const char *alt = json_string_value(json_object_get(j, "alt"));
	const char *name = json_string_value(json_object_get(j, "name"));

	pic_init(out);
	rich_init(body);
	if (!alt || !name || strlen(name) >= sizeof(out->name) ||
	    rich_from_json(body, json_object_get(j, "body")) ||
	    rich_from_json(&out->full, json_object_get(j, "full")) ||
	    scene_from_json(&out->scene, json_object_get(j, "scene"), err)) {
		if (!err->len)
			buf_setf(err, "a picture's message is malformed");
		rich_release(body);
		pic_release(out);
		return -1;
	}
	/* "view" came with pictures that follow; a message stored before it
	 * has the text board as plain text only */
	if (!json_object_get(j, "view") || rich_from_json(&out->view, json_object_get(j, "view"))) {
		rich_release(&out->view);
		rich_init(&out->view);
		if (*alt)
			rich_line(&out->view, "%s", alt);
	}
	out->alt = xstrdup(alt);
	snprintf(out->name, sizeof(out->name), "%s", name);
	out->text_in_body = json_is_true(json_object_get(j, "tib"));
	return 0;
}

int pic_paint(const struct pic *p, struct paint_image *im, struct adapter_image *img,
	      struct buf *err)
{
	if (paint_scene(&p->scene, 0, im, err))
		return -1;
	memset(img, 0, sizeof(*img));
	img->png = im->png;
	img->len = im->len;
	img->width = im->width;
	img->height = im->height;
	img->name = p->name;
	img->alt = p->alt;
	img->text_in_body = p->text_in_body;
	return 0;
}

/* ---- pictures that follow their text ---- */

/* One picture on its way: its message went; it waits for its turn to be
 * painted, or is being painted (job out), in its stream. */
struct pic_out {
	struct pic_out *next;
	struct pic_stream *stream;
	uint64_t id;			/* adapter_image.follow */
	int64_t outbox_id;		/* 0: an answer */
	char platform[16];
	char room[256];
	char user[128];			/* "": the room */
	char name[64];
	char *alt;
	struct rich text;		/* in its place when painting fails (empty:
					 * the message's body has the text board) */
	int text_in_body;
	struct paint_job *job;		/* owned while waiting; NULL while painting */
	int painting;
};

struct pic_stream {
	char key[16 + 256 + 128 + 3];
	struct pic_out *head, **tail;
};

int pic_follows(const struct session_mgr *m, const struct adapter *a)
{
	return m->paint && a && adapter_has_picture(a);
}

uint64_t pic_next_id(struct session_mgr *m)
{
	return ++m->pic_ids;
}

size_t session_mgr_paint_depth(const struct session_mgr *m)
{
	return m->pic_depth;
}

static void pic_out_free(struct session_mgr *m, struct pic_out *e)
{
	m->pic_depth--;
	metric_set(&met_paint_queue, 0, 0, (int64_t)m->pic_depth);
	paint_job_free(e->job);
	free(e->alt);
	rich_release(&e->text);
	free(e);
}

/* Hands e's picture (job: painted or failed; NULL: none comes) to its
 * adapter, which finishes e's message. */
static void pic_hand(struct session_mgr *m, struct pic_out *e, const struct paint_job *job)
{
	struct adapter *a = session_adapter(m, e->platform);
	struct adapter_image img;
	struct buf err = BUF_INIT;
	int rc;

	if (!a)
		return;		/* that platform stopped here: the outbox keeps it */
	memset(&img, 0, sizeof(img));
	img.name = e->name;
	img.alt = e->alt;
	img.text_in_body = e->text_in_body;
	img.follow = e->id;
	if (job && job->failed) {
		m->pics_failed++;
		if (e->outbox_id)
			log_warn("outbox %lld: picture %s failed: %s; sent as text",
				 (long long)e->outbox_id, e->name, job->why);
		else
			log_warn("picture %s for %s/%s failed: %s; answered with text", e->name,
				 e->platform, e->room, job->why);
		rc = adapter_picture(a, e->id, NULL, e->text.n ? &e->text : NULL, &err);
	} else if (job) {
		img.png = job->im.png;
		img.len = job->im.len;
		img.width = job->im.width;
		img.height = job->im.height;
		rc = adapter_picture(a, e->id, &img, NULL, &err);
	} else {
		rc = adapter_picture(a, e->id, NULL, NULL, &err);
	}
	if (rc)
		log_warn("picture %s for %s/%s not sent: %s", e->name, e->platform, e->room,
			 buf_str(&err));
	buf_release(&err);
}

static void stream_unlink_head(struct pic_stream *st)
{
	struct pic_out *e = st->head;

	if (e && !(st->head = e->next))
		st->tail = &st->head;
}

/* Starts painting the stream's first picture; the stream goes when empty.
 * Where the job cannot go to a worker (the pool is stopping), it is
 * painted here. */
static void stream_pump(struct session_mgr *m, struct pic_stream *st)
{
	struct pic_out *e;

	while ((e = st->head) && !e->painting) {
		struct paint_job *job = e->job;

		e->job = NULL;
		e->painting = 1;
		job->owner = e;
		if (!m->paint(m->paint_ctx, job))
			return;		/* back through session_mgr_paint_done */
		paint_job_run(job);
		pic_hand(m, e, job);
		paint_job_free(job);
		stream_unlink_head(st);
		pic_out_free(m, e);
	}
	if (!st->head) {
		strmap_del(&m->pic_streams, st->key);
		free(st);
	}
}

void pic_enqueue(struct session_mgr *m, struct adapter *a, uint64_t id, const char *room,
		 const char *user, int64_t outbox_id, struct pic *p)
{
	struct pic_out *e = xcalloc(1, sizeof(*e)), **at;
	struct pic_stream *st;
	char key[sizeof(st->key)];

	e->id = id;
	e->outbox_id = outbox_id;
	session_copy_field(e->platform, sizeof(e->platform), a->ops->name);
	session_copy_field(e->room, sizeof(e->room), room);
	session_copy_field(e->user, sizeof(e->user), user ? user : "");
	snprintf(e->name, sizeof(e->name), "%s", p->name);
	e->alt = xstrdup(p->alt ? p->alt : "");
	rich_init(&e->text);
	if (!p->text_in_body)
		rich_append(&e->text, &p->view);
	e->text_in_body = p->text_in_body;
	e->job = paint_job_new(id, &p->scene);
	m->pic_depth++;
	metric_set(&met_paint_queue, 0, 0, (int64_t)m->pic_depth);
	if (a->ops->caps & ADAPTER_CAP_ONE_STREAM)
		snprintf(key, sizeof(key), "%s", e->platform);
	else
		snprintf(key, sizeof(key), "%s\n%s\n%s", e->platform, e->room, e->user);
	st = strmap_get(&m->pic_streams, key);
	if (!st) {
		st = xcalloc(1, sizeof(*st));
		memcpy(st->key, key, sizeof(key));
		st->tail = &st->head;
		strmap_put(&m->pic_streams, st->key, st);
	}
	e->stream = st;
	/* a newer board of the same room (or player) supersedes the ones
	 * still waiting: they are not painted, their messages finish
	 * without them */
	for (at = &st->head; outbox_id && *at;) {
		struct pic_out *old = *at;

		if (old->painting || !old->outbox_id || strcmp(old->room, e->room) ||
		    strcmp(old->user, e->user)) {
			at = &old->next;
			continue;
		}
		*at = old->next;
		if (st->tail == &old->next)
			st->tail = at;
		m->pics_superseded++;
		log_debug("picture %s for %s/%s superseded by %s", old->name, old->platform,
			  old->room, e->name);
		pic_hand(m, old, NULL);
		pic_out_free(m, old);
	}
	*st->tail = e;
	st->tail = &e->next;
	stream_pump(m, st);
}

void session_mgr_paint_done(struct session_mgr *m, struct paint_job *job)
{
	/* a picture being painted is its stream's first, and stays there
	 * until it is back (nothing drops it meanwhile) */
	struct pic_out *e = job->owner;
	struct pic_stream *st = e->stream;

	if (st->head != e || !e->painting || e->id != job->id) {
		log_err("picture %llu came back out of turn; dropped", (unsigned long long)job->id);
		paint_job_free(job);
		return;
	}
	pic_hand(m, e, job);
	paint_job_free(job);
	stream_unlink_head(st);
	pic_out_free(m, e);
	stream_pump(m, st);
}

/* Frees the waiting pictures of st (and st, when nothing of it is being
 * painted); 1 when st is gone. */
static int stream_drop_waiting(struct session_mgr *m, struct pic_stream *st)
{
	struct pic_out *e, *keep = NULL;

	while ((e = st->head)) {
		stream_unlink_head(st);
		if (e->painting)
			keep = e;
		else
			pic_out_free(m, e);
	}
	if (keep) {
		keep->next = NULL;
		st->head = keep;
		st->tail = &keep->next;
		return 0;
	}
	return 1;
}

void session_mgr_paint_drop_waiting(struct session_mgr *m)
{
	struct pic_stream **gone = NULL;
	size_t i = 0, n = 0, k;
	void *v;

	while ((i = strmap_next(&m->pic_streams, i, &v)))
		if (stream_drop_waiting(m, v)) {
			gone = xrealloc(gone, (n + 1) * sizeof(*gone));
			gone[n++] = v;
		}
	for (k = 0; k < n; k++) {
		strmap_del(&m->pic_streams, gone[k]->key);
		free(gone[k]);
	}
	free(gone);
}

void pic_streams_release(struct session_mgr *m)
{
	size_t i = 0;
	void *v;

	/* the pool is gone by now: jobs being painted were its to free */
	while ((i = strmap_next(&m->pic_streams, i, &v))) {
		struct pic_stream *st = v;
		struct pic_out *e;

		while ((e = st->head)) {
			stream_unlink_head(st);
			pic_out_free(m, e);
		}
		free(st);
	}
	strmap_release(&m->pic_streams);
}

void pic_reply_picture(struct session_mgr *m, struct adapter *a, const struct command *cmd,
		       int priv, const struct rich *body, struct pic *p)
{
	struct paint_image im;
	struct adapter_image img;
	struct buf err = BUF_INIT;

	if (!adapter_has_reply_image(a)) {
		session_reply_rich(a, cmd, priv, &p->full);
		return;
	}
	if (pic_follows(m, a)) {
		memset(&img, 0, sizeof(img));
		img.name = p->name;
		img.alt = p->alt;
		img.text_in_body = p->text_in_body;
		img.follow = pic_next_id(m);
		if (adapter_reply_image(a, cmd, priv, body, &img, &err))
			log_warn("reply failed: %s", buf_str(&err));
		else
			pic_enqueue(m, a, img.follow, cmd->room, priv ? cmd->user : NULL, 0, p);
		buf_release(&err);
		return;
	}
	if (pic_paint(p, &im, &img, &err)) {
		log_warn("picture %s for %s/%s failed: %s; answered with text", p->name,
			 cmd->platform, cmd->room, buf_str(&err));
		session_reply_rich(a, cmd, priv, &p->full);
		buf_release(&err);
		return;
	}
	if (adapter_reply_image(a, cmd, priv, body, &img, &err))
		log_warn("reply failed: %s", buf_str(&err));
	paint_image_release(&im);
	buf_release(&err);
}
