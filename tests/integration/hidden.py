"""What is hidden right now, for the public-payload scans (named hidden.py:
a module called secrets.py would shadow Python's own on the scripts' path).

Every integration test that plays a game checks each thing the room can
read (message text, embeds, buttons, menus, attachments, Matrix bodies)
against the secrets() of the game states at that moment.  The states come
from the bot's own store (read-only, beside the running bot: SQLite WAL
allows it); tabula-secrets (tests/tools/secrets.c, built by make into
$TABULA_TOOLS) loads each with the game's own code and prints its secrets.
"""
import atexit
import os
import sqlite3
import subprocess
import threading

_lock = threading.Lock()

TOOLS = os.environ.get("TABULA_TOOLS") or os.path.join(
    os.path.dirname(os.path.abspath(__file__)), "..", "..", "build", "tests")
TOOL = os.path.join(TOOLS, "tabula-secrets")

def states(db):
    """[(game id, state JSON)] of every game in play in the store at db
    (a SQLite file or a PostgreSQL URI)."""
    import pg
    if pg.is_pg(db):
        # one row a line: a state's JSON holds no raw newline or tab
        return [(r[0], r[1]) for r in pg.query(
            db, "SELECT game, state FROM sessions WHERE status = 1 AND state IS NOT NULL")]
    con = sqlite3.connect("file:%s?mode=ro" % db, uri=True, timeout=10)
    try:
        return [(g, st) for g, st in con.execute(
            "SELECT game, state FROM sessions WHERE status = 1 AND state IS NOT NULL")]
    finally:
        con.close()

_server = None


def _serve():
    """One tabula-secrets --serve for the whole script: the tests ask after
    every step, and starting the program each time (an ASan build above
    all) cost minutes of the suite."""
    global _server
    if _server is None or _server.poll() is not None:
        _server = subprocess.Popen([TOOL, "--serve"], stdin=subprocess.PIPE,
                                   stdout=subprocess.PIPE)
        atexit.register(_server.kill)
    return _server


def secrets_of(pairs):
    """The secrets of [(game, state JSON)], a set of strings."""
    if not pairs:
        return set()
    data = "".join("%s\t%s\n" % (g, st.replace("\n", " ")) for g, st in pairs)
    with _lock:
        srv = _serve()
        srv.stdin.write(data.encode() + b"\n")
        srv.stdin.flush()
        out = []
        while True:
            line = srv.stdout.readline()
            assert line, "tabula-secrets --serve stopped (its stderr is above)"
            line = line.decode().rstrip("\n")
            if not line:
                break
            out.append(line)
    bad = [l for l in out if l.startswith("!")]
    assert not bad, "tabula-secrets: %s" % bad
    return set(out)

def secrets_now(db):
    """Every secret of every game in play in the store at db, now."""
    return secrets_of(states(db))

def leaks(texts, secrets):
    """[(secret, text)] for each public text containing a secret."""
    out = []
    for t in texts:
        for s in secrets:
            if s in t:
                out.append((s, t))
    return out

def assert_no_leak(texts, secrets, where=""):
    found = leaks(texts, secrets)
    assert not found, "hidden information in a public payload%s: %r" % (
        where, [(s, t[:300]) for s, t in found[:5]])
