package authserver

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/c13f5054/moralis-go/auth"
	"github.com/c13f5054/moralis-go/client"
	"github.com/c13f5054/moralis-go/internal/telemetry/telemetrytest"
	"github.com/c13f5054/moralis-go/signer"
)

// flowBackend plays a parse-server for the sign-in flow's offline tests: moralis-go's server package (or a stock
// server without it), the sign-in function with scripted answers, the record function, the login through the
// wallet adapter, getServerTime and idempotency, users/me and the session records. It keeps every request it got
// (method, as _method says, and path under the mount) and the bodies of the sign-in function's calls and logins.
// Anything else is an unexpected request: 404 with code 101.
type flowBackend struct {
	requestLog // what it got
	mu         sync.Mutex
	// noPackage makes ServerInfoFunction answer 141 "Invalid function" (a stock server); otherwise it answers
	// the package with features (all of them when nil) and off.
	noPackage bool
	features  []string
	off       map[string]string
	// fnAbsent and recordAbsent make the functions answer 141 "Invalid function".
	fnAbsent, recordAbsent bool
	// fn scripts the sign-in function's answers, one per call (the last one repeats; none: a session):
	// "session", "useLogin:<reason>", "refused:<code>:<text>", "throw:<code>:<text>" (an error answer, 400),
	// "lost" (a 502: in doubt), "empty" (a result with nothing in it).
	fn []string
	// login, when set, is the login's error answer: "<code>:<text>" with status 400.
	login string
	// link, when set, is the answer to a user update that links authData: "<code>:<text>", status 400.
	link string
	// noServerTime makes getServerTime absent; noIdempotency turns off the duplicate-request answer.
	noServerTime, noIdempotency bool

	fnCalls   []map[string]any
	logins    []map[string]any
	records   []map[string]any
	requestID map[string]bool
}

var allFeatures = []string{featureTickets, featureSignIn, featureRecordSession, "serverTime", "web3", "idempotencyPurge", "sessionIndexes"}

func (f *flowBackend) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	raw, _ := io.ReadAll(r.Body)
	var v map[string]any
	_ = json.Unmarshal(raw, &v)
	method, _ := v["_method"].(string)
	if method == "" {
		method = r.Method
	}
	path := strings.TrimPrefix(r.URL.Path, "/parse/")
	f.mu.Lock()
	defer f.mu.Unlock()
	f.add(method + " " + path)
	w.Header().Set("Content-Type", "application/json")
	fail := func(status int, codeText string) {
		code, text, _ := strings.Cut(codeText, ":")
		w.WriteHeader(status)
		_ = json.NewEncoder(w).Encode(map[string]any{"code": json.Number(code), "error": text})
	}
	result := func(res any) { _ = json.NewEncoder(w).Encode(map[string]any{"result": res}) }
	invalid := func(fn string) { fail(400, `141:Invalid function: "`+fn+`"`) }
	switch {
	case path == "functions/"+ServerInfoFunction:
		if f.noPackage {
			invalid(ServerInfoFunction)
			return
		}
		feats := f.features
		if feats == nil {
			feats = allFeatures
		}
		result(map[string]any{"name": "moralis-go-server", "version": "1.0.0", "features": feats,
			"parseServer": "9.10.0", "database": "postgres", "off": f.off})
	case path == "functions/getServerTime":
		if id := r.Header.Get("X-Parse-Request-Id"); id != "" && !f.noIdempotency {
			if f.requestID == nil {
				f.requestID = map[string]bool{}
			}
			if f.requestID[id] {
				fail(400, "159:Duplicate request")
				return
			}
			f.requestID[id] = true
		}
		if f.noServerTime {
			invalid("getServerTime")
			return
		}
		result(map[string]any{"dateTime": "2026-11-21T22:38:01.828Z"})
	case path == "functions/"+SignInFunction:
		if f.fnAbsent {
			invalid(SignInFunction)
			return
		}
		if _, ok := v["provider"]; !ok { // the presence probe: empty parameters
			fail(400, "107:"+SignInFunction+": provider must be moralisEth or moralisSol")
			return
		}
		f.fnCalls = append(f.fnCalls, v)
		ans := "session"
		if len(f.fn) > 0 {
			ans = f.fn[0]
			if len(f.fn) > 1 {
				f.fn = f.fn[1:]
			}
		}
		kind, rest, _ := strings.Cut(ans, ":")
		switch kind {
		case "session":
			id, _ := v["id"].(string)
			result(map[string]any{"session": "s1", "user": map[string]any{"objectId": "u1", "ethAddress": id,
				"accounts": []string{id}, "createdAt": "2026-01-01T00:00:00.000Z", "updatedAt": "2026-01-01T00:00:00.000Z"}})
		case "useLogin":
			result(map[string]any{"useLogin": rest})
		case "refused":
			code, text, _ := strings.Cut(rest, ":")
			result(map[string]any{"refused": map[string]any{"code": json.Number(code), "error": text}})
		case "throw":
			fail(400, rest)
		case "lost":
			w.WriteHeader(http.StatusBadGateway)
		case "empty":
			result(map[string]any{})
		}
	case path == "functions/"+RecordSessionFunction:
		if f.recordAbsent {
			invalid(RecordSessionFunction)
			return
		}
		if _, ok := v["sessionToken"]; !ok {
			fail(400, "107:"+RecordSessionFunction+": sessionToken must be a string")
			return
		}
		rec, _ := v["record"].(map[string]any)
		f.records = append(f.records, rec)
		result(map[string]any{"session": "s1"})
	case path == "users" && method == http.MethodPost:
		f.logins = append(f.logins, map[string]any{"installationId": v["_InstallationId"], "authData": v["authData"]})
		if f.login != "" {
			fail(400, f.login)
			return
		}
		addr := ethAddrOf(v)
		_ = json.NewEncoder(w).Encode(map[string]any{"objectId": "u1", "sessionToken": "r:login", "ethAddress": addr,
			"accounts": []string{addr}, "ACL": map[string]any{"u1": map[string]any{"read": true, "write": true}},
			"createdAt": "2026-01-01T00:00:00.000Z", "updatedAt": "2026-01-01T00:00:00.000Z"})
	case path == "users/me":
		_ = json.NewEncoder(w).Encode(map[string]any{"objectId": "u1", "ethAddress": "0x00000000000000000000000000000000000000aa",
			"accounts": []string{"0x00000000000000000000000000000000000000aa"}, "sessionToken": v["_SessionToken"]})
	case path == "classes/"+recordClass && method == http.MethodGet:
		// A record made now that ends in six days: not half way to its end, so not extended.
		now := time.Now().UTC()
		date := func(t time.Time) map[string]any {
			return map[string]any{"__type": "Date", "iso": t.Format("2006-01-02T15:04:05.000Z")}
		}
		_ = json.NewEncoder(w).Encode(map[string]any{"results": []any{map[string]any{"objectId": "rec1",
			"expiresAt": date(now.Add(6 * 24 * time.Hour)), "startedAt": date(now)}}})
	case strings.HasPrefix(path, "users/") && method == http.MethodPut:
		if _, linking := v["authData"]; linking && f.link != "" {
			fail(400, f.link)
			return
		}
		_ = json.NewEncoder(w).Encode(map[string]any{"updatedAt": "2026-01-01T00:00:00.000Z"})
	case path == "logout":
		_ = json.NewEncoder(w).Encode(map[string]any{})
	default:
		fail(404, "101:unexpected")
	}
}

