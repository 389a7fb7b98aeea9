#!/usr/bin/env bash
# Extra parse-server instances of the local stack (run `up.sh` first), for tests that need a server unlike the
# stack's two: another parse-server line, a private module the package must find broken, a stock server's options.
#
#   extra.sh start NAME [SETTING=value ...]   start (or reuse) instance NAME; prints its URL (http://127.0.0.1:PORT/parse)
#   extra.sh stop NAME                        stop it (by its recorded PID)
#   extra.sh stop-all                         stop every extra instance
#
# Settings:
#   LINE=N          the parse-server line (internal/devstack/lines/N, installed into .devstack/lines/N by
#                   `deps.sh line N` with the server package's tarball); default: the stack's own install (9.x)
#   DATABASE=name   its own database in the stack's PostgreSQL cluster (made with PostGIS when missing); default:
#                   the stack's database (the instance then sees the stack's users and objects)
#   DEVSTACK_*=...  any setting of app/index.js, e.g. DEVSTACK_BREAK_PRIVATE=RestWrite,triggers,
#                   DEVSTACK_ALLOW_CUSTOM_OBJECT_ID=0, DEVSTACK_LIVEQUERY=0, DEVSTACK_REDIS_URL=...
# The instance runs the stack's app with the stack's app id and keys, from the stack's state directory (the same
# files directory), with LiveQuery on its own port (in-process pub/sub unless DEVSTACK_REDIS_URL is given). Its PID
# file is .devstack/extra/NAME.pid (line 2: its settings; an instance started with other settings is restarted),
# its log .devstack/logs/extra-NAME.log. down.sh stops them all.
set -euo pipefail
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

EXTRA=$STATE/extra
mkdir -p "$EXTRA" "$LOGDIR"
[ -f "$STATE/env" ] && [ -f "$STATE/keys.env" ] && [ -f "$STATE/ports.env" ] || die "the stack is not up: run internal/devstack/up.sh first"

usage() { die "usage: extra.sh start NAME [SETTING=value ...] | stop NAME | stop-all"; }
health_ok() { curl -fsS --max-time 2 "http://127.0.0.1:$1/parse/health" 2>/dev/null | grep -q '"ok"'; }

stop_one() {
	local pf=$EXTRA/$1.pid
	if pid_alive "$pf"; then
		stop_pid "$(head -n 1 "$pf")"
	fi
	rm -f "$pf"
}

cmd=${1:-}
case "$cmd" in
stop)
	[ -n "${2:-}" ] || usage
	stop_one "$2"
	exit 0
	;;
