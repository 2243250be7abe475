/*
 * rules.c: The Builders' in-bot rule summaries and card texts
 * (game_ops.rules, .card, .card_names).
 *
 * The summaries are the project's own words, written for players with the
 * game in front of them; they follow docs/games/builders.md where it
 * records a ruling.  Values come from cards.c and builders.h.
 */
#include <string.h>

#include "games/builders/builders.h"
#include "util/text.h"

/* ---- topics ---- */

static const struct game_topic topics[] = {
	{ "overview", { "Overview", "Resumen" }, {
	  "Each player runs a building company in the ancient world. You start constructions taken from a line of five, "
	  "hire workers from another line of five, and send your workers to your constructions.\n"
	  "A worker adds its stone, wood, architecture and decoration to the building; when a building has all it needs "
	  "it is complete: you earn its sesterces and its victory points, and the workers come back.\n"
	  "Four buildings are machines: once built they work for you for free.\n"
	  "Investments (slaves, tools, loans, universities) help along the way.\n"
	  "When a player ends a turn with 17 VP or more from buildings and machines, the round is finished and the game ends. "
	  "Everything is open except the order of the two decks.",
	  "Cada jugador dirige una empresa de construcción en la Antigüedad. Inicias obras tomadas de una línea de cinco, "
	  "contratas trabajadores de otra línea de cinco y los envías a tus obras.\n"
	  "Un trabajador aporta su piedra, madera, arquitectura y decoración al edificio; cuando el edificio tiene todo lo que "
	  "necesita queda terminado: ganas sus sestercios y sus puntos de victoria, y los trabajadores vuelven.\n"
	  "Cuatro edificios son máquinas: una vez construidas trabajan para ti gratis.\n"
	  "Las inversiones (esclavos, herramientas, préstamos, universidades) ayudan por el camino.\n"
	  "Cuando un jugador termina su turno con 17 PV o más en edificios y máquinas, se acaba la ronda y termina la partida. "
	  "Todo está a la vista salvo el orden de los dos mazos." }, NULL },
	{ "setup", { "Setup", "Preparación" }, {
	  "The 33 building cards (4 of them machines) are shuffled; five are laid face up.\n"
	  "Each player is dealt one of the four Apprentices at random; the other Apprentices go into the worker deck, "
	  "which is shuffled; five workers are laid face up.\n"
	  "Each player gets 10 sesterces. The investment piles lie open: 6 slaves, 4 tools, 4 loans and 4 universities.\n"
	  "The first player is chosen at random; turns go round in seat order from there.",
	  "Se barajan las 33 cartas de edificio (4 son máquinas) y se ponen cinco boca arriba.\n"
	  "Cada jugador recibe al azar uno de los cuatro Aprendices; los otros Aprendices van al mazo de trabajadores, "
	  "que se baraja; se ponen cinco trabajadores boca arriba.\n"
	  "Cada jugador recibe 10 sestercios. Las pilas de inversión están a la vista: 6 esclavos, 4 herramientas, 4 préstamos y 4 universidades.\n"
	  "El jugador inicial se sortea; los turnos siguen el orden de los asientos desde él." }, NULL },
	{ "turn", { "Turn", "Turno" }, {
	  "Your turn has 3 free actions; you may buy more at 5 sesterces each. Unused free actions are lost. "
	  "Actions are chosen one at a time and the turn ends when you say `end turn`.\n"
	  "• Start a building from the line (1 action); the gap is refilled from the deck.\n"
	  "• Hire a worker from the line (1 action); the gap is refilled.\n"
	  "• Send a worker to one of your buildings (its wage in sesterces, actions as in the topic `send`).\n"
	  "• Make an investment (1 action plus its price), once per turn (topic `investments`).\n"
	  "• Take sesterces: 1 for 1 action, 3 for 2 actions, 6 for 3 actions.\n"
	  "• Free one of your slaves who is not at work (1 action).\n"
	  "Repaying a loan (15 sesterces) is not an action. The moves list shows what each action costs now.",
	  "Tu turno tiene 3 acciones libres; puedes comprar más a 5 sestercios cada una. Las acciones libres que no uses se pierden. "
	  "Las acciones se eligen de una en una y el turno acaba cuando dices `end turn`.\n"
	  "• Iniciar un edificio de la línea (1 acción); el hueco se rellena con el mazo.\n"
	  "• Contratar un trabajador de la línea (1 acción); el hueco se rellena.\n"
	  "• Enviar un trabajador a uno de tus edificios (su sueldo en sestercios, acciones según el tema `send`).\n"
	  "• Hacer una inversión (1 acción más su precio), una vez por turno (tema `investments`).\n"
	  "• Coger sestercios: 1 por 1 acción, 3 por 2 acciones, 6 por 3 acciones.\n"
	  "• Liberar a uno de tus esclavos que no esté trabajando (1 acción).\n"
	  "Devolver un préstamo (15 sestercios) no es una acción. La lista de jugadas muestra lo que cuesta ahora cada acción." }, NULL },
	{ "send", { "Sending workers", "Enviar trabajadores" }, {
	  "Choose one of your available workers (not already at work), then the building and, if you like, one of your tools.\n"
	  "You pay the worker's wage to the bank: Apprentice 2, Laborer 3, Journeyman 4, Master 5; slaves and machines 0, freedmen 5.\n"
	  "The first worker you send to a building in a turn costs 1 action, the second one to that same building in the same turn 2 actions, "
	  "the third 3, and so on.\n"
	  "So three workers to one building in one turn cost 6 actions, while one worker to each of two buildings costs 2. "
	  "Workers sent in earlier turns do not count.\n"
	  "A worker stays on its building until the building is complete. "
	  "tabula only offers sends that add something the building still misses.",
	  "Elige uno de tus trabajadores disponibles (que no esté trabajando), luego el edificio y, si quieres, una de tus herramientas.\n"
	  "Pagas al banco el sueldo del trabajador: Aprendiz 2, Peón 3, Compañero 4, Maestro 5; esclavos y máquinas 0, libertos 5.\n"
	  "El primer trabajador que envías a un edificio en un turno cuesta 1 acción, el segundo a ese mismo edificio en el mismo turno 2 acciones, "
	  "el tercero 3, y así sucesivamente.\n"
	  "Así, tres trabajadores a un edificio en un turno cuestan 6 acciones, mientras que uno a cada uno de dos edificios cuesta 2. "
	  "Los trabajadores enviados en turnos anteriores no cuentan.\n"
	  "Un trabajador se queda en su edificio hasta que el edificio se termina. "
	  "tabula solo ofrece envíos que aportan algo que al edificio aún le falta." }, NULL },
	{ "complete", { "Completing buildings", "Terminar edificios" }, {
	  "A building is complete as soon as the workers on it (and their tools) add up to at least what it needs in each of the four resources. "
	  "It costs no action.\n"
	  "You take its sesterces from the bank and it counts its victory points. Its workers and their tools come back to you, available again.\n"
	  "A machine gives its VP and then joins your workers: it makes 3 of one resource and earns no wage.",
	  "Un edificio queda terminado en cuanto los trabajadores que tiene (y sus herramientas) suman al menos lo que necesita en cada uno de los cuatro recursos. "
	  "No cuesta ninguna acción.\n"
	  "Cobras sus sestercios del banco y cuenta sus puntos de victoria. Sus trabajadores y sus herramientas vuelven a ti, disponibles otra vez.\n"
	  "Una máquina da sus PV y luego se une a tus trabajadores: produce 3 de un recurso y no cobra sueldo." }, NULL },
	{ "investments", { "Investments", "Inversiones" }, {
	  "One investment per turn, each 1 action plus its price:\n"
	  "• Slave (7 sesterces): a worker with no wage. Each slave not freed costs 1 VP at the end. A slave cannot get a tool or a university.\n"
	  "  Freeing an available slave costs 1 action in your turn (or 5 sesterces at the final scoring); a freedman earns a wage of 5 and may then have tools and a university.\n"
	  "• Tool (2 sesterces): when you send a worker (not a slave), it may carry one tool for free, adding 1 of the tool's resource. "
	  "The tool comes back when the building is complete.\n"
	  "• Loan: take 10 sesterces now. Repay 15 (not an action) in your turn or at the end, or lose 2 VP.\n"
	  "• University (7 sesterces): one of your available workers becomes 3 in the university's resource, with the same wage. "
	  "A worker is educated once; slaves cannot be.",
	  "Una inversión por turno, cada una 1 acción más su precio:\n"
	  "• Esclavo (7 sestercios): un trabajador sin sueldo. Cada esclavo no liberado resta 1 PV al final. Un esclavo no puede llevar herramienta ni ir a la universidad.\n"
	  "  Liberar a un esclavo disponible cuesta 1 acción en tu turno (o 5 sestercios en la puntuación final); un liberto cobra 5 de sueldo y ya puede llevar herramientas y educarse.\n"
	  "• Herramienta (2 sestercios): al enviar a un trabajador (no a un esclavo) puede llevar gratis una herramienta, que suma 1 de su recurso. "
	  "La herramienta vuelve cuando se termina el edificio.\n"
	  "• Préstamo: coges 10 sestercios ya. Devuelves 15 (no es una acción) en tu turno o al final, o pierdes 2 PV.\n"
	  "• Universidad (7 sestercios): uno de tus trabajadores disponibles pasa a 3 en el recurso de la universidad, con el mismo sueldo. "
	  "Un trabajador se educa una sola vez; los esclavos no pueden." }, NULL },
	{ "ending", { "End of the game", "Fin de la partida" }, {
	  "At the end of your turn, if your buildings and machines give you 17 VP or more, the game will end: "
	  "the round is played to its end so that everybody has had as many turns (the last turn is that of the player before the first player). "
	  "If that player is the one who reached 17, the game ends at once.\n"
	  "As a safety net a game in which nobody gets there ends after round 30.\n"
	  "Then comes the final scoring (topic `scoring`).",
	  "Al final de tu turno, si tus edificios y máquinas te dan 17 PV o más, la partida va a terminar: "
	  "se juega la ronda hasta el final para que todos tengan los mismos turnos (el último turno es el del jugador anterior al inicial). "
	  "Si quien llega a 17 es ese jugador, la partida termina enseguida.\n"
	  "Como red de seguridad, una partida en la que nadie llega termina tras la ronda 30.\n"
	  "Después viene la puntuación final (tema `scoring`)." }, NULL },
	{ "scoring", { "Final scoring", "Puntuación final" }, {
	  "First each player, in turn order, may still free available slaves (5 sesterces each) and repay loans (15 sesterces each).\n"
	  "Score: the VP of your completed buildings and machines, plus 0.1 per sesterce you keep, minus 1 per slave not freed "
	  "and minus 2 per loan not repaid.\n"
	  "The highest score wins; tied players all win.",
	  "Primero cada jugador, por orden de turno, aún puede liberar esclavos disponibles (5 sestercios cada uno) y devolver préstamos (15 sestercios cada uno).\n"
	  "Puntos: los PV de tus edificios y máquinas terminados, más 0,1 por cada sestercio que conserves, menos 1 por esclavo no liberado "
	  "y menos 2 por préstamo no devuelto.\n"
	  "Gana la puntuación más alta; si hay empate, ganan todos los empatados." }, NULL },
};

