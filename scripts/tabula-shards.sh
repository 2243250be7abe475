#!/bin/sh
# tabula-shards.sh: runs the bot as n Discord shard processes on one
# machine, sharing one PostgreSQL store (docs/deploy.md).  A supervisor for
# when systemd is not at hand; with systemd, use config/tabula@.service.
#
# usage: tabula-shards.sh [n]
#   n  the number of shards; without it, the count Discord recommends
#      (GET /gateway/bot's "shards", asked with DISCORD_TOKEN)
#
# Each process gets DISCORD_SHARD=i/n and this script's environment
# (TABULA_DB must be a postgresql:// URI: the processes share it).
# TABULA_BIN names the binary (default: tabula beside this script's
# directory, else on PATH).  A process that ends is started again after a
# pause, unless it ended on a configuration error (exit 2, 14-16, 20-25:
# the same error would come back; 25 would spend the day's reserve of
# session starts); a crash (1), a store that went away (3) and a lost lease
# (26) are restarted, as config/tabula@.service does.  SIGTERM or SIGINT
# stops them all and exits 0.  The token is read from the environment only: never on a
# command line, where ps would show it.
set -u

die() {
	echo "tabula-shards: $*" >&2
	exit 2
}

case ${TABULA_DB:-} in
postgresql://* | postgres://*) ;;
*) die "TABULA_DB must be a postgresql:// URI: the shards share one store" ;;
esac
[ -n "${DISCORD_TOKEN:-}" ] || die "DISCORD_TOKEN is not set"
bin=${TABULA_BIN:-}
if [ -z "$bin" ]; then
	here=$(dirname "$0")
	if [ -x "$here/../tabula" ]; then
		bin="$here/../tabula"
	else
		bin=$(command -v tabula) || die "no tabula binary (set TABULA_BIN)"
	fi
fi

# Discord's recommended shard count (the token stays in the environment);
# the User-Agent is the bot's: its version and address from --version.
# A proxy on a Unix socket (DISCORD_API_PROXY) is passed by: one request.
recommended() {
	TABULA_VERSION_LINES=$("$bin" --version) python3 - <<'EOF'
import json, os, sys, urllib.request
base = os.environ.get("DISCORD_API_URL") or "https://discord.com/api/v10"
if base.startswith("unix:"):
    base = "https://discord.com/api/v10"
name, url = (os.environ["TABULA_VERSION_LINES"].splitlines() + ["", ""])[:2]
req = urllib.request.Request(base.rstrip("/") + "/gateway/bot",
                             headers={"Authorization": "Bot " + os.environ["DISCORD_TOKEN"],
                                      "User-Agent": "DiscordBot (%s, %s)"
                                      % (url, name.split(" ")[-1])})
try:
    with urllib.request.urlopen(req, timeout=15) as r:
        n = json.load(r).get("shards")
except Exception as e:
    sys.exit("GET /gateway/bot failed: %s" % e)
if not isinstance(n, int) or n < 1:
    sys.exit("GET /gateway/bot gave no shard count")
print(n)
EOF
}

n=${1:-}
if [ -z "$n" ]; then
	n=$(recommended) || die "cannot ask Discord for the shard count; give it: tabula-shards.sh N"
fi
case $n in
'' | *[!0-9]*) die "the shard count must be a number" ;;
esac
[ "$n" -ge 1 ] && [ "$n" -le 65535 ] || die "the shard count must be 1 to 65535"
echo "tabula-shards: running $n shards"

pids=""
stopping=""
start() {
	DISCORD_SHARD="$1/$n" "$bin" &
	eval "pid_$1=$!"
}

stop_all() {
	stopping=1
	i=0
	while [ "$i" -lt "$n" ]; do
		eval "p=\${pid_$i:-}"
		[ -n "$p" ] && kill -TERM "$p" 2>/dev/null
		i=$((i + 1))
	done
	i=0
	while [ "$i" -lt "$n" ]; do
		eval "p=\${pid_$i:-}"
		[ -n "$p" ] && wait "$p" 2>/dev/null
		i=$((i + 1))
	done
	echo "tabula-shards: stopped"
	exit 0
}
trap stop_all TERM INT

i=0
while [ "$i" -lt "$n" ]; do
	start "$i"
	i=$((i + 1))
done

# Supervise: every second, a shard whose process ended is started again.
while [ -z "$stopping" ]; do
	sleep 1 &
	wait $! 2>/dev/null
	i=0
	while [ "$i" -lt "$n" ] && [ -z "$stopping" ]; do
		eval "p=\${pid_$i:-}"
		if [ -n "$p" ] && ! kill -0 "$p" 2>/dev/null; then
			wait "$p"
			rc=$?
			case $rc in
			2 | 14 | 15 | 16 | 20 | 21 | 22 | 23 | 24 | 25)
				echo "tabula-shards: shard $i exited $rc (a configuration error):" \
					"not restarted" >&2
				eval "pid_$i="
				;;
			*)
				echo "tabula-shards: shard $i exited $rc; restarting it" >&2
				start "$i"
				;;
			esac
		fi
		i=$((i + 1))
	done
done
