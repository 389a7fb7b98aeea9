package authserver

import (
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/gorilla/websocket"

	"github.com/c13f5054/moralis-go/client"
)

// A backend with the whole server package: CheckBackend reports it (package, version, parse-server, database, both
// functions, getServerTime, idempotency) and logs one Info line saying nothing is missing; a second check logs
// nothing more.
func TestBackendCheckOfTheServerPackage(t *testing.T) {
	f := &flowBackend{}
	be, logs, _, _ := flowSetup(t, f)
	for range 2 {
		r, err := be.CheckBackend(t.Context())
		if err != nil {
			t.Fatal(err)
		}
		if r.Package != "moralis-go-server" || r.Version != "1.0.0" || r.ParseServer != "9.10.0" || r.Database != "postgres" ||
			!r.SignInFunction || !r.RecordFunction || !r.ServerTime || !r.Idempotency || len(r.Missing) != 0 || r.LiveQueryChecked {
			t.Fatalf("report %+v", r)
		}
	}
	lines := logs.lines("backend check")
	if len(lines) != 1 || !strings.Contains(lines[0], `"level":"INFO"`) || !strings.Contains(lines[0], "everything the endpoint uses is there") {
		t.Fatalf("logged %q; want one Info line", lines)
	}
}

// A stock server (no server package, no functions, no getServerTime, no idempotency) is told, not broken: one Warn
// line names each missing piece with what it costs, and the report says the same.
func TestBackendCheckOfAStockServer(t *testing.T) {
	f := &flowBackend{noPackage: true, fnAbsent: true, recordAbsent: true, noServerTime: true, noIdempotency: true}
	be, logs, _, _ := flowSetup(t, f)
	r, err := be.CheckBackend(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	if r.Package != "" || r.SignInFunction || r.RecordFunction || r.ServerTime || r.Idempotency || len(r.Missing) != 5 {
		t.Fatalf("report %+v", r)
	}
	lines := logs.lines("backend check")
	if len(lines) != 1 || !strings.Contains(lines[0], `"level":"WARN"`) {
		t.Fatalf("logged %q; want one Warn line", lines)
	}
	for _, want := range []string{"no moralis-go server package", "server/README.md",
		"no " + RecordSessionFunction + ": sessions are not recorded", "no one-door guarantee", "sessions do not roll",
		"no " + SignInFunction + ": a returning wallet signs in by parse-server's login (1 backend request",
		"no getServerTime: the SDK's direct sign-in", "no idempotency"} {
		if !strings.Contains(lines[0], want) {
			t.Errorf("the line lacks %q: %s", want, lines[0])
		}
	}
}

// A feature the package reports off (with its reason, to the master key) is not used, and the line says why:
// the sign-in function is not called, the wallet signs in by the login.
func TestBackendCheckFeatureOff(t *testing.T) {
	f := &flowBackend{features: []string{featureTickets, featureRecordSession}, off: map[string]string{featureSignIn: "lib/RestWrite: createSession is missing"}}
	be, logs, _, m := flowSetup(t, f)
	r, err := be.CheckBackend(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	if r.SignInFunction || !r.RecordFunction {
		t.Fatalf("report %+v", r)
	}
	if l := logs.lines("backend check"); len(l) != 1 || !strings.Contains(l[0], "feature signIn off: lib/RestWrite: createSession is missing") ||
		!strings.Contains(l[0], "2 backend requests instead of 1") {
		t.Fatalf("logged %q", l)
	}
	f.take()
	if _, err := be.SignIn(t.Context(), m); err != nil {
		t.Fatal(err)
	}
	if got := f.take(); !slices.Equal(got, []string{"POST users", "POST functions/" + RecordSessionFunction}) {
		t.Fatalf("requests %v; want the login and the record", got)
	}
}

// A backend that cannot be asked (down) is an error of CheckBackend and a Warn line; the endpoint keeps signing in
// as before (the functions are tried) and asks again on a later request.
func TestBackendCheckUnreachable(t *testing.T) {
	srv := httptest.NewServer(&flowBackend{})
	url := srv.URL
	srv.Close()
	logs := newLogs(t)
	be, err := NewClientBackend(BackendConfig{Client: client.Config{ServerURL: url + "/parse", AppID: "app", MasterKey: "m",
		MaxAttempts: 1}, Logger: logs.c.Logger})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := be.CheckBackend(t.Context()); err == nil {
		t.Fatal("no error from a backend that is down")
	}
	if !be.signInUsable() || !be.recording() || len(logs.lines("could not be asked")) != 1 {
		t.Fatalf("usable %v, recording %v, logs:\n%s", be.signInUsable(), be.recording(), logs)
	}
}

// Concurrent first sign-ins share one check of the backend.
func TestBackendCheckOnceForConcurrentSignIns(t *testing.T) {
	f := &flowBackend{}
	be, _, _, m := flowSetup(t, f)
	var wg sync.WaitGroup
	for range 8 {
		wg.Go(func() {
			if _, err := be.SignIn(t.Context(), m); err != nil {
				t.Error(err)
			}
		})
	}
	wg.Wait()
	n := 0
	for _, r := range f.take() {
		if r == "POST functions/"+ServerInfoFunction {
			n++
		}
	}
	if n != 1 {
		t.Fatalf("the backend was asked %d times", n)
	}
}

// A Handler gives its Config.Logger to the ClientBackend it uses, unless BackendConfig.Logger was set.
func TestHandlerLoggerReachesTheBackend(t *testing.T) {
	f := &flowBackend{}
	be, own, _, _ := flowSetup(t, f)
	hl := newLogs(t)
	h, err := NewHandler(be, Config{AppID: "app", Domain: "app.example", Logger: hl.c.Logger})
	if err != nil {
		t.Fatal(err)
	}
	if h.backend.(*ClientBackend).logger != be.logger {
		t.Fatal("the backend's own logger was replaced")
	}
	plain, err := NewClientBackend(BackendConfig{Client: be.cfg})
	if err != nil {
		t.Fatal(err)
	}
	h2, err := NewHandler(plain, Config{AppID: "app", Domain: "app.example", Logger: hl.c.Logger})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := h2.backend.(*ClientBackend).CheckBackend(t.Context()); err != nil {
		t.Fatal(err)
	}
	if len(hl.lines("backend check")) != 1 || len(own.lines("backend check")) != 0 {
		t.Fatalf("handler's log:\n%s\nbackend's own:\n%s", hl, own)
	}
}

// With BackendConfig.LiveQueryURL the check connects to LiveQuery: a server that answers the connect is reported,
// one that does not answer is a missing piece with its cost. Without the URL, LiveQuery is not checked.
func TestBackendCheckLiveQuery(t *testing.T) {
	up := websocket.Upgrader{}
	lq := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		c, err := up.Upgrade(w, r, nil)
		if err != nil {
			return
		}
		defer c.Close()
		var m map[string]any
		if c.ReadJSON(&m) == nil && m["op"] == "connect" && m["applicationId"] == "app" {
			_ = c.WriteJSON(map[string]any{"op": "connected", "clientId": 1})
		}
		_, _, _ = c.ReadMessage() // until the client closes
	}))
	defer lq.Close()
	down := httptest.NewServer(http.NotFoundHandler())
	downURL := "ws" + strings.TrimPrefix(down.URL, "http")
	down.Close()
	for _, c := range []struct {
		url      string
		answers  bool
		inReport bool
	}{{"ws" + strings.TrimPrefix(lq.URL, "http") + "/parse", true, false}, {downURL, false, true}} {
		f := &flowBackend{}
		be, logs, _, _ := flowSetupWith(t, f, func(cfg *BackendConfig) { cfg.LiveQueryURL = c.url })
		r, err := be.CheckBackend(t.Context())
		if err != nil {
			t.Fatal(err)
		}
		if !r.LiveQueryChecked || r.LiveQuery != c.answers {
			t.Fatalf("%s: report %+v; want LiveQuery %v", c.url, r, c.answers)
		}
		if got := len(logs.lines("LiveQuery does not answer")) == 1; got != c.inReport {
			t.Fatalf("%s: logged:\n%s", c.url, logs)
		}
	}
	if _, err := NewClientBackend(BackendConfig{Client: client.Config{ServerURL: "http://x/parse", AppID: "a"},
		LiveQueryURL: "http://x/parse"}); err == nil {
		t.Fatal("a LiveQuery URL that is not ws:// or wss:// was accepted")
	}
}

