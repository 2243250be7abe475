/*
 * rules.c: Fortuna's in-bot rule summaries and card texts (game_ops.rules,
 * .card, .card_names).
 *
 * The summaries are the project's own words, written for players with the
 * game in front of them; they follow docs/games/fortuna.md where it records
 * a ruling.  Card names and one-line effects come from cards.c; the longer
 * texts of the favour, privilege and building cards are written here.
 */
#include <string.h>

#include "games/fortuna/fortuna.h"
#include "util/text.h"

/* ---- topics ---- */

static void actions_list(enum locale loc, struct rich *out)
{
	int a;

	for (a = 0; a < FA_COUNT; a++)
		rich_line(out, "• %s: %s", fortuna_actions[a].name[loc],
			  fortuna_actions[a].effect[loc]);
}

static void favours_list(enum locale loc, struct rich *out);
static void buildings_list(enum locale loc, struct rich *out);
static void privs_list(enum locale loc, struct rich *out);

static const struct game_topic topics[] = {
	{ "overview", { "Overview", "Resumen" }, {
	  "Each player leads a family from its village towards Rome: 10 steps reach the city gate, 15 the Palace of Caesar.\n"
	  "You gather water, grain and wine, sell them, hire Centurions and Priestesses, marry and build, "
	  "then offer goods to the favour cards to advance.\n"
	  "Advancing with a favour card wins its privilege tokens, which become privilege cards (resources, steps or victory points).\n"
	  "The game ends after the round in which somebody reaches the Palace. Only players inside Rome (10+ steps) "
	  "count their privilege points and may win.",
	  "Cada jugador guía a su familia desde su aldea hacia Roma: con 10 pasos llega a la puerta de la ciudad y con 15 al Palacio del César.\n"
	  "Consigues agua, grano y vino, los vendes, reclutas Centuriones y Sacerdotisas, te casas y construyes, "
	  "y luego ofreces bienes a las cartas de favor para avanzar.\n"
	  "Avanzar con una carta de favor te da sus fichas de privilegio, que se convierten en cartas de privilegio (recursos, pasos o puntos).\n"
	  "La partida termina tras la ronda en que alguien llega al Palacio. Solo quien está dentro de Roma (10 pasos o más) "
	  "suma sus puntos de privilegio y puede ganar." }, NULL },
	{ "setup", { "Setup", "Preparación" }, {
	  "Each player starts with 5 coins, 1 water, 1 grain, 1 wine, 1 die, 1 Priestess and 1 Centurion, pawn in the village (step 0).\n"
	  "Turn order is random. The first player receives the Fortuna card; the other 11 action cards are dealt at random, "
	  "3 to each side of the board (empty sides too).\n"
	  "With the draft variant the players pick the cards instead (see the variants topic).\n"
	  "Then all players at once choose one of their three cards to reserve face down; nobody sees a choice "
	  "until everybody has chosen, then the reserved cards are shown together and turned face down.\n"
	  "The six favour cards lie face up around Rome; 3 privilege tokens wait above the Palace.\n"
	  "Buildings: 3 of each kind with 4 players, 2 with 2–3. The privilege deck has 26 cards, 22 with 2–3 players.",
	  "Cada jugador empieza con 5 monedas, 1 agua, 1 grano, 1 vino, 1 dado, 1 Sacerdotisa y 1 Centurión, con su peón en la aldea (paso 0).\n"
	  "El orden de turno se sortea. El primer jugador recibe la Carta Fortuna; las otras 11 cartas de acción se reparten al azar, "
	  "3 en cada lado del tablero (también en los lados vacíos).\n"
	  "Con la variante de draft los jugadores eligen las cartas (ver el tema de variantes).\n"
	  "Después todos a la vez eligen una de sus tres cartas para reservarla boca abajo; nadie ve una elección "
	  "hasta que todos han elegido, y entonces las cartas reservadas se muestran juntas y se ponen boca abajo.\n"
	  "Las seis cartas de favor rodean Roma boca arriba; 3 fichas de privilegio esperan sobre el Palacio.\n"
	  "Edificios: 3 de cada tipo con 4 jugadores, 2 con 2–3. El mazo de privilegios tiene 26 cartas, 22 con 2–3 jugadores." }, NULL },
	{ "turn", { "Turn", "Turno" }, {
	  "A turn has five phases:\n"
	  "1. Your face-down card turns face up (and a built Aqueduct refills with 1 water).\n"
	  "2. Play one of your three cards and use its action (optional). Then swap it for a face-up card of another side: "
	  "the card you take arrives face down, the one you played lies face up in its place.\n"
	  "3. Military power: spend a Centurion to use one of the other face-up cards of your side (see military).\n"
	  "4. Roll all your dice, pick one value, and use a face-up favour card numbered up to that value, or pay the tax (see favours).\n"
	  "5. Privilege tokens won this turn become privilege cards (see privileges).\n"
	  "Type A and B privilege cards may be played at any decision of your turn.\n"
	  "A face-down card is no secret: everybody saw it dealt or taken face up, so the board names it in brackets.\n"
	  "When a decision has a single possible answer and you hold no privilege card, the bot takes it for you and says so in the log.",
	  "Un turno tiene cinco fases:\n"
	  "1. Tu carta boca abajo se pone boca arriba (y un Acueducto construido se rellena con 1 agua).\n"
	  "2. Juega una de tus tres cartas y usa su acción (opcional). Después cámbiala por una carta boca arriba de otro lado: "
	  "la que tomas llega boca abajo y la jugada queda boca arriba en su lugar.\n"
	  "3. Poder militar: gasta un Centurión para usar otra carta boca arriba de tu lado (ver poder militar).\n"
	  "4. Tira todos tus dados, elige un valor y usa una carta de favor boca arriba con número igual o menor, o paga el impuesto (ver favores).\n"
	  "5. Las fichas de privilegio ganadas en el turno se cambian por cartas de privilegio (ver privilegios).\n"
	  "Las cartas de privilegio de tipo A y B se pueden jugar en cualquier decisión de tu turno.\n"
	  "Una carta boca abajo no es secreta: todos la vieron repartir o coger boca arriba, así que el tablero la nombra entre corchetes.\n"
	  "Cuando una decisión tiene una sola respuesta posible y no tienes cartas de privilegio, el bot la toma por ti y lo anota en el registro." }, NULL },
	{ "actions", { "Action cards", "Cartas de acción" }, {
	  "Twelve action cards, one copy each. Every action is optional; the played card is exchanged anyway.\n"
	  "Harvests pay water for extra goods. A Centurion costs 1, 2 or 3 coins and a Priestess 1, 3 or 5, by the position it fills on your track; "
	  "the one you start with fills position 1, so your next Centurion costs 2 and your next Priestess 3 (at most 3 of each).\n"
	  "Corruption pays 1 coin to a card's owner (the bank for an empty side) to use that card, face up or down, but never the Fortuna card.\n"
	  "Family when married may first roll your dice early; that roll counts as the phase 4 roll.\n"
	  "The holder of the Fortuna card starts the next round. Each card's own text can be asked for by its name.",
	  "Doce cartas de acción, una de cada. Toda acción es opcional; la carta jugada se cambia igualmente.\n"
	  "Las cosechas gastan agua para obtener más. Un Centurión cuesta 1, 2 o 3 monedas y una Sacerdotisa 1, 3 o 5, según la posición que ocupa en tu marcador; "
	  "la inicial ocupa la posición 1, así que tu siguiente Centurión cuesta 2 y tu siguiente Sacerdotisa 3 (como máximo 3 de cada).\n"
	  "Corrupción paga 1 moneda al dueño de una carta (a la banca si es un lado vacío) para usarla, boca arriba o abajo, pero nunca la Carta Fortuna.\n"
	  "Familia, si estás casado, permite tirar antes los dados; esa tirada cuenta como la de la fase 4.\n"
	  "Quien tiene la Carta Fortuna empieza la ronda siguiente. El texto de cada carta se puede pedir por su nombre." },
	  actions_list },
	{ "military", { "Military power", "Poder militar" }, {
	  "After phase 2, a player who has a Centurion may return it to the supply to use one of the two face-up cards "
	  "still on its own side. The card is used but stays where it is (no exchange).\n"
	  "A Corruption card used this way may itself use a card of another side.\n"
	  "It is optional; a type A «1 Centurion» privilege card can provide the Centurion.",
	  "Tras la fase 2, quien tenga un Centurión puede devolverlo a la reserva para usar una de las dos cartas boca arriba "
	  "que siguen en su lado. La carta se usa pero no se mueve (no hay intercambio).\n"
	  "Una Corrupción usada así puede a su vez usar una carta de otro lado.\n"
	  "Es opcional; una carta de privilegio «1 Centurión» de tipo A puede dar el Centurión." }, NULL },
	{ "favours", { "Favour cards", "Cartas de favor" }, {
	  "Phase 4: roll all your dice and keep one value. You may use one face-up favour card whose number is at most that value.\n"
	  "Using it moves your pawn towards Rome, turns the card face down and gives you its privilege tokens.\n"
	  "Delivering to cards 1–4 is voluntary: if you refuse, or cannot, you pay the tax: 1 coin, or 1 step back when penniless.\n"
	  "If no face-up card is low enough, nothing happens (no tax).\n"
	  "Cards 5 and 6 ask for nothing: a player able to advance with them is never taxed.\n"
	  "Deliveries beyond the steps left to the Palace are not offered.",
	  "Fase 4: tira todos tus dados y quédate con un valor. Puedes usar una carta de favor boca arriba cuyo número no supere ese valor.\n"
	  "Al usarla tu peón avanza hacia Roma, la carta se pone boca abajo y te llevas sus fichas de privilegio.\n"
	  "Entregar a las cartas 1–4 es voluntario: si no quieres o no puedes, pagas el impuesto: 1 moneda, o retrocedes 1 paso si no tienes dinero.\n"
	  "Si ninguna carta boca arriba es lo bastante baja, no pasa nada (sin impuesto).\n"
	  "Las cartas 5 y 6 no piden nada: quien puede avanzar con ellas nunca paga impuesto.\n"
	  "No se ofrecen entregas de más pasos de los que faltan hasta el Palacio." },
	  favours_list },
	{ "privileges", { "Privileges", "Privilegios" }, {
	  "Tokens won in phase 4 become cards in phase 5: with 1 token draw 1 card; with 2 or 3 draw that many and keep 1 (2 with a Basilica). "
	  "The others are discarded face up.\n"
	  "Type A: a one-off gain, played at any decision of your turn (even if it gives nothing).\n"
	  "Type B: one step towards Rome; at most one per turn.\n"
	  "Type C: victory points at the end, only for players inside Rome. Each unit counts for one card; the bot assigns them for the best total.\n"
	  "A player who kept a card this turn may still play A/B cards before ending it. An empty deck is refilled from the discards.",
	  "Las fichas ganadas en la fase 4 se cambian por cartas en la fase 5: con 1 ficha robas 1 carta; con 2 o 3 robas esas y te quedas 1 (2 con Basílica). "
	  "Las demás se descartan boca arriba.\n"
	  "Tipo A: una ganancia única, jugada en cualquier decisión de tu turno (aunque no dé nada).\n"
	  "Tipo B: un paso hacia Roma; como mucho una por turno.\n"
	  "Tipo C: puntos de victoria al final, solo para quien está dentro de Roma. Cada unidad cuenta para una sola carta; el bot las reparte para el mejor total.\n"
	  "Quien se quedó una carta en el turno aún puede jugar cartas A/B antes de terminarlo. Si el mazo se agota se baraja el descarte." },
	  privs_list },
	{ "buildings", { "Buildings", "Edificios" }, {
	  "The Construction card builds one building. At most three per player, each kind once; the Palace needs you to be married.",
	  "La carta Construir levanta un edificio. Como máximo tres por jugador, cada tipo una vez; el Palacio exige estar casado." },
	  buildings_list },
	{ "rome", { "Rome and the Palace", "Roma y el Palacio" }, {
	  "Step 10 is the gate of Rome: from there on your privilege points will count.\n"
	  "Step 15 is the Palace. Reaching it makes the current round the last one.\n"
	  "At the end of that turn the first arrival takes the 3 tokens above the Palace, draws 3 privilege cards and keeps 1 "
	  "(the Basilica does not help); the rest stay at the Palace.\n"
	  "Each later arrival keeps one of the cards left there.\n"
	  "A player pushed back from 15 by the tax keeps its arrival.",
	  "El paso 10 es la puerta de Roma: desde ahí cuentan tus puntos de privilegio.\n"
	  "El paso 15 es el Palacio. Llegar a él hace que la ronda en curso sea la última.\n"
	  "Al final de ese turno el primero en llegar se lleva las 3 fichas del Palacio, roba 3 cartas de privilegio y se queda 1 "
	  "(la Basílica no ayuda); el resto se quedan en el Palacio.\n"
	  "Cada jugador que llegue después se queda una de las cartas que queden allí.\n"
	  "Quien retrocede desde el 15 por el impuesto conserva su llegada." }, NULL },
	{ "round", { "End of round", "Fin de ronda" }, {
	  "When everybody has played, each face-up favour card receives one token from the reserve (at most 3 per card, cards 1 to 6 while tokens last).\n"
	  "Then all favour cards turn face up again.\n"
	  "New turn order: the holder of the Fortuna card goes first, the others by money, richest first; "
	  "ties go to the player closer clockwise after the first (clockwise is the order of the seats in the game's list).\n"
	  "If the Fortuna card lies on an empty side, the richest player starts.",
	  "Cuando todos han jugado, cada carta de favor boca arriba recibe una ficha de la reserva (máximo 3 por carta, de la 1 a la 6 mientras queden).\n"
	  "Después todas las cartas de favor vuelven a ponerse boca arriba.\n"
	  "Nuevo orden: primero quien tiene la Carta Fortuna, los demás por dinero, de más a menos; "
	  "los empates, para el más cercano en sentido horario tras el primero (el sentido horario es el orden de los asientos de la partida).\n"
	  "Si la Carta Fortuna está en un lado vacío, empieza el jugador más rico." }, NULL },
	{ "scoring", { "Scoring", "Puntuación" }, {
	  "The game ends after the round in which someone reached the Palace (or, as a safety net, after round 100).\n"
	  "Score: 1 point per step, plus the type C privilege cards for players with 10 or more steps. "
	  "Unplayed A/B cards score nothing.\n"
	  "Only players inside Rome can win. Ties: more steps, then money, Centurions and Priestesses, counted as held at the end "
	  "(before anything is delivered to a type C card); then the win is shared.",
	  "La partida termina tras la ronda en que alguien llegó al Palacio (o, como red de seguridad, tras la ronda 100).\n"
	  "Puntos: 1 por paso, más las cartas de privilegio de tipo C de quien tenga 10 pasos o más. "
	  "Las cartas A/B sin jugar no puntúan.\n"
	  "Solo puede ganar quien está dentro de Roma. Empates: más pasos, luego dinero, Centuriones y Sacerdotisas, contados como se tienen al final "
	  "(antes de entregar nada a una carta de tipo C); si persiste, victoria compartida." }, NULL },
	{ "variants", { "Variants", "Variantes" }, {
	  "Options when creating a game:\n"
	  "• (none): random deal of the action cards.\n"
	  "• draft: for experienced players. The first player keeps the Fortuna card; the others pick from the 11 cards, "
	  "last in turn order first, then the one before it, and so on; twice round, then a third round without the first player. "
	  "Leftover cards go to the empty sides.\n"
	  "• With 2 players the first player of a round may, after its phase 4, turn one face-up favour card without tokens face down.",
	  "Opciones al crear la partida:\n"
	  "• (ninguna): reparto al azar de las cartas de acción.\n"
	  "• draft: para jugadores expertos. El primer jugador se queda la Carta Fortuna; los demás eligen entre las 11 cartas, "
	  "empezando por el último del orden y siguiendo hacia atrás; dos vueltas y una tercera sin el primer jugador. "
	  "Las cartas sobrantes van a los lados vacíos.\n"
	  "• Con 2 jugadores el primero de la ronda puede, tras su fase 4, poner boca abajo una carta de favor boca arriba sin fichas." }, NULL },
};

