#include "util/rng.h"

#include <assert.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

void rng_seed(struct rng *r, uint64_t seed, uint64_t stream)
{
	r->state = 0;
	r->inc = (stream << 1) | 1u;
	rng_next(r);
	r->state += seed;
	rng_next(r);
}

uint32_t rng_below_retry(struct rng *r, uint32_t n, uint32_t x)
{
	uint32_t threshold = (uint32_t)(-n) % n;

	while (x < threshold)
		x = rng_next(r);
	return x;
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

json_t *rng_to_json(const struct rng *r)
{
	json_t *j = json_object();
	char hex[17];

	snprintf(hex, sizeof(hex), "%016" PRIx64, r->state);
	json_object_set_new(j, "state", json_string(hex));
	snprintf(hex, sizeof(hex), "%016" PRIx64, r->inc);
	json_object_set_new(j, "inc", json_string(hex));
	return j;
}

static int hex_u64(const json_t *v, uint64_t *out)
{
	const char *p;
	uint64_t x = 0;
	int n = 0;

	if (!json_is_string(v))
		return -1;
	for (p = json_string_value(v); *p; p++, n++) {
		int d;

		if (*p >= '0' && *p <= '9')
			d = *p - '0';
		else if (*p >= 'a' && *p <= 'f')
			d = *p - 'a' + 10;
		else
			return -1;
		if (n >= 16)
			return -1;
		x = x << 4 | (uint64_t)d;
	}
	if (n == 0)
		return -1;
	*out = x;
	return 0;
}

int rng_from_json(const json_t *j, struct rng *r)
{
	uint64_t state, inc;

	/* PCG needs an odd increment */
	if (!json_is_object(j) || hex_u64(json_object_get(j, "state"), &state) ||
	    hex_u64(json_object_get(j, "inc"), &inc) || !(inc & 1))
		return -1;
	r->state = state;
	r->inc = inc;
	return 0;
}
