package client

import (
	"context"
	"errors"
	"github.com/c13f5054/moralis-go/parse"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"testing/iotest"
	"time"
)

func fileServer(t *testing.T) *idServer {
	return newIDServer(t, func(r idReq) (int, string) {
		switch {
		case r.Method == http.MethodPost && strings.HasPrefix(r.Path, "files/"):
			name := strings.TrimPrefix(r.Path, "files/")
			return 201, `{"name":"abc_` + name + `","url":"http://files.example/abc_` + name + `","hash":"h1","ipfs":"ipfs://Qm1"}`
		case r.Method == http.MethodGet && r.Path == "files/app1/abc_hello.txt":
			return 200, `hello, world`
		case r.Method == http.MethodGet:
			return 404, `<html>Not Found</html>`
		case r.Method == http.MethodDelete:
			return 200, ``
		}
		return 500, `{}`
	})
}

func TestUploadFileWire(t *testing.T) {
	srv := fileServer(t)
	c := srv.client(t, false).WithSessionToken("r:up")
	f, err := c.Files.Upload(t.Context(), "hello.txt", []byte("hello, world"), "")
	if err != nil {
		t.Fatal(err)
	}
	r := srv.only(t)
	if r.Method != http.MethodPost || r.Path != "files/hello.txt" || string(r.Raw) != "hello, world" {
		t.Fatalf("request: %s %s %q", r.Method, r.Path, r.Raw)
	}
	h := r.Header
	if h.Get("X-Parse-Application-Id") != "app1" || h.Get("X-Parse-JavaScript-Key") != "js1" ||
		h.Get("X-Parse-Session-Token") != "r:up" || h.Get("X-Parse-Installation-Id") != "inst-1" || h.Get("X-Parse-Master-Key") != "" {
		t.Fatalf("headers: %v", h)
	}
	if !strings.HasPrefix(h.Get("Content-Type"), "text/plain") {
		t.Fatalf("content type %q, want text/plain from the extension", h.Get("Content-Type"))
	}
	if f.Name != "abc_hello.txt" || f.URL != "http://files.example/abc_hello.txt" || f.Hash != "h1" || f.IPFS != "ipfs://Qm1" {
		t.Fatalf("file: %+v", f)
	}
}

func TestUploadContentTypes(t *testing.T) {
	srv := fileServer(t)
	c := srv.client(t, false)
	cases := []struct {
		name, given string
		data        []byte
		want        string
	}{
		{"a.png", "", []byte("x"), "image/png"},
		{"a.json", "", []byte("{}"), "application/json"},
		{"a.zzqq", "", []byte("<html><body>hi</body></html>"), "text/html"},
		{"noext", "", []byte{0, 1, 2, 3}, "application/octet-stream"},
		{"a.png", "application/x-custom", []byte("x"), "application/x-custom"},
	}
	for _, tc := range cases {
		if _, err := c.Files.Upload(t.Context(), tc.name, tc.data, tc.given); err != nil {
			t.Fatal(err)
		}
		reqs := srv.requests()
		got := reqs[len(reqs)-1].Header.Get("Content-Type")
		if !strings.HasPrefix(got, tc.want) {
			t.Errorf("%s (%q): content type %q, want %q", tc.name, tc.given, got, tc.want)
		}
	}
}

