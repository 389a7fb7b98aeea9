//go:build integration

package main

import (
	"bytes"
	"encoding/hex"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/c13f5054/moralis-go/internal/devstack"
	"github.com/ethereum/go-ethereum/accounts/keystore"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/google/uuid"
)

type printed struct {
	User struct {
		ObjectID    string   `json:"objectId"`
		EthAddress  string   `json:"ethAddress"`
		Accounts    []string `json:"accounts"`
		SolAddress  string   `json:"solAddress"`
		SolAccounts []string `json:"solAccounts"`
	} `json:"user"`
	SessionToken string `json:"sessionToken"`
}

func stackEnv(t *testing.T) func(string) string {
	env := devstack.MustLoad(t)
	m := map[string]string{"MORALIS_SERVER_URL": env.ServerURL, "MORALIS_APP_ID": env.AppID, "MORALIS_JS_KEY": env.JavaScriptKey}
	return func(k string) string { return m[k] }
}

func runOK(t *testing.T, getenv func(string) string, args ...string) printed {
	t.Helper()
	var out, errb bytes.Buffer
	if err := run(t.Context(), args, getenv, &out, &errb); err != nil {
		t.Fatalf("run %v: %v\n%s", args, err, errb.String())
	}
	var p printed
	if err := json.Unmarshal(out.Bytes(), &p); err != nil || p.User.ObjectID == "" {
		t.Fatalf("output %q: %v", out.String(), err)
	}
	return p
}

func TestSignInDevKeys(t *testing.T) {
	getenv := stackEnv(t)
	p := runOK(t, getenv, "-dev")
	if !strings.HasPrefix(p.User.EthAddress, "0x") || len(p.User.Accounts) != 1 || p.SessionToken != "" {
		t.Fatalf("evm: %+v", p)
	}
	p = runOK(t, getenv, "-dev", "-chain", "solana", "-show-token")
	if p.User.SolAddress == "" || len(p.User.SolAccounts) != 1 || !strings.HasPrefix(p.SessionToken, "r:") {
		t.Fatalf("solana: %+v", p)
	}
}

func TestSignInKeystoreAndHexKey(t *testing.T) {
	getenv := stackEnv(t)
	key, _ := crypto.GenerateKey()
	addr := strings.ToLower(crypto.PubkeyToAddress(key.PublicKey).Hex())
	js, err := keystore.EncryptKey(&keystore.Key{Id: uuid.New(), Address: crypto.PubkeyToAddress(key.PublicKey), PrivateKey: key},
		"pw-123", keystore.LightScryptN, keystore.LightScryptP)
	if err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(t.TempDir(), "key.json")
	if err := os.WriteFile(file, js, 0o600); err != nil {
		t.Fatal(err)
	}
	withPw := func(k string) string {
		if k == "KS_PW" {
			return "pw-123"
		}
		return getenv(k)
	}
	p1 := runOK(t, withPw, "-keyfile", file, "-password-env", "KS_PW")
	if p1.User.EthAddress != addr {
		t.Fatalf("keystore: %+v want %s", p1, addr)
	}
	// The same key in hex, from the environment, is the same user.
	withKey := func(k string) string {
		if k == "MORALIS_PRIVATE_KEY" {
			return "0x" + hex.EncodeToString(crypto.FromECDSA(key))
		}
		return getenv(k)
	}
	p2 := runOK(t, withKey)
	if p2.User.ObjectID != p1.User.ObjectID {
		t.Fatalf("hex key signed in as %s, keystore as %s", p2.User.ObjectID, p1.User.ObjectID)
	}
	var out, errb bytes.Buffer
	if err := run(t.Context(), []string{"-keyfile", file}, getenv, &out, &errb); err == nil || !strings.Contains(err.Error(), "MORALIS_KEYSTORE_PASSWORD") {
		t.Fatalf("no password: %v", err)
	}
	wrong := func(k string) string {
		if k == "MORALIS_KEYSTORE_PASSWORD" {
			return "wrong"
		}
		return getenv(k)
	}
	if err := run(t.Context(), []string{"-keyfile", file}, wrong, &out, &errb); err == nil {
		t.Fatal("wrong password accepted")
	}
	if err := run(t.Context(), nil, getenv, &out, &errb); err == nil || !strings.Contains(err.Error(), "no key") {
		t.Fatalf("no key: %v", err)
	}
	if err := run(t.Context(), []string{"-dev", "-key", "00"}, getenv, &out, &errb); err == nil {
		t.Fatal("two keys accepted")
	}
}
