package authserver

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"regexp"
	"strconv"
	"strings"

	"github.com/c13f5054/moralis-go/auth"
	"github.com/c13f5054/moralis-go/parse"
)

// GET /data/chain/{kind}: chain data fetched with the server's API key, for the user's own addresses (unless
// AnyAddress), cached briefly, identical calls in flight shared.

// ChainDataKinds are the chain-data routes of the data proxy, GET /data/chain/{kind}, in the order of the
// documentation. The hooks' TypeScript ChainDataKind is generated from this list.
var ChainDataKinds = []string{"balance", "tokens", "nfts", "transactions"}

// chainRoutes maps a chain-data kind to the API path (of the address) and whether it is paged (cursor, limit).
var chainRoutes = map[string]struct {
	path  string
	paged bool
}{
	"balance":      {"/%s/balance", false},
	"tokens":       {"/%s/erc20", false},
	"nfts":         {"/%s/nft", true},
	"transactions": {"/%s", true},
}

var (
	chainName   = regexp.MustCompile(`^[a-z][a-z0-9]{1,19}$`)
	cursorChars = regexp.MustCompile(`^[A-Za-z0-9._~+/=-]+$`)
)

// chain is the route of GET /data/chain/{kind}: its query checked, the address the user's own, then the API's
// answer as it came (from the cache: X-Cache HIT).
func (p *dataProxy) chain(kind string) func(c *call, _ struct{}) (rawJSON, error) {
	rt := chainRoutes[kind]
	return func(c *call, _ struct{}) (rawJSON, error) {
		path, params, err := p.chainRequest(c, rt.path, rt.paged)
		if err != nil {
			return nil, err
		}
		key := path + "?" + params.Encode()
		body, cached, err := p.fetchChain(c.ctx, path, params, key, wantsFresh(c.r))
		if err != nil {
			return nil, err
		}
		c.w.Header().Set("X-Cache", map[bool]string{true: "HIT", false: "MISS"}[cached])
		return body, nil
	}
}

// chainRequest checks the query of a chain-data request and returns the API path and parameters.
func (p *dataProxy) chainRequest(c *call, pathFormat string, paged bool) (string, url.Values, error) {
	q := c.r.URL.Query()
	for k := range q {
		if k != "chain" && k != "address" && k != "cursor" && k != "limit" {
			return "", nil, refuse(parse.CodeInvalidQuery, fmt.Sprintf("Unknown parameter %q", truncate(k, 32)))
		}
	}
	chain := q.Get("chain")
	if chain == "" {
		chain = p.o.DefaultChain
	}
	chain, ok := normalizeChain(chain)
	if !ok {
		return "", nil, refuse(parse.CodeInvalidQuery, "Invalid chain")
	}
	user := c.user
	address := q.Get("address")
	if address == "" {
		address = user.EthAddress
		if address == "" && len(user.Accounts) > 0 {
			address = user.Accounts[0]
		}
		if address == "" {
			return "", nil, refuse(parse.CodeValidationError, "Address not found")
		}
	}
	norm, err := auth.NormalizeEthAddress(address)
	if err != nil {
		return "", nil, refuse(parse.CodeValidationError, "Invalid address")
	}
	if !p.o.AnyAddress && !ownsAddress(user, norm) {
		return "", nil, refuse(parse.CodeOperationForbidden, "Address is not linked to this user")
	}
	params := url.Values{"chain": {chain}}
	if paged {
		if cur := q.Get("cursor"); cur != "" {
			if len(cur) > 1024 || !cursorChars.MatchString(cur) {
				return "", nil, refuse(parse.CodeInvalidQuery, "Invalid cursor")
			}
			params.Set("cursor", cur)
		}
		if l := q.Get("limit"); l != "" {
			n, err := strconv.Atoi(l)
			if err != nil || n < 1 || n > 100 {
				return "", nil, refuse(parse.CodeInvalidQuery, "limit must be an integer from 1 to 100")
			}
			params.Set("limit", strconv.Itoa(n))
		}
	} else if q.Get("cursor") != "" || q.Get("limit") != "" {
		return "", nil, refuse(parse.CodeInvalidQuery, "cursor and limit apply to nfts and transactions only")
	}
	return fmt.Sprintf(pathFormat, norm), params, nil
}

