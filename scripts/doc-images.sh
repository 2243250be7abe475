#!/bin/sh
# Paints the pictures README shows (docs/images/): every game's board in the
# middle of a seeded AI game, and a Glory to Rome hand, from the painter's
# unit test (tests/unit/test_paint.c writes them to TABULA_PAINT_DIR).
set -e
cd "$(dirname "$0")/.."
make -s build/tests/test_paint
d=$(mktemp -d)
TABULA_PAINT_DIR=$d build/tests/test_paint >/dev/null 2>&1
for g in fortuna gtr sylla builders; do
	cp "$d/$g-mid-board-en.png" "docs/images/$g-board.png"
done
cp "$d/gtr-start-seat0-en.png" docs/images/gtr-hand.png
cp "$d/sylla-mid-board-es.png" docs/images/sylla-board-es.png
rm -rf "$d"
