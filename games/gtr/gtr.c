/*
 * gtr.c: the rules of Glory to Rome ("Gloria a Roma", Carl Chudyk; the
 * Spanish HomoLudicus rulebook is the specification) as a state machine of
 * small decisions.
 *
 * A turn:
 *   GP_LEAD    the leader: `lead <role>` -> GS_UNIT (the card, Senador or
 *              petition; with Palacio more units until `done`), or Think.
 *   GP_FOLLOW  each other seat clockwise: `follow` -> GS_UNIT, or Think.
 *   GP_ACTIONS the leader, then clockwise, performs actions: a stack of
 *              frames, the bottom one the turn's own actions of the led role
 *              (units + clients, counted live so that a building completed
 *              mid-turn acts at once), above it frames earned on the way
 *              (Escuela, Fundición, Anfiteatro, Jardín, Termas, Prisión).
 *              Each action is GS_ACTION (plus GS_MATERIAL to pick the
 *              material, GS_FOUNTAIN for Fuente's card); all Legionary
 *              actions of a frame are one demand (GS_LEGION, GS_COLISEUM).
 *   GP_SENATE, GP_SEWER  end of turn; then played cards go to the pool and
 *              Senadores to their pile;
 *   GP_ACADEMY after the turn: Academia thinks; the leader token passes left.
 * A Think (GS_LEAD, GS_FOLLOW, Escuela, Academia) asks Vomitorium, then
 * Letrinas, before it draws.  An end condition stops the game at once:
 * every continuation below starts with over_now().
 *
 * Every function that changes the state is reached only from apply() with a
 * move that moves() listed, so they assume legality.
 *
 * ---- Rulings (the seed and guide/rulings.md leave these open) ----
 *  1. Sites: in town = players per material (3 with 2 players), the rest out
 *     of town.  `quick` (the example game): in town 2 with 2-3 players, 3
 *     with 4-5; the rest out of town.  Out of town only once the town has
 *     no site of that material ("cuando se han agotado ... en la ciudad").
 *  2. Setup leader draw: each seat draws; the first Spanish name (accents
 *     and case ignored) leads; only the seats tied on it draw again; every
 *     drawn card starts the pool.  `experienced`: each seat picks one of its
 *     5 cards secretly (all seats are asked at once); ties draw as above.
 *     The draw is recorded (draw_seat/draw_card) for the intro op and the
 *     first turn's board: every player saw it.
 *  3. Concession: `concede` is offered in a seat's lead/follow decision.  A
 *     conceding seat keeps playing; when all seats but one have conceded,
 *     the game ends and that one wins outright ("gana sin necesidad de
 *     contar los Puntos de Victoria").  Uniformly random play picks it
 *     often; the bot never does.
 *  4. A Think is chosen first (`think draw` / `think jack`), then
 *     Vomitorium and Letrinas are asked, then the Think is done: "draw"
 *     draws up to the Think target after the discards (1 card when at or
 *     above it), or what the deck still has; the last card drawn ends the
 *     game at once.
 *  5. Units: a Senador, a card of the role (with Circo any card for
 *     Architect), or a petition of 2 (3 with `original-circus`, 2 there with
 *     Circo) cards of one role, any role, chosen one by one.  Palacio: more
 *     units until `done`.
 *  6. Laborer, Patron, Merchant and the Architect's stockpile/pool
 *     materials are chosen by material / role, not by card name: there only
 *     the material counts, and the engine moves the first card of that
 *     material in table order.  Hand cards are chosen by name.
 *  7. Each action may be declined: `skip` at the start of an action
 *     declines the frame's remaining actions (skipping changes nothing, so
 *     the next one would offer the same), `done` ends a multi-part action
 *     (Patron, Laborer, Merchant).  An action with nothing possible is
 *     skipped without asking.
 *  8. Patron with Taberna: pool then deck, or deck only ("una vez cogido el
 *     Cliente del Mazo no puedes coger otro de la Reserva"); with Acueducto
 *     one more from hand, in any order.  Merchant: stockpile or (Atrio)
 *     deck, plus (Basílica) one from hand.  Laborer: pool plus (Muelle) one
 *     from hand.  Each part needs room (clientele / vault limit).
 *  9. Legionary: all demanded cards are shown at once (GS_LEGION); then,
 *     per demanded card, the Legionary may take a match from the pool
 *     (GS_LEGION_POOL, "puedes coger"); then the victims give
 *     (GS_GIVE, all victims at once: nothing one gives touches another).
 *     A victim gives per demanded card one matching hand card; holding
 *     more matching cards than it gives, it chooses which (even when they
 *     share a name: asking only then would tell the table that they
 *     differ); otherwise it gives them at once, unasked.  Puente's
 *     stockpile card goes at once (stockpile names never matter).  A
 *     protected victim (Empalizada, Muralla) is asked whether it gives
 *     anyway ("Aun así, puedes decidir entregarle cartas"), up to what an
 *     unprotected one would give, unless its empty hand and stockpile
 *     show it has nothing; the log names the material only.  Coliseo,
 *     after the gifts: per demand, one client of that role from each
 *     unprotected victim, chosen by the Legionary (`coliseum <role> from
 *     player <n>`), while the vault has room.  Victims: neighbours with
 *     4-5 players, all opponents with 2-3 players or Puente.
 * 10. Termas: the hired client's action, and the bonus actions of buildings
 *     completed during an action (Escuela, Fundición, Anfiteatro, Jardín,
 *     Prisión), are performed right after that action, before the rest of
 *     the turn's actions.  At most GTR_MAX_FRAMES nested frames and
 *     GTR_MAX_PEND earned within one action (never reached in practice);
 *     beyond, the bonus is lost.
 * 11. Out of town: the foundation spends two actions of the same frame
 *     (consecutive by construction); with Torre one.  Fuente's card placed
 *     out of town likewise spends a second action.
 * 12. Escalinata uses one Architect action on a completed, not yet public
 *     building of an opponent; the material must suit the building as for
 *     the player's own structures (Torre, Calzada, Biblioteca apply), from
 *     the stockpile (or the pool with Arco).  A public building's function
 *     serves everybody, also for scoring (a public Estatua or Muralla counts
 *     for all).
 * 13. Prisión: the stolen building keeps its materials and public flag; no
 *     completion effect fires on theft.  Stealing is optional.
 * 14. Clientele limit = (influence + 2 with Ínsula) x 2 with Acueducto.
 * 15. Foro: checked after every move for every seat with its function;
 *     several at once: higher score, then more cards in hand, then the
 *     first in turn order from the leader.
 * 16. End of turn order: Senado (turn order from the leader; `take <k>
 *     senators`, from the other seats' camps clockwise), Alcantarillado
 *     (`sewer <card>` one by one), played cards to the pool / Senadores to
 *     the pile, Academia (turn order from the leader, once per turn).
 * 17. `nofunctions`: no building function at all, including Estatua's any
 *     site and 3 VP, Villa's one-material completion, Catacumbas and Foro.
 * 18. When the deck runs out during Fuente the card drawn stays in hand.
 * 19. GS_MATERIAL: when only one material source fits, it is used without
 *     asking; otherwise `back` returns to the action.
 * 20. Vault contents are shown to nobody, their owner included, until the
 *     end; the count and the materials sold from the stockpile are public
 *     ("deben mostrarse antes de colocarlas").
 * 21. Stockpile cards show their material only ("de modo que solo se vea
 *     el nombre del material"): a hand card put there (Muelle, Legionary)
 *     is logged by its material.
 */
#include <string.h>

#include "games/gtr/gtr.h"
#include "util/text.h"

#define LOGF(log, ...) do { if (log) game_logf((log), __VA_ARGS__); } while (0)
#define LOC(log) ((log) ? (log)->loc : LOC_EN)
#define NAME(log, seat) game_log_name((log), (seat))
#define CNAME(log, c) ((c) == GTR_JACK ? gtr_jack.name[LOC(log)] : \
		       (c) < GC_COUNT ? gtr_cards[(c)].name[LOC(log)] : "?")
#define MNAME(log, m) ((m) < GM_COUNT ? gtr_materials[(m)].name[LOC(log)] : "?")
#define RNAME(log, r) ((r) < GR_COUNT ? gtr_roles[(r)].name[LOC(log)] : "?")
#define A_ROLE(log, r) ((r) < GR_COUNT ? gtr_a_role[(r)][LOC(log)] : "?")

#define BIT(c) (1ULL << (c))
#define FRAME_ALL 255

/* ---- counting ---- */

/*
 * Counting is the hot path of random playouts: the card arrays are summed
 * eight bytes at a time (exact for any byte values: pairs are added in
 * 16-bit lanes).  The materials' name ranges are fixed by enum gtr_card.
 */
_Static_assert(GC_CIRCUS == 4 && GC_ACADEMY == 8 && GC_AQUEDUCT == 16 &&
	       GC_SEWER == 24 && GC_BASILICA == 32 && GC_COUNT == 40,
	       "material ranges of enum gtr_card");

/* Bytes p[0..8) with p[i] as byte i of the value (bits 8i..8i+7) on any
 * machine: the byte tricks below map bytes to names by position. */
static inline uint64_t load8(const uint8_t *p)
{
	uint64_t x;

	memcpy(&x, p, sizeof(x));
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
	x = __builtin_bswap64(x);
#endif
	return x;
}

static inline void store8(uint8_t *p, uint64_t x)
{
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
	x = __builtin_bswap64(x);
#endif
	memcpy(p, &x, sizeof(x));
}

static inline int sum_bytes(uint64_t x)
{
	x = (x & 0x00ff00ff00ff00ffULL) + ((x >> 8) & 0x00ff00ff00ff00ffULL);
	return (int)((x * 0x0001000100010001ULL) >> 48);
}

/* The 8 bytes holding material m's names and the part of them that is m:
 * rubble and wood share the first word.  Tables, not a branch: the role
 * asked is random in playouts. */
static const uint8_t material_word[GM_COUNT] = { 0, 0, 8, 16, 24, 32 };
static const uint64_t material_bytes[GM_COUNT] = {
	0xffffffffULL, 0xffffffff00000000ULL, ~0ULL, ~0ULL, ~0ULL, ~0ULL,
};

static inline int count_of(const uint8_t *cards, int m)
{
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
	return sum_bytes(load8(cards + material_word[m]) & material_bytes[m]);
#else
	int c, n = 0;

	for (c = gtr_first[m]; c < gtr_first[m + 1]; c++)
		n += cards[c];
	return n;
#endif
}

static inline int total_of(const uint8_t *cards, int n)
{
	int c = 0, t = 0;

	for (; c + 8 <= n; c += 8)
		t += sum_bytes(load8(cards + c));
	for (; c < n; c++)
		t += cards[c];
	return t;
}

/*
 * The 40 building names of a zone: how many cards, whether any.  Every
 * count is at most the 6 copies of a name (check() sees to it), so the
 * five words add without a byte carrying.
 */
static inline int cards40(const uint8_t *cards)
{
	return sum_bytes(load8(cards) + load8(cards + 8) + load8(cards + 16) +
			 load8(cards + 24) + load8(cards + 32));
}

static inline int any40(const uint8_t *cards)
{
	return (load8(cards) | load8(cards + 8) | load8(cards + 16) | load8(cards + 24) |
		load8(cards + 32)) != 0;
}

/* Bit c per name c < n (n <= 64) with cards[c] != 0: the names held, to
 * walk with a count-trailing-zeros instead of testing every name. */
static inline uint64_t present(const uint8_t *cards, int n)
{
	uint64_t bits = 0;
	int c = 0;

#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
	for (; c + 8 <= n; c += 8) {
		uint64_t x = load8(cards + c);
		uint64_t t = ((x & 0x7f7f7f7f7f7f7f7fULL) + 0x7f7f7f7f7f7f7f7fULL) | x;

		t = (t >> 7) & 0x0101010101010101ULL;	/* 1 per non-zero byte */
		bits |= ((t * 0x0102040810204080ULL) >> 56) << c;
	}
#endif
	for (; c < n; c++)
		bits |= (uint64_t)(cards[c] != 0) << c;
	return bits;
}

/* Bit i per non-zero byte i of x. */
static inline unsigned nonzero_bytes(uint64_t x)
{
	uint64_t t = ((x & 0x7f7f7f7f7f7f7f7fULL) + 0x7f7f7f7f7f7f7f7fULL) | x;

	t = (t >> 7) & 0x0101010101010101ULL;
	return (unsigned)((t * 0x0102040810204080ULL) >> 56);
}

/* Bit m per material m of which the 40 names of cards hold a card. */
static inline unsigned materials_held(const uint8_t *cards)
{
	uint64_t w0 = load8(cards);

	return (unsigned)((w0 & 0xffffffffULL) != 0) | (unsigned)((w0 >> 32) != 0) << 1 |
	       (unsigned)(load8(cards + 8) != 0) << 2 | (unsigned)(load8(cards + 16) != 0) << 3 |
	       (unsigned)(load8(cards + 24) != 0) << 4 | (unsigned)(load8(cards + 32) != 0) << 5;
}

#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
/* Bit c per name c of material m with cards[c] != 0. */
static inline uint64_t held_names(const uint8_t *cards, int m)
{
	uint64_t x = load8(cards + material_word[m]) & material_bytes[m];

	return (uint64_t)nonzero_bytes(x) << material_word[m];
}
#else
static inline uint64_t held_names(const uint8_t *cards, int m)
{
	uint64_t bits = 0;
	int c;

	for (c = gtr_first[m]; c < gtr_first[m + 1]; c++)
		bits |= (uint64_t)(cards[c] != 0) << c;
	return bits;
}
#endif

static inline int next_bit(uint64_t *bits)
{
	int c = __builtin_ctzll(*bits);

	*bits &= *bits - 1;
	return c;
}

/* Where a name counts in gtr_player.hcount: its material, 6 a Senador. */
static const uint8_t hand_slot[GTR_NAMES] = {
	0, 0, 0, 0, 1, 1, 1, 1,
	2, 2, 2, 2, 2, 2, 2, 2, 3, 3, 3, 3, 3, 3, 3, 3,
	4, 4, 4, 4, 4, 4, 4, 4, 5, 5, 5, 5, 5, 5, 5, 5,
	6,
};

#define HAND_MATERIALS 0x0000ffffffffffffULL	/* hcount bytes of the 6 materials */

/* Bit per name of material m. */
static const uint64_t material_names[GM_COUNT] = {
	0xfULL, 0xf0ULL, 0xff00ULL, 0xff0000ULL, 0xff000000ULL, 0xff00000000ULL,
};

/* Every change of a hand goes through these two, which keep hcount. */
static inline void hand_in(struct gtr_player *p, int c)
{
	p->hand[c]++;
	p->hcount[hand_slot[c]]++;
}

static inline void hand_out(struct gtr_player *p, int c)
{
	p->hand[c]--;
	p->hcount[hand_slot[c]]--;
}

/* Hand cards (Senadores included). */
static inline int hand_size(const struct gtr_player *p)
{
	return sum_bytes(load8(p->hcount));
}

int gtr_count(const uint8_t *cards, int m)
{
	return count_of(cards, m);
}

