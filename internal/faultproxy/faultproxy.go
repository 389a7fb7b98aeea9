// Package faultproxy is a test tool: an HTTP proxy on 127.0.0.1 between the SDK and a real server that injects
// faults into a share of the requests: it drops the connection before forwarding, resets it after the server
// applied the request, truncates the answer's body, delays the answer, or answers 502/503 itself. It counts what
// it did. The random source is seeded, so a run is repeatable.
package faultproxy

import (
	"bytes"
	"fmt"
	"io"
	"math/rand/v2"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strconv"
	"sync"
	"time"
)

// Fault is one kind of injected fault.
type Fault string

// The faults the proxy injects.
const (
	None     Fault = "none"
	Drop     Fault = "drop"     // close the connection before forwarding: the server never sees the request
	Reset    Fault = "reset"    // forward, then close the connection without an answer: applied, answer lost
	Truncate Fault = "truncate" // forward, then send half the body under the full Content-Length
	Delay    Fault = "delay"    // forward, and answer after Delay
	Bad502   Fault = "502"      // answer 502 without forwarding
	Bad503   Fault = "503"      // answer 503 without forwarding
)

// AllFaults are the faults chosen from when a request is picked for one.
var AllFaults = []Fault{Drop, Reset, Truncate, Delay, Bad502, Bad503}

// Proxy is a running fault proxy. Its counters are safe to read while it runs.
type Proxy struct {
	URL    string // the proxy's base URL with the target's path, e.g. http://127.0.0.1:PORT/parse
	srv    *httptest.Server
	target *url.URL
	rate   float64
	delay  time.Duration
	mu     sync.Mutex
	rng    *rand.Rand
	counts map[Fault]int
	hc     *http.Client
	// Enabled can switch injection off (e.g. to count rows afterwards).
	enabled bool
	// faults are the faults chosen from (AllFaults unless Only narrowed them).
	faults []Fault
}

// New starts a proxy to target (a server URL such as http://127.0.0.1:1337/parse) that faults a share rate of
// requests (0..1), seeded with seed.
func New(target string, rate float64, seed uint64) (*Proxy, error) {
	u, err := url.Parse(target)
	if err != nil {
		return nil, fmt.Errorf("faultproxy: %w", err)
	}
	p := &Proxy{target: u, rate: rate, delay: 30 * time.Millisecond, rng: rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15)),
		counts: map[Fault]int{}, hc: &http.Client{}, enabled: true, faults: AllFaults}
	p.srv = httptest.NewServer(http.HandlerFunc(p.serve))
	p.URL = p.srv.URL + u.Path
	return p, nil
}

// Close stops the proxy.
func (p *Proxy) Close() { p.srv.Close() }

// Only narrows the faults a faulted request meets to faults (none given: AllFaults again), e.g. Drop and Reset:
// a request lost before the server saw it, or its answer lost after the server applied it.
func (p *Proxy) Only(faults ...Fault) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if len(faults) == 0 {
		faults = AllFaults
	}
	p.faults = append([]Fault(nil), faults...)
}

// SetEnabled turns injection on or off.
func (p *Proxy) SetEnabled(on bool) { p.mu.Lock(); p.enabled = on; p.mu.Unlock() }

// Counts returns how many requests met each fault (None included).
func (p *Proxy) Counts() map[Fault]int {
	p.mu.Lock()
	defer p.mu.Unlock()
	out := make(map[Fault]int, len(p.counts))
	for k, v := range p.counts {
		out[k] = v
	}
	return out
}

// Injected is the number of requests that met a fault.
func (p *Proxy) Injected() int {
	n := 0
	for f, c := range p.Counts() {
		if f != None {
			n += c
		}
	}
	return n
}

func (p *Proxy) pick() Fault {
	p.mu.Lock()
	defer p.mu.Unlock()
	f := None
	if p.enabled && p.rng.Float64() < p.rate {
		f = p.faults[p.rng.IntN(len(p.faults))]
	}
	p.counts[f]++
	return f
}

func (p *Proxy) serve(w http.ResponseWriter, r *http.Request) {
	f := p.pick()
	switch f {
	case Drop:
		hijackClose(w)
		return
	case Bad502, Bad503:
		code, _ := strconv.Atoi(string(f))
		w.WriteHeader(code)
		w.Write([]byte("<html>bad gateway</html>"))
		return
	}
	body, err := io.ReadAll(r.Body)
	if err != nil {
		hijackClose(w)
		return
	}
	out, err := http.NewRequestWithContext(r.Context(), r.Method, p.target.Scheme+"://"+p.target.Host+r.URL.RequestURI(), bytes.NewReader(body))
	if err != nil {
		w.WriteHeader(500)
		return
	}
	out.Header = r.Header.Clone()
	resp, err := p.hc.Do(out)
	if err != nil {
		hijackClose(w)
		return
	}
	defer resp.Body.Close()
	rb, err := io.ReadAll(resp.Body)
	if err != nil {
		hijackClose(w)
		return
	}
	switch f {
	case Reset:
		hijackClose(w)
		return
	case Truncate:
		hj, ok := w.(http.Hijacker)
		if !ok {
			return
		}
		conn, buf, err := hj.Hijack()
		if err != nil {
			return
		}
		fmt.Fprintf(buf, "HTTP/1.1 %d %s\r\nContent-Type: %s\r\nContent-Length: %d\r\n\r\n", resp.StatusCode, http.StatusText(resp.StatusCode), resp.Header.Get("Content-Type"), len(rb))
		buf.Write(rb[:len(rb)/2])
		buf.Flush()
		conn.Close()
		return
	case Delay:
		time.Sleep(p.delay)
	}
	for k, vs := range resp.Header {
		for _, v := range vs {
			w.Header().Add(k, v)
		}
	}
	w.WriteHeader(resp.StatusCode)
	w.Write(rb)
}

func hijackClose(w http.ResponseWriter) {
	hj, ok := w.(http.Hijacker)
	if !ok {
		return
	}
	conn, _, err := hj.Hijack()
	if err != nil {
		return
	}
	if tc, ok := conn.(*net.TCPConn); ok {
		tc.SetLinger(0) // a reset, not a clean close
	}
	conn.Close()
}
