/*
 * mxdirect: the bot's m.direct account data, the list of direct chats
 * other clients show as such.  Owns m->direct (our copy), m->undirect (the
 * rooms we took out of it, kept out when a sync brings the server's copy
 * back) and the one PUT of it in flight (direct_busy, direct_dirty).
 * Which room is a player's DM room is mxdm.c's, and the store's.
 */

#include "adapters/matrix/mxint.h"

static void put_direct(struct matrix *m);

static void on_direct_put(struct matrix *m, long status, const char *errcode, const char *body,
			  size_t len, void *ctx)
{
	if (status < 200 || status >= 300)
		log_warn("matrix: could not update m.direct (HTTP %ld)", status);
	m->direct_busy = 0;
	if (m->direct_dirty)
		put_direct(m);
}

/*
 * Writes our m.direct, whole.  One PUT at a time: PUTs in parallel (one per
 * new DM room) land in any order, and an older list landing last dropped
 * rooms (250 of 1000 in the benchmark).  Changes made while one is in flight
 * go in one more PUT after it.
 */
static void put_direct(struct matrix *m)
{
	struct buf path = BUF_INIT;

	if (m->direct_busy) {
		m->direct_dirty = 1;
		return;
	}
	m->direct_busy = 1;
	m->direct_dirty = 0;
	buf_addstr(&path, API "/user/");
	enc(&path, m->me);
	buf_addstr(&path, "/account_data/m.direct");
	mxm_call(m, "PUT", buf_str(&path), m->direct, NULL, 0, on_direct_put, NULL);
	buf_release(&path);
}

static int has_string(json_t *arr, const char *s)
{
	json_t *v;
	size_t i;

	json_array_foreach(arr, i, v)
		if (json_is_string(v) && !strcmp(json_string_value(v), s))
			return 1;
	return 0;
}

/* Removes every s from arr; returns how many went. */
static int remove_string(json_t *arr, const char *s)
{
	size_t i = 0;
	int n = 0;

	while (i < json_array_size(arr)) {
		json_t *v = json_array_get(arr, i);

		if (json_is_string(v) && !strcmp(json_string_value(v), s)) {
			json_array_remove(arr, i);
			n++;
		} else {
			i++;
		}
	}
	return n;
}

/*
 * Takes the server's m.direct from a sync, keeping the DM rooms we recorded
 * that it lacks and leaving out those we took out: the sync can carry a copy
 * older than our last PUT (they race on different connections), and taking
 * it as it is would undo that PUT.  If it differed, ours is written back.
 * (A room another client removed from the bot's m.direct comes back: the
 * bot removes only rooms it stopped using itself.)
 */
void mxm_merge_direct(struct matrix *m, json_t *server)
{
	json_t *merged = json_deep_copy(server), *list, *v;
	const char *user;
	size_t i;
	int differs = 0;

	json_object_foreach(m->undirect, user, list) {
		json_t *theirs = json_object_get(merged, user);

		json_array_foreach(list, i, v)
			if (json_is_string(v) && json_is_array(theirs))
				differs |= remove_string(theirs, json_string_value(v));
	}
	json_object_foreach(m->direct, user, list) {
		json_t *theirs = json_object_get(merged, user);

		json_array_foreach(list, i, v) {
			if (!json_is_string(v) || has_string(theirs, json_string_value(v)))
				continue;
			if (!json_is_array(theirs)) {
				theirs = json_array();
				json_object_set_new(merged, user, theirs);
			}
			json_array_append(theirs, v);
			differs = 1;
		}
	}
	json_decref(m->direct);
	m->direct = merged;
	if (differs)
		put_direct(m);
}

void mxm_record_direct(struct matrix *m, const char *user, const char *room)
{
	json_t *list;

	if (!m->direct)
		m->direct = json_object();
	list = json_object_get(m->direct, user);
	if (!json_is_array(list)) {
		list = json_array();
		json_object_set_new(m->direct, user, list);
	}
	if (has_string(list, room))
		return;
	json_array_append_new(list, json_string(room));
	remove_string(json_object_get(m->undirect, user), room);
	put_direct(m);
}

void mxm_unrecord_direct(struct matrix *m, const char *user, const char *room)
{
	json_t *gone = json_object_get(m->undirect, user);

	if (!json_is_array(gone)) {
		gone = json_array();
		json_object_set_new(m->undirect, user, gone);
	}
	if (!has_string(gone, room))
		json_array_append_new(gone, json_string(room));
	if (m->direct && remove_string(json_object_get(m->direct, user), room))
		put_direct(m);
}