void gtr_counts(const uint8_t *cards, int out[GM_COUNT])
{
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
	uint64_t w0 = load8(cards);

	out[GM_RUBBLE] = sum_bytes(w0 & 0xffffffffULL);
	out[GM_WOOD] = sum_bytes(w0 >> 32);
	out[GM_BRICK] = sum_bytes(load8(cards + 8));
	out[GM_CONCRETE] = sum_bytes(load8(cards + 16));
	out[GM_STONE] = sum_bytes(load8(cards + 24));
	out[GM_MARBLE] = sum_bytes(load8(cards + 32));
#else
	int m;

	for (m = 0; m < GM_COUNT; m++)
		out[m] = count_of(cards, m);
#endif
}

int gtr_total(const uint8_t *cards, int n)
{
	return total_of(cards, n);
}

/* The first card of material m in cards, or -1. */
static int first_of(const uint8_t *cards, int m)
{
	uint64_t bits = held_names(cards, m);

	return bits ? __builtin_ctzll(bits) : -1;
}

int gtr_hand_size(const struct gtr_state *s, int seat)
{
	return hand_size(&s->p[seat]);
}

int gtr_clients(const struct gtr_state *s, int seat)
{
	return cards40(s->p[seat].clients);
}

int gtr_vault_size(const struct gtr_state *s, int seat)
{
	return cards40(s->p[seat].vault);
}

/*
 * Functions, influence and the limits change only with structures and
 * influence piles, which every change refreshes (gtr_refresh), while the
 * playout loop asks them at nearly every decision: they are cached.
 */
int gtr_influence(const struct gtr_state *s, int seat)
{
	return s->p[seat].influence;
}

/* Bit per name whose function seat has now (see gtr_has). */
static inline uint64_t fn_mask(const struct gtr_state *s, int seat)
{
	return s->p[seat].fn;
}

int gtr_has(const struct gtr_state *s, int seat, int card)
{
	return (int)((fn_mask(s, seat) >> card) & 1);
}

int gtr_client_limit(const struct gtr_state *s, int seat)
{
	return s->p[seat].client_limit;
}

int gtr_vault_limit(const struct gtr_state *s, int seat)
{
	return s->p[seat].vault_limit;
}

int gtr_hand_limit(const struct gtr_state *s, int seat)
{
	return s->p[seat].hand_limit;
}

static int client_room(const struct gtr_state *s, int seat)
{
	return gtr_clients(s, seat) < gtr_client_limit(s, seat);
}

static int vault_room(const struct gtr_state *s, int seat)
{
	return gtr_vault_size(s, seat) < gtr_vault_limit(s, seat);
}

/* gtr_turn_actions with Circo Máximo, Ludus Magna or Despensa: apart, so
 * that the usual case below stays a leaf without a loop. */
static __attribute__((noinline)) int turn_actions_special(const struct gtr_state *s, int seat,
							  int n, uint64_t f)
{
	const struct gtr_player *p = &s->p[seat];
	int R = s->led, r, mult, lm, store;

	mult = p->acted && ((f >> GC_CIRCUS_MAXIMUS) & 1) ? 2 : 1;
	lm = (f >> GC_LUDUS_MAGNA) & 1;
	store = R == GR_LABORER && ((f >> GC_STOREROOM) & 1);
	if (!store && !lm) {	/* the usual case: the led role's clients only */
		int c = count_of(p->clients, R) - p->newc[R];

		return c > 0 ? n + c * mult : n;
	}
	for (r = 0; r < GR_COUNT; r++) {
		int c;

		if (!(r == R || store || (lm && r == GR_MERCHANT)))
			continue;
		c = count_of(p->clients, r) - p->newc[r];
		if (c > 0)
			n += c * mult;
	}
	return n;
}

int gtr_turn_actions(const struct gtr_state *s, int seat)
{
	const struct gtr_player *p = &s->p[seat];
	int R = s->led, n, c;
	uint64_t f;

	if (R >= GR_COUNT)
		return 0;
	f = fn_mask(s, seat);
	n = p->acted ? p->units : 0;
	if (f & (BIT(GC_CIRCUS_MAXIMUS) | BIT(GC_LUDUS_MAGNA) | BIT(GC_STOREROOM)))
		return turn_actions_special(s, seat, n, f);
	/* the usual case: the led role's clients, once each */
	c = count_of(p->clients, R) - p->newc[R];
	return c > 0 ? n + c : n;
}

int gtr_find_struct(const struct gtr_state *s, int seat, int card)
{
	const struct gtr_player *p = &s->p[seat];
	int i;

	for (i = 0; i < p->nstruct; i++)
		if (p->st[i].card == card)
			return i;
	return -1;
}

int gtr_struct_need(const struct gtr_struct *t)
{
	if (t->card == GC_STATUE && t->site < GM_COUNT)
		return gtr_value[t->site];
	return gtr_value[gtr_cards[t->card].material];
}

/* Clients of each role, with Ludus Magna's Merchants and Despensa's
 * anyone-as-Laborer, one client per role (rulebook: "Ese Cliente no puede
 * utilizarse como dos personajes a la vez").  Own-role clients first is
 * optimal: a flexible client covers whatever a fixed one would leave. */
static int clients_cover_all(const struct gtr_state *s, int seat)
{
	const struct gtr_player *p = &s->p[seat];
	int c[GR_COUNT], r, spare = 0, spare_m = 0, need = 0, lab_missing;
	int lm = gtr_has(s, seat, GC_LUDUS_MAGNA), store = gtr_has(s, seat, GC_STOREROOM);

	for (r = 0; r < GR_COUNT; r++)
		c[r] = gtr_count(p->clients, r);
	for (r = 0; r < GR_COUNT; r++)
		if (c[r] > 1)
			spare += c[r] - 1;
	if (lm && c[GR_MERCHANT] > 1)
		spare_m = c[GR_MERCHANT] - 1;
	for (r = 0; r < GR_COUNT; r++)
		if (c[r] == 0 && r != GR_LABORER)
			need++;
	if (need > spare_m)
		return 0;
	lab_missing = c[GR_LABORER] == 0;
	if (!lab_missing)
		return 1;
	/* the Laborer: a spare Merchant left over, or (Despensa) any spare
	 * client not used above (spare merchants used are among `spare`) */
	if (spare_m - need >= 1)
		return 1;
	return store && spare - need >= 1;
}

int gtr_forum_met(const struct gtr_state *s, int seat)
{
	int m;

	if (!gtr_has(s, seat, GC_FORUM))
		return 0;
	if (!clients_cover_all(s, seat))
		return 0;
	if (s->opts & GO_ORIGINAL_CIRCUS)
		return 1;
	for (m = 0; m < GM_COUNT; m++)
		if (!gtr_count(s->p[seat].stock, m))
			return 0;
	return 1;
}

int gtr_current(const struct gtr_state *s)
{
	int n = s->nplayers ? s->nplayers : 1, v = s->leader + s->cursor;

	/* (leader + cursor) % n without a division, nor a branch that the
	 * seat order would make unpredictable */
	v -= n & -(v >= n);
	return v < n ? v : v % n;
}

/* The caches of seat i that follow from its structures, its influence
 * pile and the public buildings. */
static void refresh_seat(struct gtr_state *s, int i)
{
	struct gtr_player *p = &s->p[i];
	uint64_t f = 0;
	int n = GTR_INFLUENCE_BASE, c, m, k;

	if (!(s->opts & GO_NOFUNCTIONS)) {
		f = p->built | s->pub;
		if ((f >> GC_GATE) & 1)		/* Portón: Marble foundations too */
			f |= p->has & (BIT(GC_COUNT) - BIT(GC_BASILICA));
	}
	p->fn = f;
	for (m = 0; m < GM_COUNT; m++)
		n += p->infl[m] * gtr_value[m];
	p->influence = (uint8_t)n;
	c = n + ((f >> GC_INSULA) & 1 ? 2 : 0);
	p->client_limit = (uint8_t)((f >> GC_AQUEDUCT) & 1 ? 2 * c : c);
	p->vault_limit = (uint8_t)(n + ((f >> GC_MARKET) & 1 ? 2 : 0));
	p->hand_limit = (uint8_t)(GTR_HAND_BASE + ((f >> GC_SHRINE) & 1 ? 2 : 0) +
				  ((f >> GC_TEMPLE) & 1 ? 4 : 0));
	f = 0;
	for (k = 0; k < s->nplayers; k++)
		f |= s->p[k].fn;
	s->any_fn = f;
}

void gtr_refresh(struct gtr_state *s)
{
	int i, k;

	s->pub = 0;
	for (i = 0; i < GTR_MAX_PLAYERS; i++) {
		struct gtr_player *p = &s->p[i];

		p->has = p->built = 0;
		for (k = 0; i < s->nplayers && k < p->nstruct; k++) {
			const struct gtr_struct *t = &p->st[k];

			if (t->card >= GC_COUNT)
				continue;
			p->has |= BIT(t->card);
			if (t->done) {
				p->built |= BIT(t->card);
				if (t->flags & GSF_PUBLIC)
					s->pub |= BIT(t->card);
			}
		}
	}
	/* the functions need every seat's public buildings first */
	s->any_fn = 0;
	for (i = 0; i < GTR_MAX_PLAYERS; i++) {
		struct gtr_player *p = &s->p[i];
		int c;

		memset(p->hcount, 0, sizeof(p->hcount));
		if (i >= s->nplayers) {	/* unused seats stay zero: states compare bytewise */
			p->fn = 0;
			p->influence = p->client_limit = p->vault_limit = p->hand_limit = 0;
			continue;
		}
		for (c = 0; c < GTR_NAMES; c++)
			p->hcount[hand_slot[c]] = (uint8_t)(p->hcount[hand_slot[c]] + p->hand[c]);
		refresh_seat(s, i);
	}
}

/* ---- drawing ---- */

/* The top card of the deck (GTR_NONE when empty); an empty deck after it
 * ends the game ("Se acaba el Mazo"). */
static int draw(struct gtr_state *s)
{
	int c;

	if (s->ndeck == 0)
		return GTR_NONE;
	c = s->deck[--s->ndeck];
	s->deck[s->ndeck] = 0;	/* unused entries stay 0: states compare bytewise */
	if (s->ndeck == 0 && !s->ending)
		s->ending = GE_DECK;
	return c;
}

static int in_town_total(const struct gtr_state *s)
{
	int m, n = 0;

	for (m = 0; m < GM_COUNT; m++)
		n += s->in_town[m];
	return n;
}

/* ---- setup ---- */

/* The documented option words, compared whole and exactly (ASCII case
 * aside): "original-circus" is one word, so "original" or
 * "original_circus" is unknown rather than half a match. */
static const struct { const char *word; uint8_t bit; } option_words[] = {
	{ "experienced", GO_EXPERIENCED }, { "original-circus", GO_ORIGINAL_CIRCUS },
	{ "nofunctions", GO_NOFUNCTIONS }, { "quick", GO_QUICK },
};

#define NOPTIONS (sizeof(option_words) / sizeof(*option_words))

static int ascii_caseeq(const char *a, const char *b)
{
	for (; *a && *b; a++, b++) {
		int x = *a >= 'A' && *a <= 'Z' ? *a - 'A' + 'a' : *a;
		int y = *b >= 'A' && *b <= 'Z' ? *b - 'A' + 'a' : *b;

		if (x != y)
			return 0;
	}
	return *a == *b;
}

int gtr_parse_options(const char *options, uint8_t *opts, struct buf *err)
{
	const char *p = options ? options : "";
	char w[32];
	size_t k, len;

	*opts = 0;
	while ((len = text_word(&p, w, sizeof(w))) > 0) {
		for (k = 0; len < sizeof(w) && k < NOPTIONS; k++)
			if (ascii_caseeq(w, option_words[k].word))
				break;
		if (len >= sizeof(w) || k == NOPTIONS) {
			buf_setf(err, "Unknown option \"%s%s\" (options: ", w,
				 len >= sizeof(w) ? "..." : "");
			for (k = 0; k < NOPTIONS; k++)
				buf_printf(err, "%s%s", k ? ", " : "", option_words[k].word);
			buf_addstr(err, ").");
			return -1;
		}
		*opts |= option_words[k].bit;
	}
	return 0;
}

static void begin_turn(struct gtr_state *s, struct game_log *log);
static void legion_clear(struct gtr_state *s);

/* Records a leader-draw card (the intro and the first board show them). */
static void record_draw(struct gtr_state *s, int seat, int card)
{
	if (s->ndraw >= GTR_MAX_DRAW)
		return;	/* ties beyond: the pool still holds the cards */
	s->draw_seat[s->ndraw] = (uint8_t)seat;
	s->draw_card[s->ndraw] = (uint8_t)card;
	s->ndraw++;
}

/* "ana shows Road (Calzada)": the Spanish name decides the order, so an
 * English line shows it too.  fmt takes the seat's name, the card's name
 * and the Spanish name (empty in a Spanish line). */
static void log_draw(struct game_log *log, const char *fmt, int seat, int c)
{
	if (!log || c >= GC_COUNT)
		return;
	game_logf(log, LOG_PUBLIC, fmt, NAME(log, seat), gtr_cards[c].name[log->loc],
		  log->loc == LOC_ES ? "" : gtr_cards[c].name[LOC_ES]);
}

#define SHOWS(log) L(LOC(log), "%s shows %s (%s).", "%s muestra %s%s.")
#define TIE_DRAWS(log) L(LOC(log), "Tie: %s draws %s (%s).", "Empate: %s saca %s%s.")

/* The leader draw: cards[seat] is each contender's card; the first Spanish
 * name wins; the tied draw again (the drawn cards all go to the pool). */
static void choose_leader(struct gtr_state *s, uint8_t *cards, unsigned contenders,
			  struct game_log *log)
{
	int n = s->nplayers, i;

	for (;;) {
		int best = -1, ties = 0, bc;
		unsigned tied;

		for (i = 0; i < n; i++) {
			if (!(contenders & (1u << i)))
				continue;
			if (cards[i] >= GC_COUNT)
				continue;
			if (best < 0 || strcmp(gtr_cards[cards[i]].sort,
					       gtr_cards[cards[best]].sort) < 0)
				best = i;
		}
		if (best < 0) {	/* unreachable: a deck of 144 */
			s->leader = 0;
			return;
		}
		for (i = 0; i < n; i++)
			if ((contenders & (1u << i)) && cards[i] < GC_COUNT &&
			    cards[i] == cards[best])
				ties++;
		if (ties == 1 || s->ndeck == 0) {
			s->leader = (uint8_t)best;
			return;
		}
		tied = contenders;
		bc = cards[best];
		contenders = 0;
		for (i = 0; i < n; i++)
			if ((tied & (1u << i)) && cards[i] == bc) {
				int c = draw(s);

				contenders |= 1u << i;
				cards[i] = (uint8_t)c;
				if (c < GC_COUNT) {
					s->pool[c]++;
					record_draw(s, i, c);
					log_draw(log, TIE_DRAWS(log), i, c);
				}
			}
		/* drawing may not end the game here: setup never empties a
		 * deck of 144 - 5 * 6 cards */
		s->ending = 0;
	}
}

/* The leader draw's outcome line. */
static void log_leader(const struct gtr_state *s, struct game_log *log)
{
	int i, c = GTR_NONE;

	for (i = 0; i < s->ndraw; i++)
		if (s->draw_seat[i] == s->leader)
			c = s->draw_card[i];	/* the leader's last card decided */
	if (!log)
		return;
	if (c >= GC_COUNT || s->ndraw >= GTR_MAX_DRAW) {	/* ties beyond the record */
		game_logf(log, LOG_PUBLIC, L(log->loc, "%s leads first.", "%s es el primer Líder."),
			  NAME(log, s->leader));
		return;
	}
	game_logf(log, LOG_PUBLIC, L(log->loc, "%s leads first: %s (%s) comes first in "
				     "Spanish alphabetical order.",
				     "%s es el primer Líder: %s%s va antes en orden alfabético."),
		  NAME(log, s->leader), gtr_cards[c].name[log->loc],
		  log->loc == LOC_ES ? "" : gtr_cards[c].name[LOC_ES]);
}

