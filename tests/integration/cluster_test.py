#!/usr/bin/env python3
"""Several bot processes on one PostgreSQL store (docs/deploy.md): Discord
shards in separate processes against the Discord fake (which routes each
guild's events to its shard's connection, DMs to shard 0), two shards
sharing one rate limit through the real @discordjs/proxy
(scripts/discord-proxy/) and what happens while that proxy is down, kill -9
of one of them mid-game and its restart, reminders across processes, the Matrix
lease with a hot standby, the shard supervisor, the systemd unit and
environment file of config/ run as systemd runs them, and --migrate-store
through the binary.

usage: cluster_test.py ./tabula [test-name ...]
Needs a PostgreSQL (tests/integration/pg.py: TABULA_TEST_PG, or one started
for the run); each test gets its own schema, fakes and processes.  Prints
one line per test and "cluster: N passed, M failed".
"""
import http.client
import importlib.util
import json
import os
import random
import re
import select
import shutil
import signal
import socket
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
import pg  # noqa: E402
from fake_discord import FakeDiscord, shard_of  # noqa: E402
from fake_matrix import FakeMatrix  # noqa: E402
from olmclient import E2E  # noqa: E402

_spec = importlib.util.spec_from_file_location(
    "make_transcript", os.path.join(HERE, "..", "..", "scripts", "make-transcript.py"))
make_transcript = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(make_transcript)

SLOW = harness.SLOW
BIN = "./tabula"
TOKEN = "tk-SECRET.cluster-token.do-not-log-5c4b"
PASSWORD = "pw-SECRET-cluster-4711"
# every process that may serve Matrix opens the same encryption keys
PICKLE_KEY = "pk-SECRET-cluster-pickle-key-0042"
LEASE_MS = 1500         # the processes' leases (TABULA_LEASE_MS), x SLOW
# two guilds, one per shard of 2: shard = (guild >> 22) % 2
G0, G1 = "800000000004194305", "800000000000000001"
C0, C1 = "700000000000000010", "700000000000000011"
assert shard_of(G0, 2) == 0 and shard_of(G1, 2) == 1


class Node:
    """One tabula process of the cluster, with its own log."""

    def __init__(self, name, db, env_extra, argv=None, base_env=None):
        """argv: the command (default [BIN]); base_env: the environment
        before the test's settings (default this one's, less the bot's
        variables)."""
        self.name = name
        self.dir = tempfile.mkdtemp(prefix="tabula-cluster-")
        if base_env is None:
            base_env = {k: v for k, v in os.environ.items()
                        if not k.startswith(("DISCORD_", "MATRIX_", "TABULA_"))}
        env = dict(base_env)
        env.update({"TABULA_DB": db, "TABULA_SEED": "5", "TABULA_LOG": "debug",
                    "TABULA_THROTTLE": "off",
                    "TABULA_LEASE_MS": str(int(LEASE_MS * SLOW))})
        env.update(env_extra)
        self.secrets = [v for k, v in env.items()
                        if "TOKEN" in k or "PASSWORD" in k or k.endswith("_KEY")]
        self.errpath = os.path.join(self.dir, "stderr")
        self.err = open(self.errpath, "wb")
        self.proc = subprocess.Popen(argv or [BIN], env=env, stdin=subprocess.DEVNULL,
                                     stdout=subprocess.DEVNULL, stderr=self.err)

    def log(self):
        with open(self.errpath, "rb") as f:
            return f.read().decode("utf-8", "replace")

    def node_id(self, timeout=10):
        end = time.monotonic() + timeout * SLOW
        while time.monotonic() < end:
            m = re.search(r"cluster: node (\S+),", self.log())
            if m:
                return m.group(1)
            time.sleep(0.02)
        raise AssertionError("%s: no node id in its log:\n%s" % (self.name, self.log()[-2000:]))

    def wait_log(self, pattern, timeout=10):
        end = time.monotonic() + timeout * SLOW
        while time.monotonic() < end:
            if re.search(pattern, self.log()):
                return
            if self.proc.poll() is not None:
                break
            time.sleep(0.02)
        raise AssertionError("%s: %r not in its log (exit %r):\n%s"
                             % (self.name, pattern, self.proc.poll(), self.log()[-3000:]))

    def kill9(self):
        self.proc.send_signal(signal.SIGKILL)
        self.proc.wait(timeout=10 * SLOW)
        self.err.close()

    def stop(self, expect=0):
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
        try:
            rc = self.proc.wait(timeout=20 * SLOW)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            raise AssertionError("%s did not stop on SIGTERM" % self.name)
        if not self.err.closed:
            self.err.close()
        log = self.log()
        for s in self.secrets:
            assert s not in log, "%s: a secret appears in the log" % self.name
        assert "SECRET" not in log, "%s: part of a secret appears in the log" % self.name
        assert rc == expect, "%s: exit %r, wanted %r; log:\n%s" % (self.name, rc, expect,
                                                                  log[-3000:])
        return log


def new_matrix_fake():
    """A fake homeserver whose users each get an Olm device: the bot's
    direct chats are encrypted, so the tests read them through the devices
    (and a standby must open the keys its predecessor stored)."""
    fake = FakeMatrix(bot_password=PASSWORD).start()
    fake.violate_plaintext_in_encrypted = True
    fake.e2e = E2E(fake)
    return fake


def matrix_env(fake):
    env = dict(fake.env())
    env["MATRIX_PICKLE_KEY"] = PICKLE_KEY
    return env


def discord_node(name, fake, db, shard, extra=None):
    env = dict(fake.env())
    env["DISCORD_TOKEN"] = TOKEN
    env["DISCORD_SHARD"] = shard
    env.update(extra or {})
    return Node(name, db, env)


def new_discord_fake():
    fake = FakeDiscord(token=TOKEN).start()
    fake.guild_ids = [G0, G1]
    fake.recommended_shards = 2
    # both shards may identify at once (identify pacing: docs/discord-gateway.md)
    fake.session_start_limit["max_concurrency"] = 16
    fake.channel_rate = (50, 1.0)
    return fake


# ---- a game in one channel: one human, one AI seat ----

class Room:
    def __init__(self, fake, db, chan, guild, uid, name):
        self.fake, self.db, self.chan, self.guild = fake, db, chan, guild
        self.who = fake.user(uid, name)
        self.rng = random.Random(int(chan) % 1000)
        self.acked = 0          # human moves answered
        self.sent = 0           # human moves sent

    def cmd(self, name, options=None, sub=None):
        h = self.fake.command(self.who, self.chan, name, options, sub=sub, guild_id=self.guild)
        h.wait_response(timeout=5 * SLOW)
        return h

    def open(self):
        self.cmd("game", {"game": "fortuna"}, sub="new")
        self.cmd("game", {"count": 1}, sub="addbot")
        self.cmd("game", sub="start")
        harness.wait_settled(self.db, harness.store_counts(self.db)[0] - 1,
                             what="after the start of %s" % self.chan)

    def status(self):
        rows = pg.query(self.db, "SELECT status FROM sessions WHERE room = '%s'"
                        " ORDER BY id DESC LIMIT 1" % self.chan)
        return int(rows[0][0]) if rows else None

    def human_moves(self):
        return pg.scalar(self.db, "SELECT count(*) FROM actions a JOIN sessions s ON"
                         " s.id = a.session WHERE s.room = '%s' AND a.\"user\" <> ''"
                         % self.chan)

    def over(self):
        return self.status() == 2

    def completions(self, partial=""):
        h = self.fake.autocomplete(self.who, self.chan, "play", {"move": partial}, "move",
                                   guild_id=self.guild)
        return h.wait_response(timeout=5 * SLOW)["data"]["choices"]

    def send_move(self):
        """Sends one move (the transcript generator's greedy pick); the
        interaction's handle, or None when nothing can be played."""
        choices = self.completions()
        if len(choices) == 25:
            for pref in ("deliver", "advance", "favour"):
                choices += [c for c in self.completions(pref) if c not in choices]
        if not choices:
            return None
        value = make_transcript.pick(self.rng, [c["value"] for c in choices], "fortuna")
        self.sent += 1
        return self.fake.command(self.who, self.chan, "play", {"move": value},
                                 guild_id=self.guild)

    def step(self):
        """One move, answered and settled; False when the game is over."""
        if self.over():
            return False
        before = harness.store_counts(self.db)[0]
        h = self.send_move()
        assert h is not None, "%s: no move offered in a game in play" % self.chan
        h.wait_response(timeout=5 * SLOW)
        self.acked = self.sent
        harness.wait_settled(self.db, before, what="after a move in %s" % self.chan)
        return True


