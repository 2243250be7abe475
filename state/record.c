/*
 * record.c: lifecycle of the store's plain records (state/store.h).
 *
 * The heap strings of a session (state, votes) and of an outbox message
 * (payload) belong to their record.  A record passed as a destination
 * (session_rec_copy's dst, a lookup's out) must have been initialised with
 * session_rec_init() or filled before: its old state is released, so the
 * same record can be reused in a loop without leaking.
 */
#include "state/store.h"

#include <stdlib.h>
#include <string.h>

void session_rec_init(struct session_rec *s)
{
	memset(s, 0, sizeof(*s));
	s->status = SESSION_LOBBY;
}

void session_rec_release(struct session_rec *s)
{
	free(s->state);
	free(s->votes);
	session_rec_init(s);
}

void session_rec_copy(struct session_rec *dst, const struct session_rec *src)
{
	char *state, *votes;

	if (dst == src)
		return;
	/* Duplicate first: src's strings may be the very ones dst owns. */
	state = src->state ? xstrdup(src->state) : NULL;
	votes = src->votes ? xstrdup(src->votes) : NULL;
	free(dst->state);
	free(dst->votes);
	memcpy(dst, src, sizeof(*dst));
	dst->state = state;
	dst->votes = votes;
}

const char *session_status_name(enum session_status st)
{
	switch (st) {
	case SESSION_LOBBY:
		return "lobby";
	case SESSION_ACTIVE:
		return "active";
	case SESSION_FINISHED:
		return "finished";
	case SESSION_ABORTED:
		return "aborted";
	}
	return "unknown";
}

void outbox_rec_release(struct outbox_rec *o)
{
	free(o->payload);
	o->payload = NULL;
}
