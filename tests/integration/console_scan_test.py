#!/usr/bin/env python3
"""Nothing the room can read names a hidden card: every registered game,
played to its end through the console binary, with every public line
(`[room ...]`) printed for each command checked against the secrets() of
every game in play in the bot's store at that moment (hidden.py).

The console answers one line at a time, in order, so the test writes one
command, then a line the console rejects by itself ("#x": no room command
reaches the manager), and reads until that rejection: everything before it
is the command's output, and the check runs before the next command.

Choices are random (seeded) among each awaited player's moves, as `moves`
lists them privately; onlookers ask for `board`, `log` and `game status`
along the way.  A negative control keeps the check honest: the secrets must
be non-empty at some step and must show up in some private line (the
player's own hand), else the scan proved nothing; in a game where nobody
holds a secret (The Builders), some secret must show up in a later public
line instead (the deck's next card, turned face up).

Every room is set to `game settings board both`: each board also comes as
a picture, written to a file whose path the console prints; the picture's
texts (its PNG's Description: every text of its display list) are read as
one more line of the room, or of the player's for a private view.

usage: console_scan_test.py ./tabula [test-name ...]
"""
import os
import queue
import random
import re
import subprocess
import sys
import tempfile
import threading
import time

import harness
from harness import SLOW
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "fakes"))
import pngread  # noqa: E402
from hidden import secrets_now, assert_no_leak

BIN = "./tabula"
SENTINEL = "#x"
SENTINEL_OUT = "[console] a room is written #name, then a space"
# "@ana" when the board pings her, "*ana*" when she was awaited already;
# seats asked the same thing share a line ("Waiting for @ana, *ben*: ...")
WAITING_RE = re.compile(r"^\[room[^\]]*\] Waiting for ((?:[@*]?[^\s*:,]+\*?)(?:, [@*]?[^\s*:,]+\*?)*): ")
MOVE_RE = re.compile(r"^\[dm (\S+?)\]\s+(\d+)\. (\S.*?)(?:  — .*)?$")
GAMES_RE = re.compile(r"^\[dm \S+\] Games: (.+)\.$")
SEATS_RE = re.compile(r"Seats \(\d+ of (\d+)–(\d+)\)")
NAMES = ["ana", "ben", "cy", "dan", "eve"]
PICTURE_RE = re.compile(r"^(\[(?:room|dm)[^\]]*\]) picture: (\S+) \(\d+x\d+\)$")


