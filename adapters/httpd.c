/*
 * httpd: see httpd.h.  One lws context with one vhost listening on the
 * operator's address; one protocol whose callback answers every request
 * from the route table.  A response is built whole by the handler (the
 * bodies are small: /metrics is tens of KB, a game's page about 30 KB), its
 * headers written at once and its body in pieces of HTTPD_CHUNK bytes, one
 * per WRITEABLE callback.
 *
 * An event stream keeps its connection: it is linked into its topic (a
 * hash of topics, each a list of its streams), and what is published is
 * appended to each stream's own output, written in WRITEABLE.  A stream
 * gives its header table back to lws at once (lws_http_mark_sse), so the
 * pool of HTTPD_HEADER_POOL tables only covers requests being parsed.
 *
 * Client addresses (the rate limit's buckets, the streams per address)
 * live in an open-addressed table of ADDR_SLOTS; it is swept of the
 * addresses that carry no state (a full bucket, no stream) when it fills,
 * and when it is full of live ones the newcomers share one slot.
 */
#include "adapters/httpd.h"

#include <arpa/inet.h>
#include <errno.h>
#include <sys/socket.h>
#include <sys/resource.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <libwebsockets.h>

#include "adapters/lwsctx.h"
#include "util/meters.h"

#define HTTPD_CHUNK 16384
#define HTTPD_PATH_MAX 128	/* a route's path or prefix */
#define TOPIC_BUCKETS 1024
#define ADDR_SLOTS 8192		/* a power of two */
#define ADDR_OVERFLOW ADDR_SLOTS	/* shared once the table is full */
#define ADDR_EXEMPT (ADDR_SLOTS + 1)	/* a proxy on this machine, untrusted */
#define ADDR_STR 64
#define QUERY_MAX 1024
#define DIRECT_MAX 1024		/* an event up to this long may skip the queue */

static const char csp[] =
	"default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'; "
	"connect-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'";

struct route {
	char path[HTTPD_PATH_MAX];
	size_t len;
	httpd_fn fn;		/* an exact route's */
	httpd_req_fn rfn;	/* a prefix route's */
	void *ctx;
	unsigned meter;		/* the route label's index */
};

struct conn;

struct topic {
	struct topic *next;	/* in its hash chain */
	struct conn *first;	/* its streams */
	unsigned n;
	char name[HTTPD_TOPIC_MAX];
};

struct addr {
	unsigned char key[16];	/* IPv4 as ::ffff:a.b.c.d; IPv6 cut to its /64 */
	int used;
	uint64_t tokens;	/* thousandths of a request */
	uint64_t at;		/* when tokens was right (uv_now, ms) */
	unsigned streams;
};

struct httpd {
	uv_loop_t *loop;
	struct lwsctx lx;
	struct route routes[HTTPD_MAX_ROUTES];
	int nroutes;
	int port;
	int dead;
	int *gone;		/* httpd_new()'s flag: set when torn down */
	struct httpd_limits lim;
	struct httpd_stats st;
	struct topic *topics[TOPIC_BUCKETS];
	struct addr *addrs;	/* ADDR_SLOTS, then ADDR_OVERFLOW and ADDR_EXEMPT */
	unsigned naddrs;
};

/* Per connection (lws's per-session data, zeroed when bound). */
struct conn {
	struct lws *wsi;
	unsigned char *out;	/* what is left to write: out[off..len) */
	size_t len, off, cap;
	int close_after;	/* close once the answer is out (a 405) */
	/* an event stream */
	int stream;
	int ending;		/* close once out is written */
	int closing;		/* out is written: close at the next WRITEABLE */
	int progress;		/* bytes went out since the last keep-alive */
	int rx_on;		/* lws polls it for input (want_write) */
	struct topic *topic;
	struct conn *prev, *next;	/* in the topic's list */
	unsigned char akey[16];	/* its address (streams per address) */
	unsigned special;	/* counted in ADDR_OVERFLOW or ADDR_EXEMPT, or 0 */
};

/* ---- the address ---- */

static int is_loopback(const char *host, int v6)
{
	unsigned char a[16];
	static const unsigned char one[16] = { [15] = 1 };
	static const unsigned char mapped[12] = { [10] = 0xff, [11] = 0xff };

	if (!v6)
		return inet_pton(AF_INET, host, a) == 1 && a[0] == 127;
	if (inet_pton(AF_INET6, host, a) != 1)
		return 0;
	return !memcmp(a, one, 16) || (!memcmp(a, mapped, 12) && a[12] == 127);
}

