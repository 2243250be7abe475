#!/usr/bin/env python3
"""Discord integration tests: the real tabula binary against the loopback
fake of Discord (tests/fakes/fake_discord.py).  Nothing leaves 127.0.0.1.

usage: discord_test.py ./tabula [test-name ...]
Prints one line per test and "discord: N passed, M failed"; exit 1 on any
failure.  Each test gets its own fake, store and bot process; the bot's
stderr is checked for the token at the end of every test.
"""
import base64
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
import hidden  # noqa: E402
import pngread  # noqa: E402
import webcheck  # noqa: E402
from fake_discord import FakeDiscord  # noqa: E402

SLOW = harness.SLOW     # TABULA_TEST_SLOW: timeouts x this (make valgrind)

# the transcript generator's greedy player: random moves make Fortuna last
# for thousands of decisions
_spec = importlib.util.spec_from_file_location(
    "make_transcript", os.path.join(HERE, "..", "..", "scripts", "make-transcript.py"))
make_transcript = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(make_transcript)

TOKEN = "tk-SECRET.bot-token.do-not-log-9f8e7d"
CHAN = "700000000000000001"
CANARY = "799999999999999999"   # scan_catches() posts its test payloads here
GUILD = "800000000000000001"
BIN = "./tabula"

# "Waiting for <@id>, **name**: prompt": a player still deciding is named,
# not pinged again; seats asked the same thing share the line
WAITING_LINE_RE = re.compile(r"(?:Waiting for|Esperando a) ((?:<@\d+>|\*\*.+?\*\*)"
                             r"(?:, (?:<@\d+>|\*\*.+?\*\*))*): ")
NAMES = {}      # display name -> user id, for the boards that do not ping
ROUTES = {"select": 0, "play": 0}   # how play_one() made its moves


class Bot:
    """One tabula process under test, with its own store."""

    def __init__(self, fake, extra_env=None, drop=(), db=None):
        self.fake = fake
        self.dir = tempfile.mkdtemp(prefix="tabula-discord-")
        self.db = db or os.path.join(self.dir, "t.db")
        env = dict(os.environ)
        for k in list(env):
            if k.startswith("DISCORD_") or k.startswith("MATRIX_") or k.startswith("TABULA_"):
                del env[k]
        env.update(fake.env())
        env["DISCORD_TOKEN"] = TOKEN
        env["TABULA_DB"] = self.db
        env["TABULA_SEED"] = "7"
        env["TABULA_LOG"] = "debug"
        # the fake's players click far faster than people: no per-user
        # throttle (docs/async.md, "Limits"; tested in test_session.c and
        # tests/data/security/004)
        env["TABULA_THROTTLE"] = "off"
        for k in drop:
            env.pop(k, None)
        env.update(extra_env or {})
        self.errpath = os.path.join(self.dir, "stderr")
        self.err = open(self.errpath, "wb")
        self.proc = subprocess.Popen([BIN], env=env, stdin=subprocess.DEVNULL,
                                     stdout=subprocess.DEVNULL, stderr=self.err)

    def stderr(self):
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
        log = self.stderr()
        assert TOKEN not in log, "the token appears in the log"
        assert "SECRET" not in log, "part of the token appears in the log"
        assert rc == expect, "exit status %r, wanted %r; log:\n%s" % (rc, expect, log[-3000:])
        return log


def start(fake_kw=None, **bot_kw):
    fake = FakeDiscord(token=TOKEN, **(fake_kw or {})).start()
    bot = Bot(fake, **bot_kw)
    return fake, bot


def user(fake, n, name=None):
    u = fake.user("1000000000000000%02d" % n, name or "player%d" % n)
    NAMES[u["username"]] = u["id"]
    return u


def cmd(fake, who, name, options=None, sub=None, **kw):
    h = fake.command(who, CHAN, name, options, sub=sub, **kw)
    h.wait_response(timeout=5)
    return h


def texts(h):
    """(content, ephemeral) of what the user finally sees."""
    h.wait_final(lambda ms: len(ms) > 0, timeout=5)
    return [(m["content"], m["ephemeral"]) for m in h.final_messages()]


def one_text(h):
    return "\n".join(c for c, _ in texts(h))


def boards(fake):
    """The bot's boards in the channel, in order: posts with the board
    buttons, and the final one (a finished game's carries Rematch alone).
    A board longer than a message comes in several; the buttons ride on
    the last, whose "content" here is the whole board (the channel's
    messages since the previous board), so that every "Waiting for" line
    is read."""
    out, before = [], []
    for m in fake.channel_messages(CHAN):
        ids = custom_ids(m)
        if any(i.startswith("t1:hand:") for i in ids) or is_over(m):
            whole = dict(m)
            whole["content"] = "\n".join(before + [m["content"]])
            out.append(whole)
            before = []
        else:
            before.append(m.get("content") or "")
    return out


def picture_text(m):
    """The texts of m's picture (its PNG's Description: tests/fakes/pngread.py),
    "" without one: a board sent as a picture keeps its text board there."""
    return "\n".join(a.get("content") or "" for a in m.get("attachments") or []
                     if a.get("png_b64"))


def custom_ids(m):
    ids = []
    for row in m.get("components") or []:
        for c in row.get("components") or []:
            if "custom_id" in c:
                ids.append(c["custom_id"])
    return ids


def select_of(m):
    for row in m.get("components") or []:
        for c in row.get("components") or []:
            if c.get("type") == 3:
                return c
    return None


def menu(h):
    """The select of moves in an interaction's private answer, with the
    message it sits on: (message, select), or (None, None)."""
    for m in texts_msgs(h):
        sel = select_of(m)
        if sel is not None:
            assert m["ephemeral"], "a select of moves on a public message: %r" % m
            return m, sel
    return None, None


def texts_msgs(h):
    h.wait_final(lambda ms: len(ms) > 0, timeout=5)
    return h.final_messages()


def no_public_menu(fake):
    """No public message ever carried a select (a move list is private)."""
    for ch in list(fake._chan_all):
        if ch == CANARY:
            continue
        for m in fake.channel_messages(ch, include_interactions=True):
            if not m["ephemeral"] and ch not in fake._dm_user_by_chan:
                assert select_of(m) is None, "a public select: %r" % m


def button(m, kind):
    for i in custom_ids(m):
        if i.startswith("t1:%s:" % kind):
            return i
    raise AssertionError("no %s button on %r" % (kind, m.get("content", "")[:200]))


def wait_boards(fake, n, timeout=10):
    fake._wait(lambda: len(boards(fake)) >= n, timeout,
               lambda: "wanted %d boards, have %d" % (n, len(boards(fake))))
    return boards(fake)


def lobby(fake, players, game="fortuna"):
    h = cmd(fake, players[0], "game", {"game": game}, sub="new")
    assert not texts(h)[0][1], "the lobby announcement should be public"
    for p in players[1:]:
        h = cmd(fake, p, "game", sub="join")
    h = cmd(fake, players[0], "game", sub="start")
    return wait_boards(fake, 1)


def awaited(board):
    """Who the board waits for: pinged (just became awaited) or named.
    Seats asked the same thing share a line: "Waiting for <@1>, **ben**: ..." """
    out = []
    for line in board["content"].split("\n"):
        m = WAITING_LINE_RE.match(line)
        if not m:
            continue
        for tok in m.group(1).split(", "):
            mm = re.fullmatch(r"<@(\d+)>", tok)
            if mm:
                out.append(mm.group(1))
                continue
            mm = re.fullmatch(r"\*\*(.+?)\*\*", tok)
            if mm and mm.group(1).replace("\\", "") in NAMES:
                out.append(NAMES[mm.group(1).replace("\\", "")])
    return out


def is_over(board):
    return "Game over" in board["content"] or "Fin de la partida" in board["content"]


def complete(fake, who, partial=""):
    h = fake.autocomplete(who, CHAN, "play", {"move": partial}, "move")
    body = h.wait_response(timeout=5)
    assert body["type"] == 8, body
    return body["data"]["choices"]


def choose(rng, values, game="fortuna"):
    return make_transcript.pick(rng, list(values), game)


