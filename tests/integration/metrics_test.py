#!/usr/bin/env python3
"""The operators' HTTP listener (TABULA_HTTP, docs/deploy.md "Health and
metrics") through the real binary: /healthz, /readyz and /metrics on a
free loopback port, the exposition checked by `promtool check metrics`
(Debian's prometheus package, scripts/deps.sh), the counters moved by
commands played on the console and through the Discord fake, readiness
following the Discord gateway, bad requests refused, a public address
refused without TABULA_HTTP_PUBLIC, and no secret, room, user id or name
in any exposition line.  Nothing leaves 127.0.0.1.

usage: metrics_test.py ./tabula [test-name ...]
"""
import http.client
import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "fakes"))
sys.path.insert(0, HERE)
import harness  # noqa: E402
from harness import SLOW  # noqa: E402
from fake_discord import FakeDiscord  # noqa: E402

BIN = "./tabula"
TOKEN = "tk-SECRET.metrics-token.do-not-log-4c3b2a"
CHAN = "700000000000000001"
LISTEN_RE = re.compile(r"http: listening on (\S+):(\d+) ")
# a sample line: name{labels} value
SAMPLE_RE = re.compile(r'^([a-zA-Z_:][a-zA-Z0-9_:]*)(\{[^}]*\})? (\S+)$')


def clean_env():
    return {k: v for k, v in os.environ.items()
            if not k.startswith(("DISCORD_", "MATRIX_", "TABULA_"))}


class Bot:
    """A tabula process with TABULA_HTTP on a port the kernel picks (the
    bot logs it); stdin a pipe that stays open (the console runs until it
    is closed)."""

    def __init__(self, env_extra, listen="127.0.0.1:0"):
        self.dir = tempfile.mkdtemp(prefix="tabula-metrics-")
        env = clean_env()
        self.db = os.path.join(self.dir, "t.db")
        env.update({"TABULA_DB": self.db, "TABULA_SEED": "5",
                    "TABULA_LOG": "info", "TABULA_HTTP": listen})
        env.update(env_extra)
        self.errpath = os.path.join(self.dir, "stderr")
        self.err = open(self.errpath, "wb")
        self.console = "DISCORD_TOKEN" not in env_extra
        self.proc = subprocess.Popen([BIN], env=env, stdin=subprocess.PIPE,
                                     stdout=subprocess.DEVNULL, stderr=self.err)
        self.host, self.port = self.wait_listening()

    def stderr(self):
        with open(self.errpath, "rb") as f:
            return f.read().decode("utf-8", "replace")

    def wait_listening(self):
        end = time.monotonic() + 10 * SLOW
        while time.monotonic() < end:
            m = LISTEN_RE.search(self.stderr())
            if m:
                return m.group(1).strip("[]"), int(m.group(2))
            if self.proc.poll() is not None:
                raise AssertionError("the bot exited: %s" % self.stderr()[-2000:])
            time.sleep(0.02)
        raise AssertionError("no 'listening' line: %s" % self.stderr()[-2000:])

    def send(self, *lines):
        self.proc.stdin.write("".join(line + "\n" for line in lines).encode())
        self.proc.stdin.flush()

    def get(self, path, method="GET", body=None):
        c = http.client.HTTPConnection(self.host, self.port, timeout=10 * SLOW)
        try:
            c.request(method, path, body=body)
            r = c.getresponse()
            return r.status, r.read().decode("utf-8", "replace"), dict(r.getheaders())
        finally:
            c.close()

    def stop(self):
        try:
            self.proc.stdin.close()     # the console's end ends the bot
        except OSError:
            pass
        if not self.console and self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
        rc = self.proc.wait(timeout=20 * SLOW)
        self.err.close()
        log = self.stderr()
        shutil.rmtree(self.dir, ignore_errors=True)
        assert rc == 0, "exit %d: %s" % (rc, log[-2000:])
        return log


def promtool(text):
    """`promtool check metrics` on an exposition: its complaints, or ""."""
    p = subprocess.run(["promtool", "check", "metrics"], input=text.encode(),
                       capture_output=True, timeout=60)
    out = (p.stdout + p.stderr).decode("utf-8", "replace").strip()
    assert p.returncode == 0, "promtool refused the exposition:\n%s" % out
    return out


def samples(text):
    """{(name, labels text): value} of an exposition."""
    out = {}
    for line in text.splitlines():
        if not line or line.startswith("#"):
            continue
        m = SAMPLE_RE.match(line)
        assert m, "not a sample line: %r" % line
        out[(m.group(1), m.group(2) or "")] = float(m.group(3))
    return out


