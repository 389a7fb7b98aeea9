#!/usr/bin/env bash
# End-to-end check of the running local stack (start it with up.sh), with curl, against the facts in
# shared/reference/parse-server-wire.md: objects, batch of 20, users, files, password-reset mail,
# functions, jobs, PostGIS $nearSphere, LiveQuery, and the moralisEth/moralisSol auth adapters with
# real signatures; then that the second parse-server instance shares everything that matters with the
# first (objects, sessions, files, idempotency, schema changes, wallet users), that LiveQuery reaches across
# instances and through the balancer, and that expired _Idempotency rows are purged. It also runs the
# node unit tests of the server package (server/test) and of the stack's app (app/test). Prints "N passed,
# N failed" and exits non-zero on any mismatch.
set -uo pipefail
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

[ -f "$STATE/env" ] || die "no $STATE/env: run internal/devstack/up.sh first"
# shellcheck disable=SC1091
. "$STATE/env"
URL=$MORALIS_SERVER_URL
URL2=${MORALIS_SERVER_URL_2:-}
[ -n "$URL2" ] || die "no MORALIS_SERVER_URL_2 in $STATE/env (a stack from an older up.sh): run internal/devstack/up.sh again"
export NODE_PATH=$SERVER_DIR/node_modules
DEVSTACK_TOOLS=$DEVSTACK_SRC/tools
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
RUN=$(od -An -N4 -tx1 /dev/urandom | tr -d ' \n')
AUTH="\"_ApplicationId\":\"$MORALIS_APP_ID\",\"_JavaScriptKey\":\"$MORALIS_JS_KEY\",\"_ClientVersion\":\"devstack-smoke\",\"_InstallationId\":\"smoke-$RUN\""
MAUTH="\"_ApplicationId\":\"$MORALIS_APP_ID\",\"_MasterKey\":\"$MORALIS_MASTER_KEY\""
passed=0
failed=0

# post PATH JSON [curl args...]: POST a text/plain body like the JS SDK; sets STATUS and BODY.
post() {
	local path=$1 body=$2
	shift 2
	STATUS=$(curl -sS -o "$TMP/body" -D "$TMP/headers" -w '%{http_code}' -X POST \
		-H 'Content-Type: text/plain' --data-binary "$body" "$@" "$URL/$path") || STATUS=000
	BODY=$(cat "$TMP/body")
}

# jv EXPR: evaluate a JS expression over the last body (as j) and print the result.
jv() { node -e 'const j=JSON.parse(process.argv[1]);const v=eval(process.argv[2]);console.log(typeof v==="string"?v:JSON.stringify(v))' "$BODY" "$1" 2>/dev/null; }

# check NAME STATUS EXPR: the last response had STATUS and EXPR (JS over the body j) is true.
check() {
	local name=$1 want=$2 expr=$3
	if [ "$STATUS" = "$want" ] && [ "$(jv "!!($expr)")" = true ]; then
		passed=$((passed + 1))
		printf 'ok   %s\n' "$name"
	else
		failed=$((failed + 1))
		printf 'FAIL %s: want %s and (%s), got %s %s\n' "$name" "$want" "$expr" "$STATUS" "${BODY:0:400}"
	fi
}
ok() { passed=$((passed + 1)); printf 'ok   %s\n' "$1"; }
bad() { failed=$((failed + 1)); printf 'FAIL %s\n' "$1"; }

STATUS=$(curl -sS -o "$TMP/body" -w '%{http_code}' "$URL/health") || STATUS=000
BODY=$(cat "$TMP/body")
check "GET health" 200 'j.status==="ok"'

# ---- objects ----
post classes/GameScore "{\"score\":1337,\"playerName\":\"Sean\",\"cheatMode\":false,$AUTH}"
check "create object" 201 'typeof j.objectId==="string" && j.createdAt'
OID=$(jv j.objectId)
post "classes/GameScore/$OID" "{\"_method\":\"GET\",$AUTH}"
check "get object" 200 "j.objectId==='$OID' && j.score===1337 && j.playerName==='Sean' && j.updatedAt"
post "classes/GameScore/$OID" "{\"_method\":\"PUT\",\"score\":{\"__op\":\"Increment\",\"amount\":5},$AUTH}"
check "increment" 200 'j.score===1342'
post classes/GameScore/doesnotexist "{\"_method\":\"GET\",$AUTH}"
check "get missing object" 404 'j.code===101 && j.error==="Object not found."'

