#!/usr/bin/env python3
"""The bot's end-to-end encryption (libolm) against the crypto the players'
clients really run: every player's device here is an OlmMachine of
matrix-sdk-crypto (@matrix-org/matrix-sdk-crypto-wasm, the Rust crypto of
Element Web and matrix-js-sdk; tests/interop/sdkclient.mjs), talking to the
loopback fake homeserver (tests/fakes/fake_matrix.py) over HTTP as a
client does: login, /sync with to-device messages, device lists and key
counts, /keys/upload, /keys/query, /keys/claim, /sendToDevice, room sends,
media downloads.  The real binary is the bot.  Nothing leaves 127.0.0.1.

usage: matrix_interop_test.py ./tabula [test-name ...]
Prints one line per test and "matrix-interop: N passed, M failed"; exit 1
on any failure.
"""
import os
import random
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "fakes"))
sys.path.insert(0, HERE)
import harness  # noqa: E402
import hidden  # noqa: E402
import matrix_test as mt  # noqa: E402  (the bot, the boards, the moves)
import olmclient  # noqa: E402  (python3-olm: forged keys for the controls)
import pngread  # noqa: E402
import sdkclient  # noqa: E402
from fake_matrix import FakeMatrix  # noqa: E402

SLOW = harness.SLOW
MEGOLM = olmclient.MEGOLM
OLM = olmclient.OLM
NAMES = ("Ana", "Ben", "Cy")
# matrix-sdk-crypto's shield colours and codes (ShieldColor, ShieldStateCode)
RED, NO_SHIELD = 0, 2
UNSIGNED_DEVICE, UNVERIFIED_IDENTITY = 2, 3


class World:
    """One test's fake homeserver, bot and sdk process, and its players,
    each with a matrix-sdk-crypto device."""

    def __init__(self, n, extra_env=None):
        self.fake = FakeMatrix(bot_password=mt.PASSWORD).start()
        self.fake.violate_plaintext_in_encrypted = True
        self.bot = mt.Bot(self.fake, extra_env=extra_env)
        self.bots = [self.bot]
        self.sdk = None
        self.players = []
        self.dev = {}
        self.passwords = {}
        try:
            for i in range(n):
                uid = self.fake.register_user("p%d" % i, NAMES[i], password="pw-%d" % i)
                mt.NAMES[NAMES[i]] = uid
                self.passwords[uid] = "pw-%d" % i
                self.players.append(uid)
            self.sdk = sdkclient.Sdk(self.fake)
            for uid in self.players:
                self.dev[uid] = self.sdk.login(uid, self.passwords[uid])
            self.fake._wait(lambda: self.fake.bot_device(), 10, "the bot uploaded no keys")
        except BaseException:
            self.close()
            raise

    def bot_device(self):
        dev, dk = self.fake.bot_device()
        return dev, dk["keys"]["curve25519:" + dev], dk["keys"]["ed25519:" + dev]

    def room(self, name="Fortuna night", encryption=None):
        """An encrypted room of every player, the bot invited and joined;
        encryption: the m.room.encryption content (default Megolm)."""
        ps = self.players
        room = self.fake.create_room(ps[0], name=name, encrypted=True, members=ps[1:])
        if encryption:
            self.fake.send_event(ps[0], room, "m.room.encryption", encryption, state_key="")
        self.fake.invite_bot(room, ps[0])
        self.fake._wait(lambda: room in self.fake.bot_rooms(), 10, "the bot did not join")
        self.fake.wait_caught_up()
        return room

    def join_dm(self, uid):
        """uid accepts the direct chat the bot made for them (over HTTP);
        its room id, or None while there is none."""
        dm = self.fake.dm_room(uid)
        if dm and self.fake.membership(uid, dm) == "invite":
            self.dev[uid].join(dm)
        return dm

    def bot_events(self, room):
        """The bot's encrypted events in room, as the homeserver holds them."""
        return [e for e in self.fake.room_events(room)
                if e["sender"] == self.fake.bot_user and e["type"] == "m.room.encrypted"]

    def restart(self, extra_env=None):
        """The bot stops and starts again on its store."""
        self.bot.stop()
        self.bot = mt.Bot(self.fake, db=self.bots[0].db, extra_env=extra_env)
        self.bots.append(self.bot)

    def check_clean(self):
        assert self.fake.violations == [], self.fake.violations
        assert self.sdk.errors() == [], self.sdk.errors()

    def __enter__(self):
        return self

    def __exit__(self, etype, e, tb):
        if etype is not None:
            # what the bot and the players' devices said, for the failure
            for b in self.bots:
                print("--- the bot's log (last lines):\n" + b.log()[-4000:])
            if self.sdk:
                print("--- the sdk's stderr:\n" + self.sdk.log()[-3000:])
        self.close()

    def close(self):
        try:
            if self.sdk:
                self.sdk.stop()
            for b in reversed(self.bots):
                if b.proc.poll() is None:
                    b.stop()        # (checks its exit status and its log)
        finally:
            for b in self.bots:
                if b.proc.poll() is None:
                    b.proc.kill()
                    b.proc.wait()
            self.fake.stop()


