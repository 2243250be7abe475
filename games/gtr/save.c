/*
 * save.c: a Glory to Rome state as JSON ("v": 2) and back.
 *
 * Small integers go through one table of field descriptors (name, offset,
 * maximum); card collections are lists of card ids ("hand": ["insula",
 * "insula", "senator"]), the deck in order (top last); structures and
 * frames are small objects; phase and step are their names.  load() checks
 * every value's type and range, recomputes the caches, then runs gtr_check()
 * for everything that relates fields (conservation, the decision's
 * context), so a state it accepts is one moves() and apply() handle safely.
 * Unknown keys are ignored; a missing or malformed one fails.
 *
 * Versions: 2 added the Legionary's victims' decisions ("gift", "vol",
 * "leg_take"; per seat "give", "give_stock") and the leader draw
 * ("leader_draw").  A version 1 save cannot be inside those decisions, so
 * it loads with them empty and no draw recorded.
 *
 * Owns gtr_save and gtr_load (the save and load ops) and the format.  Must
 * not: accept what gtr_check rejects, or change the meaning of a stored
 * field without a new version that still loads the old ones.
 */
#include <inttypes.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "games/gtr/gtr.h"

#define SAVE_VERSION 2
#define SAVE_OLDEST 1
#define LIST_MAX 200	/* no collection holds more cards */

struct field {
	const char *name;
	size_t off;
	int len;	/* 0: a scalar; n: an array of n */
	int max;
	int since;	/* the format version that added it (0: the first) */
};

#define S(f) offsetof(struct gtr_state, f)
#define P(f) offsetof(struct gtr_player, f)

static const struct field state_fields[] = {
	{ "opts", S(opts), 0, GO_EXPERIENCED | GO_ORIGINAL_CIRCUS | GO_NOFUNCTIONS | GO_QUICK, 0 },
	{ "decider", S(decider), 0, GTR_MAX_PLAYERS - 1, 0 },
	{ "leader", S(leader), 0, GTR_MAX_PLAYERS - 1, 0 },
	{ "cursor", S(cursor), 0, GTR_MAX_PLAYERS, 0 },
	{ "led", S(led), 0, 255, 0 },
	{ "end", S(end), 0, GE_COUNT - 1, 0 },
	{ "winner", S(winner), 0, 255, 0 },
	{ "ending", S(ending), 0, GE_COUNT - 1, 0 },
	{ "jacks", S(jacks), 0, GTR_JACKS, 0 },
	{ "in_town", S(in_town), GM_COUNT, GTR_SITES, 0 },
	{ "out_town", S(out_town), GM_COUNT, GTR_SITES, 0 },
	{ "pet_role", S(pet_role), 0, 255, 0 },
	{ "pet_have", S(pet_have), 0, 3, 0 },
	{ "pet_need", S(pet_need), 0, 3, 0 },
	{ "think", S(think), 0, 1, 0 },
	{ "started", S(started), 0, 1, 0 },
	{ "part", S(part), 0, GPART_POOL | GPART_DECK | GPART_HAND, 0 },
	{ "tgt_card", S(tgt_card), 0, 255, 0 },
	{ "tgt_seat", S(tgt_seat), 0, 255, 0 },
	{ "tgt_stair", S(tgt_stair), 0, 1, 0 },
	{ "fount", S(fount), 0, 255, 0 },
	{ "leg_n", S(leg_n), 0, GTR_MAX_DEMAND, 0 },
	{ "leg_take", S(leg_take), GM_COUNT, GTR_MAX_DEMAND, 2 },
	{ "gift", S(gift), 0, (1 << GTR_MAX_PLAYERS) - 1, 2 },
	{ "vol", S(vol), 0, (1 << GTR_MAX_PLAYERS) - 1, 2 },
};

static const struct field player_fields[] = {
	{ "newc", P(newc), GR_COUNT, GTR_ORDER_CARDS, 0 },
	{ "infl", P(infl), GM_COUNT, GTR_SITES, 0 },
	{ "units", P(units), 0, 255, 0 },
	{ "acted", P(acted), 0, 1, 0 },
	{ "crafted", P(crafted), 0, 1, 0 },
	{ "conceded", P(conceded), 0, 1, 0 },
	{ "pick", P(pick), 0, GC_COUNT, 0 },
	{ "give", P(give), GM_COUNT, GTR_MAX_DEMAND, 2 },
	{ "give_stock", P(give_stock), GM_COUNT, GTR_MAX_DEMAND, 2 },
};

