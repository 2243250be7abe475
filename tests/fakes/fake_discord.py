#!/usr/bin/env python3
"""
fake_discord: a loopback fake of Discord (gateway websocket + REST API v10)
for integration tests that run the real `tabula` binary.

Standard library only.  One ephemeral port on 127.0.0.1 serves both REST
(under /api/v10/...) and the gateway websocket (/gateway and
/gateway-resume).  asyncio runs in a background thread; every public method
is thread-safe and every wait_* raises AssertionError on timeout.

See tests/fakes/README.md for usage and every knob.
`python3 tests/fakes/fake_discord.py --selftest` checks the fake itself.
"""

import asyncio
import base64
import hashlib
import json
import math
import os
import re
import struct
import sys
import threading
import time
import urllib.parse

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import pngread  # noqa: E402  (beside this file)

DISCORD_EPOCH_MS = 1420070400000
WS_GUID = "258EAFA5-E914-47DA-95CA-C5AB0DC85B11"
BOT_USER_ID = "900000000000000002"
DEFAULT_GUILD = "800000000000000001"
EPHEMERAL = 64

# Close codes after which Discord does not let the session be resumed.
NON_RESUMABLE_CLOSES = {4004, 4007, 4009, 4010, 4011, 4012, 4013, 4014}

# TABULA_TEST_SLOW (default 1) multiplies the wait_* timeouts and the
# deadlines the bot must meet: the bot runs under valgrind in `make valgrind`
SLOW = float(os.environ.get("TABULA_TEST_SLOW") or 1)

_NAME_RE = re.compile(r"^[-_\w]{1,32}$")
# Discord's form: "DiscordBot ($url, $versionNumber)"; a library may add
# more after it (discord.js adds "Node.js/20.x")
_UA_RE = re.compile(r"^DiscordBot \((https?://[^\s,()]+), ([0-9][^\s,()]*)\)( .*)?$")


class Rec(dict):
    """A dict whose keys are also attributes (rec.t == rec["t"])."""

    def __getattr__(self, k):
        try:
            return self[k]
        except KeyError:
            raise AttributeError(k) from None

    def __setattr__(self, k, v):
        self[k] = v


def _jcopy(v):
    """What json.loads(json.dumps(v)) gives, without encoding the strings:
    a message's picture is ~100 KB of base64, and the tests read a channel's
    messages after every step (a whole game copied them 200,000 times).
    Strings are immutable, so sharing them keeps the copy independent."""
    t = type(v)
    if t is str or t is int or t is float or t is bool or v is None:
        return v
    if t is dict and all(type(k) is str for k in v):
        return {k: _jcopy(x) for k, x in v.items()}
    if t is list or t is tuple:
        return [_jcopy(x) for x in v]
    return json.loads(json.dumps(v))


def _public(msg):
    """Test-facing copy of a stored message: no private keys."""
    out = {k: v for k, v in msg.items() if not k.startswith("_")}
    out["ephemeral"] = bool((msg.get("flags") or 0) & EPHEMERAL)
    return _jcopy(out)


def _wire(msg):
    """Copy of a stored message as Discord would return it."""
    out = {k: v for k, v in msg.items()
           if not k.startswith("_") and k != "allowed_mentions"}
    return _jcopy(out)


def _parse_multipart(ctype, body):
    """payload_json of a multipart upload, with each attachment's file text
    put into its attachment object as "content".  A PNG (the bot's
    pictures) keeps its bytes as "png_b64", its size as "width" and
    "height", and its Description (every text it shows) as "content", so
    the public-payload scans read pictures like text.  (parsed, bad)."""
    import email.parser
    import email.policy
    msg = email.parser.BytesParser(policy=email.policy.HTTP).parsebytes(
        b"Content-Type: " + ctype.encode() + b"\r\n\r\n" + body)
    payload, files = None, {}
    for part in msg.iter_parts():
        name = part.get_param("name", header="content-disposition")
        data = part.get_payload(decode=True) or b""
        if name == "payload_json":
            try:
                payload = json.loads(data.decode("utf-8"))
            except Exception:
                return None, True
        elif name and name.startswith("files["):
            files[name[6:-1]] = data
    if not isinstance(payload, dict):
        return None, True
    target = payload.get("data") if isinstance(payload.get("data"), dict) else payload
    for a in target.get("attachments") or []:
        if isinstance(a, dict) and str(a.get("id")) in files:
            data = files[str(a.get("id"))]
            if data[:8] == b"\x89PNG\r\n\x1a\n":
                try:
                    info = pngread.png_info(data)
                except ValueError:
                    return None, True
                a["content"] = info["text"]
                a["width"], a["height"] = info["width"], info["height"]
                a["png_b64"] = base64.b64encode(data).decode()
            else:
                a["content"] = data.decode("utf-8", "replace")
    return payload, False


def _strings(x):
    """Every string inside a JSON value, keys excluded."""
    if isinstance(x, str):
        return [x] if x else []
    if isinstance(x, dict):
        return [s for v in x.values() for s in _strings(v)]
    if isinstance(x, list):
        return [s for v in x for s in _strings(v)]
    return []


def _embed_chars(body):
    """Characters of embed text, as Discord counts them for its 6000 cap."""
    n = 0
    for e in body.get("embeds") or []:
        if not isinstance(e, dict):
            continue
        for k in ("title", "description"):
            if isinstance(e.get(k), str):
                n += len(e[k])
        for f in e.get("fields") or []:
            if isinstance(f, dict):
                n += sum(len(f[k]) for k in ("name", "value")
                         if isinstance(f.get(k), str))
        for k, sub in (("footer", "text"), ("author", "name")):
            if isinstance(e.get(k), dict) and isinstance(e[k].get(sub), str):
                n += len(e[k][sub])
    return n


def _texts_of(body):
    """Everything a reader of the message can get at: the content, every
    string of every embed (titles, descriptions, fields, footer, author,
    urls), of every component (button labels, select placeholders, option
    labels, values and descriptions, custom_ids: a client can read them
    all), and each attachment's name, description and text.  For the
    public-payload scans: a hidden card named anywhere here is a leak."""
    out = []
    if not isinstance(body, dict):
        return out
    c = body.get("content")
    if isinstance(c, str) and c:
        out.append(c)
    for a in body.get("attachments") or []:
        if isinstance(a, dict):
            out += _strings({k: a.get(k) for k in
                             ("content", "filename", "description")})
    out += _strings(body.get("embeds") or [])
    out += _strings(body.get("components") or [])
    poll = body.get("poll")
    if isinstance(poll, dict):
        out += _strings(poll)
    return out


class _Session:
    def __init__(self, sid, shard=(0, 1)):
        self.id = sid
        self.seq = 0
        self.buffer = []          # [(s, payload_text)]
        self.conn = None          # live _WSConn bound to the session
        self.resumable = True
        self.shard = shard        # (id, count) it identified with


def shard_of(guild_id, count):
    """Discord's formula: the shard that receives a guild's events.
    Events without a guild (DMs) go to shard 0."""
    if not guild_id or count <= 1:
        return 0
    return (int(guild_id) >> 22) % count


class Interaction:
    """Handle returned by command()/autocomplete()/click()."""

    def __init__(self, fake, payload):
        self._fake = fake
        self.payload = payload
        self.id = payload["id"]
        self.token = payload["token"]
        self.type = payload["type"]
        self.channel_id = payload.get("channel_id")
        self.created_t = time.monotonic()
        self.sent_t = None          # monotonic time written to the bot
        self.age_s = 0.0
        self.callback = None        # callback body (first one)
        self.callback_t = None
        self.callbacks = []         # every callback body received
        self.original_id = None     # message id of @original
        self.followup_ids = []
        self.followups = []         # raw follow-up bodies
        self.edits = []             # raw PATCH @original bodies
        self.ephemeral_defer = False

    # -- waiting -------------------------------------------------------
    def wait_response(self, timeout=5):
        """Wait for the interaction callback; return its body (dict)."""
        self._fake._wait(lambda: self.callback is not None, timeout,
                         lambda: "no callback for interaction %s (%s)" %
                         (self.id, self._describe()))
        return self.callback

    def wait_followups(self, n=1, timeout=5):
        self._fake._wait(lambda: len(self.followups) >= n, timeout,
                         lambda: "interaction %s: wanted %d follow-ups, got "
                         "%d (%s)" % (self.id, n, len(self.followups),
                                      self._describe()))
        return list(self.followups)

    def wait_edits(self, n=1, timeout=5):
        self._fake._wait(lambda: len(self.edits) >= n, timeout,
                         lambda: "interaction %s: wanted %d edits of "
                         "@original, got %d (%s)" % (self.id, n,
                                                     len(self.edits),
                                                     self._describe()))
        return list(self.edits)

    def wait_final(self, pred, timeout=5):
        """Wait until pred(final_messages()) is true; return the list."""
        box = []

        def ok():
            ms = self._final_locked()
            if pred(ms):
                box.append(ms)
                return True
            return False
        self._fake._wait(ok, timeout, lambda: "interaction %s: final "
                         "messages never satisfied the predicate; last: %r"
                         % (self.id, self._final_locked()))
        return box[0]

    def _describe(self):
        return "%s %s in channel %s" % (
            {2: "command", 3: "component", 4: "autocomplete"}.get(
                self.type, self.type),
            (self.payload.get("data") or {}).get("name") or
            (self.payload.get("data") or {}).get("custom_id"),
            self.channel_id)

    # -- results -------------------------------------------------------
    def _final_locked(self):
        f = self._fake
        out = []
        with f._lock:
            if self.original_id and self.original_id in f._msgs:
                m = f._msgs[self.original_id]
                if not m.get("_deleted") and not m.get("_pending"):
                    out.append(_public(m))
            for mid in self.followup_ids:
                m = f._msgs.get(mid)
                if m and not m.get("_deleted"):
                    out.append(_public(m))
        return out

    def final_messages(self):
        """Messages the user finally sees for this interaction."""
        return self._final_locked()

    @property
    def response(self):
        return self.callback


class _WSConn:
    def __init__(self, fake, reader, writer, path, query):
        self.fake = fake
        self.reader = reader
        self.writer = writer
        self.path = path
        self.query = query
        self.id = fake._next_conn_id()
        self.session = None
        self.identified = False
        self.closed = False
        self.hello_t = None
        self.heartbeats = 0
        self.last_hb_t = None

    def _frame(self, opcode, payload, fin=True):
        b0 = (0x80 if fin else 0) | opcode
        n = len(payload)
        if n < 126:
            hdr = struct.pack("!BB", b0, n)
        elif n < 65536:
            hdr = struct.pack("!BBH", b0, 126, n)
        else:
            hdr = struct.pack("!BBQ", b0, 127, n)
        return hdr + payload

    def send_text(self, text, fragment=False):
        if self.closed:
            return False
        data = text.encode("utf-8")
        if fragment and len(data) >= 3:
            parts = 3 if len(data) >= 30 else 2
            cuts = sorted(set(len(data) * i // parts
                              for i in range(1, parts)))
            pieces, prev = [], 0
            for c in cuts + [len(data)]:
                pieces.append(data[prev:c])
                prev = c
            out = b""
            for i, p in enumerate(pieces):
                op = 0x1 if i == 0 else 0x0
                out += self._frame(op, p, fin=(i == len(pieces) - 1))
            self.writer.write(out)
        else:
            self.writer.write(self._frame(0x1, data))
        return True

    def send_json(self, obj, fragment=False):
        return self.send_text(json.dumps(obj), fragment)

    def send_close(self, code, reason=""):
        if self.closed:
            return
        payload = struct.pack("!H", code) + reason.encode("utf-8")[:120]
        try:
            self.writer.write(self._frame(0x8, payload))
        except Exception:
            pass
        self.fake._log_gw(self, "server_close", code=code, reason=reason)
        self._finish()

    def abort(self):
        if self.closed:
            return
        self.fake._log_gw(self, "server_drop")
        try:
            self.writer.transport.abort()
        except Exception:
            pass
        self._finish()

    def _finish(self):
        if self.closed:
            return
        self.closed = True
        f = self.fake
        with f._lock:
            if self.session is not None and self.session.conn is self:
                self.session.conn = None
            if f._live is self:
                f._live = None
            f._cond.notify_all()
        try:
            # let the close frame flush, then close
            self.writer.close()
        except Exception:
            pass

    async def read_frame(self):
        hdr = await self.reader.readexactly(2)
        b0, b1 = hdr[0], hdr[1]
        fin = bool(b0 & 0x80)
        rsv = b0 & 0x70
        opcode = b0 & 0x0F
        masked = bool(b1 & 0x80)
        n = b1 & 0x7F
        if n == 126:
            n = struct.unpack("!H", await self.reader.readexactly(2))[0]
        elif n == 127:
            n = struct.unpack("!Q", await self.reader.readexactly(8))[0]
        key = await self.reader.readexactly(4) if masked else None
        data = await self.reader.readexactly(n) if n else b""
        if masked:
            data = bytes(b ^ key[i & 3] for i, b in enumerate(data)) \
                if n < 4096 else _unmask(data, key)
        return fin, rsv, opcode, masked, data