def play_one(fake, users, step, rng, board, game="fortuna"):
    """Makes one move for the first awaited player, by one of three routes:
    the select of the private "My moves" answer, the one of a typed /moves,
    or /play with its autocompletion."""
    uid = awaited(board)[0]
    who = users[uid]
    route = step % 3
    assert select_of(board) is None, "a select of moves on the public board"
    if route in (0, 1):
        if route == 0:
            mv = fake.click(who, CHAN, board, button(board, "moves"))
        else:
            mv = cmd(fake, who, "moves")
        msg, sel = menu(mv)
        assert all(m["ephemeral"] for m in texts_msgs(mv)), "moves must be ephemeral"
        if sel is not None:
            assert sel["custom_id"].endswith(":" + who["id"]), sel["custom_id"]
            value = choose(rng, [o["value"] for o in sel["options"]], game)
            h = fake.click(who, CHAN, msg, sel["custom_id"], values=[value])
            h.wait_response(timeout=5)
            ROUTES["select"] += 1
            return h
    choices = complete(fake, who)
    assert 0 < len(choices) <= 25, choices
    if len(choices) == 25 and game == "fortuna":
        for pref in ("deliver", "advance", "favour"):
            choices += [c for c in complete(fake, who, pref) if c not in choices]
    value = choose(rng, [c["value"] for c in choices], game)
    pick = [c for c in choices if c["value"] == value][0]
    if route == 2:
        # a filtered autocompletion
        part = pick["value"][:3]
        narrowed = complete(fake, who, part)
        assert narrowed, "no completion for %r" % part
        assert all(part.lower() in (c["value"] + " " + c["name"]).lower() or c["value"].isdigit()
                   for c in narrowed), narrowed
    ROUTES["play"] += 1
    return cmd(fake, who, "play", {"move": pick["value"]})


def scan(fake, db, mark, what=""):
    """The public-payload scan: every public payload since `mark` against
    what the store hides right now.  Returns the new mark."""
    now = fake.public_mark()
    hidden.assert_no_leak(fake.public_texts_since(mark), hidden.secrets_now(db), what)
    return now


def board_position(board):
    """The game position (moves stored) a board's buttons act on."""
    for i in custom_ids(board):
        if i.startswith("t1:hand:"):
            return int(i.split(":")[3])
    return None


def play_to_end(fake, users, rng, limit=3000, hook=None, db=None, game="fortuna", mark=0):
    """Plays the channel's game to its end, one decision at a time, each
    once the previous one's outcome is out (harness.wait_settled: a step
    that shows the room nothing posts nothing).  With db, every step's
    public payloads are scanned against that moment's secrets (scan())."""
    step = 0
    before = set()
    nboards = 0
    moves = harness.store_counts(db)[0] if db else 0
    while True:
        bs = wait_boards(fake, max(1, nboards))
        board = bs[-1]
        if db:
            mark = scan(fake, db, mark, " after move %d" % step)
        if is_over(board):
            return step, bs
        if len(bs) > nboards:
            # exactly the players who have just become awaited are pinged
            now = set(awaited(board))
            pinged = set(board["allowed_mentions"].get("users", []))
            assert pinged == now - before, ("pinged", pinged, "awaited", now, "before", before)
            before = now
            nboards = len(bs)
        assert awaited(board), "nobody awaited on a live board: %r" % board["content"][-300:]
        if hook:
            hook(step, board)
        h = play_one(fake, users, step, rng, board, game)
        for content, eph in texts(h):
            assert eph, "the answer to a move should be private: %r" % content
        if db:
            moves = harness.wait_settled(db, moves, what="after move %d" % step)
        else:
            try:
                wait_boards(fake, nboards + 1)
            except AssertionError:
                raise AssertionError("move %d got no new board; its answer: %r" % (step, texts(h)))
        step += 1
        assert step < limit, "the game did not end"


def check_boards(bs, db):
    """Every room message the bot committed was posted, once: as many
    boards as public outbox messages, each on a later position."""
    assert len(bs) == harness.public_posts(db), (len(bs), harness.public_posts(db))
    pos = [board_position(b) for b in bs if board_position(b) is not None]
    assert pos == sorted(set(pos)), ("boards posted twice or out of order", pos)


def check_private(fake):
    """Nothing private in public: no private view's words and no select of
    moves.  (Secrets are scanned step by step with scan(): a card shown in
    public earlier may be hidden now, so the whole history cannot be
    checked against today's secrets.)"""
    pub = "\n".join(fake.all_public_texts())
    for marker in ("Your moves", "Tus jugadas", "Your hand", "Tu mano"):
        assert marker not in pub, "private text %r appeared publicly" % marker
    priv = fake.all_private_texts()
    for p in priv:
        if "Your moves" in p or "Your hand" in p:
            assert p not in pub
    no_public_menu(fake)


# ---- tests ----

def test_full_game():
    """Three humans play Fortuna to the end through slash commands,
    autocomplete, the board's buttons and the private select of "My
    moves"."""
    fake, bot = start(drop=("DISCORD_GATEWAY_URL",))
    fake.channel_rate = (50, 1.0)   # the realistic 5/s runs in the other tests
    try:
        fake.wait_ready(10)
        assert any(r.path == "/gateway/bot" for r in fake.requests), "GET /gateway/bot not used"
        # Discord's User-Agent form (the fake checks it on every request),
        # with the build's version, the one --version prints
        with open(os.path.join(HERE, "..", "..", "VERSION")) as f:
            version = f.read().strip()
        ua = {r.headers.get("user-agent") for r in fake.requests}
        assert len(ua) == 1, ua
        ua = ua.pop()
        m = re.match(r"^DiscordBot \((https?://[^ ,()]+), %s\)$" % re.escape(version), ua)
        assert m, ua
        assert subprocess.run([BIN, "--version"], capture_output=True, text=True,
                              timeout=10).stdout == "tabula %s\n%s\n" % (version, m.group(1))
        cmds = fake.wait_commands()
        names = sorted(c["name"] for c in cmds)
        for n in ("game", "play", "moves", "hand", "board", "log", "help"):
            assert n in names, names
        play = [c for c in cmds if c["name"] == "play"][0]
        assert play["options"][0].get("autocomplete") is True
        assert play.get("name_localizations", {}).get("es-ES"), "no es-ES localisation"
        ps = [user(fake, i) for i in (1, 2, 3)]
        users = {p["id"]: p for p in ps}
        lobby(fake, ps)
        # a seated player looks at their hand (Fortuna's setup awaits all
        # three at once: each reserves a card)
        b = boards(fake)[-1]
        idle = ([p for p in ps if p["id"] not in awaited(b)] or ps)[0]
        h = fake.click(idle, CHAN, b, button(b, "hand"))
        assert all(e for _, e in texts(h)), "hand must be ephemeral"
        steps, bs = play_to_end(fake, users, random.Random(5), db=bot.db)
        assert steps > 20, steps
        assert "Winner" in bs[-1]["content"] or "Nobody wins" in bs[-1]["content"]
        # every room message committed posted once, none twice
        check_boards(bs, bot.db)
        # the whole game, exported to one player as a file
        h = fake.command(ps[0], CHAN, "log", {"all": True})
        body = h.wait_response(timeout=5)
        data = body["data"]
        assert data["flags"] & 64 and "attached" in data["content"], data
        text = data["attachments"][0]["content"]
        assert text.count("\n") > steps // 2, len(text)
        assert "(private)" in text
        check_private(fake)
        for m in fake.channel_messages(CHAN):
            am = m.get("allowed_mentions")
            assert am is not None and am.get("parse") == [], am
            assert set(am.get("users", [])) <= set(users), am
        assert fake.violations == [], fake.violations
    finally:
        bot.stop()
        fake.stop()


def test_sylla_one_human_three_ai():
    """Sylla from `/game new` to the final scores: one human, three AI
    seats.  The secret choices (the first characters, the votes, what the
    events turn over) are made from `/play` and the ephemeral "My moves";
    every public message, all along, is checked against what the game
    hides at that moment (its money, tokens and unrevealed choices)."""
    fake, bot = start(drop=("DISCORD_GATEWAY_URL",))
    fake.channel_rate = (50, 1.0)
    checked = [0]
    try:
        fake.wait_ready(10)
        fake.wait_commands()
        p = user(fake, 1)
        h = cmd(fake, p, "game", {"game": "sylla"}, sub="new")
        assert not texts(h)[0][1], "the lobby announcement should be public"
        cmd(fake, p, "game", {"count": 3}, sub="addbot")
        cmd(fake, p, "game", sub="start")
        wait_boards(fake, 1)

        def no_leak(step, board):
            secrets = hidden.secrets_now(bot.db)
            hidden.assert_no_leak(fake.all_public_texts(), secrets, " (step %d)" % step)
            checked[0] += bool(secrets)

        steps, bs = play_to_end(fake, {p["id"]: p}, random.Random(3), hook=no_leak, game="sylla",
                                  db=bot.db)
        assert steps > 40, steps
        assert checked[0] > 20, checked
        final = bs[-1]["content"] + "\n" + picture_text(pictured(fake, bs[-1]))
        assert "Final scoring" in final and "Winner" in final, final[-400:]
        # the screens were shown to their owner only
        assert any("Behind your screen" in t for t in fake.all_private_texts())
        assert not any("Behind your screen" in t for t in fake.all_public_texts())
        check_private(fake)
        assert fake.violations == [], fake.violations
    finally:
        bot.stop()
        fake.stop()