/*
 * The intro op: what setup did in public.  Each seat's draw ("ana shows
 * Road (Calzada)"), the tie draws, the leader; with `experienced` the
 * cards are picked after setup (the picks log their own lines as moves),
 * so only the invitation.  It reads the options and the draw recorded at
 * setup, which nothing changes later: the same lines for the state
 * setup() made and for any later state of the game.
 */
void gtr_intro(const void *st, struct game_log *log)
{
	const struct gtr_state *s = st;
	int i;

	if (!log)
		return;
	if (s->opts & GO_EXPERIENCED) {
		game_logf(log, LOG_PUBLIC, "%s", L(log->loc,
			  "Each player picks a card from hand, face down, for the leader draw.",
			  "Cada jugador elige boca abajo una carta de su Mano para elegir Líder."));
		return;
	}
	/* the first round is one card per seat; later cards are the ties' */
	for (i = 0; i < s->ndraw; i++)
		log_draw(log, i < s->nplayers ? SHOWS(log) : TIE_DRAWS(log), s->draw_seat[i],
			 s->draw_card[i]);
	log_leader(s, log);
}

int gtr_setup(void *st, int players, uint64_t seed, const char *options, struct buf *err)
{
	struct gtr_state *s = st;
	uint8_t opts, cards[GTR_MAX_PLAYERS];
	int i, c, k, m, town;

	if (players < GTR_MIN_PLAYERS || players > GTR_MAX_PLAYERS) {
		buf_setf(err, "Glory to Rome is for %d to %d players.", GTR_MIN_PLAYERS,
			 GTR_MAX_PLAYERS);
		return -1;
	}
	if (gtr_parse_options(options, &opts, err))
		return -1;
	memset(s, 0, sizeof(*s));
	s->nplayers = (uint8_t)players;
	s->opts = opts;
	rng_seed(&s->rng, seed, 0x67747221u);
	for (c = 0; c < GC_COUNT; c++)
		for (k = 0; k < gtr_cards[c].copies; k++)
			s->deck[s->ndeck++] = (uint8_t)c;
	rng_shuffle(&s->rng, s->deck, s->ndeck, 1);
	/* "repartid 4 cartas ... Cada jugador coge además un Senador" */
	for (i = 0; i < players; i++) {
		for (k = 0; k < ((opts & GO_EXPERIENCED) ? 5 : 4); k++)
			hand_in(&s->p[i], draw(s));
		hand_in(&s->p[i], GTR_JACK);
	}
	s->jacks = (uint8_t)(GTR_JACKS - players);
	if (opts & GO_QUICK)
		town = players <= 3 ? 2 : 3;
	else
		town = players == 2 ? 3 : players;
	for (m = 0; m < GM_COUNT; m++) {
		s->in_town[m] = (uint8_t)town;
		s->out_town[m] = (uint8_t)(GTR_SITES - town);
	}
	/* influence and limits of seats without structures (hand_in kept
	 * the hand counts) */
	for (i = 0; i < players; i++)
		refresh_seat(s, i);
	s->led = GTR_NONE;
	s->winner = GTR_NONE;
	s->pet_role = GTR_NONE;
	s->fount = GTR_NONE;
	s->tgt_card = s->tgt_seat = GTR_NONE;
	s->turn = 1;
	if (opts & GO_EXPERIENCED) {
		s->phase = GP_PICK;
		s->step = GS_PICK;
		s->decider = 0;
		return 0;
	}
	/* "Cada jugador coge una carta de Acción al azar del mazo y la coloca
	 * en el centro de la mesa" */
	for (i = 0; i < players; i++) {
		cards[i] = (uint8_t)draw(s);
		s->pool[cards[i]]++;
		record_draw(s, i, cards[i]);
	}
	choose_leader(s, cards, (1u << players) - 1, NULL);
	begin_turn(s, NULL);
	return 0;
}

/* ---- the flow ---- */

static void finish(struct gtr_state *s, int reason, int winner, struct game_log *log)
{
	if (s->fount != GTR_NONE) {
		hand_in(&s->p[gtr_current(s)], s->fount);
		s->fount = GTR_NONE;
	}
	s->phase = GP_OVER;
	s->step = GS_OVER;
	s->end = (uint8_t)reason;
	s->winner = (uint8_t)winner;
	s->ending = 0;
	/* nothing of the interrupted turn goes on */
	s->nframes = s->npend = s->started = s->part = 0;
	memset(s->frames, 0, sizeof(s->frames));
	memset(s->pend, 0, sizeof(s->pend));
	legion_clear(s);
	s->tgt_card = s->tgt_seat = GTR_NONE;
	s->tgt_stair = 0;
	s->pet_role = GTR_NONE;
	s->pet_have = s->pet_need = 0;
	if (!log)
		return;
	switch (reason) {
	case GE_DECK:
		game_logf(log, LOG_PUBLIC, "%s", L(log->loc, "The deck has run out: the game ends.",
						   "Se ha acabado el Mazo: fin de la partida."));
		break;
	case GE_SITES:
		game_logf(log, LOG_PUBLIC, "%s", L(log->loc,
			  "The last site in town has been taken: the game ends.",
			  "Se ha ocupado el último Solar de la ciudad: fin de la partida."));
		break;
	case GE_CATACOMB:
		game_logf(log, LOG_PUBLIC, "%s", L(log->loc,
			  "The Catacomb is complete: the game ends at once.",
			  "Las Catacumbas están terminadas: la partida acaba en el acto."));
		break;
	case GE_FORUM:
		game_logf(log, LOG_PUBLIC, L(log->loc, "%s fulfils the Forum and wins!",
					     "¡%s cumple el Foro y gana la partida!"),
			  NAME(log, winner));
		break;
	case GE_CONCEDE:
		game_logf(log, LOG_PUBLIC, L(log->loc, "Everybody else conceded: %s wins!",
					     "Los demás se han rendido: ¡gana %s!"),
			  NAME(log, winner));
		break;
	}
}

/* over_now's Foro part: finishes the game when a seat fulfils a Foro. */
static int forum_over(struct gtr_state *s, struct game_log *log)
{
	int i, n = s->nplayers, best = -1;

	for (i = 0; i < n; i++) {
		int seat = s->leader + i;

		if (seat >= n)	/* (leader + i) % n, leader < n */
			seat = seat - n < n ? seat - n : seat % n;
		if (!((fn_mask(s, seat) >> GC_FORUM) & 1) || !gtr_forum_met(s, seat))
			continue;
		if (best < 0 || gtr_score(s, seat) > gtr_score(s, best) ||
		    (gtr_score(s, seat) == gtr_score(s, best) &&
		     hand_size(&s->p[seat]) > hand_size(&s->p[best])))
			best = seat;
	}
	if (best >= 0) {
		finish(s, GE_FORUM, best, log);
		return 1;
	}
	return 0;
}

/*
 * 1 when the game is (now) over: a pending end condition or a Foro.  It
 * depends on the phase (over or not), `ending`, and what the Foro looks at
 * (structures, clients, stockpiles); the loops below that only move the
 * cursor, frames or camps call it once, before looping.
 */
static inline int over_now(struct gtr_state *s, struct game_log *log)
{
	/* nothing pending and no Foro function anywhere (none at all with
	 * nofunctions): the usual case, one test */
	if (!(s->ending | (s->phase == GP_OVER) | ((s->any_fn >> GC_FORUM) & 1)))
		return 0;
	if (s->phase == GP_OVER)
		return 1;
	if (s->ending) {
		finish(s, s->ending, GTR_NONE, log);
		return 1;
	}
	return forum_over(s, log);
}

static void begin_turn(struct gtr_state *s, struct game_log *log)
{
	int i;

	if (over_now(s, log))
		return;
	for (i = 0; i < s->nplayers; i++) {
		struct gtr_player *p = &s->p[i];

		p->units = p->acted = p->crafted = 0;
		memset(p->newc, 0, sizeof(p->newc));
	}
	s->led = GTR_NONE;
	s->phase = GP_LEAD;
	s->step = GS_LEAD;
	s->cursor = 0;
	s->decider = s->leader;
	s->nframes = 0;
	s->started = 0;
	s->npend = 0;
	s->part = 0;
	s->pet_role = GTR_NONE;
	s->pet_have = s->pet_need = 0;
	legion_clear(s);
	memset(s->frames, 0, sizeof(s->frames));
	memset(s->pend, 0, sizeof(s->pend));
	s->tgt_card = s->tgt_seat = GTR_NONE;
	s->tgt_stair = 0;
	LOGF(log, LOG_PUBLIC, L(LOC(log), "Turn %d: %s is the leader.", "Turno %d: %s es el Líder."),
	     s->turn, NAME(log, s->leader));
}

static void eot_next(struct gtr_state *s, struct game_log *log);
static void run_actions(struct gtr_state *s, struct game_log *log);

static void eot_start(struct gtr_state *s, struct game_log *log)
{
	s->phase = GP_SENATE;
	s->cursor = 0;
	eot_next(s, log);
}

static int others_jacks(const struct gtr_state *s, int seat)
{
	int i, n = 0;

	for (i = 0; i < s->nplayers; i++)
		if (i != seat)
			n += s->p[i].camp[GTR_JACK];
	return n;
}

static void cleanup_camps(struct gtr_state *s)
{
	int i, c;

	for (i = 0; i < s->nplayers; i++) {
		struct gtr_player *p = &s->p[i];

		/* eight names at a time: a byte never carries, every count
		 * being at most the 6 copies of a name */
		if (any40(p->camp)) {	/* not when the seat thought */
			for (c = 0; c < GC_COUNT; c += 8)
				store8(s->pool + c, load8(s->pool + c) + load8(p->camp + c));
			memset(p->camp, 0, GC_COUNT);
		}
		s->jacks = (uint8_t)(s->jacks + p->camp[GTR_JACK]);
		p->camp[GTR_JACK] = 0;
	}
}

static void eot_next(struct gtr_state *s, struct game_log *log)
{
	int n = s->nplayers;
	/* which of Senado, Alcantarillado, Academia anybody has: a phase
	 * whose building nobody has asks nobody (the usual case) */
	uint64_t any = s->any_fn;

	/* the loop changes nothing over_now looks at (camps go to the pool) */
	if (over_now(s, log))
		return;
	if (s->phase == GP_SENATE &&
	    !(any & (BIT(GC_SENATE) | BIT(GC_SEWER) | BIT(GC_ACADEMY)))) {
		/* nobody is asked: where the loop below ends, directly */
		cleanup_camps(s);
		s->cursor = 0;
		s->phase = GP_ACADEMY;
		s->leader = (uint8_t)((s->leader + 1) % n);
		s->turn++;
		begin_turn(s, log);
		return;
	}
	for (;;) {
		int seat;
		uint64_t f;

		if (s->cursor < n &&
		    !((any >> (s->phase == GP_SENATE ? GC_SENATE :
			       s->phase == GP_SEWER ? GC_SEWER : GC_ACADEMY)) & 1))
			s->cursor = (uint8_t)n;	/* the decider is set again below */
		if (s->cursor >= n) {
			s->cursor = 0;
			if (s->phase == GP_SENATE) {
				s->phase = GP_SEWER;
			} else if (s->phase == GP_SEWER) {
				cleanup_camps(s);
				s->phase = GP_ACADEMY;
			} else {
				s->leader = (uint8_t)((s->leader + 1) % n);
				s->turn++;
				begin_turn(s, log);
				return;
			}
			continue;
		}
		seat = gtr_current(s);
		s->decider = (uint8_t)seat;
		f = fn_mask(s, seat);
		if (s->phase == GP_SENATE && ((f >> GC_SENATE) & 1) &&
		    others_jacks(s, seat) > 0) {
			s->step = GS_SENATE;
			return;
		}
		if (s->phase == GP_SEWER && ((f >> GC_SEWER) & 1) &&
		    any40(s->p[seat].camp)) {
			s->step = GS_SEWER;
			return;
		}
		if (s->phase == GP_ACADEMY && ((f >> GC_ACADEMY) & 1) &&
		    s->p[seat].crafted) {
			s->step = GS_THINK;
			return;
		}
		s->cursor++;
	}
}

static void follow_next(struct gtr_state *s, struct game_log *log)
{
	if (over_now(s, log))
		return;
	if (s->cursor >= s->nplayers) {
		s->phase = GP_ACTIONS;
		s->cursor = 0;
		s->nframes = 0;
		s->started = 0;
		run_actions(s, log);
		return;
	}
	s->phase = GP_FOLLOW;
	s->step = GS_FOLLOW;
	s->decider = (uint8_t)gtr_current(s);
}

/* ---- units (lead / follow) ---- */

int gtr_petition_need(const struct gtr_state *s, int seat)
{
	if (s->opts & GO_ORIGINAL_CIRCUS)
		return gtr_has(s, seat, GC_CIRCUS) ? 2 : 3;
	return 2;
}

static int unit_card_ok(const struct gtr_state *s, int seat, int role, int c)
{
	if (c >= GC_COUNT || !s->p[seat].hand[c])
		return 0;
	if (gtr_cards[c].material == role)
		return 1;
	return role == GR_ARCHITECT && !(s->opts & GO_ORIGINAL_CIRCUS) &&
	       gtr_has(s, seat, GC_CIRCUS);
}

/* Bit m per material m of which seat holds at least need cards. */
static unsigned hand_at_least(const struct gtr_state *s, int seat, int need)
{
	uint64_t x = load8(s->p[seat].hcount) & HAND_MATERIALS;

	if (need > 0x7f)
		return 0;	/* more than a hand can hold */
	/* a byte reaches need when adding 128 - need sets its high bit (the
	 * counts are below 128: 144 cards in all) */
	x = (x + (uint64_t)(0x80 - need) * 0x0000010101010101ULL) & 0x0000808080808080ULL;
	return nonzero_bytes(x);
}

static int can_petition(const struct gtr_state *s, int seat)
{
	return hand_at_least(s, seat, gtr_petition_need(s, seat)) != 0;
}

static int can_unit(const struct gtr_state *s, int seat, int role)
{
	if (s->p[seat].hand[GTR_JACK])
		return 1;
	if (role == GR_ARCHITECT && !(s->opts & GO_ORIGINAL_CIRCUS) &&
	    gtr_has(s, seat, GC_CIRCUS) && (load8(s->p[seat].hcount) & HAND_MATERIALS))
		return 1;
	if (role < GR_COUNT && s->p[seat].hcount[role])
		return 1;
	return can_petition(s, seat);
}

static void after_units(struct gtr_state *s, struct game_log *log)
{
	if (s->phase == GP_LEAD) {
		s->phase = GP_FOLLOW;
		s->cursor = 1;
	} else {
		s->cursor++;
	}
	follow_next(s, log);
}

static void unit_played(struct gtr_state *s, int seat, struct game_log *log)
{
	s->p[seat].units++;
	s->p[seat].acted = 1;
	if (gtr_has(s, seat, GC_PALACE) && can_unit(s, seat, s->led)) {
		s->step = GS_UNIT;
		return;
	}
	after_units(s, log);
}

