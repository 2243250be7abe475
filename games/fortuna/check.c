/*
 * check.c: the invariants of a Fortuna state.  Tests call it after every
 * move; load() calls it so that a state read from JSON is one the rules
 * could have reached in shape: every index in range, every component
 * conserved, and the context of the current decision coherent, so that
 * moves() and apply() are safe on it and never stall.
 */
#include <string.h>

#include "games/fortuna/fortuna.h"

#define FAIL(...) do { buf_setf(err, __VA_ARGS__); return -1; } while (0)

static int down_count(const struct fortuna_state *s, int side)
{
	int u, n = 0;

	for (u = 0; u < FORTUNA_SLOTS; u++)
		n += s->side_down[side][u] != 0;
	return n;
}

static int face_up_on(const struct fortuna_state *s, int card, int side)
{
	int u;
	int t = fortuna_find_card(s, card, &u);

	return t == side && !s->side_down[t][u];
}

/* Cards on each side after k draft picks (the Fortuna card included). */
static void draft_counts(const struct fortuna_state *s, int k, int *count)
{
	int i, n = s->nplayers;

	memset(count, 0, sizeof(int) * FORTUNA_SIDES);
	count[s->order[0]] = 1;
	for (i = 0; i < k; i++) {
		int pos = i < 2 * n ? n - 1 - i % n : n - 1 - (i - 2 * n);

		count[s->order[pos]]++;
	}
}

static int check_cards(const struct fortuna_state *s, struct buf *err)
{
	int seen[FA_COUNT] = { 0 }, count[FORTUNA_SIDES];
	int t, u, n = s->nplayers, placed = 0, active = -1, want;

	for (t = 0; t < FORTUNA_SIDES; t++)
		for (u = 0; u < FORTUNA_SLOTS; u++) {
			int c = s->side_card[t][u];

			if (s->side_down[t][u] > 1)
				FAIL("bad face-down flag");
			if (c == FORTUNA_NO_CARD) {
				if (s->step != FS_DRAFT || s->side_down[t][u])
					FAIL("empty action card slot");
				continue;
			}
			if (c >= FA_COUNT)
				FAIL("bad action card %d", c);
			if (seen[c]++)
				FAIL("action card %d twice", c);
			placed++;
		}
	if (s->step == FS_DRAFT) {
		draft_counts(s, s->setup_k, count);
		for (t = 0; t < FORTUNA_SIDES; t++) {
			int have = 0;

			for (u = 0; u < FORTUNA_SLOTS; u++)
				if (s->side_card[t][u] != FORTUNA_NO_CARD) {
					have++;
					if (u > 0 && s->side_card[t][u - 1] == FORTUNA_NO_CARD)
						FAIL("draft slots out of order");
				}
			if (have != count[t] || down_count(s, t))
				FAIL("draft cards do not match the picks");
		}
		if (s->side_card[s->order[0]][0] != FA_FORTUNA)
			FAIL("the first player lacks the Fortuna card");
		return 0;
	}
	if (placed != FA_COUNT)
		FAIL("action cards missing");
	for (t = n; t < FORTUNA_SIDES; t++)
		if (down_count(s, t))
			FAIL("face-down card on an empty side");
	if (s->step == FS_HIDE) {
		/* the seats reserve at once, in any order: setup_k have */
		for (t = 0, want = 0; t < n; t++) {
			if (down_count(s, t) > 1)
				FAIL("two reserved cards on one side");
			want += down_count(s, t);
		}
		if (want != s->setup_k)
			FAIL("face-down cards do not match the setup");
		return 0;
	}
	if (s->step == FS_OVER) {
		for (t = 0; t < n; t++)
			if (down_count(s, t) > 1)
				FAIL("two face-down cards on one side");
		return 0;
	}
	active = s->order[s->turn];
	for (t = 0; t < n; t++) {
		want = 1;
		if (t == active) {
			int st = s->step == FS_RESOURCE ? s->res_ret : s->step;

			/* Before the exchange the active seat's 3 cards are all up. */
			if (st == FS_CHOOSE || st == FS_EXCHANGE ||
			    (st == FS_ACTION && s->act_via == FV_PHASE2))
				want = 0;
		}
		if (down_count(s, t) != want)
			FAIL("wrong number of face-down cards on side %d", t + 1);
	}
	return 0;
}

