/*
 * discord answer: the answers to an interaction — its queue of requests,
 * sent one after another (the callback first, then edits and follow-ups),
 * and the adapter's reply() and reply_image(), with the pictures that
 * follow an answer (docs/pictures.md, "Discord").
 */

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "adapters/discord/discord_int.h"
#include "adapters/discord/interaction.h"
#include "adapters/discord/markdown.h"
#include "games/game.h"
#include "util/logging.h"

/* A private answer longer than this many messages goes as a file. */
#define DISCORD_ATTACH_CHUNKS 3

static void ixreq_release(struct ixreq *r)
{
	free(r->path);
	json_decref(r->body);
	free(r->json);
	free(r->ctype);
	memset(r, 0, sizeof(*r));
}

void dsc_ix_free(struct ix *x)
{
	size_t i;

	dsc_live_del(&x->live);
	dsc_follow_forget(x->d, NULL, x);
	for (i = x->qhead; i < x->qlen; i++)
		ixreq_release(&x->q[i]);
	free(x->q);
	/* the interaction token is a credential for 15 minutes */
	memset(&x->in, 0, sizeof(x->in));
	free(x);
}

void dsc_ix_release(struct live *l)
{
	dsc_ix_free((struct ix *)l);
}

static void ix_done(const struct discord_rest_resp *resp, void *ctx)
{
	struct ix *x = ctx;
	struct ixreq *r = &x->q[x->qhead];

	if (resp->error || resp->status < 200 || resp->status >= 300)
		log_warn("discord: interaction answer failed (HTTP %ld%s%s)", resp->status,
			 resp->error ? ": " : "", resp->error ? resp->error : "");
	ixreq_release(r);
	x->qhead++;
	x->inflight = 0;
	dsc_ix_pump(x);
}

/* Sends the next request unless one is out or on_command is still adding
 * to the answer (the moves select is attached when it is done). */
void dsc_ix_pump(struct ix *x)
{
	struct buf err = BUF_INIT;

	while (!x->inflight && !x->collecting && x->qhead < x->qlen) {
		struct ixreq *r = &x->q[x->qhead];

		if (r->body) {
			r->json = json_dumps(r->body, JSON_COMPACT);
			r->len = strlen(r->json);
		}
		if (!discord_rest_submit_raw(x->d->rest, r->method, r->path, r->ctype, r->json,
					     r->len, ix_done, x, &err)) {
			x->inflight = 1;
			break;
		}
		log_warn("discord: interaction answer not sent: %s", buf_str(&err));
		ixreq_release(r);
		x->qhead++;
	}
	buf_release(&err);
	if (!x->inflight && x->qhead == x->qlen && !x->collecting && !x->follows)
		dsc_ix_free(x);
}

/* A new request at the end of the queue, its body and type left to fill. */
static struct ixreq *ix_add(struct ix *x, const char *method, const char *path)
{
	struct ixreq *r;

	if (x->qlen == x->qcap) {
		x->qcap = x->qcap ? x->qcap * 2 : 4;
		x->q = xrealloc(x->q, x->qcap * sizeof(*x->q));
	}
	r = &x->q[x->qlen++];
	memset(r, 0, sizeof(*r));
	snprintf(r->method, sizeof(r->method), "%s", method);
	r->path = xstrdup(path);
	return r;
}

/* Queues a request (body: borrowed, copied). */
static void ix_push(struct ix *x, const char *method, const char *path, json_t *body)
{
	struct ixreq *r = ix_add(x, method, path);

	r->body = body ? json_deep_copy(body) : NULL;
	dsc_ix_pump(x);
}

/* Queues a multipart request: payload (borrowed) and the file f. */
static void ix_push_file(struct ix *x, const char *method, const char *path, json_t *payload,
			 const struct file *f)
{
	struct ixreq *r = ix_add(x, method, path);

	r->json = dsc_multipart(payload, f, &r->len);
	r->ctype = xstrdup(ATTACH_CTYPE);
	dsc_ix_pump(x);
}

void dsc_ix_callback(struct ix *x, json_t *body)
{
	char path[DISCORD_TOKEN_SIZE + 64];

	snprintf(path, sizeof(path), "/interactions/%s/%s/callback", x->in.id, x->in.token);
	ix_push(x, "POST", path, body);
	x->responded = 1;
}

