#!/usr/bin/env bash
# Builds the stack's Go programs into .devstack/bin in one go build: the endpoint (examples/authserver, which up.sh
# starts twice), the dev chain (internal/devchain) and the chain-data test server (web3apiserver), which chain.sh
# starts. With cgo as the environment says (the default: the same compile as `go build ./...`, `go vet` and the
# tests, so nothing is compiled for these programs alone). Holds .devstack/bin.lock (lib.sh with_bin_lock): up.sh
# and chain.sh, run beside it by make test, wait for it and then find their programs up to date. go build leaves an
# up-to-date program as it is.
set -euo pipefail
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

t0=$(date +%s%N)
with_bin_lock go -C "$REPO_ROOT" build -o "$STATE/bin/" ./examples/authserver ./internal/devchain \
	./web3api/web3apitest/cmd/web3apiserver
log "stack programs built in $STATE/bin after $((($(date +%s%N) - t0) / 1000000)) ms"