# ---- batch of 20 (19 creates + 1 update of a missing object) ----
reqs=""
for i in $(seq 1 19); do reqs+="{\"method\":\"POST\",\"path\":\"/parse/classes/BatchThing\",\"body\":{\"n\":$i}},"; done
reqs+="{\"method\":\"PUT\",\"path\":\"/parse/classes/BatchThing/doesnotexist\",\"body\":{\"n\":-1}}"
post batch "{\"requests\":[$reqs],$AUTH}"
check "batch of 20" 200 'Array.isArray(j) && j.length===20 && j.slice(0,19).every(r=>r.success&&r.success.objectId) && j[19].error.code===101'

# ---- users ----
USER=smoke_$RUN
EMAIL=$USER@example.com
post users "{\"username\":\"$USER\",\"password\":\"pw123456\",\"email\":\"$EMAIL\",$AUTH}"
check "sign up" 201 'j.objectId && j.sessionToken.startsWith("r:")'
post login "{\"username\":\"$USER\",\"password\":\"pw123456\",$AUTH}"
check "log in (POST)" 200 "j.username==='$USER' && j.sessionToken.startsWith('r:')"
TOKEN=$(jv j.sessionToken)
post users/me "{\"_method\":\"GET\",\"_SessionToken\":\"$TOKEN\",$AUTH}"
check "users/me" 200 "j.username==='$USER'"
post login "{\"username\":\"$USER\",\"password\":\"wrong\",$AUTH}"
check "wrong password" 404 'j.code===101 && j.error==="Invalid username/password."'

