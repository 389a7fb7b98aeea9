package main

// Tests patterns (go test -run) of the offline tests that cover each area.
const (
	corsTests    = "^(TestHandlerCORS|TestDataProxyOriginAndOptions|TestGuardLiveOrigin)$"
	signInTests  = "^(TestHandlerEVMSignInFlow|TestHandlerSolanaSignIn|TestHandlerMoralisStyleEVM|TestHandlerRefusals|TestHandlerConcurrentReplay)$"
	siwsTests    = "^(TestHandlerSIWSSignIn|TestHandlerSIWSRefusals)$"
	proxyTests   = "^TestDataProxy"
	nonceTests   = "^TestMemoryNonceStore"
	serverTests  = "^(TestServer|TestAttackSilentConnections)"
	pipelineFile = "authserver/pipeline.go"
	policyFile   = "authserver/policy.go"
	queryFile    = "authserver/dataproxy_query.go"
	flowFile     = "authserver/signinflow.go"
	checkFile    = "authserver/backendcheck.go"
	flowTests    = "^(TestSignIn.*|TestRecordFunction.*|TestInternalErrorText.*|TestBackendCheck.*)$"
)

// mutations breaks each guard of the endpoint once. Keep from exact and unique: a pattern that stops matching
// (the code moved) is reported as BROKEN, never silently skipped.
var mutations = []mutation{
	// --- origin (CORS)
	{id: "origin-refuse", desc: "a request from an origin not allowed is served (no 403)",
		file: policyFile, from: "case !allowed && (rule == originStrict ||", to: "case false && (rule == originStrict ||",
		tests: corsTests},
	{id: "origin-list", desc: "every well-formed origin counts as allowed",
		file: policyFile, from: "return ok && p.origins[n]", to: "return ok && n != \"\"",
		tests: corsTests},
	// --- rate limits
	{id: "rate-client", desc: "the per-client rate limit of every route is not taken",
		file: pipelineFile, from: "if err := takeBoth(r, p.limit, rt.limit); err != nil {", to: "if err := takeBoth(r, limit{}, rt.limit); err != nil {",
		tests: "^(TestHandlerRateLimit|TestDataProxyPerSessionRateLimit)$"},
	{id: "rate-user", desc: "the per-user rate limit of the data proxy is not enforced",
		file: pipelineFile, from: `"user:"+u.ObjectID); err != nil || !ok {`, to: `"user:"+u.ObjectID); err != nil || !ok && false {`,
		tests: "^TestDataProxyRateLimitPerUser$"},
	// --- body rule
	{id: "body-content-length", desc: "a Content-Length over the limit is read instead of refused (413)",
		file: pipelineFile, from: "if r.ContentLength > max {", to: "if false {",
		tests: "^(TestReadBodyRule|TestHandlerRefusals|TestDataProxy.*)$"},
	{id: "body-max-bytes", desc: "the body is read without a byte limit",
		file: pipelineFile, from: "io.ReadAll(http.MaxBytesReader(w, r.Body, max))", to: "io.ReadAll(r.Body)",
		tests: "^(TestReadBodyRule|TestHandlerRefusals|TestDataProxy.*)$"},
	{id: "body-content-type", desc: "a body that is not application/json is accepted (no 415)",
		file: pipelineFile, from: `if err != nil || mt != "application/json" {`, to: `if (err != nil || mt != "application/json") && false {`,
		tests: "^(TestReadBodyRule|TestHandlerRefusals|TestDataProxy.*)$"},
	{id: "body-unknown-fields", desc: "unknown JSON fields of a route's body are ignored",
		file: pipelineFile, from: "\tdec.DisallowUnknownFields()\n", to: "",
		tests: "^(TestReadBodyRule|TestHandlerRefusals|TestDataProxy.*)$"},
	// --- method
	{id: "method", desc: "a route answers any method (no 405)",
		file: pipelineFile, from: "if rt.method != \"\" && r.Method != rt.method {", to: "if false {",
		tests: "^(TestHandlerRefusals|TestHandlerCORS|TestDataProxy.*)$"},
	// --- session
	{id: "session-present", desc: "a route that needs a session runs without a token",
		file: pipelineFile, from: `if c.token = p.sessionToken(r); c.token == "" {`, to: `if c.token = p.sessionToken(r); false {`,
		tests: "^(TestSessionRequiredBeforeBackend|TestHandlerEVMSignInFlow|TestDataProxySessionFirst|TestGuardLiveRefusedSession)$"},
	{id: "session-refused", desc: "a session the backend refused (209) is not a 401",
		file: policyFile, from: "(be.Code == int(parse.CodeInvalidSessionToken) || be.Status == http.StatusUnauthorized):",
		to:    "(be.Code == int(parse.CodeInvalidSessionToken) && be.Status == -1):",
		tests: "^(TestHandlerEVMSignInFlow|TestDataProxySessionFirst|TestGuardLiveRefusedSession|TestHandlerBackendErrors)$"},
	// --- cookie
	{id: "cookie-httponly", desc: "the session cookie is readable by scripts",
		file: policyFile, from: "Value: token, Path: c.path, HttpOnly: true,", to: "Value: token, Path: c.path, HttpOnly: false,",
		tests: signInTests},
	{id: "cookie-secure", desc: "the session cookie is sent over plain HTTP by default",
		file: policyFile, from: "HttpOnly: true, Secure: !c.insecure,\n\t\tSameSite: http.SameSiteLaxMode}\n\tlife", to: "HttpOnly: true, Secure: false,\n\t\tSameSite: http.SameSiteLaxMode}\n\tlife",
		tests: signInTests},
	{id: "cookie-samesite", desc: "the session cookie goes with cross-site requests",
		file: policyFile, from: "SameSite: http.SameSiteLaxMode}\n\tlife := c.maxAge", to: "SameSite: http.SameSiteNoneMode}\n\tlife := c.maxAge",
		tests: signInTests},
	// --- nonces
	{id: "nonce-once", desc: "a nonce stays usable after a sign-in consumed it",
		file: "authserver/nonce.go", from: "\t\treturn ErrNonceMismatch\n\t}\n\tdelete(s.nonces, nonce)\n", to: "\t\treturn ErrNonceMismatch\n\t}\n",
		tests: nonceTests + "|" + signInTests},
	{id: "nonce-binding", desc: "a nonce is accepted with another text, address or chain than it was issued for",
		file: "authserver/nonce.go", from: "if n.b != b {", to: "if false {",
		tests: nonceTests + "|" + signInTests},
	// --- sign-in messages
	{id: "siwe-domain", desc: "a SIWE message for another domain is accepted",
		file: "authserver/signin.go", from: "MaxAge: h.o.NonceTTL + h.o.ClockSkew}); err != nil {\n",
		to:    "MaxAge: h.o.NonceTTL + h.o.ClockSkew}); err != nil && !errors.Is(err, auth.ErrSIWEDomain) && !errors.Is(err, auth.ErrSIWEURI) {\n",
		tests: signInTests},
	{id: "message-refusal-domain", desc: "the one refusal table (SIWE and SIWS) loses its domain row: another domain is refused by another text",
		file: "authserver/signin.go", from: "{[]error{auth.ErrSIWEDomain, auth.ErrSIWEURI, auth.ErrSIWSDomain, auth.ErrSIWSURI}, ",
		to:    "{[]error{}, ",
		tests: signInTests + "|" + siwsTests},
	{id: "moralis-app", desc: "a Moralis-style message of another statement is accepted",
		file: "authserver/signin.go", from: "if text != h.o.Statement || !validNonce(suffix) {", to: "if text == \"\\x00\" || !validNonce(suffix) {",
		tests: signInTests},
	// --- data proxy
	{id: "proxy-class-list", desc: "a class outside AllowedClasses is read",
		file: queryFile, from: "return slices.Contains(p.o.AllowedClasses, c)", to: "return true",
		tests: proxyTests},
	{id: "proxy-class-system", desc: "a system class (_User, _Session) is read with no AllowedClasses",
		file: queryFile, from: `return !strings.HasPrefix(c, "_")`, to: `return c != ""`,
		tests: proxyTests},
	{id: "proxy-subquery", desc: "a subquery reads a class not allowed",
		file: queryFile, from: `ok && !p.classAllowed(cn) {`, to: `ok && false {`,
		tests: proxyTests},
	{id: "proxy-function-list", desc: "a cloud function outside AllowedFunctions is called",
		file: queryFile, from: "if !functionName.MatchString(in.Name) || !slices.Contains(p.o.AllowedFunctions, in.Name) {", to: "if !functionName.MatchString(in.Name) {",
		tests: proxyTests},
	{id: "proxy-limit", desc: "a query limit over MaxDataQueryLimit is passed on",
		file: queryFile, from: "n < 0 || n > MaxDataQueryLimit {", to: "n < 0 {",
		tests: proxyTests},
	{id: "proxy-regex", desc: "$regex reaches the backend by default",
		file: queryFile, from: "if !p.o.AllowRegex && usesRegex(in.Where) {", to: "if false {",
		tests: proxyTests},
	// --- bounded state
	{id: "ttlcache-bound", desc: "a full TTL cache grows past its bound",
		file: "authserver/ttlcache.go", from: "\t\tif len(c.m) >= c.maxEntries {\n\t\t\treturn\n\t\t}\n", to: "",
		tests: "^(TestDataProxy.*Cache.*|TestTTLCache.*)$"},
	{id: "conn-share", desc: "at the connection cap one address keeps more than its share",
		file: "authserver/connlimit.go", from: "if n >= g.shareLocked(cl == nil) {", to: "if false {",
		tests: serverTests},
	{id: "conn-per-client", desc: "one address opens more connections than ConnectionsPerClient",
		file: "authserver/connlimit.go", from: "if g.perClient > 0 && n >= g.perClient {", to: "if false {",
		tests: serverTests},
	// --- the one-call sign-in trusts its caller: the endpoint verifies first
	{id: "signin-function-verify", desc: "SignInFunction is called for a signature that does not verify",
		file: flowFile, from: "\tif err != nil {\n\t\treturn nil, false, nil\n\t}\n\tnow := b.life.now()", to: "\tnow := b.life.now()",
		tests: "^TestSignInFunction"},
	// --- the one sign-in flow fails soft: only a definite refusal is the sign-in's answer
	{id: "signin-function-failure", desc: "a failure of SignInFunction fails the sign-in instead of falling back to the login",
		file: flowFile, from: "\tcase err != nil:\n\t\tb.signInFailed(err.Error())\n\t\treturn nil, false, nil", to: "\tcase err != nil:\n\t\tb.signInFailed(err.Error())\n\t\treturn nil, true, err",
		tests: flowTests},
	{id: "signin-function-in-doubt", desc: "a SignInFunction call in doubt after every attempt fails the sign-in instead of the login",
		file: flowFile, from: "attempt, err))\n\t\treturn nil, false, nil", to: "attempt, err))\n\t\treturn nil, true, err",
		tests: flowTests},
	{id: "signin-function-refusal", desc: "the app's definite refusal ({refused}) is sent to the login instead of answered",
		file: flowFile, from: "case r.Refused != nil && r.Refused.Code >= 100:", to: "case false && r.Refused != nil:",
		tests: flowTests},
	{id: "signin-function-off", desc: "{useLogin: \"off: ...\"} leaves SignInFunction on",
		file: flowFile, from: `if strings.HasPrefix(r.UseLogin, "off: ") {`, to: `if false {`,
		tests: flowTests},
	{id: "signin-function-breaker", desc: "a SignInFunction that fails every time is called on every sign-in",
		file: checkFile, from: "if n >= signInFailureLimit {", to: "if false {",
		tests: flowTests},
	{id: "backend-recheck", desc: "what the backend lacks is learned once per process (never asked again)",
		file: checkFile, from: "\t\treturn now.Sub(c.at) >= recheck\n", to: "\t\treturn false\n",
		tests: flowTests},
	{id: "record-off", desc: "without RecordSessionFunction the endpoint still asks for session records",
		file: checkFile, from: "func (b *ClientBackend) recording() bool { return b.functionOn(&b.caps.record) }", to: "func (b *ClientBackend) recording() bool { return b.base.HasMasterKey() }",
		tests: flowTests},
	{id: "answer-script-text", desc: "a backend answer with code 141 shows its text (a TypeError's) to the browser",
		file: flowFile, from: "if code == parse.CodeScriptFailed {", to: "if false {",
		tests: flowTests},
	// --- strict JSON of the sign-in body
	{id: "json-case", desc: "sign-in field names match case-insensitively (\"Chain\")",
		file: "authserver/strictjson.go", from: "\t\tswitch key {\n\t\tcase \"chain\":", to: "\t\tswitch string(bytes.ToLower([]byte(key))) {\n\t\tcase \"chain\":",
		tests: "^(TestHandlerRefusals|TestDecodeRequest.*)$"},
	{id: "json-duplicate", desc: "a repeated sign-in field overwrites the first",
		file: "authserver/strictjson.go", from: "if seen[i] {", to: "if false {",
		tests: "^(TestHandlerRefusals|TestDecodeRequest.*)$"},
}