def value(s, name, **labels):
    """The sum of name's samples whose labels include labels."""
    total, found = 0.0, False
    for (n, lab), v in s.items():
        if n != name:
            continue
        if all('%s="%s"' % (k, val) in lab for k, val in labels.items()):
            total += v
            found = True
    assert found, "no sample %s%r" % (name, labels)
    return total


def wait_metric(bot, pred, what, timeout=20):
    """Scrapes until pred(samples) holds (the counters move with events)."""
    end = time.monotonic() + timeout * SLOW
    while True:
        status, text, _ = bot.get("/metrics")
        assert status == 200, status
        s = samples(text)
        if pred(s):
            return text, s
        if time.monotonic() > end:
            raise AssertionError("%s never held; last exposition:\n%s" % (what, text[:4000]))
        time.sleep(0.05)


def no_private(text, words):
    for w in words:
        assert w not in text, "%r appears in the exposition" % w


def test_console_metrics_promtool():
    """Commands played on the console move the counters (by platform and
    outcome: stored moves ok, an unknown command refused, help answered),
    the command and commit histograms count them, the open game shows by
    game and state; every scrape passes promtool; /healthz and /readyz
    answer 200 (the console has nothing to connect); HEAD has the headers
    and no body; no player name or room appears."""
    bot = Bot({})
    try:
        status, body, _ = bot.get("/healthz")
        assert (status, body) == (200, "ok\n"), (status, body)
        status, body, _ = bot.get("/readyz")
        assert (status, body) == (200, "ready\n"), (status, body)
        status, text, hdrs = bot.get("/metrics")
        assert status == 200 and hdrs["content-type"].startswith("text/plain; version=0.0.4")
        promtool(text)
        s = samples(text)
        assert value(s, "tabula_commands_total") == 0
        bot.send("anastasia: game new fortuna", "benedikt: game join", "cyrillus: game join",
                 "anastasia: game start", "anastasia: frobnicate now", "benedikt: help")
        # the store's figures are read at most once a second
        text, s = wait_metric(
            bot, lambda s: value(s, "tabula_commands_total", platform="console") >= 6 and
            value(s, "tabula_games", game="fortuna", state="active") == 1,
            "six console commands counted, the game open")
        promtool(text)
        assert value(s, "tabula_commands_total", platform="console", outcome="ok") == 4
        assert value(s, "tabula_commands_total", platform="console", outcome="refused") == 1
        assert value(s, "tabula_commands_total", platform="console", outcome="answered") == 1
        assert value(s, "tabula_command_duration_seconds_count", platform="console") == 6
        assert value(s, "tabula_command_duration_seconds_bucket", platform="console",
                     le="+Inf") == 6
        assert value(s, "tabula_store_commit_duration_seconds_count") >= 4
        assert value(s, "tabula_store_commits_total", outcome="ok") >= 4
        assert value(s, "tabula_games", game="fortuna", state="active") == 1
        assert value(s, "tabula_games", game="fortuna", state="lobby") == 0
        assert value(s, "tabula_outbox_pending") == 0
        assert value(s, "tabula_build_info") == 1
        assert value(s, "tabula_http_requests_total", route="metrics", status="2xx") >= 2
        no_private(text, ["anastasia", "benedikt", "cyrillus", "frobnicate"])
        # HEAD: the same headers, no body
        status, body, hdrs = bot.get("/metrics", method="HEAD")
        assert status == 200 and body == "" and int(hdrs["content-length"]) > 1000
    finally:
        bot.stop()


def raw(bot, data, read=True):
    """Sends bytes on a fresh connection; returns what came back before the
    bot closed it (b"" when it closed at once)."""
    s = socket.create_connection((bot.host, bot.port), timeout=15 * SLOW)
    try:
        s.sendall(data)
        if not read:
            return s
        out = b""
        while True:
            try:
                d = s.recv(65536)
            except ConnectionResetError:
                break
            if not d:
                break
            out += d
        return out
    finally:
        if read:
            s.close()


def wait_seats(db, n):
    """Waits until the store holds an open game with n seats."""
    import sqlite3
    end = time.monotonic() + 10 * SLOW
    while True:
        con = sqlite3.connect("file:%s?mode=ro" % db, uri=True, timeout=10)
        try:
            got = con.execute("SELECT count(*) FROM seats").fetchone()[0]
        except sqlite3.OperationalError:
            got = 0
        finally:
            con.close()
        if got >= n:
            return
        assert time.monotonic() < end, "%d seats, wanted %d" % (got, n)
        time.sleep(0.02)


