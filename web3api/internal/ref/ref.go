// Package ref holds the reference description of the chain-data API v2 endpoints that the web3api package, its
// generator and its test server share: paths, methods, parameters (with types, examples and which are required)
// and response fields with example values. endpoints.json is built by merge.py from the shared reference files.
package ref

import (
	_ "embed"
	"encoding/json"
	"sync"
)

//go:embed endpoints.json
var raw []byte

// Param is one parameter of an endpoint. In is "path", "query" or "body"; Type is "string", "number",
// "boolean", "array" or "json". WholeBody marks a body parameter that is the entire request body.
type Param struct {
	Name      string   `json:"name"`
	In        string   `json:"in"`
	Type      string   `json:"type"`
	Required  bool     `json:"required"`
	Example   any      `json:"example,omitempty"`
	Enum      []string `json:"enum,omitempty"`
	WholeBody bool     `json:"wholeBody,omitempty"`
	// Description is the published description, if any.
	Description string `json:"description,omitempty"`
}

// Field describes a response value: Type is "string", "number", "integer", "boolean", "json", "object" (with
// Fields) or "array" (with Elem describing one element).
type Field struct {
	Name    string  `json:"name,omitempty"`
	Type    string  `json:"type"`
	Example any     `json:"example,omitempty"`
	Fields  []Field `json:"fields,omitempty"`
	Elem    *Field  `json:"field,omitempty"`
}

// Endpoint is one chain-data API endpoint. Path marks path parameters as :name.
type Endpoint struct {
	Group    string  `json:"group"`
	Name     string  `json:"name"`
	Method   string  `json:"method"`
	Path     string  `json:"path"`
	Schema   string  `json:"schema"`
	DocsName string  `json:"docsName"`
	Params   []Param `json:"params"`
	Response Field   `json:"response"`
}

// Param returns the parameter called name, if the endpoint has one.
func (e *Endpoint) Param(name string) (Param, bool) {
	for _, p := range e.Params {
		if p.Name == name {
			return p, true
		}
	}
	return Param{}, false
}

var (
	once   sync.Once
	all    []Endpoint
	byName map[string]*Endpoint
)

func load() {
	if err := json.Unmarshal(raw, &all); err != nil {
		panic("ref: embedded endpoints.json is invalid: " + err.Error())
	}
	byName = make(map[string]*Endpoint, len(all))
	for i := range all {
		byName[all[i].Name] = &all[i]
	}
}

// Endpoints returns all endpoints in reference order. The slice is shared: do not modify it.
func Endpoints() []Endpoint {
	once.Do(load)
	return all
}

// Lookup returns the endpoint called name.
func Lookup(name string) (*Endpoint, bool) {
	once.Do(load)
	e, ok := byName[name]
	return e, ok
}
