/*
 * check.c: the invariants of a Builders state.  Tests call it after every
 * move; load() calls it so that a state read from JSON is one the rules
 * could have reached in shape: every card in exactly one place, money and
 * loans conserved, the derived counts right, and the current decision's
 * context coherent, so that moves() and apply() are safe on it.
 */
#include <string.h>

#include "games/builders/builders.h"

#define FAIL(...) do { buf_setf(err, __VA_ARGS__); return -1; } while (0)

static int check_buildings(const struct builders_state *s, struct buf *err)
{
	uint8_t seen[BUILDERS_BUILDINGS] = { 0 };
	int i, b, row_empty = 0;

	if (s->nbdeck > BUILDERS_BUILDINGS)
		FAIL("building deck too large");
	for (i = 0; i < BUILDERS_BUILDINGS; i++) {
		b = s->bdeck[i];
		if (i >= s->nbdeck) {
			if (b)
				FAIL("stale building deck entry");
			continue;
		}
		if (b >= BUILDERS_BUILDINGS || seen[b]++ || s->bplace[b] != BP_DECK)
			FAIL("bad building %d in the deck", b);
	}
	for (i = 0; i < BUILDERS_ROW; i++) {
		b = s->brow[i];
		if (b == BUILDERS_NONE) {
			row_empty = 1;
			continue;
		}
		if (b >= BUILDERS_BUILDINGS || seen[b]++ || s->bplace[b] != BP_ROW)
			FAIL("bad building %d in the row", b);
	}
	if (row_empty && s->nbdeck)
		FAIL("an empty building slot while the deck has cards");
	for (b = 0; b < BUILDERS_BUILDINGS; b++) {
		switch (s->bplace[b]) {
		case BP_DECK:
		case BP_ROW:
			if (s->bown[b] != BUILDERS_NONE || !seen[b])
				FAIL("building %d misplaced", b);
			break;
		case BP_BUILDING:
		case BP_DONE:
			if (s->bown[b] >= s->nplayers || seen[b])
				FAIL("building %d has no owner", b);
			break;
		default:
			FAIL("bad place of building %d", b);
		}
	}
	return 0;
}

