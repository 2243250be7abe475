/*
 * The static registry of games (curl's available_backends[]).  A game is
 * added by declaring its ops here and listing it once; game_find refuses
 * nothing at run time because a duplicate id or alias is a build-time bug
 * that tests/unit/test_game.c catches.
 */
#include <stddef.h>
#include <string.h>

#include "games/game.h"
#include "util/text.h"

extern const struct game_ops fortuna_ops;
extern const struct game_ops gtr_ops;
extern const struct game_ops sylla_ops;
extern const struct game_ops builders_ops;

static const struct game_ops *const registry[] = {
	&fortuna_ops,
	&gtr_ops,
	&sylla_ops,
	&builders_ops,
	NULL,
};

const struct game_ops *const *game_all(void)
{
	return registry;
}

const struct game_ops *game_find(const char *name)
{
	size_t i, k;

	if (!name)
		return NULL;
	for (i = 0; registry[i]; i++) {
		const struct game_ops *g = registry[i];

		if (text_eq(name, g->id))
			return g;
		for (k = 0; k < LOC_COUNT; k++)
			if (g->name[k] && text_eq(name, g->name[k]))
				return g;
		for (k = 0; g->aliases && g->aliases[k]; k++)
			if (text_eq(name, g->aliases[k]))
				return g;
	}
	return NULL;
}
