/*
 * sylla.c: the rules of Sylla (Dominique Ehrhard; Ystari's Spanish rulebook
 * is the specification) as a state machine of small decisions.
 *
 * Setup ends with the secret choice of the first characters (SS_PICK, all
 * seats at once).  Each of the 5 turns then runs the 7 phases:
 *   I   SS_ELECT (once round, from the last First Consul; or SS_SEALED,
 *       all at once, with sealed-election) -> SS_TOKEN -> famine (automatic)
 *   II  SS_RECRUIT, from the First Consul
 *   III 5 sales (4 with 3 players): SS_OFFER -> SS_BID once round from the
 *       offerer's next -> SS_TAP -> SS_INSULA when an Insula was bought
 *   IV  income (automatic), SS_TEMPLE and SS_TAVERN per seat
 *   V   SS_CUBE round by round -> tokens (automatic) -> SS_AVOID on a tie
 *       -> effects in row order, SS_HIDE (all at once) for the events that
 *       turn cards face down -> SS_REMOVE on a tie -> a new event
 *   VI  SS_VOTE (all at once): thumb, denarii, confirm -> reveal, scoring
 *   VII famine and crises (automatic)
 * and after the fifth, Ecclesia: Christians, SS_FREE (all at once), tokens.
 *
 * The automatic parts run inside apply() until the next decision.  A
 * decision with a single possible answer is taken at once (and logged):
 * the seat is asked only when it has a choice.
 *
 * Secret steps keep each seat's choice in its sylla_player (stage, thumb,
 * amount, picks) until every awaited seat has confirmed; then one reveal
 * applies them all and writes one public line per decision.  Before that
 * nothing public depends on a choice: the prompt is the same at every
 * stage, and the board shows no stage.
 *
 * apply() accepts exactly what moves() lists: it builds the list and looks
 * the move up, so the two cannot disagree.
 *
 * This file keeps the decisions (awaiting, moves, apply with the secret
 * steps' stages), the result, the public small queries and the driver
 * table; setup and each phase live in a file of their own, listed in
 * sylla_int.h with what they share.
 */
#include <string.h>

#include "games/sylla/sylla_int.h"

/* ---- small queries ---- */

int sylla_pick_count(const struct sylla_state *s)
{
	return s->nplayers == 3 ? 6 : 4;
}

int sylla_senators(const struct sylla_state *s, int seat)
{
	return popc(s->own[seat] & ~s->down & ~s->tapped & sylla_mask.kind[SK_SENATOR]);
}

int sylla_buy_power(const struct sylla_state *s, int seat, int colour)
{
	return popc(payers(s, seat, colour)) + cranes_free(s, seat);
}

int sylla_income(const struct sylla_state *s, int seat)
{
	return 3 + 2 * s->p[seat].zone[SZ_STALL] + ready(s, seat, SK_MERCHANT);
}

int sylla_work_points(int w, int rank, int votes)
{
	if (w == SG_TEMPLE)
		return votes >= 8 ? 10 : votes >= 5 ? 6 : 0;
	if (w < 0 || w >= SG_COUNT || rank < 0 || rank > 2)
		return 0;
	return sylla_works[w].pts[rank];
}

int sylla_token_points(const struct sylla_state *s, int seat)
{
	int t, v = 0;

	for (t = 0; t < ST_COUNT; t++)
		v += s->p[seat].tok[t] * sylla_track_value[s->track[t]];
	return v;
}

int sylla_covered(const struct sylla_state *s, int what)
{
	int i;

	for (i = 0; i < SY_EV_ROW; i++)
		if (s->ev_row[i] < SE_COUNT && covers(s->ev_row[i], what))
			return 1;
	return 0;
}

void sylla_log_names(struct buf *b, uint64_t cards, enum locale loc)
{
	int c, first = 1;

	for (c = 0; c < SY_CHARS; c++)
		if ((cards >> c) & 1) {
			if (!first)
				buf_addstr(b, ", ");
			first = 0;
			sylla_char_name(c, loc, b);
		}
	if (first)
		buf_addstr(b, L(loc, "nothing", "nada"));
}

/* ---- awaiting and moves ---- */

unsigned sylla_awaiting(const void *st)
{
	const struct sylla_state *s = st;

	if (s->step >= SS_OVER)
		return 0;
	if (sylla_secret_step(s->step))
		return s->waiting;
	return s->decider < s->nplayers ? 1u << s->decider : 0;
}

#define PUSH(k, x, y) (out->v[out->n++] = (struct move){ .kind = (k), .a = (uint16_t)(x), .b = (uint16_t)(y) })

