#!/usr/bin/env python3
"""How much a player reads: the text each decision sends, measured on the
console transcripts of every game, against a budget per game.

    tests/integration/text_budget.py ./tabula [--game ID] [--verbose]

Each transcript of tests/data/<game>/ is replayed as transcript.py replays
it, with a marker line after every input ("#!", which the console refuses
with a line of its own and no other effect), so that the output splits into
what each input caused.  Counted per `play` (a decision):

  dm/decision   characters of the private messages (`[dm x]` lines, to
                anyone) the decision caused, on average and at most
  room/decision characters of the room's lines it caused, likewise
  board lines   the most lines of one text board posted in the room
  turn dm       (games where a turn is several decisions of one player:
                The Builders) the private characters the player gets from
                the message that starts the turn to its last decision,
                at most, over turns of at most 3 actions

Characters are Unicode characters of a line's text after its tag, plus one
for its line break.  The figures go to docs/games/<game>.md; a figure above
its game's budget fails the test (a size budget: nothing here is timed).
Exit status 0 when every game is within budget.
"""
import argparse
import glob
import os
import re
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import transcript  # noqa: E402  (the transcripts' own parser)
from harness import SLOW  # noqa: E402

MARK = b"#!"
MARK_OUT = "[console] a room is written #name, then a space"

# The game's name as its boards' headings begin ("== Sylla: turn 2 of 4 ..").
BOARD_NAMES = {
    "builders": "The Builders: Antiquity",
    "fortuna": "Fortuna",
    "gtr": "Glory to Rome",
    "sylla": "Sylla",
}

# Budgets: the figures measured when they were set (docs/games/<game>.md),
# with a little room.  The Builders' are the goals of issue 25: a turn of
# three actions within 1,500 characters of private messages, a board of at
# most 30 lines with four seats.
BUDGETS = {
    "builders": {"dm_avg": 300, "dm_max": 800, "room_avg": 550, "board_lines": 30,
                 "turn_dm": 1500},
    "fortuna": {"dm_avg": 500, "dm_max": 1200, "room_avg": 550, "board_lines": 40},
    "gtr": {"dm_avg": 600, "dm_max": 1500, "room_avg": 1050, "board_lines": 36},
    "sylla": {"dm_avg": 700, "dm_max": 2000, "room_avg": 1000, "board_lines": 35},
}

PLAY = re.compile(r"^([^:#\s]+): (?:!)?play (.*)$")
TAG = re.compile(r"^\[(dm ([^\]]+)|room[^\]]*)\] ?(.*)$")


def run_segments(binary, path):
    """[(input line, [output lines])] for every input of the transcript."""
    out = []
    with tempfile.TemporaryDirectory() as tmp:
        db = os.path.join(tmp, "tabula.db")
        for seg in transcript.parse(path):
            env = {k: v for k, v in os.environ.items()
                   if not k.startswith(("DISCORD_", "MATRIX_"))}
            env.update({"TABULA_DB": db, "TABULA_SEED": "1", "TABULA_LOG": "warn"})
            env.update(seg["env"])
            data = b"".join(l + b"\n" + MARK + b"\n" for l in seg["input"])
            p = subprocess.run([binary], input=data, capture_output=True, env=env,
                               timeout=120 * SLOW)
            if p.returncode:
                raise SystemExit(f"{path}: exit code {p.returncode}")
            # a malformed room of the transcript's own ("#not-a-room")
            # answers like the marker: its answer is its chunk's
            own = [1 if re.match(rb"^\s*#[^ ]+\s*$", l) else 0 for l in seg["input"]]
            chunks, i, seen = [[]], 0, 0
            for line in p.stdout.decode("utf-8", "replace").splitlines():
                if line == MARK_OUT and i < len(own) and seen < own[i]:
                    seen += 1
                    chunks[-1].append(line)
                elif line == MARK_OUT:
                    chunks.append([])
                    i, seen = i + 1, 0
                else:
                    chunks[-1].append(line)
            if len(chunks) != len(seg["input"]) + 1:
                raise SystemExit(f"{path}: {len(chunks) - 1} markers for "
                                 f"{len(seg['input'])} inputs")
            for line, chunk in zip(seg["input"], chunks):
                out.append((line.decode("utf-8", "replace"), chunk))
    return out


def split(chunk):
    """{recipient: characters} of the private lines, the room's characters,
    the room's lines."""
    dms, room, room_lines = {}, 0, []
    for line in chunk:
        m = TAG.match(line)
        if not m:
            continue
        n = len(m.group(3)) + 1
        if m.group(2):
            dms[m.group(2)] = dms.get(m.group(2), 0) + n
        else:
            room += n
            room_lines.append(m.group(3))
    return dms, room, room_lines


