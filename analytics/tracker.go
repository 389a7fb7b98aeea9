package analytics

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/c13f5054/moralis-go/client"
	"github.com/c13f5054/moralis-go/internal/httpx"
)

// DefaultTrackerTimeout bounds each usage or version request of a Tracker.
const DefaultTrackerTimeout = 5 * time.Second

// TrackerConfig configures a Tracker. The zero value is a disabled Tracker.
type TrackerConfig struct {
	// Enabled turns usage tracking and the version check on. Off by default: a disabled Tracker makes no request.
	Enabled bool
	// Endpoint is the URL the usage reports are POSTed to. Required when Enabled.
	Endpoint string
	// VersionURL is the URL a GET of which answers the latest SDK version, as JSON {"version": "1.2.3"} (also
	// accepted: {"latest": ...}, a JSON string, or plain text). Empty: CheckVersion does nothing.
	VersionURL string
	// Subdomain identifies the application's server (e.g. "abc123.usemoralis.com"); sent with every report.
	Subdomain string
	// CurrentVersion is the version compared with the latest (default client.Version).
	CurrentVersion string
	// Logger receives failures and the outdated-version notice. Nil: nothing is logged.
	Logger *slog.Logger
	// HTTPClient is used for the requests (nil: httpx's shared client).
	HTTPClient *http.Client
	// Timeout bounds each request (0 = DefaultTrackerTimeout). Requests are tried once, never retried.
	Timeout time.Duration
}

// Tracker sends usage reports and checks the SDK version, when enabled. Its methods never return an error and
// never panic on a network failure: failures are logged and otherwise ignored. Safe for concurrent use.
type Tracker struct {
	opts TrackerConfig
	http *httpx.Client
}

// NewTracker checks opts and makes a Tracker. When Enabled, Endpoint must be an absolute http(s) URL, and
// VersionURL too when set; a disabled Tracker accepts anything (it never uses them).
func NewTracker(opts TrackerConfig) (*Tracker, error) {
	if opts.CurrentVersion == "" {
		opts.CurrentVersion = client.Version
	}
	if opts.Timeout <= 0 {
		opts.Timeout = DefaultTrackerTimeout
	}
	if opts.Enabled {
		if err := checkURL("Endpoint", opts.Endpoint); err != nil {
			return nil, err
		}
		if opts.VersionURL != "" {
			if err := checkURL("VersionURL", opts.VersionURL); err != nil {
				return nil, err
			}
		}
	}
	return &Tracker{opts: opts, http: httpx.New(opts.HTTPClient, httpx.Policy{MaxAttempts: 1})}, nil
}

func checkURL(name, s string) error {
	u, err := url.Parse(s)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return fmt.Errorf("analytics: TrackerConfig.%s must be an absolute http(s) URL, got %q", name, s)
	}
	return nil
}

// Enabled reports whether the tracker sends anything.
func (t *Tracker) Enabled() bool { return t != nil && t.opts.Enabled }

// Usage is the body of a usage report.
type Usage struct {
	Subdomain string         `json:"subdomain"`
	Event     string         `json:"event"`
	Options   map[string]any `json:"options"`
	SDK       string         `json:"sdk"`
	Version   string         `json:"version"`
}

// TrackUsage POSTs {"subdomain", "event", "options", "sdk", "version"} to Endpoint, when enabled. It reports
// whether the endpoint accepted it (2xx); a failure is logged, never returned.
func (t *Tracker) TrackUsage(ctx context.Context, event string, options map[string]any) bool {
	if !t.Enabled() || ctx == nil {
		return false
	}
	if options == nil {
		options = map[string]any{}
	}
	body, err := json.Marshal(Usage{Subdomain: t.opts.Subdomain, Event: event, Options: options, SDK: "moralis-go", Version: t.opts.CurrentVersion})
	if err != nil {
		t.log("usage report not encodable", "event", event, "error", err)
		return false
	}
	ctx, cancel := context.WithTimeout(ctx, t.opts.Timeout)
	defer cancel()
	resp, err := t.http.Do(ctx, &httpx.Request{
		Method: http.MethodPost, URL: t.opts.Endpoint, Body: body, NoRetry: true,
		Header: http.Header{"Content-Type": {"application/json"}},
	})
	if err != nil {
		t.log("usage report failed", "event", event, "error", err)
		return false
	}
	if resp.Status < 200 || resp.Status > 299 {
		t.log("usage report refused", "event", event, "status", resp.Status)
		return false
	}
	return true
}

