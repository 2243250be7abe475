#!/usr/bin/env python3
"""
fake_matrix: a loopback fake Matrix homeserver (client-server API v3) for
integration tests that run the real `tabula` binary.

Standard library only.  One ephemeral port on 127.0.0.1 serves
/_matrix/client/versions and /_matrix/client/v3/...  A threading HTTP server
runs in a background thread (one thread per connection, so /sync long-polls
block only their own connection); every public method is thread-safe and
every wait_* raises AssertionError on timeout.

See tests/fakes/README-matrix.md for usage and every knob.
`python3 tests/fakes/fake_matrix.py --selftest` checks the fake itself.
"""

import bisect
import http.server
import json
import math
import os
import re
import socket
import sys
import threading
import time
import urllib.parse

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import pngread  # noqa: E402  (beside this file)

try:    # AES-256-CTR, for the bot's encrypted pictures
    from cryptography.hazmat.primitives.ciphers import Cipher, algorithms, modes
except ImportError:     # Debian's python3-cryptography, from another python3
    sys.path.append("/usr/lib/python3/dist-packages")
    from cryptography.hazmat.primitives.ciphers import Cipher, algorithms, modes
import base64  # noqa: E402
import hashlib  # noqa: E402

PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"


def _unb64(s, url=False):
    """Unpadded (url: URL-safe) base64 to bytes; ValueError when it is not."""
    if not isinstance(s, str) or "=" in s:
        raise ValueError("not unpadded base64: %r" % (s,))
    alpha = "-_" if url else "+/"
    if any(c in s for c in ("+/" if url else "-_")):
        raise ValueError("wrong base64 alphabet: %r" % (s,))
    return base64.b64decode(s + "=" * (-len(s) % 4), altchars=alpha.encode(),
                            validate=True)


def decrypt_attachment(file, data):
    """The plaintext of an encrypted attachment's ciphertext data, checked
    against its `file` object (the spec's v2 form: JWK key, IV whose low 64
    bits are zero, SHA-256 of the ciphertext); ValueError when anything is
    off."""
    if not isinstance(file, dict) or file.get("v") != "v2":
        raise ValueError("file is not v2: %r" % (file,))
    k = file.get("key")
    if not isinstance(k, dict) or k.get("kty") != "oct" or k.get("alg") != "A256CTR" or \
            k.get("ext") is not True or \
            sorted(k.get("key_ops") or []) != ["decrypt", "encrypt"]:
        raise ValueError("the key is no A256CTR JWK: %r" % (sorted(k) if isinstance(k, dict)
                                                             else k,))
    key = _unb64(k.get("k"), url=True)
    iv = _unb64(file.get("iv"))
    want = _unb64((file.get("hashes") or {}).get("sha256"))
    if len(key) != 32 or len(iv) != 16 or iv[8:] != bytes(8):
        raise ValueError("key of %d bytes, IV %s" % (len(key), iv.hex()))
    if hashlib.sha256(data).digest() != want:
        raise ValueError("the ciphertext's SHA-256 does not match hashes.sha256")
    d = Cipher(algorithms.AES(key), modes.CTR(iv)).decryptor()
    return d.update(data) + d.finalize()

PREFIX_V3 = "/_matrix/client/v3"
MEDIA_UPLOAD = "/_matrix/media/v3/upload"
MEDIA_DOWNLOAD = "/_matrix/media/v3/download"
MEDIA_DOWNLOAD_V1 = "/_matrix/client/v1/media/download"   # authenticated (v1.11)
VERSIONS = ["v1.1", "v1.2", "v1.3", "v1.4", "v1.5", "v1.6", "v1.7", "v1.8",
            "v1.9"]
HTML_FORMAT = "org.matrix.custom.html"
# TABULA_TEST_SLOW (default 1) multiplies the wait_* timeouts: the bot runs
# under valgrind in `make valgrind`
SLOW = float(os.environ.get("TABULA_TEST_SLOW") or 1)
MATRIX_TO = "https://matrix.to/#/@"

# a game's web page (issue 27): a bare http(s) address of the characters
# the bot's links use, allowed only as the text of its own link
_WEB_LINK_RE = re.compile(r"https?://[A-Za-z0-9._~:/%\[\]-]+")
_HREF_RE = re.compile(r"<a\b[^>]*?\bhref\s*=\s*(\"[^\"]*\"|'[^']*'|[^\s>]+)",
                      re.I)
_TOKEN_RE = re.compile(r"^s(\d+)(?:_.*)?$")
_AUX_RE = re.compile(r"^s\d+_x(\d+)_")


class Rec(dict):
    """A dict whose keys are also attributes (rec.t == rec["t"])."""

    def __getattr__(self, k):
        try:
            return self[k]
        except KeyError:
            raise AttributeError(k) from None

    def __setattr__(self, k, v):
        self[k] = v


class MxError(Exception):
    def __init__(self, status, errcode, error, **extra):
        super().__init__(error)
        self.status = status
        self.body = dict({"errcode": errcode, "error": error}, **extra)


class _LoseResponse(Exception):
    """Handled request whose response must be dropped (fault knob)."""


def _token_hex(n):
    # not the secrets module: the integration tests put their own
    # secrets.py (the public-payload scan) first on sys.path
    return os.urandom(n).hex()


def _without_url(c):
    """c without where its picture is (a re-sent m.image names its new
    upload, or its new encrypted file under a new key)."""
    if isinstance(c, dict) and c.get("msgtype") == "m.image":
        return {k: v for k, v in c.items() if k not in ("url", "file")}
    return c


def _copy(o):
    return json.loads(json.dumps(o))


def _tok(pos):
    return "s%d_fake" % pos


def _parse_tok(t):
    if t is None:
        return None
    m = _TOKEN_RE.match(t)
    if not m:
        return -1
    return int(m.group(1))


def _parse_aux(t):
    """The to-device and device-list position of a test user's sync token
    (s<pos>_x<aux>_fake), 0 without one."""
    m = _AUX_RE.match(t or "")
    return int(m.group(1)) if m else 0


def _type_match(t, patterns):
    for p in patterns:
        if p == t or (p.endswith("*") and t.startswith(p[:-1])):
            return True
    return False


def _filter_ok(flt, etype):
    """flt: a RoomEventFilter-ish dict (types / not_types)."""
    if not isinstance(flt, dict):
        return True
    nt = flt.get("not_types")
    if isinstance(nt, list) and _type_match(etype, nt):
        return False
    ty = flt.get("types")
    if isinstance(ty, list) and not _type_match(etype, ty):
        return False
    return True


class _Room:
    def __init__(self, rid):
        self.id = rid
        self.timeline = []    # [Rec(pos, ev, txn, room)]
        self.tpos = []        # timeline[i].pos, for bisect
        self.state = {}       # (type, state_key) -> Rec
        self.alias = None
        self.created_by_bot = False
        self.create_body = None

    @property
    def encrypted(self):
        return ("m.room.encryption", "") in self.state

    @property
    def name(self):
        r = self.state.get(("m.room.name", ""))
        return r.ev["content"].get("name") if r else None

    @property
    def join_rule(self):
        r = self.state.get(("m.room.join_rules", ""))
        return r.ev["content"].get("join_rule") if r else "invite"

    def membership(self, uid):
        r = self.state.get(("m.room.member", uid))
        return r.ev["content"].get("membership") if r else None

    def member_rec(self, uid):
        return self.state.get(("m.room.member", uid))

    def members(self, membership="join"):
        return [k[1] for k, r in self.state.items()
                if k[0] == "m.room.member" and
                r.ev["content"].get("membership") == membership]