def test_faults_mid_game():
    """Connection faults and REST errors in the middle of a game lose and
    double nothing."""
    fake, bot = start(fake_kw={"heartbeat_interval_ms": 700},
                      extra_env={"DISCORD_GUILD_ID": GUILD})
    fake.channel_rate = (25, 1.0)
    try:
        fake.wait_ready(10)
        fake.wait_commands(scope=GUILD)
        ps = [user(fake, i) for i in (1, 2, 3)]
        users = {p["id"]: p for p in ps}
        lobby(fake, ps)
        rng = random.Random(9)
        seen = {"resumed": 0, "identified": 1}

        def faults(step, board):
            if step == 3:
                # the connection drops; a command sent meanwhile is replayed
                fake.drop_connection()
                seen["resumed"] += 1
                fake.wait_resumed(seen["resumed"], timeout=15)
            elif step == 6:
                fake.send_reconnect()
                seen["resumed"] += 1
                fake.wait_resumed(seen["resumed"], timeout=15)
            elif step == 9:
                fake.invalid_session(resumable=False)
                seen["identified"] += 1
                fake.wait_identified(seen["identified"], timeout=15)
            elif step == 12:
                fake.withhold_acks(1)
                seen["resumed"] += 1
                fake.wait_resumed(seen["resumed"], timeout=15)
                closes = fake.client_closes()
                assert closes and closes[-1] not in (1000, 1001), closes
            elif step == 15:
                fake.fail_next("POST", r"^/channels/\d+/messages$", 429, retry_after=1.0)
            elif step == 18:
                fake.fail_next("POST", r"^/channels/\d+/messages$", 502)
            elif step == 21:
                fake.fragment_dispatches(True)
            elif step == 24:
                fake.fragment_dispatches(False)

        steps, bs = play_to_end(fake, users, rng, hook=faults, db=bot.db)
        assert steps > 24, steps
        check_boards(bs, bot.db)
        fired = [f for f in fake.faults_fired]
        assert any("429" in str(f) for f in fired), fired
        assert any("502" in str(f) for f in fired), fired
        # the injected 429 was honoured: the next try on that route came a
        # second or more later (the fake also flags an early retry)
        f429 = [f for f in fired if f.status == 429][0]
        later = [r for r in fake.requests if r.method == "POST" and r.path == f429.path
                 and r.t > f429.t]
        assert later and later[0].t - f429.t >= 0.95, ("retried after", later[0].t - f429.t)
        check_private(fake)
        assert fake.violations == [], fake.violations
    finally:
        bot.stop()
        fake.stop()


def test_disconnected_command_replayed():
    """A move sent while the bot is away arrives on Resume, exactly once."""
    fake, bot = start()
    try:
        fake.wait_ready(10)
        ps = [user(fake, i) for i in (1, 2)]
        lobby(fake, ps)
        b = boards(fake)[-1]
        who = {p["id"]: p for p in ps}[awaited(b)[0]]
        choice = complete(fake, who)[0]
        fake.drop_connection()
        h = fake.command(who, CHAN, "play", {"move": choice["value"]})
        fake.wait_resumed(1, timeout=15)
        h.wait_response(timeout=10)
        wait_boards(fake, 2)
        time.sleep(0.5 * SLOW)
        assert len(boards(fake)) == 2, "the move was applied twice or not at all"
        assert fake.violations == [], fake.violations
    finally:
        bot.stop()
        fake.stop()


def test_stale_and_foreign_clicks():
    """Clicks on an old board or menu, on someone else's menu, by a player
    who is not awaited or by an outsider change nothing and are refused
    privately."""
    fake, bot = start()
    try:
        fake.wait_ready(10)
        ps = [user(fake, i) for i in (1, 2)]
        outsider = user(fake, 9, "lurker")
        users = {p["id"]: p for p in ps}
        lobby(fake, ps)
        # Fortuna's setup awaits both (a card reserved at once): past it,
        # one player is awaited and the other has nothing to decide
        for p in ps:
            cmd(fake, p, "play", {"move": "1"})
        wait_boards(fake, 3)
        n0 = len(boards(fake))
        old = boards(fake)[-1]
        who = users[awaited(old)[0]]
        other = [p for p in ps if p is not who][0]
        msg, sel = menu(fake.click(who, CHAN, old, button(old, "moves")))
        assert sel is not None, "the awaited player's My moves should carry a select"
        value = sel["options"][0]["value"]
        # the seated player who is not awaited has no moves, so no menu
        _, none = menu(fake.click(other, CHAN, old, button(old, "moves")))
        assert none is None
        # someone else's menu, clicked by a seated player and by an outsider
        for p in (other, outsider):
            h = fake.click(p, CHAN, msg, sel["custom_id"], values=[value])
            assert all(e for _, e in texts(h)) and "someone else" in one_text(h), one_text(h)
        # a menu forged in the name of the player who is not awaited
        forged = sel["custom_id"].rsplit(":", 1)[0] + ":" + other["id"]
        h = fake.click(other, CHAN, msg, forged, values=[value])
        assert all(e for _, e in texts(h)), texts(h)
        time.sleep(0.2 * SLOW)
        assert len(boards(fake)) == n0, "a foreign click changed the game"
        # the awaited player moves; the old menu is now stale
        cmd(fake, who, "play", {"move": complete(fake, who)[0]["value"]})
        wait_boards(fake, n0 + 1)
        h = fake.click(who, CHAN, msg, sel["custom_id"], values=[value])
        m = one_text(h)
        assert all(e for _, e in texts(h)) and ("out of date" in m or "not your turn" in m.lower()
                                                or "waiting" in m.lower()), m
        nxt = users[awaited(boards(fake)[-1])[0]]
        h = fake.click(nxt, CHAN, old, button(old, "hand"))
        assert "out of date" in one_text(h)
        # forged and garbage custom_ids
        h = fake.click(nxt, CHAN, old, "t1:play:999:1", values=["x"])
        assert "over" in one_text(h) or "not" in one_text(h)
        h = fake.click(nxt, CHAN, old, "garbage")
        assert all(e for _, e in texts(h))
        time.sleep(0.3 * SLOW)
        assert len(boards(fake)) == n0 + 1
        assert fake.violations == [], fake.violations
    finally:
        bot.stop()
        fake.stop()


def pictured(fake, m, timeout=10):
    """m once its picture came: a board's text goes at once, and its
    picture, painted off the event loop, is added to that message by an
    edit (docs/pictures.md, "Discord")."""
    fake._wait(lambda: picture_text(fake.message(m["id"]) or {}), timeout,
               lambda: "no picture came to message %s: %r" % (m["id"], fake.message(m["id"])))
    return fake.message(m["id"])


def with_picture(h, timeout=5):
    """The final messages of interaction h once one carries a picture (an
    answer's picture follows its text, by an edit or a follow-up)."""
    return h.wait_final(lambda ms: any(picture_text(x) for x in ms), timeout)


def attachment_png(m):
    """(info, bytes) of m's one picture (tests/fakes/pngread.py)."""
    pngs = [a for a in m.get("attachments") or [] if a.get("png_b64")]
    assert len(pngs) == 1, m
    data = base64.b64decode(pngs[0]["png_b64"])
    info = pngread.png_info(data)
    assert (info["width"], info["height"]) == (pngs[0]["width"], pngs[0]["height"])
    return info, data


