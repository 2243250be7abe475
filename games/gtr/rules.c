/*
 * rules.c: Glory to Rome's in-bot rule summaries and card texts
 * (game_ops.rules, .card, .card_names).
 *
 * The summaries are the project's own words for players with the game in
 * front of them; where docs/games/gtr.md records a ruling they follow it.
 * Card names, materials, copies and functions come from cards.c.
 *
 * Owns the rules, card and card_names ops.  Must not: read a game state
 * (there is none: `card` gets the room's options only), or copy the
 * rulebook's text (the project's own words; quotes are short).
 */
#include <string.h>

#include "games/gtr/gtr.h"
#include "util/text.h"

static void materials_table(enum locale loc, struct rich *out)
{
	int m;

	for (m = 0; m < GM_COUNT; m++)
		rich_line(out, L(loc, "• %s → %s, value %d", "• %s → %s, valor %d"),
			  gtr_materials[m].name[loc], gtr_roles[m].name[loc], gtr_value[m]);
}

static const struct game_topic topics[] = {
	{ "overview", { "Overview", "Resumen" }, {
	  "You are a builder rebuilding Rome after the great fire. Every order card is at once a role (its colour), "
	  "a building material, a building with a function and, in the vault, money.\n"
	  "Each turn the leader picks a role; the others follow it or Think (draw cards). "
	  "Everybody then performs the role once per card played plus once per client of that role.\n"
	  "Completed buildings give influence (more clients and vault space) and their functions.\n"
	  "At the end, victory points are influence plus the vault; some buildings and the Forum change that.",
	  "Eres un constructor que reconstruye Roma tras el gran incendio. Cada carta de Acción es a la vez un personaje (su color), "
	  "un material, un edificio con su función y, en el Tesoro, dinero.\n"
	  "En cada turno el líder elige un personaje; los demás lo siguen o Piensan (roban cartas). "
	  "Después todos hacen esa acción una vez por carta jugada y otra por cada Cliente de ese personaje.\n"
	  "Los edificios completados dan Influencia (más Clientes y más Tesoro) y su función.\n"
	  "Al final los Puntos de Victoria son la Influencia más el Tesoro; algunos edificios y el Foro lo cambian." },
	  materials_table },
	{ "setup", { "Setup", "Preparación" }, {
	  "Each player gets 4 order cards and 1 Senator (5 cards and 1 Senator with the experienced variant).\n"
	  "Sites: for each material, as many in town as players (3 with 2 players); the rest of the six are out of town.\n"
	  "To pick the first leader everybody draws a card and shows it: the Spanish name first in alphabetical order leads "
	  "(accents ignored; an English board shows it in brackets: Road (Calzada)); tied players draw again.\n"
	  "The drawn cards start the pool; the rest form the deck. The other Senators make a pile next to the pool.",
	  "Cada jugador recibe 4 cartas de Acción y 1 Senador (5 cartas y 1 Senador en la variante para expertos).\n"
	  "Solares: de cada material, tantos en la ciudad como jugadores (3 con 2 jugadores); el resto de los seis quedan en las afueras.\n"
	  "Para elegir el primer líder cada uno roba una carta y la enseña: lidera el nombre que vaya antes alfabéticamente "
	  "(sin contar acentos); los empatados roban otra vez.\n"
	  "Las cartas robadas forman la Reserva; las demás, el Mazo. Los otros Senadores forman un montón junto a la Reserva." }, NULL },
	{ "turn", { "Turn", "Turno" }, {
	  "1. The leader Thinks (the turn ends at once, nobody acts) or leads a role with one unit: "
	  "a card of that role's colour, a Senator, or a petition (2 cards of one role, 3 with original-circus, used as a Senator).\n"
	  "2. Clockwise, each other player follows with a unit of the same role or Thinks.\n"
	  "3. Leader first, then clockwise, each player performs the role: once per unit played, plus once per client of that role "
	  "(clients act even for a player who thought). Every action may be skipped.\n"
	  "4. Played cards go to the pool, Senators to their pile (Senate and Sewer owners first take theirs); "
	  "Academy owners who crafted may Think. The leader passes to the left.\n"
	  "Without a Palace you play exactly one unit. New clients act from the next turn.",
	  "1. El líder Piensa (el turno acaba en el acto y nadie actúa) o lidera un personaje con una unidad: "
	  "una carta de su color, un Senador o una petición (2 cartas de un mismo personaje, 3 con original-circus, que valen como Senador).\n"
	  "2. En sentido horario, cada jugador sigue con una unidad del mismo personaje o Piensa.\n"
	  "3. Primero el líder y luego en sentido horario, cada uno hace la acción: una vez por unidad jugada y otra por Cliente de ese personaje "
	  "(los Clientes actúan aunque su dueño haya Pensado). Toda acción se puede omitir.\n"
	  "4. Las cartas jugadas van a la Reserva y los Senadores a su montón (antes, los dueños de Senado y Alcantarillado toman lo suyo); "
	  "quien tenga Academia y haya hecho de Artesano puede Pensar. El líder pasa a la izquierda.\n"
	  "Sin Palacio se juega exactamente una unidad. Los Clientes nuevos actúan desde el turno siguiente." }, NULL },
	{ "think", { "Thinking", "Pensar" }, {
	  "Thinking means one of:\n"
	  "• take a Senator from the pile, if there is one;\n"
	  "• draw from the deck until your hand reaches its size (5; +2 Shrine, +4 Temple), all the way;\n"
	  "• draw 1 card if your hand is already that big.\n"
	  "The hand size is only the target of a Think, never a limit.\n"
	  "Before a Think, a Vomitorium owner may discard the whole hand, else a Latrine owner one card.",
	  "Pensar es una de estas opciones:\n"
	  "• coger un Senador del montón, si queda alguno;\n"
	  "• robar del Mazo hasta completar tu Mano (5; +2 Santuario, +4 Templo), sin quedarte a medias;\n"
	  "• robar 1 carta si tu Mano ya tiene ese tamaño.\n"
	  "El tamaño de la Mano solo es el objetivo al Pensar, nunca un límite.\n"
	  "Antes de Pensar, quien tenga Vomitorium puede descartar toda la Mano; si no, quien tenga Letrinas, una carta." }, NULL },
	{ "areas", { "Player areas", "Zonas del jugador" }, {
	  "• Hand: secret, but its size is public.\n"
	  "• Influence: starts at 2; each completed building adds its site's value.\n"
	  "• Clientele: hired clients, at most your influence (+2 Insula, ×2 Aqueduct).\n"
	  "• Stockpile: materials for the Architect and the Merchant, unlimited and public (shown by material).\n"
	  "• Vault: face down, at most your influence (+2 Market). Only the number of cards is public; nobody may look at them, you included.\n"
	  "• Structures: foundations and completed buildings, public.",
	  "• Mano: secreta, pero su número de cartas es público.\n"
	  "• Influencia: empieza en 2; cada edificio completado suma el valor de su Solar.\n"
	  "• Clientela: Clientes contratados, como máximo tu Influencia (+2 Ínsula, ×2 Acueducto).\n"
	  "• Almacén: materiales para el Arquitecto y el Mercader, ilimitado y público (se ve el material).\n"
	  "• Tesoro: boca abajo, como máximo tu Influencia (+2 Mercado). Solo es público cuántas cartas hay; nadie puede mirarlas, tampoco tú.\n"
	  "• Estructuras: cimientos y edificios completados, públicos." }, NULL },
	{ "patron", { "Patron", "Patrón" }, {
	  "Take one card from the pool into your clientele, within your clientele limit.\n"
	  "A client works as its colour's role: whenever that role is led, it gives you one more action, even if you thought.\n"
	  "Cards played this turn are not in the pool yet. Bar: also a client from the deck; Aqueduct: also one from your hand.",
	  "Coge una carta de la Reserva para tu Clientela, sin pasar de tu límite.\n"
	  "Un Cliente es el personaje de su color: cada vez que se lidera ese personaje te da una acción más, aunque hayas Pensado.\n"
	  "Las cartas jugadas en este turno aún no están en la Reserva. Taberna: también un Cliente del Mazo; Acueducto: también uno de tu Mano." }, NULL },
	{ "laborer", { "Laborer", "Obrero" }, {
	  "Take one card from the pool into your stockpile.\n"
	  "Dock: each Laborer action may also move one card from your hand to your stockpile.",
	  "Coge una carta de la Reserva para tu Almacén.\n"
	  "Muelle: cada acción de Obrero puede pasar además una carta de tu Mano al Almacén." }, NULL },
	{ "craftsman", { "Craftsman", "Artesano" }, {
	  "Build from your hand: lay a foundation from your hand, or add a card from your hand as material "
	  "to one of your foundations (it must match the foundation's material).\n"
	  "Fountain: you may use the top card of the deck instead of a card from hand.\n"
	  "See the sites topic for foundations, out of town and completion.",
	  "Construye desde tu Mano: pon unos cimientos desde la Mano, o añade una carta de la Mano como material "
	  "a uno de tus cimientos (del mismo material que ellos).\n"
	  "Fuente: puedes usar la carta superior del Mazo en lugar de una de la Mano.\n"
	  "Consulta el tema de Solares para cimientos, afueras y completar." }, NULL },
	{ "architect", { "Architect", "Arquitecto" }, {
	  "Build from your stockpile: lay a foundation from your hand, or add a material from your stockpile "
	  "to one of your foundations (it must match the foundation's material).\n"
	  "Archway: the material may come from the pool. Stairway: add to an opponent's completed building to make its function public.\n"
	  "With a Circus any card may lead or follow an Architect. See the sites topic.",
	  "Construye desde tu Almacén: pon unos cimientos desde la Mano, o añade un material de tu Almacén "
	  "a uno de tus cimientos (del mismo material que ellos).\n"
	  "Arco: el material puede salir de la Reserva. Escalinata: añádelo a un edificio rival completado para hacer pública su función.\n"
	  "Con Circo cualquier carta sirve para liderar o seguir a un Arquitecto. Consulta el tema de Solares." }, NULL },
	{ "sites", { "Sites and building", "Solares y construcción" }, {
	  "A foundation is a card from hand laid on a site of the card's material; you never have two structures of the same name.\n"
	  "Use an in-town site while the town has one of that material. When it has none, an out-of-town site "
	  "takes two consecutive Craftsman/Architect actions (one with a Tower).\n"
	  "A structure needs as many materials as its value (rubble and wood 1, brick and concrete 2, stone and marble 3).\n"
	  "When complete, its site goes to your influence (+value) and its function works at once.\n"
	  "Laying a foundation on the last in-town site ends the game.",
	  "Unos cimientos son una carta de la Mano puesta sobre un Solar de su material; nunca tienes dos estructuras con el mismo nombre.\n"
	  "Usa un Solar de la ciudad mientras quede alguno de ese material. Si no queda, uno de las afueras "
	  "exige dos acciones seguidas de Artesano/Arquitecto (una con Torre).\n"
	  "Una estructura necesita tantos materiales como su valor (Escombros y Madera 1, Ladrillo y Cemento 2, Piedra y Mármol 3).\n"
	  "Al completarla, su Solar pasa a tu Influencia (+valor) y su función se aplica en el acto.\n"
	  "Poner cimientos en el último Solar de la ciudad termina la partida." }, NULL },
	{ "legionary", { "Legionary", "Legionario" }, {
	  "Show a card from your hand and demand its material («Rome demands…»). All your Legionary actions of a turn form one demand.\n"
	  "For each card shown you may take a matching card from the pool, and each neighbour (with 2–3 players every opponent) "
	  "must give you a matching card from its hand; both go to your stockpile. A neighbour holding more matching cards than "
	  "it must give chooses which.\n"
	  "A player without one answers «Glory to Rome!». Palisade and Wall protect, though their owner may still give if it wants; "
	  "Bridge reaches everybody and stockpiles and ignores the Palisade, never the Wall. The shown cards stay in your hand.",
	  "Enseña una carta de tu Mano y exige su material («Roma exige…»). Todas tus acciones de Legionario de un turno forman una sola exigencia.\n"
	  "Por cada carta enseñada puedes coger una igual de la Reserva, y cada vecino (con 2–3 jugadores, todos los rivales) "
	  "debe darte una carta de ese material de su Mano; ambas van a tu Almacén. Un vecino con más cartas del material de "
	  "las que debe dar elige cuáles.\n"
	  "Quien no tiene responde «¡Gloria a Roma!». Empalizada y Muralla protegen, aunque su dueño puede dar cartas si quiere; "
	  "Puente llega a todos y a sus Almacenes e ignora la Empalizada, nunca la Muralla. Las cartas enseñadas vuelven a tu Mano." }, NULL },
	{ "merchant", { "Merchant", "Mercader" }, {
	  "Move one material from your stockpile into your vault, within your vault limit.\n"
	  "Each vault card is worth its value at the end, and the most cards of a material win a 3-point bonus.\n"
	  "Atrium: take the top card of the deck instead, unseen. Basilica: also put a card from your hand in the vault.",
	  "Pasa un material de tu Almacén a tu Tesoro, sin pasar de su límite.\n"
	  "Cada carta del Tesoro vale su valor al final, y quien tenga más de un material gana una bonificación de 3 puntos.\n"
	  "Atrio: coge en su lugar la carta superior del Mazo, sin verla. Basílica: guarda también una carta de tu Mano." }, NULL },
	{ "end", { "End of the game", "Fin de la partida" }, {
	  "The game ends at once, with no further action, when:\n"
	  "• the deck runs out after any draw;\n"
	  "• someone lays a foundation on the last in-town site;\n"
	  "• the Catacomb is completed;\n"
	  "• a Forum owner meets its condition: that player wins without scoring;\n"
	  "• all other players have conceded: the last one wins.\n"
	  "In the first three cases the game is scored (see scoring).",
	  "La partida acaba en el acto, sin más acciones, cuando:\n"
	  "• el Mazo se agota tras cualquier robo;\n"
	  "• alguien pone cimientos en el último Solar de la ciudad;\n"
	  "• se completan las Catacumbas;\n"
	  "• el dueño de un Foro cumple su condición: gana sin contar puntos;\n"
	  "• todos los demás se han rendido: gana el que queda.\n"
	  "En los tres primeros casos se cuentan los puntos (ver puntuación)." }, NULL },
	{ "scoring", { "Scoring", "Puntuación" }, {
	  "• 1 point per influence.\n"
	  "• The value of each vault card (1, 2 or 3 by material).\n"
	  "• 3 points per merchant bonus: strictly the most vault cards of a material; a tie gives it to nobody.\n"
	  "• Statue +3; Wall +1 per 2 stockpile materials.\n"
	  "Most points wins; ties go to the most cards in hand, then the win is shared.",
	  "• 1 punto por punto de Influencia.\n"
	  "• El valor de cada carta del Tesoro (1, 2 o 3 según el material).\n"
	  "• 3 puntos por bonificación de Mercader: tener estrictamente más cartas de un material en el Tesoro; con empate nadie la gana.\n"
	  "• Estatua +3; Muralla +1 por cada 2 materiales del Almacén.\n"
	  "Gana quien tenga más puntos; con empate, quien tenga más cartas en la Mano; si persiste, victoria compartida." }, NULL },
	{ "variants", { "Variants", "Variantes" }, {
	  "Options when creating a game (they combine):\n"
	  "• experienced: 5 cards and a Senator each; everybody chooses the card for the leader draw.\n"
	  "• original-circus: a petition takes 3 cards; the Circus lets 2 cards of one role act as a Senator; "
	  "the Forum needs only a client of each role.\n"
	  "• nofunctions: learning game, buildings give influence only (no Catacomb or Forum ending).\n"
	  "• quick: in-town sites per material are 2 with 2–3 players, 3 with 4–5.",
	  "Opciones al crear la partida (se pueden combinar):\n"
	  "• experienced: 5 cartas y un Senador cada uno; cada jugador elige la carta para decidir el líder.\n"
	  "• original-circus: una petición necesita 3 cartas; el Circo hace que 2 cartas de un personaje valgan como Senador; "
	  "el Foro solo pide un Cliente de cada personaje.\n"
	  "• nofunctions: partida de aprendizaje, los edificios solo dan Influencia (sin final por Catacumbas ni Foro).\n"
	  "• quick: Solares de la ciudad por material: 2 con 2–3 jugadores, 3 con 4–5." }, NULL },
};

