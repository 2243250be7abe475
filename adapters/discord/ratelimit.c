/*
 * ratelimit: Discord REST buckets, the global cap, 429/5xx handling and the
 * gateway send window.  Pure: time and headers come from the caller.
 */
#include "adapters/discord/ratelimit.h"

#include <assert.h>
#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "util/buf.h"

/* Discord's epoch (2015-01-01) for snowflake timestamps. */
#define DISCORD_EPOCH_MS	1420070400000ULL
#define OLD_MESSAGE_MS		(14ULL * 24 * 3600 * 1000)
/* "No per-route limit": a success without any rate-limit headers. */
#define UNLIMITED		(LONG_MAX / 2)

struct ratelimit_route {
	int used;
	char route[RATELIMIT_ROUTE_MAX];
	char hash[RATELIMIT_HASH_MAX];	/* "" until X-RateLimit-Bucket */
	uint64_t last_used;
};

/*
 * One budget.  `id` is the bucket hash, or the route itself while the hash is
 * unknown (routes contain a space, hashes never do, so they cannot clash).
 * The major is kept as a 64-bit hash: no tokens are retained, and a
 * collision only makes two majors share a budget, which is safe.
 */
struct ratelimit_bucket {
	int used;
	int known;		/* a response taught limit/remaining/reset */
	char id[RATELIMIT_ROUTE_MAX];
	uint64_t major;
	uint64_t key;		/* hash of (id, major) for a quick scan */
	long limit, remaining;	/* server's view as of the last response */
	long inflight;		/* acquired, not yet answered */
	uint64_t reset_at;	/* remaining refills to limit at this time */
	uint64_t blocked_until;	/* 429 (user or shared scope) */
	uint64_t last_used;
};

/* ---- sliding window ---- */

void ratelimit_window_init(struct ratelimit_window *w, unsigned limit,
			   uint64_t period_ms)
{
	assert(limit > 0 && limit <= RATELIMIT_WINDOW_MAX && period_ms > 0);
	memset(w, 0, sizeof(*w));
	w->limit = limit;
	w->period_ms = period_ms;
}

static void window_expire(struct ratelimit_window *w, uint64_t now_ms)
{
	while (w->count && w->t[w->head] + w->period_ms <= now_ms) {
		w->head = (w->head + 1) % RATELIMIT_WINDOW_MAX;
		w->count--;
	}
}

/* How long until an event may happen (0: now); records nothing. */
static uint64_t window_wait(struct ratelimit_window *w, uint64_t now_ms)
{
	window_expire(w, now_ms);
	if (w->count < w->limit)
		return 0;
	return w->t[w->head] + w->period_ms - now_ms;
}

static void window_take(struct ratelimit_window *w, uint64_t now_ms)
{
	assert(w->count < w->limit);
	w->t[(w->head + w->count) % RATELIMIT_WINDOW_MAX] = now_ms;
	w->count++;
}

int ratelimit_window_acquire(struct ratelimit_window *w, uint64_t now_ms,
			     uint64_t *wait_ms)
{
	uint64_t wait = window_wait(w, now_ms);

	*wait_ms = wait;
	if (wait)
		return 1;
	window_take(w, now_ms);
	return 0;
}

/* ---- route keys ---- */

static int all_digits(const char *s, size_t n)
{
	size_t i;

	if (!n)
		return 0;
	for (i = 0; i < n; i++)
		if (!isdigit((unsigned char)s[i]))
			return 0;
	return 1;
}

static int seg_is(const char *s, size_t n, const char *word)
{
	return strlen(word) == n && !memcmp(s, word, n);
}

/* Appends to a fixed array; -1 when it would not fit with its NUL. */
static int put(char *dst, size_t cap, size_t *len, const char *s, size_t n)
{
	if (*len + n + 1 > cap)
		return -1;
	memcpy(dst + *len, s, n);
	*len += n;
	dst[*len] = '\0';
	return 0;
}

