/*
 * weblink: the public address of a game's web page (bot/weblink.h):
 * TABULA_PUBLIC_URL checked once, a session's token from the store
 * (made the first time the link is needed), and the line that posts it.
 * It owns no page: serving one is bot/web.c's, over adapters/httpd.c.
 */
#include <stdio.h>
#include <string.h>

#include "bot/roomset.h"
#include "bot/weblink.h"
#include "util/logging.h"

/* Characters of a host (a name, an IPv4 or a bracketed IPv6 address,
 * with a port) and of a path: no space, quote, angle bracket, '?', '#'
 * or '@', nothing a chat platform or an HTML attribute would read. */
static int host_char(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
	       c == '.' || c == '-' || c == ':' || c == '[' || c == ']';
}

static int path_char(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
	       c == '.' || c == '-' || c == '_' || c == '~' || c == '/' || c == '%';
}

int weblink_base_parse(const char *value, char *out, size_t n, struct buf *err)
{
	size_t len, skip, i, host_len;
	const char *host;

	if (n)
		out[0] = '\0';
	if (!value || !*value)
		return 0;
	if (!strncmp(value, "https://", 8))
		skip = 8;
	else if (!strncmp(value, "http://", 7))
		skip = 7;
	else {
		buf_setf(err, "TABULA_PUBLIC_URL must be an absolute http:// or https:// address"
			 " (e.g. https://play.example.org), not '%.100s'", value);
		return -1;
	}
	len = strlen(value);
	while (len > skip && value[len - 1] == '/')
		len--;
	host = value + skip;
	host_len = strcspn(host, "/");
	if (host_len > len - skip)
		host_len = len - skip;
	if (!host_len) {
		buf_setf(err, "TABULA_PUBLIC_URL names no host: '%.100s'", value);
		return -1;
	}
	for (i = 0; i < host_len; i++) {
		if (!host_char(host[i])) {
			buf_setf(err, "TABULA_PUBLIC_URL: '%c' has no place in its host (a user,"
				 " a space or another character that is not part of a name, an"
				 " address or a port): '%.100s'", host[i], value);
			return -1;
		}
	}
	for (i = skip + host_len; i < len; i++) {
		if (!path_char(value[i])) {
			buf_setf(err, "TABULA_PUBLIC_URL: '%c' has no place in its path (no"
				 " query, fragment or space): '%.100s'", value[i], value);
			return -1;
		}
	}
	if (len + 1 > n || len > 400) {
		buf_setf(err, "TABULA_PUBLIC_URL is longer than 400 characters");
		return -1;
	}
	memcpy(out, value, len);
	out[len] = '\0';
	return 0;
}

int weblink_set_base(struct session_mgr *m, const char *value, struct buf *err)
{
	return weblink_base_parse(value, m->web_base, sizeof(m->web_base), err);
}

static void address(const struct session_mgr *m, const char *token, struct buf *url)
{
	buf_setf(url, "%s/g/%s", m->web_base, token);
}

int weblink_url(struct session_mgr *m, const struct session *s, struct buf *url,
		struct buf *err)
{
	char token[STORE_WEB_TOKEN_MAX];
	struct room_settings rs;

	if (!m->web_base[0])
		return 1;
	roomset_read(&s->rec, &rs);
	if (!rs.web)
		return 1;
	if (s->rec.id <= 0) {
		buf_setf(err, "the game of %s/%s is not stored yet: no link", s->rec.platform,
			 s->rec.room);
		return -1;
	}
	/* several processes asking at once all post the one stored first */
	if (store_web_ensure(m->store, s->rec.id, token, sizeof(token), err))
		return -1;
	address(m, token, url);
	return 0;
}

int weblink_reset(struct session_mgr *m, const struct session *s, struct buf *url,
		  struct buf *err)
{
	char token[STORE_WEB_TOKEN_MAX];

	if (!m->web_base[0])
		return 1;
	if (store_web_reset(m->store, s->rec.id, token, sizeof(token), err))
		return -1;
	address(m, token, url);
	return 0;
}

void weblink_rich_line(struct rich *r, enum locale loc, const char *url)
{
	rich_text(r, "%s", L(loc, "Watch and replay: ", "Mira y repasa la partida: "));
	rich_link(r, url);
	rich_newline(r);
}

void weblink_add_line(struct session_mgr *m, const struct session *s, enum locale loc,
		      struct rich *r)
{
	struct buf url = BUF_INIT, err = BUF_INIT;
	int rc = weblink_url(m, s, &url, &err);

	if (!rc)
		weblink_rich_line(r, loc, buf_str(&url));
	else if (rc < 0)
		log_warn("web link of %s/%s: %s", s->rec.platform, s->rec.room, buf_str(&err));
	buf_release(&url);
	buf_release(&err);
}
