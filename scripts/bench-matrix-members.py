#!/usr/bin/env python3
"""What a Matrix room with many members costs the bot (docs/performance.md).

usage: bench-matrix-members.py BINARY [--members N] [--mode join|timeline]
                               [--no-lazy]

Runs BINARY against the loopback fake homeserver (tests/fakes/fake_matrix.py)
and a room with N members (default 36,000):

  join      the members are there before the bot is invited; joining, the
            bot gets the room's state in one /sync (every member when the
            server does not lazy-load members: --no-lazy).
  timeline  the bot is in the room first; the members join 50 at a time,
            each batch read in its own /sync, as a busy public room grows.

Then "!game status" in the room must be answered.  Prints, one per line:
  matrix.members.<mode>.<N>.cpu <s>     CPU time (user + system) the bot
                                        used from the invite (join) or the
                                        first join (timeline) to the answer
  matrix.members.<mode>.<N>.rss <MB>    its peak resident memory (VmHWM)
  matrix.members.<mode>.<N>.wall <s>    wall time to the answer
Diagnostics on stderr.  Nothing leaves 127.0.0.1.
"""
import argparse
import os
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "tests", "fakes"))
from fake_matrix import FakeMatrix  # noqa: E402

TICK = os.sysconf("SC_CLK_TCK")


def cpu_s(pid):
    with open("/proc/%d/stat" % pid) as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / TICK    # utime + stime


def hwm_mb(pid):
    with open("/proc/%d/status" % pid) as f:
        for line in f:
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) / 1024.0
    return 0.0


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("binary")
    ap.add_argument("--members", type=int, default=36000)
    ap.add_argument("--mode", choices=("join", "timeline"), default="join")
    ap.add_argument("--no-lazy", action="store_true",
                    help="the fake ignores lazy_load_members")
    a = ap.parse_args()

    # a one-letter server name keeps the 36k members' state (8.2 MB) under
    # the 8 MiB response cap, for the binary that reads it whole
    fake = FakeMatrix(server_name="x", bot_user="@tabula:x").start()
    fake.lazy_loading = not a.no_lazy
    fake.default_timeline_limit = 50
    d = tempfile.mkdtemp(prefix="tabula-members-")
    env = {k: v for k, v in os.environ.items()
           if not k.startswith(("DISCORD_", "MATRIX_", "TABULA_"))}
    env.update(fake.env())
    env.update({"TABULA_DB": os.path.join(d, "t.db"), "TABULA_SEED": "5",
                "TABULA_LOG": "warn"})
    owner = fake.register_user("owner", "Owner")
    n = a.members
    t_setup = time.monotonic()
    if a.mode == "join":
        ids = [fake.register_user("m%d" % i, "m%d" % i) for i in range(n)]
        room = fake.create_room(owner, members=ids)
    else:
        room = fake.create_room(owner)
    print("setup %.1f s" % (time.monotonic() - t_setup), file=sys.stderr)
    err = open(os.path.join(d, "stderr"), "wb")
    bot = subprocess.Popen([a.binary], env=env, stdin=subprocess.DEVNULL,
                           stdout=subprocess.DEVNULL, stderr=err)
    try:
        fake.wait_login(timeout=30)
        fake.wait_caught_up(timeout=30)
        cpu0 = cpu_s(bot.pid)
        t0 = time.monotonic()
        fake.invite_bot(room, owner)
        fake.wait_membership(fake.bot_user, room, "join", timeout=60)
        if a.mode == "timeline":
            fake.wait_caught_up(timeout=60)
            cpu0 = cpu_s(bot.pid)
            t0 = time.monotonic()
            for start in range(0, n, 50):
                with fake._lock:
                    for i in range(start, min(n, start + 50)):
                        u = fake.register_user("m%d" % i, "m%d" % i)
                        fake.join(u, room)
                fake.wait_caught_up(timeout=120)
        fake.say(owner, room, "!game status")
        fake.wait_bot_message(room, lambda c: "game" in c["body"].lower(),
                              timeout=600)
        wall = time.monotonic() - t0
        cpu = cpu_s(bot.pid) - cpu0
        rss = hwm_mb(bot.pid)
        biggest = max((s.bytes for s in fake.syncs), default=0)
        print("largest /sync response %.2f MB, %d syncs" %
              (biggest / 1e6, len(fake.syncs)), file=sys.stderr)
        tag = "matrix.members.%s.%d" % (a.mode, n)
        print("%s.cpu %.2f s" % (tag, cpu))
        print("%s.rss %.1f MB" % (tag, rss))
        print("%s.wall %.2f s" % (tag, wall))
    finally:
        bot.terminate()
        try:
            bot.wait(timeout=20)
        except subprocess.TimeoutExpired:
            bot.kill()
        err.close()
        fake.stop()
    return 0


if __name__ == "__main__":
    sys.exit(main())
