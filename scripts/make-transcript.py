#!/usr/bin/env python3
"""Generates a console transcript of a whole game for tests/data/.

    scripts/make-transcript.py ./tabula OUT.txt [--game ID] [--seed N]
                               [--players ana,ben,cy] [--bots N] [--pick-seed N]

It runs the real binary once per command on a scratch store (TABULA_SEED
fixed, so the game is the same on every run), reads whose turn it is from
`board`, lists that player's `moves`, and picks one greedily (what advances
to Rome first), with a seeded random choice one time in ten.  The transcript records
the inputs and a few expectations (the start, the end, the winner), so the
test fails when the rules or the parser change what this game means; rerun
this script then and review the diff.

With --rematches N the players play N more games in a row with `rematch`
(the second player asks first, then the others in turn; the rest `game
join`), and the transcript checks the offer on the final board, the pings,
the AI seats coming back and the refusals (a stranger, a lobby already
open).
"""
import argparse
import os
import random
import re
import subprocess
import sys
import tempfile


def bot(binary, db, seed, line):
    env = {k: v for k, v in os.environ.items() if not k.startswith(("DISCORD_", "MATRIX_"))}
    env.update({"TABULA_DB": db, "TABULA_SEED": str(seed), "TABULA_LOG": "warn"})
    p = subprocess.run([binary], input=(line + "\n").encode(), capture_output=True, env=env,
                       timeout=60)
    if p.returncode:
        sys.exit(f"bot failed on {line!r}: {p.stderr.decode()}")
    return p.stdout.decode()


PASSIVE = ("skip", "pay tax", "done", "none")
# A greedy player: what moves it to Rome first, then what builds towards it.
PREFERENCE = ("deliver", "favour", "advance", "marry", "build palace", "keep",
              "privilege", "obtain", "priestess for die", "recruit", "harvest",
              "build", "sell", "collect", "take", "choose", "card fortuna", "military",
              "card", "exchange", "corrupt", "hide", "draft", "flip", "roll")


def number(move):
    m = re.search(r"(\d+)", move)
    return int(m.group(1)) if m else 0


def seat_area(board, who):
    """The lines of who's area on a The Builders board (header and indented
    lines), as one string."""
    out, inside = [], False
    for line in board.splitlines():
        body = line[len("[room] "):] if line.startswith("[room] ") else None
        if body is None:
            continue
        if body.startswith(who + " ") and "—" in body:
            inside = True
        elif inside and not body.startswith("  "):
            break
        if inside:
            out.append(body)
    return "\n".join(out)


def pick_builders(rnd, moves, area):
    """A plain The Builders player: completes a building when a send does,
    keeps workers busy on at most two buildings, hires up to four workers,
    buys slaves and a tool when it can, takes sesterces with the free
    actions left, frees slaves and repays loans at the end.  moves:
    [(id, label)]; area: the seat's lines of the board."""
    ids = [i for i, _ in moves]
    label = dict(moves)
    building = area.count("building:")
    team = area.count("wage")

    def first(*prefixes, where=lambda i: True):
        for p in prefixes:
            for i in ids:
                if i.startswith(p) and where(i):
                    return i
        return None

    free = lambda i: "extra" not in label.get(i, "")
    m = re.search(r"\((\d+) free actions? unused", label.get("end turn", ""))
    left = int(m.group(1)) if m else 0
    choice = (first("to ", where=lambda i: "complet" in label[i]) or
              first("to ", where=free) or first("to ") or
              first("buy slave", "buy hammer", "buy handsaw", "buy square", "buy brush",
                    "educate ") or
              (first("free slave", "repay loan", "done") if "done" in ids else None) or
              first("send ", where=lambda i: building > 0 and left > 0) or
              (first("start ", where=free) if building < 2 else None) or
              (first("hire ", where=free) if team < 4 or building else None) or
              (first("enslave", where=free) if team < 5 else None) or
              first("take 6", "take 3", "take 1", where=free) or
              first("end turn", "back"))
    return choice or rnd.choice(ids)


