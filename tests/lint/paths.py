#!/usr/bin/env python3
"""Project files cite the rulebooks by file name, never by an absolute path.

The seeds live beside the repository (`../shared/seeds/`, see its README);
a checkout elsewhere has no /work/.  So a comment, a test or a page names
`002_e1ea23d6d5c38f8f.txt` (in `../shared/seeds/`), not the path of the
machine it was written on.  Flags "/work/" and a "/shared/" path that is
not relative ("../shared/").

usage: paths.py [--self-test] [root]   (default root: the repository)
Prints "paths: N files checked, M problems"; exit 1 on problems.
--self-test proves the check catches an absolute path in a scratch tree.
"""
import os
import re
import sys
import tempfile

DIRS = ("adapters", "bench", "bot", "config", "docs", "games", "paint", "scripts", "state",
        "tests", "util")
TOP = ("README.md", "Makefile")
EXT = (".c", ".h", ".md", ".py", ".sh", ".txt", ".json", ".js", ".service", ".example", "")
BAD = re.compile(r"/work/|(?<!\.\.)/shared/(seeds|guide)\b")


def files(root):
    for name in TOP:
        p = os.path.join(root, name)
        if os.path.isfile(p):
            yield p
    for d in DIRS:
        for base, dirs, names in os.walk(os.path.join(root, d)):
            dirs[:] = [x for x in dirs if x not in ("node_modules", "__pycache__")]
            for n in names:
                if os.path.splitext(n)[1] in EXT:
                    yield os.path.join(base, n)


def check(root):
    problems, n = [], 0
    for path in files(root):
        if os.path.abspath(path) == os.path.abspath(__file__):
            continue    # this file names what it looks for
        try:
            text = open(path, encoding="utf-8").read()
        except (UnicodeDecodeError, OSError):
            continue    # binary data (pictures, fuzz seeds)
        n += 1
        for lineno, line in enumerate(text.splitlines(), 1):
            if BAD.search(line):
                problems.append("%s:%d: an absolute path: %s"
                                % (os.path.relpath(path, root), lineno, line.strip()))
    return n, problems


def self_test():
    with tempfile.TemporaryDirectory() as tmp:
        os.makedirs(os.path.join(tmp, "docs"))
        os.makedirs(os.path.join(tmp, "tests"))
        open(os.path.join(tmp, "docs", "ok.md"), "w").write(
            "The seed `002_e1ea23d6d5c38f8f.txt` in `../shared/seeds/`; ../shared/guide/.\n")
        n, problems = check(tmp)
        if n != 1 or problems:
            return "a clean tree: %d files, %r" % (n, problems)
        open(os.path.join(tmp, "tests", "bad.c"), "w").write(
            "/* (/work/shared/seeds/002_e1ea23d6d5c38f8f.txt) */\n")
        n, problems = check(tmp)
        if len(problems) != 1 or "tests/bad.c:1" not in problems[0]:
            return "an absolute path not caught: %r" % problems
    return None


def main(argv):
    if argv[1:2] == ["--self-test"]:
        why = self_test()
        print("paths self-test: %s" % ("ok" if not why else "FAILED: " + why))
        return 1 if why else 0
    root = argv[1] if len(argv) > 1 else os.path.join(os.path.dirname(__file__), "..", "..")
    n, problems = check(root)
    for p in problems:
        print(p)
    print("paths: %d files checked, %d problems" % (n, len(problems)))
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
