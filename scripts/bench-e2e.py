#!/usr/bin/env python3
"""End-to-end command latency: the real ./tabula against the loopback fakes
of Discord and Matrix (tests/fakes/), with 1, 100 and 1000 rooms holding a
game in play (Fortuna, 1 human + 2 AI seats), pictures on (the default).

usage: scripts/bench-e2e.py [./tabula]

The rooms are set up as real traffic has them: each room's game is opened
by its own player (a user may wait in 10 lobbies at once, and one user
opening every room met that cap).

Discord: each player says `/game new fortuna`, `/game addbot 2`, `/game
start` in its channel, up to E2E_DISCORD_IN_FLIGHT interactions at once
(the fake keeps Discord's 41.25 s heartbeat interval here); a sample is a
`/play move:1` (the first legal move; the AI seats answer inside the same
command) by the room's player, from the moment the fake writes the
interaction to the gateway: the text part is the arrival of the first
request of the interaction carrying text (its callback, or after a
deferral its first follow-up or edit), the picture the arrival of the
command's last request uploading a file (to the interaction or to the
channel).

Matrix (one player per room by default, each with a direct chat for the
private views, accepted as people do): every room gets "!game new fortuna",
"!game addbot 2" and "!game start" at once, and the bench waits until the
bot is idle; then a "!play 1" in a room, from the moment the fake has
written the /sync response carrying it: the text part is the request line
of the bot's first PUT .../send that is not a picture, to that room or the
player's direct chat, the picture that of its last m.image.  Before each
sample the bench waits until nothing is in flight and the bot's /sync
long-poll is waiting.

Samples are taken one at a time, in rooms chosen at random; after each the
bench waits until no request has arrived for E2E_PICTURE_QUIET (every
picture of the command in); a finished game is replaced (untimed).  The
picture figures are over the answers that carried a picture (stderr says
how many); none at all fails.

Matrix under a flood of undecryptable events (issue 22, attack 5): 17
accounts in a room of their own, with a lobby open there (so that their
events are held at all), send 40 m.room.encrypted events a second between
them, each with 8 KB of ciphertext under a session nobody has a key for;
meanwhile a player in another room (encrypted, with a lobby) sends
"!game status" from an Olm device, one at a time: from the moment the fake
has written the /sync response carrying it to the moment the request line of
the bot's answer arrives.  Needs python3-olm (tests/integration/olmclient.py,
scripts/deps.sh installs it).

Prints "<name> <value> <unit>" lines only (diagnostics on stderr):
  e2e.discord.<rooms>rooms.text|picture.p50|p99|max  ms
  e2e.matrix.<rooms>rooms.text|picture.p50|p99|max   ms
  e2e.matrix.flood.p50|p99|max                       ms
Knobs (environment):
  E2E_SAMPLES                samples per figure (100; 40 for 1000 rooms)
  E2E_PLATFORMS              "discord,matrix,flood" (the default) or some of them
  E2E_MAX_ROOMS              skip room counts above this (1000; 100 drops the
                             1000-room figures, about 2 of the 4 minutes)
  E2E_PICTURE_QUIET          seconds without a request that end a sample (0.15)
  E2E_DISCORD_IN_FLIGHT      Discord interactions at once during set-up (10)
  E2E_FLOOD_SAMPLES          samples under the flood (100)
  E2E_FLOOD_RATE             undecryptable events a second (40)
  E2E_MATRIX_MAX_ROOMS       skip Matrix room counts above this (1000)
  E2E_MATRIX_ROOMS_PER_USER  rooms per Matrix player (1)
  E2E_MATRIX_SETUP_TIMEOUT   seconds for joining and opening the rooms (300)
Exit 0 when every figure asked for was printed; 1 otherwise (the binary
missing, a set-up refused, the bot silent or misbehaving, no picture), with
the reason and the bot's last log lines on stderr.
"""
import os
import random
import re
import signal
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "tests", "fakes"))
from fake_discord import FakeDiscord  # noqa: E402
from fake_matrix import FakeMatrix  # noqa: E402

