#!/usr/bin/env bash
# Brings up the local backend stack on 127.0.0.1, in the shape of a deployment that has outgrown one
# machine (see DEPLOY.md at the repository root):
#   - a throwaway PostgreSQL 15 + PostGIS cluster;
#   - Redis (Debian's redis-server, no persistence): parse-server's LiveQuery pub/sub between the
#     instances, and the store of the endpoints' shared limits;
#   - parse-server 9.10 with Moralis v1 settings (the stack's app, internal/devstack/app), which mounts the
#     server package (server/: the moralisEth/moralisSol auth adapters and its cloud code) as a user's app
#     does, installed from its npm pack tarball by deps.sh; run as TWO instances over the one database (same app id and keys, own ports and PID
#     files), each with its own LiveQuery server; a save through either reaches the subscribers of
#     both through Redis. Each purges expired _Idempotency rows on a schedule (app/index.js);
#   - HAProxy in front of them (round robin, health checks, websockets and SSE passed through), and
#     a second HAProxy front for two endpoint instances (examples/authserver, built once into
#     .devstack/bin and rebuilt only when a Go file changed) on MORALIS_ENDPOINT_ADDR_1/2 behind
#     MORALIS_ENDPOINT_LB_URL, sharing their guards in Redis (-redis) and their nonces in the backend.
# All state lives in <repo>/.devstack (git-ignored by its own .gitignore). Idempotent: when the
# recorded processes are alive and healthy it only rewrites .devstack/env and returns; it restarts
# an instance when a file of the stack's app (internal/devstack/app) changed since it started, when the
# server package (server/) was installed again (deps.sh reinstalls it when a file of it changed) or when Redis moved, and starts only what is missing otherwise (after a kill -9 of one parse-server or
# of Redis, running up.sh again restarts just that, on its old port).
# Writes .devstack/env (MORALIS_SERVER_URL, MORALIS_SERVER_URL_2, MORALIS_APP_ID, MORALIS_JS_KEY,
# MORALIS_MASTER_KEY, MORALIS_LIVEQUERY_URL, MORALIS_LIVEQUERY_URL_2, MORALIS_MAIL_FILE,
# MORALIS_PG_URL, MORALIS_REDIS_URL, MORALIS_LB_URL, MORALIS_LB_LIVEQUERY_URL,
# MORALIS_ENDPOINT_LB_URL, MORALIS_ENDPOINT_ADDR_1, MORALIS_ENDPOINT_ADDR_2). Stop it with down.sh.
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
SERVER2_PID_FILE=$STATE/server2.pid
PORTS_FILE=$STATE/ports.env
KEYS_FILE=$STATE/keys.env
MAIL_FILE=$STATE/mail.jsonl
SERVER_LOG=$LOGDIR/parse-server.log
SERVER2_LOG=$LOGDIR/parse-server-2.log
REDIS_PID_FILE=$STATE/redis.pid
REDIS_LOG=$LOGDIR/redis.log
LB_PID_FILE=$STATE/haproxy.pid
LB_CFG=$STATE/haproxy.state
LB_LOG=$LOGDIR/haproxy.log
EP_BIN=$STATE/bin/authserver
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
SERVER2_PORT=
REDIS_PORT=
LB_PORT=
EP_LB_PORT=
EP1_PORT=
EP2_PORT=
# shellcheck disable=SC1090
[ -f "$PORTS_FILE" ] && . "$PORTS_FILE"

