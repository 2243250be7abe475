/*
 * metrics: counters, gauges and histograms for operators, written out in
 * the Prometheus text exposition format (version 0.0.4).
 *
 * A metric is a static struct (util/meters.c holds the bot's catalog) with
 * its storage inside it: a bump is one relaxed atomic add on a cell found by
 * index, so it is cheap, allocates nothing and may be called from any
 * thread (the AI and the painters run on worker threads).
 *
 * Labels come only from fixed sets, declared with the metric: at most
 * METRIC_MAX_LABELS names, each with its list of values.  A bump names the
 * values by index (metric_value() looks a string up in the list); an index
 * outside the list is ignored, so no caller can make a series appear that
 * was not declared.  This is how no player name, room or secret can ever
 * reach a label.
 *
 * Values are 64-bit integers in the metric's own unit (microseconds,
 * milliseconds, a count); `scale` divides them for the exposition, so a
 * histogram observed in microseconds is written in seconds.
 */
#ifndef UTIL_METRICS_H
#define UTIL_METRICS_H

#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

#include "util/buf.h"

#define METRIC_MAX_LABELS 2
#define METRIC_MAX_BOUNDS 16	/* histogram buckets, +Inf not counted */
#define METRIC_MAX_CELLS 96	/* storage cells of one metric */

enum metric_type { METRIC_COUNTER, METRIC_GAUGE, METRIC_HISTOGRAM };

struct metric_label {
	const char *name;
	const char *const *values;	/* n strings, borrowed for ever */
	unsigned n;
};

struct metric {
	const char *name;	/* [a-zA-Z_:][a-zA-Z0-9_:]* */
	const char *help;	/* one line */
	enum metric_type type;
	unsigned nlabels;
	struct metric_label labels[METRIC_MAX_LABELS];
	/* histograms: the buckets' upper bounds, ascending, in the unit of
	 * metric_observe() */
	int64_t bounds[METRIC_MAX_BOUNDS];
	unsigned nbounds;
	/* the exposition writes value / scale; 0 means 1 */
	double scale;
	/*
	 * Cells: one per series for counters and gauges; for histograms,
	 * per series, nbounds + 1 bucket counts (the last is +Inf) and the sum.
	 * Series are numbered label 0's index * label 1's count + label 1's.
	 */
	_Atomic int64_t cells[METRIC_MAX_CELLS];
};

/* How many cells m needs; metric_check() refuses a metric needing more
 * than METRIC_MAX_CELLS. */
size_t metric_cells(const struct metric *m);
/* 0 when m is well formed (name, labels, bounds, cells), else -1 + err. */
int metric_check(const struct metric *m, struct buf *err);

/* The index of value in label k's list, or the list's length when absent
 * (which every bump ignores). */
unsigned metric_value(const struct metric *m, unsigned k, const char *value);

/* Counters and gauges: cell (i, j) += v.  Labels the metric does not have
 * take 0. */
void metric_add(struct metric *m, unsigned i, unsigned j, int64_t v);
static inline void metric_inc(struct metric *m, unsigned i, unsigned j)
{
	metric_add(m, i, j, 1);
}
/* Gauges: cell (i, j) = v. */
void metric_set(struct metric *m, unsigned i, unsigned j, int64_t v);
/* Histograms: one observation of v in series (i, j). */
void metric_observe(struct metric *m, unsigned i, unsigned j, int64_t v);
/* The value of a counter's or gauge's cell (tests, readiness). */
int64_t metric_get(const struct metric *m, unsigned i, unsigned j);
/* Every cell to 0 (tests). */
void metric_reset(struct metric *m);

/*
 * Appends the exposition of the n metrics to out: HELP and TYPE lines, then
 * every declared series, zeros included (a fixed set of series, so a rate
 * exists from the first scrape).  Histograms write cumulative buckets, the
 * +Inf bucket equal to _count.  0, or -1 when out hit its cap.
 */
int metrics_write(struct buf *out, struct metric *const *all, size_t n);

#endif