#define NTOPICS ((int)(sizeof topics / sizeof topics[0]))

/* ---- the cards ---- */

enum { K_BUILDING, K_RANK, K_SLAVE, K_FREEDMAN, K_TOOL, K_LOAN, K_UNI };

struct cref {
	int kind, i;
};

#define NCARDS (BUILDERS_BUILDINGS + BK_COUNT + 2 + BUILDERS_TOOLS + 2)

static struct cref cref_of(int n)
{
	if (n < BUILDERS_BUILDINGS)
		return (struct cref){ K_BUILDING, n };
	n -= BUILDERS_BUILDINGS;
	if (n < BK_COUNT)
		return (struct cref){ K_RANK, n };
	n -= BK_COUNT;
	if (n == 0)
		return (struct cref){ K_SLAVE, 0 };
	if (n == 1)
		return (struct cref){ K_FREEDMAN, 0 };
	n -= 2;
	if (n < BUILDERS_TOOLS)
		return (struct cref){ K_TOOL, n };
	n -= BUILDERS_TOOLS;
	return (struct cref){ n == 0 ? K_LOAN : K_UNI, 0 };
}

static const struct builders_named other_names[] = {
	[K_SLAVE] = { "slave", { "Slave", "Esclavo" } },
	[K_FREEDMAN] = { "freedman", { "Freedman", "Liberto" } },
	[K_LOAN] = { "loan", { "Loan", "Préstamo" } },
	[K_UNI] = { "university", { "University", "Universidad" } },
};