int httpd_parse_addr(const char *spec, int allow_public, char *host, size_t hostsz, int *port,
		     int *v6, struct buf *err)
{
	unsigned char a[16];
	const char *colon, *h = spec, *p;
	size_t hl;
	char *end;
	long n;

	*v6 = 0;
	if (!spec || !*spec)
		goto bad;
	if (*spec == '[') {
		colon = strstr(spec, "]:");
		if (!colon)
			goto bad;
		h = spec + 1;
		hl = (size_t)(colon - h);
		p = colon + 2;
		*v6 = 1;
	} else {
		colon = strrchr(spec, ':');
		if (!colon || memchr(spec, ':', (size_t)(colon - spec)))
			goto bad;	/* an IPv6 literal needs its brackets */
		hl = (size_t)(colon - spec);
		p = colon + 1;
	}
	if (!hl || hl >= hostsz || !*p || *p == '-' || *p == '+')
		goto bad;
	n = strtol(p, &end, 10);
	if (*end || n < 0 || n > 65535)
		goto bad;
	memcpy(host, h, hl);
	host[hl] = '\0';
	if (!*v6 && !strcmp(host, "localhost"))
		snprintf(host, hostsz, "127.0.0.1");
	if (inet_pton(*v6 ? AF_INET6 : AF_INET, host, a) != 1)
		goto bad;
	*port = (int)n;
	if (!allow_public && !is_loopback(host, *v6)) {
		buf_setf(err, "%s is not a loopback address: the listener would be reachable from"
			 " other machines; set TABULA_HTTP_PUBLIC=1 to allow it", spec);
		return -1;
	}
	return 0;
bad:
	buf_setf(err, "the listen address must be HOST:PORT with HOST an IP address "
		 "(IPv6 in brackets: [::1]:9464) or localhost");
	return -1;
}

/* ---- client addresses: the rate limit and the streams per address ---- */

static uint32_t hash_bytes(const void *p, size_t n)
{
	const unsigned char *b = p;
	uint32_t x = 2166136261u;

	while (n--)
		x = (x ^ *b++) * 16777619u;
	return x;
}

/* The address's key: IPv4 (plain or mapped) whole, IPv6 by its /64 (what
 * one host, or one customer, is commonly given); anything else shares the
 * zero key. */
static void addr_key(const char *peer, unsigned char key[16])
{
	static const unsigned char mapped[12] = { [10] = 0xff, [11] = 0xff };
	unsigned char a[16];

	memset(key, 0, 16);
	if (inet_pton(AF_INET, peer, a) == 1) {
		memcpy(key, mapped, 12);
		memcpy(key + 12, a, 4);
	} else if (inet_pton(AF_INET6, peer, a) == 1) {
		memcpy(key, a, memcmp(a, mapped, 12) ? 8 : 16);
	}
}

static void addr_refill(const struct httpd *h, struct addr *a, uint64_t now)
{
	uint64_t full = (uint64_t)h->lim.burst * 1000;

	if (now > a->at)
		a->tokens += (now - a->at) * h->lim.per_second;
	if (a->tokens > full)
		a->tokens = full;
	a->at = now;
}

/* Keeps the addresses that carry state (tokens spent, or streams). */
static void addr_sweep(struct httpd *h)
{
	struct addr *old = h->addrs;
	uint64_t now = uv_now(h->loop), full = (uint64_t)h->lim.burst * 1000;
	uint32_t i, j;

	h->addrs = xcalloc(ADDR_SLOTS + 2, sizeof(*h->addrs));
	h->addrs[ADDR_OVERFLOW] = old[ADDR_OVERFLOW];
	h->addrs[ADDR_EXEMPT] = old[ADDR_EXEMPT];
	h->naddrs = 0;
	for (i = 0; i < ADDR_SLOTS; i++) {
		if (!old[i].used)
			continue;
		addr_refill(h, &old[i], now);
		if (!old[i].streams && old[i].tokens >= full)
			continue;
		j = hash_bytes(old[i].key, 16) & (ADDR_SLOTS - 1);
		while (h->addrs[j].used)
			j = (j + 1) & (ADDR_SLOTS - 1);
		h->addrs[j] = old[i];
		h->naddrs++;
	}
	free(old);
}

/* The address's slot (made when create), the shared one when the table is
 * full of live addresses; NULL when !create and it has none. */
static struct addr *addr_get(struct httpd *h, const unsigned char key[16], int create)
{
	uint32_t i = hash_bytes(key, 16) & (ADDR_SLOTS - 1);
	struct addr *a;

	/* never full (at most 3/4 used): the probe ends */
	while (h->addrs[i].used) {
		if (!memcmp(h->addrs[i].key, key, 16))
			return &h->addrs[i];
		i = (i + 1) & (ADDR_SLOTS - 1);
	}
	if (!create)
		return NULL;
	if (h->naddrs >= ADDR_SLOTS / 4 * 3) {
		addr_sweep(h);
		if (h->naddrs >= ADDR_SLOTS / 4 * 3)
			return &h->addrs[ADDR_OVERFLOW];
		return addr_get(h, key, create);
	}
	a = &h->addrs[i];
	memset(a, 0, sizeof(*a));
	a->used = 1;
	memcpy(a->key, key, 16);
	a->tokens = (uint64_t)h->lim.burst * 1000;
	a->at = uv_now(h->loop);
	h->naddrs++;
	return a;
}

/* Takes a request from the address's bucket: 0, or the seconds until one
 * is there (Retry-After). */
static unsigned rate_take(struct httpd *h, struct addr *a)
{
	uint64_t ms;

	if (!h->lim.per_second || a == &h->addrs[ADDR_EXEMPT])
		return 0;
	addr_refill(h, a, uv_now(h->loop));
	if (a->tokens >= 1000) {
		a->tokens -= 1000;
		return 0;
	}
	ms = (1000 - a->tokens + h->lim.per_second - 1) / h->lim.per_second;
	return (unsigned)((ms + 999) / 1000) + !ms;
}

