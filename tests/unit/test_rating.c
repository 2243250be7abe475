/* bot/rating: the Weng–Lin Plackett–Luce update against the numbers
 * worked by hand in docs/ratings.md, its symmetries and bounds, the
 * refusal of bad input, and a game's result as ranks. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <string.h>

#include "bot/rating.h"
#include "util/buf.h"

#define EPS 1e-6

/* cmocka's float check is single precision: too coarse for 1e-6 at 25 */
#define assert_double_equal(a, b, eps) near((a), (b), (eps), __FILE__, __LINE__)

static void near(double a, double b, double eps, const char *file, int line)
{
	if (!(fabs(a - b) <= eps))
		fail_msg("%s:%d: %.12f is not %.12f (within %g)", file, line, a, b, eps);
}

static void newcomers(struct rating *r, int n)
{
	int i;

	for (i = 0; i < n; i++)
		rating_default(&r[i]);
}

static void expect(const struct rating *r, double mu, double sigma)
{
	assert_double_equal(r->mu, mu, EPS);
	assert_double_equal(r->sigma, sigma, EPS);
}

static void rate_ok(struct rating *r, const int *rank, int n)
{
	struct buf err = BUF_INIT;

	if (rating_update(NULL, r, rank, n, &err) != 0)
		fail_msg("refused: %s", buf_str(&err));
	buf_release(&err);
}

static void test_defaults(void **state)
{
	struct rating r;

	(void)state;
	rating_default(&r);
	assert_double_equal(r.mu, 25.0, 1e-12);
	assert_double_equal(r.sigma, 25.0 / 3.0, 1e-12);
	assert_double_equal(rating_conservative(&r), 0.0, 1e-12);
	r.mu = 30;
	r.sigma = 2;
	assert_double_equal(rating_conservative(&r), 24.0, 1e-12);
	assert_double_equal(rating_params_default.beta, 25.0 / 6.0, 1e-12);
	assert_double_equal(rating_params_default.kappa, 0.0001, 1e-12);
	assert_double_equal(rating_params_default.tau, 25.0 / 300.0, 1e-12);
}

static void omega_delta(const struct rating *after, double mu_before, double wide2,
			double omega, double delta)
{
	assert_double_equal(after->mu - mu_before, omega, EPS);
	assert_double_equal(1.0 - after->sigma * after->sigma / wide2, delta, EPS);
}

/* docs/ratings.md, "A worked example": both games, their Omega and Delta
 * and every final number. */
static void test_worked_example(void **state)
{
	struct rating r[3];
	const int game1[3] = { 1, 2, 3 };	/* A wins, B second, C third */
	const int game2[3] = { 3, 1, 1 };	/* B and C share the win */

	(void)state;
	newcomers(r, 3);
	rate_ok(r, game1, 3);
	/* the doc's Omega and Delta: mu moved by Omega, sigma^2 is the
	 * widened sigma'^2 times 1 - Delta */
	omega_delta(&r[0], 25.0, 69.4513888889, 2.8690486807, 0.0306022679);
	omega_delta(&r[1], 25.0, 69.4513888889, 0.7172621702, 0.0650298192);
	omega_delta(&r[2], 25.0, 69.4513888889, -3.5863108509, 0.0650298192);
	expect(&r[0], 27.8690486807, 8.2052433774);
	expect(&r[1], 25.7172621702, 8.0582242228);
	expect(&r[2], 21.4136891491, 8.0582242228);
	assert_double_equal(rating_conservative(&r[0]), 3.2533185486, EPS);
	assert_double_equal(rating_conservative(&r[1]), 1.5425895018, EPS);
	assert_double_equal(rating_conservative(&r[2]), -2.7609835193, EPS);

	rate_ok(r, game2, 3);
	omega_delta(&r[0], 27.8690486807, 67.3329633268, -1.6809069484, 0.0335189130);
	omega_delta(&r[1], 25.7172621702, 64.9419220694, 0.6418561046, 0.0300008812);
	omega_delta(&r[2], 21.4136891491, 64.9419220694, 0.9793606466, 0.0257005998);
	expect(&r[0], 26.1881417323, 8.0669718968);
	expect(&r[1], 26.3591182748, 7.9368512133);
	expect(&r[2], 22.3930497956, 7.9544249144);
	assert_double_equal(rating_conservative(&r[0]), 1.9872260418, EPS);
	assert_double_equal(rating_conservative(&r[1]), 2.5485646350, EPS);
	assert_double_equal(rating_conservative(&r[2]), -1.4702249477, EPS);
}

