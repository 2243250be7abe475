#!/usr/bin/env python3
"""Pictures painted off the event loop (docs/pictures.md, "Painted off the
loop"), through the real binary against the Discord and Matrix fakes.

TABULA_TEST_PAINT_HOLD names a file: while it exists, the bot's painters
wait before painting.  So the tests see what players see when painting is
slow: the text of every answer and board at once, no picture yet; then,
the file gone, the pictures, in the order of their messages per room,
the newest board superseding the ones that waited behind the first (never
painted); and a bot killed (-9) between the text and its picture sends the
picture after its restart, its text once (the idempotency keys: Discord's
nonce, Matrix's txn id), nothing posted twice.

usage: paint_test.py ./tabula [test-name ...]
"""
import http.client
import json
import os
import random
import re
import shutil
import socket
import sqlite3
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "fakes"))
sys.path.insert(0, HERE)
import harness  # noqa: E402
import discord_test as dt  # noqa: E402
import matrix_test as mt  # noqa: E402

SLOW = harness.SLOW


class Hold:
    """The file that holds the painters while it exists."""

    def __init__(self):
        self.dir = tempfile.mkdtemp(prefix="tabula-hold-")
        self.path = os.path.join(self.dir, "hold")
        open(self.path, "w").close()

    def release(self):
        if os.path.exists(self.path):
            os.unlink(self.path)

    def close(self):
        shutil.rmtree(self.dir, ignore_errors=True)


def wait_moves(db, before, what=""):
    """Waits until the bot stored more moves than before (its messages'
    texts go right after the commit; their pictures may be held)."""
    end = time.monotonic() + 10 * SLOW
    while True:
        moves = harness.store_counts(db)[0]
        if moves > before:
            return moves
        assert time.monotonic() < end, "no move stored %s" % what
        time.sleep(0.01)


def picture_rows(db, platform, seen):
    """Adds to seen (id -> key) the room messages that carry a picture and
    are not confirmed yet (a confirmed message's payload is emptied:
    docs/store.md), and returns their keys in order.  Called after every
    move: a board waits for its picture, or for the next board, until then."""
    con = sqlite3.connect("file:%s?mode=ro" % db, uri=True, timeout=10)
    try:
        rows = con.execute("SELECT id, key, payload FROM outbox WHERE user = '' AND "
                           "platform = ? AND payload != ''", (platform,)).fetchall()
    finally:
        con.close()
    for i, k, p in rows:
        if "scene" in json.loads(p):
            seen[i] = k
    return [seen[i] for i in sorted(seen)]


def free_port():
    """A loopback port nothing listens on (for TABULA_HTTP)."""
    s = socket.socket()
    try:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]
    finally:
        s.close()


def paint_queue(port):
    """tabula_paint_queue_depth as the bot's /metrics says it."""
    c = http.client.HTTPConnection("127.0.0.1", port, timeout=10 * SLOW)
    try:
        c.request("GET", "/metrics")
        r = c.getresponse()
        text = r.read().decode()
    finally:
        c.close()
    assert r.status == 200, (r.status, text[:300])
    m = re.search(r"^tabula_paint_queue_depth (\d+)$", text, re.M)
    assert m, "no tabula_paint_queue_depth in /metrics"
    return int(m.group(1))


# ---------------------------------------------------------------- Discord

def pic_boards(fake):
    """The room's boards sent as pictures (they carry the Text button)."""
    return [m for m in dt.boards(fake) if any(i.split(":")[1] == "text"
                                               for i in dt.custom_ids(m))]


def channel_edits(fake):
    """The message ids of the channel's edits (PATCH), in the order they
    came: Discord adds a board's picture to its message by an edit."""
    return [r.path.rsplit("/", 1)[1] for r in list(fake.requests)
            if r.method == "PATCH" and r.path.startswith("/channels/%s/messages/" % dt.CHAN)]


