#!/usr/bin/env python3
"""Matrix end-to-end encryption (issue 18): the real tabula binary against
the loopback fake homeserver (tests/fakes/fake_matrix.py), the players'
devices speaking Olm and Megolm with Debian's python3-olm
(tests/integration/olmclient.py).  Nothing leaves 127.0.0.1.

usage: matrix_e2e_test.py ./tabula [test-name ...]
Prints one line per test and "matrix-e2e: N passed, M failed"; exit 1 on
any failure.
"""
import atexit
import json
import os
import random
import re
import shutil
import signal
import sqlite3
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "fakes"))
sys.path.insert(0, HERE)
import harness  # noqa: E402
import hidden  # noqa: E402
import matrix_test as mt  # noqa: E402  (the bot, the players, the boards)
import olmclient  # noqa: E402

SLOW = harness.SLOW
BIN = "./tabula"
MEGOLM = olmclient.MEGOLM
DAY_MS = 24 * 3600 * 1000


def cursor_values(db, prefix):
    """{key: value} of the store's cursors whose key starts with prefix."""
    con = sqlite3.connect("file:%s?mode=ro" % db, uri=True, timeout=10)
    try:
        return dict(con.execute("SELECT key, value FROM cursors WHERE key LIKE ?",
                                (prefix + "%",)).fetchall())
    finally:
        con.close()


def encrypted_room(fake, ps, name="Fortuna night"):
    """A room with encryption on, the players in it, the bot invited and
    joined."""
    room = fake.create_room(ps[0], name=name, encrypted=True, members=ps[1:])
    fake.invite_bot(room, ps[0])
    fake._wait(lambda: room in fake.bot_rooms(), 10, lambda: "the bot did not join")
    # the players' devices share their room keys with the devices they can
    # see: a command sent before the bot's device keys are up would reach a
    # bot that has no key for it (it then asks for the command again; a
    # test that wants it run waits for the keys, as a player's client does
    # once the bot's device shows)
    fake._wait(lambda: fake.bot_device(), 10, lambda: "the bot never uploaded its device keys")
    return room


def bot_events(fake, room, etype="m.room.encrypted"):
    """The bot's events of etype in room, as on the wire (None: every
    type)."""
    return [e for e in fake.room_events(room)
            if e["sender"] == fake.bot_user and (etype is None or e["type"] == etype)]


def ask_status(fake, user, room):
    """`!game status` from user; waits for the bot's answer (a new event:
    the same answer again is an edit of the last one)."""
    n = len(bot_events(fake, room))
    fake.say(user, room, "!game status")
    fake._wait(lambda: len(bot_events(fake, room)) > n, 10,
               lambda: "no answer in %s" % room)
    fake.wait_idle()


def membership_at(fake, room, user, pos):
    """user's membership in room at stream position pos."""
    m = None
    with fake._lock:
        for e in fake._rooms[room].timeline:
            if e.pos > pos:
                break
            if e.ev["type"] == "m.room.member" and e.ev.get("state_key") == user:
                m = e.ev["content"].get("membership")
    return m


def bot_raw_bodies(fake):
    """Every request body the bot sent, as text."""
    with fake._lock:
        return [r.raw.decode("utf-8", "replace") for r in fake.requests
                if r.user == fake.bot_user and r.raw]


def check_keys_only_to_members(fake):
    """Every room key the bot sent went to a device of a user joined or
    invited to that room when it was sent; returns how many were checked."""
    n = 0
    for devs in fake.e2e.devices.values():
        for d in devs:
            d.poll()
            for k in d.keys_from:
                if k["sender"] != fake.bot_user:
                    continue
                m = membership_at(fake, k["room_id"], d.user, k["pos"])
                assert m in ("join", "invite") or d.user == fake.bot_user, \
                    ("a room key went to a non-member", d.user, k["room_id"], m)
                n += 1
    return n


def check_nothing_in_clear(fake, db, secrets_seen):
    """Nothing the bot sent holds a hidden card or a line of anything it
    said in an encrypted room, in clear; returns the lines checked."""
    raw = "\n".join(bot_raw_bodies(fake))
    hidden.assert_no_leak([raw], secrets_seen, " (in what the homeserver saw)")
    lines = set()
    for e in fake.bot_sends():
        assert e.encrypted, ("a message in clear", e.room, e.content.get("body", "")[:200])
        texts = [e.content.get("body"), e.content.get("formatted_body")]
        new = e.content.get("m.new_content") or {}
        texts += [new.get("body"), new.get("formatted_body")]
        for t in texts:
            if not isinstance(t, str):
                continue
            for line in re.split(r"\n|<br\s*/?>", t):
                line = line.strip()
                if len(line) >= 12:
                    lines.add(line)
    for line in lines:
        assert line not in raw, ("in clear on the wire", line)
    return len(lines)


def fake_tmp():
    """A directory for one test's files, removed at exit."""
    d = tempfile.mkdtemp(prefix="tabula-e2e-")
    atexit.register(shutil.rmtree, d, True)
    return d


def new_bot(fake, db=None, extra_env=None):
    return mt.Bot(fake, db=db, extra_env=extra_env)


# ---- tests ----

@harness.whole_game_scan
def test_whole_game_encrypted_room_and_dms_nothing_in_clear():
    """Three players play Fortuna to the end in an encrypted room, their
    hands in the encrypted direct chats the bot creates, commands typed
    encrypted in both; Ana has two devices and the bot's account a second
    one.  The bot restarts in the middle.  After every step the homeserver
    holds nothing in clear: no hidden card, no line of any message the bot
    sent (public or private), no room key, no picture: boards and hands
    come as pictures, encrypted attachments whose keys travel only inside
    the encrypted events, so the media repository holds ciphertext only;
    the decrypted pictures match their events' info, and the public ones
    show no hidden card.  Every room key went only to devices of the
    room's members, a direct chat's only to its player's (and the bot's
    own)."""
    fake = mt.new_fake()
    bot = new_bot(fake)
    bot2 = None
    try:
        ps = mt.players(fake, 3)
        ana_phone = fake.e2e.add_device(ps[0])
        bots_other = fake.e2e.add_device(fake.bot_user)
        room = encrypted_room(fake, ps)
        fake.say(ps[0], room, "!game new fortuna")
        mt.wait_text(fake, room, "lobby")
        fake.say(ps[1], room, "!game join")
        fake.say(ps[2], room, "!game join")
        fake._wait(lambda: any("Ana, Ben, Cy" in t for t in mt.texts(fake, room)), 10,
                   lambda: "the lobby did not fill: %r" % mt.texts(fake, room))
        fake.say(ps[0], room, "!game start")
        secrets = set()
        state = {"bot": bot, "restarted": False}

        def step(n):
            now = hidden.secrets_now(bot.db)
            secrets.update(now)
            raw_new = bot_raw_bodies(fake)
            hidden.assert_no_leak(raw_new, now, " (step %d)" % n)
            # what the room's members read, pictures decrypted
            public = []
            for m in fake.bot_messages(room):
                public += [m.get("body", ""), m.get("formatted_body", "")]
                if m.get("msgtype") == "m.image":
                    public.append(fake.picture_text(m))
            hidden.assert_no_leak(public, now, " (room, step %d)" % n)
            if n == 12 and not state["restarted"]:
                state["bot"].stop()
                state["bot"] = new_bot(fake, db=bot.db)
                state["restarted"] = True
        steps, bs = mt.play_to_end(fake, room, ps, random.Random(5), bot.db, hook=step)
        bot2 = state["bot"]
        assert steps > 20 and state["restarted"], steps
        assert "Winner" in bs[-1]["body"] or "Nobody wins" in bs[-1]["body"]
        lines = check_nothing_in_clear(fake, bot.db, secrets)
        assert lines > 50 and secrets, (lines, len(secrets))
        # every message the bot sent anywhere here went encrypted
        for r in [room] + [fake.dm_room(p) for p in ps]:
            types = {e["type"] for e in bot_events(fake, r, None)}
            assert "m.room.message" not in types and "m.room.encrypted" in types, (r, types)
        # the direct chats were created encrypted, and hold the hands
        for c in fake.created_rooms:
            if c.user == fake.bot_user:
                assert any(s.get("type") == "m.room.encryption"
                           for s in c.body.get("initial_state", [])), c.body
        dm = fake.dm_room(ps[0])
        assert any("Your moves" in m.get("body", "") for m in fake.bot_messages(dm))
        # boards and hands came as pictures, encrypted attachments: every
        # upload is ciphertext (not a PNG, not decodable without the key),
        # and each picture decrypts with its event's key to a PNG that
        # matches its info
        pics = {r: [m for m in fake.bot_messages(r) if m.get("msgtype") == "m.image"]
                for r in [room] + [fake.dm_room(p) for p in ps]}
        assert len(pics[room]) > 10 and all(pics[fake.dm_room(p)] for p in ps), \
            {r: len(v) for r, v in pics.items()}
        for r, ms in pics.items():
            for m in ms:
                w, h, _rows = mt.open_encrypted_picture(fake, m)
                assert w >= 800 and fake.picture_text(m), (r, w, h)
        # every upload, shown or not (a re-send after the restart uploads
        # again under a new key), is ciphertext
        assert fake.media
        for u, med in fake.media.items():
            assert med.encrypted and not med.data.startswith(mt.PNG_SIGNATURE), (u, med.ctype)
        # a fresh key for every picture
        keys = [m["file"]["key"]["k"] for ms in pics.values() for m in ms]
        assert len(set(keys)) == len(keys)
        # and no key in the bot's logs (both processes)
        logs = bot.log() + bot2.log()
        assert not any(k in logs for k in keys)
        # keys: only members' devices; a direct chat's, only its player's
        assert check_keys_only_to_members(fake) > 6
        dms = {fake.dm_room(p): p for p in ps}
        bot_curve = fake.bot_device()[1]["keys"]["curve25519:" + fake.bot_device()[0]]
        for user, devs in fake.e2e.devices.items():
            for d in devs:
                for (r, _sid), (_s, sender_key) in d.inbound.items():
                    if r in dms and sender_key == bot_curve:
                        assert user == dms[r], (user, d.id, "holds a key of", dms[r])
        # Ana's two devices read her hand; nobody else, not even the bot's
        # other device (the homeserver could have listed it there), which
        # reads the game room
        ev = [e for e in fake.room_events(dm) if e["sender"] == fake.bot_user][-1]
        for d in (fake.e2e.device(ps[0]), ana_phone):
            assert d.decrypt(dm, ev) is not None, d.id
        for d in [fake.e2e.device(p) for p in ps[1:]] + [bots_other]:
            assert d.decrypt(dm, ev) is None, d.id
        assert not [r for (r, _sid), (_s, k) in bots_other.inbound.items()
                    if r in dms and k == bot_curve], \
            "a direct chat's key went to the bot's other device"
        ev = [e for e in fake.room_events(room) if e["sender"] == fake.bot_user][-1]
        assert bots_other.decrypt(room, ev) is not None
        mt.check_clean(fake)
    finally:
        for b in (bot2, bot):
            if b and b.proc.poll() is None:
                b.stop()
        fake.stop()


