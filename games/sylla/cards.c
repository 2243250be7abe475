/*
 * cards.c: Sylla's data, in one place.
 *
 * Source: the seed rulebook gives the 9 building types, the 10 events, the
 * 6 Great Works and Ecclesia with their effects, and the numbers 40
 * characters (sets I-IV), 32 building tiles (letters A/B/C), 120 Res
 * Publica tokens, 40 coins.  What it does not print -- each character's
 * hexagons and Christian mark, the tiles per letter, the events' token
 * colour, fighters and hunger symbols, the track values -- is
 * RECONSTRUCTED in guide/games.md ("Sylla"), consistent with every number
 * the seed gives.  Printed values replace the rows below without touching
 * the rules: the masks are derived from the same rows.
 */
#include "games/sylla/sylla.h"

/*
 * The ten characters of every set (guide/games.md, reconstructed):
 * X(ctx, k, id, kind, christian, hexagons, hex0, hex1, hex2).
 */
#define SYLLA_CHARS(X, c) \
	X(c, 0, "senator red", SK_SENATOR, 0, 1, SC_RED, SC_RED, SC_RED) \
	X(c, 1, "christian senator yellow", SK_SENATOR, 1, 1, SC_YELLOW, SC_YELLOW, SC_YELLOW) \
	X(c, 2, "merchant grey", SK_MERCHANT, 0, 1, SC_GREY, SC_GREY, SC_GREY) \
	X(c, 3, "christian merchant yellow grey", SK_MERCHANT, 1, 2, SC_YELLOW, SC_GREY, SC_GREY) \
	X(c, 4, "legionary red", SK_LEGIONARY, 0, 1, SC_RED, SC_RED, SC_RED) \
	X(c, 5, "legionary red grey", SK_LEGIONARY, 0, 2, SC_RED, SC_GREY, SC_GREY) \
	X(c, 6, "vestal yellow", SK_VESTAL, 0, 1, SC_YELLOW, SC_YELLOW, SC_YELLOW) \
	X(c, 7, "vestal grey red", SK_VESTAL, 0, 2, SC_GREY, SC_RED, SC_RED) \
	X(c, 8, "christian slave red yellow grey", SK_SLAVE, 1, 3, SC_RED, SC_YELLOW, SC_GREY) \
	X(c, 9, "slave grey grey yellow", SK_SLAVE, 0, 3, SC_GREY, SC_GREY, SC_YELLOW)

#define ROW(c, k, id, kind, chr, n, h0, h1, h2) \
	[k] = { id, kind, chr, n, { h0, (n) > 1 ? (h1) : SY_NONE, (n) > 2 ? (h2) : SY_NONE } },
const struct sylla_char_info sylla_chars[SY_PER_SET] = { SYLLA_CHARS(ROW, 0) };
#undef ROW

/* 10-bit masks (bit k) from the same rows, then spread over the 4 sets. */
#define KIND_BIT(sel, k, id, kind, chr, n, h0, h1, h2) | ((kind) == (sel) ? 1ULL << (k) : 0ULL)
#define CHR_BIT(sel, k, id, kind, chr, n, h0, h1, h2) | ((chr) ? 1ULL << (k) : 0ULL)
/* A card counts once for a colour however many of its hexagons show it
 * (the seed: "girar tantas cartas ... como cantidad haya pujado"). */
#define COL_BIT(sel, k, id, kind, chr, n, h0, h1, h2) \
	| (((h0) == (sel) || ((n) > 1 && (h1) == (sel)) || ((n) > 2 && (h2) == (sel))) ? \
	   1ULL << (k) : 0ULL)
#define SPREAD(x) ((x) | (x) << 10 | (x) << 20 | (x) << 30)
#define KIND_MASK(K) SPREAD(0ULL SYLLA_CHARS(KIND_BIT, K))
#define COL_MASK(C) SPREAD(0ULL SYLLA_CHARS(COL_BIT, C))

const struct sylla_masks sylla_mask = {
	.kind = {
		[SK_SENATOR] = KIND_MASK(SK_SENATOR),
		[SK_MERCHANT] = KIND_MASK(SK_MERCHANT),
		[SK_LEGIONARY] = KIND_MASK(SK_LEGIONARY),
		[SK_VESTAL] = KIND_MASK(SK_VESTAL),
		[SK_SLAVE] = KIND_MASK(SK_SLAVE),
	},
	.colour = {
		[SC_RED] = COL_MASK(SC_RED),
		[SC_YELLOW] = COL_MASK(SC_YELLOW),
		[SC_GREY] = COL_MASK(SC_GREY),
	},
	.christian = SPREAD(0ULL SYLLA_CHARS(CHR_BIT, 0)),
	.set = { 0x3ffULL, 0x3ffULL << 10, 0x3ffULL << 20, 0x3ffULL << 30 },
};