static const struct builders_named *named(int n)
{
	struct cref c = cref_of(n);

	switch (c.kind) {
	case K_RANK:
		return &builders_ranks[c.i];
	case K_TOOL:
		return &builders_tools[c.i];
	case K_BUILDING:
		return NULL;
	default:
		return &other_names[c.kind];
	}
}

static void card_name(int n, enum locale loc, struct buf *out)
{
	struct cref c = cref_of(n);

	if (c.kind == K_BUILDING)
		buf_addstr(out, builders_buildings[c.i].name[loc]);
	else
		buf_addstr(out, named(n)->name[loc]);
}

static void topic_key(int i, int k, struct buf *out)
{
	text_fold(k ? topics[i].name[k - 1] : topics[i].id, out);
}

static void card_key(int i, int k, struct buf *out)
{
	struct buf t = BUF_INIT;
	struct cref c = cref_of(i);

	if (k)
		card_name(i, (enum locale)(k - 1), &t);
	else if (c.kind == K_BUILDING)
		buf_addstr(&t, builders_buildings[c.i].id);
	else
		buf_addstr(&t, named(i)->id);
	text_fold(buf_str(&t), out);
	buf_release(&t);
}

int builders_rules(const char *topic, enum locale loc, struct rich *out)
{
	int cand[GAME_LOOKUP_MAX], nc, t = -1;

	loc = loc < LOC_COUNT ? loc : LOC_EN;
	if (topic && *topic && (t = game_lookup(topic, NTOPICS, topic_key, cand, &nc)) < 0)
		t = -2;
	return game_rules_render(builders_ops.name[loc], topics, NTOPICS, t, topic, loc, out);
}

