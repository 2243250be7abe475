/*
 * config: the optional configuration file.  Lines are KEY=VALUE (the same
 * names as the environment variables, see config/tabula.conf.example);
 * '#' starts a comment.  The environment wins: a key already set in the
 * environment is left alone, so the file only supplies defaults.
 *
 * The file must not be writable by group or others (whoever can change it
 * chooses the bot's endpoints, store and tokens), and a file holding a
 * secret (a key ending in TOKEN, PASSWORD or _KEY) must not be readable by them
 * either; such files are refused.
 */
#ifndef BOT_CONFIG_H
#define BOT_CONFIG_H

#include "util/buf.h"

/* Loads path into the environment.  0, or -1 with err (unreadable file,
 * a file others can write, a malformed line, a secret in a file others can
 * read). */
int config_load(const char *path, struct buf *err);

#endif
