#!/usr/bin/env python3
"""Regenerates the seed corpora in tests/fuzz/corpus/ (docs/fuzzing.md).

Usage: python3 tests/fuzz/make-seeds.py [./tabula]

Saved games come from real play: the console bot (a built ./tabula) plays
every game (Fortuna, Glory to Rome, Sylla) against its own AI for a few
moves, and the snapshot it stored is copied out of the SQLite file.  Everything else is
written here by hand from the protocol documents.
"""
import json
import os
import sqlite3
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
CORPUS = os.path.join(HERE, "corpus")


def put(target, name, data):
    d = os.path.join(CORPUS, target)
    os.makedirs(d, exist_ok=True)
    if isinstance(data, str):
        data = data.encode()
    with open(os.path.join(d, name), "wb") as f:
        f.write(data)


def saved_game(tabula, game, plays, bots=2):
    with tempfile.TemporaryDirectory() as tmp:
        db = os.path.join(tmp, "t.db")
        lines = ["ana: game new %s" % game] + ["ana: game addbot"] * bots
        lines += ["ana: game start"] + ["ana: play 1"] * plays
        env = dict(os.environ, TABULA_DB=db)
        subprocess.run([tabula, "--console"], input="\n".join(lines) + "\n",
                       env=env, capture_output=True, text=True, timeout=60)
        con = sqlite3.connect(db)
        row = con.execute("select state from sessions order by id desc").fetchone()
        con.close()
        return row[0] if row and row[0] else None


# AI seats beside ana per game: every player count the game allows
BOTS = {"fortuna": (1, 2), "gtr": (1, 2), "sylla": (2, 3), "builders": (1, 2)}


def game_load(tabula, games=("fortuna", "gtr", "sylla", "builders")):
    for game in games:
        # Sylla: 3 plays leave a secret choice half made
        for plays in (0, 3, 4, 12, 40) if game == "sylla" else (0, 4, 12, 40):
            for bots in BOTS[game]:
                st = saved_game(tabula, game, plays, bots)
                if st:
                    put("game_load", "%s-%dp-%d" % (game, bots + 1, plays), st)
    put("game_load", "not-a-game", '{"v":1,"game":"chess"}')


def command():
    # mode byte: room (bits 0-1: lobby f g new; with 0x80, f is b), user
    # (2-3: ana ben cy zed), 0x10 "play " prefix, 0x20 direct, 0x40 es,
    # 0x80 tick
    lines = {
        "lobby-start": (0x00, "game start"),
        "lobby-addbot": (0x00, "game addbot\ngame settings\ngame start"),
        "lobby-join-leave": (0x08, "game join\ngame leave\ngame status"),
        "f-moves": (0x01, "moves\nhand\nboard\nlog"),
        "f-play-num": (0x11, "1\n2\n1"),
        "f-play-hide": (0x11, "hide fortuna\nhide family\nhide construction"),
        "f-play-ben": (0x15, "take water\n1\nhide"),
        "f-play-es": (0x51, "esconder\n1"),
        "f-undo-abort": (0x01, "undo\ngame abort\ngame pause\ngame resume"),
        "f-kick": (0x05, "game kick ana\ngame kick @ana"),
        "f-tick": (0x81, "moves"),
        "g-lead": (0x12, "lead laborer\n1\n1"),
        "g-lead-ben": (0x16, "lead craftsman\nthink draw\nthink jack"),
        "g-concede": (0x12, "concede"),
        "g-cards": (0x02, "card insula\ncard senator\nrules gtr legionary\nhelp gtr"),
        "g-es": (0x46, "jugar 1\nrules gtr\ncard templo"),
        "new-game": (0x03, "game new fortuna draft\ngame new gtr\ngame new chess"),
        "new-help": (0x0f, "help\nmygames\nrules fortuna\nrules"),
        "new-sylla": (0x03, "game new sylla\ngame addbot 2\ngame start\nplay pick senator red\n"
                            "play 1\nplay 1\nmoves\nplay change\nplay 1\nplay 1\nplay 1\nplay 1\n"
                            "play 1\nplay 1\nplay confirm\nplay confirm\nhand\nboard\nplay offer 99\n"
                            "play pass\nplay 1\nplay 1\nlog"),
        "new-sylla-sealed": (0x13, "game new sylla sealed-election\ngame addbot 3\ngame start\n"
                                   "1\n1\n1\n1\nconfirm\n1\nmore\nconfirm\ntoken civic\n1\n1"),
        "new-sylla-texts": (0x43, "rules sylla\nrules sylla eventos\ncard grua\ncard templo privado\n"
                                  "card decadence\ncard panteon\ncard ecclesia\ncard senador"),
        "b-moves": (0x81, "moves\nhand\nboard\nrules builders send"),
        "b-play": (0x91, "take 6 sesterces\nend turn\nstart pyramid"),
        "b-play-ben": (0x95, "take 1\nsend apprentice 2\nback\nend turn"),
        "b-play-es": (0xd1, "tomar 3\nterminar\n1"),
        "b-cards": (0x83, "card piramide\ncard liberto\ngame new builders\nrules builders final"),
        "direct": (0x31, "1\nmoves"),
        "nul": (0x11, "1\0 2"),
        "utf8": (0x11, "\u00e1gua\n\xff\xfe"),
    }
    for name, (mode, text) in lines.items():
        data = bytes([mode]) + text.encode("utf-8", "surrogateescape") \
            if not isinstance(text, bytes) else bytes([mode]) + text
        put("command", name, data)
    put("command", "bad-utf8", bytes([0x11]) + b"\xc3\x28\n\xed\xa0\x80")