/* "2 stone, 4 wood, 1 architecture, 3 decoration" */
static void res_words(const uint8_t res[BR_COUNT], enum locale loc, struct buf *out)
{
	int r, n = 0;

	for (r = 0; r < BR_COUNT; r++)
		if (res[r])
			buf_printf(out, "%s%d %s", n++ ? ", " : "", res[r], builders_resources[r].name[loc]);
}

static void building_text(int b, enum locale loc, struct rich *out)
{
	const struct builders_building_info *bi = &builders_buildings[b];
	struct buf t = BUF_INIT;

	res_words(bi->need, loc, &t);
	if (bi->makes) {
		rich_line(out, L(loc, "Machine. Needs %s.", "Máquina. Necesita %s."), buf_str(&t));
		rich_line(out, L(loc, "When completed: %d VP and no sesterces; then it joins your workers, "
				      "making %d %s, and you pay it no wage.",
				 "Al terminarla: %d PV y ningún sestercio; después se une a tus trabajadores, "
				 "produce %d de %s y no cobra sueldo."),
			  bi->vp, BUILDERS_MACHINE_MAKES, builders_resources[bi->makes - 1].name[loc]);
	} else {
		rich_line(out, L(loc, "Building. Needs %s.", "Edificio. Necesita %s."), buf_str(&t));
		rich_line(out, L(loc, "When completed: %d sesterces and %d VP.",
				 "Al terminarlo: %d sestercios y %d PV."), bi->coins, bi->vp);
	}
	rich_line(out, "%s", L(loc, "Start it from the line of buildings (1 action), then send workers to it.",
			       "Se inicia desde la línea de edificios (1 acción) y luego se le envían trabajadores."));
	buf_release(&t);
}

