/*
 * metrics: see metrics.h.  Relaxed atomics: a scrape may see a histogram
 * mid-update (a bucket counted, the sum not yet), which Prometheus
 * tolerates; the +Inf bucket and _count are the same number by
 * construction, so they never disagree.
 */
#include "util/metrics.h"

#include <stdio.h>
#include <string.h>

static size_t series_count(const struct metric *m)
{
	size_t n = 1;
	unsigned k;

	for (k = 0; k < m->nlabels; k++)
		n *= m->labels[k].n;
	return n;
}

static size_t per_series(const struct metric *m)
{
	return m->type == METRIC_HISTOGRAM ? m->nbounds + 2 : 1;
}

size_t metric_cells(const struct metric *m)
{
	return series_count(m) * per_series(m);
}

static int name_ok(const char *s, int colon)
{
	if (!s || !*s || (*s >= '0' && *s <= '9'))
		return 0;
	for (; *s; s++)
		if (!((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') ||
		      (*s >= '0' && *s <= '9') || *s == '_' || (colon && *s == ':')))
			return 0;
	return 1;
}

int metric_check(const struct metric *m, struct buf *err)
{
	unsigned k, i;

	if (!name_ok(m->name, 1) || !m->help || strchr(m->help, '\n')) {
		buf_setf(err, "metric %s: bad name or help", m->name ? m->name : "(null)");
		return -1;
	}
	if (m->nlabels > METRIC_MAX_LABELS) {
		buf_setf(err, "metric %s: too many labels", m->name);
		return -1;
	}
	for (k = 0; k < m->nlabels; k++) {
		const struct metric_label *l = &m->labels[k];

		if (!name_ok(l->name, 0) || !strncmp(l->name, "__", 2) || !strcmp(l->name, "le") ||
		    !l->n || !l->values) {
			buf_setf(err, "metric %s: bad label %u", m->name, k);
			return -1;
		}
		for (i = 0; i < l->n; i++)
			if (!l->values[i]) {
				buf_setf(err, "metric %s: label %s lacks value %u", m->name,
					 l->name, i);
				return -1;
			}
	}
	if (m->type == METRIC_HISTOGRAM) {
		if (!m->nbounds || m->nbounds > METRIC_MAX_BOUNDS) {
			buf_setf(err, "metric %s: 1 to %d buckets", m->name, METRIC_MAX_BOUNDS);
			return -1;
		}
		for (i = 1; i < m->nbounds; i++)
			if (m->bounds[i] <= m->bounds[i - 1]) {
				buf_setf(err, "metric %s: bounds not ascending", m->name);
				return -1;
			}
	}
	if (metric_cells(m) > METRIC_MAX_CELLS) {
		buf_setf(err, "metric %s: %zu cells, at most %d", m->name, metric_cells(m),
			 METRIC_MAX_CELLS);
		return -1;
	}
	return 0;
}

unsigned metric_value(const struct metric *m, unsigned k, const char *value)
{
	unsigned i;

	if (k >= m->nlabels)
		return 0;
	for (i = 0; value && i < m->labels[k].n; i++)
		if (!strcmp(m->labels[k].values[i], value))
			return i;
	return m->labels[k].n;
}

/* The series (i, j), or -1 when an index is out of its label's range. */
static long series(const struct metric *m, unsigned i, unsigned j)
{
	unsigned idx[2] = { i, j };
	long s = 0;
	unsigned k;

	for (k = 0; k < m->nlabels; k++) {
		if (idx[k] >= m->labels[k].n)
			return -1;
		s = s * (long)m->labels[k].n + (long)idx[k];
	}
	for (; k < 2; k++)
		if (idx[k])
			return -1;
	return (size_t)(s + 1) * per_series(m) <= METRIC_MAX_CELLS ? s : -1;
}

void metric_add(struct metric *m, unsigned i, unsigned j, int64_t v)
{
	long s = series(m, i, j);

	if (s >= 0 && m->type != METRIC_HISTOGRAM)
		atomic_fetch_add_explicit(&m->cells[s], v, memory_order_relaxed);
}

void metric_set(struct metric *m, unsigned i, unsigned j, int64_t v)
{
	long s = series(m, i, j);

	if (s >= 0 && m->type == METRIC_GAUGE)
		atomic_store_explicit(&m->cells[s], v, memory_order_relaxed);
}

void metric_observe(struct metric *m, unsigned i, unsigned j, int64_t v)
{
	long s = series(m, i, j);
	size_t base;
	unsigned b;

	if (s < 0 || m->type != METRIC_HISTOGRAM)
		return;
	base = (size_t)s * per_series(m);
	for (b = 0; b < m->nbounds && v > m->bounds[b]; b++)
		;
	atomic_fetch_add_explicit(&m->cells[base + b], 1, memory_order_relaxed);
	atomic_fetch_add_explicit(&m->cells[base + m->nbounds + 1], v, memory_order_relaxed);
}

int64_t metric_get(const struct metric *m, unsigned i, unsigned j)
{
	long s = series(m, i, j);
	size_t base, b;
	int64_t n = 0;

	if (s < 0)
		return 0;
	if (m->type != METRIC_HISTOGRAM)
		return atomic_load_explicit(&m->cells[s], memory_order_relaxed);
	/* a histogram: its count */
	base = (size_t)s * per_series(m);
	for (b = 0; b <= m->nbounds; b++)
		n += atomic_load_explicit(&m->cells[base + b], memory_order_relaxed);
	return n;
}

void metric_reset(struct metric *m)
{
	size_t i;

	for (i = 0; i < METRIC_MAX_CELLS; i++)
		atomic_store_explicit(&m->cells[i], 0, memory_order_relaxed);
}

/* ---- the exposition ---- */

/* A float as Prometheus reads it: integers without a fraction. */
static void add_number(struct buf *out, int64_t v, double scale)
{
	if (scale == 0 || scale == 1)
		buf_printf(out, "%lld", (long long)v);
	else
		buf_printf(out, "%.9g", (double)v / scale);
}

/* Backslash and newline escaped; double quotes too in label values (the
 * format does not escape them in HELP text). */
static void add_escaped(struct buf *out, const char *s, int quotes)
{
	for (; *s; s++) {
		if (*s == '\\' || (quotes && *s == '"'))
			buf_addch(out, '\\');
		if (*s == '\n')
			buf_addstr(out, "\\n");
		else
			buf_addch(out, *s);
	}
}

/* name{l0="v",l1="w"[,le="x"]} */
static void add_series(struct buf *out, const struct metric *m, const char *suffix, size_t s,
		       const char *le)
{
	unsigned idx[2], k;
	size_t rest = s;
	int any = 0;

	for (k = m->nlabels; k-- > 0;) {
		idx[k] = (unsigned)(rest % m->labels[k].n);
		rest /= m->labels[k].n;
	}
	buf_addstr(out, m->name);
	buf_addstr(out, suffix);
	for (k = 0; k < m->nlabels; k++) {
		buf_addstr(out, any++ ? "," : "{");
		buf_printf(out, "%s=\"", m->labels[k].name);
		add_escaped(out, m->labels[k].values[idx[k]], 1);
		buf_addch(out, '"');
	}
	if (le) {
		buf_addstr(out, any++ ? "," : "{");
		buf_printf(out, "le=\"%s\"", le);
	}
	buf_addstr(out, any ? "} " : " ");
}

static void write_one(struct buf *out, const struct metric *m)
{
	static const char *const types[] = { "counter", "gauge", "histogram" };
	size_t s, n = series_count(m), ps = per_series(m);
	double scale = m->scale ? m->scale : 1;
	char le[64];
	unsigned b;

	buf_printf(out, "# HELP %s ", m->name);
	add_escaped(out, m->help, 0);
	buf_printf(out, "\n# TYPE %s %s\n", m->name, types[m->type]);
	for (s = 0; s < n; s++) {
		const _Atomic int64_t *c = &m->cells[s * ps];
		int64_t cum = 0;

		if (m->type != METRIC_HISTOGRAM) {
			add_series(out, m, "", s, NULL);
			add_number(out, atomic_load_explicit(c, memory_order_relaxed), scale);
			buf_addch(out, '\n');
			continue;
		}
		for (b = 0; b <= m->nbounds; b++) {
			cum += atomic_load_explicit(&c[b], memory_order_relaxed);
			if (b < m->nbounds)
				snprintf(le, sizeof(le), "%.9g", (double)m->bounds[b] / scale);
			else
				snprintf(le, sizeof(le), "+Inf");
			add_series(out, m, "_bucket", s, le);
			buf_printf(out, "%lld\n", (long long)cum);
		}
		add_series(out, m, "_sum", s, NULL);
		add_number(out, atomic_load_explicit(&c[m->nbounds + 1], memory_order_relaxed),
			   scale);
		buf_addch(out, '\n');
		add_series(out, m, "_count", s, NULL);
		buf_printf(out, "%lld\n", (long long)cum);
	}
}

int metrics_write(struct buf *out, struct metric *const *all, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		write_one(out, all[i]);
	return out->toobig ? -1 : 0;
}
