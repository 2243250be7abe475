#!/usr/bin/env python3
"""Matrix: a device added to a player's account mid-game does not read
their hand (issue 22, attack 6).  The real tabula binary against the
loopback fake homeserver (tests/fakes/fake_matrix.py), the players'
devices real Olm devices (tests/integration/olmclient.py); the fake can
add a device of the homeserver's own to anyone's account
(homeserver_adds_device).  Nothing leaves 127.0.0.1.

With cross-signing, a player's private chat's key goes only to the devices
their self-signing key signed; without it, only to the devices they had at
their first command and the ones they approved since (`trust <device id>`
in their direct chat, from a device already trusted).  docs/matrix.md,
"Trust".

usage: matrix_devices_test.py ./tabula [test-name ...]
"""
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "fakes"))
sys.path.insert(0, HERE)
import harness  # noqa: E402
import matrix_e2e_test as me  # noqa: E402  (encrypted rooms, the bot's events)
import matrix_test as mt  # noqa: E402  (the bot, the players, the boards)

BIN = "./tabula"


def dm_events(fake, dm):
    """The bot's encrypted events in a direct chat."""
    return me.bot_events(fake, dm)


def wait_dm(fake, dm, needle, after=0):
    """The first of the bot's messages in dm, from the after-th on, whose
    body holds needle (waited for): (its body, the event as on the
    wire)."""
    box = []

    def found():
        for m in fake.bot_message_events(dm)[after:]:
            if needle in m["content"].get("body", ""):
                box.append(m)
                return True
        return False
    fake._wait(found, 10, lambda: "no %r in the direct chat: %r" % (
        needle, [m.get("body", "")[:80] for m in fake.bot_messages(dm)[after:]]))
    wire = [e for e in fake.room_events(dm) if e["event_id"] == box[0]["event_id"]]
    return box[0]["content"].get("body", ""), wire[0]


def hand(fake, user, room, dm):
    """`!hand` from user in room: the bot's answer in their direct chat
    (the event as on the wire)."""
    n = len(fake.bot_messages(dm))
    fake.say(user, room, "!hand")
    return wait_dm(fake, dm, "your province", after=n)[1]


def grouped(key):
    return " ".join(key[i:i + 4] for i in range(0, len(key), 4))


def start_game(fake, bot, ana, ben):
    """A game of Fortuna in an encrypted room; both players in their direct
    chats (invitations accepted)."""
    room = me.encrypted_room(fake, [ana, ben])
    fake.say(ana, room, "!game new fortuna")
    mt.wait_text(fake, room, "lobby")
    fake.say(ben, room, "!game join")
    mt.wait_text(fake, room, "Ana, Ben")
    fake.say(ana, room, "!game start")
    mt.settle_start(fake, room, bot.db)
    dms = {}
    for u in (ana, ben):
        dms[u] = fake.dm_room(u)
        assert dms[u], "no direct chat for %s" % u
        if u not in fake.joined_members(dms[u]):
            fake.accept_invite(u, dms[u])
    fake.wait_caught_up()
    fake.wait_idle()
    return room, dms


def room_keys_for(dev, room):
    """The session ids of the bot's room keys for room that dev received."""
    dev.poll()
    return {k["session_id"] for k in dev.keys_from
            if k["room_id"] == room and k["sender"] == dev.fake.bot_user}


def test_cross_signed_player_homeserver_device_reads_no_hand():
    """Ana has cross-signing (her device signed by her self-signing key).
    Mid-game the homeserver adds a device of its own to her account and
    announces it: it gets no key of her direct chat and decrypts nothing of
    her hand, now or later; she is told which device appeared.  A new
    device she signs herself reads her next hand.  The homeserver's device
    still gets the game room's key: boards are public to the room's members
    (docs/matrix.md, "Trust")."""
    fake = mt.new_fake()
    bot = me.new_bot(fake)
    try:
        ana, ben = mt.players(fake, 2)
        xs = fake.e2e.cross_signing(ana)
        room, dms = start_game(fake, bot, ana, ben)
        dm = dms[ana]
        before = len(fake.bot_messages(dm))
        evil = fake.e2e.homeserver_device(ana, name="Ana's phone")
        fake.wait_caught_up()
        ev = hand(fake, ana, room, dm)
        assert fake.e2e.device(ana).decrypt(dm, ev) is not None
        assert evil.decrypt(dm, ev) is None, "the homeserver's device read Ana's hand"
        told, notice = wait_dm(fake, dm, evil.id, after=before)
        assert "Ana's phone" in told and grouped(evil.ed) in told, told
        assert "verify it" in told and "verifícalo" in told, told
        for e in dm_events(fake, dm):
            assert evil.decrypt(dm, e) is None, "the homeserver's device read her chat"
        assert not room_keys_for(evil, dm), "a key of her direct chat reached it"
        # told once
        assert sum(evil.id in m.get("body", "") for m in fake.bot_messages(dm)) == 1
        # a device she verifies (signs) reads her next hand
        with fake._lock:
            phone = fake.e2e.add_device(ana, name="Tablet")
            xs.sign(phone)
        fake.wait_caught_up()
        ev = hand(fake, ana, room, dm)
        assert phone.decrypt(dm, ev) is not None, "her signed device could not read her hand"
        assert evil.decrypt(dm, ev) is None
        assert not any(phone.id in m.get("body", "") for m in fake.bot_messages(dm))
        # the game room: as every member's device, the homeserver's reads it
        fake.say(ben, room, "!board")
        fake.wait_idle()
        board = me.bot_events(fake, room)[-1]
        assert evil.decrypt(room, board) is not None
        assert "does not get their private chat's key until they sign it" in bot.log()
        mt.check_clean(fake)
    finally:
        bot.stop()
        fake.stop()


