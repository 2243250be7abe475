#!/usr/bin/env python3
"""A season at the table (issue 26, "Done when"), through the real binary on
each platform: three whole games in one room, `rematch` between them, then
`stats`, `leaderboard` and `history` checked against the games' actual
results (the store's results tables, read-only beside the bot) and against
ratings computed here, independently of bot/rating.c, from the formulas of
docs/ratings.md (Weng–Lin, Plackett–Luce).

  - test_console_season_in_spanish: the console, the room in Spanish
    (`game settings locale es`), two people and AI basic;
  - test_discord_season: the loopback Discord fake, one rematch by the
    Rematch button and one by /rematch; the pictures of stats and
    leaderboard come, and every public payload is scanned for the games'
    secrets after every step;
  - test_matrix_season: the Matrix fake, the room in a space (an
    m.space.parent state event): the leaderboard has the community's
    section; public events scanned the same way.

usage: season_test.py ./tabula [test-name ...]
"""
import math
import os
import random
import re
import sqlite3
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "fakes"))
sys.path.insert(0, HERE)
import crash_test  # noqa: E402
import harness  # noqa: E402

BIN = "./tabula"

# docs/ratings.md, "The parameters"
MU, SIGMA, BETA, KAPPA, TAU = 25.0, 25.0 / 3, 25.0 / 6, 1e-4, 25.0 / 300


def wl_update(players, ranks):
    """One game's Weng–Lin Plackett–Luce update (docs/ratings.md, "The
    update"): players [(mu, sigma)], ranks [int] (1 best, equal = tie).
    Returns the new [(mu, sigma)]."""
    n = len(players)
    s2 = [s * s + TAU * TAU for _, s in players]          # 1. dynamics
    c = math.sqrt(sum(v + BETA * BETA for v in s2))       # 2. scale
    a = [sum(1 for r in ranks if r == ranks[q]) for q in range(n)]   # 3. ties
    sq = [sum(math.exp(players[s][0] / c) for s in range(n) if ranks[s] >= ranks[q])
          for q in range(n)]
    out = []
    for i in range(n):
        omega = delta = 0.0
        for q in range(n):
            if ranks[q] > ranks[i]:
                continue
            p = math.exp(players[i][0] / c) / sq[q]
            omega += ((1.0 if q == i else 0.0) - p) / a[q]
            delta += p * (1 - p) / a[q]
        omega *= s2[i] / c
        gamma = math.sqrt(s2[i]) / c
        delta *= gamma * s2[i] / (c * c)
        out.append((players[i][0] + omega, math.sqrt(s2[i]) * math.sqrt(max(1 - delta, KAPPA))))
    return out


def wl_self_check():
    """The worked example of docs/ratings.md (game 1: A > B > C from the
    defaults; game 2: B and C share the win, A last), to its 10 decimals'
    1e-9: keeps this file's formulas honest before they judge the bot."""
    r = wl_update([(MU, SIGMA)] * 3, [1, 2, 3])
    want = [(27.8690486807, 8.2052433774), (25.7172621702, 8.0582242228),
            (21.4136891491, 8.0582242228)]
    assert all(abs(a - b) < 1e-9 for x, y in zip(r, want) for a, b in zip(x, y)), r
    r = wl_update(r, [3, 1, 1])
    want = [(26.1881417323, 8.0669718968), (26.3591182748, 7.9368512133),
            (22.3930497956, 7.9544249144)]
    assert all(abs(a - b) < 1e-9 for x, y in zip(r, want) for a, b in zip(x, y)), r


def ranks_of(seats):
    """Competition ranks from a result's seats (score, winner): winners
    first, tied; then by score, higher first (docs/ratings.md, "From a
    game's result to ranks")."""
    key = [(0 if w else 1, -sc) for sc, w in seats]
    return [1 + sum(1 for k in key if k < key[i]) for i in range(len(seats))]


def results(db, platform):
    """The finished games in order: [(session, game, moves, finished_at,
    created, rated, [(player, name, is_bot, place, score, winner, nwinners)])]."""
    con = sqlite3.connect("file:%s?mode=ro" % db, uri=True, timeout=10)
    try:
        out = []
        for row in con.execute("SELECT session, game, moves, finished_at, created, rated"
                               " FROM results WHERE platform = ? ORDER BY finished_at, session",
                               (platform,)).fetchall():
            seats = con.execute("SELECT player, name, is_bot, place, score, winner, nwinners"
                                " FROM result_seats WHERE session = ? ORDER BY seat",
                                (row[0],)).fetchall()
            out.append(row + (seats,))
        return out
    finally:
        con.close()


