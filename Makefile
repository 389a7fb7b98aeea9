# moralis-go: the two commands a newcomer needs are `make demo` and `make test`.
SHELL := /bin/bash
.SHELLFLAGS := -eu -o pipefail -c
GO ?= go
GOTESTFLAGS ?= -count=1
# -trimpath for every go command make runs (and the scripts it starts): compiled packages then do not depend on the
# checkout's directory, so a fresh clone finds this module's packages in Go's build cache when an earlier run on the
# machine compiled them, instead of compiling them all again (vet, staticcheck, the race build, fuzz's instrumented
# build). Tests and generators find the checkout from their working directory (internal/modroot), not from
# runtime.Caller, whose paths -trimpath rewrites.
export GOFLAGS := $(strip $(GOFLAGS) -trimpath)
STACK := internal/devstack

.PHONY: all deps up down chain stack stack-bins test test-job-build test-job-web test-job-stack test-go test-oldest compat test-react test-siws test-browser test-faults leftovers demo demo-browser bench bench-check lint fuzz fuzz-check smoke build mutations-endpoint

all: build

## deps: install what the local stack and the tests need (apt packages, npm packages); idempotent
deps:
	bash $(STACK)/deps.sh

## up: bring the local stack up (PostgreSQL + parse-server with its cloud code); writes .devstack/env
up: deps
	bash $(STACK)/up.sh

## down: stop what `make up` and `make demo` started (by PID)
down:
	bash $(STACK)/chain.sh down
	bash $(STACK)/down.sh

## chain: a local EVM (the simulated chain behind JSON-RPC) and the chain-data test server answering from it
chain: up
	bash $(STACK)/chain.sh up

smoke: up
	bash $(STACK)/smoke.sh

build:
	$(GO) build ./...
	$(GO) vet ./...

## test: every test: Go unit and integration (race detector on), React unit tests, browser end to end. Each stage
## runs its jobs side by side (output interleaved by line); a job runs its suites one after the other:
##   1. the stack (start, smoke test, chain: mostly waiting for servers) | the stack's Go programs (build.sh: the
##      stack waits for them rather than compiling them too), lint, then the fuzz smoke run | the React package, then
##      the SIWS differential test
##   2. the Go unit + integration tests | the SDK's integration suites on the oldest supported parse-server line,
##      then the browser walk, then the bench smoke run (the Go tests spend most of their time waiting for servers)
##   3. the fault runs, alone (they take parts of the stack down and back up)
## and last, the classes the tests left in the stack's schema are dropped (leftovers).
## Each stage and each suite prints "make test: <name> took N s, M CPU s" (also when it fails), and the total.
test:
	@echo "make test: stage 1: the stack | its Go programs, lint, fuzz smoke run | React package, SIWS differential test"
	@$(call timed,stage 1,$(MAKE) --no-print-directory -j3 --output-sync=line timed-stack test-job-build test-job-web)
	@echo "make test: stage 2: Go unit + integration tests (the stack's parse-server 9) | the oldest line's suites, the browser walk, the bench smoke run"
	@$(call timed,stage 2,$(MAKE) --no-print-directory -j2 --output-sync=line timed-test-go test-job-stack)
	@echo "make test: stage 3: fault runs of the scaled topology, alone (they take parts of the stack down and back up)"
	@$(call timed,stage 3,$(MAKE) --no-print-directory timed-test-faults)
	@$(MAKE) --no-print-directory timed-leftovers
	@echo "make test: all suites passed in $$(( $$(date +%s) - $(TEST_START) )) s"

# make test's jobs of several suites, one after the other.
test-job-build:
	@$(MAKE) --no-print-directory timed-stack-bins
	@$(MAKE) --no-print-directory timed-lint
	@$(MAKE) --no-print-directory timed-fuzz-check
test-job-web:
	@$(MAKE) --no-print-directory timed-test-react
	@$(MAKE) --no-print-directory timed-test-siws
test-job-stack:
	@$(MAKE) --no-print-directory timed-test-oldest
	@$(MAKE) --no-print-directory timed-test-browser
	@$(MAKE) --no-print-directory timed-bench-check

## stack: the local stack, its smoke test and the local chain, one after the other
stack:
	@$(MAKE) --no-print-directory smoke
	@$(MAKE) --no-print-directory chain

