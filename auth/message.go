package auth

import (
	"errors"
	"strings"
	"time"
)

// DefaultSigningMessage is the spec's default text of the message a wallet signs to sign in.
const DefaultSigningMessage = "Moralis Authentication"

// serverTimeLayout formats a server time as parse-server's getServerTime does ("2026-11-21T22:38:01.828Z").
const serverTimeLayout = "2006-01-02T15:04:05.000Z07:00"

// FormatServerTime formats t (in UTC, with milliseconds) as the backend's getServerTime answers it.
func FormatServerTime(t time.Time) string { return t.UTC().Format(serverTimeLayout) }

// BuildMoralisMessage builds the Moralis-style signing message: text (DefaultSigningMessage when empty), then
// "\n\nId: " + appID + ":" + suffix. The original client uses the server time as the suffix; the backend's
// RequestMessageFunction and the endpoint (package authserver) use a one-time secret.
func BuildMoralisMessage(text, appID, suffix string) string {
	if text == "" {
		text = DefaultSigningMessage
	}
	return text + "\n\nId: " + appID + ":" + suffix
}

// ErrNotMoralisMessage is returned by ParseMoralisMessage for a message without the "\n\nId: app:suffix" tail.
var ErrNotMoralisMessage = errors.New("auth: not a Moralis-style signing message")

// ParseMoralisMessage splits a message built by BuildMoralisMessage for appID into its text and suffix.
// It fails with ErrNotMoralisMessage when the message does not end with "\n\nId: " + appID + ":" + suffix,
// so a message made for another application is refused.
func ParseMoralisMessage(msg, appID string) (text, suffix string, err error) {
	i := strings.LastIndex(msg, "\n\nId: ")
	if i < 0 || appID == "" {
		return "", "", ErrNotMoralisMessage
	}
	text, rest := msg[:i], msg[i+len("\n\nId: "):]
	if !strings.HasPrefix(rest, appID+":") {
		return "", "", ErrNotMoralisMessage
	}
	suffix = rest[len(appID)+1:]
	if suffix == "" || strings.ContainsAny(suffix, "\r\n") {
		return "", "", ErrNotMoralisMessage
	}
	return text, suffix, nil
}
