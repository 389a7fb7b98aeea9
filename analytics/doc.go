// Package analytics sends custom analytics events to the backend and, only when asked to, usage reports to a
// usage-tracking endpoint.
//
// Track and TrackAny send POST events/{name} with the event's dimensions; AppOpened sends the app-opened event
// (POST events/AppOpened with the time in "at"). They go through a *client.Client (its Request method), so they carry
// the application's keys and the user's session like every backend call. The name must not be blank ("A name for
// the custom event must be provided") and every dimension key and value must be a string.
//
// A Tracker reports SDK usage (a POST with subdomain, event and options) and checks for a newer SDK version (a GET
// of an endpoint that answers the latest version). It is off unless TrackerConfig.Enabled is set: a disabled
// Tracker sends nothing at all. Its failures never reach the caller; they are logged through an optional
// slog.Logger. All its HTTP goes through internal/httpx.
package analytics
