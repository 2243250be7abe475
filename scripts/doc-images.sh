#!/bin/sh
# Paints the pictures README shows (docs/images/): every game's board in the
# middle of a seeded AI game, and a Glory to Rome hand, from the painter's
# unit test (tests/unit/test_paint.c writes them to TABULA_PAINT_DIR); a
# player's stats with their rating chart and a leaderboard, from
# tests/unit/test_chart.c's samples.
set -e
cd "$(dirname "$0")/.."
make -s build/tests/test_paint build/tests/test_chart
d=$(mktemp -d)
TABULA_PAINT_DIR=$d build/tests/test_paint >/dev/null 2>&1
for g in fortuna gtr sylla builders; do
	cp "$d/$g-mid-board-en.png" "docs/images/$g-board.png"
done
cp "$d/gtr-start-seat0-en.png" docs/images/gtr-hand.png
cp "$d/sylla-mid-board-es.png" docs/images/sylla-board-es.png
TABULA_PAINT_DIR=$d build/tests/test_chart >/dev/null 2>&1
cp "$d/stats-chart.png" docs/images/stats-chart.png
cp "$d/leaderboard.png" docs/images/leaderboard.png
rm -rf "$d"
