/*
 * rules.c: Sylla's in-bot rule summaries and card texts (game_ops.rules,
 * .card, .card_names).
 *
 * The summaries are the project's own words for players at the table (or
 * in the chat); where docs/games/sylla.md records a ruling they follow it.
 * Names and numbers come from cards.c.
 */
#include <string.h>

#include "games/sylla/sylla.h"
#include "util/text.h"

static void characters_table(enum locale loc, struct rich *out)
{
	struct buf b = BUF_INIT;
	int k;

	for (k = 0; k < SY_PER_SET; k++) {
		buf_reset(&b);
		sylla_char_name(k, loc, &b);
		rich_line(out, "\xe2\x80\xa2 %s", buf_str(&b));
	}
	rich_line(out, "%s", L(loc, "Hexagons: R red, Y yellow, G grey. \xe2\x9c\x9d Christian.",
			       "Hexágonos: R rojo, A amarillo, G gris. \xe2\x9c\x9d cristiano."));
	buf_release(&b);
}

static void tracks_table(enum locale loc, struct rich *out)
{
	struct buf b = BUF_INIT;
	int i;

	for (i = 0; i <= SY_TRACK_MAX; i++)
		buf_printf(&b, "%s%d:%d", i ? " " : "", i, sylla_track_value[i]);
	rich_line(out, L(loc, "Position:prestige per token \xe2\x80\x94 %s (0-1 is the crisis zone).",
			 "Posición:prestigio por ficha \xe2\x80\x94 %s (0-1 es la zona de crisis)."), buf_str(&b));
	buf_release(&b);
}