def season(res):
    """What the record should say after the games res: {player: figures},
    computed here from each game's scores and winners."""
    who = {}
    for _, _, _, _, _, rated, seats in res:
        assert rated == 1, res
        ranks = ranks_of([(s[4], s[5]) for s in seats])
        # the bot's places are these ranks
        assert [s[3] for s in seats] == ranks, (seats, ranks)
        for s in seats:
            assert s[6] == sum(1 for t in seats if t[5]), seats
        keys = [s[0] for s in seats]
        assert len(set(keys)) == len(keys), "a player twice in one game: %r" % keys
        for s in seats:
            who.setdefault(s[0], {"name": s[1], "rating": (MU, SIGMA), "games": 0,
                                  "wins": 0.0, "place_sum": 0, "score_sum": 0,
                                  "best": None, "streak": 0})
        new = wl_update([who[k]["rating"] for k in keys], ranks)
        for s, r in zip(seats, new):
            f = who[s[0]]
            f["rating"] = r
            f["games"] += 1
            f["wins"] += 1.0 / s[6] if s[5] else 0.0
            f["place_sum"] += s[3]
            f["score_sum"] += s[4]
            f["best"] = s[4] if f["best"] is None else max(f["best"], s[4])
            if s[5]:
                f["streak"] = f["streak"] + 1 if f["streak"] > 0 else 1
            else:
                f["streak"] = f["streak"] - 1 if f["streak"] < 0 else -1
    return who


def fmt_wins(w):
    if abs(w - round(w)) < 1e-9:
        return "%.0f" % w
    s = "%.2f" % w
    return s[:-1] if s.endswith("0") else s


def stats_line(f, es=False):
    """The figures of `stats` for one game, as the bot prints them."""
    mu, sigma = f["rating"]
    g = f["games"]
    streak = ("G" if es else "W") if f["streak"] > 0 else ("P" if es else "L")
    if es:
        return ("%d partidas, %s victorias (%.0f%%), puesto medio %.1f, puntuación media %.1f, "
                "mejor puntuación %d; puntuación de nivel %.1f ± %.1f (μ − 3σ %.1f); racha %s%d"
                % (g, fmt_wins(f["wins"]), 100.0 * f["wins"] / g, f["place_sum"] / g,
                   f["score_sum"] / g, f["best"], mu, sigma, mu - 3 * sigma, streak,
                   abs(f["streak"])))
    return ("%d games, %s wins (%.0f%%), average place %.1f, average score %.1f, "
            "best score %d; rating %.1f ± %.1f (μ − 3σ %.1f); streak %s%d"
            % (g, fmt_wins(f["wins"]), 100.0 * f["wins"] / g, f["place_sum"] / g,
               f["score_sum"] / g, f["best"], mu, sigma, mu - 3 * sigma, streak,
               abs(f["streak"])))


def board_line(f, es=False):
    """A player's row of `leaderboard` (its text form), after "N. name"."""
    mu, sigma = f["rating"]
    rate = 100.0 * f["wins"] / f["games"]
    return (" %.1f (μ %.1f ± %.1f), %d %s, %.0f%% %s"
            % (mu - 3 * sigma, mu, sigma, f["games"], "partidas" if es else "games", rate,
               "victorias" if es else "wins"))


def check_leaderboard(text, who, label, es=False):
    """The leaderboard's rows, in order of mu − 3 sigma, each with its
    numbers; label(player) is how the bot names a player."""
    order = sorted(who, key=lambda k: -(who[k]["rating"][0] - 3 * who[k]["rating"][1]))
    text = text.replace("*", "")     # the asker's name is emphasised
    pos = []
    for n, k in enumerate(order, 1):
        line = "%d. %s%s" % (n, label(k), board_line(who[k], es))
        assert line in text, "no %r in the leaderboard:\n%s" % (line, text)
        pos.append(text.index(line))
    assert pos == sorted(pos), (pos, text)


