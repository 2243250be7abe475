/*
 * cards.c: Fortuna's data tables.
 *
 * Sources: the rulebook (004_108c73968fa59adc.txt in ../shared/seeds/) for the
 * action, favour and building cards and every count it prints; the project
 * guide (guide/games.md, "Fortuna") for the component counts of the public
 * box lists and for the privilege deck, which no public source lists and the
 * guide reconstructs.  Printed values can replace these rows without
 * touching the rules.
 *
 * Names: Spanish as the rulebook prints them.  Two names are chosen so that
 * no hidden card's name is a substring of other text on the public board
 * (tests check render_public against secrets()): the action card Fortuna is
 * "Fortuna card"/"Carta Fortuna" (the favour card 5 is plain "Fortuna"), and
 * the building action is "Construction"/"Construir" (the rulebook's own name
 * for it in the Military Power example), not "Edificio", which the board's
 * "Edificios" column would contain.  Privilege names are «quoted» because the
 * public board never prints « » while the game runs.
 */
#include <string.h>

#include "games/fortuna/fortuna.h"

const struct fortuna_action_info fortuna_actions[FA_COUNT] = {
	[FA_WATER] = { "water collection",
		{ "Water collection", "Recogida de agua" },
		{ "+2 water", "+2 agua" } },
	[FA_GRAIN] = { "grain harvest",
		{ "Grain harvest", "Cosecha de grano" },
		{ "+2 grain, +1 per water delivered",
		  "+2 grano, +1 por agua entregada" } },
	[FA_WINE] = { "wine harvest",
		{ "Wine harvest", "Cosecha de vino" },
		{ "+1 wine, +1 per water delivered",
		  "+1 vino, +1 por agua entregada" } },
	[FA_SELL_GRAIN] = { "sell grain",
		{ "Sell grain", "Vender grano" },
		{ "2 coins per grain (+1 with Market)",
		  "2 monedas por grano (+1 con Mercado)" } },
	[FA_SELL_WINE] = { "sell wine",
		{ "Sell wine", "Vender vino" },
		{ "3 coins per wine (+1 with Market)",
		  "3 monedas por vino (+1 con Mercado)" } },
	[FA_CENTURIONS] = { "recruit centurions",
		{ "Recruit Centurions", "Reclutar Centuriones" },
		{ "Centurions; positions 1/2/3 of your track cost 1/2/3 coins",
		  "Centuriones; las posiciones 1/2/3 de tu marcador cuestan 1/2/3 monedas" } },
	[FA_PRIESTESSES] = { "obtain priestesses",
		{ "Obtain Priestesses", "Obtener Sacerdotisas" },
		{ "Priestesses; positions 1/2/3 of your track cost 1/3/5 coins",
		  "Sacerdotisas; las posiciones 1/2/3 de tu marcador cuestan 1/3/5 monedas" } },
	[FA_CLERGY] = { "clergy",
		{ "Clergy representation", "Representación del Clero" },
		{ "a Priestess for a die", "una Sacerdotisa por un dado" } },
	[FA_FAMILY] = { "family",
		{ "Family", "Familia" },
		{ "marry (3 coins); if married 1 grain, 1 wine or 3 coins",
		  "casarse (3 monedas); casado: 1 grano, 1 vino o 3 monedas" } },
	[FA_BUILD] = { "construction",
		{ "Construction", "Construir" },
		{ "build a building", "construir un edificio" } },
	[FA_CORRUPTION] = { "corruption",
		{ "Corruption", "Corrupción" },
		{ "use another side's card for 1 coin, or take 2 coins",
		  "usar una carta de otro lado por 1 moneda, o 2 monedas" } },
	[FA_FORTUNA] = { "fortuna",
		{ "Fortuna card", "Carta Fortuna" },
		{ "1 step; its holder leads the next round",
		  "1 paso; su dueño empieza la ronda siguiente" } },
};

const struct fortuna_named fortuna_favours[FF_COUNT] = {
	[FF_WATER] = { "water reserve", { "Water reserve", "Reserva de agua" } },
	[FF_WINE] = { "bacchanal", { "Bacchanal", "Bacanal" } },
	[FF_GRAIN] = { "food", { "Food", "Alimentación" } },
	[FF_BATTLE] = { "battle", { "Battle", "Batalla" } },
	[FF_FORTUNA] = { "fortuna", { "Fortuna", "Fortuna" } },
	[FF_RELIGION] = { "religion", { "Religion", "Religión" } },
};

const struct fortuna_named fortuna_buildings[FB_COUNT] = {
	[FB_MARKET] = { "market", { "Market", "Mercado" } },
	[FB_AQUEDUCT] = { "aqueduct", { "Aqueduct", "Acueducto" } },
	[FB_PALACE] = { "palace", { "Palace", "Palacio" } },
	[FB_BASILICA] = { "basilica", { "Basilica", "Basílica" } },
};

