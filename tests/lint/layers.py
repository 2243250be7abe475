#!/usr/bin/env python3
"""The layers include only downwards (docs/architecture.md, "Layers").

    util/      shared by every layer: includes nothing of the others
    games/     pure rules: util/ only (besides games/); a game describes
               its pictures (util/scene.h), it never paints them
    state/     the store: util/ only (besides state/)
    paint/     the painter: util/ only (besides paint/): it knows no game,
               no platform, no store
    adapters/  platforms: never bot/ (the manager hands them what they
               need through adapters/adapter.h: commands, callbacks, and
               pictures already painted), never paint/
    bot/       the core: may include any layer's interface

Inside bot/ the files are in layers too (BOT_LAYERS, bottom first): a file
includes only headers of its own layer or below, and calls only functions
defined in its own layer or below (a function defined, not static, in a
bot/*.c file belongs to that file's layer).  What the session core needs
from above it calls through struct session_hooks (bot/core.h), which
bot/manager.c fills.  A new file in bot/ must be given its layer here.

usage: layers.py [--self-test] [root]   (default root: the repository)
Prints "layers: N files checked, M problems"; exit 1 on problems.
--self-test proves the check catches a violation in a scratch tree.
"""
import os
import re
import sys
import tempfile

# dir -> top-level dirs its files must not include from
FORBIDDEN = {
    "util": ("bot", "games", "state", "adapters", "paint"),
    "games": ("bot", "state", "adapters", "paint"),
    "state": ("bot", "adapters", "paint"),
    "paint": ("bot", "games", "state", "adapters"),
    "adapters": ("bot", "paint"),
}

# bot/'s inner layers, bottom first: (name, why, files without extension)
BOT_LAYERS = (
    ("tools", "leaves that call nothing else in bot/: the throttle, the "
     "config file, process hardening, the worker pool, the AI's and the "
     "painter's jobs, the cluster roles, the ops endpoint, the rating maths",
     ("throttle", "config", "harden", "workers", "think", "paintjob",
      "cluster", "ops", "rating")),
    ("core", "the session core: the cache, replay, struct change and its "
     "commit (one store transaction), and what a commit writes with the "
     "record (room settings, votes); public types in session.h",
     ("session", "core", "roomset", "votes")),
    ("services", "what a change sets going, above the core: the outbox "
     "(updates, delivery), pictures, the AI seats, the due work, the "
     "record of a finished game (results, ratings), a game's web link, "
     "each game's web page (its view, pictures and events)",
     ("outbox", "pictures", "ai", "due", "record", "weblink", "web", "webview", "web_int",
      "webwatch")),
    ("commands", "what users ask for: the table and the dispatcher, and "
     "each subject's commands; manager.c wires the layers at start-up",
     ("commands", "session_int", "lobby", "play", "settings", "info",
      "pause", "stats", "manager", "rematch")),
    ("program", "main(): the process, its loop and its adapters, and the "
     "platforms' settings from the environment",
     ("main", "platenv")),
)

INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"', re.M)


def check(root):
    problems = []
    n = 0
    for layer, banned in sorted(FORBIDDEN.items()):
        top = os.path.join(root, layer)
        for dirpath, _, files in sorted(os.walk(top)):
            for name in sorted(files):
                if not name.endswith((".c", ".h")):
                    continue
                path = os.path.join(dirpath, name)
                n += 1
                src = open(path, encoding="utf-8", errors="replace").read()
                for m in INCLUDE.finditer(src):
                    target = m.group(1).split("/", 1)[0]
                    if target in banned:
                        line = src.count("\n", 0, m.start()) + 1
                        problems.append("%s:%d: %s/ includes %s" % (
                            os.path.relpath(path, root), line, layer, m.group(1)))
    nb, pb = check_bot(root)
    return n + nb, problems + pb


def bot_layer_of():
    out = {}
    for i, (_, _, names) in enumerate(BOT_LAYERS):
        for n in names:
            out[n] = i
    return out


COMMENT = re.compile(r'/\*.*?\*/|//[^\n]*|"(?:\\.|[^"\\\n])*"|\'(?:\\.|[^\'\\\n])*\'', re.S)
# a function defined at file scope, not static: "type name(args)\n{"
DEFINITION = re.compile(r'^(?!static\b)[A-Za-z_][^;{}()=#]*?\b([A-Za-z_]\w*)\s*\([^;{}]*\)\s*\n\{', re.M)
CALL = re.compile(r'(?<![\w.>])([A-Za-z_]\w*)\s*\(')


