package devstack

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"net"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// DirEnvVar names the environment variable that points Load at the stack's state directory
// (the .devstack directory holding env) or at a repository root that contains .devstack.
const DirEnvVar = "MORALIS_DEVSTACK_DIR"

// StateDirName is the name of the state directory up.sh creates at the repository root.
const StateDirName = ".devstack"

// Variable names in .devstack/env and in the environment.
const (
	VarServerURL    = "MORALIS_SERVER_URL"
	VarServerURL2   = "MORALIS_SERVER_URL_2"
	VarAppID        = "MORALIS_APP_ID"
	VarJSKey        = "MORALIS_JS_KEY"
	VarMasterKey    = "MORALIS_MASTER_KEY"
	VarLiveQueryURL = "MORALIS_LIVEQUERY_URL"
	VarMailFile     = "MORALIS_MAIL_FILE"
	VarPGURL        = "MORALIS_PG_URL"

	// The scaled topology (see DEPLOY.md): Redis, the second LiveQuery server, the balancer in front of
	// the two parse-servers, and the balancer in front of two endpoint instances with their reserved
	// addresses.
	VarLiveQueryURL2  = "MORALIS_LIVEQUERY_URL_2"
	VarRedisURL       = "MORALIS_REDIS_URL"
	VarLBURL          = "MORALIS_LB_URL"
	VarLBLiveQueryURL = "MORALIS_LB_LIVEQUERY_URL"
	VarEndpointLBURL  = "MORALIS_ENDPOINT_LB_URL"
	VarEndpointAddr1  = "MORALIS_ENDPOINT_ADDR_1"
	VarEndpointAddr2  = "MORALIS_ENDPOINT_ADDR_2"
)

// allVars lists every variable Load reads, in the order Environ writes them.
var allVars = []string{VarServerURL, VarServerURL2, VarAppID, VarJSKey, VarMasterKey, VarLiveQueryURL, VarMailFile,
	VarPGURL, VarLiveQueryURL2, VarRedisURL, VarLBURL, VarLBLiveQueryURL, VarEndpointLBURL, VarEndpointAddr1,
	VarEndpointAddr2}

// ErrNotRunning matches (with errors.Is) every error Load and Ping return.
var ErrNotRunning = errors.New("local stack not running")

// NotRunningError says why the local stack cannot be used. Its text is
// "local stack not running: run `make up` (<reason>)".
type NotRunningError struct {
	// Reason names what is missing, e.g. the env file searched for or an unset variable.
	Reason string
}

// Error implements error.
func (e *NotRunningError) Error() string {
	return "local stack not running: run `make up` (" + e.Reason + ")"
}

// Is reports whether target is ErrNotRunning.
func (e *NotRunningError) Is(target error) bool { return target == ErrNotRunning }

func notRunning(format string, args ...any) error {
	return &NotRunningError{Reason: fmt.Sprintf(format, args...)}
}

