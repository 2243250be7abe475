/*
 * discord post: outbox messages (the adapter's send() and picture()) — a
 * message's chunks posted with nonces, the picture with its last one or
 * added by an edit when it follows, a channel that refuses attachments, and
 * the confirmation (on_sent) once every request landed.
 */

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "adapters/discord/discord_int.h"
#include "adapters/discord/interaction.h"
#include "adapters/discord/markdown.h"
#include "games/game.h"
#include "util/logging.h"

static void post_follow_up(struct post *p);

void dsc_post_drop_picture(struct post *p)
{
	free(p->png);
	free(p->png_alt);
	p->png = NULL;
	p->png_alt = NULL;
	p->png_len = 0;
}

void dsc_post_free(struct post *p)
{
	dsc_live_del(&p->live);
	if (p->follow)
		dsc_follow_forget(p->d, p, NULL);
	dsc_post_drop_picture(p);
	dsc_chunks_release(&p->ch);
	dsc_chunks_release(&p->more);
	json_decref(p->mentions);
	json_decref(p->components);
	free(p);
}

static void post_release(struct live *l)
{
	dsc_post_free((struct post *)l);
}

/* FNV-1a: the outbox key and chunk number as a nonce of at most 25 chars. */
static void make_nonce(const char *key, size_t chunk, char out[32])
{
	uint64_t h = 1469598103934665603ULL;
	const char *s;

	for (s = key; *s; s++)
		h = (h ^ (unsigned char)*s) * 1099511628211ULL;
	h = (h ^ (chunk + 1)) * 1099511628211ULL;
	snprintf(out, 32, "tb%016llx", (unsigned long long)h);
}

/* Every request of p landed (its text; then what follows it). */
void dsc_post_finish(struct post *p)
{
	struct discord *d = p->d;

	if (p->refused_dm) {
		p->refused_dm = 0;
		dsc_post_fallback(p);
		return;
	}
	if (!p->failed && p->follow && !p->finishing) {
		if (p->awaiting) {
			p->held = 1;	/* its picture comes: dsc_picture */
			return;
		}
		post_follow_up(p);
		return;
	}
	if (!p->failed && d->base.on_sent && p->outbox_id > 0)
		d->base.on_sent(d->base.ctx, &d->base, p->outbox_id);
	dsc_post_free(p);
}

static void post_repost_last(struct post *p);

static void on_chunk_sent(const struct discord_rest_resp *resp, void *ctx)
{
	struct post *p = ctx;

	if (p->d->stopping) {
		if (--p->pending == 0)
			dsc_post_free(p);
		return;
	}
	if (resp->status == 403 && dsc_error_code(resp->body) == 50007 && p->user[0]) {
		p->refused_dm = 1;
	} else if (resp->status == 403 && dsc_error_code(resp->body) == 50013 && p->png &&
		   !p->no_attach && !p->follow) {
		/* Missing Permissions on the message with the picture: the
		 * channel does not let the bot attach files (it was invited
		 * without Attach Files).  The message goes again without it;
		 * its Text button still shows the board. */
		p->no_attach = 1;
		log_warn("discord: channel %s refuses the bot's attachments (no Attach Files "
			 "permission): its boards go without pictures", p->channel);
		post_repost_last(p);
		return;
	} else if (resp->status >= 200 && resp->status < 300) {
		/* delivered */
	} else if (resp->status >= 400 && resp->status < 500 && resp->status != 429 &&
		   !resp->error) {
		/* Discord's final word (no access, unknown channel): retrying
		 * cannot help, so the message is dropped */
		log_warn("discord: outbox %lld refused (HTTP %ld, code %ld); dropped",
			 (long long)p->outbox_id, resp->status, dsc_error_code(resp->body));
	} else {
		log_warn("discord: outbox %lld not delivered (HTTP %ld%s%s); kept for the next start",
			 (long long)p->outbox_id, resp->status, resp->error ? ": " : "",
			 resp->error ? resp->error : "");
		p->failed = 1;
	}
	if (--p->pending == 0)
		dsc_post_finish(p);
}

/* The last chunk's answer: its message id (a picture that follows is
 * added to that message), then as every chunk's. */
static void on_last_chunk_sent(const struct discord_rest_resp *resp, void *ctx)
{
	struct post *p = ctx;

	if (!p->d->stopping && resp->status >= 200 && resp->status < 300 && resp->body) {
		json_t *j = json_loads(buf_str(resp->body), 0, NULL);
		const char *id = json_string_value(json_object_get(j, "id"));

		if (dsc_is_snowflake(id))
			snprintf(p->last_id, sizeof(p->last_id), "%s", id);
		json_decref(j);
	}
	on_chunk_sent(resp, ctx);
}

/* The last chunk again, without the picture (on_chunk_sent's 50013); its
 * pending count is the failed request's. */