def test_boards_come_as_pictures():
    """On Discord a board is a picture by default: the message says what
    happened and who is asked, the board itself is a PNG attached to it
    (1000 pixels wide, decoding whole, its texts those of the text board),
    with the My hand / My moves buttons and a Text button that answers
    with the text board privately; My hand answers with the private
    picture, ephemerally, and nothing of it reaches the channel.  `game
    settings board text|both` changes the room's boards at once, for
    anyone seated; `/board form:image` posts a picture whatever the room's
    setting; an idempotency nonce rides on the picture's post too.  The
    picture follows its text: an edit of the same message adds it."""
    fake, bot = start()
    try:
        fake.wait_ready(10)
        ps = [user(fake, i) for i in (1, 2)]
        board = lobby(fake, ps, game="gtr")[-1]
        assert "Glory to Rome" not in board["content"], board["content"]
        assert "Waiting for" in board["content"], board["content"]
        board = pictured(fake, board)
        info, data = attachment_png(board)
        assert info["width"] == 1000 and 300 < info["height"] < 8000, info
        assert info["text"].startswith("Glory to Rome: turn 1\n"), info["text"][:200]
        assert "Pool" in info["text"] and "Sites in town/out of town" in info["text"]
        w, h, rows = pngread.png_pixels(data)
        assert (w, h) == (info["width"], info["height"])
        assert rows[2][2] == (0xF3, 0xEC, 0xDC), rows[2][2]     # the page's parchment
        m = [x for x in fake.channel_messages(CHAN) if x["id"] == board["id"]][0]
        assert m.get("nonce"), "the picture's post carries the outbox's nonce"
        # Text: the text board, to the clicker alone
        hx = fake.click(ps[1], CHAN, board, button(board, "text"))
        t = texts(hx)
        assert all(e for _, e in t) and "Glory to Rome: turn 1" in t[0][0], t
        assert "Sites in town/out of town" in "\n".join(c for c, _ in t)
        # My hand: the private picture, ephemeral
        hh = fake.click(ps[0], CHAN, board, button(board, "hand"))
        ms = with_picture(hh)
        assert all(x["ephemeral"] for x in ms), ms
        pinfo, _ = attachment_png(ms[-1])
        assert pinfo["text"].startswith("Glory to Rome: your hand\n"), pinfo["text"][:200]
        pub = "\n".join(fake.all_public_texts())
        assert "your hand" not in pub and "Your hand" not in pub
        # the room chooses text: no picture, the text board in the message
        h2 = cmd(fake, ps[1], "game", {"key": "board", "value": "text"}, sub="settings")
        assert "now come as text" in one_text(h2), one_text(h2)
        hb = cmd(fake, ps[0], "board")
        ms = texts_msgs(hb)
        assert not any(x.get("attachments") for x in ms), ms
        assert "Glory to Rome: turn 1" in ms[0]["content"]
        # both: the text board and the picture
        cmd(fake, ps[0], "game", {"key": "board", "value": "both"}, sub="settings")
        ms = with_picture(cmd(fake, ps[0], "board"))
        assert "Glory to Rome: turn 1" in "\n".join(x["content"] for x in ms)
        assert sum(1 for x in ms if picture_text(x)) == 1, ms
        # a picture on demand, in a text room
        cmd(fake, ps[0], "game", {"key": "board", "value": "text"}, sub="settings")
        ms = with_picture(cmd(fake, ps[1], "board", {"form": "image"}))
        assert not ms[-1]["ephemeral"] and picture_text(ms[-1]).startswith("Glory to Rome"), ms
        assert fake.violations == [], fake.violations
    finally:
        bot.stop()
        fake.stop()


def test_move_menu_only_ephemeral():
    """The select of moves comes only in the private answer to My moves or
    /moves, lists exactly the player's moves (those /play completes), names
    the position and the player, and never reaches a public message."""
    fake, bot = start()
    try:
        fake.wait_ready(10)
        ps = [user(fake, i) for i in (1, 2)]
        users = {p["id"]: p for p in ps}
        lobby(fake, ps)
        rng = random.Random(4)
        mark = 0
        for step in range(6):
            board = wait_boards(fake, step + 1)[-1]
            mark = scan(fake, bot.db, mark)
            ids = custom_ids(board)
            # My hand, My moves, and Text under a board sent as a picture
            # (which follows its text: an edit adds it)
            if any(i.split(":")[1] == "text" for i in ids):
                board = pictured(fake, board)
            assert sorted(i.split(":")[1] for i in ids) == (
                ["hand", "moves", "text"] if picture_text(board) else ["hand", "moves"]), ids
            who = users[awaited(board)[0]]
            _, pos, ver = button(board, "moves").split(":")[1:]
            for way in ("button", "command"):
                h = (fake.click(who, CHAN, board, button(board, "moves")) if way == "button"
                     else cmd(fake, who, "moves"))
                msg, sel = menu(h)
                assert sel is not None, (way, texts(h))
                assert msg["ephemeral"]
                assert sel["custom_id"] == "t1:play:%s:%s:%s" % (pos, ver, who["id"]), sel
                want = [c["value"] for c in complete(fake, who)]
                assert [o["value"] for o in sel["options"]] == want, (sel["options"], want)
            value = choose(rng, [o["value"] for o in sel["options"]])
            fake.click(who, CHAN, msg, sel["custom_id"], values=[value]).wait_response(timeout=5)
            wait_boards(fake, step + 2)
        no_public_menu(fake)
        check_private(fake)
        assert fake.violations == [], fake.violations
    finally:
        bot.stop()
        fake.stop()


def registered_games(fake):
    """The games the binary registers (the choices of /game new), so a game
    added later is played here without a change to this file."""
    game = [c for c in fake.wait_commands() if c["name"] == "game"][0]
    new = [o for o in game["options"] if o["name"] == "new"][0]
    opt = [o for o in new["options"] if o["name"] == "game"][0]
    return [c["value"] for c in opt["choices"]]


def scan_catches(fake, db, mark):
    """The scan's own test: a secret of the game just started, put in each
    kind of public payload in turn (text, embed, button, menu option and
    placeholder, attachment), is found.  Returns the mark past them."""
    mark = scan(fake, db, mark, " before the canaries")
    secret = sorted(hidden.secrets_now(db))[0]
    canaries = [
        ({"content": "x " + secret}, None),
        ({"embeds": [{"title": "t", "fields": [{"name": "n", "value": secret}]}]}, None),
        ({"components": [{"type": 1, "components": [{"type": 2, "style": 2, "label": secret,
                                                     "custom_id": "c"}]}]}, None),
        ({"components": [{"type": 1, "components": [{"type": 3, "custom_id": "c",
                                                     "options": [{"label": "l",
                                                                  "value": secret}]}]}]},
         None),
        ({"components": [{"type": 1, "components": [{"type": 3, "custom_id": "c",
                                                     "placeholder": secret,
                                                     "options": [{"label": "l",
                                                                  "value": "v"}]}]}]},
         None),
        ({"content": "see the file"}, "line\n" + secret + "\n"),
        # a picture whose texts (its Description) name the secret
        ({"content": "see the picture"}, pngread.make_png(4, 3, "Pool\n" + secret + "\n")),
    ]
    for body, f in canaries:
        body = dict(body, allowed_mentions={"parse": []})
        st, _ = fake.post_as_bot(CANARY, body, f)
        assert st == 200, st
        try:
            scan(fake, db, mark)
        except AssertionError:
            pass
        else:
            raise AssertionError("the scan missed %r in %r" % (secret, body))
        mark = fake.public_mark()
    return mark


@harness.whole_game_scan
def test_public_payloads_hide_every_secret():
    """Whole games of every registered game through Discord: after every
    step, every public payload since the previous one (content, embeds,
    buttons, menus, attachments, edits) is scanned for every secret of the
    games in play at that moment."""
    fake, bot = start()
    fake.channel_rate = (50, 1.0)
    try:
        fake.wait_ready(10)
        games = registered_games(fake)
        assert "fortuna" in games and "gtr" in games, games
        routes = dict(ROUTES)
        for n, game in enumerate(games):
            chan = "7000000000000001%02d" % n
            # three people and an AI seat (its moves are committed and
            # shown with the human's, a path of its own)
            humans = [user(fake, 10 * n + i) for i in range(3)]
            users = {p["id"]: p for p in humans}
            mark = fake.public_mark()
            global CHAN
            saved, CHAN = CHAN, chan
            try:
                cmd(fake, humans[0], "game", {"game": game}, sub="new")
                for p in humans[1:]:
                    cmd(fake, p, "game", sub="join")
                cmd(fake, humans[0], "game", sub="addbot")  # a game for 3 only says no
                cmd(fake, humans[0], "game", sub="start")
                if n == 0:
                    mark = scan_catches(fake, bot.db, mark)
                steps, bs = play_to_end(fake, users, random.Random(n + 1), db=bot.db,
                                        game=game, mark=mark, limit=2000)
                assert steps > 10 and is_over(bs[-1]), (game, steps)
            finally:
                CHAN = saved
        no_public_menu(fake)
        # the boards came as pictures, and the scans read them
        pictures = [m for c in range(len(games))
                    for m in fake.channel_messages("7000000000000001%02d" % c) if picture_text(m)]
        assert len(pictures) > 10 * len(games), len(pictures)
        # both ways of moving were taken, the private select most
        assert ROUTES["select"] - routes["select"] > 100, ROUTES
        assert ROUTES["play"] - routes["play"] > 50, ROUTES
        assert fake.violations == [], fake.violations
    finally:
        bot.stop()
        fake.stop()


