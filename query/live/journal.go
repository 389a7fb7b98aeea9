package live

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"sort"
	"time"

	"github.com/c13f5054/moralis-go/parse"
	"github.com/redis/go-redis/v9"
)

// The journal defaults (SSEConfig.JournalLength, JournalTTL).
const (
	DefaultJournalLength = 10000
	DefaultJournalTTL    = 10 * time.Minute
)

// journalPage is how many entries one read of a journal returns; a replay reads page after page.
const journalPage = 500

// Resync reasons, the "reason" of a resync event.
const (
	resyncUnknown = "unknown-event-id" // not an id this bridge writes (another bridge, another configuration)
	resyncExpired = "expired"          // the journal or the entry is gone (time or length retention)
)

// eventIDRE is the SSE id of a journaled event: the journal's nonce, "/", the Redis stream entry id.
var eventIDRE = regexp.MustCompile(`^([0-9a-f]{32})/([0-9]{1,20}-[0-9]{1,20})$`)

// journal is one stream's events in Redis, so that any bridge sharing the Redis can resume it: a Redis stream
// (XADD MAXLEN ~ length, the entry ids being the SSE ids) and a hash of the result set it describes (objectId to
// "+" or "-" and the version, the updatedAt of the last recorded change), both expiring ttl after the last write.
// The keys are named from the SHA-256 of the session token, the class, the where and a random nonce, so an id
// from another session or query names no journal.
type journal struct {
	rdb    redis.UniversalClient
	length int64
	ttl    time.Duration
	class  string
	nonce  string
	stream string // the stream's key
	state  string // the hash's key
	cursor string // the last entry id sent
}

func newJournal(rdb redis.UniversalClient, length int64, ttl time.Duration, token, class string, where map[string]any, nonce string) *journal {
	w, _ := json.Marshal(where) // a map from json.Unmarshal always marshals; keys come out sorted
	h := sha256.New()
	for _, part := range []string{token, class, string(w), nonce} {
		h.Write([]byte(part))
		h.Write([]byte{0})
	}
	name := "moralis:live:{" + hex.EncodeToString(h.Sum(nil)[:16]) + "}"
	return &journal{rdb: rdb, length: length, ttl: ttl, class: class, nonce: nonce, stream: name + ":s", state: name + ":o"}
}

func newNonce() (string, error) {
	var b [16]byte
	if _, err := rand.Read(b[:]); err != nil {
		return "", err
	}
	return hex.EncodeToString(b[:]), nil
}

// sseID is the SSE id of entry id.
func (j *journal) sseID(id string) string { return j.nonce + "/" + id }

// version is an object's updatedAt as a fixed-width string, so Lua compares versions as strings.
func version(o *parse.Object) string {
	if o == nil {
		return fmt.Sprintf("%020d", 0)
	}
	return fmt.Sprintf("%020d", o.UpdatedAt().UnixNano())
}

// recordScript appends one change unless the journal already holds it or a newer version of the object, and
// returns the entries after the cursor (at most a page). KEYS: stream, state. ARGV: length, ttl ms, kind,
// objectId, version, data, cursor, page. An object enters (create, enter, update) with a version newer than the
// recorded one, and goes (leave, delete) only when recorded in, at that version or later: so the bridge that held
// the stream before, the catch-up from a fresh query and the live events may all record the same change, and it
// is appended once, in the object's order.
var recordScript = redis.NewScript(`
local rec = redis.call('HGET', KEYS[2], ARGV[4])
local ru, rin = '', false
if rec then ru = string.sub(rec, 2); rin = string.sub(rec, 1, 1) == '+' end
local kind, v = ARGV[3], ARGV[5]
local ok
if kind == 'leave' or kind == 'delete' then
  ok = rec and rin and v >= ru
  if ok then redis.call('HSET', KEYS[2], ARGV[4], '-' .. v) end
else
  ok = (not rec) or v > ru
  if ok then redis.call('HSET', KEYS[2], ARGV[4], '+' .. v) end
end
if ok then
  redis.call('XADD', KEYS[1], 'MAXLEN', '~', ARGV[1], '*', 'k', kind, 'd', ARGV[6])
end
redis.call('PEXPIRE', KEYS[1], ARGV[2])
redis.call('PEXPIRE', KEYS[2], ARGV[2])
return redis.call('XRANGE', KEYS[1], '(' .. ARGV[7], '+', 'COUNT', ARGV[8])
`)