static int check_units(const struct builders_state *s, struct buf *err)
{
	uint8_t seen[BUILDERS_WORKERS] = { 0 };
	int i, u, k, t;

	if (s->nwdeck > BUILDERS_WORKERS)
		FAIL("worker deck too large");
	for (i = 0; i < BUILDERS_WORKERS; i++) {
		u = s->wdeck[i];
		if (i >= s->nwdeck) {
			if (u)
				FAIL("stale worker deck entry");
			continue;
		}
		if (u >= BUILDERS_WORKERS || seen[u]++ || s->uown[u] != BUILDERS_NONE)
			FAIL("bad worker %d in the deck", u);
	}
	for (i = 0; i < BUILDERS_ROW; i++) {
		u = s->wrow[i];
		if (u == BUILDERS_NONE) {
			if (s->nwdeck)
				FAIL("an empty worker slot while the deck has cards");
			continue;
		}
		if (u >= BUILDERS_WORKERS || seen[u]++ || s->uown[u] != BUILDERS_NONE)
			FAIL("bad worker %d in the row", u);
	}
	for (u = 0; u < BUILDERS_WORKERS; u++)
		if ((s->uown[u] == BUILDERS_NONE) != (seen[u] != 0) ||
		    (s->uown[u] != BUILDERS_NONE && s->uown[u] >= s->nplayers))
			FAIL("worker %d misplaced", u);
	for (i = 0; i < BUILDERS_MAX_PLAYERS; i++) {
		if (i >= s->nplayers) {
			if (s->dealt[i])
				FAIL("an Apprentice dealt to an empty seat");
			continue;
		}
		if (s->dealt[i] >= BUILDERS_APPRENTICES || s->uown[s->dealt[i]] != i)
			FAIL("seat %d does not own the Apprentice it was dealt", i + 1);
		for (k = 0; k < i; k++)
			if (s->dealt[k] == s->dealt[i])
				FAIL("one Apprentice dealt twice");
	}
	for (k = 0; k < BUILDERS_SLAVES; k++) {
		u = BU_SLAVE + k;
		if (s->uown[u] != BUILDERS_NONE && s->uown[u] >= s->nplayers)
			FAIL("bad owner of slave %d", k);
		if (s->freed[k] > 1 || (s->freed[k] && s->uown[u] == BUILDERS_NONE))
			FAIL("bad freed flag of slave %d", k);
	}
	for (k = 0; k < BUILDERS_MACHINES; k++) {
		int b = BB_FIRST_MACHINE + k;
		int want = s->bplace[b] == BP_DONE ? s->bown[b] : BUILDERS_NONE;

		if (s->uown[BU_MACHINE + k] != want)
			FAIL("machine %d works for the wrong seat", k);
	}
	for (u = 0; u < BUILDERS_UNITS; u++) {
		int b = s->uat[u];

		if (b == BUILDERS_NONE)
			continue;
		if (b >= BUILDERS_BUILDINGS || s->uown[u] == BUILDERS_NONE ||
		    s->bown[b] != s->uown[u] || s->bplace[b] != BP_BUILDING)
			FAIL("unit %d works where it cannot", u);
	}
	for (t = 0; t < BUILDERS_TOOLS; t++) {
		u = s->tat[t];
		if (s->town[t] != BUILDERS_NONE && s->town[t] >= s->nplayers)
			FAIL("bad owner of tool %d", t);
		if (u == BUILDERS_NONE)
			continue;
		if (u >= BUILDERS_UNITS || s->town[t] != s->uown[u] || s->uat[u] == BUILDERS_NONE ||
		    !builders_can_equip(s, u))
			FAIL("tool %d carried by a unit that cannot", t);
		for (i = 0; i < t; i++)
			if (s->tat[i] == u)
				FAIL("two tools on unit %d", u);
	}
	for (k = 0; k < BUILDERS_UNIS; k++) {
		u = s->uni[k];
		if (u == BUILDERS_NONE)
			continue;
		if (u >= BUILDERS_UNITS || s->uown[u] == BUILDERS_NONE || !builders_can_equip(s, u))
			FAIL("university %d on a unit that cannot have it", k);
		for (i = 0; i < k; i++)
			if (s->uni[i] == u)
				FAIL("unit %d educated twice", u);
	}
	return 0;
}

static int check_money(const struct builders_state *s, struct buf *err)
{
	long sum = s->bank;
	int i, loans = s->loan_pile;

	for (i = 0; i < s->nplayers; i++) {
		if (s->p[i].money > BUILDERS_MONEY_MAX)
			FAIL("seat %d has too much money", i);
		sum += s->p[i].money;
		loans += s->p[i].loans;
	}
	for (; i < BUILDERS_MAX_PLAYERS; i++)
		if (s->p[i].money || s->p[i].loans || s->p[i].vp)
			FAIL("an empty seat holds something");
	if (sum != BUILDERS_BANK_COINS)
		FAIL("money not conserved (%ld)", sum);
	if (loans != BUILDERS_LOANS)
		FAIL("loans not conserved");
	return 0;
}

static int check_derived(const struct builders_state *s, struct buf *err)
{
	struct builders_state t;
	int b, r, i;

	memcpy(&t, s, sizeof(t));
	builders_recount(&t);
	if (memcmp(t.prog, s->prog, sizeof(t.prog)) || memcmp(t.idle, s->idle, sizeof(t.idle)) ||
	    t.bound != s->bound || t.edu != s->edu || t.spile != s->spile ||
	    t.tpile != s->tpile || t.upile != s->upile)
		FAIL("masks of buildings, units or piles out of date");
	if (memcmp(t.uwage, s->uwage, sizeof(t.uwage)) || memcmp(t.umask, s->umask, sizeof(t.umask)) ||
	    memcmp(t.wle, s->wle, sizeof(t.wle)) || memcmp(t.rmask, s->rmask, sizeof(t.rmask)))
		FAIL("unit wages or resources out of date");
	if (t.sentmask != s->sentmask || memcmp(t.plack, s->plack, sizeof(t.plack)) ||
	    memcmp(t.tidle, s->tidle, sizeof(t.tidle)))
		FAIL("turn masks out of date");
	if (memcmp(t.ures, s->ures, sizeof(t.ures)))
		FAIL("unit resources out of date");
	if (memcmp(t.have, s->have, sizeof(t.have)) || memcmp(t.lack, s->lack, sizeof(t.lack)))
		FAIL("building progress out of date");
	for (i = 0; i < s->nplayers; i++)
		if (t.p[i].vp != s->p[i].vp)
			FAIL("victory points out of date");
	for (b = 0; b < BUILDERS_BUILDINGS; b++) {
		int done = 1;

		if (s->bplace[b] != BP_BUILDING)
			continue;
		for (r = 0; r < BR_COUNT; r++)
			done &= s->have[b][r] >= builders_buildings[b].need[r];
		if (done)
			FAIL("building %d is complete but still in progress", b);
	}
	return 0;
}

