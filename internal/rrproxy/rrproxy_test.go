package rrproxy

import (
	"context"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
)

// backend answers "NAME PATH HOST XFF" and counts its requests.
func backend(t *testing.T, name string) (*httptest.Server, *atomic.Int64) {
	t.Helper()
	n := new(atomic.Int64)
	s := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n.Add(1)
		body, _ := io.ReadAll(r.Body)
		io.WriteString(w, name+" "+r.Method+" "+r.URL.RequestURI()+" "+r.Host+" "+r.Header.Get("X-Forwarded-For")+" "+string(body))
	}))
	t.Cleanup(s.Close)
	return s, n
}

func get(t *testing.T, c *http.Client, url string) (string, string, int) {
	t.Helper()
	resp, err := c.Get(url)
	if err != nil {
		t.Fatalf("GET %s: %v", url, err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return string(b), resp.Header.Get(TargetHeader), resp.StatusCode
}

func TestAlternatesPerRequestOnOneKeepAliveConnection(t *testing.T) {
	a, na := backend(t, "A")
	b, nb := backend(t, "B")
	p, err := New(a.URL, b.URL+"/base")
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	if !strings.HasPrefix(p.URL, "http://127.0.0.1:") {
		t.Fatalf("URL %q is not on 127.0.0.1", p.URL)
	}
	// One client, keep-alive on: all requests share a connection to the proxy, yet alternate.
	var conns int
	var mu sync.Mutex
	tr := &http.Transport{DialContext: func(ctx context.Context, network, addr string) (net.Conn, error) {
		mu.Lock()
		conns++
		mu.Unlock()
		return (&net.Dialer{}).DialContext(ctx, network, addr)
	}}
	c := &http.Client{Transport: tr}
	defer tr.CloseIdleConnections()
	var got []string
	for i := 0; i < 6; i++ {
		body, target, status := get(t, c, p.URL+"/x?i=1")
		if status != 200 {
			t.Fatalf("status %d", status)
		}
		got = append(got, target+":"+strings.Fields(body)[0])
		if i == 1 && !strings.Contains(body, " /base/x?i=1 ") {
			t.Errorf("target path not prefixed: %q", body)
		}
		host := strings.TrimPrefix(p.URL, "http://")
		if !strings.Contains(body, " "+host+" 127.0.0.1") {
			t.Errorf("Host not kept or X-Forwarded-For missing: %q", body)
		}
	}
	if want := "0:A 1:B 0:A 1:B 0:A 1:B"; strings.Join(got, " ") != want {
		t.Fatalf("targets %v, want %s", got, want)
	}
	if conns != 1 {
		t.Errorf("client opened %d connections to the proxy, want 1 (keep-alive)", conns)
	}
	if c := p.Counts(); len(c) != 2 || c[0] != 3 || c[1] != 3 || na.Load() != 3 || nb.Load() != 3 {
		t.Fatalf("Counts %v, backends saw %d and %d", c, na.Load(), nb.Load())
	}
	if tg := p.Targets(); tg[0] != a.URL || tg[1] != b.URL+"/base" {
		t.Fatalf("Targets %v", tg)
	}
}

func TestConcurrentRequestsSplitEvenly(t *testing.T) {
	a, _ := backend(t, "A")
	b, _ := backend(t, "B")
	c3, _ := backend(t, "C")
	p, err := New(a.URL, b.URL, c3.URL)
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	var wg sync.WaitGroup
	var mu sync.Mutex
	seen := map[string]int{}
	for i := 0; i < 150; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			resp, err := http.Post(p.URL+"/p", "text/plain", strings.NewReader("body"))
			if err != nil {
				t.Error(err)
				return
			}
			defer resp.Body.Close()
			b, _ := io.ReadAll(resp.Body)
			if !strings.HasSuffix(string(b), " body") {
				t.Errorf("body not forwarded: %q", b)
			}
			mu.Lock()
			seen[strings.Fields(string(b))[0]+resp.Header.Get(TargetHeader)]++
			mu.Unlock()
		}()
	}
	wg.Wait()
	if seen["A0"] != 50 || seen["B1"] != 50 || seen["C2"] != 50 || len(seen) != 3 {
		t.Fatalf("answers by target: %v", seen)
	}
	if c := p.Counts(); c[0] != 50 || c[1] != 50 || c[2] != 50 {
		t.Fatalf("Counts %v", c)
	}
}

func TestDeadTargetGives502(t *testing.T) {
	a, _ := backend(t, "A")
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	dead := "http://" + ln.Addr().String()
	ln.Close()
	p, err := New(a.URL, dead)
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	if _, tg, st := get(t, http.DefaultClient, p.URL+"/"); st != 200 || tg != "0" {
		t.Fatalf("first request: %d from %q", st, tg)
	}
	body, tg, st := get(t, http.DefaultClient, p.URL+"/")
	if st != http.StatusBadGateway || tg != "1" || !strings.Contains(body, "rrproxy: target 1 did not answer") {
		t.Fatalf("dead target: %d %q %q", st, tg, body)
	}
	if p.Failures() != 1 {
		t.Fatalf("Failures %d", p.Failures())
	}
}

func TestNewRejectsBadTargets(t *testing.T) {
	for _, targets := range [][]string{nil, {""}, {"127.0.0.1:80"}, {"ftp://h/x"}, {"http://"}, {"http://ok", "::bad"}} {
		if p, err := New(targets...); err == nil {
			p.Close()
			t.Errorf("New(%q) succeeded", targets)
		} else if !strings.HasPrefix(err.Error(), "rrproxy: ") {
			t.Errorf("New(%q): %v", targets, err)
		}
	}
}

func TestCloseStopsListeningAndIsIdempotent(t *testing.T) {
	a, _ := backend(t, "A")
	p, err := New(a.URL)
	if err != nil {
		t.Fatal(err)
	}
	if err := p.Close(); err != nil {
		t.Fatal(err)
	}
	if err := p.Close(); err != nil {
		t.Fatalf("second Close: %v", err)
	}
	if _, err := http.Get(p.URL + "/"); err == nil {
		t.Fatal("proxy still answers after Close")
	}
}