class _Handler(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server_version = "fake-matrix/1"

    def log_message(self, *a):  # quiet
        pass

    def setup(self):
        super().setup()
        # A real server sets TCP_NODELAY: the headers and the body go out
        # in two writes, and with Nagle the body would wait for the
        # client's delayed ACK (40 ms on Linux).
        try:
            self.request.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        except OSError:
            pass
        self.server.fake._socks.add(self.request)

    def parse_request(self):
        # the request line has just been read: the earliest moment the
        # server knows of the request (t_arrival; req.t is after the body)
        self._t_arrival = time.monotonic()
        return super().parse_request()

    def finish(self):
        try:
            super().finish()
        finally:
            self.server.fake._socks.discard(self.request)

    def _body(self):
        te = self.headers.get("Transfer-Encoding", "")
        if "chunked" in te.lower():
            out = b""
            while True:
                ln = self.rfile.readline()
                size = int(ln.split(b";")[0].strip() or b"0", 16)
                if size == 0:
                    while self.rfile.readline() not in (b"\r\n", b"\n", b""):
                        pass
                    return out
                out += self.rfile.read(size)
                self.rfile.readline()
        n = int(self.headers.get("Content-Length") or 0)
        return self.rfile.read(n) if n else b""

    def _any(self):
        body = self._body()
        headers = {k.lower(): v for k, v in self.headers.items()}
        try:
            status, rh, rbody, req = self.server.fake._handle(
                self.command, self.path, headers, body,
                getattr(self, "_t_arrival", None))
        except _LoseResponse:
            self.close_connection = True
            try:
                self.request.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass
            return
        if isinstance(rbody, (dict, list)):
            data = json.dumps(rbody).encode()
            rh.setdefault("Content-Type", "application/json")
        elif isinstance(rbody, bytes):      # a media download
            data = rbody
        else:
            data = (rbody or "").encode()
            rh.setdefault("Content-Type", "text/plain")
        self.send_response(status)
        for k, v in rh.items():
            self.send_header(k, v)
        self.send_header("Content-Length", str(len(data)))
        if headers.get("connection", "").lower() == "close":
            self.close_connection = True
        # taken before the response goes out: the client may answer (on
        # another connection) before this thread runs again after the write
        t_sent = time.monotonic()
        self.end_headers()
        if self.command != "HEAD":
            self.wfile.write(data)
        self.server.fake._responded(req, t_sent)

    do_GET = do_POST = do_PUT = do_DELETE = do_HEAD = do_OPTIONS = _any


class _Server(http.server.ThreadingHTTPServer):
    daemon_threads = True
    allow_reuse_address = True
    # socketserver's default listen backlog is 5: a client opening dozens of
    # connections at once (the bot joining or answering many rooms in
    # parallel) had SYNs dropped and retried after 1 s.  Real servers use
    # the system's maximum.
    request_queue_size = 1024

    def handle_error(self, request, client_address):
        # the bot closing a long-poll (a restart, a stop) is not an error
        if isinstance(sys.exc_info()[1], (BrokenPipeError, ConnectionResetError)):
            return
        super().handle_error(request, client_address)


class FakeMatrix:
    def __init__(self, server_name="fake.test", bot_user="@tabula:fake.test",
                 bot_password="pw", access_token=None):
        self.server_name = server_name
        self.bot_user = bot_user
        self.bot_password = bot_password
        # knobs (plain attributes)
        self.sync_timeout_cap_s = 30.0
        self.default_timeline_limit = 10
        self.max_event_bytes = 65536
        self.bot_msgtypes = {"m.notice", "m.image"}
        self.max_upload_bytes = 50 << 20   # the media repository's limit
        self.retry_slack_s = 0.05
        self.send_rate = None           # (limit, window_s) per user, or None
        self.send_rate_retry_ms = 1000
        self.violate_plaintext_in_encrypted = False
        self.unknown_is_violation = True
        self.auto_accept_invites = False   # invitees of createRoom join
        self.hide_pre_join_events = False  # fresh-join timeline starts at
        #                                    the bot's join event
        self.lazy_loading = True        # honour state.lazy_load_members
        self.claim_fallback_only = set()    # (uid, device): claims get its fallback key
        # (bot user, device) of the tests' own clients logged in to the
        # bot's account over HTTP (an operator's Element): not the bot
        self.other_clients = set()
        # state
        self._lock = threading.RLock()
        self._cond = threading.Condition(self._lock)
        self._server = None
        self._thread = None
        self._socks = set()
        self._stopping = False
        self._pos = 0
        self._counter = 0
        self._rooms = {}            # id -> _Room
        self._room_order = []
        self._room_index = {}       # id -> index in _room_order
        # the room events' stream: positions and room ids, in order, so an
        # incremental /sync finds what is new by bisection
        self._log_pos = []
        self._log_room = []
        self._user_rooms = {}       # uid -> {room id: None}, any membership
        self._max_since = None      # highest /sync since position seen
        self._room_sends = {}       # room id -> [Rec] of its PUT .../send
        self._busy = 0              # requests in progress, /sync excluded
        self._last_arrival = 0.0    # monotonic arrival of the last of those
        self._users = {}            # uid -> Rec(displayname, password)
        self._tokens = {}           # token -> Rec(user, device)
        self._expired = set()
        self._account = {}          # (uid, type) -> (content, pos)
        self._filters = {}          # id -> filter dict
        self._ll_sent = {}          # (uid, device) -> {(room, member, ev)}
        self._invite_extra = {}     # room -> stripped events (forged)
        self.sync_filters = []      # the filter of every /sync, in order
        self.members_requests = []  # Rec(t, room, query) per GET /members
        self._txns = {}             # (uid, device, txnId) -> Rec
        self._events = {}           # event_id -> Rec
        self._faults = []
        self._retry_after = []      # [(method, path, not_before, t0)]
        self._send_times = {}       # uid -> [t]
        self.requests = []
        self.violations = []
        self.violation_details = []
        self.dedups = []
        self.faults_fired = []
        self.logins = []            # device ids of successful logins
        self.login_attempts = []    # Rec per POST /login
        self._issued = []           # every access token ever issued
        self.syncs = []
        self.sync_count = 0
        self.sync_deliveries = []   # Rec(since_pos, next_pos, t, user)
        self.created_rooms = []
        self.media = {}             # mxc URI -> Rec(data, ctype, user, info)
        self.rate_limited = []
        self.lost_responses = []
        # end-to-end encryption (see README-matrix.md, "Encryption")
        self.on_register = None     # fn(uid) after register_user
        self.decryptor = None       # fn(room, event) -> plaintext dict
        self.encryptor = None       # fn(user, room, content) -> content
        self._devices = {}          # uid -> {device id: device_keys}
        self._otks = {}             # (uid, dev) -> [(key id, key object)]
        self._fallback = {}         # (uid, dev) -> [key id, object, used]
        self._dev_changes = []      # Rec(pos, aux, user) of device list changes
        self._to_device = []        # Rec(seq, pos, aux, sender, ...) in order
        self._td_seq = 0
        # the test users' own clients (over HTTP) get their to-device
        # messages and device list changes by this second position, kept in
        # their sync tokens: the bot's stream position moves only for what
        # the bot gets, so wait_caught_up still means the bot's sync
        self._aux = 0
        self._client_seen = {}      # (uid, device) -> (pos, aux) it has read
        self.media_downloads = []   # Rec(t, user, uri)
        self.signature_uploads = []         # Rec(t, user, body, failures)
        self._td_txns = {}          # (uid, dev, txn) -> body
        self._claimed_ids = {}      # (uid, dev) -> {key ids claimed}
        self._xsign = {}            # uid -> {"master"|"self_signing"|"user_signing": key}
        self._device_names = {}     # (uid, dev) -> display name
        self.homeserver_devices = []    # Rec(user, device): added by the "homeserver"
        self.keys_uploads = []      # Rec(t, user, device, body)
        self.keys_queries = []      # Rec(t, user, body)
        self.keys_claims = []       # Rec(t, user, body, response)
        self.undecryptable = []     # the bot's encrypted events nobody read
        self.reencrypted = []       # Rec(t, txn_id, room): a re-sent one
        self.redelivered = []       # Rec(event_id, pos): events sent again (redeliver)
        self._plain = {}            # event id -> decrypted payload
        self._register(bot_user, "tabula", bot_password)
        self.access_token = None
        if access_token:
            self.access_token = access_token
            self._tokens[access_token] = Rec(user=bot_user,
                                             device="FAKEDEVICE")
            self._issued.append(access_token)

    # ------------------------------------------------------------------
    # lifecycle
    @property
    def port(self):
        return self._server.server_address[1] if self._server else None

    @property
    def url(self):
        return "http://127.0.0.1:%d" % self.port

    def env(self, token=False):
        """Environment variables for the bot under test."""
        if token:
            with self._lock:
                if not self.access_token:
                    self.access_token = "preset_" + _token_hex(12)
                    self._tokens[self.access_token] = Rec(user=self.bot_user,
                                                          device="FAKEDEVICE")
                    self._issued.append(self.access_token)
            return {"MATRIX_HOMESERVER": self.url,
                    "MATRIX_USER": self.bot_user,
                    "MATRIX_ACCESS_TOKEN": self.access_token}
        return {"MATRIX_HOMESERVER": self.url, "MATRIX_USER": self.bot_user,
                "MATRIX_PASSWORD": self.bot_password}

    def start(self):
        self._server = _Server(("127.0.0.1", 0), _Handler)
        self._server.fake = self
        self._thread = threading.Thread(target=self._server.serve_forever,
                                        kwargs={"poll_interval": 0.1},
                                        name="fake-matrix", daemon=True)
        self._thread.start()
        return self

    def stop(self):
        if not self._server:
            return
        with self._lock:
            self._stopping = True
            self._cond.notify_all()
        self._server.shutdown()
        for s in list(self._socks):
            try:
                s.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass
        self._server.server_close()
        self._thread.join(5)
        self._server = None
        self._thread = None

    def __enter__(self):
        return self.start()

    def __exit__(self, *a):
        self.stop()

    def _wait(self, pred, timeout, msg):
        timeout *= SLOW
        deadline = time.monotonic() + timeout
        with self._cond:
            while not pred():
                left = deadline - time.monotonic()
                if left <= 0:
                    m = msg() if callable(msg) else msg
                    raise AssertionError("fake_matrix: timeout after %.1fs: %s"
                                         % (timeout, m))
                self._cond.wait(min(left, 0.1))

    def _violate(self, desc, req=None):
        where = ""
        if req is not None:
            where = " [%s %s]" % (req.method, req.path)
        with self._lock:
            self.violations.append(desc + where)
            self.violation_details.append(Rec(desc=desc, request=req,
                                              t=time.monotonic()))
            self._cond.notify_all()

    # ------------------------------------------------------------------
    # model helpers (call with the lock held)
    def _uid(self, user):
        if user.startswith("@"):
            return user
        return "@%s:%s" % (user, self.server_name)

    def _register(self, uid, displayname, password=None):
        with self._lock:
            self._users[uid] = Rec(displayname=displayname, password=password)
        return uid

    def _next(self):
        self._counter += 1
        return self._counter

    def _room(self, rid):
        r = self._rooms.get(rid)
        if r is None:
            raise KeyError("fake_matrix: unknown room %r" % (rid,))
        return r

    def _add_event(self, room, etype, sender, content, state_key=None,
                   txn=None):
        with self._lock:
            self._pos += 1
            n = self._next()
            ev = {"type": etype, "sender": sender, "content": _copy(content),
                  "event_id": "$ev%d_%s" % (n, _token_hex(4)),
                  "origin_server_ts": int(time.time() * 1000),
                  "room_id": room.id}
            if state_key is not None:
                ev["state_key"] = state_key
            r = Rec(pos=self._pos, ev=ev, txn=txn, room=room.id,
                    edits=[], redacted=False, prev_content=None)
            if state_key is not None:
                old = room.state.get((etype, state_key))
                if old is not None:
                    r.prev_content = _copy(old.ev["content"])
            room.timeline.append(r)
            room.tpos.append(self._pos)
            self._log_pos.append(self._pos)
            self._log_room.append(room.id)
            self._events[ev["event_id"]] = r
            if state_key is not None:
                room.state[(etype, state_key)] = r
                if etype == "m.room.member":
                    self._user_rooms.setdefault(state_key, {})[room.id] = \
                        None
            self._cond.notify_all()
            return r

    def _member_event(self, room, sender, target, membership, **extra):
        u = self._users.get(target)
        c = {"membership": membership}
        if membership in ("join", "invite"):
            prev = room.member_rec(target)
            dn = None
            if prev is not None:
                dn = prev.ev["content"].get("displayname")
            if dn is None and u is not None:
                dn = u.displayname
            if dn is not None:
                c["displayname"] = dn
        c.update(extra)
        return self._add_event(room, "m.room.member", sender, c,
                               state_key=target)

    def _new_room(self, creator, name=None, encrypted=False, preset=None,
                  public=False, alias=None):
        with self._lock:
            rid = "!%d:%s" % (self._next(), self.server_name)
            room = _Room(rid)
            self._rooms[rid] = room
            self._room_index[rid] = len(self._room_order)
            self._room_order.append(rid)
            self._add_event(room, "m.room.create", creator,
                            {"creator": creator, "room_version": "10"}, "")
            self._member_event(room, creator, creator, "join")
            self._add_event(room, "m.room.power_levels", creator,
                            {"users": {creator: 100}, "users_default": 0,
                             "events_default": 0, "state_default": 50}, "")
            self._add_event(room, "m.room.join_rules", creator,
                            {"join_rule": "public" if public else "invite"},
                            "")
            self._add_event(room, "m.room.history_visibility", creator,
                            {"history_visibility": "shared"}, "")
            if name:
                self._add_event(room, "m.room.name", creator, {"name": name},
                                "")
            if encrypted:
                self._add_event(room, "m.room.encryption", creator,
                                {"algorithm": "m.megolm.v1.aes-sha2"}, "")
            if alias:
                room.alias = alias
            return room

    def _wire(self, r, device=None, with_room=False):
        ev = _copy(r.ev)
        if not with_room:
            ev.pop("room_id", None)
        uns = {"age": max(0, int(time.time() * 1000) -
                          ev["origin_server_ts"])}
        if r.txn and device and r.txn[0] == ev["sender"] and \
                r.txn[1] == device:
            uns["transaction_id"] = r.txn[2]
        if r.redacted:
            ev["content"] = {}
            uns["redacted_because"] = {"type": "m.room.redaction"}
        if r.get("prev_content") is not None:
            uns["prev_content"] = _copy(r.prev_content)
        ev["unsigned"] = uns
        return ev

    def _stripped(self, r):
        ev = r.ev
        return {"type": ev["type"], "state_key": ev.get("state_key", ""),
                "content": _copy(ev["content"]), "sender": ev["sender"]}

    # ------------------------------------------------------------------
    # test driving API
    def register_user(self, localpart, displayname=None, password=None,
                      server=None):
        uid = localpart if localpart.startswith("@") else \
            "@%s:%s" % (localpart, server or self.server_name)
        self._register(uid, displayname or localpart.lstrip("@")
                       .split(":")[0], password)
        if self.on_register:
            self.on_register(uid)
        return uid

    def create_room(self, creator, name=None, encrypted=False, members=(),
                    public=False, alias=None):
        with self._lock:
            room = self._new_room(creator, name, encrypted, public=public,
                                  alias=alias)
            for m in members:
                if m != creator:
                    self._member_event(room, m, m, "join")
            return room.id

    def invite(self, inviter, room, user, is_direct=False):
        with self._lock:
            r = self._room(room)
            extra = {"is_direct": True} if is_direct else {}
            return self._member_event(r, inviter, user, "invite",
                                      **extra).ev["event_id"]

    def invite_bot(self, room, inviter, is_direct=False):
        return self.invite(inviter, room, self.bot_user, is_direct)

    def join(self, user, room):
        with self._lock:
            return self._member_event(self._room(room), user, user,
                                      "join").ev["event_id"]

    def accept_invite(self, user, room):
        with self._lock:
            r = self._room(room)
            if r.membership(user) != "invite":
                raise AssertionError("fake_matrix: %s is not invited to %s "
                                     "(membership %r)" %
                                     (user, room, r.membership(user)))
            return self._member_event(r, user, user, "join").ev["event_id"]

    def leave(self, user, room):
        with self._lock:
            return self._member_event(self._room(room), user, user,
                                      "leave").ev["event_id"]

    def kick(self, by, room, user, reason=None):
        with self._lock:
            extra = {"reason": reason} if reason else {}
            return self._member_event(self._room(room), by, user, "leave",
                                      **extra).ev["event_id"]

    def set_displayname(self, user, room, name):
        """room None: every room the user is joined to + the profile."""
        with self._lock:
            if room is None:
                if user in self._users:
                    self._users[user].displayname = name
                rooms = [r for r in self._rooms.values()
                         if r.membership(user) == "join"]
            else:
                rooms = [self._room(room)]
            ids = []
            for r in rooms:
                ids.append(self._member_event(r, user, user, "join",
                                              displayname=name)
                           .ev["event_id"])
            return ids[0] if len(ids) == 1 else ids

    def forge_invite_state(self, room, events):
        """Stripped state events a hostile inviting server adds before the
        real ones in every invite_state of room (they are not checked by
        anyone, as the stripped state a server relays is not)."""
        with self._lock:
            self._invite_extra[room] = _copy(events)

    def bot_sends(self, room=None):
        """Every m.room.message event the bot sent (edits included), in
        order: Rec(room, pos, event_id, content, readers, encrypted, wire)
        where readers are the room's joined and invited members when it was
        sent; an m.room.encrypted one has its decrypted content (through
        the decryptor; {} when it cannot) and its wire content apart."""
        with self._lock:
            rooms = [room] if room else list(self._room_order)
            out = []
            for rid in rooms:
                for e in self._rooms[rid].timeline:
                    c = self._bot_content(e)
                    if c is None:
                        continue
                    out.append(Rec(room=rid, pos=e.pos,
                                   event_id=e.ev["event_id"],
                                   content=_copy(c),
                                   readers=list(e.get("readers") or []),
                                   encrypted=e.ev["type"] ==
                                   "m.room.encrypted",
                                   wire=_copy(e.ev["content"])))
            out.sort(key=lambda x: x.pos)
            return out

    def _decrypted(self, e):
        """The decrypted payload of an m.room.encrypted event (through
        the decryptor, cached), or None."""
        eid = e.ev["event_id"]
        if eid not in self._plain and self.decryptor:
            p = self.decryptor(e.room, self._wire(e, with_room=True))
            if p is not None:
                self._plain[eid] = p
        return self._plain.get(eid)

    def _bot_content(self, e):
        """The content of the bot's m.room.message e (decrypted when it
        came as m.room.encrypted: {} when it does not decrypt; the
        cleartext m.relates_to kept), or None for any other event."""
        ev = e.ev
        if ev["sender"] != self.bot_user:
            return None
        if ev["type"] == "m.room.message":
            return ev["content"]
        if ev["type"] != "m.room.encrypted":
            return None
        p = self._decrypted(e)
        if p is None:
            c = {}
        elif p.get("type") != "m.room.message":
            return None
        else:
            c = _copy(p.get("content") or {})
        if "m.relates_to" in ev["content"]:
            c["m.relates_to"] = _copy(ev["content"]["m.relates_to"])
        return c

    def set_encrypted(self, room, by):
        with self._lock:
            return self._add_event(self._room(room), "m.room.encryption", by,
                                   {"algorithm": "m.megolm.v1.aes-sha2"},
                                   "").ev["event_id"]

    def send_event(self, user, room, etype, content, state_key=None):
        with self._lock:
            return self._add_event(self._room(room), etype, user, content,
                                   state_key).ev["event_id"]

    def redeliver(self, event_id):
        """The homeserver sends an event again, as it is (same event id,
        same content: a replay), in the next /sync: it goes into its room's
        timeline once more at a new stream position.  Returns the new
        position."""
        with self._lock:
            old = self._events[event_id]
            room = self._room(old.room)
            self._pos += 1
            r = Rec(pos=self._pos, ev=old.ev, txn=None, room=room.id, edits=[],
                    redacted=False, prev_content=None, replay=True)
            room.timeline.append(r)
            room.tpos.append(self._pos)
            self._log_pos.append(self._pos)
            self._log_room.append(room.id)
            self.redelivered.append(Rec(event_id=event_id, pos=self._pos))
            self._cond.notify_all()
            return self._pos

    def say(self, user, room, body, msgtype="m.text", edit_of=None,
            formatted_body=None, mentions=None, extra=None):
        c = {"msgtype": msgtype, "body": body}
        if formatted_body is not None:
            c["format"] = HTML_FORMAT
            c["formatted_body"] = formatted_body
        if mentions is not None:
            c["m.mentions"] = mentions
        if edit_of is not None:
            new = dict(c)
            c = {"msgtype": msgtype, "body": "* " + body,
                 "m.new_content": new,
                 "m.relates_to": {"rel_type": "m.replace",
                                  "event_id": edit_of}}
        if extra:
            c.update(extra)
        etype = "m.room.message"
        with self._lock:
            if self._room(room).encrypted and self.encryptor:
                # as a client does: encrypted in an encrypted room
                c = self.encryptor(user, room, c)
                etype = "m.room.encrypted"
            r = self._room(room)
            if r.membership(user) != "join":
                raise AssertionError("fake_matrix: say(): %s is not joined "
                                     "to %s" % (user, room))
            rec = self._add_event(r, etype, user, c)
            # what the bot sends after this was sent in answer to it (or
            # later): tests wait for replies newer than their last command
            self.last_say_pos = rec.pos
            return rec.ev["event_id"]

    def set_account_data(self, user, etype, content):
        with self._lock:
            self._pos += 1
            self._account[(user, etype)] = (_copy(content), self._pos)
            self._cond.notify_all()

    def account_data(self, user, etype="m.direct"):
        with self._lock:
            v = self._account.get((user, etype))
            return _copy(v[0]) if v else None

    # -- fault knobs ---------------------------------------------------
    def fail_next(self, method, path_regex, status, count=1,
                  retry_after_ms=None, header=False, body=None):
        """Answer the next `count` requests matching method (or "*") and
        path_regex (re.search on the decoded path after /_matrix/client/v3,
        or "/versions") with status."""
        with self._lock:
            self._faults.append(Rec(kind="fail", method=method.upper(),
                                    rx=re.compile(path_regex),
                                    status=int(status), count=int(count),
                                    retry_after_ms=retry_after_ms,
                                    header=bool(header), body=body))

    def lose_response_next(self, method, path_regex, count=1):
        """Process the next matching request(s) normally but close the
        connection instead of answering (the request 'succeeded' but the bot
        never hears of it)."""
        with self._lock:
            self._faults.append(Rec(kind="lose", method=method.upper(),
                                    rx=re.compile(path_regex),
                                    count=int(count)))

    def expire_token(self):
        """Every current access token of the bot becomes invalid."""
        with self._lock:
            for t, v in list(self._tokens.items()):
                if v.user == self.bot_user:
                    del self._tokens[t]
                    self._expired.add(t)
            if self.access_token:
                self.access_token = None

    def drop_connections(self):
        """Close every open client connection (long-polls included)."""
        for s in list(self._socks):
            try:
                s.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass

    # -- queries -------------------------------------------------------
    @property
    def stream_pos(self):
        with self._lock:
            return self._pos

    @property
    def device_ids(self):
        with self._lock:
            out = []
            for d in self.logins:
                if d not in out:
                    out.append(d)
            return out

    def issued_tokens(self):
        """Every access token handed out (logins and preset ones)."""
        with self._lock:
            return list(self._issued)

    def joined_members(self, room):
        """User ids joined to room."""
        with self._lock:
            return self._room(room).members("join")

    def _bot_msg_recs(self, room):
        r = self._room(room)
        out = []
        for e in r.timeline:
            c = self._bot_content(e)
            if c is None or e.redacted:
                continue
            rel = c.get("m.relates_to")
            if isinstance(rel, dict) and rel.get("rel_type") == "m.replace":
                continue
            out.append(e)
        return out

    def _view(self, e):
        c = _copy(self._bot_content(e))
        if e.edits:
            last = self._events[e.edits[-1]]
            new = (self._bot_content(last) or {}).get("m.new_content")
            if isinstance(new, dict):
                c = _copy(new)
                if "m.relates_to" in e.ev["content"]:
                    c["m.relates_to"] = _copy(e.ev["content"]["m.relates_to"])
        return c

    def bot_messages(self, room):
        """Contents (after edits) of the bot's m.room.message events."""
        with self._lock:
            return [self._view(e) for e in self._bot_msg_recs(room)]

    def bot_message_txns(self, room):
        """The transaction ids the bot sent bot_messages(room) under, in
        the same order (None where not known): the parts of one message
        share a prefix ("tabula.4.7.12.1.0", "...1.1"), so a picture that
        follows its text is found by it."""
        with self._lock:
            return [e.txn[2] if e.txn else None for e in self._bot_msg_recs(room)]

    def bot_message_events(self, room):
        """Like bot_messages but full events (event_id, content after
        edits, 'edits': [event ids])."""
        with self._lock:
            out = []
            for e in self._bot_msg_recs(room):
                ev = self._wire(e, with_room=True)
                ev["content"] = self._view(e)
                ev["edits"] = list(e.edits)
                out.append(ev)
            return out

    def wait_bot_message(self, room, pred=None, timeout=10, after=None):
        box = []
        start = after or 0

        def ok():
            ms = self.bot_messages(room)
            for c in ms[start:]:
                if pred is None or pred(c):
                    box.append(c)
                    return True
            return False
        self._wait(ok, timeout, lambda: "no bot message in %s%s matching; "
                   "bot messages: %r" % (room, " after #%d" % start if after
                                         else "", self.bot_messages(room)))
        return box[0]

    def bot_rooms(self):
        with self._lock:
            return [rid for rid in self._room_order
                    if self._rooms[rid].membership(self.bot_user) == "join"]

    def membership(self, user, room):
        with self._lock:
            return self._room(room).membership(user)

    def room_state(self, room):
        with self._lock:
            return [self._wire(r, with_room=True)
                    for r in self._room(room).state.values()]

    def room_events(self, room):
        with self._lock:
            return [self._wire(r, with_room=True)
                    for r in self._room(room).timeline]

    def dm_room(self, user):
        with self._lock:
            found = None
            for c in self.created_rooms:
                b = c.body or {}
                if b.get("is_direct") and user in (b.get("invite") or []):
                    found = c.room_id
            return found

    def all_room_texts(self, room=None):
        """Every body and formatted_body (originals and edits) of the bot's
        messages in room (None: every room)."""
        with self._lock:
            rooms = [room] if room else list(self._room_order)
            out = []
            for rid in rooms:
                for e in self._rooms[rid].timeline:
                    content = self._bot_content(e)
                    if content is None:
                        continue
                    for c in (content, content.get("m.new_content")):
                        if isinstance(c, dict):
                            for k in ("body", "formatted_body"):
                                if isinstance(c.get(k), str):
                                    out.append(c[k])
                            if c.get("msgtype") == "m.image":
                                out.append(self.media_text(c.get("url")))
            return out

    def wait_requests(self, pred, n=1, timeout=5):
        self._wait(lambda: sum(1 for r in self.requests if pred(r)) >= n,
                   timeout, lambda: "fewer than %d matching requests; last: "
                   "%r" % (n, [(r.method, r.path, r.status)
                               for r in self.requests[-10:]]))
        with self._lock:
            return [r for r in self.requests if pred(r)]

    def wait_synced(self, n=1, timeout=10):
        """The bot has issued n /sync requests (arrivals)."""
        self._wait(lambda: self.sync_count >= n, timeout,
                   lambda: "wanted %d /sync requests, got %d" %
                   (n, self.sync_count))

    def wait_caught_up(self, timeout=10, pos=None):
        """Wait for a /sync whose `since` is >= pos (default: the current
        stream position): the bot has received everything up to now."""
        with self._lock:
            target = self._pos if pos is None else pos

        def ok():
            return self._max_since is not None and self._max_since >= target
        self._wait(ok, timeout, lambda: "no /sync with since >= %d; last "
                   "syncs: %r" % (target, [r.query.get("since") for r in
                                           self.requests if r.path ==
                                           "/sync"][-5:]))

    def event_pos(self, event_id):
        """The stream position of an event."""
        with self._lock:
            return self._events[event_id].pos

    def sends_to(self, room, after_t=None):
        """The PUT .../send requests to room (every user), in arrival
        order; after_t: only those whose request line arrived after it
        (monotonic).  Each has t_arrival, t (body read), t_sent (when the
        response started to go out; None before) and status."""
        with self._lock:
            rs = self._room_sends.get(room, [])
            if after_t is None:
                return list(rs)
            i = len(rs)
            while i and rs[i - 1].t_arrival > after_t:
                i -= 1
            return rs[i:]

    def sync_delivery(self, pos, user=None):
        """The first /sync response written to user (default the bot) that
        carried stream position pos (since < pos <= next_batch), or None."""
        user = user or self.bot_user
        with self._lock:
            for d in self.sync_deliveries:
                if d.user == user and d.since_pos is not None and \
                        d.next_pos is not None and \
                        d.since_pos < pos <= d.next_pos:
                    return d
            return None

    def wait_idle(self, quiet_s=0.02, timeout=10):
        """Wait until no request other than /sync is in progress, none
        arrived for quiet_s, and the bot is caught up (a /sync with since
        at the current stream position has arrived)."""
        timeout *= SLOW
        deadline = time.monotonic() + timeout
        with self._cond:
            while True:
                now = time.monotonic()
                left = deadline - now
                quiet = self._last_arrival + quiet_s - now
                if self._busy == 0 and quiet <= 0 and \
                        self._max_since is not None and \
                        self._max_since >= self._pos:
                    return
                if left <= 0:
                    raise AssertionError(
                        "fake_matrix: timeout after %.1fs: not idle (%d "
                        "requests in progress, since %r, stream %d)" %
                        (timeout, self._busy, self._max_since, self._pos))
                self._cond.wait(min(left, quiet if self._busy == 0 and
                                    quiet > 0 else 0.1))

    def wait_login(self, n=1, timeout=10):
        self._wait(lambda: len(self.logins) >= n, timeout,
                   lambda: "wanted %d successful logins, got %r" %
                   (n, self.login_attempts))

    def wait_membership(self, user, room, membership, timeout=10):
        self._wait(lambda: self._rooms[room].membership(user) == membership,
                   timeout, lambda: "%s in %s: membership %r, wanted %r" %
                   (user, room, self._rooms[room].membership(user),
                    membership))

    def wait_violation(self, substr, timeout=5):
        self._wait(lambda: any(substr in v for v in self.violations),
                   timeout, lambda: "no violation containing %r; have %r" %
                   (substr, self.violations))

    # ------------------------------------------------------------------
    # HTTP handling (handler threads)
    def _handle(self, method, target, headers, raw, t_arrival=None):
        now = time.monotonic()
        u = urllib.parse.urlsplit(target)
        segs_raw = u.path.split("/")
        segs_all = [urllib.parse.unquote(s) for s in segs_raw]
        full_dec = "/".join(segs_all)
        if full_dec.startswith(PREFIX_V3 + "/"):
            segs = segs_all[4:]
            path = "/" + "/".join(segs)
        elif full_dec == "/_matrix/client/versions":
            segs = ["versions"]
            path = "/versions"
        else:
            segs = None
            path = full_dec
        parsed = None
        bad_json = False
        if raw:
            try:
                parsed = json.loads(raw.decode("utf-8"))
            except Exception:
                bad_json = True
        query = dict(urllib.parse.parse_qsl(u.query, keep_blank_values=True))
        hdrs = dict(headers)
        if "authorization" in hdrs:
            hdrs["authorization"] = "Bearer <redacted>"
        req = Rec(method=method, path=path, full_path=u.path, query=query,
                  headers=hdrs, body=parsed, raw=raw, t=now, status=None,
                  response=None, user=None, device=None,
                  t_arrival=t_arrival if t_arrival is not None else now,
                  t_sent=None)
        is_sync = path == "/sync"
        if is_sync:
            req.since_pos = _parse_tok(query.get("since"))
        with self._lock:
            self.requests.append(req)
            # the bot's requests (or unauthenticated ones not from another
            # user) are what wait_caught_up, wait_idle and sync_count watch;
            # the test users' own clients (login, /sync over HTTP) are not
            req.is_bot = self._from_bot(headers, segs, parsed)
            if is_sync and req.is_bot:
                self.sync_count += 1
                if req.since_pos is not None and (
                        self._max_since is None or
                        req.since_pos > self._max_since):
                    self._max_since = req.since_pos
            elif is_sync:
                self._client_synced(headers, query)
            elif req.is_bot:
                self._busy += 1
                self._last_arrival = req.t_arrival
            if segs is not None and method == "PUT" and len(segs) == 5 and \
                    segs[0] == "rooms" and segs[2] == "send":
                self._room_sends.setdefault(segs[1], []).append(req)
            self._cond.notify_all()
        lose = False
        try:
            st, h, b, lose = self._handle2(req, method, segs, path, headers,
                                           query, parsed, bad_json, now)
        except MxError as e:
            st, h, b = e.status, {}, e.body
        except Exception as e:  # pragma: no cover - a fake bug
            import traceback
            traceback.print_exc()
            self._violate("fake_matrix internal error: %r" % (e,), req)
            st, h, b = 500, {}, {"errcode": "M_UNKNOWN",
                                 "error": "fake internal error"}
        with self._lock:
            req.status = st
            req.response = b
            if not is_sync and req.is_bot:
                self._busy -= 1
            if lose:
                req.lost = True
                self.lost_responses.append(req)
            self._cond.notify_all()
        if lose:
            raise _LoseResponse()
        return st, h, b, req

    def _from_bot(self, headers, segs, body):
        """Whether a request is the bot's: its token is the bot's (or
        unknown: the bot's expired ones), or it is a login of the bot (or
        an unauthenticated request of no other user)."""
        auth = headers.get("authorization", "")
        if auth.startswith("Bearer "):
            who = self._tokens.get(auth[len("Bearer "):].strip())
            return who is None or self._is_bot_dev(who.user, who.device)
        if segs == ["login"] and isinstance(body, dict):
            ident = body.get("identifier")
            user = ident.get("user") if isinstance(ident, dict) else body.get("user")
            if isinstance(user, str) and user:
                return self._is_bot_dev(self._uid(user), body.get("device_id"))
        return True

    def _is_bot_dev(self, uid, dev):
        """Whether (uid, dev) is the bot under test: its user, and not a
        client of the tests' own logged in to the bot's account
        (other_clients)."""
        return uid == self.bot_user and (uid, dev) not in self.other_clients

    def _client_synced(self, headers, query):
        """A test user's client asks /sync from a token: it has read
        everything up to it (as a client loop does before asking again)."""
        auth = headers.get("authorization", "")
        who = self._tokens.get(auth[len("Bearer "):].strip()) \
            if auth.startswith("Bearer ") else None
        since = query.get("since")
        if who is None or since is None or _parse_tok(since) < 0:
            return
        self._client_read(who.user, who.device, _parse_tok(since), _parse_aux(since))

    def _client_read(self, uid, dev, pos, aux):
        old = self._client_seen.get((uid, dev), (0, 0))
        new = (max(old[0], pos), max(old[1], aux))
        if new != old:      # (a notification wakes every long-poll)
            self._client_seen[(uid, dev)] = new
            self._cond.notify_all()

    def wait_client_caught_up(self, user, device, timeout=10):
        """Wait until the client of a test user's device that syncs over
        HTTP has read everything the fake holds for it now: it asked /sync
        from a token at or past the current positions, or its long-poll
        found nothing new for it since its token."""
        with self._lock:
            want = (self._pos, self._aux)

        def ok():
            got = self._client_seen.get((user, device), (0, 0))
            return got[0] >= want[0] and got[1] >= want[1]
        self._wait(ok, timeout, lambda: "%s %s has not synced up to %r (read %r)" %
                   (user, device, want, self._client_seen.get((user, device))))

    def _responded(self, req, t):
        """The handler has written req's response, starting at t."""
        with self._lock:
            req.t_sent = t
            if req.path == "/sync" and req.status == 200 and \
                    isinstance(req.response, dict):
                self.sync_deliveries.append(Rec(
                    since_pos=req.since_pos,
                    next_pos=_parse_tok(req.response.get("next_batch")),
                    t=t, user=req.user))
            self._cond.notify_all()

    def _handle2(self, req, method, segs, path, headers, query, body,
                 bad_json, now):
        # retry spacing after an injected (or rate-limit) 429
        with self._lock:
            for i, (m, p, nb, t0) in enumerate(self._retry_after):
                if m == method and p == path:
                    if now < nb - self.retry_slack_s:
                        self._violate("retried %.3fs after a 429 that said "
                                      "retry_after_ms %d" %
                                      (now - t0, int((nb - t0) * 1000)), req)
                    del self._retry_after[i]
                    break
        # injected faults
        fault = None
        with self._lock:
            for f in self._faults:
                if f.count > 0 and f.method in (method, "*") and \
                        f.rx.search(path):
                    f.count -= 1
                    fault = f
                    break
            self._faults = [f for f in self._faults if f.count > 0]
        lose = False
        if fault is not None and fault.kind == "fail":
            with self._lock:
                self.faults_fired.append(Rec(
                    t=now, method=method, path=path, status=fault.status,
                    retry_after_ms=fault.retry_after_ms))
            if fault.status == 429:
                ra = fault.retry_after_ms if fault.retry_after_ms is not None\
                    else 1000
                with self._lock:
                    self._retry_after.append((method, path, now + ra / 1000.0,
                                              now))
                h = {}
                if fault.header:
                    h["Retry-After"] = str(int(math.ceil(ra / 1000.0)))
                b = fault.body if fault.body is not None else {
                    "errcode": "M_LIMIT_EXCEEDED",
                    "error": "Too many requests", "retry_after_ms": ra}
                return 429, h, b, False
            if fault.status == 502:
                return 502, {}, fault.body or "bad gateway", False
            return fault.status, {}, fault.body or {
                "errcode": "M_UNKNOWN",
                "error": "injected %d" % fault.status}, False
        if fault is not None and fault.kind == "lose":
            lose = True
            with self._lock:
                self.faults_fired.append(Rec(t=now, method=method, path=path,
                                             status="lost",
                                             retry_after_ms=None))
        if segs is None and path == MEDIA_UPLOAD and method == "POST":
            return self._media_upload(req, headers, query, now) + (lose,)
        if segs is None and method == "GET" and (
                path.startswith(MEDIA_DOWNLOAD_V1 + "/") or
                path.startswith(MEDIA_DOWNLOAD + "/")):
            return self._media_download(req, headers, path, now) + (lose,)
        if segs is None:
            return self._unknown(req) + (lose,)
        if bad_json:
            self._violate("request body is not JSON", req)
            raise MxError(400, "M_NOT_JSON", "Content not JSON.")
        # unauthenticated endpoints
        if segs == ["versions"] and method == "GET":
            return 200, {}, {"versions": list(VERSIONS),
                             "unstable_features": {}}, lose
        if segs == ["login"]:
            if method == "GET":
                return 200, {}, {"flows": [{"type": "m.login.password"}]}, \
                    lose
            if method == "POST":
                return self._login(req, body, now) + (lose,)
        # auth
        auth = headers.get("authorization", "")
        token = None
        if auth.startswith("Bearer "):
            token = auth[len("Bearer "):].strip()
        elif "access_token" in query:
            token = query["access_token"]
            self._violate("access token in the query string", req)
        if not token:
            raise MxError(401, "M_MISSING_TOKEN", "Missing access token")
        with self._lock:
            who = self._tokens.get(token)
        if who is None:
            raise MxError(401, "M_UNKNOWN_TOKEN",
                          "Unknown or expired access token",
                          soft_logout=False)
        req.user = who.user
        req.device = who.device
        # server-side rate limit for sends (knob)
        if self.send_rate and method == "PUT" and len(segs) >= 3 and \
                segs[0] == "rooms" and segs[2] == "send":
            lim, win = self.send_rate
            with self._lock:
                ts = [t for t in self._send_times.get(who.user, [])
                      if t > now - win]
                if len(ts) >= lim:
                    ra = self.send_rate_retry_ms
                    self._retry_after.append((method, path, now + ra / 1000.0,
                                              now))
                    self.rate_limited.append(Rec(t=now, path=path))
                    self._send_times[who.user] = ts
                    return 429, {}, {"errcode": "M_LIMIT_EXCEEDED",
                                     "error": "Too many requests",
                                     "retry_after_ms": ra}, lose
                ts.append(now)
                self._send_times[who.user] = ts
        st, h, b = self._dispatch(req, method, segs, query, body, who, now)
        return st, h, b, lose

    def _media_upload(self, req, headers, query, now):
        """POST /_matrix/media/v3/upload: the body is the file, stored
        under a new mxc:// URI.  The bot uploads PNGs only: anything else,
        or a PNG that does not parse, is a violation."""
        auth = headers.get("authorization", "")
        with self._lock:
            who = self._tokens.get(auth[len("Bearer "):].strip()) \
                if auth.startswith("Bearer ") else None
        if who is None:
            raise MxError(401, "M_UNKNOWN_TOKEN", "Unknown or expired access token",
                          soft_logout=False)
        req.user = who.user
        data = req.raw or b""
        if len(data) > self.max_upload_bytes:
            raise MxError(413, "M_TOO_LARGE", "upload too large")
        ctype = headers.get("content-type", "")
        info = None
        if ctype == "application/octet-stream":
            # an encrypted picture: checked when its event names it
            if data.startswith(PNG_SIGNATURE):
                self._violate("a PNG in clear uploaded as an encrypted file", req)
        elif ctype != "image/png":
            self._violate("upload of type %r (the bot sends image/png or an encrypted "
                          "file)" % ctype, req)
        else:
            try:
                info = pngread.png_info(data)
            except ValueError as e:
                self._violate("uploaded PNG does not parse: %s" % e, req)
        with self._lock:
            self._counter += 1
            uri = "mxc://%s/media%d" % (self.server_name, self._counter)
            # plain: the decrypted picture of an encrypted one, once its
            # event showed the key (info then describes it)
            self.media[uri] = Rec(data=data, ctype=ctype, user=who.user, info=info,
                                  filename=query.get("filename"), t=now, plain=None,
                                  encrypted=ctype == "application/octet-stream")
            self._cond.notify_all()
        return 200, {}, {"content_uri": uri}

    def _media_download(self, req, headers, path, now):
        """GET /_matrix/client/v1/media/download/{server}/{id}[/{name}]
        (authenticated) or /_matrix/media/v3/download/... (the legacy one,
        without a token): the bytes as uploaded, with their type."""
        v1 = path.startswith(MEDIA_DOWNLOAD_V1 + "/")
        rest = path[len(MEDIA_DOWNLOAD_V1 if v1 else MEDIA_DOWNLOAD) + 1:].split("/")
        auth = headers.get("authorization", "")
        with self._lock:
            who = self._tokens.get(auth[len("Bearer "):].strip()) \
                if auth.startswith("Bearer ") else None
        if v1 and who is None:
            raise MxError(401, "M_MISSING_TOKEN" if not auth else "M_UNKNOWN_TOKEN",
                          "Missing or unknown access token")
        if len(rest) < 2:
            raise MxError(404, "M_NOT_FOUND", "Not found")
        uri = "mxc://%s/%s" % (rest[0], rest[1])
        with self._lock:
            m = self.media.get(uri)
            if who is not None:
                req.user = who.user
                req.device = who.device
            self.media_downloads.append(Rec(t=now, user=req.user, uri=uri))
        if m is None:
            raise MxError(404, "M_NOT_FOUND", "Not found")
        return 200, {"Content-Type": m.ctype or "application/octet-stream"}, m.data

    def media_text(self, uri):
        """The texts of the picture at uri (its PNG's Description; of an
        encrypted one, once its event showed the key), ""."""
        with self._lock:
            m = self.media.get(uri)
        return (m.info or {}).get("text", "") if m else ""

    def picture_text(self, c):
        """The texts of the picture an m.image content c shows (its url, or
        its encrypted file's), ""."""
        if not isinstance(c, dict):
            return ""
        f = c.get("file")
        return self.media_text(f.get("url") if isinstance(f, dict) else c.get("url"))

    def _unknown(self, req):
        if self.unknown_is_violation:
            self._violate("unknown endpoint", req)
        return 404, {}, {"errcode": "M_UNRECOGNIZED",
                         "error": "Unrecognized request"}

    def _login(self, req, body, now):
        if not isinstance(body, dict):
            raise MxError(400, "M_BAD_JSON", "login body is not an object")
        if body.get("type") != "m.login.password":
            raise MxError(400, "M_UNKNOWN", "Unknown login type")
        ident = body.get("identifier")
        user = None
        legacy = False
        if isinstance(ident, dict):
            if ident.get("type") != "m.id.user":
                raise MxError(400, "M_UNKNOWN", "Unknown identifier type")
            user = ident.get("user")
        elif isinstance(body.get("user"), str):
            user = body.get("user")
            legacy = True
        if not isinstance(user, str) or not user:
            raise MxError(400, "M_BAD_JSON", "no user")
        uid = self._uid(user)
        given = body.get("device_id")
        rec = Rec(t=now, user=uid, given_device_id=given, device_id=None,
                  status=403, legacy=legacy,
                  initial_device_display_name=body.get(
                      "initial_device_display_name"))
        with self._lock:
            self.login_attempts.append(rec)
            u = self._users.get(uid)
            if u is None or u.password is None or \
                    body.get("password") != u.password:
                self._cond.notify_all()
                raise MxError(403, "M_FORBIDDEN", "Invalid username or "
                              "password")
            dev = given if isinstance(given, str) and given else \
                "DEV" + _token_hex(4).upper()
            token = "syt_" + _token_hex(16)
            self._tokens[token] = Rec(user=uid, device=dev)
            self._issued.append(token)
            if self._is_bot_dev(uid, dev):
                self.logins.append(dev)
                self.access_token = token
            rec.device_id = dev
            rec.status = 200
            self._cond.notify_all()
        return 200, {}, {"user_id": uid, "access_token": token,
                         "device_id": dev, "home_server": self.server_name}

    def _room_for(self, rid, who, need_join=True):
        r = self._rooms.get(rid)
        if r is None:
            raise MxError(404 if not need_join else 403,
                          "M_FORBIDDEN" if need_join else "M_NOT_FOUND",
                          "Unknown room %s" % rid)
        if need_join and r.membership(who.user) != "join":
            raise MxError(403, "M_FORBIDDEN", "User %s not in room %s" %
                          (who.user, rid))
        return r

    def _dispatch(self, req, method, segs, query, body, who, now):
        n = len(segs)
        s0 = segs[0] if segs else ""
        with self._lock:
            if segs == ["account", "whoami"] and method == "GET":
                return 200, {}, {"user_id": who.user,
                                 "device_id": who.device,
                                 "is_guest": False}
            if segs == ["logout"] and method == "POST":
                for t, v in list(self._tokens.items()):
                    if v is who:
                        del self._tokens[t]
                return 200, {}, {}
        if segs == ["sync"] and method == "GET":
            return self._sync(req, query, who, now)
        with self._lock:
            if s0 == "user" and n >= 3 and segs[1] != who.user:
                raise MxError(403, "M_FORBIDDEN", "Cannot act for %s" %
                              segs[1])
            if s0 == "user" and n == 3 and segs[2] == "filter" and \
                    method == "POST":
                if not isinstance(body, dict):
                    raise MxError(400, "M_BAD_JSON", "filter not object")
                fid = str(self._next())
                self._filters[fid] = _copy(body)
                return 200, {}, {"filter_id": fid}
            if s0 == "user" and n == 4 and segs[2] == "filter" and \
                    method == "GET":
                if segs[3] not in self._filters:
                    raise MxError(404, "M_NOT_FOUND", "No such filter")
                return 200, {}, _copy(self._filters[segs[3]])
            if s0 == "user" and n == 4 and segs[2] == "account_data":
                key = (who.user, segs[3])
                if method == "GET":
                    if key not in self._account:
                        raise MxError(404, "M_NOT_FOUND",
                                      "Account data not found")
                    return 200, {}, _copy(self._account[key][0])
                if method == "PUT":
                    if not isinstance(body, dict):
                        raise MxError(400, "M_BAD_JSON", "not an object")
                    self.set_account_data(who.user, segs[3], body)
                    return 200, {}, {}
            if s0 == "profile" and n >= 2:
                u = self._users.get(segs[1])
                if u is None:
                    raise MxError(404, "M_NOT_FOUND", "Profile not found")
                prof = {"displayname": u.displayname}
                if n == 2 and method == "GET":
                    return 200, {}, prof
                if n == 3 and segs[2] == "displayname" and method == "GET":
                    return 200, {}, {"displayname": u.displayname}
            if segs == ["joined_rooms"] and method == "GET":
                return 200, {}, {"joined_rooms": [
                    rid for rid in self._room_order
                    if self._rooms[rid].membership(who.user) == "join"]}
            if s0 == "createRoom" and n == 1 and method == "POST":
                return self._create_room(req, who, body, now)
            if s0 == "join" and n == 2 and method == "POST":
                return self._join(req, who, segs[1])
            if s0 == "rooms" and n >= 3:
                return self._room_api(req, method, segs, query, body, who,
                                      now)
            if segs == ["keys", "upload"] and method == "POST":
                return self._keys_upload(req, who, body, now)
            if segs == ["keys", "query"] and method == "POST":
                return self._keys_query(req, who, body, now)
            if segs == ["keys", "claim"] and method == "POST":
                return self._keys_claim(req, who, body, now)
            if segs == ["keys", "device_signing", "upload"] and \
                    method == "POST":
                return 200, {}, self._xsign_upload(who.user, body)
            if segs == ["keys", "signatures", "upload"] and method == "POST":
                return 200, {}, self._signatures_upload(who.user, body)
            if s0 == "sendToDevice" and n == 3 and method == "PUT":
                return self._send_to_device(req, who, segs[1], segs[2], body)
            if s0 in ("pushrules", "capabilities", "presence", "voip",
                      "keys", "devices"):
                # harmless extras: answer something plausible
                if s0 == "capabilities":
                    return 200, {}, {"capabilities": {}}
                return 200, {}, {}
        return self._unknown(req)

    def _join(self, req, who, rid_or_alias):
        rid = rid_or_alias
        if rid.startswith("#"):
            rid = None
            for r in self._rooms.values():
                if r.alias == rid_or_alias:
                    rid = r.id
            if rid is None:
                raise MxError(404, "M_NOT_FOUND", "Unknown alias")
        r = self._rooms.get(rid)
        if r is None:
            raise MxError(404, "M_NOT_FOUND", "Unknown room")
        m = r.membership(who.user)
        if m == "join":
            return 200, {}, {"room_id": rid}
        if m == "ban" or (m != "invite" and r.join_rule != "public"):
            raise MxError(403, "M_FORBIDDEN", "You are not invited to this "
                          "room.")
        self._member_event(r, who.user, who.user, "join")
        return 200, {}, {"room_id": rid}

    def _create_room(self, req, who, body, now):
        if not isinstance(body, dict):
            body = {}
        preset = body.get("preset") or (
            "public_chat" if body.get("visibility") == "public"
            else "private_chat")
        enc = False
        for st in body.get("initial_state") or []:
            if isinstance(st, dict) and st.get("type") == "m.room.encryption":
                enc = True
        room = self._new_room(who.user, body.get("name"), enc,
                              public=(preset == "public_chat"))
        room.created_by_bot = who.user == self.bot_user
        room.create_body = _copy(body)
        if body.get("topic"):
            self._add_event(room, "m.room.topic", who.user,
                            {"topic": body["topic"]}, "")
        for st in body.get("initial_state") or []:
            if isinstance(st, dict) and st.get("type") and \
                    st.get("type") != "m.room.encryption":
                self._add_event(room, st["type"], who.user,
                                st.get("content") or {},
                                st.get("state_key", ""))
        for inv in body.get("invite") or []:
            if not isinstance(inv, str):
                continue
            extra = {"is_direct": True} if body.get("is_direct") else {}
            self._member_event(room, who.user, inv, "invite", **extra)
            if self.auto_accept_invites:
                self._member_event(room, inv, inv, "join")
        self.created_rooms.append(Rec(t=now, room_id=room.id, body=_copy(body),
                                      user=who.user))
        self._cond.notify_all()
        return 200, {}, {"room_id": room.id}

    def _room_api(self, req, method, segs, query, body, who, now):
        rid = segs[1]
        op = segs[2]
        n = len(segs)
        if op == "join" and n == 3 and method == "POST":
            return self._join(req, who, rid)
        if op in ("leave", "forget") and n == 3 and method == "POST":
            r = self._room_for(rid, who, need_join=False)
            if op == "leave" and r.membership(who.user) in ("join", "invite"):
                self._member_event(r, who.user, who.user, "leave")
            return 200, {}, {}
        if op == "invite" and n == 3 and method == "POST":
            r = self._room_for(rid, who)
            uid = (body or {}).get("user_id")
            if not isinstance(uid, str):
                raise MxError(400, "M_BAD_JSON", "user_id")
            self._member_event(r, who.user, uid, "invite")
            return 200, {}, {}
        if op == "send" and n == 5 and method == "PUT":
            return self._send(req, rid, segs[3], segs[4], body, who, now)
        if op == "redact" and n == 5 and method == "PUT":
            r = self._room_for(rid, who)
            tgt = self._events.get(segs[3])
            if tgt is None or tgt.room != rid:
                raise MxError(404, "M_NOT_FOUND", "Event not found")
            key = (who.user, who.device, "redact:" + segs[4])
            if key in self._txns:
                return 200, {}, {"event_id": self._txns[key].event_id}
            e = self._add_event(r, "m.room.redaction", who.user,
                                {"redacts": segs[3],
                                 **({"reason": body["reason"]} if
                                    isinstance(body, dict) and
                                    body.get("reason") else {})})
            e.ev["redacts"] = segs[3]
            tgt.redacted = True
            self._txns[key] = Rec(event_id=e.ev["event_id"])
            return 200, {}, {"event_id": e.ev["event_id"]}
        if op == "state" and method == "PUT" and n in (4, 5):
            r = self._room_for(rid, who)
            e = self._add_event(r, segs[3], who.user, body or {},
                                segs[4] if n == 5 else "")
            return 200, {}, {"event_id": e.ev["event_id"]}
        if op == "state" and method == "GET":
            r = self._room_for(rid, who)
            if n == 3:
                return 200, {}, [self._wire(x, with_room=True)
                                 for x in r.state.values()]
            x = r.state.get((segs[3], segs[4] if n == 5 else ""))
            if x is None:
                raise MxError(404, "M_NOT_FOUND", "Event not found.")
            return 200, {}, _copy(x.ev["content"])
        if op == "joined_members" and n == 3 and method == "GET":
            r = self._room_for(rid, who)
            out = {}
            for uid in r.members("join"):
                c = r.member_rec(uid).ev["content"]
                out[uid] = {"display_name": c.get("displayname"),
                            "avatar_url": None}
            return 200, {}, {"joined": out}
        if op == "members" and n == 3 and method == "GET":
            r = self._room_for(rid, who)
            want = query.get("membership")
            skip = query.get("not_membership")
            self.members_requests.append(Rec(t=now, room=rid, query=query))
            return 200, {}, {"chunk": [
                self._wire(x, with_room=True) for k, x in r.state.items()
                if k[0] == "m.room.member" and
                (want is None or x.ev["content"].get("membership") == want)
                and (skip is None or
                     x.ev["content"].get("membership") != skip)]}
        if op == "event" and n == 4 and method == "GET":
            self._room_for(rid, who)
            e = self._events.get(segs[3])
            if e is None or e.room != rid:
                raise MxError(404, "M_NOT_FOUND", "Event not found.")
            return 200, {}, self._wire(e, who.device, with_room=True)
        if op == "messages" and n == 3 and method == "GET":
            return self._messages(req, rid, query, who)
        if op in ("typing", "receipt", "read_markers"):
            self._room_for(rid, who)
            return 200, {}, {}
        return self._unknown(req)

    # -- end-to-end encryption (call with the lock held) ----------------
    def _device_changed(self, uid):
        """uid's device list changed: in the device_lists.changed of the
        bot's next sync when they share a room (which then wakes it)."""
        shares = uid == self.bot_user or any(
            self._rooms[r].membership(self.bot_user) in ("join", "invite")
            and self._rooms[r].membership(uid) in ("join", "invite")
            for r in self._user_rooms.get(uid, {}))
        if shares:
            self._pos += 1
        self._aux += 1
        self._dev_changes.append(Rec(pos=self._pos, aux=self._aux, user=uid))
        self._cond.notify_all()

    def _upload(self, uid, dev, body, req=None):
        """POST /keys/upload for (uid, dev); returns the answer."""
        def bad(what):
            if req is not None:
                self._violate(what, req)
            raise MxError(400, "M_INVALID_PARAM", what)
        dk = body.get("device_keys")
        if dk is not None:
            if not isinstance(dk, dict) or dk.get("user_id") != uid or \
                    dk.get("device_id") != dev or \
                    not isinstance(dk.get("keys"), dict) or \
                    not isinstance(dk.get("signatures"), dict):
                bad("device_keys not for this user and device, or unsigned")
            old = self._devices.get(uid, {}).get(dev)
            if old is not None and old["keys"] != dk["keys"]:
                bad("device keys changed for device %s" % dev)
            if old != dk:
                self._devices.setdefault(uid, {})[dev] = _copy(dk)
                self._device_changed(uid)
        for kind, store in (("one_time_keys", None), ("fallback_keys", 1)):
            keys = body.get(kind) or {}
            if not isinstance(keys, dict):
                bad("%s is not an object" % kind)
            for kid, k in sorted(keys.items()):
                if not kid.startswith("signed_curve25519:") or \
                        not isinstance(k, dict) or \
                        not isinstance(k.get("key"), str) or \
                        not isinstance(k.get("signatures"), dict):
                    bad("a malformed key %s" % kid)
                if store:
                    self._fallback[(uid, dev)] = [kid, _copy(k), False]
                    continue
                mine = self._otks.setdefault((uid, dev), [])
                same = [o for i, o in mine if i == kid]
                if same and same[0] != k:
                    bad("one-time key %s uploaded again with another key" % kid)
                if not same and kid not in self._claimed_ids.get(
                        (uid, dev), set()):
                    mine.append((kid, _copy(k)))
        return {"one_time_key_counts": {
            "signed_curve25519": len(self._otks.get((uid, dev), []))}}

    def _keys_upload(self, req, who, body, now):
        if not isinstance(body, dict):
            raise MxError(400, "M_BAD_JSON", "not an object")
        self.keys_uploads.append(Rec(t=now, user=who.user, device=who.device,
                                     body=_copy(body)))
        return 200, {}, self._upload(who.user, who.device, body, req)

    def _query(self, users, asker=None):
        out = {"device_keys": {}, "failures": {}, "master_keys": {},
               "self_signing_keys": {}, "user_signing_keys": {}}
        for u in users:
            devs = _copy(self._devices.get(u, {}))
            for d, k in devs.items():
                name = self._device_names.get((u, d))
                if name is not None:
                    k["unsigned"] = {"device_display_name": name}
            out["device_keys"][u] = devs
            xs = self._xsign.get(u, {})
            for kind in ("master", "self_signing") + (
                    ("user_signing",) if u == asker else ()):
                if kind in xs:
                    out[kind + "_keys"][u] = _copy(xs[kind])
        return out

    def _keys_query(self, req, who, body, now):
        dk = (body or {}).get("device_keys")
        if not isinstance(dk, dict):
            self._violate("/keys/query without device_keys", req)
            raise MxError(400, "M_BAD_JSON", "device_keys")
        self.keys_queries.append(Rec(t=now, user=who.user, body=_copy(body)))
        return 200, {}, self._query(list(dk), who.user)

    def _xsign_upload(self, uid, body):
        """POST /keys/device_signing/upload for uid (no interactive auth:
        the fake trusts its users).  Each key names uid, its usage and one
        ed25519 key; a self-signing or user-signing key must carry a
        signature by the master key (checked for presence only: clients
        verify)."""
        if not isinstance(body, dict):
            raise MxError(400, "M_BAD_JSON", "not an object")
        new = dict(self._xsign.get(uid, {}))
        for field, kind in (("master_key", "master"),
                            ("self_signing_key", "self_signing"),
                            ("user_signing_key", "user_signing")):
            k = body.get(field)
            if k is None:
                continue
            keys = k.get("keys") if isinstance(k, dict) else None
            if not isinstance(keys, dict) or len(keys) != 1 or \
                    k.get("user_id") != uid or kind not in (k.get("usage") or []):
                raise MxError(400, "M_INVALID_PARAM", "a malformed %s" % field)
            new[kind] = _copy(k)
        if "master" not in new:
            raise MxError(400, "M_INVALID_PARAM", "no master key")
        mkid = list(new["master"]["keys"])[0]
        for kind in ("self_signing", "user_signing"):
            if kind in new and mkid not in \
                    (new[kind].get("signatures") or {}).get(uid, {}):
                raise MxError(400, "M_INVALID_SIGNATURE",
                              "%s key not signed by the master key" % kind)
        self._xsign[uid] = new
        self._device_changed(uid)
        return {}

    def _signatures_upload(self, uid, body):
        """POST /keys/signatures/upload by uid: {user: {key id: signed
        object}}; the signatures are added to that user's device keys (key
        id: a device id) or master key (key id: its public key).  Answers
        {"failures": {...}} for what it cannot place."""
        if not isinstance(body, dict):
            raise MxError(400, "M_BAD_JSON", "not an object")
        failures = {}
        for target, objs in body.items():
            for kid, obj in (objs or {}).items():
                sigs = (obj or {}).get("signatures") or {}
                dev = self._devices.get(target, {}).get(kid)
                master = self._xsign.get(target, {}).get("master")
                if dev is not None:
                    have = dev
                elif master is not None and kid in [
                        k.split(":", 1)[1] for k in master["keys"]]:
                    have = master
                else:
                    failures.setdefault(target, {})[kid] = {
                        "errcode": "M_NOT_FOUND", "error": "unknown key"}
                    continue
                strip = {k: v for k, v in obj.items()
                         if k not in ("signatures", "unsigned")}
                mine = {k: v for k, v in have.items()
                        if k not in ("signatures", "unsigned")}
                if strip != mine or uid not in sigs:
                    failures.setdefault(target, {})[kid] = {
                        "errcode": "M_INVALID_PARAM", "error": "other content"}
                    continue
                have.setdefault("signatures", {}).setdefault(uid, {}).update(
                    _copy(sigs[uid]))
                self._device_changed(target)
        self.signature_uploads.append(Rec(t=time.monotonic(), user=uid, body=_copy(body),
                                          failures=_copy(failures)))
        return {"failures": failures}

    def _claim(self, uid, dev):
        """A one-time key of (uid, dev), else its fallback key: (key id,
        object), or None."""
        mine = self._otks.get((uid, dev))
        if mine and (uid, dev) not in self.claim_fallback_only:
            kid, k = mine.pop(0)
            self._claimed_ids.setdefault((uid, dev), set()).add(kid)
            return kid, k
        fb = self._fallback.get((uid, dev))
        if fb:
            fb[2] = True
            return fb[0], fb[1]
        return None

    def _keys_claim(self, req, who, body, now):
        otk = (body or {}).get("one_time_keys")
        if not isinstance(otk, dict):
            self._violate("/keys/claim without one_time_keys", req)
            raise MxError(400, "M_BAD_JSON", "one_time_keys")
        out = {}
        for uid, devs in otk.items():
            for dev, alg in (devs or {}).items():
                if alg != "signed_curve25519":
                    continue
                got = self._claim(uid, dev)
                if got:
                    out.setdefault(uid, {})[dev] = {got[0]: _copy(got[1])}
        resp = {"one_time_keys": out, "failures": {}}
        self.keys_claims.append(Rec(t=now, user=who.user, body=_copy(body),
                                    response=_copy(resp)))
        return 200, {}, resp

    def _queue_to_device(self, sender, sender_dev, etype, messages):
        for uid, devs in messages.items():
            for dev, content in devs.items():
                targets = list(self._devices.get(uid, {})) if dev == "*" \
                    else [dev]
                for d in targets:
                    self._td_seq += 1
                    self._aux += 1
                    if self._is_bot_dev(uid, d):
                        self._pos += 1      # the bot's next sync carries it
                    self._to_device.append(Rec(
                        seq=self._td_seq, pos=self._pos, aux=self._aux, sender=sender,
                        sender_device=sender_dev, user=uid, device=d,
                        type=etype, content=_copy(content)))
        self._cond.notify_all()

    def _send_to_device(self, req, who, etype, txn, body):
        msgs = (body or {}).get("messages")
        if not isinstance(msgs, dict):
            self._violate("sendToDevice without messages", req)
            raise MxError(400, "M_BAD_JSON", "messages")
        key = (who.user, who.device, txn)
        if key in self._td_txns:
            if self._td_txns[key] != body:
                self._violate("sendToDevice txnId %r retried with different "
                              "content" % txn, req)
            return 200, {}, {}
        self._td_txns[key] = _copy(body)
        if self._is_bot_dev(who.user, who.device) and etype != "m.room.encrypted":
            self._violate("a to-device message of type %s in clear" % etype,
                          req)
        self._queue_to_device(who.user, who.device, etype, msgs)
        return 200, {}, {}

    # -- end-to-end encryption: the test side ---------------------------
    def upload_keys(self, user, device, body):
        """A test user's device uploads keys (as POST /keys/upload)."""
        with self._lock:
            return self._upload(user, device, body)

    def query_keys(self, users, asker=None):
        """As POST /keys/query by asker: {device_keys: {user: {device:
        keys}}, master_keys, self_signing_keys, user_signing_keys (the
        asker's own)}."""
        with self._lock:
            return self._query(users, asker)

    def upload_cross_signing(self, user, body):
        """A test user uploads cross-signing keys (as POST
        /keys/device_signing/upload)."""
        with self._lock:
            return self._xsign_upload(user, body)

    def upload_signatures(self, user, body):
        """A test user uploads signatures (as POST /keys/signatures/upload);
        the answer's failures."""
        with self._lock:
            return self._signatures_upload(user, body)

    def set_device_name(self, user, device, name):
        """The display name /keys/query shows for a device (unsigned)."""
        with self._lock:
            self._device_names[(user, device)] = name
            self._device_changed(user)

    def homeserver_adds_device(self, user, device, body, name=None):
        """The homeserver's attack: a device of its own on user's account,
        with no login (keys uploaded as POST /keys/upload would: self-
        signed, never cross-signed by the user), announced in the bot's
        device_lists.changed.  Logged in homeserver_devices."""
        with self._lock:
            if name is not None:
                self._device_names[(user, device)] = name
            self.homeserver_devices.append(Rec(user=user, device=device))
            return self._upload(user, device, body)

    def claim_key(self, user, device):
        """As POST /keys/claim for one device: (key id, object) or None."""
        with self._lock:
            got = self._claim(user, device)
            return (got[0], _copy(got[1])) if got else None

    def send_to_device(self, sender, sender_device, etype, messages):
        """A test user's device sends to-device messages ({user: {device:
        content}}); those to the bot reach its next sync."""
        with self._lock:
            self._queue_to_device(sender, sender_device, etype, messages)

    def to_device_for(self, user, device, after=0):
        """The to-device messages sent to (user, device) with seq > after,
        in order: Rec(seq, sender, sender_device, type, content)."""
        with self._lock:
            return [Rec(_copy(m)) for m in self._to_device
                    if m.seq > after and m.user == user and m.device == device]

    def bot_device(self):
        """(device id, device_keys) of the device the bot logged in with
        (or, with a token, the token's), once it uploaded its keys; else
        None."""
        with self._lock:
            devs = self._devices.get(self.bot_user) or {}
            ids = list(self.logins) + [t.device for t in self._tokens.values()
                                       if self._is_bot_dev(t.user, t.device)]
            for d in reversed(ids):
                if d in devs:
                    return d, _copy(devs[d])
            return None

    def otk_count(self, user, device):
        with self._lock:
            return len(self._otks.get((user, device), []))

    def to_device_sent(self):
        """Every to-device message the bot sent, in order."""
        with self._lock:
            return [Rec(_copy(m)) for m in self._to_device
                    if m.sender == self.bot_user]

    # -- sending -------------------------------------------------------
    def _check_picture(self, c, what, sealed, enc_room):
        """The problems of the bot's m.image c: a picture in clear points at
        a PNG it uploaded (url), an encrypted one (file, only ever inside a
        Megolm-encrypted event, and the only kind in an encrypted room) at a
        ciphertext it uploaded that decrypts with the event's key to a PNG;
        info describes the picture either way."""
        probs = []
        f = c.get("file")
        if f is not None:
            if not sealed:
                probs.append("%s carries an attachment key in clear" % what)
            if "url" in c:
                probs.append("%s has both file and url" % what)
            uri = f.get("url") if isinstance(f, dict) else None
            with self._lock:
                med = self.media.get(uri)
            if med is None or not med.encrypted or med.user != self.bot_user:
                return probs + ["%s file url %r is no encrypted file the bot uploaded" %
                                (what, uri)]
            try:
                plain = decrypt_attachment(f, med.data)
                pinfo = pngread.png_info(plain)
            except ValueError as e:
                return probs + ["%s: its encrypted file does not open: %s" % (what, e)]
            with self._lock:
                med.plain = plain
                med.info = pinfo
            size = len(plain)
        else:
            if enc_room:
                probs.append("%s: a picture in clear (url) from an encrypted room" % what)
            with self._lock:
                med = self.media.get(c.get("url"))
            if med is None or med.info is None:
                return probs + ["%s url %r is no picture the bot uploaded" %
                                (what, c.get("url"))]
            size = len(med.data)
        info = c.get("info") if isinstance(c.get("info"), dict) else {}
        if (info.get("w"), info.get("h"), info.get("mimetype"), info.get("size")) != \
                (med.info["width"], med.info["height"], "image/png", size):
            probs.append("%s info %r does not describe its picture (%dx%d, image/png, %d "
                         "bytes)" % (what, info, med.info["width"], med.info["height"], size))
        return probs

    def _check_msg(self, c, req, what, sealed=False, enc_room=False):
        probs = []
        if not isinstance(c, dict):
            return ["%s is not an object" % what]
        mt = c.get("msgtype")
        if mt not in self.bot_msgtypes:
            probs.append("%s msgtype %r (want one of %s)" %
                         (what, mt, sorted(self.bot_msgtypes)))
        if not isinstance(c.get("body"), str):
            probs.append("%s has no string body" % what)
        elif not c["body"]:
            probs.append("%s has an empty body" % what)
        if mt == "m.image":
            probs += self._check_picture(c, what, sealed, enc_room)
            if "format" in c or "formatted_body" in c:
                probs.append("%s is an m.image with formatted_body" % what)
        if "format" in c or "formatted_body" in c:
            if c.get("format") != HTML_FORMAT:
                probs.append("%s format %r is not %s" %
                             (what, c.get("format"), HTML_FORMAT))
            fb = c.get("formatted_body")
            if not isinstance(fb, str):
                probs.append("%s has format but no string formatted_body"
                             % what)
            else:
                if "<script" in fb.lower():
                    probs.append("%s formatted_body contains <script" % what)
                for m in _HREF_RE.finditer(fb):
                    href = m.group(1).strip("\"'")
                    if _WEB_LINK_RE.fullmatch(href) and \
                            fb[m.end():].startswith(">%s</a>" % href):
                        continue    # a web page's link, shown as itself
                    if not href.startswith(MATRIX_TO):
                        probs.append("%s formatted_body links to %r (only "
                                     "https://matrix.to/#/@... allowed)" %
                                     (what, href))
        return probs

    def _check_encrypted(self, req, rid, body):
        """An m.room.encrypted of the bot: the Megolm fields in place,
        nothing but them (and m.relates_to) in clear; the decrypted
        content through the decryptor (None when there is none or it does
        not decrypt: logged in undecryptable)."""
        want = {"algorithm", "ciphertext", "session_id", "sender_key",
                "device_id"}
        if body.get("algorithm") != "m.megolm.v1.aes-sha2" or \
                not all(isinstance(body.get(k), str) and body.get(k)
                        for k in want):
            self._violate("m.room.encrypted without its Megolm fields", req)
            return None
        extra = set(body) - want - {"m.relates_to"}
        if extra:
            self._violate("m.room.encrypted with %s in clear" %
                          sorted(extra), req)
        if not self.decryptor:
            return None
        p = self.decryptor(rid, {"type": "m.room.encrypted", "room_id": rid,
                                 "sender": self.bot_user,
                                 "content": _copy(body)})
        if p is None:
            self.undecryptable.append(Rec(room=rid, path=req.path))
            return None
        if p.get("type") != "m.room.message" or \
                not isinstance(p.get("content"), dict):
            self._violate("an encrypted event that is not a message", req)
            return None
        if p.get("room_id") != rid:
            self._violate("an encrypted message naming another room", req)
        return p["content"]

    def _send(self, req, rid, etype, txn, body, who, now):
        if not isinstance(body, dict):
            self._violate("event content is not an object", req)
            raise MxError(400, "M_BAD_JSON", "Content must be an object")
        key = (who.user, who.device, txn)
        old = self._txns.get(key)
        if old is not None:
            if old.room != rid or old.type != etype:
                self._violate("txnId %r reused for a different room/type "
                              "(first %s %s)" % (txn, old.room, old.type),
                              req)
            elif old.content != body and etype == "m.room.encrypted":
                # a client encrypts a re-sent message again (a new
                # index): the server answers with the first event.  The
                # bot's must say what the first said (a picture: its new
                # upload under a new key, which must open too)
                rec = Rec(t=now, txn_id=txn, room=rid, content=None)
                self.reencrypted.append(rec)
                if who.user == self.bot_user:
                    p = self._check_encrypted(req, rid, body)
                    first = self._plain.get(old.event_id)
                    if p is not None and first is not None:
                        rec.content = _copy(p)
                        if _without_url(p) != _without_url(first.get("content")):
                            self._violate("txnId %r re-encrypted with different content" %
                                          txn, req)
                        elif p.get("msgtype") == "m.image":
                            for prob in self._check_picture(p, "re-sent message", True,
                                                            self._rooms[rid].encrypted):
                                self._violate(prob, req)
            elif _without_url(old.content) != _without_url(body):
                # (an m.image sent again after a restart carries the URI of
                # its new upload; the server keeps the first)
                self._violate("txnId %r retried with different content" %
                              txn, req)
            self.dedups.append(Rec(t=now, txn_id=txn, event_id=old.event_id,
                                   room=rid, device=who.device,
                                   user=who.user))
            self._cond.notify_all()
            return 200, {}, {"event_id": old.event_id}
        r = self._room_for(rid, who)
        # size of the event as the server would store it
        probe = {"type": etype, "room_id": rid, "sender": who.user,
                 "content": body, "event_id": "$" + "x" * 43,
                 "origin_server_ts": int(time.time() * 1000),
                 "unsigned": {"transaction_id": txn}}
        size = len(json.dumps(probe, ensure_ascii=False,
                              separators=(",", ":")).encode())
        if size > self.max_event_bytes:
            self._violate("event too large: %d bytes > %d" %
                          (size, self.max_event_bytes), req)
            raise MxError(413, "M_TOO_LARGE", "event too large")
        plain = None
        if etype == "m.room.encrypted" and who.user == self.bot_user:
            plain = self._check_encrypted(req, rid, body)
        if (etype == "m.room.message" or plain is not None) and \
                who.user == self.bot_user:
            probs = []
            if plain is not None:
                # the checks of a message, on what the room's members read
                body = dict(plain, **({"m.relates_to": body["m.relates_to"]}
                                      if "m.relates_to" in body else {}))
            rel = body.get("m.relates_to")
            is_edit = isinstance(rel, dict) and \
                rel.get("rel_type") == "m.replace"
            if is_edit:
                probs += self._check_msg(body.get("m.new_content"), req,
                                         "edit m.new_content")
                if not isinstance(body.get("body"), str):
                    probs.append("edit has no string body")
                tgt = self._events.get(rel.get("event_id"))
                if tgt is None or tgt.room != rid:
                    probs.append("edit of unknown event %r" %
                                 (rel.get("event_id"),))
                elif tgt.ev["sender"] != who.user:
                    probs.append("edit of someone else's event")
                else:
                    trel = tgt.ev["content"].get("m.relates_to")
                    if isinstance(trel, dict) and \
                            trel.get("rel_type") == "m.replace":
                        probs.append("edit targets an edit, not the "
                                     "original")
            else:
                probs += self._check_msg(body, req, "message", sealed=plain is not None,
                                         enc_room=r.encrypted)
            if not isinstance(body.get("m.mentions"), dict):
                probs.append("m.mentions missing")
            if r.encrypted and self.violate_plaintext_in_encrypted and \
                    plain is None:
                probs.append("plaintext message in an encrypted room")
            for p in probs:
                self._violate(p, req)
        body = req.body     # what came, stored as it came
        e = self._add_event(r, etype, who.user, body,
                            txn=(who.user, who.device, txn))
        if plain is not None:
            self._plain[e.ev["event_id"]] = {"type": "m.room.message",
                                             "content": _copy(plain)}
        # who could read it: the room's joined and invited members then
        e.readers = sorted(r.members("join") + r.members("invite"))
        rel = body.get("m.relates_to")
        if isinstance(rel, dict) and rel.get("rel_type") == "m.replace":
            tgt = self._events.get(rel.get("event_id"))
            if tgt is not None and tgt.room == rid and \
                    tgt.ev["sender"] == who.user:
                tgt.edits.append(e.ev["event_id"])
        self._txns[key] = Rec(event_id=e.ev["event_id"], room=rid,
                              type=etype, content=_copy(body))
        return 200, {}, {"event_id": e.ev["event_id"]}

    # -- reading -------------------------------------------------------
    def _messages(self, req, rid, query, who):
        r = self._room_for(rid, who)
        d = query.get("dir", "b")
        try:
            limit = max(1, min(int(query.get("limit", "10")), 1000))
        except ValueError:
            raise MxError(400, "M_INVALID_PARAM", "limit")
        frm = query.get("from")
        fpos = _parse_tok(frm) if frm else (self._pos if d == "b" else 0)
        if fpos == -1:
            raise MxError(400, "M_INVALID_PARAM", "bad from token")
        to = _parse_tok(query.get("to")) if query.get("to") else None
        flt = None
        if query.get("filter"):
            try:
                flt = json.loads(query["filter"])
            except ValueError:
                flt = None
        if d == "b":
            evs = [e for e in reversed(r.timeline) if e.pos <= fpos and
                   (to is None or e.pos > to) and
                   _filter_ok(flt, e.ev["type"])]
        else:
            evs = [e for e in r.timeline if e.pos > fpos and
                   (to is None or e.pos <= to) and
                   _filter_ok(flt, e.ev["type"])]
        chunk = evs[:limit]
        out = {"chunk": [self._wire(e, who.device, with_room=True)
                         for e in chunk], "start": _tok(fpos)}
        if len(evs) > limit:
            last = chunk[-1].pos
            out["end"] = _tok(last - 1 if d == "b" else last)
        if isinstance(flt, dict) and flt.get("lazy_load_members") is True:
            # the chunk's senders' member events (their current ones)
            out["state"] = [
                self._wire(r.state[("m.room.member", u)], who.device, with_room=True)
                for u in sorted({e.ev["sender"] for e in chunk})
                if ("m.room.member", u) in r.state]
        return 200, {}, out

    def _get_filter(self, q):
        f = q.get("filter")
        if not f:
            return {}
        if f.lstrip().startswith("{"):
            try:
                v = json.loads(f)
                return v if isinstance(v, dict) else {}
            except ValueError:
                raise MxError(400, "M_INVALID_PARAM", "bad filter JSON")
        if f not in self._filters:
            raise MxError(400, "M_INVALID_PARAM", "unknown filter id")
        return self._filters[f]

    def _sync(self, req, query, who, now):
        flt = self._get_filter(query)
        since = query.get("since")
        spos = _parse_tok(since) if since is not None else None
        if spos == -1:
            self._violate("/sync with an unknown since token %r" % since, req)
            raise MxError(400, "M_INVALID_PARAM", "bad since token")
        try:
            tmo = int(query.get("timeout", "0") or 0)
        except ValueError:
            tmo = 0
        tmo_s = min(max(tmo, 0) / 1000.0, self.sync_timeout_cap_s)
        full = query.get("full_state") == "true"
        deadline = now + tmo_s
        client = not self._is_bot_dev(who.user, who.device)
        saux = _parse_aux(since) if client else None
        with self._cond:
            if spos is not None and spos > self._pos:
                self._violate("/sync since %d is beyond the stream (%d)" %
                              (spos, self._pos), req)
                spos = self._pos
            while True:
                resp, nonempty = self._build_sync(spos, flt, who, full, saux)
                if nonempty or spos is None or full or self._stopping:
                    break
                if client:
                    # nothing for this device up to now: it has read it all
                    self._client_read(who.user, who.device, self._pos, self._aux)
                left = deadline - time.monotonic()
                if left <= 0:
                    break
                self._cond.wait(min(left, 0.5))
            self.syncs.append(Rec(t=time.monotonic(), since=since,
                                  next_batch=resp["next_batch"],
                                  nonempty=nonempty, user=who.user,
                                  bytes=len(json.dumps(resp)),
                                  filter=flt))
        return 200, {}, resp

    def _build_sync(self, spos, flt, who, full, saux=None):
        """saux: the to-device and device-list position of a test user's
        token (None for the bot, whose to-device messages and device
        changes move the stream position itself)."""
        uid = who.user
        rflt = flt.get("room") if isinstance(flt.get("room"), dict) else {}
        tflt = rflt.get("timeline") if isinstance(rflt.get("timeline"),
                                                  dict) else {}
        sflt = rflt.get("state") if isinstance(rflt.get("state"),
                                               dict) else {}
        limit = tflt.get("limit", self.default_timeline_limit)
        if not isinstance(limit, int) or limit < 1:
            limit = self.default_timeline_limit
        base = spos if spos is not None else 0
        join, invite, leave = {}, {}, {}
        nonempty = False
        mine = self._user_rooms.get(uid, {})
        # the room filter's rooms / not_rooms apply to every section
        only = rflt.get("rooms") if isinstance(rflt.get("rooms"), list) \
            else None
        never = set(rflt.get("not_rooms") or []) \
            if isinstance(rflt.get("not_rooms"), list) else set()
        ll = self.lazy_loading and sflt.get("lazy_load_members") is True
        redundant = sflt.get("include_redundant_members") is True
        if saux is None:
            self.sync_filters.append(_copy(flt))
        if spos is None or full:
            rids = [rid for rid in mine]
        else:
            # only rooms with an event after since can have anything new
            # (a join, invite or leave of the user is such an event too)
            i = bisect.bisect_right(self._log_pos, base)
            rids = {rid for rid in self._log_room[i:] if rid in mine}
        for rid in sorted(rids, key=self._room_index.__getitem__):
            if (only is not None and rid not in only) or rid in never:
                continue
            room = self._rooms[rid]
            mrec = room.member_rec(uid)
            if mrec is None:
                continue
            mem = mrec.ev["content"].get("membership")
            if mem == "join":
                fresh = spos is None or full or mrec.pos > base
                lo = base
                if self.hide_pre_join_events and spos is not None and \
                        mrec.pos > base:
                    lo = max(base, mrec.pos - 1)
                if spos is None or (saux is not None and fresh):
                    # (a test user's client that has just joined gets the
                    # room's recent events, before its join too, as a
                    # server gives them: a direct chat's first messages
                    # come while the player is only invited)
                    lo = 0
                pend = [e for e in room.timeline[
                        bisect.bisect_right(room.tpos, lo):]
                        if _filter_ok(tflt, e.ev["type"])]
                tl = pend[-limit:]
                limited = len(pend) > len(tl)
                if not tl and not fresh:
                    continue
                in_tl = {e.ev["event_id"] for e in tl}
                first = tl[0].pos if tl else self._pos + 1
                st = [e for e in room.state.values()
                      if e.ev["event_id"] not in in_tl and e.pos < first and
                      (fresh or e.pos > base) and
                      _filter_ok(sflt, e.ev["type"])]
                if ll:
                    # lazy-loaded members: only those of the timeline's
                    # senders (and the syncing user's own on a fresh or
                    # full sync), changed or not since `since`; without
                    # include_redundant_members, only those this device
                    # was not sent before (as Synapse and Conduit do)
                    senders = {e.ev["sender"] for e in tl}
                    if fresh:
                        senders.add(uid)
                    seen = self._ll_sent.setdefault((uid, who.device),
                                                    set())
                    st = [e for e in st if e.ev["type"] != "m.room.member"]
                    if _filter_ok(sflt, "m.room.member"):
                        for k in sorted(senders):
                            e = room.state.get(("m.room.member", k))
                            if e is None or e.ev["event_id"] in in_tl:
                                continue
                            if not redundant and \
                                    (rid, k, e.ev["event_id"]) in seen:
                                continue
                            st.append(e)
                    for e in st + tl:
                        if e.ev["type"] == "m.room.member":
                            seen.add((rid, e.ev["state_key"],
                                      e.ev["event_id"]))
                st.sort(key=lambda e: e.pos)
                prev = _tok(tl[0].pos - 1) if tl else _tok(self._pos)
                join[rid] = {
                    "timeline": {"events": [self._wire(e, who.device)
                                            for e in tl],
                                 "limited": limited, "prev_batch": prev},
                    "state": {"events": [self._wire(e, who.device)
                                         for e in st]},
                    "account_data": {"events": []},
                    "ephemeral": {"events": []},
                    "unread_notifications": {"highlight_count": 0,
                                             "notification_count": 0},
                    "summary": {}}
                # the counts, when lazy loading, as Synapse gives them:
                # on an initial or fresh sync and when member events are
                # in the timeline or the gap's state (else "unchanged")
                if not ll or fresh or any(
                        e.ev["type"] == "m.room.member" for e in st + tl):
                    join[rid]["summary"] = {
                        "m.joined_member_count": len(room.members("join")),
                        "m.invited_member_count":
                        len(room.members("invite"))}
                nonempty = True
            elif mem == "invite":
                if spos is not None and mrec.pos <= base and not full:
                    continue
                evs = []
                for k in (("m.room.create", ""), ("m.room.join_rules", ""),
                          ("m.room.name", ""), ("m.room.encryption", ""),
                          ("m.room.member", mrec.ev["sender"])):
                    if k in room.state:
                        evs.append(self._stripped(room.state[k]))
                inv = self._stripped(mrec)
                inv["event_id"] = mrec.ev["event_id"]
                inv["origin_server_ts"] = mrec.ev["origin_server_ts"]
                evs.append(inv)
                # what a hostile inviting server can put in the stripped
                # state (Synapse takes it from the invite's unsigned
                # invite_room_state, unchecked)
                extra = self._invite_extra.get(rid)
                if extra:
                    evs = _copy(extra) + evs
                invite[rid] = {"invite_state": {"events": evs}}
                nonempty = True
            elif mem in ("leave", "ban"):
                if spos is None or mrec.pos <= base:
                    continue
                pend = [e for e in room.timeline[
                        bisect.bisect_right(room.tpos, base):
                        bisect.bisect_right(room.tpos, mrec.pos)]
                        if _filter_ok(tflt, e.ev["type"])]
                tl = pend[-limit:]
                leave[rid] = {
                    "timeline": {"events": [self._wire(e, who.device)
                                            for e in tl],
                                 "limited": len(pend) > len(tl),
                                 "prev_batch": _tok(tl[0].pos - 1) if tl
                                 else _tok(base)},
                    "state": {"events": []}, "account_data": {"events": []}}
                nonempty = True
        adf = flt.get("account_data") if isinstance(flt.get("account_data"),
                                                    dict) else {}
        ad = []
        for (u, t), (content, pos) in sorted(self._account.items()):
            if u == uid and (spos is None or full or pos > base) and \
                    _filter_ok(adf, t):
                ad.append({"type": t, "content": _copy(content)})
        if ad:
            nonempty = True
        # to-device messages for this device, until a later since
        # acknowledges them (a repeat of the same since gets them again)
        td = [{"type": m.type, "sender": m.sender, "content": _copy(m.content)}
              for m in self._to_device
              if (m.pos > base if saux is None else m.aux > saux) and
              m.user == uid and m.device == who.device]
        changed = []
        recent = [c for c in self._dev_changes[-1000:]
                  if (c.pos > base if saux is None else c.aux > saux)] \
            if spos is not None else []
        if recent:
            mates = {uid}
            for rid, _ in mine.items():
                room = self._rooms[rid]
                if room.membership(uid) in ("join", "invite"):
                    mates.update(room.members("join") + room.members("invite"))
            for c in recent:
                if c.user in mates and c.user not in changed:
                    changed.append(c.user)
        if td or changed:
            nonempty = True
        fb = self._fallback.get((uid, who.device))
        nb = _tok(self._pos) if saux is None else "s%d_x%d_fake" % (self._pos, self._aux)
        resp = {"next_batch": nb,
                "rooms": {"join": join, "invite": invite, "leave": leave,
                          "knock": {}},
                "account_data": {"events": ad},
                "presence": {"events": []},
                "to_device": {"events": td},
                "device_lists": {"changed": changed, "left": []},
                "device_one_time_keys_count": {
                    "signed_curve25519": len(self._otks.get((uid, who.device),
                                                            []))},
                "device_unused_fallback_key_types":
                    ["signed_curve25519"] if fb and not fb[2] else []}
        return resp, nonempty


# ----------------------------------------------------------------------
# self-test
class _Client:
    def __init__(self, fake):
        self.fake = fake
        self.token = None

    def req(self, method, path, body=None, token=None, query=None,
            timeout=10, raw=None):
        import urllib.request
        import urllib.error
        url = self.fake.url + (path if path.startswith("/_matrix")
                               else PREFIX_V3 + path)
        if query:
            url += "?" + urllib.parse.urlencode(query)
        data = raw if raw is not None else (
            json.dumps(body).encode() if body is not None else None)
        rq = urllib.request.Request(url, data=data, method=method)
        tok = token if token is not None else self.token
        if tok:
            rq.add_header("Authorization", "Bearer " + tok)
        if data is not None:
            rq.add_header("Content-Type", "application/json")
        try:
            with urllib.request.urlopen(rq, timeout=timeout) as r:
                b = r.read()
                return r.status, dict(r.headers), json.loads(b) if b else None
        except urllib.error.HTTPError as e:
            b = e.read()
            try:
                j = json.loads(b)
            except Exception:
                j = b.decode()
            return e.code, dict(e.headers), j


def _q(s):
    return urllib.parse.quote(s, safe="")


def _selftest():
    def check(cond, what):
        if not cond:
            raise AssertionError(what)

    fake = FakeMatrix().start()
    try:
        c = _Client(fake)
        check(fake.url.startswith("http://127.0.0.1:"), "url")
        check(fake.env()["MATRIX_PASSWORD"] == "pw", "env")
        st, _, j = c.req("GET", "/_matrix/client/versions")
        check(st == 200 and "v1.9" in j["versions"], "versions %r" % (j,))
        st, _, j = c.req("GET", "/sync")
        check(st == 401 and j["errcode"] == "M_MISSING_TOKEN", "no token")
        st, _, j = c.req("GET", "/sync", token="nope")
        check(st == 401 and j["errcode"] == "M_UNKNOWN_TOKEN", "bad token")
        login = {"type": "m.login.password",
                 "identifier": {"type": "m.id.user", "user": "tabula"},
                 "password": "bad"}
        st, _, j = c.req("POST", "/login", login)
        check(st == 403 and j["errcode"] == "M_FORBIDDEN", "bad password")
        login["password"] = "pw"
        st, _, j = c.req("POST", "/login", login)
        check(st == 200 and j["user_id"] == fake.bot_user, "login %r" % j)
        dev = j["device_id"]
        tok1 = j["access_token"]
        login["device_id"] = dev
        st, _, j = c.req("POST", "/login", login)
        check(st == 200 and j["device_id"] == dev and
              j["access_token"] != tok1, "login with device id reuse")
        c.token = j["access_token"]
        check(fake.device_ids == [dev] and fake.logins == [dev, dev] and
              len(fake.login_attempts) == 3, "device ids %r" % fake.logins)
        check(tok1 in fake.issued_tokens(), "issued_tokens")
        st, _, j = c.req("GET", "/account/whoami")
        check(st == 200 and j == {"user_id": fake.bot_user, "device_id": dev,
                                  "is_guest": False}, "whoami %r" % j)

        # initial sync with an old room the bot is already in
        alice = fake.register_user("alice", "Alice")
        bob = fake.register_user("bob", "Bob")
        old = fake.create_room(alice, name="Old", members=[bob])
        fake.join(fake.bot_user, old)
        fake.say(alice, old, "!game old")
        flt = json.dumps({"room": {"timeline": {"limit": 5}}})
        st, _, j = c.req("GET", "/sync", query={"filter": flt,
                                                "timeout": "0"})
        check(st == 200 and old in j["rooms"]["join"], "initial sync")
        jr = j["rooms"]["join"][old]
        bodies = [e["content"].get("body") for e in jr["timeline"]["events"]]
        check("!game old" in bodies, "initial timeline has the old message")
        check(jr["timeline"]["limited"] is True and
              jr["timeline"]["prev_batch"], "initial limited")
        check(any(e["type"] == "m.room.member" and
                  e["state_key"] == alice for e in jr["state"]["events"] +
                  jr["timeline"]["events"]), "alice member in state")
        nb0 = j["next_batch"]
        # the same since twice gives the same answer
        st, _, j1 = c.req("GET", "/sync", query={"since": nb0, "timeout": 0,
                                                 "filter": flt})
        check(st == 200 and j1["rooms"]["join"] == {}, "empty incremental")
        check(j1["next_batch"] == nb0, "next_batch stable when idle")

        # invite via createRoom (the bot) and via a user
        st, _, j = c.req("POST", "/createRoom",
                         {"preset": "trusted_private_chat",
                          "is_direct": True, "invite": [bob]})
        check(st == 200, "createRoom")
        dm = j["room_id"]
        check(fake.dm_room(bob) == dm, "dm_room")
        check(fake.membership(bob, dm) == "invite", "bob invited")
        mrec = fake._rooms[dm].member_rec(bob)
        check(mrec.ev["content"].get("is_direct") is True, "is_direct")
        fake.accept_invite(bob, dm)
        room = fake.create_room(alice, name="Games", members=[bob])
        fake.invite_bot(room, alice, is_direct=False)
        st, _, j = c.req("GET", "/sync", query={"since": nb0, "timeout": 0,
                                                "filter": flt})
        inv = j["rooms"]["invite"].get(room)
        check(inv is not None, "invite in sync %r" % j["rooms"])
        evs = inv["invite_state"]["events"]
        check(any(e["type"] == "m.room.name" and e["content"]["name"] ==
                  "Games" for e in evs), "room name in invite_state")
        check(any(e["type"] == "m.room.member" and
                  e["state_key"] == fake.bot_user and e["sender"] == alice
                  and e["content"]["membership"] == "invite"
                  for e in evs), "invite member event")
        check(dm in j["rooms"]["join"], "created dm room in join")
        nb1 = j["next_batch"]
        st, _, j = c.req("POST", "/join/" + _q(room))
        check(st == 200 and j["room_id"] == room, "join")
        st, _, j = c.req("POST", "/join/" + _q(old + "x"))
        check(st == 404, "join unknown room")
        st, _, j = c.req("GET", "/sync", query={"since": nb1, "timeout": 0,
                                                "filter": flt})
        jr = j["rooms"]["join"][room]
        check(any(e["type"] == "m.room.member" and e["state_key"] == bob
                  for e in jr["state"]["events"]), "full state on join")
        nb2 = j["next_batch"]

        # say -> incremental sync
        e1 = fake.say(alice, room, "!game new fortuna")
        st, _, j = c.req("GET", "/sync", query={"since": nb2, "timeout": 5000,
                                                "filter": flt})
        tl = j["rooms"]["join"][room]["timeline"]
        check([e["event_id"] for e in tl["events"]] == [e1] and
              not tl["limited"], "incremental sees the message")
        check(j["rooms"]["join"][room]["state"]["events"] == [],
              "no state in plain incremental")
        st, _, jagain = c.req("GET", "/sync", query={"since": nb2,
                                                     "filter": flt})
        check([e["event_id"] for e in jagain["rooms"]["join"][room]
               ["timeline"]["events"]] == [e1], "same since, same events")
        nb3 = j["next_batch"]
        # redeliver: the same event (id and content) in a later sync
        fake.redeliver(e1)
        st, _, jr = c.req("GET", "/sync", query={"since": nb3, "timeout": 0,
                                                 "filter": flt})
        again = jr["rooms"]["join"][room]["timeline"]["events"]
        check([e["event_id"] for e in again] == [e1] and
              again[0]["content"] == tl["events"][0]["content"] and
              fake.redelivered[-1].event_id == e1, "redeliver")
        nb3 = jr["next_batch"]

        # long-poll wakes on a new event
        box = {}

        def poll():
            t0 = time.monotonic()
            box["r"] = c.req("GET", "/sync", query={"since": nb3,
                                                    "timeout": 10000,
                                                    "filter": flt})
            box["dt"] = time.monotonic() - t0
        th = threading.Thread(target=poll)
        th.start()
        time.sleep(0.4)
        check("r" not in box, "long-poll returned early")
        e2 = fake.say(bob, room, "!game join")
        th.join(5)
        check("r" in box and box["dt"] < 3, "long-poll woke")
        j = box["r"][2]
        check([e["event_id"] for e in j["rooms"]["join"][room]["timeline"]
               ["events"]] == [e2], "long-poll content")
        nb4 = j["next_batch"]
        t0 = time.monotonic()
        st, _, j = c.req("GET", "/sync", query={"since": nb4, "timeout": 300,
                                                "filter": flt})
        dt = time.monotonic() - t0
        check(0.25 < dt < 2 and j["rooms"]["join"] == {} and
              j["next_batch"], "long-poll timeout %.2f" % dt)
        fake.wait_caught_up(2)

        # send + txnId idempotency
        msg = {"msgtype": "m.notice", "body": "hi Alice",
               "format": HTML_FORMAT,
               "formatted_body": '<a href="https://matrix.to/#/%s">Alice</a>'
               % alice, "m.mentions": {"user_ids": [alice]}}
        path = "/rooms/%s/send/m.room.message/t1" % _q(room)
        st, _, j = c.req("PUT", path, msg)
        check(st == 200, "send %r" % (j,))
        eid = j["event_id"]
        st, _, j = c.req("PUT", path, msg)
        check(st == 200 and j["event_id"] == eid, "txn idempotent")
        check(len(fake.dedups) == 1 and len(fake.bot_messages(room)) == 1,
              "one event, one dedup")
        check(fake.violations == [], "clean send: %r" % fake.violations)
        # the bench's helpers: sends per room, when a /sync carried an event
        ss = fake.sends_to(room)
        check(len(ss) == 2 and ss[0].t_arrival <= ss[0].t and
              ss[0].t_sent is not None and
              fake.sends_to(room, ss[1].t_arrival) == [], "sends_to")
        d = fake.sync_delivery(fake.event_pos(e1))
        check(d is not None and d.since_pos == _parse_tok(nb2) and
              d.user == fake.bot_user, "sync_delivery %r" % (d,))
        check(fake.sync_delivery(fake.stream_pos + 1) is None,
              "no delivery beyond the stream")
        st, _, j = c.req("GET", "/sync", query={"since": nb4, "filter": flt})
        ev = j["rooms"]["join"][room]["timeline"]["events"][0]
        check(ev["unsigned"].get("transaction_id") == "t1", "echo txn id")
        # edit
        edit = {"msgtype": "m.notice", "body": "* hi again",
                "m.new_content": {"msgtype": "m.notice", "body": "hi again",
                                  "m.mentions": {}},
                "m.relates_to": {"rel_type": "m.replace", "event_id": eid},
                "m.mentions": {}}
        st, _, j = c.req("PUT", "/rooms/%s/send/m.room.message/t2" % _q(room),
                         edit)
        check(st == 200, "edit")
        check(fake.bot_messages(room)[0]["body"] == "hi again",
              "edit applied %r" % fake.bot_messages(room))
        check(fake.wait_bot_message(room, lambda c: "again" in c["body"],
                                    1)["body"] == "hi again", "wait msg")
        check("hi Alice" in fake.all_room_texts(room), "all_room_texts")
        check(fake.violations == [], "clean edit: %r" % fake.violations)
        # lost response: retry with the same txnId gets the same event
        fake.lose_response_next("PUT", r"/send/.*/t3$")
        m3 = dict(msg, body="third")
        p3 = "/rooms/%s/send/m.room.message/t3" % _q(room)
        try:
            c.req("PUT", p3, m3, timeout=3)
            check(False, "lost response answered")
        except AssertionError:
            raise
        except Exception:
            pass
        st, _, j = c.req("PUT", p3, m3)
        check(st == 200 and len(fake.bot_messages(room)) == 2 and
              len(fake.dedups) == 2, "lost response + retry dedups")

        # not joined -> 403
        other = fake.create_room(alice)
        st, _, j = c.req("PUT", "/rooms/%s/send/m.room.message/x" %
                         _q(other), msg)
        check(st == 403 and j["errcode"] == "M_FORBIDDEN", "not joined")

        # 429 knob
        fake.fail_next("PUT", r"/send/", 429, retry_after_ms=300,
                       header=True)
        p4 = "/rooms/%s/send/m.room.message/t4" % _q(room)
        st, h, j = c.req("PUT", p4, dict(msg, body="four"))
        check(st == 429 and j["errcode"] == "M_LIMIT_EXCEEDED" and
              j["retry_after_ms"] == 300 and h.get("Retry-After") == "1",
              "429 %r %r" % (j, h))
        st, _, j = c.req("PUT", p4, dict(msg, body="four"))
        check(st == 200, "retry after 429")
        check(len(fake.violations) == 1 and "retried" in
              fake.violations[0], "early retry flagged %r" % fake.violations)
        fake.violations.clear()
        fake.fail_next("PUT", r"/send/", 429, retry_after_ms=200)
        p5 = "/rooms/%s/send/m.room.message/t5" % _q(room)
        st, h, j = c.req("PUT", p5, dict(msg, body="five"))
        check(st == 429 and "Retry-After" not in h, "429 no header")
        time.sleep(0.25)
        st, _, j = c.req("PUT", p5, dict(msg, body="five"))
        check(st == 200 and fake.violations == [], "patient retry ok")
        check(len(fake.faults_fired) == 3, "faults_fired %r" %
              fake.faults_fired)
        # 502 knob
        fake.fail_next("GET", r"^/sync$", 502)
        st, _, j = c.req("GET", "/sync", query={"since": nb4, "timeout": 0})
        check(st == 502 and j == "bad gateway", "502")

        # limited timeline + prev_batch + /messages backfill
        st, _, j = c.req("GET", "/sync", query={"since": nb4, "filter": flt})
        nb5 = j["next_batch"]
        ids = [fake.say(alice, room, "m%d" % i) for i in range(8)]
        st, _, j = c.req("GET", "/sync", query={"since": nb5, "filter": flt})
        tl = j["rooms"]["join"][room]["timeline"]
        check(tl["limited"] is True and
              [e["event_id"] for e in tl["events"]] == ids[-5:],
              "limited timeline")
        st, _, j = c.req("GET", "/rooms/%s/messages" % _q(room),
                         query={"from": tl["prev_batch"], "dir": "b",
                                "limit": 3, "to": nb5})
        check(st == 200 and [e["event_id"] for e in j["chunk"]] ==
              list(reversed(ids[:3])) and "end" not in j,
              "backfill %r" % [e.get("content") for e in j["chunk"]])
        st, _, j = c.req("GET", "/rooms/%s/messages" % _q(room),
                         query={"from": tl["prev_batch"], "dir": "b",
                                "limit": 2})
        check(len(j["chunk"]) == 2 and "end" in j, "backfill paging")

        # m.direct
        adp = "/user/%s/account_data/m.direct" % _q(fake.bot_user)
        st, _, j = c.req("GET", adp)
        check(st == 404 and j["errcode"] == "M_NOT_FOUND", "m.direct unset")
        st, _, j = c.req("PUT", adp, {bob: [dm]})
        check(st == 200, "put m.direct")
        st, _, j = c.req("GET", adp)
        check(st == 200 and j == {bob: [dm]}, "get m.direct")
        check(fake.account_data(fake.bot_user) == {bob: [dm]}, "ad api")
        st, _, j = c.req("GET", "/sync", query={"since": nb5, "filter": flt})
        check({"type": "m.direct", "content": {bob: [dm]}} in
              j["account_data"]["events"], "m.direct in sync")
        nb6 = j["next_batch"]
        st, _, j = c.req("GET", "/sync", query={"since": nb6, "filter": flt})
        check(j["account_data"]["events"] == [], "m.direct only once")
        st, _, j = c.req("GET", "/rooms/%s/joined_members" % _q(room))
        check(j["joined"][alice]["display_name"] == "Alice", "joined_members")
        check(set(fake.joined_members(room)) == {alice, bob, fake.bot_user},
              "joined_members api")
        eve = fake.register_user("eve", "Eve", server="elsewhere.test")
        check(eve == "@eve:elsewhere.test", "register on another server")
        st, _, j = c.req("GET", "/rooms/%s/state" % _q(room))
        check(any(e["type"] == "m.room.name" for e in j), "state")
        st, _, j = c.req("GET", "/profile/%s/displayname" % _q(bob))
        check(j == {"displayname": "Bob"}, "profile")
        fake.set_displayname(bob, room, "Bobby")
        st, _, j = c.req("GET", "/rooms/%s/joined_members" % _q(room))
        check(j["joined"][bob]["display_name"] == "Bobby", "renamed")

        # violations
        bad = [("no m.mentions", {"msgtype": "m.notice", "body": "x"},
                "m.mentions missing"),
               ("m.text", {"msgtype": "m.text", "body": "x",
                           "m.mentions": {}}, "msgtype 'm.text'"),
               ("html", {"msgtype": "m.notice", "body": "x",
                         "format": HTML_FORMAT, "m.mentions": {},
                         "formatted_body": "<script>x</script><a href="
                         "'http://evil'>e</a>"}, "<script")]
        for i, (what, content, want) in enumerate(bad):
            fake.violations.clear()
            st, _, j = c.req("PUT", "/rooms/%s/send/m.room.message/v%d" %
                             (_q(room), i), content)
            check(st == 200 and any(want in v for v in fake.violations),
                  "violation for %s: %r" % (what, fake.violations))
        check(any("http://evil" in v for v in fake.violations), "href")
        fake.violations.clear()
        big = {"msgtype": "m.notice", "body": "x" * 70000, "m.mentions": {}}
        st, _, j = c.req("PUT", "/rooms/%s/send/m.room.message/big" %
                         _q(room), big)
        check(st == 413 and j["errcode"] == "M_TOO_LARGE" and
              any("too large" in v for v in fake.violations), "oversize")
        fake.violations.clear()

        # expire_token -> 401, login again works
        fake.expire_token()
        st, _, j = c.req("GET", "/account/whoami")
        check(st == 401 and j["errcode"] == "M_UNKNOWN_TOKEN" and
              j["soft_logout"] is False, "expired token %r" % j)
        st, _, j = c.req("POST", "/login", login)
        c.token = j["access_token"]
        st, _, j = c.req("GET", "/account/whoami")
        check(st == 200 and j["device_id"] == dev, "relogin")
        # the txn dedup survives a re-login with the same device
        st, _, j = c.req("PUT", path, msg)
        check(st == 200 and j["event_id"] == eid, "dedup across logins")

        # hide_pre_join_events: a fresh join's timeline starts at the join
        r3 = fake.create_room(alice, members=[bob])
        fake.invite_bot(r3, alice)
        st, _, j = c.req("GET", "/sync", query={"since": nb6, "filter": flt})
        check(r3 in j["rooms"]["invite"], "r3 invite")
        nb7 = j["next_batch"]
        fake.say(alice, r3, "before the join")
        st, _, j = c.req("POST", "/rooms/%s/join" % _q(r3))
        check(st == 200, "join r3")
        st, _, j = c.req("GET", "/sync", query={"since": nb7, "filter": flt})
        tl = j["rooms"]["join"][r3]["timeline"]["events"]
        check(tl[0]["content"].get("body") == "before the join",
              "default: pre-join message visible")
        fake.hide_pre_join_events = True
        st, _, j = c.req("GET", "/sync", query={"since": nb7, "filter": flt})
        tl = j["rooms"]["join"][r3]["timeline"]["events"]
        check(len(tl) == 1 and tl[0]["state_key"] == fake.bot_user,
              "hide_pre_join_events")
        check(any(e["state_key"] == alice for e in
                  j["rooms"]["join"][r3]["state"]["events"]),
              "state still full")
        fake.hide_pre_join_events = False

        # leave: rooms.leave
        st, _, j = c.req("POST", "/rooms/%s/leave" % _q(old))
        check(st == 200, "leave")
        st, _, j = c.req("GET", "/sync", query={"since": nb6, "filter": flt})
        check(old in j["rooms"]["leave"] and old not in j["rooms"]["join"],
              "rooms.leave")
        check(old not in fake.bot_rooms() and room in fake.bot_rooms(),
              "bot_rooms")
        # end-to-end encryption: keys, claims, to-device messages
        st, _, j = c.req("GET", "/sync", query={"filter": flt, "timeout": 0})
        nb8 = j["next_batch"]

        def dkeys(user, d, curve="C"):
            return {"user_id": user, "device_id": d, "algorithms": [],
                    "keys": {"curve25519:" + d: curve, "ed25519:" + d: "E"},
                    "signatures": {user: {"ed25519:" + d: "S"}}}
        otk = {"key": "k1", "signatures": {}}
        st, _, j = c.req("POST", "/keys/upload", {
            "device_keys": dkeys(fake.bot_user, dev),
            "one_time_keys": {"signed_curve25519:A": otk},
            "fallback_keys": {"signed_curve25519:F": {"key": "f", "fallback": True,
                                                      "signatures": {}}}})
        check(st == 200 and j["one_time_key_counts"]["signed_curve25519"] == 1,
              "keys upload %r" % (j,))
        check(fake.bot_device()[0] == dev, "bot_device")
        st, _, j = c.req("POST", "/keys/upload",
                         {"device_keys": dkeys(fake.bot_user, dev, "other")})
        check(st == 400 and any("device keys changed" in v for v in
                                fake.violations), "changed device keys")
        fake.violations.clear()
        fake.upload_keys(bob, "BOBDEV", {"device_keys": dkeys(bob, "BOBDEV"),
                                         "one_time_keys": {"signed_curve25519:B": otk}})
        st, _, j = c.req("POST", "/keys/query", {"device_keys": {bob: []}})
        check(st == 200 and "BOBDEV" in j["device_keys"][bob], "query %r" % j)
        claim = {"one_time_keys": {fake.bot_user: {dev: "signed_curve25519"}}}
        st, _, j = c.req("POST", "/keys/claim", claim)
        check(j["one_time_keys"][fake.bot_user][dev] == {"signed_curve25519:A": otk},
              "claim %r" % j)
        st, _, j = c.req("POST", "/keys/claim", claim)
        check("signed_curve25519:F" in j["one_time_keys"][fake.bot_user][dev],
              "fallback claim %r" % j)
        enc = {"algorithm": "m.olm.v1.curve25519-aes-sha2", "sender_key": "C",
               "ciphertext": {}}
        st, _, j = c.req("PUT", "/sendToDevice/m.room.encrypted/td1",
                         {"messages": {bob: {"BOBDEV": enc}}})
        check(st == 200 and fake.to_device_for(bob, "BOBDEV")[0].content == enc,
              "to-device to bob")
        c.req("PUT", "/sendToDevice/m.room_key/td2", {"messages": {bob: {"*": {}}}})
        check(any("in clear" in v for v in fake.violations), "plain room key")
        fake.violations.clear()
        fake.send_to_device(bob, "BOBDEV", "m.room.encrypted",
                            {fake.bot_user: {dev: enc}})
        st, _, j = c.req("GET", "/sync", query={"since": nb8, "timeout": 0,
                                                "filter": flt})
        check(j["to_device"]["events"] == [{"type": "m.room.encrypted",
                                            "sender": bob, "content": enc}],
              "to-device in sync %r" % j["to_device"])
        check(fake.bot_user in j["device_lists"]["changed"], "device_lists")
        check(j["device_one_time_keys_count"] == {"signed_curve25519": 0} and
              j["device_unused_fallback_key_types"] == [], "key counts")
        nb9 = j["next_batch"]
        # cross-signing: keys uploaded, signatures added, both in /keys/query
        # (user-signing keys only for the asker's own user)

        def xkey(user, usage, pub, signer=None):
            k = {"user_id": user, "usage": [usage], "keys": {"ed25519:" + pub: pub}}
            if signer:
                k["signatures"] = {user: {"ed25519:" + signer: "sig"}}
            return k
        st, _, j = c.req("POST", "/keys/device_signing/upload", {
            "self_signing_key": xkey(fake.bot_user, "self_signing", "S", "M")})
        check(st == 400, "a self-signing key without a master key")
        st, _, j = c.req("POST", "/keys/device_signing/upload", {
            "master_key": xkey(fake.bot_user, "master", "M"),
            "self_signing_key": xkey(fake.bot_user, "self_signing", "S", "X")})
        check(st == 400, "a self-signing key the master did not sign")
        st, _, j = c.req("POST", "/keys/device_signing/upload", {
            "master_key": xkey(fake.bot_user, "master", "M"),
            "self_signing_key": xkey(fake.bot_user, "self_signing", "S", "M"),
            "user_signing_key": xkey(fake.bot_user, "user_signing", "U", "M")})
        check(st == 200, "cross-signing upload %r" % (j,))
        signed = dict(dkeys(fake.bot_user, dev),
                      signatures={fake.bot_user: {"ed25519:S": "devsig"}})
        st, _, j = c.req("POST", "/keys/signatures/upload",
                         {fake.bot_user: {dev: signed, "NOPE": signed}})
        check(st == 200 and list(j["failures"][fake.bot_user]) == ["NOPE"],
              "signatures upload %r" % (j,))
        fake.upload_cross_signing(bob, {
            "master_key": xkey(bob, "master", "BM"),
            "self_signing_key": xkey(bob, "self_signing", "BS", "BM"),
            "user_signing_key": xkey(bob, "user_signing", "BU", "BM")})
        st, _, j = c.req("POST", "/keys/query",
                         {"device_keys": {fake.bot_user: [], bob: []}})
        sigs = j["device_keys"][fake.bot_user][dev]["signatures"][fake.bot_user]
        check(sigs == {"ed25519:" + dev: "S", "ed25519:S": "devsig"}, "sigs %r" % sigs)
        check(set(j["master_keys"]) == {fake.bot_user, bob} and
              set(j["self_signing_keys"]) == {fake.bot_user, bob} and
              set(j["user_signing_keys"]) == {fake.bot_user}, "xsign query %r" % j)
        # the homeserver's own device on bob's account, named, announced
        fake.homeserver_adds_device(bob, "EVIL", {"device_keys": dkeys(bob, "EVIL")},
                                    name="Bob's phone")
        check(fake.homeserver_devices[-1].device == "EVIL", "homeserver_devices")
        st, _, j = c.req("POST", "/keys/query", {"device_keys": {bob: []}})
        check(j["device_keys"][bob]["EVIL"]["unsigned"] ==
              {"device_display_name": "Bob's phone"}, "device name %r" % j)
        st, _, j = c.req("GET", "/sync", query={"since": nb9, "timeout": 0,
                                                "filter": flt})
        check(bob in j["device_lists"]["changed"] and
              fake.bot_user in j["device_lists"]["changed"], "xsign changes %r" % j)
        fake.wait_synced(fake.sync_count, 1)
        try:
            fake.wait_synced(10 ** 6, 0.2)
            check(False, "wait_synced should time out")
        except AssertionError as e:
            check("timeout" in str(e), "timeout message")
        check(all(r.status is not None for r in fake.requests),
              "every request has a status")
        check(fake.violations == [], "violations: %r" % fake.violations)
        # an encrypted attachment opens with its file object, and only then
        png = pngread.make_png(3, 2, text="x")
        # (a key whose base64 has "+" and "/": base64url differs)
        key, iv = bytes(range(224, 256)), os.urandom(8) + bytes(8)
        e = Cipher(algorithms.AES(key), modes.CTR(iv)).encryptor()
        ct = e.update(png) + e.finalize()

        def b64(b, url=False):
            f = base64.urlsafe_b64encode if url else base64.b64encode
            return f(b).decode().rstrip("=")
        good = {"v": "v2", "url": "mxc://x/y", "iv": b64(iv),
                "key": {"kty": "oct", "key_ops": ["encrypt", "decrypt"], "alg": "A256CTR",
                        "k": b64(key, True), "ext": True},
                "hashes": {"sha256": b64(hashlib.sha256(ct).digest())}}
        check(decrypt_attachment(good, ct) == png, "attachment round trip")
        for bad in (dict(good, v="v1"), dict(good, iv=b64(os.urandom(16))),
                    dict(good, hashes={"sha256": b64(hashlib.sha256(png).digest())}),
                    dict(good, key=dict(good["key"], k=base64.b64encode(key).decode())),
                    dict(good, key=dict(good["key"], alg="A128CTR"))):
            try:
                decrypt_attachment(bad, ct)
                check(False, "a bad file object opened: %r" % (bad,))
            except ValueError:
                pass
        _selftest_clients(fake, c, check)
    finally:
        fake.stop()
    print("selftest: ok")


def _selftest_clients(fake, c, check):
    """A test user's own client over HTTP (c is the bot's): its sync
    tokens carry the to-device position, the bot's stream does not move
    for it; caught-up; media downloads."""
    import urllib.request
    carol = fake.register_user("carol", "Carol", password="cpw")
    cc = _Client(fake)
    st, _, j = cc.req("POST", "/login", {"type": "m.login.password", "password": "cpw",
                                         "identifier": {"type": "m.id.user", "user": "carol"},
                                         "device_id": "CAROLDEV"})
    check(st == 200 and j["device_id"] == "CAROLDEV", "client login %r" % (j,))
    cc.token = j["access_token"]
    check("CAROLDEV" not in fake.logins, "a client's login is not the bot's")
    st, _, j = cc.req("GET", "/sync", query={"timeout": 0})
    nb = j["next_batch"]
    check(_AUX_RE.match(nb) and _parse_tok(nb) == fake.stream_pos, "client token %r" % nb)
    pos, since = fake.stream_pos, fake._max_since
    enc = {"algorithm": "m.olm.v1.curve25519-aes-sha2", "sender_key": "C", "ciphertext": {}}
    st, _, _ = c.req("PUT", "/sendToDevice/m.room.encrypted/td9",
                     {"messages": {carol: {"CAROLDEV": enc}}})
    check(fake.stream_pos == pos, "a to-device message to a client moved the bot's stream")
    st, _, j = cc.req("GET", "/sync", query={"since": nb, "timeout": 5000})
    check([e["content"] for e in j["to_device"]["events"]] == [enc],
          "client to-device %r" % (j["to_device"],))
    check(fake._max_since == since, "a client's sync counted as the bot's")
    nb2 = j["next_batch"]
    st, _, j = cc.req("GET", "/sync", query={"since": nb2, "timeout": 0})
    check(j["to_device"]["events"] == [], "to-device acknowledged")
    fake.wait_client_caught_up(carol, "CAROLDEV", timeout=5)
    # media download, authenticated and legacy
    with fake._lock:
        fake.media["mxc://fake.test/dl1"] = Rec(data=b"\x00cipher", ctype="application/octet-stream",
                                                user=fake.bot_user, info=None, encrypted=True)
    for path, tok in (("/_matrix/client/v1/media/download/fake.test/dl1", cc.token),
                      ("/_matrix/media/v3/download/fake.test/dl1", None)):
        rq = urllib.request.Request(fake.url + path)
        if tok:
            rq.add_header("Authorization", "Bearer " + tok)
        with urllib.request.urlopen(rq, timeout=5) as r:
            check(r.read() == b"\x00cipher", "download %s" % path)
    st, _, _ = cc.req("GET", "/_matrix/client/v1/media/download/fake.test/dl1", token="")
    check(st == 401, "an authenticated download without a token")
    check(fake.violations == [], "violations: %r" % fake.violations)


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
        fake = FakeMatrix().start()
        print(json.dumps(fake.env()), flush=True)
        try:
            while True:
                time.sleep(3600)
        except KeyboardInterrupt:
            fake.stop()
        return 0
    print("usage: fake_matrix.py --selftest | --serve")
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
