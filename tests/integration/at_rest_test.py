#!/usr/bin/env python3
"""Secrets at rest, through the real binary (issue 11, item 11): the store
and its -wal/-shm are 0600 whatever the umask; a store path that is a
symbolic link, or a database that is not tabula's, stops the bot with exit
code 3 and a clear message, leaving the file alone; an older tabula store
(application_id 0) is adopted; a TABULA_CONFIG file others can write stops
it with exit code 2; the running bot can write no core dump.

usage: at_rest_test.py ./tabula [test-name ...]
"""
import os
import sqlite3
import stat
import subprocess
import sys
import tempfile
import time

import harness
from harness import SLOW

BIN = "./tabula"


def env_for(db, **extra):
    env = {k: v for k, v in os.environ.items()
           if not k.startswith(("DISCORD_", "MATRIX_", "TABULA_"))}
    env.update({"TABULA_DB": db, "TABULA_SEED": "3", "TABULA_LOG": "warn"})
    env.update(extra)
    return env


def run(db, lines=(), umask=None, **extra):
    """Runs the console bot on db with lines as input; (exit code, stdout,
    stderr)."""
    def pre():
        if umask is not None:
            os.umask(umask)
    p = subprocess.run([BIN], input="".join(l + "\n" for l in lines).encode(),
                       capture_output=True, env=env_for(db, **extra), timeout=60 * SLOW,
                       preexec_fn=pre)
    return p.returncode, p.stdout.decode(errors="replace"), p.stderr.decode(errors="replace")


def mode(path):
    return stat.S_IMODE(os.lstat(path).st_mode)


def tmpdir():
    return tempfile.mkdtemp(prefix="tabula-rest-")


def test_store_files_are_0600_whatever_the_umask():
    """With umask 000 the bot creates its store, -wal and -shm 0600 (checked
    while it runs: the WAL is removed at a clean exit); a store someone made
    world-readable is made 0600 at the next start."""
    db = os.path.join(tmpdir(), "t.db")
    p = subprocess.Popen([BIN], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                         stderr=subprocess.DEVNULL, env=env_for(db),
                         preexec_fn=lambda: os.umask(0))
    try:
        p.stdin.write(b"ana: game new fortuna\n")
        p.stdin.flush()
        line = p.stdout.readline()
        assert b"Fortuna" in line, line
        for suffix in ("", "-wal", "-shm"):
            assert os.path.exists(db + suffix), suffix
            assert mode(db + suffix) == 0o600, (suffix, oct(mode(db + suffix)))
    finally:
        p.stdin.close()
        p.wait(timeout=30 * SLOW)
    assert p.returncode == 0, p.returncode
    os.chmod(db, 0o644)
    rc, out, err = run(db, ["ana: game status"], umask=0)
    assert rc == 0, err
    assert mode(db) == 0o600, oct(mode(db))


def test_store_symlink_exits_3():
    """A store path that is a symbolic link: exit 3, the reason on stderr,
    nothing created where it points."""
    d = tmpdir()
    target, link = os.path.join(d, "elsewhere.db"), os.path.join(d, "t.db")
    os.symlink(target, link)
    rc, out, err = run(link, ["ana: game new fortuna"])
    assert rc == 3, (rc, err)
    assert "is a symbolic link" in err and link in err, err
    assert not os.path.exists(target)
    assert "Fortuna" not in out


def test_foreign_database_exits_3():
    """Another program's SQLite file (its own application_id) is refused as
    it is: exit 3, and not one table added."""
    db = os.path.join(tmpdir(), "other.db")
    con = sqlite3.connect(db)
    con.executescript("PRAGMA application_id = 1234;"
                      "CREATE TABLE notes (body TEXT); INSERT INTO notes VALUES ('mine');")
    con.close()
    before = open(db, "rb").read()
    rc, out, err = run(db, ["ana: game new fortuna"])
    assert rc == 3, (rc, err)
    assert "is not a tabula database" in err, err
    assert open(db, "rb").read() == before


def test_older_store_adopted():
    """A store without tabula's application_id (written before it) that
    holds tabula's tables is adopted, stamped "tabu", and plays on."""
    db = os.path.join(tmpdir(), "t.db")
    rc, out, err = run(db, ["ana: game new fortuna", "ben: game join", "ana: game start"])
    assert rc == 0, err
    con = sqlite3.connect(db)
    assert con.execute("PRAGMA application_id").fetchone()[0] == 0x74616275
    con.execute("PRAGMA application_id = 0")
    con.commit()
    con.close()
    rc, out, err = run(db, ["ana: game status"])
    assert rc == 0, err
    assert "Moves so far" in out, out
    con = sqlite3.connect(db)
    assert con.execute("PRAGMA application_id").fetchone()[0] == 0x74616275
    con.close()


def test_config_writable_by_others_exits_2():
    """A TABULA_CONFIG file that group or others can write: exit 2 with the
    fix in the message, before anything else happens."""
    d = tmpdir()
    conf, db = os.path.join(d, "tabula.conf"), os.path.join(d, "t.db")
    with open(conf, "w") as f:
        f.write("TABULA_LOCALE=es\n")
    for m in (0o620, 0o602):
        os.chmod(conf, m)
        rc, out, err = run(db, ["ana: game new fortuna"], TABULA_CONFIG=conf)
        assert rc == 2, (oct(m), rc, err)
        assert "can be changed by others" in err and "chmod go-w" in err, err
        assert not os.path.exists(db), "the store was opened anyway"
    os.chmod(conf, 0o644)
    rc, out, err = run(db, ["ana: game new fortuna"], TABULA_CONFIG=conf)
    assert rc == 0, err
    assert "sala de espera" in out, out


def test_bot_writes_no_core_dump():
    """The running bot has no core-dump allowance, soft or hard (its memory
    holds tokens and every hand)."""
    db = os.path.join(tmpdir(), "t.db")
    p = subprocess.Popen([BIN], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                         stderr=subprocess.DEVNULL, env=env_for(db))
    try:
        p.stdin.write(b"ana: help\n")
        p.stdin.flush()
        assert p.stdout.readline()
        with open("/proc/%d/limits" % p.pid) as f:
            line = [l for l in f if l.startswith("Max core file size")][0]
        assert line.split()[4:6] == ["0", "0"], line
    finally:
        p.stdin.close()
        p.wait(timeout=30 * SLOW)


if __name__ == "__main__":
    sys.exit(harness.run_tests("at_rest", sys.modules[__name__], sys.argv))
