/*
 * rng: a small seeded generator (PCG32).  Game states embed one so that
 * setup(seed) plus the move log replays a game exactly; nothing here reads a
 * clock or global state.
 */
#ifndef UTIL_RNG_H
#define UTIL_RNG_H

#include <stdint.h>

#include <jansson.h>

struct rng {
	uint64_t state;
	uint64_t inc;
};

void rng_seed(struct rng *r, uint64_t seed, uint64_t stream);
uint32_t rng_next(struct rng *r);
/* Uniform in [0, n); n > 0. */
uint32_t rng_below(struct rng *r, uint32_t n);
/* Fisher-Yates shuffle of n items of `size` bytes (size <= 64). */
void rng_shuffle(struct rng *r, void *items, uint32_t n, uint32_t size);

/* JSON form kept in game saves: {"state": hex, "inc": hex}, 64-bit values
 * as hex strings because JSON numbers lose them.  rng_to_json returns a new
 * reference; rng_from_json returns 0, or -1 on any malformed value (r
 * unchanged). */
json_t *rng_to_json(const struct rng *r);
int rng_from_json(const json_t *j, struct rng *r);

#endif