#define NTOPICS ((int)(sizeof topics / sizeof topics[0]))

/* ---- the cards ---- */

enum { K_ACTION, K_FAVOUR, K_PRIV, K_BUILDING };

struct cref {
	int kind, i;
};

static const char *const favour_text[FF_COUNT][LOC_COUNT] = {
	[FF_WATER] = { "Deliver 1 water: advance 1 step.",
		       "Entrega 1 agua: avanzas 1 paso." },
	[FF_WINE] = { "Deliver 1 or 2 wine: advance 1 step per wine.",
		      "Entrega 1 o 2 vinos: avanzas 1 paso por vino." },
	[FF_GRAIN] = { "Deliver 1 or 2 grain: advance 1 step per grain.",
		       "Entrega 1 o 2 granos: avanzas 1 paso por grano." },
	[FF_BATTLE] = { "Deliver Centurions: advance 1 step per Centurion.",
			"Entrega Centuriones: avanzas 1 paso por Centurión." },
	[FF_FORTUNA] = { "If you are married: advance 1 step (2 with a Palace). Nothing to deliver.",
			 "Si estás casado: avanzas 1 paso (2 con Palacio). No hay que entregar nada." },
	[FF_RELIGION] = { "Advance 1 step per Priestess you have (you keep them). Nothing to deliver.",
			  "Avanzas 1 paso por Sacerdotisa que tengas (te las quedas). No hay que entregar nada." },
};

