#!/usr/bin/env python3
"""Matrix integration tests: the real tabula binary against the loopback
fake homeserver (tests/fakes/fake_matrix.py).  Nothing leaves 127.0.0.1.

usage: matrix_test.py ./tabula [test-name ...]
Prints one line per test and "matrix: N passed, M failed"; exit 1 on any
failure.  Each test gets its own fake, store and bot process; the bot's
stderr is checked for the password and the access token.
"""
import importlib.util
import json
import os
import random
import re
import signal
import sqlite3
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "fakes"))
sys.path.insert(0, HERE)
import harness  # noqa: E402
import hidden  # noqa: E402  (tests/integration/hidden.py)
import pngread  # noqa: E402
import webcheck  # noqa: E402
from fake_matrix import FakeMatrix, PNG_SIGNATURE, decrypt_attachment  # noqa: E402
from hidden import secrets_now, assert_no_leak  # noqa: E402
from olmclient import E2E  # noqa: E402

SLOW = harness.SLOW     # TABULA_TEST_SLOW: timeouts x this (make valgrind)

_spec = importlib.util.spec_from_file_location(
    "make_transcript", os.path.join(HERE, "..", "..", "scripts", "make-transcript.py"))
make_transcript = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(make_transcript)

PASSWORD = "pw-SECRET-do-not-log-4711"
BIN = "./tabula"
MOVE_RE = re.compile(r"^\s*\d+\. (.+?)(?:  — .*)?$")


class Bot:
    def __init__(self, fake, db=None, extra_env=None, token=False):
        self.fake = fake
        self.dir = tempfile.mkdtemp(prefix="tabula-matrix-")
        self.db = db or os.path.join(self.dir, "t.db")
        env = {k: v for k, v in os.environ.items()
               if not k.startswith(("DISCORD_", "MATRIX_", "TABULA_"))}
        env.update(fake.env(token=token) if token else fake.env())
        env["TABULA_DB"] = self.db
        env["TABULA_SEED"] = "11"
        env["TABULA_LOG"] = "debug"
        # the fake's players click far faster than people: no per-user
        # throttle (docs/async.md, "Limits"; tested in test_session.c and
        # tests/data/security/004)
        env["TABULA_THROTTLE"] = "off"
        env.update(extra_env or {})
        self.secrets = [PASSWORD] + ([env["MATRIX_ACCESS_TOKEN"]] if token else [])
        self.errpath = os.path.join(self.dir, "stderr")
        self.err = open(self.errpath, "wb")
        self.proc = subprocess.Popen([BIN], env=env, stdin=subprocess.DEVNULL,
                                     stdout=subprocess.DEVNULL, stderr=self.err)

    def log(self):
        with open(self.errpath, "rb") as f:
            return f.read().decode("utf-8", "replace")

    def stop(self, expect=0):
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
        try:
            rc = self.proc.wait(timeout=20 * SLOW)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            raise AssertionError("the bot did not stop on SIGTERM")
        self.err.close()
        log = self.log()
        for s in self.secrets:
            assert s not in log, "a secret appears in the log"
        for tok in self.fake.issued_tokens() if hasattr(self.fake, "issued_tokens") else []:
            assert tok not in log, "an access token appears in the log"
        assert rc == expect, "exit status %r, wanted %r; log:\n%s" % (rc, expect, log[-3000:])
        return log


def new_fake():
    """A fake homeserver whose users each get an Olm device (the bot's
    direct chats are encrypted: tests read them through the devices)."""
    fake = FakeMatrix(bot_password=PASSWORD).start()
    fake.violate_plaintext_in_encrypted = True
    fake.e2e = E2E(fake)
    return fake


NAMES = {}      # display name -> user id, for the boards that do not ping


def players(fake, n, names=("Ana", "Ben", "Cy")):
    ids = [fake.register_user("p%d" % i, names[i]) for i in range(n)]
    for i, u in enumerate(ids):
        NAMES[names[i]] = u
    return ids


def awaited(board):
    """Who the board waits for, pinged (just became awaited) or named, in
    the order listed; seats asked the same thing share a line ("Waiting
    for Ana, Ben: ...").  Names the test does not know (AI seats) are
    left out."""
    who = []
    for line in board["body"].split("\n"):
        m = re.match(r"(?:Waiting for|Esperando a) (.+?): ", line)
        if not m:
            continue
        for name in m.group(1).split(", "):
            if name in NAMES and NAMES[name] not in who:
                who.append(NAMES[name])
    for u in board["m.mentions"].get("user_ids", []):
        if u not in who:
            who.append(u)
    return who


def game_room(fake, ps):
    room = fake.create_room(ps[0], name="Fortuna night", members=ps[1:])
    fake.invite_bot(room, ps[0])
    fake._wait(lambda: room in fake.bot_rooms(), 10, lambda: "the bot did not join")
    return room


def texts(fake, room):
    return [m.get("body", "") for m in fake.bot_messages(room)]


def boards(fake, room):
    return [m for m in fake.bot_messages(room)
            if "Waiting for" in m.get("body", "") or "Game over" in m.get("body", "")
            or "Esperando a" in m.get("body", "")]


def picture_after(fake, room, msg):
    """The m.image of msg's message in room, or None: a board's picture
    follows its notice, painted off the event loop, as a later part of the
    same message (its transaction id: the notice's, with the next part
    number); other messages may come between them."""
    ms, txns = fake.bot_messages(room), fake.bot_message_txns(room)
    for i, m in enumerate(ms):
        if (m is msg or m == msg) and txns[i]:
            prefix = txns[i].rsplit(".", 1)[0] + "."
            for m2, t2 in zip(ms[i + 1:], txns[i + 1:]):
                if t2 and t2.startswith(prefix) and m2.get("msgtype") == "m.image":
                    return m2
            return None
    return None


def open_encrypted_picture(fake, c):
    """The bot's m.image c from an encrypted room: it names no url but an
    encrypted file; what the media repository holds there is ciphertext
    (not a PNG: no signature, does not decode); with the key from the
    (decrypted) event it decrypts to a PNG that info describes.  Returns
    (width, height, rows) of that PNG."""
    assert "url" not in c and isinstance(c.get("file"), dict), sorted(c)
    med = fake.media[c["file"]["url"]]
    assert med.user == fake.bot_user and med.ctype == "application/octet-stream", med.ctype
    assert not med.data.startswith(PNG_SIGNATURE), "a PNG in clear"
    try:
        pngread.png_info(med.data)
        raise AssertionError("the upload decodes as a PNG without the key")
    except ValueError:
        pass
    plain = decrypt_attachment(c["file"], med.data)
    w, h, rows = pngread.png_pixels(plain)
    info = c["info"]
    assert (w, h, "image/png", len(plain)) == (info["w"], info["h"], info["mimetype"],
                                               info["size"]), (w, h, info)
    return w, h, rows


def wait_boards(fake, room, n, timeout=10):
    fake._wait(lambda: len(boards(fake, room)) >= n, timeout,
               lambda: "wanted %d boards, have %d; last bot messages: %r"
               % (n, len(boards(fake, room)), texts(fake, room)[-3:]))
    return boards(fake, room)


def wait_text(fake, room, needle, after=0, timeout=10):
    def ok():
        return any(needle in t for t in texts(fake, room)[after:])
    fake._wait(ok, timeout, lambda: "no %r in %r" % (needle, texts(fake, room)[-4:]))


def fresh_moves(fake, user):
    """The move ids of the newest "Your moves" message in user's DM room.
    Callers first wait until the bot has settled (harness.wait_settled:
    the last move stored, every message delivered): a seat still asked the
    same thing gets no new list, so the newest one is the seat's list now."""
    fake._wait(lambda: moves_of(fake, user), 10, lambda: "no moves for %s" % user)
    return moves_of(fake, user)


def moves_of(fake, user):
    """The move ids of the newest "Your moves" message in user's DM room."""
    dm = fake.dm_room(user)
    assert dm, "no DM room for %s" % user
    msgs = [m.get("body", "") for m in fake.bot_messages(dm)]
    for body in reversed(msgs):
        if "Your moves" in body:
            ids = []
            for line in body.split("\n"):
                mt = MOVE_RE.match(line)
                if mt:
                    ids.append(mt.group(1).strip())
            return ids
    return []