def check_bot(root):
    """bot/'s inner layers: includes and calls go to the same layer or down."""
    problems = []
    layer = bot_layer_of()
    top = os.path.join(root, "bot")
    if not os.path.isdir(top):
        return 0, problems
    files = sorted(f for f in os.listdir(top) if f.endswith((".c", ".h")))
    srcs = {}
    owner = {}
    for f in files:
        stem = f.rsplit(".", 1)[0]
        src = open(os.path.join(top, f), encoding="utf-8", errors="replace").read()
        srcs[f] = src
        if stem not in layer:
            problems.append("bot/%s: not in a layer of bot/ (tests/lint/layers.py, BOT_LAYERS)" % f)
            continue
        if f.endswith(".c"):
            for m in DEFINITION.finditer(COMMENT.sub(" ", src)):
                owner[m.group(1)] = f
    for f in files:
        stem = f.rsplit(".", 1)[0]
        if stem not in layer:
            continue
        mine = layer[stem]
        src = srcs[f]
        for m in INCLUDE.finditer(src):
            inc = m.group(1)
            if not inc.startswith("bot/"):
                continue
            t = inc[4:].rsplit(".", 1)[0]
            if t in layer and layer[t] > mine:
                line = src.count("\n", 0, m.start()) + 1
                problems.append("bot/%s:%d: %s (%s) includes %s (%s)" % (
                    f, line, f, BOT_LAYERS[mine][0], inc, BOT_LAYERS[layer[t]][0]))
        if not f.endswith(".c"):
            continue
        code = COMMENT.sub(lambda c: re.sub(r"[^\n]", " ", c.group(0)), src)
        seen = set()
        for m in CALL.finditer(code):
            fn = m.group(1)
            o = owner.get(fn)
            if not o or o == f or fn in seen:
                continue
            t = layer[o.rsplit(".", 1)[0]]
            if t > mine:
                seen.add(fn)
                line = code.count("\n", 0, m.start()) + 1
                problems.append("bot/%s:%d: %s (%s) calls %s() of bot/%s (%s)" % (
                    f, line, f, BOT_LAYERS[mine][0], fn, o, BOT_LAYERS[t][0]))
    return len(files), problems


def self_test():
    with tempfile.TemporaryDirectory() as tmp:
        for d in ("util", "games/x", "state", "adapters/y", "paint"):
            os.makedirs(os.path.join(tmp, d))
        ok = '#include "util/buf.h"\n'
        open(os.path.join(tmp, "util", "a.c"), "w").write(ok)
        open(os.path.join(tmp, "games/x", "g.c"), "w").write(
            ok + '#include "games/game.h"\n#include "util/scene.h"\n')
        open(os.path.join(tmp, "state", "s.c"), "w").write(ok)
        open(os.path.join(tmp, "paint", "p.c"), "w").write(ok + '#include "paint/paint.h"\n')
        open(os.path.join(tmp, "adapters/y", "y.c"), "w").write(
            ok + '#include "adapters/adapter.h"\n#include "games/game.h"\n')
        n, problems = check(tmp)
        if n != 5 or problems:
            return "a clean tree reads as %d files, problems %r" % (n, problems)
        open(os.path.join(tmp, "adapters/y", "y.h"), "w").write(
            '#include <stdio.h>\n  # include "bot/session.h"\n')
        open(os.path.join(tmp, "util", "b.c"), "w").write('#include "games/game.h"\n')
        open(os.path.join(tmp, "games/x", "h.c"), "w").write('#include "paint/paint.h"\n')
        open(os.path.join(tmp, "paint", "q.c"), "w").write('#include "games/game.h"\n')
        n, problems = check(tmp)
        want = ["adapters/y/y.h:2: adapters/ includes bot/session.h",
                "games/x/h.c:1: games/ includes paint/paint.h",
                "paint/q.c:1: paint/ includes games/game.h",
                "util/b.c:1: util/ includes games/game.h"]
        if sorted(problems) != want:
            return "violations read as %r" % (problems,)
    with tempfile.TemporaryDirectory() as tmp:
        os.makedirs(os.path.join(tmp, "bot"))

        def put(name, text):
            open(os.path.join(tmp, "bot", name), "w").write(text)
        put("core.h", '#include "bot/session.h"\nvoid change_commit(void);\n')
        put("session.c", '#include "bot/core.h"\n#include "bot/throttle.h"\n'
            '/* deliver() is outbox.c\'s: named in a comment only */\n'
            'void change_commit(void)\n{\n\tm->hooks->deliver(m);\n\tthrottle_take();\n}\n')
        put("throttle.c", 'int throttle_take(void)\n{\n\treturn 0;\n}\n')
        put("outbox.c", '#include "bot/core.h"\nvoid deliver(int x)\n{\n\tchange_commit();\n}\n'
            'static void helper(void)\n{\n}\n')
        put("lobby.c", '#include "bot/session_int.h"\nvoid cmd_game_new(int x)\n{\n'
            '\tdeliver(1);\n\tchange_commit();\n}\n')
        n, problems = check_bot(tmp)
        if n != 5 or problems:
            return "a clean bot/ reads as %d files, problems %r" % (n, problems)
        put("session.c", '#include "bot/core.h"\n#include "bot/outbox.h"\n'
            'void change_commit(void)\n{\n\tdeliver(1);\n\thelper();\n}\n')
        put("outbox.h", '#include "bot/session_int.h"\n')
        put("newfile.c", 'int x;\n')
        n, problems = check_bot(tmp)
        want = ["bot/newfile.c: not in a layer of bot/ (tests/lint/layers.py, BOT_LAYERS)",
                "bot/outbox.h:1: outbox.h (services) includes bot/session_int.h (commands)",
                "bot/session.c:2: session.c (core) includes bot/outbox.h (services)",
                "bot/session.c:5: session.c (core) calls deliver() of bot/outbox.c (services)"]
        if sorted(problems) != want:
            return "bot/ violations read as %r" % (problems,)
    return None


def main(argv):
    if argv[1:2] == ["--self-test"]:
        why = self_test()
        print("layers self-test: %s" % ("ok" if not why else "FAILED: " + why))
        return 1 if why else 0
    root = argv[1] if len(argv) > 1 else os.path.join(os.path.dirname(__file__), "..", "..")
    n, problems = check(root)
    for p in problems:
        print(p)
    print("layers: %d files checked, %d problems" % (n, len(problems)))
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
