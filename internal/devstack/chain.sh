#!/usr/bin/env bash
# The demo's chain side, next to the backend stack: a local EVM (internal/devchain: go-ethereum's simulated chain
# behind JSON-RPC, mining each transaction at once, with the ERC-20/721/1155 presets deployed) and the chain-data
# test server (web3apitest's web3apiserver) answering from that chain.
#   chain.sh up    build both into .devstack/bin (one `go build`, with cgo as the environment says: the compile
#                  `go build ./...`, `go vet` and the tests share, so after make lint or build.sh only the link is
#                  left, or nothing), start them on free 127.0.0.1 ports, write .devstack/chain/env.
#                  DEVSTACK_PREBUILT=1 uses the binaries already in .devstack/bin (demo.sh has just built them,
#                  without cgo: alone, compiling the C parts of pebble's zstd and secp256k1 is ~30% of a cold build).
#   chain.sh down  stop what `up` started, by PID
set -euo pipefail
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

CHAIN_STATE=$STATE/chain
BIN=$STATE/bin
ENV_FILE=$CHAIN_STATE/env

stop() {
	for f in "$CHAIN_STATE/web3api.pid" "$CHAIN_STATE/devchain.pid"; do
		if pid_alive "$f"; then
			kill "$(cat "$f")" 2>/dev/null || true
			for _ in $(seq 50); do pid_alive "$f" || break; sleep 0.1; done
		fi
		rm -f "$f"
	done
	rm -f "$ENV_FILE" "$CHAIN_STATE/chain.env"
}

case "${1:-up}" in
down)
	stop
	log "chain stopped"
	exit 0
	;;
up) ;;
*) die "usage: chain.sh up|down" ;;
esac

mkdir -p "$CHAIN_STATE" "$BIN" "$LOGDIR"
if pid_alive "$CHAIN_STATE/devchain.pid" && pid_alive "$CHAIN_STATE/web3api.pid" && [ -f "$ENV_FILE" ]; then
	log "chain already running ($(grep MORALIS_RPC_URL "$ENV_FILE"))"
	exit 0
fi
stop
start=$(date +%s%N)
if [ "${DEVSTACK_PREBUILT:-}" = 1 ] && [ -x "$BIN/devchain" ] && [ -x "$BIN/web3apiserver" ]; then
	log "using the devchain and web3apiserver just built in $BIN"
else
	log "building devchain and web3apiserver"
	with_bin_lock go -C "$REPO_ROOT" build -o "$BIN/" ./internal/devchain ./web3api/web3apitest/cmd/web3apiserver \
		>"$LOGDIR/chain-build.log" 2>&1 || die_with_log "building the chain tools failed" "$LOGDIR/chain-build.log"
fi

setsid "$BIN/devchain" -addr 127.0.0.1:0 -state "$CHAIN_STATE" </dev/null >>"$LOGDIR/devchain.log" 2>&1 &
for _ in $(seq 300); do [ -f "$CHAIN_STATE/chain.env" ] && break; sleep 0.1; done
[ -f "$CHAIN_STATE/chain.env" ] || die_with_log "devchain did not start" "$LOGDIR/devchain.log"
# shellcheck disable=SC1091
. "$CHAIN_STATE/chain.env"

WEB3_PORT=$(free_port)
WEB3_KEY=web3apitest-key
setsid "$BIN/web3apiserver" -addr "127.0.0.1:$WEB3_PORT" -rpc "$MORALIS_RPC_URL" -key "$WEB3_KEY" </dev/null >>"$LOGDIR/web3apiserver.log" 2>&1 &
echo $! >"$CHAIN_STATE/web3api.pid"
for _ in $(seq 100); do
	curl -fsS --max-time 1 -H "x-api-key: $WEB3_KEY" "http://127.0.0.1:$WEB3_PORT/web3/version" >/dev/null 2>&1 && break
	sleep 0.1
done
curl -fsS --max-time 2 -H "x-api-key: $WEB3_KEY" "http://127.0.0.1:$WEB3_PORT/web3/version" >/dev/null ||
	die_with_log "web3apiserver did not answer" "$LOGDIR/web3apiserver.log"

{
	cat "$CHAIN_STATE/chain.env"
	echo "MORALIS_WEB3API_URL=http://127.0.0.1:$WEB3_PORT"
	echo "MORALIS_API_KEY=$WEB3_KEY"
} >"$ENV_FILE"
log "chain up after $((($(date +%s%N) - start) / 1000000)) ms: $MORALIS_RPC_URL, chain-data API http://127.0.0.1:$WEB3_PORT; env in $ENV_FILE"