def check_history(text, res, label, es=False):
    """`history`: every game, newest first, its moves, each seat's score
    and its winners."""
    text = text.replace("*", "")     # the ids are emphasised
    pos = []
    for sid, _, moves, _, _, _, seats in res:
        m = re.search(r"#%d · [^\n]* · %d %s" % (sid, moves, "jugadas" if es else "moves"), text)
        assert m, "game #%d (%d moves) not in the history:\n%s" % (sid, moves, text)
        pos.append(m.start())
        after = text[m.end():]
        for s in seats:
            assert "%s %d" % (label(s[0]), s[4]) in after.split("\n")[1], (s, after[:300])
        winners = ", ".join(label(s[0]) for s in seats if s[5])
        won = ("  ganó " if es else "  won by ") + winners
        assert after.split("\n")[2] == won, (won, after[:300])
    assert pos == sorted(pos, reverse=True), ("not newest first", pos)


# ---- console ----

def console_play(bot, room, rng, names):
    """Plays the room's game to its end with random legal moves."""
    for _ in range(3000):
        choices = {}
        for who in names:
            ids = [m.group(2).strip() for m in map(crash_test.MOVE_RE.match,
                                                     crash_test.ask(bot, "#%s %s: moves" % (room, who)))
                   if m and m.group(1) == who]
            if ids:
                choices[who] = ids
        if not choices:
            return
        who = rng.choice(sorted(choices))
        out = crash_test.ask(bot, "#%s %s: play %s" % (room, who, rng.choice(choices[who][:8])))
        if any("Fin de la partida" in l or "Game over" in l for l in out):
            return
    raise AssertionError("the game did not end")


@harness.whole_game_scan
def test_console_season_in_spanish():
    import tempfile
    wl_self_check()
    crash_test.BIN = BIN
    db = os.path.join(tempfile.mkdtemp(prefix="tabula-season-"), "t.db")
    bot = crash_test.Bot(db)
    rng = random.Random(26)
    try:
        crash_test.ask(bot, "#sa ana: game new fortuna")
        out = crash_test.ask(bot, "#sa ana: game settings locale es")
        assert any("español" in l for l in out), out
        crash_test.ask(bot, "#sa ben: game join")
        crash_test.ask(bot, "#sa ana: game addbot 1")
        crash_test.ask(bot, "#sa ana: game start")
        console_play(bot, "sa", rng, ("ana", "ben"))
        for opener, other in (("ben", "ana"), ("ana", "ben")):
            out = "\n".join(crash_test.ask(bot, "#sa %s: rematch" % opener))
            assert "¡Revancha! @%s" % other in out, out
            crash_test.ask(bot, "#sa %s: game join" % other)
            out = "\n".join(crash_test.ask(bot, "#sa %s: game start" % opener))
            console_play(bot, "sa", rng, ("ana", "ben"))
        res = results(db, "console")
        assert len(res) == 3, res
        who = season(res)
        assert set(who) == {"ana", "ben", "ai:basic"}, who

        def label(k):
            return "IA básica" if k == "ai:basic" else k
        for k, q in (("ana", "ana: stats"), ("ben", "ana: stats ben fortuna"),
                     ("ai:basic", "ben: stats ai basic")):
            out = "\n".join(crash_test.ask(bot, "#sa " + q))
            assert "== %s · " % label(k) in out, out
            line = "Fortuna: " + stats_line(who[k], es=True)
            assert line in out, "%r not in:\n%s" % (line, out)
            if "fortuna" not in q:
                assert "3 partidas, %s victorias" % fmt_wins(who[k]["wins"]) in out, out
                assert "favorito: Fortuna" in out, out
            assert all(l.startswith("[dm ") for l in out.split("\n")), out
        out = "\n".join(l[len("[room #sa] "):] for l in crash_test.ask(bot, "#sa ben: leaderboard")
                        if l.startswith("[room #sa] "))
        assert "Clasificación · Fortuna" in out, out
        check_leaderboard(out, who, label, es=True)
        assert re.search(r"^3\. \*ben\* .* ← tú$", out, re.M) or \
            re.search(r"^\d\. \*ben\* .* ← tú$", out, re.M), out
        out = "\n".join(l[len("[room #sa] "):] for l in crash_test.ask(bot, "#sa ana: history")
                        if l.startswith("[room #sa] "))
        assert "Partidas terminadas aquí" in out, out
        check_history(out, res, label, es=True)
    finally:
        bot.close()


