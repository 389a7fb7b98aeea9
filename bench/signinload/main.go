// Command signinload is the sign-in load run of `make bench`: wallet sign-ins at a fixed offered rate through the
// hardened endpoint (authserver.NewServer + authserver.Handler at their DEFAULT limits) over the real local backend, the two
// parse-server instances behind a round-robin proxy. Each simulated browser has its own loopback address
// (127.0.1.x), as real users have their own, and its own wallet; it signs in once a second (GET /message, sign,
// POST /signin), which the default per-client limits allow for about ten seconds. Arrivals are open-loop: a slow
// answer does not slow the next start. Afterwards every accepted sign-in is replayed once: a nonce must never sign
// in twice.
//
// -shape picks the mix: "steady" (default) signs every browser's wallet in twice before the measured load (new,
// then returning; from other addresses, not measured), so the load meets returning wallets and a warm server, and one
// sign-in in ten, spread evenly, is by a wallet never seen (a first sign-in, its user created); "burst" starts
// with every wallet new, all in the first second, which measures a sign-up stampede more than a steady rate.
//
// -target picks the endpoint: "inproc" (default) the handler in this process, as above; "haproxy" the stack's two
// endpoint instances (examples/authserver on MORALIS_ENDPOINT_ADDR_1/2, their guards in Redis) behind the stack's
// HAProxy (MORALIS_ENDPOINT_LB_URL), which names each browser to them (PROXY protocol). Each run takes its
// browsers' addresses from a random 127.N.0.0/16, so a run does not find the limits of an earlier one in Redis. A run longer than 10 s has more browsers, each signing in once every
// seconds/10 s (100/s for 60 s: 600 browsers, 10 sign-ins each), as the default per-client limits allow.
//
// -busy N runs N CPU-bound neighbours (this program, spinning) beside the load, as other work on a shared machine
// would: the sign-ins must come slower, never fail. The CPU the stack's processes used during the load is reported
// per sign-in, each group apart: parse-server, PostgreSQL, the endpoints (the stack's two, or this process for
// "inproc"), HAProxy.
//
// Afterwards it deletes what the run made on the backend (its wallets' users, their sessions and session records),
// so that each run starts from the backend it found.
//
// It prints one summary line per run and writes the figures as JSON. Run it through `make bench` (or
// `go run ./bench/signinload -rate 100 -seconds 10`) with the local stack up.
package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"net"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"runtime"
	"runtime/pprof"
	"sort"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/c13f5054/moralis-go/auth"
	"github.com/c13f5054/moralis-go/authserver"
	"github.com/c13f5054/moralis-go/client"
	"github.com/c13f5054/moralis-go/internal/devstack"
	"github.com/c13f5054/moralis-go/internal/rrproxy"
	"github.com/c13f5054/moralis-go/signer"
)

type summary struct {
	At              string         `json:"at"`
	Target          string         `json:"target"`
	Shape           string         `json:"shape"`
	OfferedPerSec   int            `json:"offeredPerSec"`
	Seconds         int            `json:"seconds"`
	Attempted       int            `json:"attempted"`
	Succeeded       int            `json:"succeeded"`
	Statuses        map[string]int `json:"statuses"`
	AchievedPerSec  float64        `json:"achievedPerSec"`
	P50MS           float64        `json:"p50Ms"`
	P90MS           float64        `json:"p90Ms"`
	P99MS           float64        `json:"p99Ms"`
	MaxMS           float64        `json:"maxMs"`
	DistinctNonces  int            `json:"distinctNonces"`
	ReplaysAccepted int            `json:"replaysAccepted"`
	// BackendCPUMSPerSignIn is the CPU time (user + system) the stack's parse-server processes used during the
	// load, divided by the sign-ins that succeeded: 2,000 ms over it is the rate two quiet cores can serve, as the
	// backend is the limit. -1 when the processes could not be read (another target's stack, no /proc).
	BackendCPUMSPerSignIn float64 `json:"backendCpuMsPerSignIn"`
	// CPUMSPerSignIn is the same for each group of the stack's processes: "parse-server", "postgres" (the server
	// and its backends, those that ended during the load included), "endpoints" (the stack's two instances, or this
	// process with -target inproc, the load generator included), "load generator" (this process, for the other
	// targets), "haproxy", "redis".
	CPUMSPerSignIn map[string]float64 `json:"cpuMsPerSignIn"`
	// Busy is -busy: the CPU-bound neighbours that ran beside the load.
	Busy int `json:"busy"`
	// LoadAverage is the machine's one-minute load average at the end of the load (-1: unknown).
	LoadAverage float64 `json:"loadAverage"`
}