static int check_context(const struct fortuna_state *s, struct buf *err)
{
	int seat = s->order[s->turn], i, st = s->step;
	const struct fortuna_player *p = &s->p[seat];

	if (s->step == FS_DRAFT && (!s->draft || s->setup_k >= 3 * s->nplayers - 1))
		FAIL("bad draft state");
	if (s->step == FS_HIDE && s->setup_k >= s->nplayers)
		FAIL("bad setup state");
	if (s->nroll > p->dice || s->nroll > 3 || (s->rolled && s->nroll == 0) ||
	    (!s->rolled && s->nroll))
		FAIL("bad roll");
	for (i = 0; i < 3; i++)
		if (s->roll[i] > 6 || (i < s->nroll) != (s->roll[i] != 0))
			FAIL("bad die value");
	if (s->die > 6 || s->last_die > 6 || s->last_nroll > 3)
		FAIL("bad die");
	if (s->last_seat != 255 && s->last_seat >= s->nplayers)
		FAIL("bad last roller");
	for (i = 0; i < 3; i++)
		if (s->last_roll[i] > 6)
			FAIL("bad last roll");
	if (s->act_card >= FA_COUNT || s->chosen >= FA_COUNT || s->act_via > FV_MILITARY ||
	    s->corrupted > 1 || s->b_played > 1 || s->palace_due > 1)
		FAIL("bad turn context");
	if (s->ndrawn > 3 || s->keep_left > 2 || s->keep_src > FK_PALACE_LATER || s->npalace > 3)
		FAIL("bad privilege draw");
	if (st == FS_RESOURCE) {
		if (s->res_ret < FS_CHOOSE || s->res_ret > FS_END)
			FAIL("bad resource return step");
		st = s->res_ret;
	}
	if (st != FS_KEEP && (s->ndrawn || s->keep_left))
		FAIL("privilege cards left drawn");
	if (s->palace_due && !p->arrival)
		FAIL("Palace draw without arrival");
	switch (st) {
	case FS_ACTION:
		if (s->act_via == FV_PHASE2 && !face_up_on(s, s->chosen, seat))
			FAIL("the played card is not on its side");
		if (s->corrupted) {
			int t = fortuna_find_card(s, s->act_card, NULL);

			if (t == seat || s->act_card == FA_FORTUNA || s->act_card == FA_CORRUPTION)
				FAIL("bad Corruption target");
		} else if (s->act_via == FV_PHASE2 ? s->act_card != s->chosen
			   : !face_up_on(s, s->act_card, seat)) {
			FAIL("bad action card");
		}
		if (s->die)
			FAIL("die chosen too early");
		break;
	case FS_EXCHANGE:
		if (!face_up_on(s, s->chosen, seat) || s->die)
			FAIL("bad exchange state");
		break;
	case FS_CHOOSE:
	case FS_MILITARY:
		if (s->die || (st == FS_CHOOSE && s->rolled))
			FAIL("bad phase state");
		break;
	case FS_DIE:
		if (!s->rolled || s->nroll != p->dice || s->die)
			FAIL("bad dice state");
		break;
	case FS_FAVOUR:
		if (!s->rolled || s->die < 1)
			FAIL("bad favour state");
		for (i = 0; i < s->nroll && s->roll[i] != s->die; i++)
			;
		if (i == s->nroll)
			FAIL("the chosen die was not rolled");
		break;
	case FS_FLIP:
		if (s->nplayers != 2 || s->turn != 0 || !s->rolled)
			FAIL("bad flip state");
		break;
	case FS_END:
		if (!s->rolled || s->token_turn)
			FAIL("bad end of turn state");
		break;
	case FS_KEEP:
		if (!s->ndrawn || !s->keep_left || s->ndrawn <= s->keep_left)
			FAIL("bad keep state");
		if (s->keep_src != FK_FAVOUR && s->keep_left != 1)
			FAIL("bad Palace keep");
		if (s->keep_src == FK_FAVOUR && s->token_turn)
			FAIL("tokens not spent");
		break;
	}
	return 0;
}

