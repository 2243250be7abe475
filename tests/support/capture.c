#include "tests/support/capture.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static struct captured *record(struct capture_adapter *c, const char *room, const char *user,
			       const struct rich *body, const char *key, int64_t id)
{
	struct buf text = BUF_INIT, ment = BUF_INIT;
	struct captured *m;
	size_t i;

	if (c->n == c->cap) {
		c->cap = c->cap ? c->cap * 2 : 64;
		c->v = xrealloc(c->v, c->cap * sizeof(*c->v));
	}
	m = &c->v[c->n++];
	rich_to_plain(body, &text);
	m->room = xstrdup(room);
	m->user = user ? xstrdup(user) : NULL;
	m->text = buf_detach(&text);
	m->key = key ? xstrdup(key) : NULL;
	m->outbox_id = id;
	m->session = m->version = m->over_session = 0;
	m->locale = NULL;
	m->follow = 0;
	m->picture = NULL;
	m->png_len = 0;
	buf_addstr(&ment, "");
	for (i = 0; i < body->n; i++)
		if (body->v[i].kind == RICH_MENTION)
			buf_printf(&ment, "%s ", body->v[i].user ? body->v[i].user : "");
	m->mentions = buf_detach(&ment);
	return m;
}

/* An entry for the picture img (NULL: none; text: what came instead) of
 * the message at index of. */
static void record_picture(struct capture_adapter *c, size_t of,
			   const struct adapter_image *img, const struct rich *text)
{
	struct rich r = RICH_INIT;
	struct captured *m;
	char *room = xstrdup(c->v[of].room), *user = c->v[of].user ? xstrdup(c->v[of].user) : NULL;
	char *key = c->v[of].key ? xstrdup(c->v[of].key) : NULL;
	int64_t id = c->v[of].outbox_id;

	if (img)
		rich_text(&r, "[picture %s]", img->name ? img->name : "");
	else if (text)
		rich_append(&r, text);
	m = record(c, room, user, &r, key, id);
	m->picture = xstrdup(img && img->name ? img->name : "");
	m->png_len = img ? img->len : 0;
	rich_release(&r);
	free(room);
	free(user);
	free(key);
}

static int cap_send(struct adapter *a, const struct outmsg *m, struct buf *err)
{
	struct capture_adapter *c = (struct capture_adapter *)a;
	struct captured *r = record(c, m->room, m->user, m->body, m->key, m->outbox_id);

	r->session = m->session;
	r->version = m->version;
	r->over_session = m->over_session;
	r->locale = m->locale ? xstrdup(m->locale) : NULL;
	if (m->image && m->image->follow) {
		r->follow = m->image->follow;
		return 0;	/* confirmed with its picture */
	}
	if (m->image)
		record_picture(c, c->n - 1, m->image, NULL);
	if (c->confirm && m->outbox_id && a->on_sent)
		a->on_sent(a->ctx, a, m->outbox_id);
	return 0;
}

static int cap_reply(struct adapter *a, const struct command *cmd, int private_,
		     const struct rich *body, struct buf *err)
{
	record((struct capture_adapter *)a, cmd->room, private_ ? cmd->user : NULL, body,
	       NULL, 0);
	return 0;
}

static int cap_reply_image(struct adapter *a, const struct command *cmd, int private_,
			   const struct rich *body, const struct adapter_image *img,
			   struct buf *err)
{
	struct capture_adapter *c = (struct capture_adapter *)a;
	struct captured *r = record(c, cmd->room, private_ ? cmd->user : NULL, body, NULL, 0);

	if (img->follow)
		r->follow = img->follow;
	else
		record_picture(c, c->n - 1, img, NULL);
	return 0;
}

static int cap_picture(struct adapter *a, uint64_t follow, const struct adapter_image *img,
		       const struct rich *text, struct buf *err)
{
	struct capture_adapter *c = (struct capture_adapter *)a;
	size_t i;
	int64_t id;

	for (i = c->n; i-- > 0;)
		if (c->v[i].follow == follow && !c->v[i].picture)
			break;
	if (i == (size_t)-1)
		return 0;	/* not ours */
	id = c->v[i].outbox_id;
	c->v[i].follow = 0;
	record_picture(c, i, img, text);
	c->v[c->n - 1].follow = follow;	/* which message it was for */
	if (c->confirm && id && a->on_sent)
		a->on_sent(a->ctx, a, id);
	return 0;
}

static int cap_start(struct adapter *a, uv_loop_t *loop, struct buf *err)
{
	return 0;
}

static void cap_stop(struct adapter *a)
{
}

static void cap_free(struct adapter *a)
{
	capture_free((struct capture_adapter *)a);
}

#define CAPTURE_KINDS 8
static struct adapter_ops capture_ops[CAPTURE_KINDS];
static char capture_names[CAPTURE_KINDS][32];

static struct capture_adapter *capture_kind(const char *platform, unsigned caps, int pictures)
{
	struct capture_adapter *c = xcalloc(1, sizeof(*c));
	int i;

	/* one ops table per platform name and caps, so several fakes can
	 * coexist; a table once made is never changed under a live fake */
	for (i = 0; i < CAPTURE_KINDS; i++) {
		if (capture_ops[i].name) {
			if (strcmp(capture_ops[i].name, platform) || capture_ops[i].caps != caps ||
			    !capture_ops[i].picture != !pictures)
				continue;
		} else {
			snprintf(capture_names[i], sizeof(capture_names[i]), "%s", platform);
			capture_ops[i] = (struct adapter_ops){
				.api_version = ADAPTER_API_VERSION, .name = capture_names[i],
				.caps = caps, .start = cap_start, .stop = cap_stop,
				.send = cap_send, .reply = cap_reply, .free = cap_free,
				.reply_image = pictures ? cap_reply_image : NULL,
				.picture = pictures ? cap_picture : NULL,
			};
		}
		c->base.ops = &capture_ops[i];
		break;
	}
	if (!c->base.ops) {
		fprintf(stderr, "capture: too many kinds of fake adapters\n");
		abort();
	}
	c->confirm = 1;
	return c;
}

