"""The runner shared by the integration test scripts: every test_* function
of a module, one line each, then "<prefix>: N passed, M failed".

TABULA_TEST_SLOW (a number, default 1) multiplies every timeout of the
scripts and the fakes: `make valgrind` runs the bot under valgrind with 10.

A test marked @whole_game_scan plays whole games to check what they show
(secrets, seasons of results): it tests data, not memory, and its paths are
the shorter tests' paths, many times over.  TABULA_TEST_SCANS=0 skips it:
`make asan` sets it, since the plain pass of `.ci/run` has just run it
(README, "For developers")."""
import os
import sys
import time
import traceback

SLOW = float(os.environ.get("TABULA_TEST_SLOW") or 1)
SCANS = os.environ.get("TABULA_TEST_SCANS", "1") != "0"


def whole_game_scan(fn):
    fn.whole_game_scan = True
    return fn


def run_tests(prefix, module, argv):
    """argv: [script, binary, test-name ...]; sets module.BIN.  Returns the
    exit status."""
    if len(argv) > 1:
        module.BIN = argv[1]
    only = set(argv[2:])
    tests = [v for k, v in sorted(vars(module).items())
             if k.startswith("test_") and callable(v)]
    passed = failed = skipped = 0
    for t in tests:
        if only and t.__name__ not in only:
            continue
        if not SCANS and getattr(t, "whole_game_scan", False) and not only:
            skipped += 1
            print("skip %s (a whole-game scan: TABULA_TEST_SCANS=0)" % t.__name__)
            continue
        t0 = time.monotonic()
        try:
            t()
        except Exception:
            failed += 1
            print("FAIL %s (%.1fs)" % (t.__name__, time.monotonic() - t0))
            traceback.print_exc()
        else:
            passed += 1
            print("ok   %s (%.1fs)" % (t.__name__, time.monotonic() - t0))
        sys.stdout.flush()
    print("%s: %d passed, %d failed%s" % (prefix, passed, failed,
                                       ", %d skipped" % skipped if skipped else ""))
    return 1 if failed else 0


def store_counts(db):
    """(stored moves, outbox messages not yet delivered) in the bot's store
    at db: a SQLite file (read-only beside the running bot: WAL allows it)
    or a PostgreSQL URI (tests/integration/pg.py)."""
    import sqlite3
    import pg
    if pg.is_pg(db):
        row = pg.query(db, "SELECT (SELECT count(*) FROM actions),"
                       " (SELECT count(*) FROM outbox WHERE sent_at IS NULL)")[0]
        return int(row[0]), int(row[1])
    con = sqlite3.connect("file:%s?mode=ro" % db, uri=True, timeout=10)
    try:
        moves = con.execute("SELECT count(*) FROM actions").fetchone()[0]
        pending = con.execute("SELECT count(*) FROM outbox WHERE sent_at IS NULL").fetchone()[0]
        return moves, pending
    finally:
        con.close()


def wait_settled(db, moves_before, timeout=10, what=""):
    """Waits until the bot has stored a move more than moves_before and
    delivered every message of its outbox: the move's whole outcome is out
    (a step that shows the room nothing posts nothing, so tests wait for
    this, not for a new board).  Returns the number of stored moves."""
    end = time.monotonic() + timeout * SLOW
    while True:
        moves, pending = store_counts(db)
        if moves > moves_before and not pending:
            return moves
        if time.monotonic() > end:
            raise AssertionError("the bot did not settle %s: %d moves stored (before %d), "
                                 "%d messages undelivered" % (what, moves, moves_before, pending))
        time.sleep(0.02 if db.startswith("postgres") else 0.01)


def public_posts(db):
    """The room messages the bot committed (its outbox, public ones)."""
    import sqlite3
    import pg
    if pg.is_pg(db):
        return pg.scalar(db, "SELECT count(*) FROM outbox WHERE \"user\" = ''")
    con = sqlite3.connect("file:%s?mode=ro" % db, uri=True, timeout=10)
    try:
        return con.execute("SELECT count(*) FROM outbox WHERE user = ''").fetchone()[0]
    finally:
        con.close()