READY = {"op": 0, "s": 1, "t": "READY", "d": {
    "v": 10, "session_id": "9f2a1c", "resume_gateway_url":
    "wss://gateway-us-east1-b.discord.gg", "user": {"id": "1100", "username": "tabula",
                                                    "bot": True},
    "application": {"id": "1200", "flags": 0}, "guilds": [{"id": "42", "unavailable": True}],
    "shard": [0, 1]}}

INTERACTION = {
    "id": "1300000000000000001", "application_id": "1200", "type": 2,
    "token": "aW50ZXJhY3Rpb246MTMwMDowMDA.abc-def_ghi", "version": 1,
    "channel_id": "77", "guild_id": "42", "locale": "es-ES",
    "member": {"nick": "Ana", "user": {"id": "501", "username": "ana",
                                        "global_name": "Ana G."}},
    "data": {"id": "9001", "name": "play", "type": 1,
             "options": [{"name": "move", "type": 3, "value": "take water"}]},
}


def gateway():
    def g(name, mode, obj):
        put("discord_gateway", name, bytes([mode]) + (
            obj if isinstance(obj, bytes) else json.dumps(obj).encode()))
    g("hello", ord("1"), {"op": 10, "d": {"heartbeat_interval": 41250}})
    g("ready", ord("2"), READY)
    g("ready-pieces", 0x3a, READY)
    g("dispatch-interaction", ord("3"),
      {"op": 0, "s": 2, "t": "INTERACTION_CREATE", "d": INTERACTION})
    g("guild-create", ord("3"), {"op": 0, "s": 3, "t": "GUILD_CREATE",
                                 "d": {"id": "42", "name": "g", "channels": []}})
    g("heartbeat-ack", ord("7"), {"op": 11})
    g("heartbeat-req", ord("3"), {"op": 1, "d": None})
    g("reconnect", ord("3"), {"op": 7, "d": None})
    g("invalid-session-false", ord("2"), {"op": 9, "d": False})
    g("invalid-session-true", ord("4"), {"op": 9, "d": True})
    g("resumed", ord("4"), {"op": 0, "s": 5, "t": "RESUMED", "d": {}})
    g("closing-text", ord("5"), {"op": 11})
    g("dead-text", ord("6"), {"op": 10, "d": {"heartbeat_interval": 1}})
    g("hello-zero", ord("1"), {"op": 10, "d": {"heartbeat_interval": 0}})
    g("garbage", 0x38, b"\x00\xff{\"op\":")


