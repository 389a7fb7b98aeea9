package store

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/c13f5054/moralis-go/parse"
	"github.com/c13f5054/moralis-go/query"
)

// RunQuery runs a find over all stored objects of req.ClassName, evaluated locally; it makes *Store a
// parse.QueryRunner, so a query built with package query runs here or on the server alike. Supported: equality,
// $eq $ne $lt $lte $gt $gte $in $nin $exists $regex (+$options i, m, s, x) $all $containedBy, $or $and $nor, dotted
// keys into object fields, the geo constraints $nearSphere (+$maxDistance), $within $box, $geoWithin $polygon and
// $centerSphere, $geoIntersects $point (with the server's semantics, see "Geo queries" in the package doc), order
// (several keys, "-" for descending; missing values last when ascending, first when descending, as on PostgreSQL;
// a top-level $nearSphere orders by distance instead), skip, limit (default 100, as on the server), count, keys,
// excludeKeys, include (of pinned objects). Anything else ($relatedTo, $inQuery, $text, aggregate, ...) gives an
// error wrapping ErrUnsupportedQuery. The results are handed over as fresh objects in Response.Objects (Results
// stays empty); each belongs to the caller. Safe for concurrent use.
func (s *Store) RunQuery(ctx context.Context, req *parse.QueryRequest) (*parse.QueryResponse, error) {
	return s.run(ctx, req, "")
}

// FromPin returns a parse.QueryRunner over the objects of one pin list only (the original's fromPinWithName;
// "" or "_default" is the default pin).
func (s *Store) FromPin(name string) parse.QueryRunner { return pinRunner{s: s, pin: PinKey(name)} }

type pinRunner struct {
	s   *Store
	pin string
}

// RunQuery runs req over the pin list's objects only.
func (p pinRunner) RunQuery(ctx context.Context, req *parse.QueryRequest) (*parse.QueryResponse, error) {
	return p.s.run(ctx, req, p.pin)
}

type plan struct {
	where   map[string]any
	order   []string
	limit   int
	skip    int
	count   bool
	keys    []string
	exclude []string
	include []string
}

func parseRequest(req *parse.QueryRequest) (*plan, error) {
	if req == nil || req.ClassName == "" {
		return nil, fmt.Errorf("store: query without a class name")
	}
	if req.Op != "" && req.Op != query.OpFind {
		return nil, unsupported("operation %q (only find runs locally)", req.Op)
	}
	p := &plan{limit: DefaultLimit, where: map[string]any{}}
	for k, v := range req.Params {
		switch k {
		case "where":
			where, err := whereMap(v)
			if err != nil {
				return nil, err
			}
			p.where = where
		case "order":
			for _, o := range splitList(v) {
				key := strings.TrimPrefix(o, "-")
				if key == "" || strings.HasPrefix(key, "$") {
					return nil, unsupported("order %q", o)
				}
				p.order = append(p.order, o)
			}
		case "limit":
			n, err := toInt("limit", v)
			if err != nil {
				return nil, err
			}
			p.limit = n
		case "skip":
			n, err := toInt("skip", v)
			if err != nil {
				return nil, err
			}
			if n < 0 {
				return nil, fmt.Errorf("store: skip must not be negative")
			}
			p.skip = n
		case "count":
			switch x := v.(type) {
			case bool:
				p.count = x
			default:
				n, err := toInt("count", v)
				if err != nil {
					return nil, err
				}
				p.count = n != 0
			}
		case "keys":
			p.keys = splitList(v)
			if p.keys == nil {
				p.keys = []string{}
			}
		case "excludeKeys":
			p.exclude = splitList(v)
		case "include":
			p.include = splitList(v)
		case "readPreference", "includeReadPreference", "subqueryReadPreference", "hint":
			// meaningless locally
		default:
			return nil, unsupported("parameter %q", k)
		}
	}
	return p, nil
}

func whereMap(v any) (map[string]any, error) {
	switch x := v.(type) {
	case nil:
		return map[string]any{}, nil
	case map[string]any:
		return x, nil
	case string:
		var m map[string]any
		if err := json.Unmarshal([]byte(x), &m); err != nil {
			return nil, fmt.Errorf("store: where parameter is not valid JSON: %w", err)
		}
		return m, nil
	case json.RawMessage:
		return whereMap(string(x))
	}
	b, err := json.Marshal(v)
	if err != nil {
		return nil, fmt.Errorf("store: where parameter: %w", err)
	}
	return whereMap(string(b))
}

func splitList(v any) []string {
	var parts []string
	switch x := v.(type) {
	case string:
		parts = strings.Split(x, ",")
	case []string:
		parts = x
	case []any:
		for _, e := range x {
			if s, ok := e.(string); ok {
				parts = append(parts, s)
			}
		}
	}
	var out []string
	for _, p := range parts {
		if p = strings.TrimSpace(p); p != "" {
			out = append(out, p)
		}
	}
	return out
}