#define NFIELDS(t) (sizeof(t) / sizeof(*(t)))

/* ---- save ---- */

static const char *card_id(int c)
{
	return c == GTR_JACK ? gtr_jack.id : c < GC_COUNT ? gtr_cards[c].id : "?";
}

static json_t *card_list(const uint8_t *cards, int n)
{
	json_t *a = json_array();
	int c, k;

	for (c = 0; c < n; c++)
		for (k = 0; k < cards[c]; k++)
			json_array_append_new(a, json_string(card_id(c)));
	return a;
}

static void save_fields(json_t *obj, const void *base, const struct field *f, size_t nf)
{
	const uint8_t *b = base;
	size_t i;
	int k;

	for (i = 0; i < nf; i++) {
		const uint8_t *v = b + f[i].off;

		if (f[i].len) {
			json_t *a = json_array();

			for (k = 0; k < f[i].len; k++)
				json_array_append_new(a, json_integer(v[k]));
			json_object_set_new(obj, f[i].name, a);
		} else {
			json_object_set_new(obj, f[i].name, json_integer(*v));
		}
	}
}

static json_t *save_struct(const struct gtr_struct *t)
{
	json_t *o = json_object(), *mats = json_array();
	int k;

	json_object_set_new(o, "card", json_string(card_id(t->card)));
	json_object_set_new(o, "site", json_integer(t->site));
	json_object_set_new(o, "done", json_integer(t->done));
	json_object_set_new(o, "flags", json_integer(t->flags));
	for (k = 0; k < t->nmat && k < GTR_MAX_MAT; k++)
		json_array_append_new(mats, json_string(card_id(t->mat[k])));
	json_object_set_new(o, "materials", mats);
	return o;
}

static json_t *save_frames(const struct gtr_frame *f, int n)
{
	json_t *a = json_array();
	int i;

	for (i = 0; i < n; i++)
		json_array_append_new(a, json_pack("[iiii]", f[i].kind, f[i].dyn, f[i].count,
						   f[i].used));
	return a;
}

json_t *gtr_save(const void *st)
{
	const struct gtr_state *s = st;
	json_t *j = json_object(), *seats = json_array(), *a;
	int i, k;

	json_object_set_new(j, "v", json_integer(SAVE_VERSION));
	json_object_set_new(j, "game", json_string("gtr"));
	json_object_set_new(j, "players", json_integer(s->nplayers));
	json_object_set_new(j, "phase", json_string(s->phase < GP_COUNT ? gtr_phase_ids[s->phase] : "?"));
	json_object_set_new(j, "step", json_string(s->step < GS_COUNT ? gtr_step_ids[s->step] : "?"));
	json_object_set_new(j, "turn", json_integer(s->turn));
	save_fields(j, s, state_fields, NFIELDS(state_fields));
	a = json_array();
	for (i = 0; i < s->ndeck && i < GTR_ORDER_CARDS; i++)
		json_array_append_new(a, json_string(card_id(s->deck[i])));
	json_object_set_new(j, "deck", a);
	json_object_set_new(j, "pool", card_list(s->pool, GC_COUNT));
	json_object_set_new(j, "frames", save_frames(s->frames, s->nframes));
	json_object_set_new(j, "pending", save_frames(s->pend, s->npend));
	a = json_array();
	for (i = 0; i < s->leg_k && i < GTR_MAX_DEMAND; i++)
		json_array_append_new(a, json_integer(s->leg_dem[i]));
	json_object_set_new(j, "demands", a);
	a = json_array();
	for (i = 0; i < s->ndraw && i < GTR_MAX_DRAW; i++)
		json_array_append_new(a, json_pack("[is]", s->draw_seat[i],
						   card_id(s->draw_card[i])));
	json_object_set_new(j, "leader_draw", a);
	for (i = 0; i < s->nplayers && i < GTR_MAX_PLAYERS; i++) {
		const struct gtr_player *p = &s->p[i];
		json_t *o = json_object(), *sts = json_array(), *coli = json_array();

		json_object_set_new(o, "hand", card_list(p->hand, GTR_NAMES));
		json_object_set_new(o, "stockpile", card_list(p->stock, GC_COUNT));
		json_object_set_new(o, "vault", card_list(p->vault, GC_COUNT));
		json_object_set_new(o, "clients", card_list(p->clients, GC_COUNT));
		json_object_set_new(o, "camp", card_list(p->camp, GTR_NAMES));
		save_fields(o, p, player_fields, NFIELDS(player_fields));
		for (k = 0; k < p->nstruct && k < GTR_MAX_STRUCT; k++)
			json_array_append_new(sts, save_struct(&p->st[k]));
		json_object_set_new(o, "structures", sts);
		for (k = 0; k < GM_COUNT; k++)
			json_array_append_new(coli, json_integer(s->coli[i][k]));
		json_object_set_new(o, "coliseum", coli);
		json_array_append_new(seats, o);
	}
	json_object_set_new(j, "seats", seats);
	json_object_set_new(j, "rng", rng_to_json(&s->rng));
	return j;
}

