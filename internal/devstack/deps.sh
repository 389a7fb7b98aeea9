#!/usr/bin/env bash
# Installs what the local backend stack needs, and nothing that is already there:
#   Debian: postgresql-15, postgresql-15-postgis-3, chromium (for the browser tests), redis-server (LiveQuery
#           pub/sub between the parse-servers, the endpoint's shared limits) and haproxy (the load balancer)
#   npm:    the stack's app (parse-server and the app's libraries, from internal/devstack/app/package-lock.json)
#           into .devstack/server, then the server package (server/ at the repository root) as a user installs it:
#           its `npm pack` tarball, installed into that node_modules with npm install (re-done only when the app's
#           lock or a file of the package changed).
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
# One install at a time (make deps and up.sh may run together); the installs go to a fresh directory that then
# replaces .devstack/server in one rename, so a running server never sees a half-installed tree.
exec 8>"$STATE/deps.lock"
flock -w 600 8 || die "another deps.sh holds $STATE/deps.lock for more than 600 s"
# pkg_files lists the files npm pack puts in the server package's tarball (its package.json "files"), sorted.
pkg_files() {
	(cd "$PKG_SRC" && find package.json index.js README.md lib cloud -type f ! -name '*.test.js' 2>/dev/null | LC_ALL=C sort)
}
app_sum=$(cat "$APP_SRC/package.json" "$APP_SRC/package-lock.json" | sha256sum | cut -d' ' -f1)
pkg_sum=$(cd "$PKG_SRC" && pkg_files | xargs sha256sum | sha256sum | cut -d' ' -f1)
want="app $app_sum
package $pkg_sum"
have=$(cat "$SERVER_DIR/.installed" 2>/dev/null || true)
if [ "$want" != "$have" ] || [ ! -f "$SERVER_DIR/node_modules/parse-server/package.json" ] ||
	[ ! -f "$SERVER_DIR/node_modules/moralis-go-server/package.json" ]; then
	new=$SERVER_DIR.new
	rm -rf "$new" "$SERVER_DIR.old"
	if [ "$(sed -n 1p <<<"$have")" = "app $app_sum" ] && [ -f "$SERVER_DIR/node_modules/parse-server/package.json" ]; then
		# Only the package changed: start from the installed app (hard links: npm replaces a package's files, it
		# does not write into them) and install the new tarball over it.
		cp -al "$SERVER_DIR" "$new"
	else
		log "npm ci of the stack's app (parse-server) into $SERVER_DIR"
		mkdir -p "$new"
		cp "$APP_SRC/package.json" "$APP_SRC/package-lock.json" "$new/"
		if ! (cd "$new" && npm ci --no-audit --no-fund --loglevel=error) >"$LOGDIR/npm-ci.log" 2>&1 8>&-; then
			rm -rf "$new"
			die_with_log "npm ci failed" "$LOGDIR/npm-ci.log"
		fi
	fi
	# The package as a user gets it: npm pack, then npm install of the tarball (without saving it in the app's
	# package.json: the stack's app stays as committed).
	log "npm pack of server/ and npm install of the tarball into $SERVER_DIR"
	rm -rf "$STATE/pack"
	mkdir -p "$STATE/pack"
	if ! (cd "$PKG_SRC" && npm pack --pack-destination "$STATE/pack" --loglevel=error) >"$LOGDIR/npm-pack.log" 2>&1 8>&-; then
		rm -rf "$new"
		die_with_log "npm pack of $PKG_SRC failed" "$LOGDIR/npm-pack.log"
	fi
	tarball=$(ls "$STATE"/pack/moralis-go-server-*.tgz)
	if ! (cd "$new" && npm install --no-save --prefer-offline --no-audit --no-fund --loglevel=error "$tarball") \
		>"$LOGDIR/npm-install-package.log" 2>&1 8>&-; then
		rm -rf "$new"
		die_with_log "npm install of $tarball failed" "$LOGDIR/npm-install-package.log"
	fi
	echo "$want" >"$new/.installed"
	[ -d "$SERVER_DIR" ] && mv "$SERVER_DIR" "$SERVER_DIR.old"
	mv "$new" "$SERVER_DIR"
	rm -rf "$SERVER_DIR.old"
fi
# The Moralis server's linked-address system classes (see app/moralis-classes.js); idempotent.
node "$APP_SRC/moralis-classes.js" "$SERVER_DIR/node_modules/parse-server" >/dev/null ||
	die "could not add the _EthAddress/_SolAddress system classes to parse-server"