def settle_start(fake, room, db):
    """After `!game start`: the first board is out and every message of
    the start delivered.  Returns the number of moves stored."""
    wait_boards(fake, room, 1)
    end = time.monotonic() + 10 * SLOW
    while harness.store_counts(db)[1]:
        assert time.monotonic() < end, "the start's messages were not delivered"
        time.sleep(0.01)
    return harness.store_counts(db)[0]


def play_to_end(fake, room, ps, rng, db, limit=600, hook=None, game="fortuna"):
    """Plays the room's game to its end, one decision at a time, each once
    the previous one's outcome is out (a step that shows the room nothing
    posts nothing, so this waits for the store, not for a board)."""
    step = 0
    before = set()
    nboards = 0
    moves = settle_start(fake, room, db)
    while True:
        bs = boards(fake, room)
        board = bs[-1]
        if "Game over" in board["body"]:
            return step, bs
        if len(bs) > nboards:
            # exactly the players who have just become awaited are mentioned
            now = set(awaited(board))
            pinged = set(board["m.mentions"].get("user_ids", []))
            assert pinged == now - before, ("pinged", pinged, "awaited", now, "before", before)
            before = now
            nboards = len(bs)
        who = awaited(board)
        assert who, "a board waiting for nobody: %r" % board["body"][-200:]
        uid = who[0]
        if hook:
            hook(step)
        dm = fake.dm_room(uid)
        if dm and uid not in fake.joined_members(dm):
            fake.accept_invite(uid, dm)
        ids = fresh_moves(fake, uid)
        move = make_transcript.pick(rng, ids, game)
        if step % 2 and dm:
            fake.say(uid, dm, "play " + move)          # no prefix in the DM room
        else:
            fake.say(uid, room, "!play " + move)
        moves = harness.wait_settled(db, moves, what="after move %d (%s by %s)" % (step, move, uid))
        step += 1
        assert step < limit, "the game did not end"


def check_clean(fake):
    assert fake.violations == [], fake.violations
    assert getattr(fake, "undecryptable", []) == [], fake.undecryptable


# ---- tests ----

def test_full_game():
    """Three players play Fortuna to the end in a room, hands in DM rooms."""
    fake = new_fake()
    bot = Bot(fake)
    try:
        ps = players(fake, 3)
        room = game_room(fake, ps)
        fake.say(ps[0], room, "!game new fortuna")
        wait_text(fake, room, "lobby")
        fake.say(ps[1], room, "!game join")
        fake.say(ps[2], room, "hello everyone")     # conversation: ignored
        fake.say(ps[2], room, "!game join")
        fake._wait(lambda: any("Ana, Ben, Cy" in t for t in texts(fake, room)), 10,
                   lambda: "the lobby never showed three seats: %r" % texts(fake, room))
        # the lobby is one message, edited in place (m.replace) as seats fill
        lobbies = [t for t in texts(fake, room) if "lobby" in t]
        assert len(lobbies) == 1, lobbies
        fake.say(ps[0], room, "!game start")
        steps, bs = play_to_end(fake, room, ps, random.Random(7), bot.db)
        assert steps > 20, steps
        # every room message committed posted once
        assert len(bs) == harness.public_posts(bot.db), (len(bs), harness.public_posts(bot.db))
        assert "Winner" in bs[-1]["body"] or "Nobody wins" in bs[-1]["body"]
        for m in fake.bot_messages(room):
            assert "Your moves" not in m.get("body", ""), "private text in the room"
            assert m.get("msgtype") in ("m.notice", "m.image"), m
        # the boards came as pictures after their notices (Matrix's default)
        fake._wait(lambda: picture_after(fake, room, bs[0]) is not None, 10,
                   "no picture after the first board")
        assert sum(1 for m in fake.bot_messages(room) if m.get("msgtype") == "m.image") > 10
        # every DM room is recorded in the bot's m.direct
        direct = fake.account_data(fake.bot_user, "m.direct") or {}
        for p in ps:
            assert fake.dm_room(p) in direct.get(p, []), (p, direct)
        check_clean(fake)
    finally:
        bot.stop()
        fake.stop()


def test_room_in_no_space_is_its_own_community():
    """A Matrix room in no space is the community its games are rated in
    (beside the whole platform): the session stores the room's id."""
    fake = new_fake()
    bot = Bot(fake)
    try:
        ps = players(fake, 2)
        room = game_room(fake, ps)
        fake.say(ps[0], room, "!game new fortuna")
        wait_text(fake, room, "lobby")
        con = sqlite3.connect("file:%s?mode=ro" % bot.db, uri=True, timeout=10)
        try:
            row = con.execute("SELECT community FROM sessions").fetchone()
        finally:
            con.close()
        assert row == (room,), (row, room)
        check_clean(fake)
    finally:
        bot.stop()
        fake.stop()


def test_rematch_pings_the_last_players():
    """After a game, `!rematch` opens its lobby again with the AI seat
    back and mentions exactly the last game's other human (m.mentions and a
    pill); the pinged player joins with `!game join`.  With web pages on,
    the final board carries the game's link too, and its page tells a
    finished game that replays from its first position."""
    fake = new_fake()
    port = webcheck.free_port()
    bot = Bot(fake, extra_env=webcheck.env(port))
    try:
        ps = players(fake, 2)
        room = game_room(fake, ps)
        fake.say(ps[0], room, "!game new fortuna")
        wait_text(fake, room, "lobby")
        fake.say(ps[1], room, "!game join")
        fake.say(ps[0], room, "!game addbot")
        fake._wait(lambda: any("Ana, Ben, AI 1" in t for t in texts(fake, room)), 10,
                   lambda: "no AI seat: %r" % texts(fake, room)[-2:])
        fake.say(ps[0], room, "!game start")
        _, bs = play_to_end(fake, room, ps, random.Random(5), bot.db)
        assert "Play again: `rematch`" in bs[-1]["body"], bs[-1]["body"][-200:]
        url = matrix_link(bs[-1], "the final board")
        assert matrix_link(bs[0], "the first board") == url
        state, _ = webcheck.page(port, url)
        assert state["status"] == "finished" and state["positions"] > 20, state
        assert any(p["winner"] for p in state["players"]), state["players"]
        st, _, body = webcheck.get(port, webcheck.path_of(url, port) + "/state.json?at=0")
        assert st == 200 and json.loads(body)["at"] == 0, body[:200]
        n = len(fake.bot_messages(room))
        fake.say(ps[1], room, "!rematch")
        wait_text(fake, room, "Rematch!", after=n)
        msg = [m for m in fake.bot_messages(room)[n:] if "Rematch!" in m.get("body", "")][-1]
        assert msg["m.mentions"].get("user_ids") == [ps[0]], msg["m.mentions"]
        assert not msg["m.mentions"].get("room"), msg["m.mentions"]
        assert "https://matrix.to/#/%s" % ps[0] in msg.get("formatted_body", ""), msg
        assert re.search(r"Seats \(2 of [^)]*\): Ben, AI 1 \(AI\)", msg["body"]), msg["body"]
        fake.say(ps[0], room, "!game join")
        fake._wait(lambda: any("Ben, AI 1 (AI), Ana" in t for t in texts(fake, room)[n:]), 10,
                   lambda: "Ana did not take her seat: %r" % texts(fake, room)[-2:])
        check_clean(fake)
    finally:
        bot.stop()
        fake.stop()