# ---- e-mail: verification on sign-up, password reset ----
# mail_link KIND EMAIL: wait up to 3 s for a KIND line to EMAIL in the mail file; print its link.
mail_link() {
	local line=
	for _ in $(seq 1 30); do
		line=$(grep -F "\"to\":\"$2\"" "$MORALIS_MAIL_FILE" 2>/dev/null | grep -F "\"kind\":\"$1\"" | tail -n 1)
		[ -n "$line" ] && break
		sleep 0.1
	done
	[ -n "$line" ] && printf '%s' "$line" | node -e 'let s="";process.stdin.on("data",d=>s+=d).on("end",()=>console.log(JSON.parse(s).link))'
}
# follow NAME LINK: the link points into this server and answers 200 or a redirect.
follow() {
	local code
	case "$2" in
	"$URL"/*)
		code=$(curl -sS -o /dev/null -w '%{http_code}' "$2")
		if [ "$code" = 200 ] || [ "$code" = 302 ] || [ "$code" = 303 ]; then ok "$1 (link answers $code)"; else bad "$1: $2 answered $code"; fi
		;;
	*) bad "$1: no link under $URL in $MORALIS_MAIL_FILE (got '$2')" ;;
	esac
}
follow "verification mail after sign-up" "$(mail_link verifyEmail "$EMAIL")"
post login "{\"username\":\"$USER\",\"password\":\"pw123456\",$AUTH}"
check "emailVerified after the link" 200 'j.emailVerified===true'
TOKEN=$(jv j.sessionToken)
post requestPasswordReset "{\"email\":\"$EMAIL\",$AUTH}"
check "requestPasswordReset" 200 'Object.keys(j).length===0'
follow "password reset mail" "$(mail_link passwordReset "$EMAIL")"

# ---- files ----
STATUS=$(curl -sS -o "$TMP/body" -w '%{http_code}' -X POST -H "X-Parse-Application-Id: $MORALIS_APP_ID" \
	-H "X-Parse-JavaScript-Key: $MORALIS_JS_KEY" -H 'Content-Type: text/plain' --data-binary "hello $RUN" "$URL/files/hello.txt") || STATUS=000
BODY=$(cat "$TMP/body")
check "file upload" 201 "j.name.endsWith('_hello.txt') && j.url.startsWith('$URL/files/$MORALIS_APP_ID/')"
FILE_URL=$(jv j.url)
if [ "$(curl -sS "$FILE_URL")" = "hello $RUN" ]; then ok "file download"; else bad "file download from $FILE_URL"; fi
STATUS=$(curl -sS -o "$TMP/body" -w '%{http_code}' -X POST -H "X-Parse-Application-Id: $MORALIS_APP_ID" \
	--data-binary x "$URL/files/x.bin") || STATUS=000
BODY=$(cat "$TMP/body")
check "file upload without key" 403 'j.error==="unauthorized"'

# ---- functions and jobs ----
post functions/getServerTime "{$AUTH}"
check "getServerTime" 200 'typeof j.result.dateTime==="string" && Math.abs(Date.parse(j.result.dateTime)-Date.now())<60000'
post functions/moralisGoServerInfo "{$MAUTH}"
check "moralisGoServerInfo: the server package, every feature on" 200 'j.result.name==="moralis-go-server" && ["tickets","signIn","recordSession","serverTime","web3","idempotencyPurge","sessionIndexes","txMark","livequeryRedis"].every(f => j.result.features.includes(f)) && Object.keys(j.result.off).length===0 && j.result.database==="postgres"'
post functions/moralisGoServerInfo "{$AUTH}"
check "moralisGoServerInfo without the master key: no off, no versions" 200 'j.result.name==="moralis-go-server" && j.result.off===undefined && j.result.parseServer===undefined'
post functions/getPluginSpecs "{$AUTH}"
check "getPluginSpecs" 200 'Array.isArray(j.result) && j.result.some(p => p.name==="devstack" && p.functions.includes("echo"))'
post functions/echo "{\"a\":1,\"_SessionToken\":\"$TOKEN\",$AUTH}"
check "echo with session" 200 "j.result.params.a===1 && typeof j.result.user==='string' && j.result.master===false"
post functions/fail "{$AUTH}"
check "fail" 400 'j.code===141 && j.error==="intentional failure"'
post jobs/simpleJob "{\"x\":1,$MAUTH}"
check "simpleJob with master key" 200 'Object.keys(j).length===0'
JOB_ID=$(tr -d '\r' <"$TMP/headers" | awk -F': ' 'tolower($1)=="x-parse-job-status-id"{print $2}')
if [ -n "$JOB_ID" ]; then ok "X-Parse-Job-Status-Id header ($JOB_ID)"; else bad "no X-Parse-Job-Status-Id header"; fi
job_status=
for _ in $(seq 1 30); do
	post "classes/_JobStatus/$JOB_ID" "{\"_method\":\"GET\",$MAUTH}"
	job_status=$(jv j.status)
	[ "$job_status" = succeeded ] && break
	sleep 0.1
done
check "job status succeeded" 200 'j.status==="succeeded" && j.message==="simpleJob ran"'
post jobs/simpleJob "{$AUTH}"
check "job without master key" 403 'j.error==="unauthorized: master key is required"'

# ---- idempotency ----
RID=smoke-$RUN-rid
post classes/GameScore "{\"score\":1,$AUTH}" -H "X-Parse-Request-Id: $RID"
check "idempotent create (1st)" 201 'j.objectId'
post classes/GameScore "{\"score\":1,$AUTH}" -H "X-Parse-Request-Id: $RID"
check "idempotent create (2nd)" 400 'j.code===159 && j.error==="Duplicate request"'

# ---- PostGIS ----
post classes/Place "{\"name\":\"here-$RUN\",\"location\":{\"__type\":\"GeoPoint\",\"latitude\":40.0,\"longitude\":-30.0},$AUTH}"
check "create GeoPoint" 201 'j.objectId'
post classes/Place "{\"_method\":\"GET\",\"where\":{\"name\":\"here-$RUN\",\"location\":{\"\$nearSphere\":{\"__type\":\"GeoPoint\",\"latitude\":40.001,\"longitude\":-30.001},\"\$maxDistanceInKilometers\":5}},\"limit\":5,$AUTH}"
check "\$nearSphere query" 200 "j.results.length===1 && j.results[0].name==='here-$RUN' && j.results[0].location.latitude===40"

# ---- LiveQuery ----
if out=$(node "$DEVSTACK_TOOLS/livequery-check.js" "$URL" "$MORALIS_LIVEQUERY_URL" "$MORALIS_APP_ID" "$MORALIS_JS_KEY" LiveItem 2>&1); then
	ok "LiveQuery create event ($out)"
else
	bad "LiveQuery: $out"
fi

# ---- wallet auth ----
# The adapters accept a signature only with a one-time ticket this deployment issued for that chain, address and
# exact text (moralisAuthRequestMessage for SDK clients, the Go endpoint's ClientBackend for browsers).
SIGN="$DEVSTACK_TOOLS/sign.js"
# signed KIND KEY CHAIN [ENC] [URLVAR]: a message and ticket from the server (instance 1, or $URL2 with URLVAR=2)
# for KEY's address, signed; prints authData {id, signature, data, ticket}.
signed() {
	local kind=$1 key=$2 chain=$3 enc=${4:-base58} base=$URL addr out
	[ "${5:-1}" = 2 ] && base=$URL2
	addr=$(node "$SIGN" "$kind" "$key" x "$enc" | node -e 'let s="";process.stdin.on("data",d=>s+=d).on("end",()=>console.log(JSON.parse(s).id))')
	out=$(curl -sS -X POST -H 'Content-Type: text/plain' --data-binary "{\"chain\":\"$chain\",\"address\":\"$addr\",$AUTH}" "$base/functions/moralisAuthRequestMessage")
	node -e 'const r=JSON.parse(process.argv[1]).result;const {execFileSync}=require("child_process");
const a=JSON.parse(execFileSync("node",[process.argv[2],process.argv[3],process.argv[4],r.message,process.argv[5]]));
a.ticket=r.ticket;console.log(JSON.stringify(a))' "$out" "$SIGN" "$kind" "$key" "$enc"
}
# without K JSON: the authData JSON without field K.
without() { node -e 'const a=JSON.parse(process.argv[1]);delete a[process.argv[2]];console.log(JSON.stringify(a))' "$2" "$1"; }
ethkey=$(od -An -N32 -tx1 /dev/urandom | tr -d ' \n')
eth=$(signed eth "$ethkey" evm)
post users "{\"authData\":{\"moralisEth\":$eth},$AUTH}"
check "moralisEth sign-up (new address)" 201 'j.objectId && j.sessionToken && j.username'
post users "{\"authData\":{\"moralisEth\":$eth},$AUTH}"
check "moralisEth replay of a used ticket" 404 'j.code===101 && j.error==="moralisEth: ticket unknown, used or expired"'
post users "{\"authData\":{\"moralisEth\":$(without ticket "$eth")},$AUTH}"
check "moralisEth without a ticket" 404 'j.code===101 && j.error==="moralisEth: authData requires a ticket issued by this server"'
post users "{\"authData\":{\"moralisEth\":$(signed eth "$ethkey" evm)},$AUTH}"
check "moralisEth log-in (same address, new ticket)" 200 'j.objectId && j.sessionToken && j.authData && j.authData.moralisEth'
fresh=$(signed eth "$ethkey" evm)
other=$(node "$SIGN" eth random "$(node -e 'console.log(JSON.parse(process.argv[1]).data)' "$fresh")")
wrong=$(node -e 'const a=JSON.parse(process.argv[1]),b=JSON.parse(process.argv[2]);a.signature=b.signature;console.log(JSON.stringify(a))' "$fresh" "$other")
post users "{\"authData\":{\"moralisEth\":$wrong},$AUTH}"
check "moralisEth wrong signer" 404 'j.code===101 && j.error==="moralisEth: signature does not match address"'
post users "{\"authData\":{\"moralisEth\":{\"id\":\"0xabc\"}},$AUTH}"
check "moralisEth missing fields" 404 'j.code===101 && j.error==="moralisEth: authData requires id, signature, data"'
post classes/MoralisAuthTicket "{\"secret\":\"forgedforgedforgedforg\",$AUTH}"
check "nobody but the master key makes a ticket" 400 'j.code===119'

seed=$(od -An -N32 -tx1 /dev/urandom | tr -d ' \n')
post users "{\"authData\":{\"moralisSol\":$(signed sol "$seed" solana base58)},$AUTH}"
check "moralisSol sign-up, base58 signature" 201 'j.objectId && j.sessionToken'
post users "{\"authData\":{\"moralisSol\":$(signed sol "$seed" solana hex)},$AUTH}"
check "moralisSol log-in, hex signature" 200 'j.objectId && j.sessionToken'
post users "{\"authData\":{\"moralisSol\":$(signed sol "$seed" solana base64)},$AUTH}"
check "moralisSol log-in, base64 signature" 200 'j.objectId && j.sessionToken'
tampered=$(node -e 'const a=JSON.parse(process.argv[1]);a.data+="!";console.log(JSON.stringify(a))' "$(signed sol "$seed" solana base58)")
post users "{\"authData\":{\"moralisSol\":$tampered},$AUTH}"
check "moralisSol tampered data" 404 'j.code===101 && j.error==="moralisSol: signature does not match address"'
post functions/moralisAuthRequestMessage "{\"chain\":\"solana\",\"address\":\"11111111111111111111111111111111\",$AUTH}"
check "no ticket for a small-order key" 400 'j.code===142 && j.error==="Invalid address"'
# The all-zero key with R = the identity point and S = 0: OpenSSL's ed25519 accepts it for any text.
keyless="{\"id\":\"11111111111111111111111111111111\",\"signature\":\"$(node -e 'console.log(require("bs58").default.encode(Buffer.concat([Buffer.from([1]),Buffer.alloc(63)])))')\",\"data\":\"x\",\"ticket\":\"0000000000aaaaaaaaaaaaaaaaaaaaaa\"}"
post users "{\"authData\":{\"moralisSol\":$keyless},$AUTH}"
check "moralisSol keyless small-order key" 404 'j.code===101 && j.error.startsWith("moralisSol: public key cannot sign")'
post users "{\"authData\":{\"moralisSol\":{\"id\":\"x\",\"data\":\"y\"}},$AUTH}"
check "moralisSol missing fields" 404 'j.code===101 && j.error==="moralisSol: authData requires id, signature, data"'
post users "{\"authData\":{\"unknownProv\":{\"id\":\"x\"}},$AUTH}"
check "unknown auth provider" 400 'j.code===252'

# ---- the second instance (same database, same files directory) ----
# on2 CMD...: run a helper (post, check, ...) against the second instance.
on2() {
	local URL=$URL2
	"$@"
}
STATUS=$(curl -sS -o "$TMP/body" -w '%{http_code}' "$URL2/health") || STATUS=000
BODY=$(cat "$TMP/body")
check "instance 2: GET health" 200 'j.status==="ok"'
post classes/GameScore "{\"score\":7,\"playerName\":\"two-$RUN\",$AUTH}"
check "instance 1: create object" 201 'j.objectId'
OID2=$(jv j.objectId)
on2 post "classes/GameScore/$OID2" "{\"_method\":\"GET\",$AUTH}"
check "instance 2 reads the object created on instance 1" 200 "j.objectId==='$OID2' && j.score===7 && j.playerName==='two-$RUN'"
on2 post "classes/GameScore/$OID2" "{\"_method\":\"PUT\",\"score\":{\"__op\":\"Increment\",\"amount\":3},$AUTH}"
check "instance 2 updates it" 200 'j.score===10'
post "classes/GameScore/$OID2" "{\"_method\":\"GET\",$AUTH}"
check "instance 1 reads the update" 200 'j.score===10'
on2 post users/me "{\"_method\":\"GET\",\"_SessionToken\":\"$TOKEN\",$AUTH}"
check "instance 2 accepts instance 1's session token" 200 "j.username==='$USER'"
# A class and a field created through instance 1, then a new field through instance 2, then another
# through instance 1 after instance 2 cached the class: instance 2's schema cache follows
# (databaseOptions.enableSchemaHooks, Postgres LISTEN/NOTIFY).
NEWCLASS=Multi_$RUN
post "classes/$NEWCLASS" "{\"a\":1,$AUTH}"
check "instance 1: create a new class" 201 'j.objectId'
on2 post "classes/$NEWCLASS" "{\"a\":2,\"b\":\"x\",$AUTH}"
check "instance 2: new field on that class" 201 'j.objectId'
post "classes/$NEWCLASS" "{\"_method\":\"GET\",\"where\":{\"b\":\"x\"},$AUTH}"
check "instance 1 queries the field added on instance 2" 200 'j.results.length===1 && j.results[0].a===2'
on2 post "classes/$NEWCLASS" "{\"_method\":\"GET\",\"order\":\"a\",$AUTH}"
check "instance 2 lists both objects" 200 'j.results.length===2 && j.results[0].a===1'
post "classes/$NEWCLASS" "{\"a\":3,\"c\":{\"__type\":\"Date\",\"iso\":\"2020-01-02T03:04:05.000Z\"},$AUTH}"
check "instance 1: another new field, after instance 2 cached the class" 201 'j.objectId'
on2 post "classes/$NEWCLASS" "{\"_method\":\"GET\",\"where\":{\"c\":{\"\$lt\":{\"__type\":\"Date\",\"iso\":\"2021-01-01T00:00:00.000Z\"}}},$AUTH}"
check "instance 2 queries the new field" 200 'j.results.length===1 && j.results[0].a===3 && j.results[0].c.__type==="Date"'
# With a stale schema cache instance 2 would try to add the field again and answer 107 "Could not add field c".
on2 post "classes/$NEWCLASS" "{\"c\":\"a string\",$AUTH}"
check "instance 2 knows the new field's type (schema hooks)" 400 "j.code===111 && j.error==='schema mismatch for $NEWCLASS.c; expected Date but got String'"
# Files: one directory (both processes run in .devstack), so an upload to 1 downloads from 2.
FILE_NAME=${FILE_URL##*/}
if [ "$(curl -sS "$URL2/files/$MORALIS_APP_ID/$FILE_NAME")" = "hello $RUN" ]; then
	ok "instance 2 serves the file uploaded to instance 1"