BIN = sys.argv[1] if len(sys.argv) > 1 else "./tabula"
ROOMS = [1, 100, 1000]
SAMPLES = int(os.environ.get("E2E_SAMPLES", "100"))
FLOOD_SAMPLES = int(os.environ.get("E2E_FLOOD_SAMPLES", "100"))
FLOOD_RATE = float(os.environ.get("E2E_FLOOD_RATE", "40"))
FLOOD_SENDERS = 17
FLOOD_CIPHER = 8000      # bytes of ciphertext an event (the bot holds up to 8192)
MX_ROOMS = [1, 100, 1000]
# the largest room count measured (1, 100, 1000): 100 leaves out the
# 1000-room figures, most of the bench's time
MAX_ROOMS = int(os.environ.get("E2E_MAX_ROOMS", "1000"))
MX_MAX_ROOMS = min(MAX_ROOMS, int(os.environ.get("E2E_MATRIX_MAX_ROOMS", "1000")))
# one player per room by default, as on a real server (each player gets
# one direct chat with the bot for the private views, and the requests to
# one room go one at a time: a player in many games shares that lane)
MX_ROOMS_PER_USER = max(1, int(os.environ.get("E2E_MATRIX_ROOMS_PER_USER", "1")))
MX_SETUP_TIMEOUT = float(os.environ.get("E2E_MATRIX_SETUP_TIMEOUT", "300"))
# Discord set-up: interactions outstanding at once (each room's own player)
DISCORD_IN_FLIGHT = max(1, int(os.environ.get("E2E_DISCORD_IN_FLIGHT", "10")))
DISCORD_HEARTBEAT_MS = 41250
# after a command, the quiet (no request arriving) that says its pictures
# are all in: then the next sample starts
PICTURE_QUIET = float(os.environ.get("E2E_PICTURE_QUIET", "0.15"))
TOKEN = "bench-token.not-a-secret"
PASSWORD = "bench-password"


# The fake's handler threads share the GIL: a thread woken by the bot's
# request waits for it up to the switch interval (5 ms by default) while
# another thread runs Python; measured as the bot's latency otherwise.
sys.setswitchinterval(0.0005)


def log(*a):
    print(*a, file=sys.stderr, flush=True)


def pct(v, p):
    v = sorted(v)
    return v[min(len(v) - 1, int(p * (len(v) - 1) + 0.5))]


def report(name, v):
    print("%s.p50 %.2f ms" % (name, pct(v, 0.5) * 1e3))
    print("%s.p99 %.2f ms" % (name, pct(v, 0.99) * 1e3))
    print("%s.max %.2f ms" % (name, max(v) * 1e3))
    sys.stdout.flush()
    log("%s: %d samples" % (name, len(v)))


class Answers:
    """One figure's samples: the text part of each answer, and the
    picture (the last picture the command caused, when it caused any)."""

    def __init__(self, name):
        self.name = name
        self.text, self.picture = [], []

    def add(self, t_text, t_picture):
        self.text.append(t_text)
        if t_picture is not None:
            self.picture.append(t_picture)

    def __len__(self):
        return len(self.text)

    def report(self):
        """<name>.text.* and <name>.picture.*; no picture at all fails
        (pictures are the default on Discord and Matrix: a bench that
        printed no picture figure would hide that they stopped)."""
        report(self.name + ".text", self.text)
        if not self.picture:
            raise AssertionError("%s: no answer carried a picture" % self.name)
        report(self.name + ".picture", self.picture)
        log("%s: %d of %d answers with a picture" % (self.name, len(self.picture),
                                                     len(self.text)))