/* Only the order of the ranks matters: 3,1,1 is 2,1,1 is 9,4,4. */
static void test_rank_gaps_do_not_matter(void **state)
{
	struct rating a[3], b[3], c[3];
	const int ra[3] = { 3, 1, 1 }, rb[3] = { 2, 1, 1 }, rc[3] = { 9, 4, 4 };
	int i;

	(void)state;
	newcomers(a, 3);
	a[0].mu = 30;
	a[2].sigma = 5;
	memcpy(b, a, sizeof(a));
	memcpy(c, a, sizeof(a));
	rate_ok(a, ra, 3);
	rate_ok(b, rb, 3);
	rate_ok(c, rc, 3);
	for (i = 0; i < 3; i++) {
		expect(&b[i], a[i].mu, a[i].sigma);
		expect(&c[i], a[i].mu, a[i].sigma);
	}
}

/* Two newcomers: the winner gains what the loser loses, both as unsure. */
static void test_two_players(void **state)
{
	struct rating r[2], s[2];
	const int win[2] = { 1, 2 }, lose[2] = { 2, 1 };

	(void)state;
	newcomers(r, 2);
	rate_ok(r, win, 2);
	expect(&r[0], 27.6353894931, 8.0659014135);
	expect(&r[1], 22.3646105069, 8.0659014135);
	assert_double_equal(r[0].mu - 25.0, 25.0 - r[1].mu, 1e-12);
	/* the mirror game mirrors the result */
	newcomers(s, 2);
	rate_ok(s, lose, 2);
	expect(&s[0], r[1].mu, r[1].sigma);
	expect(&s[1], r[0].mu, r[0].sigma);
	/* the favourite's win moves less than the underdog's would */
	memcpy(s, r, sizeof(r));
	rate_ok(r, win, 2);		/* A, now ahead, wins again */
	rate_ok(s, lose, 2);		/* or B wins this time */
	assert_true(r[0].mu - 27.6353894931 < s[1].mu - 22.3646105069);
}

/* A tie between equals moves no mean, and still narrows sigma; between
 * unequals it pulls them together. */
static void test_ties(void **state)
{
	struct rating r[2];
	const int tie[2] = { 1, 1 };

	(void)state;
	newcomers(r, 2);
	rate_ok(r, tie, 2);
	assert_double_equal(r[0].mu, 25.0, 1e-12);
	assert_double_equal(r[1].mu, 25.0, 1e-12);
	assert_double_equal(r[0].sigma, r[1].sigma, 1e-12);
	assert_true(r[0].sigma < 25.0 / 3.0);

	newcomers(r, 2);
	r[0].mu = 30;
	rate_ok(r, tie, 2);
	assert_true(r[0].mu < 30);
	assert_true(r[1].mu > 25);
	assert_true(r[0].mu > r[1].mu);
}

/* A shared win: the two winners gain alike and the same as each other,
 * less than a sole winner would; the loser loses. */
static void test_shared_win(void **state)
{
	struct rating r[3], solo[3];
	const int shared[3] = { 1, 1, 3 }, alone[3] = { 1, 2, 3 };

	(void)state;
	newcomers(r, 3);
	newcomers(solo, 3);
	rate_ok(r, shared, 3);
	rate_ok(solo, alone, 3);
	assert_double_equal(r[0].mu, r[1].mu, 1e-12);
	assert_double_equal(r[0].sigma, r[1].sigma, 1e-12);
	assert_true(r[0].mu > 25);
	assert_true(r[0].mu < solo[0].mu);
	assert_true(r[2].mu < 25);
	/* everybody tied: a draw between equals moves nobody */
	{
		struct rating d[4];
		const int draw[4] = { 1, 1, 1, 1 };
		int i;

		newcomers(d, 4);
		rate_ok(d, draw, 4);
		for (i = 0; i < 4; i++) {
			assert_double_equal(d[i].mu, 25.0, 1e-12);
			assert_true(d[i].sigma < 25.0 / 3.0);
		}
	}
}