# ---- the shared REST proxy (scripts/discord-proxy/proxy.mjs) ----

PROXY_JS = os.path.join(HERE, "..", "..", "scripts", "discord-proxy", "proxy.mjs")


class Proxy:
    """The operator's proxy, @discordjs/proxy at the version the lockfile
    pins, in front of the fake: DISCORD_PROXY_GLOBAL requests per second for
    all its clients together."""

    def __init__(self, fake, per_second, port=0, argv=None, env_extra=None):
        """argv: the command (default node proxy.mjs); env_extra: settings
        over the test's (a Unix socket's DISCORD_PROXY_LISTEN...)."""
        self.dir = tempfile.mkdtemp(prefix="tabula-proxy-")
        self.errpath = os.path.join(self.dir, "stderr")
        self.err = open(self.errpath, "wb")
        env = {k: v for k, v in os.environ.items()
               if not k.startswith(("DISCORD_", "MATRIX_", "TABULA_"))}
        env.update({"DISCORD_PROXY_LISTEN": "127.0.0.1:%d" % port,
                    "DISCORD_PROXY_API": "http://127.0.0.1:%d/api" % fake.port,
                    "DISCORD_PROXY_GLOBAL": str(per_second)})
        env.update(env_extra or {})
        self.proc = subprocess.Popen(argv or ["node", PROXY_JS], env=env,
                                     stdin=subprocess.DEVNULL, stdout=self.err, stderr=self.err)
        end = time.monotonic() + 20 * SLOW
        while True:
            m = re.search(r"listening on (127\.0\.0\.1:(\d+)|/\S+),", self.log())
            if m:
                self.port = int(m.group(2) or 0)
                break
            assert self.proc.poll() is None and time.monotonic() < end, \
                "the proxy did not start: %s" % self.log()
            time.sleep(0.02)
        self.url = ("http://127.0.0.1:%d/api/v10" % self.port if self.port
                    else "unix:" + m.group(1))

    def log(self):
        with open(self.errpath, "rb") as f:
            return f.read().decode("utf-8", "replace")

    def env(self, fake):
        """The bot's variables: REST through the proxy, interaction
        callbacks and the gateway to the fake."""
        return {"DISCORD_API_URL": self.url, "DISCORD_API_PROXY": "1",
                "TABULA_TEST_DISCORD_DIRECT_URL": fake.api_url}

    def stop(self, kill=False):
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGKILL if kill else signal.SIGTERM)
        self.proc.wait(timeout=10 * SLOW)
        self.err.close()
        log = self.log()
        assert TOKEN not in log and "SECRET" not in log, "a secret in the proxy's log"
        return log


def no_token_in_process_lists():
    """The token is in no process's command line (the bot reads it from its
    environment, the proxy never holds it)."""
    for pid in os.listdir("/proc"):
        if not pid.isdigit():
            continue
        try:
            with open("/proc/%s/cmdline" % pid, "rb") as f:
                cmd = f.read()
        except OSError:
            continue
        assert TOKEN.encode() not in cmd and b"SECRET" not in cmd, \
            "a secret in the command line of process %s" % pid
    ps = subprocess.run(["ps", "axww", "-o", "args"], capture_output=True, text=True).stdout
    assert TOKEN not in ps and "SECRET" not in ps


def burst(rooms, db):
    """One move in every room at once (each process answers its own
    guild's), then waits until every move is stored and every message sent."""
    before = harness.store_counts(db)[0]
    sent = [(r, r.send_move()) for r in rooms if not r.over()]
    for r, h in sent:
        assert h is not None, "%s: no move offered in a game in play" % r.chan
        h.wait_response(timeout=10 * SLOW)
        r.acked = r.sent
    harness.wait_settled(db, before + len(sent) - 1, timeout=60, what="after a burst")
    return len(sent)


def nonces_once(fake, chan):
    """Every message the bot posted in chan carries its outbox key's nonce,
    and no nonce twice: nothing was sent twice."""
    ms = [m for m in fake.channel_messages(chan)]
    seen = {}
    for m in ms:
        n = m.get("nonce")
        assert n is not None, "a channel message without a nonce: %r" % m["content"][:100]
        seen[n] = seen.get(n, 0) + 1
    twice = [n for n, k in seen.items() if k > 1]
    assert not twice, "messages posted twice in %s: %r" % (chan, twice)
    return len(ms)


def owners_by_room(db):
    out = {}
    for room, owner in pg.query(db, "SELECT DISTINCT room, owner FROM outbox"):
        out.setdefault(room, set()).add(owner)
    return out


# ---- tests ----

def test_two_shards_play_whole_games():
    """DISCORD_SHARD=0/2 and 1/2 in two processes on one PostgreSQL: each
    identifies with its shard, receives only its guild's interactions, and
    plays a whole game there; only shard 0 registers the slash commands;
    every message goes out once, from the process that made it."""
    fake = new_discord_fake()
    schema = pg.Schema()
    db = schema.uri
    n0 = discord_node("shard0", fake, db, "0/2")
    n1 = discord_node("shard1", fake, db, "1/2")
    try:
        fake.wait_shards_ready(2, timeout=20 * SLOW)
        fake.wait_commands()
        rooms = [Room(fake, db, C0, G0, "100000000000000001", "ana"),
                 Room(fake, db, C1, G1, "100000000000000002", "ben")]
        for r in rooms:
            r.open()
        steps = 0
        while any([r.step() for r in rooms if not r.over()]):
            steps += 1
            assert steps < 2000, "the games did not end"
        assert all(r.over() for r in rooms)
        assert harness.store_counts(db)[1] == 0, "messages left undelivered"
        time.sleep(0.5 * SLOW)
        puts = [q for q in fake.requests if q.method == "PUT" and q.path.endswith("/commands")]
        assert len(puts) == 1, "the commands were registered %d times" % len(puts)
        for r in rooms:
            assert nonces_once(fake, r.chan) > 0
        # each room's messages were committed (and sent) by its shard's node
        owners = owners_by_room(db)
        assert owners[C0] == {n0.node_id()}, owners
        assert owners[C1] == {n1.node_id()}, owners
        # each process answered its own guild's interactions only
        assert fake.shard_sessions().keys() == {0, 1}
        assert fake.violations == [], fake.violations
        assert "Discord recommends" not in n0.log()
    finally:
        n0.stop()
        n1.stop()
        fake.stop()
        schema.drop()