def test_restart_mid_game_keeps_decrypting_both_ways():
    """A restart in the middle of a game in an encrypted room: the players'
    commands sent under the room keys the bot received before it (and one
    sent while it was down) are read once; the players read what the bot
    says after it under the key they had, and the bot's device keeps its
    identity keys."""
    fake = mt.new_fake()
    bot = new_bot(fake)
    bot2 = None
    try:
        ps = mt.players(fake, 2)
        room = encrypted_room(fake, ps)
        fake.say(ps[0], room, "!game new fortuna")
        fake.say(ps[1], room, "!game join")
        fake.say(ps[0], room, "!game start")
        moves = mt.settle_start(fake, room, bot.db)
        rng = random.Random(3)
        keys_before = fake.bot_device()
        sessions_before = {e["content"]["session_id"] for e in bot_events(fake, room)}
        for i in range(6):
            uid = mt.awaited(mt.boards(fake, room)[-1])[0]
            dm = fake.dm_room(uid)
            if dm and uid not in fake.joined_members(dm):
                fake.accept_invite(uid, dm)
            move = mt.make_transcript.pick(rng, mt.fresh_moves(fake, uid), "fortuna")
            if i == 3:
                bot.stop()
                posts = harness.public_posts(bot.db)
                fake.say(uid, room, "!play " + move)      # encrypted, bot down
                bot2 = new_bot(fake, db=bot.db)
                moves = harness.wait_settled(bot.db, moves, what="after the restart")
                time.sleep(0.5 * SLOW)
                assert harness.store_counts(bot.db)[0] == moves       # once
                assert harness.public_posts(bot.db) - posts <= 1
            else:
                fake.say(uid, room, "!play " + move)
                moves = harness.wait_settled(bot.db, moves, what="after move %d" % i)
        after = [e for e in bot_events(fake, room)
                 if e["content"]["session_id"] in sessions_before]
        assert after, "the bot did not go on with the key the players had"
        assert fake.bot_device() == keys_before, "the device's keys changed"
        assert len(set(fake.logins)) == 1
        mt.check_clean(fake)
    finally:
        for b in (bot2, bot):
            if b and b.proc.poll() is None:
                b.stop()
        fake.stop()


def test_member_who_left_cannot_read_later_messages():
    """Cy leaves an encrypted room: the bot's next message there is under a
    new room key, which Cy's device never gets (no key from the bot reaches
    it after the leave) and cannot decrypt; Ana and Ben can.  Then Ben
    leaves while the bot is stopped: after its restart it replaces the
    stored key too, and Ben cannot read what it says."""
    fake = mt.new_fake()
    bot = new_bot(fake)
    bot2 = None
    try:
        ana, ben, cy = mt.players(fake, 3)
        room = encrypted_room(fake, [ana, ben, cy])
        ask_status(fake, ana, room)
        cyd = fake.e2e.device(cy)
        first = bot_events(fake, room)[-1]
        assert cyd.decrypt(room, first) is not None, "Cy could not read before leaving"
        pos = fake.stream_pos
        fake.leave(cy, room)
        fake.wait_caught_up()
        ask_status(fake, ana, room)
        later = bot_events(fake, room)[-1]
        assert later["content"]["session_id"] != first["content"]["session_id"]
        assert cyd.decrypt(room, later) is None, "Cy read a message sent after she left"
        assert not cyd.can_read(room, later["content"]["session_id"])
        for u in (ana, ben):
            assert fake.e2e.device(u).decrypt(room, later) is not None, u
        assert not [m for m in fake.to_device_sent()
                    if m.user == cy and m.pos > pos], "a key went to Cy after she left"
        # a leave the bot does not see happen: it is down
        bot.stop()
        pos = fake.stream_pos
        fake.leave(ben, room)
        bot2 = new_bot(fake, db=bot.db)
        fake.wait_caught_up()
        ask_status(fake, ana, room)
        after = bot_events(fake, room)[-1]
        assert after["content"]["session_id"] != later["content"]["session_id"]
        assert fake.e2e.device(ben).decrypt(room, after) is None, "Ben read it after leaving"
        assert fake.e2e.device(ana).decrypt(room, after) is not None
        assert not [m for m in fake.to_device_sent()
                    if m.user == ben and m.pos > pos], "a key went to Ben after he left"
        mt.check_clean(fake)
    finally:
        for b in (bot2, bot):
            if b and b.proc.poll() is None:
                b.stop()
        fake.stop()


def test_room_key_rotates_after_rotation_period_msgs():
    """A room whose m.room.encryption says rotation_period_msgs 3: no room
    key of the bot's covers more than 3 of its messages there."""
    fake = mt.new_fake()
    bot = new_bot(fake)
    try:
        ana, ben = mt.players(fake, 2)
        room = encrypted_room(fake, [ana, ben])
        fake.send_event(ana, room, "m.room.encryption",
                        {"algorithm": MEGOLM, "rotation_period_msgs": 3}, state_key="")
        for i in range(7):
            ask_status(fake, ana if i % 2 else ben, room)
        per = {}
        for e in bot_events(fake, room):
            per[e["content"]["session_id"]] = per.get(e["content"]["session_id"], 0) + 1
        assert len(per) >= 3 and max(per.values()) <= 3, per
        mt.check_clean(fake)
    finally:
        bot.stop()
        fake.stop()