/* The client's address into out: the peer's, or X-Forwarded-For's last
 * (the address the proxy saw) when the operator trusts the proxy. */
static void client_addr(const struct httpd *h, struct lws *wsi, char *out, size_t outsz)
{
	char xff[HTTPD_HEADER_MAX], *last, *e;
	unsigned char a[16];

	if (h->lim.trust_proxy && lws_hdr_total_length(wsi, WSI_TOKEN_X_FORWARDED_FOR) > 0 &&
	    lws_hdr_copy(wsi, xff, sizeof(xff), WSI_TOKEN_X_FORWARDED_FOR) > 0) {
		last = strrchr(xff, ',');
		last = last ? last + 1 : xff;
		last += strspn(last, " \t");
		e = last + strcspn(last, " \t");
		*e = '\0';
		if (strlen(last) < outsz && (inet_pton(AF_INET, last, a) == 1 ||
					     inet_pton(AF_INET6, last, a) == 1)) {
			memcpy(out, last, strlen(last) + 1);
			return;
		}
	}
	if (!lws_get_peer_simple(wsi, out, outsz))
		snprintf(out, outsz, "unknown");
}

/* ---- topics ---- */

static struct topic **topic_slot(struct httpd *h, const char *name)
{
	struct topic **tp = &h->topics[hash_bytes(name, strlen(name)) % TOPIC_BUCKETS];

	while (*tp && strcmp((*tp)->name, name))
		tp = &(*tp)->next;
	return tp;
}

static void subscribe(struct httpd *h, struct conn *c, const char *name)
{
	struct topic **tp = topic_slot(h, name), *t = *tp;

	if (!t) {
		t = xcalloc(1, sizeof(*t));
		snprintf(t->name, sizeof(t->name), "%s", name);
		*tp = t;
	}
	c->topic = t;
	c->prev = NULL;
	c->next = t->first;
	if (t->first)
		t->first->prev = c;
	t->first = c;
	t->n++;
}

unsigned httpd_topic_streams(struct httpd *h, const char *topic)
{
	struct topic *t = *topic_slot(h, topic);

	return t ? t->n : 0;
}

static void unsubscribe(struct httpd *h, struct conn *c)
{
	struct topic *t = c->topic, **tp;

	if (!t)
		return;
	if (c->prev)
		c->prev->next = c->next;
	else
		t->first = c->next;
	if (c->next)
		c->next->prev = c->prev;
	c->topic = NULL;
	c->prev = c->next = NULL;
	if (--t->n)
		return;
	tp = topic_slot(h, t->name);
	*tp = t->next;
	free(t);
}

/* ---- a connection's output ---- */

static void out_add(struct conn *c, const void *p, size_t n)
{
	if (c->off && c->off == c->len)
		c->off = c->len = 0;
	if (c->len + n > c->cap) {
		if (c->off) {	/* slide what is left to the front first */
			memmove(c->out, c->out + c->off, c->len - c->off);
			c->len -= c->off;
			c->off = 0;
		}
		if (c->len + n > c->cap) {
			c->cap = c->len + n < 256 ? 256 : (c->len + n) * 2;
			c->out = xrealloc(c->out, c->cap);
		}
	}
	memcpy(c->out + c->len, p, n);
	c->len += n;
}

static void out_free(struct conn *c)
{
	free(c->out);
	c->out = NULL;
	c->len = c->off = c->cap = 0;
}

/* The connection is over (or its answer is): what it holds goes. */
static void conn_end(struct httpd *h, struct conn *c)
{
	struct addr *a;

	out_free(c);
	if (!c->stream)
		return;
	unsubscribe(h, c);
	a = c->special ? &h->addrs[c->special] : addr_get(h, c->akey, 0);
	if (a && a->streams)
		a->streams--;
	if (h->st.streams)
		h->st.streams--;
	c->stream = 0;
}

/*
 * A stream asks for WRITEABLE when it has something to write, else for
 * nothing.  lws reads nothing of a stream (its state is "doing the
 * transaction") yet polls it for input, and the loop's poll is level
 * triggered: a viewer that hung up would spin the loop.  So input is
 * polled only while writing (lws's h1 also dispatches POLLOUT only then);
 * a hang-up is seen by the write or the next keep-alive (hung_up).
 */
static void want_write(struct conn *c)
{
	int want = c->off < c->len || c->ending;

	if (want != c->rx_on) {
		lws_rx_flow_control(c->wsi, want);
		c->rx_on = want;
	}
	if (want)
		lws_callback_on_writable(c->wsi);
}

/* A viewer too far behind: lws closes it on its next turn (not here: the
 * caller may be walking the topic's list). */
static void drop(struct httpd *h, struct conn *c)
{
	if (c->ending)
		return;
	c->ending = 1;
	h->st.streams_dropped++;
	lws_set_timeout(c->wsi, PENDING_TIMEOUT_HTTP_CONTENT, LWS_TO_KILL_ASYNC);
}

