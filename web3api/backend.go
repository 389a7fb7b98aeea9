package web3api

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"sync"

	"github.com/c13f5054/moralis-go/internal/httpx"
	"github.com/c13f5054/moralis-go/internal/rest"
	"github.com/c13f5054/moralis-go/web3api/internal/ref"
)

// callFunction sends a call without API key to the backend: POST {server}/functions/{endpoint} with every set
// parameter (extra ones too), chain defaulting to DefaultChain, and the session token; the answer is "result".
func (c *Client) callFunction(ctx context.Context, ep *ref.Endpoint, args Args, out any) error {
	if c.backend == nil {
		return ErrNotInitialized
	}
	params := make(map[string]any, len(args)+1)
	for k, v := range args {
		if isSet(v) {
			params[k] = v
		}
	}
	if _, ok := params["chain"]; !ok {
		params["chain"] = DefaultChain
	}
	// The backend's wire protocol (body fields, keys, retries, error shapes) is internal/rest's; the error body
	// is caught on its way (see captureErrorBodies) to read its "error" field as the original client did.
	slot := &errorBody{}
	var env struct {
		Result json.RawMessage `json:"result"`
	}
	err := c.backend.DoJSON(context.WithValue(ctx, errorBodyKey{}, slot), rest.Call{Method: http.MethodPost,
		Path: "functions/" + ep.Name, Params: params, SessionToken: c.sessionToken(ctx)}, &env)
	if err != nil {
		fe := &FunctionError{Function: ep.Name, Message: err.Error(), Err: err}
		var re *rest.Error
		if errors.As(err, &re) {
			fe.Status, fe.Code, fe.Message = re.Status, int(re.Code), re.Message
			if re.Status != 0 && (re.Status < 200 || re.Status > 299) {
				fe.Message = statusText(re.Status)
				if msg, ok := bodyField(slot.get(), "error"); ok {
					fe.Message = msg
				}
			}
		}
		return fe
	}
	if out == nil || len(env.Result) == 0 {
		return nil
	}
	if err := decode(env.Result, out); err != nil {
		return fmt.Errorf("web3api: decoding result of function %s: %w", ep.Name, err)
	}
	return nil
}

// errorBodyKey keys the context value that asks captureErrorBodies to keep a call's last error body.
type errorBodyKey struct{}

// errorBody is the last non-2xx answer body of one call.
type errorBody struct {
	mu   sync.Mutex
	body []byte
}

func (e *errorBody) set(b []byte) {
	e.mu.Lock()
	e.body = b
	e.mu.Unlock()
}

func (e *errorBody) get() []byte {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.body
}

// captureErrorBodies returns a copy of hc (nil: the shared default client) whose transport also hands the body
// of each non-2xx answer to the *errorBody in the request's context, if any. hc itself is not changed.
func captureErrorBodies(hc *http.Client) *http.Client {
	if hc == nil {
		hc = httpx.DefaultHTTPClient()
	}
	cp := *hc
	next := cp.Transport
	if next == nil {
		next = http.DefaultTransport
	}
	cp.Transport = &errorBodyTransport{next: next}
	return &cp
}

type errorBodyTransport struct{ next http.RoundTripper }

func (t *errorBodyTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	resp, err := t.next.RoundTrip(r)
	slot, _ := r.Context().Value(errorBodyKey{}).(*errorBody)
	if err != nil || slot == nil || (resp.StatusCode >= 200 && resp.StatusCode <= 299) {
		return resp, err
	}
	b, rerr := io.ReadAll(resp.Body)
	resp.Body.Close()
	slot.set(b)
	resp.Body = io.NopCloser(io.MultiReader(bytes.NewReader(b), errReader{rerr}))
	return resp, nil
}

// errReader ends a replayed body with the read error of the original, if there was one.
type errReader struct{ err error }

func (e errReader) Read([]byte) (int, error) {
	if e.err != nil {
		return 0, e.err
	}
	return 0, io.EOF
}
