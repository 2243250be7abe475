#!/usr/bin/env python3
"""Size budgets for the product's C sources (docs/architecture.md, "Budgets").

    a file:      at most 1,200 lines
    a function:  at most 150 lines, from its opening brace to its closing one

A room past that is more than a reader holds in mind at once; the fix is to
split it by what it owns (a phase, a responsibility), not to squeeze lines.
Checked: every .c and .h under util/ games/ state/ paint/ adapters/ bot/.
Not checked: tests/ (lists of cases, read one case at a time) and data
tables, which are initialisers, not functions: the project's style opens a
function's body with "{" alone at the start of a line and closes it with
"}" alone, and a table's braces never stand alone like that.

ALLOW names the few exceptions, each with its reason; an entry that no longer
exceeds its budget is reported too, so the list only shrinks.

usage: budgets.py [--self-test] [root]   (default root: the repository)
Prints "budgets: N files, M functions checked, K problems"; exit 1 on
problems.  --self-test proves the check catches both kinds in a scratch tree.
"""
import os
import re
import sys
import tempfile

FILE_MAX = 1200
FUNC_MAX = 150
DIRS = ("util", "games", "state", "paint", "adapters", "bot")

# "path" or "path:function" -> why it may exceed its budget.
ALLOW = {
}

NAME = re.compile(r"([A-Za-z_]\w*)\s*\(")


def functions(lines):
    """(name, first line number, length) of each function body in lines."""
    out = []
    start = None
    for i, line in enumerate(lines):
        if line == "{":
            start = i
        elif line == "}" and start is not None:
            j = start - 1
            while j > 0 and "(" not in lines[j]:
                j -= 1
            m = NAME.search(lines[j]) if j >= 0 else None
            out.append((m.group(1) if m else "?", start + 1, i - start + 1))
            start = None
    return out


def check(root, allow):
    problems = []
    used = set()
    nfiles = nfuncs = 0
    for top in DIRS:
        for dirpath, dirs, files in os.walk(os.path.join(root, top)):
            dirs.sort()
            for name in sorted(files):
                if not name.endswith((".c", ".h")):
                    continue
                path = os.path.join(dirpath, name)
                rel = os.path.relpath(path, root)
                lines = open(path, encoding="utf-8",
                             errors="replace").read().split("\n")
                if lines and lines[-1] == "":
                    lines.pop()
                nfiles += 1
                if len(lines) > FILE_MAX:
                    if rel in allow:
                        used.add(rel)
                    else:
                        problems.append("%s: %d lines (budget %d): split it by "
                                        "what it owns" % (rel, len(lines),
                                                          FILE_MAX))
                for fn, line, n in functions(lines):
                    nfuncs += 1
                    key = "%s:%s" % (rel, fn)
                    if n <= FUNC_MAX:
                        continue
                    if key in allow:
                        used.add(key)
                    else:
                        problems.append("%s:%d: %s() is %d lines (budget %d)"
                                        % (rel, line, fn, n, FUNC_MAX))
    for key in sorted(set(allow) - used):
        problems.append("%s: allowed to exceed its budget but no longer does: "
                        "drop it from ALLOW" % key)
    return nfiles, nfuncs, problems


def self_test():
    with tempfile.TemporaryDirectory() as tmp:
        os.makedirs(os.path.join(tmp, "bot"))
        os.makedirs(os.path.join(tmp, "games"))
        body = ["\tx++;"] * (FUNC_MAX - 1)
        table = ["static const int t[] = {"] + ["\t1,"] * 400 + ["};"]
        with open(os.path.join(tmp, "bot", "big.c"), "w") as f:
            f.write("\n".join(["int small(void)", "{"] + body[:-1] + ["}"] +
                              ["static void long_one(int a,", "\t\tint b)",
                               "{"] + body + ["}"] + table) + "\n")
        with open(os.path.join(tmp, "games", "huge.c"), "w") as f:
            f.write("\n".join(["int x;"] * (FILE_MAX + 1)) + "\n")
        _, nf, problems = check(tmp, {})
        want = ["games/huge.c: %d lines" % (FILE_MAX + 1),
                "bot/big.c:%d: long_one() is %d lines" % (FUNC_MAX + 4,
                                                          FUNC_MAX + 1)]
        ok = nf == 2 and len(problems) == 2 and all(
            any(p.startswith(w) for p in problems) for w in want)
        _, _, p2 = check(tmp, {"games/huge.c": "test",
                               "bot/big.c:long_one": "test",
                               "bot/big.c:small": "test"})
        ok = ok and p2 == ["bot/big.c:small: allowed to exceed its budget "
                           "but no longer does: drop it from ALLOW"]
        if not ok:
            print("budgets self-test FAILED: %r / %r" % (problems, p2))
            return 1
        print("budgets self-test: ok (a long file, a long function, a stale "
              "allowance caught; a table and a short function passed)")
        return 0


def main(argv):
    args = argv[1:]
    if args and args[0] == "--self-test":
        return self_test()
    root = args[0] if args else os.path.join(os.path.dirname(
        os.path.abspath(__file__)), "..", "..")
    nfiles, nfuncs, problems = check(root, ALLOW)
    for p in problems:
        print(p)
    print("budgets: %d files, %d functions checked, %d problems" %
          (nfiles, nfuncs, len(problems)))
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
