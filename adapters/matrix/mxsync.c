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

/* ---- the arena: the items' strings ------------------------------------ */

#define BLOCK_SIZE 16384

struct mx_block {
	struct mx_block *next;
	size_t used, cap;
	char data[];
};

/* A copy of n bytes of p (NUL added) that lives as long as s. */
static const char *arena_dup(struct mx_sync *s, const char *p, size_t n)
{
	struct mx_block *b = s->arena;
	char *d;

	if (!b || b->cap - b->used < n + 1) {
		size_t cap = n + 1 > BLOCK_SIZE ? n + 1 : BLOCK_SIZE;

		b = xmalloc(sizeof(*b) + cap);
		b->cap = cap;
		b->used = 0;
		/* a string of its own size goes behind the current block, so
		 * the room left in that one is still used */
		if (s->arena && cap > BLOCK_SIZE) {
			b->next = s->arena->next;
			s->arena->next = b;
		} else {
			b->next = s->arena;
			s->arena = b;
		}
	}
	d = b->data + b->used;
	memcpy(d, p, n);
	d[n] = '\0';
	b->used += n + 1;
	return d;
}

/* ---- field readers ---------------------------------------------------- */

/*
 * Copies the string v, if shorter than size bytes and valid UTF-8, into the
 * arena: *dst is the copy and 0 is returned; 1 when v is absent or null
 * (*dst ""); -1 when v is not a string, too long or not valid UTF-8 (*dst "").
 */
static int copy_str(struct mx_sync *s, const json_t *v, size_t size, const char **dst)
{
	size_t n;

	*dst = "";
	if (!v || json_is_null(v))
		return 1;
	if (!json_is_string(v))
		return -1;
	n = json_string_length(v);
	if (n >= size || !utf8_valid(json_string_value(v), n))
		return -1;
	*dst = arena_dup(s, json_string_value(v), n);
	return 0;
}

