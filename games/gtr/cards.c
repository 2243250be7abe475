/*
 * cards.c: Glory to Rome's data tables.
 *
 * Sources: the rulebook's "Apéndice - Edificios y sus funciones" and its
 * component list (000_af59ce2b58a8d520.txt and 001_df12c6ec6f002223.txt in
 * ../shared/seeds/:
 * "144 cartas de Acción ... amarillo/Escombros y marrón/Madera: 6 x 4
 * edificios; naranja/Ladrillo, azul/Piedra, violeta/Mármol y gris/Cemento:
 * 3 x 8 edificios", "6 Senadores", "36 Solares") for the names, materials
 * and copies; guide/games.md (GtR table) for the English names and short
 * texts (after mhmurray/cloaca's GTR_cards.csv) and the material -> role
 * and value pairs.  The function texts here are short reminders; the rules
 * are in the rules files (gtr_int.h lists them).  Also the counts of card
 * collections (gtr_count, gtr_counts, gtr_total) and of a seat's hand,
 * clientele and vault, over the inline counting of gtr_int.h.
 *
 * Owns data and counting only.  Must not: hold a rule or a text that
 * depends on the state (render.c writes those).
 *
 * `sort` is the Spanish name folded to ASCII: the leader draw compares it
 * ("el jugador con la carta cuyo nombre vaya antes alfabéticamente").
 */
#include "games/gtr/gtr_int.h"
#include "util/text.h"

#define R GM_RUBBLE
#define W GM_WOOD
#define B GM_BRICK
#define C GM_CONCRETE
#define S GM_STONE
#define M GM_MARBLE

