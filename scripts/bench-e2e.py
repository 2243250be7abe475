#!/usr/bin/env python3
"""End-to-end command latency: the real ./tabula against the loopback fakes
of Discord and Matrix (tests/fakes/), with 1, 100 and 1000 rooms holding a
game in play (Fortuna, 1 human + 2 AI seats, one fake user in all rooms).

usage: scripts/bench-e2e.py [./tabula]

Matrix runs 1 and 10 rooms by default (E2E_MATRIX_MAX_ROOMS: see below).

Discord: a `/play move:1` interaction (the first legal move; the AI seats
answer inside the same command) from the moment the fake writes it to the
gateway to the moment the bot's interaction callback arrives at the fake.
Matrix: a "!play 1" message from the moment the fake adds it to the room
(a /sync long-poll is waiting, so it goes out at once) to the moment the
bot's PUT .../send for that room arrives.  Samples are taken one at a time,
in rooms chosen at random; a finished game is replaced (untimed).

Prints "<name> <value> <unit>" lines only (diagnostics on stderr):
  e2e.discord.<rooms>rooms.p50|p99|max  ms
  e2e.matrix.<rooms>rooms.p50|p99|max   ms
E2E_SAMPLES (default 100; 40 for 1000 rooms) sets the samples.  Exit 0
with no figures when python's fakes cannot run (a note on stderr); exit 1
when the bot misbehaves.
"""
import os
import random
import re
import signal
import socket
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "tests", "fakes"))
from fake_discord import FakeDiscord  # noqa: E402
import fake_matrix  # noqa: E402
from fake_matrix import FakeMatrix  # noqa: E402

# The fake homeserver writes a response's headers and body in two writes;
# with Nagle on, the body waits for the bot's delayed ACK (40 ms on Linux),
# which would be measured as the bot's latency.  Real servers set
# TCP_NODELAY; so does the bench, in the fake's handler (not in the file).
_setup = fake_matrix._Handler.setup


def _setup_nodelay(self):
    _setup(self)
    try:
        self.request.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    except OSError:
        pass


fake_matrix._Handler.setup = _setup_nodelay

BIN = sys.argv[1] if len(sys.argv) > 1 else "./tabula"
ROOMS = [1, 100, 1000]
SAMPLES = int(os.environ.get("E2E_SAMPLES", "100"))
# Opening rooms through the fake homeserver is slow (100 rooms took over
# 2 minutes, see docs/performance.md), so Matrix runs 1 and 10 rooms unless
# E2E_MATRIX_MAX_ROOMS (default 10) allows 100 and 1000.
MX_ROOMS = [1, 10, 100, 1000]
MX_MAX_ROOMS = int(os.environ.get("E2E_MATRIX_MAX_ROOMS", "10"))
# players' private views go through one DM room each, one request at a time
# (docs/matrix.md), so the rooms are shared among this many users
MX_USERS = 10
TOKEN = "bench-token.not-a-secret"
PASSWORD = "bench-password"


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


class Bot:
    def __init__(self, fake_env):
        self.dir = tempfile.mkdtemp(prefix="tabula-bench-e2e-")
        env = {k: v for k, v in os.environ.items()
               if not k.startswith(("DISCORD_", "MATRIX_", "TABULA_"))}
        env.update(fake_env)
        env["TABULA_DB"] = os.path.join(self.dir, "t.db")
        env["TABULA_SEED"] = "5"
        env["TABULA_LOG"] = "warn"
        self.errpath = os.path.join(self.dir, "stderr")
        self.err = open(self.errpath, "wb")
        self.proc = subprocess.Popen([BIN], env=env, stdin=subprocess.DEVNULL,
                                     stdout=subprocess.DEVNULL, stderr=self.err)

    def stop(self):
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

def discord_open(fake, who, chans, batch=50):
    """Opens a game in every channel, up to `batch` interactions in flight
    (Discord wants a callback within 3 s of each)."""
    for i in range(0, len(chans), batch):
        for sub, opts in (("new", {"game": "fortuna"}), ("addbot", {"count": 2}),
                          ("start", None)):
            hs = [fake.command(who, ch, "game", opts, sub=sub) for ch in chans[i:i + batch]]
            for h in hs:
                h.wait_response(timeout=30)


def discord_ok(body):
    """Whether a /play callback says the move was taken."""
    data = (body or {}).get("data") or {}
    text = data.get("content") or ""
    return not re.search(r"not your turn|no game|no such move|Unknown|over", text, re.I)