else
	bad "instance 2 does not serve $FILE_NAME"
fi
# Idempotency: the _Idempotency table is shared, so a request id used on 1 is a duplicate on 2.
on2 post classes/GameScore "{\"score\":1,$AUTH}" -H "X-Parse-Request-Id: $RID"
check "instance 2 refuses instance 1's request id" 400 'j.code===159 && j.error==="Duplicate request"'
# The wallet user signed up through instance 1 logs in through instance 2 (same user), with a ticket instance 2
# issued; a ticket consumed on instance 1 is refused by instance 2.
post users "{\"authData\":{\"moralisEth\":$(signed eth "$ethkey" evm)},$AUTH}"
ETH_USER=$(jv j.objectId)
on2 post users "{\"authData\":{\"moralisEth\":$(signed eth "$ethkey" evm base58 2)},$AUTH}"
check "instance 2: moralisEth log-in of instance 1's user" 200 "j.objectId==='$ETH_USER' && j.sessionToken"
on2 post users "{\"authData\":{\"moralisEth\":$eth},$AUTH}"
check "instance 2 refuses a ticket used on instance 1" 404 'j.code===101 && j.error==="moralisEth: ticket unknown, used or expired"'
# LiveQuery runs on both instances, with the pub/sub in Redis: a save through one reaches the subscribers of
# the other, and through the balancer (websocket upgrade passed through) too.
lq_across() {
	local name=$1 save=$2 lq=$3 out
	if out=$(node "$DEVSTACK_TOOLS/livequery-check.js" "$save" "$lq" "$MORALIS_APP_ID" "$MORALIS_JS_KEY" LiveItem 2>&1); then
		ok "$name ($out)"
	else
		bad "$name: $out"
	fi
}
lq_across "LiveQuery 1 hears a save through instance 2" "$URL2" "$MORALIS_LIVEQUERY_URL"
lq_across "LiveQuery 2 hears a save through instance 1" "$URL" "${MORALIS_LIVEQUERY_URL_2:-unset}"
lq_across "LiveQuery through the balancer hears a save through it" "${MORALIS_LB_URL:-unset}" "${MORALIS_LB_LIVEQUERY_URL:-unset}"

