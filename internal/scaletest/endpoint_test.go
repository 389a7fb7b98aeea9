//go:build integration || faults

package scaletest

import (
	"context"
	"crypto/rand"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/crypto"

	"github.com/c13f5054/moralis-go/internal/devstack"
	"github.com/c13f5054/moralis-go/signer"
)

// The endpoint instances of the stack (examples/authserver, started by up.sh on MORALIS_ENDPOINT_ADDR_1/2 with
// -redis: nonces, limits, caps and revocation in Redis; and -proxy-protocol 127.0.0.2/32: HAProxy's PROXY protocol
// header names each connection's client) behind HAProxy (MORALIS_ENDPOINT_LB_URL), at the endpoint's default limits.
// HAProxy names the instance that answered in X-Devstack-Endpoint.

// endpointHeader is the header HAProxy sets on the endpoints' answers: the instance's name.
const endpointHeader = "X-Devstack-Endpoint"

// endpointEnv is the stack with its endpoint instances answering.
func endpointEnv(tb testing.TB) devstack.Env {
	tb.Helper()
	env := scaledEnv(tb)
	for _, base := range []string{env.EndpointLBURL, "http://" + env.EndpointAddr1, "http://" + env.EndpointAddr2} {
		resp, err := http.Get(base + "/auth/me")
		if err != nil {
			tb.Fatalf("the stack's endpoint %s: %v (run `make up`)", base, err)
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusUnauthorized {
			tb.Fatalf("the stack's endpoint %s answers GET /auth/me with %d, want 401 (run `make up`)", base, resp.StatusCode)
		}
	}
	return env
}

// epClient is one client of the endpoints, from its own loopback address (127.x.y.z: the whole /8 is local), so
// that each test has limits of its own: the endpoints key their limits and connection caps by the address HAProxy's
// PROXY protocol header names, or by the remote address when called directly.
type epClient struct {
	tb testing.TB
	ip string
	hc *http.Client
}

func newEPClient(tb testing.TB) *epClient {
	tb.Helper()
	var b [3]byte
	if _, err := rand.Read(b[:]); err != nil {
		tb.Fatal(err)
	}
	return newEPClientAt(tb, fmt.Sprintf("127.%d.%d.%d", 1+int(b[0])%254, b[1], 1+int(b[2])%254))
}

// newEPClientAt is a client from the loopback address ip.
func newEPClientAt(tb testing.TB, ip string) *epClient {
	tb.Helper()
	d := &net.Dialer{LocalAddr: &net.TCPAddr{IP: net.ParseIP(ip)}, Timeout: 5 * time.Second}
	// One connection per request: the balancer then picks an instance for each, round robin.
	tr := &http.Transport{DialContext: d.DialContext, DisableKeepAlives: true}
	tb.Cleanup(tr.CloseIdleConnections)
	return &epClient{tb: tb, ip: ip, hc: &http.Client{Transport: tr}}
}

// epAnswer is an answer of the endpoint, read whole.
type epAnswer struct {
	status   int
	header   http.Header
	body     string
	instance string
}

func (a epAnswer) retryAfter() time.Duration {
	n, _ := strconv.Atoi(a.header.Get("Retry-After"))
	return time.Duration(n) * time.Second
}

func (a epAnswer) errorText() string {
	var e struct {
		Error string `json:"error"`
	}
	_ = json.Unmarshal([]byte(a.body), &e)
	return e.Error
}

// send makes one request (a JSON body when body is not nil, the session as a Bearer token when tok is set) and
// returns the response, whose body the caller closes.
func (c *epClient) send(ctx context.Context, method, u string, body any, tok string) *http.Response {
	c.tb.Helper()
	var rd io.Reader
	if body != nil {
		b, err := json.Marshal(body)
		if err != nil {
			c.tb.Fatal(err)
		}
		rd = strings.NewReader(string(b))
	}
	req, err := http.NewRequestWithContext(ctx, method, u, rd)
	if err != nil {
		c.tb.Fatal(err)
	}
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	if tok != "" {
		req.Header.Set("Authorization", "Bearer "+tok)
	}
	resp, err := c.hc.Do(req)
	if err != nil {
		c.tb.Fatalf("%s %s: %v", method, u, err)
	}
	return resp
}

func (c *epClient) do(method, u string, body any, tok string) epAnswer {
	c.tb.Helper()
	resp := c.send(c.tb.Context(), method, u, body, tok)
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		c.tb.Fatalf("%s %s: reading the answer: %v", method, u, err)
	}
	return epAnswer{status: resp.StatusCode, header: resp.Header, body: string(b), instance: resp.Header.Get(endpointHeader)}
}

// wallet is a fresh EVM key.
func wallet(tb testing.TB) *signer.Key {
	tb.Helper()
	k, err := crypto.GenerateKey()
	if err != nil {
		tb.Fatal(err)
	}
	s, err := signer.NewKey(k)
	if err != nil {
		tb.Fatal(err)
	}
	return s
}
