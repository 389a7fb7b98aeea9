// Command gen writes the typed endpoint methods, parameter structs and response types of package web3api from
// the reference in web3api/internal/ref (run through `go generate ./web3api/...`). It also writes a test file
// that calls every endpoint once against web3apitest.
package main

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"go/format"
	"log"
	"os"
	"sort"
	"strings"
	"unicode"

	"github.com/c13f5054/moralis-go/web3api/internal/ref"
)

var initialisms = map[string]string{
	"id": "ID", "uri": "URI", "url": "URL", "abi": "ABI", "usd": "USD", "nft": "NFT", "nfts": "NFTs", "ip": "IP",
	"api": "API", "json": "JSON", "ens": "ENS", "ipfs": "IPFS", "erc20": "ERC20", "erc20s": "ERC20s",
	"erc721": "ERC721", "erc1155": "ERC1155", "ttl": "TTL",
}

// words splits snake_case and camelCase names into lower-case words; digits stay with the letters before them.
func words(s string) []string {
	var out []string
	var cur []rune
	rs := []rune(s)
	flush := func() {
		if len(cur) > 0 {
			out = append(out, strings.ToLower(string(cur)))
			cur = nil
		}
	}
	for i, r := range rs {
		switch {
		case r == '_' || r == '-' || r == ' ':
			flush()
		case unicode.IsUpper(r):
			prevLower := i > 0 && (unicode.IsLower(rs[i-1]) || unicode.IsDigit(rs[i-1]))
			nextLower := i+1 < len(rs) && unicode.IsLower(rs[i+1])
			prevUpper := i > 0 && unicode.IsUpper(rs[i-1])
			if prevLower || (prevUpper && nextLower) {
				flush()
			}
			cur = append(cur, r)
		default:
			cur = append(cur, r)
		}
	}
	flush()
	return out
}

func pascal(s string) string {
	var b strings.Builder
	for _, w := range words(s) {
		if v, ok := initialisms[w]; ok {
			b.WriteString(v)
			continue
		}
		b.WriteString(strings.ToUpper(w[:1]) + w[1:])
	}
	r := b.String()
	if r == "" || unicode.IsDigit(rune(r[0])) {
		r = "X" + r
	}
	return r
}

func methodName(name string) string { return strings.ToUpper(name[:1]) + name[1:] }

var groupTypes = map[string]string{
	"native": "Native", "account": "Account", "token": "Token", "contract": "Contract", "resolve": "Resolve",
	"defi": "DeFi", "storage": "Storage", "info": "Info", "market data": "MarketData", "utils": "Utils",
}

var groupOrder = []string{"native", "account", "token", "contract", "resolve", "defi", "storage", "info", "market data", "utils"}

// Global names for nested objects that recur across endpoints; their fields are merged.
var globalNames = map[string]string{
	"normalized_metadata": "NormalizedMetadata", "attributes": "NFTAttribute", "logs": "TransactionLog",
	"nativePrice": "NativePrice", "transactions": "BlockTransaction", "wallet_balances": "WalletBalance",
	"gainers": "MarketDataERC20Token", "losers": "MarketDataERC20Token",
}

// Body parameters with hand-written types (in bodies.go).
var bodyTypes = map[string]string{
	"getMultipleTokenPrices.tokens":     "[]TokenPriceRequest",
	"getMultipleNFTs.tokens":            "[]NFTTokenRef",
	"getMultipleNFTs.normalizeMetadata": "*bool",
	"getMultipleNFTs.media_items":       "*bool",
	"reviewContracts.contracts":         "[]ContractReview",
	"uploadFolder.data":                 "[]IPFSFileInput",
	"runContractFunction.abi":           "any",
	"runContractFunction.params":        "map[string]any",
	"getContractEvents.data":            "any",
}

type fieldDef struct{ json, goName, goType string }

type typeDef struct {
	name   string
	fields []fieldDef
	seen   map[string]bool
	from   []string
}

var types = map[string]*typeDef{}

