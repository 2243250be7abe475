/*
 * The rule summaries and card texts of every registered game
 * (game_ops.rules, .card, .card_names): topics and cards resolve by id, by
 * their name in either language and by a unique prefix; unknown and
 * ambiguous names fail with a helpful text; every text is valid UTF-8,
 * non-empty, translated (es differs from en) and has no line over 300
 * characters.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdlib.h>
#include <string.h>

#include "games/game.h"
#include "util/text.h"

#define MAX_ITEMS 128
#define MAX_LINE 300

struct list {
	int n;
	char *v[MAX_ITEMS];
	char *name[MAX_ITEMS];	/* topics: the display name */
};

static void list_free(struct list *l)
{
	int i;

	for (i = 0; i < l->n; i++) {
		free(l->v[i]);
		free(l->name[i]);
	}
	l->n = 0;
}

static size_t codepoints(const char *s, size_t n)
{
	size_t i, k = 0;

	for (i = 0; i < n; i++)
		if (((unsigned char)s[i] & 0xC0) != 0x80)
			k++;
	return k;
}

/* Valid UTF-8, non-empty, no line over MAX_LINE characters. */
static void check_text(const char *s, const char *what)
{
	const char *p = s;

	if (!*s || !utf8_valid(s, strlen(s)))
		fail_msg("%s: empty or invalid text", what);
	while (*p) {
		const char *e = strchr(p, '\n');
		size_t n = e ? (size_t)(e - p) : strlen(p);

		if (codepoints(p, n) > MAX_LINE)
			fail_msg("%s: line over %d characters: %.60s...", what, MAX_LINE, p);
		p += n;
		if (*p)
			p++;
	}
}

/* Every span's text must be valid too (headings, mono blocks). */
static void check_spans(const struct rich *r, const char *what)
{
	size_t i;

	for (i = 0; i < r->n; i++)
		if (r->v[i].text && !utf8_valid(r->v[i].text, strlen(r->v[i].text)))
			fail_msg("%s: invalid UTF-8 in a span", what);
}

/* ops->rules(topic, loc) as plain text (caller frees); *rc its result. */
static char *rules_text(const struct game_ops *g, const char *topic, enum locale loc,
			int *rc, struct list *topics)
{
	struct rich r = RICH_INIT;
	struct buf b = BUF_INIT;
	size_t i;

	*rc = g->rules(topic, loc, &r);
	check_spans(&r, g->id);
	rich_to_plain(&r, &b);
	if (topics) {
		/* The topic list: the last mono block, "id  name" per line. */
		const char *mono = NULL;

		for (i = 0; i < r.n; i++)
			if (r.v[i].kind == RICH_MONO)
				mono = r.v[i].text;
		topics->n = 0;
		if (mono) {
			const char *p = mono;

			while (*p && topics->n < MAX_ITEMS) {
				const char *e = strchr(p, '\n');
				size_t n = e ? (size_t)(e - p) : strlen(p);
				size_t k = 0, j;
				char *line = strndup(p, n);

				while (line[k] && line[k] != ' ')
					k++;
				topics->v[topics->n] = strndup(line, k);
				for (j = k; line[j] == ' '; j++)
					;
				topics->name[topics->n] = strdup(line + j);
				topics->n++;
				free(line);
				p += n;
				if (*p)
					p++;
			}
		}
	}
	rich_release(&r);
	return buf_detach(&b);
}

static char *card_text(const struct game_ops *g, const char *name, enum locale loc, int *rc)
{
	struct rich r = RICH_INIT;
	struct buf b = BUF_INIT;

	*rc = g->card(name, NULL, loc, &r);
	check_spans(&r, g->id);
	rich_to_plain(&r, &b);
	rich_release(&r);
	return buf_detach(&b);
}

