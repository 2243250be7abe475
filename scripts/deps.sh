#!/bin/sh
# Installs the Debian packages tabula needs when pkg-config cannot find them.
# Runs apt-get update first, as a fresh Debian 12 machine needs.
# `deps.sh fuzz` (make fuzz) also wants clang and its libFuzzer runtime.
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
check libpq libpq-dev
check cmocka libcmocka-dev
check cairo libcairo2-dev
check pangocairo libpango1.0-dev
check fontconfig libfontconfig-dev
check zlib zlib1g-dev
# the PNG writer's deflate (paint/png.c): smaller and faster than zlib's
check libdeflate libdeflate-dev
# the painter's font (paint/paint.c): any sans-serif would do, DejaVu is the one tested
[ -e /usr/share/fonts/truetype/dejavu/DejaVuSans.ttf ] || need="$need fonts-dejavu-core"
check olm libolm-dev
# encrypted attachments (adapters/matrix/mxattach.c): AES-256-CTR, SHA-256
check libcrypto libssl-dev
# python3-olm: the Matrix tests' encrypting client.  It installs into the
# system Python's dist-packages, which another python3 of the same version
# (pyenv) does not search: tests/integration/olmclient.py adds that path,
# and so does this check.
# python3-cryptography (the fake homeserver decrypts the bot's encrypted
# pictures, AES-256-CTR) is found the same way.
py_has() {
	python3 -c 'import sys; sys.path.append("/usr/lib/python3/dist-packages"); import '"$1" \
		>/dev/null 2>&1
}
if command -v python3 >/dev/null 2>&1; then
	py_has olm || need="$need python3-olm"
	py_has cryptography || need="$need python3-cryptography"
else
	need="$need python3 python3-olm python3-cryptography"
fi
# the interop tests' players (tests/integration/matrix_interop_test.py): Node.js
# (>= 18, Debian 12 has 18) runs matrix-sdk-crypto as WebAssembly, the npm
# package pinned in tests/interop/package-lock.json, installed below with npm ci
command -v node >/dev/null 2>&1 || need="$need nodejs"
command -v npm >/dev/null 2>&1 || need="$need npm"
# the game pages' browser tests (tests/browser/): Debian's chromium, driven
# headless by puppeteer-core (npm, pinned in tests/browser/package-lock.json)
[ -x /usr/bin/chromium ] || need="$need chromium"
# the tests' throwaway PostgreSQL (scripts/pg-test-server.sh): the server
# binaries and psql, which the integration tests read the store with
command -v initdb >/dev/null 2>&1 || ls /usr/lib/postgresql/*/bin/initdb >/dev/null 2>&1 ||
	need="$need postgresql"
command -v psql >/dev/null 2>&1 || need="$need postgresql-client"
# promtool, which checks the bot's /metrics exposition and config/'s
# Prometheus examples (tests/integration/metrics_test.py): Debian ships it in
# the prometheus package (no package of its own); its server is not wanted
# here and is stopped below if installing it started one
prom_new=""
command -v promtool >/dev/null 2>&1 || { need="$need prometheus"; prom_new=1; }
fuzz=""
[ "${1:-}" = fuzz ] && fuzz=1
[ -n "$fuzz" ] && { command -v clang >/dev/null 2>&1 || need="$need clang"; }
# The libFuzzer runtime of the installed clang, or the package that holds it
# (Debian's clang only recommends libclang-rt-N-dev, and recommends are not
# installed here).  Prints nothing when it is there.
fuzz_rt() {
	v=$(clang -dumpversion 2>/dev/null | cut -d. -f1)
	[ -n "$v" ] || return 0
	ls "$(clang --print-runtime-dir 2>/dev/null)"/libclang_rt.fuzzer*.a >/dev/null 2>&1 && return 0
	ls /usr/lib/llvm-"$v"/lib/clang/*/lib/*/libclang_rt.fuzzer*.a >/dev/null 2>&1 && return 0
	echo "libclang-rt-$v-dev"
}
[ -n "$fuzz" ] && command -v clang >/dev/null 2>&1 && need="$need$(fuzz_rt | sed 's/^/ /')"
if [ -n "$need" ]; then
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
	# a machine with systemd starts the prometheus service on install: the
	# tests need only its promtool, and a server on :9090 nobody asked for
	# is stopped and kept from starting at boot
	if [ -n "$prom_new" ] && command -v systemctl >/dev/null 2>&1 &&
		systemctl is-active --quiet prometheus 2>/dev/null; then
		$SUDO systemctl disable --now prometheus >/dev/null 2>&1 || true
	fi
	# clang was missing: its runtime's package name is known only now
	if [ -n "$fuzz" ] && [ -n "$(fuzz_rt)" ]; then
		# shellcheck disable=SC2046
		$SUDO apt-get install -y -qq --no-install-recommends $(fuzz_rt)
	fi
fi
# npm packages at the versions their lockfiles pin, installed with npm ci
# when missing (again when the lockfile names another version than the one
# installed): npm_pinned DIR PACKAGE
npm_pinned() {
	installed=$(sed -n 's/^ *"version": "\(.*\)",$/\1/p' \
		"$1/node_modules/$2/package.json" 2>/dev/null || true)
	pinned=$(sed -n '/"node_modules\/'"$(echo "$2" | sed 's,/,\\/,g')"'"/,/}/s/^ *"version": "\(.*\)",$/\1/p' \
		"$1/package-lock.json")
	if [ -z "$installed" ] || [ "$installed" != "$pinned" ]; then
		echo "deps: npm ci in ${1#"$top"/} ($2 $pinned)"
		(cd "$1" && npm ci --no-audit --no-fund --loglevel=error)
	fi
}
top="$(cd "$(dirname "$0")/.." && pwd)"
# matrix-sdk-crypto for the interop tests
npm_pinned "$top/tests/interop" @matrix-org/matrix-sdk-crypto-wasm
# the shared Discord REST proxy (docs/deploy.md), which the cluster test runs
npm_pinned "$top/scripts/discord-proxy" @discordjs/proxy
# puppeteer-core and axe-core for the game pages' browser tests
npm_pinned "$top/tests/browser" puppeteer-core
npm_pinned "$top/tests/browser" axe-core