def test_room_key_rotates_after_rotation_period_ms():
    """Rotation by time (the bot on the test clock): a room whose
    m.room.encryption says two hours keeps the bot's room key after one
    hour and replaces it after two; a room asking one minute gets the
    floor of an hour, one asking thirty days the ceiling of a week
    (docs/matrix.md).  The players read the new keys."""
    fake = mt.new_fake()
    clock = os.path.join(fake_tmp(), "clock")
    t0 = int(time.time())

    def set_clock(t):
        with open(clock + ".tmp", "w") as f:
            f.write("%d\n" % t)
        os.replace(clock + ".tmp", clock)
    set_clock(t0)
    bot = new_bot(fake, extra_env={"TABULA_TEST_CLOCK": clock})
    try:
        ana, ben = mt.players(fake, 2)
        slow = encrypted_room(fake, [ana, ben], name="slow")
        fast = encrypted_room(fake, [ana, ben], name="fast")
        fake.send_event(ana, slow, "m.room.encryption",
                        {"algorithm": MEGOLM, "rotation_period_ms": 2 * 3600 * 1000},
                        state_key="")
        fake.send_event(ana, fast, "m.room.encryption",
                        {"algorithm": MEGOLM, "rotation_period_ms": 60 * 1000}, state_key="")
        long = encrypted_room(fake, [ana, ben], name="long")
        fake.send_event(ana, long, "m.room.encryption",
                        {"algorithm": MEGOLM, "rotation_period_ms": 30 * DAY_MS}, state_key="")

        def sid(room):
            ask_status(fake, ana, room)
            return bot_events(fake, room)[-1]["content"]["session_id"]
        first = {r: sid(r) for r in (slow, fast, long)}
        set_clock(t0 + 30 * 60)
        assert {r: sid(r) for r in (slow, fast, long)} == first, "replaced before its time"
        set_clock(t0 + 3600 + 5)
        assert sid(slow) == first[slow], "two hours asked, replaced after one"
        assert sid(fast) != first[fast], "not replaced after the floor of an hour"
        set_clock(t0 + 2 * 3600 + 10)
        assert sid(slow) != first[slow], "not replaced after two hours"
        assert sid(long) == first[long], "thirty days asked, replaced after two hours"
        set_clock(t0 + 7 * 24 * 3600 + 20)
        assert sid(long) != first[long], "not replaced after the ceiling of a week"
        for r in (slow, fast, long):
            last = bot_events(fake, r)[-1]
            for u in (ana, ben):
                assert fake.e2e.device(u).decrypt(r, last) is not None, (u, r)
        assert "its time is up" in bot.log()
        mt.check_clean(fake)
    finally:
        bot.stop()
        fake.stop()


def held_ids(db):
    """The event ids of the encrypted events the store holds for their key:
    one row each (matrix.e2e.<d>.held.<event id>), or the single list that
    versions before stored (so a test run against those fails on what it
    asserts, not on reading)."""
    out = set()
    for k, v in cursor_values(db, "matrix.e2e.").items():
        m = re.match(r"matrix\.e2e\.[^.]+\.held\.(.+)$", k)
        if m:
            out.add(m.group(1))
        elif re.match(r"matrix\.e2e\.[^.]+\.held$", k) and v:
            out.update(e["e"]["event_id"] for e in json.loads(v))
    return out


def seats(db):
    """The number of seats of the store's games."""
    con = sqlite3.connect("file:%s?mode=ro" % db, uri=True, timeout=10)
    try:
        return con.execute("SELECT count(*) FROM seats").fetchone()[0]
    finally:
        con.close()


def undecryptable(fake, user, room, n=1, size=2000):
    """n m.room.encrypted events from user in room that nobody can decrypt
    (each under a made-up session: what a member, or a homeserver, can send
    at will); their event ids."""
    ids = []
    for _ in range(n):
        sid = "".join(random.choice("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789")
                      for _ in range(43))
        ids.append(fake.send_event(user, room, "m.room.encrypted", {
            "algorithm": MEGOLM, "sender_key": "F" * 43, "device_id": "FLOOD",
            "session_id": sid, "ciphertext": "A" * size}))
    return ids


def open_lobby(fake, dev, room):
    """dev's player opens a lobby in room (a command the bot can read), then
    starts a new session whose key it has not sent yet."""
    dev.send(room, "!game new fortuna")
    mt.wait_text(fake, room, "lobby")
    fake.wait_idle()
    dev.rotate(room)


def told(fake, room):
    """The bot's "could not read an encrypted message of yours" notices in
    room: the users each mentions."""
    return [m["m.mentions"].get("user_ids", []) for m in fake.bot_messages(room)
            if "could not read an encrypted message" in m.get("body", "")]


def test_late_room_key_handled_exactly_once():
    """A command whose room key reaches the bot after the command does
    waits for it (stored one row per event), across a restart, and is done
    once when the key comes, never again (another restart); commands of
    others are answered meanwhile."""
    fake = mt.new_fake()
    bot = new_bot(fake)
    bot2 = bot3 = None
    try:
        ana, ben = mt.players(fake, 2)
        room = encrypted_room(fake, [ana, ben])
        dev = fake.e2e.device(ana)
        open_lobby(fake, dev, room)
        eid = dev.send(room, "!game addbot 1", share=False)     # the key withheld
        fake.wait_caught_up()
        fake.wait_idle()
        ask_status(fake, ben, room)                         # others go on
        assert seats(bot.db) == 1
        assert held_ids(bot.db) == {eid}, held_ids(bot.db)
        bot.stop()
        bot2 = new_bot(fake, db=bot.db)
        fake.wait_caught_up()
        fake.wait_idle()
        assert seats(bot.db) == 1
        dev.share(room)                                      # the key arrives
        fake._wait(lambda: seats(bot.db) == 2, 10, lambda: "the held command did not run")
        fake.wait_idle()
        time.sleep(0.3 * SLOW)
        bot2.stop()
        bot3 = new_bot(fake, db=bot.db)
        fake.wait_caught_up()
        fake.wait_idle()
        time.sleep(0.3 * SLOW)
        assert seats(bot.db) == 2
        con = sqlite3.connect("file:%s?mode=ro" % bot.db, uri=True)
        assert con.execute("SELECT count(*) FROM sessions").fetchone()[0] == 1
        con.close()
        assert not held_ids(bot.db)
        assert "waits for its key" in bot.log()
        mt.check_clean(fake)
    finally:
        for b in (bot3, bot2, bot):
            if b and b.proc.poll() is None:
                b.stop()
        fake.stop()


def test_room_key_that_never_comes_is_dropped_and_its_sender_told():
    """A command whose key does not come within the wait (shortened here)
    is dropped: its sender is told, once, to send it again; the key coming
    afterwards runs nothing."""
    fake = mt.new_fake()
    bot = new_bot(fake, extra_env={"TABULA_TEST_MATRIX_HOLD_MS": "1500"})
    try:
        ana, ben = mt.players(fake, 2)
        room = encrypted_room(fake, [ana, ben])
        dev = fake.e2e.device(ana)
        open_lobby(fake, dev, room)
        n = len(mt.texts(fake, room))
        dev.send(room, "!game addbot 1", share=False)
        dev.send(room, "!game status", share=False)
        fake.wait_caught_up()
        fake._wait(lambda: len(held_ids(bot.db)) == 2, 10, lambda: "not held")
        time.sleep(1.6 * SLOW)
        fake.say(ben, room, "hello")                        # a sync after the wait
        fake._wait(lambda: told(fake, room), 10, lambda: "no notice: %r" % mt.texts(fake, room))
        assert told(fake, room) == [[ana]], told(fake, room)
        assert not held_ids(bot.db)
        dev.share(room)
        fake.wait_caught_up()
        fake.wait_idle()
        time.sleep(0.3 * SLOW)
        assert seats(bot.db) == 1
        assert len(mt.texts(fake, room)) == n + 1, mt.texts(fake, room)[n:]
        mt.check_clean(fake)
    finally:
        bot.stop()
        fake.stop()


