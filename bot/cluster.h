/*
 * cluster: one bot process among several on a shared store
 * (docs/deploy.md).  It holds this process's node lease (its name is the
 * owner of the process's outbox rows and claimed due work) and the role
 * leases of what only one process may do: the Matrix sync ("matrix"), a
 * Discord shard ("discord.shard.<id>.<count>").  Every period it renews
 * what it holds, tries to take the roles it waits for (a hot standby), and
 * then calls on_tick (the program adopts orphaned outbox messages and runs
 * due work there).
 *
 * A held lease is trusted locally until its deadline: the time the last
 * successful renewal was *sent* plus the lease's length, which is never
 * later than the expiry the store wrote (its clock started after).  A role
 * not renewed by its deadline is lost (on_lost): another process may hold
 * it now.  The store's fences stop what a late process still tries to
 * write for it (struct store_commit's fence).
 *
 *	struct cluster c;
 *	cluster_init(&c, loop, store, 10000, &err);	// takes the node lease
 *	cluster_add_role(&c, &matrix_role);
 *	cluster_start(&c);
 *	...
 *	cluster_stop(&c);	// gives every lease up; the timer closes
 */
#ifndef BOT_CLUSTER_H
#define BOT_CLUSTER_H

#include <stdint.h>

#include <uv.h>

#include "state/store.h"
#include "util/buf.h"

#define CLUSTER_ROLES_MAX 4
#define CLUSTER_TTL_DEFAULT_MS 10000
#define CLUSTER_TTL_MIN_MS 1000
#define CLUSTER_TTL_MAX_MS 600000

struct cluster_role;
typedef void (*cluster_role_cb)(void *ctx, struct cluster_role *r);

/*
 * A role: one of the leases "<prefix>.<i>.<total>" for first <= i <
 * first + count (a Discord shard: DISCORD_SHARD=auto/n tries them all and
 * takes the first free one), or, with total 0, the one lease "<prefix>"
 * (the Matrix sync).  Held when one of them is this process's: `index`
 * says which.  Set up with cluster_role_init; the cluster keeps a pointer,
 * so it must outlive the cluster.
 */
struct cluster_role {
	char prefix[64];			/* at most 63 bytes: the name adds ".<i>.<total>" */
	int first, count, total;
	int held;
	int index;			/* the i of the lease held */
	char name[STORE_NAME_MAX + 1];	/* its name */
	uint64_t deadline;		/* loop ms: trusted until */
	cluster_role_cb on_acquired, on_lost;
	void *ctx;
	int waiting_told;		/* "standing by" logged */
};

struct cluster {
	uv_loop_t *loop;
	struct store *store;		/* borrowed */
	char node[STORE_NAME_MAX + 1];
	int64_t ttl_ms, every_ms;
	uint64_t node_deadline;
	int node_lost_told;
	struct cluster_role *roles[CLUSTER_ROLES_MAX];
	int nroles;
	uv_timer_t timer;
	int started;
	void (*on_tick)(void *ctx);
	void *tick_ctx;
};

/* Sets up a role (see struct cluster_role); on_acquired and on_lost are
 * called from the cluster's timer (or cluster_start) with ctx. */
void cluster_role_init(struct cluster_role *r, const char *prefix, int first, int count,
		       int total, cluster_role_cb on_acquired, cluster_role_cb on_lost,
		       void *ctx);

/*
 * Names this process's node ("node.<host>.<pid>.<random>": unique per
 * process, so a restarted process is a new node and its predecessor's
 * work is adopted once that one's lease expires) and takes its lease.
 * ttl_ms: every lease's length (CLUSTER_TTL_MIN_MS..MAX); they are renewed
 * every ttl_ms / 4.  0, or -1 with err (the store refused).
 */
int cluster_init(struct cluster *c, uv_loop_t *loop, struct store *store, int64_t ttl_ms,
		 uint64_t seed, struct buf *err);
void cluster_add_role(struct cluster *c, struct cluster_role *r);
/* Tries the roles now (their on_acquired may run inside), then every period. */
void cluster_start(struct cluster *c);
/* Gives up every lease held (a standby takes over at once, without waiting
 * for the expiry) and closes the timer; run the loop to let it close. */
void cluster_stop(struct cluster *c);

/* TABULA_LEASE_MS: the leases' length; 0, or -1 with err when malformed. */
int cluster_ttl_from_env(int64_t *out, struct buf *err);

#endif