static const char *const building_text[FB_COUNT][LOC_COUNT] = {
	[FB_MARKET] = { "Sell grain and Sell wine pay 1 coin more per unit.",
			"Vender grano y Vender vino pagan 1 moneda más por unidad." },
	[FB_AQUEDUCT] = { "Holds 1 water of its own, refilled at the start of your turn when empty (from the round after it was built). "
			  "It is your water for every payment and is spent first.",
			  "Guarda 1 agua propia, que se rellena al empezar tu turno si está vacío (desde la ronda siguiente a construirlo). "
			  "Es agua tuya para cualquier pago y se gasta primero." },
	[FB_PALACE] = { "Only when married. The favour card 5 (Fortuna) moves you 2 steps instead of 1.",
			"Solo si estás casado. La carta de favor 5 (Fortuna) te hace avanzar 2 pasos en vez de 1." },
	[FB_BASILICA] = { "When 2 or 3 privilege tokens give you cards, keep 2 instead of 1 (not at the Palace).",
			  "Cuando 2 o 3 fichas de privilegio te dan cartas, te quedas 2 en vez de 1 (no en el Palacio)." },
};

static const char *const action_text[FA_COUNT][LOC_COUNT] = {
	[FA_WATER] = { "Take 2 water from the supply.", "Toma 2 agua de la reserva." },
	[FA_GRAIN] = { "Take 2 grain, plus 1 more for each water you pay.",
		       "Toma 2 granos, más 1 por cada agua que pagues." },
	[FA_WINE] = { "Take 1 wine, plus 1 more for each water you pay.",
		      "Toma 1 vino, más 1 por cada agua que pagues." },
	[FA_SELL_GRAIN] = { "Sell any grain for 2 coins each (3 with a Market). Money is capped at 20.",
			    "Vende el grano que quieras a 2 monedas (3 con Mercado). El dinero tiene un máximo de 20." },
	[FA_SELL_WINE] = { "Sell any wine for 3 coins each (4 with a Market). Money is capped at 20.",
			   "Vende el vino que quieras a 3 monedas (4 con Mercado). El dinero tiene un máximo de 20." },
	[FA_CENTURIONS] = { "Buy Centurions, up to 3 in all. Each costs what the position it fills on your Military Power track says: "
			    "position 1 costs 1 coin, 2 costs 2, 3 costs 3.\nThe Centurion you start with fills position 1, so your next one costs 2. "
			    "A Centurion you give away leaves from the top (the dearest position).",
			    "Compra Centuriones, hasta 3 en total. Cada uno cuesta lo que indica la posición que ocupa en tu marcador de Poder Militar: "
			    "la posición 1 cuesta 1 moneda, la 2 cuesta 2 y la 3 cuesta 3.\nEl Centurión inicial ocupa la posición 1, así que el siguiente cuesta 2. "
			    "El Centurión que entregas sale de arriba (la posición más cara)." },
	[FA_PRIESTESSES] = { "Buy Priestesses, up to 3 in all. Each costs what the position it fills on your Religious Influence track says: "
			     "position 1 costs 1 coin, 2 costs 3, 3 costs 5.\nThe Priestess you start with fills position 1, so your next one costs 3. "
			     "A Priestess you give away leaves from the top.",
			     "Compra Sacerdotisas, hasta 3 en total. Cada una cuesta lo que indica la posición que ocupa en tu marcador de Influencia Religiosa: "
			     "la posición 1 cuesta 1 moneda, la 2 cuesta 3 y la 3 cuesta 5.\nLa Sacerdotisa inicial ocupa la posición 1, así que la siguiente cuesta 3. "
			     "La Sacerdotisa que entregas sale de arriba." },
	[FA_CLERGY] = { "Return a Priestess to the supply for an extra die (3 dice at most).",
			"Devuelve una Sacerdotisa a la reserva a cambio de un dado más (como máximo 3 dados)." },
	[FA_FAMILY] = { "Unmarried: marry for 3 coins. Married: take 1 grain, 1 wine or 3 coins; you may roll your dice first.",
			"Soltero: cásate por 3 monedas. Casado: toma 1 grano, 1 vino o 3 monedas; antes puedes tirar los dados." },
	[FA_BUILD] = { "Build one building, paying its cost (Market 0, Aqueduct 1, Palace 2, Basilica 3).",
		       "Construye un edificio pagando su coste (Mercado 0, Acueducto 1, Palacio 2, Basílica 3)." },
	[FA_CORRUPTION] = { "Pay 1 coin to use a card of another side (not the Fortuna card), or take 2 coins.",
			    "Paga 1 moneda para usar una carta de otro lado (no la Carta Fortuna), o toma 2 monedas." },
	[FA_FORTUNA] = { "Advance 1 step. Whoever holds it at the end of the round plays first in the next.",
			 "Avanza 1 paso. Quien la tenga al final de la ronda juega primero en la siguiente." },
};