static void log_unit(struct gtr_state *s, int seat, const char *what, struct game_log *log)
{
	enum locale loc = LOC(log);

	if (!log)
		return;
	if (s->p[seat].units > 0)
		game_logf(log, LOG_PUBLIC, L(loc, "%s adds %s.", "%s añade %s."),
			  NAME(log, seat), what);
	else if (s->phase == GP_LEAD)
		game_logf(log, LOG_PUBLIC, L(loc, "%s leads %s with %s.", "%s lidera %s con %s."),
			  NAME(log, seat), RNAME(log, s->led), what);
	else
		game_logf(log, LOG_PUBLIC, L(loc, "%s follows with %s.", "%s sigue con %s."),
			  NAME(log, seat), what);
}

/* ---- Think ---- */

static void after_think(struct gtr_state *s, struct game_log *log);
static void action_done(struct gtr_state *s, int consumed, struct game_log *log);

static void think_exec(struct gtr_state *s, int seat, struct game_log *log)
{
	struct gtr_player *p = &s->p[seat];

	if (s->think == GTR_THINK_JACK && s->jacks > 0) {
		s->jacks--;
		hand_in(p, GTR_JACK);
		LOGF(log, LOG_PUBLIC, L(LOC(log), "%s thinks and takes a Senator.",
					"%s piensa y coge un Senador."), NAME(log, seat));
	} else {
		int h = hand_size(p), lim = gtr_hand_limit(s, seat);
		int want = h < lim ? lim - h : 1, got = 0, c;
		struct buf b = BUF_INIT;

		while (got < want && (c = draw(s)) != GTR_NONE) {
			hand_in(p, c);
			got++;
			if (log)
				buf_printf(&b, "%s%s", b.len ? ", " : "", CNAME(log, c));
		}
		if (log) {
			game_logf(log, LOG_PUBLIC, L(log->loc, "%s thinks and draws %d card%s.",
						     "%s piensa y roba %d carta%s."),
				  NAME(log, seat), got, got == 1 ? "" : "s");
			if (got)
				game_logf(log, seat, L(log->loc, "You draw: %s.", "Robas: %s."),
					  buf_str(&b));
			buf_release(&b);	/* only a log fills it */
		}
	}
	after_think(s, log);
}

static void think_latrine(struct gtr_state *s, int seat, struct game_log *log)
{
	if (gtr_has(s, seat, GC_LATRINE) && hand_size(&s->p[seat]) > 0) {
		s->step = GS_LATRINE;
		s->decider = (uint8_t)seat;
		return;
	}
	think_exec(s, seat, log);
}

static void think_start(struct gtr_state *s, int seat, int kind, struct game_log *log)
{
	s->think = (uint8_t)kind;
	if (gtr_has(s, seat, GC_VOMITORIUM) && hand_size(&s->p[seat]) > 0) {
		s->step = GS_VOMIT;
		s->decider = (uint8_t)seat;
		return;
	}
	think_latrine(s, seat, log);
}

static void after_think(struct gtr_state *s, struct game_log *log)
{
	switch (s->phase) {
	case GP_LEAD:
		/* "Si en tu turno de Líder decidiste Pensar, el resto de los
		 * jugadores no realizan ninguna Acción" */
		eot_start(s, log);
		return;
	case GP_FOLLOW:
		s->cursor++;
		follow_next(s, log);
		return;
	case GP_ACTIONS:
		action_done(s, 1, log);
		return;
	default:	/* GP_ACADEMY */
		s->cursor++;
		eot_next(s, log);
		return;
	}
}

/* ---- actions: frames ---- */

static int frame_left(const struct gtr_state *s, int seat, const struct gtr_frame *f)
{
	int total = f->dyn ? gtr_turn_actions(s, seat) : f->count, left = total - f->used;

	return left & -(left > 0);	/* max(left, 0) without a branch */
}

static int top_left(const struct gtr_state *s)
{
	if (!s->nframes)
		return 0;
	return frame_left(s, gtr_current(s), &s->frames[s->nframes - 1]);
}

static int top_kind(const struct gtr_state *s)
{
	return s->nframes ? s->frames[s->nframes - 1].kind : GTR_NONE;
}

static void pend(struct gtr_state *s, int kind, int count)
{
	if (count <= 0 || s->npend >= GTR_MAX_PEND)
		return;
	if (count > 250)
		count = 250;
	s->pend[s->npend].kind = (uint8_t)kind;
	s->pend[s->npend].dyn = 0;
	s->pend[s->npend].count = (uint8_t)count;
	s->pend[s->npend].used = 0;
	s->npend++;
}

static int action_options(const struct gtr_state *s, int seat, int kind);
static int prison_targets(const struct gtr_state *s, int seat);
static int legion_revealable(const struct gtr_state *s, int seat);

/* Finds the next decision of the action phase: the current seat's frames,
 * then the next seat's, then the end of the turn. */
static void run_actions(struct gtr_state *s, struct game_log *log)
{
	int n = s->nplayers;

	/* the loop changes nothing over_now looks at (frames and cursor) */
	if (over_now(s, log))
		return;
	for (;;) {
		int seat, left;
		struct gtr_frame *f;

		if (s->nframes == 0) {
			if (s->started) {
				s->started = 0;
				s->cursor++;
			}
			if (s->cursor >= n) {
				eot_start(s, log);
				return;
			}
			/* the seat's own actions of the led role */
			memset(&s->frames[0], 0, sizeof(s->frames[0]));
			s->frames[0].kind = s->led;
			s->frames[0].dyn = 1;
			s->nframes = 1;
			s->started = 1;
		}
		seat = gtr_current(s);
		s->decider = (uint8_t)seat;
		f = &s->frames[s->nframes - 1];
		left = frame_left(s, seat, f);
		s->part = 0;
		if (left > 0) {
			switch (f->kind) {
			case GR_LEGIONARY:
				if (legion_revealable(s, seat) > 0) {
					s->leg_n = (uint8_t)(left < GTR_MAX_DEMAND ? left : GTR_MAX_DEMAND);
					s->leg_k = 0;
					memset(s->leg_dem, 0, sizeof(s->leg_dem));
					s->step = GS_LEGION;
					return;
				}
				break;
			case GF_THINK:
				s->step = GS_THINK;
				return;
			case GF_PRISON:
				if (prison_targets(s, seat)) {
					s->step = GS_PRISON;
					return;
				}
				break;
			default:
				if (action_options(s, seat, f->kind)) {
					s->step = GS_ACTION;
					return;
				}
				break;
			}
		}
		/* nothing (more) to do in this frame */
		s->nframes--;
		memset(&s->frames[s->nframes], 0, sizeof(s->frames[0]));
	}
}

/* The current action is over: it spent `consumed` actions of the top frame
 * (FRAME_ALL: the whole frame); frames earned meanwhile go on top. */
static void action_done(struct gtr_state *s, int consumed, struct game_log *log)
{
	int i;

	if (s->nframes) {
		struct gtr_frame *f = &s->frames[s->nframes - 1];

		if (consumed == FRAME_ALL) {
			s->nframes--;
			memset(f, 0, sizeof(*f));
		} else {
			f->used = (uint8_t)(f->used + consumed > 250 ? 250 : f->used + consumed);
		}
	}
	s->part = 0;
	s->tgt_card = s->tgt_seat = GTR_NONE;
	s->tgt_stair = 0;
	for (i = s->npend - 1; i >= 0; i--) {
		if (s->nframes >= GTR_MAX_FRAMES)
			break;
		s->frames[s->nframes++] = s->pend[i];
	}
	s->npend = 0;
	memset(s->pend, 0, sizeof(s->pend));
	run_actions(s, log);
}

/* ---- building ---- */

static int material_ok(const struct gtr_state *s, int seat, const struct gtr_struct *t, int m)
{
	int base = gtr_cards[t->card].material;

	if (t->card == GC_STATUE && !(s->opts & GO_NOFUNCTIONS)) {
		if (m == t->site || m == GM_MARBLE)
			return 1;
	} else if (m == base) {
		return 1;
	}
	if (m == GM_RUBBLE && gtr_has(s, seat, GC_TOWER))
		return 1;
	if (base == GM_STONE && gtr_has(s, seat, GC_ROAD))
		return 1;
	return m == GM_MARBLE && gtr_has(s, seat, GC_SCRIPTORIUM);
}

/* Bit m per material m that material_ok accepts for t. */
static inline unsigned material_mask(const struct gtr_state *s, int seat,
				      const struct gtr_struct *t)
{
	int base = gtr_cards[t->card].material;
	uint64_t f = fn_mask(s, seat);
	unsigned ok;

	if (t->card == GC_STATUE && !(s->opts & GO_NOFUNCTIONS))
		ok = (t->site < GM_COUNT ? 1u << t->site : 0) | 1u << GM_MARBLE;
	else
		ok = 1u << base;
	if ((f >> GC_TOWER) & 1)
		ok |= 1u << GM_RUBBLE;
	if (base == GM_STONE && ((f >> GC_ROAD) & 1))
		ok |= (1u << GM_COUNT) - 1;
	if ((f >> GC_SCRIPTORIUM) & 1)
		ok |= 1u << GM_MARBLE;
	return ok & ((1u << GM_COUNT) - 1);
}

/* Sites card may be founded on: bit m for in town, bit 8 + m out of town;
 * `left` actions remain in the frame (the one being spent included). */
static unsigned site_options(const struct gtr_state *s, int seat, int card, int left)
{
	unsigned bits = 0;
	int m, lo, hi;

	if (card >= GC_COUNT || ((s->p[seat].has >> card) & 1) ||
	    s->p[seat].nstruct >= GTR_MAX_STRUCT)
		return 0;
	lo = hi = gtr_cards[card].material;
	if (card == GC_STATUE && !(s->opts & GO_NOFUNCTIONS)) {
		lo = 0;
		hi = GM_COUNT - 1;
	}
	for (m = lo; m <= hi; m++) {
		if (s->in_town[m])
			bits |= 1u << m;
		else if (s->out_town[m] && (left >= 2 || gtr_has(s, seat, GC_TOWER)))
			bits |= 1u << (8 + m);
	}
	return bits;
}

static void complete(struct gtr_state *s, int seat, struct gtr_struct *t, struct game_log *log)
{
	struct gtr_player *p = &s->p[seat];
	int card = t->card, infl;

	t->done = 1;
	if (t->site < GM_COUNT)
		p->infl[t->site]++;
	/* what gtr_refresh would change: a completed building is not public */
	p->built |= BIT(card);
	refresh_seat(s, seat);
	infl = gtr_influence(s, seat);
	LOGF(log, LOG_PUBLIC, L(LOC(log), "%s completes %s: influence %d.",
				"%s termina %s: Influencia %d."),
	     NAME(log, seat), CNAME(log, card), infl);
	if (s->opts & GO_NOFUNCTIONS)
		return;
	switch (card) {
	case GC_CATACOMB:
		s->ending = GE_CATACOMB;
		break;
	case GC_SCHOOL:
		pend(s, GF_THINK, infl);
		break;
	case GC_FOUNDRY:
		pend(s, GR_LABORER, infl);
		break;
	case GC_AMPHITHEATRE:
		pend(s, GR_CRAFTSMAN, infl);
		break;
	case GC_GARDEN:
		pend(s, GR_PATRON, infl);
		break;
	case GC_PRISON:
		pend(s, GF_PRISON, 1);
		break;
	}
}

static void found(struct gtr_state *s, int seat, int card, int m, int out, struct game_log *log)
{
	struct gtr_player *p = &s->p[seat];
	struct gtr_struct *t = &p->st[p->nstruct++];

	memset(t, 0, sizeof(*t));
	t->card = (uint8_t)card;
	t->site = (uint8_t)m;
	if (out)
		s->out_town[m]--;
	else
		s->in_town[m]--;
	/* what gtr_refresh would change: a foundation adds to has, which
	 * counts for the functions with Portón only */
	p->has |= BIT(card);
	if ((p->fn >> GC_GATE) & 1)
		refresh_seat(s, seat);
	LOGF(log, LOG_PUBLIC, L(LOC(log), "%s lays the foundation of %s on a %s site%s.",
				"%s pone los cimientos de %s en un Solar de %s%s."),
	     NAME(log, seat), CNAME(log, card), MNAME(log, m),
	     out ? L(LOC(log), " out of town", " de las afueras") : "");
	if (in_town_total(s) == 0 && !s->ending)
		s->ending = GE_SITES;
}

/* Adds material card c to structure t of owner (by actor). */
static void add_material(struct gtr_state *s, int actor, int owner, struct gtr_struct *t,
			 int c, int stair, struct game_log *log)
{
	int m = gtr_cards[c].material;

	if (t->nmat < GTR_MAX_MAT)
		t->mat[t->nmat++] = (uint8_t)c;
	if (stair) {
		int i;

		t->flags |= GSF_PUBLIC;
		/* what gtr_refresh would change: everybody's functions */
		s->pub |= BIT(t->card);
		for (i = 0; i < s->nplayers; i++)
			refresh_seat(s, i);
		LOGF(log, LOG_PUBLIC, L(LOC(log), "%s adds %s to %s's %s: its function is now public.",
					"%s añade %s a %s de %s: su función es ahora pública."),
		     NAME(log, actor), MNAME(log, m), NAME(log, owner), CNAME(log, t->card));
		return;
	}
	LOGF(log, LOG_PUBLIC, L(LOC(log), "%s adds %s to %s (%d/%d).",
				"%s añade %s a %s (%d/%d)."),
	     NAME(log, actor), MNAME(log, m), CNAME(log, t->card), t->nmat, gtr_struct_need(t));
	if (t->nmat >= gtr_struct_need(t) ||
	    (t->card == GC_VILLA && top_kind(s) == GR_ARCHITECT && !(s->opts & GO_NOFUNCTIONS)))
		complete(s, owner, t, log);
}

/* ---- Legionary ---- */

static int demanded(const struct gtr_state *s, int m)
{
	int i, n = 0;

	for (i = 0; i < s->leg_k; i++)
		n += s->leg_dem[i] == m;
	return n;
}

/* Hand cards that may still be revealed for a demand. */
static int legion_revealable(const struct gtr_state *s, int seat)
{
	int m, n = 0;

	for (m = 0; m < GM_COUNT; m++) {
		int k = s->p[seat].hcount[m] - demanded(s, m);

		if (k > 0)
			n += k;
	}
	return n;
}

static int is_victim(const struct gtr_state *s, int seat, int v)
{
	int n = s->nplayers;

	if (v == seat)
		return 0;
	if (n <= 3 || gtr_has(s, seat, GC_BRIDGE))
		return 1;
	return v == (seat + 1) % n || v == (seat + n - 1) % n;
}

static int protected_from(const struct gtr_state *s, int seat, int v)
{
	if (gtr_has(s, v, GC_WALL))
		return 1;
	return gtr_has(s, v, GC_PALISADE) && !gtr_has(s, seat, GC_BRIDGE);
}

static int coliseum_options(const struct gtr_state *s, int seat)
{
	int v, r, n = 0;

	if (!vault_room(s, seat))
		return 0;
	for (v = 0; v < s->nplayers; v++)
		for (r = 0; r < GR_COUNT; r++)
			if (s->coli[v][r] && gtr_count(s->p[v].clients, r))
				n++;
	return n;
}