// Env describes a running local stack. The zero value is not usable; get one from Load.
type Env struct {
	// ServerURL is parse-server's URL including the mount path, e.g. http://127.0.0.1:41693/parse.
	ServerURL string
	// ServerURL2 is the second parse-server instance over the same database (same app id and keys,
	// its own port and LiveQuery server), for tests of several endpoint machines. Empty when the
	// env file comes from an older up.sh; see RequireServerURL2.
	ServerURL2 string
	// AppID is the application id (X-Parse-Application-Id, _ApplicationId).
	AppID string
	// JavaScriptKey is the client key (X-Parse-JavaScript-Key, _JavaScriptKey).
	JavaScriptKey string
	// MasterKey is the master key; it is accepted from 127.0.0.1 and ::1 only.
	MasterKey string
	// LiveQueryURL is the LiveQuery websocket, e.g. ws://127.0.0.1:41693/parse.
	LiveQueryURL string
	// MailFile is the file to which the server appends every e-mail as one JSON line.
	MailFile string
	// PGURL is the PostgreSQL database URL (postgres://postgres@127.0.0.1:PORT/moralis).
	PGURL string

	// The scaled topology. Every field is empty when the env file comes from an older up.sh; see
	// RequireScaled.

	// LiveQueryURL2 is the second instance's LiveQuery websocket. Both LiveQuery servers share the
	// pub/sub in Redis: a save through either instance reaches the subscribers of both.
	LiveQueryURL2 string
	// RedisURL is the stack's Redis (redis://127.0.0.1:PORT/0): LiveQuery's pub/sub, and the store of
	// the endpoints' shared limits.
	RedisURL string
	// LBURL is the load balancer (HAProxy) in front of both parse-servers, with the mount path, e.g.
	// http://127.0.0.1:41700/parse.
	LBURL string
	// LBLiveQueryURL is LiveQuery through the balancer (ws://127.0.0.1:PORT/parse).
	LBLiveQueryURL string
	// EndpointLBURL is the balancer in front of the two endpoint instances (http://127.0.0.1:PORT) that
	// up.sh starts on EndpointAddr1 and EndpointAddr2 (host:port): examples/authserver with its guards
	// in Redis (-redis), its nonces in the backend and the balancer's address as SIWE domain. The
	// balancer names the instance that answered in the X-Devstack-Endpoint header.
	EndpointLBURL                string
	EndpointAddr1, EndpointAddr2 string
}

// Load returns the running stack's settings. It reads .devstack/env from the directory named by
// MORALIS_DEVSTACK_DIR or, when that is unset, from the nearest directory at or above the working
// directory that has one; then each MORALIS_* environment variable that is set overrides the
// file's value. ServerURL, AppID, JavaScriptKey and MasterKey are required. The error, a
// *NotRunningError, names what is missing. Load does no network I/O (see Env.Ping).
func Load() (Env, error) {
	wd, err := os.Getwd()
	if err != nil {
		return Env{}, notRunning("cannot get the working directory: %v", err)
	}
	return load(wd, os.Getenv)
}

func load(wd string, getenv func(string) string) (Env, error) {
	vals := map[string]string{}
	file, where, err := findEnvFile(wd, getenv(DirEnvVar))
	if err != nil {
		return Env{}, err
	}
	if file != "" {
		if vals, err = parseEnvFile(file); err != nil {
			return Env{}, err
		}
	}
	for _, k := range allVars {
		if v := getenv(k); v != "" {
			vals[k] = v
		}
	}
	var missing []string
	for _, k := range []string{VarServerURL, VarAppID, VarJSKey, VarMasterKey} {
		if vals[k] == "" {
			missing = append(missing, k)
		}
	}
	if len(missing) > 0 {
		if file == "" {
			return Env{}, notRunning("%s; and %s not set", where, strings.Join(missing, ", "))
		}
		return Env{}, notRunning("%s lacks %s", file, strings.Join(missing, ", "))
	}
	for _, k := range []string{VarServerURL, VarServerURL2, VarLBURL, VarEndpointLBURL} {
		if k != VarServerURL && vals[k] == "" {
			continue // optional
		}
		if u, err := url.Parse(vals[k]); err != nil || u.Host == "" || (u.Scheme != "http" && u.Scheme != "https") {
			return Env{}, notRunning("%s %q is not an http(s) URL", k, vals[k])
		}
	}
	if v := vals[VarRedisURL]; v != "" {
		if u, err := url.Parse(v); err != nil || u.Host == "" || (u.Scheme != "redis" && u.Scheme != "rediss") {
			return Env{}, notRunning("%s %q is not a redis:// URL", VarRedisURL, v)
		}
	}
	for _, k := range []string{VarEndpointAddr1, VarEndpointAddr2} {
		if v := vals[k]; v != "" {
			if _, _, err := net.SplitHostPort(v); err != nil {
				return Env{}, notRunning("%s %q is not host:port", k, v)
			}
		}
	}
	return Env{
		ServerURL:     strings.TrimRight(vals[VarServerURL], "/"),
		ServerURL2:    strings.TrimRight(vals[VarServerURL2], "/"),
		AppID:         vals[VarAppID],
		JavaScriptKey: vals[VarJSKey],
		MasterKey:     vals[VarMasterKey],
		LiveQueryURL:  vals[VarLiveQueryURL],
		MailFile:      vals[VarMailFile],
		PGURL:         vals[VarPGURL],

		LiveQueryURL2:  vals[VarLiveQueryURL2],
		RedisURL:       vals[VarRedisURL],
		LBURL:          strings.TrimRight(vals[VarLBURL], "/"),
		LBLiveQueryURL: vals[VarLBLiveQueryURL],
		EndpointLBURL:  strings.TrimRight(vals[VarEndpointLBURL], "/"),
		EndpointAddr1:  vals[VarEndpointAddr1],
		EndpointAddr2:  vals[VarEndpointAddr2],
	}, nil
}