// VersionStatus is the result of a version check.
type VersionStatus struct {
	// Current is the running SDK version.
	Current string
	// Latest is the version the endpoint answered ("" when the check did not run or failed).
	Latest string
	// Outdated reports whether Latest is newer than Current.
	Outdated bool
}

// CheckVersion GETs VersionURL, when enabled and set, and compares its answer with CurrentVersion. An outdated
// SDK is logged at warn level. A failure is logged, and gives a status with an empty Latest.
func (t *Tracker) CheckVersion(ctx context.Context) VersionStatus {
	st := VersionStatus{}
	if t == nil {
		return st
	}
	st.Current = t.opts.CurrentVersion
	if !t.Enabled() || t.opts.VersionURL == "" || ctx == nil {
		return st
	}
	ctx, cancel := context.WithTimeout(ctx, t.opts.Timeout)
	defer cancel()
	resp, err := t.http.Do(ctx, &httpx.Request{Method: http.MethodGet, URL: t.opts.VersionURL, NoRetry: true,
		Header: http.Header{"Accept": {"application/json"}}})
	if err != nil {
		t.log("version check failed", "error", err)
		return st
	}
	if resp.Status != http.StatusOK {
		t.log("version check refused", "status", resp.Status)
		return st
	}
	latest, err := parseVersionBody(resp.Body)
	if err != nil {
		t.log("version check answer not understood", "error", err)
		return st
	}
	st.Latest = latest
	if c, ok := compareVersions(latest, st.Current); ok && c > 0 {
		st.Outdated = true
		if t.opts.Logger != nil {
			t.opts.Logger.Warn("a newer moralis-go version is available", "current", st.Current, "latest", latest)
		}
	}
	return st
}

func (t *Tracker) log(msg string, args ...any) {
	if t.opts.Logger != nil {
		t.opts.Logger.Warn("analytics: "+msg, args...)
	}
}

func parseVersionBody(b []byte) (string, error) {
	var obj map[string]any
	if json.Unmarshal(b, &obj) == nil {
		for _, k := range []string{"version", "latest", "latestVersion"} {
			if s, ok := obj[k].(string); ok && s != "" {
				return strings.TrimSpace(s), nil
			}
		}
		return "", errors.New("no version field")
	}
	var s string
	if json.Unmarshal(b, &s) == nil && s != "" {
		return strings.TrimSpace(s), nil
	}
	s = strings.TrimSpace(string(b))
	if s == "" || len(s) > 64 || strings.ContainsAny(s, " \n<{") {
		return "", errors.New("not a version")
	}
	return s, nil
}

// compareVersions compares dotted numeric versions, ignoring a leading non-digit prefix ("v1.2", "go1.5.5") and a
// pre-release suffix ("1.2.3-beta" counts as 1.2.3).
func compareVersions(a, b string) (int, bool) {
	pa, oka := versionParts(a)
	pb, okb := versionParts(b)
	if !oka || !okb {
		return 0, false
	}
	for i := 0; i < max(len(pa), len(pb)); i++ {
		var x, y int
		if i < len(pa) {
			x = pa[i]
		}
		if i < len(pb) {
			y = pb[i]
		}
		if x != y {
			if x < y {
				return -1, true
			}
			return 1, true
		}
	}
	return 0, true
}

func versionParts(v string) ([]int, bool) {
	v = strings.TrimLeftFunc(v, func(r rune) bool { return r < '0' || r > '9' })
	if i := strings.IndexAny(v, "-+ "); i >= 0 {
		v = v[:i]
	}
	if v == "" {
		return nil, false
	}
	var out []int
	for _, p := range strings.Split(v, ".") {
		n, err := strconv.Atoi(p)
		if err != nil {
			return nil, false
		}
		out = append(out, n)
	}
	return out, true
}
