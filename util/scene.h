/*
 * scene: a board as data.  A game describes what its text board shows as a
 * small display list (areas, rows of cards and chips, tracks with markers,
 * tables, lines of text, all in the room's language) and the painter
 * (paint/paint.h) turns it into a picture.  The game never draws and the
 * painter never knows a rule: a scene says "a yellow card named Insula with
 * the band Rubble · Laborer and the value 1", the painter decides where it
 * goes and what yellow looks like.
 *
 * A scene is a flat list of items.  Blocks (TITLE, LINE, AREA, END, ROW,
 * TRACK, TABLE) follow one another down the picture; the pieces that
 * belong to a block follow it:
 *
 *   AREA ... END     a panel with a title (a player's area, the market);
 *                    SCENE_HALF areas in a run are laid two by two
 *   ROW  CARD|CHIP*  a labelled row of cards and chips, wrapped to the width
 *   CARD PIP*        small coloured tags at the foot of the card
 *   TRACK ZONE* MARK*  a numbered track, shaded zones, markers on it
 *   TABLE CELL*      a table of `a` columns, the first row its header
 *   CHART POINT*     a line chart: a value per point with its band (lo..hi),
 *                    at most SCENE_CHART_POINTS points
 *
 * Colour is never the only carrier of meaning: the painter gives every
 * colour of enum scene_colour a shape drawn beside it, and a piece's
 * colour always comes with text (a band, a letter), so the picture reads
 * the same to colour-blind players.
 *
 * alt: every piece may carry the exact text its text board prints for it
 * (Builders' "Pyramid (S4 W4 A4 D4 → 18 s, 8 VP)"): the picture's
 * description (scene_texts) holds it, so the tests that scan every public
 * payload for hidden text scan pictures with the same strings.
 *
 * Ownership: a scene owns its items and their strings; scene_release
 * frees them.  Pointers returned by the adders are valid until the next
 * add.  Limits (SCENE_MAX_ITEMS, SCENE_TEXT_MAX) are enforced by the
 * adders (items past the cap are dropped, text cut at a character
 * boundary) and by scene_from_json.
 */
#ifndef UTIL_SCENE_H
#define UTIL_SCENE_H

#include <stddef.h>
#include <stdint.h>

#include <jansson.h>

#include "util/buf.h"

#define SCENE_MAX_ITEMS 2048
#define SCENE_TEXT_MAX 512	/* bytes of one string, NUL excluded */
#define SCENE_SEATS 8
#define SCENE_CHART_POINTS 200	/* points of one chart; more are refused */
#define SCENE_CHART_ABS 1e15	/* |value| of a point; beyond it refused */

/* The painter's palette.  Each colour also has a shape (paint.c). */
enum scene_colour {
	SCOL_NONE,		/* plain: parchment */
	SCOL_YELLOW,
	SCOL_BROWN,
	SCOL_RED,
	SCOL_ORANGE,
	SCOL_GREY,
	SCOL_BLUE,
	SCOL_PURPLE,
	SCOL_GREEN,
	SCOL_TEAL,
	SCOL_PINK,
	SCOL_BLACK,
	SCOL_WHITE,
	SCOL_GOLD,
	SCOL_SEAT,		/* SCOL_SEAT + seat: that player's colour */
	SCOL_COUNT = SCOL_SEAT + SCENE_SEATS
};

enum scene_kind {
	SCENE_TITLE,	/* text: the board's heading */
	SCENE_LINE,	/* text: a line (wrapped); flags SCENE_EMPH, SCENE_NOTE */
	SCENE_AREA,	/* text: title; colour: a seat's, or NONE; flags
			 * SCENE_ACTIVE (whose decision), SCENE_HALF */
	SCENE_END,	/* closes the innermost AREA */
	SCENE_ROW,	/* text: the row's label ("" none) */
	SCENE_CARD,	/* see struct scene_item */
	SCENE_CHIP,	/* text: label; corner: value ("5"); colour */
	SCENE_PIP,	/* text: a short tag ("S4"); colour */
	SCENE_TRACK,	/* text: name; a..b: the positions shown */
	SCENE_ZONE,	/* a..b: positions; colour; text: its label */
	SCENE_MARK,	/* a: position; colour; text: 1-3 letters; alt: who */
	SCENE_TABLE,	/* a: columns; flags SCENE_EMPH: the first row is a header */
	SCENE_CELL,	/* text; flags SCENE_MARKED: its row is highlighted
			 * (the asking player in a leaderboard) */
	SCENE_CHART,	/* text: title; sub: the value's name (the y axis);
			 * band: what the band means ("" none); corner: the
			 * note shown when it has no points; colour: the line's;
			 * count: its points */
	SCENE_POINT,	/* text: its x label ("12 Mar"); y, lo, hi; corner: y
			 * as printed; sub: "lo–hi" as printed (none when
			 * lo == hi == y) */
	SCENE_KIND_COUNT
};

enum scene_flags {
	SCENE_EMPH = 1 << 0,	/* LINE: bold; TABLE: header row */
	SCENE_NOTE = 1 << 1,	/* LINE: small print */
	SCENE_ACTIVE = 1 << 2,	/* AREA: the player asked to decide */
	SCENE_HALF = 1 << 3,	/* AREA: half the width, two by two */
	SCENE_DOWN = 1 << 4,	/* CARD: face down (title: what the table may
				 * know of it, often nothing) */
	SCENE_DIM = 1 << 5,	/* CARD, CHIP: turned, used, spent */
	SCENE_MARKED = 1 << 6,	/* CARD, CHIP: singled out (on sale, led) */
	SCENE_FLAGS_ALL = (1 << 7) - 1
};