class Bot:
    def __init__(self, fake_env):
        self.dir = tempfile.mkdtemp(prefix="tabula-bench-e2e-")
        env = {k: v for k, v in os.environ.items()
               if not k.startswith(("DISCORD_", "MATRIX_", "TABULA_"))}
        env.update(fake_env)
        env["TABULA_DB"] = os.path.join(self.dir, "t.db")
        env["TABULA_SEED"] = "5"
        env["TABULA_LOG"] = "warn"
        # a sample follows the previous one's last picture at once, and
        # with 1 room one player sends all of them: the per-user throttle
        # (issue 11) would answer that pace with silence
        env["TABULA_THROTTLE"] = "off"
        self.errpath = os.path.join(self.dir, "stderr")
        self.err = open(self.errpath, "wb")
        self.proc = subprocess.Popen([BIN], env=env, stdin=subprocess.DEVNULL,
                                     stdout=subprocess.DEVNULL, stderr=self.err)

    def wait_delivered(self, what, timeout=300):
        """Waits until the bot's outbox holds no unconfirmed message: every
        board's picture is in (a message is confirmed only once its
        picture, painted off the loop, is out: docs/pictures.md).  After
        opening many rooms the painters, and on Discord the bot's share of
        the global rate limit (50 requests a second: each board is its
        text, then an edit adding the picture), work through the set-up's
        pictures for a while; a sample taken meanwhile would time that
        backlog, and the rate limit's pauses are quiet enough to pass for
        a settled bot."""
        import sqlite3
        t0 = time.monotonic()
        db = os.path.join(self.dir, "t.db")
        while True:
            con = sqlite3.connect("file:%s?mode=ro" % db, uri=True, timeout=10)
            try:
                n = con.execute("SELECT count(*) FROM outbox WHERE sent_at IS NULL").fetchone()[0]
            finally:
                con.close()
            if not n:
                break
            if time.monotonic() - t0 > timeout:
                raise AssertionError("%s: %d messages still unconfirmed after %.0f s"
                                     % (what, n, timeout))
            time.sleep(0.05)
        log("%s: every set-up message delivered %.1f s later" % (what, time.monotonic() - t0))

    def tail(self, n=20):
        """The last n lines of the bot's stderr (for a failure's report)."""
        self.err.flush()
        with open(self.errpath, "rb") as f:
            lines = f.read().decode("utf-8", "replace").splitlines()
        return lines[-n:]

    def stop(self, failed=False):
        if failed:
            log("bench-e2e: the bot's last log lines (exit status %r):" % self.proc.poll())
            for line in self.tail():
                log("  " + line)
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
        try:
            self.proc.wait(timeout=20)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
        self.err.close()
        for f in os.listdir(self.dir):
            os.unlink(os.path.join(self.dir, f))
        os.rmdir(self.dir)


# ---------------------------------------------------------------- Discord

def discord_players(fake, n):
    """n players, one per channel, as real traffic has them: each opens the
    game of its own channel (a user may have 10 lobbies waiting at once,
    bot/session.h SESSION_LOBBIES_PER_USER, and one user opening every
    room met that cap)."""
    return [fake.user("%d" % (200000000000000000 + i), "p%d" % i) for i in range(n)]


# what a refused set-up step says (bot/lobby.c, the lobby caps; "no game"
# waiting; a busy store or platform)
SETUP_REFUSED = re.compile(
    r"already waiting in|no game|could not|try again|not allowed|Unknown", re.I)


def discord_reply_text(h, timeout=30):
    """The text of interaction h's answer: its callback's, or after a
    deferral (callback type 5) that of the messages that follow."""
    body = h.wait_response(timeout=timeout)
    if (body or {}).get("type") == 5:
        ms = h.wait_final(lambda ms: any(m.get("content") for m in ms), timeout=timeout)
        return "\n".join(m.get("content") or "" for m in ms)
    return ((body or {}).get("data") or {}).get("content") or ""


DISCORD_SETUP = (("new", {"game": "fortuna"}), ("addbot", {"count": 2}), ("start", None))


def discord_open(fake, owner, chans, in_flight=None):
    """Opens a game in every channel, each by its own player (owner[ch]):
    `game new fortuna`, `game addbot 2`, `game start`, one after the other
    in a channel, with up to `in_flight` interactions outstanding across
    the channels (a sliding window: a channel's next step goes as soon as
    its answer is in).  Discord wants each callback within 3 s, and the
    bot paints a game's first pictures when it starts: a window much
    wider than 10 had late callbacks on a loaded machine (Discord then
    refuses the answer, HTTP 404).  Any refusal, or no answer, fails the
    bench, naming the room and the answer."""
    in_flight = in_flight or DISCORD_IN_FLIGHT
    todo = list(reversed(chans))
    out = []                    # (channel, step, interaction)

    def issue(ch, step):
        sub, opts = DISCORD_SETUP[step]
        out.append((ch, step, fake.command(owner[ch], ch, "game", opts, sub=sub)))

    while todo or out:
        while todo and len(out) < in_flight:
            issue(todo.pop(), 0)
        fake._wait(lambda: any(h.callback is not None for _, _, h in out), 30,
                   lambda: "discord: no answer to `game %s` in %s (see the bot's log)"
                   % (DISCORD_SETUP[out[0][1]][0], out[0][0]))
        done = [o for o in out if o[2].callback is not None]
        out = [o for o in out if o[2].callback is None]
        for ch, step, h in done:
            text = discord_reply_text(h)
            sub = DISCORD_SETUP[step][0]
            if SETUP_REFUSED.search(text) or (sub == "new" and "lobby" not in text):
                raise AssertionError("discord: `game %s` in %s refused: %r"
                                     % (sub, ch, text[:300]))
            if step + 1 < len(DISCORD_SETUP):
                issue(ch, step + 1)