static const struct game_topic topics[] = {
	{ "overview", { "Overview", "Resumen" }, {
	  "Rome, 79 BC: Sylla is about to step down and you are senators chasing prestige. Five turns, seven phases each.\n"
	  "Your characters buy buildings with their coloured hexagons, or use their own power: Senators vote, Merchants earn, "
	  "Vestals and Legionaries fight the events, Slaves only buy (and may be freed at the end).\n"
	  "Money and Res Publica tokens stay behind your screen. The three Res Publica markers (civic spirit, health, leisure) "
	  "decide what each token is worth at the end; the famine marker costs prestige every turn.\n"
	  "After turn 5, Ecclesia is built: Christians score, slaves may be freed, tokens are counted. Most prestige wins; ties share.",
	  "Roma, año 79 a. C.: Sylla va a abdicar y sois senadores que buscan prestigio. Cinco turnos de siete fases.\n"
	  "Tus personajes compran edificios con sus hexágonos de color, o usan su poder: los Senadores votan, los Comerciantes "
	  "ganan dinero, Vestales y Legionarios luchan contra los eventos y los Esclavos solo compran (y al final se pueden liberar).\n"
	  "El dinero y las fichas Res Publica quedan tras tu pantalla. Los tres marcadores Res Publica (espíritu cívico, salud, ocio) "
	  "fijan lo que vale cada ficha al final; la hambruna cuesta prestigio cada turno.\n"
	  "Tras el turno 5 se construye Ecclesia: puntúan los cristianos, se pueden liberar esclavos y se cuentan las fichas. "
	  "Gana quien tenga más prestigio; los empates comparten la victoria." }, NULL },
	{ "setup", { "Setup", "Preparación" }, {
	  "Each player gets an income tile (I to IV) at random and the ten characters of that set, chooses 4 of them in secret "
	  "(6 with 3 players) and reveals them when everybody has chosen; the rest join the shuffled deck, and 6 are shown (5 with 3).\n"
	  "Money: 3 denarii plus 1 per Merchant chosen. Prestige starts at 10. The holder of tile I is the first First Consul.\n"
	  "Buildings: letters C, B, A stacked so A comes first; 6 for sale. Events: the Decadence stays below three face-up events. "
	  "Great Works: shuffled face up; the first is removed, so everybody knows which one will never be built.",
	  "Cada jugador recibe al azar una loseta de ingresos (I a IV) y los diez personajes de ese juego, elige 4 en secreto "
	  "(6 con 3 jugadores) y los revela cuando todos han elegido; el resto va al mazo barajado y se muestran 6 (5 con 3).\n"
	  "Dinero: 3 denarios más 1 por Comerciante elegido. El prestigio empieza en 10. Quien tiene la loseta I es el primer Primer Cónsul.\n"
	  "Edificios: letras C, B y A apiladas para que salga primero la A; 6 a la venta. Eventos: la Decadencia siempre debajo de tres "
	  "eventos boca arriba. Grandes Obras: barajadas boca arriba; la primera se retira y todos saben cuál no se construirá." },
	  characters_table },
	{ "consul", { "First Consul (I)", "Primer Cónsul (I)" }, {
	  "Election: starting with the last First Consul and going round once, each player passes or offers more votes than the best "
	  "offer so far. Votes are face-up Senators plus denarii.\n"
	  "The best offer wins; only the winner pays, in denarii, what its "
	  "Senators did not cover. If nobody offers, the First Consul stays.\n"
	  "With the sealed-election option everybody offers at once in secret (pass, or denarii added to their Senators); the offers "
	  "are revealed together and a tie goes to the player seated first from the last First Consul.\n"
	  "The First Consul then takes a Res Publica token of their choice (its colour is shown) and moves the famine marker one "
	  "space per hunger symbol on the four events in play (at most 6).\n"
	  "The First Consul also puts the first building up for sale, places the first cube and breaks the ties of the events.",
	  "Elección: empezando por el último Primer Cónsul y dando una vuelta, cada jugador pasa u ofrece más votos que la mejor oferta "
	  "hasta el momento. Los votos son los Senadores boca arriba más los denarios.\n"
	  "Gana la mejor oferta; solo paga el ganador, en "
	  "denarios, lo que no cubran sus Senadores. Si nadie ofrece nada, sigue el mismo Primer Cónsul.\n"
	  "Con la opción sealed-election todos ofrecen a la vez en secreto (pasar, o denarios sumados a sus Senadores); las ofertas se "
	  "revelan juntas y un empate es para quien se sienta antes contando desde el último Primer Cónsul.\n"
	  "Después el Primer Cónsul toma una ficha Res Publica a su elección (enseñando el color) y avanza la hambruna una casilla por "
	  "símbolo de hambre de los cuatro eventos en juego (como mucho hasta 6).\n"
	  "El Primer Cónsul también pone a la venta el primer edificio, coloca el primer cubo y deshace los empates de los eventos." }, NULL },
	{ "recruit", { "Recruitment (II)", "Reclutamiento (II)" }, {
	  "From the First Consul, clockwise, each player takes one of the characters for hire. The ones left go under the deck.",
	  "Desde el Primer Cónsul, en el sentido del reloj, cada jugador toma uno de los personajes disponibles. Los que quedan van "
	  "debajo del mazo." }, NULL },
	{ "buildings", { "Buildings (III)", "Edificios (III)" }, {
	  "Five buildings are put up for sale (four with 3 players). The First Consul offers the first, then whoever bought last "
	  "(the same player again when nobody bought).\n"
	  "The slot sets the sale colour: the first two red, the next two yellow, the last two grey.\n"
	  "Starting after the offerer and "
	  "ending with the offerer, each player bids once or passes; a bid is a number of your untapped face-up characters with that "
	  "colour (a card counts once, whatever its hexagons; a Crane counts for any colour) and must beat the best bid.\n"
	  "The best bid takes the building and turns that many characters: they lose their power for the rest of the turn. "
	  "Nobody bids: the building is discarded. The building left at the end is removed.",
	  "Se ponen a la venta cinco edificios (cuatro con 3 jugadores). El Primer Cónsul ofrece el primero y luego quien haya comprado "
	  "el último (el mismo jugador otra vez si nadie compró).\n"
	  "La posición fija el color de venta: las dos primeras rojo, las dos siguientes amarillo, las dos últimas gris.\n"
	  "Empezando "
	  "después de quien ofrece y acabando por él, cada jugador puja una vez o pasa; una puja es un número de tus personajes boca "
	  "arriba sin girar con ese color (una carta cuenta una vez, tenga los hexágonos que tenga; una Grúa vale por cualquier color) "
	  "y debe superar la mejor.\n"
	  "La mejor puja se lleva el edificio y gira esos personajes: pierden su poder el resto del turno. Si nadie puja, el edificio "
	  "se descarta. El que sobra al final se retira." }, NULL },
	{ "income", { "Income (IV)", "Ingresos (IV)" }, {
	  "From the First Consul, each player takes 3 denarii (the income tile), 2 per face-up Stall and 1 per face-up untapped Merchant.\n"
	  "Then each may use each Private Temple (2 denarii for a secret token of any colour) and each Tavern (move a Res Publica marker one "
	  "space either way, one that no Tavern moved this phase; at an end it only blocks it).",
	  "Desde el Primer Cónsul, cada jugador toma 3 denarios (la loseta), 2 por Puesto boca arriba y 1 por Comerciante boca arriba sin "
	  "girar.\n"
	  "Después puede usar cada Templo privado (2 denarios por una ficha secreta del color que quiera) y cada Taberna (mover un "
	  "marcador Res Publica una casilla en cualquier sentido, uno que ninguna Taberna haya movido en la fase; en un extremo solo lo "
	  "bloquea)." }, NULL },
	{ "events", { "Events (V)", "Eventos (V)" }, {
	  "Each player gets a cube per face-up untapped Vestal and Legionary. From the First Consul, round by round, each places one: "
	  "a Vestal cube on an event marked V, a Legionary cube on one marked L.\n"
	  "On each of the three upper events, the player(s) with most cubes take a token of its colour (shown); on the Decadence they "
	  "gain 1 prestige instead.\n"
	  "The two events with most cubes are avoided; the other two happen, the upper one first. The First Consul breaks ties.\n"
	  "Of the two avoided, the one with more cubes is removed from the game (the First Consul chooses on a tie; the Decadence is "
	  "never removed, the other goes instead), and a new event takes its place.\n"
	  "Events that turn cards face down are chosen by every player at once, in secret, and revealed together. A card stays face down "
	  "while a visible event still covers it.",
	  "Cada jugador recibe un cubo por Vestal y Legionario boca arriba sin girar. Desde el Primer Cónsul, por rondas, cada uno coloca "
	  "uno: un cubo de Vestal en un evento con V, uno de Legionario en un evento con L.\n"
	  "En cada uno de los tres eventos de arriba, quien tenga más cubos (todos los empatados) toma una ficha de su color (a la vista); "
	  "en la Decadencia gana 1 de prestigio.\n"
	  "Los dos eventos con más cubos se evitan; los otros dos suceden, primero el de más arriba. El Primer Cónsul deshace los empates.\n"
	  "De los dos evitados, el que tenga más cubos se retira del juego (el Primer Cónsul elige si empatan; la Decadencia nunca se "
	  "retira y se va el otro) y un evento nuevo ocupa su lugar.\n"
	  "Lo que ponen boca abajo los eventos lo elige cada jugador a la vez, en secreto, y se revela todo junto. Una carta sigue boca "
	  "abajo mientras un evento visible la afecte." }, NULL },
	{ "works", { "Great Works (VI)", "Grandes Obras (VI)" }, {
	  "The Great Work of the turn is put up and the next one becomes known. Everybody decides at once, in secret: thumb up to fund "
	  "it or thumb down to give to the plebeians, and how many denarii to add. Votes are untapped face-up Senators plus denarii; "
	  "all the denarii go to the bank.\n"
	  "Thumb down: 1 prestige per 2 votes. Thumb up: the Great Work scores the players who funded it with at least one vote "
	  "(see `card` for each) and may move a marker by the total votes of its funders.",
	  "Se saca la Gran Obra del turno y se conoce la siguiente. Todos deciden a la vez, en secreto: pulgar arriba para financiarla o "
	  "abajo para dar a los plebeyos, y cuántos denarios añaden.\n"
	  "Los votos son los Senadores boca arriba sin girar más los denarios; "
	  "todos los denarios van a la banca.\n"
	  "Pulgar abajo: 1 de prestigio por cada 2 votos. Pulgar arriba: la Gran Obra puntúa a quienes la financiaron con al menos un "
	  "voto (ver `card` de cada una) y puede mover un marcador según el total de votos de quienes la financiaron." }, NULL },
	{ "famine", { "Famine and crises (VII)", "Hambruna y crisis (VII)" }, {
	  "Each player loses as much prestige as the famine level, 2 less per face-up Field (never below 0 prestige, never a gain).\n"
	  "Then each Res Publica marker in the crisis zone (positions 0-1) makes a crisis: everybody shows their tokens of that colour; "
	  "the most gain 3 prestige, the fewest lose 3 (when all show as many, nothing happens).\n"
	  "End of turn: new characters and buildings are shown and every turned character stands up again.",
	  "Cada jugador pierde tanto prestigio como el nivel de hambruna, 2 menos por Campo boca arriba (nunca por debajo de 0, nunca se gana).\n"
	  "Después cada marcador Res Publica en la zona de crisis (posiciones 0-1) provoca una crisis: todos enseñan sus fichas de ese color; "
	  "quien más tenga gana 3 de prestigio y quien menos pierde 3 (si todos tienen las mismas, no pasa nada).\n"
	  "Fin del turno: se muestran personajes y edificios nuevos y los personajes girados se enderezan." }, tracks_table },
	{ "end", { "The end: Ecclesia", "Final: Ecclesia" }, {
	  "After the fifth turn, Ecclesia is built: each face-up Christian (turned or not) gives 2 prestige; then everybody decides "
	  "at once, in secret, how many face-up Slaves to free for 2 denarii each (+3 prestige each).\n"
	  "Then the tokens are shown and "
	  "each is worth what its marker's position says. Leftover money is worth nothing. Most prestige wins; ties share the win.",
	  "Tras el quinto turno se construye Ecclesia: cada cristiano boca arriba (girado o no) da 2 de prestigio; después todos deciden "
	  "a la vez, en secreto, cuántos Esclavos boca arriba liberan a 2 denarios cada uno (+3 de prestigio cada uno).\n"
	  "Por último se "
	  "enseñan las fichas y cada una vale lo que diga la posición de su marcador. El dinero sobrante no vale nada. Gana quien tenga "
	  "más prestigio; los empates comparten la victoria." }, NULL },
	{ "secret", { "Secret choices in the chat", "Elecciones secretas en el chat" }, {
	  "The first characters, the Great Work vote, what an event turns face down, the slaves freed (and the election with "
	  "sealed-election) are decided by everybody at once.\n"
	  "Make yours from your private moves (`moves`, the My moves button, or "
	  "your direct messages) in small steps, then `confirm`; `change` starts again until you confirm.\n"
	  "Nobody sees anything of your choice until everybody has confirmed; then one public message says who chose what.",
	  "Los primeros personajes, el voto de la Gran Obra, lo que un evento pone boca abajo, los esclavos liberados (y la elección con "
	  "sealed-election) se deciden a la vez.\n"
	  "Haz la tuya desde tus jugadas privadas (`moves`, el botón Mis jugadas o tus mensajes "
	  "directos) en pasos cortos y después `confirm`; `change` vuelve a empezar mientras no confirmes.\n"
	  "Nadie ve nada de tu elección hasta que todos han confirmado; entonces un mensaje público dice quién eligió qué." }, NULL },
	{ "three", { "Three players", "Tres jugadores" }, {
	  "With 3 players: income tiles I to III are dealt and set IV joins the deck; everybody chooses 6 characters instead of 4; "
	  "5 characters are shown each turn instead of 6; 4 buildings are sold instead of 5 and the last 2 are removed.",
	  "Con 3 jugadores: se reparten las losetas de ingresos I a III y el juego IV va al mazo; cada uno elige 6 personajes en vez de 4; "
	  "cada turno se muestran 5 personajes en vez de 6; se venden 4 edificios en vez de 5 y se retiran los 2 últimos." }, NULL },
	{ "options", { "Options", "Opciones" }, {
	  "`game new sylla` plays the rulebook. `game new sylla sealed-election`: the First Consul is elected by secret offers made "
	  "at once (see the First Consul topic).",
	  "`game new sylla` juega el reglamento. `game new sylla sealed-election`: el Primer Cónsul se elige con ofertas secretas "
	  "hechas a la vez (ver el tema del Primer Cónsul)." }, NULL },
};

