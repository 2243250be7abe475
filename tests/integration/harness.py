"""The runner shared by the integration test scripts: every test_* function
of a module, one line each, then "<prefix>: N passed, M failed".

TABULA_TEST_SLOW (a number, default 1) multiplies every timeout of the
scripts and the fakes: `make valgrind` runs the bot under valgrind with 10."""
import os
import sys
import time
import traceback

SLOW = float(os.environ.get("TABULA_TEST_SLOW") or 1)


def run_tests(prefix, module, argv):
    """argv: [script, binary, test-name ...]; sets module.BIN.  Returns the
    exit status."""
    if len(argv) > 1:
        module.BIN = argv[1]
    only = set(argv[2:])
    tests = [v for k, v in sorted(vars(module).items())
             if k.startswith("test_") and callable(v)]
    passed = failed = 0
    for t in tests:
        if only and t.__name__ not in only:
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
    print("%s: %d passed, %d failed" % (prefix, passed, failed))
    return 1 if failed else 0