int ratelimit_route_key(const char *method, const char *path, uint64_t now_ms,
			struct ratelimit_key *out, struct buf *err)
{
	const char *p, *end, *seg[64];
	size_t seglen[64], nseg = 0, i, rlen = 0, mlen = 0;
	uint64_t last_id = 0;
	int last_numeric = 0;

	out->route[0] = out->major[0] = '\0';
	if (!method || !*method || !path || path[0] != '/') {
		if (err)
			buf_setf(err, "ratelimit: bad request line");
		return -1;
	}
	for (p = method; *p; p++)
		if (!isupper((unsigned char)*p)) {
			if (err)
				buf_setf(err, "ratelimit: bad method '%s'", method);
			return -1;
		}

	/* Split on '/', stopping at the query string. */
	end = path + strcspn(path, "?#");
	for (p = path + 1; p < end;) {
		const char *q = memchr(p, '/', (size_t)(end - p));
		size_t n = q ? (size_t)(q - p) : (size_t)(end - p);

		if (nseg == sizeof(seg) / sizeof(seg[0])) {
			if (err)
				buf_setf(err, "ratelimit: path too deep");
			return -1;
		}
		seg[nseg] = p;
		seglen[nseg++] = n;
		p += n + 1;
		if (!q)
			break;
	}
	/* Drop a trailing empty segment ("/channels/1/"). */
	if (nseg && !seglen[nseg - 1])
		nseg--;

	i = 0;
	if (nseg && seg_is(seg[0], seglen[0], "api")) {
		i = 1;
		if (nseg > 1 && seglen[1] > 1 && seg[1][0] == 'v' &&
		    all_digits(seg[1] + 1, seglen[1] - 1))
			i = 2;
	}

	if (put(out->route, sizeof(out->route), &rlen, method, strlen(method)) ||
	    put(out->route, sizeof(out->route), &rlen, " ", 1))
		goto toolong;
	if (i == nseg && put(out->route, sizeof(out->route), &rlen, "/", 1))
		goto toolong;

	for (size_t first = i; i < nseg; i++) {
		const char *s = seg[i], *prev = i > first ? seg[i - 1] : NULL;
		size_t n = seglen[i], pn = i > first ? seglen[i - 1] : 0;
		const char *rep = NULL;
		int top = i == first + 1;	/* the top-level resource id */

		last_numeric = 0;
		if (prev && (seg_is(prev, pn, "reactions")))
			rep = "{emoji}";
		else if (prev && seg_is(prev, pn, "invites"))
			rep = "{code}";
		else if (i == first + 2 && (seg_is(seg[first], seglen[first], "webhooks") ||
				seg_is(seg[first], seglen[first], "interactions")) &&
			 !all_digits(s, n))
			rep = "{token}";
		else if (all_digits(s, n)) {
			rep = "{id}";
			last_numeric = 1;
			last_id = strtoull(s, NULL, 10);
		}

		if (top && (seg_is(seg[first], seglen[first], "channels") ||
			    seg_is(seg[first], seglen[first], "guilds") ||
			    seg_is(seg[first], seglen[first], "webhooks") ||
			    seg_is(seg[first], seglen[first], "interactions"))) {
			if (put(out->major, sizeof(out->major), &mlen, s, n))
				goto toolong;
		}
		if (i == first + 2 && rep && !strcmp(rep, "{token}") &&
		    (put(out->major, sizeof(out->major), &mlen, "/", 1) ||
		     put(out->major, sizeof(out->major), &mlen, s, n)))
			goto toolong;

		if (put(out->route, sizeof(out->route), &rlen, "/", 1) ||
		    put(out->route, sizeof(out->route), &rlen, rep ? rep : s,
			rep ? strlen(rep) : n))
			goto toolong;
	}

	/* Deleting a message older than 14 days is its own bucket. */
	if (now_ms && last_numeric && !strcmp(method, "DELETE") && nseg >= 2 &&
	    seg_is(seg[nseg - 2], seglen[nseg - 2], "messages") &&
	    (last_id >> 22) + DISCORD_EPOCH_MS + OLD_MESSAGE_MS < now_ms &&
	    put(out->route, sizeof(out->route), &rlen, " (old)", 6))
		goto toolong;
	return 0;

toolong:
	out->route[0] = out->major[0] = '\0';
	if (err)
		buf_setf(err, "ratelimit: route or major parameter too long");
	return -1;
}

