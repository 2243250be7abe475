/*
 * votes: the votes stored with a session (bot/votes.c).  Part of the
 * session core's layer: the commit drops the votes that no longer count.
 */
#ifndef BOT_VOTES_H
#define BOT_VOTES_H

#include <jansson.h>

#include "bot/session.h"

int votes_human_seated(const struct session_rec *rec, const char *user);
int votes_humans_of(const struct session_rec *rec);
/* The votes of rec, a new object ({} when there are none or they do not
 * parse: a damaged record loses its votes, never its game). */
json_t *votes_load(const struct session_rec *rec);
/* The object at v[key], created when missing (borrowed). */
json_t *votes_obj(json_t *v, const char *key);
/* Writes v into rec->votes, without the votes that no longer count (and
 * none at all once the game is over).  Takes v's reference. */
void votes_save(struct session_rec *rec, json_t *v);
/* Drops the kick votes against user (their own move ended the idle spell). */
void votes_drop_kicks_of(struct session_rec *rec, const char *user);
/* Adds user's vote to abort (a second one changes nothing). */
void votes_abort(json_t *v, const char *user);
/* The seated humans who voted to abort. */
int votes_count_abort(const struct session_rec *rec, json_t *v);
/* The seated humans, other than `except` (NULL: none), whose vote in the
 * object o is value. */
int votes_count_for(const struct session_rec *rec, json_t *o, const char *value,
		    const char *except);

#endif