// openScript starts a journal: the result set (ARGV[3..] as objectId, version pairs) and a first entry "open",
// whose id is the snapshot's. KEYS: stream, state. ARGV: length, ttl ms, pairs...
var openScript = redis.NewScript(`
redis.call('DEL', KEYS[1], KEYS[2])
for i = 3, #ARGV, 2 do redis.call('HSET', KEYS[2], ARGV[i], '+' .. ARGV[i + 1]) end
local id = redis.call('XADD', KEYS[1], 'MAXLEN', '~', ARGV[1], '*', 'k', 'open', 'd', '')
redis.call('PEXPIRE', KEYS[1], ARGV[2])
redis.call('PEXPIRE', KEYS[2], ARGV[2])
return id
`)

// open starts the journal with the subscription's result set; the returned id is the snapshot's.
func (j *journal) open(ctx context.Context, objs []*parse.Object) (string, error) {
	args := make([]any, 0, 2+2*len(objs))
	args = append(args, j.length, j.ttl.Milliseconds())
	for _, o := range objs {
		args = append(args, o.ID(), version(o))
	}
	id, err := openScript.Run(ctx, j.rdb, []string{j.stream, j.state}, args...).Text()
	if err != nil {
		return "", fmt.Errorf("live: journal: %w", err)
	}
	j.cursor = id
	return id, nil
}

// resumable reports whether entry id is still in the journal: then every entry after it is too (the stream is
// trimmed from its head, and expires as a whole).
func (j *journal) resumable(ctx context.Context, id string) (bool, error) {
	msgs, err := j.rdb.XRange(ctx, j.stream, id, id).Result()
	if err != nil {
		return false, fmt.Errorf("live: journal: %w", err)
	}
	return len(msgs) == 1, nil
}

// entry is a journaled event to send.
type entry struct {
	id, kind string
	data     []byte
}

func entries(msgs []redis.XMessage) []entry {
	out := make([]entry, 0, len(msgs))
	for _, m := range msgs {
		k, _ := m.Values["k"].(string)
		d, _ := m.Values["d"].(string)
		if k == "" || k == "open" {
			continue
		}
		out = append(out, entry{id: m.ID, kind: k, data: []byte(d)})
	}
	return out
}

// record appends ev (unless already recorded) and returns the page of entries after the cursor, which it moves.
// full is true when the page was full (read again with next).
func (j *journal) record(ctx context.Context, c change) (es []entry, full bool, err error) {
	ev := c.ev
	data, err := eventData(ev)
	if err != nil {
		return nil, false, err
	}
	res, err := recordScript.Run(ctx, j.rdb, []string{j.stream, j.state}, j.length, j.ttl.Milliseconds(),
		string(ev.Kind), ev.Object.ID(), c.v, string(data), j.cursor, journalPage).Slice()
	if err != nil {
		return nil, false, fmt.Errorf("live: journal: %w", err)
	}
	msgs, err := xmessages(res)
	if err != nil {
		return nil, false, err
	}
	return j.advance(msgs), len(msgs) == journalPage, nil
}

// next returns the page of entries after the cursor and moves it, refreshing the journal's expiry.
func (j *journal) next(ctx context.Context) (es []entry, full bool, err error) {
	pipe := j.rdb.Pipeline()
	rng := pipe.XRangeN(ctx, j.stream, "("+j.cursor, "+", journalPage)
	pipe.PExpire(ctx, j.stream, j.ttl)
	pipe.PExpire(ctx, j.state, j.ttl)
	if _, err := pipe.Exec(ctx); err != nil {
		return nil, false, fmt.Errorf("live: journal: %w", err)
	}
	msgs := rng.Val()
	return j.advance(msgs), len(msgs) == journalPage, nil
}

func (j *journal) advance(msgs []redis.XMessage) []entry {
	if len(msgs) > 0 {
		j.cursor = msgs[len(msgs)-1].ID
	}
	return entries(msgs)
}

// xmessages reads XRANGE's reply as returned by a script: [[id, [field, value, ...]], ...].
func xmessages(res []any) ([]redis.XMessage, error) {
	out := make([]redis.XMessage, 0, len(res))
	for _, r := range res {
		pair, ok := r.([]any)
		if !ok || len(pair) != 2 {
			return nil, errors.New("live: journal: unexpected reply")
		}
		id, _ := pair[0].(string)
		kv, _ := pair[1].([]any)
		vals := make(map[string]any, len(kv)/2)
		for i := 0; i+1 < len(kv); i += 2 {
			k, _ := kv[i].(string)
			vals[k] = kv[i+1]
		}
		out = append(out, redis.XMessage{ID: id, Values: vals})
	}
	return out, nil
}

// change is an event to record with the object's version.
type change struct {
	ev Event
	v  string
}

