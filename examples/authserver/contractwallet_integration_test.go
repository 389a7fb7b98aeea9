//go:build integration

package main

import (
	"bytes"
	"encoding/hex"
	"encoding/json"
	"io"
	"net/http"
	"net/http/cookiejar"
	"strings"
	"testing"
	"time"

	"github.com/c13f5054/moralis-go/auth"
	"github.com/c13f5054/moralis-go/internal/devchain/devnet"
	"github.com/c13f5054/moralis-go/internal/devchain/walletnet"
	"github.com/c13f5054/moralis-go/internal/devstack"
	"github.com/c13f5054/moralis-go/signer"
)

// Issue 32, item 4: with -chain-rpc the shipped example signs smart-contract wallets in, through the real backend:
// an ERC-1271 account's owner and an ERC-6492 account not deployed yet get in, a non-owner does not.
func TestSmartWalletSignInThroughTheExample(t *testing.T) {
	env := devstack.MustLoad(t)
	c, err := devnet.Start(devnet.Config{HTTPAddr: "127.0.0.1:0"})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = c.Close() })
	rcpt, err := c.SendFromDev(t.Context(), nil, nil, walletnet.FactoryInit(t))
	if err != nil {
		t.Fatal(err)
	}
	w := &walletnet.Chain{Chain: c, Factory: rcpt.ContractAddress}
	owner, _ := signer.GenerateKey()
	other, _ := signer.GenerateKey()
	deployed := strings.ToLower(w.DeployAccount(t, owner.Address()).Hex())
	later := strings.ToLower(w.Counterfactual(t, other.Address()).Hex())

	m := map[string]string{"MORALIS_SERVER_URL": env.ServerURL, "MORALIS_APP_ID": env.AppID, "MORALIS_JS_KEY": env.JavaScriptKey,
		"MORALIS_MASTER_KEY": env.MasterKey}
	srv := startServer(t, []string{"-static", t.TempDir(), "-no-address-objects", "-chain-rpc", c.RPCURL, "-chain-id", "1337"}, m)
	signIn := func(address string, sign func(msg string) string) (int, string) {
		jar, _ := cookiejar.New(nil)
		hc := &http.Client{Jar: jar, Timeout: 30 * time.Second}
		resp, err := hc.Get(srv.base + "/auth/message?chain=evm&address=" + address)
		if err != nil {
			t.Fatal(err)
		}
		var msg struct{ Message string }
		err = json.NewDecoder(resp.Body).Decode(&msg)
		resp.Body.Close()
		if resp.StatusCode != 200 || err != nil {
			t.Fatalf("message: %d %v", resp.StatusCode, err)
		}
		b, _ := json.Marshal(map[string]string{"chain": "evm", "address": address, "message": msg.Message, "signature": sign(msg.Message)})
		resp, err = hc.Post(srv.base+"/auth/signin", "application/json", bytes.NewReader(b))
		if err != nil {
			t.Fatal(err)
		}
		out, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != 200 {
			return resp.StatusCode, string(out)
		}
		resp, err = hc.Get(srv.base + "/auth/me")
		if err != nil {
			t.Fatal(err)
		}
		out, _ = io.ReadAll(resp.Body)
		resp.Body.Close()
		return resp.StatusCode, string(out)
	}
	personal := func(s *signer.Key) func(string) string {
		return func(msg string) string {
			sig, err := s.SignMessage(t.Context(), []byte(msg))
			if err != nil {
				t.Fatal(err)
			}
			return "0x" + hex.EncodeToString(sig)
		}
	}
	if code, body := signIn(deployed, personal(owner)); code != 200 || !strings.Contains(body, deployed) {
		t.Fatalf("ERC-1271 owner: %d %s\n%s", code, body, srv.logs.String())
	}
	if code, body := signIn(deployed, personal(other)); code != http.StatusUnauthorized {
		t.Fatalf("ERC-1271 non-owner: %d %s", code, body)
	}
	wrapped := func(msg string) string {
		sig, _ := hex.DecodeString(strings.TrimPrefix(personal(other)(msg), "0x"))
		return "0x" + hex.EncodeToString(auth.WrapERC6492Signature(w.Factory, walletnet.CreateAccountCall(other.Address()), sig))
	}
	if code, body := signIn(later, wrapped); code != 200 || !strings.Contains(body, later) {
		t.Fatalf("ERC-6492 owner of an account not deployed yet: %d %s", code, body)
	}
	srv.stop(t)
}
