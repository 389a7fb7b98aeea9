package authserver

import (
	"context"
	"encoding/json"
	"errors"

	"github.com/c13f5054/moralis-go/client"
	"github.com/c13f5054/moralis-go/parse"
)

// DataBackend runs a signed-in user's backend requests with that user's session token, so the backend's ACLs and
// class-level permissions apply. ClientDataBackend implements it; tests use fakes. Safe for concurrent use.
type DataBackend interface {
	RunQuery(ctx context.Context, sessionToken string, req *parse.QueryRequest) (*parse.QueryResponse, error)
	CallFunction(ctx context.Context, sessionToken, name string, params map[string]any) (json.RawMessage, error)
}

// ClientDataBackend is the DataBackend over a *client.Client (its JavaScript key, never its master key: each call
// goes out as the user, through WithSessionToken). A client with a master key configured is refused (a
// WithMasterKey view would send it on every call, whatever the session): give one made without it.
type ClientDataBackend struct{ c *client.Client }

// NewClientDataBackend returns a DataBackend over c.
func NewClientDataBackend(c *client.Client) *ClientDataBackend { return &ClientDataBackend{c: c} }

var errDataBackendMasterKey = errors.New("authserver: ClientDataBackend: the client has a master key; give it a client made without one")

// check refuses a missing client or one that holds the master key.
func (b *ClientDataBackend) check() error {
	if b == nil || b.c == nil {
		return errors.New("authserver: ClientDataBackend: no client")
	}
	if b.c.HasMasterKey() {
		return errDataBackendMasterKey
	}
	return nil
}

// RunQuery runs req as the user of sessionToken.
func (b *ClientDataBackend) RunQuery(ctx context.Context, tok string, req *parse.QueryRequest) (*parse.QueryResponse, error) {
	if err := b.check(); err != nil {
		return nil, err
	}
	r := *req
	r.UseMasterKey = false
	return b.c.WithSessionToken(tok).RunQuery(ctx, &r)
}

// CallFunction runs the cloud function name as the user of sessionToken and returns its raw result.
func (b *ClientDataBackend) CallFunction(ctx context.Context, tok, name string, params map[string]any) (json.RawMessage, error) {
	if err := b.check(); err != nil {
		return nil, err
	}
	var out json.RawMessage
	if err := b.c.WithSessionToken(tok).Cloud.Call(ctx, name, params, &out); err != nil {
		return nil, err
	}
	return out, nil
}
