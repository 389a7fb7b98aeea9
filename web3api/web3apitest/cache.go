package web3apitest

import (
	"context"
	"fmt"
	"sync"

	"github.com/ethereum/go-ethereum"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"
)

// logCache wraps a Chain and remembers FilterLogs answers while the chain head stays the same, so that walking
// a long listing page by page does not fetch every log again for each page.
type logCache struct {
	Chain
	mu   sync.Mutex
	head common.Hash
	logs map[string][]types.Log
}

const maxCachedQueries = 64

func (c *logCache) FilterLogs(ctx context.Context, q ethereum.FilterQuery) ([]types.Log, error) {
	hd, err := c.Chain.HeaderByNumber(ctx, nil)
	if err != nil {
		return nil, err
	}
	key := fmt.Sprintf("%v|%v|%v|%v|%v", q.BlockHash, q.FromBlock, q.ToBlock, q.Addresses, q.Topics)
	c.mu.Lock()
	if c.head != hd.Hash() || len(c.logs) > maxCachedQueries {
		c.head, c.logs = hd.Hash(), map[string][]types.Log{}
	}
	if l, ok := c.logs[key]; ok {
		c.mu.Unlock()
		return l, nil
	}
	c.mu.Unlock()
	logs, err := c.Chain.FilterLogs(ctx, q)
	if err != nil {
		return nil, err
	}
	c.mu.Lock()
	if c.head == hd.Hash() {
		c.logs[key] = logs
	}
	c.mu.Unlock()
	return logs, nil
}