def interaction():
    put("discord_interaction", "command-play", json.dumps(INTERACTION))
    it = dict(INTERACTION, type=2, data={"id": "9002", "name": "game", "type": 1, "options": [
        {"name": "new", "type": 1, "options": [{"name": "game", "type": 3, "value": "fortuna"},
                                               {"name": "options", "type": 3, "value": "draft"}]}]})
    put("discord_interaction", "command-game-new", json.dumps(it))
    it = dict(INTERACTION, type=4, data={"id": "9001", "name": "play", "type": 1, "options": [
        {"name": "move", "type": 3, "value": "ta", "focused": True}]})
    put("discord_interaction", "autocomplete", json.dumps(it))
    it = dict(INTERACTION, type=3, message={"id": "1400"},
              data={"custom_id": "t1:move:12:7", "component_type": 3, "values": ["take water"]})
    put("discord_interaction", "component-select", json.dumps(it))
    it = dict(INTERACTION, type=3, guild_id=None, member=None,
              user={"id": "501", "username": "ana"}, message={"id": "1400"},
              data={"custom_id": "t1:moves:12:7", "component_type": 2})
    put("discord_interaction", "component-button-dm", json.dumps(it))
    put("discord_interaction", "ping", json.dumps({"id": "1", "application_id": "1200",
                                                   "type": 1, "token": "t", "version": 1}))
    put("discord_interaction", "custom-id", "t1:move:12:7:take water")
    put("discord_interaction", "custom-id-noarg", "t1:board:1:0")


