/*
 * cards.c: The Builders: Antiquity's data tables.
 *
 * Source of the values: the public implementation saad-ahmed98/
 * BatisseursAntiquite, file serveur/cartes_antiquite.csv (as transcribed in
 * the project guide, guide/games.md, "The Builders: Antiquity"): each
 * building's stone/wood/architecture/decoration needs, coins and VP, the
 * machines' production, the 18 workers (wage and production), the 6
 * slaves, tools, loans and universities.  Its counts match the rulebook
 * (003_1ee2b25f51d7d57a.txt in ../shared/seeds/: 33 buildings with 4
 * machines, 18 workers, 6 slaves, 4 tools, 4 loans, 4 universities).
 * The same file gives 5 as a slave's "coût d'affranchissement", which that
 * implementation uses as the freed slave's wage (BUILDERS_FREED_WAGE in
 * builders.h).  Printed values can replace these rows without touching the
 * rules.
 *
 * Names: Spanish as the rulebook or the guide prints them; English names
 * are the project's translations.  The worker cards carry a number within
 * their rank ("Journeyman 3") so that two cards with the same values still
 * have names, ids and labels of their own.  The tools are named after the
 * rulebook's example ("Martillo") and common tools; the wood tool is a
 * Serrucho/Handsaw so that it never reads as the Sierra/Saw machine.
 */
#include "games/builders/builders.h"

#define M(r) (1 + (r))

const struct builders_building_info builders_buildings[BUILDERS_BUILDINGS] = {
	/* id, { English, Spanish }, { stone, wood, architecture, decoration }, coins, VP */
	{ "armory", { "Armory", "Armería" }, { 1, 1, 2, 0 }, 8, 2, 0 },
	{ "barracks", { "Barracks", "Cuartel" }, { 2, 3, 1, 2 }, 12, 4, 0 },
	{ "town hall", { "Town Hall", "Ayuntamiento" }, { 2, 0, 2, 2 }, 10, 3, 0 },
	{ "hanging gardens", { "Hanging Gardens", "Jardines colgantes" }, { 2, 3, 4, 5 }, 17, 7, 0 },
	{ "house", { "House", "Casa" }, { 0, 1, 1, 0 }, 10, 0, 0 },
	{ "tower of babel", { "Tower of Babel", "Torre de Babel" }, { 3, 1, 5, 3 }, 15, 6, 0 },
	{ "ziggurat", { "Ziggurat", "Zigurat" }, { 1, 2, 3, 4 }, 14, 5, 0 },
	{ "trading post", { "Trading Post", "Factoría" }, { 0, 1, 1, 0 }, 6, 1, 0 },
	{ "market", { "Market", "Mercado" }, { 1, 0, 0, 1 }, 10, 0, 0 },
	{ "palace of assur", { "Palace of Assur", "Palacio de Assur" }, { 3, 1, 4, 2 }, 14, 5, 0 },
	{ "quarry", { "Quarry", "Cantera" }, { 1, 1, 0, 0 }, 10, 0, 0 },
	{ "shipyard", { "Shipyard", "Astillero" }, { 1, 0, 1, 2 }, 8, 2, 0 },
	{ "camel stables", { "Camel Stables", "Caballerizas de camellos" }, { 1, 0, 1, 0 }, 6, 1, 0 },
	{ "stall", { "Stall", "Tenderete" }, { 0, 1, 0, 1 }, 6, 1, 0 },
	{ "noble house", { "Noble House", "Casa noble" }, { 2, 2, 0, 2 }, 10, 3, 0 },
	{ "fortress", { "Fortress", "Fortaleza" }, { 3, 2, 2, 1 }, 12, 4, 0 },
	{ "port", { "Port", "Puerto" }, { 2, 1, 0, 1 }, 8, 2, 0 },
	{ "pyramid", { "Pyramid", "Pirámide" }, { 4, 4, 4, 4 }, 18, 8, 0 },
	{ "sphinx", { "Sphinx", "Esfinge" }, { 3, 5, 1, 3 }, 15, 6, 0 },
	{ "archery", { "Archery", "Arquería" }, { 0, 2, 1, 1 }, 8, 2, 0 },
	{ "colossus of rhodes", { "Colossus of Rhodes", "Coloso de Rodas" }, { 5, 4, 3, 2 }, 17, 7, 0 },
	{ "school of philosophy", { "School of Philosophy", "Escuela de filosofía" }, { 1, 2, 2, 3 }, 14, 4, 0 },
	{ "forum", { "Forum", "Foro" }, { 2, 1, 3, 2 }, 12, 3, 0 },
	{ "farmhouse", { "Farmhouse", "Casa rural" }, { 1, 0, 0, 1 }, 6, 1, 0 },
	{ "city house", { "City House", "Casa urbana" }, { 2, 2, 2, 0 }, 10, 3, 0 },
	{ "lighthouse of alexandria", { "Lighthouse of Alexandria", "Faro de Alejandría" }, { 2, 4, 1, 3 }, 14, 5, 0 },
	{ "temple", { "Temple", "Templo" }, { 0, 2, 2, 2 }, 10, 3, 0 },
	{ "theatre", { "Theatre", "Teatro" }, { 4, 3, 2, 1 }, 14, 5, 0 },
	{ "watering trough", { "Watering Trough", "Abrevadero" }, { 0, 0, 1, 1 }, 10, 0, 0 },
	/* machines: no coins, 2 VP, then a worker making 3 of one resource */
	{ "saw", { "Saw", "Sierra" }, { 0, 0, 1, 2 }, 0, 2, M(BR_WOOD) },
	{ "architects table", { "Architect's Table", "Mesa de arquitecto" }, { 2, 0, 0, 1 }, 0, 2, M(BR_ARCH) },
	{ "scaffolding", { "Scaffolding", "Andamio" }, { 1, 2, 0, 0 }, 0, 2, M(BR_DECO) },
	{ "hoist", { "Hoist", "Polipasto" }, { 0, 1, 2, 0 }, 0, 2, M(BR_STONE) },
};