type outcome struct {
	status string
	ms     float64
	msgMS  float64 // of ms, the GET /message
	at     time.Time
	isNew  bool // a wallet never seen
	nonce  string
	body   []byte
	client int
}

// perBrowser is how many sign-ins one browser makes in a run at most: 20 requests, within the default sign-in limit's
// burst, and 10 nonces, within the nonce quota.
const perBrowser = 10

func main() {
	if len(os.Args) == 2 && os.Args[1] == spinArg {
		spin()
	}
	rate := flag.Int("rate", 100, "sign-ins started per second (one simulated browser each)")
	seconds := flag.Int("seconds", 10, "how long to offer the load")
	out := flag.String("out", "bench/results", "folder for signin-load.json (signin-load-TARGET.json for the other targets, -burst added for that shape)")
	target := flag.String("target", "inproc", `the endpoint: "inproc" or "haproxy" (see the package doc)`)
	flag.StringVar(&shape, "shape", "steady", `"steady": every browser's wallet signed in twice before the measured load (new, then returning; not measured), and during it one sign-in in ten, spread evenly, by a wallet never seen; "burst": every wallet new in the first second`)
	cpuProfile := flag.String("cpuprofile", "", "write this process's CPU profile (the load generator and, with -target inproc, the endpoint) to this file")
	flag.IntVar(&busy, "busy", 0, "CPU-bound neighbours to run beside the load (0-8)")
	flag.StringVar(&tracePath, "trace", "", "write each sign-in (start, status, new wallet, GET /message and total ms) to this CSV file")
	flag.Parse()
	if *cpuProfile != "" {
		f, err := os.Create(*cpuProfile)
		if err == nil {
			err = pprof.StartCPUProfile(f)
		}
		if err != nil {
			fmt.Fprintln(os.Stderr, "signinload:", err)
			os.Exit(1)
		}
		defer pprof.StopCPUProfile()
	}
	if shape != "steady" && shape != "burst" {
		fmt.Fprintln(os.Stderr, "signinload: -shape must be steady or burst")
		os.Exit(2)
	}
	if err := run(*rate, *seconds, *out, *target); err != nil {
		pprof.StopCPUProfile()
		fmt.Fprintln(os.Stderr, "signinload:", err)
		os.Exit(1)
	}
}

// origin is the Origin the browsers send with POST /signin: the endpoint's own (its URI's).
var origin = "http://127.0.0.1"

// tracePath is -trace: the CSV file of every sign-in, or "".
var tracePath string

// shape is -shape: how new and returning wallets mix.
var shape = "steady"

// busy is -busy: CPU-bound neighbours beside the load.
var busy int

// newEvery is how often, in the steady shape, a sign-in is a new wallet's (one in newEvery).
const newEvery = 10