def read_all(w, dev, room, timeout=10):
    """Waits until dev has decrypted every encrypted event the bot sent to
    room so far; returns them, in the room's order.  Each names the room in
    its plaintext and comes from the bot's device (its curve25519 key and
    device id, as matrix-sdk-crypto checked them)."""
    want = [e["event_id"] for e in w.bot_events(room)]

    def missing():
        got = {e["event_id"] for e in dev.messages(room)}
        return [eid for eid in want if eid not in got]
    w.sdk._wait(lambda: not missing(), timeout, lambda: "%s has not decrypted %d of %d bot "
                "events in %s: %r" % (dev.name, len(missing()), len(want), room,
                                      [e for e in dev.received(room, w.fake.bot_user)
                                       if not e.get("decrypted")][:3]))
    bdev, curve, ed = w.bot_device()
    msgs = dev.messages(room)
    for m in msgs:
        assert m["payload_room"] == room and m["payload_type"] == "m.room.message", m
        assert (m["sender_device"], m["sender_curve25519"], m["sender_ed25519"]) == \
            (bdev, curve, ed), m
        assert not m["forwarded"], m
    return msgs


def read_since(w, dev, room, event_ids, what):
    """Waits until dev has decrypted each of the bot's events event_ids in
    room."""
    def missing():
        got = {m["event_id"] for m in dev.messages(room)}
        return [e for e in event_ids if e not in got]
    w.sdk._wait(lambda: not missing(), 10, lambda: "%s cannot read %s: %r" % (
        dev.name, what, [e for e in dev.received(room, w.fake.bot_user)
                         if e["event_id"] in missing()][:2]))


def check_picture(m):
    """The bot's encrypted picture m (an m.image with a file object, as
    matrix-sdk-crypto downloaded and decrypted it): the ciphertext is no
    PNG, the plaintext is one that its info describes.  Returns its texts
    (what the PNG says it shows)."""
    c = m["content"]
    assert "url" not in c and isinstance(c.get("file"), dict), sorted(c)
    p = m.get("picture") or {}
    assert "error" not in p and p.get("png") and not p.get("cipher_is_png"), p
    with open(p["path"], "rb") as f:
        plain = f.read()
    info = pngread.png_info(plain)
    assert (info["width"], info["height"], len(plain)) == \
        (c["info"]["w"], c["info"]["h"], c["info"]["size"]), (info, c["info"])
    assert c["info"]["mimetype"] == "image/png"
    return info.get("text", "")


def check_edits(msgs):
    """The bot's edits as matrix-sdk-crypto decrypted them (the relation,
    in clear on the wire, put back into the content): each replaces an
    earlier message of the bot's in the same room, not an edit, with a
    whole new content.  Returns {original event id: its last new content}."""
    seen = {}
    last = {}
    for m in msgs:
        c = m["content"]
        rel = c.get("m.relates_to")
        if rel is None:
            seen[m["event_id"]] = m
            continue
        assert rel.get("rel_type") == "m.replace" and rel.get("event_id") in seen, rel
        new = c.get("m.new_content")
        assert isinstance(new, dict) and new.get("body") and \
            c.get("body", "").startswith("* "), c
        last[rel["event_id"]] = new
    return last


def boards(msgs):
    return [m["content"] for m in msgs
            if "Waiting for" in m["content"].get("body", "") or
            "Game over" in m["content"].get("body", "")]