# ---- Discord ----

def wait_results(db, platform, n):
    end = time.monotonic() + 10 * harness.SLOW
    while True:
        res = results(db, platform)
        if len(res) >= n or time.monotonic() > end:
            assert len(res) == n, res
            return res
        time.sleep(0.05)


def discord_next_game(fake, dt, nboards):
    """Waits for the board of a game just started (the boards are counted
    over the whole channel)."""
    dt.wait_boards(fake, nboards + 1)


@harness.whole_game_scan
def test_discord_season():
    import discord_test as dt
    wl_self_check()
    dt.BIN = BIN
    fake, bot = dt.start()
    fake.channel_rate = (50, 1.0)
    try:
        fake.wait_ready(10)
        fake.wait_commands()
        p1, p2 = dt.user(fake, 1), dt.user(fake, 2)
        users = {p["id"]: p for p in (p1, p2)}
        rng = random.Random(26)
        mark = fake.public_mark()
        dt.cmd(fake, p1, "game", {"game": "fortuna"}, sub="new")
        dt.cmd(fake, p2, "game", sub="join")
        dt.cmd(fake, p1, "game", {"count": 1}, sub="addbot")
        dt.cmd(fake, p1, "game", sub="start")
        dt.wait_boards(fake, 1)
        _, bs = dt.play_to_end(fake, users, rng, db=bot.db, mark=mark)
        # the first rematch by the button of the last board
        final = bs[-1]
        rematch = dt.button(final, "rematch")
        h = fake.click(p2, dt.CHAN, final, rematch)
        data = h.wait_response(timeout=5)["data"]
        assert "Rematch!" in data["content"] and "<@%s>" % p1["id"] in data["content"], data
        assert data["allowed_mentions"].get("users") == [p1["id"]], data["allowed_mentions"]
        h = fake.click(p1, dt.CHAN, final, rematch)
        assert "Seats (3 of" in dt.one_text(h), dt.one_text(h)
        n = len(dt.boards(fake))
        dt.cmd(fake, p2, "game", sub="start")
        dt.wait_boards(fake, n + 1)
        _, bs = dt.play_to_end(fake, users, rng, db=bot.db, mark=fake.public_mark())
        # the second by /rematch
        h = dt.cmd(fake, p1, "rematch")
        t = dt.one_text(h)
        assert "Rematch!" in t and "<@%s>" % p2["id"] in t, t
        dt.cmd(fake, p2, "game", sub="join")
        n = len(dt.boards(fake))
        dt.cmd(fake, p1, "game", sub="start")
        dt.wait_boards(fake, n + 1)
        dt.play_to_end(fake, users, rng, db=bot.db, mark=fake.public_mark())
        res = wait_results(bot.db, "discord", 3)
        who = season(res)
        assert set(who) == {p1["id"], p2["id"], "ai:basic"}, who

        def label(k):
            return "AI basic" if k == "ai:basic" else who[k]["name"]
        # a game in play in another channel: what the scans look for now
        chan2 = "700000000000000002"
        said = []
        for p, sub, opts in ((p1, "new", {"game": "gtr"}), (p2, "join", None),
                             (p1, "start", None)):
            # (Glory to Rome: hands from the start)
            h = fake.command(p, chan2, "game", opts, sub=sub)
            h.wait_response(timeout=5)
            said.append(dt.one_text(h))
        fake._wait(lambda: hidden_now(bot.db), 10, lambda: "no game in play in %s: %r"
                   % (chan2, said))
        mark = fake.public_mark()
        for asker, about, k in ((p1, None, p1["id"]), (p1, "player2", p2["id"]),
                                (p2, "ai basic", "ai:basic")):
            ms = dt.with_picture(dt.cmd(fake, asker, "stats", {"about": about} if about else None))
            assert all(x["ephemeral"] for x in ms), ms
            body = "\n".join(x["content"] for x in ms).replace("*", "")
            assert "This community" in body, body
            line = "Fortuna: " + stats_line(who[k])
            assert line in body, "%r not in:\n%s" % (line, body)
            info, _ = dt.attachment_png([x for x in ms if dt.picture_text(x)][0])
            assert label(k) in info["text"] and "uncertainty" in info["text"], info["text"]
        ms = dt.with_picture(dt.cmd(fake, p2, "leaderboard"))
        assert not any(x["ephemeral"] for x in ms), ms
        body = "\n".join(x["content"] for x in ms)
        assert "This community" in body and "Everyone on Discord" in body, body
        check_leaderboard(body.replace("\\", ""), who, label)    # "1\\." (Markdown)
        assert re.search(r"player2\*\* .* ← you$", body, re.M), body
        info, _ = dt.attachment_png([x for x in ms if dt.picture_text(x)][0])
        for k in who:
            assert label(k) in info["text"], (label(k), info["text"])
        h = dt.cmd(fake, p1, "history", {"count": 3})
        got = dt.texts(h)
        assert not any(e for _, e in got), got
        check_history("\n".join(c for c, _ in got).replace("\\", ""), res, label)
        dt.scan(fake, bot.db, mark, " after stats, leaderboard and history")
        assert fake.violations == [], fake.violations
    finally:
        bot.stop()
        fake.stop()