/* Five newcomers in order: hand-computed values (the formulas of
 * docs/ratings.md), the means in order of the places. */
static void test_five_players(void **state)
{
	struct rating r[5];
	const int rank[5] = { 1, 2, 3, 4, 5 };
	int i;

	(void)state;
	newcomers(r, 5);
	rate_ok(r, rank, 5);
	expect(&r[0], 27.6668266624, 8.2909701081);
	expect(&r[1], 26.8334433304, 8.2405548154);
	expect(&r[2], 25.7222655544, 8.1804010262);
	expect(&r[3], 24.0554988904, 8.1121948567);
	expect(&r[4], 20.7219655624, 8.1121948567);
	for (i = 1; i < 5; i++)
		assert_true(r[i].mu < r[i - 1].mu);
}

/* Every order of the same five players in the array, with a tie and
 * unequal ratings: each player ends with the same rating. */
static void test_permutation(void **state)
{
	struct rating base[5] = {
		{ 31.0, 4.0 }, { 25.0, 25.0 / 3.0 }, { 18.5, 6.2 },
		{ 27.2, 2.5 }, { 22.0, 7.0 },
	};
	const int rank[5] = { 2, 1, 4, 2, 5 };
	struct rating want[5], got[5];
	int perm[5], k, count = 0;

	(void)state;
	memcpy(want, base, sizeof(base));
	rate_ok(want, rank, 5);
	/* all 120 orders, by counting in base 5 and keeping the permutations */
	for (k = 0; k < 3125; k++) {
		int x = k, i, seen = 0, r[5];
		struct rating p[5];

		for (i = 0; i < 5; i++, x /= 5) {
			perm[i] = x % 5;
			seen |= 1 << perm[i];
		}
		if (seen != 31)
			continue;
		count++;
		for (i = 0; i < 5; i++) {
			p[i] = base[perm[i]];
			r[i] = rank[perm[i]];
		}
		rate_ok(p, r, 5);
		for (i = 0; i < 5; i++)
			got[perm[i]] = p[i];
		for (i = 0; i < 5; i++) {
			assert_double_equal(got[i].mu, want[i].mu, 1e-9);
			assert_double_equal(got[i].sigma, want[i].sigma, 1e-9);
		}
	}
	assert_int_equal(count, 120);
}

/* sigma after a game lies between the kappa floor and its dynamics:
 * sqrt(kappa) sqrt(s^2 + tau^2) <= sigma' <= sqrt(s^2 + tau^2). */
static void test_sigma_bounds(void **state)
{
	const struct rating_params *d = &rating_params_default;
	uint32_t seed = 12345;
	int g;

	(void)state;
	for (g = 0; g < 2000; g++) {
		struct rating r[8], before[8];
		int rank[8], n, i;

		seed = seed * 1664525u + 1013904223u;
		n = 2 + (int)(seed >> 16) % 7;
		for (i = 0; i < n; i++) {
			seed = seed * 1664525u + 1013904223u;
			r[i].mu = (double)(seed >> 8 & 0xffff) / 1000.0;	/* 0..65 */
			seed = seed * 1664525u + 1013904223u;
			r[i].sigma = 0.01 + (double)(seed >> 8 & 0xffff) / 4000.0;
			seed = seed * 1664525u + 1013904223u;
			rank[i] = 1 + (int)(seed >> 16) % n;
		}
		memcpy(before, r, sizeof(r));
		rate_ok(r, rank, n);
		for (i = 0; i < n; i++) {
			double wide = sqrt(before[i].sigma * before[i].sigma + d->tau * d->tau);

			assert_true(isfinite(r[i].mu));
			assert_true(r[i].sigma <= wide * (1 + 1e-12));
			assert_true(r[i].sigma >= sqrt(d->kappa) * wide * (1 - 1e-12));
		}
	}
}

/* The floor binds: one very unsure player last of eight sure equals would
 * get 1 - Delta < 0; sigma stops at sqrt(kappa) of its widened value.  And
 * tau is there: with kappa 1 nothing narrows, and sigma widens by tau. */