func run(rate, seconds int, outDir, target string) (err error) {
	if rate < 1 || rate > 250 || seconds < 1 || seconds > 60 || busy < 0 || busy > 8 {
		return fmt.Errorf("rate must be 1..250, seconds 1..60 and busy 0..8")
	}
	env, err := devstack.Load()
	if err != nil {
		return err
	}
	var base string
	switch target {
	case "inproc":
		b, stop, err := inProcess(env)
		if err != nil {
			return err
		}
		defer stop()
		base = b
	case "haproxy":
		// The browsers stand in for machines of their own: this process schedules its goroutines on one core, so
		// that its threads do not spin for work on the cores the stack's processes share (the stack's endpoint
		// instances run so too: up.sh).
		runtime.GOMAXPROCS(1)
		if env.EndpointLBURL == "" {
			return fmt.Errorf("the stack's endpoint instances are not in .devstack/env: run make up")
		}
		origin = env.EndpointLBURL // the instances' SIWE URI
		base = env.EndpointLBURL + "/auth"
	default:
		return fmt.Errorf("unknown -target %q", target)
	}
	net2 := byte(10 + rand.IntN(240))
	browserAt := func(third, i int) *http.Client {
		local := &net.TCPAddr{IP: net.IPv4(127, net2, byte(third), 1+byte(i%250))}
		if target == "inproc" {
			local.IP = net.IPv4(127, 0, 1+byte(third), 1+byte(i%250))
		}
		tr := &http.Transport{DialContext: (&net.Dialer{LocalAddr: local, Timeout: 5 * time.Second}).DialContext, MaxIdleConnsPerHost: 2}
		return &http.Client{Transport: tr, Timeout: 30 * time.Second}
	}
	period := (seconds + perBrowser - 1) / perBrowser // seconds between one browser's sign-ins
	browsers := make([]*http.Client, rate*period)
	wallets := make([]*signer.Key, rate*period)
	for i := range browsers {
		browsers[i] = browserAt(i/250, i)
		if wallets[i], err = signer.GenerateKey(); err != nil {
			return err
		}
	}
	// What the run makes on the backend is deleted however it ends (a failed warm-up has made users too), after
	// the neighbours stopped.
	var made []*signer.Key
	defer func() { err = errors.Join(err, cleanUp(env, append(wallets, made...))) }()
	if shape == "steady" {
		// Each wallet signs in twice before the load, from addresses of its own (the browsers' limits stay whole),
		// once as a new wallet (its user created, eight at a time), once as a returning one (32 at a time). The load
		// then meets returning wallets, as a running app does, and a server that has run both kinds of sign-in (a
		// server just started compiles its code as it goes: the first returning sign-ins cost several times more)
		// with its database connections open: the second round's concurrency opens every connection of the
		// parse-servers' pools (ten each), which a stack just started would otherwise open, each a PostgreSQL
		// backend with cold caches, in the load's first burst.
		warm := func(i int) *http.Client { return browserAt(100+i/250, i) }
		if err := register(base, wallets, warm, 8); err != nil {
			return err
		}
		if err := register(base, wallets, warm, 32); err != nil {
			return err
		}
	}
	if busy > 0 {
		stop, err := neighbours(busy)
		if err != nil {
			return err
		}
		defer stop()
	}
	return load(rate, seconds, outDir, target, base, browsers, wallets, &made)
}

// register signs each wallet in once through the endpoint (not measured), from browser(i), parallel at a time.
func register(base string, wallets []*signer.Key, browser func(i int) *http.Client, parallel int) error {
	sem := make(chan struct{}, parallel)
	errs := make(chan error, len(wallets))
	for i, w := range wallets {
		sem <- struct{}{}
		go func() {
			defer func() { <-sem }()
			hc := browser(i)
			// Its connection is closed after: left idle (60 s at the endpoint's default IdleTimeout), the warm-up's
			// connections and the load's passed the endpoint's MaxConns (1,024) and the next were closed unanswered.
			defer hc.CloseIdleConnections()
			if r := signIn(context.Background(), hc, base, w, i); r.status != "200" {
				errs <- fmt.Errorf("registering wallet %d: %s", i, r.status)
			}
		}()
	}
	for range cap(sem) {
		sem <- struct{}{}
	}
	close(errs)
	return <-errs // nil when none failed
}

// inProcess serves the hardened endpoint in this process over both parse-servers behind a round-robin proxy,
// and returns its base URL.
func inProcess(env devstack.Env) (string, func(), error) {
	// The proxy forwards to each instance's origin; the client keeps the mount path in its server URL.
	var targets []string
	for _, s := range []string{env.ServerURL, env.ServerURL2} {
		if u, err := url.Parse(s); err == nil && s != "" {
			targets = append(targets, u.Scheme+"://"+u.Host)
		}
	}
	lb, err := rrproxy.New(targets...)
	if err != nil {
		return "", nil, err
	}
	u, _ := url.Parse(env.ServerURL)
	backendURL := lb.URL + u.Path
	be, err := authserver.NewClientBackend(authserver.BackendConfig{Client: client.Config{ServerURL: backendURL, AppID: env.AppID,
		JavaScriptKey: env.JavaScriptKey, MasterKey: env.MasterKey}, Flow: auth.Options{NoAddressObjects: true}})
	if err != nil {
		lb.Close()
		return "", nil, err
	}
	h, err := authserver.NewHandler(be, authserver.Config{AppID: env.AppID, Domain: "127.0.0.1", URI: "http://127.0.0.1/", ChainID: 1})
	if err != nil {
		lb.Close()
		return "", nil, err
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		lb.Close()
		return "", nil, err
	}
	srv, err := authserver.NewServer(h, authserver.ServerConfig{})
	if err != nil {
		lb.Close()
		ln.Close()
		return "", nil, err
	}
	go srv.Serve(ln)
	return "http://" + ln.Addr().String(), func() { srv.Close(); lb.Close() }, nil
}