# ---- a game's page on one process, its game played on another ----

HTTP_RE = re.compile(r"http: listening on (\S+):(\d+) ")


def http_port(node):
    node.wait_log(HTTP_RE.pattern)
    return int(HTTP_RE.search(node.log()).group(2))


def http_get(port, path):
    """(status, body) of GET path on 127.0.0.1:port."""
    c = http.client.HTTPConnection("127.0.0.1", port, timeout=5 * SLOW)
    try:
        c.request("GET", path)
        r = c.getresponse()
        return r.status, r.read()
    finally:
        c.close()


class Stream:
    """A page's event stream (/g/<token>/events), read as it comes."""

    def __init__(self, port, token):
        self.sock = socket.create_connection(("127.0.0.1", port), timeout=5 * SLOW)
        self.sock.sendall(("GET /g/%s/events HTTP/1.1\r\nHost: 127.0.0.1\r\n"
                           "Accept: text/event-stream\r\n\r\n" % token).encode())
        self.data = b""
        self.ended = False
        self.wait(rb"retry: 5000")

    def wait(self, pattern, timeout=10):
        """The first match of pattern in what came after `seen`; waits
        for it up to timeout (x SLOW)."""
        end = time.monotonic() + timeout * SLOW
        rx = re.compile(pattern)
        while True:
            m = rx.search(self.data)
            if m:
                return m
            left = end - time.monotonic()
            if left <= 0 or self.ended:
                raise AssertionError("stream: %r not heard in %.1f s; got %r"
                                     % (pattern, timeout * SLOW, self.data[-400:]))
            r, _, _ = select.select([self.sock], [], [], left)
            if r:
                chunk = self.sock.recv(65536)
                if not chunk:
                    self.ended = True
                self.data += chunk

    def wait_end(self, timeout=10):
        end = time.monotonic() + timeout * SLOW
        while not self.ended and time.monotonic() < end:
            r, _, _ = select.select([self.sock], [], [], end - time.monotonic())
            if r:
                chunk = self.sock.recv(65536)
                self.data += chunk
                self.ended = not chunk
        assert self.ended, "the stream did not end"

    def close(self):
        self.sock.close()


def link(db, sql):
    rows = pg.query(db, sql)
    return rows[0][0] if rows else None


def positions_of(port, token):
    st, body = http_get(port, "/g/%s/state.json" % token)
    assert st == 200, (st, body[:200])
    return json.loads(body)["positions"]


def test_page_hears_moves_made_by_another_process():
    """A viewer's stream is on the process that served the page (shard 0),
    the game is played through another (shard 1, its guild's): shard 0
    reads the watched games' versions each second, so the move reaches
    the viewer; a `game web reset` through shard 1 ends the stream with
    `gone`, and the old link is 404 on shard 0."""
    fake = new_discord_fake()
    schema = pg.Schema()
    db = schema.uri
    web = {"TABULA_HTTP": "127.0.0.1:0", "TABULA_PUBLIC_URL": "https://play.example.org"}
    na = discord_node("shard0", fake, db, "0/2", web)
    nb = discord_node("shard1", fake, db, "1/2", web)
    stream = None
    try:
        fake.wait_shards_ready(2, timeout=20 * SLOW)
        fake.wait_commands()
        pa = http_port(na)
        room = Room(fake, db, C1, G1, "100000000000000002", "ben")
        room.open()
        sql = ("SELECT w.token FROM web_links w JOIN sessions s ON s.id = w.session"
               " WHERE s.room = '%s'" % C1)
        token = link(db, sql)
        assert token, "no web link stored at the start"
        stream = Stream(pa, token)
        before = positions_of(pa, token)
        for _ in range(3):
            assert room.step()
            t0 = time.monotonic()
            # the last event heard tells the store's number of positions
            want = pg.scalar(db, "SELECT count(*) FROM actions a JOIN sessions s ON"
                             " s.id = a.session WHERE s.room = '%s'" % C1) + 1
            stream.wait(rb'event: move\ndata: \{"positions":%d\}' % want)
            print("  move through shard 1 heard on shard 0's stream %.0f ms after"
                  " it settled" % ((time.monotonic() - t0) * 1000))
            assert positions_of(pa, token) == want > before
            before = want
        # a new link through shard 1: the stream on shard 0 is told, then ends
        room.cmd("game", {"action": "reset"}, sub="web")
        end = time.monotonic() + 10 * SLOW
        while link(db, sql) == token and time.monotonic() < end:
            time.sleep(0.05)
        new = link(db, sql)
        assert new != token, "the link was not reset"
        stream.wait(rb"event: gone\ndata: \{\}")
        stream.wait_end()
        st, _ = http_get(pa, "/g/%s/state.json" % token)
        assert st == 404, st
        st, _ = http_get(pa, "/g/%s" % token)
        assert st == 404, st
        assert positions_of(pa, new) == before
    finally:
        if stream:
            stream.close()
        na.stop()
        nb.stop()
        fake.stop()
        schema.drop()


PROXY_GLOBAL = 8       # the test's global limit: small, so the bursts reach it


def test_shards_share_one_rate_limit_through_the_proxy():
    """Two shard processes send every REST request through one
    @discordjs/proxy (DISCORD_API_URL, DISCORD_API_PROXY=1) configured with
    the fake's global limit; moves made at once in six rooms of both
    guilds post more boards at once than that limit, and the fake, which
    counts every request it gets (all the proxy's), never sees more than
    PROXY_GLOBAL in a second, while it does see that many (the limit was
    reached).  Interaction callbacks go around the proxy, straight to
    Discord.  The bot's Authorization header passes through the proxy; the
    token is in no log and no process list; nothing is lost or doubled."""
    fake = new_discord_fake()
    fake.global_rate = (PROXY_GLOBAL, 1.0)
    proxy = Proxy(fake, PROXY_GLOBAL)
    schema = pg.Schema()
    db = schema.uri
    n0 = discord_node("shard0", fake, db, "0/2", proxy.env(fake))
    n1 = discord_node("shard1", fake, db, "1/2", proxy.env(fake))
    try:
        fake.wait_shards_ready(2, timeout=20 * SLOW)
        fake.wait_commands()
        rooms = []
        for i in range(3):
            rooms.append(Room(fake, db, "7000000000000001%02d" % i, G0,
                              "1000000000000001%02d" % i, "ana%d" % i))
            rooms.append(Room(fake, db, "7000000000000002%02d" % i, G1,
                              "1000000000000002%02d" % i, "ben%d" % i))
        for r in rooms:
            r.open()
        for _ in range(4):
            burst(rooms, db)
        assert harness.store_counts(db)[1] == 0, "messages left undelivered"
        for r in rooms:
            nonces_once(fake, r.chan)
        assert fake.violations == [], fake.violations
        # the limit was reached (the check meant something) and held
        assert fake.global_peak == PROXY_GLOBAL, fake.global_peak
        # every request but the interaction callbacks came through the
        # proxy (its own User-Agent), with the bot's Authorization
        via = [q for q in fake.requests if not q.path.startswith("/interactions/")]
        assert via and all(q.headers.get("user-agent", "").startswith(
            "DiscordBot (https://discord.js.org") for q in via), \
            {q.headers.get("user-agent") for q in via}
        assert all(q.headers.get("authorization") == "Bot " + TOKEN for q in via)
        assert all(q.status != 401 for q in fake.requests)
        cbs = [q for q in fake.requests if q.path.startswith("/interactions/")]
        assert cbs and not any("discord.js" in q.headers.get("user-agent", "") for q in cbs)
        no_token_in_process_lists()
    finally:
        n0.stop()
        n1.stop()
        proxy.stop()
        fake.stop()
        schema.drop()