static int ncards(void)
{
	return FA_COUNT + FF_COUNT + FP_COUNT + FB_COUNT;
}

/* Other names the rulebook gives a card: card() accepts them too (they are
 * not listed by card_names: each card once). */
static const struct {
	const char *name;	/* folded */
	int card;		/* index among ncards() */
} aliases[] = {
	/* the summary sheet's "Cartas de edificio"; "Construir" in the
	 * Military Power example */
	{ "edificio", FA_BUILD },
};

#define NALIASES ((int)(sizeof aliases / sizeof aliases[0]))

static struct cref cref_of(int n)
{
	if (n < FA_COUNT)
		return (struct cref){ K_ACTION, n };
	n -= FA_COUNT;
	if (n < FF_COUNT)
		return (struct cref){ K_FAVOUR, n };
	n -= FF_COUNT;
	if (n < FP_COUNT)
		return (struct cref){ K_PRIV, n };
	return (struct cref){ K_BUILDING, n - FP_COUNT };
}

/* Appends s without the «» quotes of privilege names. */
static void add_unquoted(struct buf *out, const char *s)
{
	while (*s) {
		if (!strncmp(s, "«", strlen("«")))
			s += strlen("«");
		else if (!strncmp(s, "»", strlen("»")))
			s += strlen("»");
		else
			buf_addch(out, *s++);
	}
}

