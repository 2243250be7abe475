#!/usr/bin/env python3
"""Runs console transcripts against the real tabula binary.

A transcript (tests/data/<game>/NNN-name.txt) is a list of directives:

  > ana: game new fortuna     an input line (bytes; \\xNN escapes allowed)
  >* 10240 ana: play x        the input line, its command part padded with
                              'x' to that many bytes (oversize input)
  < [room] == Fortuna         the output must contain a line containing this
                              text, after the previous '<' match
  ~ regex                     likewise, a regular expression
  ! text                      no output line of this segment contains text
  !~ regex                    no output line of this segment matches regex
  = restart                   close the bot's input (it exits), start it again
                              on the same store: the next segment
  % KEY=VALUE                 environment for the following segments
  # comment

Each segment runs the binary once with all its input lines on stdin.
Exit status 0 when every transcript passes.  Prints 'N passed, M failed'.
"""
import os
import re
import subprocess
import sys
import tempfile

from harness import SLOW    # TABULA_TEST_SLOW: timeouts x this (make valgrind)


def unescape(s):
    return s.encode("utf-8").decode("unicode_escape").encode("latin-1")


def parse(path):
    segments = [{"input": [], "checks": [], "env": {}}]
    env = {}
    with open(path, encoding="utf-8") as f:
        for lineno, raw in enumerate(f, 1):
            line = raw.rstrip("\n")
            if not line or line.startswith("#"):
                continue
            op, _, arg = line.partition(" ")
            seg = segments[-1]
            if op == ">":
                seg["input"].append(unescape(arg) if "\\x" in arg else arg.encode())
            elif op == ">*":
                size, _, rest = arg.partition(" ")
                data = rest.encode()
                data += b"x" * max(0, int(size) - len(data))
                seg["input"].append(data)
            elif op in ("<", "~", "!", "!~"):
                seg["checks"].append((op, arg, lineno))
            elif op == "=" and arg == "restart":
                segments.append({"input": [], "checks": [], "env": dict(env)})
            elif op == "%":
                k, _, v = arg.partition("=")
                env[k] = v
                seg["env"][k] = v
            else:
                raise SystemExit(f"{path}:{lineno}: unknown directive {op!r}")
    return segments


def run(binary, path):
    failures = []
    with tempfile.TemporaryDirectory() as tmp:
        db = os.path.join(tmp, "tabula.db")
        for n, seg in enumerate(parse(path)):
            env = {k: v for k, v in os.environ.items()
                   if not k.startswith(("DISCORD_", "MATRIX_"))}
            env.update({"TABULA_DB": db, "TABULA_SEED": "1", "TABULA_LOG": "warn"})
            env.update(seg["env"])
            data = b"".join(l + b"\n" for l in seg["input"])
            p = subprocess.run([binary], input=data, capture_output=True, env=env,
                               timeout=120 * SLOW)
            out = p.stdout.decode("utf-8", "replace").splitlines()
            if p.returncode != 0:
                failures.append(f"segment {n}: exit code {p.returncode}: "
                                f"{p.stderr.decode(errors='replace')[-500:]}")
            pos = 0
            for op, arg, lineno in seg["checks"]:
                if op == "!":
                    bad = [l for l in out if arg in l]
                    if bad:
                        failures.append(f"line {lineno}: forbidden {arg!r} in {bad[0]!r}")
                    continue
                if op == "!~":
                    r = re.compile(arg)
                    bad = [l for l in out if r.search(l)]
                    if bad:
                        failures.append(f"line {lineno}: forbidden /{arg}/ in {bad[0]!r}")
                    continue
                match = (lambda l: arg in l) if op == "<" else \
                        (lambda l, r=re.compile(arg): r.search(l))
                while pos < len(out) and not match(out[pos]):
                    pos += 1
                if pos == len(out):
                    failures.append(f"line {lineno}: expected {op} {arg!r} not found "
                                    f"(segment {n})")
                    pos = 0
                else:
                    pos += 1
            if failures and os.environ.get("TRANSCRIPT_DUMP"):
                sys.stderr.write("\n".join(out) + "\n")
    return failures


def main():
    binary, files = sys.argv[1], sys.argv[2:]
    passed = failed = 0
    for path in files:
        failures = run(binary, path)
        if failures:
            failed += 1
            print(f"FAIL {path}")
            for f in failures[:20]:
                print(f"  {f}")
        else:
            passed += 1
            print(f"ok   {path}")
    print(f"integration: {passed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