#define NTOPICS ((int)(sizeof topics / sizeof topics[0]))

/* ---- matching: exact name, then exact id, then a unique prefix ---- */

#define NCARDS (GC_COUNT + 1)	/* the 40 buildings and the Senator */

static const char *card_id(int c)
{
	return c == GTR_JACK ? gtr_jack.id : gtr_cards[c].id;
}

static const char *card_name(int c, enum locale loc)
{
	return c == GTR_JACK ? gtr_jack.name[loc] : gtr_cards[c].name[loc];
}

static void card_name_to(int c, enum locale loc, struct buf *out)
{
	buf_addstr(out, card_name(c, loc));
}

/* Key k of entry i (0 id, 1 English, 2 Spanish), folded, into out. */

static void topic_key(int i, int k, struct buf *out)
{
	text_fold(k ? topics[i].name[k - 1] : topics[i].id, out);
}

static void card_key(int i, int k, struct buf *out)
{
	text_fold(k ? card_name(i, (enum locale)(k - 1)) : card_id(i), out);
}

/* ---- rendering ---- */

int gtr_rules(const char *topic, enum locale loc, struct rich *out)
{
	int cand[GAME_LOOKUP_MAX], nc, t = -1;

	if (topic && *topic && (t = game_lookup(topic, NTOPICS, topic_key, cand, &nc)) < 0)
		t = -2;
	return game_rules_render(L(loc, "Glory to Rome", "Gloria a Roma"), topics, NTOPICS, t,
				 topic, loc, out);
}