#define NTOPICS ((int)(sizeof(topics) / sizeof(*topics)))

/* ---- cards ---- */

enum card_group { CG_KIND, CG_BUILDING, CG_EVENT, CG_WORK, CG_ECCLESIA, CG_INCOME, CG_COUNT };

#define NCARDS (SK_COUNT + SB_COUNT + SE_COUNT + SG_COUNT + 2)

static void card_at(int i, int *group, int *idx)
{
	static const int n[CG_COUNT] = { SK_COUNT, SB_COUNT, SE_COUNT, SG_COUNT, 1, 1 };
	int g;

	for (g = 0; g < CG_COUNT; g++) {
		if (i < n[g]) {
			*group = g;
			*idx = i;
			return;
		}
		i -= n[g];
	}
	*group = CG_INCOME;
	*idx = 0;
}

static const struct sylla_named income_tile = { "income tile", { "Income tile", "Loseta de ingresos" } };

static const struct sylla_named *card_named(int i)
{
	static const struct sylla_named dummy = { "?", { "?", "?" } };
	int g, k;

	card_at(i, &g, &k);
	switch (g) {
	case CG_KIND:
		return &sylla_kinds[k];
	case CG_BUILDING:
		return &sylla_buildings[k];
	case CG_ECCLESIA:
		return &sylla_ecclesia;
	case CG_INCOME:
		return &income_tile;
	default:
		return &dummy;
	}
}