def moves_of(w, uid):
    """The move ids of the newest "Your moves" in uid's direct chat, as
    their device decrypted it."""
    dm = w.fake.dm_room(uid)
    for m in reversed(read_all(w, w.dev[uid], dm)):
        body = m["content"].get("body", "")
        if "Your moves" in body:
            ids = []
            for line in body.split("\n"):
                mm = mt.MOVE_RE.match(line)
                if mm:
                    ids.append(mm.group(1).strip())
            return ids
    return []


def start_game(w, room, ps):
    """A Fortuna game of ps in room, commands sent by their devices;
    returns the moves stored once the start is out."""
    d0 = w.dev[ps[0]]
    d0.send(room, "!game new fortuna")
    d0.wait_message(room, lambda c: "lobby" in c.get("body", ""))
    for p in ps[1:]:
        w.dev[p].send(room, "!game join")
    names = ", ".join(NAMES[:len(ps)])
    d0.wait_message(room, lambda c: names in c.get("body", ""))
    d0.send(room, "!game start")
    d0.wait_message(room, lambda c: "Waiting for" in c.get("body", ""))
    end = time.monotonic() + 10 * SLOW
    while harness.store_counts(w.bot.db)[1]:
        assert time.monotonic() < end, "the start's messages were not delivered"
        time.sleep(0.01)
    return harness.store_counts(w.bot.db)[0]


def play(w, room, ps, rng, moves, steps=None, hook=None):
    """Plays the room's game, one decision at a time, each typed by the
    awaited player's device (in the room with the prefix, or in their
    direct chat without), until it ends or after steps decisions.  Before
    each, every seated player's device has decrypted everything the bot
    said in the room.  Returns (decisions, the last board, the moves
    stored)."""
    step = 0
    while steps is None or step < steps:
        board = boards(read_all(w, w.dev[ps[0]], room))[-1]
        if "Game over" in board["body"]:
            return step, board, moves
        who = mt.awaited(board)
        assert who, "a board waiting for nobody: %r" % board["body"][-200:]
        uid = who[0]
        if hook:
            hook(step)
        dm = w.join_dm(uid)
        move = mt.make_transcript.pick(rng, moves_of(w, uid), "fortuna")
        if step % 2:
            w.dev[uid].send(dm, "play " + move)          # no prefix in the direct chat
        else:
            w.dev[uid].send(room, "!play " + move)
        moves = harness.wait_settled(w.bot.db, moves, what="after move %d (%s by %s)" %
                                     (step, move, uid))
        step += 1
        assert step < 600, "the game did not end"
    return step, boards(read_all(w, w.dev[ps[0]], room))[-1], moves


# ---- tests ----

