/*
 * discord message: a message's body as Discord takes it — the text split
 * into messages of 2,000 characters, a file as a multipart body with its
 * attachments entry, and the plain channel requests (a post, an edit
 * adding a file) that outbox posts and answers share.
 */

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "adapters/discord/discord_int.h"
#include "adapters/discord/interaction.h"
#include "adapters/discord/markdown.h"

/* Discord's cap on an attachment's description (alt text), characters. */
#define ATTACH_DESC_MAX 1024

/*
 * The multipart body of a message with one file: payload (borrowed) as
 * payload_json, then the file as files[0].  Discord takes attachments this
 * way only.  Returns a new buffer, *len its length.
 */
char *dsc_multipart(const json_t *payload, const struct file *f, size_t *len)
{
	struct buf b = BUF_INIT;
	char *pj = json_dumps(payload, JSON_COMPACT);
	const char *n;

	buf_init(&b, 64u << 20);
	buf_printf(&b, "--" ATTACH_BOUNDARY "\r\n"
		   "Content-Disposition: form-data; name=\"payload_json\"\r\n"
		   "Content-Type: application/json\r\n\r\n%s\r\n"
		   "--" ATTACH_BOUNDARY "\r\n"
		   "Content-Disposition: form-data; name=\"files[0]\"; filename=\"", pj);
	for (n = f->name; *n; n++)	/* our own names; a quote would end the header */
		buf_addch(&b, *n == '"' || (unsigned char)*n < 0x20 ? '_' : *n);
	buf_printf(&b, "\"\r\nContent-Type: %s\r\n\r\n", f->ctype);
	buf_add(&b, f->data, f->len);
	buf_addstr(&b, "\r\n--" ATTACH_BOUNDARY "--\r\n");
	free(pj);
	*len = b.len;
	return buf_detach(&b);
}

/* The attachments array naming f as attachment 0, with its description
 * cut to Discord's cap (a new reference). */
json_t *dsc_attachments(const struct file *f)
{
	/* the id is a snowflake, so a string in Discord's OpenAPI description */
	json_t *a = json_pack("{s:s, s:s}", "id", "0", "filename", f->name);

	if (f->desc && *f->desc) {
		struct buf d = BUF_INIT;
		const char *p = f->desc;
		size_t chars = 0;

		while (*p && chars < ATTACH_DESC_MAX - 1) {
			size_t k = 1;

			while ((p[k] & 0xC0) == 0x80)
				k++;
			buf_add(&d, p, k);
			p += k;
			chars++;
		}
		if (*p) {
			while (d.len && ((unsigned char)d.s[d.len - 1] & 0xC0) == 0x80)
				d.len--;	/* (never happens: whole characters) */
			buf_addstr(&d, "\xe2\x80\xa6");	/* … */
		}
		json_object_set_new(a, "description", json_string(buf_str(&d)));
		buf_release(&d);
	}
	return json_pack("[o]", a);
}

/* Posts content (and file f, when not NULL) to channel; cb(ctx) with the
 * answer, or a note that logs a failure when cb is NULL. */
void dsc_channel_post(struct discord *d, const char *channel, const char *content,
		      json_t *mentions, json_t *components, const char *nonce,
		      const struct file *f, discord_rest_fn cb, void *ctx)
{
	char path[64];
	struct buf err = BUF_INIT;
	json_t *body = discord_response_message(content, 0, mentions, components);
	json_t *data = json_object_get(body, "data");
	char *text;
	size_t len;
	int rc;

	if (nonce) {
		json_object_set_new(data, "nonce", json_string(nonce));
		json_object_set_new(data, "enforce_nonce", json_true());
	}
	if (f)
		json_object_set_new(data, "attachments", dsc_attachments(f));
	text = f ? dsc_multipart(data, f, &len) : json_dumps(data, JSON_COMPACT);
	snprintf(path, sizeof(path), "/channels/%s/messages", channel);
	if (!cb) {
		cb = dsc_on_noted;
		ctx = dsc_note_new(d, "a channel message");
	}
	if (f)
		rc = discord_rest_submit_raw(d->rest, "POST", path, ATTACH_CTYPE, text, len, cb, ctx,
					     &err);
	else
		rc = discord_rest_submit(d->rest, "POST", path, text, cb, ctx, &err);
	if (rc) {
		struct discord_rest_resp resp = { .status = 0, .error = buf_str(&err) };
		struct buf empty = BUF_INIT;

		resp.body = &empty;
		cb(&resp, ctx);
	}
	free(text);
	json_decref(body);
	buf_release(&err);
}

int dsc_collect_chunk(void *ctx, const char *chunk, size_t len)
{
	struct chunks *c = ctx;

	c->v = xrealloc(c->v, (c->n + 1) * sizeof(*c->v));
	c->v[c->n] = xmalloc(len + 1);
	memcpy(c->v[c->n], chunk, len + 1);
	c->n++;
	return 0;
}

void dsc_chunks_release(struct chunks *c)
{
	size_t i;

	for (i = 0; i < c->n; i++)
		free(c->v[i]);
	free(c->v);
	memset(c, 0, sizeof(*c));
}

/* body as Discord messages of at most 2,000 characters. */
int dsc_render(const struct rich *body, struct chunks *out, struct buf *err)
{
	struct buf md = BUF_INIT;

	memset(out, 0, sizeof(*out));
	if (discord_markdown(body, &md)) {
		buf_setf(err, "message too large to render");
		buf_release(&md);
		return -1;
	}
	discord_split(buf_str(&md), DISCORD_CONTENT_MAX, dsc_collect_chunk, out);
	buf_release(&md);
	return 0;
}

/* Adds the file f to message id of channel (an edit: its text and buttons
 * stay as they are). */
void dsc_channel_attach(struct discord *d, const char *channel, const char *id,
			const struct file *f, discord_rest_fn cb, void *ctx)
{
	char path[96];
	struct buf err = BUF_INIT;
	json_t *data = json_object();
	char *text;
	size_t len;

	json_object_set_new(data, "attachments", dsc_attachments(f));
	text = dsc_multipart(data, f, &len);
	snprintf(path, sizeof(path), "/channels/%s/messages/%s", channel, id);
	if (discord_rest_submit_raw(d->rest, "PATCH", path, ATTACH_CTYPE, text, len, cb, ctx,
				    &err)) {
		struct discord_rest_resp resp = { .status = 0, .error = buf_str(&err) };
		struct buf empty = BUF_INIT;

		resp.body = &empty;
		cb(&resp, ctx);
	}
	free(text);
	json_decref(data);
	buf_release(&err);
}