/* The card's display name (privileges without quotes), appended. */
static void card_name(int n, enum locale loc, struct buf *out)
{
	struct cref c = cref_of(n);

	switch (c.kind) {
	case K_ACTION: buf_addstr(out, fortuna_actions[c.i].name[loc]); break;
	case K_FAVOUR: buf_addstr(out, fortuna_favours[c.i].name[loc]); break;
	case K_PRIV: add_unquoted(out, fortuna_privs[c.i].name[loc]); break;
	default: buf_addstr(out, fortuna_buildings[c.i].name[loc]); break;
	}
}

/* ---- matching: exact name, then exact id, then a unique prefix ---- */

/* Key k of entry i (0 id, 1 English, 2 Spanish), folded, into out. */

static void fold_unquoted(const char *s, struct buf *out)
{
	struct buf t = BUF_INIT;

	add_unquoted(&t, s);
	text_fold(buf_str(&t), out);
	buf_release(&t);
}

static void topic_key(int i, int k, struct buf *out)
{
	fold_unquoted(k ? topics[i].name[k - 1] : topics[i].id, out);
}

static void card_key(int i, int k, struct buf *out)
{
	struct buf t = BUF_INIT;
	struct cref c;

	if (i >= ncards()) {
		buf_addstr(out, aliases[i - ncards()].name);
		return;
	}
	c = cref_of(i);
	if (k) {
		card_name(i, (enum locale)(k - 1), &t);
	} else {
		switch (c.kind) {
		case K_ACTION: buf_addstr(&t, fortuna_actions[c.i].id); break;
		case K_FAVOUR: buf_addstr(&t, fortuna_favours[c.i].id); break;
		case K_PRIV: buf_addstr(&t, fortuna_privs[c.i].id); break;
		default: buf_addstr(&t, fortuna_buildings[c.i].id); break;
		}
	}
	text_fold(buf_str(&t), out);
	buf_release(&t);
}


