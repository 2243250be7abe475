#!/usr/bin/env python3
"""The Builders: Antiquity through the real binary on the Discord and the
Matrix fakes: a whole 4-player game, one human and three AI seats, to the
final scores, with every public payload of each step checked against the
secrets() of the game at that moment (tests/integration/hidden.py: the
decks' next cards must never appear in the room).

It reuses the harnesses of discord_test.py and matrix_test.py (their bots,
fakes and board readers); the human picks uniformly among the moves the
platform offers it (Discord: the autocompletion of /play; Matrix: the
list `!moves` answers in its DM room: the turn's notices group the moves
by their numbers).

usage: builders_platforms_test.py ./tabula [test-name ...]
"""
import json
import os
import random
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import harness  # noqa: E402
import discord_test as dt  # noqa: E402
import matrix_test as mt  # noqa: E402
from hidden import secrets_now, assert_no_leak  # noqa: E402

SLOW = harness.SLOW


def wait_for(pred, timeout, what):
    end = time.monotonic() + timeout * SLOW
    while time.monotonic() < end:
        got = pred()
        if got:
            return got
        time.sleep(0.02)
    raise AssertionError("timed out: %s" % what())


def test_discord_one_human_three_ai():
    """Ana opens The Builders with /game new, adds three AI seats, and
    plays to the final scores through /play's autocompletion."""
    fake, bot = dt.start()
    rng = random.Random(3)
    try:
        fake.wait_ready(10)
        ana = dt.user(fake, 1, "ana")
        h = dt.cmd(fake, ana, "game", {"game": "builders"}, sub="new")
        assert not dt.texts(h)[0][1], "the lobby announcement should be public"
        dt.cmd(fake, ana, "game", {"count": 3}, sub="addbot")
        dt.cmd(fake, ana, "game", sub="start")
        dt.wait_boards(fake, 1)
        moves = checked = 0
        stored = harness.store_counts(bot.db)[0]     # the AI seats' opening moves
        while True:
            def settled():
                bs = dt.boards(fake)
                if bs and (dt.is_over(bs[-1]) or ana["id"] in dt.awaited(bs[-1])):
                    return bs
                return None
            bs = wait_for(settled, 20, lambda: "no board for ana: %r" %
                          dt.boards(fake)[-1]["content"][-300:])
            public = [json.dumps(m, ensure_ascii=False) for m in fake.channel_messages(dt.CHAN)]
            secrets = secrets_now(bot.db)
            checked += bool(secrets)
            assert_no_leak(public, secrets, " (Discord, move %d)" % moves)
            if dt.is_over(bs[-1]):
                break
            choices = [c["value"] for c in dt.complete(fake, ana)]
            assert 0 < len(choices) <= 25, choices
            h = dt.cmd(fake, ana, "play", {"move": rng.choice(choices)})
            for content, eph in dt.texts(h):
                assert eph, "the answer to a move should be private: %r" % content
            # a step that shows the room nothing (a worker chosen, not yet
            # sent) posts nothing: wait for the store, not for a board
            stored = harness.wait_settled(bot.db, stored, what="after move %d" % moves)
            moves += 1
            assert moves < 400, "the game did not end"
        print("  discord: %d moves by ana" % moves)
        final = dt.boards(fake)[-1]["content"]
        assert "Final scoring" in final and "Winner" in final, final[-500:]
        assert moves > 5, moves
        assert checked > moves // 2, "the decks' next cards were rarely secret: %d" % checked
        assert fake.violations == [], fake.violations
    finally:
        bot.stop()
        fake.stop()


def test_matrix_one_human_three_ai():
    """Ana opens The Builders in a Matrix room, adds three AI seats and
    plays to the final scores, her moves read from her DM room."""
    fake = mt.new_fake()
    bot = mt.Bot(fake)
    rng = random.Random(5)
    try:
        ps = mt.players(fake, 1, names=("Ana",))
        ana = ps[0]
        room = mt.game_room(fake, ps)
        fake.say(ana, room, "!game new builders")
        mt.wait_text(fake, room, "lobby")
        fake.say(ana, room, "!game addbot 3")
        mt.wait_text(fake, room, "AI 3")
        fake.say(ana, room, "!game start")
        stored = mt.settle_start(fake, room, bot.db)
        moves = checked = 0
        while True:
            def settled():
                bs = mt.boards(fake, room)
                if bs and ("Game over" in bs[-1]["body"] or ana in mt.awaited(bs[-1])):
                    return bs
                return None
            bs = wait_for(settled, 20, lambda: "no board for Ana: %r" %
                          mt.texts(fake, room)[-1][-300:])
            public = [json.dumps(m, ensure_ascii=False) for m in fake.bot_messages(room)]
            secrets = secrets_now(bot.db)
            checked += bool(secrets)
            assert_no_leak(public, secrets, " (Matrix, move %d)" % moves)
            if "Game over" in bs[-1]["body"]:
                break
            dm = fake.dm_room(ana)
            if dm and ana not in fake.joined_members(dm):
                fake.accept_invite(ana, dm)
            # the DMs list the moves grouped by number (move_group); the
            # whole list, ids and labels, comes on `moves`
            dm = fake.dm_room(ana)
            seen = len(fake.bot_messages(dm)) if dm else 0
            fake.say(ana, room, "!moves")

            def listed():
                d = fake.dm_room(ana)
                new = fake.bot_messages(d)[seen:] if d else []
                return any("Your moves" in m.get("body", "") for m in new) and \
                    mt.moves_of(fake, ana)
            ids = wait_for(listed, 10, lambda: "no moves for Ana")
            assert ids, "no moves for Ana"
            fake.say(ana, room, "!play " + rng.choice(ids))
            stored = harness.wait_settled(bot.db, stored, what="after move %d" % moves)
            moves += 1
            assert moves < 400, "the game did not end"
        print("  matrix: %d moves by Ana" % moves)
        final = mt.boards(fake, room)[-1]["body"]
        assert "Final scoring" in final and "Winner" in final, final[-500:]
        assert checked > moves // 2, "the decks' next cards were rarely secret: %d" % checked
        for m in fake.bot_messages(room):
            assert "Your moves" not in m.get("body", ""), "private text in the room"
        mt.check_clean(fake)
    finally:
        bot.stop()
        fake.stop()


if __name__ == "__main__":
    sys.exit(harness.run_tests("builders_platforms", sys.modules[__name__], sys.argv))