/* ---- response headers ---- */

void ratelimit_headers_init(struct ratelimit_headers *h)
{
	memset(h, 0, sizeof(*h));
	h->limit = -1;
	h->remaining = -1;
	h->reset_after = -1;
	h->retry_after = -1;
}

static int name_is(const char *s, size_t n, const char *name)
{
	return strlen(name) == n && !strncasecmp(s, name, n);
}

int ratelimit_headers_parse(struct ratelimit_headers *h, const char *line,
			    size_t len)
{
	const char *colon = memchr(line, ':', len), *v, *end = line + len;
	char val[128], *e;
	size_t n, vn;

	if (!colon)
		return 0;
	n = (size_t)(colon - line);
	for (v = colon + 1; v < end && (*v == ' ' || *v == '\t'); v++)
		;
	while (end > v && isspace((unsigned char)end[-1]))
		end--;
	vn = (size_t)(end - v);
	if (vn >= sizeof(val))
		vn = sizeof(val) - 1;
	memcpy(val, v, vn);
	val[vn] = '\0';

	if (name_is(line, n, "X-RateLimit-Bucket")) {
		size_t hn = vn < sizeof(h->bucket) ? vn : sizeof(h->bucket) - 1;

		memcpy(h->bucket, val, hn);
		h->bucket[hn] = '\0';
	} else if (name_is(line, n, "X-RateLimit-Limit") ||
		   name_is(line, n, "X-RateLimit-Remaining")) {
		long x;

		errno = 0;
		x = strtol(val, &e, 10);
		if (e == val || *e || errno || x < 0)
			return 1;
		if (name_is(line, n, "X-RateLimit-Limit"))
			h->limit = x;
		else
			h->remaining = x;
	} else if (name_is(line, n, "X-RateLimit-Reset-After") ||
		   name_is(line, n, "Retry-After")) {
		double x = strtod(val, &e);

		if (e == val || *e || !(x >= 0) || x > 1e7)
			return 1;
		if (name_is(line, n, "Retry-After"))
			h->retry_after = x;
		else
			h->reset_after = x;
	} else if (name_is(line, n, "X-RateLimit-Global")) {
		h->global = !strcasecmp(val, "true");
	} else if (name_is(line, n, "X-RateLimit-Scope")) {
		if (!strcasecmp(val, "user"))
			h->scope = RATELIMIT_SCOPE_USER;
		else if (!strcasecmp(val, "global"))
			h->scope = RATELIMIT_SCOPE_GLOBAL;
		else if (!strcasecmp(val, "shared"))
			h->scope = RATELIMIT_SCOPE_SHARED;
	} else {
		return 0;
	}
	return 1;
}

/* ---- tables ---- */

void ratelimit_init(struct ratelimit *rl, uint64_t seed)
{
	memset(rl, 0, sizeof(*rl));
	rl->routes = xcalloc(RATELIMIT_MAX_ROUTES, sizeof(*rl->routes));
	rl->buckets = xcalloc(RATELIMIT_MAX_BUCKETS, sizeof(*rl->buckets));
	ratelimit_window_init(&rl->global, RATELIMIT_GLOBAL_PER_SEC, 1000);
	rng_seed(&rl->rng, seed, 0x7261746cULL);
}

void ratelimit_release(struct ratelimit *rl)
{
	free(rl->routes);
	free(rl->buckets);
	rl->routes = NULL;
	rl->buckets = NULL;
}

static uint64_t fnv(const char *s, uint64_t h)
{
	for (; *s; s++) {
		h ^= (unsigned char)*s;
		h *= 0x100000001b3ULL;
	}
	return h;
}

#define FNV_INIT 0xcbf29ce484222325ULL

static uint64_t major_hash(const char *major)
{
	return fnv(major, FNV_INIT);
}

