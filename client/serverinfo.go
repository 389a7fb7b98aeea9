package client

import (
	"context"
	"errors"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/c13f5054/moralis-go/internal/httpx"
	"github.com/c13f5054/moralis-go/internal/rest"
	"github.com/c13f5054/moralis-go/parse"
)

// What the client learns of the backend's moralis-go-server package (the server half of this module, mounted in
// the app's parse-server): its cloud function moralisGoServerInfo lists the features that are on. A backend
// without it (a stock parse-server, an original Moralis server) answers 141 "Invalid function": the client then
// works without those features, at the guarantees a stock server allows.
const (
	serverInfoFunction = "moralisGoServerInfo"
	// featureTxMark: atomic batches carry a MoralisGoTxMark create, and moralisGoTxApplied and
	// moralisGoCheckWrites answer (see Atomic).
	featureTxMark = "txMark"
	// serverInfoTTL is how long an answer is kept (a stock server's included); serverInfoRetry how long a
	// failure to learn is, before the function is asked again.
	serverInfoTTL   = 10 * time.Minute
	serverInfoRetry = 30 * time.Second
)

// serverInfo is what moralisGoServerInfo answered, shared by every view of a client; safe for concurrent use.
type serverInfo struct {
	mu       sync.Mutex
	features map[string]bool
	until    time.Time
	// now is the clock (nil: time.Now); tests set it.
	now func() time.Time
}

func (si *serverInfo) clock() time.Time {
	if si.now != nil {
		return si.now()
	}
	return time.Now()
}

// hasFeature reports whether the backend's moralis-go-server lists feature as on, asking moralisGoServerInfo
// the first time and again after serverInfoTTL (serverInfoRetry after a failure to learn it, during which the
// feature counts as off).
func (c *Client) hasFeature(ctx context.Context, feature string) bool {
	si := &c.server.info
	si.mu.Lock()
	if si.clock().Before(si.until) {
		on := si.features[feature]
		si.mu.Unlock()
		return on
	}
	si.mu.Unlock()
	features, err := c.learnFeatures(ctx)
	ttl := serverInfoTTL
	if err != nil {
		ttl = serverInfoRetry
		if c.cfg.Logger != nil {
			c.cfg.Logger.WarnContext(ctx, "moralis: learning the backend's features failed; atomic batches go without a mark for a while", "function", serverInfoFunction, "error", err.Error())
		}
	} else if !features[featureTxMark] && c.cfg.Logger != nil {
		c.cfg.Logger.InfoContext(ctx, "moralis: the backend does not offer moralis-go-server's txMark: an atomic batch whose answer is lost, or that holds only creates, cannot be proven applied or rolled back and stays in doubt", "function", serverInfoFunction)
	}
	si.mu.Lock()
	si.features, si.until = features, si.clock().Add(ttl)
	si.mu.Unlock()
	return features[feature]
}

// learnFeatures asks moralisGoServerInfo (with the JavaScript key, no session) for the features that are on. A
// backend without the function has none (and no error).
func (c *Client) learnFeatures(ctx context.Context) (map[string]bool, error) {
	rc := rest.Call{Method: http.MethodPost, Path: "functions/" + serverInfoFunction, Params: map[string]any{}}
	// It changes nothing: harmless to send again, and no request id.
	rc.Replay, rc.NoIdempotency = httpx.ReplayAlways, true
	var out struct {
		Result struct {
			Name     string   `json:"name"`
			Features []string `json:"features"`
		} `json:"result"`
	}
	err := c.do(ctx, rc, &out)
	var pe *parse.Error
	if errors.As(err, &pe) && pe.Code == parse.CodeScriptFailed && strings.HasPrefix(pe.Message, "Invalid function") {
		return map[string]bool{}, nil
	}
	if err != nil {
		return map[string]bool{}, err
	}
	features := make(map[string]bool, len(out.Result.Features))
	for _, f := range out.Result.Features {
		features[f] = true
	}
	return features, nil
}
