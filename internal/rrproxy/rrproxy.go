package rrproxy

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/http/httputil"
	"net/url"
	"strconv"
	"sync"
	"sync/atomic"
	"time"
)

// TargetHeader is the response header in which the proxy names the target that answered: its index
// in the list given to New ("0", "1", ...).
const TargetHeader = "X-Rrproxy-Target"

// Proxy is a started round-robin reverse proxy. Make one with New and stop it with Close. Its
// methods are safe for concurrent use.
type Proxy struct {
	// URL is the proxy's base URL, http://127.0.0.1:PORT, with no trailing slash.
	URL string

	targets   []*url.URL
	next      atomic.Uint64
	counts    []atomic.Int64
	failures  atomic.Int64
	srv       *http.Server
	transport *http.Transport
	done      chan struct{}
	closeOnce sync.Once
}

// New starts a proxy on 127.0.0.1 (a free port) that forwards each request to the next of targets
// in turn. Each target is an absolute http(s) URL; a path in it is prefixed to the request's path
// (target http://h/api and request /x go to http://h/api/x). It fails when targets is empty, a
// target is not an http(s) URL with a host, or no port can be opened.
func New(targets ...string) (*Proxy, error) {
	if len(targets) == 0 {
		return nil, errors.New("rrproxy: no targets")
	}
	p := &Proxy{counts: make([]atomic.Int64, len(targets)), done: make(chan struct{})}
	for i, t := range targets {
		u, err := url.Parse(t)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			return nil, fmt.Errorf("rrproxy: target %d %q is not an http(s) URL with a host", i, t)
		}
		p.targets = append(p.targets, u)
	}
	p.transport = &http.Transport{
		Proxy:               nil, // never an environment proxy: targets are local
		DialContext:         (&net.Dialer{Timeout: 5 * time.Second}).DialContext,
		MaxIdleConnsPerHost: 64,
		IdleConnTimeout:     30 * time.Second,
	}
	rp := &httputil.ReverseProxy{
		Rewrite: func(r *httputil.ProxyRequest) {
			i := r.In.Context().Value(targetKey{}).(int)
			r.SetURL(p.targets[i])
			r.Out.Host = r.In.Host
			r.SetXForwarded()
		},
		Transport: p.transport,
		ModifyResponse: func(resp *http.Response) error {
			i := resp.Request.Context().Value(targetKey{}).(int)
			resp.Header.Set(TargetHeader, strconv.Itoa(i))
			return nil
		},
		ErrorHandler: func(w http.ResponseWriter, r *http.Request, err error) {
			p.failures.Add(1)
			i, _ := r.Context().Value(targetKey{}).(int)
			w.Header().Set(TargetHeader, strconv.Itoa(i))
			http.Error(w, "rrproxy: target "+strconv.Itoa(i)+" did not answer: "+err.Error(), http.StatusBadGateway)
		},
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, fmt.Errorf("rrproxy: listen: %w", err)
	}
	p.URL = "http://" + ln.Addr().String()
	p.srv = &http.Server{
		Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			i := int((p.next.Add(1) - 1) % uint64(len(p.targets)))
			p.counts[i].Add(1)
			rp.ServeHTTP(w, r.WithContext(context.WithValue(r.Context(), targetKey{}, i)))
		}),
		ReadHeaderTimeout: 10 * time.Second,
	}
	go func() {
		defer close(p.done)
		_ = p.srv.Serve(ln) // returns http.ErrServerClosed after Close
	}()
	return p, nil
}

type targetKey struct{}

// Counts returns how many requests the proxy has sent to each target so far, in the order of the
// targets given to New.
func (p *Proxy) Counts() []int64 {
	out := make([]int64, len(p.counts))
	for i := range p.counts {
		out[i] = p.counts[i].Load()
	}
	return out
}

// Failures returns how many requests got 502 because their target did not answer.
func (p *Proxy) Failures() int64 { return p.failures.Load() }

// Targets returns the target URLs, in order.
func (p *Proxy) Targets() []string {
	out := make([]string, len(p.targets))
	for i, u := range p.targets {
		out[i] = u.String()
	}
	return out
}

// Close stops the proxy: it stops listening, closes every connection (requests in flight are cut
// off) and the idle connections to the targets. It is safe to call more than once.
func (p *Proxy) Close() error {
	var err error
	p.closeOnce.Do(func() {
		err = p.srv.Close()
		<-p.done
		p.transport.CloseIdleConnections()
	})
	return err
}
