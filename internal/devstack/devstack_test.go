package devstack

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

const sampleEnv = `# written by internal/devstack/up.sh
MORALIS_SERVER_URL=http://127.0.0.1:41693/parse
MORALIS_SERVER_URL_2=http://127.0.0.1:41694/parse/
MORALIS_APP_ID=appf98dfec167ad
MORALIS_JS_KEY=jsc6b22648f7cb0e3ef7274a34
MORALIS_MASTER_KEY='mk 2982'
MORALIS_LIVEQUERY_URL=ws://127.0.0.1:41693/parse
MORALIS_MAIL_FILE=/tmp/my\ repo/.devstack/mail.jsonl
export MORALIS_PG_URL="postgres://postgres@127.0.0.1:37419/moralis"
`

// repo makes a temporary repository root with go.mod, an optional .devstack/env and a nested
// package directory, and returns (root, nested dir).
func repo(t *testing.T, env string) (string, string) {
	t.Helper()
	root := t.TempDir()
	if err := os.WriteFile(filepath.Join(root, "go.mod"), []byte("module example.com/x\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if env != "" {
		if err := os.MkdirAll(filepath.Join(root, StateDirName), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(root, StateDirName, "env"), []byte(env), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	nested := filepath.Join(root, "client", "sub")
	if err := os.MkdirAll(nested, 0o755); err != nil {
		t.Fatal(err)
	}
	return root, nested
}

func noEnv(string) string { return "" }

func TestLoadFindsEnvFileAboveWorkingDir(t *testing.T) {
	_, nested := repo(t, sampleEnv)
	got, err := load(nested, noEnv)
	if err != nil {
		t.Fatalf("load: %v", err)
	}
	want := Env{
		ServerURL:     "http://127.0.0.1:41693/parse",
		ServerURL2:    "http://127.0.0.1:41694/parse",
		AppID:         "appf98dfec167ad",
		JavaScriptKey: "jsc6b22648f7cb0e3ef7274a34",
		MasterKey:     "mk 2982",
		LiveQueryURL:  "ws://127.0.0.1:41693/parse",
		MailFile:      "/tmp/my repo/.devstack/mail.jsonl",
		PGURL:         "postgres://postgres@127.0.0.1:37419/moralis",
	}
	if got != want {
		t.Fatalf("load = %+v\nwant   %+v", got, want)
	}
}

func TestLoadEnvironmentOverridesFile(t *testing.T) {
	_, nested := repo(t, sampleEnv)
	over := map[string]string{VarServerURL: "http://127.0.0.1:9/parse/", VarMasterKey: "other"}
	got, err := load(nested, func(k string) string { return over[k] })
	if err != nil {
		t.Fatalf("load: %v", err)
	}
	if got.ServerURL != "http://127.0.0.1:9/parse" || got.MasterKey != "other" || got.AppID != "appf98dfec167ad" {
		t.Fatalf("overrides not applied: %+v", got)
	}
}

func TestLoadHonoursDirVariable(t *testing.T) {
	root, _ := repo(t, sampleEnv)
	elsewhere := t.TempDir()
	for _, dir := range []string{root, filepath.Join(root, StateDirName)} {
		got, err := load(elsewhere, func(k string) string {
			if k == DirEnvVar {
				return dir
			}
			return ""
		})
		if err != nil {
			t.Fatalf("load with %s=%s: %v", DirEnvVar, dir, err)
		}
		if got.AppID != "appf98dfec167ad" {
			t.Fatalf("load with %s=%s: AppID %q", DirEnvVar, dir, got.AppID)
		}
	}
	_, err := load(root, func(k string) string {
		if k == DirEnvVar {
			return elsewhere
		}
		return ""
	})
	if !errors.Is(err, ErrNotRunning) || !strings.Contains(err.Error(), elsewhere) {
		t.Fatalf("empty %s: err = %v", DirEnvVar, err)
	}
}

func TestLoadWithoutEnvFileNamesWhatIsMissing(t *testing.T) {
	root, nested := repo(t, "")
	_, err := load(nested, noEnv)
	if err == nil {
		t.Fatal("load without env file succeeded")
	}
	var nr *NotRunningError
	if !errors.As(err, &nr) || !errors.Is(err, ErrNotRunning) {
		t.Fatalf("err %T %v is not a NotRunningError", err, err)
	}
	msg := err.Error()
	for _, want := range []string{"local stack not running: run `make up` (", root, VarServerURL, VarMasterKey} {
		if !strings.Contains(msg, want) {
			t.Errorf("error %q lacks %q", msg, want)
		}
	}
}

func TestLoadFromEnvironmentOnly(t *testing.T) {
	_, nested := repo(t, "")
	vars := map[string]string{VarServerURL: "http://127.0.0.1:1337/parse", VarAppID: "a", VarJSKey: "j", VarMasterKey: "m"}
	got, err := load(nested, func(k string) string { return vars[k] })
	if err != nil {
		t.Fatalf("load: %v", err)
	}
	if got.ServerURL != vars[VarServerURL] || got.AppID != "a" || got.JavaScriptKey != "j" || got.MasterKey != "m" {
		t.Fatalf("load = %+v", got)
	}
	if got.ServerURL2 != "" {
		t.Fatalf("ServerURL2 = %q without %s", got.ServerURL2, VarServerURL2)
	}
	vars[VarServerURL2] = "http://127.0.0.1:1338/parse"
	if got, err = load(nested, func(k string) string { return vars[k] }); err != nil || got.ServerURL2 != vars[VarServerURL2] {
		t.Fatalf("load with %s: %+v, %v", VarServerURL2, got, err)
	}
}

func TestLoadRejectsIncompleteOrBadFiles(t *testing.T) {
	cases := map[string]struct{ env, want string }{
		"missing key":  {strings.Replace(sampleEnv, "MORALIS_MASTER_KEY='mk 2982'\n", "", 1), "lacks MORALIS_MASTER_KEY"},
		"not kv":       {"MORALIS_SERVER_URL\n", "env:1 is not KEY=VALUE"},
		"bad url":      {strings.Replace(sampleEnv, "http://127.0.0.1:41693/parse", "127.0.0.1:41693", 1), "is not an http(s) URL"},
		"bad url 2":    {strings.Replace(sampleEnv, "http://127.0.0.1:41694/parse/", "127.0.0.1:41694", 1), "MORALIS_SERVER_URL_2 \"127.0.0.1:41694\" is not an http(s) URL"},
		"ftp scheme":   {strings.Replace(sampleEnv, "http://127.0.0.1:41693/parse", "ftp://127.0.0.1/parse", 1), "is not an http(s) URL"},
		"empty values": {"MORALIS_SERVER_URL=\nMORALIS_APP_ID=\n", "lacks MORALIS_SERVER_URL, MORALIS_APP_ID, MORALIS_JS_KEY, MORALIS_MASTER_KEY"},
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			_, nested := repo(t, c.env)
			_, err := load(nested, noEnv)
			if !errors.Is(err, ErrNotRunning) || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("err = %v, want it to contain %q", err, c.want)
			}
		})
	}
}

