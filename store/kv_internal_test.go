package store

import (
	"errors"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	bolt "go.etcd.io/bbolt"
)

// Both backends are all-or-nothing: a failed update leaves no trace.
func TestKVUpdateIsAtomic(t *testing.T) {
	db, err := bolt.Open(filepath.Join(t.TempDir(), "kv.db"), 0o600, nil)
	require.NoError(t, err)
	for name, k := range map[string]kv{"memory": newMemKV(), "bbolt": &boltKV{db: db}} {
		t.Run(name, func(t *testing.T) {
			defer k.close()
			require.NoError(t, k.update(func(tx kvTx) error {
				if err := tx.put(flat("a"), "keep", []byte("1")); err != nil {
					return err
				}
				return tx.put(bref{"n", "x"}, "k", []byte("v"))
			}))
			boom := errors.New("boom")
			err := k.update(func(tx kvTx) error {
				_ = tx.put(flat("a"), "keep", []byte("changed"))
				_ = tx.put(flat("a"), "new", []byte("2"))
				_ = tx.del(bref{"n", "x"}, "k")
				_ = tx.dropSub("n", "x")
				_ = tx.put(flat("b"), "other", nil)
				return boom
			})
			require.ErrorIs(t, err, boom)
			require.NoError(t, k.view(func(tx kvTx) error {
				assert.Equal(t, []byte("1"), tx.get(flat("a"), "keep"))
				assert.Nil(t, tx.get(flat("a"), "new"))
				assert.Equal(t, []byte("v"), tx.get(bref{"n", "x"}, "k"))
				assert.Equal(t, []string{"x"}, tx.subs("n"))
				var keys []string
				_ = tx.each(flat("b"), func(k string, _ []byte) error { keys = append(keys, k); return nil })
				assert.Empty(t, keys)
				return nil
			}))
		})
	}
}