def test_boards_come_as_pictures():
    """On Matrix a board is a notice of what happened and who is asked,
    then an m.image of the board: uploaded first to the media repository
    (POST /_matrix/media/v3/upload, a PNG that decodes whole, 1000 pixels
    wide), then sent with its info (w, h, mimetype, size, as the fake
    checks against the upload) and the text board as its body, never
    pinging anyone; `hand` sends the private picture to the player's
    direct chat only; `game settings board text` goes back to text; a
    picture the homeserver refuses goes as its text board, logged."""
    fake = new_fake()
    bot = Bot(fake)
    try:
        ps = players(fake, 2)
        room = game_room(fake, ps)
        fake.say(ps[0], room, "!game new gtr")
        wait_text(fake, room, "lobby")
        fake.say(ps[1], room, "!game join")
        wait_text(fake, room, "Ana, Ben")
        fake.say(ps[0], room, "!game start")
        board = wait_boards(fake, room, 1)[0]
        assert "Glory to Rome: turn" not in board["body"], board["body"]
        fake._wait(lambda: picture_after(fake, room, board) is not None, 10,
                   lambda: "no picture after the board: %r" % texts(fake, room)[-3:])
        pic = picture_after(fake, room, board)
        assert pic["body"].startswith("== Glory to Rome: turn 1 ==\n"), pic["body"][:200]
        assert pic["m.mentions"] == {"user_ids": []}, pic
        assert "filename" not in pic, "the body is the picture's description, no caption"
        media = fake.media[pic["url"]]
        assert media.user == fake.bot_user and media.ctype == "image/png"
        w, h, rows = pngread.png_pixels(media.data)
        assert (w, h) == (pic["info"]["w"], pic["info"]["h"]) and w == 1000, (w, h)
        assert rows[2][2] == (0xF3, 0xEC, 0xDC), rows[2][2]
        assert "Sites in town/out of town" in media.info["text"]
        # the private view goes to the direct chat, which the bot made
        # encrypted: its picture is an encrypted attachment, whose key
        # travels only in the Megolm-encrypted event; the media repository
        # holds ciphertext, never a picture of a hand
        fake.say(ps[0], room, "!hand")
        dm = fake.dm_room(ps[0])

        def hand_pics():
            return [m for m in fake.bot_messages(dm or fake.dm_room(ps[0]))
                    if m.get("msgtype") == "m.image" and
                    m.get("body", "").startswith("== Glory to Rome: your hand ==")]
        fake._wait(lambda: fake.dm_room(ps[0]) and hand_pics(), 10, lambda: "no private view")
        dm = fake.dm_room(ps[0])
        hand = hand_pics()[-1]
        hw, hh, hrows = open_encrypted_picture(fake, hand)
        assert hw == 1000 and hrows[2][2] == (0xF3, 0xEC, 0xDC), (hw, hrows[2][2])
        assert "your hand" in fake.picture_text(hand), fake.picture_text(hand)[:200]
        assert all(e["type"] == "m.room.encrypted" for e in fake.room_events(dm)
                   if e["sender"] == fake.bot_user and e["type"].startswith("m.room.")
                   and e["type"] in ("m.room.message", "m.room.encrypted"))
        assert not any("your hand" in fake.media_text(u)
                       for u, med in list(fake.media.items()) if not med.encrypted)
        assert not any("Glory to Rome: your hand" in t for t in texts(fake, room))
        # text again, at once
        n = len(texts(fake, room))
        fake.say(ps[1], room, "!game settings board text")
        wait_text(fake, room, "now come as text", after=n)
        n = len(fake.bot_messages(room))
        fake.say(ps[1], room, "!board")
        wait_text(fake, room, "Glory to Rome: turn 1", after=n)
        assert not any(m.get("msgtype") == "m.image" for m in fake.bot_messages(room)[n:])
        # a refused upload: the board as text, and a log line
        fake.say(ps[1], room, "!game settings board image")
        wait_text(fake, room, "now come as pictures", after=n)
        fake.fail_next("POST", "^/_matrix/media/v3/upload$", 403)
        n = len(fake.bot_messages(room))
        fake.say(ps[0], room, "!board")
        fake._wait(lambda: any(m.get("msgtype") == "m.notice" and
                               m.get("body", "").startswith("== Glory to Rome: turn 1")
                               for m in fake.bot_messages(room)[n:]), 10,
                   lambda: "the refused picture did not come as text: %r" % texts(fake, room)[n:])
        check_clean(fake)
        assert "could not be uploaded" in bot.log()
    finally:
        bot.stop()
        fake.stop()


def test_sylla_one_human_three_ai():
    """Sylla from `!game new` to the final scores: one human, three AI
    seats; the human's secret choices go through the DM room or the game
    room, and every message in the game room is checked, all along,
    against what the game hides at that moment."""
    fake = new_fake()
    bot = Bot(fake)
    checked = [0]
    try:
        ps = players(fake, 1)
        room = game_room(fake, ps)
        fake.say(ps[0], room, "!game new sylla")
        wait_text(fake, room, "lobby")
        fake.say(ps[0], room, "!game addbot 3")
        fake._wait(lambda: any("4 of 3" in t for t in texts(fake, room)), 10,
                   lambda: "the AI seats did not join: %r" % texts(fake, room)[-2:])
        fake.say(ps[0], room, "!game start")

        def no_leak(step):
            secrets = secrets_now(bot.db)
            public = []
            for m in fake.bot_messages(room):
                public += [m.get("body", ""), m.get("formatted_body", "")]
                if m.get("msgtype") == "m.image":
                    public.append(fake.picture_text(m))
            assert_no_leak(public, secrets, " (step %d)" % step)
            checked[0] += bool(secrets)

        steps, bs = play_to_end(fake, room, ps, random.Random(4), bot.db, hook=no_leak,
                                game="sylla")
        assert steps > 40, steps
        assert checked[0] > 20, checked
        pic = picture_after(fake, room, bs[-1])
        assert pic and "Final scoring" in pic["body"] and "Final scoring" in fake.media_text(
            pic["url"]), pic
        assert "Winner" in bs[-1]["body"], bs[-1]["body"][-400:]
        dm = fake.dm_room(ps[0])
        assert any("Behind your screen" in m.get("body", "") for m in fake.bot_messages(dm))
        assert not any("Behind your screen" in t for t in texts(fake, room))
        check_clean(fake)
    finally:
        bot.stop()
        fake.stop()


def test_restart_no_replay_no_loss():
    """A restart mid-game: nothing done twice; a command sent while the bot
    was down is done once; the device id is reused."""
    fake = new_fake()
    bot = Bot(fake)
    bot2 = None
    try:
        ps = players(fake, 2)
        room = game_room(fake, ps)
        fake.say(ps[0], room, "!game new fortuna")
        fake.say(ps[1], room, "!game join")
        fake.say(ps[0], room, "!game start")
        rng = random.Random(3)
        step = 0
        moves = settle_start(fake, room, bot.db)
        while step < 6:
            uid = awaited(boards(fake, room)[-1])[0]
            dm = fake.dm_room(uid)
            if dm and uid not in fake.joined_members(dm):
                fake.accept_invite(uid, dm)
            move = make_transcript.pick(rng, fresh_moves(fake, uid), "fortuna")
            if step == 3:
                bot.stop()
                count = len(fake.bot_messages(room))
                posts = harness.public_posts(bot.db)
                fake.say(uid, room, "!play " + move)
                bot2 = Bot(fake, db=bot.db)
                try:
                    moves = harness.wait_settled(bot.db, moves, what="after the restart")
                except AssertionError:
                    print(bot2.log()[-4000:])
                    print("MOVE", move, "DM", [m.get("body", "")[-200:]
                                              for m in fake.bot_messages(dm)][-3:])
                    for r in fake.requests[-12:]:
                        print("REQ", r.method, r.path[:90], r.status)
                    raise
                time.sleep(1.0 * SLOW)
                # the move done once, its room message posted once, nothing
                # re-posted from before the restart
                assert harness.store_counts(bot.db)[0] == moves
                new_posts = harness.public_posts(bot.db) - posts
                assert new_posts <= 1, new_posts
                assert len(fake.bot_messages(room)) - count == new_posts, \
                    texts(fake, room)[count:]
            else:
                fake.say(uid, room, "!play " + move)
                moves = harness.wait_settled(bot.db, moves, what="after move %d" % step)
            step += 1
        devices = set(fake.logins)
        assert len(devices) == 1, fake.logins
        check_clean(fake)
    finally:
        if bot2:
            bot2.stop()
        elif bot.proc.poll() is None:
            bot.stop()
        fake.stop()


