/*
 * votes: the votes of a session (session_rec.votes, a JSON object keyed by
 * user ids), for `game abort`, `game kick` and the room settings that need
 * a majority once a game has started (docs/async.md, "Votes").
 *
 * {"abort": [voter, ...],
 *  "kick": {voter: target, ...},
 *  "set": {"timeout": {voter: value, ...}, "ontimeout": {...}, ...}}
 *
 * A vote is a user's, never a seat's: it counts only while its voter holds
 * a human seat of the game (and a kick vote only while its target does),
 * and votes_save() drops the others, so a vote leaves with its voter
 * (leaving the lobby, the AI taking the seat).  Each voter has one kick
 * vote and one vote per setting: a new one replaces their own, never
 * anyone else's.  Stored with the session, so a restart keeps them.
 *
 * It counts and stores votes; it must not decide what a majority does
 * (the commands do: lobby.c, pause.c, settings.c) nor commit anything.
 */
#include <string.h>

#include "bot/votes.h"

int votes_human_seated(const struct session_rec *rec, const char *user)
{
	int i;

	for (i = 0; i < rec->nseats; i++)
		if (!rec->seats[i].is_bot && !strcmp(rec->seats[i].user, user))
			return 1;
	return 0;
}

int votes_humans_of(const struct session_rec *rec)
{
	int i, n = 0;

	for (i = 0; i < rec->nseats; i++)
		n += !rec->seats[i].is_bot;
	return n;
}

/* The votes of rec, a new object ({} when there are none or they do not
 * parse: a damaged record loses its votes, never its game). */
json_t *votes_load(const struct session_rec *rec)
{
	json_t *v = rec->votes && rec->votes[0] ? json_loads(rec->votes, 0, NULL) : NULL;

	if (!json_is_object(v)) {
		json_decref(v);
		v = json_object();
	}
	return v;
}

/* The object at v[key], created when missing (borrowed). */
json_t *votes_obj(json_t *v, const char *key)
{
	json_t *o = json_object_get(v, key);

	if (!json_is_object(o)) {
		o = json_object();
		json_object_set_new(v, key, o);
	}
	return o;
}

/* Drops from the object o every vote whose voter (key) is not a seated
 * human, whose value is not a string, or (targets: kick) that names a
 * target who is not a seated human. */
static void votes_prune_obj(const struct session_rec *rec, json_t *o, int targets)
{
	const char *voter;
	json_t *val;
	void *tmp;

	json_object_foreach_safe(o, tmp, voter, val) {
		if (!json_is_string(val) || !votes_human_seated(rec, voter) ||
		    (targets && !votes_human_seated(rec, json_string_value(val))))
			json_object_del(o, voter);
	}
}

/* Writes v into rec->votes, without the votes that no longer count (and
 * none at all once the game is over).  Takes v's reference. */
void votes_save(struct session_rec *rec, json_t *v)
{
	json_t *abort_, *kept, *set;
	const char *key;
	json_t *o;
	void *tmp;
	size_t i;
	char *t = NULL;

	free(rec->votes);
	rec->votes = NULL;
	if (rec->status != SESSION_LOBBY && rec->status != SESSION_ACTIVE)
		goto out;
	abort_ = json_object_get(v, "abort");
	kept = json_array();
	for (i = 0; json_is_array(abort_) && i < json_array_size(abort_); i++) {
		json_t *u = json_array_get(abort_, i);

		if (json_is_string(u) && votes_human_seated(rec, json_string_value(u)))
			json_array_append(kept, u);
	}
	json_object_set_new(v, "abort", kept);
	votes_prune_obj(rec, votes_obj(v, "kick"), 1);
	set = votes_obj(v, "set");
	json_object_foreach_safe(set, tmp, key, o) {
		if (json_is_object(o))
			votes_prune_obj(rec, o, 0);
		if (!json_is_object(o) || !json_object_size(o))
			json_object_del(set, key);
	}
	json_object_foreach_safe(v, tmp, key, o) {
		if ((json_is_array(o) && !json_array_size(o)) ||
		    (json_is_object(o) && !json_object_size(o)) ||
		    (strcmp(key, "abort") && strcmp(key, "kick") && strcmp(key, "set")))
			json_object_del(v, key);
	}
	/* bounded by the seats: a handful of user ids per kind of vote */
	if (json_object_size(v))
		t = json_dumps(v, JSON_COMPACT | JSON_SORT_KEYS);
	if (t && strlen(t) <= STORE_VOTES_MAX)
		rec->votes = t;
	else
		free(t);
out:
	json_decref(v);
}

/* Drops the kick votes against user: they were about an idle spell that
 * user's own move has just ended. */
void votes_drop_kicks_of(struct session_rec *rec, const char *user)
{
	json_t *v, *kick;
	const char *voter;
	json_t *target;
	void *tmp;

	if (!rec->votes)
		return;
	v = votes_load(rec);
	kick = votes_obj(v, "kick");
	json_object_foreach_safe(kick, tmp, voter, target)
		if (json_is_string(target) && !strcmp(json_string_value(target), user))
			json_object_del(kick, voter);
	votes_save(rec, v);
}

/* Adds user's vote to abort (a second one changes nothing). */
void votes_abort(json_t *v, const char *user)
{
	json_t *a = json_object_get(v, "abort");
	size_t i;

	if (!json_is_array(a)) {
		a = json_array();
		json_object_set_new(v, "abort", a);
	}
	for (i = 0; i < json_array_size(a); i++)
		if (json_is_string(json_array_get(a, i)) &&
		    !strcmp(json_string_value(json_array_get(a, i)), user))
			return;
	json_array_append_new(a, json_string(user));
}

/* The seated humans who voted to abort. */
int votes_count_abort(const struct session_rec *rec, json_t *v)
{
	json_t *a = json_object_get(v, "abort");
	size_t i;
	int n = 0;

	for (i = 0; json_is_array(a) && i < json_array_size(a); i++) {
		json_t *u = json_array_get(a, i);

		n += json_is_string(u) && votes_human_seated(rec, json_string_value(u));
	}
	return n;
}

/* The seated humans, other than `except` (NULL: none), whose vote in the
 * object o is value. */
int votes_count_for(const struct session_rec *rec, json_t *o, const char *value,
		    const char *except)
{
	const char *voter;
	json_t *val;
	int n = 0;

	json_object_foreach(o, voter, val)
		n += json_is_string(val) && !strcmp(json_string_value(val), value) &&
		     votes_human_seated(rec, voter) && (!except || strcmp(voter, except));
	return n;
}