def pick(rnd, ids, game, labels=None, area=""):
    ids = [i for i in ids if i != "concede"] or ids	# resigning ends a transcript early
    if game == "sylla":
        # a secret choice is made once and confirmed (a card picked is not
        # put back); windows of amounts stay put
        if "confirm" in ids:
            return "confirm"
        ids = [i for i in ids if i not in ("change", "more") and not i.startswith("drop ")] or ids
    if game == "builders" and labels is not None:
        return pick_builders(rnd, list(zip(ids, labels)), area)
    if game != "fortuna":
        active = [i for i in ids if not i.startswith(PASSIVE)]
        return rnd.choice(active or ids)
    if all(i.startswith("die ") for i in ids):
        return max(ids, key=number)
    for pref in PREFERENCE:
        cands = [i for i in ids if i.startswith(pref)]
        if cands:
            if pref in ("deliver", "harvest", "sell", "obtain", "recruit"):
                return max(cands, key=number)
            return rnd.choice(cands)
    active = [i for i in ids if not i.startswith(PASSIVE)]
    return rnd.choice(active or ids)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("binary")
    ap.add_argument("out")
    ap.add_argument("--game", default="fortuna")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--players", default="ana,ben,cy")
    ap.add_argument("--bots", type=int, default=0)
    ap.add_argument("--pick-seed", type=int, default=7)
    ap.add_argument("--options", default="")
    ap.add_argument("--restart-at", type=int, default=0,
                    help="restart the bot after this many input lines")
    ap.add_argument("--rematches", type=int, default=0,
                    help="play this many more games in a row with `rematch`")
    a = ap.parse_args()
    rnd = random.Random(a.pick_seed)
    players = a.players.split(",")
    inputs = []
    checks = {}     # input index -> the expectation lines written after it
    restarts = set()    # input indexes the bot restarts before

    def expect(*lines):
        checks.setdefault(len(inputs) - 1, []).extend(lines)

    with tempfile.TemporaryDirectory() as tmp:
        db = os.path.join(tmp, "t.db")

        def say(line):
            inputs.append(line)
            return bot(a.binary, db, a.seed, line)

        say(f"{players[0]}: game new {a.game} {a.options}".rstrip())
        for p in players[1:]:
            say(f"{p}: game join")
        if a.bots:
            say(f"{players[0]}: game addbot {a.bots}")
        say(f"{players[0]}: game start")
        def rematch(n):
            """The n-th rematch: asked by players[n % len], the rest join."""
            asker = players[n % len(players)]
            others = [p for p in players if p != asker]
            won = re.search(r"^\[room\] Winner: (.*)$",
                            bot(a.binary, db, a.seed, f"{players[0]}: board"), re.M)
            expect("< [room] == Game over ==",
                   f"< [room] Winner: {won.group(1)}" if won else "< [room] Nobody wins.",
                   "< [room] Play again: `rematch`")
            say("zed: rematch")
            expect("< [dm zed] Only the players of the last game can ask for a rematch.")
            say(f"{asker}: rematch")
            seated = [asker] + [f"AI {k + 1} (AI)" for k in range(a.bots)]
            # the caller and the AI seats are back at once, nobody else
            expect(f"~ ^\\[room\\] Seats \\({len(seated)} of [^)]*\\):" +
                   "".join(f"(?=.* {re.escape(s)}(,|$))" for s in seated),
                   "< [room] Rematch! " + ", ".join("@" + p for p in others) +
                   ": `game join` to take your seat.")
            if others:
                say(f"{others[0]}: rematch")
                expect(f"~ ^\\[dm {others[0]}\\] .* is already open here \\(lobby\\): `game join`")
            for p in others:
                say(f"{p}: game join")
            expect(f"~ ^\\[room\\] Seats \\({len(players) + a.bots} of .*AI {a.bots} \\(AI\\)")
            # a fresh start draws the same seed as this script's
            # one process per command: the game is the one played here
            restarts.add(len(inputs))
            say(f"{asker}: game start")
            expect("< [room] Waiting for ")

        turns = 0
        games = 0
        while True:
            out = bot(a.binary, db, a.seed, f"{players[0]}: board")
            m = re.search(r"^\[room\] Waiting for \*([^*]+)\*", out, re.M)
            if not m and games < a.rematches:
                games += 1
                rematch(games)
                continue
            if not m:
                break
            who = m.group(1)
            area = seat_area(out, who)
            out = bot(a.binary, db, a.seed, f"{who}: moves")
            lines = re.findall(r"^\[dm [^\]]+\]\s+\d+\. (.+?)(?:  — (.*))?$", out, re.M)
            ids = [i for i, _ in lines]
            labels = [l or i for i, l in lines]
            if not ids:
                sys.exit(f"no moves parsed for {who}:\n{out}")
            if a.game == "builders":
                # a plain player throughout: random moves never reach 17 VP
                choice = pick(rnd, ids, a.game, labels, area)
            else:
                choice = pick(rnd, ids, a.game) if rnd.random() < 0.9 else \
                    rnd.choice([i for i in ids if i != "concede"] or ids)
            say(f"{who}: play {choice}")
            turns += 1
            if turns > 5000:
                sys.exit("the game did not end")
        final = bot(a.binary, db, a.seed, f"{players[0]}: board")
        whole = bot(a.binary, db, a.seed, f"{players[0]}: log all")
    winner = re.search(r"^\[room\] Winner: (.*)$", final, re.M)
    # privilege cards discarded face up are named, never in their «private» form
    discards = a.game == "fortuna" and " discards face up: " in whole
    with open(a.out, "w") as f:
        f.write(f"# A whole {len(players) + a.bots}-player {a.game} game on the console,\n")
        f.write(f"# generated by scripts/make-transcript.py --game {a.game} --seed {a.seed} "
                f"--pick-seed {a.pick_seed} --players {a.players} --bots {a.bots}"
                f"{' --options ' + a.options if a.options else ''}"
                f"{' --restart-at %d' % a.restart_at if a.restart_at else ''}"
                f"{' --rematches %d' % a.rematches if a.rematches else ''}\n")
        f.write(f"% TABULA_SEED={a.seed}\n")
        for i, line in enumerate(inputs):
            if i in restarts:
                f.write("= restart\n")
            if a.restart_at and i == a.restart_at:
                f.write("# the bot stops and starts again on the same store\n= restart\n")
                f.write("> ana: game status\n~ ^\\[room\\] == .* — in play ==$\n")
            f.write(f"> {line}\n")
            if i == len(players) + (1 if a.bots else 0):
                f.write("< [room] Waiting for @\n")
            for c in checks.get(i, []):
                f.write(c + "\n")
        f.write("< [room] == Game over ==\n")
        if winner:
            f.write(f"< [room] Winner: {winner.group(1)}\n")
        else:
            f.write("< [room] Nobody wins.\n")
        if a.rematches:
            f.write("< [room] Play again: `rematch`\n")
        if discards:
            f.write(f"> {players[0]}: log all\n")
            f.write(f"~ ^\\[dm {players[0]}\\] .* discards face up: [^«»]+\\.$\n")
        if a.game == "sylla":
            # nothing behind a screen, no secret choice, in the room
            f.write("!~ ^\\[room[^\\]]*\\] .*(\u00ab|Behind your screen|Tras tu pantalla)\n")
        elif a.game == "fortuna":
            f.write("! [room] You get:\n! [room] Your privilege cards\n")
        else:
            f.write("! [room] Your moves\n")
        # every input was a legal move when it was typed
        f.write("! No move matches\n! It is not your turn to decide\n"
                "! That could be several moves\n")
    print(f"{a.out}: {len(inputs)} commands, {turns} moves; "
          f"{'winner ' + winner.group(1) if winner else 'no winner'}")


if __name__ == "__main__":
    main()
