package authserver

import (
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/c13f5054/moralis-go/auth"
	"github.com/c13f5054/moralis-go/client"
	"github.com/c13f5054/moralis-go/signer"
)

// flakyBackend answers a sign-in as parse-server does, except that the first failLogins logins and the first
// failRecords record calls get a 502 (a proxy that lost the answer): what the sign-in sees is a write in doubt.
type flakyBackend struct {
	mu                      sync.Mutex
	failLogins, failRecords int
	tickets, installations  []string
	records                 int
}

func (f *flakyBackend) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	f.mu.Lock()
	defer f.mu.Unlock()
	b, _ := io.ReadAll(r.Body)
	w.Header().Set("Content-Type", "application/json")
	switch {
	case r.Method == http.MethodPost && strings.HasSuffix(r.URL.Path, "/users"):
		var v struct {
			AuthData       map[string]map[string]any `json:"authData"`
			InstallationID string                    `json:"_InstallationId"`
		}
		_ = json.Unmarshal(b, &v)
		t, _ := v.AuthData[auth.ProviderEth]["ticket"].(string)
		f.tickets = append(f.tickets, t)
		f.installations = append(f.installations, v.InstallationID)
		if f.failLogins > 0 {
			f.failLogins--
			w.WriteHeader(http.StatusBadGateway)
			return
		}
		addr, _ := v.AuthData[auth.ProviderEth]["id"].(string)
		_ = json.NewEncoder(w).Encode(map[string]any{"objectId": "u1", "sessionToken": "r:tok", "ethAddress": addr,
			"accounts": []string{addr}, "ACL": map[string]any{"u1": map[string]any{"read": true, "write": true}},
			"createdAt": "2026-01-01T00:00:00.000Z", "updatedAt": "2026-01-01T00:00:00.000Z"})
	case r.Method == http.MethodPost && strings.HasSuffix(r.URL.Path, "/functions/"+RecordSessionFunction):
		f.records++
		if f.failRecords > 0 {
			f.failRecords--
			w.WriteHeader(http.StatusBadGateway)
			return
		}
		_, _ = io.WriteString(w, `{"result":{"session":"s1"}}`)
	case r.Method == http.MethodPost && strings.HasSuffix(r.URL.Path, "/functions/"+ServerInfoFunction):
		_, _ = io.WriteString(w, `{"result":{"name":"moralis-go-server","features":["signIn","recordSession"]}}`)
	case r.Method == http.MethodPost && strings.HasSuffix(r.URL.Path, "/functions/getServerTime"):
		_, _ = io.WriteString(w, `{"result":{"dateTime":"2026-11-21T22:38:01.828Z"}}`)
	case r.Method == http.MethodPost && strings.HasSuffix(r.URL.Path, "/functions/"+SignInFunction):
		_, _ = io.WriteString(w, `{"result":{"useLogin":"no single user"}}`) // a first sign-in: the login does it
	default:
		w.WriteHeader(http.StatusNotFound)
		_, _ = io.WriteString(w, `{"code":101,"error":"unexpected"}`)
	}
}

// A sign-in whose login or record call lost its answer (502 from a proxy: in doubt, as neither carries an
// X-Parse-Request-Id) is made again: the login with a new ticket from the same installation (so parse-server would
// end a session the lost answer held), the record call as it was; at most inDoubtAttempts times each.
func TestSignInRetriesWritesInDoubt(t *testing.T) {
	s, err := signer.GenerateKey()
	if err != nil {
		t.Fatal(err)
	}
	msg := "sign in"
	m := auth.SignedMessage{Chain: auth.ChainEVM, Address: ethAddr(s), Message: msg, Signature: ethSign(t, s, msg)}
	for _, c := range []struct {
		failLogins, failRecords int
		ok                      bool
	}{{1, 0, true}, {0, 1, true}, {2, 2, true}, {inDoubtAttempts, 0, false}, {0, inDoubtAttempts, false}} {
		f := &flakyBackend{failLogins: c.failLogins, failRecords: c.failRecords}
		srv := httptest.NewServer(f)
		be, err := NewClientBackend(BackendConfig{Client: client.Config{ServerURL: srv.URL + "/parse", AppID: "app",
			MasterKey: "master", MaxAttempts: 1}, Logger: slog.New(slog.DiscardHandler)})
		if err != nil {
			t.Fatal(err)
		}
		sess, err := be.SignIn(t.Context(), m)
		srv.Close()
		if c.ok != (err == nil) {
			t.Fatalf("%d lost logins, %d lost records: err %v; want ok %v", c.failLogins, c.failRecords, err, c.ok)
		}
		if c.ok && sess.SessionToken != "r:tok" {
			t.Fatalf("session %+v", sess)
		}
		wantLogins := min(c.failLogins+1, inDoubtAttempts)
		if len(f.tickets) != wantLogins {
			t.Fatalf("%d lost logins: %d logins; want %d", c.failLogins, len(f.tickets), wantLogins)
		}
		seen := map[string]bool{}
		for i, tk := range f.tickets {
			if !strings.HasPrefix(tk, "e1.") || seen[tk] {
				t.Fatalf("login %d: ticket %q (new endpoint ticket each time wanted)", i, tk)
			}
			seen[tk] = true
			if f.installations[i] == "" || f.installations[i] != f.installations[0] {
				t.Fatalf("login %d: installation id %q, first %q", i, f.installations[i], f.installations[0])
			}
		}
	}
}

// ethAddrOf is the moralisEth id of a login body.
func ethAddrOf(body map[string]any) string {
	ad, _ := body["authData"].(map[string]any)
	eth, _ := ad[auth.ProviderEth].(map[string]any)
	id, _ := eth["id"].(string)
	return id
}