size_t httpd_publish(struct httpd *h, const char *topic, const char *text, size_t len)
{
	unsigned char now[LWS_PRE + DIRECT_MAX];
	struct topic *t;
	struct conn *c;
	size_t n = 0;

	if (!h || h->dead || !topic || !len)
		return 0;
	t = *topic_slot(h, topic);
	if (len <= DIRECT_MAX)
		memcpy(now + LWS_PRE, text, len);
	for (c = t ? t->first : NULL; c; c = c->next) {
		if (c->ending)
			continue;
		if (c->len - c->off + len > HTTPD_STREAM_PENDING_MAX) {
			drop(h, c);
			continue;
		}
		n++;
		/* a viewer with nothing waiting and room in its socket gets
		 * it at once: a send, no loop turn (what the socket does not
		 * take lws keeps and sends first) */
		if (len <= DIRECT_MAX && c->off == c->len && !lws_send_pipe_choked(c->wsi)) {
			if (lws_write(c->wsi, now + LWS_PRE, len, LWS_WRITE_HTTP) < (int)len) {
				c->ending = 1;	/* the viewer is gone */
				lws_set_timeout(c->wsi, PENDING_TIMEOUT_HTTP_CONTENT,
						LWS_TO_KILL_ASYNC);
			}
			c->progress = 1;
			continue;
		}
		out_add(c, text, len);
		want_write(c);
	}
	return n;
}

void httpd_close_topic(struct httpd *h, const char *topic, const char *text)
{
	struct topic *t;
	struct conn *c;

	if (!h || h->dead || !topic)
		return;
	t = *topic_slot(h, topic);
	for (c = t ? t->first : NULL; c; c = c->next) {
		if (c->ending)
			continue;
		if (text)
			out_add(c, text, strlen(text));
		/* written, then closed (write_more); a viewer that does not
		 * take it has HTTPD_TIMEOUT_S (its keep-alives are over) */
		c->ending = 1;
		lws_set_timeout(c->wsi, PENDING_TIMEOUT_HTTP_CONTENT, HTTPD_TIMEOUT_S);
		want_write(c);
	}
}

/* Whether the viewer hung up (or, no EventSource, sent anything at all). */
static int hung_up(struct lws *wsi)
{
	char b;
	ssize_t n = recv(lws_get_socket_fd(wsi), &b, 1, MSG_PEEK | MSG_DONTWAIT);

	return n >= 0 || (errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR);
}

/* Every keepalive_ms: a comment, so that proxies and browsers keep the
 * stream; a viewer that hung up, or took nothing since the last one while
 * bytes waited for it, is dropped. */
static void keepalive(struct httpd *h, struct lws *wsi, struct conn *c)
{
	static const char ka[] = ": keepalive\n\n";

	if (!c->stream || c->ending)
		return;
	if (hung_up(wsi)) {
		c->ending = 1;
		lws_set_timeout(wsi, PENDING_TIMEOUT_HTTP_CONTENT, LWS_TO_KILL_ASYNC);
		return;
	}
	if (c->off < c->len && !c->progress) {
		drop(h, c);
		return;
	}
	c->progress = 0;
	out_add(c, ka, sizeof(ka) - 1);
	want_write(c);
	lws_set_timer_usecs(wsi, (lws_usec_t)h->lim.keepalive_ms * 1000);
}

/* ---- answering ---- */

static const struct route *find_route(const struct httpd *h, const char *path)
{
	const struct route *best = NULL;
	int i;

	for (i = 0; i < h->nroutes; i++)
		if (h->routes[i].fn && !strcmp(h->routes[i].path, path))
			return &h->routes[i];
	for (i = 0; i < h->nroutes; i++)
		if (h->routes[i].rfn && !strncmp(h->routes[i].path, path, h->routes[i].len) &&
		    (!best || h->routes[i].len > best->len))
			best = &h->routes[i];
	return best;
}

/* 0 when the path may be routed, else the status refusing it.  lws has
 * decoded %XX and folded "/../" already; this refuses what is left. */
static int path_status(const char *path, int total)
{
	size_t n = strlen(path), i;

	if (n > HTTPD_PATH_CAP)
		return 414;
	if (path[0] != '/' || (int)n != total || strstr(path, ".."))
		return 400;	/* (n != total: a NUL inside) */
	for (i = 0; i < n; i++)
		if ((unsigned char)path[i] < 0x20 || path[i] == 0x7f)
			return 400;
	return 0;
}

/* The request line's path as lws holds it, whatever the method. */
static int uri_length(struct lws *wsi)
{
	static const enum lws_token_indexes uris[] = {
		WSI_TOKEN_GET_URI, WSI_TOKEN_HEAD_URI, WSI_TOKEN_POST_URI,
		WSI_TOKEN_OPTIONS_URI, WSI_TOKEN_PUT_URI, WSI_TOKEN_PATCH_URI,
		WSI_TOKEN_DELETE_URI,
	};
	size_t i;
	int n;

	for (i = 0; i < sizeof(uris) / sizeof(uris[0]); i++)
		if ((n = lws_hdr_total_length(wsi, uris[i])) > 0)
			return n;
	return -1;
}