static void card_list(const struct game_ops *g, enum locale loc, struct list *l)
{
	struct buf b = BUF_INIT;
	const char *p;

	g->card_names(loc, &b);
	l->n = 0;
	p = buf_str(&b);
	while (*p && l->n < MAX_ITEMS) {
		const char *e = strchr(p, '\n');
		size_t n = e ? (size_t)(e - p) : strlen(p);

		if (n) {
			l->v[l->n] = strndup(p, n);
			l->name[l->n] = NULL;
			l->n++;
		}
		p += n;
		if (*p)
			p++;
	}
	buf_release(&b);
}

static void test_slots(void **state)
{
	const struct game_ops *const *g;

	for (g = game_all(); *g; g++) {
		assert_non_null((*g)->rules);
		assert_non_null((*g)->card);
		assert_non_null((*g)->card_names);
	}
}

static void test_overview_lists_topics(void **state)
{
	const struct game_ops *const *g;

	for (g = game_all(); *g; g++) {
		struct list t[LOC_COUNT];
		int loc, rc, i;

		for (loc = 0; loc < LOC_COUNT; loc++) {
			char *s = rules_text(*g, NULL, (enum locale)loc, &rc, &t[loc]);
			char *s2 = rules_text(*g, "", (enum locale)loc, &rc, NULL);

			assert_int_equal(rc, 0);
			check_text(s, (*g)->id);
			assert_string_equal(s, s2);
			assert_true(t[loc].n >= 3);
			for (i = 0; i < t[loc].n; i++) {
				assert_true(strlen(t[loc].v[i]) > 0);
				assert_true(strlen(t[loc].name[i]) > 0);
				assert_non_null(strstr(s, t[loc].name[i]));
			}
			free(s);
			free(s2);
		}
		assert_int_equal(t[LOC_EN].n, t[LOC_ES].n);
		for (i = 0; i < t[LOC_EN].n; i++)
			assert_string_equal(t[LOC_EN].v[i], t[LOC_ES].v[i]);
		{
			char *en = rules_text(*g, NULL, LOC_EN, &rc, NULL);
			char *es = rules_text(*g, NULL, LOC_ES, &rc, NULL);

			assert_string_not_equal(en, es);
			free(en);
			free(es);
		}
		list_free(&t[LOC_EN]);
		list_free(&t[LOC_ES]);
	}
}

static void test_topics_resolve(void **state)
{
	const struct game_ops *const *g;

	for (g = game_all(); *g; g++) {
		struct list t[LOC_COUNT];
		int loc, rc, i;
		char *dummy;

		for (loc = 0; loc < LOC_COUNT; loc++) {
			dummy = rules_text(*g, NULL, (enum locale)loc, &rc, &t[loc]);
			free(dummy);
		}
		for (i = 0; i < t[LOC_EN].n; i++) {
			char *ref[LOC_COUNT];

			for (loc = 0; loc < LOC_COUNT; loc++) {
				const char *id = t[LOC_EN].v[i];
				char *s;
				size_t k;
				int found = 0;

				ref[loc] = rules_text(*g, id, (enum locale)loc, &rc, NULL);
				if (rc != 0)
					fail_msg("%s: topic %s does not resolve", (*g)->id, id);
				check_text(ref[loc], id);
				s = rules_text(*g, t[LOC_EN].name[i], (enum locale)loc, &rc, NULL);
				assert_int_equal(rc, 0);
				assert_string_equal(s, ref[loc]);
				free(s);
				s = rules_text(*g, t[LOC_ES].name[i], (enum locale)loc, &rc, NULL);
				assert_int_equal(rc, 0);
				assert_string_equal(s, ref[loc]);
				free(s);
				/* Some proper prefix of the id is unique. */
				for (k = 1; k < strlen(id) && !found; k++) {
					char *pre = strndup(id, k);

					s = rules_text(*g, pre, (enum locale)loc, &rc, NULL);
					found = rc == 0 && !strcmp(s, ref[loc]);
					free(s);
					free(pre);
				}
				if (!found && strlen(id) > 1)
					fail_msg("%s: no unique prefix for topic %s", (*g)->id, id);
			}
			if (!strcmp(ref[LOC_EN], ref[LOC_ES]))
				fail_msg("%s: topic %s is not translated", (*g)->id, t[LOC_EN].v[i]);
			free(ref[LOC_EN]);
			free(ref[LOC_ES]);
		}
		list_free(&t[LOC_EN]);
		list_free(&t[LOC_ES]);
	}
}

