package authserver

import (
	"encoding/json"
	"github.com/c13f5054/moralis-go/client"

	"strings"

	"testing"

	"github.com/c13f5054/moralis-go/parse"
)

func TestDataProxyQuery(t *testing.T) {
	e := newProxyEnv(t, nil)
	e.data.results = []json.RawMessage{json.RawMessage(`{"objectId":"a","n":1}`)}
	a := e.post("/data/query", proxyToken, map[string]any{"className": "Item", "where": map[string]any{"n": map[string]any{"$gt": 0}},
		"order": "-createdAt", "limit": 10, "keys": []string{"n"}, "count": true})
	if a.status != 200 || a.raw != `{"count":1,"results":[{"objectId":"a","n":1}]}`+"\n" {
		t.Fatalf("query: %d %q", a.status, a.raw)
	}
	req := e.data.queries[0]
	if req.ClassName != "Item" || req.UseMasterKey || e.data.tokens[0] != proxyToken {
		t.Fatalf("request %+v as %q", req, e.data.tokens[0])
	}
	if req.Params["limit"] != 10 || req.Params["order"] != "-createdAt" {
		t.Fatalf("params %#v", req.Params)
	}
	refusals := []struct {
		body   any
		status int
		code   parse.Code
		msg    string
	}{
		{map[string]any{"className": "_User"}, 403, parse.CodeOperationForbidden, "Class not allowed"},
		{map[string]any{"className": "_Session"}, 403, parse.CodeOperationForbidden, "Class not allowed"},
		{map[string]any{"className": "bad name"}, 400, parse.CodeInvalidClassName, "Invalid class name"},
		{map[string]any{"className": "Item", "where": map[string]any{"t": map[string]any{"$regex": "(a+)+$"}}}, 400, parse.CodeInvalidQuery, "$regex is not allowed"},
		{map[string]any{"className": "Item", "limit": 5000}, 400, parse.CodeInvalidQuery, "limit must be an integer from 0 to 1000"},
		{map[string]any{"className": "Item", "skip": -1}, 400, parse.CodeInvalidQuery, ""},
		{map[string]any{"className": "Item", "useMasterKey": true}, 400, parse.CodeInvalidJSON, "Invalid JSON body"},
		{map[string]any{"className": "Item", "where": map[string]any{"$bad": 1}}, 400, parse.CodeInvalidQuery, ""},
	}
	for _, r := range refusals {
		wantError(t, e.post("/data/query", proxyToken, r.body), r.status, r.code, r.msg)
	}
	if len(e.data.queries) != 1 {
		t.Fatalf("refused queries reached the backend: %d", len(e.data.queries))
	}
	wantError(t, e.do("POST", "/data/query", "text/plain", `{}`, cookie(proxyToken)), 415, parse.CodeInvalidJSON, "")
	wantError(t, e.do("POST", "/data/query", "application/json", `{"className":"`+strings.Repeat("a", DefaultDataMaxBodyBytes)+`"}`, cookie(proxyToken)), 413, parse.CodeInvalidJSON, "Request body too large")
	// The backend's refusals keep their code; a dead session clears the cookie.
	e.data.err = &parse.Error{Code: parse.CodeOperationForbidden, Message: "Permission denied for action find on class Item.", Status: 403}
	wantError(t, e.post("/data/query", proxyToken, map[string]any{"className": "Item"}), 403, parse.CodeOperationForbidden, "Permission denied for action find on class Item.")
	e.data.err = &parse.Error{Code: parse.CodeInvalidSessionToken, Message: "Invalid session token", Status: 400}
	a = e.post("/data/query", proxyToken, map[string]any{"className": "Item"})
	wantError(t, a, 401, parse.CodeInvalidSessionToken, "Invalid session token")
	if !strings.Contains(a.header.Get("Set-Cookie"), "Max-Age=0") {
		t.Fatalf("cookie not cleared: %q", a.header.Get("Set-Cookie"))
	}
	// AllowedClasses restricts further.
	only := newProxyEnv(t, func(o *DataProxyConfig) { o.AllowedClasses = []string{"Item"} })
	wantError(t, only.post("/data/query", proxyToken, map[string]any{"className": "Other"}), 403, parse.CodeOperationForbidden, "Class not allowed")
}

func TestDataProxyFunction(t *testing.T) {
	e := newProxyEnv(t, nil)
	a := e.post("/data/function", proxyToken, map[string]any{"name": "echo", "params": map[string]any{"n": 2, "s": "x"}})
	if a.status != 200 {
		t.Fatalf("%d %s", a.status, a.raw)
	}
	res := a.body["result"].(map[string]any)
	if res["name"] != "echo" || res["echo"].(map[string]any)["n"] != float64(2) || e.data.tokens[0] != proxyToken {
		t.Fatalf("result %v", res)
	}
	// A function not listed is code 141 like a function's own failure, so the same status (400: the one table).
	for _, name := range []string{"getAllERC20", "", "../x", "echo2"} {
		wantError(t, e.post("/data/function", proxyToken, map[string]any{"name": name}), 400, parse.CodeScriptFailed, "")
	}
	if len(e.data.funcs) != 1 {
		t.Fatalf("refused functions reached the backend: %v", e.data.funcs)
	}
	e.data.err = &parse.Error{Code: parse.CodeScriptFailed, Message: "intentional failure", Status: 400}
	wantError(t, e.post("/data/function", proxyToken, map[string]any{"name": "echo"}), 400, parse.CodeScriptFailed, "intentional failure")
}