const struct gtr_card_info gtr_cards[GC_COUNT] = {
	[GC_ROAD] = { "road", { "Road", "Calzada" }, "calzada", R, 6,
		{ "any material may be added to Stone buildings",
		  "cualquier material sirve en edificios de Piedra" } },
	[GC_INSULA] = { "insula", { "Insula", "Ínsula" }, "insula", R, 6,
		{ "clientele limit +2", "Clientela máxima +2" } },
	[GC_LATRINE] = { "latrine", { "Latrine", "Letrinas" }, "letrinas", R, 6,
		{ "before Think, may discard 1 card to the pool",
		  "antes de Pensar, puedes descartar 1 carta a la Reserva" } },
	[GC_BAR] = { "bar", { "Bar", "Taberna" }, "taberna", R, 6,
		{ "Patron: may also hire a client from the deck",
		  "Patrón: puedes coger también un Cliente del Mazo" } },
	[GC_CIRCUS] = { "circus", { "Circus", "Circo" }, "circo", W, 6,
		{ "any card may lead or follow Architect",
		  "cualquier carta sirve para liderar o seguir a un Arquitecto" } },
	[GC_PALISADE] = { "palisade", { "Palisade", "Empalizada" }, "empalizada", W, 6,
		{ "immune to Legionary (not against Bridge)",
		  "inmune al Legionario (salvo contra el Puente)" } },
	[GC_MARKET] = { "market", { "Market", "Mercado" }, "mercado", W, 6,
		{ "vault limit +2", "Tesoro máximo +2" } },
	[GC_DOCK] = { "dock", { "Dock", "Muelle" }, "muelle", W, 6,
		{ "Laborer: may also move a card from hand to the stockpile",
		  "Obrero: puedes pasar también una carta de la Mano al Almacén" } },
	[GC_ACADEMY] = { "academy", { "Academy", "Academia" }, "academia", B, 3,
		{ "may Think after a turn in which you performed Craftsman",
		  "puedes Pensar tras un turno en que hiciste de Artesano" } },
	[GC_ARCHWAY] = { "archway", { "Archway", "Arco" }, "arco", B, 3,
		{ "Architect: materials may come from the pool",
		  "Arquitecto: los materiales pueden venir de la Reserva" } },
	[GC_ATRIUM] = { "atrium", { "Atrium", "Atrio" }, "atrio", B, 3,
		{ "Merchant: may vault the top card of the deck, unseen",
		  "Mercader: puedes guardar la carta superior del Mazo sin verla" } },
	[GC_SCHOOL] = { "school", { "School", "Escuela" }, "escuela", B, 3,
		{ "on completion: Think once per influence",
		  "al completarla: Pensar una vez por punto de Influencia" } },
	[GC_FOUNDRY] = { "foundry", { "Foundry", "Fundición" }, "fundicion", B, 3,
		{ "on completion: Laborer once per influence",
		  "al completarla: Obrero una vez por punto de Influencia" } },
	[GC_GATE] = { "gate", { "Gate", "Portón" }, "porton", B, 3,
		{ "Marble foundations give their function",
		  "los cimientos de Mármol dan su función" } },
	[GC_SHRINE] = { "shrine", { "Shrine", "Santuario" }, "santuario", B, 3,
		{ "hand size +2", "Mano máxima +2" } },
	[GC_BATH] = { "bath", { "Bath", "Termas" }, "termas", B, 3,
		{ "a client you hire acts once at once",
		  "un Cliente contratado actúa una vez en el acto" } },
	[GC_AQUEDUCT] = { "aqueduct", { "Aqueduct", "Acueducto" }, "acueducto", C, 3,
		{ "clientele limit x2; Patron may also hire from hand",
		  "Clientela máxima x2; Patrón puede contratar también de la Mano" } },
	[GC_AMPHITHEATRE] = { "amphitheatre", { "Amphitheatre", "Anfiteatro" }, "anfiteatro", C, 3,
		{ "on completion: Craftsman once per influence",
		  "al completarlo: Artesano una vez por punto de Influencia" } },
	[GC_STOREROOM] = { "storeroom", { "Storeroom", "Despensa" }, "despensa", C, 3,
		{ "all your clients act as Laborers",
		  "todos tus Clientes pueden hacer de Obreros" } },
	[GC_WALL] = { "wall", { "Wall", "Muralla" }, "muralla", C, 3,
		{ "immune to Legionary; +1 VP per 2 stockpile materials",
		  "inmune al Legionario; +1 PV por cada 2 materiales del Almacén" } },
	[GC_BRIDGE] = { "bridge", { "Bridge", "Puente" }, "puente", C, 3,
		{ "Legionary: all opponents, also from stockpiles, ignores Palisade",
		  "Legionario: a todos, también del Almacén, ignora la Empalizada" } },
	[GC_SENATE] = { "senate", { "Senate", "Senado" }, "senado", C, 3,
		{ "end of turn: take the Senators others played",
		  "al final del turno: coge los Senadores jugados por otros" } },
	[GC_TOWER] = { "tower", { "Tower", "Torre" }, "torre", C, 3,
		{ "rubble fits any building; out of town takes one action",
		  "los Escombros sirven en todo; las afueras cuestan una acción" } },
	[GC_VOMITORIUM] = { "vomitorium", { "Vomitorium", "Vomitorium" }, "vomitorium", C, 3,
		{ "before Think, may discard the whole hand",
		  "antes de Pensar, puedes descartar toda la Mano" } },
	[GC_SEWER] = { "sewer", { "Sewer", "Alcantarillado" }, "alcantarillado", S, 3,
		{ "end of turn: cards you played may go to your stockpile",
		  "al final del turno: tus cartas jugadas pueden ir a tu Almacén" } },
	[GC_SCRIPTORIUM] = { "scriptorium", { "Scriptorium", "Biblioteca" }, "biblioteca", S, 3,
		{ "Marble may be added to any building",
		  "el Mármol sirve de material para cualquier edificio" } },
	[GC_CATACOMB] = { "catacomb", { "Catacomb", "Catacumbas" }, "catacumbas", S, 3,
		{ "on completion the game ends at once",
		  "al completarse, la partida termina en el acto" } },
	[GC_CIRCUS_MAXIMUS] = { "circus maximus", { "Circus Maximus", "Circo Máximo" },
		"circo maximo", S, 3,
		{ "when you lead or follow, each matching client acts twice",
		  "al liderar o seguir, cada Cliente del tipo actúa dos veces" } },
	[GC_COLISEUM] = { "coliseum", { "Coliseum", "Coliseo" }, "coliseo", S, 3,
		{ "Legionary: matching opponents' clients go to your vault",
		  "Legionario: los Clientes rivales del material van a tu Tesoro" } },
	[GC_GARDEN] = { "garden", { "Garden", "Jardín" }, "jardin", S, 3,
		{ "on completion: Patron once per influence",
		  "al completarlo: Patrón una vez por punto de Influencia" } },
	[GC_PRISON] = { "prison", { "Prison", "Prisión" }, "prision", S, 3,
		{ "on completion: take an opponent's building for 3 influence",
		  "al completarla: roba un edificio rival a cambio de 3 de Influencia" } },
	[GC_VILLA] = { "villa", { "Villa", "Villa" }, "villa", S, 3,
		{ "Architect: one material completes it",
		  "Arquitecto: un material la completa" } },
	[GC_BASILICA] = { "basilica", { "Basilica", "Basílica" }, "basilica", M, 3,
		{ "Merchant: may also vault a card from hand",
		  "Mercader: puedes guardar también una carta de la Mano" } },
	[GC_STAIRWAY] = { "stairway", { "Stairway", "Escalinata" }, "escalinata", M, 3,
		{ "Architect: a material on an opponent's building makes it public",
		  "Arquitecto: un material en un edificio rival lo hace público" } },
	[GC_STATUE] = { "statue", { "Statue", "Estatua" }, "estatua", M, 3,
		{ "any site; +3 VP", "cualquier Solar; +3 PV" } },
	[GC_FORUM] = { "forum", { "Forum", "Foro" }, "foro", M, 3,
		{ "a client of each role and a material of each type win",
		  "un Cliente de cada clase y un material de cada tipo ganan" } },
	[GC_FOUNTAIN] = { "fountain", { "Fountain", "Fuente" }, "fuente", M, 3,
		{ "Craftsman with the top card of the deck",
		  "Artesano con la carta superior del Mazo" } },
	[GC_LUDUS_MAGNA] = { "ludus magna", { "Ludus Magna", "Ludus Magna" }, "ludus magna", M, 3,
		{ "each Merchant client acts as any role",
		  "cada Mercader de tu Clientela hace de cualquier personaje" } },
	[GC_PALACE] = { "palace", { "Palace", "Palacio" }, "palacio", M, 3,
		{ "lead or follow with several cards of one role",
		  "liderar o seguir con varias cartas del mismo personaje" } },
	[GC_TEMPLE] = { "temple", { "Temple", "Templo" }, "templo", M, 3,
		{ "hand size +4", "Mano máxima +4" } },
};

