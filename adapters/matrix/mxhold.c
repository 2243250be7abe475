/*
 * mxhold: encrypted events waiting for their key.  See mxhold.h.
 */
#include "adapters/matrix/mxhold.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/buf.h"
#include "util/text.h"

void mxh_init(struct mxh *h, size_t max, int64_t ttl_ms)
{
	memset(h, 0, sizeof(*h));
	h->max = max ? max : MXH_MAX;
	h->ttl_ms = ttl_ms > 0 ? ttl_ms : MXH_TTL_MS;
}

void mxh_release(struct mxh *h)
{
	size_t i;

	for (i = 0; i < h->n; i++)
		json_decref(h->v[i].ev);
	free(h->v);
	h->v = NULL;
	h->n = h->cap = 0;
}

static int find(const struct mxh *h, const char *event_id)
{
	size_t i;

	for (i = 0; i < h->n; i++)
		if (!strcmp(h->v[i].event_id, event_id))
			return (int)i;
	return -1;
}

int mxh_has(const struct mxh *h, const char *event_id)
{
	return find(h, event_id) >= 0;
}

/* Removes entry i, keeping the order; its JSON is the caller's. */
static void take(struct mxh *h, size_t i)
{
	memmove(&h->v[i], &h->v[i + 1], (h->n - i - 1) * sizeof(*h->v));
	h->n--;
}

static int fits(const char *s, size_t size)
{
	return s && strlen(s) < size;
}

/* Appends (the caller checked room for it). */
static void push(struct mxh *h, const char *room, const char *event_id, const char *session,
		 const char *sender, int64_t since, json_t *ev)
{
	struct mxh_event *e;

	if (h->n == h->cap) {
		h->cap = h->cap ? h->cap * 2 : 16;
		h->v = xrealloc(h->v, h->cap * sizeof(*h->v));
	}
	e = &h->v[h->n++];
	memset(e, 0, sizeof(*e));
	snprintf(e->room, sizeof(e->room), "%s", room);
	snprintf(e->event_id, sizeof(e->event_id), "%s", event_id);
	snprintf(e->session_id, sizeof(e->session_id), "%s", session);
	snprintf(e->sender, sizeof(e->sender), "%s", sender);
	e->since = since;
	e->ev = ev;
}

int mxh_add(struct mxh *h, const struct mx_item *c, int64_t now, struct mxh_event *dropped,
	    int *ndropped)
{
	size_t i, mine = 0, first = h->n;

	*ndropped = 0;
	if (!c->event_id[0] || find(h, c->event_id) >= 0)
		return 0;
	if (c->text_len > MXH_CIPHER_MAX || c->too_long)
		return -1;
	for (i = 0; i < h->n; i++)
		if (!strcmp(h->v[i].sender, c->sender)) {
			if (!mine++)
				first = i;
		}
	if (mine >= MXH_PER_SENDER || h->n >= h->max) {
		i = mine >= MXH_PER_SENDER ? first : 0;
		*dropped = h->v[i];
		*ndropped = 1;
		take(h, i);
	}
	push(h, c->room, c->event_id, c->session_id, c->sender, now, mx_cipher_event(c));
	return 1;
}

int mxh_remove(struct mxh *h, const char *event_id)
{
	int i = find(h, event_id);

	if (i < 0)
		return 0;
	json_decref(h->v[i].ev);
	take(h, (size_t)i);
	return 1;
}

size_t mxh_ready(const struct mxh *h, const char *room, const char *session_id,
		 struct mx_sync *out)
{
	json_t *page = json_object(), *chunk = json_array();
	struct buf err = BUF_INIT;
	char *text;
	size_t i, n = 0;

	for (i = 0; i < h->n; i++) {
		if (strcmp(h->v[i].room, room) ||
		    (session_id && strcmp(h->v[i].session_id, session_id)))
			continue;
		json_array_append(chunk, h->v[i].ev);
		n++;
	}
	json_object_set_new(page, "chunk", chunk);
	text = json_dumps(page, JSON_COMPACT);
	json_decref(page);
	if (mx_messages_parse(text, strlen(text), room, out, &err) < 0)
		n = 0;		/* a room id that does not fit: nothing was held for it */
	else
		n = out->nitems;
	free(text);
	buf_release(&err);
	return n;
}

size_t mxh_expire(struct mxh *h, int64_t now,
		  void (*cb)(void *ctx, const struct mxh_event *e), void *ctx)
{
	size_t i = 0, n = 0;

	while (i < h->n) {
		struct mxh_event e = h->v[i];

		if (now - e.since < h->ttl_ms && e.since - now < h->ttl_ms) {
			i++;
			continue;
		}
		/* older than ttl, or stamped by a clock far ahead of this one */
		take(h, i);
		if (cb)
			cb(ctx, &e);
		json_decref(e.ev);
		n++;
	}
	return n;
}

char *mxh_encode(const struct mxh *h)
{
	json_t *arr = json_array();
	char *s;
	size_t i;

	for (i = 0; i < h->n; i++)
		json_array_append_new(arr, json_pack("{s:s, s:s, s:I, s:O}", "r", h->v[i].room,
						     "s", h->v[i].session_id,
						     "t", (json_int_t)h->v[i].since,
						     "e", h->v[i].ev));
	s = json_dumps(arr, JSON_COMPACT);
	json_decref(arr);
	return s;
}

int mxh_decode(struct mxh *h, const char *text)
{
	json_t *arr = json_loads(text, 0, NULL), *v;
	size_t i;

	mxh_release(h);
	if (!json_is_array(arr)) {
		json_decref(arr);
		return -1;
	}
	json_array_foreach(arr, i, v) {
		json_t *ev = json_object_get(v, "e"), *t = json_object_get(v, "t");
		const char *room = json_string_value(json_object_get(v, "r"));
		const char *sess = json_string_value(json_object_get(v, "s"));
		const char *id = json_string_value(json_object_get(ev, "event_id"));
		const char *sender = json_string_value(json_object_get(ev, "sender"));

		if (!json_is_object(ev) || !json_is_integer(t) || !fits(room, MX_ID_SIZE) ||
		    !fits(sess, MX_KEY_SIZE) || !fits(id, MX_ID_SIZE) || !*id ||
		    !fits(sender, MX_ID_SIZE) || find(h, id) >= 0 || h->n >= h->max)
			continue;
		push(h, room, id, sess, sender, (int64_t)json_integer_value(t), json_incref(ev));
	}
	json_decref(arr);
	return 0;
}
