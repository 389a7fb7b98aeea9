# Shared helpers for the devstack scripts; sourced, never run.
# Paths are computed from this file's location so the stack works from any clone.
DEVSTACK_SRC=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
REPO_ROOT=$(cd "$DEVSTACK_SRC/../.." && pwd)
# The stack's parse-server app (the user's app: launcher, test cloud code, dev adapters) and the server package it
# installs and mounts (moralis-go-server, at the top of the repository).
APP_SRC=$DEVSTACK_SRC/app
PKG_SRC=$REPO_ROOT/server
STATE=${MORALIS_DEVSTACK_STATE:-$REPO_ROOT/.devstack}
PGBIN=/usr/lib/postgresql/15/bin
PGDATA=$STATE/pg
LOGDIR=$STATE/logs
SERVER_DIR=$STATE/server

log() { printf '[devstack] %s\n' "$*" >&2; }
die() { printf '[devstack] ERROR: %s\n' "$*" >&2; exit 1; }

# die_with_log REASON LOGFILE: print the reason and the last lines of a log, then exit 1.
die_with_log() {
	printf '[devstack] ERROR: %s\n' "$1" >&2
	if [ -f "$2" ]; then
		printf '[devstack] --- last lines of %s ---\n' "$2" >&2
		# parse-server 9.10 logs ~17 DeprecationWarning lines at every start; leave them out.
		grep -v 'DeprecationWarning' "$2" | tail -n 40 >&2
		printf '[devstack] --- end of log ---\n' >&2
	fi
	exit 1
}

# proc_alive PID: true when PID is a running process (a zombie waiting to be reaped counts as dead).
proc_alive() {
	[ -n "$1" ] && kill -0 "$1" 2>/dev/null || return 1
	if [ -r "/proc/$1/stat" ]; then
		# The state is the first field after the ")" that closes the command name.
		[ "$(sed 's/.*) //' "/proc/$1/stat" 2>/dev/null | cut -c1)" != Z ]
	fi
}

# pid_alive FILE: true when FILE holds the PID of a running process.
pid_alive() {
	[ -s "$1" ] || return 1
	proc_alive "$(head -n 1 "$1" | tr -dc '0-9')"
}

# stop_pid PID: SIGTERM to PID (one of ours, recorded in a PID file), SIGKILL if it is still alive after 5 s.
stop_pid() {
	kill "$1" 2>/dev/null || true
	for _ in $(seq 1 50); do proc_alive "$1" || break; sleep 0.1; done
	if proc_alive "$1"; then kill -9 "$1" 2>/dev/null || true; fi
}

# free_port: print a TCP port that is free on 127.0.0.1 right now.
free_port() {
	node -e 'const s=require("net").createServer();s.listen(0,"127.0.0.1",()=>{console.log(s.address().port);s.close()})'
}

# as_pg CMD...: run a command as the postgres user when we are root, else as ourselves.
# It runs from / so that a working directory the postgres user cannot enter does not matter.
as_pg() {
	if [ "$(id -u)" = 0 ]; then
		(cd / && runuser -u postgres -- "$@")
	else
		(cd / && "$@")
	fi
}

# with_bin_lock CMD...: run CMD holding $STATE/bin.lock, the lock of every build of the stack's Go programs into
# $STATE/bin (build.sh, up.sh's endpoint, chain.sh, demo.sh). make test builds them all once beside the stack's
# start; up.sh and chain.sh then wait for that build and find their programs up to date instead of compiling the
# same packages a second time at once (two go commands share no work in progress). CMD does not inherit the lock.
with_bin_lock() {
	mkdir -p "$STATE/bin"
	(
		flock -w 1800 7 || die "another build holds $STATE/bin.lock for more than 30 minutes"
		"$@" 7>&-
	) 7>"$STATE/bin.lock"
}