def test_flood_cannot_push_out_a_players_waiting_command():
    """Seventeen accounts in a room of their own (with a game, so that their
    events are held at all) send 16 undecryptable events each, more than the
    whole list holds: a player's command waiting for its key elsewhere stays
    and runs when its key comes (on the old global list the oldest event of
    all went, whoever's it was); the flood's own events push out only the
    flood's (its room's share), and the flooders whose events went are told
    there, once each.  Each flooder gets a few held, then is over its rate."""
    fake = mt.new_fake()
    bot = new_bot(fake)
    try:
        ana, ben = mt.players(fake, 2)
        room = encrypted_room(fake, [ana, ben])
        dev = fake.e2e.device(ana)
        open_lobby(fake, dev, room)
        eid = dev.send(room, "!game addbot 1", share=False)
        fake.wait_caught_up()
        fake._wait(lambda: eid in held_ids(bot.db), 10, lambda: "not held")
        flooders = [fake.register_user("flood%d" % i, "Flood%d" % i) for i in range(17)]
        flood = fake.create_room(flooders[0], name="flood", members=flooders[1:])
        fake.invite_bot(flood, flooders[0])
        fake._wait(lambda: flood in fake.bot_rooms(), 10, lambda: "the bot did not join")
        fake.say(flooders[0], flood, "!game new fortuna")
        mt.wait_text(fake, flood, "lobby")
        for _ in range(16):
            for f in flooders:
                undecryptable(fake, f, flood)
        fake.wait_caught_up(timeout=30)
        fake.wait_idle()
        held = held_ids(bot.db)
        assert eid in held, "the player's command was pushed out"
        assert len(held) <= 1 + 64, len(held)       # the flood room's share
        dev.share(room)                             # a sync: the notices go too
        fake._wait(lambda: seats(bot.db) == 2, 10, lambda: "the held command did not run")
        fake._wait(lambda: told(fake, flood), 10, lambda: "no flooder told")
        fake.wait_idle()
        who = [u for us in told(fake, flood) for u in us]
        assert who and set(who) <= set(flooders), who
        assert len(who) == len(set(who)), "told twice: %r" % who
        assert not told(fake, room), told(fake, room)
        log = bot.log()
        assert "the oldest of them is dropped" in log
        assert "sends more encrypted messages without their keys" in log
        mt.check_clean(fake)
    finally:
        bot.stop()
        fake.stop()


def test_held_events_quotas():
    """Who gets held and how many: a stranger's undecryptable event in a
    room without a game is not held (and they are told); one sender's burst
    is capped by its rate; a flood in the player's own room pushes out the
    flood's events (the room's share goes to whoever holds the most), not
    the player's; and a full list refuses a newcomer's event (told) rather
    than push out anybody's."""
    fake = mt.new_fake()
    bot = new_bot(fake, extra_env={"TABULA_TEST_MATRIX_HOLD_MAX": "80"})
    try:
        ana, ben, cy = mt.players(fake, 3)
        room = encrypted_room(fake, [ana, ben, cy])
        dev = fake.e2e.device(ana)
        # a stranger in a room with no game: not held, told
        odd = fake.register_user("odd", "Odd")
        other = fake.create_room(odd, name="no game")
        fake.invite_bot(other, odd)
        fake._wait(lambda: other in fake.bot_rooms(), 10, lambda: "the bot did not join")
        sid = undecryptable(fake, odd, other)[0]
        fake.wait_caught_up()
        fake._wait(lambda: told(fake, other), 10, lambda: "the stranger was not told")
        assert told(fake, other) == [[odd]]
        assert sid not in held_ids(bot.db)
        # the player's command waits
        open_lobby(fake, dev, room)
        eid = dev.send(room, "!game addbot 1", share=False)
        fake.wait_caught_up()
        fake._wait(lambda: eid in held_ids(bot.db), 10, lambda: "not held")
        # one sender's burst: its rate
        eve = fake.register_user("eve", "Eve")
        fake.join(eve, room)
        eves = undecryptable(fake, eve, room, 12)
        fake.wait_caught_up()
        fake.wait_idle()
        assert len(set(eves) & held_ids(bot.db)) == 8, len(set(eves) & held_ids(bot.db))
        # seventeen more in the player's room: the room's share (64) is
        # kept by pushing out the biggest holders' events, never hers
        mals = [fake.register_user("mal%d" % i, "Mal%d" % i) for i in range(17)]
        for m in mals:
            fake.join(m, room)
        for _ in range(4):
            for m in mals:
                undecryptable(fake, m, room)
        fake.wait_caught_up(timeout=30)
        fake.wait_idle()
        held = held_ids(bot.db)
        assert eid in held and len(held) == 64, (eid in held, len(held))
        # the list full (80 here): a newcomer with nothing held is refused
        # (others' rooms: 64 in the player's room, 16 in a second one)
        room2 = encrypted_room(fake, [ben, cy], name="second")
        open_lobby(fake, fake.e2e.device(ben), room2)
        for i in range(2):
            x = fake.register_user("x%d" % i, "X%d" % i)
            fake.join(x, room2)
            undecryptable(fake, x, room2, 8)
        fake.wait_caught_up()
        fake.wait_idle()
        assert len(held_ids(bot.db)) == 80, len(held_ids(bot.db))
        cid = fake.e2e.device(cy).send(room2, "!game join", share=False)
        fake.wait_caught_up()
        fake.wait_idle()
        assert cid not in held_ids(bot.db)
        assert eid in held_ids(bot.db)
        fake.say(ben, room2, "hello")                   # a sync: the notices
        fake._wait(lambda: [cy] in told(fake, room2), 10, lambda: "cy not told")
        dev.share(room)
        fake._wait(lambda: seats(bot.db) >= 3, 10, lambda: "the held command did not run")
        assert "not held" in bot.log()
        mt.check_clean(fake)
    finally:
        bot.stop()
        fake.stop()


def test_device_keys_signed_topped_up_and_sealed_in_the_store():
    """The bot's device keys are signed by its own key and stay the same
    across restarts; it tops its one-time keys up when they run low and
    replaces a used fallback key; its account is stored pickled with the
    key file beside the store (0600), which opens it, and nothing else
    does."""
    fake = mt.new_fake()
    bot = new_bot(fake)
    bot2 = None
    try:
        fake._wait(lambda: fake.bot_device(), 10, "no device keys")
        dev, dk = fake.bot_device()
        ed = dk["keys"]["ed25519:" + dev]
        assert olmclient.verify(dk, fake.bot_user, "ed25519:" + dev, ed)
        assert set(dk["algorithms"]) >= {olmclient.OLM, MEGOLM}
        fake._wait(lambda: fake.otk_count(fake.bot_user, dev) >= 50, 10, "no one-time keys")
        # claimed at once: a sync between two claims would show the bot a
        # count on its way down (say 30: no top-up yet), and its top-up
        # from a later one (of 50 - 19) would land beside the claims that
        # followed, short of 50
        with fake._lock:
            claimed = [fake.claim_key(fake.bot_user, dev) for _ in range(45)]
        for kid, k in claimed:
            assert not k.get("fallback") and olmclient.verify(
                k, fake.bot_user, "ed25519:" + dev, ed)
        ana, = mt.players(fake, 1)
        room = encrypted_room(fake, [ana])        # a sync: the count is low
        fake._wait(lambda: fake.otk_count(fake.bot_user, dev) >= 50, 10,
                   lambda: "not topped up: %d" % fake.otk_count(fake.bot_user, dev))
        while fake.otk_count(fake.bot_user, dev):
            fake.claim_key(fake.bot_user, dev)
        kid, k = fake.claim_key(fake.bot_user, dev)          # the fallback
        assert k.get("fallback") is True and olmclient.verify(
            k, fake.bot_user, "ed25519:" + dev, ed)
        # two syncs: the key counts of the first one after an upload's
        # answer may be from before it, and are not used (mxe2e_sync)
        ask_status(fake, ana, room)
        ask_status(fake, ana, room)
        fake._wait(lambda: fake._fallback[(fake.bot_user, dev)][0] != kid, 10,
                   "the used fallback key was not replaced")
        # sealed: the key file opens the pickle, another key does not
        keyfile = bot.db + ".matrix-key"
        assert os.stat(keyfile).st_mode & 0o777 == 0o600
        with open(keyfile) as f:
            key = f.read().strip()
        acct = json.loads(cursor_values(bot.db, "matrix.e2e.%s.account" % dev)
                          ["matrix.e2e.%s.account" % dev])["p"]
        opened = olmclient.olm.Account.from_pickle(acct.encode(), key)
        assert opened.identity_keys["ed25519"] == ed
        try:
            olmclient.olm.Account.from_pickle(acct.encode(), "x" * 64)
            assert False, "another key opened the account"
        except olmclient.olm.account.OlmAccountError:
            pass
        log = bot.stop()
        assert key not in log
        bot2 = new_bot(fake, db=bot.db)
        fake.say(ana, room, "!game status")
        fake.wait_idle()
        assert fake.bot_device() == (dev, dk)
        mt.check_clean(fake)
    finally:
        if bot2:
            bot2.stop()
        fake.stop()