def test_bot_device_and_keys_pass_matrix_sdk_crypto_checks():
    """matrix-sdk-crypto takes the bot's device (its keys signed by its own
    ed25519 key, both algorithms) and makes Olm sessions from its claimed
    one-time key and, once those are gone, its fallback key: signatures it
    checks, since a device or a one-time key signed wrongly gets nothing
    (the controls, forged with python3-olm).  The sessions carry a room key
    to the bot, which reads the command under it."""
    with World(2) as w:
        ana, ben = w.players
        room = w.room()     # (a room shared with the bot: its device list
        #                     changes reach the players' devices)
        bdev, curve, ed = w.bot_device()
        info = w.dev[ana].device(w.fake.bot_user, bdev)
        assert info["found"] and not info["deleted"] and not info["blacklisted"], info
        assert (info["curve25519"], info["ed25519"]) == (curve, ed), info
        assert set(info["algorithms"]) >= {OLM, MEGOLM}, info
        # a one-time key: claimed, its signature checked, a session made
        got = w.dev[ana].claim(w.fake.bot_user)
        keys = got["claimed"]["one_time_keys"][w.fake.bot_user][bdev]
        (kid, k), = keys.items()
        assert kid.startswith("signed_curve25519:") and not k.get("fallback"), keys
        assert got["sessions"][bdev], "no Olm session from the bot's one-time key"
        # the fallback key, once the one-time keys are all claimed
        with w.fake._lock:
            while w.fake.otk_count(w.fake.bot_user, bdev):
                w.fake.claim_key(w.fake.bot_user, bdev)
        got = w.dev[ben].claim(w.fake.bot_user)
        (kid, k), = got["claimed"]["one_time_keys"][w.fake.bot_user][bdev].items()
        assert k.get("fallback") is True, k
        assert got["sessions"][bdev], "no Olm session from the bot's fallback key"
        # the controls: a device of the bot's account whose keys another key
        # signed is dropped; one signed right whose one-time key is signed
        # wrongly gives no session
        forger = olmclient.olm.Account()
        bad = olmclient.olm.Account()
        good = olmclient.olm.Account()

        def device_keys(acct, dev, signer):
            dk = {"user_id": w.fake.bot_user, "device_id": dev, "algorithms": [OLM, MEGOLM],
                  "keys": {"curve25519:" + dev: acct.identity_keys["curve25519"],
                           "ed25519:" + dev: acct.identity_keys["ed25519"]}}
            dk["signatures"] = {w.fake.bot_user: {
                "ed25519:" + dev: signer.sign(olmclient.canonical(dk))}}
            return dk
        good.generate_one_time_keys(1)
        otk = list(good.one_time_keys["curve25519"].values())[0]
        sig = forger.sign(olmclient.canonical({"key": otk}))
        w.fake.upload_keys(w.fake.bot_user, "FORGED", {"device_keys": device_keys(bad, "FORGED",
                                                                                  forger)})
        w.fake.upload_keys(w.fake.bot_user, "BADOTK", {
            "device_keys": device_keys(good, "BADOTK", good),
            "one_time_keys": {"signed_curve25519:AAAAAQ": {
                "key": otk, "signatures": {w.fake.bot_user: {"ed25519:BADOTK": sig}}}}})
        assert not w.dev[ben].device(w.fake.bot_user, "FORGED")["found"]
        assert w.dev[ben].device(w.fake.bot_user, "BADOTK")["found"]
        got = w.dev[ben].claim(w.fake.bot_user)
        assert "BADOTK" in got["claimed"]["one_time_keys"][w.fake.bot_user], got
        assert not got["sessions"]["BADOTK"], "a one-time key signed by another key made a session"
        assert "FORGED" not in got["sessions"], got["sessions"]
        with w.fake._lock:        # the bot must not share keys with them either
            del w.fake._devices[w.fake.bot_user]["FORGED"]
            del w.fake._devices[w.fake.bot_user]["BADOTK"]
        # the other way: the bot's Olm session to Ben's device comes from
        # his fallback key (signed with the fallback flag, as matrix-sdk-
        # crypto signs it); and the sessions each way carry the room keys
        w.fake.claim_fallback_only.add((ben, w.dev[ben].id))
        w.dev[ana].send(room, "!game new fortuna")
        w.dev[ana].wait_message(room, lambda c: "lobby" in c.get("body", ""))
        w.dev[ben].send(room, "!game join")
        w.dev[ana].wait_message(room, lambda c: "Ana, Ben" in c.get("body", ""))
        # the bot's messages are marked as Element marks a device its owner
        # has not cross-signed (docs/matrix.md, "Trust")
        m = read_all(w, w.dev[ben], room)[-1]
        assert (m["shield"]["color"], m["shield"]["code"]) == (RED, UNSIGNED_DEVICE), m["shield"]
        claims = [c.response["one_time_keys"].get(ben, {}).get(w.dev[ben].id)
                  for c in w.fake.keys_claims if c.user == w.fake.bot_user]
        assert [k for k in claims if k and list(k.values())[0].get("fallback")], claims
        w.check_clean()


