/*
 * mxroom: what the Matrix adapter knows of one room's members, and the two
 * questions it asks of them.  Pure: no I/O, no globals.
 *
 *   - Is this room a private chat: are its joined and invited members
 *     exactly {the bot, the player}?  (Private views go nowhere else.)
 *   - Is the bot alone in it?  (Then it leaves.)
 *
 * What the adapter knows comes from several places, none complete on its
 * own: member events (state and timeline; with lazy-loaded members the
 * state holds only the senders of timeline events), the room summary's
 * member counts (sent whenever they change), and the whole member list
 * when it asks for it (GET /rooms/{id}/members, or a room it just created).
 * The answers combine them and say "unknown" rather than guess: the caller
 * then fetches the member list.
 *
 * Members are indexed by user id in a hash table (util/strmap.h), so a room
 * of 36,000 members costs a lookup, not a scan, per event.
 *
 * Ownership: struct mx_members owns its entries; names are copied.
 */
#ifndef ADAPTERS_MATRIX_MXROOM_H
#define ADAPTERS_MATRIX_MXROOM_H

#include <stddef.h>
#include <stdint.h>

#include "util/strmap.h"

enum mx_membership {
	MXM_NONE,	/* not known, or anything unrecognised */
	MXM_JOIN,
	MXM_INVITE,
	MXM_LEAVE,
	MXM_BAN,
	MXM_KNOCK,
};

struct mx_member {
	enum mx_membership membership;
	char *name;		/* cleaned display name (mx_clean_name), or NULL */
	char user[];		/* the key */
};

struct mx_members {
	struct strmap map;	/* user id -> struct mx_member (owned) */
	size_t joined, invited;	/* of the members known */
	/* the server's latest room summary: m.joined_member_count and
	 * m.invited_member_count; -1 while never sent */
	long sum_joined, sum_invited;
	/* every member is known: the list was fetched whole, or the bot
	 * created the room; cleared when a gap may have hidden changes */
	int complete;
};

enum mx_verdict {
	MX_NO,
	MX_YES,
	MX_UNKNOWN,	/* fetch the member list, then ask again */
};

/* Empty; hashing with the key (k0, k1) (see strmap.h). */
void mx_members_init(struct mx_members *ms, uint64_t k0, uint64_t k1);
void mx_members_release(struct mx_members *ms);
/* Forgets every member (before a whole list is loaded); keeps the
 * summary.  complete becomes 0. */
void mx_members_clear(struct mx_members *ms);

/* "join" → MXM_JOIN, ...; anything else MXM_NONE. */
enum mx_membership mx_membership_of(const char *s);

/*
 * Records user's membership.  name: the display name exactly as the event
 * gave it (untrusted; cleaned here with mx_clean_name), or NULL or "" to
 * keep the one known.
 */
void mx_members_set(struct mx_members *ms, const char *user, enum mx_membership mb,
		    const char *name);
/* The member, or NULL when nothing is known of user. */
const struct mx_member *mx_members_get(const struct mx_members *ms, const char *user);
/* A summary's counts; a negative one means "not sent": the last one stays. */
void mx_members_summary(struct mx_members *ms, long joined, long invited);

/*
 * Whether the joined and invited members are exactly {me (joined), user
 * (joined or invited)}.  MX_NO as soon as a third member is known, or the
 * summary counts more than two, or the list is complete without them;
 * MX_YES when both are there and either the list is complete or the
 * summary counts exactly two; MX_UNKNOWN otherwise.
 */
enum mx_verdict mx_members_exactly(const struct mx_members *ms, const char *me,
				   const char *user);

/*
 * Whether me is joined and nobody else is joined or invited.  MX_NO when
 * another member is known to be there (or me is not joined); else from
 * the summary when there is one; else MX_YES if the list is complete;
 * else MX_UNKNOWN.
 */
enum mx_verdict mx_members_alone(const struct mx_members *ms, const char *me);

/*
 * The name the bot shows for user: the display name cleaned with
 * text_clean_name() (no controls, bidi or zero-width characters, one line,
 * at most TEXT_NAME_MAX_CHARS characters); when nothing visible is left
 * (or there is none), the user id's localpart cleaned the same way; when
 * even that is empty, "?".  Writes out (n bytes, NUL-terminated); returns
 * out.
 */
char *mx_clean_name(const char *displayname, const char *user, char *out, size_t n);

#endif