const struct sylla_named sylla_kinds[SK_COUNT] = {
	[SK_SENATOR] = { "senator", { "Senator", "Senador" } },
	[SK_MERCHANT] = { "merchant", { "Merchant", "Comerciante" } },
	[SK_LEGIONARY] = { "legionary", { "Legionary", "Legionario" } },
	[SK_VESTAL] = { "vestal", { "Vestal", "Vestal" } },
	[SK_SLAVE] = { "slave", { "Slave", "Esclavo" } },
};

const struct sylla_named sylla_colours[SC_COUNT] = {
	[SC_RED] = { "red", { "red", "rojo" } },
	[SC_YELLOW] = { "yellow", { "yellow", "amarillo" } },
	[SC_GREY] = { "grey", { "grey", "gris" } },
};

const char *const sylla_hex_letter[SC_COUNT][LOC_COUNT] = {
	[SC_RED] = { "R", "R" },
	[SC_YELLOW] = { "Y", "A" },
	[SC_GREY] = { "G", "G" },
};

const struct sylla_named sylla_tracks[ST_COUNT] = {
	[ST_CIVIC] = { "civic", { "civic spirit", "espíritu cívico" } },
	[ST_HEALTH] = { "health", { "health", "salud" } },
	[ST_LEISURE] = { "leisure", { "leisure", "ocio" } },
};

const struct sylla_named sylla_buildings[SB_COUNT] = {
	[SB_STALL] = { "stall", { "Stall", "Puesto" } },
	[SB_FIELD] = { "field", { "Field", "Campo" } },
	[SB_TEMPLE] = { "private temple", { "Private Temple", "Templo privado" } },
	[SB_INSULA] = { "insula", { "Insula", "Ínsula" } },
	[SB_CRANE] = { "crane", { "Crane", "Grúa" } },
	[SB_TAVERN] = { "tavern", { "Tavern", "Taberna" } },
	[SB_ARCH] = { "triumphal arch", { "Triumphal Arch", "Arco del Triunfo" } },
	[SB_STATUE] = { "statue", { "Statue", "Estatua" } },
	[SB_BANK] = { "bank", { "Bank", "Banco" } },
};

const char *const sylla_building_text[SB_COUNT][LOC_COUNT] = {
	[SB_STALL] = { "+2 denarii in every income phase (IV) while face up",
		       "+2 denarios en cada fase de ingresos (IV) mientras esté boca arriba" },
	[SB_FIELD] = { "each face-up Field cuts your famine loss (phase VII) by 2",
		       "cada Campo boca arriba reduce en 2 lo que pierdes por la hambruna (fase VII)" },
	[SB_TEMPLE] = { "in phase IV you may pay 2 denarii for 1 Res Publica token of your choice, kept secret",
			"en la fase IV puedes pagar 2 denarios por 1 ficha Res Publica a tu elección, en secreto" },
	[SB_INSULA] = { "discarded at once: take 2 Res Publica tokens of your choice behind your screen",
			"se descarta en el acto: toma 2 fichas Res Publica a tu elección tras tu pantalla" },
	[SB_CRANE] = { "becomes a Crane card among your characters: from the next turn it buys like a character of any colour",
		       "se cambia por una carta de Grúa entre tus personajes: desde el turno siguiente compra como un personaje de cualquier color" },
	[SB_TAVERN] = { "in phase IV you may move one Res Publica marker one space either way, one no other Tavern moved this phase",
			"en la fase IV puedes mover un marcador Res Publica una casilla en cualquier sentido, uno que ninguna otra Taberna haya movido en esa fase" },
	[SB_ARCH] = { "discarded at once: +6 prestige", "se descarta en el acto: +6 de prestigio" },
	[SB_STATUE] = { "discarded at once: +4 prestige", "se descarta en el acto: +4 de prestigio" },
	[SB_BANK] = { "discarded at once: +5 denarii from the bank",
		      "se descarta en el acto: +5 denarios de la banca" },
};

const uint8_t sylla_zone_type[SZ_COUNT] = {
	[SZ_STALL] = SB_STALL, [SZ_FIELD] = SB_FIELD, [SZ_TEMPLE] = SB_TEMPLE,
	[SZ_TAVERN] = SB_TAVERN, [SZ_CRANE] = SB_CRANE,
};