static const char *card_id(int i)
{
	int g, k;

	card_at(i, &g, &k);
	if (g == CG_EVENT)
		return sylla_events[k].id;
	if (g == CG_WORK)
		return sylla_works[k].id;
	return card_named(i)->id;
}

static const char *card_name(int i, enum locale loc)
{
	int g, k;

	card_at(i, &g, &k);
	if (g == CG_EVENT)
		return sylla_events[k].name[loc];
	if (g == CG_WORK)
		return sylla_works[k].name[loc];
	return card_named(i)->name[loc];
}

static void card_name_to(int i, enum locale loc, struct buf *out)
{
	buf_addstr(out, card_name(i, loc));
}

static const char *const kind_power[SK_COUNT][LOC_COUNT] = {
	[SK_SENATOR] = { "one vote in the election (phase I) and, untapped, in the Great Work (phase VI)",
			 "un voto en la elección (fase I) y, sin girar, en la Gran Obra (fase VI)" },
	[SK_MERCHANT] = { "1 denarius at setup, and 1 in each income phase (IV) while untapped",
			  "1 denario al empezar, y 1 en cada fase de ingresos (IV) mientras no esté girado" },
	[SK_LEGIONARY] = { "a cube for the events marked L (phase V) while untapped",
			   "un cubo para los eventos marcados con L (fase V) mientras no esté girado" },
	[SK_VESTAL] = { "a cube for the events marked V (phase V) while untapped",
			"un cubo para los eventos marcados con V (fase V) mientras no esté girada" },
	[SK_SLAVE] = { "none of its own: it buys, in any of the colours of its three hexagons, and like every card it "
		       "counts once in a bid, whatever its hexagons; at the end it may be freed for 2 denarii (+3 prestige)",
		       "ninguno propio: compra, en cualquiera de los colores de sus tres hexágonos, y como toda carta "
		       "cuenta una vez en una puja, tenga los hexágonos que tenga; al final se puede liberar por 2 denarios "
		       "(+3 de prestigio)" },
};

