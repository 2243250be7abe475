/*
 * rating: the rating maths, and nothing else (docs/ratings.md).  The
 * Weng–Lin (2011) Bayesian approximation with the Plackett–Luce model, as
 * OpenSkill uses it: each player is a team of one with a mean `mu` and an
 * uncertainty `sigma`; one finished game of 2..GAME_MAX_SEATS players,
 * given as ranks (1 = best, equal ranks tie), moves every player's mu and
 * shrinks their sigma.  Leaderboards sort by the conservative rating
 * mu - 3 sigma.
 *
 * Pure: no I/O, no clock, no allocation, no state but the constant
 * defaults.  Every array is the caller's and is only read, except the
 * ratings rating_update() rewrites in place and the ranks rating_ranks()
 * writes.  Which games count, and what is stored, is the caller's.
 */
#ifndef BOT_RATING_H
#define BOT_RATING_H

struct buf;

/* A player's belief: skill ~ Normal(mu, sigma^2). */
struct rating {
	double mu, sigma;
};

struct rating_params {
	double mu;	/* a newcomer's mean (25) */
	double sigma;	/* a newcomer's uncertainty (25/3): mu - 3 sigma = 0 */
	double beta;	/* the spread of one game's performance (25/6) */
	double kappa;	/* floor of the factor that shrinks sigma^2 (0.0001) */
	double tau;	/* added to sigma (in quadrature) before each game (25/300) */
};

/* The defaults above (OpenSkill's). */
extern const struct rating_params rating_params_default;

/* The largest |mu| and sigma rating_update() accepts: beyond them a rating
 * is corrupt, not skilful. */
#define RATING_MAX_ABS 1e9
/* Players in one update: 2 .. RATING_MAX_PLAYERS (GAME_MAX_SEATS). */
#define RATING_MAX_PLAYERS 8

/* A newcomer: mu 25, sigma 25/3. */
void rating_default(struct rating *r);

/*
 * Rates one game.  players[i] is the i-th player's rating before the game
 * and rank[i] their place (1 = best; equal ranks are a tie, several
 * players at 1 a shared win; only the order of the numbers matters, so
 * 1,1,3 and 1,1,2 are the same game).  On success every players[i] holds
 * the rating after the game and it returns 0.  On bad input (n outside
 * 2..RATING_MAX_PLAYERS, a rank below 1, mu or sigma not finite or out of
 * range, sigma <= 0, bad params) it returns -1, writes why in err (may be
 * NULL) and changes nothing.  p may be NULL for rating_params_default.
 */
int rating_update(const struct rating_params *p, struct rating *players,
		  const int *rank, int n, struct buf *err);

/* mu - 3 sigma: the leaderboard's number (0 for a newcomer). */
double rating_conservative(const struct rating *r);

/*
 * A game's result as ranks (standard competition ranking: 1,1,3).  The
 * players with winner[i] set come first, tied at 1; then the others by
 * score, higher first, equal scores tied; then the players with last[i]
 * set (the AI took their seat after a kick or a timeout), tied below
 * everyone, whatever their score or winner flag.  Any of score, winner and
 * last may be NULL (all scores equal; no winners; nobody last).
 * rank_out has n entries, written.
 */
void rating_ranks(const int *score, const unsigned char *winner,
		  const unsigned char *last, int n, int *rank_out);

#endif