/* Forgets every part of a demand (its end, a new turn, the game's end). */
static void legion_clear(struct gtr_state *s)
{
	int i;

	memset(s->coli, 0, sizeof(s->coli));
	memset(s->leg_dem, 0, sizeof(s->leg_dem));
	memset(s->leg_take, 0, sizeof(s->leg_take));
	s->leg_n = s->leg_k = 0;
	s->gift = s->vol = 0;
	for (i = 0; i < GTR_MAX_PLAYERS; i++) {
		memset(s->p[i].give, 0, sizeof(s->p[i].give));
		memset(s->p[i].give_stock, 0, sizeof(s->p[i].give_stock));
	}
}

static void legion_end(struct gtr_state *s, struct game_log *log)
{
	legion_clear(s);
	action_done(s, FRAME_ALL, log);
}

/* Coliseo, once the victims have given: per demanded card, one client of
 * that role from each victim in reach and not protected ("La Empalizada y
 * la Muralla protegen a los oponentes del efecto del Coliseo"). */
static void legion_coliseum(struct gtr_state *s, struct game_log *log)
{
	int seat = gtr_current(s), n = s->nplayers, k, i;

	if (gtr_has(s, seat, GC_COLISEUM)) {
		for (k = 1; k < n; k++) {
			int v = seat + k < n ? seat + k : seat + k - n;

			if (!is_victim(s, seat, v) || protected_from(s, seat, v))
				continue;
			for (i = 0; i < s->leg_k; i++)
				s->coli[v][s->leg_dem[i]]++;
		}
		if (coliseum_options(s, seat)) {
			s->step = GS_COLISEUM;
			return;
		}
	}
	legion_end(s, log);
}

/* Only with a log: the giver's own line names the card. */
static __attribute__((noinline, cold)) void log_gift(int v, int c, struct game_log *log)
{
	struct buf b = BUF_INIT;

	gtr_card_tag(c, log->loc, &b);
	game_logf(log, v, L(log->loc, "You give %s.", "Das %s."), buf_str(&b));
	buf_release(&b);
}

/* Victim v gives the Legionary (seat) its hand card c: into the
 * stockpile, where only the material shows (ruling 21). */
static void give_card(struct gtr_state *s, int seat, int v, int c, struct game_log *log)
{
	int m = gtr_cards[c].material;

	hand_out(&s->p[v], c);
	s->p[seat].stock[c]++;
	if (!log)
		return;
	game_logf(log, LOG_PUBLIC, L(log->loc, "%s gives %s %s.", "%s da %s a %s."), NAME(log, v),
		  L(log->loc, NAME(log, seat), MNAME(log, m)),
		  L(log->loc, MNAME(log, m), NAME(log, seat)));
	log_gift(v, c, log);
}

/* Victim v gives a stockpile card of material m (Puente); 0 if it has
 * none.  Stockpile cards show their material only and their names never
 * matter to the rules, so which copy goes is not asked. */
static int give_stock_card(struct gtr_state *s, int seat, int v, int m, struct game_log *log)
{
	int c = first_of(s->p[v].stock, m);

	if (c < 0)
		return 0;
	s->p[v].stock[c]--;
	s->p[seat].stock[c]++;
	LOGF(log, LOG_PUBLIC, L(LOC(log), "%s also gives %s from the stockpile.",
				"%s da también %s de su Almacén."), NAME(log, v), MNAME(log, m));
	return 1;
}

/*
 * "Si los jugadores que tienes sentados a izquierda y derecha tienen cartas
 * de ese material en su Mano, deben darte una cada uno": each victim in
 * reach gives, per demanded card, a matching card from hand, as many as it
 * has ("tantas cartas como puedan").  A victim that must give all its cards
 * of a material gives them at once; one holding more than demanded chooses
 * which (GS_GIVE, all such victims at once: their choices do not touch
 * each other).  Puente: also one matching stockpile card per demanded card,
 * at once.  A protected victim ("Aun así, puedes decidir entregarle cartas
 * si quieres") is asked whether it gives anyway, unless it is public that
 * it has nothing to give.
 */
static void legion_victims(struct gtr_state *s, struct game_log *log)
{
	int seat = gtr_current(s), n = s->nplayers, k, m, i, bridge = gtr_has(s, seat, GC_BRIDGE);
	int dem[GM_COUNT] = { 0 };

	for (i = 0; i < s->leg_k; i++)
		dem[s->leg_dem[i]]++;
	s->gift = s->vol = 0;
	for (k = 1; k < n; k++) {
		int v = seat + k < n ? seat + k : seat + k - n;	/* (seat + k) % n */
		struct gtr_player *vp = &s->p[v];

		if (!is_victim(s, seat, v))
			continue;
		if (protected_from(s, seat, v)) {
			int can = hand_size(vp) > 0;

			LOGF(log, LOG_PUBLIC, L(LOC(log), "%s is protected by %s.",
						"%s está protegido por %s."),
			     NAME(log, v), CNAME(log, gtr_has(s, v, GC_WALL) ? GC_WALL : GC_PALISADE));
			for (m = 0; m < GM_COUNT; m++) {
				vp->give[m] = (uint8_t)dem[m];
				/* protected against a Puente: by a Muralla */
				vp->give_stock[m] = (uint8_t)(bridge ? dem[m] : 0);
				if (bridge && dem[m] && count_of(vp->stock, m))
					can = 1;
			}
			if (can) {
				s->gift |= (uint8_t)(1u << v);
				s->vol |= (uint8_t)(1u << v);
			} else {
				memset(vp->give, 0, sizeof(vp->give));
				memset(vp->give_stock, 0, sizeof(vp->give_stock));
			}
			continue;
		}
		for (m = 0; m < GM_COUNT; m++) {
			int have = vp->hcount[m], j;

			if (!dem[m])
				continue;
			if (have > dem[m]) {
				vp->give[m] = (uint8_t)dem[m];
				s->gift |= (uint8_t)(1u << v);
			} else {
				for (j = 0; j < have; j++)
					give_card(s, seat, v, first_of(vp->hand, m), log);
				for (; j < dem[m]; j++)
					LOGF(log, LOG_PUBLIC, L(LOC(log), "%s: \"Glory to Rome!\" (no %s)",
								"%s: «¡Gloria a Roma!» (sin %s)"),
					     NAME(log, v), MNAME(log, m));
			}
			for (j = 0; bridge && j < dem[m]; j++)
				if (!give_stock_card(s, seat, v, m, log))
					break;
		}
	}
	if (s->gift) {
		s->step = GS_GIVE;
		return;
	}
	legion_coliseum(s, log);
}

/* A victim's answer: v has given (or kept) what it gives. */
static void victim_after(struct gtr_state *s, int v, struct game_log *log)
{
	struct gtr_player *vp = &s->p[v];
	int m, left = 0;

	for (m = 0; m < GM_COUNT; m++)
		left += vp->give[m] + vp->give_stock[m];
	if (left)
		return;
	s->gift &= (uint8_t)~(1u << v);
	s->vol &= (uint8_t)~(1u << v);
	if (!s->gift)
		legion_coliseum(s, log);
}

/* The demand is complete: "Si hay cartas de ese material (color) en la
 * Reserva, puedes coger inmediatamente una" -- per demanded card, the
 * Legionary may take a match from the pool (GS_LEGION_POOL), then the
 * victims give. */
static void legion_resolve(struct gtr_state *s, struct game_log *log)
{
	int m, any = 0;

	if (s->leg_k == 0) {
		legion_end(s, log);
		return;
	}
	for (m = 0; m < GM_COUNT; m++) {
		int d = demanded(s, m), p = count_of(s->pool, m);

		s->leg_take[m] = (uint8_t)(d < p ? d : p);
		any |= s->leg_take[m];
	}
	if (any) {
		s->step = GS_LEGION_POOL;
		return;
	}
	legion_victims(s, log);
}

/* ---- Prison ---- */

static int prison_target_ok(const struct gtr_state *s, int seat, int v, int k)
{
	const struct gtr_struct *t;

	if (v == seat || v >= s->nplayers || k >= s->p[v].nstruct)
		return 0;
	t = &s->p[v].st[k];
	return t->done && t->card < GC_COUNT && !((s->p[seat].has >> t->card) & 1) &&
	       s->p[seat].nstruct < GTR_MAX_STRUCT;
}

static int prison_targets(const struct gtr_state *s, int seat)
{
	int v, k, n = 0;

	if (gtr_find_struct(s, seat, GC_PRISON) < 0)
		return 0;
	for (v = 0; v < s->nplayers; v++)
		for (k = 0; k < s->p[v].nstruct; k++)
			n += prison_target_ok(s, seat, v, k);
	return n;
}

static void imprison(struct gtr_state *s, int seat, int card, int v, struct game_log *log)
{
	struct gtr_player *me = &s->p[seat], *vp = &s->p[v];
	int k = gtr_find_struct(s, v, card), pk = gtr_find_struct(s, seat, GC_PRISON);
	int site = pk >= 0 ? me->st[pk].site : GM_STONE;
	struct gtr_struct t;

	t = vp->st[k];
	memmove(&vp->st[k], &vp->st[k + 1], (size_t)(vp->nstruct - k - 1) * sizeof(t));
	vp->nstruct--;
	memset(&vp->st[vp->nstruct], 0, sizeof(t));
	t.flags |= GSF_STOLEN;
	me->st[me->nstruct++] = t;
	if (site < GM_COUNT && me->infl[site]) {
		me->infl[site]--;
		vp->infl[site]++;
	}
	gtr_refresh(s);
	LOGF(log, LOG_PUBLIC, L(LOC(log), "%s imprisons %s's %s and gives %s the Prison's site.",
				"%s encierra %s de %s y le da el Solar de la Prisión."),
	     NAME(log, seat), NAME(log, v), CNAME(log, card), NAME(log, v));
}

/* ---- move lists ---- */

static inline void add(struct move_list *out, int kind, int a, int b, int c)
{
	/* one 8-byte store rather than four */
	struct move m = { (uint16_t)kind, (uint16_t)a, (uint16_t)b, (uint16_t)c };

	if (out->n >= MOVE_LIST_MAX)
		return;
	out->v[out->n++] = m;
}

static inline void think_moves(const struct gtr_state *s, struct move_list *out)
{
	add(out, GK_THINK, GTR_THINK_DRAW, 0, 0);
	if (s->jacks)
		add(out, GK_THINK, GTR_THINK_JACK, 0, 0);
}

/* Foundations from hand (or Fuente's card). */
static void found_moves(const struct gtr_state *s, int seat, int card, int left,
			struct move_list *out)
{
	unsigned bits = site_options(s, seat, card, left);
	int m;

	for (m = 0; m < GM_COUNT; m++) {
		if (bits & (1u << m))
			add(out, GK_FOUND, card, m, 0);
		if (bits & (1u << (8 + m)))
			add(out, GK_FOUND, card, m, 1);
	}
}

/* Material sources for adding to t by seat acting as role; with out NULL,
 * only whether there is one (1 or 0). */
static int material_moves(const struct gtr_state *s, int seat, const struct gtr_struct *t,
			  int role, struct move_list *out)
{
	const struct gtr_player *p = &s->p[seat];
	int m, c, n = 0, arch;
	unsigned ok = material_mask(s, seat, t);

	if (!ok)
		return 0;
	if (role == GR_ARCHITECT) {
		arch = gtr_has(s, seat, GC_ARCHWAY);
		for (m = 0; m < GM_COUNT; m++) {
			if (!(ok & (1u << m)))
				continue;
			if (count_of(p->stock, m)) {
				if (!out)
					return 1;
				n++;
				add(out, GK_WITH, m, 0, 0);
			}
			if (arch && count_of(s->pool, m)) {
				if (!out)
					return 1;
				n++;
				add(out, GK_WITH, m, 1, 0);
			}
		}
	} else if (!out) {
		for (m = 0; m < GM_COUNT; m++)
			if ((ok & (1u << m)) && p->hcount[m])
				return 1;
	} else {
		for (c = 0; c < GC_COUNT; c++)
			if (p->hand[c] && (ok & (1u << gtr_cards[c].material))) {
				n++;
				add(out, GK_WITH, c, 0, 0);
			}
	}
	return n;
}

/* Bit m per material m that seat has a source of, acting as role:
 * material_moves(s, seat, t, role, NULL) is material_mask(t) & this. */
static unsigned source_mask(const struct gtr_state *s, int seat, int role)
{
	const struct gtr_player *p = &s->p[seat];

	if (role == GR_ARCHITECT)
		return materials_held(p->stock) |
		       (gtr_has(s, seat, GC_ARCHWAY) ? materials_held(s->pool) : 0);
	return nonzero_bytes(load8(p->hcount) & HAND_MATERIALS);
}

/* With `any`, stops at the first move (action_options only counts them). */
#define ADD(...) do { add(out, __VA_ARGS__); if (any) return; } while (0)

static void action_moves(const struct gtr_state *s, int seat, int kind, struct move_list *out,
			 int any)
{
	const struct gtr_player *p = &s->p[seat];
	int c, m, k, v;
	int room;
	unsigned src;

	switch (kind) {
	case GR_LABORER:
		if (!(s->part & GPART_POOL)) {
			unsigned held = materials_held(s->pool);

			for (m = 0; m < GM_COUNT; m++)
				if (held & (1u << m))
					ADD(GK_TAKE, m, 0, 0);
		}
		if (!(s->part & GPART_HAND) && gtr_has(s, seat, GC_DOCK))
			for (c = 0; c < GC_COUNT; c++)
				if (p->hand[c])
					ADD(GK_DOCK, c, 0, 0);
		break;
	case GR_PATRON:
		room = client_room(s, seat);
		if (!room)
			break;
		if (!(s->part & (GPART_POOL | GPART_DECK))) {
			unsigned held = materials_held(s->pool);

			for (m = 0; m < GM_COUNT; m++)
				if (held & (1u << m))
					ADD(GK_HIRE, m, 0, 0);
		}
		if (!(s->part & GPART_DECK) && s->ndeck && gtr_has(s, seat, GC_BAR))
			ADD(GK_HIRE_DECK, 0, 0, 0);
		if (!(s->part & GPART_HAND) && gtr_has(s, seat, GC_AQUEDUCT))
			for (c = 0; c < GC_COUNT; c++)
				if (p->hand[c])
					ADD(GK_HIRE_HAND, c, 0, 0);
		break;
	case GR_MERCHANT:
		room = vault_room(s, seat);
		if (!room)
			break;
		if (!(s->part & (GPART_POOL | GPART_DECK))) {
			unsigned held = materials_held(p->stock);

			for (m = 0; m < GM_COUNT; m++)
				if (held & (1u << m))
					ADD(GK_SELL, m, 0, 0);
			if (s->ndeck && gtr_has(s, seat, GC_ATRIUM))
				ADD(GK_SELL_DECK, 0, 0, 0);
		}
		if (!(s->part & GPART_HAND) && gtr_has(s, seat, GC_BASILICA))
			for (c = 0; c < GC_COUNT; c++)
				if (p->hand[c])
					ADD(GK_SELL_HAND, c, 0, 0);
		break;
	case GR_ARCHITECT:
	case GR_CRAFTSMAN:
		/* found_moves for every card in hand, the sites looked at once */
		if (p->nstruct < GTR_MAX_STRUCT) {
			uint64_t cards = present(p->hand, GC_COUNT) & ~p->has;
			uint64_t in_cards = 0, out_cards = 0;
			unsigned in = 0, outs = 0;
			int statue = !(s->opts & GO_NOFUNCTIONS) && ((cards >> GC_STATUE) & 1);

			for (m = 0; m < GM_COUNT; m++) {
				if (s->in_town[m]) {
					in |= 1u << m;
					in_cards |= material_names[m];
				} else if (s->out_town[m]) {
					outs |= 1u << m;
					out_cards |= material_names[m];
				}
			}
			/* out of town needs two actions left (or Torre): asked
			 * only when a card could go there */
			if (outs && (statue || (cards & out_cards)) &&
			    !gtr_has(s, seat, GC_TOWER) && top_left(s) < 2)
				outs = 0, out_cards = 0;
			/* one site per card, of its material: in town, else out
			 * of town; Estatua (any site) apart */
			if (statue)
				cards &= ~BIT(GC_STATUE);
			cards &= in_cards | out_cards;
			while (cards) {
				c = next_bit(&cards);
				if (statue && c > GC_STATUE) {
					statue = 0;
					for (m = 0; m < GM_COUNT; m++) {
						if (in & (1u << m))
							ADD(GK_FOUND, GC_STATUE, m, 0);
						if (outs & (1u << m))
							ADD(GK_FOUND, GC_STATUE, m, 1);
					}
				}
				ADD(GK_FOUND, c, hand_slot[c], (int)((out_cards >> c) & 1));
			}
			if (statue)
				for (m = 0; m < GM_COUNT; m++) {
					if (in & (1u << m))
						ADD(GK_FOUND, GC_STATUE, m, 0);
					if (outs & (1u << m))
						ADD(GK_FOUND, GC_STATUE, m, 1);
				}
		}
		src = source_mask(s, seat, kind);
		for (k = 0; k < p->nstruct; k++)
			if (!p->st[k].done && (material_mask(s, seat, &p->st[k]) & src))
				ADD(GK_ADD, p->st[k].card, 0, 0);
		if (kind == GR_CRAFTSMAN && s->ndeck && gtr_has(s, seat, GC_FOUNTAIN))
			ADD(GK_FOUNTAIN, 0, 0, 0);
		if (kind == GR_ARCHITECT && gtr_has(s, seat, GC_STAIRWAY))
			for (k = 1; k < s->nplayers; k++) {
				v = (seat + k) % s->nplayers;
				for (c = 0; c < s->p[v].nstruct; c++) {
					const struct gtr_struct *t = &s->p[v].st[c];

					if (t->done && !(t->flags & GSF_PUBLIC) &&
					    t->nmat < GTR_MAX_MAT &&
					    (material_mask(s, seat, t) & src))
						ADD(GK_STAIRWAY, t->card, v, 0);
				}
			}
		break;
	}
}

