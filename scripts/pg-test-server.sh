#!/bin/sh
# A throwaway PostgreSQL for the tests and the benchmarks: a cluster made
# with initdb in a temporary directory, listening only on a Unix socket
# there, run by an unprivileged user (the server refuses to run as root,
# and CI runs as root), stopped and deleted at the end.
#
# usage:
#   pg-test-server.sh start DIR [--durable]  make and start a cluster in DIR
#                                            (empty or missing); prints its URI
#   pg-test-server.sh stop DIR               stop it and delete DIR
#   pg-test-server.sh run [--durable] CMD... start one in a new temporary
#                                            directory, run CMD with
#                                            TABULA_TEST_PG set to its URI,
#                                            stop it; exits with CMD's status
#
# The URI names database "tabula" as user "tabula" (trust authentication:
# only the socket's directory, 0700 apart from the server's user, reaches
# it).  Without --durable the cluster trades durability for speed (fsync
# off): it lives for one test run.  --durable keeps PostgreSQL's defaults
# (the benchmarks' figures).  PG_BIN names the server's bin directory;
# else initdb on PATH, else the newest /usr/lib/postgresql/*/bin.
# A cluster that cannot start is an error (exit 1, its log printed): the
# tests that need it fail, they do not skip.
set -e

die() {
	echo "pg-test-server: $*" >&2
	exit 1
}

find_bin() {
	if [ -n "${PG_BIN:-}" ]; then
		echo "$PG_BIN"
		return
	fi
	if command -v initdb >/dev/null 2>&1; then
		dirname "$(readlink -f "$(command -v initdb)")"
		return
	fi
	d=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -n 1)
	[ -n "$d" ] || die "no PostgreSQL server found (install the postgresql package: scripts/deps.sh)"
	echo "$d"
}

# Who runs the server: this user, or when root an unprivileged one.
server_user() {
	if [ "$(id -u)" != 0 ]; then
		id -un
	elif id postgres >/dev/null 2>&1; then
		echo postgres
	else
		echo nobody
	fi
}

as_server() {
	if [ "$(id -u)" = 0 ]; then
		runuser -u "$(server_user)" -- "$@"
	else
		"$@"
	fi
}

start() {
	dir=$1
	durable=$2
	bin=$(find_bin)
	[ -x "$bin/initdb" ] || die "$bin/initdb is missing"
	mkdir -p "$dir"
	[ -z "$(ls -A "$dir")" ] || die "$dir is not empty"
	chmod 700 "$dir"
	if [ "$(id -u)" = 0 ]; then
		chown "$(server_user)" "$dir"
	fi
	if ! as_server "$bin/initdb" -D "$dir/data" -U tabula --auth=trust -E UTF8 \
		--locale=C.UTF-8 >"$dir/initdb.log" 2>&1; then
		cat "$dir/initdb.log" >&2
		die "initdb failed"
	fi
	if [ -n "$durable" ]; then
		opts=""
	else
		opts="-c fsync=off -c synchronous_commit=off -c full_page_writes=off"
	fi
	# no TCP at all: the socket in $dir is the only way in
	if ! as_server "$bin/pg_ctl" -D "$dir/data" -l "$dir/server.log" -w -t 60 \
		-o "-k $dir -c listen_addresses= -c max_connections=200 $opts" \
		start >"$dir/pg_ctl.log" 2>&1; then
		cat "$dir/pg_ctl.log" "$dir/server.log" >&2 2>/dev/null || true
		die "the server did not start"
	fi
	if ! "$bin/psql" -X -q "postgresql:///postgres?host=$dir&user=tabula" \
		-c "CREATE DATABASE tabula" >"$dir/psql.log" 2>&1; then
		cat "$dir/psql.log" >&2
		stop "$dir"
		die "cannot create the database"
	fi
	echo "postgresql:///tabula?host=$dir&user=tabula"
}

stop() {
	dir=$1
	bin=$(find_bin)
	[ -d "$dir/data" ] && as_server "$bin/pg_ctl" -D "$dir/data" -m immediate -w stop \
		>/dev/null 2>&1 || true
	rm -rf "$dir"
}

cmd=${1:-}
[ -n "$cmd" ] || die "usage: pg-test-server.sh start DIR [--durable] | stop DIR | run [--durable] CMD..."
shift
case $cmd in
start)
	[ -n "${1:-}" ] || die "start: which directory?"
	start "$1" "${2:-}"
	;;
stop)
	[ -n "${1:-}" ] || die "stop: which directory?"
	stop "$1"
	;;
run)
	durable=""
	if [ "${1:-}" = --durable ]; then
		durable=1
		shift
	fi
	[ $# -gt 0 ] || die "run: which command?"
	dir=$(mktemp -d "${TMPDIR:-/tmp}/tabula-pg.XXXXXX")
	rmdir "$dir"
	trap 'stop "$dir"' EXIT
	trap 'exit 130' INT TERM
	TABULA_TEST_PG=$(start "$dir" "$durable")
	export TABULA_TEST_PG
	set +e
	"$@"
	rc=$?
	set -e
	exit $rc
	;;
*)
	die "unknown command $cmd"
	;;
esac