/* Amounts lo..hi, SY_WINDOW at a time from lo + win, then "more". */
static void amounts(struct move_list *out, int kind, int lo, int hi, int win)
{
	int a, top;

	lo += win;
	top = min_int(hi, lo + SY_WINDOW - 1);
	for (a = lo; a <= top; a++)
		PUSH(kind, a, 0);
	if (hi > top)
		PUSH(SM_MORE, 0, 0);
}

static void secret_moves(const struct sylla_state *s, int seat, struct move_list *out)
{
	const struct sylla_player *p = &s->p[seat];
	int k;

	if (p->stage == SST_CONFIRM) {
		PUSH(SM_CONFIRM, 0, 0);
		PUSH(SM_CHANGE, 0, 0);
		out->nmeta = 1;
		return;
	}
	switch (s->step) {
	case SS_PICK:
		/* the whole set in its order, each card as pick or drop: the
		 * numbers stay put while one chooses (`play 1` twice picks the
		 * first card and puts it back, never two cards) */
		for (k = 0; k < SY_PER_SET; k++)
			PUSH((p->picks >> k) & 1 ? SM_DROP : SM_PICK, k, 0);
		break;
	case SS_SEALED:
		PUSH(SM_PASS, 0, 0);
		amounts(out, SM_OFFER, 0, p->money, p->win);
		break;
	case SS_VOTE:
		if (p->stage == SST_CHOOSE) {
			PUSH(SM_THUMB, 1, 0);
			PUSH(SM_THUMB, 0, 0);
		} else {
			amounts(out, SM_GIVE, 0, p->money, p->win);
		}
		break;
	case SS_HIDE: {
		uint64_t cards;
		unsigned zones = sylla_hide_options(s, seat, s->ev_row[s->occur - 1], &cards);

		while (cards) {
			PUSH(SM_HIDE, __builtin_ctzll(cards), 0);
			cards &= cards - 1;
		}
		for (k = 0; k < SZ_COUNT; k++)
			if ((zones >> k) & 1)
				PUSH(SM_HIDE, SY_CHARS + k, 0);
		break;
	}
	case SS_FREE:
		amounts(out, SM_FREE, 0, sylla_free_max(s, seat), p->win);
		break;
	}
}

int sylla_moves(const void *st, int seat, struct move_list *out)
{
	const struct sylla_state *s = st;
	const struct sylla_player *p;
	int i;

	out->n = 0;
	out->nmeta = 0;
	if ((unsigned)seat >= s->nplayers || !((sylla_awaiting(s) >> seat) & 1))
		return 0;
	p = &s->p[seat];
	if (sylla_secret_step(s->step)) {
		secret_moves(s, seat, out);
		return out->n;
	}
	switch (s->step) {
	case SS_ELECT:
		PUSH(SM_PASS, 0, 0);
		amounts(out, SM_OFFER, s->hi_votes + 1, sylla_senators(s, seat) + p->money, p->win);
		break;
	case SS_TOKEN:
		for (i = 0; i < ST_COUNT; i++)
			if (s->supply[i])
				PUSH(SM_TOKEN, i, 0);
		break;
	case SS_RECRUIT: {
		unsigned d = sylla_distinct_row(s);

		for (i = 0; i < SY_ROW; i++)
			if ((d >> i) & 1)
				PUSH(SM_RECRUIT, s->row[i], 0);
		break;
	}
	case SS_OFFER: {
		unsigned d = sylla_distinct_tiles(s);

		for (i = 0; i < SY_ROW; i++)
			if ((d >> i) & 1)
				PUSH(SM_SELL, i, 0);
		break;
	}
	case SS_BID:
		PUSH(SM_PASS, 0, 0);
		amounts(out, SM_BID, s->bid_hi + 1, sylla_buy_power(s, seat, sylla_slot_colour[s->sale_slot]),
			p->win);
		break;
	case SS_TAP: {
		uint64_t cards;
		unsigned kinds = sylla_tap_kinds(s, seat, &cards);

		while (cards) {
			PUSH(SM_TAP, __builtin_ctzll(cards), 0);
			cards &= cards - 1;
		}
		if ((kinds >> SY_PER_SET) & 1)
			PUSH(SM_TAP, SY_CHARS, 0);
		break;
	}
	case SS_INSULA: {
		unsigned pairs = sylla_insula_pairs(s);

		for (i = 0; i < 9; i++)
			if ((pairs >> i) & 1)
				PUSH(SM_INSULA, i / 3, i % 3);
		break;
	}
	case SS_TEMPLE:
		for (i = 0; i < ST_COUNT; i++)
			if (s->supply[i])
				PUSH(SM_TEMPLE, i, 0);
		PUSH(SM_SKIP, 0, 0);
		break;
	case SS_TAVERN:
		for (i = 0; i < ST_COUNT; i++)
			if (!((s->tavern_moved >> i) & 1)) {
				PUSH(SM_TAVERN, i, 1);
				PUSH(SM_TAVERN, i, 0);
			}
		PUSH(SM_SKIP, 0, 0);
		break;
	case SS_CUBE: {
		unsigned o = sylla_cube_options(s, seat);

		for (i = 0; i < 2 * SY_EV_ROW; i++)
			if ((o >> i) & 1)
				PUSH(SM_CUBE, i / 2, (i % 2) ? SK_LEGIONARY : SK_VESTAL);
		break;
	}
	case SS_AVOID: {
		unsigned c = sylla_avoid_candidates(s);

		for (i = 0; i < SY_EV_ROW; i++)
			if ((c >> i) & 1)
				PUSH(SM_AVOID, i, 0);
		break;
	}
	case SS_REMOVE:
		for (i = 0; i < SY_EV_ROW; i++)
			if ((s->avoided >> i) & 1)
				PUSH(SM_REMOVE, i, 0);
		break;
	}
	return out->n;
}