/* The function of card c as the game's options play it: `original-circus`
 * changes Circo and Foro, `nofunctions` removes every function. */
static const char *function_text(int c, uint8_t opts, enum locale loc)
{
	if (opts & GO_NOFUNCTIONS)
		return L(loc, "none in this game (nofunctions: buildings give influence only)",
			 "ninguna en esta partida (nofunctions: los edificios solo dan Influencia)");
	if (opts & GO_ORIGINAL_CIRCUS) {
		if (c == GC_CIRCUS)
			return L(loc, "2 cards of one role act as a Senator (a petition needs 3 cards "
				 "without it) (original-circus)",
				 "2 cartas de un mismo personaje valen como un Senador (sin Circo, una "
				 "petición necesita 3) (original-circus)");
		if (c == GC_FORUM)
			return L(loc, "a client of each role wins the game at once (original-circus)",
				 "un Cliente de cada personaje gana la partida en el acto (original-circus)");
	}
	return gtr_cards[c].text[loc];
}

static void card_text(int c, uint8_t opts, enum locale loc, struct rich *out)
{
	const char *en = card_name(c, LOC_EN), *es = card_name(c, LOC_ES);

	rich_heading(out, "%s", card_name(c, loc));
	if (loc == LOC_ES)
		rich_line(out, "Español: %s · inglés: %s", es, en);
	else
		rich_line(out, "English: %s · Spanish: %s", en, es);
	if (c == GTR_JACK) {
		rich_line(out, "%s", L(loc, "Senator (wild card), 6 in the game; each player starts with one.",
				       "Senador (comodín), 6 en la partida; cada jugador empieza con uno."));
		rich_line(out, "%s", L(loc, "Leads or follows as any role. It is never a material, a client or a building, "
				       "and never part of a petition.",
				       "Lidera o sigue como cualquier personaje. Nunca es material, Cliente ni edificio, "
				       "ni forma parte de una petición."));
		rich_line(out, "%s", L(loc, "Thinking may take one from the pile; played Senators return to it (Senate owners may take them).",
				       "Al Pensar se puede coger uno del montón; los Senadores jugados vuelven a él (el Senado puede quedárselos)."));
		return;
	}
	{
		int m = gtr_cards[c].material, v = gtr_value[m];

		rich_line(out, L(loc, "Material: %s (value %d) · role: %s · %d copies",
				 "Material: %s (valor %d) · personaje: %s · %d copias"),
			  gtr_materials[m].name[loc], v, gtr_roles[m].name[loc],
			  gtr_cards[c].copies);
		if (c == GC_STATUE && !(opts & GO_NOFUNCTIONS))
			rich_line(out, "%s", L(loc, "As a building: needs as many materials as its site's value and gives that influence.",
					       "Como edificio: necesita tantos materiales como el valor de su Solar y da esa Influencia."));
		else if (v == 1)
			rich_line(out, "%s", L(loc, "As a building: needs 1 material and gives 1 influence when completed.",
					       "Como edificio: necesita 1 material y da 1 de Influencia al completarse."));
		else
			rich_line(out, L(loc, "As a building: needs %d materials and gives %d influence when completed.",
					 "Como edificio: necesita %d materiales y da %d de Influencia al completarse."),
				  v, v);
		rich_line(out, L(loc, "Function: %s.", "Función: %s."), function_text(c, opts, loc));
	}
}

int gtr_card(const char *name, const char *options, enum locale loc, struct rich *out)
{
	int cand[GAME_LOOKUP_MAX], nc, c;
	uint8_t opts = 0;
	struct buf err = BUF_INIT;

	/* a room's options were checked by setup(); anything else reads as
	 * the default rules */
	if (gtr_parse_options(options, &opts, &err))
		opts = 0;
	buf_release(&err);
	c = game_lookup(name ? name : "", NCARDS, card_key, cand, &nc);
	if (c >= 0) {
		card_text(c, opts, loc, out);
		return 0;
	}
	return game_card_unknown(name, cand, nc, card_name_to, loc, out);
}

void gtr_card_names(enum locale loc, struct buf *out)
{
	int c;

	for (c = 0; c < NCARDS; c++) {
		buf_addstr(out, card_name(c, loc));
		buf_addch(out, '\n');
	}
}