static uint64_t bucket_key(const char *id, uint64_t major)
{
	return fnv(id, FNV_INIT) ^ (major * 0x9e3779b97f4a7c15ULL);
}

static void copy_str(char *dst, size_t cap, const char *src)
{
	size_t n = strlen(src);

	if (n >= cap)
		n = cap - 1;
	memcpy(dst, src, n);
	dst[n] = '\0';
}

static struct ratelimit_route *route_get(struct ratelimit *rl,
					 const char *route, uint64_t now_ms)
{
	struct ratelimit_route *victim = NULL;
	size_t i;

	for (i = 0; i < RATELIMIT_MAX_ROUTES; i++) {
		struct ratelimit_route *r = &rl->routes[i];

		if (r->used && !strcmp(r->route, route)) {
			r->last_used = now_ms;
			return r;
		}
		if (!victim || (victim->used &&
				(!r->used || r->last_used < victim->last_used)))
			victim = r;
	}
	/* Forgetting a route's hash only costs one serialised request. */
	memset(victim, 0, sizeof(*victim));
	victim->used = 1;
	copy_str(victim->route, sizeof(victim->route), route);
	victim->last_used = now_ms;
	return victim;
}

static int bucket_idle(const struct ratelimit_bucket *b, uint64_t now_ms)
{
	return !b->inflight && now_ms >= b->reset_at && now_ms >= b->blocked_until;
}

static struct ratelimit_bucket *bucket_find(struct ratelimit *rl,
					    const char *id, uint64_t major)
{
	uint64_t key = bucket_key(id, major);
	size_t i;

	for (i = 0; i < RATELIMIT_MAX_BUCKETS; i++) {
		struct ratelimit_bucket *b = &rl->buckets[i];

		if (b->used && b->key == key && b->major == major &&
		    !strcmp(b->id, id))
			return b;
	}
	return NULL;
}

/*
 * Finds or makes the bucket.  When the table is full the victim is the least
 * recently used idle bucket; failing that, one with nothing in flight;
 * failing that, the least recently used (its next request may meet a 429,
 * which is handled, rather than the table growing).
 */
static struct ratelimit_bucket *bucket_get(struct ratelimit *rl,
					   const char *id, uint64_t major,
					   uint64_t now_ms)
{
	struct ratelimit_bucket *b = bucket_find(rl, id, major), *victim = NULL;
	int vrank = -1;
	size_t i;

	if (b)
		return b;
	for (i = 0; i < RATELIMIT_MAX_BUCKETS; i++) {
		int rank;

		b = &rl->buckets[i];
		rank = !b->used ? 3 : bucket_idle(b, now_ms) ? 2 :
			!b->inflight ? 1 : 0;
		if (rank > vrank ||
		    (rank == vrank && b->last_used < victim->last_used)) {
			victim = b;
			vrank = rank;
		}
		if (rank == 3)
			break;
	}
	memset(victim, 0, sizeof(*victim));
	victim->used = 1;
	copy_str(victim->id, sizeof(victim->id), id);
	victim->major = major;
	victim->key = bucket_key(victim->id, major);
	victim->last_used = now_ms;
	return victim;
}

unsigned ratelimit_bucket_count(const struct ratelimit *rl)
{
	unsigned n = 0;
	size_t i;

	for (i = 0; i < RATELIMIT_MAX_BUCKETS; i++)
		n += rl->buckets[i].used != 0;
	return n;
}

/* ---- acquire / update ---- */

static uint64_t max_u64(uint64_t a, uint64_t b)
{
	return a > b ? a : b;
}

/* A server-given delay in ms: rounded up, plus the margin (ratelimit.h). */
static uint64_t secs_to_ms(double s)
{
	return (uint64_t)(s * 1000.0 + 0.999) + RATELIMIT_RESET_MARGIN_MS;
}

/* Interaction callbacks are not subject to the global rate limit. */
static int global_exempt(const char *route)
{
	return !strncmp(route, "POST /interactions/", 19);
}

/*
 * How long until every known bucket of this major parameter that is empty
 * now refills.  Discord may put several routes in one bucket (a channel's
 * message posts and edits share one), and a route's hash is learned only
 * from its own first answer: that first request waits for an empty sibling,
 * where sending at once would be a 429.
 */