port_free() { ! (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; }
save_ports() {
	printf 'PG_PORT=%s\nSERVER_PORT=%s\nSERVER2_PORT=%s\nREDIS_PORT=%s\nLB_PORT=%s\nEP_LB_PORT=%s\nEP1_PORT=%s\nEP2_PORT=%s\n' \
		"$PG_PORT" "$SERVER_PORT" "$SERVER2_PORT" "$REDIS_PORT" "$LB_PORT" "$EP_LB_PORT" "$EP1_PORT" "$EP2_PORT" >"$PORTS_FILE"
}
# new_port VAR...: a free port for each named variable that is empty, taken, or equal to another port of
# the stack (a port recorded before is kept while it is free, so URLs stay the same across restarts).
all_ports() { echo "$PG_PORT $SERVER_PORT $SERVER2_PORT $REDIS_PORT $LB_PORT $EP_LB_PORT $EP1_PORT $EP2_PORT"; }
new_port() {
	local v cur others
	for v in "$@"; do
		cur=${!v}
		others=$(all_ports | tr ' ' '\n' | grep -c -x -- "${cur:-none}" || true)
		if [ -z "$cur" ] || ! port_free "$cur" || [ "$others" -gt 1 ]; then
			cur=$(free_port)
			while all_ports | tr ' ' '\n' | grep -q -x -- "$cur"; do cur=$(free_port); done
			printf -v "$v" '%s' "$cur"
		fi
	done
}
redis_url() { echo "redis://127.0.0.1:$REDIS_PORT/0"; }
# redis_ok: our Redis (by PID) answers PING.
redis_ok() {
	pid_alive "$REDIS_PID_FILE" && [ -n "$REDIS_PORT" ] &&
		[ "$(redis-cli -h 127.0.0.1 -p "$REDIS_PORT" ping 2>/dev/null)" = PONG ]
}
# lb_ok: our HAProxy (by PID) runs haproxy.cfg with the variables this up.sh would give it.
lb_ok() { pid_alive "$LB_PID_FILE" && [ -f "$LB_CFG" ] && lb_state | cmp -s - "$LB_CFG"; }
# health_ok PORT: parse-server on PORT answers /parse/health with "ok".
health_ok() { [ -n "$1" ] && curl -fsS --max-time 2 "http://127.0.0.1:$1/parse/health" 2>/dev/null | grep -q '"ok"'; }

# Instance N (1 or 2) of parse-server: its PID file, port variable, log.
pid_file_of() { if [ "$1" = 1 ]; then echo "$SERVER_PID_FILE"; else echo "$SERVER2_PID_FILE"; fi; }
port_of() { if [ "$1" = 1 ]; then echo "$SERVER_PORT"; else echo "$SERVER2_PORT"; fi; }
log_of() { if [ "$1" = 1 ]; then echo "$SERVER_LOG"; else echo "$SERVER2_LOG"; fi; }

write_env() {
	# shellcheck disable=SC1090
	. "$KEYS_FILE"
	local tmp=$STATE/env.tmp
	{
		echo "# written by internal/devstack/up.sh; source it or let internal/devstack.Load read it"
		echo "MORALIS_SERVER_URL=http://127.0.0.1:$SERVER_PORT/parse"
		echo "MORALIS_SERVER_URL_2=http://127.0.0.1:$SERVER2_PORT/parse"
		echo "MORALIS_APP_ID=$APP_ID"
		echo "MORALIS_JS_KEY=$JS_KEY"
		echo "MORALIS_MASTER_KEY=$MASTER_KEY"
		echo "MORALIS_LIVEQUERY_URL=ws://127.0.0.1:$SERVER_PORT/parse"
		echo "MORALIS_LIVEQUERY_URL_2=ws://127.0.0.1:$SERVER2_PORT/parse"
		printf 'MORALIS_MAIL_FILE=%q\n' "$MAIL_FILE"
		echo "MORALIS_PG_URL=postgres://postgres@127.0.0.1:$PG_PORT/$DB_NAME"
		echo "MORALIS_REDIS_URL=$(redis_url)"
		echo "MORALIS_LB_URL=http://127.0.0.1:$LB_PORT/parse"
		echo "MORALIS_LB_LIVEQUERY_URL=ws://127.0.0.1:$LB_PORT/parse"
		echo "MORALIS_ENDPOINT_LB_URL=http://127.0.0.1:$EP_LB_PORT"
		echo "MORALIS_ENDPOINT_ADDR_1=127.0.0.1:$EP1_PORT"
		echo "MORALIS_ENDPOINT_ADDR_2=127.0.0.1:$EP2_PORT"
	} >"$tmp"
	mv "$tmp" "$STATE/env"
}

# server_changed PIDFILE prints a file of the stack's app (not its tests) newer than the start of the instance that
# wrote PIDFILE. The server package is installed (deps.sh), so a change of it shows as a newer .installed.
server_changed() {
	find "$APP_SRC" \( -name test -o -name node_modules \) -prune -o \
		-type f -newer "$1" -print -quit
}

# instance_ok N: instance N is alive, healthy, and started after the packages and the app's code.
instance_ok() {
	local pf
	pf=$(pid_file_of "$1")
	pid_alive "$pf" && [ "$pf" -nt "$SERVER_DIR/.installed" ] && [ -z "$(server_changed "$pf")" ] &&
		[ "$(sed -n 2p "$pf")" = "$(redis_url)" ] && health_ok "$(port_of "$1")"
}

# The balancer's configuration is internal/devstack/haproxy.cfg, the one DEPLOY.md shows, run as it is with these
# variables (HAProxy expands them): two fronts, the parse-servers and the endpoint instances, whose answers name the
# instance in X-Devstack-Endpoint (DEVSTACK), for the tests. The balancer connects from 127.0.0.2 (BALANCER_SOURCE):
# the endpoints read its PROXY protocol headers from that address only, so the tests' direct connections from
# 127.0.0.1 need none. lb_state prints the variables and the file: what the running HAProxy was started with.
LB_FILE=$DEVSTACK_SRC/haproxy.cfg
BALANCER_SOURCE=127.0.0.2
lb_env() {
	echo "DEVSTACK=1 BALANCER_SOURCE=$BALANCER_SOURCE PARSE_BIND=127.0.0.1:$LB_PORT" \
		"PARSE1_ADDR=127.0.0.1:$SERVER_PORT PARSE2_ADDR=127.0.0.1:$SERVER2_PORT ENDPOINT_BIND=127.0.0.1:$EP_LB_PORT" \
		"ENDPOINT1_ADDR=127.0.0.1:$EP1_PORT ENDPOINT2_ADDR=127.0.0.1:$EP2_PORT"
}
lb_state() {
	lb_env
	cat "$LB_FILE"
}
# ---- the endpoint instances (examples/authserver) ------------------------------------------------
# ep_stale prints a Go file of the module (or go.mod/go.sum) newer than the cached binary: it must be rebuilt.
ep_stale() {
	[ -x "$EP_BIN" ] || { echo "$EP_BIN"; return; }
	find "$REPO_ROOT" \( -name .devstack -o -name node_modules -o -name .git -o -name react-hooks \) -prune -o \
		\( -name '*.go' ! -name '*_test.go' -o -name go.mod -o -name go.sum \) -type f -newer "$EP_BIN" -print -quit
}
# ep_args N prints instance N's command line after the binary: one line, recorded in its PID file, so an instance
# whose settings changed (Redis, the balancers' ports) is restarted. The live streams' heartbeat is 1 s: HAProxy
# notices a client that closed its stream only when it next writes to it, and only then ends the stream on the
# instance, which frees the stream's slot in the caps.
ep_args() {
	local port
	if [ "$1" = 1 ]; then port=$EP1_PORT; else port=$EP2_PORT; fi
	echo "-addr 127.0.0.1:$port -domain 127.0.0.1:$EP_LB_PORT -uri http://127.0.0.1:$EP_LB_PORT" \
		"-redis $(redis_url) -proxy-protocol $BALANCER_SOURCE/32" \
		"-livequery ws://127.0.0.1:$LB_PORT/parse -live-heartbeat 1s -static $STATE/no-static"
}
# EP_GOMAXPROCS: each endpoint instance runs as if it had one core of its own (GOMAXPROCS=1), as a deployment gives
# each instance its share (Go sets GOMAXPROCS from a container's CPU limit). Two instances on a 2-core machine that
# each schedule for two cores keep threads spinning for work on the cores parse-server needs: 100 sign-ins/s through
# HAProxy took 18.9 ms of the machine's CPU per sign-in that way and 14.7 ms this way (BENCHMARKS.md).
EP_GOMAXPROCS=1
# ep_line N is what instance N's PID file records after its PID: its environment's GOMAXPROCS and ep_args.
ep_line() { echo "GOMAXPROCS=$EP_GOMAXPROCS $(ep_args "$1")"; }
# ep_ok N: endpoint N runs the cached binary (started after it was built) with the current settings and answers
# GET /auth/me with 401 (within 2 s: right after Redis came back, its first answers may still be 503).
ep_ok() {
	local pf=$STATE/endpoint$1.pid port
	if [ "$1" = 1 ]; then port=$EP1_PORT; else port=$EP2_PORT; fi
	pid_alive "$pf" && [ "$pf" -nt "$EP_BIN" ] && [ -z "$(ep_stale)" ] && [ "$(sed -n 2p "$pf")" = "$(ep_line "$1")" ] || return 1
	for _ in $(seq 1 20); do
		[ "$(curl -s -o /dev/null -w '%{http_code}' --max-time 2 "http://127.0.0.1:$port/auth/me" 2>/dev/null)" = 401 ] && return 0
		sleep 0.1
	done
	return 1
}
# ---- warm path ------------------------------------------------------------------------------------
if pid_alive "$PG_PID_FILE" && [ -f "$KEYS_FILE" ] && redis_ok && instance_ok 1 && instance_ok 2 && lb_ok &&
	ep_ok 1 && ep_ok 2; then
	write_env
	log "already running: http://127.0.0.1:$SERVER_PORT/parse and http://127.0.0.1:$SERVER2_PORT/parse" \
		"behind http://127.0.0.1:$LB_PORT/parse (pg port $PG_PORT, redis port $REDIS_PORT), checked in $(elapsed)"
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
pg_was_running=no
if pid_alive "$PG_PID_FILE"; then
	pg_running=yes
	pg_was_running=yes
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

# ---- Redis ----------------------------------------------------------------------------------------
# No persistence (a restart starts empty): LiveQuery pub/sub keeps nothing, and the shared limits are
# short-lived by nature. Daemonised by redis-server itself, which writes its PID file.
mkdir -p "$STATE/redis"
if ! redis_ok; then
	if pid_alive "$REDIS_PID_FILE"; then
		pid=$(head -n 1 "$REDIS_PID_FILE")
		log "restarting redis (pid $pid does not answer)"
		stop_pid "$pid"
	fi
	rm -f "$REDIS_PID_FILE"
	new_port REDIS_PORT
	save_ports
	log "starting redis on 127.0.0.1:$REDIS_PORT (log $REDIS_LOG)"
	redis-server --bind 127.0.0.1 --port "$REDIS_PORT" --protected-mode yes --daemonize yes \
		--pidfile "$REDIS_PID_FILE" --dir "$STATE/redis" --logfile "$REDIS_LOG" --save '' --appendonly no 9>&- ||
		die_with_log "redis-server did not start" "$REDIS_LOG"
	for _ in $(seq 1 100); do redis_ok && break; sleep 0.05; done
	redis_ok || die_with_log "redis did not answer PING within 5 s" "$REDIS_LOG"
fi
log "redis ready on 127.0.0.1:$REDIS_PORT after $(elapsed)"

# ---- parse-server, two instances --------------------------------------------------------------------
# An instance that is alive, healthy and current (and whose database kept running) is kept: a
# missing second instance is started without disturbing the first. The others are (re)started, the
# node processes in parallel (index.js serialises their database initialisation with a lock).
# shellcheck disable=SC1090
. "$KEYS_FILE"
to_start=()
for n in 1 2; do
	if [ "$pg_was_running" = yes ] && instance_ok "$n"; then
		log "parse-server $n already running on 127.0.0.1:$(port_of "$n")"
		continue
	fi
	to_start+=("$n")
	pf=$(pid_file_of "$n")
	if pid_alive "$pf"; then
		# Alive but unhealthy, older than the installed packages (the server package included) or than a file
		# under internal/devstack/app (cloud code edited): restart it (it is ours, by PID).
		pid=$(head -n 1 "$pf")
		log "restarting parse-server $n (pid $pid)"
		stop_pid "$pid"
	fi
	rm -f "$pf"
done
# Ports: the recorded one while it is free, else a new one; the two always differ.
for n in "${to_start[@]}"; do
	if [ "$n" = 1 ]; then
		if [ -z "$SERVER_PORT" ] || ! port_free "$SERVER_PORT" || [ "$SERVER_PORT" = "$SERVER2_PORT" ]; then
			SERVER_PORT=$(free_port)
			while [ "$SERVER_PORT" = "$SERVER2_PORT" ]; do SERVER_PORT=$(free_port); done
		fi
	else
		if [ -z "$SERVER2_PORT" ] || ! port_free "$SERVER2_PORT" || [ "$SERVER2_PORT" = "$SERVER_PORT" ]; then
			SERVER2_PORT=$(free_port)
			while [ "$SERVER2_PORT" = "$SERVER_PORT" ]; do SERVER2_PORT=$(free_port); done
		fi
	fi
done
save_ports

# start_instance N: launch instance N in the background; sets launcher_N to the launcher's PID.
start_instance() {
	local n=$1 port pf lf
	port=$(port_of "$n")
	pf=$(pid_file_of "$n")
	lf=$(log_of "$n")
	log "starting parse-server $n on 127.0.0.1:$port (log $lf)"
	echo "---- $(date -u +%FT%TZ) start on port $port" >>"$lf"
	(
		cd "$STATE"
		exec 9>&- # the lock must not outlive up.sh in the server
		exec env NODE_PATH="$SERVER_DIR/node_modules" \
			DEVSTACK_PORT="$port" DEVSTACK_APP_ID="$APP_ID" DEVSTACK_JS_KEY="$JS_KEY" \
			DEVSTACK_MASTER_KEY="$MASTER_KEY" \
			DEVSTACK_DATABASE_URI="postgres://postgres@127.0.0.1:$PG_PORT/$DB_NAME" \
			DEVSTACK_MAIL_FILE="$MAIL_FILE" DEVSTACK_PID_FILE="$pf" DEVSTACK_REDIS_URL="$(redis_url)" \
			DEVSTACK_TRUST_PROXY="$BALANCER_SOURCE" \
			setsid node "$APP_SRC/index.js" </dev/null >>"$lf" 2>&1
	) &
	eval "launcher_$n=\$!"
}
for n in "${to_start[@]}"; do start_instance "$n"; done

deadline=$(( $(date +%s) + 90 ))
for n in "${to_start[@]}"; do
	launcher_var=launcher_$n
	until health_ok "$(port_of "$n")"; do
		if ! proc_alive "${!launcher_var}" && ! pid_alive "$(pid_file_of "$n")"; then
			die_with_log "parse-server $n exited during start-up" "$(log_of "$n")"
		fi
		if [ "$(date +%s)" -ge "$deadline" ]; then
			die_with_log "parse-server $n did not answer /parse/health within 90 s" "$(log_of "$n")"
		fi
		sleep 0.1
	done
	# index.js writes its own PID once listening; wait for that record.
	for _ in $(seq 1 50); do pid_alive "$(pid_file_of "$n")" && break; sleep 0.1; done
	pid_alive "$(pid_file_of "$n")" || die_with_log "parse-server $n answers but recorded no PID" "$(log_of "$n")"
done
# ---- HAProxy ------------------------------------------------------------------------------------------
if ! lb_ok; then
	if pid_alive "$LB_PID_FILE"; then
		pid=$(head -n 1 "$LB_PID_FILE")
		log "restarting haproxy (pid $pid): its configuration changed"
		stop_pid "$pid"
	fi
	rm -f "$LB_PID_FILE"
	new_port LB_PORT EP_LB_PORT
	# The endpoints' ports are only reserved: an endpoint a test started may hold one now.
	[ -n "$EP1_PORT" ] || new_port EP1_PORT
	[ -n "$EP2_PORT" ] || new_port EP2_PORT
	save_ports
	lb_state >"$LB_CFG"
	# shellcheck disable=SC2046 # lb_env is split into VAR=value words on purpose (no spaces inside one)
	env $(lb_env) haproxy -c -q -f "$LB_FILE" >"$LB_LOG" 2>&1 || die_with_log "haproxy refused $LB_FILE" "$LB_LOG"
	log "starting haproxy on 127.0.0.1:$LB_PORT (parse-servers) and 127.0.0.1:$EP_LB_PORT (endpoints)"
	# shellcheck disable=SC2046
	env $(lb_env) haproxy -D -p "$LB_PID_FILE" -f "$LB_FILE" >>"$LB_LOG" 2>&1 9>&- || die_with_log "haproxy did not start" "$LB_LOG"
	for _ in $(seq 1 50); do pid_alive "$LB_PID_FILE" && break; sleep 0.05; done
	pid_alive "$LB_PID_FILE" || die_with_log "haproxy recorded no PID" "$LB_LOG"
fi
# The balancer answers once its first health checks marked an instance up.
for _ in $(seq 1 100); do health_ok "$LB_PORT" && break; sleep 0.05; done
health_ok "$LB_PORT" || die_with_log "nothing answers /parse/health through haproxy on port $LB_PORT" "$LB_LOG"

# ---- two endpoint instances -----------------------------------------------------------------------------
# The binary is built once and kept in .devstack/bin; go build runs again only when a Go file changed. A build of
# the stack's programs under way (make test runs build.sh beside up.sh) is waited for, not repeated.
build_ep() {
	[ -n "$(ep_stale)" ] || return 0
	log "building examples/authserver into $EP_BIN"
	(cd "$REPO_ROOT" && go build -o "$EP_BIN.tmp" ./examples/authserver) || die "go build ./examples/authserver failed"
	mv "$EP_BIN.tmp" "$EP_BIN"
}
with_bin_lock build_ep 9>&-
for n in 1 2; do
	pf=$STATE/endpoint$n.pid
	lf=$LOGDIR/endpoint-$n.log
	ep_ok "$n" && continue
	if pid_alive "$pf"; then
		pid=$(head -n 1 "$pf")
		log "restarting endpoint $n (pid $pid)"
		stop_pid "$pid"
	fi
	rm -f "$pf"
	if [ "$n" = 1 ]; then port=$EP1_PORT; else port=$EP2_PORT; fi
	port_free "$port" || die "endpoint $n: port $port is taken by a process up.sh did not start"
	log "starting endpoint $n on 127.0.0.1:$port (log $lf)"
	echo "---- $(date -u +%FT%TZ) start on port $port" >>"$lf"
	# shellcheck disable=SC2046 # ep_args is split into arguments on purpose (no spaces inside one)
	(
		exec 9>&-
		cd "$STATE"
		exec env MORALIS_SERVER_URL="http://127.0.0.1:$LB_PORT/parse" MORALIS_APP_ID="$APP_ID" MORALIS_JS_KEY="$JS_KEY" \
			MORALIS_MASTER_KEY="$MASTER_KEY" MORALIS_LIVEQUERY_URL= MORALIS_RPC_URL= GOMAXPROCS="$EP_GOMAXPROCS" \
			setsid "$EP_BIN" $(ep_args "$n") </dev/null >>"$lf" 2>&1
	) &
	pid=$!
	printf '%s\n%s\n' "$pid" "$(ep_line "$n")" >"$pf"
	for _ in $(seq 1 100); do
		[ "$(curl -s -o /dev/null -w '%{http_code}' --max-time 2 "http://127.0.0.1:$port/auth/me" 2>/dev/null)" = 401 ] && break
		proc_alive "$pid" || die_with_log "endpoint $n exited during start-up" "$lf"
		sleep 0.05
	done
	ep_ok "$n" || die_with_log "endpoint $n does not answer GET /auth/me with 401 within 5 s" "$lf"
done
# The balancer sends to both once its health checks marked them up (its answers name the instance: the
# X-Devstack-Endpoint header, for the tests).
seen=
for _ in $(seq 1 200); do
	seen="$seen $(curl -s -o /dev/null -D - --max-time 2 "http://127.0.0.1:$EP_LB_PORT/auth/me" 2>/dev/null |
		tr -d '\r' | sed -n 's/^[Xx]-[Dd]evstack-[Ee]ndpoint: //p')"
	case "$seen" in *endpoint1*endpoint2* | *endpoint2*endpoint1*) break ;; esac
	sleep 0.05
done
case "$seen" in
*endpoint1*endpoint2* | *endpoint2*endpoint1*) ;;
*) die_with_log "haproxy on port $EP_LB_PORT does not send to both endpoints within 10 s" "$LB_LOG" ;;
esac
write_env
log "up after $(elapsed): http://127.0.0.1:$SERVER_PORT/parse and http://127.0.0.1:$SERVER2_PORT/parse" \
	"behind http://127.0.0.1:$LB_PORT/parse (pg 127.0.0.1:$PG_PORT, redis 127.0.0.1:$REDIS_PORT); env in $STATE/env"