OPTIONS_RE = re.compile(r"Options of [^:]+: (.*)\.$")


def test_every_option_through_slash_commands():
    """Every documented option of every registered game, typed in /game
    new's options field as documented, in capitals and with '_' for '-',
    opens a lobby with that option; an unknown one is refused privately
    with the game's list (which this test reads, so a game added later is
    covered)."""
    fake, bot = start()
    try:
        fake.wait_ready(10)
        p = user(fake, 1)
        seen = 0
        for g in registered_games(fake):
            h = cmd(fake, p, "game", {"game": g, "options": "zzz"}, sub="new")
            t = one_text(h)
            assert all(e for _, e in texts(h)) and 'Unknown option "zzz"' in t, t
            m = OPTIONS_RE.search(t)
            words = [w.strip() for w in m.group(1).split(",")] if m else []
            assert m or "has no options" in t, t
            for w in words:
                for form in (w, w.upper(), w.replace("-", "_")):
                    h = cmd(fake, p, "game", {"game": g, "options": form}, sub="new")
                    t = one_text(h)
                    assert "Options: %s" % w in t, (form, t)
                    cmd(fake, p, "game", sub="abort")
                    seen += 1
        assert seen >= 3 * 5, seen     # gtr's four, fortuna's draft, and more later
        # two options at once, as one string
        h = cmd(fake, p, "game", {"game": "gtr", "options": "Original-Circus  nofunctions"},
                sub="new")
        assert "Options: original-circus nofunctions" in one_text(h), one_text(h)
        assert fake.violations == [], fake.violations
    finally:
        bot.stop()
        fake.stop()


def test_rematch_button():
    """A finished game's last board offers `rematch` (its line and a
    Rematch button, nothing else to click); a player's click opens the
    lobby with the AI seat back and pings exactly the other player, the
    other player's click seats them, and a stranger's click is refused,
    changing nothing.  `/rematch` is registered with its es-ES name."""
    fake, bot = start()
    fake.channel_rate = (50, 1.0)
    try:
        fake.wait_ready(10)
        reg = [c for c in fake.wait_commands() if c["name"] == "rematch"]
        assert reg and reg[0].get("name_localizations", {}).get("es-ES") == "revancha", reg
        ana, ben, zed = user(fake, 1), user(fake, 2), user(fake, 3)
        users = {p["id"]: p for p in (ana, ben)}
        cmd(fake, ana, "game", {"game": "fortuna"}, sub="new")
        cmd(fake, ben, "game", sub="join")
        cmd(fake, ana, "game", {"count": 1}, sub="addbot")
        cmd(fake, ana, "game", sub="start")
        wait_boards(fake, 1)
        _, bs = play_to_end(fake, users, random.Random(3), db=bot.db)
        final = bs[-1]
        # (the bot's own backticks are escaped in the text, as everywhere)
        assert re.search(r"^Play again: \\?`rematch\\?`$", final["content"], re.M), \
            final["content"][-300:]
        ids = custom_ids(final)
        assert len(ids) == 1 and re.fullmatch(r"t1:rematch:\d+:0", ids[0]), ids
        for b in bs[:-1]:
            assert not any(i.startswith("t1:rematch:") for i in custom_ids(b)), custom_ids(b)
        rematch = ids[0]
        # a stranger: refused privately, nothing opened
        h = fake.click(zed, CHAN, final, rematch)
        got = texts(h)
        assert all(e for _, e in got) and "Only the players" in got[0][0], got
        h = cmd(fake, ben, "game", sub="status")
        assert "finished" in one_text(h), one_text(h)
        # ben opens it: public, ana pinged and nobody else
        h = fake.click(ben, CHAN, final, rematch)
        body = h.wait_response(timeout=5)
        data = body["data"]
        assert not data.get("flags", 0) & 64, data
        assert "Rematch!" in data["content"] and "<@%s>" % ana["id"] in data["content"], data
        assert re.search(r"Seats \(2 of [^)]*\): player2, AI 1 \(AI\)", data["content"]), data
        am = data["allowed_mentions"]
        assert am.get("parse") == [] and am.get("users") == [ana["id"]], am
        # ana's click takes her seat; a stranger's is still refused
        h = fake.click(ana, CHAN, final, rematch)
        assert "Seats (3 of" in one_text(h), one_text(h)
        h = fake.click(zed, CHAN, final, rematch)
        got = texts(h)
        assert all(e for _, e in got) and "Only the players" in got[0][0], got
        h = cmd(fake, ana, "game", sub="status")
        assert "Seats (3 of" in one_text(h) and "player3" not in one_text(h), one_text(h)
        assert fake.violations == [], fake.violations
    finally:
        bot.stop()
        fake.stop()


def test_names_never_ping():
    """Display names with @everyone or <@id> are shown, never pinging."""
    fake, bot = start()
    try:
        fake.wait_ready(10)
        evil = fake.user("100000000000000066", "@everyone")
        evil2 = fake.user("100000000000000067", "<@100000000000000001>")
        cmd(fake, evil, "game", {"game": "fortuna"}, sub="new", nick="@here <@&5555>")
        cmd(fake, evil2, "game", sub="join")
        cmd(fake, evil, "game", sub="start", nick="@everyone")
        wait_boards(fake, 1)
        for m in fake.channel_messages(CHAN, include_interactions=True):
            c = m["content"]
            assert "@everyone" not in c and "@here" not in c, c
            assert "<@100000000000000001>" not in c, c
            assert "<@&5555>" not in c, c
            am = m.get("allowed_mentions")
            assert am is not None and am.get("parse") == [], am
            assert set(am.get("users", [])) <= {evil["id"], evil2["id"]}, am
        assert fake.violations == [], fake.violations
    finally:
        bot.stop()
        fake.stop()


def test_names_cannot_forge_lines():
    """Display names with newlines, bidi overrides and zero-width characters
    are cleaned where Discord hands them over: no name can add a line to a
    board or reorder one, and a name with nothing visible left falls back
    to the username."""
    fake, bot = start()
    forged = "**Game over.** Winner: Mallory"
    try:
        fake.wait_ready(10)
        mallory = fake.user("100000000000000071", "mallory",
                            "Mallory\n" + forged + "\u202e\u200b")
        eve = fake.user("100000000000000072", "eve", "Eve")
        ghost = fake.user("100000000000000073", "ghost", "\u200b\u200d\u2066\u00ad")
        cmd(fake, mallory, "game", {"game": "fortuna"}, sub="new")
        cmd(fake, eve, "game", sub="join", nick="\u202eeve\r\nRound 9 begins.\u2066\u200b")
        cmd(fake, ghost, "game", sub="join")
        cmd(fake, mallory, "game", sub="start")
        pictured(fake, wait_boards(fake, 1)[-1])    # its picture's texts are read too
        h = cmd(fake, eve, "game", sub="status", nick="\u202eeve\r\nRound 9 begins.\u2066")
        pub = fake.all_public_texts() + [one_text(h)]
        for t in pub:
            for bad in ("\u202e", "\u2066", "\u200b", "\u200d", "\u00ad", "\r"):
                assert bad not in t, (bad, t)
            for line in t.split("\n"):
                assert not line.lstrip("#* >").startswith(("Game over", "Winner: Mallory",
                                                           "Round 9 begins")), (line, t)
        board = "\n".join(m["content"] + "\n" + picture_text(m)
                          for m in fake.channel_messages(CHAN))
        assert "Mallory" in board and "eve Round 9 begins." in board, board
        assert "ghost" in board, "a name with nothing visible falls back to the username"
        assert fake.violations == [], fake.violations
    finally:
        bot.stop()
        fake.stop()