// load offers rate sign-ins a second for seconds at base, one browser (and wallet) each, then replays them.
// The wallets never seen that it signs in are added to made.
func load(rate, seconds int, outDir, target, base string, browsers []*http.Client, wallets []*signer.Key, made *[]*signer.Key) error {
	ctx := context.Background()
	groups := stackGroups(target)
	cpu0 := make([]float64, len(groups))
	for i, g := range groups {
		cpu0[i] = g.cpu()
	}
	period := len(browsers) / rate
	results := make(chan outcome, rate*seconds)
	var wg sync.WaitGroup
	start := time.Now()
	for k := 0; k < seconds; k++ {
		for i := 0; i < rate; i++ {
			at := start.Add(time.Duration(k)*time.Second + time.Duration(i)*time.Second/time.Duration(rate))
			time.Sleep(time.Until(at))
			b := (k%period)*rate + i // browser b signs in every period seconds
			w := wallets[b]
			if shape == "steady" && (k*rate+i)%newEvery == newEvery-1 {
				// A wallet never seen: a first sign-in (the user created), spread evenly through the load.
				nw, err := signer.GenerateKey()
				if err != nil {
					return err
				}
				w = nw
				*made = append(*made, nw)
			}
			isNew := w != wallets[b]
			wg.Add(1)
			go func(b int) {
				defer wg.Done()
				o := signIn(ctx, browsers[b], base, w, b)
				o.isNew = isNew
				results <- o
			}(b)
		}
	}
	wg.Wait()
	elapsed := time.Since(start)
	close(results)
	cpuUsed := make([]float64, len(groups))
	for i, g := range groups {
		cpuUsed[i] = g.cpu() - cpu0[i]
	}

	s := summary{At: time.Now().UTC().Format(time.RFC3339), Target: target, Shape: shape, OfferedPerSec: rate, Seconds: seconds,
		Busy: busy, Statuses: map[string]int{}, BackendCPUMSPerSignIn: -1, CPUMSPerSignIn: map[string]float64{},
		LoadAverage: loadAverage()}
	var lat []float64
	nonces := map[string]bool{}
	var accepted []outcome
	var trace *os.File
	if tracePath != "" {
		var err error
		if trace, err = os.Create(tracePath); err != nil {
			return err
		}
		defer trace.Close()
		fmt.Fprintf(trace, "# load started at %s\n", start.UTC().Format(time.RFC3339Nano))
		fmt.Fprintln(trace, "startMs,status,new,messageMs,totalMs")
	}
	for r := range results {
		if trace != nil && !r.at.IsZero() {
			fmt.Fprintf(trace, "%.1f,%s,%t,%.1f,%.1f\n", float64(r.at.Sub(start).Microseconds())/1000, r.status, r.isNew, r.msgMS, r.ms)
		}
		s.Attempted++
		s.Statuses[r.status]++
		if r.status == "200" {
			s.Succeeded++
			lat = append(lat, r.ms)
			nonces[r.nonce] = true
			accepted = append(accepted, r)
		}
	}
	s.DistinctNonces = len(nonces)
	var cpuLine []string
	for i, g := range groups {
		if g.err != nil {
			fmt.Fprintf(os.Stderr, "signinload: %s CPU not measured: %v\n", g.name, g.err)
			continue
		}
		if s.Succeeded > 0 {
			v := math.Round(cpuUsed[i]/float64(s.Succeeded)*10) / 10
			s.CPUMSPerSignIn[g.name] = v
			cpuLine = append(cpuLine, fmt.Sprintf("%s %.1f", g.name, v))
		}
	}
	if v, ok := s.CPUMSPerSignIn["parse-server"]; ok {
		s.BackendCPUMSPerSignIn = v
	}
	s.AchievedPerSec = math.Round(float64(s.Succeeded)/elapsed.Seconds()*10) / 10
	sort.Float64s(lat)
	s.P50MS, s.P90MS, s.P99MS = pct(lat, 50), pct(lat, 90), pct(lat, 99)
	if len(lat) > 0 {
		s.MaxMS = lat[len(lat)-1]
	}
	// Every accepted sign-in, replayed once from its own browser after its limits refilled a little: a nonce
	// must never be accepted twice.
	time.Sleep(3 * time.Second)
	for _, r := range accepted {
		resp, err := post(ctx, browsers[r.client], base+"/signin", r.body)
		if err == nil && resp == http.StatusOK {
			s.ReplaysAccepted++
		}
	}
	line, _ := json.Marshal(s)
	fmt.Printf("signin-load [%s, %s, %d busy neighbours]: offered %d/s for %d s: %d of %d signed in (%.1f/s), %d failed, p50 %.0f ms, p90 %.0f ms, p99 %.0f ms, max %.0f ms; statuses %v; %d distinct nonces; replays accepted %d; CPU ms per sign-in: %s; load average %.1f\n",
		target, shape, busy, rate, seconds, s.Succeeded, s.Attempted, s.AchievedPerSec, s.Attempted-s.Succeeded, s.P50MS, s.P90MS, s.P99MS, s.MaxMS, s.Statuses, s.DistinctNonces, s.ReplaysAccepted,
		strings.Join(cpuLine, ", "), s.LoadAverage)
	if err := os.MkdirAll(outDir, 0o755); err != nil {
		return err
	}
	name := "signin-load"
	if target != "inproc" {
		name += "-" + target
	}
	if shape != "steady" {
		name += "-" + shape
	}
	if busy > 0 {
		name += fmt.Sprintf("-busy%d", busy)
	}
	name += ".json"
	if err := os.WriteFile(filepath.Join(outDir, name), append(line, '\n'), 0o644); err != nil {
		return err
	}
	if s.ReplaysAccepted > 0 || s.DistinctNonces != s.Succeeded {
		return fmt.Errorf("a nonce signed in twice: %s", line)
	}
	if s.Succeeded == 0 {
		return fmt.Errorf("no sign-in succeeded: %s", line)
	}
	return nil
}