## stack-bins: the stack's Go programs in .devstack/bin (the endpoint, the dev chain, the chain-data server), in one
## go build that up.sh and chain.sh wait for (internal/devstack/build.sh)
stack-bins:
	bash $(STACK)/build.sh

# timed: run a command and print how long it took and the CPU seconds (user+sys) of every process it ran and waited
# for (builds, test binaries, npm, node; not the stack's servers, which run detached), failed or not; timed-<target>
# runs make <target> that way. The CPU figure is the recipe shell's children's times from /proc (Linux).
TEST_START := $(shell date +%s)
timed = s=$$(date +%s); rc=0; $(2) || rc=$$?; \
	cpu=$$(awk -v hz=$$(getconf CLK_TCK) '{ printf ", %.0f CPU s", ($$16 + $$17) / hz }' /proc/$$$$/stat 2>/dev/null || true); \
	echo "make test: $(1) took $$(( $$(date +%s) - s )) s$$cpu$$([ $$rc = 0 ] || echo ', failed')"; exit $$rc
timed-%:
	@$(call timed,$*,$(MAKE) --no-print-directory $*)

## test-react: the React hooks package: typecheck, vitest, build (and the published package's exports and source maps;
## the demo page is built by test-browser, which walks it);
## then signer's EIP-712 digests against ethers' TypedDataEncoder (it needs react-hooks' node_modules)
test-react:
	cd react-hooks && npm ci --no-audit --no-fund --loglevel=error && npm run typecheck && npm test && npm run build && npm run check:package
	$(GO) test -count=1 -tags ethersdiff -run '^TestTypedDataDifferential$$' ./signer/

## test-siws: the Sign-In with Solana differential test: auth's generated corpus against @solana/wallet-standard-util
## (verifySignIn, parseSignInMessageText, createSignInMessageText) in Node; a few seconds, no stack needed
test-siws:
	cd auth/testdata/siwsdiff && npm ci --no-audit --no-fund --loglevel=error
	$(GO) vet -tags siwsdiff ./auth/
	$(GO) test $(GOTESTFLAGS) -tags siwsdiff -run '^TestSIWSDifferential$$' -v ./auth/ | grep -E '^(---|ok|FAIL|PASS)|siws_diff_test'

## test-go: Go unit tests and the integration tests against the local stack (build tag "integration"), race detector on
## except for NORACE_PKGS: tests that spend their time in one goroutine, where the detector has nothing to find and
## multiplies the cost (web3apitest mines 10,000 transactions on a simulated EVM: 62 CPU s with -race, 12 without;
## doccheck type-checks README's Go blocks in one goroutine, and with -race a fresh cache first builds go/types for it).
## -p 4: four test binaries at once (go test's default is one per core): the integration packages (authserver, store,
## client, scaletest: most of the stage) spend much of their time waiting for the stack's servers.
## -parallel 4: the tests that call t.Parallel (client's fault runs) spend their time waiting (retry backoff, round
## trips), so four at a time on two cores overlap their waits rather than their work.
NORACE_PKGS := ./web3api/web3apitest ./internal/doccheck
MODULE := $(shell $(GO) list -m)
test-go:
	$(GO) test $(GOTESTFLAGS) -race -p 4 -parallel 4 -tags integration $$($(GO) list -tags integration ./... | grep -v -x -F $(foreach p,$(NORACE_PKGS),-e $(MODULE)/$(p:./%=%)))
	$(GO) test $(GOTESTFLAGS) -tags integration $(NORACE_PKGS)

## test-oldest: the SDK's integration suites (objects, batches, users, files, functions, wallet sign-in new and
## returning through the SDK and the endpoint, live queries) against the oldest parse-server line the server package
## supports (OLDEST_LINE), an extra parse-server of the stack with its own database (internal/devstack/compat.sh).
## The newest line is the stack's own, which every other suite runs against. make test runs it beside test-go.
OLDEST_LINE := 5
test-oldest: up
	bash $(STACK)/compat.sh run $(OLDEST_LINE)

## compat: the same suites against every supported parse-server line (9 8 7 6 5, or COMPAT_LINES), one after the
## other, then a table of what passed (DEPLOY.md, "Supported parse-server versions", keeps the last one). Not part of
## make test: the first run installs each line (minutes each).
COMPAT_LINES ?= 9 8 7 6 5
compat: up
	bash $(STACK)/compat.sh table $(COMPAT_LINES)

