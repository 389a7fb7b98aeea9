package spectexts_test

import (
	"context"
	"errors"
	"math/big"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/c13f5054/moralis-go/analytics"
	"github.com/c13f5054/moralis-go/auth"
	"github.com/c13f5054/moralis-go/client"
	"github.com/c13f5054/moralis-go/internal/objstate"
	"github.com/c13f5054/moralis-go/parse"
	"github.com/c13f5054/moralis-go/query"
	"github.com/c13f5054/moralis-go/signer"
	"github.com/c13f5054/moralis-go/store"
	"github.com/c13f5054/moralis-go/transfer"
	"github.com/c13f5054/moralis-go/web3api"
	"github.com/ethereum/go-ethereum"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// tripwire is a chain backend that counts every call; validation must never reach it.
type tripwire struct{ calls atomic.Int64 }

var errTrip = errors.New("tripwire: the chain was called")

func (t *tripwire) hit() error                                { t.calls.Add(1); return errTrip }
func (t *tripwire) ChainID(context.Context) (*big.Int, error) { return big.NewInt(1337), nil }
func (t *tripwire) HeaderByNumber(context.Context, *big.Int) (*types.Header, error) {
	return nil, t.hit()
}
func (t *tripwire) PendingNonceAt(context.Context, common.Address) (uint64, error) { return 0, t.hit() }
func (t *tripwire) SuggestGasTipCap(context.Context) (*big.Int, error)             { return nil, t.hit() }
func (t *tripwire) SuggestGasPrice(context.Context) (*big.Int, error)              { return nil, t.hit() }
func (t *tripwire) EstimateGas(context.Context, ethereum.CallMsg) (uint64, error)  { return 0, t.hit() }
func (t *tripwire) SendTransaction(context.Context, *types.Transaction) error      { return t.hit() }
func (t *tripwire) CallContract(context.Context, ethereum.CallMsg, *big.Int) ([]byte, error) {
	return nil, t.hit()
}
func (t *tripwire) TransactionReceipt(context.Context, common.Hash) (*types.Receipt, error) {
	return nil, t.hit()
}

const transferABI = `[{"type":"function","name":"transfer","stateMutability":"nonpayable","inputs":[{"name":"to","type":"address"},{"name":"amount","type":"uint256"}],"outputs":[{"name":"","type":"bool"}]},
{"type":"function","name":"safeTransferFrom","stateMutability":"nonpayable","inputs":[{"name":"from","type":"address"},{"name":"to","type":"address"},{"name":"id","type":"uint256"}],"outputs":[]},
{"type":"function","name":"safeTransferFrom","stateMutability":"nonpayable","inputs":[{"name":"from","type":"address"},{"name":"to","type":"address"},{"name":"id","type":"uint256"},{"name":"data","type":"bytes"}],"outputs":[]}]`

func TestEverySpecErrorText(t *testing.T) {
	ctx := context.Background()
	var sent atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		sent.Add(1)
		w.WriteHeader(500)
	}))
	defer srv.Close()
	c, err := client.New(client.Config{ServerURL: srv.URL + "/parse", AppID: "app", JavaScriptKey: "js", MaxAttempts: 1})
	require.NoError(t, err)
	chain := &tripwire{}
	key, err := signer.NewKeyFromHex("4c0883a69102937d6231471b5dbb6204fe5129617082792ae468d01a3f362318")
	require.NoError(t, err)
	tc, err := transfer.New(chain, transfer.Config{Signer: key, ChainID: big.NewInt(1337)})
	require.NoError(t, err)
	w3, err := web3api.New(web3api.Config{APIKey: "k", BaseURL: srv.URL})
	require.NoError(t, err)
	closedStore := store.NewMemory(store.Config{})
	require.NoError(t, closedStore.Close())

	cases := []struct {
		want string
		run  func() error
	}{
		// Section 5: validation.
		{"Cannot sign up user with an empty username.", func() error { return c.Users.SignUp(ctx, client.NewUser()) }},
		{"Cannot sign up user with an empty password.", func() error {
			u := client.NewUser()
			u.SetUsername("bob")
			return c.Users.SignUp(ctx, u)
		}},
		{"GeoPoint latitude out of bounds: 90.5 > 90.0.", func() error { _, err := parse.NewGeoPoint(90.5, 0); return err }},
		{"GeoPoint longitude out of bounds: -180.5 < -180.0.", func() error { _, err := parse.NewGeoPoint(0, -180.5); return err }},
		{"A role's name can only be set before it has been saved.", func() error {
			r := client.RoleFromObject(parse.NewObjectWithID(client.RoleClass, "saved"))
			objstate.Of(r.Object).MergeServer(map[string]any{"name": "Admins"})
			return r.SetName("Other")
		}},
		{"A role's name must be a String.", func() error {
			_, err := client.NewRole("x", nil)
			_ = err
			r, _ := client.NewRole("ok", nil)
			return r.SetNameAny(7)
		}},
		{"A role's name can be only contain alphanumeric characters, _, -, and spaces.", func() error { _, err := client.NewRole("bad name!", nil); return err }},
		{"Unknown option: $fuzzy", func() error { _, err := query.TextOptionsFromMap(map[string]any{"$fuzzy": true}); return err }},
		{"The value being searched for must be a string.", func() error {
			_, err := query.FromJSON[map[string]any]("T", []byte(`{"where":{"name":{"$regex":5}}}`))
			return err
		}},
		{"You can only skip by a positive number", func() error { return query.New[map[string]any]("T").Skip(-1).Err() }},
		{"You can only set the limit to a numeric value", func() error { _, err := query.FromJSON[map[string]any]("T", []byte(`{"limit":"ten"}`)); return err }},
		{"You can only set withCount to a boolean value", func() error { _, err := query.FromJSON[map[string]any]("T", []byte(`{"count":"yes"}`)); return err }},
		{"receiver is required", func() error { return transfer.Params{Type: transfer.Native, Amount: "1"}.Validate() }},
		{"amount is required", func() error {
			return transfer.Params{Type: transfer.Native, Receiver: "0x0000000000000000000000000000000000000001"}.Validate()
		}},
		{"contractAddress is required", func() error {
			return transfer.Params{Type: "erc20", Receiver: "0x0000000000000000000000000000000000000001", Amount: "1"}.Validate()
		}},
		{"tokenId is required", func() error {
			return transfer.Params{Type: "erc721", Receiver: "0x0000000000000000000000000000000000000001", ContractAddress: "0x0000000000000000000000000000000000000002"}.Validate()
		}},
		{"Unsupported type", func() error { return transfer.Params{Type: "erc777"}.Validate() }},
		{"Invalid token Id", func() error {
			return transfer.Params{Type: "erc721", Receiver: "0x0000000000000000000000000000000000000001", ContractAddress: "0x0000000000000000000000000000000000000002", TokenID: "-1"}.Validate()
		}},
		{"A name for the custom event must be provided", func() error { return analytics.Track(ctx, c, "   ", nil) }},
		{"Web3Api.initialize failed: initialize with apiKey or serverUrl", func() error { _, err := web3api.New(web3api.Config{}); return err }},
		{"required param address not provided", func() error { _, err := w3.Account.GetTransactions(ctx, &web3api.GetTransactionsParams{}); return err }},
		{"param abi is required!", func() error {
			_, err := w3.Native.RunContractFunction(ctx, &web3api.RunContractFunctionParams{Address: "0x0000000000000000000000000000000000000001", FunctionName: "x"})
			return err
		}},
		// Section 8: errors.
		{"Address not found", func() error {
			_, err := auth.LogIn(ctx, c, auth.SignedMessage{Chain: auth.ChainEVM, Message: "m", Signature: "0x00"}, nil)
			return err
		}},
		{"Data not signed", func() error {
			_, err := auth.LogIn(ctx, c, auth.SignedMessage{Chain: auth.ChainEVM, Address: "0x0000000000000000000000000000000000000001", Message: "m"}, nil)
			return err
		}},
		{"Sender address not found", func() error {
			noSigner, err := transfer.New(chain, transfer.Config{ChainID: big.NewInt(1337)})
			if err != nil {
				return err
			}
			_, err = noSigner.Transfer(ctx, transfer.Params{Type: transfer.Native, Receiver: "0x0000000000000000000000000000000000000001", Amount: "1"}, nil)
			return err
		}},
		{"Function does not exist in abi", func() error {
			_, err := tc.ExecuteFunction(ctx, transfer.FunctionCall{ContractAddress: "0x0000000000000000000000000000000000000002", ABI: transferABI, FunctionName: "burn"}, nil)
			return err
		}},
		{"Multiple function definitions found in the abi", func() error {
			_, err := tc.ExecuteFunction(ctx, transfer.FunctionCall{ContractAddress: "0x0000000000000000000000000000000000000002", ABI: transferABI, FunctionName: "safeTransferFrom"}, nil)
			return err
		}},
		{"to is required", func() error {
			_, err := tc.ExecuteFunction(ctx, transfer.FunctionCall{ContractAddress: "0x0000000000000000000000000000000000000002", ABI: transferABI, FunctionName: "transfer", Params: map[string]any{"amount": 1}}, nil)
			return err
		}},
		{"Web3Api not initialized, run Moralis.start() first", func() error { var z web3api.Client; _, err := z.Info.Web3ApiVersion(ctx, nil); return err }},
		{"Invalid Key name for queries", func() error { return query.New[map[string]any]("T").EqualTo("$where", 1).Err() }},
		{"Cannot delete an unnamed file", func() error { return c.Files.Delete(ctx, &parse.File{}) }},
		{"Cannot retrieve data for unsaved file", func() error { _, err := c.Files.Data(ctx, &parse.File{Name: "x"}); return err }},
		{"Cannot upgrade a user with no session token", func() error { _, err := c.Sessions.Upgrade(ctx); return err }},
		{"Parse.enableLocalDatastore() must be called first", func() error { _, err := closedStore.Get(ctx, "T", "x"); return err }},
	}
	for _, tc := range cases {
		t.Run(tc.want, func(t *testing.T) {
			before, chainBefore := sent.Load(), chain.calls.Load()
			err := tc.run()
			require.Error(t, err)
			assert.True(t, strings.Contains(err.Error(), tc.want), "want %q in %q", tc.want, err.Error())
			assert.Equal(t, before, sent.Load(), "a request was sent")
			assert.Equal(t, chainBefore, chain.calls.Load(), "the chain was called")
		})
	}
}