// findEnvFile returns the env file to read, or "" and a description of where it looked.
func findEnvFile(wd, dirVar string) (file, where string, err error) {
	if dirVar != "" {
		for _, c := range []string{filepath.Join(dirVar, "env"), filepath.Join(dirVar, StateDirName, "env")} {
			if st, err := os.Stat(c); err == nil && st.Mode().IsRegular() {
				return c, "", nil
			}
		}
		return "", "", notRunning("no env file in %s=%s or its %s", DirEnvVar, dirVar, StateDirName)
	}
	root := ""
	for dir := filepath.Clean(wd); ; dir = filepath.Dir(dir) {
		c := filepath.Join(dir, StateDirName, "env")
		if st, err := os.Stat(c); err == nil && st.Mode().IsRegular() {
			return c, "", nil
		}
		if root == "" {
			if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
				root = dir
			}
		}
		if filepath.Dir(dir) == dir {
			break
		}
	}
	if root != "" {
		return "", fmt.Sprintf("no %s found at %s or above", filepath.Join(StateDirName, "env"), root), nil
	}
	return "", fmt.Sprintf("no %s found above %s and no go.mod there", filepath.Join(StateDirName, "env"), wd), nil
}

// parseEnvFile reads KEY=VALUE lines; blank lines and # comments are skipped, a value may be
// wrapped in single or double quotes, and outside quotes a backslash escapes the next character.
func parseEnvFile(path string) (map[string]string, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, notRunning("cannot read %s: %v", path, err)
	}
	defer f.Close()
	vals := map[string]string{}
	sc := bufio.NewScanner(f)
	for n := 1; sc.Scan(); n++ {
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		line = strings.TrimPrefix(line, "export ")
		k, v, ok := strings.Cut(line, "=")
		if !ok || k == "" {
			return nil, notRunning("%s:%d is not KEY=VALUE", path, n)
		}
		vals[strings.TrimSpace(k)] = unquote(v)
	}
	if err := sc.Err(); err != nil {
		return nil, notRunning("cannot read %s: %v", path, err)
	}
	return vals, nil
}

func unquote(v string) string {
	if len(v) >= 2 && (v[0] == '\'' || v[0] == '"') && v[len(v)-1] == v[0] {
		return v[1 : len(v)-1]
	}
	var b strings.Builder
	for i := 0; i < len(v); i++ {
		if v[i] == '\\' && i+1 < len(v) {
			i++
		}
		b.WriteByte(v[i])
	}
	return b.String()
}

// Ping checks that something accepts TCP connections at ServerURL's host and port (and at
// ServerURL2's when it is set), so a stale .devstack/env (after `make down`) gives a clear error
// instead of "connection refused" later. It returns a *NotRunningError when nothing listens or ctx
// ends first.
func (e Env) Ping(ctx context.Context) error {
	if err := ping(ctx, VarServerURL, e.ServerURL); err != nil {
		return err
	}
	if e.ServerURL2 != "" {
		return ping(ctx, VarServerURL2, e.ServerURL2)
	}
	return nil
}