static void post_repost_last(struct post *p)
{
	const char *text = p->ch.v[p->ch.n - 1];
	char nonce[32];

	dsc_post_drop_picture(p);
	if (!*text)
		text = p->es ? "(Este canal no deja al bot adjuntar imágenes: el botón Texto "
			       "muestra el tablero.)"
			     : "(This channel does not let the bot attach pictures: the Text "
			       "button shows the board.)";
	make_nonce(p->key, p->ch.n - 1, nonce);
	dsc_channel_post(p->d, p->channel, text, p->mentions, p->components,
			 p->key[0] ? nonce : NULL, NULL, on_chunk_sent, p);
}

void dsc_post_chunks(struct post *p, const char *channel)
{
	size_t i, n = p->ch.n;

	snprintf(p->channel, sizeof(p->channel), "%s", channel);
	p->pending = n;
	if (!n) {
		/* no text (a picture alone): it follows */
		dsc_post_finish(p);
		return;
	}
	for (i = 0; i < n; i++) {
		struct file f = { p->png_name, "image/png", p->png, p->png_len, p->png_alt };
		char nonce[32];

		make_nonce(p->key, i, nonce);
		dsc_channel_post(p->d, channel, p->ch.v[i], p->mentions,
				 i + 1 == n ? p->components : NULL, p->key[0] ? nonce : NULL,
				 i + 1 == n && p->png && !p->follow ? &f : NULL,
				 i + 1 == n && p->follow ? on_last_chunk_sent : on_chunk_sent, p);
	}
}

/* The answer to the picture's request (an edit, or a post of its own). */
static void on_picture_sent(const struct discord_rest_resp *resp, void *ctx)
{
	struct post *p = ctx;

	if (p->d->stopping) {
		if (--p->pending == 0)
			dsc_post_free(p);
		return;
	}
	if (resp->status == 403 && dsc_error_code(resp->body) == 50013) {
		/* no Attach Files here: the text went, its Text button still
		 * shows the board */
		log_warn("discord: channel %s refuses the bot's attachments (no Attach Files "
			 "permission): its boards go without pictures", p->channel);
		if (!p->last_id[0] && !p->ch.n) {
			/* the picture was the message: a line in its place */
			char nonce[32];

			make_nonce(p->key, 0, nonce);
			dsc_channel_post(p->d, p->channel, p->es
					 ? "(Este canal no deja al bot adjuntar imágenes: el botón "
					   "Texto muestra el tablero.)"
					 : "(This channel does not let the bot attach pictures: the "
					   "Text button shows the board.)",
					 p->mentions, p->components, p->key[0] ? nonce : NULL, NULL,
					 on_chunk_sent, p);
			return;
		}
	} else if (resp->status >= 200 && resp->status < 300) {
		/* delivered */
	} else if (resp->status >= 400 && resp->status < 500 && resp->status != 429 &&
		   !resp->error) {
		log_warn("discord: outbox %lld's picture refused (HTTP %ld, code %ld); dropped",
			 (long long)p->outbox_id, resp->status, dsc_error_code(resp->body));
	} else {
		log_warn("discord: outbox %lld's picture not delivered (HTTP %ld%s%s); kept for "
			 "the next start", (long long)p->outbox_id, resp->status,
			 resp->error ? ": " : "", resp->error ? resp->error : "");
		p->failed = 1;
	}
	if (--p->pending == 0)
		dsc_post_finish(p);
}

/*
 * p's text landed and what follows it is known: the picture, added to the
 * text's last message (or posted alone, when there was no text), or the
 * text in its place (more), or nothing.  Then dsc_post_finish confirms it.
 */
static void post_follow_up(struct post *p)
{
	size_t i;

	p->finishing = 1;
	if (p->png) {
		struct file f = { p->png_name, "image/png", p->png, p->png_len, p->png_alt };
		char nonce[32];

		p->pending = 1;
		if (p->last_id[0]) {
			dsc_channel_attach(p->d, p->channel, p->last_id, &f, on_picture_sent, p);
		} else {
			make_nonce(p->key, p->ch.n, nonce);
			dsc_channel_post(p->d, p->channel, "", p->mentions, p->components,
					 p->key[0] ? nonce : NULL, &f, on_picture_sent, p);
		}
		dsc_post_drop_picture(p);
		return;
	}
	if (p->more.n) {
		struct chunks more = p->more;

		memset(&p->more, 0, sizeof(p->more));
		p->pending = more.n;
		for (i = 0; i < more.n; i++) {
			char nonce[32];

			/* after the text's chunks: a restart sends the same */
			make_nonce(p->key, p->ch.n + 1 + i, nonce);
			dsc_channel_post(p->d, p->channel, more.v[i], NULL, NULL,
					 p->key[0] ? nonce : NULL, NULL, on_chunk_sent, p);
		}
		dsc_chunks_release(&more);
		return;
	}
	dsc_post_finish(p);
}