def discord_ok(body):
    """Whether a /play callback says the move was taken."""
    data = (body or {}).get("data") or {}
    text = data.get("content") or ""
    return not re.search(r"not your turn|no game|no such move|Unknown|over", text, re.I)


def discord_settle(fake, quiet_s=PICTURE_QUIET, timeout=30):
    """Waits until no request has reached the fake for quiet_s: whatever a
    command caused (its pictures too) has arrived."""
    deadline = time.monotonic() + timeout
    n, last = len(fake.requests), time.monotonic()
    while True:
        time.sleep(0.005)
        now = time.monotonic()
        if len(fake.requests) != n:
            n, last = len(fake.requests), now
        elif now - last >= quiet_s:
            return
        if now > deadline:
            raise AssertionError("discord: the bot did not go quiet in %.0f s" % timeout)


def has_picture(body):
    """Whether a request body (JSON, or multipart made JSON by the fake)
    uploads a file: an attachment with a filename, at the top or in an
    interaction callback's data."""
    if not isinstance(body, dict):
        return False
    data = body.get("data") if isinstance(body.get("data"), dict) else {}
    return any(isinstance(a, dict) and a.get("filename")
               for a in (body.get("attachments") or []) + (data.get("attachments") or []))


def discord_answer(fake, h, ch, first):
    """(text, picture) of interaction h in channel ch, in seconds from the
    moment the fake wrote it to the gateway: the text part is the first
    request of the interaction (its callback, or after a deferral the
    first follow-up or edit) that carries text; the picture is the last
    request with a file to the interaction or to the channel, None when the
    command sent none.  first: the index in fake.requests where the
    command's requests begin; call after discord_settle()."""
    t_text = t_pic = None
    for r in fake.requests[first:]:
        if h.token not in r.path and ch not in r.path:
            continue
        if r.t < h.sent_t:
            continue
        b = r.body if isinstance(r.body, dict) else {}
        data = b.get("data") if isinstance(b.get("data"), dict) else b
        if t_text is None and h.token in r.path and (data.get("content") or data.get("embeds")):
            t_text = r.t
        if has_picture(b):
            t_pic = r.t
    if t_text is None:
        t_text = h.callback_t
    return t_text - h.sent_t, None if t_pic is None else t_pic - h.sent_t


def discord_run(nrooms, nsamples):
    # Discord's own heartbeat interval (the fake's default, 1 s, is for
    # the tests): with 1 s, a second of the bot's loop busy with pictures
    # made it miss an ACK that had arrived, reconnect, and lose the
    # interactions of that moment (docs/performance.md)
    fake = FakeDiscord(token=TOKEN, heartbeat_interval_ms=DISCORD_HEARTBEAT_MS).start()
    bot = Bot(dict(fake.env(), DISCORD_TOKEN=TOKEN))
    failed = False
    try:
        fake.wait_ready(15)
        fake.wait_commands(timeout=15)
        chans = ["7%017d" % i for i in range(nrooms)]
        owner = dict(zip(chans, discord_players(fake, nrooms)))
        t0 = time.monotonic()
        discord_open(fake, owner, chans)
        log("discord: %d rooms opened in %.1f s (%d players, up to %d interactions "
            "in flight)" % (nrooms, time.monotonic() - t0, nrooms, DISCORD_IN_FLIGHT))
        lat, refused = Answers("e2e.discord.%drooms" % nrooms), 0
        rnd = random.Random(nrooms)
        bot.wait_delivered("discord: %d rooms" % nrooms)
        discord_settle(fake)
        while len(lat) < nsamples:
            ch = rnd.choice(chans)
            first = len(fake.requests)
            h = fake.command(owner[ch], ch, "play", {"move": "1"})
            body = h.wait_response(timeout=10)
            discord_settle(fake)
            if not discord_ok(body):
                refused += 1
                if refused > nsamples:
                    raise AssertionError("discord: /play refused: %r" % (body,))
                discord_open(fake, owner, [ch])     # the game ended: a new one
                discord_settle(fake)
                continue
            lat.add(*discord_answer(fake, h, ch, first))
        if refused:
            log("discord: %d games finished and were replaced" % refused)
        if fake.violations:
            log("discord: fake violations: %r" % (fake.violations[:5],))
        lat.report()
    except BaseException:
        failed = True
        raise
    finally:
        bot.stop(failed)
        fake.stop()