func ping(ctx context.Context, name, serverURL string) error {
	u, err := url.Parse(serverURL)
	if err != nil || u.Host == "" {
		return notRunning("%s %q is not a URL", name, serverURL)
	}
	host := u.Host
	if u.Port() == "" {
		port := "80"
		if u.Scheme == "https" {
			port = "443"
		}
		host = net.JoinHostPort(u.Hostname(), port)
	}
	var d net.Dialer
	conn, err := d.DialContext(ctx, "tcp", host)
	if err != nil {
		return notRunning("nothing answers at %s: %v", serverURL, err)
	}
	return conn.Close()
}

// Environ returns the settings as MORALIS_*=value strings, for the environment of a child
// process (exec.Cmd.Env); empty values are left out.
func (e Env) Environ() []string {
	var out []string
	for _, kv := range [][2]string{
		{VarServerURL, e.ServerURL}, {VarServerURL2, e.ServerURL2}, {VarAppID, e.AppID}, {VarJSKey, e.JavaScriptKey},
		{VarMasterKey, e.MasterKey}, {VarLiveQueryURL, e.LiveQueryURL}, {VarMailFile, e.MailFile},
		{VarPGURL, e.PGURL}, {VarLiveQueryURL2, e.LiveQueryURL2}, {VarRedisURL, e.RedisURL}, {VarLBURL, e.LBURL},
		{VarLBLiveQueryURL, e.LBLiveQueryURL}, {VarEndpointLBURL, e.EndpointLBURL},
		{VarEndpointAddr1, e.EndpointAddr1}, {VarEndpointAddr2, e.EndpointAddr2},
	} {
		if kv[1] != "" {
			out = append(out, kv[0]+"="+kv[1])
		}
	}
	return out
}

// MustLoad is Load plus Ping (with a 3 s limit) for tests: when the stack is not usable it calls
// tb.Fatalf with the reason. It never skips: a test that needs the stack fails without it.
func MustLoad(tb testing.TB) Env {
	tb.Helper()
	env, err := Load()
	if err != nil {
		tb.Fatalf("%v", err)
		return Env{}
	}
	ctx, cancel := context.WithTimeout(tb.Context(), 3*time.Second)
	defer cancel()
	if err := env.Ping(ctx); err != nil {
		tb.Fatalf("%v", err)
		return Env{}
	}
	return env
}

// RequireServerURL2 is for tests that need the second parse-server instance: it returns
// ServerURL2, or calls tb.Fatalf (never skips) when the env file has none, which means the stack
// was started by an older up.sh.
func (e Env) RequireServerURL2(tb testing.TB) string {
	tb.Helper()
	if e.ServerURL2 == "" {
		tb.Fatalf("%v", notRunning("%s is not set: run `make up` again to start the second parse-server instance", VarServerURL2))
		return ""
	}
	return e.ServerURL2
}

// RequireScaled is for tests of the scaled topology: it calls tb.Fatalf (never skips) when the env
// file lacks Redis, the balancer or the second LiveQuery server, which means the stack was started
// by an older up.sh.
func (e Env) RequireScaled(tb testing.TB) {
	tb.Helper()
	var missing []string
	for _, kv := range [][2]string{{VarRedisURL, e.RedisURL}, {VarLBURL, e.LBURL}, {VarLBLiveQueryURL, e.LBLiveQueryURL},
		{VarLiveQueryURL2, e.LiveQueryURL2}, {VarServerURL2, e.ServerURL2}} {
		if kv[1] == "" {
			missing = append(missing, kv[0])
		}
	}
	if len(missing) > 0 {
		tb.Fatalf("%v", notRunning("%s not set: run `make up` again to start the scaled topology", strings.Join(missing, ", ")))
	}
}
