package analytics_test

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"

	"github.com/c13f5054/moralis-go/analytics"
	"github.com/c13f5054/moralis-go/client"
)

// Track a custom event. (A stand-in server prints what it receives; use your backend's URL instead.)
func ExampleTrack() {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		fmt.Println(r.Method, r.URL.Path)
		b, _ := io.ReadAll(r.Body)
		_ = b // the body holds {"dimensions":{...}} (none without dimensions) plus the application's keys
		_, _ = w.Write([]byte(`{}`))
	}))
	defer srv.Close()
	c, _ := client.New(client.Config{ServerURL: srv.URL + "/parse", AppID: "myApp"})

	err := analytics.Track(context.Background(), c, "Purchase", map[string]string{"item": "sword"})
	fmt.Println(err)
	fmt.Println(analytics.Track(context.Background(), c, "  ", nil))
	fmt.Println(analytics.TrackAny(context.Background(), c, "Level", map[string]any{"level": 3}))
	// Output:
	// POST /parse/events/Purchase
	// <nil>
	// A name for the custom event must be provided
	// analytics: dimension "level" is a int: track() dimensions expects keys and values of type "string".
}

// Usage tracking is off unless enabled explicitly; a disabled tracker sends nothing.
func ExampleNewTracker() {
	tr, err := analytics.NewTracker(analytics.TrackerConfig{}) // Enabled: false
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(tr.Enabled(), tr.TrackUsage(context.Background(), "start", nil))
	_, err = analytics.NewTracker(analytics.TrackerConfig{Enabled: true})
	fmt.Println(err)
	// Output:
	// false false
	// analytics: TrackerConfig.Endpoint must be an absolute http(s) URL, got ""
}
