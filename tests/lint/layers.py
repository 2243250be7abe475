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
    return n, problems


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