static int hdr(struct lws *wsi, const char *name, const char *value, unsigned char **p,
	       unsigned char *end)
{
	return lws_add_http_header_by_name(wsi, (const unsigned char *)name,
					   (const unsigned char *)value, (int)strlen(value), p,
					   end);
}

/* The status line and every header of an answer; 0 or -1. */
static int add_headers(struct lws *wsi, const struct httpd_response *rs, lws_filepos_t len,
		       unsigned retry_after, unsigned char **p, unsigned char *end)
{
	char cc[48], ra[16];

	if (rs->cache_seconds > 0)
		snprintf(cc, sizeof(cc), "public, max-age=%d", rs->cache_seconds);
	else
		snprintf(cc, sizeof(cc), "no-store");
	snprintf(ra, sizeof(ra), "%u", retry_after);
	return lws_add_http_common_headers(wsi, (unsigned)rs->status, rs->type, len, p, end) ||
	       hdr(wsi, "cache-control:", cc, p, end) ||
	       hdr(wsi, "content-security-policy:", csp, p, end) ||
	       hdr(wsi, "referrer-policy:", "no-referrer", p, end) ||
	       hdr(wsi, "x-content-type-options:", "nosniff", p, end) ||
	       hdr(wsi, "x-robots-tag:", "noindex, nofollow", p, end) ||
	       (retry_after && hdr(wsi, "retry-after:", ra, p, end)) ||
	       (rs->status == 405 && (hdr(wsi, "allow:", "GET, HEAD", p, end) ||
				      hdr(wsi, "connection:", "close", p, end))) ?
		       -1 : 0;
}

/*
 * Writes the headers of the answer and keeps its body for WRITEABLE.
 * Returns what the lws callback must return.
 */
static int respond(struct httpd *h, struct lws *wsi, struct conn *c, int head,
		   struct httpd_response *rs, unsigned meter, unsigned retry_after)
{
	unsigned char hdrs[LWS_PRE + 2048], *start = hdrs + LWS_PRE, *p = start,
		      *end = hdrs + sizeof(hdrs) - 1;
	size_t len = rs->body.len;

	metric_inc(&met_listener_requests, meter, meters_status(rs->status));
	h->st.requests++;
	if (add_headers(wsi, rs, len, retry_after, &p, end) ||
	    lws_finalize_write_http_header(wsi, start, &p, end))
		return -1;
	if (head || !len)
		return c->close_after || lws_http_transaction_completed(wsi) ? -1 : 0;
	out_add(c, rs->body.s, len);
	/* a reader that does not read gets HTTPD_TIMEOUT_S to do so */
	lws_set_timeout(wsi, PENDING_TIMEOUT_HTTP_CONTENT, HTTPD_TIMEOUT_S);
	lws_callback_on_writable(wsi);
	return 0;
}

static void refuse(struct httpd_response *rs, int status, const char *text)
{
	rs->status = status;
	rs->type = "text/plain; charset=utf-8";
	rs->stream = NULL;
	rs->cache_seconds = 0;
	buf_reset(&rs->body);
	buf_addstr(&rs->body, text);
}

/* rs is a stream's first answer: the headers, then the connection joins
 * its topic.  Returns what the lws callback must return. */
static int start_stream(struct httpd *h, struct lws *wsi, struct conn *c,
			struct httpd_response *rs, struct addr *a, const unsigned char key[16],
			unsigned meter)
{
	unsigned char hdrs[LWS_PRE + 2048], *start = hdrs + LWS_PRE, *p = start,
		      *end = hdrs + sizeof(hdrs) - 1;
	int per_addr;

	if (strlen(rs->stream) >= HTTPD_TOPIC_MAX) {
		refuse(rs, 500, "bad topic\n");
		return respond(h, wsi, c, 0, rs, meter, 0);
	}
	per_addr = a != &h->addrs[ADDR_EXEMPT] && a->streams >= h->lim.streams_per_addr;
	if (h->st.streams >= h->lim.max_streams || per_addr) {
		/* all viewers' share, or this address's */
		h->st.streams_refused++;
		refuse(rs, per_addr ? 429 : 503,
		       "too many event streams; try again later\n");
		return respond(h, wsi, c, 0, rs, meter, HTTPD_KEEPALIVE_S);
	}
	metric_inc(&met_listener_requests, meter, meters_status(200));
	h->st.requests++;
	rs->cache_seconds = 0;
	rs->type = "text/event-stream";
	if (add_headers(wsi, rs, LWS_ILLEGAL_HTTP_CONTENT_LEN, 0, &p, end) ||
	    lws_finalize_write_http_header(wsi, start, &p, end))
		return -1;
	/* no time-out from now on, and its header table goes back to lws */
	lws_http_mark_sse(wsi);
	lws_set_timeout(wsi, NO_PENDING_TIMEOUT, 0);
	c->stream = 1;
	c->rx_on = 1;
	c->progress = 1;
	c->wsi = wsi;
	memcpy(c->akey, key, 16);
	c->special = a >= &h->addrs[ADDR_SLOTS] ? (unsigned)(a - h->addrs) : 0;
	a->streams++;
	h->st.streams++;
	subscribe(h, c, rs->stream);
	if (rs->body.len)
		out_add(c, rs->body.s, rs->body.len);
	want_write(c);
	lws_set_timer_usecs(wsi, (lws_usec_t)h->lim.keepalive_ms * 1000);
	return 0;
}