func structFor(name string, fs []ref.Field, from string) string {
	td := types[name]
	if td == nil {
		td = &typeDef{name: name, seen: map[string]bool{}}
		types[name] = td
	}
	if !contains(td.from, from) {
		td.from = append(td.from, from)
	}
	for _, f := range fs {
		if f.Name == "" {
			continue
		}
		if td.seen[f.Name] {
			// The same field typed differently by two endpoints: keep the raw JSON.
			for i := range td.fields {
				if td.fields[i].json == f.Name && td.fields[i].goType != goType(f, name, from) {
					td.fields[i].goType = "json.RawMessage"
				}
			}
			continue
		}
		td.seen[f.Name] = true
		td.fields = append(td.fields, fieldDef{json: f.Name, goName: pascal(f.Name), goType: goType(f, name, from)})
	}
	return name
}

func contains(ss []string, s string) bool {
	for _, x := range ss {
		if x == s {
			return true
		}
	}
	return false
}

func childName(parent string, f ref.Field) string {
	if n, ok := globalNames[f.Name]; ok {
		return n
	}
	if f.Name == "result" && strings.HasSuffix(parent, "Collection") && parent != "Collection" {
		return strings.TrimSuffix(parent, "Collection")
	}
	return parent + pascal(f.Name)
}

func goType(f ref.Field, parent, from string) string {
	switch f.Type {
	case "string":
		return "string"
	case "number", "integer":
		switch f.Name {
		case "total", "page", "page_size":
			return "int"
		}
		if f.Type == "integer" {
			return "int64"
		}
		return "json.Number"
	case "boolean":
		return "bool"
	case "object":
		if len(f.Fields) == 0 {
			return "json.RawMessage"
		}
		return "*" + structFor(childName(parent, f), f.Fields, from)
	case "array":
		if f.Elem == nil {
			return "[]json.RawMessage"
		}
		if f.Elem.Type == "object" && len(f.Elem.Fields) > 0 {
			return "[]" + structFor(childName(parent, f), f.Elem.Fields, from)
		}
		e := *f.Elem
		e.Name = f.Name
		t := goType(e, parent, from)
		return "[]" + strings.TrimPrefix(t, "*")
	}
	return "json.RawMessage"
}

type epGen struct {
	ep                   ref.Endpoint
	method, params, resp string
	respIsSlice          bool
	itemType             string // paged endpoints only
}

func main() {
	out := flag.String("out", "endpoints_gen.go", "output file")
	testOut := flag.String("test", "endpoints_gen_test.go", "output test file")
	jsOut := flag.String("js", "", "also write the backend's cloud-code module (server/cloud/web3.gen.js) here")
	flag.Parse()
	o, err := generate()
	if err != nil {
		log.Fatal(err)
	}
	if *jsOut != "" {
		writeFile(*jsOut, o.js)
	}
	writeFile(*out, o.code)
	writeFile(*testOut, o.test)
}

// outputs are the generated files: the endpoint code, its test and the backend's cloud-code module.
type outputs struct{ code, test, js []byte }

// generate renders every output from the reference; the Go files are gofmt-ed. TestGeneratedFilesAreCurrent
// checks that the files in the repository are what it gives.
func generate() (outputs, error) {
	types = map[string]*typeDef{}
	var gens []epGen
	for _, ep := range ref.Endpoints() {
		g := epGen{ep: ep, method: methodName(ep.Name), params: methodName(ep.Name) + "Params"}
		base := g.method + "Response"
		if ep.Schema != "" {
			base = pascal(ep.Schema)
		}
		r := ep.Response
		switch {
		case r.Type == "object":
			g.resp = "*" + structFor(base, r.Fields, ep.Name)
			for _, f := range r.Fields {
				if f.Name == "result" && f.Type == "array" && f.Elem != nil && f.Elem.Type == "object" && paged(ep) {
					g.itemType = strings.TrimPrefix(goType(f, base, ep.Name), "[]")
				}
			}
		case r.Type == "array" && r.Elem != nil && r.Elem.Type == "object":
			g.resp = "[]" + structFor(base, r.Elem.Fields, ep.Name)
			g.respIsSlice = true
		default:
			g.resp = "json.RawMessage"
			g.respIsSlice = true
		}
		gens = append(gens, g)
	}
	var o outputs
	var err error
	if o.code, err = format.Source(render(gens)); err != nil {
		return o, fmt.Errorf("gofmt of the endpoint code: %w", err)
	}
	if o.test, err = format.Source(renderTest(gens)); err != nil {
		return o, fmt.Errorf("gofmt of the endpoint test: %w", err)
	}
	o.js = renderJS()
	return o, nil
}