/* ---- load ---- */

static int get_int(const json_t *v, int max, int *out)
{
	json_int_t x;

	if (!json_is_integer(v))
		return -1;
	x = json_integer_value(v);
	if (x < 0 || x > max)
		return -1;
	*out = (int)x;
	return 0;
}

static int get_u8(const json_t *v, int max, uint8_t *out)
{
	int x;

	if (get_int(v, max, &x))
		return -1;
	*out = (uint8_t)x;
	return 0;
}

static int load_fields(const json_t *obj, void *base, const struct field *f, size_t nf,
		       int version, const char *where, struct buf *err)
{
	uint8_t *b = base;
	size_t i;
	int k;

	for (i = 0; i < nf; i++) {
		const json_t *v = json_object_get(obj, f[i].name);
		uint8_t *dst = b + f[i].off;
		int bad = 0;

		if (f[i].since > version)
			continue;	/* not in that version: stays zero */
		if (f[i].len) {
			bad = !json_is_array(v) || json_array_size(v) != (size_t)f[i].len;
			for (k = 0; !bad && k < f[i].len; k++)
				bad = get_u8(json_array_get(v, (size_t)k), f[i].max, &dst[k]);
		} else {
			bad = get_u8(v, f[i].max, dst);
		}
		if (bad) {
			buf_setf(err, "Glory to Rome save: %s\"%s\" is missing or invalid.", where,
				 f[i].name);
			return -1;
		}
	}
	return 0;
}

static int card_of(const json_t *v, int jack_ok)
{
	const char *id;
	int c;

	if (!json_is_string(v))
		return -1;
	id = json_string_value(v);
	for (c = 0; c < GC_COUNT; c++)
		if (!strcmp(id, gtr_cards[c].id))
			return c;
	if (jack_ok && !strcmp(id, gtr_jack.id))
		return GTR_JACK;
	return -1;
}

static int load_list(const json_t *a, uint8_t *cards, int jack_ok)
{
	size_t i;

	if (!json_is_array(a) || json_array_size(a) > LIST_MAX)
		return -1;
	for (i = 0; i < json_array_size(a); i++) {
		int c = card_of(json_array_get(a, i), jack_ok);

		if (c < 0 || cards[c] >= 250)
			return -1;
		cards[c]++;
	}
	return 0;
}

static int get_name(const json_t *v, const char *const *names, int n, uint8_t *out)
{
	int k;

	if (!json_is_string(v))
		return -1;
	for (k = 0; k < n; k++)
		if (names[k] && !strcmp(json_string_value(v), names[k])) {
			*out = (uint8_t)k;
			return 0;
		}
	return -1;
}

static int load_struct(const json_t *o, struct gtr_struct *t)
{
	const json_t *mats = json_object_get(o, "materials");
	int c;
	size_t k;

	if (!json_is_object(o))
		return -1;
	c = card_of(json_object_get(o, "card"), 0);
	if (c < 0)
		return -1;
	t->card = (uint8_t)c;
	if (get_u8(json_object_get(o, "site"), GM_COUNT - 1, &t->site) ||
	    get_u8(json_object_get(o, "done"), 1, &t->done) ||
	    get_u8(json_object_get(o, "flags"), GSF_PUBLIC | GSF_STOLEN, &t->flags))
		return -1;
	if (!json_is_array(mats) || json_array_size(mats) > GTR_MAX_MAT)
		return -1;
	for (k = 0; k < json_array_size(mats); k++) {
		c = card_of(json_array_get(mats, k), 0);
		if (c < 0)
			return -1;
		t->mat[t->nmat++] = (uint8_t)c;
	}
	return 0;
}

