#!/usr/bin/env bash
# Installs what the local backend stack needs, and nothing that is already there:
#   Debian: postgresql-15, postgresql-15-postgis-3, chromium (for the browser tests), redis-server (LiveQuery
#           pub/sub between the parse-servers, the endpoint's shared limits) and haproxy (the load balancer)
#   npm:    parse-server and the cloud code's libraries, from internal/devstack/server/package-lock.json,
#           into .devstack/server (re-installed only when the lock file changes).
# Idempotent; safe to run on every `make up`.
set -euo pipefail
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

missing=()
command -v curl >/dev/null || missing+=(curl)
[ -x "$PGBIN/initdb" ] || missing+=(postgresql-15)
dpkg-query -W -f='${Status}' postgresql-15-postgis-3 2>/dev/null | grep -q 'install ok installed' || missing+=(postgresql-15-postgis-3)
dpkg-query -W -f='${Status}' chromium 2>/dev/null | grep -q 'install ok installed' || missing+=(chromium)
command -v redis-server >/dev/null && command -v redis-cli >/dev/null || missing+=(redis-server)
command -v haproxy >/dev/null || missing+=(haproxy)
if [ ${#missing[@]} -gt 0 ]; then
	command -v apt-get >/dev/null || die "missing Debian packages (${missing[*]}) and no apt-get"
	SUDO=
	[ "$(id -u)" = 0 ] || SUDO=sudo
	log "installing Debian packages: ${missing[*]}"
	export DEBIAN_FRONTEND=noninteractive
	$SUDO apt-get update -q >"${TMPDIR:-/tmp}/devstack-apt-update.log" 2>&1 || { tail -n 20 "${TMPDIR:-/tmp}/devstack-apt-update.log" >&2; die "apt-get update failed"; }
	$SUDO apt-get install -y -q "${missing[@]}" >"${TMPDIR:-/tmp}/devstack-apt-install.log" 2>&1 || { tail -n 20 "${TMPDIR:-/tmp}/devstack-apt-install.log" >&2; die "apt-get install ${missing[*]} failed"; }
fi
[ -x "$PGBIN/initdb" ] || die "$PGBIN/initdb still missing after install"
command -v redis-server >/dev/null || die "redis-server still missing after install"
command -v haproxy >/dev/null || die "haproxy still missing after install"

command -v node >/dev/null || die "node is not installed (need Node >= 20.19)"
command -v npm >/dev/null || die "npm is not installed"

mkdir -p "$STATE" "$LOGDIR"
# One install at a time (make deps and up.sh may run together); npm ci goes to a fresh directory that
# then replaces .devstack/server in one rename, so a running server never sees a half-installed tree.
exec 8>"$STATE/deps.lock"
flock -w 600 8 || die "another deps.sh holds $STATE/deps.lock for more than 600 s"
want=$(cat "$DEVSTACK_SRC/server/package.json" "$DEVSTACK_SRC/server/package-lock.json" | sha256sum | cut -d' ' -f1)
have=$(cat "$SERVER_DIR/.installed" 2>/dev/null || true)
if [ "$want" != "$have" ] || [ ! -f "$SERVER_DIR/node_modules/parse-server/package.json" ]; then
	log "npm ci of parse-server into $SERVER_DIR"
	new=$SERVER_DIR.new
	rm -rf "$new" "$SERVER_DIR.old"
	mkdir -p "$new"
	cp "$DEVSTACK_SRC/server/package.json" "$DEVSTACK_SRC/server/package-lock.json" "$new/"
	if ! (cd "$new" && npm ci --no-audit --no-fund --loglevel=error) >"$LOGDIR/npm-ci.log" 2>&1 8>&-; then
		rm -rf "$new"
		die_with_log "npm ci failed" "$LOGDIR/npm-ci.log"
	fi
	echo "$want" >"$new/.installed"
	[ -d "$SERVER_DIR" ] && mv "$SERVER_DIR" "$SERVER_DIR.old"
	mv "$new" "$SERVER_DIR"
	rm -rf "$SERVER_DIR.old"
fi
# The Moralis server's linked-address system classes (see server/moralis-classes.js); idempotent.
node "$DEVSTACK_SRC/server/moralis-classes.js" "$SERVER_DIR/node_modules/parse-server" >/dev/null ||
	die "could not add the _EthAddress/_SolAddress system classes to parse-server"