// Without a master key the functions are never used, so nothing is asked again after the first check (and the line
// says what the missing key costs).
func TestBackendCheckWithoutMasterKeyAsksOnce(t *testing.T) {
	f := &flowBackend{}
	be, logs, clock, _ := flowSetupWith(t, f, func(cfg *BackendConfig) { cfg.Client.MasterKey = "" })
	if _, err := be.CheckBackend(t.Context()); err != nil {
		t.Fatal(err)
	}
	if l := logs.lines("backend check"); len(l) != 1 || !strings.Contains(l[0], "no master key") {
		t.Fatalf("logged %q", l)
	}
	f.take()
	clock.Add(2 * be.recheck)
	be.ensureChecked(t.Context())
	if got := f.take(); len(got) != 0 {
		t.Fatalf("asked again: %v", got)
	}
}

// A package that neither lists "signIn" or "recordSession" on nor reports it off (a version that does not report
// those features yet) has its functions asked: present ones are used, absent ones are not.
func TestBackendCheckAsksWhatThePackageDoesNotReport(t *testing.T) {
	for _, absent := range []bool{false, true} {
		f := &flowBackend{features: []string{"txMark"}, fnAbsent: absent, recordAbsent: absent}
		be, _, _, _ := flowSetup(t, f)
		r, err := be.CheckBackend(t.Context())
		if err != nil {
			t.Fatal(err)
		}
		if r.SignInFunction == absent || r.RecordFunction == absent || r.Package == "" {
			t.Fatalf("functions absent %v: report %+v", absent, r)
		}
		want := append(slices.Clone(checkRequests), "POST functions/"+SignInFunction, "POST functions/"+RecordSessionFunction)
		if got := f.take(); !sameRequests(got, want) {
			t.Fatalf("functions absent %v: requests %v", absent, got)
		}
	}
}
