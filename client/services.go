package client

import (
	"context"
	"errors"
	"net/http"
)

// service is what every service holds: the client (or view) it belongs to.
type service struct{ client *Client }

// ObjectsService saves, fetches and deletes objects of any class (Client.Objects). Safe for concurrent use; the
// objects it is given are not (do not change an object while a call on it runs).
type ObjectsService service

// UsersService signs users up and in, links auth data, and asks the server for password-reset and verification
// mails (Client.Users). It never keeps the signed-in user: see CurrentUser. Safe for concurrent use.
type UsersService service

// SessionsService reads, lists, upgrades and revokes sessions (Client.Sessions). Its calls act for the view's
// session token (Client.WithSessionToken) or, with the master key, for any session. Safe for concurrent use.
type SessionsService service

// RolesService reads and saves roles (_Role) and walks their hierarchy (Client.Roles). Safe for concurrent use.
type RolesService service

// SchemasService reads and changes class schemas, indexes and class-level permissions (Client.Schemas). Every
// call needs the master key: it is used without asking, and the call fails with ErrMasterKeyRequired before any
// request when none is configured. Safe for concurrent use.
type SchemasService service

// FilesService uploads, downloads and deletes files (Client.Files). Safe for concurrent use.
type FilesService service

// CloudService calls cloud functions, starts jobs, and reads the server's time and plugin specs (Client.Cloud).
// Safe for concurrent use.
type CloudService service

// ConfigService reads and updates the app's Parse Config: the parameters an app reads at start-up
// (Client.Config). Safe for concurrent use.
type ConfigService service

// Get returns the app's config parameters (GET config). Parameters marked master-key-only are included only for
// a view made with WithMasterKey.
func (s *ConfigService) Get(ctx context.Context) (map[string]any, error) {
	c := s.client
	var resp struct {
		Params map[string]any `json:"params"`
	}
	if err := c.do(ctx, c.call(http.MethodGet, "config", nil), &resp); err != nil {
		return nil, err
	}
	if resp.Params == nil {
		resp.Params = map[string]any{}
	}
	return resp.Params, nil
}

// Update sets config parameters (PUT config; parameters not named keep their values). It needs the master key:
// it is used without asking, and the call fails with ErrMasterKeyRequired before any request when none is
// configured. Like every update, it is sent again after an ambiguous failure only when the server deduplicates
// requests on its route (see the package doc); otherwise its error matches ErrWriteInDoubt.
func (s *ConfigService) Update(ctx context.Context, params map[string]any) error {
	c := s.client
	if len(params) == 0 {
		return errors.New("moralis: Config.Update needs at least one parameter")
	}
	rc := c.call(http.MethodPut, "config", map[string]any{"params": params})
	rc.UseMasterKey = true
	return c.do(ctx, rc, nil)
}