def test_operator_cross_signs_the_bot_device_from_matrix_sdk_crypto():
    """README's "Encrypted rooms": the operator logs in to the bot's
    account from a client of their own (matrix-sdk-crypto here, Element's
    crypto), which gets the room keys of the bot's account like the bot's
    own device; makes the account's cross-signing identity and signs the
    bot's device with it.  The bot goes on (its device's keys gained a
    signature, nothing else), and the players' devices, which marked the
    bot's messages red ("not verified by its owner") before, see its
    device signed by its owner: the red mark is gone, only the identity
    that nobody verified is left (strict mode)."""
    with World(2) as w:
        ana, ben = w.players
        room = w.room()
        bdev = w.bot_device()[0]
        w.dev[ana].send(room, "!game status")
        m = w.dev[ben].wait_message(room, lambda c: True)
        assert (m["shield"]["color"], m["shield"]["code"]) == (RED, UNSIGNED_DEVICE), m
        w.fake.other_clients.add((w.fake.bot_user, "OPERATOR"))
        op = w.sdk.login(w.fake.bot_user, mt.PASSWORD, name="operator", device_id="OPERATOR")
        ident = op.call("bootstrap_cross_signing")
        assert ident["has_master"] and ident["has_self_signing"], ident
        op.call("cross_sign_device", device_id=bdev)
        assert w.fake.signature_uploads[-1].failures == {}, w.fake.signature_uploads[-1]
        for p in (ana, ben):
            info = w.dev[p].device(w.fake.bot_user, bdev)
            assert info["cross_signed_by_owner"] and not info["verified"], info
        w.fake.wait_caught_up()
        n = len(w.bot_events(room))
        w.dev[ana].send(room, "!game status")
        w.fake._wait(lambda: len(w.bot_events(room)) > n, 10, "no answer")
        new = [e["event_id"] for e in w.bot_events(room)[n:]]
        for p in (ana, ben):
            read_since(w, w.dev[p], room, new, "the answer")
            m = [x for x in w.dev[p].messages(room) if x["event_id"] == new[-1]][0]
            assert m["shield"]["color"] == NO_SHIELD, m["shield"]
            assert (m["shield_strict"]["color"], m["shield_strict"]["code"]) == \
                (RED, UNVERIFIED_IDENTITY), m["shield_strict"]
        # the operator's device read the bot's answer too: the bot shares
        # its room keys with its own account's other devices
        read_since(w, op, room, new, "the bot's answer (operator)")
        assert "came back with other keys" not in w.bot.log()
        w.check_clean()


@harness.whole_game_scan
def test_whole_game_between_matrix_sdk_crypto_devices():
    """Three players whose devices are matrix-sdk-crypto play Fortuna to
    the end in an encrypted room whose key rotates every 10 messages, hands
    in the encrypted direct chats the bot makes, the bot restarted in the
    middle: every command is encrypted
    by matrix-sdk-crypto (shared with the room's devices as Element shares
    it) and done by the bot; every board, hand and notice the bot sends is
    decrypted by each member's device (no key missing, none late), and
    every picture is an encrypted attachment that matrix-sdk-crypto
    downloads, checks and decrypts to the PNG its info describes; the
    public ones show no hidden card."""
    with World(3) as w:
        ps = w.players
        room = w.room(encryption={"algorithm": MEGOLM, "rotation_period_msgs": 10})
        moves = start_game(w, room, ps)
        checked = set()
        pictures = [0]

        def step(n):
            # what appeared since the last step, against the secrets now
            now = hidden.secrets_now(w.bot.db)
            public = []
            for m in read_all(w, w.dev[ps[n % 3]], room):
                if m["event_id"] in checked:
                    continue
                checked.add(m["event_id"])
                c = m["content"]
                public += [c.get("body", ""), c.get("formatted_body", "")]
                if c.get("msgtype") == "m.image":
                    public.append(check_picture(m))
                    pictures[0] += 1
            hidden.assert_no_leak(public, now, " (room, step %d)" % n)
            if n == 12:
                w.restart()
        steps, last, _ = play(w, room, ps, random.Random(5), moves, hook=step)
        assert steps > 20, steps
        assert "Winner" in last["body"] or "Nobody wins" in last["body"], last["body"][-300:]
        # every member's device read all the bot said in the room, and each
        # player's device all of their direct chat
        # the lobby, one message edited as seats filled, reads full
        edits = check_edits(read_all(w, w.dev[ps[2]], room))
        assert any("Ana, Ben, Cy" in c["body"] for c in edits.values()), edits
        every = [e["event_id"] for e in w.bot_events(room)]
        for p in ps:
            assert [m["event_id"] for m in read_all(w, w.dev[p], room)] == every, p
            dm = w.fake.dm_room(p)
            hands = read_all(w, w.dev[p], dm)
            assert any("Your moves" in m["content"].get("body", "") for m in hands), p
            pics = [m for m in hands if m["content"].get("msgtype") == "m.image"]
            assert pics, "no picture in %s's direct chat" % p
            for m in pics:
                check_picture(m)
            # none came before its key
            assert not [e for e in w.dev[p].received(dm, w.fake.bot_user)
                        if e["event"] == "timeline" and not e["decrypted"]], p
        assert not [e for p in ps for e in w.dev[p].received(room, w.fake.bot_user)
                    if e["event"] == "timeline" and not e["decrypted"]]
        assert pictures[0] > 10, pictures
        # the room key rotated: no session of the bot's covers more than 10
        per = {}
        for e in w.bot_events(room):
            per[e["content"]["session_id"]] = per.get(e["content"]["session_id"], 0) + 1
        assert len(per) >= 3 and max(per.values()) <= 10, per
        # the players' commands: every one the bot read, none held back
        for b in w.bots:
            log = b.log()
            assert "waits for its key" not in log and "could not read" not in log
        # the media repository holds ciphertext only
        assert w.fake.media and all(med.encrypted for med in w.fake.media.values())
        w.check_clean()