static int load_frames(const json_t *a, struct gtr_frame *f, uint8_t *n, int max)
{
	size_t i;

	if (!json_is_array(a) || json_array_size(a) > (size_t)max)
		return -1;
	for (i = 0; i < json_array_size(a); i++) {
		const json_t *e = json_array_get(a, i);

		if (!json_is_array(e) || json_array_size(e) != 4 ||
		    get_u8(json_array_get(e, 0), GF_COUNT - 1, &f[i].kind) ||
		    get_u8(json_array_get(e, 1), 1, &f[i].dyn) ||
		    get_u8(json_array_get(e, 2), 250, &f[i].count) ||
		    get_u8(json_array_get(e, 3), 250, &f[i].used))
			return -1;
	}
	*n = (uint8_t)json_array_size(a);
	return 0;
}

static int load_seat(const json_t *o, struct gtr_state *s, int i, int version, struct buf *err)
{
	struct gtr_player *p = &s->p[i];
	const json_t *sts, *coli;
	size_t k;

	if (!json_is_object(o)) {
		buf_setf(err, "Glory to Rome save: seat %d is not an object.", i + 1);
		return -1;
	}
	if (load_list(json_object_get(o, "hand"), p->hand, 1) ||
	    load_list(json_object_get(o, "stockpile"), p->stock, 0) ||
	    load_list(json_object_get(o, "vault"), p->vault, 0) ||
	    load_list(json_object_get(o, "clients"), p->clients, 0) ||
	    load_list(json_object_get(o, "camp"), p->camp, 1)) {
		buf_setf(err, "Glory to Rome save: seat %d has a bad card list.", i + 1);
		return -1;
	}
	if (load_fields(o, p, player_fields, NFIELDS(player_fields), version, "seat field ", err))
		return -1;
	sts = json_object_get(o, "structures");
	if (!json_is_array(sts) || json_array_size(sts) > GTR_MAX_STRUCT) {
		buf_setf(err, "Glory to Rome save: seat %d has bad structures.", i + 1);
		return -1;
	}
	for (k = 0; k < json_array_size(sts); k++)
		if (load_struct(json_array_get(sts, k), &p->st[p->nstruct++])) {
			buf_setf(err, "Glory to Rome save: seat %d has a bad structure.", i + 1);
			return -1;
		}
	coli = json_object_get(o, "coliseum");
	if (!json_is_array(coli) || json_array_size(coli) != GM_COUNT) {
		buf_setf(err, "Glory to Rome save: seat %d: bad \"coliseum\".", i + 1);
		return -1;
	}
	for (k = 0; k < GM_COUNT; k++)
		if (get_u8(json_array_get(coli, k), GTR_MAX_DEMAND, &s->coli[i][k])) {
			buf_setf(err, "Glory to Rome save: seat %d: bad \"coliseum\".", i + 1);
			return -1;
		}
	return 0;
}