def discord_run(nrooms, nsamples):
    fake = FakeDiscord(token=TOKEN).start()
    bot = Bot(dict(fake.env(), DISCORD_TOKEN=TOKEN))
    try:
        fake.wait_ready(15)
        fake.wait_commands(timeout=15)
        who = fake.user("100000000000000001", "ana")
        chans = ["7%017d" % i for i in range(nrooms)]
        t0 = time.monotonic()
        discord_open(fake, who, chans)
        log("discord: %d rooms opened in %.1f s" % (nrooms, time.monotonic() - t0))
        lat, refused = [], 0
        rnd = random.Random(nrooms)
        while len(lat) < nsamples:
            ch = rnd.choice(chans)
            h = fake.command(who, ch, "play", {"move": "1"})
            body = h.wait_response(timeout=10)
            if not discord_ok(body):
                refused += 1
                if refused > nsamples:
                    raise AssertionError("discord: /play refused: %r" % (body,))
                discord_open(fake, who, [ch])     # the game ended: a new one
                continue
            lat.append(h.callback_t - h.sent_t)
        if refused:
            log("discord: %d games finished and were replaced" % refused)
        if fake.violations:
            log("discord: fake violations: %r" % (fake.violations[:5],))
        report("e2e.discord.%drooms" % nrooms, lat)
    finally:
        bot.stop()
        fake.stop()


# ---------------------------------------------------------------- Matrix

def matrix_sends(fake, room, after_t):
    with fake._lock:
        return [r for r in fake.requests
                if r.method == "PUT" and r.t >= after_t and
                ("/rooms/%s/send/" % room) in r.path]


def matrix_open(fake, owner, rooms, timeout=120):
    for text in ("!game new fortuna", "!game addbot 2", "!game start"):
        t0 = time.monotonic()
        for r in rooms:
            fake.say(owner[r], r, text)
        fake._wait(lambda: all(matrix_sends(fake, r, t0) for r in rooms), timeout,
                   lambda: "matrix: no answer to %r" % text)


def matrix_run(nrooms, nsamples):
    fake = FakeMatrix(bot_password=PASSWORD).start()
    bot = Bot(fake.env())
    try:
        users = [fake.register_user("ana%d" % i, "Ana%d" % i) for i in range(MX_USERS)]
        fake.wait_synced(1, timeout=15)
        t0 = time.monotonic()
        rooms, owner = [], {}
        for i in range(nrooms):
            who = users[i % MX_USERS]
            r = fake.create_room(who, name="bench %d" % i)
            fake.invite_bot(r, who)
            rooms.append(r)
            owner[r] = who
        fake._wait(lambda: len(fake.bot_rooms()) >= nrooms, 120,
                   lambda: "matrix: the bot joined %d of %d rooms" %
                   (len(fake.bot_rooms()), nrooms))
        matrix_open(fake, owner, rooms)
        log("matrix: %d rooms joined and opened in %.1f s" % (nrooms, time.monotonic() - t0))
        lat, replaced = [], 0
        rnd = random.Random(nrooms)
        while len(lat) < nsamples:
            r = rnd.choice(rooms)
            fake.wait_caught_up(timeout=60)
            n0 = len(fake.bot_messages(r))
            t0 = time.monotonic()
            fake.say(owner[r], r, "!play 1")
            fake._wait(lambda: matrix_sends(fake, r, t0), 10,
                       lambda: "matrix: no answer to !play in %s" % r)
            t1 = matrix_sends(fake, r, t0)[0].t
            fake._wait(lambda: len(fake.bot_messages(r)) > n0, 10, lambda: "no message")
            body = fake.bot_messages(r)[n0].get("body", "")
            if re.search(r"not your turn|no game|no such move|Unknown|Game over", body, re.I) \
                    and "Waiting for" not in body:
                replaced += 1
                if replaced > nsamples:
                    raise AssertionError("matrix: !play refused: %r" % body[:300])
                matrix_open(fake, owner, [r])
                continue
            lat.append(t1 - t0)
        if replaced:
            log("matrix: %d games finished and were replaced" % replaced)
        if fake.violations:
            log("matrix: fake violations: %r" % (fake.violations[:5],))
        report("e2e.matrix.%drooms" % nrooms, lat)
    finally:
        bot.stop()
        fake.stop()


def main():
    if not os.access(BIN, os.X_OK):
        log("bench-e2e: %s not built; no end-to-end figures" % BIN)
        return 0
    t0 = time.monotonic()
    for n in ROOMS:
        discord_run(n, SAMPLES if n < 1000 else max(10, SAMPLES * 2 // 5))
    for n in MX_ROOMS:
        if n <= MX_MAX_ROOMS:
            matrix_run(n, SAMPLES if n < 1000 else max(10, SAMPLES * 2 // 5))
        else:
            log("bench-e2e: matrix with %d rooms skipped (E2E_MATRIX_MAX_ROOMS=%d)"
                % (n, MX_MAX_ROOMS))
    log("bench-e2e: %.0f s" % (time.monotonic() - t0))
    return 0


if __name__ == "__main__":
    sys.exit(main())