stop-all)
	for pf in "$EXTRA"/*.pid; do
		[ -e "$pf" ] || continue
		stop_one "$(basename "$pf" .pid)"
	done
	exit 0
	;;
start) ;;
*) usage ;;
esac

name=${2:-}
[[ "$name" =~ ^[A-Za-z0-9_-]{1,40}$ ]] || die "extra.sh: NAME must be 1 to 40 letters, digits, _ or -"
shift 2
line=
database=
envs=()
for kv in "$@"; do
	case "$kv" in
	LINE=*) line=${kv#LINE=} ;;
	DATABASE=*) database=${kv#DATABASE=} ;;
	DEVSTACK_*=*) envs+=("$kv") ;;
	*) die "extra.sh: unknown setting $kv (LINE=, DATABASE= or DEVSTACK_*=)" ;;
	esac
done
[ -z "$database" ] || [[ "$database" =~ ^[a-z][a-z0-9_]{0,40}$ ]] || die "extra.sh: DATABASE must be a lower-case name"
settings="LINE=$line DATABASE=$database ${envs[*]:-}"

# shellcheck disable=SC1090
. "$STATE/keys.env"
# shellcheck disable=SC1090
. "$STATE/ports.env"
pf=$EXTRA/$name.pid
lf=$LOGDIR/extra-$name.log

# Reuse a healthy instance started with the same settings (its port is line 3 of the PID file).
if pid_alive "$pf" && [ "$(sed -n 2p "$pf")" = "$settings" ] && [ "$(sed -n 4p "$pf")" = "$(cat "$SERVER_DIR/.installed" "$STATE/lines/$line/.installed" 2>/dev/null | sha256sum)" ]; then
	port=$(sed -n 3p "$pf")
	if health_ok "$port"; then
		echo "http://127.0.0.1:$port/parse"
		exit 0
	fi
fi
stop_one "$name"

modules=$SERVER_DIR/node_modules
if [ -n "$line" ]; then
	bash "$DEVSTACK_SRC/deps.sh" line "$line" >&2
	modules=$STATE/lines/$line/node_modules
fi
db=${database:-moralis}
PSQL=("$PGBIN/psql" -X -q -h 127.0.0.1 -p "$PG_PORT" -U postgres -v ON_ERROR_STOP=1)
if [ -n "$database" ]; then
	# One creation at a time (two extras may ask for the same database).
	exec 7>"$EXTRA/db.lock"
	flock -w 60 7 || die "extra.sh: another start holds $EXTRA/db.lock"
	if [ "$("${PSQL[@]}" -d postgres -tAc "select 1 from pg_database where datname = '$db'")" != 1 ]; then
		"${PSQL[@]}" -d postgres -c "create database $db" >&2 || die "create database $db failed"
	fi
	if [ "$("${PSQL[@]}" -d "$db" -tAc "select 1 from pg_extension where extname = 'postgis'")" != 1 ]; then
		"${PSQL[@]}" -d "$db" -c "create extension postgis" >&2 || die "create extension postgis in $db failed"
	fi
	exec 7>&-
fi

# A free port, taken while the lock is held until the instance listens (two extras started at once get two ports).
exec 6>"$EXTRA/port.lock"
flock -w 120 6 || die "extra.sh: another start holds $EXTRA/port.lock"
port=$(free_port)
log "starting extra parse-server $name on 127.0.0.1:$port ($settings; log $lf)"
echo "---- $(date -u +%FT%TZ) start on port $port: $settings" >>"$lf"
(
	cd "$STATE"
	exec 6>&-
	exec env NODE_PATH="$modules" DEVSTACK_PORT="$port" DEVSTACK_APP_ID="$APP_ID" DEVSTACK_JS_KEY="$JS_KEY" \
		DEVSTACK_MASTER_KEY="$MASTER_KEY" DEVSTACK_DATABASE_URI="postgres://postgres@127.0.0.1:$PG_PORT/$db" \
		DEVSTACK_MAIL_FILE="$STATE/mail.jsonl" DEVSTACK_PID_FILE="$pf.tmp" ${envs[@]+"${envs[@]}"} \
		setsid node "$APP_SRC/index.js" </dev/null >>"$lf" 2>&1
) &
launcher=$!
deadline=$(($(date +%s) + 90))
until health_ok "$port"; do
	proc_alive "$launcher" || die_with_log "extra parse-server $name exited during start-up" "$lf"
	[ "$(date +%s)" -lt "$deadline" ] || { stop_pid "$launcher"; die_with_log "extra parse-server $name did not answer within 90 s" "$lf"; }
	sleep 0.1
done
# index.js writes its PID once listening.
for _ in $(seq 1 50); do pid_alive "$pf.tmp" && break; sleep 0.1; done
pid_alive "$pf.tmp" || die_with_log "extra parse-server $name answers but recorded no PID" "$lf"
printf '%s\n%s\n%s\n%s\n' "$(head -n 1 "$pf.tmp")" "$settings" "$port" "$(cat "$SERVER_DIR/.installed" "$STATE/lines/$line/.installed" 2>/dev/null | sha256sum)" >"$pf"
rm -f "$pf.tmp"
echo "http://127.0.0.1:$port/parse"