static void test_unknown_topic(void **state)
{
	const struct game_ops *const *g;

	for (g = game_all(); *g; g++) {
		int loc, rc, i;

		for (loc = 0; loc < LOC_COUNT; loc++) {
			struct list t;
			char *s = rules_text(*g, "zzqx no such topic", (enum locale)loc, &rc, &t);

			assert_int_equal(rc, -1);
			check_text(s, (*g)->id);
			assert_true(t.n >= 3);
			for (i = 0; i < t.n; i++)
				assert_non_null(strstr(s, t.v[i]));
			free(s);
			list_free(&t);
		}
	}
}

static void upper_ascii(char *s)
{
	for (; *s; s++)
		if (*s >= 'a' && *s <= 'z')
			*s = (char)(*s - 'a' + 'A');
}

static void test_cards_resolve(void **state)
{
	const struct game_ops *const *g;

	for (g = game_all(); *g; g++) {
		struct list n[LOC_COUNT];
		int loc, rc, i;

		card_list(*g, LOC_EN, &n[LOC_EN]);
		card_list(*g, LOC_ES, &n[LOC_ES]);
		assert_true(n[LOC_EN].n > 0);
		assert_int_equal(n[LOC_EN].n, n[LOC_ES].n);
		for (i = 0; i < n[LOC_EN].n; i++) {
			char *ref[LOC_COUNT];

			for (loc = 0; loc < LOC_COUNT; loc++) {
				struct buf f = BUF_INIT;
				char *s, *up;

				ref[loc] = card_text(*g, n[LOC_EN].v[i], (enum locale)loc, &rc);
				if (rc != 0)
					fail_msg("%s: card %s does not resolve", (*g)->id, n[LOC_EN].v[i]);
				check_text(ref[loc], n[LOC_EN].v[i]);
				/* Its Spanish name gives the same card. */
				s = card_text(*g, n[LOC_ES].v[i], (enum locale)loc, &rc);
				if (rc != 0 || strcmp(s, ref[loc]))
					fail_msg("%s: %s and %s differ", (*g)->id, n[LOC_EN].v[i],
						 n[LOC_ES].v[i]);
				free(s);
				/* Case and accents are ignored. */
				up = strdup(n[LOC_ES].v[i]);
				upper_ascii(up);
				s = card_text(*g, up, (enum locale)loc, &rc);
				assert_int_equal(rc, 0);
				assert_string_equal(s, ref[loc]);
				free(s);
				free(up);
				text_fold(n[LOC_ES].v[i], &f);
				s = card_text(*g, buf_str(&f), (enum locale)loc, &rc);
				assert_int_equal(rc, 0);
				assert_string_equal(s, ref[loc]);
				free(s);
				buf_release(&f);
			}
			if (!strcmp(ref[LOC_EN], ref[LOC_ES]))
				fail_msg("%s: card %s is not translated", (*g)->id, n[LOC_EN].v[i]);
			free(ref[LOC_EN]);
			free(ref[LOC_ES]);
		}
		list_free(&n[LOC_EN]);
		list_free(&n[LOC_ES]);
	}
}