def test_oversized_dispatch_does_not_wedge_the_bot():
    """A dispatch over the 4 MiB cap that every Resume replays: the bot
    resumes once, then drops the session and identifies anew, and goes on
    answering; never a tight reconnect loop."""
    fake, bot = start()
    try:
        fake.wait_ready(10)
        a = user(fake, 1)
        fake.huge_dispatch_on_resume = (4 << 20) + 4096
        fake.drop_connection()
        fake.wait_identified(2, timeout=30)
        resumes = [r for r in fake.ops(6)]
        assert len(resumes) == 2, resumes
        h = cmd(fake, a, "help")
        assert "game new" in one_text(h)
        conns = fake.connections
        assert conns == 4, conns     # the first, two resumes, one identify
        time.sleep(2 * SLOW)
        assert fake.connections == conns, "the bot kept reconnecting"
        assert fake.violations == [], fake.violations
        log = bot.stop()
        assert "identifying anew" in log, log[-2000:]
    finally:
        if bot.proc.poll() is None:
            bot.stop()
        fake.stop()


def identify_times(fake):
    return [r.t for r in fake.ops(2)]


def test_invalid_session_loop_is_paced():
    """Discord answering every Identify with Invalid Session: Identifies
    stay 5 s apart or more, the gap growing, instead of ~18 a minute."""
    fake = FakeDiscord(token=TOKEN).start()
    fake.refuse_identify = True
    bot = Bot(fake)
    try:
        fake._wait(lambda: identify_times(fake), 10, "no Identify")
        # in the 12 s after the first: the second 5-7.5 s later, the third
        # no sooner than 10 s after that (the old code sent 3 or 4)
        time.sleep(max(0.0, identify_times(fake)[0] + 12 - time.monotonic()))
        ts = identify_times(fake)
        assert len(ts) == 2, ts
        gaps = [b - a for a, b in zip(ts, ts[1:])]
        assert all(g >= 4.9 for g in gaps), gaps
        assert fake.session_start_limit["remaining"] == 999 - len(ts)
        assert bot.proc.poll() is None, "the bot stopped"
        assert fake.violations == [], fake.violations
        log = bot.stop()
        assert "got no READY" in log, log[-2000:]
    finally:
        if bot.proc.poll() is None:
            bot.stop()
        fake.stop()


def test_session_budget_reserve_stops_the_bot():
    """session_start_limit from GET /gateway/bot: the bot never spends the
    last tenth of the day's Identifies; it stops with exit 25 and says why."""
    for remaining, identifies in ((101, 1), (100, 0)):
        fake = FakeDiscord(token=TOKEN).start()
        fake.refuse_identify = True
        fake.session_start_limit["remaining"] = remaining
        bot = Bot(fake)
        try:
            rc = bot.proc.wait(timeout=20 * SLOW)
            assert rc == 25, rc
            assert len(identify_times(fake)) == identifies, identify_times(fake)
            log = bot.stop(expect=25)
            assert "100 of the day's 1000 session starts" in log, log[-2000:]
            assert fake.violations == [], fake.violations
        finally:
            if bot.proc.poll() is None:
                bot.stop(expect=25)
            fake.stop()


def moves_stored(db):
    con = sqlite3.connect("file:%s?mode=ro" % db, uri=True, timeout=10)
    try:
        return con.execute("SELECT count(*) FROM actions").fetchone()[0]
    finally:
        con.close()


def test_full_rest_queue_refuses_moves_and_recovers():
    """Back-pressure: while Discord takes the channel's posts slower than
    moves come, the request queue fills to its bound; then commands are
    answered "try again" and change nothing, the busy state is logged once,
    and once Discord catches up every board arrives and play goes on."""
    fake, bot = start(extra_env={"DISCORD_REST_QUEUE": "16"})
    try:
        fake.wait_ready(10)
        ps = [user(fake, i) for i in (1, 2)]
        fake.channel_rate = (1, 3.0)    # Discord slower than the moves
        lobby(fake, ps)
        rng = random.Random(2)
        busy = None
        for _ in range(40):
            mover = None
            for p in ps:
                ch = complete(fake, p)
                if ch:
                    mover, value = p, choose(rng, [c["value"] for c in ch])
                    break
            if mover is None:       # busy: autocompletion offers nothing
                mover, value = ps[0], "x"
            n = moves_stored(bot.db)
            h = cmd(fake, mover, "play", {"move": value})
            if "Try again in a minute" in one_text(h):
                busy = n
                assert all(e for _, e in texts(h))
                break
        assert busy is not None and busy >= 5, busy
        assert moves_stored(bot.db) == busy, "a refused command changed the game"
        fake.channel_rate = (50, 1.0)
        wait_boards(fake, busy + 1, timeout=20)
        time.sleep(0.5 * SLOW)
        h = cmd(fake, ps[0], "game", sub="status")
        assert "Try again" not in one_text(h), one_text(h)
        assert len(boards(fake)) == busy + 1, (len(boards(fake)), busy)
        assert fake.violations == [], fake.violations
        log = bot.stop()
        assert log.count("requests wait for Discord") == 1, log[-3000:]
        assert log.count("request queue drained") == 1, log[-3000:]
    finally:
        if bot.proc.poll() is None:
            bot.stop()
        fake.stop()


def test_channel_without_attach_files_gets_boards_without_pictures():
    """A server that invited the bot without Attach Files (the invite URL
    of earlier versions): Discord refuses the board's picture with 403
    50013 (the edit that adds it to the board's message); the board's
    message stays as its text went, with its buttons (Text shows the
    board), a log line names the channel, and nothing is lost."""
    fake, bot = start()
    try:
        fake.wait_ready(10)
        fake.no_attach_channels.add(CHAN)
        ps = [user(fake, i) for i in (1, 2)]
        board = lobby(fake, ps, game="gtr")[-1]
        fake._wait(lambda: fake.attach_refusals, 10, "the fake never refused a picture")
        board = fake.message(board["id"])
        assert not board.get("attachments"), board
        assert "Waiting for" in board["content"], board["content"]
        hx = fake.click(ps[1], CHAN, board, button(board, "text"))
        t = texts(hx)
        assert "Glory to Rome: turn 1" in t[0][0] and t[0][1], t
        fake._wait(lambda: "refuses the bot's attachments" in bot.stderr(), 10,
                   lambda: "no log line")
        assert fake.violations == [], fake.violations
    finally:
        bot.stop()
        fake.stop()


def test_dm_notifications_and_refusal():
    """DMs only to players who asked; a refused DM becomes a channel
    mention with the buttons, never the private text nor its picture."""
    fake, bot = start()
    try:
        fake.wait_ready(10)
        a, b, c = (user(fake, i) for i in (1, 2, 3))
        fake.refuse_dm_users = {c["id"]}
        cmd(fake, a, "game", {"game": "fortuna"}, sub="new")
        cmd(fake, b, "game", sub="join")
        cmd(fake, c, "game", sub="join")
        h = cmd(fake, b, "game", {"key": "dm", "value": "on"}, sub="settings")
        assert "on" in one_text(h) and texts(h)[0][1]
        cmd(fake, c, "game", {"key": "dm", "value": "on"}, sub="settings")
        cmd(fake, a, "game", sub="start")
        users = {p["id"]: p for p in (a, b, c)}
        rng = random.Random(1)

        def fallback_seen():
            return any(c["id"] in m["content"] and "direct messages" in m["content"]
                       for m in fake.channel_messages(CHAN))

        # play until b and c have both had something private to hear
        for step in range(60):
            if fake.dm_messages(b["id"]) and fallback_seen():
                break
            play_one(fake, users, step, rng, wait_boards(fake, step + 1)[-1])
            wait_boards(fake, step + 2)
        fake.wait_dm(b["id"], timeout=5)
        fake._wait(fallback_seen, 5, lambda: "no DM fallback for the refusing player")
        fb = [m for m in fake.channel_messages(CHAN) if "direct messages" in m["content"]][0]
        assert fb["allowed_mentions"].get("users") == [c["id"]], fb["allowed_mentions"]
        assert any(i.startswith("t1:hand:") for i in custom_ids(fb))
        # the private view came as a picture where DMs go, and the refused
        # player's picture was dropped, never posted in the channel
        fake._wait(lambda: any(picture_text(m) for m in fake.dm_messages(b["id"])), 10,
                   lambda: fake.dm_messages(b["id"]))
        assert not any(m.get("attachments") for m in fake.channel_messages(CHAN)
                       if c["id"] in m["content"] and "direct messages" in m["content"]), fb
        assert not fake.dm_messages(a["id"]), "a got DMs without asking"
        check_private(fake)
        assert fake.violations == [], fake.violations
    finally:
        bot.stop()
        fake.stop()


def test_late_interaction_deferred():
    """An interaction that reaches the bot late is deferred, then edited."""
    fake, bot = start()
    try:
        fake.wait_ready(10)
        a = user(fake, 1)
        h = fake.command(a, CHAN, "help", age_ms=2000)
        body = h.wait_response(timeout=5)
        assert body["type"] == 5, body
        h.wait_edits(1, timeout=5)
        assert "game new" in one_text(h)
        assert fake.violations == [], fake.violations
    finally:
        bot.stop()
        fake.stop()