static int check_turn(const struct builders_state *s, struct buf *err)
{
	struct move_list ml;
	int b, u, in_turn = s->step <= BS_EDUCATE;

	if (s->first >= s->nplayers || s->cur >= s->nplayers)
		FAIL("bad seat");
	if (s->round < 1 || s->round > BUILDERS_ROUND_CAP || s->ending > 1 || s->invested > 1)
		FAIL("bad round or flags");
	if (s->ending) {
		int any = 0;

		for (u = 0; u < s->nplayers; u++)
			any |= s->p[u].vp >= BUILDERS_END_VP;
		if (!any)
			FAIL("the end was triggered without 17 VP");
	}
	if (!in_turn && (s->used || s->invested || s->pend != BUILDERS_NONE))
		FAIL("turn fields outside a turn");
	if (s->step >= BS_FINAL && !s->ending && s->round < BUILDERS_ROUND_CAP)
		FAIL("final scoring before the end");
	if (s->step == BS_OVER && s->cur)
		FAIL("a finished game has a seat to decide");
	if (s->used > 3 * BUILDERS_MONEY_MAX)
		FAIL("too many actions");
	for (b = 0; b < BUILDERS_BUILDINGS; b++) {
		int at = 0;

		if (!s->sent[b])
			continue;
		for (u = 0; u < BUILDERS_UNITS; u++)
			at += s->uat[u] == b;
		if (!in_turn || s->bown[b] != s->cur || s->bplace[b] != BP_BUILDING ||
		    s->sent[b] > at)
			FAIL("workers counted as sent to building %d", b);
	}
	if (s->step == BS_SEND) {
		if (s->pend >= BUILDERS_UNITS || s->uown[s->pend] != s->cur ||
		    s->uat[s->pend] != BUILDERS_NONE)
			FAIL("bad unit being sent");
	} else if (s->pend != BUILDERS_NONE) {
		FAIL("a unit pending outside a send");
	}
	if ((s->step == BS_ENSLAVE || s->step == BS_TOOL || s->step == BS_EDUCATE) && s->invested)
		FAIL("a second investment in one turn");
	/* an investment's sub-step is only opened when its price and its
	 * action are affordable (invest_open): a state that asks for one the
	 * seat cannot pay would pay it into negative money */
	if (s->step == BS_ENSLAVE || s->step == BS_TOOL || s->step == BS_EDUCATE) {
		int price = s->step == BS_ENSLAVE ? BUILDERS_SLAVE_PRICE
			    : s->step == BS_TOOL ? BUILDERS_TOOL_PRICE : BUILDERS_UNI_PRICE;

		if (s->p[s->cur].money - builders_action_money(s, 1) < price)
			FAIL("an investment in step %s the seat cannot pay", builders_step_ids[s->step]);
	}
	/* every decision has a real move (a sub-step is never a dead end) */
	if (s->step < BS_OVER) {
		builders_moves(s, s->cur, &ml);
		if (ml.n - ml.nmeta <= 0)
			FAIL("no move in step %s", builders_step_ids[s->step]);
		if (s->step == BS_FINAL && ml.n < 2)
			FAIL("final scoring asks a seat with nothing to decide");
	}
	return 0;
}

int builders_check(const void *st, struct buf *err)
{
	const struct builders_state *s = st;

	if (s->nplayers < BUILDERS_MIN_PLAYERS || s->nplayers > BUILDERS_MAX_PLAYERS)
		FAIL("bad player count");
	if (s->step >= BS_COUNT)
		FAIL("bad step");
	if (check_buildings(s, err) || check_units(s, err) || check_money(s, err) ||
	    check_derived(s, err) || check_turn(s, err))
		return -1;
	return 0;
}