def test_wrong_pickle_key_stops_the_bot():
    """Keys sealed with MATRIX_PICKLE_KEY do not open with another: the bot
    stops with exit 16 and says why, and uploads no new keys for its
    device."""
    fake = mt.new_fake()
    bot = new_bot(fake, extra_env={"MATRIX_PICKLE_KEY": "the-first-key-0123456789"})
    try:
        fake._wait(lambda: fake.bot_device(), 10, "no device keys")
        bot.stop()
        uploads = len(fake.keys_uploads)
        bot2 = new_bot(fake, db=bot.db,
                       extra_env={"MATRIX_PICKLE_KEY": "another-key-0123456789"})
        rc = bot2.proc.wait(timeout=20 * SLOW)
        log = bot2.stop(expect=16)
        assert rc == 16 and "do not open" in log, log[-1500:]
        assert "another-key" not in log and "the-first-key" not in log
        assert len(fake.keys_uploads) == uploads
        short = new_bot(fake, extra_env={"MATRIX_PICKLE_KEY": "short"})
        assert short.proc.wait(timeout=20 * SLOW) == 2
        short.stop(expect=2)
        mt.check_clean(fake)
    finally:
        fake.stop()


def test_trust_on_first_use_changed_device_gets_no_key():
    """A device that comes back with other keys under its id (replaced or
    forged) never gets a room key again, and the room's key is replaced;
    a new device of the same player is trusted on first use."""
    fake = mt.new_fake()
    bot = new_bot(fake)
    try:
        ana, ben = mt.players(fake, 2)
        room = encrypted_room(fake, [ana, ben])
        ask_status(fake, ana, room)
        old = fake.e2e.device(ben)
        first = bot_events(fake, room)[-1]
        assert old.decrypt(room, first) is not None
        # Ben's device id now names other keys (a forged device)
        forged = olmclient.Device.__new__(olmclient.Device)
        forged.__dict__.update(old.__dict__)
        forged.acct = olmclient.olm.Account()
        forged.curve = forged.acct.identity_keys["curve25519"]
        forged.ed = forged.acct.identity_keys["ed25519"]
        forged.olm, forged.inbound, forged.keys_from = {}, {}, []
        with fake._lock:
            fake._devices[ben].pop(old.id)
            fake._otks.pop((ben, old.id), None)
            forged.upload()
            fake.e2e.devices[ben].append(forged)
        newdev = fake.e2e.add_device(ben)
        fake.wait_caught_up()
        ask_status(fake, ana, room)
        later = bot_events(fake, room)[-1]
        assert later["content"]["session_id"] != first["content"]["session_id"]
        assert forged.decrypt(room, later) is None, "the changed device got the key"
        assert newdev.decrypt(room, later) is not None, "the new device got no key"
        assert "came back with other keys" in bot.log()
        mt.check_clean(fake)
    finally:
        bot.stop()
        fake.stop()


def test_resent_encrypted_message_appears_once():
    """An encrypted board whose answer is lost goes again with the same
    txnId and the same ciphertext; one re-sent after a restart (encrypted
    anew, under the same txnId) is not a second message either."""
    fake = mt.new_fake()
    bot = new_bot(fake)
    bot2 = None
    try:
        ana, ben = mt.players(fake, 2)
        room = encrypted_room(fake, [ana, ben])
        fake.say(ana, room, "!game new fortuna")
        fake.say(ben, room, "!game join")
        mt.wait_text(fake, room, "Ana, Ben")
        fake.wait_idle()
        # (a) lost once: retried in the process, the same bytes
        fake.lose_response_next("PUT", r"/send/m\.room\.encrypted/tabula\.[0-9]")
        fake.say(ana, room, "!game start")
        mt.wait_boards(fake, room, 1)
        fake.wait_idle()
        assert fake.lost_responses and fake.dedups, "the lost answer was not retried"
        assert not fake.reencrypted
        moves = mt.settle_start(fake, room, bot.db)
        # (b) lost, and the bot killed before it retries: the restart
        # sends it again from the outbox, encrypted anew
        # (every answer to it lost until the kill: a retry in the process
        # before it would be answered, and nothing left to re-send)
        fake.lose_response_next("PUT", r"/send/m\.room\.encrypted/tabula\.[0-9]", count=1000)
        uid = mt.awaited(mt.boards(fake, room)[-1])[0]
        fake.say(uid, room, "!play " + mt.fresh_moves(fake, uid)[0])
        fake._wait(lambda: len(fake.lost_responses) >= 2, 10, "no second lost answer")
        bot.proc.send_signal(signal.SIGKILL)
        bot.proc.wait()
        bot.err.close()
        with fake._lock:
            fake._faults.clear()
        bot2 = new_bot(fake, db=bot.db)
        harness.wait_settled(bot.db, moves - 1, what="after the restart")
        fake.wait_idle()
        assert fake.reencrypted, "the re-sent message was not encrypted anew"
        txn = fake.lost_responses[-1].path.rsplit("/", 1)[1]
        # (the lost one may be the room's board or a player's private
        # message: the room's lane and the direct chat's run side by side)
        with fake._lock:
            landed = [e for r in fake._rooms.values() for e in r.timeline
                      if e.txn and e.txn[2] == txn]
        assert len(landed) == 1, landed
        mt.check_clean(fake)
    finally:
        for b in (bot2, bot):
            if b and b.proc.poll() is None:
                b.stop()
        fake.stop()


def test_resent_picture_after_restart_is_one_event_under_a_new_key():
    """A board's picture in an encrypted room whose answer is lost, the bot
    killed before it retries: after the restart it encrypts the picture
    again under a fresh key, uploads that ciphertext and re-sends the event
    with the same txnId (encrypted anew); the homeserver keeps the first
    event, so the room shows the picture once, and every upload, the unused
    one included, is ciphertext."""
    fake = mt.new_fake()
    bot = new_bot(fake)
    bot2 = None
    try:
        ana, ben = mt.players(fake, 2)
        room = encrypted_room(fake, [ana, ben])
        fake.say(ana, room, "!game new fortuna")
        fake.say(ben, room, "!game join")
        mt.wait_text(fake, room, "Ana, Ben")
        fake.wait_idle()
        # the board's second event (.1): its picture, after the notice;
        # every answer to it lost until the bot is killed (its retries in
        # the process send the same bytes, and are never answered)
        fake.lose_response_next("PUT", r"/send/m\.room\.encrypted/tabula\.[0-9][^/]*\.1$",
                                count=1000)
        fake.say(ana, room, "!game start")
        fake._wait(lambda: fake.lost_responses, 10, "the picture's answer was not lost")
        bot.proc.send_signal(signal.SIGKILL)
        bot.proc.wait()
        bot.err.close()
        with fake._lock:
            fake._faults.clear()
        txn = fake.lost_responses[-1].path.rsplit("/", 1)[1]
        uploads = len(fake.media)
        bot2 = new_bot(fake, db=bot.db)
        fake._wait(lambda: any(r.txn_id == txn for r in fake.reencrypted), 20,
                   "the picture was not sent again")
        fake.wait_idle()
        with fake._lock:
            landed = [e for e in fake._rooms[room].timeline if e.txn and e.txn[2] == txn]
        assert len(landed) == 1, landed
        first = [m for m in fake.bot_message_events(room)
                 if m["event_id"] == landed[0].ev["event_id"]][0]["content"]
        again = [r for r in fake.reencrypted if r.txn_id == txn][-1].content
        assert first["msgtype"] == again["msgtype"] == "m.image", (first, again)
        mt.open_encrypted_picture(fake, first)
        mt.open_encrypted_picture(fake, again)
        assert again["file"]["key"]["k"] != first["file"]["key"]["k"]
        assert again["file"]["url"] != first["file"]["url"] and len(fake.media) > uploads
        pics = [m for m in fake.bot_messages(room) if m.get("msgtype") == "m.image"]
        assert len([m for m in pics if m["body"] == first["body"]]) == 1
        for u, med in fake.media.items():
            assert med.encrypted and not med.data.startswith(mt.PNG_SIGNATURE), u
        mt.check_clean(fake)
    finally:
        for b in (bot2, bot):
            if b and b.proc.poll() is None:
                b.stop()
        fake.stop()


