#!/usr/bin/env python3
"""Searching AI seats (`game settings ai strong`) through the real binary:
their decisions run on libuv's thread pool and come back as boards of their
own (docs/async.md).

usage: strong_ai_test.py ./tabula [test-name ...]
"""
import os
import queue
import subprocess
import sys
import tempfile
import threading
import time

import harness
from harness import SLOW
import crash_test
from crash_test import ask, status, moves_of

BIN = "./tabula"


class Bot(crash_test.Bot):
    """The console bot of crash_test, with a search budget."""

    def __init__(self, db, iterations):
        env = {k: v for k, v in os.environ.items()
               if not k.startswith(("DISCORD_", "MATRIX_", "TABULA_"))}
        env.update({"TABULA_DB": db, "TABULA_SEED": "9", "TABULA_LOG": "warn",
                    "TABULA_AI_ITERATIONS": str(iterations)})
        self.proc = subprocess.Popen([BIN], env=env, stdin=subprocess.PIPE,
                                     stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
        self.lines = queue.Queue()
        threading.Thread(target=self._read, daemon=True).start()


def new_game(bot, room, game="fortuna"):
    bot.send("#%s ana: game new %s" % (room, game))
    bot.send("#%s ana: game addbot" % room)
    lines = ask(bot, "#%s ana: game settings ai strong" % room)
    assert any("AI players now search" in l for l in lines), lines
    ask(bot, "#%s ana: game start" % room)
    if game == "fortuna":
        # Fortuna's setup asks ana and the AI at once: ana answers now,
        # while this room is the only one with a game in play
        ids = wait_for_ana(bot, room)
        ask(bot, "#%s ana: play %s" % (room, ids[0]))


def ana_moves(bot, room):
    """ana's move ids in room now.  The console's DMs do not say their room,
    so an update another room's game pushes to ana meanwhile (its own view,
    under a "== ... ==" heading, and her moves there) is left out; so is
    everything when the answer is that she has nothing to decide here."""
    lines = [l for l in ask(bot, "#%s ana: moves" % room) if l.startswith("[dm ana] ")]
    if any("You have nothing to decide now." in l for l in lines):
        return []
    ids, pushed, listing = [], False, False
    for l in lines:
        m = crash_test.MOVE_RE.match(l)
        if m:
            listing = True
            if not pushed:
                ids.append(m.group(2).strip())
            continue
        if listing:     # a list ended: what follows is another message
            pushed = listing = False
        if l.startswith("[dm ana] == "):
            pushed = True
    return ids


def wait_for_ana(bot, room, timeout=20):
    """ana's move ids in room once she is asked, or None when the game is
    over.  While only the AI is asked, its answer is on its way."""
    end = time.monotonic() + timeout * SLOW
    while True:
        ids = ana_moves(bot, room)
        if ids:
            return ids
        n, over = status(bot, room)
        if over:
            return None
        assert time.monotonic() < end, "the AI never answered in %s" % room
        time.sleep(0.02)


def test_two_rooms_to_the_end():
    """Two games against searching AIs, played in turns, both end; every
    board is public, every move list private, nothing is refused."""
    db = os.path.join(tempfile.mkdtemp(prefix="tabula-ai-"), "t.db")
    bot = Bot(db, 4)
    rooms = ("r1", "r2")
    for r in rooms:
        new_game(bot, r)
    done = set()
    steps = 0
    while len(done) < len(rooms):
        for r in rooms:
            if r in done:
                continue
            ids = wait_for_ana(bot, r)
            if ids is None:
                done.add(r)
                continue
            lines = ask(bot, "#%s ana: play %s" % (r, ids[0]))
            bad = [l for l in lines if "not your turn" in l.lower() or "no such move" in l.lower()]
            assert not bad, bad
            steps += 1
            assert steps < 2000, "the games did not end"
    for r in rooms:
        text = "\n".join(ask(bot, "#%s ana: board" % r))
        assert "Game over" in text, text[-400:]
        assert status(bot, r)[1], r
    bot.close()


def test_kill9_while_thinking():
    """A kill -9 while the AI thinks loses nothing: the restarted bot thinks
    again from the stored due time and answers without any command."""
    db = os.path.join(tempfile.mkdtemp(prefix="tabula-ai-"), "t.db")
    bot = Bot(db, 1000000)     # thinks for many seconds: the kill comes first
    new_game(bot, "r1")
    for _ in range(200):
        ids = moves_of(bot, "r1", "ana")
        n_before, over = status(bot, "r1")
        assert not over, "the game ended early"
        if not ids:
            break           # only the AI is asked: it is thinking
        ask(bot, "#r1 ana: play %s" % ids[0])
    else:
        raise AssertionError("the AI was never asked")
    bot.kill9()
    bot = Bot(db, 4)
    ids = wait_for_ana(bot, "r1")   # no command needed: the due time
    n_after, over = status(bot, "r1")
    assert ids or over
    assert n_after > n_before, (n_before, n_after)
    # and the game goes on
    if ids:
        ask(bot, "#r1 ana: play %s" % ids[0])
        assert status(bot, "r1")[0] > n_after
    bot.close()


if __name__ == "__main__":
    sys.exit(harness.run_tests("strong-ai", sys.modules[__name__], sys.argv))