static void test_kappa_floor_and_tau(void **state)
{
	struct rating_params p = rating_params_default;
	struct rating r[8];
	const int rank[8] = { 1, 2, 3, 4, 5, 6, 7, 8 };
	struct buf err = BUF_INIT;
	double wide;
	int i;

	(void)state;
	p.beta = 0.01;
	for (i = 0; i < 8; i++) {
		r[i].mu = 25;
		r[i].sigma = 0.01;
	}
	r[7].sigma = 1000;
	wide = sqrt(1000.0 * 1000.0 + p.tau * p.tau);
	assert_int_equal(rating_update(&p, r, rank, 8, &err), 0);
	assert_double_equal(r[7].sigma, sqrt(p.kappa) * wide, 1e-9);

	p = rating_params_default;
	p.kappa = 1;
	newcomers(r, 3);
	assert_int_equal(rating_update(&p, r, rank, 3, &err), 0);
	for (i = 0; i < 3; i++)
		assert_double_equal(r[i].sigma, sqrt(625.0 / 9.0 + p.tau * p.tau), 1e-12);
	/* without dynamics, a game never widens a rating */
	p = rating_params_default;
	p.tau = 0;
	newcomers(r, 3);
	assert_int_equal(rating_update(&p, r, rank, 3, &err), 0);
	for (i = 0; i < 3; i++)
		assert_true(r[i].sigma < 25.0 / 3.0);
	buf_release(&err);
}

static void refused(const struct rating_params *p, struct rating *r, const int *rank,
		    int n, const char *why)
{
	struct rating before[9];
	struct buf err = BUF_INIT;
	int m = n < 0 ? 0 : n > 9 ? 9 : n;

	if (r)
		memcpy(before, r, (size_t)m * sizeof(*r));
	assert_int_equal(rating_update(p, r, rank, n, &err), -1);
	if (!strstr(buf_str(&err), why))
		fail_msg("error \"%s\" does not say \"%s\"", buf_str(&err), why);
	if (r)
		assert_memory_equal(before, r, (size_t)m * sizeof(*r));
	buf_release(&err);
	/* and without an error buffer */
	assert_int_equal(rating_update(p, r, rank, n, NULL), -1);
	if (r)
		assert_memory_equal(before, r, (size_t)m * sizeof(*r));
}

static void test_bad_input(void **state)
{
	struct rating r[9];
	int rank[9] = { 1, 2, 3, 4, 5, 6, 7, 8, 9 };
	struct rating_params p;

	(void)state;
	newcomers(r, 9);
	refused(NULL, r, rank, 1, "2 to 8 players");
	refused(NULL, r, rank, 9, "2 to 8 players");
	refused(NULL, r, rank, 0, "2 to 8 players");
	refused(NULL, NULL, rank, 3, "2 to 8 players");
	refused(NULL, r, NULL, 3, "2 to 8 players");
	rank[2] = 0;
	refused(NULL, r, rank, 3, "player 3: rank below 1");
	rank[2] = -4;
	refused(NULL, r, rank, 3, "player 3: rank below 1");
	rank[2] = 3;
	r[1].mu = NAN;
	refused(NULL, r, rank, 3, "player 2: mu");
	r[1].mu = INFINITY;
	refused(NULL, r, rank, 3, "player 2: mu");
	r[1].mu = -2e9;
	refused(NULL, r, rank, 3, "player 2: mu");
	r[1].mu = 25;
	r[0].sigma = 0;
	refused(NULL, r, rank, 3, "player 1: sigma");
	r[0].sigma = -1;
	refused(NULL, r, rank, 3, "player 1: sigma");
	r[0].sigma = NAN;
	refused(NULL, r, rank, 3, "player 1: sigma");
	r[0].sigma = INFINITY;
	refused(NULL, r, rank, 3, "player 1: sigma");
	r[0].sigma = 25.0 / 3.0;
	p = rating_params_default;
	p.beta = 0;
	refused(&p, r, rank, 3, "beta");
	p = rating_params_default;
	p.kappa = 0;
	refused(&p, r, rank, 3, "kappa");
	p.kappa = 1.5;
	refused(&p, r, rank, 3, "kappa");
	p = rating_params_default;
	p.tau = NAN;
	refused(&p, r, rank, 3, "tau");
	p.tau = -1;
	refused(&p, r, rank, 3, "tau");
	/* the same game with good input is rated */
	rate_ok(r, rank, 3);
	assert_true(r[0].mu > 25);
}