#undef R
#undef W
#undef B
#undef C
#undef S
#undef M

const struct gtr_named gtr_jack = { "senator", { "Senator", "Senador" } };

const struct gtr_named gtr_materials[GM_COUNT] = {
	[GM_RUBBLE] = { "rubble", { "Rubble", "Escombros" } },
	[GM_WOOD] = { "wood", { "Wood", "Madera" } },
	[GM_BRICK] = { "brick", { "Brick", "Ladrillo" } },
	[GM_CONCRETE] = { "concrete", { "Concrete", "Cemento" } },
	[GM_STONE] = { "stone", { "Stone", "Piedra" } },
	[GM_MARBLE] = { "marble", { "Marble", "Mármol" } },
};

const struct gtr_named gtr_roles[GR_COUNT] = {
	[GR_LABORER] = { "laborer", { "Laborer", "Obrero" } },
	[GR_CRAFTSMAN] = { "craftsman", { "Craftsman", "Artesano" } },
	[GR_LEGIONARY] = { "legionary", { "Legionary", "Legionario" } },
	[GR_ARCHITECT] = { "architect", { "Architect", "Arquitecto" } },
	[GR_MERCHANT] = { "merchant", { "Merchant", "Mercader" } },
	[GR_PATRON] = { "patron", { "Patron", "Patrón" } },
};

const char *const gtr_a_role[GR_COUNT][LOC_COUNT] = {
	[GR_LABORER] = { "a Laborer", "un Obrero" },
	[GR_CRAFTSMAN] = { "a Craftsman", "un Artesano" },
	[GR_LEGIONARY] = { "a Legionary", "un Legionario" },
	[GR_ARCHITECT] = { "an Architect", "un Arquitecto" },
	[GR_MERCHANT] = { "a Merchant", "un Mercader" },
	[GR_PATRON] = { "a Patron", "un Patrón" },
};

const char *const gtr_material_lower[GM_COUNT][LOC_COUNT] = {
	[GM_RUBBLE] = { "rubble", "escombros" },
	[GM_WOOD] = { "wood", "madera" },
	[GM_BRICK] = { "brick", "ladrillo" },
	[GM_CONCRETE] = { "concrete", "cemento" },
	[GM_STONE] = { "stone", "piedra" },
	[GM_MARBLE] = { "marble", "mármol" },
};

const uint8_t gtr_value[GM_COUNT] = { 1, 1, 2, 2, 3, 3 };

const uint8_t gtr_first[GM_COUNT + 1] = {
	GC_ROAD, GC_CIRCUS, GC_ACADEMY, GC_AQUEDUCT, GC_SEWER, GC_BASILICA, GC_COUNT,
};

const char *const gtr_step_ids[GS_COUNT] = {
	[GS_PICK] = "pick", [GS_LEAD] = "lead", [GS_FOLLOW] = "follow",
	[GS_UNIT] = "unit", [GS_PETITION] = "petition", [GS_VOMIT] = "vomitorium",
	[GS_LATRINE] = "latrine", [GS_THINK] = "think", [GS_ACTION] = "action",
	[GS_MATERIAL] = "material", [GS_FOUNTAIN] = "fountain", [GS_LEGION] = "legion",
	[GS_LEGION_POOL] = "legion pool", [GS_GIVE] = "give", [GS_COLISEUM] = "coliseum",
	[GS_PRISON] = "prison", [GS_SENATE] = "senate", [GS_SEWER] = "sewer", [GS_OVER] = "over",
};

const char *const gtr_phase_ids[GP_COUNT] = {
	[GP_PICK] = "pick", [GP_LEAD] = "lead", [GP_FOLLOW] = "follow",
	[GP_ACTIONS] = "actions", [GP_SENATE] = "senate", [GP_SEWER] = "sewer",
	[GP_ACADEMY] = "academy", [GP_OVER] = "over",
};

int gtr_card_by_name(const char *name)
{
	int c, l;

	if (!name)
		return -1;
	for (c = 0; c < GC_COUNT; c++) {
		if (text_eq(name, gtr_cards[c].id))
			return c;
		for (l = 0; l < LOC_COUNT; l++)
			if (text_eq(name, gtr_cards[c].name[l]))
				return c;
	}
	if (text_eq(name, "senator") || text_eq(name, "senador") || text_eq(name, "jack"))
		return GTR_JACK;
	return -1;
}

/* ---- counting card collections ---- */

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