func TestPing(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			c.Close()
		}
	}()
	env := Env{ServerURL: "http://" + addr + "/parse"}
	if err := env.Ping(t.Context()); err != nil {
		t.Fatalf("ping of a listening port: %v", err)
	}
	ln.Close()
	err = env.Ping(t.Context())
	if !errors.Is(err, ErrNotRunning) || !strings.Contains(err.Error(), "nothing answers at http://"+addr) {
		t.Fatalf("ping of a closed port: %v", err)
	}
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	if err := (Env{ServerURL: "http://" + addr}).Ping(ctx); !errors.Is(err, ErrNotRunning) {
		t.Fatalf("ping with a cancelled context: %v", err)
	}
}

func TestPingChecksTheSecondInstance(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			c.Close()
		}
	}()
	closed, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	gone := closed.Addr().String()
	closed.Close()
	up := "http://" + ln.Addr().String() + "/parse"
	if err := (Env{ServerURL: up, ServerURL2: up}).Ping(t.Context()); err != nil {
		t.Fatalf("both listening: %v", err)
	}
	err = (Env{ServerURL: up, ServerURL2: "http://" + gone + "/parse"}).Ping(t.Context())
	if !errors.Is(err, ErrNotRunning) || !strings.Contains(err.Error(), "nothing answers at http://"+gone) {
		t.Fatalf("second instance down: %v", err)
	}
}