def hidden_now(db):
    import hidden
    return hidden.secrets_now(db)


# ---- Matrix ----

def picture_after(fake, room, msg):
    """The m.image that is the later part of msg's message, or None: its
    transaction id is msg's with the next part number ("tabula.r.5.12.0.<run>"
    then "tabula.r.5.12.1.<run>")."""
    ms, txns = fake.bot_messages(room), fake.bot_message_txns(room)
    for i, m in enumerate(ms):
        if m == msg and txns[i]:
            parts = txns[i].split(".")
            for m2, t2 in zip(ms[i + 1:], txns[i + 1:]):
                p2 = (t2 or "").split(".")
                if len(p2) == len(parts) and p2[:-2] == parts[:-2] and p2[-1] == parts[-1] \
                        and m2.get("msgtype") == "m.image":
                    return m2
            return None
    return None

@harness.whole_game_scan
def test_matrix_season():
    import matrix_test as mt
    wl_self_check()
    mt.BIN = BIN
    fake = mt.new_fake()
    bot = mt.Bot(fake)
    try:
        ps = mt.players(fake, 2)
        # the room is in a space: its m.space.parent names the community
        space = fake.create_room(ps[0], name="The club")
        room = fake.create_room(ps[0], name="Fortuna night", members=ps[1:])
        fake.send_event(ps[0], room, "m.space.parent", {"via": [fake.server_name]},
                        state_key=space)
        fake.invite_bot(room, ps[0])
        fake._wait(lambda: room in fake.bot_rooms(), 10, lambda: "the bot did not join")
        scan = mt.Scan(fake, bot.db)
        rng = random.Random(26)
        fake.say(ps[0], room, "!game new fortuna")
        mt.wait_text(fake, room, "lobby")
        fake.say(ps[1], room, "!game join")
        fake.say(ps[0], room, "!game addbot")
        fake._wait(lambda: any("Ana, Ben, AI 1" in t for t in mt.texts(fake, room)), 10,
                   lambda: "no AI seat: %r" % mt.texts(fake, room)[-2:])
        fake.say(ps[0], room, "!game start")
        mt.play_scanned(fake, room, ps, "fortuna", rng, scan, bot.db)
        for opener, other in ((ps[1], ps[0]), (ps[0], ps[1])):
            n = len(fake.bot_messages(room))
            fake.say(opener, room, "!rematch")
            mt.wait_text(fake, room, "Rematch!", after=n)
            msg = [m for m in fake.bot_messages(room)[n:] if "Rematch!" in m.get("body", "")][-1]
            assert msg["m.mentions"].get("user_ids") == [other], msg["m.mentions"]
            fake.say(other, room, "!game join")
            fake._wait(lambda: any("Seats (3 of" in t for t in mt.texts(fake, room)[n:]), 10,
                       lambda: "the rematch did not fill: %r" % mt.texts(fake, room)[-2:])
            nb = len(mt.boards(fake, room))
            fake.say(opener, room, "!game start")
            mt.wait_boards(fake, room, nb + 1)
            mt.play_scanned(fake, room, ps, "fortuna", rng, scan, bot.db)
        res = wait_results(bot.db, "matrix", 3)
        con = sqlite3.connect("file:%s?mode=ro" % bot.db, uri=True, timeout=10)
        comm = con.execute("SELECT DISTINCT community FROM results").fetchall()
        con.close()
        assert comm == [(space,)], (comm, space)
        who = season(res)
        assert set(who) == set(ps) | {"ai:basic"}, who

        def label(k):
            return "AI basic" if k == "ai:basic" else who[k]["name"]
        # a game in play in a second room: what the scans look for now
        room2 = mt.game_room(fake, ps)
        for p, line in ((ps[0], "!game new gtr"), (ps[1], "!game join"),
                        (ps[0], "!game start")):
            fake.say(p, room2, line)
            fake.wait_idle(quiet_s=0.05)
        fake._wait(lambda: hidden_now(bot.db), 10, lambda: "no game in play in the second room")
        scan()
        for asker, about, k in ((ps[0], "", ps[0]), (ps[0], " Ben", ps[1]),
                                (ps[1], " ai basic", "ai:basic")):
            dm = fake.dm_room(asker)
            n = len(fake.bot_messages(dm)) if dm else 0
            fake.say(asker, room, "!stats" + about)
            line = "Fortuna: " + stats_line(who[k])

            def answer():
                d = fake.dm_room(asker)
                return d and [m for m in fake.bot_messages(d)[n:] if line in
                              m.get("body", "").replace("*", "").replace("\\", "")]
            fake._wait(answer, 10, lambda: "no %r in %r" % (
                line, [m.get("body") for m in fake.bot_messages(fake.dm_room(asker))[n:]]))
            msg = answer()[0]
            assert "This community" in msg["body"], msg["body"]
            assert line not in "\n".join(mt.texts(fake, room)), "stats in public"
            dm = fake.dm_room(asker)
            fake._wait(lambda: picture_after(fake, dm, msg), 10, lambda: "no stats picture: %r"
                       % [(t, m.get("msgtype"), m.get("body", "")[:80]) for m, t in
                          zip(fake.bot_messages(dm), fake.bot_message_txns(dm))][-4:])
            pic = fake.picture_text(picture_after(fake, dm, msg))
            assert label(k) in pic and "uncertainty" in pic, pic
        n = len(fake.bot_messages(room))
        fake.say(ps[1], room, "!leaderboard fortuna")
        mt.wait_text(fake, room, "Leaderboard", after=n)
        msg = [m for m in fake.bot_messages(room)[n:] if "Leaderboard" in m.get("body", "")][0]
        body = msg["body"].replace("\\", "")
        assert "This community" in body and "Everyone on Matrix" in body, body
        assert body.index("This community") < body.index("Everyone on Matrix"), body
        check_leaderboard(body.split("Everyone on Matrix")[0], who, label)
        check_leaderboard(body.split("Everyone on Matrix")[1], who, label)
        assert re.search(r"^\d+\. Ben .* ← you$", body.replace("*", ""), re.M), body

        def lb_picture():
            # (no game in play in this room: the next picture is the leaderboard's)
            ms = fake.bot_messages(room)
            return [m for m in ms[ms.index(msg):] if m.get("msgtype") == "m.image"]
        fake._wait(lb_picture, 10, lambda: "no leaderboard picture: %r"
                   % [(t, m.get("msgtype"), m.get("body", "")[:60]) for m, t in
                      zip(fake.bot_messages(room), fake.bot_message_txns(room))][-3:])
        pic = fake.picture_text(lb_picture()[0])
        assert "Leaderboard" in pic and all(label(k) in pic for k in who), pic
        n = len(fake.bot_messages(room))
        fake.say(ps[0], room, "!history")
        mt.wait_text(fake, room, "Finished games here", after=n)
        msg = [m for m in fake.bot_messages(room)[n:] if "Finished games" in m.get("body", "")][0]
        check_history(msg["body"].replace("\\", ""), res, label)
        scan()
        assert scan.pictures > 30, scan.pictures
        mt.check_clean(fake)
    finally:
        bot.stop()
        fake.stop()


if __name__ == "__main__":
    sys.exit(harness.run_tests("season", sys.modules[__name__], sys.argv))