def test_first_sync_ignores_old_messages():
    """Commands typed before the bot's first start are not executed."""
    fake = new_fake()
    ps = players(fake, 2)
    room = fake.create_room(ps[0], members=ps[1:] + [fake.bot_user])
    fake.say(ps[0], room, "!game new fortuna")
    bot = Bot(fake)
    try:
        fake.wait_synced(2, timeout=10)
        time.sleep(0.5 * SLOW)
        assert texts(fake, room) == [], texts(fake, room)
        fake.say(ps[1], room, "!game status")
        wait_text(fake, room, "No game")
        # a room the bot joins later: what was said before its join is not
        # for it; notices (other bots) are never commands
        r2 = fake.create_room(ps[0], members=ps[1:])
        fake.say(ps[0], r2, "!game new fortuna")
        fake.invite_bot(r2, ps[0])
        fake._wait(lambda: r2 in fake.bot_rooms(), 10, lambda: "the bot did not join")
        fake.say(ps[1], r2, "!game new gtr", msgtype="m.notice")
        fake.say(ps[1], r2, "!game status")
        wait_text(fake, r2, "No game")
        time.sleep(0.3 * SLOW)
        assert len(texts(fake, r2)) == 1, texts(fake, r2)
        check_clean(fake)
    finally:
        bot.stop()
        fake.stop()


OPTIONS_RE = re.compile(r"Options of [^:]+: (.*)\.$", re.M)


def test_every_option_through_messages():
    """Every documented option of every game, typed as `!game new <game>
    <option>` (as documented, and in capitals), opens a lobby with that
    option; an unknown one is refused privately with the game's list,
    which this test reads (the games come from `help`), so a game added
    later is covered."""
    fake = new_fake()
    bot = Bot(fake)
    try:
        p = fake.register_user("opt", "Opt")
        room = game_room(fake, [p])
        fake.say(p, room, "!help")
        fake._wait(lambda: fake.dm_room(p), 10, lambda: "no DM room")
        dm = fake.dm_room(p)
        fake.accept_invite(p, dm)
        fake._wait(lambda: any("Games:" in t for t in texts(fake, dm)), 10,
                   lambda: "no help: %r" % texts(fake, dm)[-2:])
        line = [t for t in texts(fake, dm) if "Games:" in t][-1]
        games = re.search(r"Games: ([^.]*)\.", line).group(1).split(", ")
        assert "fortuna" in games and "gtr" in games, games
        seen = 0
        for g in games:
            n = len(texts(fake, dm))
            fake.say(p, room, "!game new %s zzz" % g)
            fake._wait(lambda: any('Unknown option "zzz"' in t for t in texts(fake, dm)[n:]),
                       10, lambda: "no refusal: %r" % texts(fake, dm)[-2:])
            t = [t for t in texts(fake, dm)[n:] if 'Unknown option "zzz"' in t][-1]
            m = OPTIONS_RE.search(t)
            assert m or "has no options" in t, t
            for w in ([x.strip() for x in m.group(1).split(",")] if m else []):
                for form in (w, w.upper()):
                    r = game_room(fake, [p])
                    fake.say(p, r, "!game new %s %s" % (g, form))
                    wait_text(fake, r, "Options: %s" % w)
                    fake.say(p, r, "!game abort")     # at most 10 open lobbies a player
                    wait_text(fake, r, "aborted")
                    seen += 1
        assert seen >= 2 * 5, seen
        check_clean(fake)
    finally:
        bot.stop()
        fake.stop()


def test_html_escaped_and_mentions_exact():
    """A display name with HTML is escaped; m.mentions names exactly the
    players pinged."""
    fake = new_fake()
    bot = Bot(fake, extra_env={"MATRIX_PREFIX": "?"})
    try:
        evil = fake.register_user("evil", "<b>Evil</b> & <script>x</script>")
        ok = fake.register_user("ok", "Okay")
        room = game_room(fake, [evil, ok])
        fake.say(evil, room, "!game new fortuna")   # not the prefix here
        fake.say(evil, room, "?game new fortuna")
        wait_text(fake, room, "lobby")
        fake.say(ok, room, "?game join")
        wait_text(fake, room, "Okay")
        fake.say(evil, room, "?game start")
        wait_boards(fake, room, 1)
        for m in fake.bot_messages(room):
            fb = m.get("formatted_body", "")
            assert "<b>Evil" not in fb and "<script" not in fb, fb
            assert set(m["m.mentions"].get("user_ids", [])) <= {evil, ok}
            assert not m["m.mentions"].get("room")
        board = boards(fake, room)[-1]
        assert "&lt;b&gt;Evil" in board["formatted_body"] or \
            "Evil" not in board["formatted_body"], board["formatted_body"]
        check_clean(fake)
    finally:
        bot.stop()
        fake.stop()


def test_rate_limit_and_server_errors():
    """A 429 with retry_after_ms is waited out; a 502 is retried; nothing is
    sent twice."""
    fake = new_fake()
    bot = Bot(fake)
    try:
        ps = players(fake, 2)
        room = game_room(fake, ps)
        fake.fail_next("PUT", r"/send/", 429, retry_after_ms=800)
        fake.say(ps[0], room, "!game new fortuna")
        wait_text(fake, room, "lobby")
        fake.fail_next("PUT", r"/send/", 502, count=2)
        fake.say(ps[1], room, "!game join")
        wait_text(fake, room, "Ana, Ben")
        fired = fake.faults_fired
        assert any(f.status == 429 for f in fired) and any(f.status == 502 for f in fired)
        # one lobby message, edited once; nothing sent twice
        assert len(texts(fake, room)) == 1, texts(fake, room)
        def sends():
            return [r for r in fake.requests if r.method == "PUT" and "/send/" in r.path
                    and r.status == 200]
        # a request's status is recorded just after its answer is applied
        fake._wait(lambda: len(sends()) >= 2, 5, lambda: [r.path for r in sends()])
        time.sleep(0.3 * SLOW)
        assert len(sends()) == 2, [r.path for r in sends()]
        check_clean(fake)
    finally:
        bot.stop()
        fake.stop()


def test_leaves_when_alone_and_allowlist():
    fake = new_fake()
    bot = Bot(fake, extra_env={"MATRIX_ALLOW": "fake.test"})
    try:
        ps = players(fake, 2)
        room = game_room(fake, ps)
        fake.leave(ps[0], room)
        fake.leave(ps[1], room)
        fake._wait(lambda: room not in fake.bot_rooms(), 10, lambda: "the bot stayed alone")
        stranger = fake.register_user("x", "X", server="elsewhere.test") \
            if "server" in FakeMatrix.register_user.__code__.co_varnames else None
        if stranger:
            r2 = fake.create_room(stranger)
            fake.invite_bot(r2, stranger)
            time.sleep(1.0 * SLOW)
            assert r2 not in fake.bot_rooms()
        check_clean(fake)
    finally:
        bot.stop()
        fake.stop()


def test_token_expiry_relogin():
    fake = new_fake()
    bot = Bot(fake)
    try:
        ps = players(fake, 2)
        room = game_room(fake, ps)
        fake.expire_token()
        fake.say(ps[0], room, "!game new fortuna")
        wait_text(fake, room, "lobby", timeout=15)
        assert len(fake.logins) >= 2 and len(set(fake.logins)) == 1, fake.logins
        check_clean(fake)
    finally:
        bot.stop()
        fake.stop()