func TestRequireServerURL2(t *testing.T) {
	tb := &fatalTB{TB: t}
	if got := (Env{ServerURL2: "http://127.0.0.1:2/parse"}).RequireServerURL2(tb); got != "http://127.0.0.1:2/parse" || tb.fatal != "" {
		t.Fatalf("RequireServerURL2 = %q, fatal %q", got, tb.fatal)
	}
	(Env{ServerURL: "http://127.0.0.1:1/parse"}).RequireServerURL2(tb)
	want := "local stack not running: run `make up` (MORALIS_SERVER_URL_2 is not set: run `make up` again to start the second parse-server instance)"
	if tb.fatal != want || tb.skipped {
		t.Fatalf("fatal %q, want %q", tb.fatal, want)
	}
}

func TestEnviron(t *testing.T) {
	e := Env{ServerURL: "http://127.0.0.1:1/parse", ServerURL2: "http://127.0.0.1:2/parse", AppID: "a", JavaScriptKey: "j", MasterKey: "m", MailFile: "/m"}
	got := strings.Join(e.Environ(), " ")
	want := "MORALIS_SERVER_URL=http://127.0.0.1:1/parse MORALIS_SERVER_URL_2=http://127.0.0.1:2/parse MORALIS_APP_ID=a MORALIS_JS_KEY=j MORALIS_MASTER_KEY=m MORALIS_MAIL_FILE=/m"
	if got != want {
		t.Fatalf("Environ = %q, want %q", got, want)
	}
}

// fatalTB records Fatalf instead of stopping the goroutine, so MustLoad's failure can be checked.
type fatalTB struct {
	testing.TB
	fatal   string
	skipped bool
}

func (f *fatalTB) Helper()                           {}
func (f *fatalTB) Fatalf(format string, args ...any) { f.fatal = fmt.Sprintf(format, args...) }
func (f *fatalTB) Skip(...any)                       { f.skipped = true }
func (f *fatalTB) Skipf(string, ...any)              { f.skipped = true }
func (f *fatalTB) SkipNow()                          { f.skipped = true }

func TestMustLoadFailsWithReason(t *testing.T) {
	_, nested := repo(t, "")
	t.Chdir(nested)
	for _, k := range []string{DirEnvVar, VarServerURL, VarServerURL2, VarAppID, VarJSKey, VarMasterKey} {
		t.Setenv(k, "")
	}
	tb := &fatalTB{TB: t}
	env := MustLoad(tb)
	if tb.skipped {
		t.Fatal("MustLoad skipped")
	}
	if !strings.HasPrefix(tb.fatal, "local stack not running: run `make up` (") || env != (Env{}) {
		t.Fatalf("MustLoad: fatal %q, env %+v", tb.fatal, env)
	}
}

func TestMustLoadStaleEnvFile(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close() // nothing listens there any more: a stale env file
	_, nested := repo(t, strings.ReplaceAll(sampleEnv, "127.0.0.1:41693", addr))
	t.Chdir(nested)
	for _, k := range []string{DirEnvVar, VarServerURL, VarServerURL2, VarAppID, VarJSKey, VarMasterKey} {
		t.Setenv(k, "")
	}
	tb := &fatalTB{TB: t}
	MustLoad(tb)
	if !strings.Contains(tb.fatal, "nothing answers at http://"+addr) {
		t.Fatalf("MustLoad fatal = %q", tb.fatal)
	}
}

const scaledEnv = sampleEnv + `MORALIS_LIVEQUERY_URL_2=ws://127.0.0.1:41694/parse
MORALIS_REDIS_URL=redis://127.0.0.1:41695/0
MORALIS_LB_URL=http://127.0.0.1:41696/parse/
MORALIS_LB_LIVEQUERY_URL=ws://127.0.0.1:41696/parse
MORALIS_ENDPOINT_LB_URL=http://127.0.0.1:41697/
MORALIS_ENDPOINT_ADDR_1=127.0.0.1:41698
MORALIS_ENDPOINT_ADDR_2=127.0.0.1:41699
`

