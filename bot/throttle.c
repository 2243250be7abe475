/*
 * throttle: the per-user token buckets (bot/throttle.h).  It counts and
 * forgets; what a refused user is told is the manager's (bot/commands.c).
 */
#include "bot/throttle.h"

#include <stdlib.h>
#include <string.h>

#include "util/buf.h"

#define THROTTLE_BUCKETS 1024
#define THROTTLE_SWEEP_MIN 1024	/* entries before the first sweep */

struct throttle_entry {
	struct throttle_entry *next;
	int64_t tat;		/* theoretical arrival time of the next command */
	int warned;		/* told to slow down since the last allowed one */
	char key[];		/* platform, '\0', user, '\0' */
};

void throttle_init(struct throttle *t, unsigned burst, int64_t period_ms)
{
	memset(t, 0, sizeof(*t));
	if (!burst || period_ms <= 0)
		return;
	t->burst = burst;
	t->period_ms = period_ms;
	t->nbuckets = THROTTLE_BUCKETS;
	t->buckets = xcalloc(t->nbuckets, sizeof(*t->buckets));
	t->sweep_at = THROTTLE_SWEEP_MIN;
}

void throttle_release(struct throttle *t)
{
	size_t i;

	for (i = 0; i < t->nbuckets; i++) {
		struct throttle_entry *e = t->buckets[i], *next;

		for (; e; e = next) {
			next = e->next;
			free(e);
		}
	}
	free(t->buckets);
	memset(t, 0, sizeof(*t));
}

static size_t hash_key(const char *platform, const char *user, size_t n)
{
	uint32_t h = 2166136261u;
	const char *p;

	for (p = platform; *p; p++)
		h = (h ^ (unsigned char)*p) * 16777619u;
	h = (h ^ 0xff) * 16777619u;	/* a byte no UTF-8 text holds */
	for (p = user; *p; p++)
		h = (h ^ (unsigned char)*p) * 16777619u;
	return h % n;
}

/* Drops the buckets that are full again (idle for a whole burst): they
 * hold nothing a fresh bucket would not. */
static void sweep(struct throttle *t, int64_t now)
{
	size_t i;

	for (i = 0; i < t->nbuckets; i++) {
		struct throttle_entry **pp = &t->buckets[i];

		while (*pp) {
			struct throttle_entry *e = *pp;

			if (e->tat <= now) {
				*pp = e->next;
				free(e);
				t->count--;
			} else {
				pp = &e->next;
			}
		}
	}
	/* the next sweep when the table has doubled: amortised O(1) */
	t->sweep_at = t->count * 2 > THROTTLE_SWEEP_MIN ? t->count * 2 : THROTTLE_SWEEP_MIN;
}

static struct throttle_entry *entry(struct throttle *t, const char *platform,
				    const char *user, int64_t now)
{
	size_t h = hash_key(platform, user, t->nbuckets), lp = strlen(platform) + 1;
	size_t lu = strlen(user) + 1;
	struct throttle_entry *e;

	for (e = t->buckets[h]; e; e = e->next)
		if (!strcmp(e->key, platform) && !strcmp(e->key + lp, user))
			return e;
	if (t->count >= t->sweep_at)
		sweep(t, now);
	e = xmalloc(sizeof(*e) + lp + lu);
	memcpy(e->key, platform, lp);
	memcpy(e->key + lp, user, lu);
	e->tat = now;
	e->warned = 0;
	e->next = t->buckets[h];
	t->buckets[h] = e;
	t->count++;
	return e;
}

enum throttle_verdict throttle_take(struct throttle *t, const char *platform,
				    const char *user, int64_t now_ms, int64_t *wait_ms)
{
	struct throttle_entry *e;
	int64_t tat, over;

	*wait_ms = 0;
	if (!t->burst)
		return THROTTLE_OK;
	e = entry(t, platform, user, now_ms);
	tat = e->tat > now_ms ? e->tat : now_ms;
	over = tat + t->period_ms - now_ms - (int64_t)t->burst * t->period_ms;
	if (over > 0) {
		*wait_ms = over;
		if (e->warned)
			return THROTTLE_REFUSED;
		e->warned = 1;
		return THROTTLE_WARN;
	}
	e->tat = tat + t->period_ms;
	e->warned = 0;
	return THROTTLE_OK;
}

size_t throttle_tracked(const struct throttle *t)
{
	return t->count;
}
