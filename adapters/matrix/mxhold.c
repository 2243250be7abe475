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
	free(h->rate);
	h->rate = NULL;
	h->nrate = h->ratecap = 0;
	free(h->told);
	h->told = NULL;
	h->ntold = h->toldcap = 0;
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

/* Inserts at i (the caller checked room for it); returns the entry. */
static struct mxh_event *insert(struct mxh *h, size_t i, const char *room, const char *event_id,
				const char *session, const char *sender_key, const char *sender,
				int64_t since, json_t *ev)
{
	struct mxh_event *e;

	if (h->n == h->cap) {
		h->cap = h->cap ? h->cap * 2 : 16;
		h->v = xrealloc(h->v, h->cap * sizeof(*h->v));
	}
	memmove(&h->v[i + 1], &h->v[i], (h->n - i) * sizeof(*h->v));
	h->n++;
	e = &h->v[i];
	memset(e, 0, sizeof(*e));
	snprintf(e->room, sizeof(e->room), "%s", room);
	snprintf(e->event_id, sizeof(e->event_id), "%s", event_id);
	snprintf(e->session_id, sizeof(e->session_id), "%s", session);
	snprintf(e->sender_key, sizeof(e->sender_key), "%s", sender_key);
	snprintf(e->sender, sizeof(e->sender), "%s", sender);
	e->since = since;
	e->ev = ev;
	return e;
}

/* The oldest event of sender (in room when room is not NULL), or -1. */
static int oldest_of(const struct mxh *h, const char *sender, const char *room)
{
	size_t i;

	for (i = 0; i < h->n; i++)
		if (!strcmp(h->v[i].sender, sender) && (!room || !strcmp(h->v[i].room, room)))
			return (int)i;
	return -1;
}

/*
 * The event that gives way in a full room: the oldest of whoever holds the
 * most there (a flood is its sender's loss, not the lone command of a
 * player), the most recent sender on a tie.
 */
static int room_victim(const struct mxh *h, const char *room)
{
	size_t i, j, best_n = 0, best_last = 0;
	const char *best = NULL;

	for (i = 0; i < h->n; i++) {
		size_t n = 0, last = 0;

		if (strcmp(h->v[i].room, room))
			continue;
		for (j = 0; j < i; j++)		/* counted already at its first event */
			if (!strcmp(h->v[j].room, room) && !strcmp(h->v[j].sender, h->v[i].sender))
				break;
		if (j < i)
			continue;
		for (j = i; j < h->n; j++)
			if (!strcmp(h->v[j].room, room) && !strcmp(h->v[j].sender, h->v[i].sender)) {
				n++;
				last = j;
			}
		if (n > best_n || (n == best_n && last > best_last)) {
			best = h->v[i].sender;
			best_n = n;
			best_last = last;
		}
	}
	return best ? oldest_of(h, best, room) : -1;
}