func TestLoadReadsTheScaledTopology(t *testing.T) {
	_, nested := repo(t, scaledEnv)
	env, err := load(nested, func(k string) string {
		if k == VarEndpointAddr2 {
			return "127.0.0.1:5000"
		}
		return ""
	})
	if err != nil {
		t.Fatal(err)
	}
	want := Env{LiveQueryURL2: "ws://127.0.0.1:41694/parse", RedisURL: "redis://127.0.0.1:41695/0",
		LBURL: "http://127.0.0.1:41696/parse", LBLiveQueryURL: "ws://127.0.0.1:41696/parse",
		EndpointLBURL: "http://127.0.0.1:41697", EndpointAddr1: "127.0.0.1:41698", EndpointAddr2: "127.0.0.1:5000"}
	got := Env{LiveQueryURL2: env.LiveQueryURL2, RedisURL: env.RedisURL, LBURL: env.LBURL, LBLiveQueryURL: env.LBLiveQueryURL,
		EndpointLBURL: env.EndpointLBURL, EndpointAddr1: env.EndpointAddr1, EndpointAddr2: env.EndpointAddr2}
	if got != want {
		t.Fatalf("scaled fields = %+v, want %+v", got, want)
	}
	environ := strings.Join(env.Environ(), " ")
	for _, kv := range []string{"MORALIS_REDIS_URL=redis://127.0.0.1:41695/0", "MORALIS_LB_URL=http://127.0.0.1:41696/parse",
		"MORALIS_LB_LIVEQUERY_URL=ws://127.0.0.1:41696/parse", "MORALIS_LIVEQUERY_URL_2=ws://127.0.0.1:41694/parse",
		"MORALIS_ENDPOINT_LB_URL=http://127.0.0.1:41697", "MORALIS_ENDPOINT_ADDR_1=127.0.0.1:41698",
		"MORALIS_ENDPOINT_ADDR_2=127.0.0.1:5000"} {
		if !strings.Contains(environ, kv) {
			t.Errorf("Environ lacks %s: %s", kv, environ)
		}
	}
}

func TestLoadRejectsBadScaledValues(t *testing.T) {
	cases := map[string]struct{ from, to, want string }{
		"redis scheme": {"redis://127.0.0.1:41695/0", "http://127.0.0.1:41695", `MORALIS_REDIS_URL "http://127.0.0.1:41695" is not a redis:// URL`},
		"redis host":   {"redis://127.0.0.1:41695/0", "redis:///0", "is not a redis:// URL"},
		"lb url":       {"http://127.0.0.1:41696/parse/", "127.0.0.1:41696", `MORALIS_LB_URL "127.0.0.1:41696" is not an http(s) URL`},
		"endpoint lb":  {"http://127.0.0.1:41697/", "ws://127.0.0.1:41697", "MORALIS_ENDPOINT_LB_URL"},
		"addr":         {"127.0.0.1:41698", "41698", `MORALIS_ENDPOINT_ADDR_1 "41698" is not host:port`},
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			_, nested := repo(t, strings.Replace(scaledEnv, c.from, c.to, 1))
			_, err := load(nested, noEnv)
			if !errors.Is(err, ErrNotRunning) || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("err = %v, want it to contain %q", err, c.want)
			}
		})
	}
}

func TestRequireScaled(t *testing.T) {
	_, nested := repo(t, scaledEnv)
	env, err := load(nested, noEnv)
	if err != nil {
		t.Fatal(err)
	}
	tb := &fatalTB{TB: t}
	env.RequireScaled(tb)
	if tb.fatal != "" {
		t.Fatalf("scaled env refused: %s", tb.fatal)
	}
	_, nested = repo(t, sampleEnv)
	if env, err = load(nested, noEnv); err != nil {
		t.Fatal(err)
	}
	env.RequireScaled(tb)
	want := "local stack not running: run `make up` (MORALIS_REDIS_URL, MORALIS_LB_URL, MORALIS_LB_LIVEQUERY_URL, MORALIS_LIVEQUERY_URL_2 not set: run `make up` again to start the scaled topology)"
	if tb.fatal != want || tb.skipped {
		t.Fatalf("fatal %q, want %q", tb.fatal, want)
	}
}