## test-faults: the scaled topology under faults (internal/scaletest, build tag faults): kill -9 one parse-server
## during 1,000 creates and 200 increments through HAProxy, and Redis stopped for 5 s under live subscribers. They
## take parts of the shared stack down (and bring them back with up.sh), so make test runs them after every other suite.
test-faults: up
	$(GO) test $(GOTESTFLAGS) -tags faults -v -run . ./internal/scaletest/

## leftovers: drop the classes test runs left in the stack's schema (bench/leftovers): the stack serves an app's
## schema again, whose size every parse-server request pays for. make test runs it last, make bench first.
leftovers: up
	$(GO) run ./bench/leftovers

## demo: bring the stack and the local chain up, walk through the product with examples/quickstart, then walk the
## demo dApp page in headless Chromium (connect, sign in, balances, a transfer, a live list) and save screenshots.
## The Go programs (built without cgo) and the React demo are built while the backend comes up (internal/devstack/demo.sh)
demo:
	bash $(STACK)/demo.sh

## demo-browser: the demo dApp page, served by examples/authserver, walked through in headless Chromium
demo-browser: up chain
	cd react-hooks && npm ci --no-audit --no-fund --loglevel=error && npm run build:demo
	cd react-hooks/e2e && npm ci --no-audit --no-fund --loglevel=error && node run.mjs
	@echo "demo: screenshots of the dApp page in test-artifacts/e2e-*.png; to click through it yourself:"
	@echo "      set -a; source .devstack/env; set +a; go run ./examples/authserver  (then open the printed URL)"

# Every fuzz target of a decoder that takes outside bytes (package:target).
FUZZ_TARGETS := ./parse:FuzzObjectUnmarshal ./parse:FuzzParseDate ./parse:FuzzScanResults ./internal/rest:FuzzDecodeError ./query:FuzzFromJSON ./query:FuzzDecode \
	./auth:FuzzParseSIWE ./auth:FuzzParseSIWS ./authserver:FuzzDecodeRequest ./authserver:FuzzHandlerSignIn ./authserver:FuzzProxyHeader ./web3api:FuzzDecodeResponse ./store:FuzzGeoWhere \
	./query/live:FuzzCheckWhere ./internal/wirejson:FuzzDecode ./units:FuzzRoundTrip ./signer:FuzzParseTypedData
FUZZTIME ?= 60s

## fuzz: run every fuzz target for FUZZTIME each: a duration ("60s") or a number of executions ("5000x"). make test
## runs fuzz-check: FUZZCHECK executions per target. Each package's test binary is built once with fuzzing's coverage
## instrumentation (go test -c -fuzz) and runs each of its targets in turn, as go test -fuzz would (from the package's
## directory, so testdata/fuzz is read and written, with go's fuzz cache): 11 builds and links instead of 16.
## A failure is run once more: Go's fuzz coordinator (go1.26; golang/go#75804, fixed in go1.27) can end a duration
## run with "context deadline exceeded" and no input when its deadline context fires before the workers' child context
## is cancelled (seen in make test on FuzzGeoWhere: nothing in the target holds a context). A count has no deadline, so
## fuzz-check cannot hit it; a real failing input is saved under testdata/fuzz and fails the second run at once.
FUZZ_PKGS = $(sort $(foreach t,$(FUZZ_TARGETS),$(firstword $(subst :, ,$(t)))))
fuzz:
	@bin=$$(mktemp -d); trap 'rm -rf "$$bin"' EXIT; cache=$$($(GO) env GOCACHE)/fuzz; \
	for pkg in $(FUZZ_PKGS); do \
		names=; for t in $(FUZZ_TARGETS); do case $$t in "$$pkg":*) names="$$names $${t#*:}";; esac; done; \
		set -- $$names; echo "fuzz: $$pkg built once for$$names"; \
		$(GO) test -c -o "$$bin/fuzz.test" -fuzz "^$$1\$$" $$pkg; \
		for name in $$names; do \
			run() { (cd $$pkg && "$$bin/fuzz.test" -test.paniconexit0 -test.timeout=10m0s -test.run='^$$' \
				-test.fuzzcachedir="$$cache/$(MODULE)/$${pkg#./}" -test.fuzz="^$$name\$$" -test.fuzztime=$(FUZZTIME)); }; \
			echo "fuzz $$name ($$pkg) for $(FUZZTIME)"; \
			run || { echo "fuzz $$name failed; once more (a failing input it found is saved in testdata and replayed first)"; \
				run; } || exit 1; \
		done; \
	done