# ---------------------------------------------------------------- Matrix

def mx_text(req):
    """The text of a PUT .../send body (an edit's new content)."""
    b = req.body if isinstance(req.body, dict) else {}
    nc = b.get("m.new_content")
    if isinstance(nc, dict):
        b = nc
    return b.get("body") or ""


def mx_picture(req):
    """Whether a PUT .../send posts a picture (m.image; an edit's new
    content, an encrypted room's m.room.encrypted is not looked into)."""
    b = req.body if isinstance(req.body, dict) else {}
    nc = b.get("m.new_content")
    if isinstance(nc, dict):
        b = nc
    return b.get("msgtype") == "m.image"


def mx_refused(text):
    return re.search(r"not your turn|no game|no such move|Unknown|Game over", text, re.I) \
        and "Waiting for" not in text


def matrix_open(fake, owner, rooms, timeout):
    """Opens a game in every room: the three commands at once in each room
    (the bot handles them in order, from one or a few /sync batches), then
    waits until the bot has answered everything and is idle."""
    t0 = time.monotonic()
    for r in rooms:
        for text in ("!game new fortuna", "!game addbot 2", "!game start"):
            fake.say(owner[r], r, text)
    fake.wait_idle(quiet_s=0.3, timeout=timeout)
    missing = [r for r in rooms if len(fake.sends_to(r, t0)) < 3]
    if missing:
        raise AssertionError("matrix: %d rooms got fewer than 3 answers, e.g. %r"
                             % (len(missing), [mx_text(q) for q in fake.sends_to(missing[0], t0)]))
    for r in rooms:
        for q in fake.sends_to(r, t0):
            if SETUP_REFUSED.search(mx_text(q)):
                raise AssertionError("matrix: opening the game in %s refused: %r"
                                     % (r, mx_text(q)[:300]))