/* Tiles per letter (guide/games.md, reconstructed): A 12, B 12, C 8. */
#define T(l, t) { l, t }
const struct sylla_tile_info sylla_tiles[SY_TILES] = {
	/* A */
	T(0, SB_STALL), T(0, SB_STALL), T(0, SB_STALL), T(0, SB_STALL),
	T(0, SB_FIELD), T(0, SB_FIELD), T(0, SB_FIELD), T(0, SB_FIELD),
	T(0, SB_TEMPLE), T(0, SB_INSULA), T(0, SB_CRANE), T(0, SB_TAVERN),
	/* B */
	T(1, SB_STALL), T(1, SB_STALL), T(1, SB_FIELD), T(1, SB_FIELD),
	T(1, SB_TEMPLE), T(1, SB_TEMPLE), T(1, SB_INSULA), T(1, SB_INSULA),
	T(1, SB_CRANE), T(1, SB_TAVERN), T(1, SB_STATUE), T(1, SB_BANK),
	/* C */
	T(2, SB_FIELD), T(2, SB_TEMPLE), T(2, SB_INSULA), T(2, SB_CRANE),
	T(2, SB_TAVERN), T(2, SB_ARCH), T(2, SB_ARCH), T(2, SB_STATUE),
};
#undef T

#define V (1u << SK_VESTAL)
#define LG (1u << SK_LEGIONARY)
/* Token colour, fighters and hunger: guide/games.md (reconstructed). */
const struct sylla_event_info sylla_events[SE_COUNT] = {
	[SE_EPIDEMIC] = { "epidemic", { "Epidemic", "Epidemia" }, ST_HEALTH, V, 0,
		{ "the Health marker moves one space left",
		  "el marcador de Salud retrocede una casilla" } },
	[SE_ERUPTION] = { "eruption", { "Eruption", "Erupción" }, ST_LEISURE, V, 0,
		{ "the Leisure marker moves one space left",
		  "el marcador de Ocio retrocede una casilla" } },
	[SE_CULT] = { "imperial cult", { "Imperial Cult", "Culto Imperial" }, ST_CIVIC, V | LG, 0,
		{ "the Civic Spirit marker moves one space left",
		  "el marcador de Espíritu Cívico retrocede una casilla" } },
	[SE_FAMINE] = { "famine", { "Famine", "Hambruna" }, ST_HEALTH, V, 1,
		{ "the famine marker moves one space right",
		  "el marcador de la Hambruna avanza una casilla" } },
	[SE_FLOOD] = { "floods", { "Floods", "Inundaciones" }, ST_HEALTH, V, 1,
		{ "each player turns one of their buildings face down (a Crane too, never the income tile) "
		  "while this event stays in play",
		  "cada jugador pone boca abajo uno de sus edificios (también una Grúa, nunca la loseta de ingresos) "
		  "mientras el evento siga en juego" } },
	[SE_PERSECUTION] = { "persecution", { "Persecution of Christians", "Persecución de cristianos" },
		ST_CIVIC, LG, 0,
		{ "each player turns one of their Christian characters face down while this event stays in play",
		  "cada jugador pone boca abajo uno de sus personajes cristianos mientras el evento siga en juego" } },
	[SE_PURGE] = { "senate purge", { "Senate Purge", "Purga del Senado" }, ST_CIVIC, LG, 0,
		{ "each player turns one of their Senators face down while this event stays in play",
		  "cada jugador pone boca abajo uno de sus Senadores mientras el evento siga en juego" } },
	[SE_REVOLT] = { "slave revolt", { "Slave Revolt", "Revuelta de esclavos" }, ST_LEISURE, LG, 1,
		{ "each player turns one of their Slaves face down while this event stays in play",
		  "cada jugador pone boca abajo uno de sus Esclavos mientras el evento siga en juego" } },
	[SE_PILLAGE] = { "pillage", { "Pillage", "Pillaje" }, ST_LEISURE, LG, 1,
		{ "each player turns one of their Stalls face down while this event stays in play",
		  "cada jugador pone boca abajo uno de sus Puestos mientras el evento siga en juego" } },
	[SE_DECADENCE] = { "decadence", { "Decadence", "Decadencia" }, SY_NONE, V | LG, 0,
		{ "the marker or markers furthest right on the Res Publica table move one space left "
		  "(not the famine); it is never removed from the game",
		  "el marcador o marcadores más a la derecha de la tabla Res Publica retroceden una casilla "
		  "(no la hambruna); nunca se retira del juego" } },
};
#undef V
#undef LG