static uint64_t sibling_wait(const struct ratelimit *rl, uint64_t major,
			     uint64_t now_ms)
{
	uint64_t wait = 0;
	size_t i;

	for (i = 0; i < RATELIMIT_MAX_BUCKETS; i++) {
		const struct ratelimit_bucket *s = &rl->buckets[i];

		if (s->used && s->known && s->major == major &&
		    s->reset_at > now_ms && s->remaining - s->inflight <= 0)
			wait = max_u64(wait, s->reset_at - now_ms);
	}
	return wait;
}

int ratelimit_acquire(struct ratelimit *rl, const struct ratelimit_key *k,
		      uint64_t now_ms, uint64_t *wait_ms)
{
	struct ratelimit_route *r = route_get(rl, k->route, now_ms);
	struct ratelimit_bucket *b;
	uint64_t wait = 0;
	int exempt = global_exempt(k->route);

	b = bucket_get(rl, r->hash[0] ? r->hash : r->route,
		       major_hash(k->major), now_ms);
	b->last_used = now_ms;

	if (rl->global_until > now_ms)
		wait = rl->global_until - now_ms;
	if (b->blocked_until > now_ms)
		wait = max_u64(wait, b->blocked_until - now_ms);
	if (!b->known) {
		if (b->inflight)	/* serialised until the first answer */
			wait = max_u64(wait, RATELIMIT_POLL_MS);
		else if (k->major[0])
			wait = max_u64(wait, sibling_wait(rl, b->major, now_ms));
	} else {
		if (now_ms >= b->reset_at)
			b->remaining = b->limit;	/* the window refilled */
		if (b->remaining - b->inflight <= 0)
			wait = max_u64(wait, b->reset_at > now_ms ?
				       b->reset_at - now_ms : RATELIMIT_POLL_MS);
	}
	if (!wait && !exempt)
		wait = window_wait(&rl->global, now_ms);

	*wait_ms = wait;
	if (wait)
		return 1;
	if (!exempt)
		window_take(&rl->global, now_ms);
	b->inflight++;
	return 0;
}

static struct ratelimit_route *route_find(struct ratelimit *rl,
					  const char *route)
{
	size_t i;

	for (i = 0; i < RATELIMIT_MAX_ROUTES; i++)
		if (rl->routes[i].used && !strcmp(rl->routes[i].route, route))
			return &rl->routes[i];
	return NULL;
}

/*
 * Gives back the in-flight slot of a request on `route`.  It was taken on
 * the bucket `id` names (the hash, or the route while the hash was unknown);
 * if that bucket holds none (the hash was learned by another answer while
 * this request was out), it was taken on the route-keyed bucket.
 */
static void release_slot(struct ratelimit *rl, const char *id,
			 const char *route, uint64_t major)
{
	struct ratelimit_bucket *held = bucket_find(rl, id, major);
	struct ratelimit_bucket *pseudo = bucket_find(rl, route, major);

	if (held && held->inflight > 0)
		held->inflight--;
	else if (pseudo && pseudo->inflight > 0)
		pseudo->inflight--;
}

void ratelimit_cancel(struct ratelimit *rl, const struct ratelimit_key *k)
{
	struct ratelimit_route *r = route_find(rl, k->route);

	if (r)
		release_slot(rl, r->hash[0] ? r->hash : r->route, r->route,
			     major_hash(k->major));
}

/* Learns limit/remaining/reset from h; 0 if h carried no full set. */
static int apply_headers(struct ratelimit_bucket *b,
			 const struct ratelimit_headers *h, uint64_t now_ms)
{
	uint64_t reset_at;

	if (h->limit < 0 || h->remaining < 0 || h->reset_after < 0)
		return 0;
	reset_at = now_ms + secs_to_ms(h->reset_after);
	if (b->known && now_ms < b->reset_at) {
		/* Same window: answers may arrive out of order, so the
		 * lowest remaining is the truest.  The reset time is the
		 * same absolute instant in every answer; take the latest. */
		if (h->remaining < b->remaining)
			b->remaining = h->remaining;
		b->reset_at = reset_at;
	} else {
		b->remaining = h->remaining;
		b->reset_at = reset_at;
	}
	b->limit = h->limit;
	b->known = 1;
	return 1;
}

