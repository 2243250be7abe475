/*
 * version: what this build is and where it lives, for `tabula --version`
 * and Discord's User-Agent ("DiscordBot (<url>, <version>)").  One place
 * each: the version is the VERSION file at the top of the tree, the address
 * the Makefile's TABULA_URL; the Makefile hands both to util/version.c
 * alone, so changing them rebuilds one file.
 */
#ifndef UTIL_VERSION_H
#define UTIL_VERSION_H

extern const char tabula_version[];	/* "0.1" */
extern const char tabula_url[];		/* "https://..." */

#endif