/* game_lookup() on the query without its quotes. */
static int find(const char *q, int n, game_key_fn key, int *cand, int *nc)
{
	struct buf t = BUF_INIT;
	int r;

	add_unquoted(&t, q);
	r = game_lookup(buf_str(&t), n, key, cand, nc);
	buf_release(&t);
	return r;
}

/* ---- rendering ---- */

int fortuna_rules(const char *topic, enum locale loc, struct rich *out)
{
	int cand[GAME_LOOKUP_MAX], nc, t = -1;

	if (topic && *topic && (t = find(topic, NTOPICS, topic_key, cand, &nc)) < 0)
		t = -2;
	return game_rules_render("Fortuna", topics, NTOPICS, t, topic, loc, out);
}

static void favours_list(enum locale loc, struct rich *out)
{
	int f;

	for (f = 0; f < FF_COUNT; f++)
		rich_line(out, "• %d %s: %s", f + 1, fortuna_favours[f].name[loc],
			  favour_text[f][loc]);
}

static void buildings_list(enum locale loc, struct rich *out)
{
	int b;

	for (b = 0; b < FB_COUNT; b++)
		rich_line(out, L(loc, "• %s (%d coins): %s", "• %s (%d monedas): %s"),
			  fortuna_buildings[b].name[loc], fortuna_building_cost[b],
			  building_text[b][loc]);
}