static void card_text(int i, enum locale loc, struct rich *out)
{
	const char *en = card_name(i, LOC_EN), *es = card_name(i, LOC_ES);
	struct buf b = BUF_INIT;
	int g, k, c;

	card_at(i, &g, &k);
	rich_heading(out, "%s", card_name(i, loc));
	if (loc == LOC_ES)
		rich_line(out, "Español: %s \xc2\xb7 inglés: %s", es, en);
	else
		rich_line(out, "English: %s \xc2\xb7 Spanish: %s", en, es);
	switch (g) {
	case CG_KIND:
		rich_line(out, L(loc, "Character, two in each set of ten (8 in the game). Power: %s.",
				 "Personaje, dos en cada juego de diez (8 en la partida). Poder: %s."), kind_power[k][loc]);
		for (c = 0; c < SY_PER_SET; c++) {
			if (sylla_chars[c].kind != k)
				continue;
			buf_reset(&b);
			sylla_char_name(c, loc, &b);
			rich_line(out, L(loc, "\xe2\x80\xa2 %s%s", "\xe2\x80\xa2 %s%s"), buf_str(&b),
				  sylla_chars[c].christian ? L(loc, ": Christian, 2 prestige at the end if face up",
							      ": cristiano, 2 de prestigio al final si está boca arriba") : "");
		}
		rich_line(out, "%s", L(loc, "Used to buy a building, it is turned and loses its power for the turn. "
				       "Face down (an event), it counts for nothing.",
				       "Usado para comprar un edificio se gira y pierde su poder ese turno. "
				       "Boca abajo (por un evento) no cuenta para nada."));
		break;
	case CG_BUILDING: {
		int t, per[3] = { 0, 0, 0 };

		for (t = 0; t < SY_TILES; t++)
			if (sylla_tiles[t].type == k)
				per[sylla_tiles[t].letter]++;
		rich_line(out, L(loc, "Building tile: %d with letter A, %d with B, %d with C.",
				 "Loseta de edificio: %d con la letra A, %d con la B, %d con la C."), per[0], per[1], per[2]);
		rich_line(out, L(loc, "Effect: %s.", "Efecto: %s."), sylla_building_text[k][loc]);
		if (k == SB_CRANE)
			rich_line(out, "%s", L(loc, "The Floods may turn a Crane card face down; 3 Crane cards in the game.",
					       "Las Inundaciones pueden poner boca abajo una carta de Grúa; hay 3 en la partida."));
		break;
	}
	case CG_EVENT: {
		const struct sylla_event_info *e = &sylla_events[k];

		buf_reset(&b);
		if (sylla_fights(k, SK_VESTAL))
			buf_addstr(&b, sylla_kinds[SK_VESTAL].name[loc]);
		if (sylla_fights(k, SK_LEGIONARY))
			buf_printf(&b, "%s%s", b.len ? L(loc, " and ", " y ") : "", sylla_kinds[SK_LEGIONARY].name[loc]);
		rich_line(out, L(loc, "Event. Fought by: %s. Majority prize: %s. Hunger symbols: %d.",
				 "Evento. Lo combaten: %s. Premio de la mayoría: %s. Símbolos de hambre: %d."),
			  buf_str(&b), e->token < ST_COUNT ? sylla_tracks[e->token].name[loc]
							   : L(loc, "1 prestige", "1 de prestigio"),
			  e->hunger);
		rich_line(out, L(loc, "If it happens: %s.", "Si sucede: %s."), e->text[loc]);
		if (k == SE_PERSECUTION || k == SE_PURGE || k == SE_REVOLT || k == SE_FLOOD || k == SE_PILLAGE)
			rich_line(out, "%s", L(loc, "Each player chooses in secret, all at once. When the event is removed the cards "
					       "turn face up again, unless another visible event covers them too "
					       "(Persecution with Purge or Revolt, Floods with Pillage).",
					       "Cada jugador elige en secreto, todos a la vez. Cuando el evento se retira, las cartas "
					       "vuelven boca arriba salvo que otro evento visible también las afecte "
					       "(Persecución con Purga o Revuelta, Inundaciones con Pillaje)."));
		break;
	}
	case CG_WORK: {
		const struct sylla_work_info *w = &sylla_works[k];

		rich_line(out, L(loc, "Great Work (one of six; one is removed at setup). Effect: %s.",
				 "Gran Obra (una de seis; una se retira al empezar). Efecto: %s."), w->text[loc]);
		rich_line(out, "%s", L(loc, "Only players who voted thumb up with at least one vote score; thumb down gives "
				       "1 prestige per 2 votes instead.",
				       "Solo puntúa quien votó pulgar arriba con al menos un voto; pulgar abajo da "
				       "1 de prestigio por cada 2 votos."));
		break;
	}
	case CG_ECCLESIA:
		rich_line(out, "%s", L(loc, "Built by itself after the fifth turn: 2 prestige per face-up Christian; slaves "
				       "may be freed (2 denarii, +3 prestige each); then the Res Publica tokens score.",
				       "Se construye sola tras el quinto turno: 2 de prestigio por cristiano boca arriba; se "
				       "pueden liberar esclavos (2 denarios, +3 de prestigio cada uno); después puntúan las fichas."));
		break;
	default:
		rich_line(out, "%s", L(loc, "Tiles I to IV: 3 denarii in every income phase (never turned over by the Floods). "
				       "Your tile gives you the ten characters of its set; tile I starts as First Consul.",
				       "Losetas I a IV: 3 denarios en cada fase de ingresos (las Inundaciones nunca la giran). "
				       "Tu loseta te da los diez personajes de su juego; la I empieza de Primer Cónsul."));
	}
	buf_release(&b);
}