/* Far-apart ratings: no overflow or 0/0 from exp(mu/c). */
static void test_extreme_ratings(void **state)
{
	struct rating r[3] = { { 1e9, 0.001 }, { -1e9, 0.001 }, { 0, 0.001 } };
	const int rank[3] = { 3, 1, 2 };
	int i;

	(void)state;
	rate_ok(r, rank, 3);
	for (i = 0; i < 3; i++) {
		assert_true(isfinite(r[i].mu));
		assert_true(isfinite(r[i].sigma) && r[i].sigma > 0);
	}
	assert_true(r[0].mu < 1e9);
	assert_true(r[1].mu > -1e9);
}

static void ranks(const int *score, const unsigned char *winner,
		  const unsigned char *last, int n, const int *want)
{
	int got[8], i;

	rating_ranks(score, winner, last, n, got);
	for (i = 0; i < n; i++)
		if (got[i] != want[i])
			fail_msg("player %d: rank %d, want %d", i + 1, got[i], want[i]);
}

static void test_ranks(void **state)
{
	(void)state;
	/* by score, ties shared, competition ranking */
	ranks((const int[]){ 10, 20, 20, 5 }, NULL, NULL, 4, (const int[]){ 3, 1, 1, 4 });
	/* nothing known: everybody ties */
	ranks(NULL, NULL, NULL, 3, (const int[]){ 1, 1, 1 });
	/* the winners first whatever their score, tied; then by score */
	ranks((const int[]){ 10, 30, 12, 20 },
	      (const unsigned char[]){ 1, 0, 1, 0 }, NULL, 4, (const int[]){ 1, 3, 1, 4 });
	/* winners without scores: the rest tie below them */
	ranks(NULL, (const unsigned char[]){ 0, 1, 0 }, NULL, 3, (const int[]){ 2, 1, 2 });
	/* the last below everyone, whatever their score, tied among them */
	ranks((const int[]){ 50, 20, 40, 10, 30 }, NULL,
	      (const unsigned char[]){ 1, 0, 1, 0, 0 }, 5, (const int[]){ 4, 2, 4, 3, 1 });
	/* a player counted last is last even when the game named them winner */
	ranks((const int[]){ 9, 5, 7 }, (const unsigned char[]){ 1, 0, 0 },
	      (const unsigned char[]){ 1, 0, 0 }, 3, (const int[]){ 3, 2, 1 });
	/* winners, scores and the last together */
	ranks((const int[]){ 3, 8, 8, 1, 9, 4 }, (const unsigned char[]){ 0, 0, 0, 1, 0, 0 },
	      (const unsigned char[]){ 0, 0, 0, 0, 1, 0 }, 6,
	      (const int[]){ 5, 2, 2, 1, 6, 4 });
}

/* rating_ranks feeds rating_update: a kicked player's "last" costs them. */
static void test_ranks_then_rate(void **state)
{
	struct rating r[3];
	int rank[3];

	(void)state;
	newcomers(r, 3);
	rating_ranks((const int[]){ 7, 12, 15 }, NULL, (const unsigned char[]){ 0, 0, 1 }, 3, rank);
	assert_int_equal(rank[0], 2);
	assert_int_equal(rank[1], 1);
	assert_int_equal(rank[2], 3);
	rate_ok(r, rank, 3);
	assert_true(r[2].mu < r[0].mu && r[0].mu < r[1].mu);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_defaults),
		cmocka_unit_test(test_worked_example),
		cmocka_unit_test(test_rank_gaps_do_not_matter),
		cmocka_unit_test(test_two_players),
		cmocka_unit_test(test_ties),
		cmocka_unit_test(test_shared_win),
		cmocka_unit_test(test_five_players),
		cmocka_unit_test(test_permutation),
		cmocka_unit_test(test_sigma_bounds),
		cmocka_unit_test(test_kappa_floor_and_tau),
		cmocka_unit_test(test_bad_input),
		cmocka_unit_test(test_extreme_ratings),
		cmocka_unit_test(test_ranks),
		cmocka_unit_test(test_ranks_then_rate),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