static int write_more(struct lws *wsi, struct conn *c)
{
	unsigned char chunk[LWS_PRE + HTTPD_CHUNK];
	size_t n = c->len - c->off;
	int last;

	if (!n)		/* a stream that ends: lws has written all it held */
		return c->stream && c->ending ? -1 : 0;
	if (n > HTTPD_CHUNK)
		n = HTTPD_CHUNK;
	last = !c->stream && c->off + n == c->len;
	memcpy(chunk + LWS_PRE, c->out + c->off, n);
	if (lws_write(wsi, chunk + LWS_PRE, n, last ? LWS_WRITE_HTTP_FINAL : LWS_WRITE_HTTP) <
	    (int)n)
		return -1;
	c->off += n;
	c->progress = 1;
	if (c->stream) {
		if (c->off == c->len && c->cap > 4 * HTTPD_CHUNK)
			out_free(c);	/* a burst's buffer is not kept */
		want_write(c);
		return 0;
	}
	if (c->off < c->len) {
		lws_callback_on_writable(wsi);
		return 0;
	}
	out_free(c);
	if (c->close_after)
		return -1;	/* the small answer went out whole with the write */
	lws_set_timeout(wsi, NO_PENDING_TIMEOUT, 0);
	return lws_http_transaction_completed(wsi) ? -1 : 0;
}

/* The query, its fragments (lws splits it at '&') joined again; 0, or -1
 * when it is longer than outsz allows. */
static int get_query(struct lws *wsi, char *out, size_t outsz)
{
	size_t n = 0;
	int i, k;

	out[0] = '\0';
	for (i = 0; lws_hdr_fragment_length(wsi, WSI_TOKEN_HTTP_URI_ARGS, i) > 0; i++) {
		if (n + 2 >= outsz)
			return -1;
		if (i)
			out[n++] = '&';
		k = lws_hdr_copy_fragment(wsi, out + n, (int)(outsz - n), WSI_TOKEN_HTTP_URI_ARGS,
					  i);
		if (k < 0)
			return -1;
		n += (size_t)k;
	}
	out[n] = '\0';
	return 0;
}

static int on_request(struct httpd *h, struct lws *wsi, struct conn *c, const char *uri)
{
	struct httpd_response rs = { .status = 200, .type = "text/plain; charset=utf-8" };
	struct httpd_request rq;
	const struct route *r = NULL;
	struct addr *a = NULL;
	unsigned meter = metric_value(&met_listener_requests, 0, "other"), wait = 0;
	unsigned char key[16];
	char peer[ADDR_STR], query[QUERY_MAX];
	int head, st, ret;

	conn_end(h, c);
	c->close_after = 0;
	c->wsi = wsi;
	buf_init(&rs.body, HTTPD_BODY_MAX);
	uri = uri ? uri : "";
	head = lws_hdr_total_length(wsi, WSI_TOKEN_HEAD_URI) > 0;
	st = path_status(uri, uri_length(wsi));
	if (!st && (r = find_route(h, uri)))
		meter = r->meter;
	if (!head && lws_hdr_total_length(wsi, WSI_TOKEN_GET_URI) <= 0) {
		/* its body (a POST's) is not read: the connection ends with
		 * the answer rather than parse that body as a request */
		c->close_after = 1;
		refuse(&rs, 405, "method not allowed: GET or HEAD\n");
	} else if (st) {
		refuse(&rs, st, st == 414 ? "path too long\n" : "bad path\n");
	} else if (r && r->fn) {
		/* the operators' routes: scrapers are never turned away */
		r->fn(r->ctx, &rs);
	} else {
		client_addr(h, wsi, peer, sizeof(peer));
		addr_key(peer, key);
		/* untrusted, a proxy on this machine would be every client:
		 * limited as one, all would be; the global caps hold */
		a = !h->lim.trust_proxy && is_loopback(peer, !!strchr(peer, ':'))
			? &h->addrs[ADDR_EXEMPT] : addr_get(h, key, 1);
		if ((wait = rate_take(h, a))) {
			h->st.rate_limited++;
			refuse(&rs, 429, "too many requests\n");
		} else if (!r) {
			refuse(&rs, 404, "not found\n");
		} else if (get_query(wsi, query, sizeof(query))) {
			refuse(&rs, 414, "query too long\n");
		} else {
			rq.path = uri;
			rq.rest = uri + r->len;
			rq.query = query;
			rq.peer = peer;
			r->rfn(r->ctx, &rq, &rs);
		}
	}
	if (rs.body.toobig)
		refuse(&rs, 500, "answer too large\n");
	if (rs.stream && rs.status == 200 && !head && a)
		ret = start_stream(h, wsi, c, &rs, a, key, meter);
	else
		ret = respond(h, wsi, c, head, &rs, meter, wait);
	buf_release(&rs.body);
	return ret;
}