def matrix():
    sync = {
        "next_batch": "s72595_4483_1934",
        "account_data": {"events": [{"type": "m.direct",
                                     "content": {"@ana:example.org": ["!dm:example.org"]}}]},
        "rooms": {
            "join": {"!room:example.org": {
                "state": {"events": [
                    {"type": "m.room.member", "state_key": "@ana:example.org",
                     "sender": "@ana:example.org", "event_id": "$m1",
                     "content": {"membership": "join", "displayname": "Ana"}},
                    {"type": "m.room.encryption", "state_key": "", "sender": "@ana:example.org",
                     "content": {"algorithm": "m.megolm.v1.aes-sha2"}}]},
                "timeline": {"limited": True, "prev_batch": "t34-23535_0_0", "events": [
                    {"type": "m.room.message", "sender": "@ana:example.org",
                     "event_id": "$e1", "origin_server_ts": 1700000000000,
                     "content": {"msgtype": "m.text", "body": "!tabula play take water"}},
                    {"type": "m.room.message", "sender": "@ben:example.org",
                     "event_id": "$e2", "origin_server_ts": 1700000001000,
                     "content": {"msgtype": "m.text", "body": "* fixed",
                                 "m.relates_to": {"rel_type": "m.replace", "event_id": "$e1"}}}]}}},
            "invite": {"!inv:example.org": {"invite_state": {"events": [
                {"type": "m.room.member", "state_key": "@tabula:example.org",
                 "sender": "@ana:example.org", "event_id": "$i1",
                 "content": {"membership": "invite", "is_direct": True}},
                {"type": "m.room.member", "state_key": "@ana:example.org",
                 "sender": "@ana:example.org", "content": {"membership": "join",
                                                            "displayname": "Ana"}}]}}},
            "leave": {"!old:example.org": {}},
        },
    }
    put("matrix_sync", "sync-full", json.dumps(sync))
    put("matrix_sync", "sync-empty", json.dumps({"next_batch": "s1"}))
    put("matrix_sync", "messages-page", json.dumps({
        "start": "t9", "end": "t3", "chunk": [
            {"type": "m.room.message", "sender": "@ana:example.org", "event_id": "$e9",
             "content": {"msgtype": "m.text", "body": "!game status"}},
            {"type": "m.room.member", "sender": "@tabula:example.org",
             "state_key": "@tabula:example.org", "event_id": "$j1",
             "content": {"membership": "join"}, "unsigned": {"prev_content": {"membership": "invite"}}}],
        "state": [{"type": "m.room.member", "sender": "@ana:example.org",
                   "state_key": "@ana:example.org", "content": {"membership": "join",
                                                                "displayname": "Ana"}}]}))
    put("matrix_sync", "sync-summary", json.dumps({
        "next_batch": "s2", "rooms": {"join": {"!r:example.org": {
            "summary": {"m.joined_member_count": 2, "m.invited_member_count": 1},
            "timeline": {"limited": True, "prev_batch": "p1", "events": []}}}}}))
    put("matrix_sync", "sync-bad-utf8", b'{"next_batch":"s2","rooms":{"join":{"!r:x":'
        b'{"timeline":{"events":[{"type":"m.room.message","sender":"@a:x",'
        b'"content":{"msgtype":"m.text","body":"\xc3\x28 \\ud800"}}]}}}}}')

    # rich spans: [kind][len lo][len hi](repeat if kind & 0x80)[text]
    def span(kind, text, rep=None):
        b = text.encode() if isinstance(text, str) else text
        out = bytes([kind | (0x80 if rep else 0), len(b) & 255, len(b) >> 8])
        if rep:
            out += bytes([rep])
        return out + b
    r = (span(4, "Fortuna: round 3") + span(0, "Now: ") + span(2, "Ana <b>")
         + span(0, "@ana:example.org") + span(0, " plays *take* water_") + span(3, "")
         + span(5, "#  Player  Coins\n1  ana     5\n```\n") + span(6, "Lobby")
         + span(0, "!room:example.org") + span(1, "@everyone") + span(3, "")
         + span(2, "Ben") + span(0, "123456789012345678"))
    put("matrix_sync", "rich-board", r)
    put("matrix_sync", "rich-long", span(0, "line of text \u00e1 <&> ", 250) + span(3, "")
        + span(5, "mono ``` block\n", 200) + bytes([200]))
    put("matrix_sync", "rich-mentions", span(2, "Ana") + span(0, "@ana:example.org")
        + span(2, "x") + span(0, "not a user") + span(6 | 0x40, "x")
        + span(0, "#alias:example.org"))


def matrix_invite():
    """Invites as stripped state (first line: the bot's id)."""
    me = "@tabula:example.org"

    def member(key, sender, content):
        return {"type": "m.room.member", "state_key": key, "sender": sender, "content": content}

    def seed(name, events, bot=me):
        put("matrix_invite", name, bot + "\n" + json.dumps({"invite_state": {"events": events}}))
    ana = "@ana:example.org"
    real = [{"type": "m.room.create", "state_key": "", "sender": ana,
             "content": {"creator": ana, "room_version": "10"}},
            {"type": "m.room.name", "state_key": "", "sender": ana, "content": {"name": "Fortuna"}},
            member(ana, ana, {"membership": "join", "displayname": "Ana"}),
            dict(member(me, ana, {"membership": "invite", "is_direct": True}),
                 event_id="$inv", origin_server_ts=1700000000000)]
    seed("direct", real)
    # issue 11: a forged invite of someone else naming an allowed user first
    seed("forged-other", [member("@x:evil.org", ana, {"membership": "invite", "is_direct": True}),
                          member(ana, ana, {"membership": "join", "displayname": "Ana"}),
                          member(me, "@mal:evil.org", {"membership": "invite"})])
    seed("forged-twice", [member(me, ana, {"membership": "invite", "is_direct": True}),
                          member(me, "@mal:evil.org", {"membership": "invite", "is_direct": True})])
    seed("no-sender", [member(me, 7, {"membership": "invite"})])
    seed("not-ours", [member(me + "x", ana, {"membership": "invite"})])
    seed("no-newline", b'{"invite_state":{"events":[]}}'.decode())
    put("matrix_invite", "bad-utf8", me.encode() + b'\n{"invite_state":{"events":[{"type":'
        b'"m.room.member","state_key":"' + me.encode() + b'","sender":"@\xff:x",'
        b'"content":{"membership":"invite","displayname":"\xc3("}}]}}')