/*
 * One item.  Strings are owned (NULL: none).  For a CARD:
 *   colour  its suit (material, kind): the colour band at the top
 *   band    the text in that band ("Rubble · Laborer")
 *   text    its name, large
 *   sub     one more line under the name ("2/3 on Rubble")
 *   corner  a value in the band's corner ("1")
 *   count   copies (×n shown when > 1)
 */
struct scene_item {
	uint8_t kind;		/* enum scene_kind */
	uint8_t colour;		/* enum scene_colour */
	uint16_t flags;		/* enum scene_flags */
	int16_t a, b;
	int16_t count;
	char *text, *band, *sub, *corner, *alt;
	double y, lo, hi;	/* POINT only */
};

struct scene {
	struct scene_item *v;
	size_t n, cap;
	struct scene_item spare;	/* what adders past the cap fill (dropped) */
};

#define SCENE_INIT { 0 }

void scene_init(struct scene *sc);
void scene_release(struct scene *sc);

/* ---- building one (every string is formatted and copied) ---- */

void scene_title(struct scene *sc, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void scene_line(struct scene *sc, unsigned flags, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
void scene_area(struct scene *sc, enum scene_colour c, unsigned flags, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
void scene_end(struct scene *sc);
void scene_row(struct scene *sc, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* A card in the current row; set its other fields with the setters below
 * (and its count and flags directly). */
struct scene_item *scene_card(struct scene *sc, enum scene_colour c, const char *title);
/* A chip: "label value" with the colour's shape, e.g. ("Coins", "5"). */
struct scene_item *scene_chip(struct scene *sc, enum scene_colour c, const char *label,
			      const char *fmt, ...) __attribute__((format(printf, 4, 5)));
/* A pip at the foot of the last card. */
void scene_pip(struct scene *sc, enum scene_colour c, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
void scene_track(struct scene *sc, int lo, int hi, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
void scene_zone(struct scene *sc, int from, int to, enum scene_colour c, const char *fmt, ...)
	__attribute__((format(printf, 5, 6)));
/* A marker at pos on the last track: label (1-3 letters) drawn in it, alt
 * says whose it is ("Ana: 12"). */
struct scene_item *scene_mark(struct scene *sc, int pos, enum scene_colour c,
			      const char *label, const char *alt);
void scene_table(struct scene *sc, int ncols, unsigned flags);
/* A cell of the last table; set SCENE_MARKED in its flags to highlight
 * its row. */
struct scene_item *scene_cell(struct scene *sc, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/*
 * A line chart (a player's rating over time): the line through each
 * point's y, over a translucent band from its lo to its hi (the rating's
 * uncertainty), x labels thinned to fit, the last value written beside
 * its point.  colour: the line's (SCOL_NONE: the painter's blue).  Set the
 * band's legend and the note of an empty chart with scene_set_band and
 * scene_set_corner on the item returned.
 */
struct scene_item *scene_chart(struct scene *sc, enum scene_colour c, const char *title,
			       const char *y_label);
/*
 * A point of the last chart, after the ones before it (left to right).
 * Returns 0, or -1 and adds nothing when the scene's last item is no chart
 * or point, when the chart has SCENE_CHART_POINTS already (the caller
 * keeps the most recent ones), when a value is not finite or beyond
 * SCENE_CHART_ABS, or when lo <= y <= hi does not hold.
 */
int scene_chart_point(struct scene *sc, const char *x_label, double y, double lo, double hi);
/* v as charts print it (3 significant digits or more, no needless
 * zeros: "1523", "25.3", "0.0042", "1.2e+12"). */
void scene_number(double v, char out[32]);

/* The first character of name (a whole UTF-8 sequence; ASCII letters in
 * upper case) into out, for a player's marker: "ana" -> "A". */
void scene_initial(const char *name, char out[8]);

/* Setters of an item's strings (replace what was there). */
void scene_set_band(struct scene_item *it, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
void scene_set_sub(struct scene_item *it, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
void scene_set_corner(struct scene_item *it, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
void scene_set_alt(struct scene_item *it, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* ---- reading one ---- */

/*
 * Appends every string of the scene, one per line, in item order: what
 * the painter draws and each piece's alt.  The picture's description, and
 * what the secrets tests scan.  Line breaks inside a string become spaces.
 */
void scene_texts(const struct scene *sc, struct buf *out);

/*
 * JSON form (kept in the outbox with the message it illustrates): an array
 * of {"k": kind, ...} objects.  scene_to_json returns a new reference;
 * scene_from_json fills an empty sc and returns 0, or -1 with err on any
 * malformed value (unknown kind or colour, a string too long or not UTF-8,
 * too many items, a point out of a chart or past SCENE_CHART_POINTS, a
 * value scene_chart_point would refuse), sc left empty.
 */
json_t *scene_to_json(const struct scene *sc);
int scene_from_json(struct scene *sc, const json_t *j, struct buf *err);

#endif