static int httpd_callback(struct lws *wsi, enum lws_callback_reasons why, void *user, void *in,
			  size_t len)
{
	struct lws_context *lc = lws_get_context(wsi);
	struct httpd *h = lc ? lws_context_user(lc) : NULL;
	struct conn *c = user;

	if (!h)
		return 0;
	switch (why) {
	case LWS_CALLBACK_FILTER_NETWORK_CONNECTION:
		/* before lws makes anything of an accepted socket */
		if (h->dead || h->st.conns >= h->lim.max_conns) {
			h->st.turned_away++;
			return 1;
		}
		return 0;
	case LWS_CALLBACK_WSI_CREATE:
		/* every accepted connection, from its accept to its end
		 * (WSI_DESTROY), silent ones included */
		h->st.conns++;
		h->st.accepted++;
		return 0;
	case LWS_CALLBACK_WSI_DESTROY:
		if (h->st.conns)
			h->st.conns--;
		return 0;
	case LWS_CALLBACK_HTTP:
		if (h->dead || !c)
			return -1;
		return on_request(h, wsi, c, in);
	case LWS_CALLBACK_HTTP_BODY:
		return 0;	/* only 405s have bodies, and they close */
	case LWS_CALLBACK_HTTP_WRITEABLE:
		if (h->dead || !c)
			return -1;
		return write_more(wsi, c);
	case LWS_CALLBACK_TIMER:
		if (c && !h->dead)
			keepalive(h, wsi, c);
		return 0;
	case LWS_CALLBACK_HTTP_DROP_PROTOCOL:
	case LWS_CALLBACK_CLOSED_HTTP:
		if (c)
			conn_end(h, c);
		return 0;
	default:
		return 0;
	}
}

static const struct lws_protocols httpd_protocols[] = {
	{ .name = "tabula-http", .callback = httpd_callback,
	  .per_session_data_size = sizeof(struct conn), .rx_buffer_size = 4096 },
	{ .name = NULL },
};

/* ---- the server ---- */

/* How many connections the descriptors allow: the soft RLIMIT_NOFILE is
 * raised towards the hard one for want connections and what the rest of
 * the bot keeps open (FD_SPARE); past it accept() would fail in a loop.
 * *direct: the limit is small enough for lws to keep a table indexed by
 * descriptor (else it is sized by want and searched at every event). */
#define FD_SPARE 256
#define FD_DIRECT_MAX 65536
static unsigned fd_room(unsigned want, int *direct)
{
	struct rlimit rl;

	*direct = 0;
	if (getrlimit(RLIMIT_NOFILE, &rl))
		return want;
	if (rl.rlim_cur != RLIM_INFINITY && rl.rlim_cur < (rlim_t)want + FD_SPARE) {
		rl.rlim_cur = rl.rlim_max == RLIM_INFINITY || rl.rlim_max > (rlim_t)want + FD_SPARE
			? (rlim_t)want + FD_SPARE : rl.rlim_max;
		setrlimit(RLIMIT_NOFILE, &rl);
		if (getrlimit(RLIMIT_NOFILE, &rl))
			return want;
	}
	*direct = rl.rlim_cur != RLIM_INFINITY && rl.rlim_cur <= FD_DIRECT_MAX;
	if (rl.rlim_cur != RLIM_INFINITY && rl.rlim_cur < (rlim_t)want + FD_SPARE)
		want = rl.rlim_cur > 2 * FD_SPARE ? (unsigned)(rl.rlim_cur - FD_SPARE) : 16;
	return want;
}

struct httpd *httpd_new(uv_loop_t *loop, const char *spec, int allow_public, int *gone,
			struct buf *err)
{
	struct lws_context_creation_info info;
	struct lws_vhost *vh;
	struct httpd *h;
	const char *trust;
	char host[64];
	int port, v6, direct;