def test_reminder_and_locale():
    """`game settings locale es` switches the room to Spanish; after 25 idle
    hours (fake clock) a reminder mentions exactly the awaited players (both:
    Fortuna's setup asks everybody at once)."""
    clock = os.path.join(tempfile.mkdtemp(prefix="tabula-clock-"), "now")
    with open(clock, "w") as f:
        f.write("1700000000")
    fake = new_fake()
    bot = Bot(fake, extra_env={"TABULA_TEST_CLOCK": clock})
    try:
        ps = players(fake, 2)
        room = game_room(fake, ps)
        fake.say(ps[0], room, "!game new fortuna")
        wait_text(fake, room, "lobby")
        fake.say(ps[0], room, "!game settings locale es")
        wait_text(fake, room, "español")
        fake.say(ps[1], room, "!game join")
        fake.say(ps[0], room, "!game start")
        board = wait_boards(fake, room, 1)[-1]
        assert "Esperando a" in board["body"], board["body"][-300:]
        who = board["m.mentions"]["user_ids"]
        assert sorted(who) == sorted(ps), who
        n = len(fake.bot_messages(room))
        with open(clock, "w") as f:
            f.write(str(1700000000 + 25 * 3600))
        bot.proc.send_signal(signal.SIGUSR1)
        fake._wait(lambda: any("Recordatorio" in t for t in texts(fake, room)[n:]), 10,
                   lambda: "no reminder: %r" % texts(fake, room)[n:])
        rem = [m for m in fake.bot_messages(room)[n:] if "Recordatorio" in m.get("body", "")]
        assert len(rem) == 1 and sorted(rem[0]["m.mentions"]["user_ids"]) == sorted(who), rem
        check_clean(fake)
    finally:
        bot.stop()
        fake.stop()


def test_bad_input_from_matrix():
    """Oversize, unknown, out-of-turn and edited commands: a clear answer or
    nothing, and the game does not change."""
    fake = new_fake()
    bot = Bot(fake)
    try:
        ps = players(fake, 2)
        room = game_room(fake, ps)
        fake.say(ps[0], room, "!game new fortuna")
        fake.say(ps[1], room, "!game join")
        fake.say(ps[0], room, "!game start")
        wait_boards(fake, room, 1)
        # Fortuna's setup asks both at once: the first to reserve a card is
        # then not asked, and is the one who errs (not the game's creator,
        # whose abort would need no vote)
        idle = ps[1]
        fake.say(idle, room, "!play 1")
        board = wait_boards(fake, room, 2)[-1]
        assert idle not in awaited(board), board["body"][-300:]
        fake.say(idle, room, "!play " + "x" * 5000)
        fake.say(idle, room, "!frobnicate")
        fake.say(idle, room, "!play 1")
        ev = fake.say(idle, room, "!game abort")
        fake.say(idle, room, "!game abort", edit_of=ev)     # an edit is not a new command
        fake._wait(lambda: fake.dm_room(idle) and len(fake.bot_messages(fake.dm_room(idle))) >= 3,
                   10, lambda: "no private answers")
        time.sleep(0.5 * SLOW)
        got = [m.get("body", "") for m in fake.bot_messages(fake.dm_room(idle))]
        assert any("too long" in t for t in got), got
        assert any("Unknown command" in t for t in got), got
        assert any("not your turn" in t for t in got), got
        # one abort vote counted once (the edit was not a second command)
        votes = [t for t in texts(fake, room) if "Vote to abort" in t]
        assert len(votes) == 1, texts(fake, room)
        assert len(boards(fake, room)) == 2, "the game changed"
        check_clean(fake)
    finally:
        bot.stop()
        fake.stop()


def test_bad_password_exits():
    fake = FakeMatrix(bot_password="the-real-one").start()
    bot = Bot(fake, extra_env={"MATRIX_PASSWORD": PASSWORD})
    try:
        rc = bot.proc.wait(timeout=20 * SLOW)
        assert rc == 15, rc
    finally:
        bot.stop(expect=15)
        fake.stop()


def test_burst_limited_timeline():
    """More messages at once than the sync filter's limit: no crash, none
    done twice."""
    fake = new_fake()
    bot = Bot(fake)
    try:
        ps = players(fake, 2)
        room = game_room(fake, ps)
        fake.say(ps[0], room, "!game new fortuna")
        wait_text(fake, room, "lobby")
        bot.stop()
        count = len(texts(fake, room))
        for i in range(80):
            fake.say(ps[1], room, "chat %d" % i)
        fake.say(ps[1], room, "!game join")
        bot2 = Bot(fake, db=bot.db)
        try:
            fake._wait(lambda: len(texts(fake, room)) > count, 15,
                       lambda: "the join after the burst was not answered")
            time.sleep(1.0 * SLOW)
            new = texts(fake, room)[count:]
            assert len(new) == 1 and "Ben" in new[0], new
            check_clean(fake)
        finally:
            bot2.stop()
    finally:
        fake.stop()


# ---- issue 11: private views only in private chats ----

def cursor(db, key):
    """A cursor of the bot's store (read beside the running bot)."""
    con = sqlite3.connect("file:%s?mode=ro" % db, uri=True, timeout=10)
    try:
        row = con.execute("SELECT value FROM cursors WHERE key = ?", (key,)).fetchone()
        return row[0] if row else None
    finally:
        con.close()


def private_texts(fake, room):
    """Bodies of the bot's messages in room holding the private answer that
    wait_private_reply asks for (the rules of Fortuna)."""
    return [t for t in texts(fake, room) if "Fortuna" in t]


def wait_private_reply(fake, user, room, needle="Fortuna", after=None):
    """Asks for a private answer (`!rules fortuna`) in room; returns the
    DM room it landed in."""
    before = {r: len(fake.bot_messages(r)) for r in fake.bot_rooms()} if after is None else after
    fake.say(user, room, "!rules fortuna")

    def landed():
        for r in fake.bot_rooms():
            new = fake.bot_messages(r)[before.get(r, 0):]
            if any(needle in m.get("body", "") for m in new):
                return r
        return None
    box = []
    fake._wait(lambda: box.append(landed()) or box[-1], 10,
               lambda: "no private answer for %s" % user)
    return box[-1]


def test_dm_room_that_gains_a_member_gets_no_more_private_messages():
    """A DM room whose members stop being exactly {bot, player}: someone
    invited (not joined) counts; then someone joining a new one.  Each time
    the bot stops using it (store, m.direct), says so there once, and opens
    a new one it creates itself."""
    fake = new_fake()
    bot = Bot(fake)
    try:
        ana, ben = players(fake, 2)
        eve = fake.register_user("eve", "Eve")
        room = game_room(fake, [ana, ben])
        dm1 = wait_private_reply(fake, ana, room)
        assert dm1 == fake.dm_room(ana), (dm1, fake.dm_room(ana))
        fake.accept_invite(ana, dm1)
        dm1 = wait_private_reply(fake, ana, room)        # the same room, now joined
        assert dm1 == fake.dm_room(ana)
        # Ana invites Eve to her private chat; Eve does not join
        pos = fake.stream_pos
        fake.invite(ana, dm1, eve)
        fake.wait_caught_up()
        dm2 = wait_private_reply(fake, ana, room)
        assert dm2 != dm1 and dm2 == fake.dm_room(ana), (dm1, dm2)
        fake.wait_idle()
        later = [e for e in fake.bot_sends(dm1) if e.pos > pos]
        assert len(later) == 1 and "not private any more" in later[0].content["body"], later
        direct = fake.account_data(fake.bot_user, "m.direct") or {}
        fake._wait(lambda: dm1 not in (fake.account_data(fake.bot_user) or {}).get(ana, []) and
                   dm2 in (fake.account_data(fake.bot_user) or {}).get(ana, []), 10,
                   lambda: "m.direct: %r" % fake.account_data(fake.bot_user))
        assert cursor(bot.db, "matrix.dm." + ana).split("\n")[0] == dm2
        # in the new one, Eve is invited and joins at once
        fake.accept_invite(ana, dm2)
        pos = fake.stream_pos
        with fake._lock:
            fake.invite(ana, dm2, eve)
            fake.accept_invite(eve, dm2)
        dm3 = wait_private_reply(fake, ana, room)
        assert dm3 not in (dm1, dm2), (dm1, dm2, dm3)
        fake.wait_idle()
        later = [e for e in fake.bot_sends(dm2) if e.pos > pos]
        assert len(later) == 1 and "not private any more" in later[0].content["body"], later
        # what was said before someone's invitation stays hidden from them
        for r in (dm1, dm2, dm3):
            hv = [e for e in fake.room_state(r) if e["type"] == "m.room.history_visibility"]
            assert hv and hv[0]["content"]["history_visibility"] == "invited", (r, hv)
        # every private message went to a room of exactly {bot, Ana}
        for r in (dm1, dm2, dm3):
            for e in fake.bot_sends(r):
                if "not private any more" not in e.content.get("body", ""):
                    assert sorted(e.readers) == sorted([fake.bot_user, ana]), (r, e)
        # the old rooms are not direct chats any more: text without the
        # prefix there is conversation, whoever types it
        fake.wait_idle()
        n = len(fake.bot_sends())
        fake.say(ana, dm2, "rules fortuna")
        fake.say(eve, dm2, "rules fortuna")
        fake.wait_idle()
        time.sleep(0.3 * SLOW)
        assert len(fake.bot_sends()) == n, [e.content.get("body", "")[:80]
                                            for e in fake.bot_sends()[n:]]
        check_clean(fake)
    finally:
        bot.stop()
        fake.stop()