int fortuna_check(const void *st, struct buf *err)
{
	const struct fortuna_state *s = st;
	int n = s->nplayers, i, j, k, c;
	int water = s->sup_water, grain = s->sup_grain, wine = s->sup_wine;
	int priest = s->sup_priest, cent = s->sup_cent, dice = s->sup_dice;
	int tokens, owners[FB_COUNT] = { 0 }, privs[FP_COUNT] = { 0 }, arrived = 0;
	unsigned seen = 0;

	if (n < 2 || n > FORTUNA_MAX_PLAYERS)
		FAIL("bad player count");
	if (s->step >= FS_COUNT || s->draft > 1 || s->ending > 1)
		FAIL("bad step");
	if (s->round < 1 || s->round > FORTUNA_ROUND_CAP)
		FAIL("bad round");
	if (s->turn >= n)
		FAIL("bad turn");
	for (i = 0; i < n; i++) {
		if (s->order[i] >= n || (seen >> s->order[i]) & 1)
			FAIL("turn order is not a permutation");
		seen |= 1u << s->order[i];
	}
	for (i = n; i < FORTUNA_MAX_PLAYERS; i++)
		if (s->order[i])
			FAIL("turn order beyond the players");

	for (i = 0; i < FORTUNA_MAX_PLAYERS; i++) {
		const struct fortuna_player *p = &s->p[i];
		int nb = 0;

		if (i >= n) {
			static const struct fortuna_player zero;

			if (memcmp(p, &zero, sizeof(zero)))
				FAIL("data for a seat nobody sits at");
			continue;
		}
		if (p->steps > FORTUNA_PALACE || p->money > FORTUNA_MONEY_MAX)
			FAIL("seat %d: steps or money out of range", i + 1);
		if (p->priest > 3 || p->cent > 3 || p->dice < 1 || p->dice > 3)
			FAIL("seat %d: more than 3 of a kind", i + 1);
		if (p->married > 1 || p->buildings >> FB_COUNT || p->aq_water > 1)
			FAIL("seat %d: bad province", i + 1);
		for (k = 0; k < FB_COUNT; k++)
			if ((p->buildings >> k) & 1) {
				owners[k]++;
				nb++;
			}
		if (nb > 3 || ((p->buildings >> FB_PALACE) & 1 && !p->married))
			FAIL("seat %d: illegal buildings", i + 1);
		if (!((p->buildings >> FB_AQUEDUCT) & 1) && (p->aq_water || p->aq_round))
			FAIL("seat %d: water in a missing Aqueduct", i + 1);
		if (p->aq_round > s->round)
			FAIL("seat %d: Aqueduct built in the future", i + 1);
		if (p->arrival > n)
			FAIL("seat %d: bad arrival", i + 1);
		if (p->arrival) {
			if ((arrived >> p->arrival) & 1)
				FAIL("two seats arrived in the same place");
			arrived |= 1 << p->arrival;
		}
		water += p->water + p->aq_water;
		grain += p->grain;
		wine += p->wine;
		priest += p->priest;
		cent += p->cent;
		dice += p->dice;
		for (k = 0; k < FP_COUNT; k++)
			privs[k] += p->hand[k];
	}
	if (water != 15 || grain != 15 || wine != 15)
		FAIL("water, grain or wine not conserved");
	if (priest != 12 || cent != 12 || dice != 9)
		FAIL("Sacerdotisas, Centuriones or dice not conserved");
	for (k = 0; k < FB_COUNT; k++)
		if (owners[k] + s->bld_left[k] != fortuna_building_copies(n))
			FAIL("building cards not conserved");
	if (arrived != (1 << (s->narrived + 1)) - 2)
		FAIL("arrivals do not match");
	if (s->narrived && !s->ending)
		FAIL("somebody arrived but the game is not ending");

	tokens = s->token_reserve + s->token_palace + s->token_turn;
	for (c = 0; c < FF_COUNT; c++) {
		if (s->fav_up[c] > 1 || s->fav_tokens[c] > FORTUNA_TOKEN_CAP)
			FAIL("bad favour card");
		tokens += s->fav_tokens[c];
	}
	if (tokens != FORTUNA_TOKENS)
		FAIL("privilege tokens not conserved");
	if (s->token_palace != 0 && s->token_palace != 3)
		FAIL("bad Palace tokens");

	if (s->ndeck > FORTUNA_PRIV_MAX || s->ndrawn > 3 || s->npalace > 3)
		FAIL("bad privilege piles");
	for (i = 0; i < s->ndeck; i++) {
		if (s->deck[i] >= FP_COUNT)
			FAIL("bad privilege card");
		privs[s->deck[i]]++;
	}
	for (i = 0; i < s->ndrawn; i++) {
		if (s->drawn[i] >= FP_COUNT)
			FAIL("bad privilege card");
		privs[s->drawn[i]]++;
	}
	for (i = 0; i < s->npalace; i++) {
		if (s->palace_cards[i] >= FP_COUNT)
			FAIL("bad privilege card");
		privs[s->palace_cards[i]]++;
	}
	for (k = 0; k < FP_COUNT; k++) {
		privs[k] += s->discard[k];
		if (privs[k] != fortuna_priv_copies(k, n))
			FAIL("privilege cards not conserved");
	}
	for (i = s->ndeck; i < FORTUNA_PRIV_MAX; i++)
		if (s->deck[i])
			FAIL("data beyond the privilege deck");
	for (j = s->ndrawn; j < 3; j++)
		if (s->drawn[j])
			FAIL("data beyond the drawn cards");
	for (j = s->npalace; j < 3; j++)
		if (s->palace_cards[j])
			FAIL("data beyond the Palace cards");

	if (check_cards(s, err))
		return -1;
	return check_context(s, err);
}