def matrix_run(nrooms, nsamples):
    t_run = time.monotonic()
    fake = FakeMatrix(bot_password=PASSWORD).start()
    bot = Bot(fake.env())
    failed = False
    try:
        nusers = max(1, -(-nrooms // MX_ROOMS_PER_USER))
        users = [fake.register_user("ana%d" % i, "Ana%d" % i) for i in range(nusers)]
        fake.wait_synced(1, timeout=15)
        # the players accept the bot's invitations to direct chats, as
        # people do (otherwise every game room also gets a "look in your
        # direct chats" note)
        fake.auto_accept_invites = True
        t0 = time.monotonic()
        rooms, owner = [], {}
        for i in range(nrooms):
            who = users[i % nusers]
            r = fake.create_room(who, name="bench %d" % i)
            fake.invite_bot(r, who)
            rooms.append(r)
            owner[r] = who
        fake._wait(lambda: len(fake.bot_rooms()) >= nrooms, MX_SETUP_TIMEOUT,
                   lambda: "matrix: the bot joined %d of %d rooms" %
                   (len(fake.bot_rooms()), nrooms))
        t1 = time.monotonic()
        matrix_open(fake, owner, rooms, MX_SETUP_TIMEOUT)
        bot.wait_delivered("matrix: %d rooms" % nrooms, MX_SETUP_TIMEOUT)
        t2 = time.monotonic()
        log("matrix: %d rooms (%d players): joined in %.1f s, games opened in %.1f s"
            % (nrooms, nusers, t1 - t0, t2 - t1))
        lat, say_lat, replaced = Answers("e2e.matrix.%drooms" % nrooms), [], 0
        rnd = random.Random(nrooms)
        while len(lat) < nsamples:
            r = rnd.choice(rooms)
            # nothing else in flight, and the bot's /sync long-poll waiting
            fake.wait_idle(quiet_s=0.02, timeout=60)
            t0 = time.monotonic()
            pos = fake.event_pos(fake.say(owner[r], r, "!play 1"))

            def sends():
                # the sends after the /sync that carried the command (the
                # bot cannot answer before it), to the room or to the
                # player's direct chat: a step the room may not see (a
                # secret choice) answers only there (docs/async.md)
                d = fake.sync_delivery(pos)
                if not d:
                    return None, []
                dm = fake.dm_room(owner[r])
                return d, sorted(fake.sends_to(r, d.t) + (fake.sends_to(dm, d.t) if dm else []),
                                 key=lambda q: q.t_arrival)

            def answered():
                # the text part: the first send that is not a picture
                d, qs = sends()
                qs = [q for q in qs if not mx_picture(q)]
                return (qs[0], d) if qs else None
            fake._wait(answered, 10, lambda: "matrix: no answer to !play in %s" % r)
            q, d = answered()
            # its pictures: all in once the bot is quiet
            fake.wait_idle(quiet_s=PICTURE_QUIET, timeout=60)
            pics = [p for p in sends()[1] if mx_picture(p)]
            if mx_refused(mx_text(q)):
                replaced += 1
                if replaced > nsamples:
                    raise AssertionError("matrix: !play refused: %r" % mx_text(q)[:300])
                fake.wait_idle(quiet_s=0.1, timeout=60)
                matrix_open(fake, owner, [r], 60)
                continue
            lat.add(q.t_arrival - d.t, pics[-1].t_arrival - d.t if pics else None)
            say_lat.append(q.t_arrival - t0)
        if replaced:
            log("matrix: %d games finished and were replaced" % replaced)
        if fake.violations:
            log("matrix: fake violations: %r" % (fake.violations[:5],))
        lat.report()
        log("matrix: %d rooms: the text part from the message's creation (the fake's /sync "
            "build included): p50 %.2f ms, p99 %.2f ms"
            % (nrooms, pct(say_lat, 0.5) * 1e3, pct(say_lat, 0.99) * 1e3))
    except BaseException:
        failed = True
        raise
    finally:
        bot.stop(failed)
        fake.stop()
    log("matrix: %d rooms took %.1f s" % (nrooms, time.monotonic() - t_run))


# ---------------------------------------------------------------- flood

def flood_run(nsamples):
    try:
        sys.path.insert(0, os.path.join(HERE, "..", "tests", "integration"))
        from olmclient import E2E
    except ImportError as e:
        raise AssertionError("flood: no python3-olm (%s): scripts/deps.sh installs it; "
                             "E2E_PLATFORMS=discord,matrix leaves the flood figure out" % e)
    import base64
    import threading
    t_run = time.monotonic()
    fake = FakeMatrix(bot_password=PASSWORD).start()
    fake.e2e = E2E(fake)
    bot = Bot(fake.env())
    failed = False
    stop = threading.Event()
    sent = [0]
    try:
        ana = fake.register_user("ana", "Ana")
        flooders = [fake.register_user("flood%d" % i, "Flood%d" % i)
                    for i in range(FLOOD_SENDERS)]
        fake.wait_synced(1, timeout=15)
        fake.auto_accept_invites = True
        room = fake.create_room(ana, name="game", encrypted=True)
        fake.invite_bot(room, ana)
        flood = fake.create_room(flooders[0], name="flood", members=flooders[1:])
        fake.invite_bot(flood, flooders[0])
        fake._wait(lambda: {room, flood} <= set(fake.bot_rooms()), 15,
                   lambda: "flood: the bot did not join")
        dev = fake.e2e.device(ana)
        t0 = time.monotonic()
        dev.send(room, "!game new fortuna")
        fake.say(flooders[0], flood, "!game new fortuna")
        fake._wait(lambda: len(fake.sends_to(room, t0)) and len(fake.sends_to(flood, t0)), 15,
                   lambda: "flood: no lobbies")
        fake.wait_idle(quiet_s=0.3, timeout=30)

        def flooding():
            rnd = random.Random(22)
            step = 1.0 / FLOOD_RATE
            t = time.monotonic()
            i = 0
            while not stop.is_set():
                sid = base64.b64encode(rnd.randbytes(32)).decode().rstrip("=")
                ct = base64.b64encode(rnd.randbytes(FLOOD_CIPHER * 3 // 4)).decode()
                fake.send_event(flooders[i % FLOOD_SENDERS], flood, "m.room.encrypted", {
                    "algorithm": "m.megolm.v1.aes-sha2", "sender_key": "F" * 43,
                    "device_id": "FLOOD", "session_id": sid, "ciphertext": ct[:FLOOD_CIPHER]})
                i += 1
                sent[0] = i
                t += step
                stop.wait(max(0.0, t - time.monotonic()))
        th = threading.Thread(target=flooding, daemon=True)
        th.start()
        time.sleep(3)           # the flooders' bursts spent, the list filling
        lat = []
        while len(lat) < nsamples:
            pos = fake.event_pos(dev.send(room, "!game status"))

            def answered():
                d = fake.sync_delivery(pos)
                if not d:
                    return None
                qs = fake.sends_to(room, d.t)
                return (qs[0], d) if qs else None
            fake._wait(answered, 120, lambda: "flood: no answer to !game status")
            q, d = answered()
            lat.append(q.t_arrival - d.t)
            time.sleep(0.2)     # about 20 s of flood in all
        stop.set()
        th.join()
        t1 = time.monotonic()
        fake.wait_caught_up(timeout=120)
        log("flood: %d undecryptable events (%.0f a second, %d B of ciphertext each) from "
            "%d senders; the bot caught up %.1f s after the last"
            % (sent[0], FLOOD_RATE, FLOOD_CIPHER, FLOOD_SENDERS, time.monotonic() - t1))
        if fake.violations:
            log("flood: fake violations: %r" % (fake.violations[:5],))
        report("e2e.matrix.flood", lat)
        if pct(lat, 0.99) > 1.0:
            log("flood: p99 over the 1 s that issue 22 asks for")
    except BaseException:
        failed = True
        raise
    finally:
        stop.set()
        bot.stop(failed)
        fake.stop()
    log("flood: took %.1f s" % (time.monotonic() - t_run))


def run_all():
    platforms = os.environ.get("E2E_PLATFORMS", "discord,matrix,flood").split(",")
    unknown = set(platforms) - {"discord", "matrix", "flood"}
    if unknown:
        raise AssertionError("E2E_PLATFORMS: unknown %s" % ", ".join(sorted(unknown)))
    t0 = time.monotonic()
    if "discord" in platforms:
        for n in ROOMS:
            if n <= MAX_ROOMS:
                discord_run(n, SAMPLES if n < 1000 else max(10, SAMPLES * 2 // 5))
            else:
                log("bench-e2e: discord with %d rooms skipped (E2E_MAX_ROOMS=%d)"
                    % (n, MAX_ROOMS))
        log("bench-e2e: discord %.0f s" % (time.monotonic() - t0))
    t1 = time.monotonic()
    if "matrix" in platforms:
        for n in MX_ROOMS:
            if n <= MX_MAX_ROOMS:
                matrix_run(n, SAMPLES if n < 1000 else max(10, SAMPLES * 2 // 5))
            else:
                log("bench-e2e: matrix with %d rooms skipped (E2E_MAX_ROOMS or "
                    "E2E_MATRIX_MAX_ROOMS=%d)" % (n, MX_MAX_ROOMS))
        log("bench-e2e: matrix %.0f s" % (time.monotonic() - t1))
    if "flood" in platforms:
        flood_run(FLOOD_SAMPLES)
    log("bench-e2e: %.0f s" % (time.monotonic() - t0))


def main():
    """0 when every figure asked for was printed; 1 with the reason on
    stderr otherwise (make bench stops there)."""
    if not os.access(BIN, os.X_OK):
        log("bench-e2e: FAILED: %s is not an executable (make builds ./tabula)" % BIN)
        return 1
    try:
        run_all()
    except Exception as e:
        import traceback
        traceback.print_exc()
        log("bench-e2e: FAILED: %s" % e)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