#undef ADD

/* Whether an action has options besides `done` (0 or 1): whether
 * action_moves would list a move, each part as it asks it. */
static int action_options(const struct gtr_state *s, int seat, int kind)
{
	const struct gtr_player *p = &s->p[seat];
	struct move_list ml;

	switch (kind) {
	case GR_LABORER:
		return (!(s->part & GPART_POOL) && any40(s->pool)) ||
		       (!(s->part & GPART_HAND) && gtr_has(s, seat, GC_DOCK) && any40(p->hand));
	case GR_PATRON:
		return client_room(s, seat) &&
		       ((!(s->part & (GPART_POOL | GPART_DECK)) && any40(s->pool)) ||
			(!(s->part & GPART_DECK) && s->ndeck && gtr_has(s, seat, GC_BAR)) ||
			(!(s->part & GPART_HAND) && gtr_has(s, seat, GC_AQUEDUCT) &&
			 any40(p->hand)));
	case GR_MERCHANT:
		return vault_room(s, seat) &&
		       ((!(s->part & (GPART_POOL | GPART_DECK)) &&
			 (any40(p->stock) || (s->ndeck && gtr_has(s, seat, GC_ATRIUM)))) ||
			(!(s->part & GPART_HAND) && gtr_has(s, seat, GC_BASILICA) &&
			 any40(p->hand)));
	case GR_ARCHITECT:
	case GR_CRAFTSMAN:
		ml.n = 0;
		action_moves(s, seat, kind, &ml, 1);
		return ml.n;
	default:
		return 0;
	}
}

static const struct gtr_struct *target(const struct gtr_state *s)
{
	int k;

	if (s->tgt_seat >= s->nplayers || s->tgt_card >= GC_COUNT)
		return NULL;
	k = gtr_find_struct(s, s->tgt_seat, s->tgt_card);
	return k < 0 ? NULL : &s->p[s->tgt_seat].st[k];
}

/* gtr_awaiting, inlined where moves and apply ask it. */
static inline unsigned awaiting_of(const struct gtr_state *s)
{
	unsigned mask = 0;
	int i;

	if (s->step != GS_PICK && s->step != GS_GIVE && s->step != GS_OVER &&
	    s->phase != GP_OVER && s->decider < s->nplayers)
		return 1u << s->decider;	/* the usual case, tested first */
	if (s->step == GS_OVER || s->phase == GP_OVER)
		return 0;
	if (s->step == GS_GIVE)	/* the Legionary's victims, all at once */
		return s->gift & ((1u << s->nplayers) - 1);
	if (s->step == GS_PICK) {
		for (i = 0; i < s->nplayers; i++)
			if (!s->p[i].pick)
				mask |= 1u << i;
		return mask;
	}
	if (s->decider >= s->nplayers)
		return 0;
	return 1u << s->decider;
}

/* (awaiting_of(s) >> seat) & 1 for a seat in 0..nplayers-1. */
static inline int awaited(const struct gtr_state *s, int seat)
{
	if (s->step == GS_PICK)
		return s->phase != GP_OVER && !s->p[seat].pick;
	if (s->step == GS_GIVE)
		return (s->gift >> seat) & 1;
	return seat == s->decider && s->step != GS_OVER && s->phase != GP_OVER;
}

/*
 * The steps a random playout rarely reaches, out of line so that gtr_moves
 * itself stays small (fewer callee-saved registers, a smaller jump table).
 */
static __attribute__((noinline, cold)) void moves_rare(const struct gtr_state *s, int seat,
						       struct move_list *out)
{
	const struct gtr_player *p = &s->p[seat];
	int c, r, k, v, m;

	switch (s->step) {
	case GS_PICK:
		for (c = 0; c < GC_COUNT; c++)
			if (p->hand[c])
				add(out, GK_PICK, c, 0, 0);
		break;
	case GS_VOMIT:
		add(out, GK_VOMIT, 0, 0, 0);
		add(out, GK_DONE, 0, 0, 0);
		break;
	case GS_LATRINE:
		for (c = 0; c < GTR_NAMES; c++)
			if (p->hand[c])
				add(out, GK_LATRINE, c, 0, 0);
		add(out, GK_DONE, 0, 0, 0);
		break;
	case GS_THINK:
		think_moves(s, out);
		add(out, GK_DONE, 0, 0, 0);
		break;
	case GS_MATERIAL: {
		const struct gtr_struct *t = target(s);

		if (t)
			material_moves(s, seat, t, top_kind(s), out);
		add(out, GK_BACK, 0, 0, 0);
		break;
	}
	case GS_FOUNTAIN:
		if (s->fount < GC_COUNT) {
			int fm = gtr_cards[s->fount].material;

			found_moves(s, seat, s->fount, top_left(s), out);
			for (k = 0; k < p->nstruct; k++)
				if (!p->st[k].done && material_ok(s, seat, &p->st[k], fm))
					add(out, GK_ADD, p->st[k].card, 0, 0);
		}
		add(out, GK_KEEP, 0, 0, 0);
		break;
	case GS_LEGION_POOL:
		for (m = 0; m < GM_COUNT; m++)
			if (s->leg_take[m])
				add(out, GK_TAKE, m, 0, 0);
		add(out, GK_DONE, 0, 0, 0);
		break;
	case GS_GIVE:
		for (m = 0; m < GM_COUNT; m++) {
			uint64_t names = p->give[m] ? held_names(p->hand, m) : 0;

			while (names)
				add(out, GK_GIVE, next_bit(&names), 0, 0);
		}
		if ((s->vol >> seat) & 1) {
			for (m = 0; m < GM_COUNT; m++)
				if (p->give_stock[m] && count_of(p->stock, m))
					add(out, GK_GIVE_STOCK, m, 0, 0);
			add(out, GK_DONE, 0, 0, 0);
		}
		break;
	case GS_COLISEUM:
		if (vault_room(s, seat))
			for (k = 1; k < s->nplayers; k++) {
				v = (seat + k) % s->nplayers;
				for (r = 0; r < GR_COUNT; r++)
					if (s->coli[v][r] && gtr_count(s->p[v].clients, r))
						add(out, GK_COLISEUM, r, v, 0);
			}
		add(out, GK_DONE, 0, 0, 0);
		break;
	case GS_PRISON:
		for (k = 1; k < s->nplayers; k++) {
			v = (seat + k) % s->nplayers;
			for (c = 0; c < s->p[v].nstruct; c++)
				if (prison_target_ok(s, seat, v, c))
					add(out, GK_IMPRISON, s->p[v].st[c].card, v, 0);
		}
		add(out, GK_DONE, 0, 0, 0);
		break;
	case GS_SENATE:
		for (k = 1; k <= others_jacks(s, seat); k++)
			add(out, GK_SENATORS, k, 0, 0);
		add(out, GK_DONE, 0, 0, 0);
		break;
	case GS_SEWER:
		for (c = 0; c < GC_COUNT; c++)
			if (p->camp[c])
				add(out, GK_SEWER, c, 0, 0);
		add(out, GK_DONE, 0, 0, 0);
		break;
	default:
		break;
	}
}

int gtr_moves(const void *st, int seat, struct move_list *out)
{
	const struct gtr_state *s = st;
	const struct gtr_player *p;
	int c, m, r, need;

	out->n = 0;
	out->nmeta = 0;
	if (seat < 0 || seat >= s->nplayers || !awaited(s, seat))
		return 0;
	p = &s->p[seat];
	switch (s->step) {
	case GS_LEAD: {
		/* can_unit per role, its role-free parts once */
		unsigned roles = (1u << GR_COUNT) - 1;

		if (!p->hand[GTR_JACK] && !can_petition(s, seat)) {
			/* the roles of the cards held (Architect with Circo) */
			roles = nonzero_bytes(load8(p->hcount) & HAND_MATERIALS);
			if (roles && !(s->opts & GO_ORIGINAL_CIRCUS) && gtr_has(s, seat, GC_CIRCUS))
				roles |= 1u << GR_ARCHITECT;
		}
		while (roles) {
			r = __builtin_ctz(roles);
			roles &= roles - 1;
			add(out, GK_LEAD, r, 0, 0);
		}
		think_moves(s, out);
		if (!p->conceded) {	/* last: a meta decision (game.h) */
			add(out, GK_CONCEDE, 0, 0, 0);
			out->nmeta = 1;
		}
		break;
	}
	case GS_FOLLOW:
		if (can_unit(s, seat, s->led))
			add(out, GK_FOLLOW, 0, 0, 0);
		think_moves(s, out);
		if (!p->conceded) {	/* last: a meta decision (game.h) */
			add(out, GK_CONCEDE, 0, 0, 0);
			out->nmeta = 1;
		}
		break;
	case GS_UNIT:
		/* unit_card_ok: any card with Circo as an Architect, else the
		 * cards of the role's material */
		if (s->led == GR_ARCHITECT && !(s->opts & GO_ORIGINAL_CIRCUS) &&
		    gtr_has(s, seat, GC_CIRCUS)) {
			for (c = 0; c < GC_COUNT; c++)
				if (p->hand[c])
					add(out, GK_PLAY, c, 0, 0);
		} else if (s->led < GM_COUNT) {
			uint64_t names = held_names(p->hand, s->led);

			while (names)
				add(out, GK_PLAY, next_bit(&names), 0, 0);
		}
		if (p->hand[GTR_JACK])
			add(out, GK_PLAY, GTR_JACK, 0, 0);
		if (can_petition(s, seat))
			add(out, GK_PETITION, 0, 0, 0);
		if (p->units)
			add(out, GK_DONE, 0, 0, 0);
		break;
	case GS_PETITION:
		need = s->pet_need;
		/* by material (names are grouped by material, in order) */
		if (s->pet_role == GTR_NONE) {
			uint64_t names = 0;
			unsigned mats = hand_at_least(s, seat, need);

			while (mats) {
				m = __builtin_ctz(mats);
				mats &= mats - 1;
				names |= held_names(p->hand, m);
			}
			while (names)
				add(out, GK_PETITION_CARD, next_bit(&names), 0, 0);
		} else if (s->pet_role < GM_COUNT) {
			uint64_t names = held_names(p->hand, s->pet_role);

			while (names)
				add(out, GK_PETITION_CARD, next_bit(&names), 0, 0);
		}
		break;
	case GS_ACTION:
		action_moves(s, seat, top_kind(s), out, 0);
		add(out, GK_DONE, 0, 0, 0);
		break;
	case GS_LEGION:
		if (s->leg_k < s->leg_n)
			for (m = 0; m < GM_COUNT; m++)
				if (p->hcount[m] > demanded(s, m))
					add(out, GK_DEMAND, m, 0, 0);
		add(out, GK_DONE, 0, 0, 0);
		break;
	default:
		moves_rare(s, seat, out);
		break;
	}
	return out->n;
}

unsigned gtr_awaiting(const void *st)
{
	return awaiting_of(st);
}

/* ---- applying ---- */

static void after_part(struct gtr_state *s, int seat, struct game_log *log)
{
	if (action_options(s, seat, top_kind(s)))
		return;	/* GS_ACTION goes on: more of the same action, or `done` */
	action_done(s, 1, log);
}

static void pick_done(struct gtr_state *s, struct game_log *log)
{
	uint8_t cards[GTR_MAX_PLAYERS];
	int i;

	/* "Se muestran todas las cartas a la vez" */
	for (i = 0; i < s->nplayers; i++) {
		cards[i] = (uint8_t)(s->p[i].pick - 1);
		s->p[i].pick = 0;
		s->pool[cards[i]]++;
		record_draw(s, i, cards[i]);
		log_draw(log, SHOWS(log), i, cards[i]);
	}
	choose_leader(s, cards, (1u << s->nplayers) - 1, log);
	log_leader(s, log);
	begin_turn(s, log);
}

static void do_with(struct gtr_state *s, int seat, struct move m, struct game_log *log);