static void ix_followup(struct ix *x, const char *content, int ephemeral, json_t *mentions)
{
	char path[DISCORD_TOKEN_SIZE + 64];
	json_t *body = discord_response_message(content, ephemeral, mentions, NULL);

	snprintf(path, sizeof(path), "/webhooks/%s/%s", x->in.application_id, x->in.token);
	/* a follow-up takes the message object itself, not the callback wrapper */
	ix_push(x, "POST", path, json_object_get(body, "data"));
	json_decref(body);
}

void dsc_ix_edit_original(struct ix *x, const char *content, json_t *mentions)
{
	char path[DISCORD_TOKEN_SIZE + 64];
	json_t *body = discord_response_message(content, 0, mentions, NULL);

	snprintf(path, sizeof(path), "/webhooks/%s/%s/messages/@original",
		 x->in.application_id, x->in.token);
	ix_push(x, "PATCH", path, json_object_get(body, "data"));
	json_decref(body);
	x->original_filled = 1;
}

/* A private answer too long for a few messages (`log all`): one line, and
 * the whole text as a file. */
static void reply_file(struct ix *x, const struct rich *body)
{
	enum locale loc;
	int es = !locale_parse(x->in.locale, &loc) && loc == LOC_ES;
	struct buf plain = BUF_INIT, line = BUF_INIT;
	char path[DISCORD_TOKEN_SIZE + 96];
	json_t *data, *att;
	size_t n;
	struct file f = { "tabula.txt", "text/plain; charset=utf-8", NULL, 0, NULL };

	rich_to_plain(body, &plain);
	f.data = plain.s;
	f.len = plain.len;
	n = strcspn(buf_str(&plain), "\n");
	if (n > 200)
		n = 200;
	while (n && ((unsigned char)buf_str(&plain)[n] & 0xC0) == 0x80)
		n--;
	buf_printf(&line, "%.*s — %s", (int)n, buf_str(&plain),
		   es ? "el texto completo va adjunto." : "the full text is attached.");
	att = json_pack("[{s:s, s:s}]", "id", "0", "filename", "tabula.txt");
	data = json_pack("{s:s, s:i, s:{s:[]}, s:o}", "content", buf_str(&line),
			 "flags", DISCORD_FLAG_EPHEMERAL, "allowed_mentions", "parse",
			 "attachments", att);
	if (!x->responded) {
		json_t *cb = json_pack("{s:i, s:O}", "type", DISCORD_RESPONSE_MESSAGE, "data", data);

		snprintf(path, sizeof(path), "/interactions/%s/%s/callback", x->in.id, x->in.token);
		ix_push_file(x, "POST", path, cb, &f);
		x->responded = 1;
		json_decref(cb);
	} else if (x->deferred && !x->original_filled) {
		snprintf(path, sizeof(path), "/webhooks/%s/%s/messages/@original",
			 x->in.application_id, x->in.token);
		ix_push_file(x, "PATCH", path, data, &f);
		x->original_filled = 1;
	} else {
		snprintf(path, sizeof(path), "/webhooks/%s/%s", x->in.application_id, x->in.token);
		ix_push_file(x, "POST", path, data, &f);
	}
	json_decref(data);
	buf_release(&plain);
	buf_release(&line);
}