/* ---- apply ---- */

static void secret_done(struct sylla_state *s, int seat, struct game_log *log)
{
	s->p[seat].stage = SST_DONE;
	s->waiting &= (uint8_t)~(1u << seat);
	/* the last to confirm is told nothing of the kind: the reveal that
	 * follows at once says it (a private line would come after it) */
	if (s->waiting) {
		LOGF(log, seat, "%s", L(LOC(log), "Your choice is made; it will be revealed when everybody has chosen.",
					"Tu elección está hecha; se revelará cuando todos hayan elegido."));
		return;
	}
	switch (s->step) {
	case SS_PICK:
		sylla_reveal_picks(s, log);
		break;
	case SS_SEALED:
		sylla_reveal_sealed(s, log);
		break;
	case SS_HIDE:
		sylla_reveal_hide(s, log);
		sylla_effects_next(s, log);
		break;
	case SS_VOTE:
		sylla_reveal_vote(s, log);
		break;
	case SS_FREE:
		sylla_reveal_free(s, log);
		break;
	}
}

static void apply_secret(struct sylla_state *s, int seat, struct move m, struct game_log *log)
{
	struct sylla_player *p = &s->p[seat];

	switch (m.kind) {
	case SM_CONFIRM:
		secret_done(s, seat, log);
		return;
	case SM_CHANGE:
		p->stage = SST_CHOOSE;
		p->picks = 0;
		p->thumb = 0;
		p->amount = 0;
		p->win = 0;
		return;
	case SM_MORE:
		p->win = (uint8_t)(p->win + SY_WINDOW);
		return;
	case SM_PICK:
		p->picks |= (uint16_t)(1u << m.a);
		if (popc(p->picks) == sylla_pick_count(s))
			p->stage = SST_CONFIRM;
		return;
	case SM_DROP:
		p->picks &= (uint16_t)~(1u << m.a);
		return;
	case SM_PASS:
		p->thumb = 0;
		p->amount = 0;
		p->stage = SST_CONFIRM;
		return;
	case SM_OFFER:
		p->thumb = 1;
		p->amount = (uint8_t)m.a;
		p->stage = SST_CONFIRM;
		return;
	case SM_THUMB:
		p->thumb = (uint8_t)m.a;
		p->win = 0;
		p->stage = p->money ? SST_AMOUNT : SST_CONFIRM;
		return;
	case SM_GIVE:
	case SM_FREE:
	case SM_HIDE:
		p->amount = (uint8_t)m.a;
		p->stage = SST_CONFIRM;
		return;
	}
}

static int listed(const struct sylla_state *s, int seat, struct move m)
{
	struct move_list ml;
	int i;

	sylla_moves(s, seat, &ml);
	for (i = 0; i < ml.n; i++)
		if (ml.v[i].kind == m.kind && ml.v[i].a == m.a && ml.v[i].b == m.b && ml.v[i].c == m.c)
			return 1;
	return 0;
}

