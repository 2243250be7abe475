#!/bin/sh
# Installs the Debian packages tabula needs when pkg-config cannot find them.
# Runs apt-get update first, as a fresh Debian 12 machine needs.
set -e
need=""
check() { pkg-config --exists "$1" 2>/dev/null || need="$need $2"; }
command -v pkg-config >/dev/null 2>&1 || need="$need pkg-config"
command -v cc >/dev/null 2>&1 || need="$need gcc"
command -v make >/dev/null 2>&1 || need="$need make"
check libuv libuv1-dev
check libwebsockets libwebsockets-dev
check libcurl libcurl4-openssl-dev
check jansson libjansson-dev
check sqlite3 libsqlite3-dev
check cmocka libcmocka-dev
command -v python3 >/dev/null 2>&1 || need="$need python3"
[ -z "$need" ] && exit 0
echo "deps: installing$need"
SUDO=""
if [ "$(id -u)" != 0 ]; then
	if command -v sudo >/dev/null 2>&1; then SUDO=sudo; else
		echo "deps: missing$need; run as root or install them with apt-get" >&2
		exit 1
	fi
fi
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
# shellcheck disable=SC2086
$SUDO apt-get install -y -qq --no-install-recommends $need
