/*
 * tabula-secrets: what is hidden now, for the public-payload tests.
 *
 * Reads lines "<game id>\t<saved state JSON>" on stdin (the integration
 * tests take them from the bot's store while it runs) and prints, one per
 * line and each once, every string the game's secrets() names in either
 * language: text that must not appear in anything the room can read at
 * that moment.  Exit 0; 2 on a line it cannot load (the test fails).
 *
 * --serve: the same for one request after another, so that a test that
 * asks after every step starts the program (and its libraries) once: a
 * request is its lines followed by an empty line; the answer is its
 * secrets followed by an empty line, a line it cannot load reported as a
 * line "!" and the reason before it.
 *
 * A test tool, never installed: it reads the store the operator owns, so
 * it shows nothing the operator could not see already.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "games/game.h"

#define LINE_MAX_BYTES (64u << 20)

static int seen(char **v, size_t n, const char *s)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (!strcmp(v[i], s))
			return 1;
	return 0;
}

static void flush_out(char **out, size_t *nout)
{
	size_t i;

	for (i = 0; i < *nout; i++) {
		printf("%s\n", out[i]);
		free(out[i]);
	}
	*nout = 0;
}

int main(int argc, char **argv)
{
	char *line = NULL, **out = NULL;
	size_t cap = 0, nout = 0, capout = 0;
	ssize_t len;
	int rc = 0, serve = argc > 1 && !strcmp(argv[1], "--serve");

	while ((len = getline(&line, &cap, stdin)) > 0) {
		const struct game_ops *ops;
		struct buf err = BUF_INIT, sec = BUF_INIT;
		json_t *j;
		char *tab, *p, *nl;
		void *st;
		int l;

		if ((size_t)len > LINE_MAX_BYTES)
			break;
		if (line[len - 1] == '\n')
			line[--len] = '\0';
		if (serve && !len) {
			/* the end of a request */
			if (rc)
				printf("!some state could not be read (see stderr)\n");
			flush_out(out, &nout);
			printf("\n");
			fflush(stdout);
			rc = 0;
			continue;
		}
		tab = strchr(line, '\t');
		if (!tab)
			continue;
		*tab = '\0';
		ops = game_find(line);
		j = json_loads(tab + 1, 0, NULL);
		if (!ops || !j) {
			fprintf(stderr, "tabula-secrets: cannot read a %s state\n", line);
			json_decref(j);
			rc = 2;
			continue;
		}
		st = game_state_new(ops);
		if (ops->load(st, j, &err)) {
			fprintf(stderr, "tabula-secrets: %s: %s\n", line, buf_str(&err));
			rc = 2;
		} else if (ops->secrets) {
			for (l = 0; l < LOC_COUNT; l++)
				ops->secrets(st, (enum locale)l, &sec);
		}
		for (p = (char *)buf_str(&sec); p && *p; p = nl ? nl + 1 : NULL) {
			nl = strchr(p, '\n');
			if (nl)
				*nl = '\0';
			if (*p && !seen(out, nout, p)) {
				if (nout == capout) {
					capout = capout ? capout * 2 : 64;
					out = xrealloc(out, capout * sizeof(*out));
				}
				out[nout++] = xstrdup(p);
			}
		}
		free(st);
		json_decref(j);
		buf_release(&sec);
		buf_release(&err);
	}
	flush_out(out, &nout);
	free(out);
	free(line);
	return rc;
}