// A subquery ($inQuery, $notInQuery, $select, $dontSelect, at any depth) reads its own class: it must not reach
// a class /data/query may not read (_User, _Session, _Role by default; anything not in AllowedClasses).
func TestDataProxySubqueryClassNotAllowed(t *testing.T) {
	e := newProxyEnv(t, nil)
	refused := []map[string]any{
		{"owner": map[string]any{"$inQuery": map[string]any{"className": "_Session", "where": map[string]any{}}}},
		{"objectId": map[string]any{"$select": map[string]any{"key": "objectId",
			"query": map[string]any{"className": "_User", "where": map[string]any{"username": "bob"}}}}},
		{"$or": []any{map[string]any{"a": map[string]any{"$notInQuery": map[string]any{"className": "_Role"}}}}},
		{"a": map[string]any{"$inQuery": map[string]any{"className": "Item", "where": map[string]any{
			"b": map[string]any{"$dontSelect": map[string]any{"key": "x", "query": map[string]any{"className": "_User"}}}}}}},
	}
	for i, where := range refused {
		wantError(t, e.post("/data/query", proxyToken, map[string]any{"className": "Item", "where": where}),
			403, parse.CodeOperationForbidden, "")
		if n := e.data.count(); n != 0 {
			t.Fatalf("where %d: a subquery of a refused class reached the backend", i)
		}
	}
	only := newProxyEnv(t, func(o *DataProxyConfig) { o.AllowedClasses = []string{"Item"} })
	wantError(t, only.post("/data/query", proxyToken, map[string]any{"className": "Item", "where": map[string]any{
		"x": map[string]any{"$inQuery": map[string]any{"className": "Secret"}}}}), 403, parse.CodeOperationForbidden, "")
	// A subquery of an allowed class is fine.
	if a := only.post("/data/query", proxyToken, map[string]any{"className": "Item", "where": map[string]any{
		"x": map[string]any{"$inQuery": map[string]any{"className": "Item"}}}}); a.status != 200 {
		t.Fatalf("allowed subquery: %d %s", a.status, a.raw)
	}
}

// include embeds the objects a pointer names, of any class: an object of a class /data/query may not read must
// go back to a pointer (here another user's _User row with its addresses).
func TestDataProxyIncludeHidesOtherClasses(t *testing.T) {
	result := `{"objectId":"a","owner":{"__type":"Object","className":"_User","objectId":"u2","ethAddress":"` +
		proxyOtherAddr + `","accounts":["` + proxyOtherAddr + `"]},"tags":[{"__type":"Object","className":"Tag","objectId":"t1","name":"red"}],"n":12345678901234567}`
	e := newProxyEnv(t, nil)
	e.data.results = []json.RawMessage{json.RawMessage(result)}
	a := e.post("/data/query", proxyToken, map[string]any{"className": "Item", "include": []string{"owner", "tags"}})
	if a.status != 200 {
		t.Fatalf("%d %s", a.status, a.raw)
	}
	if strings.Contains(a.raw, proxyOtherAddr) || !strings.Contains(a.raw, `{"__type":"Pointer","className":"_User","objectId":"u2"}`) {
		t.Fatalf("an included _User was served: %s", a.raw)
	}
	if !strings.Contains(a.raw, `"name":"red"`) || !strings.Contains(a.raw, `12345678901234567`) {
		t.Fatalf("an allowed included class (or a number) was changed: %s", a.raw)
	}
	only := newProxyEnv(t, func(o *DataProxyConfig) { o.AllowedClasses = []string{"Item"} })
	only.data.results = []json.RawMessage{json.RawMessage(result)}
	b := only.post("/data/query", proxyToken, map[string]any{"className": "Item", "include": []string{"tags"}})
	if b.status != 200 || strings.Contains(b.raw, `"red"`) {
		t.Fatalf("a class outside AllowedClasses was served through include: %d %s", b.status, b.raw)
	}
}

// A 4xx that is not the backend's JSON (a reverse proxy's or a firewall's page) became a parse.Error whose text
// carries 512 bytes of that page, and the proxy relayed it.
func TestDataProxyHidesNonParseErrorBodies(t *testing.T) {
	page := `<html><body>Request blocked by edge-waf (10.0.3.7), nginx/1.18.0, incident 8d2f</body></html>`
	fp := newFakeParse(t, 403, "text/html", page)
	c, err := client.New(client.Config{ServerURL: fp.srv.URL, AppID: "app", JavaScriptKey: "js", MaxAttempts: 1})
	if err != nil {
		t.Fatal(err)
	}
	e := newProxyEnv(t, func(o *DataProxyConfig) { o.Backend = NewClientDataBackend(c) })
	for _, a := range []answer{
		e.post("/data/query", proxyToken, map[string]any{"className": "Item"}),
		e.post("/data/function", proxyToken, map[string]any{"name": "echo"}),
	} {
		if a.status < 500 || strings.Contains(a.raw, "10.0.3.7") || strings.Contains(a.raw, "nginx") {
			t.Fatalf("the upstream page was relayed: %d %s", a.status, a.raw)
		}
	}
	// The backend's own refusals still keep their text.
	fp.mu.Lock()
	fp.status, fp.ctype, fp.body = 400, "application/json", `{"code":141,"error":"intentional failure"}`
	fp.mu.Unlock()
	wantError(t, e.post("/data/function", proxyToken, map[string]any{"name": "echo"}), 400, parse.CodeScriptFailed, "intentional failure")
}