struct capture_adapter *capture_new_caps(const char *platform, unsigned caps)
{
	return capture_kind(platform, caps, 0);
}

struct capture_adapter *capture_new_pictures(const char *platform, unsigned caps)
{
	return capture_kind(platform, caps, 1);
}

struct capture_adapter *capture_new(const char *platform)
{
	return capture_new_caps(platform, 0);
}

void capture_clear(struct capture_adapter *c)
{
	size_t i;

	for (i = 0; i < c->n; i++) {
		free(c->v[i].room);
		free(c->v[i].user);
		free(c->v[i].text);
		free(c->v[i].key);
		free(c->v[i].locale);
		free(c->v[i].mentions);
		free(c->v[i].picture);
	}
	c->n = 0;
}

void capture_free(struct capture_adapter *c)
{
	capture_clear(c);
	free(c->v);
	free(c);
}

static void run_cmd_named(struct capture_adapter *c, const char *room, const char *user,
			  const char *name, const char *text, size_t len, int64_t session,
			  int64_t version, int direct)
{
	struct command cmd = {
		.platform = c->base.ops->name, .room = room, .user = user, .name = name,
		.text = text, .text_len = len,
		.expect_session = session, .expect_version = version, .direct = direct,
		.locale = c->locale,
		.community = c->community,
	};

	c->base.on_command(c->base.ctx, &c->base, &cmd);
}

void capture_cmd_named(struct capture_adapter *c, const char *room, const char *user,
		       const char *name, const char *text)
{
	run_cmd_named(c, room, user, name, text, strlen(text), 0, 0, 0);
}

static void run_cmd_full(struct capture_adapter *c, const char *room, const char *user,
			 const char *text, size_t len, int64_t session, int64_t version,
			 int direct)
{
	struct command cmd = {
		.platform = c->base.ops->name, .room = room, .user = user, .name = user,
		.text = text, .text_len = len,
		.expect_session = session, .expect_version = version, .direct = direct,
		.locale = c->locale,
		.community = c->community,
	};

	c->base.on_command(c->base.ctx, &c->base, &cmd);
}

static void run_cmd(struct capture_adapter *c, const char *room, const char *user,
		    const char *text, size_t len, int64_t session, int64_t version)
{
	run_cmd_full(c, room, user, text, len, session, version, 0);
}

void capture_cmd_rematch(struct capture_adapter *c, const char *room, const char *user,
			 int64_t rematch_of)
{
	struct command cmd = {
		.platform = c->base.ops->name, .room = room, .user = user, .name = user,
		.text = "rematch", .text_len = 7, .rematch_of = rematch_of, .locale = c->locale,
	};

	c->base.on_command(c->base.ctx, &c->base, &cmd);
}

void capture_cmd_direct(struct capture_adapter *c, const char *room, const char *user,
			const char *text)
{
	run_cmd_full(c, room, user, text, strlen(text), 0, 0, 1);
}

void capture_cmd_len(struct capture_adapter *c, const char *room, const char *user,
		     const char *text, size_t len)
{
	run_cmd(c, room, user, text, len, 0, 0);
}

void capture_cmd_expect(struct capture_adapter *c, const char *room, const char *user,
			const char *text, int64_t session, int64_t version)
{
	run_cmd(c, room, user, text, strlen(text), session, version);
}

void capture_cmd(struct capture_adapter *c, const char *room, const char *user,
		 const char *text)
{
	capture_cmd_len(c, room, user, text, strlen(text));
}

int capture_count(const struct capture_adapter *c, const char *user, const char *needle)
{
	size_t i;
	int n = 0;

	for (i = 0; i < c->n; i++) {
		const struct captured *m = &c->v[i];

		if (!user && m->user)
			continue;
		if (user && strcmp(user, "*") && (!m->user || strcmp(m->user, user)))
			continue;
		n += strstr(m->text, needle) != NULL;
	}
	return n;
}

const struct captured *capture_last(const struct capture_adapter *c, const char *user,
				    int sent, const char *needle)
{
	size_t i;

	for (i = c->n; i-- > 0;) {
		const struct captured *m = &c->v[i];

		if (!user != !m->user || (user && strcmp(user, m->user)))
			continue;
		if (!sent != !m->key)
			continue;
		if (strstr(m->text, needle))
			return m;
	}
	return NULL;
}

int capture_mentions(const struct captured *m, const char *user)
{
	const char *p = m->mentions;
	size_t n = strlen(user);

	while (p && *p) {
		const char *sp = strchr(p, ' ');

		if (!sp)
			break;
		if ((size_t)(sp - p) == n && !memcmp(p, user, n))
			return 1;
		p = sp + 1;
	}
	return 0;
}

char *capture_public_text(const struct capture_adapter *c)
{
	struct buf b = BUF_INIT;
	size_t i;

	for (i = 0; i < c->n; i++)
		if (!c->v[i].user)
			buf_printf(&b, "%s\n", c->v[i].text);
	return buf_detach(&b);
}

void capture_dump(const struct capture_adapter *c)
{
	size_t i;

	for (i = 0; i < c->n; i++)
		fprintf(stderr, "--- %s %s\n%s\n", c->v[i].room,
			c->v[i].user ? c->v[i].user : "(room)", c->v[i].text);
}