def test_discord_text_first_then_pictures_in_order():
    """Painters held: the start's board and the boards of three more turns
    come as text with their buttons, every /play answered (its private
    view's text) at once, My hand deferred at once, no picture anywhere.
    Released: the first board (being painted when the others came) and the
    newest get their pictures, in that order, by edits of their messages;
    the boards between were superseded and never get one; the answers get
    theirs (an edit of the answer)."""
    hold = Hold()
    port = free_port()
    fake, bot = dt.start(extra_env={"TABULA_TEST_PAINT_HOLD": hold.path,
                                    "TABULA_HTTP": "127.0.0.1:%d" % port})
    try:
        fake.wait_ready(10)
        ps = [dt.user(fake, i) for i in (1, 2)]
        users = {p["id"]: p for p in ps}
        dt.lobby(fake, ps, game="gtr")
        rng = random.Random(5)
        moves = harness.store_counts(bot.db)[0]
        answers = []
        for step in range(60):
            if len(pic_boards(fake)) >= 4:
                break
            board = dt.boards(fake)[-1]
            who = users[dt.awaited(board)[0]]
            value = dt.choose(rng, [c["value"] for c in dt.complete(fake, who)], "gtr")
            h = dt.cmd(fake, who, "play", {"move": value})
            answers.append(h)
            moves = wait_moves(bot.db, moves, "after move %d" % step)
            # every room message committed is out (each carries the buttons)
            dt.wait_boards(fake, harness.public_posts(bot.db))
        bs = pic_boards(fake)
        assert len(bs) >= 4, len(bs)
        # My hand: an answer that is nothing but a picture is deferred at
        # once (Discord's three seconds), and filled when it is painted
        hand = fake.click(ps[0], dt.CHAN, bs[-1], dt.button(bs[-1], "hand"))
        hand.wait_response(timeout=5)
        assert hand.callback.get("type") == 5, hand.callback
        # the texts are out, not one picture: every answer's callback came
        # (cmd() waited for it) without one
        for h in answers:
            assert not (h.callback.get("data") or {}).get("attachments"), h.callback
        assert not any(m.get("attachments") for m in fake.channel_messages(dt.CHAN))
        assert not any(dt.picture_text(m) for m in
                       fake.channel_messages(dt.CHAN, include_interactions=True))
        assert harness.store_counts(bot.db)[1] >= 2, "the boards wait for their pictures"
        # the operator sees them: the board being painted, the newest one
        # waiting, the answers' pictures (the superseded ones are gone)
        assert paint_queue(port) >= 3, paint_queue(port)
        hold.release()
        first, last = bs[0], bs[-1]
        dt.pictured(fake, first)
        dt.pictured(fake, last)
        # in order: the first board's picture before the newest's; the
        # boards between were never painted (a picture of theirs would
        # have come before the newest's)
        edits = channel_edits(fake)
        assert edits == [first["id"], last["id"]], (edits, [b["id"] for b in bs])
        for b in bs[1:-1]:
            assert not dt.picture_text(fake.message(b["id"])), b
        # the answers' pictures: the actor's private view follows its text
        # in the same answer; My hand fills its deferred answer
        hms = dt.with_picture(hand)
        assert all(m["ephemeral"] for m in hms), hms
        viewed = [h for h in answers if "Your moves" in
                  ((h.callback.get("data") or {}).get("content") or "")]
        assert viewed, [h.callback for h in answers]
        dt.with_picture(viewed[-1])
        # every message is confirmed, the superseded ones too
        end = time.monotonic() + 10 * SLOW
        while harness.store_counts(bot.db)[1]:
            assert time.monotonic() < end, "messages left unconfirmed"
            time.sleep(0.01)
        assert paint_queue(port) == 0
        assert fake.violations == [], fake.violations
    finally:
        bot.stop()
        fake.stop()
        hold.close()


def test_discord_kill9_between_text_and_picture():
    """Killed (-9) after a board's text went and before its picture: the
    restarted bot sends the message again under the same nonce (Discord
    answers with the message it has), adds the picture to it, and confirms
    it; the channel holds the board once, with one picture."""
    hold = Hold()
    fake, bot = dt.start(extra_env={"TABULA_TEST_PAINT_HOLD": hold.path})
    bot2 = None
    try:
        fake.wait_ready(10)
        ps = [dt.user(fake, i) for i in (1, 2)]
        board = dt.lobby(fake, ps, game="gtr")[-1]
        assert not board.get("attachments")
        assert harness.store_counts(bot.db)[1] >= 1
        bot.proc.kill()
        bot.proc.wait()
        bot.err.close()
        texts = [m for m in fake.channel_messages(dt.CHAN) if m["content"] == board["content"]]
        assert len(texts) == 1 and not texts[0].get("attachments"), texts
        dedups = len(fake.dedups)
        bot2 = dt.Bot(fake, db=bot.db)
        dt.pictured(fake, board, timeout=20)
        end = time.monotonic() + 10 * SLOW
        while harness.store_counts(bot.db)[1]:
            assert time.monotonic() < end, "messages left unconfirmed after the restart"
            time.sleep(0.01)
        # sent again, answered with the message Discord had: nothing twice
        assert len(fake.dedups) > dedups, fake.dedups
        same = [m for m in fake.channel_messages(dt.CHAN) if m["content"] == board["content"]]
        assert len(same) == 1, same
        pngs = [a for a in fake.message(board["id"])["attachments"] if a.get("png_b64")]
        assert len(pngs) == 1, fake.message(board["id"])
        assert fake.violations == [], fake.violations
    finally:
        if bot2:
            bot2.stop()
        elif bot.proc.poll() is None:
            bot.stop()
        fake.stop()
        hold.close()


# ---------------------------------------------------------------- Matrix

def mx_images(fake, room):
    """(txn id, content) of the bot's m.image events in room, in order."""
    return [(t, m) for m, t in zip(fake.bot_messages(room), fake.bot_message_txns(room))
            if m.get("msgtype") == "m.image"]


def mx_private_count(fake, user):
    dm = fake.dm_room(user)
    return len(fake.bot_messages(dm)) if dm else 0