int dsc_reply(struct adapter *a, const struct command *cmd, int private_,
	      const struct rich *body, struct buf *err)
{
	struct discord *d = dsc_downcast(a);
	struct ix *x = cmd->reply_ctx;
	struct chunks ch;
	json_t *mentions;
	size_t i;

	if (!x)
		return buf_setf(err, "no interaction to answer"), -1;
	if (dsc_render(body, &ch, err))
		return -1;
	if (private_ && ch.n > DISCORD_ATTACH_CHUNKS) {
		reply_file(x, body);
		dsc_chunks_release(&ch);
		return 0;
	}
	mentions = discord_allowed_mentions(body);
	for (i = 0; i < ch.n; i++) {
		if (!x->responded) {
			json_t *r = discord_response_message(ch.v[i], private_, mentions, NULL);

			dsc_ix_callback(x, r);
			json_decref(r);
		} else if (x->deferred && private_ && !x->original_filled) {
			dsc_ix_edit_original(x, ch.v[i], mentions);
		} else if (x->deferred && !private_) {
			/* the deferred answer is ephemeral: a public reply goes to
			 * the channel itself */
			dsc_channel_post(d, x->in.channel_id, ch.v[i], mentions, NULL, NULL, NULL, NULL,
					 NULL);
			continue;
		} else {
			ix_followup(x, ch.v[i], private_, mentions);
		}
		/* the select of moves goes under the private answer to `moves`,
		 * and only there: never on anything the channel can read */
		if (private_ && x->want_menu && i + 1 == ch.n)
			x->menu_req = (long)x->qlen - 1;
	}
	if (private_)
		x->want_menu = 0;
	json_decref(mentions);
	dsc_chunks_release(&ch);
	return 0;
}

/*
 * An answer whose picture follows (docs/pictures.md, "Discord"): its text
 * now, as reply() sends it, within Discord's 3 seconds; the picture is
 * added to that answer by an edit when it comes (or, after a text of
 * several messages, comes as a follow-up of its own).  With no text at
 * all, the answer is deferred now (Discord shows "thinking") and the
 * picture fills it.
 */
static int reply_follow(struct discord *d, struct ix *x, const struct command *cmd,
			int private_, const struct rich *body, const struct adapter_image *img,
			struct buf *err)
{
	int responded = x->responded, deferred = x->deferred, filled = x->original_filled;
	enum follow_where where;
	struct follow *f;
	struct chunks ch;

	if (dsc_render(body, &ch, err))
		return -1;
	if (ch.n) {
		dsc_chunks_release(&ch);
		if (dsc_reply(&d->base, cmd, private_, body, err))
			return -1;
		if (deferred && !private_)
			where = FOLLOW_CHANNEL;
		else if (!x->want_menu && ch.n == 1 && (!responded || (deferred && !filled)))
			where = FOLLOW_ORIGINAL;	/* the text is the answer itself */
		else
			where = FOLLOW_WEBHOOK;
	} else if (!responded) {
		json_t *r = discord_response_deferred(1);

		dsc_ix_callback(x, r);
		json_decref(r);
		x->deferred = 1;
		/* private: the picture fills the answer; public: the answer
		 * gets the acknowledgement, the picture goes to the channel */
		where = private_ ? FOLLOW_ORIGINAL : FOLLOW_CHANNEL;
	} else {
		where = deferred && !private_ ? FOLLOW_CHANNEL
			: deferred && !filled ? FOLLOW_ORIGINAL : FOLLOW_WEBHOOK;
	}
	f = dsc_follow_add(d, img->follow, where);
	f->x = x;
	f->priv = private_;
	if (where == FOLLOW_ORIGINAL && x->deferred && !x->original_filled) {
		/* the deferred answer is the picture's: no "Done." in it */
		x->original_filled = 1;
		f->filled = 1;
	}
	x->follows++;
	return 0;
}