class Console:
    def __init__(self, db):
        env = {k: v for k, v in os.environ.items()
               if not k.startswith(("DISCORD_", "MATRIX_", "TABULA_"))}
        env.update({"TABULA_DB": db, "TABULA_SEED": "21", "TABULA_LOG": "warn"})
        self.db = db
        self.proc = subprocess.Popen([BIN], env=env, stdin=subprocess.PIPE,
                                     stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
        self.lines = queue.Queue()
        threading.Thread(target=self._read, daemon=True).start()
        self.steps = self.public = self.with_secrets = self.private_hits = 0
        self.revealed_hits = 0
        self.pictures = 0       # public pictures whose texts were read
        self.earlier = set()    # secrets of earlier steps

    def _read(self):
        for raw in self.proc.stdout:
            self.lines.put(raw.decode("utf-8", "replace").rstrip("\n"))
        self.lines.put(None)

    def ask(self, line):
        """The output of one command, checked: no public line names a
        secret of any game in play now."""
        self.proc.stdin.write((line + "\n" + SENTINEL + "\n").encode())
        self.proc.stdin.flush()
        out = []
        end = time.monotonic() + 30 * SLOW
        while True:
            l = self.lines.get(timeout=max(0.01, end - time.monotonic()))
            assert l is not None, "the bot stopped after %r" % line
            if l == SENTINEL_OUT:
                break
            out.append(l)
            m = PICTURE_RE.match(l)
            if m:
                # the picture's texts, as a line of where it was shown
                with open(m.group(2), "rb") as f:
                    text = pngread.png_info(f.read())["text"]
                assert text, l
                out.append(m.group(1) + " " + text.replace("\n", " | "))
                self.pictures += m.group(1).startswith("[room")
        self.steps += 1
        pub = [l for l in out if l.startswith("[room")]
        priv = [l for l in out if l.startswith("[dm ")]
        if pub or priv:
            secrets = secrets_now(self.db)
            self.with_secrets += bool(secrets)
            self.public += len(pub)
            assert_no_leak(pub, secrets, " after %r (step %d)" % (line, self.steps))
            self.private_hits += any(s in l for l in priv for s in secrets)
            # a card hidden before and public now (a deck's next card
            # turned face up) shows in the form secrets() gives it
            self.revealed_hits += any(s in l for l in pub for s in self.earlier - secrets)
            self.earlier |= secrets
        return out

    def close(self):
        self.proc.stdin.close()
        self.proc.wait(timeout=30 * SLOW)
        assert self.proc.returncode == 0, self.proc.returncode


def registered_games(bot):
    for l in bot.ask("zed: help"):
        m = GAMES_RE.match(l)
        if m:
            return [g.strip() for g in m.group(1).split(",")]
    raise AssertionError("help lists no games")


def awaited_in(out):
    """The players a board in out waits for (its last board), or None when
    out holds no board; [] when a game is over."""
    names, seen = [], False
    for l in out:
        if "Game over" in l or "Fin de la partida" in l:
            return []
        m = WAITING_RE.match(l)
        if m:
            if not seen:
                names, seen = [], True
            names += [n.strip("@*") for n in m.group(1).split(", ")]
        elif seen and l.startswith("[room") and "Waiting for" not in l:
            seen = False
    return names if names else None


def play_game(bot, game, room, humans, bots, rng, max_steps):
    """Opens game in room with humans and AI seats, plays it to the end with
    random legal moves and returns the number of decisions."""
    r = "#%s " % room
    out = bot.ask(r + "%s: game new %s" % (NAMES[0], game))
    m = next((SEATS_RE.search(l) for l in out if SEATS_RE.search(l)), None)
    assert m, out
    lo, hi = int(m.group(1)), int(m.group(2))
    bot.ask(r + "%s: game settings board both" % NAMES[0])
    humans = max(1, min(humans, hi))
    for who in NAMES[1:humans]:
        bot.ask(r + "%s: game join" % who)
    if bots:
        bot.ask(r + "%s: game addbot %d" % (NAMES[0], bots))
    out = bot.ask(r + "%s: game start" % NAMES[0])
    awaited = awaited_in(out)
    assert awaited, "%s did not start: %r" % (game, out[-5:])
    decisions = 0
    while awaited and decisions < max_steps:
        who = rng.choice(awaited)
        moves = [(n, mid) for w, n, mid in
                 (mm.groups() for mm in map(MOVE_RE.match, bot.ask(r + "%s: moves" % who)) if mm)
                 if w == who and not mid.startswith("concede")]
        assert moves, "%s is awaited but has no moves" % who
        out = bot.ask(r + "%s: play %s" % (who, rng.choice(moves)[0]))
        assert not any(("not your turn" in l or "No move matches" in l) for l in out), out
        decisions += 1
        now = awaited_in(out)
        if now is not None:
            awaited = now
        if decisions % 12 == 0:
            # what onlookers and players can ask for at any time
            bot.ask(r + "zed: board")
            bot.ask(r + "zed: log 5")
            bot.ask(r + "zed: game status")
            bot.ask(r + "%s: log 8" % who)
            bot.ask(r + "%s: hand" % who)
    assert not awaited, "%s did not end in %d decisions" % (game, max_steps)
    bot.ask(r + "zed: log 40")
    bot.ask(r + "%s: log all" % NAMES[0])
    return decisions


# Games in which nobody holds a secret (The Builders: only the order of the
# decks is hidden): their control is a secret turned public later instead
# of one shown privately to its owner.
NO_PRIVATE_SECRETS = {"builders"}


def scan(plan):
    db = os.path.join(tempfile.mkdtemp(prefix="tabula-scan-"), "t.db")
    bot = Console(db)
    rng = random.Random(11)
    try:
        games = registered_games(bot)
        assert {"fortuna", "gtr", "builders"} <= set(games), games
        for i, game in enumerate(games):
            humans, bots = plan.get(game, (3, 0))
            before = (bot.with_secrets, bot.private_hits, bot.revealed_hits)
            bot.earlier = set()
            n = play_game(bot, game, "g%d" % i, humans, bots, rng, 3000)
            assert n > 10, (game, n)
            # the control: there was something to hide, and it was shown
            # to its owner (or, where nobody may see it, to everybody once
            # it was no longer hidden); so a leak would have been seen
            assert bot.with_secrets > before[0], "%s: no secrets at any step" % game
            if game in NO_PRIVATE_SECRETS:
                assert bot.revealed_hits > before[2], "%s: no secret ever turned public" % game
            else:
                assert bot.private_hits > before[1], "%s: no secret in any private line" % game
            print("  %s: %d decisions, %d commands checked so far" % (game, n, bot.steps))
    finally:
        bot.close()
    assert bot.public > 100, bot.public
    assert bot.pictures > 30 * len(games), ("the boards came as pictures", bot.pictures)


@harness.whole_game_scan
def test_no_secret_in_any_public_console_line():
    """Fortuna with three humans, Glory to Rome with three humans, The
    Builders with three humans (and any other registered game with three
    humans or its maximum)."""
    scan({"fortuna": (3, 0), "gtr": (3, 0), "builders": (3, 0)})


if __name__ == "__main__":
    sys.exit(harness.run_tests("console_scan", sys.modules[__name__], sys.argv))
