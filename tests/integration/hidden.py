"""What is hidden right now, for the public-payload scans (named hidden.py:
a module called secrets.py would shadow Python's own on the scripts' path).

Every integration test that plays a game checks each thing the room can
read (message text, embeds, buttons, menus, attachments, Matrix bodies)
against the secrets() of the game states at that moment.  The states come
from the bot's own store (read-only, beside the running bot: SQLite WAL
allows it); tabula-secrets (tests/tools/secrets.c, built by make into
$TABULA_TOOLS) loads each with the game's own code and prints its secrets.
"""
import os
import sqlite3
import subprocess

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

def secrets_of(pairs):
    """The secrets of [(game, state JSON)], a set of strings."""
    if not pairs:
        return set()
    data = "".join("%s\t%s\n" % (g, st.replace("\n", " ")) for g, st in pairs)
    p = subprocess.run([TOOL], input=data.encode(), capture_output=True, timeout=60)
    assert p.returncode == 0, "tabula-secrets: %s" % p.stderr.decode(errors="replace")
    return {l for l in p.stdout.decode().split("\n") if l}

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