static void privs_list(enum locale loc, struct rich *out)
{
	static const char *const tname[] = { "A", "B", "C" };
	int k;

	for (k = 0; k < FP_COUNT; k++)
		rich_line(out, L(loc, "• %s %s: %d cards (%d with 2–3 players)",
				 "• %s %s: %d cartas (%d con 2–3 jugadores)"),
			  tname[fortuna_privs[k].type], fortuna_privs[k].name[loc],
			  fortuna_priv_copies(k, 4), fortuna_priv_copies(k, 3));
}

static void priv_effect(int k, enum locale loc, struct rich *out)
{
	const struct fortuna_priv_info *p = &fortuna_privs[k];

	switch (p->type) {
	case FPT_A:
		rich_line(out, "%s", L(loc, "Type A: play it at any decision of your turn, then discard it.",
				       "Tipo A: juégala en cualquier decisión de tu turno y descártala."));
		if (k <= FP_WINE_ANY)
			rich_line(out, L(loc, "Gain 1 %s and 1 resource of your choice (water, grain or wine).",
					 "Ganas 1 %s y 1 recurso a elegir (agua, grano o vino)."),
				  fortuna_resources[k - FP_WATER_ANY].name[loc]);
		else
			rich_line(out, "%s", k == FP_PRIESTESS ?
				  L(loc, "Gain 1 Priestess (nothing if you already have 3).",
				    "Ganas 1 Sacerdotisa (nada si ya tienes 3).") :
				  L(loc, "Gain 1 Centurion (nothing if you already have 3).",
				    "Ganas 1 Centurión (nada si ya tienes 3)."));
		break;
	case FPT_B:
		rich_line(out, "%s", L(loc, "Type B: play it at any decision of your turn to advance 1 step; one per turn.",
				       "Tipo B: juégala en cualquier decisión de tu turno para avanzar 1 paso; una por turno."));
		break;
	default:
		rich_line(out, "%s", L(loc, "Type C: keep it; it scores at the end if you are inside Rome (10+ steps).",
				       "Tipo C: guárdala; puntúa al final si estás dentro de Roma (10 pasos o más)."));
		if (p->unit == FU_BUILDING)
			rich_line(out, "%s", L(loc, "2 points per building you own (at most 3). Each such card counts your buildings on its own.",
					       "2 puntos por edificio que tengas (máximo 3). Cada carta así cuenta tus edificios por separado."));
		else
			rich_line(out, "%s", L(loc, "Each unit you hold counts for one card only: several cards of a kind share your units.",
					       "Cada unidad que tengas cuenta para una sola carta: varias cartas iguales se reparten tus unidades."));
		break;
	}
	rich_line(out, L(loc, "Copies: %d (%d with 2–3 players).", "Copias: %d (%d con 2–3 jugadores)."),
		  fortuna_priv_copies(k, 4), fortuna_priv_copies(k, 3));
}