const uint8_t fortuna_building_cost[FB_COUNT] = { 0, 1, 2, 3 };

const struct fortuna_named fortuna_resources[FR_COUNT] = {
	[FR_WATER] = { "water", { "water", "agua" } },
	[FR_GRAIN] = { "grain", { "grain", "grano" } },
	[FR_WINE] = { "wine", { "wine", "vino" } },
};

/*
 * The privilege deck: the reconstruction of guide/games.md, row by row.
 * 26 cards; the four_only copies (4-pawn mark) leave with 2-3 players: 22.
 */
const struct fortuna_priv_info fortuna_privs[FP_COUNT] = {
	[FP_WATER_ANY] = { "water plus any",
		{ "«1 water + 1 of choice»", "«1 agua + 1 a elegir»" },
		FPT_A, 1, 0, FU_NONE, 0, 0, 0 },
	[FP_GRAIN_ANY] = { "grain plus any",
		{ "«1 grain + 1 of choice»", "«1 grano + 1 a elegir»" },
		FPT_A, 1, 0, FU_NONE, 0, 0, 0 },
	[FP_WINE_ANY] = { "wine plus any",
		{ "«1 wine + 1 of choice»", "«1 vino + 1 a elegir»" },
		FPT_A, 1, 0, FU_NONE, 0, 0, 0 },
	[FP_PRIESTESS] = { "priestess",
		{ "«1 Priestess»", "«1 Sacerdotisa»" },
		FPT_A, 1, 0, FU_NONE, 0, 0, 0 },
	[FP_CENTURION] = { "centurion",
		{ "«1 Centurion»", "«1 Centurión»" },
		FPT_A, 1, 0, FU_NONE, 0, 0, 0 },
	[FP_STEP] = { "step",
		{ "«1 step to Rome»", "«1 paso hacia Roma»" },
		FPT_B, 2, 1, FU_NONE, 0, 0, 0 },
	[FP_VP_BUILDING] = { "vp per building",
		{ "«2 VP per building»", "«2 PV por edificio»" },
		FPT_C, 3, 1, FU_BUILDING, 2, 1, 3 },
	[FP_VP_GRAIN] = { "vp per grain",
		{ "«1 VP per grain»", "«1 PV por grano»" },
		FPT_C, 3, 0, FU_GRAIN, 1, 1, 0 },
	[FP_VP_WATER] = { "vp per water",
		{ "«1 VP per water»", "«1 PV por agua»" },
		FPT_C, 3, 1, FU_WATER, 1, 1, 0 },
	[FP_VP_WINE] = { "vp per wine",
		{ "«2 VP per wine»", "«2 PV por vino»" },
		FPT_C, 3, 0, FU_WINE, 2, 1, 0 },
	[FP_VP_CENTURION] = { "vp per centurion",
		{ "«2 VP per Centurion»", "«2 PV por Centurión»" },
		FPT_C, 2, 0, FU_CENTURION, 2, 1, 0 },
	[FP_VP_PRIESTESS] = { "vp per priestess",
		{ "«2 VP per Priestess»", "«2 PV por Sacerdotisa»" },
		FPT_C, 2, 0, FU_PRIESTESS, 2, 1, 0 },
	[FP_VP_COINS] = { "vp per 3 coins",
		{ "«1 VP per 3 coins»", "«1 PV por 3 monedas»" },
		FPT_C, 3, 1, FU_COINS, 1, 3, 0 },
};

const char *const fortuna_step_ids[FS_COUNT] = {
	[FS_DRAFT] = "draft", [FS_HIDE] = "hide", [FS_CHOOSE] = "choose",
	[FS_ACTION] = "action", [FS_EXCHANGE] = "exchange",
	[FS_MILITARY] = "military", [FS_DIE] = "die", [FS_FAVOUR] = "favour",
	[FS_FLIP] = "flip", [FS_KEEP] = "keep", [FS_END] = "end",
	[FS_RESOURCE] = "resource",
	[FS_OVER] = "over",
};

int fortuna_priv_copies(int k, int nplayers)
{
	if (k < 0 || k >= FP_COUNT)
		return 0;
	return fortuna_privs[k].copies -
	       (nplayers < 4 ? fortuna_privs[k].four_only : 0);
}

int fortuna_building_copies(int nplayers)
{
	return nplayers < 4 ? 2 : 3;
}

void fortuna_priv_plain(int k, enum locale loc, struct buf *out)
{
	static const char open[] = "\xc2\xab", close[] = "\xc2\xbb";	/* « » */
	const char *p;

	if (k < 0 || k >= FP_COUNT)
		return;
	for (p = fortuna_privs[k].name[loc < LOC_COUNT ? loc : LOC_EN]; *p;) {
		if (!strncmp(p, open, 2) || !strncmp(p, close, 2))
			p += 2;
		else
			buf_addch(out, *p++);
	}
}