def test_restart_keeps_game():
    """The bot restarts mid-game; the game goes on from the store."""
    fake, bot = start()
    db = bot.db
    bot2 = None
    try:
        fake.wait_ready(10)
        ps = [user(fake, i) for i in (1, 2)]
        users = {p["id"]: p for p in ps}
        lobby(fake, ps)
        rng = random.Random(3)
        for step in range(4):
            play_one(fake, users, step, rng, wait_boards(fake, step + 1)[-1])
        wait_boards(fake, 5)
        bot.stop()
        time.sleep(1.1)     # the new process cannot know the channel's bucket
        bot2 = Bot(fake, db=db)
        fake.wait_identified(2, timeout=15)
        board = boards(fake)[-1]
        h = play_one(fake, users, 4, rng, board)
        assert all(e for _, e in texts(h))
        wait_boards(fake, 6)
        assert fake.violations == [], fake.violations
    finally:
        if bot2:
            bot2.stop()
        elif bot.proc.poll() is None:
            bot.stop()
        fake.stop()


def test_bad_token_exits():
    """A token Discord refuses ends the bot with the documented status."""
    fake = FakeDiscord(token="the-right-token").start()
    bot = Bot(fake)     # sends TOKEN, which the fake does not know
    try:
        rc = bot.proc.wait(timeout=20 * SLOW)
        assert rc == 14, rc
    finally:
        bot.stop(expect=14)
        fake.stop()


def test_reminder_and_locale():
    """A room opened from a Spanish client plays in Spanish; after 25 idle
    hours (fake clock) a reminder pings exactly the awaited players (both:
    Fortuna's setup asks everybody at once)."""
    clock = os.path.join(tempfile.mkdtemp(prefix="tabula-clock-"), "now")
    with open(clock, "w") as f:
        f.write("1700000000")
    fake, bot = start(extra_env={"TABULA_TEST_CLOCK": clock})
    try:
        fake.wait_ready(10)
        ps = [user(fake, i) for i in (1, 2)]
        h = cmd(fake, ps[0], "game", {"game": "fortuna"}, sub="new", locale="es-ES")
        assert "sala de espera" in one_text(h) or "Asientos" in one_text(h), one_text(h)
        cmd(fake, ps[1], "game", sub="join", locale="en-US")
        cmd(fake, ps[0], "game", sub="start", locale="es-ES")
        board = wait_boards(fake, 1)[-1]
        assert "Esperando a" in board["content"], board["content"][-300:]
        who = awaited(board)
        assert sorted(who) == sorted(p["id"] for p in ps), board["content"][-300:]
        n = len(fake.channel_messages(CHAN))
        with open(clock, "w") as f:
            f.write(str(1700000000 + 25 * 3600))
        bot.proc.send_signal(signal.SIGUSR1)
        fake._wait(lambda: any("Recordatorio" in m["content"]
                               for m in fake.channel_messages(CHAN)[n:]), 10,
                   lambda: "no reminder")
        rem = [m for m in fake.channel_messages(CHAN)[n:] if "Recordatorio" in m["content"]]
        assert len(rem) == 1, rem
        assert sorted(rem[0]["allowed_mentions"].get("users")) == sorted(who), \
            rem[0]["allowed_mentions"]
        assert fake.violations == [], fake.violations
    finally:
        bot.stop()
        fake.stop()


def status_moves(fake, who):
    h = cmd(fake, who, "game", sub="status")
    m = re.search(r"Moves so far: (\d+)", one_text(h))
    return int(m.group(1)) if m else None


def test_kill9_mid_game():
    """kill -9 at random moments of a game: every acknowledged move is kept,
    none is applied twice, and no board is posted twice (outbox re-sends
    carry the same nonce)."""
    fake, bot = start()
    # a new process cannot know the channel's bucket; the 429 it may take is
    # honoured (test_faults_mid_game), but the fake would count it here
    fake.channel_rate = (50, 1.0)
    db = bot.db
    rng = random.Random(11)
    try:
        fake.wait_ready(10)
        ps = [user(fake, i) for i in (1, 2)]
        users = {p["id"]: p for p in ps}
        lobby(fake, ps)
        acked = sent = 0
        identified = 1
        for step in range(40):
            board = boards(fake)[-1]
            if is_over(board):
                break
            who = users[awaited(board)[0]]
            value = choose(rng, [c["value"] for c in complete(fake, who)])
            h = fake.command(who, CHAN, "play", {"move": value})
            sent += 1
            if rng.random() < 0.25:
                time.sleep(rng.choice((0, 0.002, 0.01)))
                bot.proc.send_signal(signal.SIGKILL)
                bot.proc.wait(timeout=10 * SLOW)
                bot.err.close()
                bot = Bot(fake, db=db)
                identified += 1
                fake.wait_identified(identified, timeout=15)
                n = status_moves(fake, ps[0])
                assert acked <= n <= sent, (acked, n, sent)
                acked = sent = n
                time.sleep(0.3 * SLOW)      # re-sent outbox messages land
                continue
            h.wait_response(timeout=5)
            acked = harness.wait_settled(db, acked, what="after move %d" % step)
        time.sleep(0.5 * SLOW)
        n = status_moves(fake, ps[0])
        assert n == harness.store_counts(db)[0]
        # every room message committed posted once, none twice (re-sends
        # after a kill carry the same nonce)
        check_boards(boards(fake), db)
        assert fake.violations == [], fake.violations
    finally:
        bot.stop()
        fake.stop()


def test_bad_input_from_discord():
    """Malformed interactions are ignored; the bot stays up and answers."""
    fake, bot = start()
    try:
        fake.wait_ready(10)
        fake.dispatch("INTERACTION_CREATE", {"id": "nope", "type": 2})
        fake.dispatch("INTERACTION_CREATE", [1, 2, 3])
        fake.dispatch("SOMETHING_NEW", {"x": 1})
        a = user(fake, 1)
        h = cmd(fake, a, "play", {"move": "x" * 90})
        assert all(e for _, e in texts(h))
        h = cmd(fake, a, "help")
        assert "game new" in one_text(h)
        assert fake.violations == [], fake.violations
    finally:
        bot.stop()
        fake.stop()


def seed_ratings(db):
    """Two players rated in Glory to Rome on discord, and player1's rating
    curve: what the commands read (written here as a finished game would
    write it: schema migration 6)."""
    con = sqlite3.connect(db, timeout=10)
    try:
        for pid, name, mu, sigma, games, wins in (
                ("100000000000000001", "player1", 30.0, 2.0, 5, 3.5),
                ("100000000000000002", "player2", 26.0, 2.5, 4, 1.5)):
            con.execute("INSERT INTO ratings VALUES (?, '', 'gtr', ?, ?, ?, ?, ?, ?, ?,"
                        " ?, ?, ?, ?, ?)",
                        ("discord", pid, name, mu, sigma, mu - 3 * sigma, games, wins,
                         games * 2, games * 20, 31, 1, 1700000000))
        for i in range(5):
            con.execute("INSERT INTO rating_history VALUES ('discord', '', 'gtr', ?, ?, ?, ?, ?)",
                        ("100000000000000001", 900 + i, 1700000000 - 86400 * (5 - i),
                         25.0 + i, 8.0 - 1.5 * i))
        con.commit()
    finally:
        con.close()


def test_stats_and_leaderboard_pictures():
    """`stats` answers privately (ephemeral) with its text and a picture
    (the figures and the rating chart); `leaderboard` publicly, a table
    picture with the asker's row; `history` publicly, as text.  Every
    public payload is scanned for the hidden cards of the game in play."""
    fake, bot = start()
    try:
        fake.wait_ready(10)
        bot.stop()
        seed_ratings(bot.db)
        bot = Bot(fake, db=bot.db)
        fake.wait_ready(10)
        ps = [user(fake, i) for i in (1, 2)]
        lobby(fake, ps, game="gtr")
        mark = scan(fake, bot.db, 0)
        ms = with_picture(cmd(fake, ps[0], "stats"))
        assert all(x["ephemeral"] for x in ms), ms
        body = "\n".join(x["content"] for x in ms)
        assert "5 games, 3.5 wins (70%)" in body, body
        pic = [x for x in ms if picture_text(x)]
        assert len(pic) == 1, ms
        info, _ = attachment_png(pic[0])
        assert "player1" in info["text"] and "uncertainty" in info["text"], info["text"]
        assert "3.5 wins" not in "\n".join(fake.all_public_texts())
        ms = with_picture(cmd(fake, ps[1], "leaderboard", {"game": "gtr"}))
        assert not any(x["ephemeral"] for x in ms), ms
        body = "\n".join(x["content"] for x in ms)
        assert body.index("player1") < body.index("player2"), body
        assert "← you" in body, body
        info, _ = attachment_png([x for x in ms if picture_text(x)][0])
        assert "Leaderboard" in info["text"] and "player2" in info["text"], info["text"]
        h = cmd(fake, ps[1], "history", {"count": 3})
        assert "No finished games here yet." in one_text(h), one_text(h)
        scan(fake, bot.db, mark, " after stats and leaderboard")
        assert fake.violations == [], fake.violations
    finally:
        bot.stop()
        fake.stop()