/* ---- lookup ---- */

static void topic_key(int i, int k, struct buf *out)
{
	text_fold(k ? topics[i].name[k - 1] : topics[i].id, out);
}

static void card_key(int i, int k, struct buf *out)
{
	text_fold(k ? card_name(i, (enum locale)(k - 1)) : card_id(i), out);
}

int sylla_rules(const char *topic, enum locale loc, struct rich *out)
{
	int cand[GAME_LOOKUP_MAX], nc, t = -1;

	if (loc >= LOC_COUNT)
		loc = LOC_EN;
	if (topic && *topic && (t = game_lookup(topic, NTOPICS, topic_key, cand, &nc)) < 0)
		t = -2;
	return game_rules_render("Sylla", topics, NTOPICS, t, topic, loc, out);
}

int sylla_card(const char *name, const char *options, enum locale loc, struct rich *out)
{
	int cand[GAME_LOOKUP_MAX], nc, c;

	(void)options;	/* sealed-election changes no card */
	if (loc >= LOC_COUNT)
		loc = LOC_EN;
	c = game_lookup(name ? name : "", NCARDS, card_key, cand, &nc);
	if (c >= 0) {
		card_text(c, loc, out);
		return 0;
	}
	return game_card_unknown(name, cand, nc, card_name_to, loc, out);
}

void sylla_card_names(enum locale loc, struct buf *out)
{
	int i;

	if (loc >= LOC_COUNT)
		loc = LOC_EN;
	for (i = 0; i < NCARDS; i++) {
		buf_addstr(out, card_name(i, loc));
		buf_addch(out, '\n');
	}
}