def test_private_message_waiting_in_a_room_that_stops_being_private_goes_elsewhere():
    """A private message held up (429) in its DM room's queue while someone
    is invited there is checked again just before it goes: it goes to a new
    direct chat instead, once."""
    fake = new_fake()
    bot = Bot(fake)
    try:
        ana, ben = players(fake, 2)
        eve = fake.register_user("eve", "Eve")
        room = game_room(fake, [ana, ben])
        dm1 = wait_private_reply(fake, ana, room)
        fake.accept_invite(ana, dm1)
        fake.wait_idle()
        before = len(fake.bot_messages(dm1))
        fake.fail_next("PUT", r"^/rooms/%s/send/" % re.escape(dm1), 429, retry_after_ms=1500)
        fake.say(ana, room, "!rules fortuna")
        fake._wait(lambda: fake.faults_fired, 10, "the send was not tried")
        fake.invite(ana, dm1, eve)
        fake._wait(lambda: fake.dm_room(ana) != dm1 and fake.dm_room(ana) and
                   any("Fortuna" in m.get("body", "")
                       for m in fake.bot_messages(fake.dm_room(ana))), 10,
                   lambda: "the held message did not go to a new room")
        fake.wait_idle()
        new = [m.get("body", "") for m in fake.bot_messages(dm1)[before:]]
        assert len(new) == 1 and "not private any more" in new[0], new
        assert len([m for m in fake.bot_messages(fake.dm_room(ana))
                    if "Fortuna" in m.get("body", "")]) == 1
        check_clean(fake)
    finally:
        bot.stop()
        fake.stop()


def test_is_direct_invite_to_a_shared_room_is_not_a_dm_room():
    """An is_direct invite into a room with a third member is joined but
    never used for private messages; one into a room of exactly the inviter
    is (after the bot checked its members)."""
    fake = new_fake()
    bot = Bot(fake)
    try:
        ana, ben = players(fake, 2)
        shared = fake.create_room(ana, name="not private", members=[ben])
        fake.invite_bot(shared, ana, is_direct=True)
        fake.wait_membership(fake.bot_user, shared, "join")
        fake.wait_idle()
        dm = wait_private_reply(fake, ana, shared)
        assert dm != shared and dm == fake.dm_room(ana), (dm, shared)
        assert private_texts(fake, shared) == [], texts(fake, shared)
        assert shared not in (fake.account_data(fake.bot_user) or {}).get(ana, [])
        # Ben's own 1:1 room with the bot: adopted, no room created for him
        solo = fake.create_room(ben, name="just us")
        fake.invite_bot(solo, ben, is_direct=True)
        fake.wait_membership(fake.bot_user, solo, "join")
        fake._wait(lambda: solo in (fake.account_data(fake.bot_user) or {}).get(ben, []), 10,
                   lambda: "the 1:1 room was not adopted: %r" % fake.account_data(fake.bot_user))
        got = wait_private_reply(fake, ben, shared)
        assert got == solo and fake.dm_room(ben) is None, (got, solo, fake.dm_room(ben))
        hv = [e for e in fake.room_state(solo) if e["type"] == "m.room.history_visibility"]
        assert hv[0]["content"]["history_visibility"] == "invited", hv
        assert solo in (fake.account_data(fake.bot_user) or {}).get(ben, [])
        check_clean(fake)
    finally:
        bot.stop()
        fake.stop()


# ---- issue 11: forged invite state ----

def forged_state(victim, bot_user):
    """Stripped state a hostile server adds: an invite of someone else
    "sent" by the victim with is_direct, and the victim's member event."""
    return [{"type": "m.room.member", "state_key": "@someone:evil.test", "sender": victim,
             "content": {"membership": "invite", "is_direct": True}},
            {"type": "m.room.member", "state_key": victim, "sender": victim,
             "content": {"membership": "join", "displayname": "Ana"}}]


def test_forged_invite_state_bypasses_nothing():
    """Only the invite event about the bot itself counts: a forged
    invite_state naming an allowed user neither passes MATRIX_ALLOW nor
    makes the stranger's room the victim's DM room; contradicting invite
    events are declined outright."""
    fake = new_fake()
    bot = Bot(fake, extra_env={"MATRIX_ALLOW": "fake.test"})
    try:
        ana, = players(fake, 1)
        mal = fake.register_user("mal", "Mal", server="evil.test")
        trap = fake.create_room(mal, name="trap")
        fake.forge_invite_state(trap, forged_state(ana, fake.bot_user))
        fake.invite_bot(trap, mal, is_direct=True)
        fake.wait_membership(fake.bot_user, trap, "leave")      # declined
        # a second invite event about the bot, "sent" by Ana: contradicts
        trap2 = fake.create_room(mal, name="trap 2")
        fake.forge_invite_state(trap2, [{
            "type": "m.room.member", "state_key": fake.bot_user, "sender": ana,
            "content": {"membership": "invite", "is_direct": True}}])
        fake.invite_bot(trap2, mal, is_direct=True)
        fake.wait_membership(fake.bot_user, trap2, "leave")
        room = game_room(fake, [ana])
        dm = wait_private_reply(fake, ana, room)
        assert dm == fake.dm_room(ana) and dm not in (trap, trap2)
        assert texts(fake, trap) == [] and texts(fake, trap2) == []
        assert all(r.path != "/rooms/%s/join" % t for r in fake.requests for t in (trap, trap2))
        log = bot.log()
        assert "contradicts itself" in log and "outside MATRIX_ALLOW" in log, log[-2000:]
        check_clean(fake)
    finally:
        bot.stop()
        fake.stop()
    # without an allowlist: the stranger's room is joined as the stranger's,
    # and never becomes Ana's DM room
    fake = new_fake()
    bot = Bot(fake)
    try:
        ana, = players(fake, 1)
        mal = fake.register_user("mal", "Mal", server="evil.test")
        trap = fake.create_room(mal, name="trap", members=[ana])
        fake.forge_invite_state(trap, forged_state(ana, fake.bot_user))
        fake.invite_bot(trap, mal, is_direct=True)
        fake.wait_membership(fake.bot_user, trap, "join")
        fake.wait_idle()
        dm = wait_private_reply(fake, ana, trap)
        assert dm != trap and dm == fake.dm_room(ana), (dm, trap)
        assert trap not in (fake.account_data(fake.bot_user) or {}).get(ana, [])
        assert private_texts(fake, trap) == [], texts(fake, trap)
        check_clean(fake)
    finally:
        bot.stop()
        fake.stop()


# ---- issue 11: a /sync too large to read ----

BIG_REASON = "x" * 60000      # a member event of about 60 KB


def heavy_member_events(fake, user, room, n):
    """n member events of user in room, each carrying a 60 KB reason."""
    for i in range(n):
        fake.send_event(user, room, "m.room.member",
                        {"membership": "join", "displayname": "Ana", "reason": BIG_REASON},
                        state_key=user)


def heavy_invite(fake, inviter, n=140):
    """A room whose invite carries n stripped member events of 60 KB: over
    the 8 MiB cap whatever filter the bot asks for."""
    room = fake.create_room(inviter, name="heavy")
    fake.forge_invite_state(room, [
        {"type": "m.room.member", "state_key": "@m%d:evil.test" % i, "sender": inviter,
         "content": {"membership": "leave", "reason": BIG_REASON}} for i in range(n)])
    fake.invite_bot(room, inviter)
    return room


