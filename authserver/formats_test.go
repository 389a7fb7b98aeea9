package authserver

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"reflect"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/c13f5054/moralis-go/auth"
	"github.com/c13f5054/moralis-go/client"
)

// The endpoint's session keys and tickets are the bytes of the shared definition (formats.gen.go): the
// known-answer vectors, which the server package's tests check too, hold for sessionKey and endpointTicket.
func TestFormatsKnownAnswers(t *testing.T) {
	if len(formatVectors) != 2 {
		t.Fatalf("%d vectors", len(formatVectors))
	}
	for _, v := range formatVectors {
		b := &ClientBackend{cfg: client.Config{MasterKey: v.masterKey}}
		switch v.name {
		case "sessionKey":
			if got := b.sessionKey(v.input["token"]); got != v.mac {
				t.Errorf("sessionKey: %s; want %s", got, v.mac)
			}
		case "ticket":
			mac := hmac.New(sha256.New, []byte(v.masterKey))
			mac.Write(ticketMACInput(v.input["id"], v.input["expiresMs"], v.input["chain"], v.input["address"],
				v.input["message"], v.input["contract"] == "1"))
			if got := hex.EncodeToString(mac.Sum(nil)); got != v.mac {
				t.Errorf("ticket MAC: %s; want %s", got, v.mac)
			}
		default:
			t.Errorf("vector %q for no builder", v.name)
		}
	}
}

// An endpoint ticket has the shared format, and its MAC covers what ticketMACInput builds.
func TestEndpointTicketFormat(t *testing.T) {
	b := &ClientBackend{cfg: client.Config{MasterKey: "mk"}}
	m := auth.SignedMessage{Chain: auth.ChainEVM, Address: "0x00000000000000000000000000000000000000aa", Message: "hi\nthere"}
	exp := time.UnixMilli(1767225600000)
	for _, contract := range []bool{false, true} {
		tk, err := b.endpointTicket(m, contract, exp)
		if err != nil {
			t.Fatal(err)
		}
		g := regexp.MustCompile(ticketPattern).FindStringSubmatch(tk)
		if g == nil || g[2] != "1767225600000" {
			t.Fatalf("ticket %q does not match %s", tk, ticketPattern)
		}
		mac := hmac.New(sha256.New, []byte("mk"))
		mac.Write(ticketMACInput(g[1], g[2], "evm", m.Address, m.Message, contract))
		if hex.EncodeToString(mac.Sum(nil)) != g[3] {
			t.Fatalf("contract %v: the MAC does not cover ticketMACInput", contract)
		}
	}
}

// A record is read back with every field of the definition but its key, and the functions get the required
// fields and the binding's non-empty ones.
func TestRecordFieldsFollowTheDefinition(t *testing.T) {
	var tags []string
	rt := reflect.TypeFor[recordRow]()
	for i := range rt.NumField() {
		if name, _, _ := strings.Cut(rt.Field(i).Tag.Get("json"), ","); name != "objectId" {
			tags = append(tags, name)
		}
	}
	want := slices.DeleteFunc(slices.Clone(recordFieldNames), func(f string) bool { return f == recordKey })
	if !slices.Equal(tags, want) || recordReadKeys() != strings.Join(want, ",") {
		t.Fatalf("read back %v (keys %q); want %v", tags, recordReadKeys(), want)
	}
	b := &ClientBackend{cfg: client.Config{MasterKey: "mk"}}
	now := time.Now()
	for _, bind := range []sessionBinding{{}, {chain: auth.ChainEVM, address: "0xaa", chainID: ""}, {chain: auth.ChainEVM, address: "0xaa", chainID: "1"}} {
		p := recordParams(b.newRecord("r:tok", now, now.Add(time.Hour), bind))
		var keys []string
		for k := range p {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		wantKeys := slices.Clone(recordRequiredParams)
		for _, f := range recordOptionalParams {
			if v := map[string]string{recordChain: string(bind.chain), recordAddress: bind.address, recordChainID: bind.chainID}[f]; v != "" {
				wantKeys = append(wantKeys, f)
			}
		}
		slices.Sort(wantKeys)
		if !slices.Equal(keys, wantKeys) {
			t.Fatalf("binding %+v: record parameter %v; want %v", bind, keys, wantKeys)
		}
	}
}