int sylla_apply(void *st, int seat, struct move m, struct game_log *log, struct buf *err)
{
	struct sylla_state *s = st;
	enum locale loc = LOC(log);

	if ((unsigned)seat >= s->nplayers || !((sylla_awaiting(s) >> seat) & 1)) {
		buf_setf(err, "%s", L(loc, "It is not your turn to decide.", "No te toca decidir ahora."));
		return -1;
	}
	if (!listed(s, seat, m)) {
		buf_setf(err, "%s", L(loc, "That move is not possible now. Type `moves` to see yours.",
				      "Esa jugada no es posible ahora. Escribe `moves` para ver las tuyas."));
		return -1;
	}
	if (sylla_secret_step(s->step)) {
		apply_secret(s, seat, m, log);
		return 0;
	}
	if (m.kind == SM_MORE) {
		s->p[seat].win = (uint8_t)(s->p[seat].win + SY_WINDOW);
		return 0;
	}
	switch (s->step) {
	case SS_ELECT:
		if (m.kind == SM_OFFER) {
			s->hi_votes = (uint8_t)m.a;
			s->hi_seat = (uint8_t)seat;
			LOGF(log, LOG_PUBLIC, L(loc, "%s offers %d %s.", "%s ofrece %d %s."),
			     NAME(log, seat), m.a, sylla_word(SW_VOTE, m.a, loc));
		} else {
			LOGF(log, LOG_PUBLIC, L(loc, "%s passes.", "%s pasa."), NAME(log, seat));
		}
		s->cursor++;
		sylla_elect_next(s, log);
		break;
	case SS_TOKEN:
		take_token(s, seat, m.a, 1);
		/* "hay que enseñar al resto de jugadores el color de la ficha" */
		LOGF(log, LOG_PUBLIC, L(loc, "%s takes a %s token.", "%s toma una ficha de %s."),
		     NAME(log, seat), sylla_tracks[m.a].name[loc]);
		sylla_after_token(s, log);
		break;
	case SS_RECRUIT: {
		int i;

		for (i = 0; i < SY_ROW; i++)
			if (s->row[i] == m.a)
				break;
		sylla_recruit(s, seat, i, log);
		break;
	}
	case SS_OFFER:
		sylla_put_on_sale(s, m.a, log);
		break;
	case SS_BID:
		if (m.kind == SM_BID) {
			s->bid_hi = (uint8_t)m.a;
			s->bid_seat = (uint8_t)seat;
			LOGF(log, LOG_PUBLIC, L(loc, "%s bids %d.", "%s puja %d."), NAME(log, seat), m.a);
		} else {
			LOGF(log, LOG_PUBLIC, L(loc, "%s passes.", "%s pasa."), NAME(log, seat));
		}
		s->cursor++;
		sylla_bid_next(s, log);
		break;
	case SS_TAP:
		sylla_tap_one(s, seat, m.a, log);
		sylla_tap_next(s, log);
		break;
	case SS_INSULA:
		sylla_insula_take(s, seat, m.a, m.b, log);
		sylla_next_sale(s, log);
		break;
	case SS_TEMPLE:
		if (m.kind == SM_TEMPLE) {
			spend(s, seat, 2);
			take_token(s, seat, m.a, 0);
			s->temples_left--;
			LOGF(log, LOG_PUBLIC, L(loc, "%s pays 2 denarii at a Private Temple for a Res Publica token.",
						"%s paga 2 denarios en un Templo privado por una ficha Res Publica."),
			     NAME(log, seat));
			LOGF(log, seat, L(loc, "Your Private Temple token: %s.", "Tu ficha del Templo privado: %s."),
			     sylla_tracks[m.a].name[loc]);
		} else {
			s->temples_left = 0;
		}
		sylla_income_next(s, log);
		break;
	case SS_TAVERN:
		if (m.kind == SM_TAVERN) {
			int before = s->track[m.a];

			move_track(s, m.a, m.b ? 1 : -1);
			s->tavern_moved |= (uint8_t)(1u << m.a);
			s->taverns_left--;
			LOGF(log, LOG_PUBLIC, L(loc, "%s's Tavern moves %s: %d \xe2\x86\x92 %d.",
						"La Taberna de %s mueve %s: %d \xe2\x86\x92 %d."),
			     NAME(log, seat), sylla_tracks[m.a].name[loc], before, s->track[m.a]);
		} else {
			s->taverns_left = 0;
		}
		sylla_income_next(s, log);
		break;
	case SS_CUBE:
		sylla_place_cube(s, seat, m.a, m.b == SK_LEGIONARY, log);
		sylla_cube_next(s, log);
		break;
	case SS_AVOID:
		s->avoided |= (uint8_t)(1u << m.a);
		s->avoid_left--;
		LOGF(log, LOG_PUBLIC, L(loc, "%s chooses to avoid %s.", "%s elige evitar %s."),
		     NAME(log, seat), sylla_events[s->ev_row[m.a]].name[loc]);
		if (s->avoid_left)
			break;
		sylla_log_avoided(s, log);
		sylla_effects_next(s, log);
		break;
	case SS_REMOVE:
		LOGF(log, LOG_PUBLIC, L(loc, "%s chooses which avoided event goes.",
					"%s elige qué evento evitado se retira."), NAME(log, seat));
		sylla_remove_event(s, m.a, log);
		break;
	}
	return 0;
}