def test_unsupported_encryption_refused():
    """A room encrypted with an algorithm the bot does not speak: it says
    so once, in clear, and leaves (it cannot read or write there)."""
    fake = mt.new_fake()
    bot = new_bot(fake)
    try:
        ana, = mt.players(fake, 1)
        room = fake.create_room(ana, name="odd")
        fake.send_event(ana, room, "m.room.encryption", {"algorithm": "m.megolm.v9.xyz"},
                        state_key="")
        fake.invite_bot(room, ana)
        fake._wait(lambda: any("cannot take part" in t for t in mt.texts(fake, room)), 10,
                   lambda: "no notice in the room")
        fake._wait(lambda: room not in fake.bot_rooms(), 10, lambda: "the bot stayed")
        assert len(mt.texts(fake, room)) == 1
        fake.violations[:] = [v for v in fake.violations if "plaintext message" not in v]
        mt.check_clean(fake)
    finally:
        bot.stop()
        fake.stop()


def test_room_turning_to_unknown_encryption_gets_only_the_refusal():
    """A room in clear that turns to an encryption the bot does not speak
    while an answer waits there (a 429): the answer is not sent; the
    fixed refusal notice is the one message that goes, then the bot
    leaves."""
    fake = mt.new_fake()
    bot = new_bot(fake)
    try:
        ana, = mt.players(fake, 1)
        room = fake.create_room(ana, name="plain")
        fake.invite_bot(room, ana)
        fake._wait(lambda: room in fake.bot_rooms(), 10, lambda: "the bot did not join")
        fake.say(ana, room, "!game new fortuna")
        mt.wait_text(fake, room, "lobby")
        fake.wait_idle()
        n = len(mt.texts(fake, room))
        fake.fail_next("PUT", "/send/", 429, retry_after_ms=int(1500 * SLOW))
        fake.say(ana, room, "!help")
        fake.wait_requests(lambda r: r.status == 429, timeout=10 * SLOW)
        fake.send_event(ana, room, "m.room.encryption", {"algorithm": "m.megolm.v9.xyz"},
                        state_key="")
        fake._wait(lambda: room not in fake.bot_rooms(), 10 * SLOW,
                   lambda: "the bot stayed")
        fake.wait_idle()
        after = mt.texts(fake, room)[n:]
        assert len(after) == 1 and "cannot take part" in after[0], after
        fake.violations[:] = [v for v in fake.violations if "plaintext message" not in v]
        mt.check_clean(fake)
    finally:
        bot.stop()
        fake.stop()


def test_forged_encryption_change_never_sends_in_clear():
    """Encryption is never turned off.  A homeserver forges m.room.encryption
    events (another algorithm; none at all) in a game room and in a
    player's direct chat, both known as Megolm-encrypted, while the bot's
    answers wait for a device query it delays: nothing goes in clear (no
    board, no hand, no refusal notice), the bot stays in both rooms and
    goes on under Megolm, and the log names the forgery."""
    fake = mt.new_fake()
    bot = new_bot(fake)
    try:
        ps = mt.players(fake, 2)
        room = encrypted_room(fake, ps)
        fake.say(ps[0], room, "!game new fortuna")
        fake.say(ps[1], room, "!game join")
        fake.say(ps[0], room, "!game start")
        mt.settle_start(fake, room, bot.db)
        dm = fake.dm_room(ps[0])
        assert dm, "no direct chat"
        if ps[0] not in fake.joined_members(dm):
            fake.accept_invite(ps[0], dm)
        fake.wait_idle()
        n_room, n_dm = len(bot_events(fake, room, None)), len(bot_events(fake, dm, None))
        # the next answers wait for Ana's devices (a new one was announced),
        # whose query the homeserver answers slowly
        fake.fail_next("POST", "/keys/query", 429, retry_after_ms=int(1500 * SLOW))
        fake.e2e.add_device(ps[0])
        nq = len([r for r in fake.requests if "/keys/query" in r.path])
        fake.say(ps[1], room, "!game status")
        fake.say(ps[0], dm, "hand")
        fake.wait_requests(lambda r: "/keys/query" in r.path, n=nq + 1, timeout=10 * SLOW)
        fake.send_event(ps[0], room, "m.room.encryption",
                        {"algorithm": "m.olm.v1.curve25519-aes-sha2"}, state_key="")
        fake.send_event(ps[0], dm, "m.room.encryption", {}, state_key="")
        fake.send_event(ps[0], dm, "m.room.encryption", {"algorithm": "none"}, state_key="")
        fake._wait(lambda: len(bot_events(fake, room, None)) > n_room and
                   len(bot_events(fake, dm, None)) > n_dm, 15 * SLOW,
                   lambda: "the answers never came: %s" % bot.log()[-1500:])
        fake.wait_idle()
        plain = [(e.room, e.content.get("body", "")[:80]) for e in fake.bot_sends()
                 if not e.encrypted]
        assert not plain, ("sent in clear", plain)
        assert room in fake.bot_rooms() and dm in fake.bot_rooms(), "the bot left"
        # and it goes on, encrypted, readable by the players
        ask_status(fake, ps[1], room)
        last = fake.bot_sends(room)[-1]
        assert last.encrypted and last.content.get("body"), last
        log = bot.log()
        assert "encryption is never turned off" in log, log[-2000:]
        assert "cannot take part" not in " ".join(mt.texts(fake, room) + mt.texts(fake, dm))
        fake.violations[:] = [v for v in fake.violations if "plaintext message" not in v]
        mt.check_clean(fake)
    finally:
        bot.stop()
        fake.stop()


def test_remote_strings_cannot_forge_log_lines():
    """Ids and types a homeserver or a stranger chooses (a to-device
    message's sender and type, with newlines, a carriage return, a bidi
    override) are logged on one line, escaped: none writes a log line of
    its own."""
    fake = mt.new_fake()
    bot = new_bot(fake)
    try:
        ana, = mt.players(fake, 1)
        fake._wait(lambda: fake.bot_device() is not None, 10, lambda: "no device keys")
        dev_id, keys = fake.bot_device()
        curve = keys["keys"]["curve25519:" + dev_id]
        forged = "\n2026-11-28T00:00:00Z tabula error: FORGED\r\u202e"
        # (a sender with a carriage return is no user id: not read at all)
        fake.send_to_device("@eve:fake.test" + forged.replace("\r", ""), "EVE",
                            "m.room.encrypted", {
            fake.bot_user: {dev_id: {
                "algorithm": "m.olm.v1.curve25519-aes-sha2",
                "sender_key": "A" * 43,
                "ciphertext": {curve: {"type": 1, "body": "AwgA" * 8}}}}})
        fake.send_to_device(ana, "X", "m.tabula" + forged, {fake.bot_user: {dev_id: {}}})
        fake.wait_caught_up()
        fake._wait(lambda: "could not be decrypted" in bot.log() and "m.tabula" in bot.log(),
                   10 * SLOW, lambda: bot.log()[-1500:])
        log = bot.log()
        for line in log.splitlines():
            assert not line.startswith("2026-11-28T00:00:00Z"), ("a forged line", line)
            assert "\r" not in line and "\u202e" not in line, ("raw controls", line)
        assert "@eve:fake.test\\x0a2026-11-28T00:00:00Z tabula error: FORGED\\u{202e}" \
            in log, log[-1500:]
        assert "m.tabula\\x0a2026-11-28T00:00:00Z tabula error: FORGED\\x0d\\u{202e}" \
            in log, log[-1500:]
    finally:
        bot.stop()
        fake.stop()


def has_encryption(fake, room):
    return any(e["type"] == "m.room.encryption" for e in fake.room_state(room))


