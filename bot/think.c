/*
 * think: a batch of AI decisions as a self-contained job (bot/think.h), so
 * that a worker thread can run it.  It must touch nothing but its job: no
 * session, no store, no log.
 */
#include "bot/think.h"

#include <stdlib.h>
#include <string.h>

#include "util/buf.h"

struct think_job *think_new(const struct game_ops *ops, const void *st)
{
	struct think_job *job = xcalloc(1, sizeof(*job));

	job->ops = ops;
	job->st = xmalloc(ops->state_size);
	memcpy(job->st, st, ops->state_size);
	return job;
}

void think_free(struct think_job *job)
{
	if (!job)
		return;
	free(job->st);
	free(job);
}

int think_decide(const struct game_ops *ops, const void *st, int seat, int search,
		 const struct search_params *p, uint64_t seed, int64_t seq, struct move *out)
{
	struct rng ai;

	rng_seed(&ai, seed, (uint64_t)seq);
	if (search)
		return search_move(ops, st, seat, p, &ai, out);
	return ops->bot_move(st, seat, &ai, out);
}

void think_run(struct think_job *job)
{
	const struct game_ops *ops = job->ops;
	struct buf err = BUF_INIT;

	while (job->n < THINK_MAX) {
		unsigned aw = ops->awaiting(job->st) & job->seats;
		struct move mv;
		int seat;

		if (!aw)
			break;		/* over, or only people are asked */
		for (seat = 0; !(aw & (1u << seat)); seat++)
			;
		if (think_decide(ops, job->st, seat, job->search, &job->params, job->seed,
				 job->seq + job->n + 1, &mv) ||
		    ops->apply(job->st, seat, mv, NULL, &err)) {
			job->failed = 1;
			break;
		}
		job->v[job->n].seat = seat;
		job->v[job->n].mv = mv;
		job->n++;
	}
	buf_release(&err);
}
