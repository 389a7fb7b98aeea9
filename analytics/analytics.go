package analytics

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"sort"
	"strings"
	"time"

	"github.com/c13f5054/moralis-go/client"
)

// ErrEmptyName is returned when an event name is empty after trimming white space (the original's text).
var ErrEmptyName = errors.New("A name for the custom event must be provided")

// ErrDimensionType is wrapped by TrackAny's error when a dimension value is not a string (the original's text).
var ErrDimensionType = errors.New(`track() dimensions expects keys and values of type "string".`)

// AppOpenedEvent is the name of the app-opened event.
const AppOpenedEvent = "AppOpened"

// Track sends the custom event name with dimensions: POST events/{name} {"dimensions": {...}}. Without
// dimensions (nil or empty) the body has no "dimensions" key at all, as the original sends it. The name is trimmed
// of white space first and must not be empty then (ErrEmptyName); nothing is sent on a validation error. The map
// is not kept. Safe for concurrent use.
func Track(ctx context.Context, c *client.Client, name string, dimensions map[string]string) error {
	params := map[string]any{}
	if len(dimensions) > 0 {
		dims := make(map[string]any, len(dimensions))
		for k, v := range dimensions {
			dims[k] = v
		}
		params["dimensions"] = dims
	}
	return send(ctx, c, name, params)
}

// TrackAny is Track for dimensions that arrive untyped (decoded JSON, form data): every value must be a string,
// else the error names the first bad key (in key order) and wraps ErrDimensionType. Nothing is sent on error.
func TrackAny(ctx context.Context, c *client.Client, name string, dimensions map[string]any) error {
	keys := make([]string, 0, len(dimensions))
	for k := range dimensions {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	dims := make(map[string]string, len(dimensions))
	for _, k := range keys {
		s, ok := dimensions[k].(string)
		if !ok {
			return fmt.Errorf("analytics: dimension %q is a %T: %w", k, dimensions[k], ErrDimensionType)
		}
		dims[k] = s
	}
	return Track(ctx, c, name, dims)
}

// AppOpened sends the app-opened event for now: POST events/AppOpened {"at": <Date>}.
func AppOpened(ctx context.Context, c *client.Client) error {
	return AppOpenedAt(ctx, c, time.Now(), nil)
}

// AppOpenedAt sends the app-opened event with the given time and optional dimensions.
func AppOpenedAt(ctx context.Context, c *client.Client, at time.Time, dimensions map[string]string) error {
	params := map[string]any{"at": at.UTC()}
	if len(dimensions) > 0 {
		dims := make(map[string]any, len(dimensions))
		for k, v := range dimensions {
			dims[k] = v
		}
		params["dimensions"] = dims
	}
	return send(ctx, c, AppOpenedEvent, params)
}

func send(ctx context.Context, c *client.Client, name string, params map[string]any) error {
	name = strings.TrimSpace(name)
	if name == "" {
		return ErrEmptyName
	}
	if c == nil {
		return errors.New("analytics: no client")
	}
	if ctx == nil {
		return errors.New("analytics: nil context")
	}
	if err := c.Request(ctx, http.MethodPost, "events/"+url.PathEscape(name), params, nil); err != nil {
		return fmt.Errorf("analytics: track %q: %w", name, err)
	}
	return nil
}
