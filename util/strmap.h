/*
 * strmap: a hash table from NUL-terminated strings to pointers, for indexes
 * whose keys come from outside (Matrix room and user ids).
 *
 * Keys are hashed with SipHash-2-4 under a 128-bit key the owner picks (a
 * random one in the bot), so someone who does not know it cannot choose
 * ids that collide and turn lookups back into scans.  Open addressing with
 * linear probing and backward-shift deletion (no tombstones); the table
 * doubles at 3/4 full and never shrinks.
 *
 *	struct strmap rooms;
 *	strmap_init(&rooms, k0, k1);
 *	strmap_put(&rooms, r->id, r);		// r->id lives inside r
 *	r = strmap_get(&rooms, "!abc:example.org");
 *	strmap_del(&rooms, r->id);
 *	strmap_release(&rooms);
 *
 * Ownership: the map owns its table only.  Keys and values are borrowed: a
 * key must stay valid and unchanged while its entry is in the map (keep it
 * inside the value).  Iteration (strmap_next) must not be mixed with
 * strmap_put or strmap_del: collect first, then change.
 */
#ifndef UTIL_STRMAP_H
#define UTIL_STRMAP_H

#include <stddef.h>
#include <stdint.h>

struct strmap_slot {
	const char *key;	/* NULL: empty */
	void *val;
	uint64_t hash;
};

struct strmap {
	struct strmap_slot *slots;	/* owned; cap entries */
	size_t cap, n;
	uint64_t k0, k1;
};

#define STRMAP_INIT { 0 }

/* An empty map hashing with the key (k0, k1). */
void strmap_init(struct strmap *m, uint64_t k0, uint64_t k1);
/* Frees the table (not the keys or values); the map is empty again. */
void strmap_release(struct strmap *m);

/* The value stored under key, or NULL. */
void *strmap_get(const struct strmap *m, const char *key);
/* Stores val under key (borrowed, see above); returns the value it
 * replaces, or NULL. */
void *strmap_put(struct strmap *m, const char *key, void *val);
/* Removes key; returns its value, or NULL when it was not there. */
void *strmap_del(struct strmap *m, const char *key);

static inline size_t strmap_count(const struct strmap *m)
{
	return m->n;
}

/*
 * Iteration: for (i = 0; (i = strmap_next(m, i, &val)); ) uses val.  Returns
 * the position after the next entry at or after i and sets *val, or 0 at
 * the end.  The order is the table's.
 */
size_t strmap_next(const struct strmap *m, size_t i, void **val);

/* SipHash-2-4 of n bytes under (k0, k1) (exposed for the tests). */
uint64_t strmap_siphash(uint64_t k0, uint64_t k1, const void *p, size_t n);

#endif
