package authserver

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"unicode/utf8"
)

var errInvalidJSONBody = errors.New("Invalid JSON body")

// decodeRequestStrict reads one JSON object whose members are the fields of Request, spelled exactly: encoding/json
// would also accept "Chain" or "SIGNATURE" (it matches names case-insensitively) and let a repeated name overwrite
// the first, so a body could mean one thing to this handler and another to a proxy or log reader in front of it.
// Every value must be a string or null (null leaves the field empty). Nothing may follow the object.
func decodeRequestStrict(body []byte) (*SignedRequest, error) {
	dec := json.NewDecoder(bytes.NewReader(body))
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		return nil, errInvalidJSONBody
	}
	var req SignedRequest
	var seen [4]bool
	for dec.More() {
		kt, err := dec.Token()
		if err != nil {
			return nil, errInvalidJSONBody
		}
		key, ok := kt.(string)
		if !ok {
			return nil, errInvalidJSONBody
		}
		var dst *string
		var i int
		switch key {
		case "chain":
			dst, i = &req.Chain, 0
		case "address":
			dst, i = &req.Address, 1
		case "message":
			dst, i = &req.Message, 2
		case "signature":
			dst, i = &req.Signature, 3
		default:
			return nil, fmt.Errorf("Unknown field %q", shortName(key))
		}
		if seen[i] {
			return nil, fmt.Errorf("Duplicate field %q", key)
		}
		seen[i] = true
		vt, err := dec.Token()
		if err != nil {
			return nil, errInvalidJSONBody
		}
		switch v := vt.(type) {
		case string:
			*dst = v
		case nil:
		default:
			return nil, fmt.Errorf("Invalid type for field %q", key)
		}
	}
	if tok, err := dec.Token(); err != nil || tok != json.Delim('}') {
		return nil, errInvalidJSONBody
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, errInvalidJSONBody
	}
	return &req, nil
}

// shortName cuts a field name an error repeats to 64 bytes (on a rune boundary).
func shortName(s string) string {
	const max = 64
	if len(s) <= max {
		return s
	}
	cut := max
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + "..."
}

// decodeStrict decodes a body of POST /signin or /link (decodeRequestStrict).
func (req *SignedRequest) decodeStrict(body []byte) error {
	r, err := decodeRequestStrict(body)
	if err == nil {
		*req = *r
	}
	return err
}

// decodeStrict decodes a body of POST /unlink as decodeRequestStrict does (message and signature may be there and
// are not used).
func (req *UnlinkRequest) decodeStrict(body []byte) error {
	r, err := decodeRequestStrict(body)
	if err == nil {
		*req = UnlinkRequest{Chain: r.Chain, Address: r.Address}
	}
	return err
}
