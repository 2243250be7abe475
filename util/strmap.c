/*
 * strmap: see strmap.h.  SipHash-2-4 as specified by Aumasson and Bernstein
 * ("SipHash: a fast short-input PRF", 2012): 2 compression rounds per 8-byte
 * word, 4 finalisation rounds, little-endian words, the length in the last
 * byte.
 */
#include "util/strmap.h"

#include <stdlib.h>
#include <string.h>

#include "util/buf.h"

#define ROTL(x, b) (uint64_t)(((x) << (b)) | ((x) >> (64 - (b))))

struct sip {
	uint64_t v0, v1, v2, v3;
};

static void sipround(struct sip *s)
{
	s->v0 += s->v1;
	s->v1 = ROTL(s->v1, 13);
	s->v1 ^= s->v0;
	s->v0 = ROTL(s->v0, 32);
	s->v2 += s->v3;
	s->v3 = ROTL(s->v3, 16);
	s->v3 ^= s->v2;
	s->v0 += s->v3;
	s->v3 = ROTL(s->v3, 21);
	s->v3 ^= s->v0;
	s->v2 += s->v1;
	s->v1 = ROTL(s->v1, 17);
	s->v1 ^= s->v2;
	s->v2 = ROTL(s->v2, 32);
}

static void sip_word(struct sip *s, uint64_t w)
{
	s->v3 ^= w;
	sipround(s);
	sipround(s);
	s->v0 ^= w;
}

uint64_t strmap_siphash(uint64_t k0, uint64_t k1, const void *p, size_t n)
{
	const unsigned char *b = p;
	struct sip s = {
		k0 ^ 0x736f6d6570736575ULL, k1 ^ 0x646f72616e646f6dULL,
		k0 ^ 0x6c7967656e657261ULL, k1 ^ 0x7465646279746573ULL,
	};
	uint64_t w;
	size_t i, k;

	for (i = 0; i + 8 <= n; i += 8) {
		w = 0;
		for (k = 0; k < 8; k++)
			w |= (uint64_t)b[i + k] << (8 * k);
		sip_word(&s, w);
	}
	w = (uint64_t)(n & 0xff) << 56;
	for (k = 0; i + k < n; k++)
		w |= (uint64_t)b[i + k] << (8 * k);
	sip_word(&s, w);
	s.v2 ^= 0xff;
	for (k = 0; k < 4; k++)
		sipround(&s);
	return s.v0 ^ s.v1 ^ s.v2 ^ s.v3;
}

void strmap_init(struct strmap *m, uint64_t k0, uint64_t k1)
{
	memset(m, 0, sizeof(*m));
	m->k0 = k0;
	m->k1 = k1;
}

void strmap_release(struct strmap *m)
{
	free(m->slots);
	m->slots = NULL;
	m->cap = m->n = 0;
}

static uint64_t hash_of(const struct strmap *m, const char *key)
{
	return strmap_siphash(m->k0, m->k1, key, strlen(key));
}

/* The slot holding key, or the empty slot where it would go. */
static size_t find(const struct strmap *m, const char *key, uint64_t h)
{
	size_t mask = m->cap - 1, i = (size_t)h & mask;

	while (m->slots[i].key &&
	       (m->slots[i].hash != h || strcmp(m->slots[i].key, key)))
		i = (i + 1) & mask;
	return i;
}

static void grow(struct strmap *m)
{
	struct strmap_slot *old = m->slots;
	size_t oldcap = m->cap, i;

	m->cap = oldcap ? oldcap * 2 : 16;
	m->slots = xcalloc(m->cap, sizeof(*m->slots));
	for (i = 0; i < oldcap; i++)
		if (old[i].key)
			m->slots[find(m, old[i].key, old[i].hash)] = old[i];
	free(old);
}

void *strmap_get(const struct strmap *m, const char *key)
{
	size_t i;

	if (!m->n)
		return NULL;
	i = find(m, key, hash_of(m, key));
	return m->slots[i].key ? m->slots[i].val : NULL;
}

void *strmap_put(struct strmap *m, const char *key, void *val)
{
	uint64_t h = hash_of(m, key);
	size_t i;
	void *prev;

	if ((m->n + 1) * 4 > m->cap * 3)
		grow(m);
	i = find(m, key, h);
	if (m->slots[i].key) {
		prev = m->slots[i].val;
		m->slots[i].key = key;
		m->slots[i].val = val;
		return prev;
	}
	m->slots[i].key = key;
	m->slots[i].val = val;
	m->slots[i].hash = h;
	m->n++;
	return NULL;
}

void *strmap_del(struct strmap *m, const char *key)
{
	size_t mask, i, j;
	void *val;

	if (!m->n)
		return NULL;
	mask = m->cap - 1;
	i = find(m, key, hash_of(m, key));
	if (!m->slots[i].key)
		return NULL;
	val = m->slots[i].val;
	/* backward shift: move later entries of the run into the hole when
	 * their home slot is not between the hole and them (cyclically) */
	for (j = (i + 1) & mask; m->slots[j].key; j = (j + 1) & mask) {
		size_t home = (size_t)m->slots[j].hash & mask;

		if (((j - home) & mask) >= ((j - i) & mask)) {
			m->slots[i] = m->slots[j];
			i = j;
		}
	}
	memset(&m->slots[i], 0, sizeof(m->slots[i]));
	m->n--;
	return val;
}

size_t strmap_next(const struct strmap *m, size_t i, void **val)
{
	for (; i < m->cap; i++) {
		if (m->slots[i].key) {
			*val = m->slots[i].val;
			return i + 1;
		}
	}
	return 0;
}