static void card_text(int n, enum locale loc, struct rich *out)
{
	struct cref c = cref_of(n);
	struct buf en = BUF_INIT, es = BUF_INIT;

	card_name(n, LOC_EN, &en);
	card_name(n, LOC_ES, &es);
	rich_heading(out, "%s", loc == LOC_ES ? buf_str(&es) : buf_str(&en));
	if (loc == LOC_ES)
		rich_line(out, "Español: %s · inglés: %s", buf_str(&es), buf_str(&en));
	else
		rich_line(out, "English: %s · Spanish: %s", buf_str(&en), buf_str(&es));
	switch (c.kind) {
	case K_ACTION:
		rich_line(out, L(loc, "Action card (one copy): %s.", "Carta de acción (una copia): %s."),
			  fortuna_actions[c.i].effect[loc]);
		game_rich_lines(action_text[c.i][loc], out);
		if (c.i == FA_BUILD)
			rich_line(out, "%s", L(loc, "The rulebook also calls it Edificio (\"Cartas de edificio\").",
					       "El reglamento también la llama Edificio («Cartas de edificio»)."));
		break;
	case K_FAVOUR:
		rich_line(out, L(loc, "Favour card %d: usable with a die of %d or more.",
				 "Carta de favor %d: se usa con un dado de %d o más."), c.i + 1, c.i + 1);
		rich_line(out, "%s", favour_text[c.i][loc]);
		rich_line(out, "%s", L(loc, "Advancing with it turns it face down and gives you its privilege tokens.",
				       "Avanzar con ella la pone boca abajo y te da sus fichas de privilegio."));
		break;
	case K_PRIV:
		rich_line(out, "%s", L(loc, "Privilege card.", "Carta de privilegio."));
		priv_effect(c.i, loc, out);
		break;
	default:
		rich_line(out, L(loc, "Building: costs %d coins; built with the Construction card.",
				 "Edificio: cuesta %d monedas; se levanta con la carta Construir."),
			  fortuna_building_cost[c.i]);
		rich_line(out, "%s", building_text[c.i][loc]);
		rich_line(out, "%s", L(loc, "Copies: 3 with 4 players, 2 with 2–3.",
				       "Copias: 3 con 4 jugadores, 2 con 2–3."));
		break;
	}
	buf_release(&en);
	buf_release(&es);
}

int fortuna_card(const char *name, const char *options, enum locale loc, struct rich *out)
{
	int cand[GAME_LOOKUP_MAX], nc, n, i, j, k;

	n = find(name ? name : "", ncards() + NALIASES, card_key, cand, &nc);
	if (n >= ncards())
		n = aliases[n - ncards()].card;
	/* an alias and its card both matching a prefix are one card */
	for (i = k = 0; i < nc; i++) {
		int c = cand[i] >= ncards() ? aliases[cand[i] - ncards()].card : cand[i];

		for (j = 0; j < k && cand[j] != c; j++)
			;
		if (j == k)
			cand[k++] = c;
	}
	nc = k;
	if (n < 0 && nc == 1)
		n = cand[0];
	if (n >= 0) {
		card_text(n, loc, out);
		return 0;
	}
	return game_card_unknown(name, cand, nc, card_name, loc, out);
}

void fortuna_card_names(enum locale loc, struct buf *out)
{
	int n;

	for (n = 0; n < ncards(); n++) {
		card_name(n, loc, out);
		buf_addch(out, '\n');
	}
}