func TestUploadFromReaderAndPath(t *testing.T) {
	srv := fileServer(t)
	c := srv.client(t, true).WithMasterKey()
	f, err := c.Files.UploadReader(t.Context(), "r.txt", strings.NewReader("from a reader"), "")
	if err != nil || f.Name != "abc_r.txt" {
		t.Fatalf("reader: %+v %v", f, err)
	}
	path := filepath.Join(t.TempDir(), "p.csv")
	if err := os.WriteFile(path, []byte("a,b\n1,2\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	f, err = c.Files.UploadPath(t.Context(), path, "")
	if err != nil || f.Name != "abc_p.csv" {
		t.Fatalf("path: %+v %v", f, err)
	}
	reqs := srv.requests()
	if len(reqs) != 2 || string(reqs[0].Raw) != "from a reader" || string(reqs[1].Raw) != "a,b\n1,2\n" || reqs[1].Path != "files/p.csv" {
		t.Fatalf("requests: %+v", reqs)
	}
	if reqs[0].Header.Get("X-Parse-Master-Key") != "mk1" || reqs[0].Header.Get("X-Parse-JavaScript-Key") != "" {
		t.Fatalf("a master-key view must send the master key only: %v", reqs[0].Header)
	}
	if !strings.HasPrefix(reqs[1].Header.Get("Content-Type"), "text/csv") {
		t.Fatalf("csv content type: %q", reqs[1].Header.Get("Content-Type"))
	}
	// Failures before any request.
	if _, err := c.Files.UploadPath(t.Context(), filepath.Join(t.TempDir(), "missing"), ""); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("missing path: %v", err)
	}
	if _, err := c.Files.UploadReader(t.Context(), "x", iotest.ErrReader(errors.New("boom")), ""); err == nil || !strings.Contains(err.Error(), "boom") {
		t.Fatalf("failing reader: %v", err)
	}
	if _, err := c.Files.UploadReader(t.Context(), "x", nil, ""); err == nil {
		t.Fatal("nil reader accepted")
	}
	for _, f := range []func() error{
		func() error { _, err := c.Files.Upload(t.Context(), "", []byte("x"), ""); return err },
		func() error {
			_, err := c.Files.UploadReader(t.Context(), "", strings.NewReader("x"), "")
			return err
		},
		func() error { _, err := c.Files.UploadPath(t.Context(), "", ""); return err },
	} {
		if err := f(); !errors.Is(err, ErrFileNoName) {
			t.Fatalf("empty name: %v", err)
		}
	}
	if srv.count() != 2 {
		t.Fatalf("bad uploads were sent: %d requests", srv.count())
	}
}

func TestUploadErrorAnswer(t *testing.T) {
	srv := newIDServer(t, func(idReq) (int, string) { return 400, `{"code":122,"error":"Filename contains invalid characters."}` })
	_, err := srv.client(t, false).Files.Upload(t.Context(), "bad name", []byte("x"), "")
	var perr *parse.Error
	if !errors.As(err, &perr) || perr.Code != 122 {
		t.Fatalf("err = %v", err)
	}
	srv2 := newIDServer(t, func(idReq) (int, string) { return 201, `{"nothing":1}` })
	if _, err := srv2.client(t, false).Files.Upload(t.Context(), "a.txt", []byte("x"), ""); !errors.Is(err, parse.ErrInvalidJSON) {
		t.Fatalf("answer without name/url: %v", err)
	}
}

func TestFileDataWire(t *testing.T) {
	srv := fileServer(t)
	c := srv.client(t, true).WithSessionToken("r:secret")
	if _, err := c.Files.Data(t.Context(), &parse.File{Name: "x"}); !errors.Is(err, ErrFileNotSaved) || err.Error() != "Cannot retrieve data for unsaved file" {
		t.Fatalf("unsaved: %v", err)
	}
	if _, err := c.Files.Data(t.Context(), nil); !errors.Is(err, ErrFileNotSaved) {
		t.Fatalf("nil: %v", err)
	}
	if srv.count() != 0 {
		t.Fatal("a request was sent for an unsaved file")
	}
	data, err := c.Files.Data(t.Context(), &parse.File{Name: "abc_hello.txt", URL: srv.URL + "/parse/files/app1/abc_hello.txt"})
	if err != nil {
		t.Fatal(err)
	}
	if string(data) != "hello, world" {
		t.Fatalf("data %q", data)
	}
	r := srv.only(t)
	if r.Method != http.MethodGet {
		t.Fatalf("method %s", r.Method)
	}
	for k := range r.Header {
		if strings.HasPrefix(strings.ToLower(k), "x-parse-") {
			t.Fatalf("the download sent %s", k)
		}
	}
	_, err = c.Files.Data(t.Context(), &parse.File{Name: "gone", URL: srv.URL + "/parse/files/app1/gone"})
	var perr *parse.Error
	if !errors.As(err, &perr) || perr.Status != 404 {
		t.Fatalf("404: %v", err)
	}
	if _, err := c.Files.Data(t.Context(), &parse.File{Name: "x", URL: "ftp://host/x"}); err == nil {
		t.Fatal("ftp URL accepted")
	}
}

func TestDeleteFileWire(t *testing.T) {
	srv := fileServer(t)
	c := srv.client(t, true)
	for _, f := range []*parse.File{nil, {URL: "http://x/y"}} {
		if err := c.Files.Delete(t.Context(), f); !errors.Is(err, ErrFileUnnamed) || err.Error() != "Cannot delete an unnamed file" {
			t.Fatalf("unnamed: %v", err)
		}
	}
	if srv.count() != 0 {
		t.Fatal("a request was sent for an unnamed file")
	}
	if err := c.WithSessionToken("r:x").Files.Delete(t.Context(), &parse.File{Name: "abc_hello.txt"}); err != nil {
		t.Fatal(err)
	}
	r := srv.only(t)
	if r.Method != http.MethodDelete || r.Path != "files/abc_hello.txt" {
		t.Fatalf("request %s %s", r.Method, r.Path)
	}
	if r.Header.Get("X-Parse-Master-Key") != "mk1" || r.Header.Get("X-Parse-JavaScript-Key") != "" || r.Header.Get("X-Parse-Application-Id") != "app1" {
		t.Fatalf("headers: %v", r.Header)
	}
}

func TestFileFieldEncoding(t *testing.T) {
	srv := newIDServer(t, func(idReq) (int, string) { return 201, `{"objectId":"D1","createdAt":"2026-11-21T22:00:00.000Z"}` })
	o := parse.NewObject("Doc")
	o.Set("pdf", parse.File{Name: "abc_a.pdf", URL: "http://files.example/abc_a.pdf"})
	if err := srv.client(t, false).Objects.Save(t.Context(), o); err != nil {
		t.Fatal(err)
	}
	jsonEq(t, srv.only(t).Body["pdf"], `{"__type":"File","name":"abc_a.pdf","url":"http://files.example/abc_a.pdf"}`)
}

func TestFileDataRetriesThroughHTTPLayer(t *testing.T) {
	var calls int
	srv := newIDServer(t, func(r idReq) (int, string) {
		calls++
		if calls == 1 {
			return 503, `{"error":"busy"}`
		}
		return 200, "payload"
	})
	cfg := Config{ServerURL: srv.URL + "/parse", AppID: "app1", MaxAttempts: 3,
		Retry: RetryPolicy{Sleep: func(context.Context, time.Duration) error { return nil }}}
	c, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	data, err := c.Files.Data(t.Context(), &parse.File{Name: "f", URL: srv.URL + "/parse/files/app1/f"})
	if err != nil || string(data) != "payload" {
		t.Fatalf("data %q err %v", data, err)
	}
	if srv.count() != 2 {
		t.Fatalf("%d attempts, want 2 (one retry after the 503)", srv.count())
	}
}