static void rank_text(int k, enum locale loc, struct rich *out)
{
	struct buf t = BUF_INIT;
	int w, n = 0;

	rich_line(out, L(loc, "Worker. Wage: %d sesterces each time you send it to work.",
			 "Trabajador. Sueldo: %d sestercios cada vez que lo envías a trabajar."),
		  builders_wages[k]);
	for (w = 0; w < BUILDERS_WORKERS; w++)
		if (builders_workers[w].rank == k) {
			buf_printf(&t, "%s%s %d: ", n++ ? "; " : "", builders_ranks[k].name[loc],
				   builders_workers[w].number);
			res_words(builders_workers[w].res, loc, &t);
		}
	rich_line(out, L(loc, "The %d cards: %s.", "Las %d cartas: %s."), n, buf_str(&t));
	if (k == BK_APPRENTICE)
		rich_line(out, "%s", L(loc, "Each player starts with one Apprentice; the others are in the worker deck.",
				       "Cada jugador empieza con un Aprendiz; los demás están en el mazo de trabajadores."));
	else
		rich_line(out, "%s", L(loc, "Hire it from the line of workers (1 action).",
				       "Se contrata desde la línea de trabajadores (1 acción)."));
	buf_release(&t);
}

static void card_text(int n, enum locale loc, struct rich *out)
{
	struct cref c = cref_of(n);
	struct buf en = BUF_INIT, es = BUF_INIT, t = BUF_INIT;
	int k;

	card_name(n, LOC_EN, &en);
	card_name(n, LOC_ES, &es);
	rich_heading(out, "%s", loc == LOC_ES ? buf_str(&es) : buf_str(&en));
	if (loc == LOC_ES)
		rich_line(out, "Español: %s · inglés: %s", buf_str(&es), buf_str(&en));
	else
		rich_line(out, "English: %s · Spanish: %s", buf_str(&en), buf_str(&es));
	switch (c.kind) {
	case K_BUILDING:
		building_text(c.i, loc, out);
		break;
	case K_RANK:
		rank_text(c.i, loc, out);
		break;
	case K_FREEDMAN:
		/* one side of a slave card: its own text, not the slave's
		 * "works with no wage" (issue 25) */
		rich_line(out, L(loc, "The other side of a slave card, once freed: it keeps the slave's resources, "
				      "earns a wage of %d, may carry a tool and be educated, and costs no VP at the end.",
				 "El otro lado de una carta de esclavo, una vez liberado: conserva los recursos del esclavo, "
				 "cobra un sueldo de %d, puede llevar herramienta y educarse, y no resta PV al final."),
			  BUILDERS_FREED_WAGE);
		rich_line(out, L(loc, "Freeing a slave who is not at work costs 1 action in your turn, or %d sesterces at the final scoring.",
				 "Liberar a un esclavo que no esté trabajando cuesta 1 acción en tu turno, o %d sestercios en la puntuación final."),
			  BUILDERS_FREE_PRICE);
		break;
	case K_SLAVE:
		rich_line(out, L(loc, "Investment: %d sesterces and 1 action, once per turn. Works with no wage while a slave.",
				 "Inversión: %d sestercios y 1 acción, una vez por turno. Trabaja sin sueldo mientras es esclavo."),
			  BUILDERS_SLAVE_PRICE);
		for (k = 0; k < BUILDERS_SLAVES; k++) {
			buf_printf(&t, "%s%s %d: ", k ? "; " : "", L(loc, "Slave", "Esclavo"), k + 1);
			res_words(builders_slaves[k], loc, &t);
		}
		rich_line(out, L(loc, "The 6 cards: %s.", "Las 6 cartas: %s."), buf_str(&t));
		rich_line(out, "%s", L(loc, "A slave cannot carry a tool or be educated. Each slave not freed costs 1 VP at the end.",
				       "Un esclavo no puede llevar herramienta ni educarse. Cada esclavo no liberado resta 1 PV al final."));
		rich_line(out, L(loc, "Freeing a slave who is not at work costs 1 action in your turn, or %d sesterces at the final scoring. "
				      "The card turns to its Freedman side: wage %d, may carry a tool and be educated, no penalty.",
				 "Liberar a un esclavo que no esté trabajando cuesta 1 acción en tu turno, o %d sestercios en la puntuación final. "
				 "La carta pasa a su lado de Liberto: sueldo %d, puede llevar herramienta y educarse, sin penalización."),
			  BUILDERS_FREE_PRICE, BUILDERS_FREED_WAGE);
		break;
	case K_TOOL:
		rich_line(out, L(loc, "Investment: %d sesterces and 1 action, once per turn.",
				 "Inversión: %d sestercios y 1 acción, una vez por turno."), BUILDERS_TOOL_PRICE);
		rich_line(out, L(loc, "When you send a worker, freedman or machine, it may carry this tool at no cost: +1 %s on that building. "
				      "One tool per worker; it comes back with the worker when the building is complete. Slaves cannot carry it.",
				 "Al enviar a un trabajador, liberto o máquina, puede llevar esta herramienta sin coste: +1 de %s en ese edificio. "
				 "Una herramienta por trabajador; vuelve con él cuando se termina el edificio. Los esclavos no pueden llevarla."),
			  builders_resources[c.i].name[loc]);
		break;
	case K_LOAN:
		rich_line(out, L(loc, "Investment: 1 action, once per turn: take %d sesterces from the bank.",
				 "Inversión: 1 acción, una vez por turno: coges %d sestercios del banco."),
			  BUILDERS_LOAN_GAIN);
		rich_line(out, L(loc, "Repay %d sesterces in your turn (not an action) or at the final scoring; "
				      "each loan not repaid costs %d VP. A repaid loan goes back to the pile.",
				 "Devuelve %d sestercios en tu turno (no es una acción) o en la puntuación final; "
				 "cada préstamo no devuelto resta %d PV. Un préstamo devuelto vuelve a la pila."),
			  BUILDERS_LOAN_REPAY, BUILDERS_LOAN_PENALTY);
		break;
	case K_UNI:
		rich_line(out, L(loc, "Investment: %d sesterces and 1 action, once per turn. There is one university per resource.",
				 "Inversión: %d sestercios y 1 acción, una vez por turno. Hay una universidad por recurso."),
			  BUILDERS_UNI_PRICE);
		rich_line(out, "%s", L(loc, "One of your workers who is not at work becomes 3 in the university's resource; "
					    "its wage does not change. A worker is educated only once; slaves cannot be (freedmen and machines can).",
				       "Uno de tus trabajadores que no esté trabajando pasa a 3 en el recurso de la universidad; "
				       "su sueldo no cambia. Un trabajador se educa una sola vez; los esclavos no pueden (libertos y máquinas sí)."));
		break;
	}
	buf_release(&en);
	buf_release(&es);
	buf_release(&t);
}

int builders_card(const char *name, const char *options, enum locale loc, struct rich *out)
{
	int cand[GAME_LOOKUP_MAX], nc, n;

	(void)options;	/* no variant changes a card */
	loc = loc < LOC_COUNT ? loc : LOC_EN;
	n = game_lookup(name ? name : "", NCARDS, card_key, cand, &nc);
	if (n >= 0) {
		card_text(n, loc, out);
		return 0;
	}
	return game_card_unknown(name, cand, nc, card_name, loc, out);
}

void builders_card_names(enum locale loc, struct buf *out)
{
	int n;

	loc = loc < LOC_COUNT ? loc : LOC_EN;
	for (n = 0; n < NCARDS; n++) {
		card_name(n, loc, out);
		buf_addch(out, '\n');
	}
}