static void test_card_accents_case(void **state)
{
	const struct game_ops *const *g;
	int checked = 0;

	for (g = game_all(); *g; g++) {
		struct list n;
		int i, has = 0, rc, loc;

		card_list(*g, LOC_ES, &n);
		for (i = 0; i < n.n; i++)
			has |= text_eq(n.v[i], "basilica");
		list_free(&n);
		if (!has)
			continue;
		for (loc = 0; loc < LOC_COUNT; loc++) {
			char *a = card_text(*g, "BASÍLICA", (enum locale)loc, &rc);

			assert_int_equal(rc, 0);
			char *b = card_text(*g, "basilica", (enum locale)loc, &rc);

			assert_int_equal(rc, 0);
			assert_string_equal(a, b);
			free(b);
			b = card_text(*g, "Basílica", (enum locale)loc, &rc);
			assert_int_equal(rc, 0);
			assert_string_equal(a, b);
			free(a);
			free(b);
		}
		checked++;
	}
	assert_true(checked > 0);
}

/* Longest common prefix of the folded names, as a string (caller frees). */
static char *common_prefix(const char *a, const char *b)
{
	struct buf fa = BUF_INIT, fb = BUF_INIT;
	size_t k = 0;
	char *r;

	text_fold(a, &fa);
	text_fold(b, &fb);
	while (fa.s && fb.s && fa.s[k] && fa.s[k] == fb.s[k])
		k++;
	while (k > 0 && (fa.s[k - 1] == ' ' || ((unsigned char)fa.s[k - 1] & 0x80)))
		k--;
	r = strndup(fa.s ? fa.s : "", k);
	buf_release(&fa);
	buf_release(&fb);
	return r;
}

static void test_card_ambiguous(void **state)
{
	const struct game_ops *const *g;

	for (g = game_all(); *g; g++) {
		struct list n[LOC_COUNT];
		int loc, i, j, k, done = 0;

		card_list(*g, LOC_EN, &n[LOC_EN]);
		card_list(*g, LOC_ES, &n[LOC_ES]);
		for (loc = 0; loc < LOC_COUNT; loc++) {
			done = 0;
			for (i = 0; i < n[loc].n && !done; i++) {
				for (j = i + 1; j < n[loc].n && !done; j++) {
					char *p = common_prefix(n[loc].v[i], n[loc].v[j]);
					int exact = 0, rc, l;
					char *s;

					if (!*p) {
						free(p);
						continue;
					}
					for (l = 0; l < LOC_COUNT; l++)
						for (k = 0; k < n[l].n; k++)
							exact |= text_eq(p, n[l].v[k]);
					if (exact) {
						free(p);
						continue;
					}
					s = card_text(*g, p, (enum locale)loc, &rc);
					assert_int_equal(rc, -1);
					check_text(s, p);
					if (!strstr(s, n[loc].v[i]) || !strstr(s, n[loc].v[j]))
						fail_msg("%s: ambiguous '%s' does not list %s and %s",
							 (*g)->id, p, n[loc].v[i], n[loc].v[j]);
					free(s);
					free(p);
					done = 1;
				}
			}
			assert_true(done);
		}
		list_free(&n[LOC_EN]);
		list_free(&n[LOC_ES]);
	}
}

static void test_card_unknown(void **state)
{
	const struct game_ops *const *g;

	for (g = game_all(); *g; g++) {
		int loc, rc;

		for (loc = 0; loc < LOC_COUNT; loc++) {
			char *s = card_text(*g, "zzqx no such card", (enum locale)loc, &rc);

			assert_int_equal(rc, -1);
			check_text(s, (*g)->id);
			free(s);
			s = card_text(*g, "", (enum locale)loc, &rc);
			assert_int_equal(rc, -1);
			free(s);
		}
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_slots),
		cmocka_unit_test(test_overview_lists_topics),
		cmocka_unit_test(test_topics_resolve),
		cmocka_unit_test(test_unknown_topic),
		cmocka_unit_test(test_cards_resolve),
		cmocka_unit_test(test_card_accents_case),
		cmocka_unit_test(test_card_ambiguous),
		cmocka_unit_test(test_card_unknown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