def matrix_e2e():
    """End-to-end encryption: to-device and encrypted events in a sync, Olm
    and Megolm plaintexts, ciphertexts and pickles, key answers."""
    me_curve = "bOtCuRvEkEyAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA"
    ana = "@ana:example.org"
    olm_ev = {"type": "m.room.encrypted", "sender": ana,
              "content": {"algorithm": "m.olm.v1.curve25519-aes-sha2",
                          "sender_key": "AnAcUrVe" + "A" * 35,
                          "ciphertext": {me_curve: {"type": 0, "body": "AwogQUJD" * 20},
                                         "other": {"type": 1, "body": "Awog"}}}}
    megolm = {"type": "m.room.encrypted", "sender": ana, "event_id": "$enc1",
              "origin_server_ts": 1700000000000,
              "content": {"algorithm": "m.megolm.v1.aes-sha2", "sender_key": "AnAcUrVe" + "A" * 35,
                          "session_id": "SeSsIoN" + "A" * 36, "device_id": "ANADEV",
                          "ciphertext": "AwgAEqAB" * 30,
                          "m.relates_to": {"rel_type": "m.replace", "event_id": "$x"}}}
    sync = {"next_batch": "s9", "to_device": {"events": [olm_ev, {"type": "m.dummy",
                                                                  "sender": ana, "content": {}}]},
            "device_lists": {"changed": [ana, 7], "left": ["@gone:example.org"]},
            "device_one_time_keys_count": {"signed_curve25519": 3},
            "device_unused_fallback_key_types": [],
            "rooms": {"join": {"!r:example.org": {
                "state": {"events": [{"type": "m.room.encryption", "state_key": "", "sender": ana,
                                      "content": {"algorithm": "m.megolm.v1.aes-sha2",
                                                  "rotation_period_ms": 604800000,
                                                  "rotation_period_msgs": 100}}]},
                "timeline": {"events": [megolm]}}}}}
    put("matrix_e2e", "sync-e2e", json.dumps(sync))
    base = {"sender": ana, "recipient": "@tabula:example.org",
            "recipient_keys": {"ed25519": "BoTeD" + "A" * 38}, "keys": {"ed25519": "AnAeD" + "A" * 38}}
    room_key = dict(base, type="m.room_key", content={
        "algorithm": "m.megolm.v1.aes-sha2", "room_id": "!r:example.org",
        "session_id": "SeSsIoN" + "A" * 36, "session_key": "AgAAAAA" + "B" * 300})
    put("matrix_e2e", "payload-room-key", "p" + json.dumps(room_key))
    fwd = dict(base, type="m.forwarded_room_key", content=dict(
        room_key["content"], sender_key="OrIg" + "A" * 39, sender_claimed_ed25519_key="Cl" * 21,
        forwarding_curve25519_key_chain=[]))
    put("matrix_e2e", "payload-forwarded", "p" + json.dumps(fwd))
    put("matrix_e2e", "payload-dummy", "p" + json.dumps(dict(base, type="m.dummy", content={})))
    put("matrix_e2e", "decrypted-message", "d" + json.dumps({
        "type": "m.room.message", "room_id": "!r:example.org",
        "content": {"msgtype": "m.text", "body": "!play 1"}}))
    put("matrix_e2e", "decrypted-elsewhere", "d" + json.dumps({
        "type": "m.room.message", "room_id": "!other:example.org", "content": {"body": "x"}}))
    put("matrix_e2e", "cipher-megolm", "cAwgAEqABCgoKCgoKCgoKCgoKCgoKCgoKCgoKCgoKCgoKCgo")
    put("matrix_e2e", "cipher-olm", "cAwogQUJDREVGR0hJSktMTU5PUFFSU1RVVldYWVphYmNkZWZn")
    dk = {"user_id": "@a:x", "device_id": "D1", "algorithms": [
        "m.olm.v1.curve25519-aes-sha2", "m.megolm.v1.aes-sha2"],
        "keys": {"curve25519:D1": "C" * 43, "ed25519:D1": "E" * 43},
        "signatures": {"@a:x": {"ed25519:D1": "S" * 86}}}
    put("matrix_e2e", "keys-query", "k" + json.dumps({"D1": dk, "ME": dk}))
    put("matrix_e2e", "keys-held", "k" + json.dumps([{"r": "!r:x", "s": "S", "t": 1, "e": megolm}]))
    # the bot's device: the same sync, and one whose event names no sender_key
    put("matrix_e2e", "bot-sync", "b" + json.dumps(sync))
    bare = json.loads(json.dumps(megolm))
    del bare["content"]["sender_key"]
    sync2 = json.loads(json.dumps(sync))
    sync2["rooms"]["join"]["!r:example.org"]["timeline"]["events"] = [bare]
    put("matrix_e2e", "bot-sync-no-sender-key", "b" + json.dumps(sync2))
    put("matrix_e2e", "ref", "r3 !r:example.org " + "S" * 43 + " @ana:example.org " + "C" * 43)
    keys_cross()