def test_oversized_sync_never_stops_the_bot():
    """Responses over the 8 MiB cap: timelines too large are asked again
    smaller (the gaps read back, a command in one answered); an invite too
    large for any filter is stepped over (the rooms' messages read back, a
    command sent meanwhile answered); restarts do not wedge either."""
    fake = new_fake()
    bot = Bot(fake)
    bot2 = bot3 = None
    try:
        ana, ben = players(fake, 2)
        mal = fake.register_user("mal", "Mal", server="evil.test")
        room = game_room(fake, [ana, ben])
        fake.say(ana, room, "!game new fortuna")
        wait_text(fake, room, "lobby")
        busy = []
        for k in range(3):
            r = fake.create_room(ana, name="busy %d" % k)
            fake.invite_bot(r, ana)
            busy.append(r)
        fake._wait(lambda: all(r in fake.bot_rooms() for r in busy), 10, "joins")
        fake.wait_idle()
        # (a) 3 x 50 events of 60 KB at once: 9 MB in one normal response
        with fake._lock:
            fake.say(ana, busy[0], "!game status")      # early: in a gap
            for r in busy:
                heavy_member_events(fake, ana, r, 50)
            fake.say(ben, room, "!game join")
        wait_text(fake, room, "Ana, Ben", timeout=30)
        wait_text(fake, busy[0], "No game", timeout=30)
        assert "asking again with smaller timelines" in bot.log()
        assert any(r.path == "/rooms/%s/messages" % busy[0] for r in fake.requests)
        # (b) an invite over the cap: nothing can shrink it
        fake.wait_idle()

        def answers():
            return len([r for r in fake.sends_to(room) if r.status == 200])
        n = answers()
        with fake._lock:
            heavy = heavy_invite(fake, mal)
            fake.say(ana, room, "!game status")
        fake._wait(lambda: answers() > n, 30,
                   lambda: "the status after the huge invite was not answered: %r"
                   % texts(fake, room)[-2:])
        fake.wait_idle(timeout=30)
        log = bot.log()
        assert "stepping over it" in log, log[-3000:]
        assert fake.membership(fake.bot_user, heavy) == "invite"      # never joined
        bot.stop()
        # (c) stopped with such an invite pending and a command waiting:
        # the restart answers the command, and so does the next one
        with fake._lock:
            heavy_invite(fake, mal)
            fake.say(ben, room, "!game leave")
        bot2 = Bot(fake, db=bot.db)
        wait_text(fake, room, "Seats (1 of", timeout=30)
        bot2.stop()
        bot3 = Bot(fake, db=bot.db)
        fake.say(ben, room, "!game join")
        wait_text(fake, room, "Ana, Ben", after=len(texts(fake, room)) - 1, timeout=30)
        check_clean(fake)
    finally:
        for b in (bot3, bot2, bot):
            if b and b.proc.poll() is None:
                b.stop()
        fake.stop()


# ---- issue 11: names are untrusted text ----

FORGED = "Eve\n\u202eWinner: Eve\u200b"      # newline, RLO, zero-width space
INVISIBLE = "\u200b\u202e\n\u2066"             # nothing visible at all
BAD_CHARS = "\u202e\u200b\u2066\u2028\u200d\u2067"


def test_display_names_cannot_forge_lines():
    """Display names with newlines, bidi overrides and zero-width characters
    are cleaned at the adapter: one line, nothing invisible, in body and
    formatted_body; a name with nothing visible shows the localpart."""
    fake = new_fake()
    bot = Bot(fake)
    try:
        eve = fake.register_user("eve", FORGED)
        zed = fake.register_user("zed", INVISIBLE)
        cy = fake.register_user("cy", "Cy")
        room = game_room(fake, [eve, zed, cy])
        fake.say(eve, room, "!game new fortuna")
        fake.say(zed, room, "!game join")
        wait_text(fake, room, "zed")
        # a new name while in the room (a member event in the timeline)
        fake.set_displayname(cy, room, "Cy\u2028Winner: Cy\u200d")
        fake.say(cy, room, "!game join")
        wait_text(fake, room, "Cy Winner: Cy")
        fake.say(eve, room, "!game start")
        wait_boards(fake, room, 1)
        for m in fake.bot_messages(room):
            body, html = m.get("body", ""), m.get("formatted_body", "")
            for c in BAD_CHARS:
                assert c not in body and c not in html, (c, body)
            for line in body.split("\n"):
                assert not line.strip().startswith("Winner:"), body
            assert "<br>Winner" not in html and "\nWinner" not in html, html
        every = "\n".join(texts(fake, room))
        assert "Eve Winner: Eve" in every, every
        seats = [t for t in texts(fake, room) if "Seats" in t]
        assert any("zed" in t for t in seats), seats
        check_clean(fake)
    finally:
        bot.stop()
        fake.stop()


# ---- issue 11: the send queue is bounded ----

def test_send_queue_full_commands_wait_nothing_dropped():
    """With the send queue bound at 4, twelve commands in one sync: the bot
    stops taking commands while 4 answers wait (the next /sync comes only
    once most are out), says so once in its log, and answers all twelve."""
    fake = new_fake()
    bot = Bot(fake, extra_env={"TABULA_TEST_MATRIX_SENDQ": "4"})
    try:
        ana, ben = players(fake, 2)
        room = game_room(fake, [ana, ben])
        fake.wait_idle()
        with fake._lock:
            first = fake.stream_pos + 1
            for i in range(12):
                fake.say(ana if i % 2 else ben, room, "!game status")
        fake._wait(lambda: len([r for r in fake.sends_to(room) if r.status == 200]) >= 12,
                   20, lambda: "answers: %d" % len(fake.sends_to(room)))
        d = fake.sync_delivery(first)
        assert d is not None

        def later_syncs():
            return [r for r in fake.requests if r.path == "/sync" and r.t_arrival > d.t]
        fake._wait(lambda: later_syncs(), 20, "no sync after the batch")
        with fake._lock:
            nxt = later_syncs()
            done_before = [r for r in fake.sends_to(room)
                           if r.status == 200 and r.t_sent is not None and
                           r.t_sent < nxt[0].t_arrival]
        assert len(done_before) >= 12 - 4, (len(done_before), "sent before the next sync")
        time.sleep(0.3 * SLOW)
        assert len([r for r in fake.sends_to(room) if r.status == 200]) == 12
        log = bot.log()
        assert log.count("new commands wait until half of them are sent") == 1, log[-2000:]
        assert "the send queue has drained" in log
        check_clean(fake)
    finally:
        bot.stop()
        fake.stop()


# ---- issue 11: nothing hidden in any public payload ----

def all_strings(v):
    """Every string value in a JSON value (m.new_content and the rest)."""
    if isinstance(v, str):
        return [v]
    if isinstance(v, dict):
        return [t for x in v.values() for t in all_strings(x)]
    if isinstance(v, list):
        return [t for x in v for t in all_strings(x)]
    return []


class Scan:
    """Checks each event the bot sent, once, at the moment it is seen: in a
    DM room (one the bot created for a player) its readers must be exactly
    the bot and that player; anywhere else none of its strings may hold a
    secret of the games in play then (tests/integration/hidden.py)."""

    def __init__(self, fake, db):
        self.fake, self.db = fake, db
        self.seen = set()
        self.public = self.private = 0
        self.secret_steps = 0       # steps where something was hidden
        self.dm_with_secret = 0     # private messages naming a secret
        self.pictures = 0           # m.image events, their pictures' texts read

    def __call__(self):
        fake = self.fake
        # a lane's next message goes when the one before is answered: a
        # longer quiet than wait_idle's default, so that this step's
        # messages are all in before the secrets are read
        fake.wait_idle(quiet_s=0.05)
        now = hidden.secrets_now(self.db)
        self.secret_steps += bool(now)
        with fake._lock:
            dms = {c.room_id: c.body["invite"][0] for c in fake.created_rooms
                   if c.user == fake.bot_user and (c.body or {}).get("is_direct")}
        for e in fake.bot_sends():
            if e.event_id in self.seen:
                continue
            self.seen.add(e.event_id)
            strings = all_strings(e.content)
            if e.content.get("msgtype") == "m.image":
                # the picture's own texts (its PNG's Description; of an
                # encrypted picture, once decrypted)
                strings.append(fake.picture_text(e.content))
                self.pictures += 1
            if e.room in dms:
                if e.content.get("msgtype") == "m.image":
                    # the bot's direct chats are encrypted: an encrypted
                    # attachment, ciphertext in the media repository
                    open_encrypted_picture(fake, e.content)
                assert sorted(e.readers) == sorted([fake.bot_user, dms[e.room]]), \
                    ("a private message readable by", e.readers, e.content.get("body", "")[:200])
                self.private += 1
                self.dm_with_secret += bool(hidden.leaks(strings, now))
            else:
                hidden.assert_no_leak(strings, now, " in %s" % e.room)
                self.public += 1


