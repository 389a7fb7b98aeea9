package web3api

import (
	"net/http"
	"testing"

	"github.com/c13f5054/moralis-go/internal/httpx"
)

// FuzzDecodeResponse feeds arbitrary bytes to the response decoder for several typed answers, to the error-message
// reader and to the rate-limit error: no panic, and a body that is not JSON is an error.
func FuzzDecodeResponse(f *testing.F) {
	for _, s := range []string{
		`{"total":1,"page":0,"page_size":100,"cursor":"abc","result":[{"hash":"0x1","value":"10","block_number":"5"}]}`,
		`{"result":[{"token_address":"0x1","amount":123456789012345678901234567890,"token_id":"1"}]}`,
		`[{"token_address":"0x1","balance":"100","decimals":18}]`,
		`{"message":"Invalid address"}`, `{"error":"boom","code":141}`, `not json`, ``, `null`, `[`, `{"result":{}}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		var txs TransactionCollection
		_ = decode(b, &txs)
		var nfts NFTOwnerCollection
		_ = decode(b, &nfts)
		var balances []ERC20TokenBalance
		_ = decode(b, &balances)
		var anything any
		if err := decode(b, &anything); err == nil && len(b) == 0 {
			t.Fatal("an empty body decoded without error")
		}
		_ = apiErrorMessage(b, 400)
		_, _ = bodyField(b, "error")
		_ = newRateLimitError("http://example/x", &httpx.Response{Status: 429, Header: http.Header{"Retry-After": []string{string(b)}}, Body: b}).Error()
	})
}