// logs is what a telemetrytest.Capture's Logger logged, for the tests' checks.
type logs struct{ c *telemetrytest.Capture }

func newLogs(t *testing.T) logs { return logs{telemetrytest.New(t)} }

func (l logs) String() string { return l.c.Logs() }

// lines returns the lines logged that contain s.
func (l logs) lines(s string) []string {
	var out []string
	for _, line := range strings.Split(l.c.Logs(), "\n") {
		if strings.Contains(line, s) {
			out = append(out, line)
		}
	}
	return out
}

// flowSetup serves f and returns a ClientBackend over it with the master key (logging to the returned buffer, at
// Debug), its clock, and a wallet's signed message.
func flowSetup(t *testing.T, f *flowBackend) (*ClientBackend, logs, *testClock, auth.SignedMessage) {
	t.Helper()
	return flowSetupWith(t, f, nil)
}

// flowSetupWith is flowSetup with the backend's configuration changed by mod first.
func flowSetupWith(t *testing.T, f *flowBackend, mod func(*BackendConfig)) (*ClientBackend, logs, *testClock, auth.SignedMessage) {
	t.Helper()
	srv := httptest.NewServer(f)
	t.Cleanup(srv.Close)
	lg := newLogs(t)
	cfg := BackendConfig{Client: client.Config{ServerURL: srv.URL + "/parse", AppID: "app", JavaScriptKey: "js",
		MasterKey: "master", MaxAttempts: 1}, Logger: lg.c.Logger}
	if mod != nil {
		mod(&cfg)
	}
	be, err := NewClientBackend(cfg)
	if err != nil {
		t.Fatal(err)
	}
	clock := &testClock{now: time.Now()}
	be.life.now = clock.Now
	s, err := signer.GenerateKey()
	if err != nil {
		t.Fatal(err)
	}
	msg := "sign in"
	return be, lg, clock, auth.SignedMessage{Chain: auth.ChainEVM, Address: ethAddr(s), Message: msg, Signature: ethSign(t, s, msg)}
}