/* The picture (or the text in its place) of an answer's follow f. */
void dsc_ix_picture(struct discord *d, struct follow *f, const struct adapter_image *img,
		    const struct rich *text)
{
	struct ix *x = f->x;
	char path[DISCORD_TOKEN_SIZE + 96];
	struct buf err = BUF_INIT;
	struct chunks ch = { NULL, 0 };
	size_t i = 0;

	if (img) {
		struct file fl = { img->name ? img->name : "board.png", "image/png", img->png,
				   img->len, img->alt };
		json_t *data = json_pack("{s:{s:[]}}", "allowed_mentions", "parse");

		json_object_set_new(data, "attachments", dsc_attachments(&fl));
		if (f->where == FOLLOW_ORIGINAL) {
			snprintf(path, sizeof(path), "/webhooks/%s/%s/messages/@original",
				 x->in.application_id, x->in.token);
			ix_push_file(x, "PATCH", path, data, &fl);
		} else if (f->where == FOLLOW_CHANNEL) {
			dsc_channel_post(d, x->in.channel_id, "", NULL, NULL, NULL, &fl, NULL, NULL);
		} else {
			if (f->priv)
				json_object_set_new(data, "flags", json_integer(DISCORD_FLAG_EPHEMERAL));
			snprintf(path, sizeof(path), "/webhooks/%s/%s", x->in.application_id,
				 x->in.token);
			ix_push_file(x, "POST", path, data, &fl);
		}
		json_decref(data);
	} else if (text && text->n && !dsc_render(text, &ch, &err) && ch.n) {
		json_t *none = json_pack("{s:[]}", "parse");

		if (f->filled) {
			dsc_ix_edit_original(x, ch.v[i++], none);
			x->original_filled = 1;
		}
		for (; i < ch.n; i++) {
			if (f->where == FOLLOW_CHANNEL)
				dsc_channel_post(d, x->in.channel_id, ch.v[i], none, NULL, NULL, NULL,
						 NULL, NULL);
			else
				ix_followup(x, ch.v[i], f->priv, none);
		}
		json_decref(none);
	} else if (f->filled) {
		dsc_ix_edit_original(x, dsc_ack_text(&x->in), NULL);
	}
	dsc_chunks_release(&ch);
	buf_release(&err);
	x->follows--;
	dsc_ix_pump(x);
}

/*
 * An answer with a picture: the body's chunks as reply() sends them, the
 * picture with the last one (or alone), ephemeral when private_ (My hand,
 * `hand`, `board text`... and a public `board image` in the channel).
 */
int dsc_reply_image(struct adapter *a, const struct command *cmd, int private_,
		    const struct rich *body, const struct adapter_image *img,
		    struct buf *err)
{
	struct discord *d = dsc_downcast(a);
	struct ix *x = cmd->reply_ctx;
	struct file f = { img->name ? img->name : "board.png", "image/png", img->png, img->len,
			  img->alt };
	char path[DISCORD_TOKEN_SIZE + 96];
	struct chunks ch;
	json_t *mentions, *msg, *data;

	if (!x)
		return buf_setf(err, "no interaction to answer"), -1;
	if (img->follow)
		return reply_follow(d, x, cmd, private_, body, img, err);
	if (dsc_render(body, &ch, err))
		return -1;
	if (!ch.n)
		dsc_collect_chunk(&ch, "", 0);
	mentions = discord_allowed_mentions(body);
	if (ch.n > 1) {
		/* more text than one message (`board both` of a long board): the
		 * text as reply() sends it, then the picture alone */
		dsc_chunks_release(&ch);
		json_decref(mentions);
		if (dsc_reply(a, cmd, private_, body, err))
			return -1;
		dsc_collect_chunk(&ch, "", 0);
		mentions = json_pack("{s:[]}", "parse");
	}
	msg = discord_response_message(ch.v[0], private_, mentions, NULL);
	data = json_object_get(msg, "data");
	json_object_set_new(data, "attachments", dsc_attachments(&f));
	if (!x->responded) {
		snprintf(path, sizeof(path), "/interactions/%s/%s/callback", x->in.id, x->in.token);
		ix_push_file(x, "POST", path, msg, &f);
		x->responded = 1;
	} else if (x->deferred && private_ && !x->original_filled) {
		snprintf(path, sizeof(path), "/webhooks/%s/%s/messages/@original",
			 x->in.application_id, x->in.token);
		ix_push_file(x, "PATCH", path, data, &f);
		x->original_filled = 1;
	} else if (x->deferred && !private_) {
		/* the deferred answer is ephemeral: a public one goes to the
		 * channel itself */
		dsc_channel_post(d, x->in.channel_id, ch.v[0], mentions, NULL, NULL, &f, NULL, NULL);
	} else {
		snprintf(path, sizeof(path), "/webhooks/%s/%s", x->in.application_id, x->in.token);
		ix_push_file(x, "POST", path, data, &f);
	}
	json_decref(msg);
	json_decref(mentions);
	dsc_chunks_release(&ch);
	return 0;
}

const char *dsc_ack_text(const struct discord_interaction *in)
{
	enum locale loc;

	if (!locale_parse(in->locale, &loc) && loc == LOC_ES)
		return "Hecho.";
	return "Done.";
}
