#!/usr/bin/env bash
# Brings up the local backend stack on 127.0.0.1: a throwaway PostgreSQL 15 + PostGIS cluster and
# parse-server 9.10 with Moralis v1 settings, cloud code and the moralisEth/moralisSol auth adapters.
# All state lives in <repo>/.devstack (git-ignored by its own .gitignore). Idempotent: when the
# recorded processes are alive and healthy it only rewrites .devstack/env and returns; it restarts
# parse-server when a file under internal/devstack/server changed since it started (cloud code).
# Writes .devstack/env (MORALIS_SERVER_URL, MORALIS_APP_ID, MORALIS_JS_KEY, MORALIS_MASTER_KEY,
# MORALIS_LIVEQUERY_URL, MORALIS_MAIL_FILE, MORALIS_PG_URL). Stop it with down.sh.
set -euo pipefail
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
t0=$(date +%s%N)
elapsed() { echo "$(( ($(date +%s%N) - t0) / 1000000 )) ms"; }

mkdir -p "$STATE" "$LOGDIR"
# One up.sh at a time per checkout (several engineers and test runs may call it at once).
# Children must not inherit fd 9 (flock locks follow the open file): each spawn closes it.
exec 9>"$STATE/up.lock"
flock -w 300 9 || die "another up.sh holds $STATE/up.lock for more than 300 s"
[ -f "$STATE/.gitignore" ] || printf '# local backend stack state (internal/devstack/up.sh)\n*\n' >"$STATE/.gitignore"

bash "$DEVSTACK_SRC/deps.sh" 9>&-

PG_LINK=$STATE/pg
PG_PID_FILE=$STATE/pg.pid
SERVER_PID_FILE=$STATE/server.pid
PORTS_FILE=$STATE/ports.env
KEYS_FILE=$STATE/keys.env
MAIL_FILE=$STATE/mail.jsonl
SERVER_LOG=$LOGDIR/parse-server.log
DB_NAME=moralis

# ---- where the cluster lives -------------------------------------------------------------------
# The postgres user must reach the data directory. A clone under a private directory (mktemp -d is
# 0700) cannot be traversed by it; the cluster then goes to /var/tmp and .devstack/pg links there.
if [ -L "$PG_LINK" ]; then
	PG_HOME=$(readlink -f "$PG_LINK")
	mkdir -p "$PG_HOME"
else
	PG_HOME=$PG_LINK
	mkdir -p "$PG_HOME"
	[ "$(id -u)" = 0 ] && chown postgres:postgres "$PG_HOME"
	if ! as_pg test -w "$PG_HOME" 2>/dev/null; then
		rmdir "$PG_HOME" 2>/dev/null || die "$PG_HOME is not writable by the postgres user"
		PG_HOME=/var/tmp/moralis-devstack-$(printf '%s' "$STATE" | sha256sum | cut -c1-16)
		mkdir -p "$PG_HOME"
		ln -s "$PG_HOME" "$PG_LINK"
		log "postgres cannot reach $STATE; cluster kept in $PG_HOME (linked from .devstack/pg)"
	fi
fi
[ "$(id -u)" = 0 ] && chown postgres:postgres "$PG_HOME"
PGDATA=$PG_HOME/data
PG_LOG=$PG_HOME/postgres.log
ln -sfn "$PG_LOG" "$LOGDIR/postgres.log"

# ---- recorded ports and keys ---------------------------------------------------------------------
PG_PORT=
SERVER_PORT=
# shellcheck disable=SC1090
[ -f "$PORTS_FILE" ] && . "$PORTS_FILE"