def test_bad_requests_refused():
    """An unknown path is 404, another method 405 (with Allow), oversized
    headers end the connection without an answer, a request that never
    completes is dropped after the time-out, silent connections do not hold
    up the others; through all of it the bot goes on answering commands and
    scrapes, and the refusals are counted by status."""
    bot = Bot({})
    try:
        status, body, _ = bot.get("/nope")
        assert status == 404, status
        status, body, hdrs = bot.get("/metrics", method="POST", body="x" * 100)
        assert status == 405 and hdrs.get("allow") == "GET, HEAD", (status, hdrs)
        assert hdrs.get("connection") == "close", hdrs
        # a large body is not read: the answer, then the connection ends
        out = raw(bot, b"POST /metrics HTTP/1.1\r\nHost: x\r\nContent-Length: 10000000\r\n\r\n" +
                  b"y" * 65536)
        assert out.startswith(b"HTTP/1.1 405 "), out[:100]
        status, body, _ = bot.get("/healthz?verbose=1")
        assert status == 200, status        # the query is ignored
        out = raw(bot, b"GET /healthz HTTP/1.1\r\nHost: x\r\nX-Big: " + b"a" * 20000 +
                  b"\r\n\r\n")
        assert b"200 OK" not in out, out[:200]
        # a request that never ends: dropped within the time-out (5 s)
        t0 = time.monotonic()
        out = raw(bot, b"GET /healthz HTTP/1.1\r\nHost: x\r\n")
        took = time.monotonic() - t0
        assert out == b"" and took < 12 * SLOW, (out, took)
        # many silent connections (the cap, 4096, and the turning away
        # beyond it are tests/unit/test_httpd.c's): a request is still
        # answered at once, not queued behind them
        held = [raw(bot, b"", read=False) for _ in range(40)]
        try:
            t0 = time.monotonic()
            out = raw(bot, b"GET /healthz HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
            assert out.startswith(b"HTTP/1.1 200 ") and time.monotonic() - t0 < 3 * SLOW, out
            # meanwhile the bot runs commands (a lobby opens, a player joins)
            bot.send("anastasia: game new fortuna", "benedikt: game join")
            wait_seats(bot.db, 2)
        finally:
            for h in held:
                h.close()
        # the listener serves again as soon as the silent ones are gone
        text, s = wait_metric(
            bot, lambda s: value(s, "tabula_commands_total", outcome="ok") >= 2,
            "the commands played while flooded")
        assert value(s, "tabula_http_requests_total", route="other", status="4xx") >= 1
        assert value(s, "tabula_http_requests_total", route="metrics", status="4xx") >= 1
        promtool(text)
    finally:
        bot.stop()


def test_config_examples():
    """config/prometheus.yml and the alerting rules it loads pass promtool,
    and every metric the rules name is one the bot exposes."""
    root = os.path.join(HERE, "..", "..")
    for what, path in (("config", "config/prometheus.yml"), ("rules", "config/tabula-alerts.yml")):
        p = subprocess.run(["promtool", "check", what, os.path.join(root, path)],
                           capture_output=True, timeout=60)
        assert p.returncode == 0, (path, p.stdout + p.stderr)
    bot = Bot({})
    try:
        names = set(n for n, _ in samples(bot.get("/metrics")[1]))
    finally:
        bot.stop()
    with open(os.path.join(root, "config", "tabula-alerts.yml")) as f:
        used = set(re.findall(r"\b(tabula_[a-z_]+)", f.read()))
    assert used and used <= names, used - names


def test_public_address_refused():
    """A listen address that is not loopback is refused (exit 2, saying
    why) unless TABULA_HTTP_PUBLIC=1; IPv6 literals in brackets work
    ([::1]), a bare IPv6 literal or a host name does not; a port another
    process listens on is refused too (exit 2)."""
    env = clean_env()
    env["TABULA_DB"] = ":memory:"
    for spec in ("0.0.0.0:0", "[::]:0", "192.0.2.1:9464"):
        env["TABULA_HTTP"] = spec
        p = subprocess.run([BIN, "--console"], env=env, stdin=subprocess.DEVNULL,
                           capture_output=True, timeout=30 * SLOW)
        err = p.stderr.decode()
        assert p.returncode == 2 and "TABULA_HTTP_PUBLIC=1" in err, (spec, p.returncode, err)
    for spec in ("::1:9464", "example.org:9464", "127.0.0.1", "127.0.0.1:99999"):
        env["TABULA_HTTP"] = spec
        p = subprocess.run([BIN, "--console"], env=env, stdin=subprocess.DEVNULL,
                           capture_output=True, timeout=30 * SLOW)
        assert p.returncode == 2 and b"HOST:PORT" in p.stderr, (spec, p.returncode, p.stderr)
    env["TABULA_HTTP"] = "127.0.0.1:0"
    env["TABULA_HTTP_PUBLIC"] = "yes"
    p = subprocess.run([BIN, "--console"], env=env, stdin=subprocess.DEVNULL,
                       capture_output=True, timeout=30 * SLOW)
    assert p.returncode == 2 and b"TABULA_HTTP_PUBLIC" in p.stderr, p.stderr
    # said explicitly: every address of the machine (reached here through
    # loopback only)
    bot = Bot({"TABULA_HTTP_PUBLIC": "1"}, listen="0.0.0.0:0")
    try:
        bot.host = "127.0.0.1"
        assert bot.get("/healthz")[0] == 200
    finally:
        bot.stop()
    bot = Bot({}, listen="[::1]:0")
    try:
        assert bot.host == "::1"
        assert bot.get("/healthz")[0] == 200
        # a port in use is an error at start-up, not a listener that is not
        env = clean_env()
        env.update({"TABULA_DB": ":memory:", "TABULA_HTTP": "[::1]:%d" % bot.port})
        p = subprocess.run([BIN, "--console"], env=env, stdin=subprocess.DEVNULL,
                           capture_output=True, timeout=30 * SLOW)
        assert p.returncode == 2 and b"cannot listen on" in p.stderr, (p.returncode, p.stderr)
        assert bot.get("/healthz")[0] == 200
    finally:
        bot.stop()


def test_discord_readyz_and_metrics():
    """With Discord configured, /readyz is 503 (saying why) while the
    gateway has no session (the fake refuses every Identify) and 200 once
    it is ready; commands through the fake move the Discord counters and
    the REST statuses; the exposition passes promtool and holds no token,
    channel, guild or user id, nor a name."""
    fake = FakeDiscord(token=TOKEN).start()
    fake.refuse_identify = True
    env = {"DISCORD_TOKEN": TOKEN, "TABULA_THROTTLE": "off"}
    env.update(fake.env())
    bot = Bot(env)
    try:
        end = time.monotonic() + 10 * SLOW
        while True:     # the gateway's first Identify was refused
            status, body, _ = bot.get("/readyz")
            assert status == 503 and "discord" in body, (status, body)
            if fake.identify_count == 0 and fake.ops(2):
                break
            assert time.monotonic() < end, "no Identify reached the fake"
            time.sleep(0.05)
        status, body, _ = bot.get("/readyz")
        assert status == 503 and "discord: the gateway is not connected" in body, body
        status, text, _ = bot.get("/metrics")
        promtool(text)
        s = samples(text)
        assert value(s, "tabula_platform_connected", platform="discord") == 0
        assert value(s, "tabula_platform_configured", platform="discord") == 1
        assert value(s, "tabula_platform_configured", platform="matrix") == 0
        fake.refuse_identify = False
        fake.wait_ready(timeout=30)
        end = time.monotonic() + 10 * SLOW
        while bot.get("/readyz")[0] != 200:
            assert time.monotonic() < end, "never ready: %s" % bot.get("/readyz")[1]
            time.sleep(0.05)
        ana = fake.user("100000000000000001", "anastasia")
        ben = fake.user("100000000000000002", "benedikt")
        fake.command(ana, CHAN, "game", {"game": "fortuna"},
                     sub="new").wait_response(timeout=5 * SLOW)
        fake.command(ben, CHAN, "game", sub="join").wait_response(timeout=5 * SLOW)
        fake.command(ben, CHAN, "help").wait_response(timeout=5 * SLOW)
        text, s = wait_metric(
            bot, lambda s: value(s, "tabula_commands_total", platform="discord") >= 3 and
            value(s, "tabula_platform_requests_total", platform="discord", status="2xx") >= 3
            and value(s, "tabula_games", game="fortuna", state="lobby") == 1,
            "three Discord commands and their answers counted, the lobby open")
        promtool(text)
        assert value(s, "tabula_commands_total", platform="discord", outcome="ok") == 2
        assert value(s, "tabula_platform_connected", platform="discord") == 1
        assert value(s, "tabula_games", game="fortuna", state="lobby") == 1
        no_private(text, [TOKEN, "SECRET", CHAN, "100000000000000001", "100000000000000002",
                          "anastasia", "benedikt", fake.app_id, "800000000000000001"])
        # the gateway drops: reconnects and resumes are counted
        fake.drop_connection()
        text, s = wait_metric(
            bot, lambda s: value(s, "tabula_discord_gateway_resumes_total") >= 1,
            "a resume after the drop")
        assert value(s, "tabula_discord_gateway_reconnects_total") >= 1
        promtool(text)
    finally:
        log = bot.stop()
        fake.stop()
    assert TOKEN not in log and "SECRET" not in log


if __name__ == "__main__":
    if len(sys.argv) > 1:
        BIN = sys.argv[1]
    sys.exit(harness.run_tests("metrics", sys.modules[__name__], sys.argv))