def test_log_of_an_old_game():
    """`/log game:<id>` reads a finished game's log (`log #<id>`): the
    option's number reaches the bot as "#<id>", so that it is not taken
    for a count of lines; with count, its last lines; an unknown number is
    refused; a count alone still means the room's own game.  With web
    pages on, the final board carries the game's link (the first board's),
    and its page tells a finished game that replays from position 0."""
    port = webcheck.free_port()
    fake, bot = start(extra_env=webcheck.env(port))
    fake.channel_rate = (50, 1.0)   # a whole game: the old log is what is tested
    try:
        fake.wait_ready(10)
        ps = [user(fake, i) for i in (1, 2)]
        lobby(fake, ps)
        _, bs = play_to_end(fake, {p["id"]: p for p in ps}, random.Random(7))
        url = discord_link(bs[-1], "the final board")
        assert discord_link(bs[0], "the first board") == url
        state, _ = webcheck.page(port, url)
        assert state["status"] == "finished" and state["positions"] > 20, state
        st, _, body = webcheck.get(port, webcheck.path_of(url, port) + "/state.json?at=0")
        assert st == 200 and json.loads(body)["at"] == 0, body[:200]
        con = sqlite3.connect(bot.db, timeout=10)
        try:
            (sid, status), = con.execute("SELECT id, status FROM sessions WHERE room = ?",
                                         (CHAN,))
        finally:
            con.close()
        assert status == 2, status
        whole = one_text(cmd(fake, ps[0], "log", {"game": sid}))
        assert "Log of #%d" % sid in whole and "The game is over." in whole, whole
        lines = [ln for ln in whole.split("\n") if ln.strip()]
        assert len(lines) >= 2, whole
        last = one_text(cmd(fake, ps[0], "log", {"game": sid, "count": 1}))
        assert "Log of #%d" % sid in last and len(last) < len(whole), (last, whole)
        h = cmd(fake, ps[1], "log", {"game": sid + 1000})
        assert "There is no finished game #%d here." % (sid + 1000) in one_text(h), one_text(h)
        # a count alone is lines of the room's game, not a game's number
        h = cmd(fake, ps[0], "log", {"count": sid})
        assert "Log of #" not in one_text(h) and "The game is over." in one_text(h), one_text(h)
        assert fake.violations == [], fake.violations
    finally:
        bot.stop()
        fake.stop()


def discord_link(m, what):
    """The web link in a Discord message m, checked as Discord renders it:
    a line of its own, outside any code span or block, no escape inside it
    (Discord would take the backslash into the link), a bare URL Discord
    links whole; the message's pings unchanged by it."""
    c = m["content"]
    found = webcheck.links(c)
    assert len(found) == 1, "%s: wanted one link line in %r" % (what, c[-400:])
    url = found[0]
    line = [ln for ln in c.split("\n") if ln.endswith(url)][0]
    before = c[:c.index(line)]
    assert before.count("```") % 2 == 0, "%s: the link is inside a code block" % what
    assert "`" not in line and "\\" not in line and "<" not in line, (what, line)
    assert webcheck.AUTOLINK_RE.search(line).group(0) == url, (what, line)
    am = m.get("allowed_mentions")
    assert am is not None and am.get("parse") == [], (what, am)
    assert all(re.fullmatch(r"\d+", u) for u in am.get("users", [])), (what, am)
    return url


def web_cmd(fake, who, action=None):
    h = cmd(fake, who, "game", {"action": action} if action else None, sub="web")
    return texts_msgs(h)


def test_web_page_of_a_discord_game():
    """TABULA_PUBLIC_URL set: a game started by slash commands posts
    "Watch and replay: <url>" under its first board, a link Discord shows
    as one (not in code, not escaped, no ping added); the page answers
    with the security headers and names the players by their display
    names; its event stream hears a move made on Discord; `game web reset`
    (both humans vote) kills the old link (404, `gone` on the stream) and
    posts a new one; `game web off` (voted) takes the page away.  A room
    opened from a Spanish client posts the Spanish line."""
    port = webcheck.free_port()
    fake, bot = start(extra_env=webcheck.env(port))
    ev = None
    try:
        fake.wait_ready(10)
        ana = fake.user("100000000000000081", "ana_b", "Ana Belén")
        ben = fake.user("100000000000000082", "ben", "Ben")
        NAMES.update({"Ana Belén": ana["id"], "Ben": ben["id"]})
        users = {ana["id"]: ana, ben["id"]: ben}
        board = lobby(fake, [ana, ben])[-1]
        url = discord_link(board, "the first board")
        assert set(board["allowed_mentions"].get("users", [])) <= set(users), \
            board["allowed_mentions"]
        state, html = webcheck.page(port, url)
        assert state["game"] == "fortuna" and state["status"] == "playing", state
        assert sorted(p["name"] for p in state["players"]) == ["Ana Belén", "Ben"], \
            state["players"]
        assert "Ana Belén" in html or "Fortuna" in html, html[:300]
        # a move on Discord reaches the page's viewers
        ev = webcheck.Events(port, url)
        before = state["positions"]
        play_one(fake, users, 1, random.Random(5), board)
        ev.wait("move", lambda d: d["positions"] > before)
        assert webcheck.page(port, url)[0]["positions"] > before
        # the operator sees the pages' traffic and their viewers
        served = webcheck.metric(port, "tabula_http_requests_total", route="g", status="2xx")
        assert served >= 4, served
        assert webcheck.metric(port, "tabula_web_streams") >= 1
        assert webcheck.metric(port, "tabula_http_refused_total", why="rate") == 0
        # a new link: one vote is not enough, the second applies it
        got = web_cmd(fake, ana, "reset")
        assert "1 of 2" in got[0]["content"], got
        webcheck.page(port, url)
        got = web_cmd(fake, ben, "reset")
        pub = [m for m in got if not m["ephemeral"]]
        assert pub, "the new link is told to the room: %r" % got
        new = discord_link(pub[0], "the reset")
        assert new != url
        ev.wait("gone")
        ev.wait_closed()
        webcheck.gone(port, url)
        assert webcheck.page(port, new)[0]["positions"] > before
        # `game web` alone: the link, privately
        got = web_cmd(fake, ben)
        assert got[0]["ephemeral"] and discord_link(got[0], "game web") == new, got
        # off, voted: the new link finds nothing either
        ev.close()
        ev = webcheck.Events(port, new)
        web_cmd(fake, ana, "off")
        webcheck.page(port, new)
        got = web_cmd(fake, ben, "off")
        assert "off" in got[0]["content"] and not webcheck.links(got[0]["content"]), got
        ev.wait("gone")
        webcheck.gone(port, new)
        # a Spanish room: the Spanish line, a link all the same
        es = "700000000000000002"
        fake.command(ana, es, "game", {"game": "gtr"}, sub="new",
                     locale="es-ES").wait_response(timeout=5)
        fake.command(ana, es, "game", {"count": 1}, sub="addbot",
                     locale="es-ES").wait_response(timeout=5)
        fake.command(ana, es, "game", sub="start", locale="es-ES").wait_response(timeout=5)
        m = fake.wait_channel_message(es, lambda m: "Mira y repasa la partida: " in m["content"],
                                      timeout=10, include_interactions=True)
        state, _ = webcheck.page(port, discord_link(m, "the Spanish board"))
        assert state["lang"] == "es" and state["game"] == "gtr", state
        assert fake.violations == [], fake.violations
    finally:
        if ev:
            ev.close()
        bot.stop()
        fake.stop()


if __name__ == "__main__":
    sys.exit(harness.run_tests("discord", sys.modules[__name__], sys.argv))