enum mxh_added mxh_add(struct mxh *h, const struct mx_item *c, int64_t now,
		       struct mxh_event *dropped, int *ndropped,
		       const struct mxh_event **added)
{
	size_t i, mine = 0, inroom = 0;
	int victim = -1;

	*ndropped = 0;
	if (added)
		*added = NULL;
	if (!c->event_id[0] || find(h, c->event_id) >= 0)
		return MXH_KNOWN;
	if (c->text_len > MXH_CIPHER_MAX || c->too_long)
		return MXH_TOO_LONG;
	for (i = 0; i < h->n; i++) {
		mine += !strcmp(h->v[i].sender, c->sender);
		inroom += !strcmp(h->v[i].room, c->room);
	}
	if (mine >= MXH_PER_SENDER)
		victim = oldest_of(h, c->sender, NULL);
	else if (inroom >= MXH_PER_ROOM)
		victim = room_victim(h, c->room);
	else if (h->n >= h->max) {
		/* only the sender's own may give way: the oldest of all may be
		 * a player's command that a stranger's flood would push out */
		if (!mine)
			return MXH_FULL;
		victim = oldest_of(h, c->sender, NULL);
	}
	if (victim >= 0) {
		*dropped = h->v[victim];
		*ndropped = 1;
		take(h, (size_t)victim);
	}
	i = h->n;
	while (i && h->v[i - 1].since > now)	/* stay in order by age */
		i--;
	{
		const struct mxh_event *e = insert(h, i, c->room, c->event_id, c->session_id,
						   c->sender_key, c->sender, now,
						   mx_cipher_event(c));

		if (added)
			*added = e;
	}
	return MXH_ADDED;
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

/* ---- the rate of undecryptable events, and telling their senders ---- */

/*
 * A generic cell rate: full is when the sender's bucket is full again; a
 * token is there while full - now <= (burst - 1) * interval.  A bucket
 * stamped by a clock far ahead of this one counts as full.
 */
int mxh_rate(struct mxh *h, const char *sender, int64_t now, int *log_it)
{
	const int64_t span = (int64_t)(MXH_RATE_BURST - 1) * MXH_RATE_MS;
	struct mxh_rate *r = NULL;
	size_t i, keep;

	*log_it = 0;
	for (i = 0; i < h->nrate; i++)
		if (!strcmp(h->rate[i].sender, sender)) {
			r = &h->rate[i];
			break;
		}
	if (!r) {
		if (h->nrate >= MXH_TRACK_MAX) {
			/* full buckets are the same as none; else the fullest goes */
			size_t full = 0;

			for (i = keep = 0; i < h->nrate; i++) {
				if (h->rate[i].full <= now && h->rate[i].quiet_until <= now)
					continue;
				h->rate[keep++] = h->rate[i];
			}
			h->nrate = keep;
			if (h->nrate >= MXH_TRACK_MAX) {
				for (i = 1; i < h->nrate; i++)
					if (h->rate[i].full < h->rate[full].full)
						full = i;
				h->rate[full] = h->rate[--h->nrate];
			}
		}
		if (h->nrate == h->ratecap) {
			h->ratecap = h->ratecap ? h->ratecap * 2 : 8;
			h->rate = xrealloc(h->rate, h->ratecap * sizeof(*h->rate));
		}
		r = &h->rate[h->nrate++];
		memset(r, 0, sizeof(*r));
		snprintf(r->sender, sizeof(r->sender), "%s", sender);
		r->full = now;
	}
	if (r->full < now || r->full - now > span + MXH_RATE_MS)
		r->full = now;
	if (r->full - now > span) {
		if (r->quiet_until <= now || r->quiet_until - now > MXH_RATE_LOG_MS) {
			*log_it = 1;
			r->quiet_until = now + MXH_RATE_LOG_MS;
		}
		return 0;
	}
	r->full += MXH_RATE_MS;
	return 1;
}

int mxh_tell(struct mxh *h, const char *room, const char *sender, int64_t now)
{
	struct mxh_told *t = NULL;
	size_t i, keep;

	for (i = 0; i < h->ntold; i++)
		if (!strcmp(h->told[i].sender, sender) && !strcmp(h->told[i].room, room)) {
			t = &h->told[i];
			break;
		}
	if (t) {
		if (now - t->at < MXH_TELL_MS && t->at - now < MXH_TELL_MS)
			return 0;
		t->at = now;
		return 1;
	}
	if (h->ntold >= MXH_TRACK_MAX) {
		size_t old = 0;

		for (i = keep = 0; i < h->ntold; i++) {
			int64_t at = h->told[i].at;

			if (now - at >= MXH_TELL_MS || at - now >= MXH_TELL_MS)
				continue;
			h->told[keep++] = h->told[i];
		}
		h->ntold = keep;
		if (h->ntold >= MXH_TRACK_MAX) {
			for (i = 1; i < h->ntold; i++)
				if (h->told[i].at < h->told[old].at)
					old = i;
			h->told[old] = h->told[--h->ntold];
		}
	}
	if (h->ntold == h->toldcap) {
		h->toldcap = h->toldcap ? h->toldcap * 2 : 8;
		h->told = xrealloc(h->told, h->toldcap * sizeof(*h->told));
	}
	t = &h->told[h->ntold++];
	memset(t, 0, sizeof(*t));
	snprintf(t->room, sizeof(t->room), "%s", room);
	snprintf(t->sender, sizeof(t->sender), "%s", sender);
	t->at = now;
	return 1;
}

/* ---- reading back ---- */

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

/* ---- the store's rows ---- */

char *mxh_row(const struct mxh_event *e)
{
	json_t *j = json_pack("{s:s, s:s, s:s, s:I, s:O}", "r", e->room, "s", e->session_id,
			      "k", e->sender_key, "t", (json_int_t)e->since, "e", e->ev);
	char *s = json_dumps(j, JSON_COMPACT);

	json_decref(j);
	return s;
}

/* One entry (a row, or an entry of the old list) back in; see mxh_restore. */
static enum mxh_added restore(struct mxh *h, const char *event_id, const json_t *v)
{
	json_t *ev = json_object_get(v, "e"), *t = json_object_get(v, "t");
	const char *room = json_string_value(json_object_get(v, "r"));
	const char *sess = json_string_value(json_object_get(v, "s"));
	const char *key = json_string_value(json_object_get(v, "k"));
	const char *id = json_string_value(json_object_get(ev, "event_id"));
	const char *sender = json_string_value(json_object_get(ev, "sender"));
	int64_t since;
	size_t i;

	if (!key)	/* the old list did not say: the event does */
		key = json_string_value(json_object_get(json_object_get(ev, "content"),
							"sender_key"));
	if (!key)
		key = "";
	if (!json_is_object(ev) || !json_is_integer(t) || !fits(room, MX_ID_SIZE) ||
	    !fits(sess, MX_KEY_SIZE) || !fits(id, MX_ID_SIZE) || !*id ||
	    !fits(sender, MX_ID_SIZE) || !fits(key, MX_KEY_SIZE) ||
	    (event_id && strcmp(event_id, id)))
		return MXH_BAD;
	if (find(h, id) >= 0)
		return MXH_KNOWN;
	if (h->n >= h->max)
		return MXH_FULL;
	since = (int64_t)json_integer_value(t);
	for (i = h->n; i && h->v[i - 1].since > since; i--)
		;
	insert(h, i, room, id, sess, key, sender, since, json_incref(ev));
	return MXH_ADDED;
}

enum mxh_added mxh_restore(struct mxh *h, const char *event_id, const char *text)
{
	json_t *j = json_loads(text, 0, NULL);
	enum mxh_added r = json_is_object(j) ? restore(h, event_id, j) : MXH_BAD;

	json_decref(j);
	return r;
}

int mxh_restore_list(struct mxh *h, const char *text,
		     void (*cb)(void *ctx, const struct mxh_event *e), void *ctx)
{
	json_t *arr = json_loads(text, 0, NULL), *v;
	size_t i;

	if (!json_is_array(arr)) {
		json_decref(arr);
		return -1;
	}
	json_array_foreach(arr, i, v) {
		const char *id = json_string_value(json_object_get(json_object_get(v, "e"),
								   "event_id"));
		int k;

		if (!json_is_object(v) || restore(h, NULL, v) != MXH_ADDED)
			continue;
		k = find(h, id);
		if (cb && k >= 0)
			cb(ctx, &h->v[k]);
	}
	json_decref(arr);
	return 0;
}
