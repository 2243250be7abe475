#!/usr/bin/env python3
"""The record of finished games through the real binary (issue 26):

  - test_kill9_last_move_rated_once: a game's last move, with kill -9 at
    several moments around it (before, during and after its commit), leaves
    the game rated exactly once: either not finished and not rated (and
    finished and rated once when the move is sent again) or finished, with
    one results row, one rating row per player and scope with games = 1,
    and one point of each curve;
  - test_discord_guild_is_the_community: on Discord (the loopback fake)
    the interaction's guild_id reaches the session, its result and the
    ratings' scope, beside the platform's.

usage: record_test.py ./tabula [test-name ...]
"""
import os
import shutil
import sqlite3
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "fakes"))
sys.path.insert(0, HERE)
import crash_test  # noqa: E402
import discord_test  # noqa: E402
import harness  # noqa: E402

BIN = "./tabula"


def db_files(db):
    return [db + s for s in ("", "-wal", "-shm") if os.path.exists(db + s)]


def copy_db(src, dst):
    for f in db_files(src):
        shutil.copy(f, dst + f[len(src):])


def record_of(db):
    """(status of the room's session, results rows, rating rows by scope and
    player as (games, points))."""
    con = sqlite3.connect(db)
    try:
        status = con.execute("SELECT status FROM sessions WHERE room = 'r1'"
                             " ORDER BY id DESC LIMIT 1").fetchone()[0]
        results = con.execute("SELECT session, rated, moves FROM results").fetchall()
        ratings = {}
        for scope, player, games in con.execute(
                "SELECT scope, player, games FROM ratings WHERE game = 'fortuna'"):
            n = con.execute("SELECT count(*) FROM rating_history WHERE scope = ?"
                            " AND player = ?", (scope, player)).fetchone()[0]
            ratings[(scope, player)] = (games, n)
        return status, results, ratings
    finally:
        con.close()


def assert_rated_once(db):
    status, results, ratings = record_of(db)
    assert status == 2, "the game is not finished (status %d)" % status
    assert len(results) == 1 and results[0][1] == 1, results
    assert ratings == {("", "ana"): (1, 1), ("", "ben"): (1, 1)}, ratings


def play_all_but_last(bot):
    """Plays r1 to its end, greedily; returns the moves (who, move) played."""
    played = []
    while True:
        choices = {}
        for who in crash_test.PLAYERS:
            ids = crash_test.moves_of(bot, "r1", who)
            if ids:
                choices[who] = ids
        if not choices:
            return played
        who = sorted(choices)[0]
        move = choices[who][0]
        crash_test.ask(bot, "#r1 %s: play %s" % (who, move))
        played.append((who, move))
        assert len(played) < 3000, "the game did not end"


def test_kill9_last_move_rated_once():
    crash_test.BIN = BIN
    work = tempfile.mkdtemp(prefix="tabula-record-")
    # a first run finds the game's moves; a second stops before the last
    full = os.path.join(work, "full.db")
    bot = crash_test.Bot(full)
    bot.send("#r1 ana: game new fortuna")
    bot.send("#r1 ben: game join")
    crash_test.ask(bot, "#r1 ana: game start")
    moves = play_all_but_last(bot)
    bot.close()
    assert_rated_once(full)
    assert len(moves) > 10, moves
    base = os.path.join(work, "base.db")
    bot = crash_test.Bot(base)
    bot.send("#r1 ana: game new fortuna")
    bot.send("#r1 ben: game join")
    crash_test.ask(bot, "#r1 ana: game start")
    for who, move in moves[:-1]:
        crash_test.ask(bot, "#r1 %s: play %s" % (who, move))
    bot.close()
    status, results, ratings = record_of(base)
    assert status == 1 and not results and not ratings, (status, results, ratings)
    last = "#r1 %s: play %s" % moves[-1]
    outcomes = {"rated": 0, "not yet": 0}
    for i, delay in enumerate((0, 0, 0.0005, 0.001, 0.002, 0.003, 0.005, 0.01, 0.05, None)):
        db = os.path.join(work, "k%d.db" % i)
        copy_db(base, db)
        bot = crash_test.Bot(db)
        crash_test.ask(bot, "#zz zz: hand")     # started and listening
        bot.send(last)
        if delay is None:
            bot.until(lambda l: "Game over" in l)
        else:
            time.sleep(delay)
        bot.kill9()
        status, results, ratings = record_of(db)
        if status == 2:
            outcomes["rated"] += 1
            assert_rated_once(db)
            # a restart changes nothing: the game is not rated again
            bot = crash_test.Bot(db)
            crash_test.ask(bot, last)
            bot.close()
        else:
            outcomes["not yet"] += 1
            assert status == 1 and not results and not ratings, (status, results, ratings)
            bot = crash_test.Bot(db)
            crash_test.ask(bot, last)
            bot.close()
        assert_rated_once(db)
    print("  last move killed: %r (%d moves)" % (outcomes, len(moves)))
    assert outcomes["rated"] >= 1, outcomes
    shutil.rmtree(work, ignore_errors=True)


def test_discord_guild_is_the_community():
    discord_test.BIN = BIN
    fake, bot = discord_test.start()
    fake.channel_rate = (50, 1.0)   # a whole game: the community is what is tested
    try:
        fake.wait_ready(10)
        fake.wait_commands()
        ps = [discord_test.user(fake, i) for i in (1, 2)]
        users = {p["id"]: p for p in ps}
        discord_test.lobby(fake, ps)
        con = sqlite3.connect(bot.db)
        row = con.execute("SELECT community FROM sessions").fetchone()
        con.close()
        assert row == (discord_test.GUILD,), row
        import random
        discord_test.play_to_end(fake, users, random.Random(3))
        deadline = time.monotonic() + 10 * harness.SLOW
        while True:
            con = sqlite3.connect(bot.db)
            res = con.execute("SELECT community, rated FROM results").fetchall()
            scopes = con.execute("SELECT scope, count(*) FROM ratings"
                                 " GROUP BY scope ORDER BY scope").fetchall()
            con.close()
            if res or time.monotonic() > deadline:
                break
            time.sleep(0.1)
        assert res == [(discord_test.GUILD, 1)], res
        assert scopes == [("", 2), (discord_test.GUILD, 2)], scopes
    finally:
        bot.stop()
        fake.stop()


if __name__ == "__main__":
    sys.exit(harness.run_tests("record", sys.modules[__name__], sys.argv))