def test_proxy_down_commands_answered_try_again():
    """The proxy dies mid-game.  The move made just then is answered (its
    callback goes around the proxy) and its board waits; once the bot has
    seen Discord out of reach it answers commands "try again" without
    running them (autocompletion offers nothing), and says so in its log;
    the proxy back on the same port, the waiting board goes out (once) and
    moves are taken again.  Nothing is lost, nothing is doubled."""
    fake = new_discord_fake()
    proxy = Proxy(fake, 50)
    schema = pg.Schema()
    db = schema.uri
    node = discord_node("solo", fake, db, "0/1", proxy.env(fake))
    try:
        fake.wait_ready(20 * SLOW)
        fake.wait_commands()
        room = Room(fake, db, C0, G0, "100000000000000001", "ana")
        room.open()
        room.step()
        proxy.stop(kill=True)
        posted = len(fake.channel_messages(C0))
        # this move runs: the bot does not know yet
        moves = room.human_moves()
        h = room.send_move()
        h.wait_response(timeout=5 * SLOW)
        assert room.human_moves() == moves + 1
        node.wait_log(r"Discord does not answer through the REST proxy", timeout=20)
        assert harness.store_counts(db)[1] > 0, "the board should be waiting"
        # now commands are refused, and change nothing
        assert room.completions() == []
        h = fake.command(room.who, C0, "play", {"move": "1"}, guild_id=G0)
        r = h.wait_response(timeout=5 * SLOW)
        assert r["data"]["flags"] & 64, r
        assert "Try again" in r["data"]["content"], r
        assert room.human_moves() == moves + 1
        # the proxy comes back on its port: the board goes out, once
        proxy = Proxy(fake, 50, port=proxy.port)
        node.wait_log(r"Discord answers again through the REST proxy", timeout=20)
        fake._wait(lambda: harness.store_counts(db)[1] == 0, 20,
                   "the waiting board was not sent")
        assert len(fake.channel_messages(C0)) > posted
        nonces_once(fake, C0)
        room.step()
        assert room.human_moves() == moves + 2
        assert fake.violations == [], fake.violations
        no_token_in_process_lists()
    finally:
        node.stop()
        proxy.stop()
        fake.stop()
        schema.drop()


def write_clock(path, t):
    with open(path + ".tmp", "w") as f:
        f.write(str(t))
    os.replace(path + ".tmp", path)


def reminders(fake, chan):
    return [m for m in fake.channel_messages(chan) if "Reminder" in m.get("content", "")]


def test_kill9_shard_and_restart():
    """Two processes with DISCORD_SHARD=auto/2 take one shard each.  One is
    killed (kill -9) right after a move was sent to its guild; while it is
    down the other goes on, and also sends the dead shard's reminder; the
    restarted process takes the free shard once the dead one's lease
    expires.  No acknowledged move is lost, none is applied twice, nothing
    is posted twice, every reminder is sent once, both games end."""
    clock = os.path.join(tempfile.mkdtemp(prefix="tabula-clock-"), "now")
    t0 = 1700000000
    write_clock(clock, t0)
    fake = new_discord_fake()
    schema = pg.Schema()
    db = schema.uri
    extra = {"TABULA_TEST_CLOCK": clock}
    na = discord_node("a", fake, db, "auto/2", extra)
    nb = discord_node("b", fake, db, "auto/2", extra)
    try:
        fake.wait_shards_ready(2, timeout=20 * SLOW)
        rooms = {0: Room(fake, db, C0, G0, "100000000000000001", "ana"),
                 1: Room(fake, db, C1, G1, "100000000000000002", "ben")}
        for r in rooms.values():
            r.open()
            for _ in range(4):
                r.step()
        # which process serves shard 1?
        na.wait_log(r"serving shard \d of 2")
        victim = na if re.search(r"serving shard 1 of 2", na.log()) else nb
        survivor = nb if victim is na else na
        assert re.search(r"serving shard 0 of 2", survivor.log()), survivor.log()[-2000:]
        r1 = rooms[1]
        moves_before = r1.human_moves()
        h = r1.send_move()
        time.sleep(random.Random(3).choice((0, 0.002, 0.01)))
        victim.kill9()
        # the move was acknowledged or not; it is stored at most once
        n = r1.human_moves()
        assert moves_before <= n <= moves_before + 1, (moves_before, n)
        answered = h.callback is not None
        if answered:
            assert n == moves_before + 1, "an answered move was lost"
        # shard 0 goes on while shard 1 is down
        rooms[0].step()
        # 25 idle hours: shard 1's game is reminded by the survivor
        write_clock(clock, t0 + 25 * 3600)
        survivor.proc.send_signal(signal.SIGUSR1)
        fake._wait(lambda: len(reminders(fake, C1)) >= 1 and len(reminders(fake, C0)) >= 1,
                   10 * SLOW, lambda: "no reminders: %d %d" % (len(reminders(fake, C0)),
                                                               len(reminders(fake, C1))))
        # the restarted process waits for the dead one's lease, then
        # takes the free shard
        restarted = discord_node("a2" if victim is na else "b2", fake, db, "auto/2", extra)
        restarted.wait_log(r"serving shard 1 of 2", timeout=20)
        fake.wait_shards_ready(2, timeout=20 * SLOW)
        survivor.proc.send_signal(signal.SIGUSR1)
        restarted.proc.send_signal(signal.SIGUSR1)
        time.sleep(0.5 * SLOW)
        assert len(reminders(fake, C0)) == 1, len(reminders(fake, C0))
        assert len(reminders(fake, C1)) == 1, len(reminders(fake, C1))
        # both games to their end; every move stored once
        steps = 0
        while any([r.step() for r in rooms.values() if not r.over()]):
            steps += 1
            assert steps < 2000, "the games did not end"
        for r in rooms.values():
            assert r.over()
            # every move answered is stored, and no move twice: the human
            # moves stored are the moves sent, less at most the one the
            # kill may have cut before it was stored
            assert r.sent - 1 <= r.human_moves() <= r.sent, (r.chan, r.sent, r.human_moves())
        assert harness.store_counts(db)[1] == 0, "messages left undelivered"
        for r in rooms.values():
            nonces_once(fake, r.chan)
        assert fake.violations == [], fake.violations
        restarted.stop()
    finally:
        survivor.stop()
        fake.stop()
        schema.drop()


def mx_players(fake, n, names=("Ana", "Ben")):
    return [fake.register_user("p%d" % i, names[i]) for i in range(n)]


def mx_moves(fake, room, user):
    """The move ids of user's last private move list (the bot DMs it)."""
    dm = fake.dm_room(user)
    if not dm:
        return []
    for m in reversed(fake.bot_messages(dm)):
        body = m.get("body", "")
        if "Your moves" in body:
            return [mm.group(1) for mm in re.finditer(r"^\s*\d+\. (.+?)(?:  — .*)?$", body,
                                                       re.M)]
    return []


