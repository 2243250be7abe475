/*
 * mxroom: room members and the questions asked of them.  See mxroom.h.
 */
#include "adapters/matrix/mxroom.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/buf.h"
#include "util/text.h"

void mx_members_init(struct mx_members *ms, uint64_t k0, uint64_t k1)
{
	memset(ms, 0, sizeof(*ms));
	strmap_init(&ms->map, k0, k1);
	ms->sum_joined = ms->sum_invited = -1;
}

static void free_all(struct mx_members *ms)
{
	void *v;
	size_t i;

	for (i = 0; (i = strmap_next(&ms->map, i, &v));) {
		struct mx_member *mm = v;

		free(mm->name);
		free(mm);
	}
}

void mx_members_release(struct mx_members *ms)
{
	free_all(ms);
	strmap_release(&ms->map);
	ms->joined = ms->invited = 0;
	ms->complete = 0;
}

void mx_members_clear(struct mx_members *ms)
{
	uint64_t k0 = ms->map.k0, k1 = ms->map.k1;

	free_all(ms);
	strmap_release(&ms->map);
	strmap_init(&ms->map, k0, k1);
	ms->joined = ms->invited = 0;
	ms->complete = 0;
}

enum mx_membership mx_membership_of(const char *s)
{
	static const char *const names[] = {
		[MXM_JOIN] = "join", [MXM_INVITE] = "invite", [MXM_LEAVE] = "leave",
		[MXM_BAN] = "ban", [MXM_KNOCK] = "knock",
	};
	size_t i;

	for (i = MXM_JOIN; s && i < sizeof(names) / sizeof(*names); i++)
		if (!strcmp(s, names[i]))
			return (enum mx_membership)i;
	return MXM_NONE;
}

static void count(struct mx_members *ms, enum mx_membership mb, int d)
{
	size_t *c = mb == MXM_JOIN ? &ms->joined : mb == MXM_INVITE ? &ms->invited : NULL;

	if (c)
		*c = d > 0 ? *c + 1 : *c - 1;
}

void mx_members_set(struct mx_members *ms, const char *user, enum mx_membership mb,
		    const char *name)
{
	struct mx_member *mm = strmap_get(&ms->map, user);

	if (!mm) {
		size_t n = strlen(user);

		mm = xcalloc(1, sizeof(*mm) + n + 1);
		memcpy(mm->user, user, n + 1);
		strmap_put(&ms->map, mm->user, mm);
	} else {
		count(ms, mm->membership, -1);
	}
	mm->membership = mb;
	count(ms, mb, +1);
	if (name && *name) {
		char clean[4 * TEXT_NAME_MAX_CHARS + 1];

		free(mm->name);
		mm->name = NULL;
		if (text_clean_name(name, strlen(name), clean, sizeof(clean)))
			mm->name = xstrdup(clean);
	}
}

const struct mx_member *mx_members_get(const struct mx_members *ms, const char *user)
{
	return strmap_get(&ms->map, user);
}

void mx_members_summary(struct mx_members *ms, long joined, long invited)
{
	if (joined >= 0)
		ms->sum_joined = joined;
	if (invited >= 0)
		ms->sum_invited = invited;
}

static int active(const struct mx_member *mm)
{
	return mm && (mm->membership == MXM_JOIN || mm->membership == MXM_INVITE);
}

enum mx_verdict mx_members_exactly(const struct mx_members *ms, const char *me,
				   const char *user)
{
	const struct mx_member *b = mx_members_get(ms, me), *u = mx_members_get(ms, user);
	int sums = ms->sum_joined >= 0 && ms->sum_invited >= 0;
	long total = ms->sum_joined + ms->sum_invited;

	if (!strcmp(me, user))
		return MX_NO;
	if (ms->joined + ms->invited > 2 || (sums && total > 2))
		return MX_NO;
	if (!b || b->membership != MXM_JOIN || !active(u))
		return ms->complete ? MX_NO : MX_UNKNOWN;
	/* both there, and no third member known */
	if (ms->complete)
		return MX_YES;
	if (sums)
		return total == 2 ? MX_YES : MX_UNKNOWN;
	return MX_UNKNOWN;
}

enum mx_verdict mx_members_alone(const struct mx_members *ms, const char *me)
{
	const struct mx_member *b = mx_members_get(ms, me);
	size_t others = ms->joined + ms->invited - (b && active(b) ? 1 : 0);

	if (!b || b->membership != MXM_JOIN || others)
		return MX_NO;
	if (ms->sum_joined >= 0 && ms->sum_invited >= 0)
		return ms->sum_joined <= 1 && ms->sum_invited == 0 ? MX_YES : MX_NO;
	return ms->complete ? MX_YES : MX_UNKNOWN;
}

char *mx_clean_name(const char *displayname, const char *user, char *out, size_t n)
{
	const char *local, *colon;
	size_t len;

	if (!n)
		return out;
	if (displayname && *displayname &&
	    text_clean_name(displayname, strlen(displayname), out, n))
		return out;
	/* the localpart: "@ana:example.org" → "ana" */
	local = user && user[0] == '@' ? user + 1 : user ? user : "";
	colon = strchr(local, ':');
	len = colon ? (size_t)(colon - local) : strlen(local);
	if (text_clean_name(local, len, out, n))
		return out;
	snprintf(out, n, "?");
	return out;
}