/* ---- result ---- */

int sylla_result(const void *st, struct game_result *out)
{
	const struct sylla_state *s = st;
	int i, j, best = -1;

	if (s->phase != SP_OVER)
		return 0;
	memset(out, 0, sizeof(*out));
	out->nseats = s->nplayers;
	for (i = 0; i < s->nplayers; i++) {
		out->score[i] = s->p[i].prestige;
		out->eligible[i] = 1;
		best = max_int(best, s->p[i].prestige);
	}
	for (i = 0; i < s->nplayers; i++) {
		out->rank[i] = 1;
		for (j = 0; j < s->nplayers; j++)
			if (s->p[j].prestige > s->p[i].prestige)
				out->rank[i]++;
		/* "En caso de empate en el primer puesto, todos ... comparten la victoria" */
		if (s->p[i].prestige == best)
			out->winners |= 1u << i;
	}
	return 1;
}

/* ---- the driver table ---- */

static const char *const sylla_option_words[] = { "sealed-election", NULL };

/* a phase of a turn */
static unsigned sylla_turn(const void *st)
{
	const struct sylla_state *s = st;

	return (unsigned)s->turn << 8 | s->phase;
}

/* Why an offer typed in the election cannot be made: below what must be
 * beaten, or above what the seat has (issue 25: refusals say why). */
static void sylla_near_miss(const void *st, int seat, const char *text, enum locale loc,
			    struct buf *out)
{
	const struct sylla_state *s = st;
	const char *p = text + 6;
	long n = 0;
	int most;

	if ((unsigned)seat >= s->nplayers || s->step != SS_ELECT || strncmp(text, "offer ", 6) ||
	    !(sylla_awaiting(st) & (1u << seat)))
		return;
	for (; *p >= '0' && *p <= '9' && n < 1000; p++)
		n = n * 10 + (*p - '0');
	if (*p || p == text + 6)
		return;
	most = sylla_senators(s, seat) + s->p[seat].money;
	if (n <= s->hi_votes)
		buf_printf(out, L(loc, "The offer to beat is %d: yours must be more.",
				  "La oferta que hay que superar es %d: la tuya debe ser mayor."), s->hi_votes);
	else if (n > most)
		buf_printf(out, L(loc, "You can offer at most %d: %d from your Senators and %d denarii.",
				  "Puedes ofrecer como mucho %d: %d de tus senadores y %d denarios."),
			   most, sylla_senators(s, seat), s->p[seat].money);
}

const struct game_ops sylla_ops = {
	.api_version = GAME_API_VERSION,
	.id = "sylla",
	.aliases = NULL,
	.near_miss = sylla_near_miss,
	.name = { "Sylla", "Sylla" },
	.min_players = SY_MIN_PLAYERS,
	.max_players = SY_MAX_PLAYERS,
	.state_size = sizeof(struct sylla_state),
	.options_help = "sealed-election: the First Consul is elected by secret bids, all at once",
	.option_words = sylla_option_words,
	.search_iterations = 100,	/* 2-5 ms an answer in a 3-player game */
	.setup = sylla_setup,
	.awaiting = sylla_awaiting,
	.moves = sylla_moves,
	.move_id = sylla_move_id,
	.move_label = sylla_move_label,
	.apply = sylla_apply,
	.prompt = sylla_prompt,
	.idle_reason = sylla_idle_reason,
	.render_public = sylla_render_public,
	.render_private = sylla_render_private,
	.scene = sylla_scene,
	.save = sylla_save,
	.load = sylla_load,
	.result = sylla_result,
	.bot_move = sylla_bot_move,
	.determinize = sylla_determinize,
	.check = sylla_check,
	.turn = sylla_turn,
	.intro = sylla_intro,
	.secrets = sylla_secrets,
	.rules = sylla_rules,
	.card = sylla_card,
	.card_names = sylla_card_names,
};
