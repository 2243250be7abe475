#include "tests/support/capture.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void record(struct capture_adapter *c, const char *room, const char *user,
		   const struct rich *body, const char *key, int64_t id)
{
	struct buf text = BUF_INIT;
	struct captured *m;

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
}

static int cap_send(struct adapter *a, const struct outmsg *m, struct buf *err)
{
	struct capture_adapter *c = (struct capture_adapter *)a;

	record(c, m->room, m->user, m->body, m->key, m->outbox_id);
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

static struct adapter_ops capture_ops[4];

struct capture_adapter *capture_new(const char *platform)
{
	struct capture_adapter *c = xcalloc(1, sizeof(*c));
	int i;

	/* one ops table per platform name, so several fakes can coexist */
	for (i = 0; i < 4; i++) {
		if (!capture_ops[i].name || !strcmp(capture_ops[i].name, platform)) {
			capture_ops[i] = (struct adapter_ops){
				.api_version = ADAPTER_API_VERSION, .name = platform,
				.start = cap_start, .stop = cap_stop, .send = cap_send,
				.reply = cap_reply, .free = cap_free,
			};
			c->base.ops = &capture_ops[i];
			break;
		}
	}
	c->confirm = 1;
	return c;
}

void capture_clear(struct capture_adapter *c)
{
	size_t i;

	for (i = 0; i < c->n; i++) {
		free(c->v[i].room);
		free(c->v[i].user);
		free(c->v[i].text);
		free(c->v[i].key);
	}
	c->n = 0;
}

void capture_free(struct capture_adapter *c)
{
	capture_clear(c);
	free(c->v);
	free(c);
}

void capture_cmd_len(struct capture_adapter *c, const char *room, const char *user,
		     const char *text, size_t len)
{
	struct command cmd = {
		.platform = c->base.ops->name, .room = room, .user = user, .name = user,
		.text = text, .text_len = len,
	};

	c->base.on_command(c->base.ctx, &c->base, &cmd);
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