def test_rotation_leave_and_late_key_with_matrix_sdk_crypto():
    """A room asking rotation_period_msgs 3: the bot's keys change every 3
    messages and the players' matrix-sdk-crypto devices read each; they
    rotate their own as asked and the bot reads those.  Cy leaves: the
    bot's next message is under a key Cy's device never gets and cannot
    decrypt.  Ana's command in the room's game whose room key her device
    holds back is held by the bot (Ben is answered meanwhile) and done once
    when the key comes."""
    with World(3) as w:
        ana, ben, cy = w.players
        room = w.room(encryption={"algorithm": MEGOLM, "rotation_period_msgs": 3})
        for i in range(7):
            n = len(w.bot_events(room))
            w.dev[w.players[i % 3]].send(room, "!game status")
            w.fake._wait(lambda: len(w.bot_events(room)) > n, 10, "no answer")
        for p in w.players:
            read_all(w, w.dev[p], room)
        per = {}
        for e in w.bot_events(room):
            per[e["content"]["session_id"]] = per.get(e["content"]["session_id"], 0) + 1
        assert len(per) >= 3 and max(per.values()) <= 3, per
        # the players' own keys rotated too (each sent 2 or 3 messages)
        theirs = {(e["sender"], e["content"]["session_id"]) for e in w.fake.room_events(room)
                  if e["type"] == "m.room.encrypted" and e["sender"] != w.fake.bot_user}
        assert len(theirs) >= 3, theirs
        # Cy leaves
        cyd = w.dev[cy]
        before = w.bot_events(room)[-1]
        assert before["event_id"] in {m["event_id"] for m in read_all(w, cyd, room)}
        cyd.leave(room)
        w.fake.wait_caught_up()
        n = len(w.bot_events(room))
        w.dev[ana].send(room, "!game status")
        w.fake._wait(lambda: len(w.bot_events(room)) > n, 10, "no answer")
        after = w.bot_events(room)[-1]
        assert after["content"]["session_id"] != before["content"]["session_id"]
        for p in (ana, ben):
            read_all(w, w.dev[p], room)
        cyd.caught_up()
        got = cyd.decrypt(room, after)
        assert not got["decrypted"], "Cy read a message sent after she left"
        assert after["content"]["session_id"] not in {
            k["session_id"] for k in cyd.call("room_keys")["keys"] if k["room"] == room}
        # a late key: Ana's command in the room's game waits for it (the
        # bot holds only what players and members of a game's room send),
        # Ben is answered meanwhile
        w.dev[ana].send(room, "!game new fortuna")
        w.dev[ben].wait_message(room, lambda c: "lobby" in c.get("body", ""))
        w.fake.wait_caught_up()
        w.fake.wait_idle()
        n = len(w.bot_events(room))
        w.dev[ana].send(room, "!game addbot 1", share=False)
        w.fake.wait_caught_up()
        w.fake.wait_idle()
        w.dev[ben].send(room, "!game status")
        w.fake._wait(lambda: len(w.bot_events(room)) > n, 10, "Ben got no answer")

        def two_seats():
            return [t for t in w.dev[ben].texts(room) if "Seats (2 of" in t]
        read_all(w, w.dev[ben], room)
        assert not two_seats(), "the command ran before its key came"
        assert w.dev[ana].release(room) > 0
        w.dev[ben].wait_message(room, lambda c: "Seats (2 of" in c.get("body", ""))
        w.fake.wait_caught_up()
        w.fake.wait_idle()
        for p in (ana, ben):
            read_all(w, w.dev[p], room)
        assert len(two_seats()) == 1, two_seats()          # once
        assert "waits for its key" in w.bot.log()
        w.check_clean()