def play_scanned(fake, room, humans, game, rng, scan, db, limit=400):
    """Plays to the end, every human decision through the room or the DM
    room, scanning after every step; returns the number of steps."""
    step = 0
    moves = settle_start(fake, room, db)
    while True:
        scan()
        board = boards(fake, room)[-1]
        if "Game over" in board["body"]:
            return step
        who = [u for u in awaited(board) if u in humans]
        assert who, "a board waiting for no human: %r" % board["body"][-300:]
        uid = who[0]
        dm = fake.dm_room(uid)
        if dm and uid not in fake.joined_members(dm):
            fake.accept_invite(uid, dm)
        move = make_transcript.pick(rng, fresh_moves(fake, uid), game)
        if step % 3 == 1 and dm:
            fake.say(uid, dm, "play " + move)
        else:
            fake.say(uid, room, "!play " + move)
        moves = harness.wait_settled(db, moves, timeout=20,
                                     what="after move %d (%s by %s)" % (step, move, uid))
        step += 1
        assert step < limit, "the game did not end"


def scanned_game(game, nhumans, bots):
    fake = new_fake()
    bot = Bot(fake)
    try:
        names = ("Ana", "Ben", "Cy")[:nhumans]
        ps = players(fake, nhumans, names)
        room = game_room(fake, ps)
        scan = Scan(fake, bot.db)
        fake.say(ps[0], room, "!game new " + game)
        wait_text(fake, room, "lobby")
        for p in ps[1:]:
            fake.say(p, room, "!game join")
        if bots:
            fake.say(ps[0], room, "!game addbot %d" % bots)
        fake._wait(lambda: any("Seats (%d of" % (nhumans + bots) in t for t in texts(fake, room)),
                   10, lambda: "the lobby did not fill: %r" % texts(fake, room))
        scan()
        fake.say(ps[0], room, "!game start")
        steps = play_scanned(fake, room, ps, game, random.Random(11), scan, bot.db)
        # the scan saw the game, and saw it hide things
        assert steps > 10 and scan.secret_steps > 5, (steps, scan.secret_steps)
        assert scan.public > steps and scan.private >= steps // 2, (steps, scan.public, scan.private)
        assert scan.dm_with_secret > 0, "no private message named a secret: a vacuous scan"
        # the room's boards came as pictures (its private views are text:
        # the direct chats are encrypted)
        assert scan.pictures > 10, ("the boards came as pictures", scan.pictures, steps)
        check_clean(fake)
    finally:
        bot.stop()
        fake.stop()


@harness.whole_game_scan
def test_public_payloads_hold_no_secret_fortuna():
    """Three players play Fortuna to the end: after every step, every
    public payload (body, formatted_body, edits' m.new_content, every other
    string) against what is hidden then; private messages only in rooms of
    exactly the bot and the player."""
    scanned_game("fortuna", 3, 0)


@harness.whole_game_scan
def test_public_payloads_hold_no_secret_gtr():
    """The same for Glory to Rome, one human against two AI seats."""
    scanned_game("gtr", 1, 2)


def matrix_link(m, what):
    """The web link in a Matrix notice m: a line of its own in the body,
    and in formatted_body a link (<a href>) to the same address, shown as
    itself; the message's mentions unchanged by it."""
    found = webcheck.links(m.get("body", ""))
    assert len(found) == 1, "%s: wanted one link line in %r" % (what, m.get("body", "")[-400:])
    url = found[0]
    fb = m.get("formatted_body", "")
    assert m.get("format") == "org.matrix.custom.html", (what, sorted(m))
    assert '<a href="%s">%s</a>' % (url, url) in fb, "%s: no link in %r" % (what, fb[-400:])
    assert not m["m.mentions"].get("room"), (what, m["m.mentions"])
    return url


def wait_link(fake, room, after=0, timeout=10):
    """The first of the bot's messages in room from index `after` on with
    a web link."""
    def found():
        return [m for m in fake.bot_messages(room)[after:] if webcheck.links(m.get("body"))]
    fake._wait(lambda: found(), timeout, lambda: "no link in %r" % texts(fake, room)[-4:])
    return found()[0]


def test_web_page_of_a_matrix_game():
    """TABULA_PUBLIC_URL set: a game started in a Matrix room posts "Watch
    and replay: <url>" in the first board's body and as a link in its
    formatted_body; the page answers with the security headers, names the
    players by their display names and its event stream hears a move made
    in the room; `!game web reset` (both vote) kills the old link (`gone`,
    404) and tells the new one, linked.  In an encrypted room the link
    travels only inside the encrypted events."""
    fake = new_fake()
    port = webcheck.free_port()
    bot = Bot(fake, extra_env=webcheck.env(port))
    ev = None
    try:
        ps = players(fake, 2, names=("Ana María", "Ben"))
        room = game_room(fake, ps)
        fake.say(ps[0], room, "!game new fortuna")
        wait_text(fake, room, "lobby")
        fake.say(ps[1], room, "!game join")
        wait_text(fake, room, "Ben")
        fake.say(ps[0], room, "!game start")
        moves = settle_start(fake, room, bot.db)
        url = matrix_link(wait_link(fake, room), "the first board")
        state, _ = webcheck.page(port, url)
        assert sorted(p["name"] for p in state["players"]) == ["Ana María", "Ben"], state
        # a move in the room reaches the page's viewers
        ev = webcheck.Events(port, url)
        before = state["positions"]
        uid = awaited(boards(fake, room)[-1])[0]
        fake.say(uid, room, "!play " + fresh_moves(fake, uid)[0])
        harness.wait_settled(bot.db, moves)
        ev.wait("move", lambda d: d["positions"] > before)
        # a new link, voted
        n = len(fake.bot_messages(room))
        fake.say(ps[0], room, "!game web reset")
        wait_text(fake, room, "1 of 2", after=n)
        webcheck.page(port, url)
        fake.say(ps[1], room, "!game web reset")
        new = matrix_link(wait_link(fake, room, after=n), "the reset")
        assert new != url
        ev.wait("gone")
        webcheck.gone(port, url)
        webcheck.page(port, new)
        # an encrypted room: the link only inside the encrypted events
        eroom = fake.create_room(ps[0], name="Secret night", encrypted=True)
        fake.invite_bot(eroom, ps[0])
        fake._wait(lambda: eroom in fake.bot_rooms(), 10, lambda: "the bot did not join")
        fake.say(ps[0], eroom, "!game new gtr")
        wait_text(fake, eroom, "lobby")
        fake.say(ps[0], eroom, "!game addbot 1")
        fake.say(ps[0], eroom, "!game start")
        eurl = matrix_link(wait_link(fake, eroom), "the encrypted room's board")
        assert webcheck.page(port, eurl)[0]["game"] == "gtr"
        tok = eurl.rsplit("/", 1)[1]
        with fake._lock:
            raw = [r.raw.decode("utf-8", "replace") for r in fake.requests
                   if r.user == fake.bot_user and r.raw]
        assert any(tok in r for r in raw) is False, "the encrypted room's link in clear"
        assert any(new.rsplit("/", 1)[1] in r for r in raw), "the clear room's link not seen"
        check_clean(fake)
    finally:
        if ev:
            ev.close()
        bot.stop()
        fake.stop()


if __name__ == "__main__":
    sys.exit(harness.run_tests("matrix", sys.modules[__name__], sys.argv))