// paged reports whether the endpoint's answers can be walked page by page: by cursor (it takes one), or by
// offset (it takes one, or its answer has page, page_size and total, which the original client followed with an
// offset whether or not the endpoint listed one).
func paged(ep ref.Endpoint) bool {
	if _, ok := ep.Param("cursor"); ok {
		return true
	}
	if _, ok := ep.Param("offset"); ok {
		return true
	}
	has := map[string]bool{}
	for _, f := range ep.Response.Fields {
		has[f.Name] = true
	}
	return has["page"] && has["page_size"] && has["total"]
}

func writeFile(name string, src []byte) {
	if err := os.WriteFile(name, src, 0o644); err != nil {
		log.Fatal(err)
	}
}

func paramGoType(ep ref.Endpoint, p ref.Param) string {
	if t, ok := bodyTypes[ep.Name+"."+p.Name]; ok {
		return t
	}
	switch p.Type {
	case "number":
		return "*int"
	case "boolean":
		return "*bool"
	case "array":
		return "[]string"
	case "json":
		return "any"
	}
	return "string"
}

func render(gens []epGen) []byte {
	var b bytes.Buffer
	w := func(f string, a ...any) { fmt.Fprintf(&b, f, a...) }
	w("// Code generated by web3api/internal/gen from web3api/internal/ref/endpoints.json; DO NOT EDIT.\n\n")
	w("package web3api\n\nimport (\n\"context\"\n\"encoding/json\"\n\"iter\"\n\"slices\"\n)\n\n")
	w("var _ = slices.Clone[[]string]\n\n")
	// services
	for _, g := range groupOrder {
		t := groupTypes[g]
		w("// %sService groups the %q endpoints of the chain-data API. It is safe for concurrent use.\n", t, g)
		w("type %sService service\n\n", t)
	}
	w("func (c *Client) initServices() {\n")
	for _, g := range groupOrder {
		t := groupTypes[g]
		w("c.%s = (*%sService)(&c.common)\n", t, t)
	}
	w("}\n\n")
	w("// Services holds one service per endpoint group; Client embeds it.\ntype Services struct {\n")
	for _, g := range groupOrder {
		t := groupTypes[g]
		w("// %s holds the %q endpoints.\n%s *%sService\n", t, g, t, t)
	}
	w("}\n\n")
	for _, g := range gens {
		ep := g.ep
		var req []string
		for _, p := range ep.Params {
			if p.Required {
				req = append(req, p.Name)
			}
		}
		w("// %s are the parameters of %s.%s (%s %s).\n", g.params, groupTypes[ep.Group], g.method, ep.Method, ep.Path)
		w("// Unset fields are not sent: an empty string, a nil pointer, a nil slice or map. Numbers and booleans\n// are pointers so that 0 and false can be sent: new(100), new(false). A call reads p and never changes it.\n")
		if len(req) > 0 {
			w("// Required: %s.\n", strings.Join(req, ", "))
		}
		w("type %s struct {\n", g.params)
		for _, p := range ep.Params {
			if pascal(p.Name) == "Extra" {
				log.Fatalf("%s: parameter %q collides with the Extra field", ep.Name, p.Name)
			}
			doc := fmt.Sprintf("%s is the %s parameter %q", pascal(p.Name), p.In, p.Name)
			if p.Required {
				doc += " (required)"
			}
			if p.Name == "chain" {
				doc += "; empty means the API's default, eth"
			}
			if p.Name == "address" && p.In == "path" {
				doc += "; empty means Config.DefaultAddress, if set"
			}
			if p.Type == "array" && p.In == "query" {
				doc += fmt.Sprintf("; sent as %s[]=v1&%s[]=v2", p.Name, p.Name)
			}
			if len(p.Enum) > 0 {
				doc += "; one of " + strings.Join(p.Enum, ", ")
			}
			if d := docText(p.Description); d != "" && p.Name != "chain" {
				doc += ": " + d
			}
			w("// %s.\n%s %s\n", doc, pascal(p.Name), paramGoType(ep, p))
		}
		w("// Extra holds parameters the reference does not list, sent in the query string as the original client\n")
		w("// sent them (see Args); naming a parameter of the endpoint here is an error.\nExtra map[string]any\n")
		w("}\n\n")
		w("func (p *%s) args() (Args, error) {\na := Args{}\nif p == nil {\nreturn a, nil\n}\n", g.params)
		for _, p := range ep.Params {
			f := pascal(p.Name)
			t := paramGoType(ep, p)
			switch {
			case t == "string":
				w("if p.%s != \"\" {\na[%q] = p.%s\n}\n", f, p.Name, f)
			case strings.HasPrefix(t, "*"):
				w("if p.%s != nil {\na[%q] = *p.%s\n}\n", f, p.Name, f)
			case strings.HasPrefix(t, "[]"):
				w("if p.%s != nil {\na[%q] = slices.Clone(p.%s)\n}\n", f, p.Name, f)
			default:
				w("if p.%s != nil {\na[%q] = p.%s\n}\n", f, p.Name, f)
			}
		}
		w("return a.withExtra(%q, p.Extra)\n}\n\n", ep.Name)
		svc := groupTypes[ep.Group] + "Service"
		w("// %s calls %s %s (endpoint %q). p may be nil when nothing is required.\n", g.method, ep.Method, ep.Path, ep.Name)
		ret, outT := "&out", strings.TrimPrefix(g.resp, "*")
		if g.respIsSlice {
			ret, outT = "out", g.resp
		}
		w("func (s *%s) %s(ctx context.Context, p *%s) (%s, error) {\na, err := p.args()\nif err != nil {\nreturn nil, err\n}\nvar out %s\nif err := (*service)(s).cl().Call(ctx, %q, a, &out); err != nil {\nreturn nil, err\n}\nreturn %s, nil\n}\n\n",
			svc, g.method, g.params, g.resp, outT, ep.Name, ret)
		if g.itemType != "" {
			w("// %sIter walks every item of every page of %s,\n// by cursor or by offset as Pages does. It copies p when called and never changes it; it stops when ctx is\n// done, on the first error, or when the caller stops ranging. It is safe for concurrent use.\n", g.method, g.method)
			w("func (s *%s) %sIter(ctx context.Context, p *%s) iter.Seq2[%s, error] {\na, err := p.args()\nreturn pages[%s](ctx, (*service)(s).cl(), %q, a, err)\n}\n\n", svc, g.method, g.params, g.itemType, g.itemType, ep.Name)
		}
	}
	names := make([]string, 0, len(types))
	for n := range types {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		td := types[n]
		w("// %s is a response value of %s.\ntype %s struct {\n", n, strings.Join(td.from, ", "), n)
		for _, f := range td.fields {
			w("%s %s `json:%q`\n", f.goName, f.goType, f.json)
		}
		w("}\n\n")
	}
	return b.Bytes()
}