def test_matrix_standby_takes_over():
    """Two processes configured for Matrix on one store: the one holding
    the lease syncs, the other stands by.  kill -9 of the holder: the
    standby takes the lease within a few seconds and the game goes on;
    every command is handled once (none twice, none lost) and the bot's
    messages are not sent twice."""
    fake = new_matrix_fake()
    schema = pg.Schema()
    db = schema.uri
    env = matrix_env(fake)
    a = Node("mx-a", db, env)
    a.wait_log(r"holds matrix now")
    b = Node("mx-b", db, env)
    try:
        b.wait_log(r"matrix is another process's: standing by")
        assert "holds matrix" not in b.log()
        ps = mx_players(fake, 1)
        room = fake.create_room(ps[0], name="Fortuna night")
        fake.invite_bot(room, ps[0])
        fake._wait(lambda: room in fake.bot_rooms(), 10 * SLOW, lambda: "the bot did not join")
        sent = 0

        def say(text):
            fake.say(ps[0], room, text)

        say("!game new fortuna")
        say("!game addbot")
        say("!game start")
        rng = random.Random(9)
        moves = 0
        for i in range(6):
            before = harness.store_counts(db)[0]
            say("!moves")
            fake._wait(lambda: len(mx_moves(fake, room, ps[0])) > 0, 10 * SLOW,
                       lambda: "no move list")
            ids = mx_moves(fake, room, ps[0])
            say("!play %s" % make_transcript.pick(rng, ids, "fortuna"))
            sent += 1
            harness.wait_settled(db, before, what="move %d" % i)
            moves = pg.scalar(db, "SELECT count(*) FROM actions WHERE \"user\" <> ''")
            assert moves == sent, (moves, sent)
        # the holder dies with a move just sent: it handled it (and stored
        # it with the sync position) or not (the new holder reads it)
        say("!moves")
        fake._wait(lambda: len(mx_moves(fake, room, ps[0])) > 0, 10 * SLOW,
                   lambda: "no move list")
        fake._wait(lambda: harness.store_counts(db)[1] == 0, 10 * SLOW, lambda: "outbox")
        say("!play %s" % make_transcript.pick(rng, mx_moves(fake, room, ps[0]), "fortuna"))
        sent += 1
        sent_before_kill = sent
        t_kill = time.monotonic()
        a.kill9()
        b.wait_log(r"holds matrix now", timeout=20)
        took = time.monotonic() - t_kill
        assert took < (LEASE_MS / 1000.0 + 5) * SLOW, "took over after %.1f s" % took
        fake._wait(lambda: pg.scalar(db, "SELECT count(*) FROM actions WHERE \"user\" <> ''")
                   == sent, 10 * SLOW, lambda: "the move sent at the kill is not stored once")
        fake._wait(lambda: harness.store_counts(db)[1] == 0, 10 * SLOW,
                   lambda: "messages left undelivered after the takeover")
        # the game goes on under the new holder
        for i in range(4):
            before = harness.store_counts(db)[0]
            n_lists = len([m for m in fake.bot_messages(fake.dm_room(ps[0]))
                           if "Your moves" in m.get("body", "")])
            say("!moves")
            fake._wait(lambda: len([m for m in fake.bot_messages(fake.dm_room(ps[0]))
                                    if "Your moves" in m.get("body", "")]) > n_lists,
                       15 * SLOW, lambda: "no move list from the new holder")
            ids = mx_moves(fake, room, ps[0])
            say("!play %s" % make_transcript.pick(rng, ids, "fortuna"))
            sent += 1
            harness.wait_settled(db, before, what="move %d after the takeover" % i)
        moves = pg.scalar(db, "SELECT count(*) FROM actions WHERE \"user\" <> ''")
        assert moves == sent, "moves stored %d, sent %d (before the kill %d)" % (
            moves, sent, sent_before_kill)
        assert harness.store_counts(db)[1] == 0
        # a resent message carries its transaction id: the homeserver
        # keeps one event for it
        assert not fake.violations, fake.violations
        # the new holder opened the keys its predecessor sealed in the
        # store (MATRIX_PICKLE_KEY): every private message still decrypts
        assert not fake.undecryptable, fake.undecryptable[:3]
        assert pg.scalar(db, "SELECT count(*) FROM leases WHERE name = 'matrix'") == 1
    finally:
        b.stop()
        fake.stop()
        schema.drop()


def test_matrix_on_postgres_needs_the_pickle_key():
    """With a shared store, a Matrix process without MATRIX_PICKLE_KEY
    stops at once with a clear error (exit 2): a key file beside one
    process would not open the keys for its standby on another machine."""
    fake = FakeMatrix(bot_password=PASSWORD).start()
    schema = pg.Schema()
    a = Node("mx-nokey", schema.uri, fake.env())
    try:
        rc = a.proc.wait(timeout=20 * SLOW)
        assert rc == 2, (rc, a.log()[-2000:])
        assert "MATRIX_PICKLE_KEY must be set" in a.log(), a.log()[-2000:]
        a.stop(expect=2)
    finally:
        if a.proc.poll() is None:
            a.proc.kill()
        fake.stop()
        schema.drop()


def test_lost_lease_exits_26():
    """A process whose lease another process takes over (as after a
    network split) stops with exit status 26 and writes nothing more."""
    fake = new_matrix_fake()
    schema = pg.Schema()
    db = schema.uri
    a = Node("mx-a", db, matrix_env(fake))
    try:
        a.wait_log(r"holds matrix now")
        # another holder takes the lease from under it (what a split and
        # an expiry amount to)
        pg.query(db, "UPDATE leases SET holder = 'node.elsewhere', until ="
                 " tabula_now_ms() + 600000 WHERE name = 'matrix'")
        a.wait_log(r"lost the lease matrix", timeout=10)
        rc = a.proc.wait(timeout=20 * SLOW)
        assert rc == 26, (rc, a.log()[-2000:])
        a.stop(expect=26)
    finally:
        if a.proc.poll() is None:
            a.proc.kill()
        fake.stop()
        schema.drop()


def test_supervisor_starts_recommended_shards():
    """scripts/tabula-shards.sh asks GET /gateway/bot how many shards
    Discord wants, starts that many processes (DISCORD_SHARD=i/n) and stops
    them all on SIGTERM."""
    fake = new_discord_fake()
    schema = pg.Schema()
    env = {k: v for k, v in os.environ.items()
           if not k.startswith(("DISCORD_", "MATRIX_", "TABULA_"))}
    env.update(fake.env())
    env.update({"DISCORD_TOKEN": TOKEN, "TABULA_DB": schema.uri, "TABULA_BIN": BIN,
                "TABULA_LOG": "info", "TABULA_LEASE_MS": str(int(LEASE_MS * SLOW))})
    logdir = tempfile.mkdtemp(prefix="tabula-shards-")
    with open(os.path.join(logdir, "out"), "wb") as out:
        sup = subprocess.Popen(["sh", os.path.join(HERE, "..", "..", "scripts",
                                                   "tabula-shards.sh")],
                               env=env, stdout=out, stderr=subprocess.STDOUT,
                               start_new_session=True)
        try:
            fake.wait_shards_ready(2, timeout=20 * SLOW)
            sup.send_signal(signal.SIGTERM)
            rc = sup.wait(timeout=30 * SLOW)
            assert rc == 0, rc
            fake._wait(lambda: all(c.closed for c in list(fake._conns)), 10 * SLOW,
                       lambda: "a shard process is still connected")
        finally:
            if sup.poll() is None:
                os.killpg(sup.pid, signal.SIGKILL)
    with open(os.path.join(logdir, "out"), "rb") as f:
        text = f.read().decode("utf-8", "replace")
    assert "2 shards" in text, text[-2000:]
    assert TOKEN not in text
    # the script's own request has the bot's User-Agent (the fake checks
    # the form)
    assert fake.violations == [], fake.violations
    fake.stop()
    schema.drop()


