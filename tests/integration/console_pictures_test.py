#!/usr/bin/env python3
"""Pictures of boards on the console, through the real binary: `board
image` writes a PNG under var/boards/ (beside the default store) and prints
its path; the room's `game settings board` decides what a move's board is;
a picture that cannot be made becomes the text board, with a log line.

The console answers in order, so each test writes all its lines at once and
reads the whole output when the bot exits at the end of its input.

usage: console_pictures_test.py ./tabula [test-name ...]
"""
import os
import re
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "fakes"))
import harness  # noqa: E402
import pngread  # noqa: E402
from harness import SLOW  # noqa: E402

BIN = "./tabula"
PICTURE_RE = re.compile(r"^\[(room|dm [^\]]+)\] picture: (\S+) \((\d+)x(\d+)\)$")
PARCHMENT = (0xF3, 0xEC, 0xDC)     # the page's background (paint/paint.c)


def run(lines, cwd, extra_env=None):
    """Runs the bot in cwd (the default store ./var/tabula.db) with lines as
    its input; returns (stdout lines, stderr text)."""
    env = {k: v for k, v in os.environ.items()
           if not k.startswith(("DISCORD_", "MATRIX_", "TABULA_"))}
    env.update({"TABULA_SEED": "3", "TABULA_LOG": "warn"})
    env.update(extra_env or {})
    p = subprocess.run([os.path.abspath(BIN)], input="".join(l + "\n" for l in lines).encode(),
                       capture_output=True, env=env, cwd=cwd, timeout=120 * SLOW)
    assert p.returncode == 0, (p.returncode, p.stderr[-800:])
    return p.stdout.decode("utf-8", "replace").splitlines(), p.stderr.decode("utf-8", "replace")


def pictures(out):
    """[(where, path, w, h)] of the pictures the console printed."""
    return [(m.group(1), m.group(2), int(m.group(3)), int(m.group(4)))
            for m in map(PICTURE_RE.match, out) if m]


GAME = ["ana: game new gtr", "ana: game addbot 1", "ana: game start"]


def test_board_image_writes_under_var_boards():
    """The console keeps text boards by default (a terminal shows no
    pictures); `board image` writes the board's PNG under var/boards/,
    beside the default store ./var/tabula.db, and prints that path: the
    file decodes whole, 1000 pixels wide, its size the one printed, its
    page parchment, its texts (the PNG's Description) the board's.  With
    `game settings board image` the private view (`hand`) is a picture
    too, its file named after its player, and the room's text board is
    not printed again."""
    with tempfile.TemporaryDirectory() as tmp:
        out, err = run(GAME + ["ana: board", "ana: board image", "ana: game settings board image",
                               "ana: hand", "ana: board"], tmp)
        pics = pictures(out)
        assert len(pics) == 3, (pics, out[-30:])
        # the plain `board` of a text room printed text, no picture first
        first = out.index(next(l for l in out if PICTURE_RE.match(l)))
        assert any("Glory to Rome: turn 1" in l for l in out[:first]), out[:first]
        (where, path, w, h), (hwhere, hpath, _, _), (_, bpath, _, _) = pics
        assert where == "room" and os.path.normpath(path).startswith("var/boards/"), pics
        assert os.path.dirname(os.path.normpath(os.path.join(tmp, path))) == os.path.join(tmp, "var", "boards")
        data = open(os.path.join(tmp, path), "rb").read()
        info = pngread.png_info(data)
        assert (info["width"], info["height"]) == (w, h) and w == 1000 and 300 < h < 8000, info
        assert info["text"].startswith("Glory to Rome: turn 1\n"), info["text"][:200]
        assert "Sites in town/out of town" in info["text"]
        pw, ph, rows = pngread.png_pixels(data)
        assert (pw, ph) == (w, h) and rows[2][2] == PARCHMENT, rows[2][2]
        # the private view: a picture, in ana's name, showing her hand
        assert hwhere == "dm ana" and os.path.normpath(hpath).startswith("var/boards/"), pics
        assert "-ana-" in hpath, pics
        hinfo = pngread.png_info(open(os.path.join(tmp, hpath), "rb").read())
        assert hinfo["text"].startswith("Glory to Rome: your hand\n"), hinfo["text"][:200]
        # an image room's `board`: the picture, the text board not printed
        assert os.path.exists(os.path.join(tmp, bpath)), bpath
        last = out.index(next(l for l in out if PICTURE_RE.match(l) and bpath in l))
        assert not any("Glory to Rome: turn" in l for l in out[last - 3:last]), out[last - 3:last]
        assert any("Boards in this room now come as pictures" in l for l in out), out
        assert "picture" not in err and "failed" not in err, err


def test_render_failure_falls_back_to_text():
    """A picture that cannot be made never loses a board: with the painter
    made to fail (TABULA_TEST_PAINT_FAIL), in a room set to pictures the
    boards of the start and of the AI's move (sent from the outbox after
    their commit) and the answer to `board image` come as the text board,
    after the text that went before the picture was to be painted (what
    happened, who is asked), each failure a warning in the log; run again
    without the failure, the same store's `board image` is a picture."""
    with tempfile.TemporaryDirectory() as tmp:
        out, err = run(["ana: game new gtr", "ana: game settings board image",
                        "ana: game addbot 1", "ana: game start", "ana: board image"], tmp,
                       {"TABULA_TEST_PAINT_FAIL": "1000"})
        assert pictures(out) == [], out
        boards = [i for i, l in enumerate(out) if re.match(r"\[room\] == Glory to Rome: turn", l)]
        assert len(boards) >= 2, out      # the moves' boards and `board image`'s
        assert any("Sites in town/out of town" in l for l in out[boards[-1]:]), out[boards[-1]:]
        # the text went first, the text board in the picture's place after
        # it; the console reads its next line only then (one stream, in
        # order): `board image`'s text board comes after the start's
        assert sum("Waiting for" in l for l in out[:boards[0]]) >= 1, out
        assert any("Waiting for" in l for l in out[boards[0]:boards[-1]]), out
        assert re.search(r"outbox \d+: picture board-s\d+-m\d+\.png failed: injected failure"
                         r".*; sent as text", err), err
        assert re.search(r"picture board-s\d+-m\d+\.png for console/\S* failed: injected "
                         r"failure.*; answered with text", err), err
        assert not os.path.exists(os.path.join(tmp, "var", "boards")) or \
            os.listdir(os.path.join(tmp, "var", "boards")) == []
        out, err = run(["ana: board image"], tmp)
        assert len(pictures(out)) == 1, out
        assert "failed" not in err, err


if __name__ == "__main__":
    sys.exit(harness.run_tests("console pictures", sys.modules[__name__], sys.argv))