func exampleLiteral(ep ref.Endpoint, p ref.Param) string {
	t := paramGoType(ep, p)
	switch t {
	case "string":
		v := ""
		if s, ok := p.Example.(string); ok && s != "" {
			v = s
		}
		if v == "" {
			v = map[string]string{
				"address": "0x057ec652a4f150f7ff94f089a38008f49a0df88e", "token_address": "0x2d30ca6f024dbc1307ac8a1a44ca27de6f797ec2",
				"block_number_or_hash": "12386788", "transaction_hash": "0x1ed85b3757a6d31d01a4d6677fc52fd3911d649a0af21fe5ca3f886b153773ed",
				"date": "2021-09-29T13:09:15+00:00", "topic": "0x2caecd17d02f56fa897705dcc740da2d237c373f70686f4e0d9bd3bf0400ea7a",
				"function_name": "balanceOf", "owner_address": "0x057ec652a4f150f7ff94f089a38008f49a0df88e",
				"spender_address": "0x057ec652a4f150f7ff94f089a38008f49a0df88e", "token_id": "15", "q": "Pancake",
				"domain": "brad.crypto", "pair_address": "0xa2107fa5b38d9bbd2c461d6edf11b11a50f6b974",
				"token0_address": "0x2b591e99afe9f32eaa6214f7b7629768c40eeb39", "token1_address": "0xdac17f958d2ee523a2206206994597c13d831ec7",
				"exchange": "uniswapv2",
			}[p.Name]
		}
		if v == "" {
			v = "x"
		}
		return fmt.Sprintf("%q", v)
	case "[]string":
		return `[]string{"0x2d30ca6f024dbc1307ac8a1a44ca27de6f797ec2"}`
	case "*int":
		return "new(1)"
	case "*bool":
		return "new(true)"
	case "[]TokenPriceRequest":
		return `[]web3api.TokenPriceRequest{{TokenAddress: "0x2d30ca6f024dbc1307ac8a1a44ca27de6f797ec2"}}`
	case "[]NFTTokenRef":
		return `[]web3api.NFTTokenRef{{TokenAddress: "0x2d30ca6f024dbc1307ac8a1a44ca27de6f797ec2", TokenID: "1"}}`
	case "[]ContractReview":
		return `[]web3api.ContractReview{{ContractAddress: "0x2d30ca6f024dbc1307ac8a1a44ca27de6f797ec2", Reason: "spam", ReportType: "spam", ContractType: "ERC20"}}`
	case "[]IPFSFileInput":
		return `[]web3api.IPFSFileInput{{Path: "moralis/logo.jpg", Content: "aGVsbG8="}}`
	case "map[string]any":
		return `map[string]any{"owner": "0x057ec652a4f150f7ff94f089a38008f49a0df88e"}`
	}
	return `json.RawMessage(` + "`" + `[{"type":"function","name":"balanceOf","inputs":[{"name":"owner","type":"address"}],"outputs":[{"name":"","type":"uint256"}],"stateMutability":"view"}]` + "`" + `)`
}

