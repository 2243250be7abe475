#!/usr/bin/env python3
"""Crash recovery: kill -9 the bot at random moments of scripted games in
several rooms, restart it on the same store, and check that

  - every acknowledged move is there (the board after it was printed),
  - no move is applied twice (the move count never exceeds what was sent),
  - every room's game goes on from a consistent state to its end.

usage: crash_test.py ./tabula [seed ...]
Prints one line per run and "crash: N passed, M failed".  The console adapter
answers synchronously, so "acknowledged" is exact; the same properties for
Discord, with re-sent outbox messages, are checked in discord_test.py
(test_kill9_mid_game).
"""
import importlib.util
import os
import queue
import random
import re
import signal
import subprocess
import sys
import tempfile
import threading
import time
import traceback

from harness import SLOW    # TABULA_TEST_SLOW: timeouts x this (make valgrind)

HERE = os.path.dirname(os.path.abspath(__file__))
_spec = importlib.util.spec_from_file_location(
    "make_transcript", os.path.join(HERE, "..", "..", "scripts", "make-transcript.py"))
make_transcript = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(make_transcript)

BIN = "./tabula"
ROOMS = ("r1", "r2", "r3")
PLAYERS = ("ana", "ben")
MOVE_RE = re.compile(r"^\[dm (\w+)\]\s+\d+\. (.+?)(?:  — .*)?$")


class Bot:
    def __init__(self, db):
        env = {k: v for k, v in os.environ.items()
               if not k.startswith(("DISCORD_", "MATRIX_", "TABULA_"))}
        env.update({"TABULA_DB": db, "TABULA_SEED": "5", "TABULA_LOG": "warn"})
        self.proc = subprocess.Popen([BIN], env=env, stdin=subprocess.PIPE,
                                     stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
        self.lines = queue.Queue()
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self):
        for raw in self.proc.stdout:
            self.lines.put(raw.decode("utf-8", "replace").rstrip("\n"))
        self.lines.put(None)

    def send(self, line):
        self.proc.stdin.write((line + "\n").encode())
        self.proc.stdin.flush()

    def until(self, pred, timeout=10):
        """Lines up to and including the first one pred accepts."""
        got = []
        end = time.monotonic() + timeout * SLOW
        while True:
            try:
                line = self.lines.get(timeout=max(0.01, end - time.monotonic()))
            except queue.Empty:
                raise AssertionError("no expected output; got %r" % got[-5:])
            if line is None:
                raise AssertionError("the bot exited; got %r" % got[-5:])
            got.append(line)
            if pred(line):
                return got

    def kill9(self):
        self.proc.send_signal(signal.SIGKILL)
        self.proc.wait(timeout=10 * SLOW)

    def close(self):
        try:
            self.proc.stdin.close()
        except OSError:
            pass
        rc = self.proc.wait(timeout=20 * SLOW)
        assert rc == 0, "exit status %r" % rc


def ask(bot, line):
    """The output of one command: a sentinel command after it marks its end
    (the console answers in order)."""
    bot.send(line)
    bot.send("#zz zz: hand")
    lines = bot.until(lambda l: l.startswith("[dm zz]"))
    return lines[:-1]


def status(bot, room):
    """(moves stored, finished) of the room's game."""
    text = "\n".join(ask(bot, "#%s ana: game status" % room))
    m = re.search(r"Moves so far: (\d+)", text)
    return int(m.group(1)) if m else None, "in play" not in text


def moves_of(bot, room, who):
    lines = ask(bot, "#%s %s: moves" % (room, who))
    return [m.group(2).strip() for m in map(MOVE_RE.match, lines) if m and m.group(1) == who]


def run(seed):
    rng = random.Random(seed)
    db = os.path.join(tempfile.mkdtemp(prefix="tabula-crash-"), "t.db")
    bot = Bot(db)
    for r in ROOMS:
        bot.send("#%s ana: game new fortuna" % r)
        bot.send("#%s ben: game join" % r)
        ask(bot, "#%s ana: game start" % r)
    acked = {r: 0 for r in ROOMS}
    sent = {r: 0 for r in ROOMS}
    done = set()
    kills = 0
    steps = 0
    while len(done) < len(ROOMS):
        steps += 1
        assert steps < 3000, "the games did not end"
        room = rng.choice([r for r in ROOMS if r not in done])
        choices = {}
        for who in PLAYERS:
            ids = moves_of(bot, room, who)
            if ids:
                choices[who] = ids
        if not choices:
            n, over = status(bot, room)
            assert over, "nobody can move in %s but the game is not over" % room
            done.add(room)
            continue
        who = sorted(choices)[0]
        move = make_transcript.pick(rng, choices[who], "fortuna")
        bot.send("#%s %s: play %s" % (room, who, move))
        sent[room] += 1
        if rng.random() < 0.12:
            # crash: at once, or a little later (mid-commit or mid-output)
            time.sleep(rng.choice((0, 0, 0.001, 0.003, 0.01)))
            bot.kill9()
            kills += 1
            bot = Bot(db)
            for r in ROOMS:
                n, over = status(bot, r)
                if over:
                    done.add(r)
                    continue
                assert n is not None
                assert acked[r] <= n <= sent[r], (
                    "room %s: %d moves stored, %d acknowledged, %d sent" % (r, n, acked[r], sent[r]))
                acked[r] = sent[r] = n
            continue
        bot.send("#zz zz: hand")
        lines = bot.until(lambda l: l.startswith("[dm zz]"))
        if any("Game over" in l for l in lines):
            done.add(room)
        if any(l.startswith("[room #%s]" % room) for l in lines):
            acked[room] += 1
    for r in ROOMS:
        n, over = status(bot, r)
        assert over, "room %s did not finish" % r
    bot.close()
    return kills


def main(argv):
    global BIN
    if len(argv) > 1:
        BIN = argv[1]
    seeds = [int(a) for a in argv[2:]] or [1, 2]
    passed = failed = 0
    for seed in seeds:
        t0 = time.monotonic()
        try:
            kills = run(seed)
        except Exception:
            failed += 1
            print("FAIL crash seed %d (%.1fs)" % (seed, time.monotonic() - t0))
            traceback.print_exc()
        else:
            passed += 1
            print("ok   crash seed %d: %d kill -9 (%.1fs)" % (seed, kills, time.monotonic() - t0))
        sys.stdout.flush()
    print("crash: %d passed, %d failed" % (passed, failed))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
