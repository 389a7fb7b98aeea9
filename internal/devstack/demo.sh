#!/usr/bin/env bash
# make demo: a newcomer's first run. While up.sh brings the backend up (apt packages when missing, npm ci of
# parse-server, PostgreSQL, parse-server), two jobs run beside it:
#   - one `go build` of the Go programs the demo needs (the dev chain, the chain-data test server, examples/quickstart
#     and examples/authserver), without cgo: no C compiler work (pebble's zstd and the secp256k1 C library have
#     pure-Go versions);
#   - npm ci and the build of the React demo page, and npm ci of the browser walk (playwright-core).
# Then the chain starts from those binaries, the quickstart runs, and the demo page is walked in headless Chromium
# (react-hooks/e2e/run.mjs), its screenshots saved in test-artifacts/.
set -euo pipefail
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

BIN=$STATE/bin
t0=$(date +%s)
mkdir -p "$BIN" "$LOGDIR"
log "building the Go programs and the React demo page (in the background)"
CGO_ENABLED=0 with_bin_lock go -C "$REPO_ROOT" build -o "$BIN/" ./internal/devchain ./web3api/web3apitest/cmd/web3apiserver \
	./examples/quickstart ./examples/authserver >"$LOGDIR/demo-build.log" 2>&1 &
gobuild=$!
(
	set -e
	cd "$REPO_ROOT/react-hooks"
	npm ci --no-audit --no-fund --loglevel=error
	npm run build:demo
	cd e2e
	npm ci --no-audit --no-fund --loglevel=error
) >"$LOGDIR/demo-web.log" 2>&1 &
webbuild=$!
trap 'kill "$gobuild" "$webbuild" 2>/dev/null || true' EXIT # should up.sh fail, the builds stop too
bash "$DEVSTACK_SRC/up.sh"
log "backend up after $(($(date +%s) - t0)) s; waiting for the builds"
wait "$gobuild" || die_with_log "building the demo's Go programs failed" "$LOGDIR/demo-build.log"
wait "$webbuild" || die_with_log "building the React demo page failed" "$LOGDIR/demo-web.log"
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
log "quickstart done after $(($(date +%s) - t0)) s; walking the demo dApp page in headless Chromium"
(cd "$REPO_ROOT/react-hooks/e2e" && E2E_AUTHSERVER_BIN="$BIN/authserver" node run.mjs)
log "demo: screenshots of the dApp page in test-artifacts/e2e-*.png; to click through it yourself:"
log "      set -a; source .devstack/env; set +a; go run ./examples/authserver  (then open the printed URL)"
log "make demo took $(($(date +%s) - t0)) s"