func (s *Store) run(ctx context.Context, req *parse.QueryRequest, pin string) (*parse.QueryResponse, error) {
	if err := s.enabled(ctx, "RunQuery"); err != nil {
		return nil, err
	}
	p, err := parseRequest(req)
	if err != nil {
		return nil, err
	}
	recs, arrays, err := s.snapshot(req.ClassName, p.where)
	if err != nil {
		return nil, err
	}
	match, err := compileWhere(p.where, arrays)
	if err != nil {
		return nil, err
	}
	if err := checkGeoValues(p.where, recs); err != nil {
		return nil, err
	}
	var inPin map[string]bool
	if pin != "" {
		inPin = map[string]bool{}
		if err := s.kv.view(func(tx kvTx) error {
			return tx.each(bref{bPins, pin}, func(_ string, v []byte) error {
				if class, id, ok := splitPinValue(v); ok && class == req.ClassName {
					inPin[id] = true
				}
				return nil
			})
		}); err != nil {
			return nil, err
		}
	}
	var hits []*record
	for i, r := range recs {
		if i%4096 == 0 && ctx.Err() != nil {
			return nil, ctx.Err()
		}
		if inPin != nil && !inPin[r.id] {
			continue
		}
		if match(r) {
			hits = append(hits, r)
		}
	}
	resp := &parse.QueryResponse{}
	if p.count {
		resp.Count, resp.HasCount = len(hits), true
	}
	// A top-level $nearSphere orders by distance and replaces the order, as on the server.
	if near := nearOrder(p.where); len(near) > 0 {
		sortByDistance(hits, near)
	} else if len(p.order) > 0 {
		sortRecords(hits, p.order)
	}
	if p.skip >= len(hits) {
		hits = nil
	} else {
		hits = hits[p.skip:]
	}
	if p.limit >= 0 && p.limit < len(hits) {
		hits = hits[:p.limit]
	}
	// Results are handed over as fresh objects (parse.QueryResponse.Objects), so that no result is encoded here and
	// decoded again by the query package.
	resp.Objects = make([]*parse.Object, 0, len(hits))
	scratch := map[string]any{}
	for i, r := range hits {
		if i%4096 == 0 && ctx.Err() != nil {
			return nil, ctx.Err()
		}
		o, err := s.render(r, p, scratch)
		if err != nil {
			return nil, err
		}
		resp.Objects = append(resp.Objects, o)
	}
	return resp, nil
}

// sortRecords orders by the keys of order, "-" meaning descending. As on PostgreSQL, a missing value comes after
// every value when ascending and before when descending. Ties keep the store's order (by id). Each record's sort
// values are looked up once.
func sortRecords(recs []*record, order []string) {
	names := make([]string, len(order))
	desc := make([]bool, len(order))
	for i, o := range order {
		names[i], desc[i] = strings.TrimPrefix(o, "-"), strings.HasPrefix(o, "-")
	}
	type row struct {
		r    *record
		vals []any // nil entry: missing
	}
	rows := make([]row, len(recs))
	flat := make([]any, len(recs)*len(names))
	for i, r := range recs {
		vals := flat[i*len(names) : (i+1)*len(names) : (i+1)*len(names)]
		for j, n := range names {
			if v, ok := lookup(r, n); ok {
				vals[j] = v
			}
		}
		rows[i] = row{r, vals}
	}
	sort.SliceStable(rows, func(i, j int) bool {
		for k := range names {
			a, b := rows[i].vals[k], rows[j].vals[k]
			var c int
			switch {
			case a == nil && b == nil:
				c = 0
			case a == nil:
				c = 1 // NULL is the largest value
			case b == nil:
				c = -1
			default:
				var ok bool
				if c, ok = compare(a, b); !ok {
					c = strings.Compare(fmt.Sprint(a), fmt.Sprint(b))
				}
			}
			if desc[k] {
				c = -c
			}
			if c != 0 {
				return c < 0
			}
		}
		return false
	})
	for i := range rows {
		recs[i] = rows[i].r
	}
}

// always are the keys every result keeps, whatever "keys" says.
var always = []string{"objectId", "createdAt", "updatedAt", "_localId"}

func (s *Store) render(r *record, p *plan, scratch map[string]any) (*parse.Object, error) {
	if p.keys == nil && len(p.exclude) == 0 && len(p.include) == 0 {
		return r.object(scratch)
	}
	m, err := r.decoded()
	if err != nil {
		return nil, err
	}
	if p.keys != nil {
		keep := map[string]bool{}
		for _, k := range p.keys {
			keep[strings.SplitN(k, ".", 2)[0]] = true
		}
		for k := range m {
			if !keep[k] && !slices.Contains(always, k) {
				delete(m, k)
			}
		}
	}
	for _, k := range p.exclude {
		if !slices.Contains(always, k) {
			delete(m, k)
		}
	}
	for _, inc := range p.include {
		s.includePath(m, strings.Split(inc, "."))
	}
	raw, err := json.Marshal(m)
	if err != nil {
		return nil, fmt.Errorf("store: encoding %s: %w", r.key(), err)
	}
	o := parse.NewObject(r.class)
	if err := o.UnmarshalJSON(raw); err != nil {
		return nil, fmt.Errorf("store: decoding %s: %w", r.key(), err)
	}
	return o, nil
}

// includePath replaces the pointers at path with the stored objects they point to (when stored).
func (s *Store) includePath(m map[string]any, path []string) {
	v, ok := m[path[0]]
	if !ok {
		return
	}
	resolve := func(v any) any {
		pm, ok := v.(map[string]any)
		if !ok {
			return v
		}
		var full map[string]any
		switch pm["__type"] {
		case "Pointer":
			c, _ := pm["className"].(string)
			id, _ := pm["objectId"].(string)
			recs, err := s.records(c, []string{id})
			if err != nil || len(recs) == 0 {
				return v
			}
			d, err := recs[0].decoded()
			if err != nil {
				return v
			}
			full = d
			full["__type"], full["className"] = "Object", c
		case "Object":
			full = make(map[string]any, len(pm))
			for k, e := range pm {
				full[k] = e
			}
		default:
			return v
		}
		if len(path) > 1 {
			s.includePath(full, path[1:])
		}
		return full
	}
	if arr, ok := v.([]any); ok {
		out := make([]any, len(arr))
		for i, e := range arr {
			out[i] = resolve(e)
		}
		m[path[0]] = out
		return
	}
	m[path[0]] = resolve(v)
}
