/*
 * rng: a small seeded generator (PCG32).  Game states embed one so that
 * setup(seed) plus the move log replays a game exactly; nothing here reads a
 * clock or global state.
 */
#ifndef UTIL_RNG_H
#define UTIL_RNG_H

#include <assert.h>
#include <stdint.h>

#include <jansson.h>

struct rng {
	uint64_t state;
	uint64_t inc;
};

void rng_seed(struct rng *r, uint64_t seed, uint64_t stream);

/* Inline: random playouts draw once per decision, and a call plus the
 * rejection threshold's division cost more than the generator itself. */
static inline uint32_t rng_next(struct rng *r)
{
	uint64_t old = r->state;
	uint32_t xorshifted, rot;

	r->state = old * 6364136223846793005ULL + r->inc;
	xorshifted = (uint32_t)(((old >> 18u) ^ old) >> 27u);
	rot = (uint32_t)(old >> 59u);
	return (xorshifted >> rot) | (xorshifted << ((-rot) & 31));
}

/* The rejection loop of rng_below once x fell below n (rare). */
uint32_t rng_below_retry(struct rng *r, uint32_t n, uint32_t x);

/* Uniform in [0, n); n > 0.  Draws rng_next until it is at least
 * 2^32 mod n, then reduces it mod n.  That threshold is below n, so a draw
 * of n or more is accepted without computing it. */
static inline uint32_t rng_below(struct rng *r, uint32_t n)
{
	uint32_t x;

	assert(n > 0);
	x = rng_next(r);
	if (__builtin_expect(x < n, 0))
		x = rng_below_retry(r, n, x);
	return x % n;
}

/* Fisher-Yates shuffle of n items of `size` bytes (size <= 64). */
void rng_shuffle(struct rng *r, void *items, uint32_t n, uint32_t size);

/* JSON form kept in game saves: {"state": hex, "inc": hex}, 64-bit values
 * as hex strings because JSON numbers lose them.  rng_to_json returns a new
 * reference; rng_from_json returns 0, or -1 on any malformed value (r
 * unchanged). */
json_t *rng_to_json(const struct rng *r);
int rng_from_json(const json_t *j, struct rng *r);

#endif