## lint: formatting, vet and staticcheck. vet and staticcheck run once, with the integration tag: that build sees
## every file (the tag only adds files; no file is built only without it, which the first line checks), so a second
## run without the tag checked a subset again. vet type-checks every package (and compiles those others import), so a
## package that does not build fails here; no separate go build ./..., which also linked all 15 programs and threw
## them away (35 CPU s a run).
## The programs are linked where they run: the stack's (build.sh), the benchmarks (bench-check), the rest by their
## tests (examples/query, which has none, is type-checked by vet).
STATICCHECK_VERSION ?= v0.8.2
lint:
	@! git grep -l -E '^//go:build .*!integration' -- '*.go' || { echo "lint: a file built only without the integration tag needs its own vet run"; exit 1; }
	@test -z "$$(gofmt -l $$(git ls-files '*.go'))" || { gofmt -l $$(git ls-files '*.go'); exit 1; }
	$(GO) vet -tags integration ./...
	$(GO) run honnef.co/go/tools/cmd/staticcheck@$(STATICCHECK_VERSION) -checks inherit,-ST1005 -tags integration ./...

## bench: side-by-side benchmarks (moralis-go, moralis-v1 in Node, raw HTTP); table on stdout, JSON in bench/results/.
## The sign-in load at 100/s: in process, then through the stack's HAProxy over both endpoint instances (steady 60 s,
## the burst shape, and steady 60 s again beside two CPU-bound neighbours); each line gives the failed sign-ins, the
## latencies and the CPU per sign-in of parse-server, PostgreSQL, the endpoints, the load generator, HAProxy and Redis.
bench: up leftovers
	$(GO) run ./bench
	$(GO) run ./bench/signinload -rate 100 -seconds 60
	$(GO) run ./bench/signinload -rate 100 -seconds 10 -shape burst
	$(GO) run ./bench/signinload -target haproxy -rate 100 -seconds 60
	$(GO) run ./bench/signinload -target haproxy -rate 100 -seconds 10 -shape burst
	$(GO) run ./bench/signinload -target haproxy -rate 100 -seconds 60 -busy 2
	$(GO) test $(GOTESTFLAGS) -tags integration -run '^$$' -bench BenchmarkLiveDelivery -benchtime 1x ./internal/scaletest/
	@echo "bench: telemetry off (the default) vs on, one client call against a local server (allocs/op, B/op)"
	$(GO) test $(GOTESTFLAGS) -run '^$$' -bench '^BenchmarkTelemetry$$' -benchmem ./client/

## test-browser: the React demo page in headless Chromium against examples/authserver on the real stack and the
## local chain, then the demo rendered on the server (Node) and hydrated in Chromium
test-browser: up chain
	cd react-hooks && npm run build:demo
	cd react-hooks/e2e && npm ci --no-audit --no-fund --loglevel=error && node run.mjs && node ssr.mjs

# fuzz-check: a short fuzz of every target in make test, bounded by a count of executions rather than a duration: the
# same work on a loaded machine as on a quiet one, and no deadline race (see fuzz). The seed corpora also run in
# test-go, as every Fuzz function's seeds do in a plain go test.
FUZZCHECK ?= 2000x
fuzz-check:
	$(MAKE) fuzz FUZZTIME=$(FUZZCHECK)

# make test only checks that the benchmark harness still runs, at a small size (never a timed assertion).
bench-check: up
	$(GO) run ./bench -scale small -rounds 1 -out .devstack/bench/results
	$(GO) run ./bench/signinload -rate 10 -seconds 2 -out .devstack/bench/results
	$(GO) test $(GOTESTFLAGS) -run '^$$' -bench '^BenchmarkTelemetry$$' -benchmem -benchtime 50x ./client/

# The mutation check of the endpoint's guards (authserver/ENDPOINT.md, "Mutation check"): offline, a few minutes,
# not part of make test.
mutations-endpoint:
	$(GO) run ./authserver/internal/mutations
