/*
 * rating: the Weng–Lin Plackett–Luce update, the conservative rating and a
 * game's result as ranks (bot/rating.h; the maths and a worked example in
 * docs/ratings.md, whose numbers tests/unit/test_rating.c asserts).
 */
#include "bot/rating.h"

#include <math.h>
#include <stddef.h>

#include "games/game.h"
#include "util/buf.h"

_Static_assert(RATING_MAX_PLAYERS == GAME_MAX_SEATS, "a rated game seats every seat");

const struct rating_params rating_params_default = {
	.mu = 25.0,
	.sigma = 25.0 / 3.0,
	.beta = 25.0 / 6.0,
	.kappa = 0.0001,
	.tau = 25.0 / 300.0,
};

void rating_default(struct rating *r)
{
	r->mu = rating_params_default.mu;
	r->sigma = rating_params_default.sigma;
}

double rating_conservative(const struct rating *r)
{
	return r->mu - 3.0 * r->sigma;
}

#define RATING_STR_(x) #x
#define RATING_STR(x) RATING_STR_(x)

static int fail(struct buf *err, const char *why, int i)
{
	if (err) {
		if (i >= 0)
			buf_setf(err, "rating: player %d: %s", i + 1, why);
		else
			buf_setf(err, "rating: %s", why);
	}
	return -1;
}

static int check(const struct rating_params *p, const struct rating *players,
		 const int *rank, int n, struct buf *err)
{
	int i;

	if (!(isfinite(p->beta) && p->beta > 0 && p->beta <= RATING_MAX_ABS))
		return fail(err, "beta must be a positive number", -1);
	if (!(isfinite(p->kappa) && p->kappa > 0 && p->kappa <= 1))
		return fail(err, "kappa must be in (0, 1]", -1);
	if (!(isfinite(p->tau) && p->tau >= 0 && p->tau <= RATING_MAX_ABS))
		return fail(err, "tau must be a number >= 0", -1);
	if (n < 2 || n > RATING_MAX_PLAYERS || !players || !rank)
		return fail(err, "a rated game has 2 to " RATING_STR(RATING_MAX_PLAYERS)
			    " players", -1);
	for (i = 0; i < n; i++) {
		if (rank[i] < 1)
			return fail(err, "rank below 1", i);
		/* the comparisons are false for NaN, so NaN is refused too */
		if (!(fabs(players[i].mu) <= RATING_MAX_ABS))
			return fail(err, "mu is not a number in range", i);
		if (!(players[i].sigma > 0 && players[i].sigma <= RATING_MAX_ABS))
			return fail(err, "sigma is not a positive number in range", i);
	}
	return 0;
}

int rating_update(const struct rating_params *p, struct rating *players,
		  const int *rank, int n, struct buf *err)
{
	double s2[RATING_MAX_PLAYERS], lse[RATING_MAX_PLAYERS];
	double mu[RATING_MAX_PLAYERS], sigma[RATING_MAX_PLAYERS];
	int ties[RATING_MAX_PLAYERS];
	double c2 = 0, c;
	int i, q;

	if (!p)
		p = &rating_params_default;
	if (check(p, players, rank, n, err) < 0)
		return -1;
	/* the dynamics first: a skill drifts between games, so each game
	 * starts from a slightly wider belief (this keeps sigma from
	 * freezing after hundreds of games) */
	for (i = 0; i < n; i++) {
		s2[i] = players[i].sigma * players[i].sigma + p->tau * p->tau;
		c2 += s2[i] + p->beta * p->beta;
	}
	c = sqrt(c2);
	/* for each place q: log of the sum of exp(mu/c) over the players
	 * placed at q or below (C_q), taken around its largest term so that
	 * no exp() overflows or leaves the sum at 0 */
	for (q = 0; q < n; q++) {
		double m = -INFINITY, sum = 0;

		ties[q] = 0;
		for (i = 0; i < n; i++) {
			if (rank[i] == rank[q])
				ties[q]++;
			if (rank[i] >= rank[q] && players[i].mu / c > m)
				m = players[i].mu / c;
		}
		for (i = 0; i < n; i++)
			if (rank[i] >= rank[q])
				sum += exp(players[i].mu / c - m);
		lse[q] = m + log(sum);
	}
	for (i = 0; i < n; i++) {
		double omega = 0, delta = 0, gamma, f;

		for (q = 0; q < n; q++) {
			double piq;

			if (rank[q] > rank[i])
				continue;
			/* p_iq: the chance that i comes first among C_q */
			piq = exp(players[i].mu / c - lse[q]);
			omega += ((q == i ? 1.0 : 0.0) - piq) / ties[q];
			delta += piq * (1.0 - piq) / ties[q];
		}
		gamma = sqrt(s2[i]) / c;
		omega *= s2[i] / c;
		delta *= gamma * s2[i] / c2;
		f = 1.0 - delta;
		if (f < p->kappa)
			f = p->kappa;
		mu[i] = players[i].mu + omega;
		sigma[i] = sqrt(s2[i] * f);
	}
	for (i = 0; i < n; i++) {
		players[i].mu = mu[i];
		players[i].sigma = sigma[i];
	}
	return 0;
}

void rating_ranks(const int *score, const unsigned char *winner,
		  const unsigned char *last, int n, int *rank_out)
{
	int i, j;

	/* a player's rank is 1 + the players strictly ahead of them; three
	 * tiers (winners, the rest, the last), scores within the middle one */
	for (i = 0; i < n; i++) {
		int ti = last && last[i] ? 2 : winner && winner[i] ? 0 : 1;
		int ahead = 0;

		for (j = 0; j < n; j++) {
			int tj = last && last[j] ? 2 : winner && winner[j] ? 0 : 1;

			if (tj < ti || (tj == ti && ti == 1 && score &&
					score[j] > score[i]))
				ahead++;
		}
		rank_out[i] = 1 + ahead;
	}
}