def _unmask(data, key):
    k = int.from_bytes((key * ((len(data) + 3) // 4))[:len(data)], "big")
    return (int.from_bytes(data, "big") ^ k).to_bytes(len(data), "big")


class FakeDiscord:
    def __init__(self, token="test-token", app_id="900000000000000001",
                 heartbeat_interval_ms=1000):
        self.token = token
        self.app_id = str(app_id)
        self.heartbeat_interval_ms = heartbeat_interval_ms
        self.bot_user = {"id": BOT_USER_ID, "username": "tabula",
                         "discriminator": "0", "global_name": None,
                         "avatar": None, "bot": True, "flags": 0}
        # knobs (plain attributes; set them before or during a test)
        self.interaction_deadline_s = 3.0 * SLOW
        self.followup_window_s = 15 * 60
        self.nonce_window_s = 300.0
        self.refuse_dm_users = set()
        self.channel_rate = (5, 1.0)        # (limit, window seconds)
        self.default_rate = (50, 1.0)
        self.webhook_rate = (5, 2.0)
        self.resume_path = "/gateway-resume"
        self.guild_ids = [DEFAULT_GUILD]
        self.strict = False   # True: validation violations answer 400
        self.heartbeat_slack_s = 0.5 * SLOW
        self.require_auth_on_webhooks = False
        self.retry_slack_s = 0.05
        # (limit, window seconds): the bot's global rate limit, counted over
        # every request but interaction callbacks (Discord exempts those),
        # in fixed windows that start with a request, whoever sends it (a
        # REST proxy's requests count like the bot's).  None: not checked.
        # global_slack_s ends a window that much early: a window starts when
        # its first request arrives, and a sender's own window started when
        # that request left it, a moment earlier.
        self.global_rate = None
        self.global_slack_s = 0.02
        self.global_peak = 0      # most requests seen in one window
        self._global = None       # {"start", "count"}
        self.user_agents = set()  # every User-Agent seen
        # GET /gateway/bot's session_start_limit; every Identify spends
        # one of `remaining`, as on Discord
        self.session_start_limit = {"total": 1000, "remaining": 999,
                                    "reset_after": 14400000,
                                    "max_concurrency": 1}
        # True: every Identify is answered with Invalid Session d:false
        # (Discord's answer to identifying too fast)
        self.refuse_identify = False
        # > 0: every Resume first gets a GUILD_CREATE dispatch of that many
        # bytes (a large guild), which a later Resume replays as well
        self.huge_dispatch_on_resume = 0
        # state
        self._lock = threading.RLock()
        self._cond = threading.Condition(self._lock)
        self._loop = None
        self._thread = None
        self._server = None
        self._port = None
        self._counter = 0
        self._conn_counter = 0
        self.requests = []
        self.violations = []
        self.violation_details = []
        self.gateway_log = []
        self.dedups = []
        self.faults_fired = []
        self._faults = []
        # channels where the bot has no Attach Files permission: a message
        # with a file gets 403 50013 there
        self.no_attach_channels = set()
        self.attach_refusals = []
        self._retry_after = []    # [(method, path, not_before, t)]
        self._commands = {}       # scope -> list
        self._msgs = {}           # id -> message dict
        self._chan_msgs = {}      # channel -> [ids] (REST posts only)
        self._chan_all = {}       # channel -> [ids] incl. interactions
        self._nonces = {}         # (channel, nonce) -> (id, t)
        self._dm_by_user = {}
        self._dm_user_by_chan = {}
        self._users = {}
        self._inter_by_id = {}
        self._inter_by_token = {}
        self._interactions = []
        self._texts = []          # [(text, private, where)]
        self._buckets = {}
        self._sessions = {}
        self._session = None      # current session (latest Identify)
        # sharded bots: the current session of each shard id, and the
        # shard count they identified with
        self._by_shard = {}
        self.shard_count = 1
        # GET /gateway/bot's recommended shard count
        self.recommended_shards = 1
        self._live = None         # live, ready connection
        self._conns = set()
        self._withhold = 0
        self._fragment = False
        self.identify_count = 0
        self.resume_count = 0
        self.connections = 0
        self._writers = set()

    # ------------------------------------------------------------------
    # lifecycle
    @property
    def port(self):
        return self._port

    @property
    def api_url(self):
        return "http://127.0.0.1:%d/api/v10" % self._port

    @property
    def gateway_url(self):
        return "ws://127.0.0.1:%d/gateway" % self._port

    @property
    def resume_gateway_url(self):
        return "ws://127.0.0.1:%d%s" % (self._port, self.resume_path)

    def env(self):
        """Environment variables for the bot under test."""
        return {"DISCORD_TOKEN": self.token,
                "DISCORD_APPLICATION_ID": self.app_id,
                "DISCORD_API_URL": self.api_url,
                "DISCORD_GATEWAY_URL": self.gateway_url}

    def start(self):
        ready = threading.Event()
        err = []

        def run():
            loop = asyncio.new_event_loop()
            self._loop = loop
            asyncio.set_event_loop(loop)
            try:
                self._server = loop.run_until_complete(asyncio.start_server(
                    self._on_client, "127.0.0.1", 0))
                self._port = self._server.sockets[0].getsockname()[1]
            except Exception as e:  # pragma: no cover
                err.append(e)
                ready.set()
                return
            ready.set()
            loop.run_forever()
            # drain
            try:
                pending = asyncio.all_tasks(loop)
                for t in pending:
                    t.cancel()
                loop.run_until_complete(asyncio.gather(
                    *pending, return_exceptions=True))
            except Exception:
                pass
            loop.close()

        self._thread = threading.Thread(target=run, name="fake-discord",
                                        daemon=True)
        self._thread.start()
        ready.wait(10)
        if err:
            raise err[0]
        return self

    def stop(self):
        if not self._loop or not self._thread:
            return

        async def shutdown():
            for c in list(self._conns):
                c.abort()
            self._server.close()
            for w in list(self._writers):
                try:
                    w.transport.abort()
                except Exception:
                    pass
        try:
            asyncio.run_coroutine_threadsafe(shutdown(), self._loop).result(5)
        except Exception:
            pass
        self._loop.call_soon_threadsafe(self._loop.stop)
        self._thread.join(5)
        self._thread = None

    def __enter__(self):
        return self.start()

    def __exit__(self, *a):
        self.stop()

    def _call(self, fn, *args, timeout=5):
        """Run fn(*args) in the loop thread and return its result."""
        if threading.current_thread() is self._thread:
            return fn(*args)

        async def co():
            return fn(*args)
        return asyncio.run_coroutine_threadsafe(co(), self._loop).result(
            timeout * SLOW)

    def _wait(self, pred, timeout, msg):
        timeout *= SLOW
        deadline = time.monotonic() + timeout
        with self._cond:
            while not pred():
                left = deadline - time.monotonic()
                if left <= 0:
                    m = msg() if callable(msg) else msg
                    raise AssertionError("fake_discord: timeout after %.1fs: "
                                         "%s" % (timeout, m))
                self._cond.wait(min(left, 0.1))

    # ------------------------------------------------------------------
    # ids, users
    def snowflake(self, age_ms=0):
        with self._lock:
            self._counter += 1
            ms = int(time.time() * 1000) - int(age_ms)
            return str(((ms - DISCORD_EPOCH_MS) << 22) |
                       (self._counter & 0x3FFFFF))

    @staticmethod
    def snowflake_time(sf):
        """Unix seconds of a snowflake."""
        return ((int(sf) >> 22) + DISCORD_EPOCH_MS) / 1000.0

    def user(self, id, username, global_name=None):
        u = {"id": str(id), "username": username, "discriminator": "0",
             "global_name": global_name, "avatar": None, "public_flags": 0}
        with self._lock:
            self._users[u["id"]] = u
        return u

    def member(self, user, nick=None):
        return {"user": user, "nick": nick, "roles": [], "avatar": None,
                "joined_at": "2024-01-01T00:00:00.000000+00:00",
                "deaf": False, "mute": False, "flags": 0, "pending": False,
                "permissions": "2248473465835073"}

    def _next_conn_id(self):
        with self._lock:
            self._conn_counter += 1
            return self._conn_counter

    # ------------------------------------------------------------------
    # recording
    def _violate(self, desc, req=None):
        where = ""
        if req is not None:
            where = " [%s %s]" % (req.method, req.path)
        with self._lock:
            self.violations.append(desc + where)
            self.violation_details.append(Rec(desc=desc, request=req,
                                              t=time.monotonic()))
            self._cond.notify_all()

    def _log_gw(self, conn, kind, **kw):
        with self._lock:
            r = Rec(t=time.monotonic(), conn=conn.id if conn else None,
                    kind=kind, **kw)
            self.gateway_log.append(r)
            self._cond.notify_all()
            return r

    def _add_text(self, body, private, where):
        for t in _texts_of(body):
            self._texts.append((t, private, where))

    def all_public_texts(self):
        """Every public payload's texts so far (see _texts_of): channel
        messages, non-ephemeral interaction answers and follow-ups, and
        every edit of them (POST and PATCH alike)."""
        with self._lock:
            return [t for t, p, _ in self._texts if not p]

    def post_as_bot(self, channel_id, body, file_text=None):
        """POSTs a message to channel_id as the bot would (same handler,
        same recording), for tests of the tests: a canary that a scan must
        catch.  file_text: sent as multipart with that attachment (bytes:
        a picture, c.png).  Returns (status, response)."""
        hdrs = {"authorization": "Bot " + self.token,
                "user-agent": "DiscordBot (https://fake.invalid, 1)"}
        if file_text is None:
            hdrs["content-type"] = "application/json"
            raw = json.dumps(body).encode()
        else:
            b = "canary-boundary"
            png = isinstance(file_text, bytes)
            name = "c.png" if png else "c.txt"
            hdrs["content-type"] = "multipart/form-data; boundary=" + b
            body = dict(body, attachments=[{"id": "0", "filename": name}])
            raw = ("--%s\r\nContent-Disposition: form-data; name=\"payload_json\""
                   "\r\nContent-Type: application/json\r\n\r\n%s\r\n--%s\r\n"
                   "Content-Disposition: form-data; name=\"files[0]\"; "
                   "filename=\"%s\"\r\nContent-Type: %s\r\n\r\n"
                   % (b, json.dumps(body), b, name, "image/png" if png else "text/plain")
                   ).encode()
            raw += (file_text if png else file_text.encode()) + ("\r\n--%s--\r\n" % b).encode()
        st, _, resp = self._call(self._handle_rest, "POST",
                                 "/api/v10/channels/%s/messages" % channel_id, "",
                                 hdrs, raw)
        return st, resp

    def public_mark(self):
        """A cursor for public_texts_since(): where the record is now."""
        with self._lock:
            return len(self._texts)

    def public_texts_since(self, mark):
        """The public payloads' texts recorded after public_mark()."""
        with self._lock:
            return [t for t, p, _ in self._texts[mark:] if not p]

    def all_private_texts(self):
        with self._lock:
            return [t for t, p, _ in self._texts if p]

    def heartbeat_times(self, conn=None):
        with self._lock:
            return [r.t for r in self.gateway_log if r.kind == "op" and
                    r.op == 1 and (conn is None or r.conn == conn)]

    def ops(self, op=None):
        with self._lock:
            return [r for r in self.gateway_log if r.kind == "op" and
                    (op is None or r.op == op)]

    def client_closes(self):
        """[(conn id, close code)] of close frames sent by the bot."""
        with self._lock:
            return [(r.conn, r.code) for r in self.gateway_log
                    if r.kind == "client_close"]

    # ------------------------------------------------------------------
    # store queries
    def channel_messages(self, channel_id, include_interactions=False):
        with self._lock:
            ids = (self._chan_all if include_interactions
                   else self._chan_msgs).get(str(channel_id), [])
            return [_public(self._msgs[i]) for i in ids
                    if not self._msgs[i].get("_deleted") and
                    not self._msgs[i].get("_pending")]

    def message(self, message_id):
        with self._lock:
            m = self._msgs.get(str(message_id))
            return _public(m) if m else None

    def wait_channel_message(self, channel_id, pred=None, timeout=5,
                             new_only=False, include_interactions=False):
        channel_id = str(channel_id)
        with self._lock:
            skip = set(self._chan_all.get(channel_id, [])) if new_only \
                else set()
        box = []

        def ok():
            ids = (self._chan_all if include_interactions
                   else self._chan_msgs).get(channel_id, [])
            for i in ids:
                m = self._msgs[i]
                if i in skip or m.get("_deleted") or m.get("_pending"):
                    continue
                pm = _public(m)
                if pred is None or pred(pm):
                    box.append(pm)
                    return True
            return False
        self._wait(ok, timeout, lambda: "no matching message in channel %s; "
                   "messages there: %r" % (channel_id, [
                       m.get("content") for m in self.channel_messages(
                           channel_id, include_interactions)]))
        return box[0]

    def dm_channel_of(self, user_id):
        with self._lock:
            return self._dm_by_user.get(str(user_id))

    def dm_messages(self, user_id):
        ch = self.dm_channel_of(user_id)
        return self.channel_messages(ch) if ch else []

    def wait_dm(self, user_id, pred=None, timeout=5):
        self._wait(lambda: self.dm_channel_of(user_id) is not None, timeout,
                   "the bot never opened a DM with %s" % user_id)
        return self.wait_channel_message(self.dm_channel_of(user_id), pred,
                                         timeout)

    def commands(self, scope=None):
        """Registered commands: scope None = global, else a guild id."""
        with self._lock:
            return json.loads(json.dumps(self._commands.get(
                None if scope is None else str(scope))))

    def wait_commands(self, scope=None, timeout=5):
        key = None if scope is None else str(scope)
        self._wait(lambda: key in self._commands, timeout,
                   "no commands registered for scope %r" % (scope,))
        return self.commands(scope)

    def wait_requests(self, pred, n=1, timeout=5):
        self._wait(lambda: sum(1 for r in self.requests if pred(r)) >= n,
                   timeout, "fewer than %d matching REST requests" % n)
        with self._lock:
            return [r for r in self.requests if pred(r)]

    def interactions(self):
        with self._lock:
            return list(self._interactions)

    # ------------------------------------------------------------------
    # fault knobs
    def fail_next(self, method, path_regex, status, count=1,
                  retry_after=None, global_=False):
        """Answer the next `count` requests matching method (or "*") and
        path_regex (re.search on the path after /api/v10) with status."""
        with self._lock:
            self._faults.append(Rec(method=method.upper(),
                                    rx=re.compile(path_regex),
                                    status=int(status), count=int(count),
                                    retry_after=retry_after,
                                    global_=bool(global_)))

    def drop_connection(self):
        def f():
            c = self._live or self._any_conn()
            if c:
                c.abort()
            return c is not None
        return self._call(f)

    def close_with(self, code, reason=""):
        def f():
            c = self._live or self._any_conn()
            if not c:
                return False
            if code in NON_RESUMABLE_CLOSES and c.session:
                c.session.resumable = False
            c.send_close(code, reason or "closed by test")
            return True
        return self._call(f)

    def send_reconnect(self):
        def f():
            c = self._live or self._any_conn()
            if c:
                self._log_gw(c, "sent", op=7)
                c.send_json({"op": 7, "d": None})
            return c is not None
        return self._call(f)

    def invalid_session(self, resumable=False):
        def f():
            c = self._live or self._any_conn()
            if not c:
                return False
            if c.session and not resumable:
                c.session.resumable = False
            self._log_gw(c, "sent", op=9, d=bool(resumable))
            c.send_json({"op": 9, "d": bool(resumable)})
            return True
        return self._call(f)

    def withhold_acks(self, n):
        with self._lock:
            self._withhold = int(n)

    def fragment_dispatches(self, on=True):
        with self._lock:
            self._fragment = bool(on)

    def _any_conn(self):
        live = [c for c in self._conns if not c.closed]
        return live[-1] if live else None

    # ------------------------------------------------------------------
    # gateway state queries
    @property
    def ready(self):
        with self._lock:
            return self._live is not None

    def wait_ready(self, timeout=10):
        """Wait until a connection is live and answered by READY/RESUMED."""
        self._wait(lambda: self._live is not None and not self._live.closed,
                   timeout, lambda: "bot not connected+ready on the gateway "
                   "(connections=%d identifies=%d resumes=%d; last log: %r)"
                   % (self.connections, self.identify_count,
                      self.resume_count, self.gateway_log[-5:]))

    def wait_identified(self, n=1, timeout=10):
        self._wait(lambda: self.identify_count >= n, timeout,
                   lambda: "wanted %d READY, got %d" %
                   (n, self.identify_count))

    def wait_resumed(self, n=1, timeout=10):
        self._wait(lambda: self.resume_count >= n, timeout,
                   lambda: "wanted %d RESUMED, got %d; log tail %r" %
                   (n, self.resume_count, self.gateway_log[-6:]))

    def wait_heartbeats(self, n=1, timeout=10):
        self._wait(lambda: len(self.heartbeat_times()) >= n, timeout,
                   lambda: "wanted %d heartbeats, got %d" %
                   (n, len(self.heartbeat_times())))

    def wait_connections(self, n, timeout=10):
        self._wait(lambda: self.connections >= n, timeout,
                   lambda: "wanted %d gateway connections, got %d" %
                   (n, self.connections))

    def wait_client_close(self, timeout=10):
        """Wait for the bot to close a gateway connection; return code."""
        start = len(self.client_closes())
        self._wait(lambda: len(self.client_closes()) > start, timeout,
                   "the bot did not close the gateway connection")
        return self.client_closes()[-1][1]

    @property
    def session_id(self):
        with self._lock:
            return self._session.id if self._session else None

    # ------------------------------------------------------------------
    # dispatching
    def dispatch(self, event, d):
        """Dispatch an event on the current session (buffered while the bot
        is disconnected, delivered on Resume). Returns its sequence."""
        return self._call(self._dispatch_loop, event, d, None)

    def _target_session(self, d):
        """The session an event goes to: with several shards, the one of
        the event's guild (shard 0 for DMs), as Discord routes them."""
        if self.shard_count <= 1 or not isinstance(d, dict):
            return self._session
        shard = shard_of(d.get("guild_id"), self.shard_count)
        return self._by_shard.get(shard)

    def shard_sessions(self):
        """{shard id: session id} of the shards identified now."""
        with self._lock:
            return {k: v.id for k, v in self._by_shard.items()}

    def wait_shards_ready(self, count, timeout=10):
        """Wait until shards 0..count-1 each have a live, ready connection
        (identified with that shard and count)."""
        def ok():
            for i in range(count):
                s = self._by_shard.get(i)
                if s is None or s.shard != (i, count) or s.conn is None or \
                        s.conn.closed or not s.conn.identified:
                    return False
            return True
        self._wait(ok, timeout, lambda: "shards not all ready: %r" % {
            k: (v.shard, v.conn is not None and not v.conn.closed)
            for k, v in self._by_shard.items()})

    def _dispatch_loop(self, event, d, inter, session=None):
        s = session or self._target_session(d)
        if s is None:
            raise AssertionError("fake_discord: cannot dispatch %s: no bot "
                                 "session serves it (not identified yet, or "
                                 "its shard is down)" % event)
        s.seq += 1
        text = json.dumps({"op": 0, "t": event, "s": s.seq, "d": d})
        s.buffer.append((s.seq, text, inter))
        c = s.conn
        if c is not None and not c.closed and c.identified:
            c.send_text(text, self._fragment)
            if inter is not None and inter.sent_t is None:
                inter.sent_t = time.monotonic()
        return s.seq

    def _new_interaction(self, itype, user, channel_id, data, guild_id,
                         locale, nick, age_ms, message=None):
        iid = self.snowflake(age_ms)
        token = "aW50ZXJhY3Rpb246" + base64.urlsafe_b64encode(
            os.urandom(63)).decode().rstrip("=")
        channel_id = str(channel_id)
        d = {"id": iid, "application_id": self.app_id, "type": itype,
             "token": token, "version": 1, "channel_id": channel_id,
             "app_permissions": "2248473465835073",
             "entitlements": [], "authorizing_integration_owners": {},
             "locale": locale, "data": data}
        with self._lock:
            self._users[user["id"]] = user
            dm_user = self._dm_user_by_chan.get(channel_id)
        if guild_id is not None:
            d["guild_id"] = str(guild_id)
            d["guild_locale"] = "en-US"
            d["channel"] = {"id": channel_id, "type": 0,
                            "guild_id": str(guild_id), "name": "games"}
            d["member"] = self.member(user, nick)
            d["context"] = 0
        else:
            d["channel"] = {"id": channel_id, "type": 1,
                            "recipients": [user]}
            d["user"] = user
            d["context"] = 1
            if dm_user is None:
                with self._lock:
                    self._dm_user_by_chan.setdefault(channel_id, user["id"])
        if message is not None:
            d["message"] = message
        h = Interaction(self, d)
        h.age_s = age_ms / 1000.0
        with self._lock:
            self._inter_by_id[iid] = h
            self._inter_by_token[token] = h
            self._interactions.append(h)
        self._call(self._dispatch_loop, "INTERACTION_CREATE", d, h)
        return h

    def _options(self, options, guild_id, resolved, focused=None):
        out = []
        if options is None:
            return out
        items = []
        if isinstance(options, dict):
            for k, v in options.items():
                if isinstance(v, bool):
                    t = 5
                elif isinstance(v, int):
                    t = 4
                elif isinstance(v, float):
                    t = 10
                elif isinstance(v, dict) and "username" in v:
                    t = 6
                else:
                    t = 3
                items.append((k, t, v))
        else:
            items = [tuple(x) for x in options]
        for name, t, v in items:
            if t == 6:
                u = v if isinstance(v, dict) else self._users.get(str(v))
                uid = u["id"] if u else str(v)
                if u:
                    resolved.setdefault("users", {})[uid] = u
                    if guild_id is not None:
                        m = self.member(u)
                        del m["user"]
                        resolved.setdefault("members", {})[uid] = m
                v = uid
            o = {"name": name, "type": t, "value": v}
            if focused is not None and name == focused:
                o["focused"] = True
            out.append(o)
        return out

    def _command_data(self, name, options, sub, guild_id, focused=None):
        resolved = {}
        opts = self._options(options, guild_id, resolved, focused)
        if sub:
            parts = sub.split()
            if len(parts) == 2:
                opts = [{"name": parts[0], "type": 2, "options": [
                    {"name": parts[1], "type": 1, "options": opts}]}]
            else:
                opts = [{"name": sub, "type": 1, "options": opts}]
        cmd_id = None
        with self._lock:
            for scope in (str(guild_id) if guild_id else None, None):
                for c in self._commands.get(scope) or []:
                    if c.get("name") == name:
                        cmd_id = c.get("id")
                        break
                if cmd_id:
                    break
        data = {"id": cmd_id or self.snowflake(), "name": name, "type": 1,
                "options": opts}
        if guild_id:
            data["guild_id"] = str(guild_id)
        if resolved:
            data["resolved"] = resolved
        return data

    def command(self, user, channel_id, name, options=None, sub=None,
                guild_id=DEFAULT_GUILD, locale="en-US", nick=None,
                age_ms=0):
        """Dispatch an APPLICATION_COMMAND interaction; return a handle."""
        data = self._command_data(name, options, sub, guild_id)
        return self._new_interaction(2, user, channel_id, data, guild_id,
                                     locale, nick, age_ms)

    def autocomplete(self, user, channel_id, name, options, focused,
                     sub=None, guild_id=DEFAULT_GUILD, locale="en-US",
                     nick=None, age_ms=0):
        data = self._command_data(name, options, sub, guild_id, focused)
        return self._new_interaction(4, user, channel_id, data, guild_id,
                                     locale, nick, age_ms)

    def click(self, user, channel_id, message, custom_id, values=None,
              guild_id=DEFAULT_GUILD, locale="en-US", nick=None, age_ms=0):
        """Dispatch a MESSAGE_COMPONENT interaction on `message` (a message
        dict from the fake's store, or its id)."""
        mid = message["id"] if isinstance(message, dict) else str(message)
        with self._lock:
            m = self._msgs.get(mid)
            msg = _wire(m) if m else (message if isinstance(message, dict)
                                      else {"id": mid})
        data = {"custom_id": custom_id,
                "component_type": 2 if values is None else 3}
        if values is not None:
            data["values"] = list(values)
        return self._new_interaction(3, user, channel_id, data, guild_id,
                                     locale, nick, age_ms, message=msg)

    # ------------------------------------------------------------------
    # connection entry
    async def _on_client(self, reader, writer):
        self._writers.add(writer)
        try:
            await self._serve_http(reader, writer)
        except (asyncio.IncompleteReadError, ConnectionError,
                asyncio.CancelledError):
            pass
        except Exception as e:  # pragma: no cover - a fake bug
            self._violate("fake_discord internal error: %r" % (e,))
            import traceback
            traceback.print_exc()
        finally:
            self._writers.discard(writer)
            try:
                writer.close()
            except Exception:
                pass

    async def _read_head(self, reader):
        head = await reader.readuntil(b"\r\n\r\n")
        lines = head.decode("latin-1").split("\r\n")
        parts = lines[0].split(" ")
        if len(parts) != 3:
            raise ConnectionError("bad request line")
        method, target, _ = parts
        headers = {}
        for ln in lines[1:]:
            if not ln:
                continue
            k, _, v = ln.partition(":")
            headers[k.strip().lower()] = v.strip()
        return method.upper(), target, headers

    async def _serve_http(self, reader, writer):
        while True:
            try:
                method, target, headers = await self._read_head(reader)
            except (asyncio.IncompleteReadError, asyncio.LimitOverrunError):
                return
            u = urllib.parse.urlsplit(target)
            path = u.path
            if headers.get("upgrade", "").lower() == "websocket":
                await self._serve_ws(reader, writer, path, u.query, headers)
                return
            if headers.get("expect", "").lower() == "100-continue":
                writer.write(b"HTTP/1.1 100 Continue\r\n\r\n")
            body = b""
            if "chunked" in headers.get("transfer-encoding", "").lower():
                while True:
                    ln = await reader.readuntil(b"\r\n")
                    size = int(ln.split(b";")[0].strip(), 16)
                    if size == 0:
                        await reader.readuntil(b"\r\n")
                        break
                    body += await reader.readexactly(size)
                    await reader.readexactly(2)
            elif "content-length" in headers:
                body = await reader.readexactly(int(headers["content-length"]))
            status, rh, rbody = self._handle_rest(method, path, u.query,
                                                  headers, body)
            reason = {200: "OK", 201: "Created", 204: "No Content",
                      400: "Bad Request", 401: "Unauthorized",
                      403: "Forbidden", 404: "Not Found",
                      405: "Method Not Allowed", 429: "Too Many Requests",
                      500: "Internal Server Error",
                      502: "Bad Gateway"}.get(status, "Status")
            out = ["HTTP/1.1 %d %s" % (status, reason)]
            close = headers.get("connection", "").lower() == "close"
            if isinstance(rbody, (dict, list)):
                rbody = json.dumps(rbody).encode()
                rh.setdefault("Content-Type", "application/json")
            elif isinstance(rbody, str):
                rbody = rbody.encode()
                rh.setdefault("Content-Type", "text/plain")
            rbody = rbody or b""
            if status != 204:
                rh["Content-Length"] = str(len(rbody))
            else:
                rbody = b""
            rh["Date"] = time.strftime("%a, %d %b %Y %H:%M:%S GMT",
                                       time.gmtime())
            rh["Connection"] = "close" if close else "keep-alive"
            for k, v in rh.items():
                out.append("%s: %s" % (k, v))
            writer.write(("\r\n".join(out) + "\r\n\r\n").encode() + rbody)
            await writer.drain()
            if close:
                return

    # ------------------------------------------------------------------
    # websocket / gateway
    async def _serve_ws(self, reader, writer, path, query, headers):
        key = headers.get("sec-websocket-key")
        if path not in ("/gateway", self.resume_path) or not key or \
                headers.get("sec-websocket-version") != "13":
            self._violate("bad websocket upgrade to %s (version %r)" %
                          (path, headers.get("sec-websocket-version")))
            writer.write(b"HTTP/1.1 400 Bad Request\r\nContent-Length: 0"
                         b"\r\nConnection: close\r\n\r\n")
            return
        accept = base64.b64encode(hashlib.sha1(
            (key + WS_GUID).encode()).digest()).decode()
        writer.write(("HTTP/1.1 101 Switching Protocols\r\n"
                      "Upgrade: websocket\r\nConnection: Upgrade\r\n"
                      "Sec-WebSocket-Accept: %s\r\n\r\n" % accept).encode())
        conn = _WSConn(self, reader, writer, path, query)
        q = urllib.parse.parse_qs(query)
        with self._lock:
            self.connections += 1
            self._conns.add(conn)
            self._cond.notify_all()
        self._log_gw(conn, "connect", path=path, query=query)
        if q.get("v", ["10"])[0] != "10" or \
                q.get("encoding", ["json"])[0] != "json":
            self._violate("gateway connected with query %r (want v=10&"
                          "encoding=json)" % query)
        if "compress" in q:
            self._violate("gateway compression requested (%r); the fake does "
                          "not compress" % query)
        conn.hello_t = time.monotonic()
        conn.send_json({"op": 10, "d": {
            "heartbeat_interval": self.heartbeat_interval_ms,
            "_trace": ["fake-discord"]}})
        frags = []
        frag_op = None
        try:
            while not conn.closed:
                fin, rsv, opcode, masked, data = await conn.read_frame()
                if conn.closed:
                    break
                if not masked:
                    self._violate("unmasked client websocket frame")
                    conn.send_close(1002, "unmasked frame")
                    break
                if rsv:
                    self._violate("websocket RSV bits set (no extension "
                                  "negotiated)")
                if opcode >= 0x8:
                    if not fin or len(data) > 125:
                        self._violate("bad websocket control frame")
                    if opcode == 0x8:
                        code = struct.unpack("!H", data[:2])[0] \
                            if len(data) >= 2 else None
                        reason = data[2:].decode("utf-8", "replace")
                        self._log_gw(conn, "client_close", code=code,
                                     reason=reason)
                        if code in (1000, 1001) and conn.session:
                            # Discord invalidates the session on these.
                            conn.session.resumable = False
                        try:
                            writer.write(conn._frame(0x8, data[:2]))
                        except Exception:
                            pass
                        conn._finish()
                        break
                    if opcode == 0x9:
                        writer.write(conn._frame(0xA, data))
                    continue
                if opcode in (0x1, 0x2):
                    if frag_op is not None:
                        self._violate("new websocket message inside a "
                                      "fragmented one")
                    frags = [data]
                    frag_op = opcode
                elif opcode == 0x0:
                    if frag_op is None:
                        self._violate("continuation frame without start")
                        continue
                    frags.append(data)
                else:
                    self._violate("unknown websocket opcode %d" % opcode)
                    conn.send_close(1002, "bad opcode")
                    break
                if not fin:
                    continue
                msg = b"".join(frags)
                op_kind = frag_op
                frags, frag_op = [], None
                if op_kind == 0x2:
                    self._violate("binary gateway frame (expected text/json)")
                    conn.send_close(4002, "Error while decoding payload.")
                    break
                try:
                    payload = json.loads(msg.decode("utf-8"))
                    if not isinstance(payload, dict):
                        raise ValueError("not an object")
                except Exception:
                    self._violate("undecodable gateway payload %r" % msg[:80])
                    conn.send_close(4002, "Error while decoding payload.")
                    break
                self._on_gateway_payload(conn, payload)
                await writer.drain()
        except (asyncio.IncompleteReadError, ConnectionError):
            pass
        finally:
            if not conn.closed:
                self._log_gw(conn, "client_eof")
            conn._finish()
            with self._lock:
                self._conns.discard(conn)

    def _on_gateway_payload(self, conn, p):
        op = p.get("op")
        d = p.get("d")
        now = time.monotonic()
        rec = self._log_gw(conn, "op", op=op, d=d if op != 2 else
                           dict(d or {}, token="<redacted>"),
                           path=conn.path)
        if op == 1:
            conn.heartbeats += 1
            if conn.heartbeats == 1:
                delay = now - conn.hello_t
                rec.delay = delay
                lim = self.heartbeat_interval_ms / 1000.0 + \
                    self.heartbeat_slack_s
                if delay > lim:
                    self._violate("first heartbeat %.2fs after Hello "
                                  "(interval %.2fs)" % (
                                      delay,
                                      self.heartbeat_interval_ms / 1000.0))
            else:
                rec.delay = now - conn.last_hb_t
            conn.last_hb_t = now
            s = conn.session
            if d is not None and (not isinstance(d, int) or
                                  (s is not None and d > s.seq)):
                self._violate("heartbeat carries impossible seq %r" % (d,))
            with self._lock:
                withhold = self._withhold > 0
                if withhold:
                    self._withhold -= 1
            rec.acked = not withhold
            if not withhold:
                conn.send_json({"op": 11})
            return
        if op == 2:
            if conn.identified:
                conn.send_close(4005, "Already authenticated.")
                return
            d = d or {}
            rec.intents = d.get("intents")
            rec.shard = d.get("shard")
            rec.properties = d.get("properties")
            if d.get("token") != self.token:
                conn.send_close(4004, "Authentication failed.")
                return
            if not isinstance(d.get("intents"), int):
                conn.send_close(4013, "Invalid intent(s).")
                return
            with self._lock:
                ssl = self.session_start_limit
                if ssl.get("remaining", 0) <= 0:
                    self._violate("Identify with no session start left: "
                                  "Discord resets the token now")
                ssl["remaining"] = ssl.get("remaining", 0) - 1
            if self.refuse_identify:
                rec.result = "invalid"
                self._log_gw(conn, "sent", op=9, d=False)
                conn.send_json({"op": 9, "d": False})
                return
            props = d.get("properties")
            if not isinstance(props, dict) or not all(
                    k in props for k in ("os", "browser", "device")):
                self._violate("identify properties incomplete: %r" % (props,))
            shard = d.get("shard")
            if shard is not None and (
                    not isinstance(shard, list) or len(shard) != 2 or
                    not all(isinstance(x, int) for x in shard) or
                    not 0 <= shard[0] < shard[1]):
                conn.send_close(4010, "Invalid shard.")
                return
            shard = tuple(shard) if shard else (0, 1)
            sid = hashlib.sha1(os.urandom(16)).hexdigest()
            s = _Session(sid, shard)
            with self._lock:
                self._sessions[sid] = s
                self._session = s
                if shard[1] != self.shard_count and self._by_shard:
                    self._violate("shard count %d, other sessions use %d" %
                                  (shard[1], self.shard_count))
                self.shard_count = shard[1]
                self._by_shard[shard[0]] = s
                s.conn = conn
                conn.session = s
                conn.identified = True
            ready = {"v": 10, "user": self.bot_user, "session_id": sid,
                     "resume_gateway_url": self.resume_gateway_url,
                     "session_type": "normal", "private_channels": [],
                     "relationships": [], "user_settings": {},
                     "application": {"id": self.app_id, "flags": 0},
                     "guilds": [{"id": g, "unavailable": True}
                                for g in self.guild_ids
                                if shard_of(g, shard[1]) == shard[0]],
                     "shard": list(shard),
                     "_trace": ["fake-discord"]}
            self._dispatch_loop("READY", ready, None, s)
            with self._lock:
                self.identify_count += 1
                self._live = conn
                self._cond.notify_all()
            return
        if op == 6:
            d = d or {}
            if conn.identified:
                conn.send_close(4005, "Already authenticated.")
                return
            if d.get("token") != self.token:
                conn.send_close(4004, "Authentication failed.")
                return
            if conn.path != self.resume_path:
                self._violate("Resume sent on %s, not on resume_gateway_url"
                              % conn.path)
            with self._lock:
                s = self._sessions.get(d.get("session_id"))
            if s is None or not s.resumable or \
                    s is not self._by_shard.get(s.shard[0], self._session):
                rec.result = "invalid"
                self._log_gw(conn, "sent", op=9, d=False)
                conn.send_json({"op": 9, "d": False})
                return
            seq = d.get("seq")
            if not isinstance(seq, int):
                seq = 0
            if seq > s.seq:
                rec.result = "bad seq"
                conn.send_close(4007, "Invalid seq.")
                s.resumable = False
                return
            old = s.conn
            if old is not None and old is not conn and not old.closed:
                old.abort()
            with self._lock:
                s.conn = conn
                conn.session = s
                conn.identified = True
            if self.huge_dispatch_on_resume > 0:
                # a large guild's GUILD_CREATE, buffered like any dispatch
                pad = "x" * self.huge_dispatch_on_resume
                s.seq += 1
                s.buffer.append((s.seq, json.dumps(
                    {"op": 0, "t": "GUILD_CREATE", "s": s.seq,
                     "d": {"id": DEFAULT_GUILD, "members": [],
                           "description": pad}}), None))
                self._log_gw(conn, "sent", op=0, event="GUILD_CREATE",
                             size=len(pad))
            replayed = 0
            for sq, text, inter in s.buffer:
                if sq > seq:
                    conn.send_text(text, self._fragment)
                    replayed += 1
                    if inter is not None and inter.sent_t is None:
                        inter.sent_t = time.monotonic()
            rec.replayed = replayed
            rec.result = "resumed"
            self._dispatch_loop("RESUMED", {"_trace": ["fake-discord"]}, None, s)
            with self._lock:
                self.resume_count += 1
                self._live = conn
                self._cond.notify_all()
            return
        if not conn.identified:
            conn.send_close(4003, "Not authenticated.")
            return
        if op in (3, 4, 8, 31):
            return      # presence, voice, request members, soundboard
        conn.send_close(4001, "Unknown opcode.")

    # ------------------------------------------------------------------
    # REST
    def _rate(self, bucket_key, limit, window, now):
        b = self._buckets.get(bucket_key)
        if b is None or now >= b["end"]:
            b = {"count": 0, "end": now + window, "limit": limit}
            self._buckets[bucket_key] = b
        ok = b["count"] < limit
        if ok:
            b["count"] += 1
        return ok, b

    @staticmethod
    def _rl_headers(route, b, now):
        after = max(0.0, b["end"] - now)
        return {"X-RateLimit-Limit": str(b["limit"]),
                "X-RateLimit-Remaining": str(max(0, b["limit"] - b["count"])),
                "X-RateLimit-Reset": "%.3f" % (time.time() + after),
                "X-RateLimit-Reset-After": "%.3f" % after,
                "X-RateLimit-Bucket": hashlib.sha1(
                    route.encode()).hexdigest()[:16]}

    def _route(self, method, path):
        """(route template, bucket key, (limit, window) or None)."""
        m = re.match(r"^/channels/(\d+)/messages(/\d+)?$", path)
        if m:
            return ("channels/messages", "ch:" + m.group(1),
                    self.channel_rate)
        if path.startswith("/interactions/"):
            return ("interactions/callback", "cb", None)
        m = re.match(r"^/webhooks/(\d+)/([^/]+)", path)
        if m:
            return ("webhooks", "wh:" + m.group(2), self.webhook_rate)
        tmpl = re.sub(r"\d{5,}", "{id}", path)
        return (method + " " + tmpl, method + " " + tmpl, self.default_rate)

    def _handle_rest(self, method, full_path, query, headers, body):
        now = time.monotonic()
        path = full_path[len("/api/v10"):] if full_path.startswith(
            "/api/v10/") else None
        parsed = None
        bad_json = False
        ctype = headers.get("content-type", "")
        if body and ctype.startswith("multipart/form-data"):
            parsed, bad_json = _parse_multipart(ctype, body)
            body = json.dumps(parsed).encode() if parsed is not None else body
            headers = dict(headers)
            headers["content-type"] = "application/json"
        elif body:
            try:
                parsed = json.loads(body.decode("utf-8"))
            except Exception:
                bad_json = True
        req = Rec(method=method, path=path if path is not None else
                  full_path, full_path=full_path,
                  query=dict(urllib.parse.parse_qsl(query)),
                  headers=dict(headers), body=parsed, raw=body, t=now,
                  status=None)
        with self._lock:
            self.requests.append(req)
            self.user_agents.add(headers.get("user-agent", ""))
            over = self._count_global(method, path, now)
            self._cond.notify_all()
        if over:
            self._violate("exceeded the global rate limit (%d per %.1fs)"
                          % self.global_rate, req)
            ra = max(0.001, self._global["start"] + self.global_rate[1] - now)
            with self._lock:
                req.status = 429
            return 429, {"Retry-After": str(int(math.ceil(ra))),
                         "X-RateLimit-Global": "true",
                         "X-RateLimit-Scope": "global"}, {
                "message": "You are being rate limited.",
                "retry_after": round(ra, 3), "global": True}
        st, h, b = self._handle_rest2(req, method, path, headers, body,
                                      parsed, bad_json, now)
        with self._lock:
            req.status = st
            req.response = b
            self._cond.notify_all()
        return st, h, b

    def _count_global(self, method, path, now):
        """Counts one request against global_rate (lock held); True when
        it is over the limit."""
        if self.global_rate is None or path is None or (
                method == "POST" and path.startswith("/interactions/")):
            return False
        limit, window = self.global_rate
        g = self._global
        if g is None or now >= g["start"] + window - self.global_slack_s:
            g = self._global = {"start": now, "count": 0}
        g["count"] += 1
        self.global_peak = max(self.global_peak, g["count"])
        return g["count"] > limit

    def _check_attachments(self, body, req):
        """attachments[].id is a snowflake: a string in Discord's OpenAPI
        description (a number is accepted by Discord today, not promised)."""
        if not isinstance(body, dict):
            return
        for target in (body, body.get("data")):
            if not isinstance(target, dict):
                continue
            for a in target.get("attachments") or []:
                if isinstance(a, dict) and not (
                        isinstance(a.get("id"), str) and a["id"].isdigit()):
                    self._violate("attachments[].id %r is not a snowflake string"
                                  % (a.get("id"),), req)

    def _handle_rest2(self, req, method, path, headers, body, parsed,
                      bad_json, now):
        if path is None:
            self._violate("unknown endpoint (not under /api/v10)", req)
            return 404, {}, {"message": "404: Not Found", "code": 0}
        webhookish = path.startswith("/interactions/") or \
            path.startswith("/webhooks/")
        auth = headers.get("authorization")
        if auth != "Bot " + self.token:
            if not (webhookish and auth is None and
                    not self.require_auth_on_webhooks):
                return 401, {}, {"message": "401: Unauthorized", "code": 0}
        ua = headers.get("user-agent", "")
        if not _UA_RE.match(ua):
            self._violate("User-Agent %r is not 'DiscordBot (url, version)'"
                          % ua, req)
        self._check_attachments(parsed, req)
        # retry spacing after an injected 429
        with self._lock:
            for i, (m, p, nb, t0) in enumerate(self._retry_after):
                if m == method and p == path:
                    if now < nb - self.retry_slack_s:
                        self._violate("retried %.3fs after a 429 that said "
                                      "retry_after %.3fs" % (now - t0,
                                                             nb - t0), req)
                    del self._retry_after[i]
                    break
        # injected faults
        with self._lock:
            fault = None
            for f in self._faults:
                if f.count > 0 and f.method in (method, "*") and \
                        f.rx.search(path):
                    f.count -= 1
                    fault = f
                    break
            self._faults = [f for f in self._faults if f.count > 0]
        route, bkey, rate = self._route(method, path)
        if fault is not None:
            with self._lock:
                self.faults_fired.append(Rec(t=now, method=method, path=path,
                                             status=fault.status,
                                             retry_after=fault.retry_after))
            if fault.status == 429:
                ra = fault.retry_after if fault.retry_after is not None \
                    else 1.0
                with self._lock:
                    self._retry_after.append((method, path, now + ra, now))
                # a user-scope 429 carries the bucket's own limit, as
                # Discord's do (not a made-up one the bot would learn)
                h = {"Retry-After": str(int(math.ceil(ra))),
                     "X-RateLimit-Scope": "global" if fault.global_
                     else "user",
                     "X-RateLimit-Limit": str(rate[0] if rate else 5),
                     "X-RateLimit-Remaining": "0",
                     "X-RateLimit-Reset": "%.3f" % (time.time() + ra),
                     "X-RateLimit-Reset-After": "%.3f" % ra,
                     "X-RateLimit-Bucket": hashlib.sha1(
                         route.encode()).hexdigest()[:16]}
                if fault.global_:
                    h["X-RateLimit-Global"] = "true"
                    del h["X-RateLimit-Bucket"]
                return 429, h, {"message": "You are being rate limited.",
                                "retry_after": ra, "global": fault.global_}
            if fault.status == 502:
                return 502, {}, "bad gateway"
            return fault.status, {}, {"message": "injected %d" % fault.status,
                                      "code": 0}
        # rate limits
        if rate is None:
            b = {"limit": 1000, "count": 1, "end": now + 1.0}
        else:
            with self._lock:
                ok, b = self._rate(bkey, rate[0], rate[1], now)
            if not ok:
                ra = max(0.001, b["end"] - now)
                self._violate("exceeded rate limit on %s (%d per %.1fs)" %
                              (bkey, rate[0], rate[1]), req)
                h = self._rl_headers(route, b, now)
                h["Retry-After"] = str(int(math.ceil(ra)))
                h["X-RateLimit-Scope"] = "user"
                return 429, h, {"message": "You are being rate limited.",
                                "retry_after": round(ra, 3), "global": False}
        rlh = self._rl_headers(route, b, now)
        if bad_json:
            self._violate("request body is not JSON", req)
            return 400, rlh, {"message": "400: Bad Request", "code": 50109}
        if body and "application/json" not in headers.get("content-type",
                                                          ""):
            self._violate("body sent without Content-Type: application/json",
                          req)
        with self._lock:
            st, b2 = self._dispatch_rest(req, method, path, parsed, now)
        return st, rlh, b2

    # -- validation -----------------------------------------------------
    def _check_message(self, body, req, create, what):
        """Return a list of problems (also recorded as violations)."""
        probs = []
        if not isinstance(body, dict):
            probs.append("%s body is not an object" % what)
        else:
            c = body.get("content")
            if c is not None and not isinstance(c, str):
                probs.append("%s content is not a string" % what)
            elif isinstance(c, str) and len(c) > 2000:
                probs.append("%s content is %d characters (> 2000)" %
                             (what, len(c)))
            if create and "allowed_mentions" not in body:
                probs.append("%s without allowed_mentions" % what)
            if create and not (c or body.get("embeds") or
                               body.get("components") or
                               body.get("attachments") or
                               body.get("sticker_ids") or body.get("poll")):
                probs.append("%s is empty (no content/embeds/components)"
                             % what)
            embeds = body.get("embeds")
            if embeds is not None:
                if not isinstance(embeds, list) or len(embeds) > 10:
                    probs.append("%s has bad embeds (> 10 or not a list)"
                                 % what)
                else:
                    total = _embed_chars(body)
                    if total > 6000:
                        probs.append("%s embeds exceed 6000 characters"
                                     % what)
            probs += self._check_components(body.get("components"), what)
        for p in probs:
            self._violate(p, req)
        return probs

    def _check_components(self, comps, what):
        probs = []
        if comps is None:
            return probs
        if not isinstance(comps, list):
            return ["%s components is not a list" % what]
        if len(comps) > 5:
            probs.append("%s has %d action rows (> 5)" % (what, len(comps)))
        ids = set()
        for r, row in enumerate(comps):
            if not isinstance(row, dict) or row.get("type") != 1:
                probs.append("%s component %d is not an action row" %
                             (what, r))
                continue
            kids = row.get("components") or []
            if not kids:
                probs.append("%s action row %d is empty" % (what, r))
            buttons = [k for k in kids if isinstance(k, dict) and
                       k.get("type") == 2]
            selects = [k for k in kids if isinstance(k, dict) and
                       k.get("type") in (3, 5, 6, 7, 8)]
            if len(buttons) > 5:
                probs.append("%s row %d has %d buttons (> 5)" %
                             (what, r, len(buttons)))
            if selects and (len(selects) > 1 or buttons):
                probs.append("%s row %d mixes a select with other "
                             "components" % (what, r))
            for k in kids:
                if not isinstance(k, dict):
                    probs.append("%s row %d has a non-object" % (what, r))
                    continue
                cid = k.get("custom_id")
                if k.get("type") == 2 and k.get("style") == 5:
                    if not k.get("url"):
                        probs.append("%s link button without url" % what)
                elif k.get("type") == 2 and k.get("style") == 6:
                    pass
                elif cid is None:
                    probs.append("%s component without custom_id" % what)
                if cid is not None:
                    if not isinstance(cid, str) or not 1 <= len(cid) <= 100:
                        probs.append("%s custom_id %r longer than 100 or "
                                     "empty" % (what, cid))
                    if cid in ids:
                        probs.append("%s duplicate custom_id %r" %
                                     (what, cid))
                    ids.add(cid)
                if k.get("type") == 2:
                    lab = k.get("label")
                    if lab is not None and len(lab) > 80:
                        probs.append("%s button label > 80 chars" % what)
                    if not lab and not k.get("emoji"):
                        probs.append("%s button without label or emoji"
                                     % what)
                    if k.get("style") not in (1, 2, 3, 4, 5, 6):
                        probs.append("%s button style %r" %
                                     (what, k.get("style")))
                elif k.get("type") == 3:
                    opts = k.get("options") or []
                    if not 1 <= len(opts) <= 25:
                        probs.append("%s select has %d options (1..25)" %
                                     (what, len(opts)))
                    vals = set()
                    for o in opts:
                        lab = o.get("label") or ""
                        if not 1 <= len(lab) <= 100:
                            probs.append("%s select option label length %d"
                                         % (what, len(lab)))
                        v = o.get("value") or ""
                        if not 1 <= len(v) <= 100:
                            probs.append("%s select option value length %d"
                                         % (what, len(v)))
                        if v in vals:
                            probs.append("%s duplicate select value %r" %
                                         (what, v))
                        vals.add(v)
                        if len(o.get("description") or "") > 100:
                            probs.append("%s select option description > 100"
                                         % what)
                    if len(k.get("placeholder") or "") > 150:
                        probs.append("%s select placeholder > 150" % what)
                    mn, mx = k.get("min_values", 1), k.get("max_values", 1)
                    if not (0 <= mn <= 25 and 1 <= mx <= 25 and mn <= mx and
                            mx <= max(1, len(opts))):
                        probs.append("%s select min/max values %r/%r" %
                                     (what, mn, mx))
        return probs

    def _check_commands(self, arr, req):
        probs = []
        if not isinstance(arr, list):
            probs.append("command registration body is not an array")
        else:
            if len(arr) > 100:
                probs.append("more than 100 commands")
            seen = set()
            for c in arr:
                if not isinstance(c, dict):
                    probs.append("command is not an object")
                    continue
                ctype = c.get("type", 1)
                name = c.get("name")
                if (ctype, name) in seen:
                    probs.append("duplicate command %r" % name)
                seen.add((ctype, name))
                probs += self._check_cmd_obj(c, "command", ctype == 1)
                total = len(name or "") + len(c.get("description") or "")
                for o in c.get("options") or []:
                    total += _opt_chars(o)
                if total > 4000:
                    probs.append("command %r exceeds 4000 characters" % name)
        for p in probs:
            self._violate(p, req)
        return probs

    def _check_cmd_obj(self, c, what, chat_input=True, depth=0):
        probs = []
        name = c.get("name")
        if chat_input and (not isinstance(name, str) or
                           not _NAME_RE.match(name) or name != name.lower()):
            probs.append("%s name %r invalid (^[-_\\w]{1,32}$, lowercase)" %
                         (what, name))
        elif not chat_input and not (isinstance(name, str) and
                                     1 <= len(name) <= 32):
            probs.append("%s name %r invalid" % (what, name))
        desc = c.get("description")
        if chat_input and (not isinstance(desc, str) or
                           not 1 <= len(desc) <= 100):
            probs.append("%s %r description must be 1-100 characters" %
                         (what, name))
        opts = c.get("options") or []
        if len(opts) > 25:
            probs.append("%s %r has %d options (> 25)" %
                         (what, name, len(opts)))
        seen_optional = False
        names = set()
        for o in opts:
            if not isinstance(o, dict):
                probs.append("%s %r option is not an object" % (what, name))
                continue
            on = o.get("name")
            if on in names:
                probs.append("%s %r duplicate option %r" % (what, name, on))
            names.add(on)
            t = o.get("type")
            if t not in range(1, 12):
                probs.append("option %r has bad type %r" % (on, t))
            if t in (1, 2):
                if depth >= 2 or (t == 2 and depth >= 1):
                    probs.append("option %r nests subcommands too deep" % on)
                probs += self._check_cmd_obj(o, "subcommand", True, depth + 1)
                continue
            probs += self._check_cmd_obj(
                {"name": on, "description": o.get("description")},
                "option", True, depth + 1)
            if o.get("required"):
                if seen_optional:
                    probs.append("required option %r after an optional one"
                                 % on)
            else:
                seen_optional = True
            ch = o.get("choices")
            if ch is not None:
                if len(ch) > 25:
                    probs.append("option %r has %d choices (> 25)" %
                                 (on, len(ch)))
                if o.get("autocomplete"):
                    probs.append("option %r has both choices and "
                                 "autocomplete" % on)
                for x in ch:
                    if not 1 <= len(str(x.get("name", ""))) <= 100:
                        probs.append("option %r choice name length" % on)
                    if isinstance(x.get("value"), str) and \
                            len(x["value"]) > 100:
                        probs.append("option %r choice value > 100" % on)
        return probs

    # -- message store ----------------------------------------------------
    def _make_msg(self, channel_id, body, private, kind, inter=None,
                  webhook=False):
        mid = self.snowflake()
        m = {"id": mid, "channel_id": str(channel_id), "type": 0,
             "content": body.get("content") or "",
             "components": body.get("components") or [],
             "embeds": body.get("embeds") or [],
             "attachments": body.get("attachments") or [],
             "mentions": [], "mention_roles": [], "mention_everyone": False,
             "pinned": False, "tts": bool(body.get("tts")),
             "timestamp": time.strftime("%Y-%m-%dT%H:%M:%S.000000+00:00",
                                        time.gmtime()),
             "edited_timestamp": None, "flags": body.get("flags") or 0,
             "author": self.bot_user,
             "allowed_mentions": body.get("allowed_mentions"),
             "_private": private, "_kind": kind, "_versions": [body]}
        if webhook:
            m["webhook_id"] = self.app_id
            m["application_id"] = self.app_id
        if inter is not None:
            m["interaction_metadata"] = {"id": inter.id,
                                         "type": inter.type}
            m["_interaction"] = inter.id
        if "nonce" in body:
            m["nonce"] = body["nonce"]
        self._msgs[mid] = m
        ch = str(channel_id)
        if kind == "channel":
            self._chan_msgs.setdefault(ch, []).append(mid)
        self._chan_all.setdefault(ch, []).append(mid)
        self._add_text(body, private, kind)
        self._cond.notify_all()
        return m

    def _edit_msg(self, m, body):
        for k in ("content", "components", "embeds", "allowed_mentions",
                  "attachments"):
            if k in body:
                m[k] = body[k] if body[k] is not None else (
                    "" if k == "content" else [])
        if "flags" in body and body["flags"] is not None:
            # only SUPPRESS_EMBEDS may change; keep ephemeral as it was
            m["flags"] = (m["flags"] & EPHEMERAL) | (body["flags"] & ~EPHEMERAL)
        m["edited_timestamp"] = time.strftime(
            "%Y-%m-%dT%H:%M:%S.000000+00:00", time.gmtime())
        m.pop("_pending", None)
        m["_versions"].append(body)
        self._add_text(body, m["_private"], m["_kind"] + "-edit")
        self._cond.notify_all()

    def _strict_fail(self, probs):
        if probs and self.strict:
            return 400, {"message": "Invalid Form Body", "code": 50035,
                         "errors": {"_fake": probs}}
        return None

    # -- endpoints ------------------------------------------------------
    def _dispatch_rest(self, req, method, path, body, now):
        if method == "GET" and path == "/gateway/bot":
            return 200, {"url": self.gateway_url,
                         "shards": self.recommended_shards,
                         "session_start_limit": dict(
                             self.session_start_limit)}
        if method == "GET" and path == "/gateway":
            return 200, {"url": self.gateway_url}
        if method == "GET" and path == "/users/@me":
            return 200, dict(self.bot_user)
        if method == "GET" and path == "/oauth2/applications/@me" or \
                method == "GET" and path == "/applications/@me":
            return 200, {"id": self.app_id, "name": "tabula", "flags": 0,
                         "bot_public": True, "description": "",
                         "bot": self.bot_user}
        m = re.match(r"^/applications/(\d+)/(?:guilds/(\d+)/)?commands$",
                     path)
        if m:
            if m.group(1) != self.app_id:
                self._violate("commands for unknown application %s" %
                              m.group(1), req)
                return 404, {"message": "Unknown Application",
                             "code": 10002}
            scope = m.group(2)
            if method == "GET":
                return 200, self._commands.get(scope, [])
            if method != "PUT":
                return self._unknown(req)
            probs = self._check_commands(body, req)
            if probs and self.strict:
                return 400, {"message": "Invalid Form Body", "code": 50035}
            out = []
            old = {c["name"]: c["id"] for c in self._commands.get(scope, [])}
            for c in body if isinstance(body, list) else []:
                c = dict(c)
                c.setdefault("type", 1)
                c["id"] = old.get(c.get("name")) or self.snowflake()
                c["application_id"] = self.app_id
                c["version"] = self.snowflake()
                if scope:
                    c["guild_id"] = scope
                out.append(c)
            self._commands[scope] = out
            self._cond.notify_all()
            return 200, out
        m = re.match(r"^/interactions/(\d+)/([^/]+)/callback$", path)
        if m and method == "POST":
            return self._callback(req, m.group(1), m.group(2), body, now)
        m = re.match(r"^/webhooks/(\d+)/([^/]+)(?:/messages/([^/]+))?$",
                     path)
        if m:
            return self._webhook(req, method, m.group(1), m.group(2),
                                 m.group(3), body, now)
        if method == "POST" and path == "/users/@me/channels":
            rid = str((body or {}).get("recipient_id"))
            if not rid or rid == "None":
                return 400, {"message": "Invalid Form Body", "code": 50035}
            ch = self._dm_by_user.get(rid)
            if ch is None:
                ch = self.snowflake()
                self._dm_by_user[rid] = ch
                self._dm_user_by_chan[ch] = rid
                self._cond.notify_all()
            u = self._users.get(rid) or {"id": rid, "username": "user" + rid,
                                         "discriminator": "0",
                                         "global_name": None, "avatar": None}
            return 200, {"id": ch, "type": 1, "last_message_id": None,
                         "flags": 0, "recipients": [u]}
        m = re.match(r"^/channels/(\d+)/messages(?:/(\d+))?$", path)
        if m:
            return self._channel_msg(req, method, m.group(1), m.group(2),
                                     body, now)
        return self._unknown(req)

    def _unknown(self, req):
        self._violate("unknown endpoint", req)
        return 404, {"message": "404: Not Found", "code": 0}

    def _callback(self, req, iid, token, body, now):
        h = self._inter_by_id.get(iid)
        if h is None or h.token != token:
            self._violate("callback for unknown interaction", req)
            return 404, {"message": "Unknown interaction", "code": 10062}
        if h.callback is not None:
            self._violate("interaction %s acknowledged twice" % iid, req)
            return 400, {"message": "Interaction has already been "
                         "acknowledged.", "code": 40060}
        t0 = h.sent_t if h.sent_t is not None else h.created_t
        elapsed = now - t0 + h.age_s
        if elapsed > self.interaction_deadline_s:
            self._violate("late response: callback %.2fs after dispatch "
                          "(deadline %.1fs)" % (elapsed,
                                                self.interaction_deadline_s),
                          req)
            return 404, {"message": "Unknown interaction", "code": 10062}
        if not isinstance(body, dict) or "type" not in body:
            self._violate("callback body without type", req)
            return 400, {"message": "Invalid Form Body", "code": 50035}
        ct = body.get("type")
        data = body.get("data") or {}
        valid = {2: (4, 5, 9), 3: (4, 5, 6, 7, 9), 4: (8,), 5: (4, 5, 6, 7)}
        if ct not in valid.get(h.type, ()):
            self._violate("callback type %r invalid for interaction type %d"
                          % (ct, h.type), req)
            return 400, {"message": "Interaction response type invalid",
                         "code": 50035}
        probs = []
        if ct == 4:
            probs = self._check_message(data, req, True, "callback message")
        elif ct == 7:
            probs = self._check_message(data, req, False, "update message")
        elif ct == 8:
            ch = data.get("choices")
            if not isinstance(ch, list) or len(ch) > 25:
                probs = ["autocomplete result with %s choices (max 25)" %
                         (len(ch) if isinstance(ch, list) else "no")]
                self._violate(probs[0], req)
        elif ct == 9:
            cid = data.get("custom_id") or ""
            if not 1 <= len(cid) <= 100 or not 1 <= len(
                    data.get("title") or "") <= 45 or not 1 <= len(
                    data.get("components") or []) <= 5:
                probs = ["invalid modal (custom_id/title/components)"]
                self._violate(probs[0], req)
        sf = self._strict_fail(probs)
        if sf:
            return sf
        h.callback = body
        h.callback_t = now
        h.callbacks.append(body)
        private_chan = h.channel_id in self._dm_user_by_chan
        if ct == 4:
            eph = bool((data.get("flags") or 0) & EPHEMERAL)
            msg = self._make_msg(h.channel_id, data, eph or private_chan,
                                 "callback", h, webhook=True)
            h.original_id = msg["id"]
        elif ct == 5:
            eph = bool((data.get("flags") or 0) & EPHEMERAL)
            h.ephemeral_defer = eph
            msg = self._make_msg(h.channel_id, {"flags": data.get("flags")},
                                 eph or private_chan, "callback", h,
                                 webhook=True)
            msg["_pending"] = True
            msg["_versions"] = []
            h.original_id = msg["id"]
        elif ct in (6, 7):
            mid = (h.payload.get("message") or {}).get("id")
            target = self._msgs.get(mid)
            if target is not None:
                h.original_id = mid
                if ct == 7:
                    self._edit_msg(target, data)
            elif ct == 7:
                self._violate("update of a message the fake does not know",
                              req)
        self._cond.notify_all()
        return 204, None

    def _webhook(self, req, method, app, token, sub, body, now):
        h = self._inter_by_token.get(token)
        if app != self.app_id or h is None:
            self._violate("webhook for unknown application/token", req)
            return 404, {"message": "Unknown Webhook", "code": 10015}
        if h.callback is None:
            self._violate("follow-up/edit before the interaction callback",
                          req)
            return 404, {"message": "Unknown Webhook", "code": 10015}
        if now - (h.sent_t or h.created_t) > self.followup_window_s:
            self._violate("follow-up after the 15 minute token lifetime",
                          req)
            return 401, {"message": "Invalid Webhook Token", "code": 50027}
        if sub is None:
            if method != "POST":
                return self._unknown(req)
            probs = self._check_message(body, req, True, "follow-up")
            sf = self._strict_fail(probs)
            if sf:
                return sf
            eph = bool(((body or {}).get("flags") or 0) & EPHEMERAL)
            msg = self._make_msg(h.channel_id, body or {},
                                 eph or h.channel_id in self._dm_user_by_chan,
                                 "followup", h, webhook=True)
            h.followup_ids.append(msg["id"])
            h.followups.append(body)
            self._cond.notify_all()
            return 200, _wire(msg)
        mid = h.original_id if sub == "@original" else sub
        m = self._msgs.get(mid) if mid else None
        if m is None or m.get("_deleted") or (
                sub != "@original" and mid not in h.followup_ids):
            return 404, {"message": "Unknown Message", "code": 10008}
        if method == "GET":
            return 200, _wire(m)
        if method == "PATCH":
            probs = self._check_message(body, req, False, "webhook edit")
            sf = self._strict_fail(probs)
            if sf:
                return sf
            self._edit_msg(m, body or {})
            if sub == "@original":
                h.edits.append(body)
            self._cond.notify_all()
            return 200, _wire(m)
        if method == "DELETE":
            m["_deleted"] = True
            self._cond.notify_all()
            return 204, None
        return self._unknown(req)

    def _channel_msg(self, req, method, ch, mid, body, now):
        if mid is None and method == "POST":
            if ch in self._dm_user_by_chan and \
                    self._dm_user_by_chan[ch] in {
                        str(u) for u in self.refuse_dm_users}:
                return 403, {"message": "Cannot send messages to this user",
                             "code": 50007}
            body = body if isinstance(body, dict) else {}
            if ch in self.no_attach_channels and body.get("attachments"):
                # the bot lacks Attach Files in this channel
                self.attach_refusals.append(Rec(t=now, channel_id=ch))
                self._cond.notify_all()
                return 403, {"message": "Missing Permissions", "code": 50013}
            nonce = body.get("nonce")
            if nonce is not None:
                if isinstance(nonce, str) and len(nonce) > 25:
                    self._violate("nonce longer than 25 characters", req)
                key = (ch, str(nonce))
                prev = self._nonces.get(key)
                if body.get("enforce_nonce") and prev and \
                        now - prev[1] < self.nonce_window_s and \
                        prev[0] in self._msgs:
                    self.dedups.append(Rec(t=now, channel_id=ch,
                                           nonce=nonce, message_id=prev[0]))
                    self._cond.notify_all()
                    return 200, _wire(self._msgs[prev[0]])
            probs = self._check_message(body, req, True, "channel message")
            sf = self._strict_fail(probs)
            if sf:
                return sf
            if not (body.get("content") or body.get("embeds") or
                    body.get("components") or body.get("attachments")):
                return 400, {"message": "Cannot send an empty message",
                             "code": 50006}
            msg = self._make_msg(ch, body, ch in self._dm_user_by_chan,
                                 "channel")
            if nonce is not None:
                self._nonces[(ch, str(nonce))] = (msg["id"], now)
            return 200, _wire(msg)
        if mid is not None and method in ("PATCH", "DELETE", "GET"):
            m = self._msgs.get(mid)
            if m is None or m.get("_deleted") or m["channel_id"] != ch:
                return 404, {"message": "Unknown Message", "code": 10008}
            if method == "GET":
                return 200, _wire(m)
            if method == "DELETE":
                m["_deleted"] = True
                self._cond.notify_all()
                return 204, None
            if m.get("_private") and m["_kind"] != "channel":
                return 403, {"message": "Missing Access", "code": 50001}
            if ch in self.no_attach_channels and isinstance(body, dict) and \
                    body.get("attachments"):
                # an edit that adds a file needs Attach Files too
                self.attach_refusals.append(Rec(t=now, channel_id=ch))
                self._cond.notify_all()
                return 403, {"message": "Missing Permissions", "code": 50013}
            probs = self._check_message(body, req, False, "message edit")
            sf = self._strict_fail(probs)
            if sf:
                return sf
            self._edit_msg(m, body or {})
            return 200, _wire(m)
        return self._unknown(req)


def _opt_chars(o):
    n = len(o.get("name") or "") + len(o.get("description") or "")
    for c in o.get("choices") or []:
        n += len(str(c.get("name", ""))) + len(str(c.get("value", "")))
    for s in o.get("options") or []:
        n += _opt_chars(s)
    return n


# ----------------------------------------------------------------------
# self-test: tiny synchronous websocket + HTTP clients
class _WSClient:
    def __init__(self, url):
        import socket
        u = urllib.parse.urlsplit(url)
        self.sock = socket.create_connection((u.hostname, u.port), 5)
        self.sock.settimeout(5)
        key = base64.b64encode(os.urandom(16)).decode()
        target = u.path + ("?" + u.query if u.query else "")
        self.sock.sendall(("GET %s HTTP/1.1\r\nHost: %s:%d\r\n"
                           "Upgrade: websocket\r\nConnection: Upgrade\r\n"
                           "Sec-WebSocket-Key: %s\r\n"
                           "Sec-WebSocket-Version: 13\r\n\r\n" %
                           (target, u.hostname, u.port, key)).encode())
        head = b""
        while b"\r\n\r\n" not in head:
            c = self.sock.recv(1)
            if not c:
                raise AssertionError("ws handshake: EOF")
            head += c
        lines = head.decode().split("\r\n")
        if " 101 " not in lines[0]:
            raise AssertionError("ws handshake status: %s" % lines[0])
        want = base64.b64encode(hashlib.sha1(
            (key + WS_GUID).encode()).digest()).decode()
        hdrs = {ln.split(":", 1)[0].lower(): ln.split(":", 1)[1].strip()
                for ln in lines[1:] if ":" in ln}
        if hdrs.get("sec-websocket-accept") != want:
            raise AssertionError("bad Sec-WebSocket-Accept")
        self.buf = b""
        self.fragments_seen = 0

    def _recv(self, n):
        while len(self.buf) < n:
            c = self.sock.recv(65536)
            if not c:
                raise EOFError("ws: EOF")
            self.buf += c
        out, self.buf = self.buf[:n], self.buf[n:]
        return out

    def send_frame(self, opcode, data, fin=True):
        mask = os.urandom(4)
        n = len(data)
        b0 = (0x80 if fin else 0) | opcode
        if n < 126:
            hdr = struct.pack("!BB", b0, 0x80 | n)
        elif n < 65536:
            hdr = struct.pack("!BBH", b0, 0x80 | 126, n)
        else:
            hdr = struct.pack("!BBQ", b0, 0x80 | 127, n)
        self.sock.sendall(hdr + mask + bytes(
            b ^ mask[i & 3] for i, b in enumerate(data)))

    def send(self, obj, fragments=1):
        data = json.dumps(obj).encode()
        if fragments <= 1:
            self.send_frame(0x1, data)
            return
        step = max(1, len(data) // fragments)
        pieces = [data[i:i + step] for i in range(0, len(data), step)]
        for i, p in enumerate(pieces):
            self.send_frame(0x1 if i == 0 else 0x0, p,
                            fin=(i == len(pieces) - 1))

    def recv(self):
        """Next text message as JSON, or ('close', code)."""
        parts = []
        while True:
            b0, b1 = self._recv(2)
            n = b1 & 0x7F
            if n == 126:
                n = struct.unpack("!H", self._recv(2))[0]
            elif n == 127:
                n = struct.unpack("!Q", self._recv(8))[0]
            if b1 & 0x80:
                raise AssertionError("server frame is masked")
            data = self._recv(n)
            op = b0 & 0x0F
            if op == 0x8:
                return ("close", struct.unpack("!H", data[:2])[0]
                        if len(data) >= 2 else None)
            if op in (0x9, 0xA):
                continue
            parts.append(data)
            if not b0 & 0x80:
                self.fragments_seen += 1
                continue
            if len(parts) > 1:
                self.fragments_seen += 1
            return json.loads(b"".join(parts).decode())

    def close(self, code=1000):
        try:
            self.send_frame(0x8, struct.pack("!H", code))
        except OSError:
            pass
        self.sock.close()


def _http(fake, method, path, body=None, token=None, headers=None):
    import urllib.request
    import urllib.error
    data = json.dumps(body).encode() if body is not None else None
    req = urllib.request.Request(fake.api_url + path, data=data,
                                 method=method)
    req.add_header("Authorization", "Bot " + (token or fake.token))
    req.add_header("User-Agent", (headers or {}).pop("User-Agent", None) or
                   "DiscordBot (https://selftest.invalid, 1)")
    if data is not None:
        req.add_header("Content-Type", "application/json")
    for k, v in (headers or {}).items():
        req.add_header(k, v)
    try:
        with urllib.request.urlopen(req, timeout=5) as r:
            raw = r.read()
            return r.status, dict(r.headers), json.loads(raw) if raw else None
    except urllib.error.HTTPError as e:
        raw = e.read()
        try:
            j = json.loads(raw)
        except Exception:
            j = raw.decode()
        return e.code, dict(e.headers), j


def _selftest():
    def check(cond, what):
        if not cond:
            raise AssertionError(what)

    fake = FakeDiscord(heartbeat_interval_ms=500).start()
    try:
        check(fake.port and fake.api_url.startswith("http://127.0.0.1:"),
              "port/api_url")
        st, h, j = _http(fake, "GET", "/gateway/bot")
        check(st == 200 and j["url"] == fake.gateway_url, "gateway/bot")
        check("X-RateLimit-Bucket" in h and "X-RateLimit-Reset-After" in h,
              "rate-limit headers")
        st, _, j = _http(fake, "GET", "/users/@me", token="wrong")
        check(st == 401 and j["code"] == 0, "401 on a wrong token")
        st, _, j = _http(fake, "GET", "/users/@me")
        check(st == 200 and j["bot"] is True, "users/@me")

        # commands
        st, _, j = _http(fake, "PUT", "/applications/%s/commands" %
                         fake.app_id, [{"name": "play", "description":
                                        "Play a game", "options": []}])
        check(st == 200 and j[0]["id"], "command PUT")
        check(fake.commands()[0]["name"] == "play", "commands()")
        check(not fake.violations, "no violations yet: %r" % fake.violations)
        _http(fake, "PUT", "/applications/%s/guilds/1234567/commands" %
              fake.app_id, [{"name": "Bad Name", "description": ""}])
        check(len(fake.violations) == 2, "command violations: %r" %
              fake.violations)
        fake.violations.clear()

        # gateway: handshake, hello, identify, ready, heartbeat
        ws = _WSClient(fake.gateway_url + "?v=10&encoding=json")
        hello = ws.recv()
        check(hello["op"] == 10 and hello["d"]["heartbeat_interval"] == 500,
              "hello")
        ws.send({"op": 1, "d": None})
        check(ws.recv()["op"] == 11, "heartbeat ACK")
        ws.send({"op": 2, "d": {"token": fake.token, "intents": 1,
                                "properties": {"os": "linux", "browser": "t",
                                               "device": "t"}}},
                fragments=3)
        ready = ws.recv()
        check(ready["op"] == 0 and ready["t"] == "READY" and ready["s"] == 1,
              "READY: %r" % ready)
        sid = ready["d"]["session_id"]
        check(ready["d"]["resume_gateway_url"].endswith("/gateway-resume"),
              "resume url")
        fake.wait_ready(2)
        fake.wait_identified(1, 2)
        check(fake.session_start_limit["remaining"] == 998,
              "an Identify spends a session start")
        st, _, j = _http(fake, "GET", "/gateway/bot")
        check(j["session_start_limit"]["remaining"] == 998, "gateway/bot budget")
        fake.withhold_acks(1)
        ws.send({"op": 1, "d": 1})
        ws.send({"op": 1, "d": 1})
        check(ws.recv()["op"] == 11, "second heartbeat ACKed")
        hb = fake.ops(1)
        check(len(hb) == 3 and hb[1].acked is False and hb[2].acked,
              "withheld ACK recorded: %r" % hb)

        # interactions: dispatch, callback twice, late callback
        alice = fake.user("100000000000000001", "alice", "Alice")
        fake.fragment_dispatches(True)
        h1 = fake.command(alice, "700000000000000001", "play",
                          {"game": "chess", "opponent": fake.user(
                              "100000000000000002", "bob")})
        ev = ws.recv()
        check(ev["t"] == "INTERACTION_CREATE" and ev["s"] == 2 and
              ev["d"]["member"]["user"]["id"] == alice["id"] and
              ev["d"]["data"]["options"][1]["type"] == 6,
              "interaction dispatch: %r" % ev)
        check(ws.fragments_seen >= 1, "fragmented dispatch")
        fake.fragment_dispatches(False)
        cb = "/interactions/%s/%s/callback" % (ev["d"]["id"],
                                                 ev["d"]["token"])
        st, _, _ = _http(fake, "POST", cb, {"type": 4, "data": {
            "content": "hi", "allowed_mentions": {"parse": []},
            "components": [{"type": 1, "components": [
                {"type": 2, "style": 1, "label": "Go",
                 "custom_id": "go"}]}]}})
        check(st == 204, "callback 204 (%s)" % st)
        check(h1.wait_response(1)["type"] == 4, "wait_response")
        st, _, j = _http(fake, "POST", cb, {"type": 4, "data": {
            "content": "again", "allowed_mentions": {"parse": []}}})
        check(st == 400 and j["code"] == 40060, "second callback 40060")
        check(any("twice" in v for v in fake.violations), "twice recorded")
        fake.violations.clear()
        fm = h1.final_messages()
        check(len(fm) == 1 and fm[0]["content"] == "hi" and
              not fm[0]["ephemeral"], "final_messages: %r" % fm)
        check("hi" in fake.all_public_texts(), "public texts")
        check("Go" in fake.all_public_texts() and
              "go" in fake.all_public_texts(),
              "button label and custom_id are public payload: %r" %
              fake.all_public_texts())
        mark = fake.public_mark()
        # follow-up
        st, _, j = _http(fake, "POST", "/webhooks/%s/%s" % (
            fake.app_id, ev["d"]["token"]), {"content": "secret",
                                             "flags": 64,
                                             "allowed_mentions": {}})
        check(st == 200 and j["id"], "follow-up")
        check("secret" in fake.all_private_texts() and
              "secret" not in fake.all_public_texts() and
              fake.public_texts_since(mark) == [], "private texts")
        # click on the bot's message, deferred update + edit @original
        h2 = fake.click(alice, "700000000000000001", fm[0], "go")
        ev = ws.recv()
        check(ev["d"]["type"] == 3 and ev["d"]["message"]["id"] ==
              fm[0]["id"], "click dispatch")
        st, _, _ = _http(fake, "POST", "/interactions/%s/%s/callback" % (
            ev["d"]["id"], ev["d"]["token"]), {"type": 7, "data": {
                "content": "moved"}})
        check(st == 204 and h1.final_messages()[0]["content"] == "moved",
              "update message")
        # deferred ephemeral response, then edit @original + follow-up
        h4 = fake.command(alice, "700000000000000001", "hand", sub="show")
        ev = ws.recv()
        check(ev["d"]["data"]["options"][0] == {"name": "show", "type": 1,
                                                "options": []}, "subcommand")
        tok = ev["d"]["token"]
        _http(fake, "POST", "/interactions/%s/%s/callback" % (
            ev["d"]["id"], tok), {"type": 5, "data": {"flags": 64}})
        check(h4.final_messages() == [], "deferred: nothing visible yet")
        st, _, j = _http(fake, "PATCH", "/webhooks/%s/%s/messages/@original"
                         % (fake.app_id, tok), {"content": "K of spades"})
        check(st == 200 and h4.edits and h4.final_messages()[0]["ephemeral"]
              and "K of spades" in fake.all_private_texts() and
              "K of spades" not in fake.all_public_texts(), "deferred edit")
        # autocomplete
        h5 = fake.autocomplete(alice, "700000000000000001", "play",
                               {"game": "ch"}, "game")
        ev = ws.recv()
        check(ev["d"]["type"] == 4 and
              ev["d"]["data"]["options"][0]["focused"] is True,
              "autocomplete dispatch")
        _http(fake, "POST", "/interactions/%s/%s/callback" % (
            ev["d"]["id"], ev["d"]["token"]), {"type": 8, "data": {
                "choices": [{"name": "chess", "value": "chess"}]}})
        check(h5.wait_response(1)["type"] == 8, "autocomplete result")
        check(not fake.violations, "clean: %r" % fake.violations)
        # late callback (backdated interaction)
        h3 = fake.command(alice, "700000000000000001", "play", age_ms=3500)
        ev = ws.recv()
        st, _, j = _http(fake, "POST", "/interactions/%s/%s/callback" % (
            ev["d"]["id"], ev["d"]["token"]), {"type": 5})
        check(st == 404 and j["code"] == 10062, "late callback 10062")
        check(any(v.startswith("late response") for v in fake.violations),
              "late response violation")
        check(h3.callback is None, "late callback not stored")
        fake.violations.clear()
        # unknown interaction
        st, _, j = _http(fake, "POST", "/interactions/1/x/callback",
                         {"type": 4, "data": {}})
        check(st == 404 and j["code"] == 10062, "unknown interaction")
        fake.violations.clear()

        # resume replays buffered dispatches
        last_seq = ev["s"]
        fake.drop_connection()
        try:
            while True:
                r = ws.recv()
                if isinstance(r, tuple):
                    break
        except (EOFError, OSError):
            pass
        check(not fake.ready, "not ready after drop")
        fake.dispatch("MESSAGE_CREATE", {"content": "while away 1"})
        fake.dispatch("MESSAGE_CREATE", {"content": "while away 2"})
        ws = _WSClient(fake.resume_gateway_url + "?v=10&encoding=json")
        check(ws.recv()["op"] == 10, "hello 2")
        ws.send({"op": 6, "d": {"token": fake.token, "session_id": sid,
                                "seq": last_seq}})
        got = [ws.recv() for _ in range(3)]
        check([g.get("t") for g in got] == ["MESSAGE_CREATE",
                                            "MESSAGE_CREATE", "RESUMED"] and
              [g["s"] for g in got] == [last_seq + 1, last_seq + 2,
                                        last_seq + 3],
              "resume replay: %r" % got)
        fake.wait_resumed(1, 2)
        fake.wait_ready(2)
        # a huge dispatch on every resume, replayed by the next one
        fake.huge_dispatch_on_resume = 100
        fake.drop_connection()
        ws = _WSClient(fake.resume_gateway_url + "?v=10&encoding=json")
        ws.recv()
        ws.send({"op": 6, "d": {"token": fake.token, "session_id": sid,
                                "seq": last_seq + 3}})
        got = [ws.recv() for _ in range(2)]
        check([g.get("t") for g in got] == ["GUILD_CREATE", "RESUMED"] and
              len(got[0]["d"]["description"]) == 100, "huge dispatch")
        fake.huge_dispatch_on_resume = 0
        fake.wait_resumed(2, 2)
        # refuse_identify: Invalid Session d:false to every Identify
        fake.refuse_identify = True
        ws4 = _WSClient(fake.gateway_url)
        ws4.recv()
        ws4.send({"op": 2, "d": {"token": fake.token, "intents": 0,
                                 "properties": {"os": "l", "browser": "t",
                                                "device": "t"}}})
        r = ws4.recv()
        check(r["op"] == 9 and r["d"] is False and fake.identify_count == 1,
              "refused identify: %r" % (r,))
        fake.refuse_identify = False
        ws4.close(1000)
        # resume with an unknown session -> op 9 false
        ws2 = _WSClient(fake.resume_gateway_url)
        ws2.recv()
        ws2.send({"op": 6, "d": {"token": fake.token, "session_id": "nope",
                                 "seq": 1}})
        r = ws2.recv()
        check(r["op"] == 9 and r["d"] is False, "unknown session op 9")
        ws2.close(4000)
        # identify with a wrong token -> 4004
        ws3 = _WSClient(fake.gateway_url)
        ws3.recv()
        ws3.send({"op": 2, "d": {"token": "bad", "intents": 0,
                                 "properties": {}}})
        r = ws3.recv()
        check(r == ("close", 4004), "4004 on a bad token: %r" % (r,))
        ws3.sock.close()
        # close_with / send_reconnect reach the live connection
        fake.send_reconnect()
        check(ws.recv()["op"] == 7, "op 7 reconnect")
        fake.invalid_session(True)
        r = ws.recv()
        check(r["op"] == 9 and r["d"] is True, "op 9 true")
        fake.close_with(4000)
        check(ws.recv() == ("close", 4000), "close_with 4000")
        ws.sock.close()

        # 429 knob + retry spacing
        fake.fail_next("POST", r"/channels/\d+/messages", 429, retry_after=0.3)
        body = {"content": "x", "allowed_mentions": {"parse": []}}
        st, h, j = _http(fake, "POST", "/channels/700000000000000002/"
                         "messages", body)
        check(st == 429 and j["retry_after"] == 0.3 and
              h.get("Retry-After") == "1" and
              h.get("X-RateLimit-Scope") == "user", "429 knob: %r" % j)
        st, _, _ = _http(fake, "POST", "/channels/700000000000000002/"
                         "messages", body)
        check(st == 200 and any("retried" in v for v in fake.violations),
              "too-early retry recorded: %r" % fake.violations)
        fake.violations.clear()
        fake.fail_next("GET", r"^/users/@me$", 502)
        st, _, j = _http(fake, "GET", "/users/@me")
        check(st == 502 and j == "bad gateway", "502 knob")
        check(len(fake.faults_fired) == 2, "faults_fired")

        # real rate limit
        time.sleep(1.05)
        for i in range(5):
            st, h, _ = _http(fake, "POST", "/channels/700000000000000003/"
                             "messages", body)
            check(st == 200, "within rate limit")
        check(h["X-RateLimit-Remaining"] == "0", "remaining 0")
        st, h, j = _http(fake, "POST", "/channels/700000000000000003/"
                         "messages", body)
        check(st == 429 and any("exceeded rate limit" in v
                                for v in fake.violations), "rate limit 429")
        fake.violations.clear()

        # nonce dedup
        nb = dict(body, content="once", nonce="n-1", enforce_nonce=True)
        st, _, a = _http(fake, "POST", "/channels/700000000000000004/"
                         "messages", nb)
        st2, _, b = _http(fake, "POST", "/channels/700000000000000004/"
                          "messages", nb)
        check(st == st2 == 200 and a["id"] == b["id"] and
              len(fake.channel_messages("700000000000000004")) == 1 and
              len(fake.dedups) == 1, "nonce dedup")

        # DM refusal
        fake.refuse_dm_users.add("100000000000000009")
        st, _, ch = _http(fake, "POST", "/users/@me/channels",
                          {"recipient_id": "100000000000000009"})
        st2, _, ch2 = _http(fake, "POST", "/users/@me/channels",
                            {"recipient_id": "100000000000000009"})
        check(st == 200 and ch["type"] == 1 and ch["id"] == ch2["id"],
              "DM channel")
        st, _, j = _http(fake, "POST", "/channels/%s/messages" % ch["id"],
                         body)
        check(st == 403 and j["code"] == 50007, "DM refusal 50007")
        st, _, ch = _http(fake, "POST", "/users/@me/channels",
                          {"recipient_id": "100000000000000001"})
        _http(fake, "POST", "/channels/%s/messages" % ch["id"],
              dict(body, content="your hand"))
        check(fake.dm_messages("100000000000000001")[0]["content"] ==
              "your hand" and "your hand" in fake.all_private_texts(), "DM")

        # message validation
        check(not fake.violations, "clean so far: %r" % fake.violations)
        _http(fake, "POST", "/channels/700000000000000005/messages",
              {"content": "é" * 2001, "allowed_mentions": {}})
        check(any("2001 characters" in v for v in fake.violations),
              "2001-char violation: %r" % fake.violations)
        fake.violations.clear()
        _http(fake, "POST", "/channels/700000000000000005/messages",
              {"content": "no mentions"})
        check(any("allowed_mentions" in v for v in fake.violations),
              "allowed_mentions violation")
        fake.violations.clear()
        rows = [{"type": 1, "components": [
            {"type": 2, "style": 1, "label": "b", "custom_id": "c%d%d" %
             (r, i)} for i in range(6)]} for r in range(6)]
        _http(fake, "POST", "/channels/700000000000000005/messages",
              {"content": "x", "allowed_mentions": {}, "components": rows})
        check(any("action rows" in v for v in fake.violations) and
              any("buttons" in v for v in fake.violations),
              "component violations: %r" % fake.violations)
        fake.violations.clear()
        _http(fake, "GET", "/nope")
        check(fake.violations == ["unknown endpoint [GET /nope]"],
              "unknown endpoint: %r" % fake.violations)
        fake.violations.clear()
        # the User-Agent's form, attachments' ids, the global limit
        _http(fake, "GET", "/users/@me", headers={"User-Agent": "DiscordBot (tabula, 0.1)"})
        check(fake.violations and "User-Agent" in fake.violations[0],
              "a User-Agent without a URL: %r" % fake.violations)
        fake.violations.clear()
        _http(fake, "POST", "/channels/700000000000000005/messages",
              {"content": "a", "allowed_mentions": {"parse": []},
               "attachments": [{"id": 0, "filename": "a.txt"}]})
        check(fake.violations and "snowflake string" in fake.violations[0],
              "a numeric attachment id: %r" % fake.violations)
        fake.violations.clear()
        fake.global_rate = (3, 1.0)
        sts = [_http(fake, "GET", "/users/@me")[0] for _ in range(4)]
        check(sts == [200, 200, 200, 429] and fake.global_peak == 4 and
              fake.violations and "global rate limit" in fake.violations[0],
              "the global limit: %r %r" % (sts, fake.violations))
        fake.global_rate = None
        fake.violations.clear()
        w = fake.wait_channel_message("700000000000000004",
                                      lambda m: m["content"] == "once", 1)
        check(w["content"] == "once", "wait_channel_message")
        try:
            fake.wait_channel_message("1", None, 0.2)
            raise RuntimeError("wait did not time out")
        except AssertionError:
            pass
        check(len(fake.requests) > 20 and fake.requests[0].t > 0,
              "requests recorded")
    finally:
        fake.stop()
    print("selftest: ok")


def main(argv):
    if "--selftest" in argv:
        try:
            _selftest()
        except Exception as e:
            import traceback
            traceback.print_exc()
            print("selftest: FAILED: %s" % e)
            return 1
        return 0
    if "--serve" in argv:
        fake = FakeDiscord().start()
        print(json.dumps(fake.env()), flush=True)
        try:
            while True:
                time.sleep(3600)
        except KeyboardInterrupt:
            fake.stop()
        return 0
    print("usage: fake_discord.py --selftest | --serve")
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
