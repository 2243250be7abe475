/*
 * cluster: the node lease and the role leases of one process among several
 * (bot/cluster.h, docs/deploy.md "Leases").
 */
#include "bot/cluster.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "util/logging.h"
#include "util/meters.h"
#include "util/rng.h"

void cluster_role_init(struct cluster_role *r, const char *prefix, int first, int count,
		       int total, cluster_role_cb on_acquired, cluster_role_cb on_lost,
		       void *ctx)
{
	memset(r, 0, sizeof(*r));
	snprintf(r->prefix, sizeof(r->prefix), "%s", prefix);
	r->first = first;
	r->count = count > 0 ? count : 1;
	r->total = total;
	r->on_acquired = on_acquired;
	r->on_lost = on_lost;
	r->ctx = ctx;
}

static void role_name(const struct cluster_role *r, int i, char *out, size_t n)
{
	if (r->total)
		snprintf(out, n, "%s.%d.%d", r->prefix, i, r->total);
	else
		snprintf(out, n, "%s", r->prefix);
}

int cluster_ttl_from_env(int64_t *out, struct buf *err)
{
	const char *v = getenv("TABULA_LEASE_MS");
	char *end;
	long long n;

	*out = CLUSTER_TTL_DEFAULT_MS;
	if (!v || !*v)
		return 0;
	errno = 0;
	n = strtoll(v, &end, 10);
	if (errno || *end || n < CLUSTER_TTL_MIN_MS || n > CLUSTER_TTL_MAX_MS) {
		buf_setf(err, "TABULA_LEASE_MS must be %d to %d (milliseconds)", CLUSTER_TTL_MIN_MS,
			 CLUSTER_TTL_MAX_MS);
		return -1;
	}
	*out = n;
	return 0;
}

/* Takes or renews name: 1 held until *deadline, 0 someone else's, -1 error. */
static int take(struct cluster *c, const char *name, uint64_t *deadline)
{
	struct buf err = BUF_INIT;
	/* before asking: the store's expiry is counted from a later moment */
	uint64_t sent;
	int r;

	uv_update_time(c->loop);
	sent = uv_now(c->loop);
	r = store_lease(c->store, name, c->node, c->ttl_ms, &err);
	if (r < 0)
		log_warn("cluster: lease %s: %s", name, buf_str(&err));
	else if (r == 1)
		*deadline = sent + (uint64_t)c->ttl_ms;
	buf_release(&err);
	return r;
}

static void give_up(struct cluster *c, const char *name)
{
	struct buf err = BUF_INIT;

	if (store_lease(c->store, name, c->node, 0, &err) < 0)
		log_warn("cluster: giving up %s: %s", name, buf_str(&err));
	buf_release(&err);
}

static void role_step(struct cluster *c, struct cluster_role *r)
{
	int i, got;

	if (r->held) {
		got = take(c, r->name, &r->deadline);
		uv_update_time(c->loop);
		if (got == 1)
			return;
		if (got < 0 && uv_now(c->loop) < r->deadline)
			return;		/* not renewed yet, still ours: again next time */
		r->held = 0;
		metric_add(&met_leases_held, 0, 0, -1);
		log_err("cluster: lost the lease %s (%s): another process may hold it now",
			r->name, got == 0 ? "another process took it" : "the store did not renew it");
		if (r->on_lost)
			r->on_lost(r->ctx, r);
		return;
	}
	for (i = r->first; i < r->first + r->count; i++) {
		char name[STORE_NAME_MAX + 1];

		role_name(r, i, name, sizeof(name));
		got = take(c, name, &r->deadline);
		if (got != 1)
			continue;
		r->held = 1;
		metric_add(&met_leases_held, 0, 0, 1);
		r->index = i;
		snprintf(r->name, sizeof(r->name), "%s", name);
		log_info("cluster: this process holds %s now", r->name);
		if (r->on_acquired)
			r->on_acquired(r->ctx, r);
		return;
	}
	if (!r->waiting_told) {
		r->waiting_told = 1;
		role_name(r, r->first, r->name, sizeof(r->name));
		log_info("cluster: %s%s is another process's: standing by", r->name,
			 r->count > 1 ? " (and every other one of them)" : "");
	}
}

static void on_timer(uv_timer_t *t)
{
	struct cluster *c = t->data;
	int i, got;

	got = take(c, c->node, &c->node_deadline);
	uv_update_time(c->loop);
	if (got != 1 && uv_now(c->loop) >= c->node_deadline && !c->node_lost_told) {
		/* the name is this process's alone: it comes back when the
		 * store does; meanwhile others may adopt its messages and due
		 * work (the version checks keep that to one change each) */
		c->node_lost_told = 1;
		log_warn("cluster: the node lease %s expired; others may take over its work",
			 c->node);
	} else if (got == 1) {
		c->node_lost_told = 0;
	}
	for (i = 0; i < c->nroles; i++)
		role_step(c, c->roles[i]);
	if (c->on_tick)
		c->on_tick(c->tick_ctx);
}

int cluster_init(struct cluster *c, uv_loop_t *loop, struct store *store, int64_t ttl_ms,
		 uint64_t seed, struct buf *err)
{
	char host[64];
	struct rng r;
	uint64_t sent;
	int got;

	memset(c, 0, sizeof(*c));
	c->loop = loop;
	c->store = store;
	c->ttl_ms = ttl_ms;
	c->every_ms = ttl_ms / 4;
	if (gethostname(host, sizeof(host)))
		snprintf(host, sizeof(host), "host");
	host[sizeof(host) - 1] = '\0';
	rng_seed(&r, seed ^ (uint64_t)getpid(), 0x636c);
	snprintf(c->node, sizeof(c->node), "node.%.60s.%ld.%08x", host, (long)getpid(),
		 (unsigned)rng_next(&r));
	uv_update_time(loop);
	sent = uv_now(loop);
	got = store_lease(store, c->node, c->node, ttl_ms, err);
	if (got != 1) {
		if (!got)
			buf_setf(err, "the node name %s is taken", c->node);
		return -1;
	}
	c->node_deadline = sent + (uint64_t)ttl_ms;
	metric_add(&met_leases_held, 0, 0, 1);
	/* referenced: a standby has nothing else to keep its loop running */
	uv_timer_init(loop, &c->timer);
	c->timer.data = c;
	c->started = 1;
	return 0;
}

void cluster_add_role(struct cluster *c, struct cluster_role *r)
{
	if (c->nroles < CLUSTER_ROLES_MAX)
		c->roles[c->nroles++] = r;
}

void cluster_start(struct cluster *c)
{
	int i;

	for (i = 0; i < c->nroles; i++)
		role_step(c, c->roles[i]);
	uv_timer_start(&c->timer, on_timer, (uint64_t)c->every_ms, (uint64_t)c->every_ms);
}

void cluster_stop(struct cluster *c)
{
	int i;

	if (!c->started)
		return;
	c->started = 0;
	uv_timer_stop(&c->timer);
	uv_close((uv_handle_t *)&c->timer, NULL);
	for (i = 0; i < c->nroles; i++)
		if (c->roles[i]->held) {
			give_up(c, c->roles[i]->name);
			c->roles[i]->held = 0;
		}
	give_up(c, c->node);
	metric_set(&met_leases_held, 0, 0, 0);
}