static void do_action(struct gtr_state *s, int seat, struct move m, struct game_log *log)
{
	struct gtr_player *p = &s->p[seat];
	enum locale loc = LOC(log);
	int c, k;

	switch (m.kind) {
	case GK_DONE:
		if (s->part)
			action_done(s, 1, log);
		else
			action_done(s, FRAME_ALL, log);
		return;
	case GK_TAKE:
		c = first_of(s->pool, m.a);
		if (c < 0)
			return;	/* unreachable: listed */
		s->pool[c]--;
		p->stock[c]++;
		s->part |= GPART_POOL;
		LOGF(log, LOG_PUBLIC, L(loc, "%s takes %s from the pool.", "%s coge %s de la Reserva."),
		     NAME(log, seat), MNAME(log, m.a));
		after_part(s, seat, log);
		return;
	case GK_DOCK:
		hand_out(p, m.a);
		p->stock[m.a]++;
		s->part |= GPART_HAND;
		/* the stockpile shows the material only: the card stays secret */
		LOGF(log, LOG_PUBLIC, L(loc, "%s puts %s from hand into the stockpile (Dock).",
					"%s pone %s de la Mano en su Almacén (Muelle)."),
		     NAME(log, seat), MNAME(log, gtr_cards[m.a].material));
		after_part(s, seat, log);
		return;
	case GK_HIRE:
	case GK_HIRE_DECK:
	case GK_HIRE_HAND:
		if (m.kind == GK_HIRE) {
			c = first_of(s->pool, m.a);
			if (c < 0)
				return;	/* unreachable: listed */
			s->pool[c]--;
			s->part |= GPART_POOL;
			LOGF(log, LOG_PUBLIC, L(loc, "%s hires %s from the pool.",
						"%s contrata %s de la Reserva."),
			     NAME(log, seat), A_ROLE(log, m.a));
		} else if (m.kind == GK_HIRE_DECK) {
			c = draw(s);
			s->part |= GPART_DECK;
			LOGF(log, LOG_PUBLIC, L(loc, "%s hires %s from the deck (Bar).",
						"%s contrata %s del Mazo (Taberna)."),
			     NAME(log, seat), A_ROLE(log, gtr_cards[c].material));
		} else {
			c = m.a;
			hand_out(p, c);
			s->part |= GPART_HAND;
			LOGF(log, LOG_PUBLIC, L(loc, "%s hires %s from hand (Aqueduct).",
						"%s contrata %s de la Mano (Acueducto)."),
			     NAME(log, seat), A_ROLE(log, gtr_cards[c].material));
		}
		p->clients[c]++;
		p->newc[gtr_cards[c].material]++;
		if (gtr_has(s, seat, GC_BATH))
			pend(s, gtr_cards[c].material, 1);
		after_part(s, seat, log);
		return;
	case GK_SELL:
		c = first_of(p->stock, m.a);
		if (c < 0)
			return;	/* unreachable: listed */
		p->stock[c]--;
		p->vault[c]++;
		s->part |= GPART_POOL;
		LOGF(log, LOG_PUBLIC, L(loc, "%s puts %s into the vault.", "%s guarda %s en su Tesoro."),
		     NAME(log, seat), MNAME(log, m.a));
		after_part(s, seat, log);
		return;
	case GK_SELL_DECK:
		c = draw(s);
		p->vault[c]++;
		s->part |= GPART_DECK;
		LOGF(log, LOG_PUBLIC, L(loc, "%s puts the top card of the deck into the vault unseen (Atrium).",
					"%s guarda la carta superior del Mazo en su Tesoro sin verla (Atrio)."),
		     NAME(log, seat));
		after_part(s, seat, log);
		return;
	case GK_SELL_HAND:
		hand_out(p, m.a);
		p->vault[m.a]++;
		s->part |= GPART_HAND;
		LOGF(log, LOG_PUBLIC, L(loc, "%s puts a card from hand into the vault (Basilica).",
					"%s guarda una carta de la Mano en su Tesoro (Basílica)."),
		     NAME(log, seat));
		LOGF(log, seat, L(loc, "You put %s into your vault.", "Guardas %s en tu Tesoro."),
		     CNAME(log, m.a));
		after_part(s, seat, log);
		return;
	case GK_FOUND:
		if (s->step == GS_FOUNTAIN)
			s->fount = GTR_NONE;
		else
			hand_out(p, m.a);
		found(s, seat, m.a, m.b, m.c, log);
		if (top_kind(s) == GR_CRAFTSMAN)
			p->crafted = 1;
		action_done(s, m.c && !gtr_has(s, seat, GC_TOWER) ? 2 : 1, log);
		return;
	case GK_ADD:
		k = gtr_find_struct(s, seat, m.a);
		if (s->step == GS_FOUNTAIN) {
			c = s->fount;
			s->fount = GTR_NONE;
			p->crafted = 1;
			add_material(s, seat, seat, &p->st[k], c, 0, log);
			action_done(s, 1, log);
			return;
		}
		s->tgt_card = (uint8_t)m.a;
		s->tgt_seat = (uint8_t)seat;
		s->tgt_stair = 0;
		s->step = GS_MATERIAL;
		break;
	case GK_STAIRWAY:
		s->tgt_card = (uint8_t)m.a;
		s->tgt_seat = (uint8_t)m.b;
		s->tgt_stair = 1;
		s->step = GS_MATERIAL;
		break;
	case GK_FOUNTAIN:
		c = draw(s);
		s->fount = (uint8_t)c;
		p->crafted = 1;
		LOGF(log, LOG_PUBLIC, L(loc, "%s draws a card with the Fountain.",
					"%s roba una carta con la Fuente."), NAME(log, seat));
		LOGF(log, seat, L(loc, "The Fountain gives you %s.", "La Fuente te da %s."),
		     CNAME(log, c));
		if (s->ending) {
			/* the deck ran out: the game ends at once; the card
			 * stays in hand (finish) */
			over_now(s, log);
			return;
		}
		s->step = GS_FOUNTAIN;
		return;
	case GK_KEEP:
		hand_in(p, s->fount);
		LOGF(log, LOG_PUBLIC, L(loc, "%s keeps the Fountain's card in hand.",
					"%s se queda en la Mano la carta de la Fuente."), NAME(log, seat));
		s->fount = GTR_NONE;
		action_done(s, 1, log);
		return;
	}
	if (s->step == GS_MATERIAL) {
		/* one source only: no need to ask */
		struct move_list ml;
		const struct gtr_struct *t = target(s);

		ml.n = 0;
		if (t)
			material_moves(s, seat, t, top_kind(s), &ml);
		if (ml.n == 1)
			do_with(s, seat, ml.v[0], log);
	}
}

static void do_with(struct gtr_state *s, int seat, struct move m, struct game_log *log)
{
	struct gtr_player *p = &s->p[seat];
	int owner = s->tgt_seat, k = gtr_find_struct(s, owner, s->tgt_card), c;

	if (top_kind(s) == GR_ARCHITECT) {
		uint8_t *src = m.b ? s->pool : p->stock;

		c = first_of(src, m.a);
		if (c < 0)
			return;	/* unreachable: listed */
		src[c]--;
	} else {
		c = m.a;
		hand_out(p, c);
		p->crafted = 1;
	}
	add_material(s, seat, owner, &s->p[owner].st[k], c, s->tgt_stair, log);
	action_done(s, 1, log);
}

/* The steps a random playout rarely reaches (see moves_rare). */
static __attribute__((noinline, cold)) void do_move_rare(struct gtr_state *s, int seat,
							  struct move m, struct game_log *log)
{
	struct gtr_player *p = &s->p[seat];
	enum locale loc = LOC(log);
	int c, k, i;

	switch (s->step) {
	case GS_PICK:
		hand_out(p, m.a);
		p->pick = (uint8_t)(m.a + 1);
		LOGF(log, LOG_PUBLIC, L(loc, "%s picks a card face down.",
					"%s elige una carta boca abajo."), NAME(log, seat));
		LOGF(log, seat, L(loc, "You pick %s.", "Eliges %s."), CNAME(log, m.a));
		for (i = 0; i < s->nplayers; i++)
			if (!s->p[i].pick)
				break;
		if (i == s->nplayers)
			pick_done(s, log);
		else
			s->decider = (uint8_t)i;
		return;
	case GS_VOMIT:
		if (m.kind == GK_VOMIT) {
			for (c = 0; c < GC_COUNT; c++) {
				s->pool[c] = (uint8_t)(s->pool[c] + p->hand[c]);
				p->hand[c] = 0;
			}
			s->jacks = (uint8_t)(s->jacks + p->hand[GTR_JACK]);
			p->hand[GTR_JACK] = 0;
			memset(p->hcount, 0, sizeof(p->hcount));
			LOGF(log, LOG_PUBLIC, L(loc, "%s discards the whole hand (Vomitorium).",
						"%s descarta toda su Mano (Vomitorium)."), NAME(log, seat));
			think_exec(s, seat, log);
			return;
		}
		think_latrine(s, seat, log);
		return;
	case GS_LATRINE:
		if (m.kind == GK_LATRINE) {
			hand_out(p, m.a);
			if (m.a == GTR_JACK)
				s->jacks++;
			else
				s->pool[m.a]++;
			LOGF(log, LOG_PUBLIC, L(loc, "%s discards %s (Latrine).", "%s descarta %s (Letrinas)."),
			     NAME(log, seat), CNAME(log, m.a));
		}
		think_exec(s, seat, log);
		return;
	case GS_THINK:
		if (m.kind == GK_THINK) {
			think_start(s, seat, m.a, log);
			return;
		}
		if (s->phase == GP_ACTIONS) {
			action_done(s, FRAME_ALL, log);
		} else {
			s->cursor++;
			eot_next(s, log);
		}
		return;
	case GS_MATERIAL:
		if (m.kind == GK_BACK) {
			s->tgt_card = s->tgt_seat = GTR_NONE;
			s->tgt_stair = 0;
			s->step = GS_ACTION;
			return;
		}
		do_with(s, seat, m, log);
		return;
	case GS_LEGION_POOL:
		if (m.kind == GK_TAKE) {
			c = first_of(s->pool, m.a);
			if (c < 0)
				return;	/* unreachable: listed */
			s->pool[c]--;
			p->stock[c]++;
			s->leg_take[m.a]--;
			LOGF(log, LOG_PUBLIC, L(loc, "%s takes %s from the pool.",
						"%s coge %s de la Reserva."),
			     NAME(log, seat), MNAME(log, m.a));
			for (k = 0; k < GM_COUNT; k++)
				if (s->leg_take[k])
					return;
		} else {
			memset(s->leg_take, 0, sizeof(s->leg_take));
			LOGF(log, LOG_PUBLIC, L(loc, "%s leaves the pool's matching cards there.",
						"%s deja en la Reserva las cartas del material."),
			     NAME(log, seat));
		}
		legion_victims(s, log);
		return;
	case GS_GIVE:
		if (m.kind == GK_GIVE) {
			p->give[gtr_cards[m.a].material]--;
			give_card(s, s->decider, seat, m.a, log);
		} else if (m.kind == GK_GIVE_STOCK) {
			p->give_stock[m.a]--;
			give_stock_card(s, s->decider, seat, m.a, log);
		} else {
			memset(p->give, 0, sizeof(p->give));
			memset(p->give_stock, 0, sizeof(p->give_stock));
			LOGF(log, LOG_PUBLIC, L(loc, "%s keeps the cards.", "%s se queda sus cartas."),
			     NAME(log, seat));
		}
		victim_after(s, seat, log);
		return;
	case GS_COLISEUM:
		if (m.kind == GK_COLISEUM) {
			struct gtr_player *vp = &s->p[m.b];
			int r = m.a, left;

			c = first_of(vp->clients, r);
			if (c < 0)
				return;	/* unreachable: listed */
			vp->clients[c]--;
			left = gtr_count(vp->clients, r);
			if (vp->newc[r] > left)
				vp->newc[r] = (uint8_t)left;
			p->vault[c]++;
			s->coli[m.b][r]--;
			LOGF(log, LOG_PUBLIC, L(loc, "%s throws %s's %s client to the lions (Coliseum).",
						"%s lanza el Cliente %s de %s a los leones (Coliseo)."),
			     NAME(log, seat), L(loc, NAME(log, m.b), RNAME(log, r)),
			     L(loc, RNAME(log, r), NAME(log, m.b)));
			if (coliseum_options(s, seat))
				return;
		}
		legion_end(s, log);
		return;
	case GS_PRISON:
		if (m.kind == GK_IMPRISON)
			imprison(s, seat, m.a, m.b, log);
		action_done(s, FRAME_ALL, log);
		return;
	case GS_SENATE:
		if (m.kind == GK_SENATORS) {
			int want = m.a;

			for (k = 1; k < s->nplayers && want > 0; k++) {
				struct gtr_player *o = &s->p[(seat + k) % s->nplayers];

				while (o->camp[GTR_JACK] && want > 0) {
					o->camp[GTR_JACK]--;
					hand_in(p, GTR_JACK);
					want--;
				}
			}
			LOGF(log, LOG_PUBLIC, L(loc, "%s takes %d Senator%s (Senate).",
						"%s coge %d Senador%s (Senado)."),
			     NAME(log, seat), m.a, m.a == 1 ? "" : L(loc, "s", "es"));
		}
		s->cursor++;
		eot_next(s, log);
		return;
	case GS_SEWER:
		if (m.kind == GK_SEWER) {
			p->camp[m.a]--;
			p->stock[m.a]++;
			LOGF(log, LOG_PUBLIC, L(loc, "%s keeps %s in the stockpile (Sewer).",
						"%s guarda %s en su Almacén (Alcantarillado)."),
			     NAME(log, seat), CNAME(log, m.a));
			if (any40(p->camp))
				return;
		}
		s->cursor++;
		eot_next(s, log);
		return;
	default:
		break;
	}
}

/* A concession: a meta decision, never part of a playout. */
static __attribute__((noinline, cold)) void do_concede(struct gtr_state *s, int seat,
							struct game_log *log)
{
	enum locale loc = LOC(log);
	int left = 0, last = -1, i;

	s->p[seat].conceded = 1;
	LOGF(log, LOG_PUBLIC, L(loc, "%s concedes.", "%s se rinde."), NAME(log, seat));
	for (i = 0; i < s->nplayers; i++)
		if (!s->p[i].conceded) {
			left++;
			last = i;
		}
	if (left <= 1)
		finish(s, GE_CONCEDE, last >= 0 ? last : GTR_NONE, log);
}

/* Only with a log: formatting needs a buffer, kept off the playout path. */
static __attribute__((noinline, cold)) void log_petition(struct gtr_state *s, int seat,
							  struct game_log *log)
{
	enum locale loc = LOC(log);
	struct buf b = BUF_INIT;

	buf_printf(&b, L(loc, "a petition of %d %s cards", "una petición de %d cartas de %s"),
		   s->pet_have, RNAME(log, s->pet_role));
	log_unit(s, seat, buf_str(&b), log);
	buf_release(&b);
}

/* Only with a log (see log_petition). */
static __attribute__((noinline, cold)) void log_demand(int seat, int m, struct game_log *log)
{
	enum locale loc = LOC(log);

	game_logf(log, LOG_PUBLIC, L(loc, "%s: \"Rome demands %s!\"", "%s: «¡Roma exige %s!»"),
		  NAME(log, seat), MNAME(log, m));
}

static void do_move(struct gtr_state *s, int seat, struct move m, struct game_log *log)
{
	struct gtr_player *p = &s->p[seat];

	switch (s->step) {
	case GS_LEAD:
	case GS_FOLLOW:
		if (m.kind == GK_CONCEDE) {
			do_concede(s, seat, log);
			return;
		}
		if (m.kind == GK_THINK) {
			think_start(s, seat, m.a, log);
			return;
		}
		if (m.kind == GK_LEAD)
			s->led = (uint8_t)m.a;
		s->step = GS_UNIT;
		return;
	case GS_UNIT:
		if (m.kind == GK_DONE) {
			after_units(s, log);
			return;
		}
		if (m.kind == GK_PETITION) {
			s->pet_role = GTR_NONE;
			s->pet_have = 0;
			s->pet_need = (uint8_t)gtr_petition_need(s, seat);
			s->step = GS_PETITION;
			return;
		}
		hand_out(p, m.a);
		p->camp[m.a]++;
		log_unit(s, seat, CNAME(log, m.a), log);
		unit_played(s, seat, log);
		return;
	case GS_PETITION:
		hand_out(p, m.a);
		p->camp[m.a]++;
		s->pet_role = gtr_cards[m.a].material;
		if (++s->pet_have < s->pet_need)
			return;
		if (log)
			log_petition(s, seat, log);
		s->pet_role = GTR_NONE;
		s->pet_have = s->pet_need = 0;
		unit_played(s, seat, log);
		return;
	case GS_ACTION:
	case GS_FOUNTAIN:
		do_action(s, seat, m, log);
		return;
	case GS_LEGION:
		if (m.kind == GK_DONE) {
			legion_resolve(s, log);
			return;
		}
		s->leg_dem[s->leg_k++] = (uint8_t)m.a;
		if (log)
			log_demand(seat, m.a, log);
		if (s->leg_k >= s->leg_n || legion_revealable(s, seat) == 0)
			legion_resolve(s, log);
		return;
	default:
		do_move_rare(s, seat, m, log);
		return;
	}
}