int gtr_load(void *st, const json_t *j, struct buf *err)
{
	struct gtr_state *s = st;
	const json_t *seats, *rng, *a;
	struct buf why = BUF_INIT;
	int n, x, version;
	size_t i;

	memset(s, 0, sizeof(*s));
	if (!json_is_object(j)) {
		buf_setf(err, "Glory to Rome save: not a JSON object.");
		return -1;
	}
	if (!json_is_integer(json_object_get(j, "v")) ||
	    json_integer_value(json_object_get(j, "v")) < SAVE_OLDEST ||
	    json_integer_value(json_object_get(j, "v")) > SAVE_VERSION) {
		buf_setf(err, "Glory to Rome save: unknown format version (expected \"v\": %d to %d).",
			 SAVE_OLDEST, SAVE_VERSION);
		return -1;
	}
	version = (int)json_integer_value(json_object_get(j, "v"));
	if (get_int(json_object_get(j, "players"), GTR_MAX_PLAYERS, &n) || n < GTR_MIN_PLAYERS) {
		buf_setf(err, "Glory to Rome save: \"players\" must be %d to %d.", GTR_MIN_PLAYERS,
			 GTR_MAX_PLAYERS);
		return -1;
	}
	s->nplayers = (uint8_t)n;
	if (get_name(json_object_get(j, "phase"), gtr_phase_ids, GP_COUNT, &s->phase) ||
	    get_name(json_object_get(j, "step"), gtr_step_ids, GS_COUNT, &s->step)) {
		buf_setf(err, "Glory to Rome save: \"phase\" or \"step\" is missing or invalid.");
		goto fail;
	}
	if (get_int(json_object_get(j, "turn"), 65535, &x) || x < 1) {
		buf_setf(err, "Glory to Rome save: \"turn\" is missing or invalid.");
		goto fail;
	}
	s->turn = (uint16_t)x;
	if (load_fields(j, s, state_fields, NFIELDS(state_fields), version, "", err))
		goto fail;
	a = json_object_get(j, "deck");
	if (!json_is_array(a) || json_array_size(a) > GTR_ORDER_CARDS) {
		buf_setf(err, "Glory to Rome save: \"deck\" is missing or invalid.");
		goto fail;
	}
	for (i = 0; i < json_array_size(a); i++) {
		int c = card_of(json_array_get(a, i), 0);

		if (c < 0) {
			buf_setf(err, "Glory to Rome save: bad card in \"deck\".");
			goto fail;
		}
		s->deck[s->ndeck++] = (uint8_t)c;
	}
	if (load_list(json_object_get(j, "pool"), s->pool, 0)) {
		buf_setf(err, "Glory to Rome save: \"pool\" is missing or invalid.");
		goto fail;
	}
	if (load_frames(json_object_get(j, "frames"), s->frames, &s->nframes, GTR_MAX_FRAMES)) {
		buf_setf(err, "Glory to Rome save: \"frames\" is missing or invalid.");
		goto fail;
	}
	if (load_frames(json_object_get(j, "pending"), s->pend, &s->npend, GTR_MAX_PEND)) {
		buf_setf(err, "Glory to Rome save: \"pending\" is missing or invalid.");
		goto fail;
	}
	a = json_object_get(j, "demands");
	if (!json_is_array(a) || json_array_size(a) > GTR_MAX_DEMAND) {
		buf_setf(err, "Glory to Rome save: \"demands\" is missing or invalid.");
		goto fail;
	}
	for (i = 0; i < json_array_size(a); i++)
		if (get_u8(json_array_get(a, i), GM_COUNT - 1, &s->leg_dem[s->leg_k++])) {
			buf_setf(err, "Glory to Rome save: bad demand.");
			goto fail;
		}
	a = json_object_get(j, "leader_draw");
	if (version >= 2 && (!json_is_array(a) || json_array_size(a) > GTR_MAX_DRAW)) {
		buf_setf(err, "Glory to Rome save: \"leader_draw\" is missing or invalid.");
		goto fail;
	}
	for (i = 0; version >= 2 && i < json_array_size(a); i++) {
		const json_t *e = json_array_get(a, i);
		int c = json_is_array(e) && json_array_size(e) == 2
			? card_of(json_array_get(e, 1), 0) : -1;

		if (c < 0 || get_u8(json_array_get(e, 0), GTR_MAX_PLAYERS - 1,
				    &s->draw_seat[s->ndraw])) {
			buf_setf(err, "Glory to Rome save: bad \"leader_draw\" entry.");
			goto fail;
		}
		s->draw_card[s->ndraw++] = (uint8_t)c;
	}
	seats = json_object_get(j, "seats");
	if (!json_is_array(seats) || json_array_size(seats) != (size_t)n) {
		buf_setf(err, "Glory to Rome save: \"seats\" must list %d seats.", n);
		goto fail;
	}
	for (i = 0; i < (size_t)n; i++)
		if (load_seat(json_array_get(seats, i), s, (int)i, version, err))
			goto fail;
	rng = json_object_get(j, "rng");
	if (rng_from_json(rng, &s->rng)) {
		buf_setf(err, "Glory to Rome save: \"rng\" is missing or invalid.");
		goto fail;
	}
	gtr_refresh(s);
	if (gtr_check(s, &why)) {
		buf_setf(err, "Glory to Rome save: inconsistent state: %s.", buf_str(&why));
		buf_release(&why);
		goto fail;
	}
	buf_release(&why);
	return 0;
fail:
	memset(s, 0, sizeof(*s));
	return -1;
}
