"""A Matrix client's end-to-end encryption for the integration tests, with
Debian's python3-olm (libolm's own bindings): the players' devices talk to
the bot through the fake homeserver (tests/fakes/fake_matrix.py) as
Element does, over Olm (to-device messages) and Megolm (room messages).

    e2e = E2E(fake)             # every user registered from now on gets a
                                # device; fake.say() encrypts in encrypted
                                # rooms; the fake's views decrypt
    dev = e2e.device(ana)       # Ana's device (made when she registered)
    phone = e2e.add_device(ana) # a second device of hers
    dev.send(room, "!play 1")   # an encrypted command
    eid = dev.send(room, "!game status", share=False)   # key withheld ...
    dev.share(room)             # ... and sent later
    dev.decrypt(room, event)    # what this device can read (None: nothing)
    xs = e2e.cross_signing(ana) # Ana's master, self-signing and user-signing
                                # keys, published; her devices signed
    xs.sign(phone)              # a later device verified (Element: "verify
                                # this session" from another one)
    evil = e2e.homeserver_device(ana)   # the homeserver's own device on
                                # Ana's account: self-signed, not cross-signed

What a hostile homeserver or room member sends the bot:

    evil = e2e.rogue_device(ana)            # an Olm device claiming to be Ana's
                                            # that her device list does not show
    evil.send_key_to_bot(room, sid, key)    # an m.room_key over Olm, from it
    evil.send_key_to_bot(room, sid, key, forwarded=(curve, ed))
                                            # an m.forwarded_room_key
    evil.send_as(room, "!game abort", ana)  # an event "from" Ana under its key

python3-olm installs into the system Python's dist-packages; the test
scripts may run under another python3 of the same version (pyenv): the
path is added when `import olm` fails at first.

Every method takes the fake's lock: the fake calls the decryptor and the
encryptor from its own threads, and libolm objects are not thread-safe.
"""
import json
import os
import sys

try:
    import olm
except ImportError:
    sys.path.append("/usr/lib/python3/dist-packages")
    import olm  # noqa: E402

MEGOLM = "m.megolm.v1.aes-sha2"
OLM = "m.olm.v1.curve25519-aes-sha2"


