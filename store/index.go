package store

import (
	"sort"
	"strings"
	"time"
)

// Equality indexes. A query whose where map has, at its top level, an equality (or $eq, or a non-empty $in) on a
// plain field with scalar values reads its candidates from an index of that field instead of scanning the class;
// the full matcher still runs on every candidate, so the index only narrows the scan. An index is built on first
// use from the class's records (one pass) and dropped when the class changes.

// ikey is an index key: one scalar value.
type ikey struct {
	kind byte // 's' string, 'n' number, 'b' bool, 't' date, 'r' reference
	s    string
	n    float64
	t    int64
}

func indexKey(v any) (ikey, bool) {
	switch x := v.(type) {
	case string:
		return ikey{kind: 's', s: x}, true
	case float64:
		return ikey{kind: 'n', n: x}, true
	case bool:
		if x {
			return ikey{kind: 'b', n: 1}, true
		}
		return ikey{kind: 'b'}, true
	case time.Time:
		return ikey{kind: 't', t: x.UnixNano()}, true
	case ref:
		return ikey{kind: 'r', s: x.class + "\x00" + x.id}, true
	}
	return ikey{}, false
}

type fieldIndex map[ikey][]*record

// indexable finds, in a where map, a top-level field whose condition can be answered from an index, and the
// values to look up. objectId is preferred.
func indexable(where map[string]any) (field string, wants []ikey, ok bool) {
	best := ""
	var bestWants []ikey
	for k, v := range where {
		if strings.HasPrefix(k, "$") || strings.Contains(k, ".") {
			continue
		}
		var vals []any
		if m, isMap := v.(map[string]any); isMap {
			if !isCondition(m) {
				if _, typed := m["__type"]; !typed {
					continue
				}
				vals = []any{v}
			} else if eq, has := m["$eq"]; has {
				vals = []any{eq}
			} else if in, has := m["$in"].([]any); has && len(in) > 0 {
				vals = in
			} else if all, has := m["$all"].([]any); has && len(all) > 0 {
				vals = all[:1] // every match holds the first value
			} else {
				continue
			}
		} else {
			vals = []any{v}
		}
		ks := make([]ikey, 0, len(vals))
		good := true
		for _, x := range vals {
			ik, isKey := indexKey(norm(x))
			if !isKey {
				good = false
				break
			}
			ks = append(ks, ik)
		}
		if !good {
			continue
		}
		if best == "" || k == "objectId" || (best != "objectId" && len(ks) < len(bestWants)) {
			best, bestWants = k, ks
		}
	}
	return best, bestWants, best != ""
}

// plan returns the records a where map can match, from the indexes: an indexable top-level condition, or a $or
// whose every branch has one, or a $and with one such branch. ok is false when the class must be scanned.
func (c *classCache) plan(where map[string]any) (recs []*record, ok bool) {
	if field, wants, ok := indexable(where); ok {
		return c.candidates(field, wants), true
	}
	if and, isList := where["$and"].([]any); isList {
		for _, b := range and {
			if m, isMap := b.(map[string]any); isMap {
				if recs, ok := c.plan(m); ok {
					return recs, true
				}
			}
		}
	}
	or, isList := where["$or"].([]any)
	if !isList || len(or) == 0 {
		return nil, false
	}
	seen := map[*record]bool{}
	for _, b := range or {
		m, isMap := b.(map[string]any)
		if !isMap {
			return nil, false
		}
		part, ok := c.plan(m)
		if !ok {
			return nil, false
		}
		for _, r := range part {
			if !seen[r] {
				seen[r] = true
				recs = append(recs, r)
			}
		}
	}
	sort.Slice(recs, func(i, j int) bool { return recs[i].id < recs[j].id })
	return recs, true
}

// candidates returns the records of class whose field holds one of wants (an array field: contains one), in id
// order. Call with s.mu held, after snapshot has built the class list.
func (c *classCache) candidates(field string, wants []ikey) []*record {
	if c.idx == nil {
		c.idx = map[string]fieldIndex{}
	}
	fi, ok := c.idx[field]
	if !ok {
		fi = fieldIndex{}
		for _, r := range c.list {
			v, has := r.get(field)
			if !has {
				continue
			}
			if arr, isArr := v.([]any); isArr {
				seen := map[ikey]bool{}
				for _, e := range arr {
					if k, ok := indexKey(e); ok && !seen[k] {
						seen[k] = true
						fi[k] = append(fi[k], r)
					}
				}
				continue
			}
			if k, ok := indexKey(v); ok {
				fi[k] = append(fi[k], r)
			}
		}
		c.idx[field] = fi
	}
	if len(wants) == 1 {
		return fi[wants[0]]
	}
	seen := map[*record]bool{}
	var out []*record
	for _, w := range wants {
		for _, r := range fi[w] {
			if !seen[r] {
				seen[r] = true
				out = append(out, r)
			}
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].id < out[j].id })
	return out
}