/* A display name: valid UTF-8 or "", cut at a code point boundary. */
static const char *copy_name(struct mx_sync *s, const json_t *v)
{
	const char *p = json_string_value(v);
	size_t n = json_string_length(v);

	if (!p || !utf8_valid(p, n))
		return "";
	if (n >= MX_NAME_SIZE) {
		n = MX_NAME_SIZE - 1;
		while (n && ((unsigned char)p[n] & 0xc0) == 0x80)
			n--;
	}
	return arena_dup(s, p, n);
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

/* A member count: a non-negative integer, else -1. */
static long count_of(const json_t *v)
{
	json_int_t n;

	if (!json_is_integer(v))
		return -1;
	n = json_integer_value(v);
	return n >= 0 && n <= 100000000 ? (long)n : -1;
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
	i->room = room;
	i->sender = i->event_id = i->msgtype = i->text = i->state_key = "";
	i->membership = i->prev_membership = i->displayname = i->prev_batch = "";
	i->algorithm = i->sender_key = i->session_id = i->device_id = "";
	i->joined = i->invited = -1;
	i->rotation_ms = -1;
	i->rotation_msgs = -1;
	return i;
}

/* Drops the item just added (its event turned out to be unusable). */
static void item_drop(struct items *it)
{
	it->s->nitems--;
}

static void read_message(struct mx_sync *s, struct mx_item *i, const json_t *content)
{
	const json_t *body = json_object_get(content, "body");
	const json_t *rel = get_obj(content, "m.relates_to");

	copy_str(s, json_object_get(content, "msgtype"), MX_TYPE_SIZE, &i->msgtype);
	if (json_is_string(body)) {
		size_t n = json_string_length(body);

		if (n > MX_TEXT_SIZE - 1) {
			i->too_long = 1;
		} else if (!utf8_valid(json_string_value(body), n)) {
			i->bad_utf8 = 1;
		} else {
			i->text = arena_dup(s, json_string_value(body), n);
			i->text_len = n;
		}
	}
	i->is_edit = str_is(json_object_get(rel, "rel_type"), "m.replace");
}

/* A positive integer, else -1. */
static int64_t positive_of(const json_t *v)
{
	json_int_t n;

	if (!json_is_integer(v))
		return -1;
	n = json_integer_value(v);
	return n > 0 ? (int64_t)n : -1;
}

static void read_encryption(struct mx_sync *s, struct mx_item *i, const json_t *content)
{
	int64_t msgs = positive_of(json_object_get(content, "rotation_period_msgs"));

	copy_str(s, json_object_get(content, "algorithm"), MX_TYPE_SIZE, &i->algorithm);
	i->rotation_ms = positive_of(json_object_get(content, "rotation_period_ms"));
	i->rotation_msgs = msgs > 0 && msgs <= 100000000 ? (long)msgs : -1;
}

/* An m.room.encrypted's cleartext: what names the session, the ciphertext
 * (checked as text: base64 is ASCII), and whether it is an edit. */
static void read_cipher(struct mx_sync *s, struct mx_item *i, const json_t *content)
{
	const json_t *ct = json_object_get(content, "ciphertext");
	const json_t *rel = get_obj(content, "m.relates_to");

	copy_str(s, json_object_get(content, "algorithm"), MX_TYPE_SIZE, &i->algorithm);
	copy_str(s, json_object_get(content, "sender_key"), MX_KEY_SIZE, &i->sender_key);
	copy_str(s, json_object_get(content, "session_id"), MX_KEY_SIZE, &i->session_id);
	copy_str(s, json_object_get(content, "device_id"), MX_ID_SIZE, &i->device_id);
	if (json_is_string(ct)) {
		size_t n = json_string_length(ct);

		if (n > MX_CIPHER_SIZE - 1) {
			i->too_long = 1;
		} else if (!utf8_valid(json_string_value(ct), n)) {
			i->bad_utf8 = 1;
		} else {
			i->text = arena_dup(s, json_string_value(ct), n);
			i->text_len = n;
		}
	}
	i->is_edit = str_is(json_object_get(rel, "rel_type"), "m.replace");
}

/* 0 when the m.space.parent names a space: a room id as its state key
 * and servers to reach it by (`via`; without them the parent is gone). */
static int read_space_parent(struct mx_sync *s, struct mx_item *i, const json_t *ev,
			     const json_t *content)
{
	const json_t *via = json_object_get(content, "via");

	if (copy_str(s, json_object_get(ev, "state_key"), MX_ID_SIZE, &i->state_key) ||
	    i->state_key[0] != '!' || !strchr(i->state_key, ':'))
		return -1;
	return json_is_array(via) && json_array_size(via) > 0 ? 0 : -1;
}

/* 0 when the member content is usable. */
static int read_member(struct mx_sync *s, struct mx_item *i, const json_t *ev,
		       const json_t *content)
{
	const json_t *prev = get_obj(get_obj(ev, "unsigned"), "prev_content");

	if (copy_str(s, json_object_get(ev, "state_key"), MX_ID_SIZE, &i->state_key) ||
	    !i->state_key[0])
		return -1;
	if (copy_str(s, json_object_get(content, "membership"), MX_MEMBERSHIP_SIZE,
		     &i->membership) ||
	    !i->membership[0])
		return -1;
	copy_str(s, json_object_get(prev, "membership"), MX_MEMBERSHIP_SIZE, &i->prev_membership);
	i->displayname = copy_name(s, json_object_get(content, "displayname"));
	i->is_direct = json_is_true(json_object_get(content, "is_direct"));
	return 0;
}

/* One event of a joined room's state or timeline. */
static void room_event(struct items *it, const char *room, const json_t *ev, int timeline)
{
	struct mx_sync *s = it->s;
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
	else if (timeline && str_is(type, "m.room.encrypted"))
		kind = MX_CIPHER;
	else if (str_is(type, "m.space.parent"))
		kind = MX_SPACE_PARENT;
	else
		return;
	i = item_new(it, kind, room);
	i->from_timeline = timeline;
	if (copy_str(s, json_object_get(ev, "sender"), MX_ID_SIZE, &i->sender) < 0 ||
	    copy_str(s, json_object_get(ev, "event_id"), MX_ID_SIZE, &i->event_id) < 0)
		goto drop;
	if (json_is_integer(ts))
		i->ts = (int64_t)json_integer_value(ts);
	switch (kind) {
	case MX_MESSAGE:
		if (!i->sender[0])
			goto drop;	/* nobody to answer */
		read_message(s, i, content);
		break;
	case MX_MEMBER:
		if (read_member(s, i, ev, content))
			goto drop;
		break;
	case MX_ENCRYPTED:
		read_encryption(s, i, content);
		break;
	case MX_CIPHER:
		if (!i->sender[0])
			goto drop;
		read_cipher(s, i, content);
		break;
	case MX_SPACE_PARENT:
		if (read_space_parent(s, i, ev, content))
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
	const json_t *sum = get_obj(r, "summary");
	const json_t *evs, *ev;
	size_t k;

	evs = get_events(r, "state");
	json_array_foreach(evs, k, ev)
		room_event(it, room, ev, 0);
	if (json_is_true(json_object_get(tl, "limited"))) {
		struct mx_item *i = item_new(it, MX_LIMITED, room);

		i->from_timeline = 1;
		copy_str(it->s, json_object_get(tl, "prev_batch"), MX_ID_SIZE, &i->prev_batch);
		i->text = i->prev_batch;
		i->text_len = strlen(i->text);
	}
	evs = get_events(r, "timeline");
	json_array_foreach(evs, k, ev)
		room_event(it, room, ev, 1);
	if (sum) {
		long j = count_of(json_object_get(sum, "m.joined_member_count"));
		long v = count_of(json_object_get(sum, "m.invited_member_count"));

		if (j >= 0 || v >= 0) {
			struct mx_item *i = item_new(it, MX_SUMMARY, room);

			i->joined = j;
			i->invited = v;
		}
	}
}

/*
 * The invite of room: only the member event whose state_key is me is the
 * invite (the homeserver checked it); the rest of the stripped state is
 * whatever the inviting server said, display data at best.
 */
static void invited_room(struct items *it, const char *room, const json_t *r, const char *me)
{
	struct mx_sync *s = it->s;
	const json_t *evs = get_events(r, "invite_state"), *ev;
	struct mx_item *i = item_new(it, MX_INVITE, room);
	int found = 0;
	size_t k;

	json_array_foreach(evs, k, ev) {
		const json_t *content = get_obj(ev, "content");
		const json_t *ts = json_object_get(ev, "origin_server_ts");
		const char *sender;

		if (!me || !*me || !content ||
		    !str_is(json_object_get(ev, "type"), "m.room.member") ||
		    !str_is(json_object_get(ev, "state_key"), me) ||
		    !str_is(json_object_get(content, "membership"), "invite"))
			continue;
		if (copy_str(s, json_object_get(ev, "sender"), MX_ID_SIZE, &sender) || !*sender) {
			i->forged = 1;	/* an invite of us by nobody readable */
			continue;
		}
		if (found) {
			if (strcmp(sender, i->sender))
				i->forged = 1;
			i->is_direct &= json_is_true(json_object_get(content, "is_direct"));
			continue;
		}
		found = 1;
		i->sender = sender;
		i->state_key = arena_dup(s, me, strlen(me));
		i->membership = "invite";
		i->is_direct = json_is_true(json_object_get(content, "is_direct"));
		copy_str(s, json_object_get(ev, "event_id"), MX_ID_SIZE, &i->event_id);
		if (json_is_integer(ts))
			i->ts = (int64_t)json_integer_value(ts);
	}
	if (!found)
		return;
	/* the inviter's display name, from their own member event */
	json_array_foreach(evs, k, ev) {
		const json_t *content = get_obj(ev, "content");

		if (str_is(json_object_get(ev, "type"), "m.room.member") && content &&
		    str_is(json_object_get(ev, "state_key"), i->sender)) {
			i->displayname = copy_name(s, json_object_get(content, "displayname"));
			break;
		}
	}
}

/* Loads body; a document jansson refuses for one bad string is cleaned
 * first (see sanitize()).  NULL with err filled when it is not JSON. */
static json_t *load(const char *body, size_t len, const char *what, struct buf *err)
{
	json_error_t je;
	json_t *root = json_loadb(body, len, JSON_ALLOW_NUL, &je);

	if (!root) {
		struct buf clean = BUF_INIT;

		sanitize(body, len, &clean);
		if (!clean.toobig)
			root = json_loadb(buf_str(&clean), clean.len, JSON_ALLOW_NUL, NULL);
		buf_release(&clean);
	}
	if (!root) {
		fail(err, "%s: malformed JSON: %s (line %d)", what, je.text, je.line);
		return NULL;
	}
	if (!json_is_object(root)) {
		json_decref(root);
		fail(err, "%s: response is not a JSON object", what);
		return NULL;
	}
	return root;
}

static void sync_init(struct mx_sync *out)
{
	memset(out, 0, sizeof(*out));
	out->otk_count = -1;
	out->fallback_unused = -1;
}

/* A copy of the room id key in the arena, or NULL when it is not one. */
static const char *room_key(struct mx_sync *s, const char *room)
{
	return room_id_ok(room) ? arena_dup(s, room, strlen(room)) : NULL;
}

/* An array of user ids (device_lists.changed, .left) into the arena. */
static size_t read_users(struct mx_sync *s, const json_t *arr, const char ***out)
{
	const json_t *v;
	size_t k, n = 0;

	*out = NULL;
	if (!json_is_array(arr) || !json_array_size(arr))
		return 0;
	*out = xcalloc(json_array_size(arr), sizeof(**out));
	json_array_foreach(arr, k, v) {
		const char *u;

		if (!copy_str(s, v, MX_ID_SIZE, &u) && *u)
			(*out)[n++] = u;
	}
	return n;
}

/* The end-to-end encryption parts of a sync response. */
static void read_e2e(struct mx_sync *s, const json_t *root)
{
	const json_t *dl = get_obj(root, "device_lists");
	const json_t *counts = get_obj(root, "device_one_time_keys_count");
	const json_t *fb = json_object_get(root, "device_unused_fallback_key_types");
	const json_t *evs = get_events(root, "to_device"), *v;
	size_t k;

	if (evs)
		s->to_device = json_incref((json_t *)evs);
	s->ndl_changed = read_users(s, json_object_get(dl, "changed"), &s->dl_changed);
	s->ndl_left = read_users(s, json_object_get(dl, "left"), &s->dl_left);
	if (counts) {
		const json_t *c = json_object_get(counts, "signed_curve25519");

		/* Synapse leaves the algorithm out when none is left */
		s->otk_count = c ? count_of(c) : 0;
	}
	if (json_is_array(fb)) {
		s->fallback_unused = 0;
		json_array_foreach(fb, k, v)
			if (str_is(v, "signed_curve25519"))
				s->fallback_unused = 1;
	}
}

int mx_sync_parse(const char *body, size_t len, const char *me, struct mx_sync *out,
		  struct buf *err)
{
	struct items it = { out, 0 };
	json_t *root;
	const json_t *rooms, *section, *r, *evs, *ev, *nb;
	const char *room, *id;
	size_t k, n;

	sync_init(out);
	root = load(body, len, "sync", err);
	if (!root)
		return -1;
	nb = json_object_get(root, "next_batch");
	n = json_string_length(nb);
	if (!json_is_string(nb) || !n || n >= sizeof(out->next_batch) ||
	    !utf8_valid(json_string_value(nb), n)) {
		json_decref(root);
		return fail(err, "sync: missing or malformed next_batch");
	}
	memcpy(out->next_batch, json_string_value(nb), n + 1);

	rooms = get_obj(root, "rooms");
	section = get_obj(rooms, "join");
	json_object_foreach((json_t *)section, room, r)
		if (json_is_object(r) && (id = room_key(out, room)))
			joined_room(&it, id, r);
	section = get_obj(rooms, "invite");
	json_object_foreach((json_t *)section, room, r)
		if (json_is_object(r) && (id = room_key(out, room)))
			invited_room(&it, id, r, me);
	section = get_obj(rooms, "leave");
	json_object_foreach((json_t *)section, room, r)
		if (json_is_object(r) && (id = room_key(out, room)))
			item_new(&it, MX_LEFT, id);

	evs = get_events(root, "account_data");
	json_array_foreach(evs, k, ev) {
		json_t *content = json_object_get(ev, "content");

		if (str_is(json_object_get(ev, "type"), "m.direct") && json_is_object(content)) {
			json_decref(out->direct);
			out->direct = json_incref(content);
		}
	}
	read_e2e(out, root);
	json_decref(root);
	return 0;
}

int mx_invite_decode(const char *body, size_t len, const char *room, const char *me,
		     struct mx_sync *out, struct buf *err)
{
	struct items it = { out, 0 };
	json_t *root;
	const char *id;

	sync_init(out);
	if (!room || !room_id_ok(room))
		return fail(err, "invite: not a room id");
	root = load(body, len, "invite", err);
	if (!root)
		return -1;
	id = room_key(out, room);
	invited_room(&it, id, root, me);
	json_decref(root);
	return 0;
}

int mx_messages_parse(const char *body, size_t len, const char *room, struct mx_sync *out,
		      struct buf *err)
{
	struct items it = { out, 0 };
	json_t *root;
	const json_t *chunk, *ev, *end;
	const char *id;
	size_t k, n;

	sync_init(out);
	if (!room || !room_id_ok(room))
		return fail(err, "messages: not a room id");
	root = load(body, len, "messages", err);
	if (!root)
		return -1;
	chunk = json_object_get(root, "chunk");
	if (!json_is_array(chunk)) {
		json_decref(root);
		return fail(err, "messages: no chunk");
	}
	end = json_object_get(root, "end");
	n = json_string_length(end);
	if (json_is_string(end) && n < sizeof(out->next_batch) &&
	    utf8_valid(json_string_value(end), n))
		memcpy(out->next_batch, json_string_value(end), n + 1);
	id = room_key(out, room);
	json_array_foreach(chunk, k, ev)
		room_event(&it, id, ev, 1);
	json_array_foreach(json_object_get(root, "state"), k, ev)
		room_event(&it, id, ev, 0);
	json_decref(root);
	return 0;
}

void mx_sync_release(struct mx_sync *s)
{
	struct mx_block *b, *next;

	for (b = s->arena; b; b = next) {
		next = b->next;
		free(b);
	}
	free(s->items);
	json_decref(s->direct);
	json_decref(s->to_device);
	free(s->dl_changed);
	free(s->dl_left);
	sync_init(s);
}

/* ---- end-to-end encryption ------------------------------------------- */

/* Copies the string v into dst (size bytes): 0 when it is a non-empty
 * valid UTF-8 string that fits, else -1 (dst ""). */
static int fixed(const json_t *v, char *dst, size_t size)
{
	size_t n;

	dst[0] = '\0';
	if (!json_is_string(v))
		return -1;
	n = json_string_length(v);
	if (!n || n >= size || !utf8_valid(json_string_value(v), n))
		return -1;
	memcpy(dst, json_string_value(v), n + 1);
	return 0;
}

int mx_olm_msg_decode(const json_t *ev, const char *my_curve, struct mx_olm_msg *out)
{
	const json_t *content = get_obj(ev, "content"), *mine, *body;
	json_int_t type;
	size_t n;

	memset(out, 0, sizeof(*out));
	if (!content || !my_curve || !*my_curve ||
	    !str_is(json_object_get(ev, "type"), "m.room.encrypted") ||
	    !str_is(json_object_get(content, "algorithm"), "m.olm.v1.curve25519-aes-sha2") ||
	    fixed(json_object_get(ev, "sender"), out->sender, sizeof(out->sender)) ||
	    fixed(json_object_get(content, "sender_key"), out->sender_key,
		  sizeof(out->sender_key)))
		return -1;
	mine = get_obj(get_obj(content, "ciphertext"), my_curve);
	body = json_object_get(mine, "body");
	if (!mine || !json_is_integer(json_object_get(mine, "type")) || !json_is_string(body))
		return -1;
	type = json_integer_value(json_object_get(mine, "type"));
	n = json_string_length(body);
	if ((type != 0 && type != 1) || !n || n >= MX_OLM_BODY_SIZE ||
	    !utf8_valid(json_string_value(body), n))
		return -1;
	out->type = (int)type;
	out->body = json_string_value(body);
	return 0;
}

int mx_olm_payload_decode(const char *plain, size_t len, struct mx_olm_payload *out,
			  struct buf *err)
{
	json_t *root = json_loadb(plain, len, 0, NULL);
	const json_t *content = get_obj(root, "content");
	int room_key, fwd, rc = -1;

	memset(out, 0, sizeof(*out));
	if (!json_is_object(root) || !content ||
	    fixed(json_object_get(root, "type"), out->type, sizeof(out->type)) ||
	    fixed(json_object_get(root, "sender"), out->sender, sizeof(out->sender)) ||
	    fixed(json_object_get(root, "recipient"), out->recipient, sizeof(out->recipient)) ||
	    fixed(json_object_get(get_obj(root, "recipient_keys"), "ed25519"), out->recipient_ed,
		  sizeof(out->recipient_ed)) ||
	    fixed(json_object_get(get_obj(root, "keys"), "ed25519"), out->sender_ed,
		  sizeof(out->sender_ed))) {
		fail(err, "an Olm payload without its type, sender, recipient or keys");
		goto out;
	}
	room_key = !strcmp(out->type, "m.room_key");
	fwd = !strcmp(out->type, "m.forwarded_room_key");
	if (!room_key && !fwd) {
		out->kind = MX_OLM_OTHER;
		rc = 0;
		goto out;
	}
	if (!str_is(json_object_get(content, "algorithm"), "m.megolm.v1.aes-sha2") ||
	    fixed(json_object_get(content, "room_id"), out->room, sizeof(out->room)) ||
	    fixed(json_object_get(content, "session_id"), out->session_id,
		  sizeof(out->session_id)) ||
	    fixed(json_object_get(content, "session_key"), out->session_key,
		  sizeof(out->session_key)) ||
	    (fwd && (fixed(json_object_get(content, "sender_key"), out->orig_sender_key,
			   sizeof(out->orig_sender_key)) ||
		     fixed(json_object_get(content, "sender_claimed_ed25519_key"),
			   out->claimed_ed, sizeof(out->claimed_ed))))) {
		fail(err, "a room key with a missing or malformed field");
		goto out;
	}
	out->kind = fwd ? MX_OLM_FORWARDED : MX_OLM_ROOM_KEY;
	rc = 0;
out:
	if (root) {
		/* the session key went through jansson's own strings: wipe them */
		const json_t *k = json_object_get(content, "session_key");

		if (json_is_string(k))
			explicit_bzero((char *)json_string_value(k), json_string_length(k));
		json_decref(root);
	}
	if (rc)
		explicit_bzero(out, sizeof(*out));
	return rc;
}

int mx_decrypted_parse(const char *plain, size_t len, const struct mx_item *cipher,
		       struct mx_sync *out, struct buf *err)
{
	struct items it = { out, 0 };
	json_t *root;
	const json_t *content;
	struct mx_item *i;

	sync_init(out);
	if (!cipher || cipher->kind != MX_CIPHER)
		return fail(err, "decrypted: not an encrypted event");
	root = load(plain, len, "decrypted", err);
	if (!root)
		return -1;
	content = get_obj(root, "content");
	if (!content || !json_is_string(json_object_get(root, "type"))) {
		json_decref(root);
		return fail(err, "decrypted: no type or content");
	}
	if (!str_is(json_object_get(root, "room_id"), cipher->room)) {
		json_decref(root);
		return fail(err, "decrypted: a message for another room");
	}
	if (str_is(json_object_get(root, "type"), "m.room.message")) {
		i = item_new(&it, MX_MESSAGE, arena_dup(out, cipher->room, strlen(cipher->room)));
		i->from_timeline = cipher->from_timeline;
		i->sender = arena_dup(out, cipher->sender, strlen(cipher->sender));
		i->event_id = arena_dup(out, cipher->event_id, strlen(cipher->event_id));
		i->ts = cipher->ts;
		i->sender_key = arena_dup(out, cipher->sender_key, strlen(cipher->sender_key));
		read_message(out, i, content);
		i->is_edit |= cipher->is_edit;
	}
	json_decref(root);
	return 0;
}

json_t *mx_cipher_event(const struct mx_item *c)
{
	json_t *content = json_pack("{s:s, s:s, s:s, s:s, s:s}", "algorithm", c->algorithm,
				    "sender_key", c->sender_key, "session_id", c->session_id,
				    "device_id", c->device_id, "ciphertext", c->text);

	if (c->is_edit)
		json_object_set_new(content, "m.relates_to",
				    json_pack("{s:s}", "rel_type", "m.replace"));
	return json_pack("{s:s, s:s, s:s, s:I, s:o}", "type", "m.room.encrypted",
			 "sender", c->sender, "event_id", c->event_id,
			 "origin_server_ts", (json_int_t)c->ts, "content", content);
}

/* ---- filters ---------------------------------------------------------- */

static json_t *none(void)
{
	return json_pack("{s:[s]}", "not_types", "*");
}

static json_t *timeline_types(void)
{
	return json_pack("[s,s,s,s,s]", "m.room.message", "m.room.member", "m.room.encryption",
			 "m.room.encrypted", "m.space.parent");
}

json_t *mx_sync_filter(enum mx_filter kind)
{
	if (kind == MX_FILTER_SKIP)
		return json_pack("{s:o, s:o, s:{s:[], s:b}}",
				 "presence", none(),
				 "account_data", none(),
				 "room", "rooms", "include_leave", 0);
	return json_pack("{s:o, s:o, s:{s:o, s:o, s:b,"
			 " s:{s:[s,s,s], s:b, s:b}, s:{s:o, s:i}}}",
			 "presence", none(),
			 "account_data", json_pack("{s:[s]}", "types", "m.direct"),
			 "room",
			 "ephemeral", none(),
			 "account_data", none(),
			 "include_leave", 0,
			 "state", "types", "m.room.member", "m.room.encryption", "m.space.parent",
			 "lazy_load_members", 1, "include_redundant_members", 1,
			 "timeline", "types", timeline_types(),
			 "limit", kind == MX_FILTER_TIGHT ? MX_TIGHT_LIMIT : MX_TIMELINE_LIMIT);
}

json_t *mx_messages_filter(void)
{
	return json_pack("{s:o, s:b, s:b}", "types", timeline_types(),
			 "lazy_load_members", 1, "include_redundant_members", 1);
}
