package main

// The one definition of the formats the Go endpoint (authserver.ClientBackend) and moralis-go's server package
// (server/lib) share: the record of a session the endpoint made, and the endpoint's one-time sign-in ticket. The
// generator (main.go) writes them as authserver/formats.gen.go and server/lib/formats.gen.js; change them here
// only, then run `go generate ./authserver/`.
//
// Both formats outlive a deployment: a record's key is looked up for as long as its session lives (up to 30 days),
// so changing sessionKeyLabel or the record's field names signs every user out; a ticket lives a minute. The
// known-answer vectors below pin the exact bytes: the Go and the JS tests check their HMACs against them.

// field is one field of the session record (a backend object of recordClass).
type field struct {
	name string // the field's name in the backend class and in the functions' record parameter
	typ  string // parse-server's schema type: String, Date
	doc  string
	// param tells how the endpoint sends the field in the record parameter of moralisGoSignIn and
	// moralisGoRecordSession: "required" (always), "optional" (the session's binding: an empty value is as
	// absent, at most maxOptional characters), "" (not sent: the function fills it in).
	param   string
	pattern string // a regular expression the parameter must match (JS and Go syntax alike), "" for none
}

// maxOptional bounds an optional record field's length, in characters.
const maxOptional = 200

// recordClass is the backend class of the session records (master key only, an index on key).
const recordClass = "MoralisAuthSession"

// sessionKeyLabel starts the bytes a record's key covers: the key is HMAC-SHA256, keyed by the master key, over
// sessionKeyLabel followed by the session token, in lower-case hex.
const sessionKeyLabel = "moralis-go authserver session\x00"

var recordFields = []field{
	{name: "key", typ: "String", param: "required", pattern: "^[0-9a-f]{64}$",
		doc: "HMAC-SHA256 of the session token keyed by the master key (sessionKeyInput), lower-case hex"},
	{name: "expiresAt", typ: "Date",
		doc: "the session's end, moved forward while it is used (sent apart, as until)"},
	{name: "startedAt", typ: "Date", param: "required",
		doc: "when the session was signed in (or adopted): its cap counts from here"},
	{name: "session", typ: "String",
		doc: "the backend's _Session objectId, written by the function"},
	{name: "chain", typ: "String", param: "optional",
		doc: "the binding: the chain the wallet signed in on (evm, solana)"},
	{name: "address", typ: "String", param: "optional",
		doc: "the binding: the wallet address, canonical"},
	{name: "chainId", typ: "String", param: "optional",
		doc: "the binding: the chain id the endpoint signs in on"},
}

// The endpoint ticket: ticketVersion "." id "." expiry "." mac, where id is ticketIDLength letters and digits,
// expiry the Unix time in milliseconds (ticketExpiryDigits decimal digits) and mac the HMAC-SHA256, keyed by the
// master key, in lower-case hex, over ticketMACLabel followed by ticketMACFields joined by ticketMACSeparator.
const (
	ticketVersion      = "e1"
	ticketIDLength     = 10
	ticketExpiryDigits = 13
	ticketMACLabel     = "moralis-go endpoint ticket v1\x00"
	ticketMACSeparator = "\x00"
	// ticketMaxTTLMS bounds how far ahead an endpoint ticket may expire; the endpoint gives it a minute
	// (auth.DefaultTicketTTL).
	ticketMaxTTLMS = 60 * 60 * 1000
	// ticketClass is where the backend's adapter consumes a ticket: one insert of a row whose objectId is the id.
	ticketClass = "MoralisAuthTicket"
)

// ticketMACFields are the fields the MAC covers, in order (the message last: it is the only one that may hold any
// character). contract is "1" for a smart-contract account's ticket, else "0"; expiresMs is the expiry as in the
// ticket.
var ticketMACFields = []string{"id", "expiresMs", "chain", "address", "contract", "message"}

// vector is a known answer: a master key, the builder's input and the HMAC-SHA256 over what the builder gives.
type vector struct {
	name      string
	masterKey string
	input     map[string]string // sessionKey: token; ticket: ticketMACFields (contract "1" or "0")
	mac       string
}

// vectors were computed once, by the endpoint's and the stack's own code before this definition existed (the two
// agreed), and never change: records and tickets already written must keep verifying.
var vectors = []vector{
	{name: "sessionKey", masterKey: "test-master-key", input: map[string]string{"token": "r:0123456789abcdef0123456789abcdef"},
		mac: "33a37164d146a3155b472ef51acfc718ea460d8f026913ea00d744bb85f78bf2"},
	{name: "ticket", masterKey: "test-master-key", input: map[string]string{"id": "AbCdEfGh12", "expiresMs": "1767225600000",
		"chain": "evm", "address": "0x00000000000000000000000000000000000000aa", "contract": "0",
		"message": "Moralis Authentication\n\nId: app:nonce"},
		mac: "dc99ea50530096b0ff3c419e04a7bf4a914a9d99ea909ad3566f503be375e457"},
}