func renderTest(gens []epGen) []byte {
	var b bytes.Buffer
	w := func(f string, a ...any) { fmt.Fprintf(&b, f, a...) }
	w("// Code generated by web3api/internal/gen from web3api/internal/ref/endpoints.json; DO NOT EDIT.\n\n")
	w("package web3api_test\n\nimport (\n\"context\"\n\"encoding/json\"\n\"testing\"\n\n\"github.com/c13f5054/moralis-go/web3api\"\n\"github.com/c13f5054/moralis-go/web3api/web3apitest\"\n)\n\n")
	w("var _ json.RawMessage\n\n")
	w("// TestEveryEndpoint calls each of the %d endpoints once through its typed method against web3apitest, which\n// checks the request against the reference; the typed answer must hold every field the server sent.\n", len(gens))
	w("func TestEveryEndpoint(t *testing.T) {\nsrv := web3apitest.NewServer(t)\nc, err := web3api.New(web3api.Config{APIKey: srv.APIKey, BaseURL: srv.URL})\nif err != nil {\nt.Fatal(err)\n}\nctx := context.Background()\n")
	for _, g := range gens {
		ep := g.ep
		w("t.Run(%q, func(t *testing.T) {\np := &web3api.%s{\n", ep.Name, g.params)
		for _, p := range ep.Params {
			if p.Required || p.Name == "chain" {
				if p.Name == "chain" {
					w("Chain: \"eth\",\n")
					continue
				}
				w("%s: %s,\n", pascal(p.Name), exampleLiteral(ep, p))
			}
		}
		w("}\nres, err := c.%s.%s(ctx, p)\nif err != nil {\nt.Fatal(err)\n}\nsrv.CheckDecoded(t, %q, res)\n})\n", groupTypes[ep.Group], g.method, ep.Name)
	}
	w("if n := len(web3api.Endpoints()); n != %d {\nt.Fatalf(\"reference has %%d endpoints, want %d\", n)\n}\n}\n", len(gens), len(gens))
	return b.Bytes()
}