int dsc_send(struct adapter *a, const struct outmsg *m, struct buf *err)
{
	struct discord *d = dsc_downcast(a);
	struct post *p;
	enum locale loc;

	if (!dsc_is_snowflake(m->room) || (m->user && !dsc_is_snowflake(m->user)))
		return buf_setf(err, "not a Discord channel or user id"), -1;
	p = xcalloc(1, sizeof(*p));
	p->d = d;
	dsc_live_add(d, &p->live, post_release);
	p->outbox_id = m->outbox_id;
	snprintf(p->room, sizeof(p->room), "%s", m->room);
	snprintf(p->user, sizeof(p->user), "%s", m->user ? m->user : "");
	snprintf(p->key, sizeof(p->key), "%s", m->key ? m->key : "");
	p->es = m->locale && !locale_parse(m->locale, &loc) && loc == LOC_ES;
	p->session = m->session;
	p->version = m->version;
	if (dsc_render(m->body, &p->ch, err)) {
		dsc_post_free(p);
		return -1;
	}
	if (m->image && m->image->follow) {
		/* the text now; the picture is added to its last message
		 * when it comes (dsc_picture) */
		struct follow *f = dsc_follow_add(d, m->image->follow, FOLLOW_POST);

		f->p = p;
		p->follow = m->image->follow;
		p->awaiting = 1;
	} else if (m->image) {
		/* the picture goes with the last chunk, or alone */
		p->png = xmalloc(m->image->len ? m->image->len : 1);
		memcpy(p->png, m->image->png, m->image->len);
		p->png_len = m->image->len;
		snprintf(p->png_name, sizeof(p->png_name), "%s",
			 m->image->name ? m->image->name : "board.png");
		p->png_alt = m->image->alt ? xstrdup(m->image->alt) : NULL;
		if (!p->ch.n)
			dsc_collect_chunk(&p->ch, "", 0);
	}
	if (!p->ch.n && !p->follow) {
		/* nothing to show: delivered by definition */
		dsc_post_finish(p);
		return 0;
	}
	if (!dsc_rest_fits(d, p->ch.n + 1)) {
		/* back-pressure (discord.h); the manager keeps it stored */
		dsc_post_free(p);
		return buf_setf(err, "Discord is not keeping up (%zu requests waiting); kept in "
				"the outbox for the next start", discord_rest_pending(d->rest)), -1;
	}
	p->mentions = discord_allowed_mentions(m->body);
	if (m->session > 0 && !m->user)
		p->components = m->image && !m->image->text_in_body
			? discord_picture_components(m->session, m->version, p->es)
			: discord_board_components(m->session, m->version, p->es);
	else if (m->over_session > 0 && !m->user)
		p->components = discord_rematch_components(m->over_session, p->es);
	if (!m->user) {
		dsc_post_chunks(p, p->room);
	} else if (dsc_dm_lookup(d, p->user)) {
		dsc_post_chunks(p, dsc_dm_lookup(d, p->user));
	} else {
		json_t *body = json_pack("{s:s}", "recipient_id", p->user);
		char *text = json_dumps(body, JSON_COMPACT);

		json_decref(body);
		if (discord_rest_submit(d->rest, "POST", "/users/@me/channels", text, dsc_on_dm_channel,
					p, err)) {
			free(text);
			dsc_post_free(p);
			return -1;
		}
		free(text);
	}
	return 0;
}

/*
 * The picture of a message sent or answered with img->follow (adapter.h):
 * an outbox post adds it to its text's last message once that text
 * landed (or posts what comes in its place), then confirms the message;
 * an answer gets it by an edit or a follow-up (dsc_ix_picture).
 */
int dsc_picture(struct adapter *a, uint64_t id, const struct adapter_image *img,
		const struct rich *text, struct buf *err)
{
	struct discord *d = dsc_downcast(a);
	struct follow *f = dsc_follow_take(d, id);
	struct post *p;

	if (!f)
		return 0;	/* its message failed, or was dropped */
	if (f->x) {
		dsc_ix_picture(d, f, img, text);
		free(f);
		return 0;
	}
	p = f->p;
	free(f);
	p->awaiting = 0;
	if (img && img->png) {
		dsc_post_drop_picture(p);
		p->png = xmalloc(img->len ? img->len : 1);
		memcpy(p->png, img->png, img->len);
		p->png_len = img->len;
		snprintf(p->png_name, sizeof(p->png_name), "%s", img->name ? img->name : "board.png");
		p->png_alt = img->alt ? xstrdup(img->alt) : NULL;
	} else if (text && text->n && dsc_render(text, &p->more, err)) {
		log_warn("discord: outbox %lld: %s", (long long)p->outbox_id, buf_str(err));
		buf_reset(err);
	}
	if (p->held) {
		p->held = 0;
		dsc_post_finish(p);
	}
	return 0;
}
