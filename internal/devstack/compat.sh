#!/usr/bin/env bash
# The SDK's integration suites against the parse-server lines the server package supports, each line an extra
# parse-server of the local stack (extra.sh) with its own database, the package installed from its tarball.
#
#   compat.sh run N       the suites against line N (9: the stack's own install); exits non-zero when one fails.
#                         make test runs it for the oldest supported line (make test-oldest).
#   compat.sh table [N...] every line (default: 9 8 7 6 5), one after the other, then a table of what passed
#                         (markdown, for DEPLOY.md); exits 0 whatever failed (make compat).
# The suites (SUITES below, by group): objects and batches, users, files, cloud functions and jobs, wallet sign-in
# through the SDK (new, returning, link and unlink with the default options) and through the endpoint (new and
# returning, Ethereum and Solana), live queries. They read the stack's environment, with
# MORALIS_SERVER_URL, MORALIS_LIVEQUERY_URL and MORALIS_PG_URL pointed at the line's instance. Each line's instance
# is left running for the next run (down.sh stops it); its log is .devstack/logs/extra-line-N.log and the tests'
# output .devstack/logs/compat-N.log.
set -uo pipefail
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

SUITES=(
	"objects, batches|TestObjectLifecycle TestPointersRelationsAndACL TestSaveAllAndDestroyAllInChunks TestAtomicSaveAllAllOrNothing TestAtomicSaveAllUpdates TestAtomicDestroyAll TestIntegrationIterate"
	"users|TestUsersAndCurrentUser"
	"files|TestFilesMetadataAndTagsRoundTrip TestIdentityFiles"
	"functions, jobs|TestCloudFunctionsAndJobs"
	"wallet sign-in (SDK)|TestIntegrationEthereumSignIn TestIntegrationSolanaSignIn TestIntegrationLinkUnlink TestIntegrationLinkWithDefaultOptions"
	"wallet sign-in (endpoint)|TestSignInNewAndReturningWallets"
	"live queries|TestEveryEventKind TestACLsAreRespected"
)
PKGS=(./client/ ./query/ ./query/live/ ./auth/ ./authserver/)
tests=$(for g in "${SUITES[@]}"; do echo "${g#*|}"; done | tr ' \n' '||' | sed 's/|*$//')
RUN="^($tests)\$"

# run_line N: start line N's instance and run the suites; sets LINE_URL and leaves the verbose output in the log.
run_line() {
	local n=$1 settings url
	if [ "$n" = 9 ]; then settings=(DATABASE=moralis_l9); else settings=(LINE="$n" DATABASE="moralis_l$n"); fi
	url=$(bash "$DEVSTACK_SRC/extra.sh" start "line-$n" "${settings[@]}") || return 2
	LINE_URL=$url
	# shellcheck disable=SC1091
	. "$STATE/env"
	log "parse-server line $n at $url: go test -run '<the suites>' ${PKGS[*]} (output in $LOGDIR/compat-$n.log)"
	(cd "$REPO_ROOT" && env MORALIS_SERVER_URL="$url" MORALIS_LIVEQUERY_URL="ws${url#http}" \
		MORALIS_PG_URL="${MORALIS_PG_URL%/*}/moralis_l$n" \
		go test -count=1 -tags integration -v -run "$RUN" "${PKGS[@]}") >"$LOGDIR/compat-$n.log" 2>&1
}

# info N: what line N's server package reports (version and what is off), from moralisGoServerInfo.
info() {
	# shellcheck disable=SC1091
	. "$STATE/env"
	curl -s --max-time 5 -X POST -H 'Content-Type: text/plain' \
		--data "{\"_ApplicationId\":\"$MORALIS_APP_ID\",\"_MasterKey\":\"$MORALIS_MASTER_KEY\"}" "$LINE_URL/functions/moralisGoServerInfo" |
		node -e 'let s="";process.stdin.on("data",d=>s+=d).on("end",()=>{try{const r=JSON.parse(s).result;
const off=Object.entries(r.off||{}).map(([k,v])=>k+" ("+v+")").join("; ");console.log(r.parseServer+"\t"+(off||"none"))}catch(e){console.log("?\tno moralisGoServerInfo: "+s.slice(0,80))}})'
}

# summary N: one markdown row of line N's results.
summary() {
	local n=$1 row g name names pass total t inf
	inf=$(info "$n")
	row="| ${inf%%$'\t'*} | ${inf#*$'\t'} |"
	for g in "${SUITES[@]}"; do
		names=${g#*|}
		pass=0
		total=0
		for t in $names; do
			total=$((total + 1))
			grep -q -- "^--- PASS: $t " "$LOGDIR/compat-$n.log" && pass=$((pass + 1))
		done
		row="$row $pass/$total |"
	done
	echo "$row"
}

header() {
	local h="| parse-server | off |" s="|---|---|" g
	for g in "${SUITES[@]}"; do
		h="$h ${g%%|*} |"
		s="$s---|"
	done
	printf '%s\n%s\n' "$h" "$s"
}

case "${1:-}" in
run)
	[ -n "${2:-}" ] || die "usage: compat.sh run N"
	run_line "$2"
	rc=$?
	grep -E '^(--- FAIL|FAIL|ok|panic)' "$LOGDIR/compat-$2.log" || true
	if [ "$rc" != 0 ]; then
		grep -E -B2 -A12 '^--- FAIL' "$LOGDIR/compat-$2.log" | head -n 80
		die "the suites failed against parse-server line $2 (all output: $LOGDIR/compat-$2.log)"
	fi
	header
	summary "$2"
	;;
table)
	shift
	lines=("$@")
	[ ${#lines[@]} -gt 0 ] || lines=(9 8 7 6 5)
	rows=()
	for n in "${lines[@]}"; do
		run_line "$n" || log "line $n: some suites failed (see $LOGDIR/compat-$n.log)"
		rows+=("$(summary "$n")")
		bash "$DEVSTACK_SRC/extra.sh" stop "line-$n" || true
	done
	echo "compat: $(date -u +%F), Node $(node --version), PostgreSQL 15; the suites (tests passed / run):"
	header
	printf '%s\n' "${rows[@]}"
	;;
*) die "usage: compat.sh run N | table [N...]" ;;
esac