def boards(room_lines, name):
    """The line counts of the text boards among a chunk's room lines."""
    head = re.compile(r"^== " + re.escape(name) + r"(:| —) ")
    out, n = [], None
    for line in room_lines:
        if head.match(line) and "lobby" not in line:
            if n:
                out.append(n)
            n = 1
        elif n is not None:
            if line.startswith(("Waiting for ", "Esperando a ", "== Game over",
                                "== Fin de la partida")):
                out.append(n)
                n = None
            else:
                n += 1
    if n:
        out.append(n)
    return out


# The Builders: the actions a move id spends ("take 6 sesterces" is three);
# the second step of an action (`to`, `buy slave 2`) and `end turn` none.
def builders_actions(move):
    m = move.strip().lower()
    if m.startswith("take ") and "loan" not in m:
        return {"1": 1, "3": 2, "6": 3}.get(m.split()[1], 1)
    first = ("start ", "hire ", "send ", "enslave", "buy tool", "take loan", "free ")
    if m.startswith(first) or m == "educate":
        return 1
    return 0


def measure(binary, game, files, verbose):
    decisions = dm_total = room_total = 0
    dm_max = room_max = 0
    board_max = 0
    turns = []          # (actions, private characters) of each turn
    for path in files:
        steps = run_segments(binary, path)
        prev_dms = {}
        cur = None      # [player, actions, characters]
        for line, chunk in steps:
            dms, room, room_lines = split(chunk)
            board_max = max([board_max] + boards(room_lines, BOARD_NAMES[game]))
            m = PLAY.match(line)
            if not m:
                if cur:
                    turns.append(cur[1:])
                    cur = None
                prev_dms = dms
                continue
            who, move = m.group(1), m.group(2)
            decisions += 1
            dm = sum(dms.values())
            dm_total += dm
            room_total += room
            dm_max = max(dm_max, dm)
            room_max = max(room_max, room)
            if cur and cur[0] != who:
                turns.append(cur[1:])
                cur = None
            if not cur:     # the turn began with the message before it
                cur = [who, 0, prev_dms.get(who, 0), os.path.basename(path), line]
            ends = game == "builders" and move.strip() in ("end turn", "done")
            cur[1] += builders_actions(move) if game == "builders" else 1
            if not ends:    # what follows the end of a turn starts the next
                cur[2] += dms.get(who, 0)
            if verbose and dms.get(who, 0) > 600:
                print(f"  {os.path.basename(path)}: {line}: {dms.get(who, 0)} characters")
            if ends:
                turns.append(cur[1:])
                cur = None
            prev_dms = dms
        if cur:
            turns.append(cur[1:])
    fig = {
        "files": len(files),
        "decisions": decisions,
        "dm_avg": round(dm_total / decisions) if decisions else 0,
        "dm_max": dm_max,
        "room_avg": round(room_total / decisions) if decisions else 0,
        "room_max": room_max,
        "board_lines": board_max,
    }
    if game == "builders":
        three = [t[1] for t in turns if 0 < t[0] <= 3]
        if verbose:
            for t in sorted((t for t in turns if 0 < t[0] <= 3), key=lambda t: -t[1])[:3]:
                print(f"  builders turn: {t[1]} characters, {t[0]} actions, from {t[2]}: {t[3]}")
        fig["turn_dm"] = max(three) if three else 0
        fig["turn_dm_avg"] = round(sum(three) / len(three)) if three else 0
        fig["turn_dm_any"] = max(t[1] for t in turns) if turns else 0
    return fig


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("binary")
    ap.add_argument("--game", action="append")
    ap.add_argument("--verbose", action="store_true")
    a = ap.parse_args()
    root = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "data")
    rc = 0
    for game in a.game or sorted(BUDGETS):
        files = sorted(glob.glob(os.path.join(root, game, "*.txt")))
        fig = measure(a.binary, game, files, a.verbose)
        over = [k for k, v in BUDGETS[game].items() if fig[k] > v]
        text = ", ".join(f"{k} {v}" + (f"/{BUDGETS[game][k]}" if k in BUDGETS[game] else "")
                         for k, v in fig.items())
        print(f"{'FAIL' if over else 'ok  '} text budget {game}: {text}")
        if over:
            print(f"  over budget: {', '.join(over)}")
            rc = 1
    return rc


if __name__ == "__main__":
    sys.exit(main())