# ---- config/tabula@.service and config/tabula.env.example, as shipped ----

CONFIG = os.path.join(HERE, "..", "..", "config")
UNIT = os.path.join(CONFIG, "tabula@.service")
ENV_EXAMPLE = os.path.join(CONFIG, "tabula.env.example")


def unit_sections(path):
    """{section: [(key, value), ...]} of a systemd unit file."""
    out, cur = {}, None
    with open(path) as f:
        for line in f:
            line = line.strip()
            if not line or line.startswith(("#", ";")):
                continue
            if line.startswith("["):
                cur = out.setdefault(line.strip("[]"), [])
                continue
            k, sep, v = line.partition("=")
            assert sep and cur is not None, "%s: not KEY=VALUE: %r" % (path, line)
            cur.append((k.strip(), v.strip()))
    return out


def env_file(path):
    """An EnvironmentFile's assignments, as systemd reads them (no quotes
    are used in ours: a quote would be a mistake)."""
    out = {}
    with open(path) as f:
        for line in f:
            line = line.strip()
            if not line or line.startswith(("#", ";")):
                continue
            k, sep, v = line.partition("=")
            assert sep and re.fullmatch(r"[A-Z_][A-Z0-9_]*", k), "%s: %r" % (path, line)
            assert '"' not in v and "'" not in v, "%s: quotes in %r" % (path, line)
            out[k] = v
    return out


def exec_start(value, instance, env):
    """ExecStart= as systemd runs it: %i is the instance, ${VAR} the
    environment's, then split at white space."""
    assert "%" not in value.replace("%i", ""), "a specifier other than %%i: %r" % value
    value = value.replace("%i", instance)
    unknown = [v for v in re.findall(r"\$\{(\w+)\}", value) if v not in env]
    assert not unknown, "ExecStart= uses %r, which the environment file lacks" % unknown
    return re.sub(r"\$\{(\w+)\}", lambda m: env[m.group(1)], value).split()


def test_systemd_unit_runs_the_shards():
    """config/tabula@.service with config/tabula.env.example, run the way
    systemd runs them (the environment file, ExecStart= with %i and
    ${TABULA_SHARDS} expanded): tabula@0 and tabula@1 serve Discord shards
    0/2 and 1/2 of one PostgreSQL store, each guild's game goes to its
    shard, and SIGTERM (the unit's KillSignal) stops each with exit 0, which
    Restart=on-failure does not restart.  systemd-analyze verify, where
    installed, finds nothing to say about the unit."""
    unit = unit_sections(UNIT)
    svc = dict(unit["Service"])
    assert svc["Restart"] == "on-failure" and svc["KillSignal"] == "SIGTERM", svc
    assert svc["EnvironmentFile"] == "/etc/tabula/tabula.env", svc
    # what keeps the bot's files and the token file private (docs/reliability.md)
    for k, v in (("LimitCORE", "0"), ("UMask", "0077"), ("User", "tabula"),
                 ("ProtectSystem", "strict"), ("StateDirectory", "tabula"),
                 ("StateDirectoryMode", "0700"), ("NoNewPrivileges", "yes")):
        assert svc.get(k) == v, (k, svc.get(k))
    envf = env_file(ENV_EXAMPLE)
    assert envf["TABULA_SHARDS"] == "2" and pg.is_pg(envf["TABULA_DB"]), envf
    assert "DISCORD_TOKEN" in envf
    if shutil.which("systemd-analyze"):
        d = tempfile.mkdtemp(prefix="tabula-unit-")
        with open(UNIT) as f:
            text = f.read().replace("/etc/tabula/tabula.env", os.path.join(d, "env"))
        with open(os.path.join(d, "tabula@.service"), "w") as f:
            f.write(text)
        shutil.copy(ENV_EXAMPLE, os.path.join(d, "env"))
        os.symlink("tabula@.service", os.path.join(d, "tabula@0.service"))
        p = subprocess.run(["systemd-analyze", "verify", "--man=no",
                            os.path.join(d, "tabula@0.service")],
                           capture_output=True, text=True, timeout=60)
        said = [ln for ln in (p.stdout + p.stderr).splitlines()
                if "/usr/local/bin/tabula" not in ln]     # not installed here
        assert p.returncode == 0 and not said, p.stdout + p.stderr
    else:
        print("     (systemd-analyze is not installed: the unit was checked by this test only)")
    fake = new_discord_fake()
    schema = pg.Schema()
    # the file's settings, with the test's store, token and endpoints
    env = dict(envf)
    env.update({"TABULA_DB": schema.uri, "DISCORD_TOKEN": TOKEN})
    env.update(fake.env())
    base = {k: v for k, v in os.environ.items()
            if not k.startswith(("DISCORD_", "MATRIX_", "TABULA_"))}
    base.update(env)
    nodes = []
    try:
        for i in ("0", "1"):
            argv = exec_start(svc["ExecStart"], i, env)
            assert argv[-1] == "/usr/local/bin/tabula", argv
            argv[-1] = os.path.abspath(BIN)
            nodes.append(Node("tabula@" + i, schema.uri,
                              {"DISCORD_TOKEN": TOKEN, "TABULA_DB": schema.uri},
                              argv=argv, base_env=base))
        fake.wait_shards_ready(2, timeout=20 * SLOW)
        for i, n in enumerate(nodes):
            n.wait_log(r"holds discord\.shard\.%d\.2 now" % i)
        rooms = [Room(fake, schema.uri, C0, G0, "100000000000000001", "ana"),
                 Room(fake, schema.uri, C1, G1, "100000000000000002", "ben")]
        for r in rooms:
            r.open()
            r.step()
        owners = owners_by_room(schema.uri)
        assert owners[C0] == {nodes[0].node_id()}, owners
        assert owners[C1] == {nodes[1].node_id()}, owners
        assert fake.violations == [], fake.violations
    finally:
        for n in nodes:
            n.stop(expect=0)
        fake.stop()
        schema.drop()


# the exit statuses that mean "this would only fail again" (README.md)
CONFIG_ERRORS = {2, 14, 15, 16, 20, 21, 22, 23, 24, 25}


PROXY_UNIT = os.path.join(CONFIG, "tabula-discord-proxy.service")


