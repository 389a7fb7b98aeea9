package rest

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"reflect"
	"sync"
	"testing"
)

// oldBody is the body encoding before the reflection-free one: every envelope member set over the params in one
// map, then encoding/json.
func oldBody(t *Transport, c Call, cc json.RawMessage) ([]byte, error) {
	m := make(map[string]any, len(c.Params)+8)
	for k, v := range c.Params {
		m[k] = v
	}
	if c.Method != http.MethodPost {
		m["_method"] = c.Method
	}
	m["_ApplicationId"] = t.cfg.AppID
	if c.UseMasterKey {
		if t.cfg.MasterKey == "" {
			return nil, ErrMasterKeyRequired
		}
		m["_MasterKey"] = t.cfg.MasterKey
	} else if t.cfg.JavaScriptKey != "" {
		m["_JavaScriptKey"] = t.cfg.JavaScriptKey
	}
	m["_ClientVersion"] = ClientVersion
	m["_InstallationId"] = t.cfg.InstallationID
	if c.SessionToken != "" {
		m["_SessionToken"] = c.SessionToken
	}
	if c.Context != nil {
		m["_context"] = c.Context
	} else if cc != nil {
		m["_context"] = cc
	}
	return json.Marshal(m)
}

// objectKeys returns the top-level keys of an object in order, duplicates included.
func objectKeys(t *testing.T, b []byte) []string {
	t.Helper()
	d := json.NewDecoder(bytes.NewReader(b))
	if tok, err := d.Token(); err != nil || tok != json.Delim('{') {
		t.Fatalf("%s: not an object (%v, %v)", b, tok, err)
	}
	var keys []string
	for d.More() {
		tok, err := d.Token()
		if err != nil {
			t.Fatalf("%s: %v", b, err)
		}
		keys = append(keys, tok.(string))
		var v json.RawMessage
		if err := d.Decode(&v); err != nil {
			t.Fatalf("%s: %v", b, err)
		}
	}
	return keys
}

// The body is, as a JSON value, what the encoding/json body was, for every combination of colliding params,
// methods, keys, session tokens and contexts, and never has a key twice.
func TestBodyMatchesEncodingJSONBody(t *testing.T) {
	envKeys := []string{"_method", "_ApplicationId", "_JavaScriptKey", "_MasterKey", "_ClientVersion", "_InstallationId", "_SessionToken", "_context"}
	paramSets := []map[string]any{nil, {}, {"a": 1}, {"where": map[string]any{"x": "<&>"}, "limit": 1000, "z": nil}}
	for _, k := range envKeys {
		paramSets = append(paramSets, map[string]any{k: "param-" + k}, map[string]any{k: "param", "b": []any{1, "x"}})
	}
	all := map[string]any{"q": 1}
	for _, k := range envKeys {
		all[k] = "p"
	}
	paramSets = append(paramSets, all)
	for _, js := range []string{"", "jsKey"} {
		for _, mk := range []string{"", "master\"<Key>"} {
			tr, err := New(Config{ServerURL: "http://x/parse", AppID: "app\u2028", JavaScriptKey: js, MasterKey: mk, InstallationID: "inst"})
			if err != nil {
				t.Fatal(err)
			}
			for _, method := range []string{"GET", "POST", "PUT", "DELETE"} {
				for _, master := range []bool{false, true} {
					for _, st := range []string{"", "r:tok"} {
						for ci, ctxs := range []struct {
							c  map[string]any
							cc json.RawMessage
						}{{nil, nil}, {map[string]any{"a": 1}, nil}, {nil, json.RawMessage(`{"cc":true}`)}, {map[string]any{}, json.RawMessage(`{"cc":true}`)}} {
							for pi, params := range paramSets {
								before := fmt.Sprint(params)
								c := Call{Method: method, Params: params, SessionToken: st, UseMasterKey: master, Context: ctxs.c}
								got, gerr := tr.body(c, ctxs.cc)
								want, werr := oldBody(tr, c, ctxs.cc)
								if fmt.Sprint(params) != before {
									t.Fatalf("body changed the params: %v", params)
								}
								name := fmt.Sprintf("js=%q mk=%q %s master=%v st=%q ctx=%d params=%d", js, mk, method, master, st, ci, pi)
								if (gerr != nil) != (werr != nil) {
									t.Fatalf("%s: error %v, before %v", name, gerr, werr)
								}
								if gerr != nil {
									continue
								}
								keys := objectKeys(t, got)
								seen := map[string]bool{}
								for _, k := range keys {
									if seen[k] {
										t.Errorf("%s: key %q twice in %s", name, k, got)
									}
									seen[k] = true
								}
								var g, w any
								_ = json.Unmarshal(got, &g)
								_ = json.Unmarshal(want, &w)
								if !reflect.DeepEqual(g, w) {
									t.Errorf("%s:\n got %s\nwant %s", name, got, want)
								}
							}
						}
					}
				}
			}
		}
	}
}

// Bodies made at once on many goroutines are each their own: none is changed by another's encoding.
func TestBodiesMadeConcurrentlyAreEachTheirOwn(t *testing.T) {
	tr, err := New(Config{ServerURL: "http://x/parse", AppID: "app", JavaScriptKey: "js", MasterKey: "mk", InstallationID: "inst"})
	if err != nil {
		t.Fatal(err)
	}
	ctx := WithCallContext(context.Background(), map[string]any{"shared": "cc"})
	cc, _ := callContextOf(ctx)
	var wg sync.WaitGroup
	for g := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			var kept [][]byte
			var wants [][]byte
			for i := range 300 {
				big := make([]any, (g*37+i)%200)
				for j := range big {
					big[j] = fmt.Sprintf("g%d-i%d-%d", g, i, j)
				}
				c := Call{Method: "PUT", Params: map[string]any{"g": g, "i": i, "big": big, "_ApplicationId": "x"}, SessionToken: fmt.Sprint("r:", g, i), UseMasterKey: i%2 == 0}
				var use json.RawMessage
				if i%3 == 0 {
					use = cc
				}
				b, err := tr.body(c, use)
				if err != nil {
					t.Error(err)
					return
				}
				w, _ := oldBody(tr, c, use)
				kept = append(kept, b)
				wants = append(wants, w)
			}
			for i, b := range kept {
				var g1, w1 any
				if err := json.Unmarshal(b, &g1); err != nil {
					t.Errorf("body %d: %v: %s", i, err, b)
					return
				}
				_ = json.Unmarshal(wants[i], &w1)
				if !reflect.DeepEqual(g1, w1) {
					t.Errorf("body %d changed:\n got %s\nwant %s", i, b, wants[i])
					return
				}
			}
		}()
	}
	wg.Wait()
}

// Params or a context that contain themselves are an error before anything is sent, as they were with
// encoding/json, not a stack overflow.
func TestBodyOfCyclicValuesIsAnError(t *testing.T) {
	tr, err := New(Config{ServerURL: "http://x/parse", AppID: "app", JavaScriptKey: "js", InstallationID: "inst"})
	if err != nil {
		t.Fatal(err)
	}
	m := map[string]any{"a": 1}
	m["self"] = m
	if _, err := tr.body(Call{Method: "POST", Params: map[string]any{"p": m}}, nil); err == nil {
		t.Error("cyclic params encoded")
	}
	if _, err := tr.body(Call{Method: "POST", Context: m}, nil); err == nil {
		t.Error("cyclic context encoded")
	}
}
