package client

import (
	"context"
	"encoding/base64"
	"errors"
	"net/http"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"testing/iotest"
	"time"

	"github.com/c13f5054/moralis-go/parse"
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
	f, err := c.Files.Upload(t.Context(), "hello.txt", []byte("hello, world"), "", nil)
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
		if _, err := c.Files.Upload(t.Context(), tc.name, tc.data, tc.given, nil); err != nil {
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
	f, err := c.Files.UploadReader(t.Context(), "r.txt", strings.NewReader("from a reader"), "", nil)
	if err != nil || f.Name != "abc_r.txt" {
		t.Fatalf("reader: %+v %v", f, err)
	}
	path := filepath.Join(t.TempDir(), "p.csv")
	if err := os.WriteFile(path, []byte("a,b\n1,2\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	f, err = c.Files.UploadPath(t.Context(), path, "", nil)
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
	if _, err := c.Files.UploadPath(t.Context(), filepath.Join(t.TempDir(), "missing"), "", nil); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("missing path: %v", err)
	}
	if _, err := c.Files.UploadReader(t.Context(), "x", iotest.ErrReader(errors.New("boom")), "", nil); err == nil || !strings.Contains(err.Error(), "boom") {
		t.Fatalf("failing reader: %v", err)
	}
	if _, err := c.Files.UploadReader(t.Context(), "x", nil, "", nil); err == nil {
		t.Fatal("nil reader accepted")
	}
	for _, f := range []func() error{
		func() error { _, err := c.Files.Upload(t.Context(), "", []byte("x"), "", nil); return err },
		func() error {
			_, err := c.Files.UploadReader(t.Context(), "", strings.NewReader("x"), "", nil)
			return err
		},
		func() error { _, err := c.Files.UploadPath(t.Context(), "", "", nil); return err },
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
	_, err := srv.client(t, false).Files.Upload(t.Context(), "bad name", []byte("x"), "", nil)
	var perr *parse.Error
	if !errors.As(err, &perr) || perr.Code != 122 {
		t.Fatalf("err = %v", err)
	}
	srv2 := newIDServer(t, func(idReq) (int, string) { return 201, `{"nothing":1}` })
	if _, err := srv2.client(t, false).Files.Upload(t.Context(), "a.txt", []byte("x"), "", nil); !errors.Is(err, parse.ErrInvalidJSON) {
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

// fileDataOf returns the fileData object of a JSON upload body.
func fileDataOf(t *testing.T, r idReq) map[string]any {
	t.Helper()
	fd, ok := r.Body["fileData"].(map[string]any)
	if !ok {
		t.Fatalf("no fileData object in %s", r.Raw)
	}
	return fd
}

func TestUploadWithMetadataAndTagsWire(t *testing.T) {
	srv := fileServer(t)
	c := srv.client(t, false).WithSessionToken("r:up")
	opts := &UploadOptions{Metadata: map[string]string{"owner": "alice"}, Tags: map[string]string{"kind": "doc"}}
	f, err := c.Files.Upload(t.Context(), "hello.txt", []byte("hello, world"), "", opts)
	if err != nil || f.Name != "abc_hello.txt" {
		t.Fatalf("%+v %v", f, err)
	}
	r := srv.only(t)
	if r.Method != http.MethodPost || r.Path != "files/hello.txt" {
		t.Fatalf("request: %s %s", r.Method, r.Path)
	}
	// The Parse JS SDK's JSON form: the keys in the body, none in headers (parse-server reads a JSON upload only
	// without an application id header), the bytes in base64, the content type in _ContentType.
	if r.Header.Get("X-Parse-Application-Id") != "" || r.Header.Get("X-Parse-Request-Id") != "" || !strings.HasPrefix(r.Header.Get("Content-Type"), "text/plain") {
		t.Fatalf("headers: %v", r.Header)
	}
	b := r.Body
	if b["_ApplicationId"] != "app1" || b["_JavaScriptKey"] != "js1" || b["_SessionToken"] != "r:up" || b["_InstallationId"] != "inst-1" {
		t.Fatalf("keys: %s", r.Raw)
	}
	if b["base64"] != base64.StdEncoding.EncodeToString([]byte("hello, world")) || !strings.HasPrefix(b["_ContentType"].(string), "text/plain") {
		t.Fatalf("content: %s", r.Raw)
	}
	if _, has := b["_method"]; has {
		t.Fatalf("an upload is a plain POST: %s", r.Raw)
	}
	fd := fileDataOf(t, r)
	if !reflect.DeepEqual(fd["metadata"], map[string]any{"owner": "alice"}) || !reflect.DeepEqual(fd["tags"], map[string]any{"kind": "doc"}) {
		t.Fatalf("fileData: %v", fd)
	}
	if _, has := fd["ipfs"]; has {
		t.Fatalf("a plain upload asked for IPFS: %v", fd)
	}
	if len(opts.Metadata) != 1 || len(opts.Tags) != 1 || opts.IPFS {
		t.Fatalf("the options were changed: %+v", opts)
	}
	// Zero options are no options: the bytes go as the body.
	if _, err := c.Files.Upload(t.Context(), "b.txt", []byte("raw"), "", &UploadOptions{Metadata: map[string]string{}}); err != nil {
		t.Fatal(err)
	}
	if reqs := srv.requests(); string(reqs[1].Raw) != "raw" || reqs[1].Header.Get("X-Parse-Application-Id") != "app1" {
		t.Fatalf("empty options: %s %v", reqs[1].Raw, reqs[1].Header)
	}
}

func TestSaveIPFSWire(t *testing.T) {
	srv := fileServer(t)
	c := srv.client(t, true).WithMasterKey()
	opts := &UploadOptions{Tags: map[string]string{"t": "1"}}
	f, err := c.Files.SaveIPFS(t.Context(), "a.json", []byte(`{"k":1}`), "", opts)
	if err != nil {
		t.Fatal(err)
	}
	if f.Hash != "h1" || f.IPFS != "ipfs://Qm1" {
		t.Fatalf("file: %+v", f)
	}
	r := srv.only(t)
	fd := fileDataOf(t, r)
	if fd["ipfs"] != true || !reflect.DeepEqual(fd["metadata"], map[string]any{}) || !reflect.DeepEqual(fd["tags"], map[string]any{"t": "1"}) {
		t.Fatalf("fileData: %v", fd)
	}
	if r.Body["_MasterKey"] != "mk1" || r.Body["_JavaScriptKey"] != nil || r.Body["_ContentType"] != "application/json" {
		t.Fatalf("body: %s", r.Raw)
	}
	if opts.IPFS {
		t.Fatal("SaveIPFS changed the caller's options")
	}
}

func TestSaveIPFSWithoutIPFSAnswer(t *testing.T) {
	srv := newIDServer(t, func(idReq) (int, string) { return 201, `{"name":"x_a.txt","url":"http://files.example/x_a.txt"}` })
	f, err := srv.client(t, false).Files.SaveIPFS(t.Context(), "a.txt", []byte("x"), "", nil)
	if !errors.Is(err, ErrNoIPFS) || f == nil || f.Name != "x_a.txt" {
		t.Fatalf("%+v %v", f, err)
	}
	// The same answer to a plain upload is fine.
	if _, err := srv.client(t, false).Files.Upload(t.Context(), "a.txt", []byte("x"), "", &UploadOptions{Tags: map[string]string{"a": "b"}}); err != nil {
		t.Fatal(err)
	}
}

func TestFileInfoWire(t *testing.T) {
	srv := newIDServer(t, func(r idReq) (int, string) {
		switch r.Path {
		case "files/app1/metadata/abc_a b.txt":
			return 200, `{"metadata":{"owner":"alice","n":1,"o":{"x": true}},"tags":{"kind":"doc"}}`
		case "files/app1/metadata/unknown":
			return 200, `{}`
		case "files/app1/metadata/broken":
			return 200, `[1]`
		}
		return 404, `{"code":101,"error":"nope"}`
	})
	c := srv.client(t, true).WithSessionToken("r:secret")
	for _, f := range []*parse.File{nil, {URL: "http://x/y"}} {
		if _, err := c.Files.Info(t.Context(), f); !errors.Is(err, ErrFileNotSaved) {
			t.Fatalf("unsaved: %v", err)
		}
	}
	if srv.count() != 0 {
		t.Fatal("a request was sent for an unsaved file")
	}
	info, err := c.Files.Info(t.Context(), &parse.File{Name: "abc_a b.txt"})
	if err != nil {
		t.Fatal(err)
	}
	want := &FileInfo{Metadata: map[string]string{"owner": "alice", "n": "1", "o": `{"x":true}`}, Tags: map[string]string{"kind": "doc"}}
	if !reflect.DeepEqual(info, want) {
		t.Fatalf("info %+v", info)
	}
	r := srv.only(t)
	if r.Method != http.MethodGet {
		t.Fatalf("method %s", r.Method)
	}
	for k := range r.Header {
		if strings.HasPrefix(strings.ToLower(k), "x-parse-") {
			t.Fatalf("the metadata read sent %s", k)
		}
	}
	info, err = c.Files.Info(t.Context(), &parse.File{Name: "unknown"})
	if err != nil || info.Metadata == nil || info.Tags == nil || len(info.Metadata)+len(info.Tags) != 0 {
		t.Fatalf("unknown file: %+v %v", info, err)
	}
	if _, err := c.Files.Info(t.Context(), &parse.File{Name: "broken"}); !errors.Is(err, parse.ErrInvalidJSON) {
		t.Fatalf("broken answer: %v", err)
	}
	if _, err := c.Files.Info(t.Context(), &parse.File{Name: "gone"}); !errors.Is(err, parse.ErrObjectNotFound) {
		t.Fatalf("error answer: %v", err)
	}
}
