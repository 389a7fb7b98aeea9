#!/usr/bin/env bash
# Stops what up.sh and extra.sh started, by the PIDs they recorded: the extra parse-servers, the load balancer (HAProxy), the two endpoint
# instances, both parse-server
# instances (SIGTERM to both at once, then SIGKILL after 10 s), Redis and the throwaway PostgreSQL cluster (pg_ctl stop on our own data
# directory). Keeps the data, so the next up.sh is warm; `down.sh --purge` also deletes .devstack
# (cluster, files, mail, keys).
set -euo pipefail
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

SERVER_PID_FILES=("$STATE/server.pid" "$STATE/server2.pid")
PG_PID_FILE=$STATE/pg.pid

# stop_recorded NAME PIDFILE: stop the process PIDFILE records (ours), if it runs.
stop_recorded() {
	if pid_alive "$2"; then
		local pid
		pid=$(head -n 1 "$2")
		log "stopping $1 (pid $pid)"
		stop_pid "$pid"
	fi
	rm -f "$2"
}

# The extra parse-server instances tests started (extra.sh).
for pf in "$STATE"/extra/*.pid; do
	[ -e "$pf" ] || continue
	stop_recorded "extra parse-server $(basename "$pf" .pid)" "$pf"
	rm -f "$pf"
done
stop_recorded haproxy "$STATE/haproxy.pid"
stop_recorded "endpoint 1" "$STATE/endpoint1.pid"
stop_recorded "endpoint 2" "$STATE/endpoint2.pid"

pids=()
for pf in "${SERVER_PID_FILES[@]}"; do
	if pid_alive "$pf"; then
		pid=$(head -n 1 "$pf")
		log "stopping parse-server (pid $pid, $(basename "$pf"))"
		kill -TERM "$pid" 2>/dev/null || true
		pids+=("$pid")
	fi
done
for pid in "${pids[@]}"; do
	for _ in $(seq 1 100); do proc_alive "$pid" || break; sleep 0.1; done
	if proc_alive "$pid"; then
		log "parse-server (pid $pid) still alive after 10 s: SIGKILL"
		kill -KILL "$pid" 2>/dev/null || true
	fi
done
rm -f "${SERVER_PID_FILES[@]}"

stop_recorded redis "$STATE/redis.pid"

if pid_alive "$PG_PID_FILE"; then
	pid=$(head -n 1 "$PG_PID_FILE")
	pgdata=$(readlink -f "$STATE/pg")/data
	if [ -f "$pgdata/postmaster.pid" ] && [ "$(head -n 1 "$pgdata/postmaster.pid")" = "$pid" ]; then
		log "stopping postgres (pid $pid)"
		as_pg "$PGBIN/pg_ctl" stop -D "$pgdata" -m fast -w -t 30 >/dev/null || kill -TERM "$pid" 2>/dev/null || true
	else
		log "stopping postgres (pid $pid, no matching postmaster.pid)"
		kill -TERM "$pid" 2>/dev/null || true
	fi
	for _ in $(seq 1 100); do proc_alive "$pid" || break; sleep 0.1; done
fi
rm -f "$PG_PID_FILE"

if [ "${1:-}" = --purge ]; then
	target=$(readlink -f "$STATE/pg" 2>/dev/null || true)
	case "$target" in /var/tmp/moralis-devstack-*) rm -rf "$target" ;; esac
	rm -rf "$STATE"
	log "purged $STATE"
fi
log "stopped"
