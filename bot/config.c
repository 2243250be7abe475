/*
 * config: reads the optional configuration file into the environment's
 * defaults (bot/config.h), refusing a file others could write or read.
 * It must not override what the environment already sets.
 */
#include "bot/config.h"

#include "state/store.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* A token, a password, or a store URI that holds a password. */
static int is_secret(const char *key, const char *val)
{
	size_t n = strlen(key);
	struct buf shown = BUF_INIT;
	int has_password;

	if ((n >= 5 && !strcmp(key + n - 5, "TOKEN")) ||
	    (n >= 8 && !strcmp(key + n - 8, "PASSWORD")) ||
	    (n >= 4 && !strcmp(key + n - 4, "_KEY")))
		return 1;
	if (strcmp(key, "TABULA_DB"))
		return 0;
	store_describe(val, &shown);
	has_password = strcmp(buf_str(&shown), val) != 0;
	buf_release(&shown);
	return has_password;
}

static char *trim(char *s)
{
	char *e;

	while (isspace((unsigned char)*s))
		s++;
	e = s + strlen(s);
	while (e > s && isspace((unsigned char)e[-1]))
		*--e = '\0';
	return s;
}

int config_load(const char *path, struct buf *err)
{
	FILE *f = fopen(path, "r");
	char line[4096];
	struct stat stbuf;
	int lineno = 0, ret = -1, shared;

	if (!f) {
		buf_setf(err, "cannot read %s", path);
		return -1;
	}
	if (fstat(fileno(f), &stbuf)) {
		buf_setf(err, "cannot check %s", path);
		goto fail;
	}
	/* whoever can change the file chooses the bot's endpoints, store and
	 * tokens: only its owner may write it, secret or not */
	if (stbuf.st_mode & 022) {
		buf_setf(err, "%s can be changed by others (it is group- or world-writable):"
			 " chmod go-w %s", path, path);
		goto fail;
	}
	shared = (stbuf.st_mode & 077) != 0;
	while (fgets(line, sizeof(line), f)) {
		char *eq, *key, *val;
		size_t i;

		lineno++;
		key = trim(line);
		if (!*key || *key == '#')
			continue;
		eq = strchr(key, '=');
		if (!eq) {
			buf_setf(err, "%s:%d: expected KEY=VALUE", path, lineno);
			goto fail;
		}
		*eq = '\0';
		key = trim(key);
		val = trim(eq + 1);
		for (i = 0; key[i]; i++) {
			if (!isupper((unsigned char)key[i]) && !isdigit((unsigned char)key[i]) &&
			    key[i] != '_') {
				buf_setf(err, "%s:%d: a key is written in CAPITALS_AND_UNDERSCORES",
					 path, lineno);
				goto fail;
			}
		}
		if (!*key) {
			buf_setf(err, "%s:%d: empty key", path, lineno);
			goto fail;
		}
		if (is_secret(key, val) && *val && shared) {
			/* never name the value: only the key */
			buf_setf(err, "%s holds %s but others can read it: chmod 600 %s",
				 path, key, path);
			goto fail;
		}
		if (!getenv(key))
			setenv(key, val, 1);
	}
	ret = 0;
fail:
	fclose(f);
	return ret;
}