// signIn runs one browser sign-in: GET /message, sign, POST /signin; the latency is the whole of it.
func signIn(ctx context.Context, hc *http.Client, base string, w *signer.Key, i int) outcome {
	t0 := time.Now()
	req, _ := http.NewRequestWithContext(ctx, http.MethodGet, base+"/message?chain=evm&address="+url.QueryEscape(strings.ToLower(w.Address().Hex())), nil)
	resp, err := hc.Do(req)
	if err != nil {
		return outcome{status: "message " + errClass(err), client: i}
	}
	var m struct{ Message, Nonce string }
	err = json.NewDecoder(resp.Body).Decode(&m)
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK || err != nil {
		return outcome{status: fmt.Sprintf("message %d", resp.StatusCode), client: i}
	}
	msgMS := float64(time.Since(t0).Microseconds()) / 1000
	sig, err := w.SignMessage(ctx, []byte(m.Message))
	if err != nil {
		return outcome{status: "sign error", client: i}
	}
	body, _ := json.Marshal(map[string]string{"chain": "evm", "address": strings.ToLower(w.Address().Hex()), "message": m.Message, "signature": fmt.Sprintf("0x%x", sig)})
	status, err := post(ctx, hc, base+"/signin", body)
	if err != nil {
		return outcome{status: "signin " + errClass(err), client: i}
	}
	return outcome{status: fmt.Sprint(status), ms: float64(time.Since(t0).Microseconds()) / 1000, msgMS: msgMS, at: t0,
		nonce: m.Nonce, body: body, client: i}
}

func post(ctx context.Context, hc *http.Client, u string, body []byte) (int, error) {
	req, _ := http.NewRequestWithContext(ctx, http.MethodPost, u, bytes.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Origin", origin)
	resp, err := hc.Do(req)
	if err != nil {
		return 0, err
	}
	io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	return resp.StatusCode, nil
}

// errClass names the kind of a request's failure for the statuses: "timeout", "reset", "refused", "eof" or "error".
func errClass(err error) string {
	var ne net.Error
	switch {
	case errors.As(err, &ne) && ne.Timeout():
		return "timeout"
	case errors.Is(err, syscall.ECONNRESET):
		return "reset"
	case errors.Is(err, syscall.ECONNREFUSED):
		return "refused"
	case errors.Is(err, io.EOF), errors.Is(err, io.ErrUnexpectedEOF):
		return "eof"
	}
	return "error"
}

func pct(sorted []float64, p float64) float64 {
	if len(sorted) == 0 {
		return 0
	}
	i := int(math.Ceil(p/100*float64(len(sorted)))) - 1
	return sorted[max(i, 0)]
}