def test_matrix_text_first_then_pictures_in_order():
    """Painters held: Ana plays against an AI; every move's notices (the
    room's, and her moves in her direct chat) come at once, no m.image.
    Released: the start's board (being painted) and the newest board get
    their m.image, each as the next part of its own message (its txn id),
    in that order; the boards between were superseded, never painted."""
    hold = Hold()
    fake = mt.new_fake()
    bot = mt.Bot(fake, extra_env={"TABULA_TEST_PAINT_HOLD": hold.path})
    try:
        ps = mt.players(fake, 1)
        ana = ps[0]
        room = mt.game_room(fake, ps)
        fake.say(ana, room, "!game new gtr")
        mt.wait_text(fake, room, "lobby")
        fake.say(ana, room, "!game addbot 1")
        mt.wait_text(fake, room, "AI 1")
        fake.say(ana, room, "!game start")
        mt.wait_boards(fake, room, 1)
        fake._wait(lambda: fake.dm_room(ana), 10, "no direct chat")
        dm = fake.dm_room(ana)
        if ana not in fake.joined_members(dm):
            fake.accept_invite(ana, dm)
        rng = random.Random(2)
        moves = harness.store_counts(bot.db)[0]
        seen = {}
        for step in range(60):
            if len(picture_rows(bot.db, "matrix", seen)) >= 4:
                break
            ids = mt.fresh_moves(fake, ana)
            thinks = [i for i in ids if i.startswith("think")]
            move = thinks[0] if thinks else mt.make_transcript.pick(rng, ids, "gtr")
            n = mx_private_count(fake, ana)
            fake.say(ana, room, "!play " + move)
            moves = wait_moves(bot.db, moves, "after %s" % move)
            # the move's private notices came although its pictures wait
            fake._wait(lambda: mx_private_count(fake, ana) > n, 10,
                       lambda: "no private text after %s" % move)
        keys = picture_rows(bot.db, "matrix", seen)
        assert len(keys) >= 4, keys
        assert mx_images(fake, room) == [], mx_images(fake, room)
        hold.release()
        first, last = keys[0], keys[-1]

        def pictured(key):
            return any(t and t.startswith(key + ".") for t, _ in mx_images(fake, room))
        fake._wait(lambda: pictured(first) and pictured(last), 20,
                   lambda: "pictures: %r" % [t for t, _ in mx_images(fake, room)])
        got = [t.rsplit(".", 1)[0] for t, _ in mx_images(fake, room)]
        assert got == [first, last], (got, keys)
        end = time.monotonic() + 10 * SLOW
        while harness.store_counts(bot.db)[1]:
            assert time.monotonic() < end, "messages left unconfirmed"
            time.sleep(0.01)
        mt.check_clean(fake)
    finally:
        bot.stop()
        fake.stop()
        hold.close()


def test_matrix_kill9_between_text_and_picture():
    """Killed (-9) after the start's notices went and before the board's
    m.image: the restarted bot sends the message again under the same txn
    ids (the homeserver answers with the events it has) and then the
    m.image as its next part; the room holds the board's notice once and
    one picture of it."""
    hold = Hold()
    fake = mt.new_fake()
    bot = mt.Bot(fake, extra_env={"TABULA_TEST_PAINT_HOLD": hold.path})
    bot2 = None
    try:
        ps = mt.players(fake, 2)
        room = mt.game_room(fake, ps)
        fake.say(ps[0], room, "!game new gtr")
        mt.wait_text(fake, room, "lobby")
        fake.say(ps[1], room, "!game join")
        mt.wait_text(fake, room, "Ana, Ben")
        fake.say(ps[0], room, "!game start")
        board = mt.wait_boards(fake, room, 1)[0]
        keys = picture_rows(bot.db, "matrix", {})
        assert keys, "the start's board carries no picture"
        key = keys[0]
        assert harness.store_counts(bot.db)[1] >= 1
        bot.proc.kill()
        bot.proc.wait()
        bot.err.close()
        assert mx_images(fake, room) == []
        dedups = len(fake.dedups)
        bot2 = mt.Bot(fake, db=bot.db)
        fake._wait(lambda: any(t and t.startswith(key + ".") for t, _ in mx_images(fake, room)),
                   20, lambda: "no picture after the restart: %r" % mt.texts(fake, room)[-3:])
        end = time.monotonic() + 10 * SLOW
        while harness.store_counts(bot.db)[1]:
            assert time.monotonic() < end, "messages left unconfirmed after the restart"
            time.sleep(0.01)
        assert len(fake.dedups) > dedups, "the text was not sent again under its txn id"
        assert mt.texts(fake, room).count(board["body"]) == 1, mt.texts(fake, room)
        assert len(mx_images(fake, room)) == 1, mx_images(fake, room)
        mt.check_clean(fake)
    finally:
        if bot2:
            bot2.stop()
        elif bot.proc.poll() is None:
            bot.stop()
        fake.stop()
        hold.close()


if __name__ == "__main__":
    dt.BIN = mt.BIN = sys.argv[1] if len(sys.argv) > 1 else "./tabula"
    sys.exit(harness.run_tests("paint", sys.modules[__name__], sys.argv))