const struct sylla_work_info sylla_works[SG_COUNT] = {
	[SG_PANTHEON] = { "pantheon", { "Pantheon", "Panteón" }, { 10, 6, 2 }, SY_NONE, 0,
		{ "most votes 10 prestige, second 6, third 2 (tied players all score their place)",
		  "más votos 10 de prestigio, segundo 6, tercero 2 (los empatados puntúan su puesto)" } },
	[SG_TEMPLE] = { "temple", { "Temple", "Templo" }, { 10, 6, 0 }, SY_NONE, 0,
		{ "8 votes or more: 10 prestige; 5 to 7 votes: 6 prestige",
		  "8 votos o más: 10 de prestigio; de 5 a 7 votos: 6 de prestigio" } },
	[SG_GRANARY] = { "granary", { "Granary", "Granero" }, { 5, 3, 0 }, ST_COUNT, 4,
		{ "most votes 5 prestige, second 3; the famine marker moves back one space per 4 votes in all",
		  "más votos 5 de prestigio, segundo 3; la hambruna retrocede una casilla por cada 4 votos en total" } },
	[SG_BATHS] = { "public baths", { "Public Baths", "Baños Públicos" }, { 5, 3, 0 }, ST_HEALTH, 5,
		{ "most votes 5 prestige, second 3; Health moves one space right per 5 votes in all",
		  "más votos 5 de prestigio, segundo 3; la Salud avanza una casilla por cada 5 votos en total" } },
	[SG_COLISEUM] = { "coliseum", { "Coliseum", "Coliseo" }, { 5, 3, 0 }, ST_LEISURE, 5,
		{ "most votes 5 prestige, second 3; Leisure moves one space right per 5 votes in all",
		  "más votos 5 de prestigio, segundo 3; el Ocio avanza una casilla por cada 5 votos en total" } },
	[SG_SENATE] = { "senate", { "Senate", "Senado" }, { 5, 3, 0 }, ST_CIVIC, 5,
		{ "most votes 5 prestige, second 3; Civic Spirit moves one space right per 5 votes in all",
		  "más votos 5 de prestigio, segundo 3; el Espíritu Cívico avanza una casilla por cada 5 votos en total" } },
};

const struct sylla_named sylla_ecclesia = { "ecclesia", { "Ecclesia (the Church)", "Ecclesia (la Iglesia)" } };

/* Prestige per token by marker position (guide/games.md, reconstructed). */
const uint8_t sylla_track_value[SY_TRACK_MAX + 1] = { 1, 1, 2, 2, 3, 3, 4, 4 };

/* Sale colour by slot of the building row: 1-2 red, 3-4 yellow, 5-6 grey. */
const uint8_t sylla_slot_colour[SY_ROW] = { SC_RED, SC_RED, SC_YELLOW, SC_YELLOW, SC_GREY, SC_GREY };

const char *const sylla_numerals[SY_SETS] = { "I", "II", "III", "IV" };

const char *const sylla_step_ids[SS_COUNT] = {
	[SS_PICK] = "pick", [SS_ELECT] = "elect", [SS_SEALED] = "sealed", [SS_TOKEN] = "token",
	[SS_RECRUIT] = "recruit", [SS_OFFER] = "offer", [SS_BID] = "bid", [SS_TAP] = "tap",
	[SS_INSULA] = "insula", [SS_TEMPLE] = "temple", [SS_TAVERN] = "tavern",
	[SS_CUBE] = "cube", [SS_AVOID] = "avoid", [SS_HIDE] = "hide", [SS_REMOVE] = "remove",
	[SS_VOTE] = "vote", [SS_FREE] = "free", [SS_OVER] = "over",
};

static const char *const words[SW_COUNT][2][LOC_COUNT] = {
	[SW_VOTE] = { { "vote", "voto" }, { "votes", "votos" } },
	[SW_DENARIUS] = { { "denarius", "denario" }, { "denarii", "denarios" } },
	[SW_SENATOR] = { { "Senator", "Senador" }, { "Senators", "Senadores" } },
	[SW_TOKEN] = { { "token", "ficha" }, { "tokens", "fichas" } },
	[SW_SLAVE] = { { "slave", "esclavo" }, { "slaves", "esclavos" } },
	[SW_CHRISTIAN] = { { "Christian", "cristiano" }, { "Christians", "cristianos" } },
	[SW_CHARACTER] = { { "character", "personaje" }, { "characters", "personajes" } },
	[SW_SPACE] = { { "space", "casilla" }, { "spaces", "casillas" } },
	[SW_EVENT] = { { "event", "evento" }, { "events", "eventos" } },
	[SW_HUNGER] = { { "hunger symbol", "símbolo de hambre" }, { "hunger symbols", "símbolos de hambre" } },
};

const char *sylla_word(int w, int n, enum locale loc)
{
	if (w < 0 || w >= SW_COUNT)
		return "?";
	return words[w][n != 1][loc < LOC_COUNT ? loc : LOC_EN];
}