// The transport's texts need an answer (or none) from a server, so they are checked with one.
func TestTransportErrorTexts(t *testing.T) {
	ctx := context.Background()
	bad := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(502)
		w.Write([]byte("<html>bad gateway</html>"))
	}))
	defer bad.Close()
	c, err := client.New(client.Config{ServerURL: bad.URL, AppID: "a", MaxAttempts: 1})
	require.NoError(t, err)
	_, err = c.Objects.Get(ctx, "T", "x")
	assert.ErrorContains(t, err, "Received an error with invalid JSON from Parse: <html>bad gateway</html>")

	dead := httptest.NewServer(http.NotFoundHandler())
	url := dead.URL
	dead.Close()
	c, err = client.New(client.Config{ServerURL: url, AppID: "a", MaxAttempts: 1})
	require.NoError(t, err)
	_, err = c.Objects.Get(ctx, "T", "x")
	assert.ErrorContains(t, err, "XMLHttpRequest failed: ")
	c, err = client.New(client.Config{ServerURL: url, AppID: "a", MaxAttempts: 2})
	require.NoError(t, err)
	_, err = c.Objects.Get(ctx, "T", "x")
	assert.ErrorContains(t, err, "Unable to connect to the Parse API")

	_, err = client.New(client.Config{AppID: "a"})
	assert.EqualError(t, err, "moralis: ServerURL is required")
	_, err = client.New(client.Config{ServerURL: "http://x"})
	assert.EqualError(t, err, "moralis: AppID is required")

	w3srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { w.WriteHeader(500) }))
	defer w3srv.Close()
	w3, err := web3api.New(web3api.Config{APIKey: "secret-key", BaseURL: w3srv.URL, MaxAttempts: 1})
	require.NoError(t, err)
	_, err = w3.Info.Web3ApiVersion(ctx, nil)
	// The original's "else the error message": its HTTP library's text for a non-2xx without a message.
	assert.EqualError(t, err, "Request failed with status code 500")
	assert.NotContains(t, err.Error(), "secret-key")
}