static int same_move(struct move a, struct move b)
{
	return a.kind == b.kind && a.a == b.a && a.b == b.b && a.c == b.c;
}

/* m is one of moves(s, seat), by listing them. */
/* Only for the steps legal() has no direct check for: rare in playouts. */
static __attribute__((noinline, cold)) int listed(const struct gtr_state *s, int seat,
						  struct move m)
{
	struct move_list ml;
	int i;

	gtr_moves(s, seat, &ml);
	for (i = 0; i < ml.n; i++)
		if (same_move(ml.v[i], m))
			return 1;
	return 0;
}

/* m is one of action_moves(s, seat, kind): each case mirrors the move's
 * place there. */
static int action_legal(const struct gtr_state *s, int seat, int kind, struct move m)
{
	const struct gtr_player *p = &s->p[seat];
	int build = kind == GR_ARCHITECT || kind == GR_CRAFTSMAN;
	int k, v;
	unsigned bits;

	switch (m.kind) {
	case GK_TAKE:
		return kind == GR_LABORER && !(s->part & GPART_POOL) && m.a < GM_COUNT &&
		       !m.b && !m.c && count_of(s->pool, m.a);
	case GK_DOCK:
		return kind == GR_LABORER && !(s->part & GPART_HAND) && m.a < GC_COUNT &&
		       !m.b && !m.c && p->hand[m.a] && gtr_has(s, seat, GC_DOCK);
	case GK_HIRE:
		return kind == GR_PATRON && !(s->part & (GPART_POOL | GPART_DECK)) &&
		       m.a < GM_COUNT && !m.b && !m.c && count_of(s->pool, m.a) &&
		       client_room(s, seat);
	case GK_HIRE_DECK:
		return kind == GR_PATRON && !(s->part & GPART_DECK) && !m.a && !m.b && !m.c &&
		       s->ndeck && gtr_has(s, seat, GC_BAR) && client_room(s, seat);
	case GK_HIRE_HAND:
		return kind == GR_PATRON && !(s->part & GPART_HAND) && m.a < GC_COUNT &&
		       !m.b && !m.c && p->hand[m.a] && gtr_has(s, seat, GC_AQUEDUCT) &&
		       client_room(s, seat);
	case GK_SELL:
		return kind == GR_MERCHANT && !(s->part & (GPART_POOL | GPART_DECK)) &&
		       m.a < GM_COUNT && !m.b && !m.c && count_of(p->stock, m.a) &&
		       vault_room(s, seat);
	case GK_SELL_DECK:
		return kind == GR_MERCHANT && !(s->part & (GPART_POOL | GPART_DECK)) &&
		       !m.a && !m.b && !m.c && s->ndeck && gtr_has(s, seat, GC_ATRIUM) &&
		       vault_room(s, seat);
	case GK_SELL_HAND:
		return kind == GR_MERCHANT && !(s->part & GPART_HAND) && m.a < GC_COUNT &&
		       !m.b && !m.c && p->hand[m.a] && gtr_has(s, seat, GC_BASILICA) &&
		       vault_room(s, seat);
	case GK_FOUND:
		if (!build || m.a >= GC_COUNT || !p->hand[m.a] || m.b >= GM_COUNT || m.c > 1)
			return 0;
		bits = site_options(s, seat, m.a, top_left(s));
		return (bits >> (m.b + 8 * m.c)) & 1;
	case GK_ADD:
		if (!build || m.b || m.c)
			return 0;
		for (k = 0; k < p->nstruct; k++)
			if (p->st[k].card == m.a && !p->st[k].done &&
			    material_moves(s, seat, &p->st[k], kind, NULL))
				return 1;
		return 0;
	case GK_FOUNTAIN:
		return kind == GR_CRAFTSMAN && !m.a && !m.b && !m.c && s->ndeck &&
		       gtr_has(s, seat, GC_FOUNTAIN);
	case GK_STAIRWAY:
		v = m.b;
		if (kind != GR_ARCHITECT || m.c || v >= s->nplayers || v == seat ||
		    !gtr_has(s, seat, GC_STAIRWAY))
			return 0;
		for (k = 0; k < s->p[v].nstruct; k++) {
			const struct gtr_struct *t = &s->p[v].st[k];

			if (t->card == m.a && t->done && !(t->flags & GSF_PUBLIC) &&
			    t->nmat < GTR_MAX_MAT &&
			    material_moves(s, seat, t, GR_ARCHITECT, NULL))
				return 1;
		}
		return 0;
	default:
		return 0;
	}
}

static int is_think(const struct gtr_state *s, struct move m)
{
	return m.kind == GK_THINK && m.b == 0 && m.c == 0 &&
	       (m.a == GTR_THINK_DRAW || (m.a == GTR_THINK_JACK && s->jacks));
}

/*
 * m is one of moves(s, seat): the same answer as listing them and looking
 * m up, without building the list where the step's moves are simple (each
 * case mirrors its case in gtr_moves; the others list).
 */
static int legal(const struct gtr_state *s, int seat, struct move m)
{
	const struct gtr_player *p;

	if (seat < 0 || seat >= s->nplayers || !awaited(s, seat))
		return 0;
	p = &s->p[seat];
	switch (s->step) {
	case GS_LEAD:
		if (m.kind == GK_LEAD)
			return m.a < GR_COUNT && m.b == 0 && m.c == 0 && can_unit(s, seat, m.a);
		if (m.kind == GK_CONCEDE)
			return m.a == 0 && m.b == 0 && m.c == 0 && !p->conceded;
		return is_think(s, m);
	case GS_FOLLOW:
		if (m.kind == GK_FOLLOW)
			return m.a == 0 && m.b == 0 && m.c == 0 && can_unit(s, seat, s->led);
		if (m.kind == GK_CONCEDE)
			return m.a == 0 && m.b == 0 && m.c == 0 && !p->conceded;
		return is_think(s, m);
	case GS_UNIT:
		if (m.b != 0 || m.c != 0)
			return 0;
		if (m.kind == GK_PLAY)
			return m.a == GTR_JACK ? p->hand[GTR_JACK] != 0
					       : unit_card_ok(s, seat, s->led, m.a);
		if (m.kind == GK_PETITION)
			return m.a == 0 && can_petition(s, seat);
		if (m.kind == GK_DONE)
			return m.a == 0 && p->units;
		return 0;
	case GS_PETITION:
		if (m.kind != GK_PETITION_CARD || m.b != 0 || m.c != 0 ||
		    m.a >= GC_COUNT || !p->hand[m.a])
			return 0;
		return s->pet_role == GTR_NONE
			       ? p->hcount[gtr_cards[m.a].material] >= s->pet_need
			       : gtr_cards[m.a].material == s->pet_role;
	case GS_THINK:
		if (m.kind == GK_DONE)
			return m.a == 0 && m.b == 0 && m.c == 0;
		return is_think(s, m);
	case GS_ACTION:
		if (m.kind == GK_DONE)
			return m.a == 0 && m.b == 0 && m.c == 0;
		return action_legal(s, seat, top_kind(s), m);
	case GS_LEGION:
		if (m.kind == GK_DONE)
			return m.a == 0 && m.b == 0 && m.c == 0;
		return m.kind == GK_DEMAND && m.b == 0 && m.c == 0 && m.a < GM_COUNT &&
		       s->leg_k < s->leg_n && p->hcount[m.a] > demanded(s, m.a);
	default:
		return listed(s, seat, m);
	}
}

/* The refusal message, out of line: playouts only make listed moves. */
static __attribute__((noinline, cold)) int refuse(const struct gtr_state *s, int seat,
						  struct game_log *log, struct buf *err)
{
	enum locale loc = LOC(log);

	if (seat < 0 || seat >= s->nplayers || !(gtr_awaiting(s) & (1u << seat)))
		buf_setf(err, "%s", L(loc, "It is not your decision now.",
				      "Ahora no te toca decidir."));
	else
		buf_setf(err, "%s", L(loc, "That move is not possible now.",
				      "Esa jugada no es posible ahora."));
	return -1;
}

int gtr_apply(void *st, int seat, struct move m, struct game_log *log, struct buf *err)
{
	struct gtr_state *s = st;

	if (!legal(s, seat, m))
		return refuse(s, seat, log, err);
	do_move(s, seat, m, log);
	/* a Foro fulfilled by a decision that left the machine waiting
	 * (a hire mid-action, a stockpile take...) ends the game now */
	over_now(s, log);
	return 0;
}

/* ---- positions for tests ---- */

static uint8_t *zone(struct gtr_state *s, enum gtr_zone z, int seat)
{
	struct gtr_player *p = &s->p[seat >= 0 && seat < GTR_MAX_PLAYERS ? seat : 0];

	switch (z) {
	case GZ_POOL:
		return s->pool;
	case GZ_HAND:
		return p->hand;
	case GZ_STOCK:
		return p->stock;
	case GZ_VAULT:
		return p->vault;
	case GZ_CLIENTS:
		return p->clients;
	case GZ_CAMP:
		return p->camp;
	default:
		return NULL;
	}
}

static int deck_take(struct gtr_state *s, int card)
{
	int i;

	for (i = s->ndeck - 1; i >= 0; i--)
		if (s->deck[i] == card) {
			memmove(&s->deck[i], &s->deck[i + 1], (size_t)(s->ndeck - i - 1));
			s->ndeck--;
			s->deck[s->ndeck] = 0;
			return 0;
		}
	return -1;
}

int gtr_put(struct gtr_state *s, int card, enum gtr_zone from, int fs, enum gtr_zone to, int ts)
{
	uint8_t *src, *dst;

	if (card < 0 || card > GTR_JACK || from >= GZ_COUNT || to >= GZ_COUNT)
		return -1;
	if (card == GTR_JACK) {
		int ok_from = from == GZ_HAND || from == GZ_CAMP || from == GZ_JACKS;
		int ok_to = to == GZ_HAND || to == GZ_CAMP || to == GZ_JACKS;

		if (!ok_from || !ok_to)
			return -1;
	} else if (from == GZ_JACKS || to == GZ_JACKS) {
		return -1;
	}
	/* take */
	if (from == GZ_DECK) {
		if (deck_take(s, card))
			return -1;
	} else if (from == GZ_JACKS) {
		if (!s->jacks)
			return -1;
		s->jacks--;
	} else {
		src = zone(s, from, fs);
		if (!src[card])
			return -1;
		src[card]--;
	}
	/* give */
	if (to == GZ_DECK) {
		s->deck[s->ndeck++] = (uint8_t)card;
	} else if (to == GZ_JACKS) {
		s->jacks++;
	} else {
		dst = zone(s, to, ts);
		dst[card]++;
	}
	gtr_refresh(s);
	return 0;
}

int gtr_give_building(struct gtr_state *s, int seat, int card, int site, int nmat, int complete_it)
{
	struct gtr_player *p;
	struct gtr_struct *t;
	int m, k, need;

	if (seat < 0 || seat >= s->nplayers || card < 0 || card >= GC_COUNT)
		return -1;
	p = &s->p[seat];
	if (((p->has >> card) & 1) || p->nstruct >= GTR_MAX_STRUCT)
		return -1;
	m = site < 0 ? gtr_cards[card].material : site;
	if (m >= GM_COUNT || deck_take(s, card))
		return -1;
	if (s->in_town[m])
		s->in_town[m]--;
	else if (s->out_town[m])
		s->out_town[m]--;
	else {
		s->deck[s->ndeck++] = (uint8_t)card;
		return -1;
	}
	t = &p->st[p->nstruct++];
	memset(t, 0, sizeof(*t));
	t->card = (uint8_t)card;
	t->site = (uint8_t)m;
	need = gtr_struct_need(t);
	if (complete_it && nmat < need)
		nmat = need;
	if (nmat > GTR_MAX_MAT)
		nmat = GTR_MAX_MAT;
	for (k = 0; k < nmat; k++) {
		int mm = card == GC_STATUE ? m : gtr_cards[card].material, c;

		int best = -1, have[GC_COUNT] = { 0 }, i;

		/* the name the deck holds most of: a test may still want the others */
		for (i = 0; i < s->ndeck; i++)
			have[s->deck[i]]++;
		for (c = gtr_first[mm]; c < gtr_first[mm + 1]; c++)
			if (have[c] && (best < 0 || have[c] > have[best]))
				best = c;
		if (best < 0 || deck_take(s, best))
			return -1;
		t->mat[t->nmat++] = (uint8_t)best;
	}
	if (complete_it) {
		t->done = 1;
		p->infl[m]++;
	}
	gtr_refresh(s);
	return 0;
}

void gtr_start_turn(struct gtr_state *s, int leader)
{
	cleanup_camps(s);
	s->fount = GTR_NONE;
	s->ending = 0;
	s->end = GE_NONE;
	s->winner = GTR_NONE;
	s->leader = (uint8_t)leader;
	/* a built position is not the setup's: no leader draw to show */
	s->ndraw = 0;
	memset(s->draw_seat, 0, sizeof(s->draw_seat));
	memset(s->draw_card, 0, sizeof(s->draw_card));
	gtr_refresh(s);
	s->phase = GP_LEAD;
	begin_turn(s, NULL);
}

/* ---- the driver table ---- */

static const char *const gtr_aliases[] = { "glory to rome", "gloria a roma", "glory", NULL };

static const char *const gtr_option_words[] = {
	"experienced", "original-circus", "nofunctions", "quick", NULL
};

const struct game_ops gtr_ops = {
	.api_version = GAME_API_VERSION,
	.id = "gtr",
	.aliases = gtr_aliases,
	.name = { "Glory to Rome", "Gloria a Roma" },
	.min_players = GTR_MIN_PLAYERS,
	.max_players = GTR_MAX_PLAYERS,
	.state_size = sizeof(struct gtr_state),
	.options_help = "experienced: 5 cards, pick the leader card; original-circus: petition of 3, "
			"old Circus/Forum; nofunctions: buildings give influence only; quick: "
			"the example game's site limits",
	.option_words = gtr_option_words,
	.setup = gtr_setup,
	.awaiting = gtr_awaiting,
	.moves = gtr_moves,
	.move_id = gtr_move_id,
	.move_label = gtr_move_label,
	.apply = gtr_apply,
	.prompt = gtr_prompt,
	.render_public = gtr_render_public,
	.render_private = gtr_render_private,
	.save = gtr_save,
	.load = gtr_load,
	.result = gtr_result,
	.bot_move = gtr_bot_move,
	.determinize = gtr_determinize,
	.check = gtr_check,
	.secrets = gtr_secrets,
	.intro = gtr_intro,
	.rules = gtr_rules,
	.card = gtr_card,
	.card_names = gtr_card_names,
};