def canonical(obj):
    """Matrix canonical JSON of obj without signatures and unsigned."""
    o = {k: v for k, v in obj.items() if k not in ("signatures", "unsigned")}
    return json.dumps(o, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


def verify(obj, user, key_id, key):
    """Whether obj is signed by key (ed25519) as user's key_id."""
    sig = (obj.get("signatures") or {}).get(user, {}).get(key_id)
    if not sig:
        return False
    try:
        olm.ed25519_verify(key, canonical(obj), sig)
        return True
    except olm.utility.OlmVerifyError:
        return False


class Device:
    """One device of a test user: an Olm account, its sessions, the room
    keys it received (inbound Megolm) and the ones it sends with."""

    def __init__(self, e2e, user, device_id, name=None, homeserver=False, publish=True):
        self.e2e = e2e
        self.fake = e2e.fake
        self.user = user
        self.id = device_id
        self.name = name            # its display name (unsigned), or None
        self.homeserver = homeserver    # added by the homeserver, no login
        self.acct = olm.Account()
        self.curve = self.acct.identity_keys["curve25519"]
        self.ed = self.acct.identity_keys["ed25519"]
        self.olm = {}           # their curve key -> [olm Session]
        self.inbound = {}       # (room, session id) -> (InboundGroupSession, sender key)
        self.keys_from = []     # the m.room_key payloads received, in order
        self.outbound = {}      # room -> OutboundGroupSession
        self.first_key = {}     # room -> its session key at index 0
        self.shared = {}        # room -> {(user, device)} holding our key
        self.seen = 0           # the last to-device seq read
        if publish:
            self.upload()

    def sign(self, obj):
        obj.setdefault("signatures", {}).setdefault(self.user, {})[
            "ed25519:" + self.id] = self.acct.sign(canonical(obj))
        return obj

    def upload(self, otks=20):
        dk = self.sign({"user_id": self.user, "device_id": self.id,
                        "algorithms": [OLM, MEGOLM],
                        "keys": {"curve25519:" + self.id: self.curve,
                                 "ed25519:" + self.id: self.ed}})
        self.acct.generate_one_time_keys(otks)
        keys = {"signed_curve25519:" + kid: self.sign({"key": k})
                for kid, k in self.acct.one_time_keys["curve25519"].items()}
        self.acct.generate_fallback_key()
        fb = {"signed_curve25519:" + kid: self.sign({"key": k, "fallback": True})
              for kid, k in self.acct.fallback_key["curve25519"].items()}
        self.acct.mark_keys_as_published()
        body = {"device_keys": dk, "one_time_keys": keys, "fallback_keys": fb}
        if self.homeserver:
            self.fake.homeserver_adds_device(self.user, self.id, body, self.name)
            return
        if self.name is not None:
            with self.fake._lock:
                self.fake._device_names[(self.user, self.id)] = self.name
        self.fake.upload_keys(self.user, self.id, body)

    def device_keys(self):
        """This device's keys as the homeserver holds them (signatures
        added since included)."""
        return self.fake.query_keys([self.user])["device_keys"][self.user][self.id]

    # -- receiving ----------------------------------------------------
    def _olm_decrypt(self, sender_key, msg):
        sessions = self.olm.setdefault(sender_key, [])
        if msg["type"] == 0:
            pre = olm.OlmPreKeyMessage(msg["body"])
            for s in sessions:
                if s.matches(pre, sender_key):
                    return s.decrypt(pre)
            s = olm.InboundSession(self.acct, pre, sender_key)
            self.acct.remove_one_time_keys(s)
            sessions.insert(0, s)
            return s.decrypt(pre)
        m = olm.OlmMessage(msg["body"])
        for s in sessions:
            try:
                return s.decrypt(m)
            except olm.session.OlmSessionError:
                continue
        raise ValueError("no Olm session decrypts it")

    def poll(self):
        """Reads the to-device messages sent to this device: room keys."""
        with self.fake._lock:
            for m in self.fake.to_device_for(self.user, self.id, self.seen):
                self.seen = m.seq
                c = m.content
                mine = (c.get("ciphertext") or {}).get(self.curve)
                if m.type != "m.room.encrypted" or c.get("algorithm") != OLM or not mine:
                    continue
                p = json.loads(self._olm_decrypt(c["sender_key"], mine))
                assert p["recipient"] == self.user and p["sender"] == m.sender, p
                assert p["recipient_keys"]["ed25519"] == self.ed, p
                if p["type"] == "m.room_key":
                    k = p["content"]
                    assert k["algorithm"] == MEGOLM, k
                    self.keys_from.append(dict(k, sender=p["sender"], pos=m.pos,
                                               session_key=None))
                    s = olm.InboundGroupSession(k["session_key"])
                    assert s.id == k["session_id"]
                    self.inbound[(k["room_id"], k["session_id"])] = (s, c["sender_key"])

    def decrypt(self, room, ev):
        """The payload of an m.room.encrypted event ({type, content,
        room_id}) if this device holds its key, else None."""
        with self.fake._lock:
            c = ev["content"]
            key = (room, c.get("session_id"))
            if key not in self.inbound:
                self.poll()
            if key not in self.inbound:
                return None
            s, sender_key = self.inbound[key]
            if c.get("sender_key") and c["sender_key"] != sender_key:
                return None
            try:
                text, _ = s.decrypt(c["ciphertext"])
            except olm.group_session.OlmGroupSessionError:
                return None
            return json.loads(text)

    def can_read(self, room, session_id):
        with self.fake._lock:
            self.poll()
            return (room, session_id) in self.inbound

    # -- sending ------------------------------------------------------
    def _session_to(self, user, dev, keys):
        curve = keys["keys"]["curve25519:" + dev]
        sessions = self.olm.setdefault(curve, [])
        if sessions:
            return curve, sessions[0]
        got = self.fake.claim_key(user, dev)
        assert got, "no one-time key for %s %s" % (user, dev)
        assert verify(got[1], user, "ed25519:" + dev, keys["keys"]["ed25519:" + dev]), got
        s = olm.OutboundSession(self.acct, curve, got[1]["key"])
        sessions.insert(0, s)
        return curve, s

    def share(self, room, only=None):
        """Sends this device's room key for room to every device of the
        room's joined members (or of the users in only) that lacks it."""
        with self.fake._lock:
            out = self.outbound.get(room)
            if out is None:
                out = self._new_outbound(room)
            users = only or [u for u in self.fake.joined_members(room)]
            msgs = {}
            for u, devs in self.fake.query_keys(users)["device_keys"].items():
                for d, keys in devs.items():
                    if (u, d) in self.shared[room] or (u == self.user and d == self.id):
                        continue
                    assert verify(keys, u, "ed25519:" + d, keys["keys"]["ed25519:" + d])
                    curve, s = self._session_to(u, d, keys)
                    payload = {"type": "m.room_key",
                               "content": {"algorithm": MEGOLM, "room_id": room,
                                           "session_id": out.id,
                                           "session_key": self.first_key[room]},
                               "sender": self.user, "sender_device": self.id,
                               "keys": {"ed25519": self.ed}, "recipient": u,
                               "recipient_keys": {"ed25519": keys["keys"]["ed25519:" + d]}}
                    m = s.encrypt(json.dumps(payload))
                    msgs.setdefault(u, {})[d] = {
                        "algorithm": OLM, "sender_key": self.curve,
                        "ciphertext": {curve: {"type": m.message_type, "body": m.ciphertext}}}
                    self.shared[room].add((u, d))
            if msgs:
                self.fake.send_to_device(self.user, self.id, "m.room.encrypted", msgs)

    def _new_outbound(self, room):
        out = self.outbound[room] = olm.OutboundGroupSession()
        self.first_key[room] = out.session_key      # shared from its start
        self.shared[room] = set()
        return out

    def encrypt(self, room, content, share=True):
        """content as the m.room.encrypted content of this device's next
        message in room (its key shared first unless share is False)."""
        with self.fake._lock:
            if share:
                self.share(room)
            elif room not in self.outbound:
                self._new_outbound(room)
            out = self.outbound[room]
            plain = dict(content)
            rel = plain.pop("m.relates_to", None)
            c = {"algorithm": MEGOLM, "sender_key": self.curve, "device_id": self.id,
                 "session_id": out.id,
                 "ciphertext": out.encrypt(json.dumps({"type": "m.room.message",
                                                       "content": plain, "room_id": room}))}
            if rel:
                c["m.relates_to"] = rel
            return c

    def send(self, room, body, share=True, msgtype="m.text"):
        """An encrypted message from this device; its event id."""
        c = self.encrypt(room, {"msgtype": msgtype, "body": body}, share)
        return self.fake.send_event(self.user, room, "m.room.encrypted", c)

    def send_key_to_bot(self, room, session_id, session_key, envelope=None,
                        payload_sender=None, ed=None, forwarded=None):
        """Sends the bot's device a room key over Olm from this device: an
        m.room_key for (room, session_id) with session_key (anyone's: a
        member holds every other member's), or with forwarded=(sender
        curve25519, claimed ed25519) an m.forwarded_room_key (session_key
        then in the export format).  envelope: the to-device sender the
        homeserver shows (default: this device's user); payload_sender:
        the Olm plaintext's (default: envelope); ed: the keys.ed25519 it
        names (default: this device's)."""
        with self.fake._lock:
            bot = self.fake.bot_user
            dev, keys = self.fake.bot_device()
            curve, s = self._session_to(bot, dev, keys)
            envelope = envelope or self.user
            content = {"algorithm": MEGOLM, "room_id": room, "session_id": session_id,
                       "session_key": session_key}
            etype = "m.room_key"
            if forwarded:
                etype = "m.forwarded_room_key"
                content.update({"sender_key": forwarded[0],
                                "sender_claimed_ed25519_key": forwarded[1],
                                "forwarding_curve25519_key_chain": []})
            payload = {"type": etype, "content": content,
                       "sender": payload_sender or envelope, "sender_device": self.id,
                       "keys": {"ed25519": ed or self.ed}, "recipient": bot,
                       "recipient_keys": {"ed25519": keys["keys"]["ed25519:" + dev]}}
            m = s.encrypt(json.dumps(payload))
            self.fake.send_to_device(envelope, self.id, "m.room.encrypted", {bot: {dev: {
                "algorithm": OLM, "sender_key": self.curve,
                "ciphertext": {curve: {"type": m.message_type, "body": m.ciphertext}}}}})

    def new_session(self, room):
        """A new outbound session of this device for room, shared with
        nobody: (session id, session key)."""
        with self.fake._lock:
            out = self._new_outbound(room)
            return out.id, self.first_key[room]

    def export(self, room):
        """This device's outbound session for room in the export format
        (what an m.forwarded_room_key carries), from its first index."""
        with self.fake._lock:
            s = olm.InboundGroupSession(self.first_key[room])
            return s.export_session(s.first_known_index)

    def send_as(self, room, body, sender, with_sender_key=True, sender_key=None):
        """An encrypted message under this device's session for room that
        the homeserver posts as sender's (a forged event); its event id.
        sender_key: the curve25519 key it names instead of this device's
        (a forwarded session's claimed one)."""
        c = self.encrypt(room, {"msgtype": "m.text", "body": body}, share=False)
        if sender_key:
            c["sender_key"] = sender_key
        if not with_sender_key:
            c.pop("sender_key", None)
            c.pop("device_id", None)
        return self.fake.send_event(sender, room, "m.room.encrypted", c)

    def rotate(self, room):
        """Starts a new outbound session for room (Element does on a leave)."""
        with self.fake._lock:
            self.outbound.pop(room, None)
            self.first_key.pop(room, None)
            self.shared.pop(room, None)


class CrossSigning:
    """A test user's cross-signing keys (ed25519, python-olm's PkSigning):
    the master key signs the self-signing and user-signing keys; the
    self-signing key signs the user's devices.  publish() uploads them (as
    POST /keys/device_signing/upload); sign(device) uploads a device's
    signature (as POST /keys/signatures/upload)."""

    def __init__(self, e2e, user):
        self.e2e = e2e
        self.fake = e2e.fake
        self.user = user
        self.master = olm.PkSigning(olm.PkSigning.generate_seed())
        self.self_signing = olm.PkSigning(olm.PkSigning.generate_seed())
        self.user_signing = olm.PkSigning(olm.PkSigning.generate_seed())

    def _sign(self, by, obj):
        obj.setdefault("signatures", {}).setdefault(self.user, {})[
            "ed25519:" + by.public_key] = by.sign(canonical(obj))
        return obj

    def key(self, pk, usage, signer=None):
        """The cross-signing key object of pk (signed by signer)."""
        obj = {"user_id": self.user, "usage": [usage],
               "keys": {"ed25519:" + pk.public_key: pk.public_key}}
        return self._sign(signer, obj) if signer else obj

    def publish(self):
        self.fake.upload_cross_signing(self.user, {
            "master_key": self.key(self.master, "master"),
            "self_signing_key": self.key(self.self_signing, "self_signing", self.master),
            "user_signing_key": self.key(self.user_signing, "user_signing", self.master)})

    def sign(self, device):
        """Signs device (one of the user's) with the self-signing key."""
        obj = {k: v for k, v in device.device_keys().items() if k != "unsigned"}
        obj["signatures"] = {}
        self._sign(self.self_signing, obj)
        failures = self.fake.upload_signatures(self.user, {self.user: {device.id: obj}})
        assert failures == {"failures": {}}, failures


class E2E:
    """Every test user's devices, and the hooks the fake calls."""

    def __init__(self, fake):
        self.fake = fake
        self.devices = {}       # user -> [Device]
        self.n = 0
        fake.on_register = self.add_device
        fake.decryptor = self.decrypt
        fake.encryptor = self.encrypt

    def add_device(self, user, name=None, homeserver=False):
        """A new device of user (name: its display name)."""
        with self.fake._lock:
            self.n += 1
            d = Device(self, user, "PY%04d%s" % (self.n, os.urandom(2).hex().upper()),
                       name, homeserver)
            self.devices.setdefault(user, []).append(d)
            return d

    def homeserver_device(self, user, name=None):
        """The homeserver's attack: a device of its own on user's account
        (the fake's homeserver_adds_device), self-signed, never
        cross-signed; announced to the bot in device_lists.changed."""
        return self.add_device(user, name, homeserver=True)

    def cross_signing(self, user):
        """user's cross-signing keys, published, with every device of
        theirs so far signed."""
        with self.fake._lock:
            xs = CrossSigning(self, user)
            xs.publish()
            for d in self.devices.get(user, []):
                xs.sign(d)
            return xs

    def device(self, user):
        return self.devices[user][0]

    def rogue_device(self, user):
        """An Olm device claiming to be user's that the homeserver does not
        list among user's devices (a homeserver's own, or anyone's)."""
        with self.fake._lock:
            self.n += 1
            return Device(self, user, "ROGUE%04d" % self.n, publish=False)

    def decrypt(self, room, ev):
        """The fake's view: whatever device of anyone can read it."""
        with self.fake._lock:
            for devs in self.devices.values():
                for d in devs:
                    p = d.decrypt(room, ev)
                    if p is not None:
                        return p
            return None

    def encrypt(self, user, room, content):
        return self.device(user).encrypt(room, content)