port_free() { ! (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; }
save_ports() { printf 'PG_PORT=%s\nSERVER_PORT=%s\n' "$PG_PORT" "$SERVER_PORT" >"$PORTS_FILE"; }
health_ok() { curl -fsS --max-time 2 "http://127.0.0.1:$SERVER_PORT/parse/health" 2>/dev/null | grep -q '"ok"'; }

write_env() {
	# shellcheck disable=SC1090
	. "$KEYS_FILE"
	local tmp=$STATE/env.tmp
	{
		echo "# written by internal/devstack/up.sh; source it or let internal/devstack.Load read it"
		echo "MORALIS_SERVER_URL=http://127.0.0.1:$SERVER_PORT/parse"
		echo "MORALIS_APP_ID=$APP_ID"
		echo "MORALIS_JS_KEY=$JS_KEY"
		echo "MORALIS_MASTER_KEY=$MASTER_KEY"
		echo "MORALIS_LIVEQUERY_URL=ws://127.0.0.1:$SERVER_PORT/parse"
		printf 'MORALIS_MAIL_FILE=%q\n' "$MAIL_FILE"
		echo "MORALIS_PG_URL=postgres://postgres@127.0.0.1:$PG_PORT/$DB_NAME"
	} >"$tmp"
	mv "$tmp" "$STATE/env"
}

# server_changed prints a file of the server's code (not its tests or tools) newer than its start.
server_changed() {
	find "$DEVSTACK_SRC/server" \( -name test -o -name tools -o -name node_modules \) -prune -o \
		-type f -newer "$SERVER_PID_FILE" -print -quit
}

# ---- warm path ------------------------------------------------------------------------------------
if pid_alive "$PG_PID_FILE" && pid_alive "$SERVER_PID_FILE" && [ -f "$KEYS_FILE" ] && [ -n "$SERVER_PORT" ] &&
	[ "$SERVER_PID_FILE" -nt "$SERVER_DIR/.installed" ] && [ -z "$(server_changed)" ] &&
	health_ok; then
	write_env
	log "already running: http://127.0.0.1:$SERVER_PORT/parse (pg port $PG_PORT), checked in $(elapsed)"
	exit 0
fi

# ---- PostgreSQL -----------------------------------------------------------------------------------
if [ ! -f "$PGDATA/PG_VERSION" ]; then
	log "initdb of a throwaway cluster in $PGDATA"
	rm -rf "$PGDATA" "$PG_PID_FILE"
	as_pg "$PGBIN/initdb" -D "$PGDATA" -U postgres --auth=trust -E UTF8 --locale=C.UTF-8 --no-sync \
		>"$PG_HOME/initdb.log" 2>&1 || die_with_log "initdb failed" "$PG_HOME/initdb.log"
	cat >>"$PGDATA/postgresql.conf" <<-EOF
		# moralis-go devstack: throwaway test cluster, speed over durability
		listen_addresses = '127.0.0.1'
		unix_socket_directories = ''
		fsync = off
		synchronous_commit = off
		full_page_writes = off
		max_connections = 200
	EOF
	# New cluster, new keys.
	rnd() { od -An -N"$1" -tx1 /dev/urandom | tr -d ' \n'; }
	printf 'APP_ID=app%s\nJS_KEY=js%s\nMASTER_KEY=mk%s\n' "$(rnd 6)" "$(rnd 12)" "$(rnd 18)" >"$KEYS_FILE"
	chmod 600 "$KEYS_FILE"
fi

pg_running=no
if pid_alive "$PG_PID_FILE"; then
	pg_running=yes
elif pid_alive "$PGDATA/postmaster.pid"; then
	# Our cluster is running but its PID was not recorded (e.g. pg.pid removed): adopt it.
	head -n 1 "$PGDATA/postmaster.pid" >"$PG_PID_FILE"
	PG_PORT=$(sed -n 4p "$PGDATA/postmaster.pid")
	pg_running=yes
fi
if [ "$pg_running" = no ]; then
	rm -f "$PG_PID_FILE"
	if [ -z "$PG_PORT" ] || ! port_free "$PG_PORT"; then
		PG_PORT=$(free_port)
	fi
	log "starting postgres on 127.0.0.1:$PG_PORT"
	as_pg "$PGBIN/pg_ctl" start -D "$PGDATA" -l "$PG_LOG" -w -t 60 -o "-p $PG_PORT" >"$PG_HOME/pg_ctl.log" 2>&1 9>&- ||
		{ cat "$PG_HOME/pg_ctl.log" >&2; die_with_log "postgres did not start" "$PG_LOG"; }
	head -n 1 "$PGDATA/postmaster.pid" >"$PG_PID_FILE"
fi
save_ports

PSQL=("$PGBIN/psql" -X -q -h 127.0.0.1 -p "$PG_PORT" -U postgres -v ON_ERROR_STOP=1)
if [ "$("${PSQL[@]}" -d postgres -tAc "select 1 from pg_database where datname = '$DB_NAME'")" != 1 ]; then
	"${PSQL[@]}" -d postgres -c "create database $DB_NAME" >&2 || die "create database $DB_NAME failed"
fi
if [ "$("${PSQL[@]}" -d "$DB_NAME" -tAc "select 1 from pg_extension where extname = 'postgis'")" != 1 ]; then
	"${PSQL[@]}" -d "$DB_NAME" -c "create extension postgis" >&2 || die "create extension postgis failed"
fi
log "postgres ready on 127.0.0.1:$PG_PORT after $(elapsed)"

# ---- parse-server ---------------------------------------------------------------------------------
if pid_alive "$SERVER_PID_FILE"; then
	# Alive but unhealthy, older than the installed packages or than a file under
	# internal/devstack/server (cloud code edited): restart it (it is ours, by PID).
	pid=$(head -n 1 "$SERVER_PID_FILE")
	log "restarting parse-server (pid $pid)"
	kill "$pid" 2>/dev/null || true
	for _ in $(seq 1 50); do proc_alive "$pid" || break; sleep 0.1; done
	if proc_alive "$pid"; then kill -9 "$pid" 2>/dev/null || true; fi
fi
rm -f "$SERVER_PID_FILE"
if [ -z "$SERVER_PORT" ] || ! port_free "$SERVER_PORT"; then
	SERVER_PORT=$(free_port)
fi
save_ports
# shellcheck disable=SC1090
. "$KEYS_FILE"
log "starting parse-server on 127.0.0.1:$SERVER_PORT (log $SERVER_LOG)"
echo "---- $(date -u +%FT%TZ) start on port $SERVER_PORT" >>"$SERVER_LOG"
(
	cd "$STATE"
	exec 9>&- # the lock must not outlive up.sh in the server
	exec env NODE_PATH="$SERVER_DIR/node_modules" \
		DEVSTACK_PORT="$SERVER_PORT" DEVSTACK_APP_ID="$APP_ID" DEVSTACK_JS_KEY="$JS_KEY" \
		DEVSTACK_MASTER_KEY="$MASTER_KEY" \
		DEVSTACK_DATABASE_URI="postgres://postgres@127.0.0.1:$PG_PORT/$DB_NAME" \
		DEVSTACK_MAIL_FILE="$MAIL_FILE" DEVSTACK_PID_FILE="$SERVER_PID_FILE" \
		setsid node "$DEVSTACK_SRC/server/index.js" </dev/null >>"$SERVER_LOG" 2>&1
) &
launcher=$!
deadline=$(( $(date +%s) + 90 ))
until health_ok; do
	if ! proc_alive "$launcher" && ! pid_alive "$SERVER_PID_FILE"; then
		die_with_log "parse-server exited during start-up" "$SERVER_LOG"
	fi
	if [ "$(date +%s)" -ge "$deadline" ]; then
		die_with_log "parse-server did not answer /parse/health within 90 s" "$SERVER_LOG"
	fi
	sleep 0.2
done
# index.js writes its own PID once listening; wait for that record.
for _ in $(seq 1 50); do pid_alive "$SERVER_PID_FILE" && break; sleep 0.1; done
pid_alive "$SERVER_PID_FILE" || die_with_log "parse-server answers but recorded no PID" "$SERVER_LOG"
write_env
log "up after $(elapsed): http://127.0.0.1:$SERVER_PORT/parse (pg 127.0.0.1:$PG_PORT); env in $STATE/env"
