package transfer_test

import (
	"context"
	"testing"

	"github.com/ethereum/go-ethereum/accounts/keystore"
	"github.com/google/uuid"
)

// encryptedDevKey returns the dev key as a V3 keystore file (light scrypt, for speed).
func encryptedDevKey(t *testing.T, e *env, pass string) []byte {
	t.Helper()
	k := &keystore.Key{Id: uuid.New(), Address: e.chain.DevAddr, PrivateKey: e.chain.DevKey}
	b, err := keystore.EncryptKey(k, pass, keystore.LightScryptN, keystore.LightScryptP)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func contextWithCancel(t *testing.T) (context.Context, context.CancelFunc) {
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	return ctx, cancel
}
