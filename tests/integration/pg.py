"""PostgreSQL for the integration tests.

server() is the throwaway server scripts/pg-test-server.sh started around
the run (TABULA_TEST_PG: `make integration` does that); a script run by
hand starts its own and stops it at exit.  A server that cannot start
raises: the test fails, it never skips.  Schema() gives a test a fresh,
empty schema and the URI of a bot store in it; query() reads it through one
psql process per URI (the tests poll the store many times a second)."""
import atexit
import itertools
import os
import subprocess
import tempfile
import threading

HERE = os.path.dirname(os.path.abspath(__file__))
SCRIPT = os.path.join(HERE, "..", "..", "scripts", "pg-test-server.sh")
_started = []
_counter = itertools.count(1)


def server():
    """The test server's URI (postgresql:///tabula?host=DIR&user=tabula)."""
    u = os.environ.get("TABULA_TEST_PG")
    if u:
        return u
    if _started:
        return _started[0]
    d = tempfile.mkdtemp(prefix="tabula-pg-")
    os.rmdir(d)
    p = subprocess.run(["sh", SCRIPT, "start", d], capture_output=True, text=True)
    if p.returncode:
        raise AssertionError("cannot start a PostgreSQL for the tests: %s" % p.stderr)
    _started.append(p.stdout.strip())
    atexit.register(lambda: subprocess.run(["sh", SCRIPT, "stop", d]))
    return _started[0]


def is_pg(db):
    return isinstance(db, str) and db.startswith(("postgresql://", "postgres://"))


class _Psql:
    """One psql process; query() sends a statement and reads its rows."""

    MARK = "__tabula_end__"

    def __init__(self, uri):
        self.lock = threading.Lock()
        self.p = subprocess.Popen(
            ["psql", "-X", "-A", "-t", "-q", "-F", "\t", "-v", "ON_ERROR_STOP=0", uri],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
            text=True, bufsize=1)

    def query(self, sql):
        with self.lock:
            self.p.stdin.write(sql.rstrip().rstrip(";") + ";\n\\echo " + self.MARK + "\n")
            self.p.stdin.flush()
            rows, errors = [], []
            while True:
                line = self.p.stdout.readline()
                if not line:
                    raise AssertionError("psql ended: %r" % errors)
                line = line.rstrip("\n")
                if line == self.MARK:
                    break
                if line.startswith(("ERROR:", "psql:", "FATAL:")):
                    errors.append(line)
                elif line:
                    rows.append(tuple(line.split("\t")))
            if errors:
                raise AssertionError("%s: %s" % (sql, "; ".join(errors)))
            return rows

    def close(self):
        try:
            self.p.stdin.close()
            self.p.wait(timeout=5)
        except Exception:
            self.p.kill()


_conns = {}


def query(uri, sql):
    """The rows of sql (tuples of strings) in the store at uri."""
    c = _conns.get(uri)
    if c is None or c.p.poll() is not None:
        c = _conns[uri] = _Psql(uri)
    return c.query(sql)


def scalar(uri, sql):
    rows = query(uri, sql)
    return int(rows[0][0]) if rows else 0


def _close_all():
    for c in _conns.values():
        c.close()
    _conns.clear()


atexit.register(_close_all)


class Schema:
    """A fresh schema for one test: .uri is the bot's TABULA_DB (the
    schema on its search_path), .name its name; drop() removes it."""

    def __init__(self):
        self.name = "it_%d_%d" % (os.getpid(), next(_counter))
        query(server(), "DROP SCHEMA IF EXISTS %s CASCADE; CREATE SCHEMA %s"
              % (self.name, self.name))
        self.uri = "%s&options=-csearch_path%%3D%s" % (server(), self.name)

    def drop(self):
        c = _conns.pop(self.uri, None)
        if c:
            c.close()
        query(server(), "DROP SCHEMA IF EXISTS %s CASCADE" % self.name)