// ChainData is the chain-data API as the proxy calls it. *web3api.Client (made with the API key, on the server)
// satisfies it. Implementations must be safe for concurrent use.
type ChainData interface {
	Raw(ctx context.Context, method, path string, query url.Values, body any, out any) error
}

// normalizeChain accepts a decimal chain id ("1337"), a hex id ("0x539") or a name ("eth", "polygon") and gives
// the API's form (hex id or name).
func normalizeChain(c string) (string, bool) {
	c = strings.ToLower(strings.TrimSpace(c))
	switch {
	case strings.HasPrefix(c, "0x"):
		n, err := strconv.ParseUint(c[2:], 16, 32)
		if err != nil || n == 0 {
			return "", false
		}
		return "0x" + strconv.FormatUint(n, 16), true
	case c != "" && c[0] >= '0' && c[0] <= '9':
		n, err := strconv.ParseUint(c, 10, 32)
		if err != nil || n == 0 {
			return "", false
		}
		return "0x" + strconv.FormatUint(n, 16), true
	default:
		return c, chainName.MatchString(c)
	}
}

func ownsAddress(u *PublicUser, addr string) bool {
	if strings.EqualFold(u.EthAddress, addr) {
		return true
	}
	for _, a := range u.Accounts {
		if strings.EqualFold(a, addr) {
			return true
		}
	}
	return false
}

// flight is one upstream chain-data call that concurrent identical requests wait for.
type flight struct {
	done chan struct{}
	body []byte
	err  error
}

// wantsFresh reports whether r asks for an answer newer than the cache's (Cache-Control: no-cache, as the React
// hooks send once after a transaction's receipt). It costs an upstream call, so it counts against the same
// per-user rate limit as every request.
func wantsFresh(r *http.Request) bool {
	for _, v := range r.Header.Values("Cache-Control") {
		for _, d := range strings.Split(v, ",") {
			if strings.EqualFold(strings.TrimSpace(d), "no-cache") {
				return true
			}
		}
	}
	return false
}

// fetchChain answers from the cache, else joins an identical call in flight, else calls the API (bounded by
// MaxResponseBytes) and caches a success. A fresh fetch skips the cache and the calls in flight that began before
// it (they may predate what the caller waits to see); fresh fetches of one key still share one call, and a cached
// answer is only ever replaced by one whose call began later.
func (p *dataProxy) fetchChain(ctx context.Context, path string, params url.Values, key string, fresh bool) ([]byte, bool, error) {
	flightKey := key
	if fresh {
		flightKey = "fresh\x00" + key
	} else if b, ok := p.cache.get(key); ok {
		return b, true, nil
	}
	p.mu.Lock()
	if f := p.inflight[flightKey]; f != nil {
		p.mu.Unlock()
		select {
		case <-f.done:
			return f.body, false, f.err
		case <-ctx.Done():
			return nil, false, ctx.Err()
		}
	}
	f := &flight{done: make(chan struct{})}
	p.inflight[flightKey] = f
	p.mu.Unlock()
	started := p.now()
	defer func() {
		p.mu.Lock()
		delete(p.inflight, flightKey)
		p.mu.Unlock()
		close(f.done)
	}()
	// The call runs with its own time limit, not the first caller's context: a caller that goes away does not
	// fail the others waiting for the same answer.
	cctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), p.o.Timeout)
	defer cancel()
	// Until Raw returns, the flight has failed: a Raw that panics leaves its waiters an error, not an empty 200.
	f.err = errNoAnswer
	var raw json.RawMessage
	f.err = p.o.Chain.Raw(cctx, http.MethodGet, path, params, nil, &raw)
	switch {
	case f.err != nil:
	case len(raw) == 0:
		f.err = errNoAnswer
	case len(raw) > p.o.MaxResponseBytes:
		f.err = errTooLarge
	}
	if f.err == nil {
		f.body = append([]byte(nil), raw...)
		p.cache.putFrom(key, f.body, started)
	}
	return f.body, false, f.err
}
