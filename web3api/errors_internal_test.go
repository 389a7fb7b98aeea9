package web3api

import (
	"errors"
	"testing"
)

// The specification's last resort for a call that got no answer: "Web3 API error while calling {url}" when the
// transport's error has no text. net/http never gives an empty text through the public API (it names the
// request), so the rule is checked where it is made; the URL is the endpoint's, without its query string.
func TestTransportMessageWithoutErrorText(t *testing.T) {
	u := "https://deep-index.moralis.io/api/v2/0xabc/balance"
	for _, err := range []error{nil, errors.New("")} {
		if got, want := transportMessage(err, u), "Web3 API error while calling "+u; got != want {
			t.Errorf("transportMessage(%v) = %q, want %q", err, got, want)
		}
	}
	if got := transportMessage(errors.New("dial tcp: connection refused"), u); got != "dial tcp: connection refused" {
		t.Errorf("an error with a text must give that text, got %q", got)
	}
}
