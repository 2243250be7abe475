/*
 * weblink: the public address of a game's web page (bot/weblink.c;
 * docs/web.md, "Links and tokens").  A service above the session core:
 * the messages that post the link (the start, the final board, `game
 * web`) ask it here.
 */
#ifndef BOT_WEBLINK_H
#define BOT_WEBLINK_H

#include "bot/core.h"

/*
 * Checks TABULA_PUBLIC_URL's value: an absolute http:// or https:// URL
 * (a host, an optional port and path; no user, query or fragment, no
 * space), written to out[n] without its trailing slashes.  NULL or ""
 * is no address: 0 and out "".  0, or -1 + err (what is wrong with it).
 */
int weblink_base_parse(const char *value, char *out, size_t n, struct buf *err);

/* Sets m's public address (value as weblink_base_parse takes it): 0, -1 + err. */
int weblink_set_base(struct session_mgr *m, const char *value, struct buf *err);

/*
 * The public address of s's page ("https://…/g/<token>") into url,
 * creating its token if it has none yet (a write of its own, before the
 * commit of whatever posts it).  0; 1 when there are no pages
 * (TABULA_PUBLIC_URL unset) or the room's page is off (`game web off`),
 * url untouched; -1 + err (a session not stored yet, the store).
 */
int weblink_url(struct session_mgr *m, const struct session *s, struct buf *url,
		struct buf *err);

/* Gives s a new token (the old link finds nothing from now on) and its
 * address into url: 0, 1 when there are no pages (url untouched), -1 + err. */
int weblink_reset(struct session_mgr *m, const struct session *s, struct buf *url,
		  struct buf *err);

/* Appends "Watch and replay: <url>" to r, a line of its own, the address a
 * RICH_LINK (each platform shows it as a link, no markup inside it). */
void weblink_rich_line(struct rich *r, enum locale loc, const char *url);

/* Appends "Watch and replay: <url>" (a line of its own) to r when s has a
 * page; a store failure is logged and posts no link. */
void weblink_add_line(struct session_mgr *m, const struct session *s, enum locale loc,
		      struct rich *r);

#endif