	if (gone)
		*gone = 1;
	if (httpd_parse_addr(spec, allow_public, host, sizeof(host), &port, &v6, err))
		return NULL;
	trust = getenv("TABULA_HTTP_TRUST_PROXY");
	if (trust && *trust && strcmp(trust, "0") && strcmp(trust, "1")) {
		buf_setf(err, "TABULA_HTTP_TRUST_PROXY must be 1 or 0");
		return NULL;
	}
	/* process-wide, as in adapters/ws.c: lws's lines may quote peers */
	lws_set_log_level(getenv("WSDBG") ? 0x7ff : 0, NULL);
	h = xcalloc(1, sizeof(*h));
	h->loop = loop;
	h->gone = gone;
	httpd_default_limits(&h->lim);
	h->lim.max_conns = fd_room(h->lim.max_conns, &direct);
	h->addrs = xcalloc(ADDR_SLOTS + 2, sizeof(*h->addrs));
	memset(&info, 0, sizeof(info));
	info.port = port;	/* 0: the kernel picks a free one */
	info.iface = host;
	info.protocols = httpd_protocols;
	info.gid = (gid_t)-1;
	info.uid = (uid_t)-1;
	info.user = h;
	/* the vhost is made below, so that a port in use is an error rather
	 * than a context that silently listens nowhere */
	info.options = LWS_SERVER_OPTION_EXPLICIT_VHOSTS |
		       LWS_SERVER_OPTION_FAIL_UPON_UNABLE_TO_BIND |
		       (v6 ? 0 : LWS_SERVER_OPTION_DISABLE_IPV6);
	info.max_http_header_data = HTTPD_HEADER_MAX;
	/* only requests being parsed hold one: a stream gives its back */
	info.max_http_header_pool = HTTPD_HEADER_POOL;
	info.timeout_secs = HTTPD_TIMEOUT_S;
	info.timeout_secs_ah_idle = HTTPD_TIMEOUT_S;
	info.keepalive_timeout = HTTPD_TIMEOUT_S;
	/* 0: lws's table of descriptors sized by the process's limit and
	 * indexed by descriptor (fd_room) */
	info.fd_limit_per_thread = direct ? 0 : h->lim.max_conns + 8;
	info.server_string = "tabula";
	if (lwsctx_create(&h->lx, loop, &info)) {
		buf_setf(err, "cannot start the HTTP server (libuv event plugin missing?)");
		free(h->addrs);
		free(h);
		return NULL;
	}
	if (gone)
		*gone = 0;	/* from now on the teardown takes loop turns */
	vh = lws_create_vhost(h->lx.lws, &info);
	h->port = vh ? lws_get_vhost_listen_port(vh) : 0;
	if (h->port <= 0) {
		buf_setf(err, "cannot listen on %s (in use, or not an address of this machine?)",
			 spec);
		httpd_free(h);
		return NULL;
	}
	return h;
}

static struct route *add_route(struct httpd *h, const char *path)
{
	struct route *r;

	if (h->nroutes == HTTPD_MAX_ROUTES || !path || path[0] != '/' ||
	    strlen(path) >= HTTPD_PATH_MAX)
		return NULL;
	r = &h->routes[h->nroutes++];
	snprintf(r->path, sizeof(r->path), "%s", path);
	r->len = strlen(path);
	return r;
}

/* The route label of a path or prefix: its first segment when the
 * metric knows it ("/metrics", "/g/"), else "other". */
static unsigned route_meter(const char *path)
{
	char seg[HTTPD_PATH_MAX];
	size_t n = strcspn(path + 1, "/");
	unsigned m;

	if (n >= sizeof(seg))
		n = sizeof(seg) - 1;
	memcpy(seg, path + 1, n);
	seg[n] = 0;
	m = metric_value(&met_listener_requests, 0, seg);
	return m < met_listener_requests.labels[0].n ? m
		: metric_value(&met_listener_requests, 0, "other");
}

int httpd_route_prefix(struct httpd *h, const char *prefix, httpd_req_fn fn, void *ctx)
{
	struct route *r;

	if (!prefix || !*prefix || prefix[strlen(prefix) - 1] != '/' || !fn ||
	    !(r = add_route(h, prefix)))
		return -1;
	r->rfn = fn;
	r->ctx = ctx;
	r->meter = route_meter(prefix);
	return 0;
}

int httpd_route(struct httpd *h, const char *path, httpd_fn fn, void *ctx)
{
	struct route *r;

	if (!fn || !(r = add_route(h, path)))
		return -1;
	r->fn = fn;
	r->ctx = ctx;
	r->meter = route_meter(path);
	return 0;
}

void httpd_default_limits(struct httpd_limits *l)
{
	const char *trust = getenv("TABULA_HTTP_TRUST_PROXY");

	l->max_conns = HTTPD_MAX_CONNS;
	l->max_streams = HTTPD_MAX_STREAMS;
	l->streams_per_addr = HTTPD_STREAMS_PER_ADDR;
	l->burst = HTTPD_RATE_BURST;
	l->per_second = HTTPD_RATE_PER_S;
	l->trust_proxy = trust && !strcmp(trust, "1");
	l->keepalive_ms = HTTPD_KEEPALIVE_S * 1000;
}

void httpd_set_limits(struct httpd *h, const struct httpd_limits *l)
{
	unsigned room = h->lim.max_conns;	/* what lws was sized for */

	h->lim = *l;
	if (h->lim.max_conns > room)
		h->lim.max_conns = room;
}

int httpd_port(const struct httpd *h)
{
	return h->port;
}

void httpd_stats(const struct httpd *h, struct httpd_stats *out)
{
	*out = h->st;
}

static void on_gone(struct lwsctx *x)
{
	struct httpd *h = (struct httpd *)((char *)x - offsetof(struct httpd, lx));

	int i;

	if (h->gone)
		*h->gone = 1;
	if (x->lws)
		return;	/* lws never let go: leaked, not freed under it */
	/* lws closed every stream (conn_end): no topic is left but in case */
	for (i = 0; i < TOPIC_BUCKETS; i++)
		while (h->topics[i]) {
			struct topic *t = h->topics[i];

			h->topics[i] = t->next;
			free(t);
		}
	free(h->addrs);
	free(h);
}

void httpd_free(struct httpd *h)
{
	if (!h || h->dead)
		return;
	h->dead = 1;
	lwsctx_destroy(&h->lx, on_gone);
}
