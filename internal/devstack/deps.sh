#!/usr/bin/env bash
# Installs what the local backend stack needs, and nothing that is already there:
#   Debian: postgresql-15, postgresql-15-postgis-3, chromium (for the browser tests), redis-server (LiveQuery
#           pub/sub between the parse-servers, the endpoint's shared limits) and haproxy (the load balancer)
#   npm:    the stack's app (parse-server and the app's libraries, from internal/devstack/app/package-lock.json)
#           into .devstack/server, then the server package (server/ at the repository root) as a user installs it:
#           its `npm pack` tarball, installed into that node_modules with npm install (re-done only when the app's
#           lock or a file of the package changed).
#   deps.sh line N installs the app on parse-server line N instead (internal/devstack/lines/N, into .devstack/lines/N).
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
pkg_sum=$(cd "$PKG_SRC" && pkg_files | xargs sha256sum | sha256sum | cut -d' ' -f1)

# pack prints the server package's tarball (npm pack of server/), packed once per content into .devstack/pack/<sum>.
pack() {
	local dir=$STATE/pack/$pkg_sum
	if ! ls "$dir"/moralis-go-server-*.tgz >/dev/null 2>&1; then
		rm -rf "$STATE/pack"
		mkdir -p "$dir"
		(cd "$PKG_SRC" && npm pack --pack-destination "$dir" --loglevel=error) >"$LOGDIR/npm-pack.log" 2>&1 8>&- ||
			die_with_log "npm pack of $PKG_SRC failed" "$LOGDIR/npm-pack.log"
	fi
	ls "$dir"/moralis-go-server-*.tgz
}

# install_app SRC TARGET NAME: the app whose package.json and package-lock.json are in SRC, installed into TARGET
# (npm ci), then the server package as a user gets it: its npm pack tarball, installed with npm install (without
# saving it in the app's package.json: the app stays as committed). Redone only when the app's lock or a file of
# the package changed; when only the package changed, it starts from a hard-linked copy of the installed app (npm
# replaces a package's files, it does not write into them). The install goes to TARGET.new, which then replaces
# TARGET in one rename, so a running server never sees a half-installed tree.
install_app() {
	local src=$1 target=$2 name=$3 app_sum want have new tarball
	app_sum=$(cat "$src/package.json" "$src/package-lock.json" | sha256sum | cut -d' ' -f1)
	want="app $app_sum
package $pkg_sum"
	have=$(cat "$target/.installed" 2>/dev/null || true)
	if [ "$want" = "$have" ] && [ -f "$target/node_modules/parse-server/package.json" ] &&
		[ -f "$target/node_modules/moralis-go-server/package.json" ]; then
		return 0
	fi
	new=$target.new
	rm -rf "$new" "$target.old"
	mkdir -p "$(dirname "$target")"
	if [ "$(sed -n 1p <<<"$have")" = "app $app_sum" ] && [ -f "$target/node_modules/parse-server/package.json" ]; then
		cp -al "$target" "$new"
	else
		log "npm ci of $name into $target"
		mkdir -p "$new"
		cp "$src/package.json" "$src/package-lock.json" "$new/"
		if ! (cd "$new" && npm ci --no-audit --no-fund --loglevel=error) >"$LOGDIR/npm-ci-$name.log" 2>&1 8>&-; then
			rm -rf "$new"
			die_with_log "npm ci of $name failed" "$LOGDIR/npm-ci-$name.log"
		fi
	fi
	tarball=$(pack) && [ -n "$tarball" ] || exit 1
	log "npm install of the server package ($(basename "$tarball")) into $target"
	if ! (cd "$new" && npm install --no-save --prefer-offline --no-audit --no-fund --loglevel=error "$tarball") \
		>"$LOGDIR/npm-install-package-$name.log" 2>&1 8>&-; then
		rm -rf "$new"
		die_with_log "npm install of $tarball into $name failed" "$LOGDIR/npm-install-package-$name.log"
	fi
	echo "$want" >"$new/.installed"
	[ -d "$target" ] && mv "$target" "$target.old"
	mv "$new" "$target"
	rm -rf "$target.old"
}

if [ "${1:-}" = line ]; then
	# deps.sh line N: the app on parse-server line N (internal/devstack/lines/N) into .devstack/lines/N, stock: no
	# patch of parse-server's system classes.
	[ -f "$DEVSTACK_SRC/lines/${2:-}/package.json" ] || die "no parse-server line ${2:-} in $DEVSTACK_SRC/lines (have: $(ls "$DEVSTACK_SRC/lines" | tr '\n' ' '))"
	install_app "$DEVSTACK_SRC/lines/$2" "$STATE/lines/$2" "parse-server-$2"
	exit 0
fi

install_app "$APP_SRC" "$SERVER_DIR" app
# The Moralis server's linked-address system classes (see app/moralis-classes.js); idempotent.
node "$APP_SRC/moralis-classes.js" "$SERVER_DIR/node_modules/parse-server" >/dev/null ||
	die "could not add the _EthAddress/_SolAddress system classes to parse-server"
