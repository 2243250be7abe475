#!/usr/bin/env python3
"""Every L(loc, "en", "es") in the sources has both texts, and they differ
unless the text has no words to translate (formats, names, symbols).  The
same for TR("en", "es"), the texts of a table (bot/commands.c).

usage: translations.py [dir ...]   (default: bot games adapters util)
Prints "translations: N pairs checked, M problems"; exit 1 on problems.
"""
import os
import re
import sys

# Texts that are the same in both languages on purpose.
SAME_OK = {
    "Fortuna", "Glory to Rome", "OK", "%s", "%d", "no", "IA", "Total",
}


def literals(src, i):
    """Parses C string literals (concatenated) from src[i:]; returns
    (text, end) or (None, i) when there is no literal there."""
    out = []
    j = i
    while True:
        while j < len(src) and src[j] in " \t\r\n":
            j += 1
        if j < len(src) and src[j] == '"':
            k = j + 1
            buf = []
            while src[k] != '"':
                if src[k] == "\\":
                    buf.append(src[k:k + 2])
                    k += 2
                else:
                    buf.append(src[k])
                    k += 1
            out.append("".join(buf))
            j = k + 1
        else:
            break
    if not out:
        return None, i
    return "".join(out), j


def check_file(path, problems):
    src = open(path, encoding="utf-8").read()
    n = 0
    for m in re.finditer(r"\b(L|TR)\(", src):
        i = m.end()
        depth = 0
        if m.group(1) == "TR" and re.match(r"\s*en\s*,", src[i:]):
            continue        # the macro's own definition
        # skip the locale argument (TR has none)
        while m.group(1) == "L" and i < len(src):
            c = src[i]
            if c in "([":
                depth += 1
            elif c in ")]":
                depth -= 1
            elif c == "," and depth == 0:
                break
            i += 1
        if m.group(1) == "TR":
            i -= 1          # literals() starts after the comma or the paren
        en, i = literals(src, i + 1)
        if en is None:
            continue        # not literal texts (a variable): not checkable here
        while i < len(src) and src[i] in " \t\r\n":
            i += 1
        if i >= len(src) or src[i] != ",":
            continue
        es, i = literals(src, i + 1)
        if es is None:
            continue
        n += 1
        line = src.count("\n", 0, m.start()) + 1
        if not en.strip() or not es.strip():
            problems.append("%s:%d: an empty text" % (path, line))
        elif en == es and en not in SAME_OK and re.search(r"[A-Za-z]{3,}", en):
            problems.append("%s:%d: the same text in both languages: %r" % (path, line, en))
    return n


def main(argv):
    root = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..")
    dirs = argv[1:] or ["bot", "games", "adapters", "util"]
    problems = []
    total = 0
    for d in dirs:
        for base, _, files in os.walk(os.path.join(root, d)):
            for f in sorted(files):
                if f.endswith(".c"):
                    total += check_file(os.path.join(base, f), problems)
    for p in problems:
        print(p)
    print("translations: %d pairs checked, %d problems" % (total, len(problems)))
    return 1 if problems or total < 100 else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