def test_master_key_change_falls_back_to_approval():
    """Ana's cross-signing master key changes mid-game (the homeserver
    uploads keys of its own and signs its device with them): the bot does
    not trust the new master key; the device it signed gets nothing of her
    direct chat and waits for her approval, as without cross-signing."""
    fake = mt.new_fake()
    bot = me.new_bot(fake)
    try:
        ana, ben = mt.players(fake, 2)
        fake.e2e.cross_signing(ana)
        room, dms = start_game(fake, bot, ana, ben)
        dm = dms[ana]
        hand(fake, ana, room, dm)
        before = len(fake.bot_messages(dm))
        with fake._lock:
            evil = fake.e2e.homeserver_device(ana)
            forged = fake.e2e.cross_signing(ana)    # a new master; every device signed
        fake.wait_caught_up()
        ev = hand(fake, ana, room, dm)
        assert fake.e2e.device(ana).decrypt(dm, ev) is not None
        assert evil.decrypt(dm, ev) is None, "a device the new master key signed read her hand"
        assert not room_keys_for(evil, dm)
        told, notice = wait_dm(fake, dm, evil.id, after=before)
        assert "trust " + evil.id in told, told
        assert forged.master.public_key not in bot.log()
        assert "cross-signing master key of %s changed" % ana in bot.log()
        mt.check_clean(fake)
    finally:
        bot.stop()
        fake.stop()


def test_new_device_waits_for_trust_from_a_trusted_device():
    """Without cross-signing.  Ana's devices are pinned at her first
    command; a phone she adds afterwards (and a device the homeserver adds)
    gets nothing of her direct chat: the bot tells her there, once, which
    device appeared (id, name, fingerprint in groups of four).  `trust`
    from the phone itself, from Ben (in his own direct chat), or in the
    game room is refused and changes nothing; the pending approval
    survives a restart (not told again).  `trust <phone>` from her first
    device approves it: the phone reads the answer and her next hand, with
    no new room key; the homeserver's device still reads nothing."""
    fake = mt.new_fake()
    bot = me.new_bot(fake)
    bot2 = None
    try:
        ana, ben = mt.players(fake, 2)
        room, dms = start_game(fake, bot, ana, ben)
        dm = dms[ana]
        first = fake.e2e.device(ana)
        before = len(fake.bot_messages(dm))
        phone = fake.e2e.add_device(ana, name="Ana's phone")
        fake.wait_caught_up()
        ev = hand(fake, ana, room, dm)
        assert first.decrypt(dm, ev) is not None
        assert phone.decrypt(dm, ev) is None, "a device added after her first command read it"
        told, notice = wait_dm(fake, dm, phone.id, after=before)
        assert "Ana's phone" in told and grouped(phone.ed) in told, told
        assert 'trust %s' % phone.id in told and "Ha aparecido" in told, told
        assert phone.decrypt(dm, notice) is None, "the new device read the notice"
        evil = fake.e2e.homeserver_device(ana)
        fake.wait_caught_up()
        wait_dm(fake, dm, evil.id, after=before)
        ev = hand(fake, ana, room, dm)
        assert first.decrypt(dm, ev) is not None
        assert phone.decrypt(dm, ev) is None, "a device added after her first command read it"
        assert evil.decrypt(dm, ev) is None
        # refused: from the new device itself ...
        n = len(fake.bot_messages(dm))
        phone.send(dm, "trust " + phone.id)
        _, no = wait_dm(fake, dm, "not from a new one", after=n)
        assert phone.decrypt(dm, no) is None
        # ... from someone else, in their own direct chat ...
        n = len(fake.bot_messages(dms[ben]))
        fake.say(ben, dms[ben], "trust " + phone.id)
        wait_dm(fake, dms[ben], "no device %s" % phone.id, after=n)
        # ... in a room that is not her direct chat
        fake.say(ana, room, "!trust " + phone.id)
        mt.wait_text(fake, room, "only in your direct chat")
        ev = hand(fake, ana, room, dm)
        assert phone.decrypt(dm, ev) is None, "a refused trust approved it"
        # a restart: still waiting, not told again
        bot.stop()
        bot2 = me.new_bot(fake, db=bot.db)
        fake.wait_caught_up()
        ev = hand(fake, ana, room, dm)
        assert phone.decrypt(dm, ev) is None, "approved by a restart"
        assert sum(phone.id in m.get("body", "") and "appeared" in m.get("body", "")
                   for m in fake.bot_messages(dm)) == 1
        sessions = {e["content"]["session_id"] for e in dm_events(fake, dm)}
        # approved from her first device
        n = len(fake.bot_messages(dm))
        fake.say(ana, dm, "trust " + phone.id)
        _, done = wait_dm(fake, dm, "Done", after=n)
        assert phone.decrypt(dm, done) is not None, "the approved device missed the answer"
        ev = hand(fake, ana, room, dm)
        assert phone.decrypt(dm, ev) is not None, "the approved device cannot read her hand"
        assert evil.decrypt(dm, ev) is None and not room_keys_for(evil, dm)
        assert ev["content"]["session_id"] in sessions, "a new room key for an approval"
        mt.check_clean(fake)
    finally:
        for b in (bot2, bot):
            if b and b.proc.poll() is None:
                b.stop()
        fake.stop()


if __name__ == "__main__":
    if len(sys.argv) > 1:
        mt.BIN = sys.argv[1]
    sys.exit(harness.run_tests("matrix-devices", sys.modules[__name__], sys.argv))