uint64_t ratelimit_backoff_ms(struct ratelimit *rl, unsigned attempt)
{
	uint64_t d = RATELIMIT_BACKOFF_BASE_MS;

	assert(attempt >= 1);
	while (--attempt && d < RATELIMIT_BACKOFF_CAP_MS)
		d *= 2;
	if (d > RATELIMIT_BACKOFF_CAP_MS)
		d = RATELIMIT_BACKOFF_CAP_MS;
	return d / 2 + rng_below(&rl->rng, (uint32_t)(d - d / 2 + 1));
}

enum ratelimit_action ratelimit_update(struct ratelimit *rl,
				       const struct ratelimit_key *k,
				       uint64_t now_ms,
				       const struct ratelimit_headers *h,
				       unsigned attempt, uint64_t *retry_ms)
{
	struct ratelimit_route *r = route_get(rl, k->route, now_ms);
	struct ratelimit_bucket *b, *pseudo;
	uint64_t retry, major = major_hash(k->major);
	char held[RATELIMIT_ROUTE_MAX];
	int shared = h->scope == RATELIMIT_SCOPE_SHARED;
	int global = h->global || h->scope == RATELIMIT_SCOPE_GLOBAL;

	/* A global 429 says nothing about this route's bucket. */
	copy_str(held, sizeof(held), r->hash[0] ? r->hash : r->route);
	if (h->bucket[0] && !(h->status == 429 && global))
		copy_str(r->hash, sizeof(r->hash), h->bucket);
	release_slot(rl, held, r->route, major);
	/* Once the hash is known the route-keyed bucket has served its
	 * purpose; drop it before bucket_get() might reuse its slot. */
	pseudo = bucket_find(rl, r->route, major);
	if (r->hash[0] && pseudo && !pseudo->inflight)
		memset(pseudo, 0, sizeof(*pseudo));
	b = bucket_get(rl, r->hash[0] ? r->hash : r->route, major, now_ms);
	b->last_used = now_ms;

	if (h->status == 429) {
		if (h->retry_after >= 0)
			retry = secs_to_ms(h->retry_after);
		else if (h->reset_after >= 0)
			retry = secs_to_ms(h->reset_after);
		else
			retry = RATELIMIT_DEFAULT_RETRY_MS + RATELIMIT_RESET_MARGIN_MS;
		if (global) {
			rl->global_until = max_u64(rl->global_until,
						   now_ms + retry);
		} else if (shared) {
			/* The resource is busy for everyone: wait, but our
			 * own budget is untouched. */
			b->blocked_until = max_u64(b->blocked_until,
						   now_ms + retry);
		} else {
			apply_headers(b, h, now_ms);
			b->blocked_until = max_u64(b->blocked_until,
						   now_ms + retry);
			if (b->known) {
				b->remaining = 0;
				b->reset_at = max_u64(b->reset_at, now_ms + retry);
			}
		}
		if (attempt >= RATELIMIT_MAX_ATTEMPTS)
			return RATELIMIT_GIVE_UP;
		*retry_ms = retry;
		return RATELIMIT_RETRY;
	}

	if (h->status == 0 || h->status >= 500) {
		apply_headers(b, h, now_ms);
		if (attempt >= RATELIMIT_MAX_ATTEMPTS)
			return RATELIMIT_GIVE_UP;
		*retry_ms = ratelimit_backoff_ms(rl, attempt);
		return RATELIMIT_RETRY;
	}

	if (!apply_headers(b, h, now_ms) && !b->known) {
		/* An answer without rate-limit headers: the route has no
		 * per-route limit; only the global cap applies. */
		b->known = 1;
		b->limit = b->remaining = UNLIMITED;
		b->reset_at = 0;
	}
	return RATELIMIT_DONE;
}
