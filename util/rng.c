#include "util/rng.h"

#include <assert.h>
#include <string.h>

void rng_seed(struct rng *r, uint64_t seed, uint64_t stream)
{
	r->state = 0;
	r->inc = (stream << 1) | 1u;
	rng_next(r);
	r->state += seed;
	rng_next(r);
}

uint32_t rng_next(struct rng *r)
{
	uint64_t old = r->state;
	uint32_t xorshifted, rot;

	r->state = old * 6364136223846793005ULL + r->inc;
	xorshifted = (uint32_t)(((old >> 18u) ^ old) >> 27u);
	rot = (uint32_t)(old >> 59u);
	return (xorshifted >> rot) | (xorshifted << ((-rot) & 31));
}

uint32_t rng_below(struct rng *r, uint32_t n)
{
	uint32_t threshold, x;

	assert(n > 0);
	threshold = (uint32_t)(-n) % n;
	do
		x = rng_next(r);
	while (x < threshold);
	return x % n;
}

void rng_shuffle(struct rng *r, void *items, uint32_t n, uint32_t size)
{
	unsigned char *p = items, tmp[64];
	uint32_t i;

	assert(size <= sizeof(tmp));
	for (i = n; i > 1; i--) {
		uint32_t j = rng_below(r, i);

		if (j == i - 1)
			continue;
		memcpy(tmp, p + (size_t)(i - 1) * size, size);
		memcpy(p + (size_t)(i - 1) * size, p + (size_t)j * size, size);
		memcpy(p + (size_t)j * size, tmp, size);
	}
}
