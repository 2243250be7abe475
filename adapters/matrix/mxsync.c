/*
 * mxsync: /sync response -> flat list of items, and the sync filter.  The
 * rules are in mxsync.h.  Everything a homeserver (or a hostile user whose
 * event it relays) could put in the body is checked before it is copied:
 * JSON types, lengths against the fixed buffers, UTF-8.
 */
#include "adapters/matrix/mxsync.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/text.h"

static int fail(struct buf *err, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static int fail(struct buf *err, const char *fmt, ...)
{
	va_list ap;

	if (err) {
		buf_reset(err);
		va_start(ap, fmt);
		buf_vprintf(err, fmt, ap);
		va_end(ap);
	}
	return -1;
}

/* ---- making a body jansson accepts ------------------------------------ */

/* The value of a \uXXXX escape at p (n bytes left), or -1. */
static long u_escape(const char *p, size_t n)
{
	long v = 0;
	size_t i;

	if (n < 6 || p[0] != '\\' || p[1] != 'u')
		return -1;
	for (i = 2; i < 6; i++) {
		char c = p[i];

		v <<= 4;
		if (c >= '0' && c <= '9')
			v |= c - '0';
		else if (c >= 'a' && c <= 'f')
			v |= c - 'a' + 10;
		else if (c >= 'A' && c <= 'F')
			v |= c - 'A' + 10;
		else
			return -1;
	}
	return v;
}

/*
 * jansson refuses a whole document for one string with malformed UTF-8, a
 * lone surrogate escape or a raw control character; one such message would
 * then stall the sync loop for good.  Inside strings, those become \u0000
 * (or \u00XX for control characters), which JSON_ALLOW_NUL loads and
 * utf8_valid() refuses, so the event is flagged or skipped like any other
 * bad text.  Outside strings nothing changes: a broken document stays broken.
 */
static void sanitize(const char *s, size_t n, struct buf *out)
{
	size_t i = 0;
	int in_str = 0;

	while (i < n) {
		unsigned char c = (unsigned char)s[i];

		if (!in_str) {
			buf_addch(out, (char)c);
			in_str = c == '"';
			i++;
		} else if (c == '"') {
			buf_addch(out, '"');
			in_str = 0;
			i++;
		} else if (c == '\\') {
			long u = u_escape(s + i, n - i);

			if (u >= 0xd800 && u <= 0xdbff) {
				long lo = u_escape(s + i + 6, n - i - 6);

				if (lo >= 0xdc00 && lo <= 0xdfff) {
					buf_add(out, s + i, 12);
					i += 12;
				} else {
					buf_addstr(out, "\\u0000");
					i += 6;
				}
			} else if (u >= 0xdc00 && u <= 0xdfff) {
				buf_addstr(out, "\\u0000");
				i += 6;
			} else {
				size_t k = i + 1 < n ? 2 : 1;

				buf_add(out, s + i, k);
				i += k;
			}
		} else if (c < 0x20) {
			buf_printf(out, "\\u%04x", c);
			i++;
		} else {
			unsigned cp;
			size_t k = utf8_decode((const unsigned char *)s + i, n - i, &cp);

			if (k) {
				buf_add(out, s + i, k);
				i += k;
			} else {
				buf_addstr(out, "\\u0000");
				i++;
			}
		}
	}
}

/* ---- field readers ---------------------------------------------------- */

/*
 * Copies the string v into dst[size]: 0, or 1 when v is absent or null (dst
 * ""), or -1 when v is not a string, too long or not valid UTF-8 (dst "").
 */
static int copy_str(const json_t *v, char *dst, size_t size)
{
	size_t n;

	dst[0] = '\0';
	if (!v || json_is_null(v))
		return 1;
	if (!json_is_string(v))
		return -1;
	n = json_string_length(v);
	if (n >= size || !utf8_valid(json_string_value(v), n))
		return -1;
	memcpy(dst, json_string_value(v), n);
	dst[n] = '\0';
	return 0;
}

/* A display name: valid UTF-8 or "", cut at a code point boundary. */
static void copy_name(const json_t *v, char *dst, size_t size)
{
	const char *s = json_string_value(v);
	size_t n = json_string_length(v);

	dst[0] = '\0';
	if (!s || !utf8_valid(s, n))
		return;
	if (n >= size) {
		n = size - 1;
		while (n && ((unsigned char)s[n] & 0xc0) == 0x80)
			n--;
	}
	memcpy(dst, s, n);
	dst[n] = '\0';
}

static const json_t *get_obj(const json_t *o, const char *key)
{
	const json_t *v = json_object_get(o, key);

	return json_is_object(v) ? v : NULL;
}

static const json_t *get_events(const json_t *o, const char *key)
{
	const json_t *v = json_object_get(get_obj(o, key), "events");

	return json_is_array(v) ? v : NULL;
}

static int str_is(const json_t *v, const char *s)
{
	return json_is_string(v) && !strcmp(json_string_value(v), s) &&
	       json_string_length(v) == strlen(s);
}

/* ---- items ------------------------------------------------------------ */

struct items {
	struct mx_sync *s;
	size_t cap;
};

static struct mx_item *item_new(struct items *it, enum mx_item_kind kind, const char *room)
{
	struct mx_sync *s = it->s;
	struct mx_item *i;

	if (s->nitems == it->cap) {
		it->cap = it->cap ? it->cap * 2 : 16;
		s->items = xrealloc(s->items, it->cap * sizeof(*s->items));
	}
	i = &s->items[s->nitems++];
	memset(i, 0, sizeof(*i));
	i->kind = kind;
	memcpy(i->room, room, strlen(room) + 1);
	return i;
}

/* Drops the item just added (its event turned out to be unusable). */
static void item_drop(struct items *it)
{
	it->s->nitems--;
}

static void read_message(struct mx_item *i, const json_t *content)
{
	const json_t *body = json_object_get(content, "body");
	const json_t *rel = get_obj(content, "m.relates_to");

	copy_str(json_object_get(content, "msgtype"), i->msgtype, sizeof(i->msgtype));
	if (json_is_string(body)) {
		size_t n = json_string_length(body);

		if (n > MX_TEXT_SIZE - 1) {
			i->too_long = 1;
		} else if (!utf8_valid(json_string_value(body), n)) {
			i->bad_utf8 = 1;
		} else {
			memcpy(i->text, json_string_value(body), n);
			i->text[n] = '\0';
			i->text_len = n;
		}
	}
	i->is_edit = str_is(json_object_get(rel, "rel_type"), "m.replace");
}

/* 0 when the member content is usable. */
static int read_member(struct mx_item *i, const json_t *ev, const json_t *content)
{
	if (copy_str(json_object_get(ev, "state_key"), i->state_key, sizeof(i->state_key)) ||
	    !i->state_key[0])
		return -1;
	if (copy_str(json_object_get(content, "membership"), i->membership,
		     sizeof(i->membership)) || !i->membership[0])
		return -1;
	copy_name(json_object_get(content, "displayname"), i->displayname,
		  sizeof(i->displayname));
	i->is_direct = json_is_true(json_object_get(content, "is_direct"));
	return 0;
}

/* One event of a joined room's state or timeline. */
static void room_event(struct items *it, const char *room, const json_t *ev, int timeline)
{
	const json_t *type = json_object_get(ev, "type");
	const json_t *content = get_obj(ev, "content");
	const json_t *ts = json_object_get(ev, "origin_server_ts");
	enum mx_item_kind kind;
	struct mx_item *i;

	if (!content || !json_is_string(type))
		return;
	if (timeline && str_is(type, "m.room.message"))
		kind = MX_MESSAGE;
	else if (str_is(type, "m.room.member"))
		kind = MX_MEMBER;
	else if (str_is(type, "m.room.encryption"))
		kind = MX_ENCRYPTED;
	else
		return;
	i = item_new(it, kind, room);
	i->from_timeline = timeline;
	if (copy_str(json_object_get(ev, "sender"), i->sender, sizeof(i->sender)) < 0 ||
	    copy_str(json_object_get(ev, "event_id"), i->event_id, sizeof(i->event_id)) < 0)
		goto drop;
	if (json_is_integer(ts))
		i->ts = (int64_t)json_integer_value(ts);
	switch (kind) {
	case MX_MESSAGE:
		if (!i->sender[0])
			goto drop;	/* nobody to answer */
		read_message(i, content);
		break;
	case MX_MEMBER:
		if (read_member(i, ev, content))
			goto drop;
		break;
	default:
		break;
	}
	return;
drop:
	item_drop(it);
}

static int room_id_ok(const char *id)
{
	size_t n = strlen(id);

	return n > 0 && n < MX_ID_SIZE && utf8_valid(id, n);
}

static void joined_room(struct items *it, const char *room, const json_t *r)
{
	const json_t *tl = get_obj(r, "timeline");
	const json_t *evs, *ev;
	size_t k;

	evs = get_events(r, "state");
	json_array_foreach(evs, k, ev)
		room_event(it, room, ev, 0);
	if (json_is_true(json_object_get(tl, "limited"))) {
		struct mx_item *i = item_new(it, MX_LIMITED, room);

		i->from_timeline = 1;
		copy_str(json_object_get(tl, "prev_batch"), i->prev_batch, sizeof(i->prev_batch));
		memcpy(i->text, i->prev_batch, strlen(i->prev_batch) + 1);
		i->text_len = strlen(i->text);
	}
	evs = get_events(r, "timeline");
	json_array_foreach(evs, k, ev)
		room_event(it, room, ev, 1);
}

static void invited_room(struct items *it, const char *room, const json_t *r)
{
	const json_t *evs = get_events(r, "invite_state"), *ev;
	struct mx_item *i = item_new(it, MX_INVITE, room);
	size_t k;

	/* the invite itself: the first member event with membership "invite" */
	json_array_foreach(evs, k, ev) {
		const json_t *content = get_obj(ev, "content");
		struct mx_item tmp;

		if (!str_is(json_object_get(ev, "type"), "m.room.member") || !content ||
		    !str_is(json_object_get(content, "membership"), "invite"))
			continue;
		memset(&tmp, 0, sizeof(tmp));
		if (read_member(&tmp, ev, content) ||
		    copy_str(json_object_get(ev, "sender"), i->sender, sizeof(i->sender)) < 0)
			continue;
		memcpy(i->state_key, tmp.state_key, sizeof(i->state_key));
		memcpy(i->membership, tmp.membership, sizeof(i->membership));
		i->is_direct = tmp.is_direct;
		copy_str(json_object_get(ev, "event_id"), i->event_id, sizeof(i->event_id));
		if (json_is_integer(json_object_get(ev, "origin_server_ts")))
			i->ts = (int64_t)json_integer_value(json_object_get(ev, "origin_server_ts"));
		break;
	}
	/* the inviter's display name, from their own member event */
	if (!i->sender[0])
		return;
	json_array_foreach(evs, k, ev) {
		const json_t *content = get_obj(ev, "content");

		if (str_is(json_object_get(ev, "type"), "m.room.member") && content &&
		    str_is(json_object_get(ev, "state_key"), i->sender)) {
			copy_name(json_object_get(content, "displayname"), i->displayname,
				  sizeof(i->displayname));
			break;
		}
	}
}

int mx_sync_parse(const char *body, size_t len, struct mx_sync *out, struct buf *err)
{
	struct items it = { out, 0 };
	json_error_t je;
	json_t *root;
	const json_t *rooms, *section, *r, *evs, *ev;
	const char *room;
	size_t k;

	memset(out, 0, sizeof(*out));
	root = json_loadb(body, len, JSON_ALLOW_NUL, &je);
	if (!root) {
		struct buf clean = BUF_INIT;

		sanitize(body, len, &clean);
		if (!clean.toobig)
			root = json_loadb(buf_str(&clean), clean.len, JSON_ALLOW_NUL, NULL);
		buf_release(&clean);
	}
	if (!root)
		return fail(err, "sync: malformed JSON: %s (line %d)", je.text, je.line);
	if (!json_is_object(root)) {
		json_decref(root);
		return fail(err, "sync: response is not a JSON object");
	}
	if (copy_str(json_object_get(root, "next_batch"), out->next_batch,
		     sizeof(out->next_batch)) || !out->next_batch[0]) {
		json_decref(root);
		return fail(err, "sync: missing or malformed next_batch");
	}

	rooms = get_obj(root, "rooms");
	section = get_obj(rooms, "join");
	json_object_foreach((json_t *)section, room, r)
		if (room_id_ok(room) && json_is_object(r))
			joined_room(&it, room, r);
	section = get_obj(rooms, "invite");
	json_object_foreach((json_t *)section, room, r)
		if (room_id_ok(room) && json_is_object(r))
			invited_room(&it, room, r);
	section = get_obj(rooms, "leave");
	json_object_foreach((json_t *)section, room, r)
		if (room_id_ok(room) && json_is_object(r))
			item_new(&it, MX_LEFT, room);

	evs = get_events(root, "account_data");
	json_array_foreach(evs, k, ev) {
		json_t *content = json_object_get(ev, "content");

		if (str_is(json_object_get(ev, "type"), "m.direct") && json_is_object(content)) {
			json_decref(out->direct);
			out->direct = json_incref(content);
		}
	}
	json_decref(root);
	return 0;
}

void mx_sync_release(struct mx_sync *s)
{
	free(s->items);
	json_decref(s->direct);
	memset(s, 0, sizeof(*s));
}

/* ---- filter ----------------------------------------------------------- */

static json_t *none(void)
{
	return json_pack("{s:[s]}", "not_types", "*");
}

json_t *mx_sync_filter(int limit)
{
	if (limit < 1)
		limit = 1;
	return json_pack("{s:o, s:o, s:{s:o, s:o, s:{s:[s,s], s:b}, s:{s:[s,s,s], s:i}}}",
			 "presence", none(),
			 "account_data", json_pack("{s:[s]}", "types", "m.direct"),
			 "room",
			 "ephemeral", none(),
			 "account_data", none(),
			 "state", "types", "m.room.member", "m.room.encryption",
			 "lazy_load_members", 0,
			 "timeline", "types", "m.room.message", "m.room.member",
			 "m.room.encryption", "limit", limit);
}