def device_added_mid_game(w, cross_signing):
    """Ana logs in on a second matrix-sdk-crypto device (her phone) in the
    middle of a game.  It reads the game room from its coming on (the bot
    shares that room's key with every member's devices), nothing from
    before, and none of her direct chat at first: the bot tells her there,
    on the device she had, which device appeared.  Without cross-signing,
    her `trust <phone>` from that device lets the phone read her next hand;
    with cross-signing (made by matrix-sdk-crypto's bootstrapCrossSigning
    before her first command), her first device signing the phone with her
    self-signing key does, while a tablet she never signs reads none of
    it.  The phone's commands are done."""
    ana, ben = w.players
    first = w.dev[ana]
    if cross_signing:
        ident = first.call("bootstrap_cross_signing")
        assert ident["has_master"] and ident["has_self_signing"], ident
    room = w.room()
    moves = start_game(w, room, w.players)
    rng = random.Random(11)
    play(w, room, w.players, rng, moves, steps=1)
    dm = w.join_dm(ana)
    phone = w.sdk.login(ana, w.passwords[ana], name="ana-phone")
    others = [phone]
    if cross_signing:
        others.append(w.sdk.login(ana, w.passwords[ana], name="ana-tablet"))
    # the bot learns of the new devices (device_lists.changed) at its next
    # sync; its next private message to Ana tells her of them, on the
    # device she had
    w.fake.wait_caught_up()
    n_room = len(w.bot_events(room))
    n_dm = len(w.bot_events(dm))
    first.send(room, "!hand")
    for d in others:
        told = first.wait_message(dm, lambda c: d.id in c.get("body", ""))
        if not cross_signing:
            assert "trust " + d.id in told["content"]["body"], told["content"]["body"]
    read_since(w, first, dm, [e["event_id"] for e in w.bot_events(dm)[n_dm:]], "her hand")
    for d in others:
        d.caught_up()
        got = d.received(dm, w.fake.bot_user)
        assert got and not [e for e in got if e.get("decrypted")], \
            "%s read her direct chat before she let it in" % d.name
    # she lets the phone in
    n = len(first.messages(dm))
    if cross_signing:
        first.call("cross_sign_device", device_id=phone.id)
        assert w.fake.signature_uploads[-1].failures == {}, w.fake.signature_uploads[-1]
        assert w.dev[ben].device(ana, phone.id)["cross_signed_by_owner"]
        w.fake.wait_caught_up()
    else:
        first.send(dm, "trust " + phone.id)
        first.wait_message(dm, lambda c: "Done" in c.get("body", ""), after=n)
    n_dm = len(w.bot_events(dm))
    first.send(room, "!hand")
    first.wait_message(dm, lambda c: "your province" in c.get("body", ""), after=n)
    hands = [e["event_id"] for e in w.bot_events(dm)[n_dm:]]
    read_since(w, phone, dm, hands, "her hand once let in")
    for d in others[1:]:
        d.caught_up()
        assert not [e for e in d.received(dm, w.fake.bot_user)
                    if e["event_id"] in hands and e.get("decrypted")], d.name
    # the game room: every device reads from its coming on, none before
    later = [e["event_id"] for e in w.bot_events(room)[n_room:]]
    for d in others:
        read_since(w, d, room, later, "the game room")
        early = [e for e in d.received(room, w.fake.bot_user) if e["event_id"] not in later]
        assert early and not any(e.get("decrypted") for e in early), early[:2]
    n = len(w.bot_events(room))
    phone.send(room, "!game status")
    w.fake._wait(lambda: len(w.bot_events(room)) > n, 10, "no answer to the new device")
    assert "came back with other keys" not in w.bot.log()


def test_device_added_mid_game_without_cross_signing():
    with World(2) as w:
        device_added_mid_game(w, False)
        w.check_clean()


def test_device_added_mid_game_cross_signed():
    with World(2) as w:
        device_added_mid_game(w, True)
        # the bot read Ana's identity as matrix-sdk-crypto made it
        ana = w.players[0]
        assert any(ana in ((q.response or {}).get("master_keys") or {})
                   for q in w.fake.requests
                   if q.user == w.fake.bot_user and q.path == "/keys/query")
        w.check_clean()


if __name__ == "__main__":
    if len(sys.argv) > 1:
        mt.BIN = sys.argv[1]
    why = sdkclient.missing()
    if why:
        print("matrix-interop: %s" % why)
        print("matrix-interop: 0 passed, 1 failed")
        sys.exit(1)
    sys.exit(harness.run_tests("matrix-interop", sys.modules[__name__], sys.argv))