const struct builders_worker_info builders_workers[BUILDERS_WORKERS] = {
	/* the four Apprentices first: setup deals them apart */
	{ BK_APPRENTICE, 1, { 0, 1, 1, 0 } },
	{ BK_APPRENTICE, 2, { 0, 1, 0, 1 } },
	{ BK_APPRENTICE, 3, { 1, 0, 1, 0 } },
	{ BK_APPRENTICE, 4, { 1, 0, 1, 0 } },
	{ BK_LABORER, 1, { 0, 1, 0, 2 } },
	{ BK_LABORER, 2, { 2, 0, 0, 1 } },
	{ BK_LABORER, 3, { 0, 2, 1, 0 } },
	{ BK_LABORER, 4, { 1, 0, 2, 0 } },
	{ BK_JOURNEYMAN, 1, { 3, 0, 1, 0 } },
	{ BK_JOURNEYMAN, 2, { 1, 0, 3, 0 } },
	{ BK_JOURNEYMAN, 3, { 1, 1, 1, 1 } },
	{ BK_JOURNEYMAN, 4, { 1, 1, 1, 1 } },
	{ BK_JOURNEYMAN, 5, { 0, 3, 0, 1 } },
	{ BK_JOURNEYMAN, 6, { 0, 1, 0, 3 } },
	{ BK_MASTER, 1, { 2, 0, 0, 3 } },
	{ BK_MASTER, 2, { 3, 2, 0, 0 } },
	{ BK_MASTER, 3, { 0, 3, 2, 0 } },
	{ BK_MASTER, 4, { 0, 0, 3, 2 } },
};

/* Slaves cost 7, work for nothing, cost 1 VP unless freed. */
const uint8_t builders_slaves[BUILDERS_SLAVES][BR_COUNT] = {
	{ 2, 0, 0, 2 }, { 0, 0, 2, 2 }, { 2, 0, 2, 0 },
	{ 2, 2, 0, 0 }, { 0, 2, 0, 2 }, { 0, 2, 2, 0 },
};

const uint8_t builders_wages[BK_COUNT] = { 2, 3, 4, 5 };

const struct builders_named builders_ranks[BK_COUNT] = {
	{ "apprentice", { "Apprentice", "Aprendiz" } },
	{ "laborer", { "Laborer", "Peón" } },
	{ "journeyman", { "Journeyman", "Compañero" } },
	{ "master", { "Master", "Maestro" } },
};

const struct builders_named builders_resources[BR_COUNT] = {
	{ "stone", { "stone", "piedra" } },
	{ "wood", { "wood", "madera" } },
	{ "architecture", { "architecture", "arquitectura" } },
	{ "decoration", { "decoration", "decoración" } },
};

const char builders_res_letter[LOC_COUNT][BR_COUNT] = {
	{ 'S', 'W', 'A', 'D' },
	{ 'P', 'M', 'A', 'D' },
};

/* Tool t adds 1 of resource t (cost 2). */
const struct builders_named builders_tools[BUILDERS_TOOLS] = {
	{ "hammer", { "Hammer", "Martillo" } },
	{ "handsaw", { "Handsaw", "Serrucho" } },
	{ "square", { "Square", "Escuadra" } },
	{ "brush", { "Brush", "Pincel" } },
};

const char *const builders_step_ids[BS_COUNT] = {
	[BS_TURN] = "turn",
	[BS_SEND] = "send",
	[BS_ENSLAVE] = "enslave",
	[BS_TOOL] = "tool",
	[BS_EDUCATE] = "educate",
	[BS_FINAL] = "final",
	[BS_OVER] = "over",
};
