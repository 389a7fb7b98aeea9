// Command signin signs in to the backend with a wallet key from the command line and prints the user.
//
// Keys (one of):
//
//	-keyfile FILE   an Ethereum keystore JSON (password from the environment variable named by -password-env,
//	                default MORALIS_KEYSTORE_PASSWORD)
//	-key HEX        an Ethereum private key in hex (or MORALIS_PRIVATE_KEY); a key on the command line is visible
//	                to other users of the machine, prefer the environment
//	-sol-key B58    a Solana secret key in base58 (or MORALIS_SOL_SECRET), with -chain solana
//	-dev            a freshly generated development key
//
// The backend comes from -server, -app-id and -js-key, else MORALIS_SERVER_URL, MORALIS_APP_ID and
// MORALIS_JS_KEY, else the local stack's .devstack/env (make up).
//
// Example:
//
//	go run ./examples/signin -dev
//	MORALIS_KEYSTORE_PASSWORD=secret go run ./examples/signin -keyfile ./key.json
package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"
	"time"

	"github.com/c13f5054/moralis-go/auth"
	"github.com/c13f5054/moralis-go/authserver"
	"github.com/c13f5054/moralis-go/client"
	"github.com/c13f5054/moralis-go/internal/devstack"
	"github.com/c13f5054/moralis-go/signer"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	if err := run(ctx, os.Args[1:], os.Getenv, os.Stdout, os.Stderr); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			os.Exit(0)
		}
		fmt.Fprintln(os.Stderr, "signin:", err)
		os.Exit(1)
	}
}

// backendConfig fills the client configuration from flags, then MORALIS_* variables, then the local stack.
func backendConfig(server, appID, jsKey string, getenv func(string) string) (client.Config, error) {
	if server == "" {
		server = getenv("MORALIS_SERVER_URL")
	}
	if appID == "" {
		appID = getenv("MORALIS_APP_ID")
	}
	if jsKey == "" {
		jsKey = getenv("MORALIS_JS_KEY")
	}
	if server == "" || appID == "" {
		env, err := devstack.Load()
		if err != nil {
			return client.Config{}, fmt.Errorf("no backend configured (-server/-app-id or MORALIS_SERVER_URL/MORALIS_APP_ID): %w", err)
		}
		if server == "" {
			server = env.ServerURL
		}
		if appID == "" {
			appID = env.AppID
		}
		if jsKey == "" {
			jsKey = env.JavaScriptKey
		}
	}
	return client.Config{ServerURL: server, AppID: appID, JavaScriptKey: jsKey}, nil
}

func run(ctx context.Context, args []string, getenv func(string) string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("signin", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var (
		chain       = fs.String("chain", "evm", `wallet family: "evm" or "solana"`)
		keyFile     = fs.String("keyfile", "", "Ethereum keystore JSON file")
		passwordEnv = fs.String("password-env", "MORALIS_KEYSTORE_PASSWORD", "environment variable holding the keystore password")
		hexKey      = fs.String("key", "", "Ethereum private key in hex (default $MORALIS_PRIVATE_KEY)")
		solKey      = fs.String("sol-key", "", "Solana secret key in base58 (default $MORALIS_SOL_SECRET)")
		dev         = fs.Bool("dev", false, "generate a throw-away development key")
		message     = fs.String("message", auth.DefaultSigningMessage, "text of the signing message")
		server      = fs.String("server", "", "backend URL with mount path (default $MORALIS_SERVER_URL)")
		appID       = fs.String("app-id", "", "application id (default $MORALIS_APP_ID)")
		jsKey       = fs.String("js-key", "", "JavaScript key (default $MORALIS_JS_KEY)")
		showToken   = fs.Bool("show-token", false, "also print the session token")
		timeout     = fs.Duration("timeout", 30*time.Second, "overall time limit")
	)
	fs.Usage = func() {
		fmt.Fprintln(stderr, "usage: signin [flags]   (one of -keyfile, -key, -sol-key or -dev)")
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		fs.Usage()
		return fmt.Errorf("unexpected argument %q", fs.Arg(0))
	}
	cfg, err := backendConfig(*server, *appID, *jsKey, getenv)
	if err != nil {
		return err
	}
	c, err := client.New(cfg)
	if err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(ctx, *timeout)
	defer cancel()
	opts := &auth.Options{Message: *message}

	var u *client.User
	switch auth.Chain(*chain) {
	case auth.ChainEVM:
		s, err := ethSigner(*keyFile, *passwordEnv, *hexKey, *dev, getenv)
		if err != nil {
			return err
		}
		fmt.Fprintln(stderr, "signing in as", strings.ToLower(s.Address().Hex()))
		if u, err = auth.SignInEthereum(ctx, c, s, opts); err != nil {
			return err
		}
	case auth.ChainSolana:
		s, err := solSigner(*solKey, *dev, getenv)
		if err != nil {
			return err
		}
		fmt.Fprintln(stderr, "signing in as", s.PublicKey())
		if u, err = auth.SignInSolana(ctx, c, s, opts); err != nil {
			return err
		}
	default:
		return fmt.Errorf(`-chain must be "evm" or "solana", not %q`, *chain)
	}
	out := map[string]any{"user": authserver.PublicUserOf(u)}
	if *showToken {
		out["sessionToken"] = u.SessionToken()
	}
	enc := json.NewEncoder(stdout)
	enc.SetIndent("", "  ")
	return enc.Encode(out)
}

func ethSigner(keyFile, passwordEnv, hexKey string, dev bool, getenv func(string) string) (*signer.Key, error) {
	if hexKey == "" && keyFile == "" && !dev {
		hexKey = getenv("MORALIS_PRIVATE_KEY")
	}
	n := 0
	for _, set := range []bool{keyFile != "", hexKey != "", dev} {
		if set {
			n++
		}
	}
	switch {
	case n == 0:
		return nil, errors.New("no key: give -keyfile, -key (or MORALIS_PRIVATE_KEY) or -dev")
	case n > 1:
		return nil, errors.New("give only one of -keyfile, -key and -dev")
	case keyFile != "":
		pw := getenv(passwordEnv)
		if pw == "" {
			return nil, fmt.Errorf("the keystore password must be in $%s", passwordEnv)
		}
		return signer.NewKeyFromKeystoreFile(keyFile, pw)
	case hexKey != "":
		return signer.NewKeyFromHex(hexKey)
	default:
		return signer.GenerateKey()
	}
}

func solSigner(secret string, dev bool, getenv func(string) string) (*signer.Ed25519Key, error) {
	if secret == "" && !dev {
		secret = getenv("MORALIS_SOL_SECRET")
	}
	switch {
	case secret != "" && dev:
		return nil, errors.New("give only one of -sol-key and -dev")
	case secret != "":
		return signer.NewEd25519KeyFromBase58(secret)
	case dev:
		return signer.GenerateEd25519Key()
	}
	return nil, errors.New("no key: give -sol-key (or MORALIS_SOL_SECRET) or -dev")
}