def keys_cross():
    """A whole /keys/query answer with cross-signing keys and a device
    signed by them, with real ed25519 signatures (python3-olm; skipped
    without it) so that the fuzzer starts past the signature checks."""
    try:
        sys.path.append("/usr/lib/python3/dist-packages")
        import olm
    except ImportError:
        print("make-seeds: no python3-olm; keys-answer-cross left as it is")
        return

    def canon(o):
        o = {k: v for k, v in o.items() if k not in ("signatures", "unsigned")}
        return json.dumps(o, sort_keys=True, separators=(",", ":"), ensure_ascii=False)

    def sign(o, key_id, signer):
        o.setdefault("signatures", {}).setdefault("@a:x", {})[key_id] = signer.sign(canon(o))
        return o
    master = olm.PkSigning(olm.PkSigning.generate_seed())
    ssk = olm.PkSigning(olm.PkSigning.generate_seed())
    acct = olm.Account()
    ids = acct.identity_keys
    dk = {"user_id": "@a:x", "device_id": "D1", "algorithms": [
        "m.olm.v1.curve25519-aes-sha2", "m.megolm.v1.aes-sha2"],
        "keys": {"curve25519:D1": ids["curve25519"], "ed25519:D1": ids["ed25519"]}}
    dk["signatures"] = {"@a:x": {"ed25519:D1": acct.sign(canon(dk))}}
    sign(dk, "ed25519:" + ssk.public_key, ssk)

    def xkey(pk, usage):
        return {"user_id": "@a:x", "usage": [usage],
                "keys": {"ed25519:" + pk.public_key: pk.public_key}}
    answer = {"device_keys": {"@a:x": {"D1": dk}},
              "master_keys": {"@a:x": xkey(master, "master")},
              "self_signing_keys": {"@a:x": sign(xkey(ssk, "self_signing"),
                                                 "ed25519:" + master.public_key, master)}}
    put("matrix_e2e", "keys-answer-cross", "k" + json.dumps(answer))


def main():
    tabula = sys.argv[1] if len(sys.argv) > 1 else os.path.join(HERE, "..", "..", "tabula")
    if sys.argv[2:] == ["matrix_e2e"]:
        matrix_e2e()
        return
    game_load(tabula)
    command()
    gateway()
    interaction()
    matrix()
    matrix_invite()
    matrix_e2e()


if __name__ == "__main__":
    main()
