package authserver

import (
	"context"
	"github.com/c13f5054/moralis-go/client"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// ClientDataBackend promises the user's session, never the master key; over a WithMasterKey view every call
// carried _MasterKey (ACLs off for every signed-in user).
func TestDataProxyMasterKeyClientRefused(t *testing.T) {
	fp := newFakeParse(t, 200, "application/json", `{"results":[{"objectId":"secret"}]}`)
	mc, err := client.New(client.Config{ServerURL: fp.srv.URL, AppID: "app", JavaScriptKey: "js", MasterKey: "the-master-key", MaxAttempts: 1})
	if err != nil {
		t.Fatal(err)
	}
	e := newProxyEnv(t, nil)
	p, err := e.h.DataProxy(DataProxyConfig{Backend: NewClientDataBackend(mc.WithMasterKey())})
	if err == nil {
		req := httptest.NewRequest("POST", "/data/query", strings.NewReader(`{"className":"Item"}`))
		req.Header.Set("Content-Type", "application/json")
		req.AddCookie(&http.Cookie{Name: DefaultCookieName, Value: proxyToken})
		p.ServeHTTP(httptest.NewRecorder(), req)
	}
	// Used directly, it refuses too.
	_, _ = NewClientDataBackend(mc.WithMasterKey()).CallFunction(context.Background(), proxyToken, "echo", nil)
	if strings.Contains(fp.seen(), "the-master-key") {
		t.Fatalf("a data call went out with the master key: %s", fp.seen())
	}
}
