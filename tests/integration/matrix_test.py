#!/usr/bin/env python3
"""Matrix integration tests: the real tabula binary against the loopback
fake homeserver (tests/fakes/fake_matrix.py).  Nothing leaves 127.0.0.1.

usage: matrix_test.py ./tabula [test-name ...]
Prints one line per test and "matrix: N passed, M failed"; exit 1 on any
failure.  Each test gets its own fake, store and bot process; the bot's
stderr is checked for the password and the access token.
"""
import importlib.util
import os
import random
import re
import signal
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "fakes"))
sys.path.insert(0, HERE)
import harness  # noqa: E402
from fake_matrix import FakeMatrix  # noqa: E402
from hidden import secrets_now, assert_no_leak  # noqa: E402

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
    return FakeMatrix(bot_password=PASSWORD).start()


NAMES = {}      # display name -> user id, for the boards that do not ping


def players(fake, n, names=("Ana", "Ben", "Cy")):
    ids = [fake.register_user("p%d" % i, names[i]) for i in range(n)]
    for i, u in enumerate(ids):
        NAMES[names[i]] = u
    return ids


def awaited(board):
    """Who the board waits for: pinged (just became awaited) or named."""
    who = list(board["m.mentions"].get("user_ids", []))
    if who:
        return who
    for line in board["body"].split("\n"):
        m = re.match(r"(?:Waiting for|Esperando a) (.+?): ", line)
        if m and m.group(1) in NAMES:
            who.append(NAMES[m.group(1)])
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
    """The move ids of a "Your moves" message newer than the last one used
    for this user (the DM goes out beside the board, not before it).
    The count lives on the fake: a dict keyed by id(fake) would hand a new
    fake the count of an old one that Python freed at the same address."""
    seen = fake.__dict__.setdefault("_moves_seen", {})

    def newer():
        dm = fake.dm_room(user)
        n = sum("Your moves" in m.get("body", "") for m in fake.bot_messages(dm)) if dm else 0
        return n > seen.get(user, 0)
    fake._wait(newer, 10, lambda: "no new moves for %s" % user)
    dm = fake.dm_room(user)
    seen[user] = sum("Your moves" in m.get("body", "")
                     for m in fake.bot_messages(dm))
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


def play_to_end(fake, room, ps, rng, limit=600, hook=None, game="fortuna"):
    step = 0
    before = set()
    while True:
        bs = wait_boards(fake, room, step + 1)
        board = bs[-1]
        if "Game over" in board["body"]:
            return step, bs
        # exactly the players who have just become awaited are mentioned
        now = set(awaited(board))
        pinged = set(board["m.mentions"].get("user_ids", []))
        assert pinged == now - before, ("pinged", pinged, "awaited", now, "before", before)
        before = now
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
        try:
            wait_boards(fake, room, step + 2)
        except AssertionError:
            raise AssertionError("move %d (%s by %s) got no new board; DM: %r" % (
                step, move, uid, [m.get("body", "")[-300:] for m in fake.bot_messages(dm)][-2:]
                if dm else None))
        step += 1
        assert step < limit, "the game did not end"


def check_clean(fake):
    assert fake.violations == [], fake.violations


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
        steps, bs = play_to_end(fake, room, ps, random.Random(7))
        assert steps > 20, steps
        assert len(bs) == steps + 1, (len(bs), steps)
        assert "Winner" in bs[-1]["body"] or "Nobody wins" in bs[-1]["body"]
        for m in fake.bot_messages(room):
            assert "Your moves" not in m.get("body", ""), "private text in the room"
            assert m.get("msgtype") == "m.notice"
        # every DM room is recorded in the bot's m.direct
        direct = fake.account_data(fake.bot_user, "m.direct") or {}
        for p in ps:
            assert fake.dm_room(p) in direct.get(p, []), (p, direct)
        check_clean(fake)
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
            assert_no_leak(public, secrets, " (step %d)" % step)
            checked[0] += bool(secrets)

        steps, bs = play_to_end(fake, room, ps, random.Random(4), hook=no_leak, game="sylla")
        assert steps > 40, steps
        assert checked[0] > 20, checked
        assert "Final scoring" in bs[-1]["body"] and "Winner" in bs[-1]["body"], bs[-1]["body"][-400:]
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
        while step < 6:
            bs = wait_boards(fake, room, step + 1)
            uid = awaited(bs[-1])[0]
            dm = fake.dm_room(uid)
            if dm and uid not in fake.joined_members(dm):
                fake.accept_invite(uid, dm)
            move = make_transcript.pick(rng, fresh_moves(fake, uid), "fortuna")
            if step == 3:
                bot.stop()
                count = len(fake.bot_messages(room))
                fake.say(uid, room, "!play " + move)
                bot2 = Bot(fake, db=bot.db)
                try:
                    wait_boards(fake, room, step + 2)
                except AssertionError:
                    print(bot2.log()[-4000:])
                    print("MOVE", move, "DM", [m.get("body", "")[-200:]
                                              for m in fake.bot_messages(dm)][-3:])
                    for r in fake.requests[-12:]:
                        print("REQ", r.method, r.path[:90], r.status)
                    raise
                time.sleep(1.0 * SLOW)
                # one new board, nothing re-posted from before the restart
                assert len(boards(fake, room)) == step + 2, len(boards(fake, room))
                assert len(fake.bot_messages(room)) - count == 1, texts(fake, room)[count:]
            else:
                fake.say(uid, room, "!play " + move)
                wait_boards(fake, room, step + 2)
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


def test_encrypted_room_left():
    fake = new_fake()
    bot = Bot(fake)
    try:
        ps = players(fake, 1)
        room = fake.create_room(ps[0], encrypted=True)
        fake.invite_bot(room, ps[0])
        fake._wait(lambda: any("encrypted" in t for t in texts(fake, room)), 10,
                   lambda: "no notice in the encrypted room")
        fake._wait(lambda: room not in fake.bot_rooms(), 10, lambda: "the bot stayed")
        assert len(texts(fake, room)) == 1
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
    hours (fake clock) a reminder mentions exactly the awaited player."""
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
        assert len(who) == 1
        n = len(fake.bot_messages(room))
        with open(clock, "w") as f:
            f.write(str(1700000000 + 25 * 3600))
        bot.proc.send_signal(signal.SIGUSR1)
        fake._wait(lambda: any("Recordatorio" in t for t in texts(fake, room)[n:]), 10,
                   lambda: "no reminder: %r" % texts(fake, room)[n:])
        rem = [m for m in fake.bot_messages(room)[n:] if "Recordatorio" in m.get("body", "")]
        assert len(rem) == 1 and rem[0]["m.mentions"]["user_ids"] == who, rem
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
        board = wait_boards(fake, room, 1)[-1]
        idle = [p for p in ps if p not in awaited(board)][0]
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
        assert len(boards(fake, room)) == 1, "the game changed"
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


if __name__ == "__main__":
    sys.exit(harness.run_tests("matrix", sys.modules[__name__], sys.argv))