def test_homeserver_without_key_api_plain_dms_with_a_note():
    """A homeserver without the key API (/keys/upload answers 404
    M_UNRECOGNIZED to a device that never uploaded its keys): private
    views are not lost, they go to direct chats made without encryption
    whose first message tells the player so; an encrypted room gets the
    refusal notice and the bot leaves it.  A device whose keys were up
    once does not believe the same answer later: its direct chats stay
    encrypted."""
    fake = mt.new_fake()
    unknown = {"errcode": "M_UNRECOGNIZED", "error": "Unrecognized request"}
    fake.fail_next("POST", "/keys/upload", 404, count=1000, body=unknown)
    bot = new_bot(fake)
    try:
        ps = mt.players(fake, 2)
        room = fake.create_room(ps[0], name="plain", members=ps[1:])
        fake.invite_bot(room, ps[0])
        fake._wait(lambda: room in fake.bot_rooms(), 10, lambda: "the bot did not join")
        fake.say(ps[0], room, "!game new fortuna")
        fake.say(ps[1], room, "!game join")
        fake.say(ps[0], room, "!game start")
        mt.settle_start(fake, room, bot.db)
        for p in ps:
            dm = fake.dm_room(p)
            assert dm, "no direct chat for %s" % p
            assert not has_encryption(fake, dm), "encrypted DM"
            fake._wait(lambda: len(mt.texts(fake, dm)) >= 2, 10 * SLOW,
                       lambda: "no hand in %s: %r" % (dm, mt.texts(fake, dm)))
            first = mt.texts(fake, dm)[0]
            assert "not end-to-end encrypted" in first, first
            assert sum("not end-to-end encrypted" in t for t in mt.texts(fake, dm)) == 1
        assert mt.fresh_moves(fake, ps[0]) or mt.fresh_moves(fake, ps[1]), "no moves"
        # an encrypted room: the refusal, then the bot leaves
        enc = fake.create_room(ps[0], name="secret", encrypted=True)
        fake.invite_bot(enc, ps[0])
        fake._wait(lambda: any("cannot take part" in t for t in mt.texts(fake, enc)), 10,
                   lambda: "no refusal")
        fake._wait(lambda: enc not in fake.bot_rooms(), 10, lambda: "the bot stayed")
        assert "no end-to-end encryption keys API" in bot.log()
        fake.violations[:] = [v for v in fake.violations
                              if "plaintext message" not in v and "keys/upload" not in v]
    finally:
        bot.stop()
        fake.stop()
    # keys up once: the same answer later is not believed
    fake = mt.new_fake()
    bot = new_bot(fake)
    try:
        ana, = mt.players(fake, 1)
        # the bot stored that its keys are up (the fake had them before)
        fake._wait(lambda: "uploaded the device's keys" in bot.log(), 10 * SLOW,
                   lambda: "no device keys")
        bot.stop()
        fake.fail_next("POST", "/keys/upload", 404, count=1000, body=unknown)
        bot = new_bot(fake, db=bot.db)
        room = fake.create_room(ana, name="plain")
        fake.invite_bot(room, ana)
        fake._wait(lambda: room in fake.bot_rooms(), 10, lambda: "the bot did not join")
        fake.say(ana, room, "!game new fortuna")
        fake.say(ana, room, "!hand")
        fake._wait(lambda: fake.dm_room(ana) is not None, 10, lambda: "no direct chat")
        assert has_encryption(fake, fake.dm_room(ana)), \
            "a direct chat without encryption after the keys were up"
        assert "no end-to-end encryption keys API" not in bot.log()
    finally:
        bot.stop()
        fake.stop()


def seated(db):
    """The users seated in the store's sessions (any status)."""
    con = sqlite3.connect("file:%s?mode=ro" % db, uri=True, timeout=10)
    try:
        return sorted(u for (u,) in con.execute("SELECT user FROM seats WHERE is_bot = 0"))
    finally:
        con.close()


def lobby_with_ana(fake, bot, ana, room):
    """Ana opens a Fortuna lobby in room; returns once it shows."""
    fake.say(ana, room, "!game new fortuna")
    mt.wait_text(fake, room, "lobby")
    fake.wait_idle()
    assert seated(bot.db) == [ana], seated(bot.db)


def room_key_cursors(db, room=None):
    """The store's inbound session keys (of room, if given)."""
    return {k: v for k, v in cursor_values(db, "matrix.e2e.").items()
            if ".in." in k and (room is None or (".in.%s " % room) in k)}


def test_forged_room_key_from_an_unlisted_device_runs_nothing():
    """Attack 2: the homeserver (or anyone with an Olm device) sends the bot
    a room key "from" Ben over Olm from a device Ben's device list does not
    show, and posts commands "from" Ben under it, with and without a
    sender_key.  The key is refused once Ben's devices are asked, no command
    runs in his name, and that device's Olm session is not kept; Ben's own
    `!game join` then works."""
    fake = mt.new_fake()
    bot = new_bot(fake)
    try:
        ana, ben = mt.players(fake, 2)
        room = encrypted_room(fake, [ana, ben])
        lobby_with_ana(fake, bot, ana, room)
        evil = fake.e2e.rogue_device(ben)
        sid, key = evil.new_session(room)
        evil.send_key_to_bot(room, sid, key)
        fake.wait_caught_up()
        evil.send_as(room, "!game join", ben)
        evil.send_as(room, "!game join", ben, with_sender_key=False)
        fake.wait_caught_up()
        ask_status(fake, ana, room)         # answered after the forged ones
        assert seated(bot.db) == [ana], seated(bot.db)
        log = bot.log()
        assert "does not list" in log, log[-2000:]
        stored = cursor_values(bot.db, "matrix.e2e.")
        assert not [k for k in stored if evil.curve in k], "the rogue device's keys were kept"
        fake.say(ben, room, "!game join")
        fake._wait(lambda: sorted(seated(bot.db)) == sorted([ana, ben]), 10,
                   lambda: "Ben's own join did not run: %r" % seated(bot.db))
        mt.check_clean(fake)
    finally:
        bot.stop()
        fake.stop()


def test_forged_forwarded_room_keys_are_refused():
    """Attack 2: the bot asks nobody for room keys, so it takes no
    m.forwarded_room_key at all.  Cy, a member, forwards a session of his
    own as Ben's; the homeserver forwards another "from the bot's own
    account" through a device that account does not list, and one through
    a device it does list (a homeserver can list one there, as for anyone):
    events "from" Ben under any of them seat nobody.  Ben's own key, sent
    by Ben, works."""
    fake = mt.new_fake()
    bot = new_bot(fake)
    try:
        ana, ben, cy = mt.players(fake, 3)
        bots_other = fake.e2e.add_device(fake.bot_user)
        room = encrypted_room(fake, [ana, ben, cy])
        lobby_with_ana(fake, bot, ana, room)
        bend = fake.e2e.device(ben)
        for forwarder in (fake.e2e.device(cy), fake.e2e.rogue_device(fake.bot_user)):
            sid, _ = forwarder.new_session(room)
            forwarder.send_key_to_bot(room, sid, forwarder.export(room),
                                      forwarded=(bend.curve, bend.ed))
            fake.wait_caught_up()
            forwarder.send_as(room, "!game join", ben, sender_key=bend.curve)
            forwarder.send_as(room, "!game join", ben, with_sender_key=False)
            ask_status(fake, ana, room)
            assert seated(bot.db) == [ana], seated(bot.db)
        # Ben's session, forwarded by the bot's own (listed) other device
        sid, _ = bend.new_session(room)
        bots_other.send_key_to_bot(room, sid, bend.export(room),
                                   forwarded=(bend.curve, bend.ed))
        fake.wait_caught_up()
        bend.send_as(room, "!game join", ben, with_sender_key=False)
        ask_status(fake, ana, room)
        assert seated(bot.db) == [ana], seated(bot.db)
        assert bot.log().count("a forwarded room key; ignored") >= 3, bot.log()[-2000:]
        # Ben's own command, under the key he shares himself
        fake.say(ben, room, "!game join")
        fake._wait(lambda: sorted(seated(bot.db)) == sorted([ana, ben]), 10,
                   lambda: "Ben's own join did not run: %r" % seated(bot.db))
        mt.check_clean(fake)
    finally:
        bot.stop()
        fake.stop()