def test_systemd_unit_runs_the_proxy():
    """config/tabula-discord-proxy.service run the way systemd runs it (its
    Environment= lines, ExecStart= with the script where the comment
    installs it): the proxy listens on a Unix socket that only its user and
    group may use, a shard on unix:<socket> with DISCORD_API_PROXY=1 plays
    through it, and SIGTERM stops it with 0.  tabula@.service starts after
    it.  systemd-analyze verify, where installed, finds nothing to say."""
    unit = unit_sections(PROXY_UNIT)
    svc = dict(unit["Service"])
    assert svc["User"] == "tabula" and svc["RuntimeDirectory"] == "tabula-discord-proxy", svc
    assert svc["Restart"] == "always" and svc["KillSignal"] == "SIGTERM", svc
    env = dict(v.split("=", 1) for k, v in unit["Service"] if k == "Environment")
    assert env["DISCORD_PROXY_LISTEN"] == "/run/tabula-discord-proxy/proxy.sock", env
    assert env["DISCORD_PROXY_GLOBAL"] == "50", env
    argv = svc["ExecStart"].split()
    assert argv == ["/usr/bin/node", "/usr/local/lib/tabula/discord-proxy/proxy.mjs"], argv
    assert "tabula-discord-proxy.service" in dict(unit_sections(UNIT)["Unit"])["After"]
    if shutil.which("systemd-analyze"):
        p = subprocess.run(["systemd-analyze", "verify", "--man=no", PROXY_UNIT],
                           capture_output=True, text=True, timeout=60)
        said = [ln for ln in (p.stdout + p.stderr).splitlines()
                if "/usr/local/lib/tabula" not in ln and "/usr/bin/node" not in ln]
        assert p.returncode == 0 and not said, p.stdout + p.stderr
    # the runtime directory, as systemd makes it, in a temporary place
    run = tempfile.mkdtemp(prefix="tabula-run-")
    sock = os.path.join(run, "proxy.sock")
    fake = new_discord_fake()
    proxy = Proxy(fake, 50, argv=[shutil.which("node") or "node", PROXY_JS],
                  env_extra=dict(env, DISCORD_PROXY_LISTEN=sock))
    schema = pg.Schema()
    db = schema.uri
    node = discord_node("solo", fake, db, "0/1",
                        {"DISCORD_API_URL": proxy.url, "DISCORD_API_PROXY": "1",
                         "TABULA_TEST_DISCORD_DIRECT_URL": fake.api_url})
    try:
        assert proxy.url == "unix:" + sock, proxy.url
        assert oct(os.stat(sock).st_mode & 0o777) == "0o660"
        fake.wait_ready(20 * SLOW)
        room = Room(fake, db, C0, G0, "100000000000000001", "ana")
        room.open()
        room.step()
        posts = [q for q in fake.requests if q.path == "/channels/%s/messages" % C0]
        assert posts and all("discord.js" in q.headers.get("user-agent", "") for q in posts)
        assert fake.violations == [], fake.violations
    finally:
        node.stop()
        proxy.proc.send_signal(signal.SIGTERM)
        assert proxy.proc.wait(timeout=10 * SLOW) == 0
        proxy.stop()
        fake.stop()
        schema.drop()


def test_restart_rules_agree():
    """The unit and scripts/tabula-shards.sh restart a process unless its
    exit status is a configuration error (the same list in both); a crash
    (1), a store that went away (3) and a lost lease (26) are restarted.
    The supervisor is shown to restart a shard that exits 26 and to leave
    one that exits 2 alone."""
    svc = dict(unit_sections(UNIT)["Service"])
    assert {int(x) for x in svc["RestartPreventExitStatus"].split()} == CONFIG_ERRORS, svc
    with open(os.path.join(HERE, "..", "..", "scripts", "tabula-shards.sh")) as f:
        script = f.read()
    m = re.search(r"^\s*((?:\d+ \| )*\d+)\)\s*$", script, re.M)
    assert m, "no case of configuration errors in tabula-shards.sh"
    assert {int(x) for x in m.group(1).split(" | ")} == CONFIG_ERRORS, m.group(0)
    # the supervisor with a stand-in binary: shard 0 exits 26 once, then
    # stays up; shard 1 exits 2
    d = tempfile.mkdtemp(prefix="tabula-shards-")
    fakebin = os.path.join(d, "tabula")
    with open(fakebin, "w") as f:
        f.write("#!/bin/sh\n"
                "echo \"start $DISCORD_SHARD\" >> %s/starts\n"
                "case $DISCORD_SHARD in\n"
                "0/2) [ -e %s/once ] && exec sleep 60; touch %s/once; exit 26 ;;\n"
                "*) exit 2 ;;\n"
                "esac\n" % (d, d, d))
    os.chmod(fakebin, 0o755)
    env = {k: v for k, v in os.environ.items()
           if not k.startswith(("DISCORD_", "MATRIX_", "TABULA_"))}
    env.update({"DISCORD_TOKEN": TOKEN, "TABULA_DB": "postgresql:///x", "TABULA_BIN": fakebin})
    with open(os.path.join(d, "out"), "wb") as out:
        sup = subprocess.Popen(["sh", os.path.join(HERE, "..", "..", "scripts",
                                                   "tabula-shards.sh"), "2"],
                               env=env, stdout=out, stderr=subprocess.STDOUT,
                               start_new_session=True)
        try:
            def starts():
                try:
                    with open(os.path.join(d, "starts")) as f:
                        return f.read().split("\n")
                except FileNotFoundError:
                    return []
            end = time.monotonic() + 15 * SLOW
            while starts().count("start 0/2") < 2 and time.monotonic() < end:
                time.sleep(0.1)
            time.sleep(2.5)     # two more supervision rounds
            assert starts().count("start 0/2") == 2, starts()
            assert starts().count("start 1/2") == 1, starts()
            sup.send_signal(signal.SIGTERM)
            assert sup.wait(timeout=20 * SLOW) == 0
        finally:
            if sup.poll() is None:
                os.killpg(sup.pid, signal.SIGKILL)
    with open(os.path.join(d, "out"), "rb") as f:
        text = f.read().decode("utf-8", "replace")
    assert "shard 0 exited 26; restarting it" in text, text
    assert "shard 1 exited 2 (a configuration error)" in text, text


# The same columns in PostgreSQL as snapshot_sqlite() reads.
PG_SNAPSHOT = {
    "sessions": "SELECT id, platform, room, game, options, creator, locale, status, seed,"
                " version, created, updated, state, settings, due, votes FROM sessions"
                " ORDER BY id",
    "seats": "SELECT session, seat, \"user\", name, is_bot, notify_dm FROM seats"
             " ORDER BY session, seat",
    "actions": "SELECT session, seq, seat, move, \"user\", at FROM actions"
               " ORDER BY session, seq",
    "outbox": "SELECT id, platform, room, \"user\", coalesce(key, ''), payload, created,"
              " CASE WHEN sent_at IS NULL THEN 1 ELSE 0 END FROM outbox ORDER BY id",
    "cursors": "SELECT key, value FROM cursors ORDER BY key",
}


def got_rows(uri, kind):
    """The rows of kind in PostgreSQL, each a tuple of its columns' text."""
    n = len(re.split(r",(?![^(]*\))", PG_SNAPSHOT[kind].split(" FROM ")[0]))
    return [tuple(r) + ("",) * (n - len(r)) for r in pg.query(uri, PG_SNAPSHOT[kind])]