func renderJS() []byte {
	type jsEP struct {
		Name   string   `json:"name"`
		Method string   `json:"method"`
		Path   string   `json:"path"`
		PathP  []string `json:"pathParams"`
		Query  []string `json:"query"`
		Body   []string `json:"body"`
		Whole  string   `json:"wholeBody,omitempty"`
		BodyR  []string `json:"requiredBody,omitempty"`
	}
	var eps []jsEP
	for _, e := range ref.Endpoints() {
		j := jsEP{Name: e.Name, Method: e.Method, Path: e.Path, PathP: []string{}, Query: []string{}, Body: []string{}}
		for _, p := range e.Params {
			switch {
			case p.In == "path":
				j.PathP = append(j.PathP, p.Name)
			case p.In == "query":
				j.Query = append(j.Query, p.Name)
			case p.WholeBody:
				j.Whole = p.Name
			default:
				j.Body = append(j.Body, p.Name)
			}
			if p.In == "body" && p.Required {
				j.BodyR = append(j.BodyR, p.Name)
			}
		}
		eps = append(eps, j)
	}
	var b bytes.Buffer
	b.WriteString("'use strict';\n// Code generated by web3api/internal/gen from web3api/internal/ref/endpoints.json; DO NOT EDIT.\n")
	b.WriteString(jsHead)
	b.WriteString("const ENDPOINTS = [\n")
	for _, e := range eps {
		line, _ := json.Marshal(e)
		b.WriteString("  " + string(line) + ",\n")
	}
	b.WriteString("];\n")
	b.WriteString(jsTail)
	return b.Bytes()
}

const jsHead = `//
// Cloud functions for the chain-data API without an API key in the client (Moralis v1 "no key" mode): the Go
// web3api client POSTs {server}/functions/{endpointName} with the endpoint's parameters (chain defaulting to eth);
// each function here forwards them to the chain-data API as the original client's fetchFromApi did, and returns
// its answer, which Parse wraps in "result":
//   - path parameters fill the path ("required param {name} not provided" when one is missing); body parameters
//     make the JSON body ({} when none is set; "param {key} is required!" for a missing required one);
//   - every other parameter goes to the query string, the endpoint's own in reference order, then the others
//     (ones the reference does not list, such as offset or providerUrl) by name; chain, which the client always
//     adds, only to an endpoint that takes it. The query is written as axios 0.x wrote it, which is what the API
//     reads: an array as name[]=v1&name[]=v2, true/false/0 as text, an object as JSON, a date in ISO form. A
//     parameter may also arrive already named "name[]";
//   - errors carry the original's texts: on HTTP 429 "This Moralis Server is rate-limited because of the plan
//     restrictions. See the details about the current rate and throttle limits: " and the rate headers the
//     answer carried as JSON; else the answer's "message", else "Request failed with status code {status}";
//     without an answer, the network error, else "Web3 API error while calling {url}".
//
// Settings come from the parse-server process environment:
//   WEB3API_URL  the API base (default http://127.0.0.1:18090, where the integration test runs web3apitest)
//   WEB3API_KEY  the API key sent as x-api-key (default web3apitest-key, web3apitest's default key)
// The key is sent in a header only, and never appears in an error.
const BASE = (process.env.WEB3API_URL || 'http://127.0.0.1:18090').replace(/\/+$/, '');
const KEY = process.env.WEB3API_KEY || 'web3apitest-key';
const RATE_HEADERS = ['x-rate-limit-limit', 'x-rate-limit-remaining-ttl', 'x-rate-limit-used',
  'x-rate-limit-remaining-ip-ttl', 'x-rate-limit-ip-used'];
const RATE_LIMIT_MESSAGE = 'This Moralis Server is rate-limited because of the plan restrictions. ' +
  'See the details about the current rate and throttle limits: ';

`