# ---- the balancer and the _Idempotency purge ----
STATUS=$(curl -sS -o "$TMP/body" -w '%{http_code}' "${MORALIS_LB_URL:-http://unset}/health") || STATUS=000
BODY=$(cat "$TMP/body")
check "balancer: GET health" 200 'j.status==="ok"'
if out=$(node "$DEVSTACK_TOOLS/idempotency-purge-check.js" "$MORALIS_PG_URL" 2>&1); then
	ok "_Idempotency purge ($out)"
else
	bad "_Idempotency purge: $out"
fi

if out=$(node "$DEVSTACK_TOOLS/session-index-check.js" "$MORALIS_PG_URL" 2>&1); then
	ok "indexes ($out)"
else
	bad "indexes: $out"
fi

# ---- node unit tests of the server package and of the stack's app ----
# node_test NAME DIR: node --test over DIR (NODE_PATH: the installed app, with the package's dependencies).
node_test() {
	local out
	if out=$(cd "$2" && node --test test/ 2>&1); then
		ok "node --test $1 ($(printf '%s\n' "$out" | grep -E '^# pass' | tr -d '#'))"
	else
		printf '%s\n' "$out" | tail -n 40
		bad "node --test $1"
	fi
}
node_test server/test "$PKG_SRC"
node_test internal/devstack/app/test "$APP_SRC"

echo "smoke: $passed passed, $failed failed"
[ "$failed" = 0 ]