def test_replayed_encrypted_command_runs_once():
    """Attack 3: the homeserver delivers an encrypted event again in a later
    sync (same event id, same ciphertext).  Ben's `!game join`, replayed
    after he left, does not seat him again: not at once, not after a
    restart, nor its ciphertext under a new event id."""
    fake = mt.new_fake()
    bot = new_bot(fake)
    bot2 = None
    try:
        ana, ben = mt.players(fake, 2)
        room = encrypted_room(fake, [ana, ben])
        lobby_with_ana(fake, bot, ana, room)
        join = fake.say(ben, room, "!game join")
        fake._wait(lambda: sorted(seated(bot.db)) == sorted([ana, ben]), 10, "no join")
        fake.say(ben, room, "!game leave")
        fake._wait(lambda: seated(bot.db) == [ana], 10, "no leave")
        fake.wait_idle()
        fake.redeliver(join)
        ask_status(fake, ana, room)
        assert seated(bot.db) == [ana], ("the replay ran", seated(bot.db))
        assert "a replay" in bot.log()
        bot.stop()
        bot2 = new_bot(fake, db=bot.db)
        fake.wait_caught_up()
        fake.redeliver(join)
        with fake._lock:
            content = fake._events[join].ev["content"]
        fake.send_event(ben, room, "m.room.encrypted", content)    # a new event id
        ask_status(fake, ana, room)
        assert seated(bot.db) == [ana], ("the replay ran after a restart", seated(bot.db))
        assert bot2.log().count("a replay") >= 2, bot2.log()[-2000:]
        # Ben's new join runs
        fake.say(ben, room, "!game join")
        fake._wait(lambda: sorted(seated(bot.db)) == sorted([ana, ben]), 10, "no new join")
        mt.check_clean(fake)
    finally:
        for b in (bot2, bot):
            if b and b.proc.poll() is None:
                b.stop()
        fake.stop()


def test_squatted_session_key_does_not_silence_its_owner():
    """Attack 4: every member holds every other member's room key.  Ben
    sends the bot Ana's session key as his own before Ana's own share
    reaches it: Ana's key is still taken (a separate entry), her commands
    run as hers, and Ben's copy decrypts nothing in her name.  (Ben's first
    key comes before the bot has seen him in the room, members being
    lazy-loaded: it asks the homeserver whether he is a member.)"""
    fake = mt.new_fake()
    fake.hide_pre_join_events = True
    bot = new_bot(fake)
    try:
        ana, ben = mt.players(fake, 2)
        room = encrypted_room(fake, [ana, ben])
        anad, bend = fake.e2e.device(ana), fake.e2e.device(ben)
        bend.share(room)                            # before the bot writes there
        fake.wait_caught_up()
        ask_status(fake, ben, room)                 # the bot knows the room
        sid, key = anad.new_session(room)           # not shared yet
        bend.send_key_to_bot(room, sid, key)        # Ben's "copy" comes first
        fake.wait_caught_up()
        fake.wait_idle()
        fake.say(ana, room, "!game new fortuna")    # her key, then her command
        mt.wait_text(fake, room, "lobby")
        fake.wait_idle()
        assert seated(bot.db) == [ana], seated(bot.db)
        # Ben's copy runs nothing as Ana: an event "from" Ana naming Ben's
        # device under that session is not hers
        c = anad.encrypt(room, {"msgtype": "m.text", "body": "!game leave"}, share=False)
        c["sender_key"] = bend.curve
        fake.send_event(ana, room, "m.room.encrypted", c)
        ask_status(fake, ben, room)
        assert seated(bot.db) == [ana], seated(bot.db)
        keys = room_key_cursors(bot.db, room)
        assert [k for k in keys if (" %s %s " % (sid, ana)) in k], keys.keys()
        with fake._lock:
            asked = [r for r in fake.requests
                     if r.path == "/rooms/%s/state/m.room.member/%s" % (room, ben)]
        assert asked and asked[0].status == 200, "Ben's membership was not asked"
        mt.check_clean(fake)
    finally:
        bot.stop()
        fake.stop()


def test_strangers_keys_not_kept_capped_per_sender_pruned_on_leave():
    """Attack 7 (low): room keys and Olm sessions from a stranger who shares
    no room with the bot are not kept, for the bot's room or another; one
    member's room keys in a room are capped (the oldest go, 32 kept); when
    the bot leaves (here: is kicked), the room's keys go from the store."""
    fake = mt.new_fake()
    bot = new_bot(fake)
    try:
        ana, ben, eve = mt.players(fake, 3, names=("Ana", "Ben", "Eve"))
        room = encrypted_room(fake, [ana, ben])
        other = fake.create_room(eve, name="elsewhere", encrypted=True)
        ask_status(fake, ana, room)
        for i in range(6):
            d = fake.e2e.add_device(eve)
            for r in (room, other):
                sid, key = d.new_session(r)
                d.send_key_to_bot(r, sid, key)
        anad = fake.e2e.device(ana)
        for i in range(40):
            sid, key = anad.new_session(room)
            anad.send_key_to_bot(room, sid, key)
        fake.wait_caught_up()
        ask_status(fake, ana, room)
        stored = cursor_values(bot.db, "matrix.e2e.")
        eves = [d.curve for d in fake.e2e.devices[eve]]
        assert not [k for k in stored for c in eves if c in k], "a stranger's keys were kept"
        mine = [k for k in room_key_cursors(bot.db, room) if (" %s " % ana) in k]
        assert len(mine) == 32, len(mine)
        assert any(sid in k for k in mine), "the newest key was not kept"
        fake.kick(ana, room, fake.bot_user)
        fake.wait_caught_up()
        fake._wait(lambda: not room_key_cursors(bot.db, room), 10,
                   lambda: "%d room keys left" % len(room_key_cursors(bot.db, room)))
        mt.check_clean(fake)
    finally:
        bot.stop()
        fake.stop()


def test_room_keys_stored_by_an_older_version_still_read():
    """A store from before the keys were bound to their senders (inbound
    sessions under "in.<room> <session id>", the indexes seen in "seen")
    keeps working: a command under such a session runs once, its key moves
    to today's format, and an index seen before is not run again."""
    fake = mt.new_fake()
    bot = new_bot(fake)
    bot2 = None
    try:
        ana, ben = mt.players(fake, 2)
        room = encrypted_room(fake, [ana, ben])
        old = fake.say(ana, room, "!game status")
        fake.wait_idle()
        ask_status(fake, ana, room)
        bot.stop()
        # rewrite Ana's session the way an older version stored it
        con = sqlite3.connect(bot.db)
        rows = con.execute("SELECT key, value FROM cursors WHERE key LIKE 'matrix.e2e.%'"
                           " AND key LIKE '%.in.%'").fetchall()
        n = 0
        for k, v in rows:
            head, sid, user, curve = k.rsplit(" ", 3)
            if user != ana:
                continue
            j = json.loads(v)
            seen = {str(i): "$x%d" % i for i in j.get("h", [])}
            seen.update({str(i): "$y%d" % i for i in range(j.get("fl", 0))})
            con.execute("DELETE FROM cursors WHERE key = ?", (k,))
            con.execute("INSERT INTO cursors (key, value) VALUES (?, ?)",
                        ("%s %s" % (head, sid), json.dumps(
                            {"p": j["p"], "sk": curve, "u": user, "ed": j["ed"], "f": False,
                             "seen": seen})))
            n += 1
        con.commit()
        con.close()
        assert n >= 1, rows
        bot2 = new_bot(fake, db=bot.db)
        fake.wait_caught_up()
        fake.say(ana, room, "!game new fortuna")        # under the same session
        mt.wait_text(fake, room, "lobby")
        fake.wait_idle()
        assert seated(bot.db) == [ana]
        keys = room_key_cursors(bot.db, room)
        assert any(k.count(" ") == 3 and (" %s " % ana) in k for k in keys), keys.keys()
        fake.redeliver(old)                             # seen by the older version
        ask_status(fake, ben, room)
        assert "a replay" in bot2.log(), bot2.log()[-2000:]
        mt.check_clean(fake)
    finally:
        for b in (bot2, bot):
            if b and b.proc.poll() is None:
                b.stop()
        fake.stop()


if __name__ == "__main__":
    if len(sys.argv) > 1:
        mt.BIN = sys.argv[1]
    sys.exit(harness.run_tests("matrix-e2e", sys.modules[__name__], sys.argv))