const jsTail = `
const byName = new Map(ENDPOINTS.map(e => [e.name, e]));

function empty(v) {
  return v === undefined || v === null || v === '';
}

function fail(message) {
  return new Parse.Error(Parse.Error.SCRIPT_FAILED, message);
}

// axiosEscape escapes a query name or value as axios 0.x did: encodeURIComponent, then ":", "$", ",", "[" and
// "]" written plainly and a space as "+".
function axiosEscape(s) {
  return encodeURIComponent(s).replace(/%3A/gi, ':').replace(/%24/g, '$').replace(/%2C/gi, ',')
    .replace(/%20/g, '+').replace(/%5B/gi, '[').replace(/%5D/gi, ']');
}

// queryText is the query text of one value as axios wrote it: a date in ISO form, an object as JSON, null as
// "null" (inside an array), anything else as String(v).
function queryText(v) {
  if (v instanceof Date) return v.toISOString();
  if (v !== null && typeof v === 'object') return JSON.stringify(v);
  return String(v);
}

// addQuery appends name=value (an array: name[]=v for each element, nothing for an empty one) to parts.
function addQuery(parts, name, v) {
  if (Array.isArray(v)) {
    for (const x of v) parts.push(axiosEscape(name + '[]') + '=' + axiosEscape(queryText(x)));
    return;
  }
  parts.push(axiosEscape(name) + '=' + axiosEscape(queryText(v)));
}

// normalize returns a copy of params in which a parameter sent as "name[]" is named "name" (as an array).
function normalize(params) {
  const out = {};
  for (const [k, v] of Object.entries(params || {})) {
    if (k.endsWith('[]') && k.length > 2) {
      const base = k.slice(0, -2);
      if (empty(params[base])) out[base] = Array.isArray(v) ? v : [v];
      continue;
    }
    if (!(k in out)) out[k] = v;
  }
  return out;
}

// truthyText is the text of v when JavaScript finds it truthy (objects as JSON), else null.
function truthyText(v) {
  if (!v) return null;
  return typeof v === 'object' ? JSON.stringify(v) : String(v);
}

// buildRequest makes the path, query string and body (undefined: none) of a call of ep with params.
function buildRequest(ep, params) {
  params = normalize(params);
  let path = ep.path;
  for (const p of ep.pathParams) {
    if (empty(params[p])) throw fail('required param ' + p + ' not provided');
    path = path.replace(':' + p, encodeURIComponent(String(params[p])));
  }
  let body;
  if (ep.wholeBody || ep.body.length > 0) {
    for (const k of ep.requiredBody || []) {
      if (empty(params[k])) throw fail('param ' + k + ' is required!');
    }
    if (ep.wholeBody) {
      body = empty(params[ep.wholeBody]) ? '{}' : JSON.stringify(params[ep.wholeBody]);
    } else {
      const b = {};
      for (const k of ep.body) if (!empty(params[k])) b[k] = params[k];
      body = JSON.stringify(b);
    }
  }
  const known = new Set([...ep.pathParams, ...ep.query, ...ep.body]);
  if (ep.wholeBody) known.add(ep.wholeBody);
  const parts = [];
  for (const q of ep.query) {
    if (!empty(params[q])) addQuery(parts, q, params[q]);
  }
  const extra = Object.keys(params).filter(k => !known.has(k) && k !== 'chain').sort();
  for (const k of extra) {
    if (!empty(params[k])) addQuery(parts, k, params[k]);
  }
  return { path, query: parts.join('&'), body };
}

async function callEndpoint(ep, params) {
  const { path, query, body } = buildRequest(ep, params);
  const url = BASE + path;
  const headers = { 'x-api-key': KEY, accept: 'application/json' };
  if (body !== undefined) headers['content-type'] = 'application/json';
  let res;
  try {
    res = await fetch(query ? url + '?' + query : url, { method: ep.method, headers, body });
  } catch (e) {
    throw fail((e && e.message) || 'Web3 API error while calling ' + url);
  }
  const text = await res.text();
  let json;
  try {
    json = text ? JSON.parse(text) : null;
  } catch (e) {
    json = text; // axios handed an unparseable answer on as its text
  }
  if (res.status === 429) {
    const limits = {};
    for (const h of RATE_HEADERS) {
      const v = res.headers.get(h);
      if (v !== null) limits[h] = v;
    }
    throw fail(RATE_LIMIT_MESSAGE + JSON.stringify(limits));
  }
  if (res.status < 200 || res.status > 299) {
    throw fail(truthyText(json && json.message) || 'Request failed with status code ' + res.status);
  }
  return json;
}

for (const ep of ENDPOINTS) {
  Parse.Cloud.define(ep.name, req => callEndpoint(ep, req.params));
}

// The older cloud functions of the spec, built on the endpoints above.
const call = (name, params) => callEndpoint(byName.get(name), params);

// getAllERC20 (chain, address): the native balance first, then every ERC-20 balance.
Parse.Cloud.define('getAllERC20', async req => {
  const { chain = 'eth', address } = req.params;
  const [native, tokens] = await Promise.all([
    call('getNativeBalance', { chain, address }),
    call('getTokenBalances', { chain, address }),
  ]);
  return [{ name: chain, symbol: chain, decimals: '18', balance: native.balance, tokenAddress: null }].concat(
    tokens.map(t => ({ ...t, tokenAddress: t.token_address })));
});

// getERC20 (chain, address, symbol, tokenAddress): one balance, by token address or symbol.
Parse.Cloud.define('getERC20', async req => {
  const { chain = 'eth', address, symbol, tokenAddress } = req.params;
  if (empty(tokenAddress) && empty(symbol)) {
    const native = await call('getNativeBalance', { chain, address });
    return { name: chain, symbol: chain, decimals: '18', balance: native.balance, tokenAddress: null };
  }
  const tokens = await call('getTokenBalances', { chain, address, token_addresses: empty(tokenAddress) ? undefined : [tokenAddress] });
  const hit = tokens.find(t => (!empty(tokenAddress) && t.token_address.toLowerCase() === String(tokenAddress).toLowerCase()) ||
    (!empty(symbol) && t.symbol === symbol));
  return hit ? { ...hit, tokenAddress: hit.token_address } : null;
});

// allPages returns the items of every page of a listing, followed as the original client's next() did: by the
// cursor while there is one; else, when the answer has page, page_size and total and total > page_size x
// (page+1), by offset = (page+1) x (limit, or else the page size the API answered: the original's fallback of
// 500 would skip items when the API's pages are smaller). It stops at a repeated cursor, at a page number that
// does not grow (the API ignored the offset) and at an empty page.
async function allPages(name, params) {
  const out = [];
  const seen = new Set();
  let p = { ...params };
  let lastPage = -1;
  for (;;) {
    const page = (await call(name, p)) || {};
    const items = Array.isArray(page.result) ? page.result : [];
    out.push(...items);
    if (page.cursor) {
      if (seen.has(page.cursor)) return out;
      seen.add(page.cursor);
      p = { ...p, cursor: page.cursor };
      continue;
    }
    const n = Number(page.page);
    const size = Number(page.page_size);
    const total = Number(page.total);
    if (empty(page.page) || !Number.isInteger(n) || !size || !(total > size * (n + 1)) || items.length === 0 || n <= lastPage) {
      return out;
    }
    lastPage = n;
    p = { ...p, offset: (n + 1) * (Number(p.limit) > 0 ? Number(p.limit) : size) };
  }
}

// getNFTs_old / getNFTsCount_old (chain, address): every NFT of the address, and how many.
Parse.Cloud.define('getNFTs_old', req => allPages('getNFTs', { chain: req.params.chain || 'eth', address: req.params.address }));
Parse.Cloud.define('getNFTsCount_old', async req =>
  (await allPages('getNFTs', { chain: req.params.chain || 'eth', address: req.params.address })).length);

// getTransactions (chain, address, order) is the endpoint of the same name above (one page, with a cursor; the
// spec's order parameter, which the reference does not list, is forwarded like any other). getTransactionsCount
// (chain, address) counts all pages.
Parse.Cloud.define('getTransactionsCount', async req =>
  (await allPages('getTransactions', { chain: req.params.chain || 'eth', address: req.params.address })).length);

module.exports = { ENDPOINTS, callEndpoint, buildRequest, allPages };
`

// docText makes a published description fit a Go comment: links dropped, one line, no trailing period.
func docText(d string) string {
	d = strings.Join(strings.Fields(d), " ")
	for {
		i := strings.Index(d, "](")
		if i < 0 {
			break
		}
		j := strings.Index(d[i:], ")")
		open := strings.LastIndex(d[:i], "[")
		if j < 0 || open < 0 {
			break
		}
		d = d[:open] + d[open+1:i] + d[i+j+1:]
	}
	d = strings.TrimRight(d, ". ")
	if len(d) > 300 {
		d = d[:300] + "…"
	}
	return d
}
