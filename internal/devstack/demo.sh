#!/usr/bin/env bash
# make demo: a newcomer's first run. The Go programs the demo needs (the dev chain, the chain-data test server and
# examples/quickstart) are built in one `go build`, without cgo (no C compiler work: pebble's zstd and the secp256k1
# C library are the pure-Go versions), in the background while up.sh brings the backend up (apt packages when
# missing, npm ci of parse-server, PostgreSQL, parse-server); then the chain starts from those binaries and the
# quickstart runs. Chromium, which only the browser tests need, is left for `make test` to install.
set -euo pipefail
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

BIN=$STATE/bin
t0=$(date +%s)
mkdir -p "$BIN" "$LOGDIR"
log "building the dev chain, the chain-data test server and the quickstart (in the background)"
CGO_ENABLED=0 go -C "$REPO_ROOT" build -o "$BIN/" ./internal/devchain ./web3api/web3apitest/cmd/web3apiserver ./examples/quickstart \
	>"$LOGDIR/demo-build.log" 2>&1 &
build=$!
trap 'kill "$build" 2>/dev/null || true' EXIT # should up.sh fail, the build stops too
DEVSTACK_NO_BROWSER=1 bash "$DEVSTACK_SRC/up.sh"
log "backend up after $(($(date +%s) - t0)) s; waiting for the build"
wait "$build" || die_with_log "building the demo programs failed" "$LOGDIR/demo-build.log"
trap - EXIT
log "built after $(($(date +%s) - t0)) s"
DEVSTACK_PREBUILT=1 bash "$DEVSTACK_SRC/chain.sh" up
set -a
# shellcheck disable=SC1091
. "$STATE/env"
# shellcheck disable=SC1091
. "$STATE/chain/env"
set +a
log "stack and chain up after $(($(date +%s) - t0)) s; running examples/quickstart"
"$BIN/quickstart"
log "make demo took $(($(date +%s) - t0)) s"