def test_migrate_store_sqlite_to_postgres():
    """tabula --migrate-store copies a SQLite store, played by the console,
    into PostgreSQL: every session, seat, action, outbox row, cursor and
    vote; a bot on the copy goes on with the game; a non-empty target is
    refused and left alone."""
    d = tempfile.mkdtemp(prefix="tabula-mig-")
    src = os.path.join(d, "old.db")
    env = {k: v for k, v in os.environ.items() if not k.startswith(("DISCORD_", "MATRIX_",
                                                                      "TABULA_"))}
    env.update({"TABULA_DB": src, "TABULA_SEED": "3"})
    # a game in play with moves, messages, and ben's vote to abort (stored:
    # one of three is not a majority)
    script = "\n".join(["ana: game new fortuna", "ben: game join", "dan: game join",
                        "ana: game start", "ana: play 1", "ben: play 1", "dan: play 1",
                        "ben: game abort", ""])
    p = subprocess.run([BIN], env=env, input=script.encode(), capture_output=True, timeout=60)
    assert p.returncode == 0, p.stderr
    con = sqlite3.connect(src)
    con.execute("INSERT INTO cursors VALUES ('matrix.since', 's72_abc')")
    con.commit()

    def snapshot_sqlite():
        return {
            "sessions": con.execute("SELECT id, platform, room, game, options, creator, locale,"
                                    " status, seed, version, created, updated, state, settings,"
                                    " due, votes FROM sessions ORDER BY id").fetchall(),
            "seats": con.execute("SELECT session, seat, user, name, is_bot, notify_dm FROM seats"
                                 " ORDER BY session, seat").fetchall(),
            "actions": con.execute("SELECT session, seq, seat, move, user, at FROM actions"
                                   " ORDER BY session, seq").fetchall(),
            "outbox": con.execute("SELECT id, platform, room, user, coalesce(key, ''), payload,"
                                  " created, sent_at IS NULL FROM outbox ORDER BY id").fetchall(),
            "cursors": con.execute("SELECT key, value FROM cursors ORDER BY key").fetchall(),
        }
    want = snapshot_sqlite()
    con.close()
    assert want["actions"] and want["outbox"] and any(r[15] for r in want["sessions"]), \
        "the source should hold actions, messages and a vote"
    schema = pg.Schema()
    try:
        p = subprocess.run([BIN, "--migrate-store", src, schema.uri], env=env,
                           capture_output=True, timeout=60)
        assert p.returncode == 0, p.stderr
        out = p.stdout.decode()
        assert "%d sessions" % len(want["sessions"]) in out, out
        assert "%d actions" % len(want["actions"]) in out, out
        # psql prints NULL and '' alike: everything compared as text
        for k in want:
            w = [tuple("" if x is None else str(x) for x in row) for row in want[k]]
            assert w == got_rows(schema.uri, k), k
        # a second copy into the same store is refused, and changes nothing
        p = subprocess.run([BIN, "--migrate-store", src, schema.uri], env=env,
                           capture_output=True, timeout=60)
        assert p.returncode == 3, p.returncode
        assert b"not empty" in p.stderr, p.stderr
        assert pg.scalar(schema.uri, "SELECT count(*) FROM sessions") == len(want["sessions"])
        # the bot goes on from the copy: the vote counts on (dan's makes
        # two of three)
        env2 = dict(env, TABULA_DB=schema.uri)
        p = subprocess.run([BIN], env=env2, input=b"dan: game abort\n", capture_output=True,
                           timeout=60)
        assert p.returncode == 0, p.stderr
        assert b"aborted" in p.stdout, p.stdout[-500:]
        # and back: PostgreSQL into a new SQLite file
        back = os.path.join(d, "back.db")
        p = subprocess.run([BIN, "--migrate-store", schema.uri, back], env=env,
                           capture_output=True, timeout=60)
        assert p.returncode == 0, p.stderr
        con = sqlite3.connect(back)
        assert con.execute("SELECT count(*) FROM actions").fetchone()[0] == len(want["actions"])
        con.close()
    finally:
        schema.drop()


def test_backups_restore():
    """docs/deploy.md's backups work: pg_dump -Fc of a store the bot
    played in, restored with pg_restore into a new database, is the same
    row for row and the bot goes on from it; SQLite's online backup taken
    while the bot runs (Python's sqlite3 uses the same API as the sqlite3
    shell's .backup) is a store the bot goes on from."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("DISCORD_", "MATRIX_",
                                                                      "TABULA_"))}
    env["TABULA_SEED"] = "3"
    # three players, one move each, and ben's vote to abort (one of three)
    script = ["ana: game new fortuna", "ben: game join", "dan: game join", "ana: game start",
              "ana: play 1", "ben: play 1", "dan: play 1", "ben: game abort"]
    d = tempfile.mkdtemp(prefix="tabula-backup-")
    schema = pg.Schema()
    db = "restore_%d" % os.getpid()
    server = pg.server()
    m = re.match(r"(postgresql://[^?]*/)tabula\?(.*)$", server)
    assert m, server
    restored = "%s%s?%s" % (m.group(1), db, m.group(2))
    restored_store = "%s&options=-csearch_path%%3D%s" % (restored, schema.name)
    try:
        p = subprocess.run([BIN], env=dict(env, TABULA_DB=schema.uri),
                           input="\n".join(script + [""]).encode(), capture_output=True,
                           timeout=60)
        assert p.returncode == 0, p.stderr
        dump = os.path.join(d, "tabula.dump")
        p = subprocess.run(["pg_dump", "-Fc", "-n", schema.name, "-f", dump, "-d", server],
                           capture_output=True, text=True, timeout=60)
        assert p.returncode == 0, p.stderr
        pg.query(server, "CREATE DATABASE %s" % db)
        p = subprocess.run(["pg_restore", "-d", restored, dump], capture_output=True, text=True,
                           timeout=60)
        assert p.returncode == 0, p.stderr
        for k in PG_SNAPSHOT:
            assert got_rows(schema.uri, k) == got_rows(restored_store, k), k
        assert got_rows(restored_store, "actions"), "nothing was played before the dump"
        c = pg._conns.pop(restored_store, None)
        if c:
            c.close()
        # the bot goes on from the restored store: dan's vote makes two of three
        p = subprocess.run([BIN], env=dict(env, TABULA_DB=restored_store),
                           input=b"dan: game abort\n", capture_output=True, timeout=60)
        assert p.returncode == 0, p.stderr
        assert b"aborted" in p.stdout, p.stdout[-500:]
    finally:
        schema.drop()
        pg.query(server, "DROP DATABASE IF EXISTS %s" % db)
    # SQLite: the online backup while the bot runs and goes on committing
    src, copy = os.path.join(d, "live.db"), os.path.join(d, "copy.db")
    bot = subprocess.Popen([BIN], env=dict(env, TABULA_DB=src), stdin=subprocess.PIPE,
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    try:
        bot.stdin.write("\n".join(script + [""]).encode())
        bot.stdin.flush()
        end = time.monotonic() + 20 * SLOW
        votes = 0
        while time.monotonic() < end:
            if os.path.exists(src):
                con = sqlite3.connect(src)
                try:
                    votes = con.execute("SELECT count(*) FROM sessions WHERE votes <> ''"
                                        " AND votes <> '{}'").fetchone()[0]
                except sqlite3.OperationalError:
                    votes = 0
                con.close()
            if votes:
                break
            time.sleep(0.05)
        assert votes, "the bot did not store ben's vote"
        live = sqlite3.connect(src)
        out = sqlite3.connect(copy)
        live.backup(out)
        out.close()
        live.close()
        # the bot is still running: it commits more after the copy
        bot.stdin.write(b"ana: board\n")
        bot.stdin.close()
        assert bot.wait(timeout=30 * SLOW) == 0, bot.stderr.read()[-2000:]
    finally:
        if bot.poll() is None:
            bot.kill()
            bot.wait()
    p = subprocess.run([BIN], env=dict(env, TABULA_DB=copy), input=b"dan: game abort\n",
                       capture_output=True, timeout=60)
    assert p.returncode == 0, p.stderr
    assert b"aborted" in p.stdout, p.stdout[-500:]


if __name__ == "__main__":
    if len(sys.argv) > 1:
        BIN = sys.argv[1]
    sys.exit(harness.run_tests("cluster", sys.modules[__name__], sys.argv))