// catchUp lists what changed between the journal's result set and the subscription's (a bridge that held the
// stream may have died before recording the last changes): enter or update for objects new or newer, leave for
// objects gone, in the order of their versions. Changes already recorded are skipped by record.
func (j *journal) catchUp(ctx context.Context, now []*parse.Object) ([]change, error) {
	rec, err := j.rdb.HGetAll(ctx, j.state).Result()
	if err != nil {
		return nil, fmt.Errorf("live: journal: %w", err)
	}
	var out []change
	seen := make(map[string]bool, len(now))
	for _, o := range now {
		seen[o.ID()] = true
		r, had := rec[o.ID()]
		switch {
		case !had || r == "" || r[0] == '-':
			out = append(out, change{Event{Kind: Enter, Object: o, CatchUp: true}, version(o)})
		case r[1:] < version(o):
			out = append(out, change{Event{Kind: Update, Object: o, CatchUp: true}, version(o)})
		}
	}
	for id, r := range rec {
		if !seen[id] && r != "" && r[0] == '+' {
			// Only the id is known: the object left the result set (or was deleted) while no bridge recorded.
			out = append(out, change{Event{Kind: Leave, Object: parse.NewObjectWithID(j.class, id), CatchUp: true}, r[1:]})
		}
	}
	sort.Slice(out, func(a, b int) bool {
		if out[a].v != out[b].v {
			return out[a].v < out[b].v
		}
		return out[a].ev.Object.ID() < out[b].ev.Object.ID()
	})
	return out, nil
}

// serveJournaled runs a stream whose events go through a journal (SSEConfig.Redis): a fresh stream (no
// Last-Event-ID) starts a journal and sends the snapshot; a reconnect with the id of an event still in its journal
// records what changed while no bridge was recording and replays every entry after that id, with no snapshot; any
// other id gets a resync event, then a fresh journal and snapshot. Then each subscription event is recorded and
// every entry after the last one sent goes out, in the journal's order; each heartbeat also reads entries other
// bridges added. It returns when the browser goes away or Redis fails (the browser then reconnects and resumes).
func serveJournaled(ctx context.Context, cfg *SSEConfig, out *sseWriter, sub *Subscription, token, class string,
	where map[string]any, lastID string) {
	send := func(es []entry) error {
		for _, e := range es {
			if err := out.eventID(e.id, e.kind, e.data); err != nil {
				return err
			}
		}
		return nil
	}
	// drain sends the page es, then the following pages while they come full.
	var j *journal
	drain := func(es []entry, full bool, err error) error {
		for {
			if err != nil {
				return err
			}
			if err := send(prefixed(j, es)); err != nil {
				return err
			}
			if !full {
				return nil
			}
			es, full, err = j.next(ctx)
		}
	}
	reason := ""
	if lastID != "" {
		var m []string
		if len(lastID) <= 80 {
			m = eventIDRE.FindStringSubmatch(lastID)
		}
		if m == nil {
			reason = resyncUnknown
		} else {
			j = newJournal(cfg.Redis, cfg.JournalLength, cfg.JournalTTL, token, class, where, m[1])
			ok, err := j.resumable(ctx, m[2])
			if err != nil {
				return
			}
			if !ok {
				reason, j = resyncExpired, nil
			} else {
				j.cursor = m[2]
			}
		}
	}
	if j != nil {
		changes, err := j.catchUp(ctx, sub.Snapshot())
		if err != nil {
			return
		}
		for _, c := range changes {
			if drain(j.record(ctx, c)) != nil {
				return
			}
		}
		if drain(j.next(ctx)) != nil {
			return
		}
	} else {
		if reason != "" {
			data, _ := json.Marshal(map[string]string{"reason": reason})
			if out.eventID("", "resync", data) != nil {
				return
			}
		}
		nonce, err := newNonce()
		if err != nil {
			return
		}
		j = newJournal(cfg.Redis, cfg.JournalLength, cfg.JournalTTL, token, class, where, nonce)
		objs := sub.Snapshot()
		id, err := j.open(ctx, objs)
		if err != nil || out.eventID(j.sseID(id), "snapshot", snapshotObjects(objs)) != nil {
			return
		}
	}
	pump(ctx, cfg.Heartbeat, out, sub, func() error { return drain(j.next(ctx)) }, func(ev Event) error {
		if ev.Kind == Error || ev.Object == nil {
			data, err := eventData(ev)
			if err != nil {
				return err
			}
			return out.eventID("", string(ev.Kind), data)
		}
		return drain(j.record(ctx, change{ev, version(ev.Object)}))
	})
}

// prefixed gives the entries their SSE ids (the journal's nonce and the entry id).
func prefixed(j *journal, es []entry) []entry {
	for i := range es {
		es[i].id = j.sseID(es[i].id)
	}
	return es
}
