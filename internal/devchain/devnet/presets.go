package devnet

import (
	"context"
	"fmt"
	"math/big"

	"github.com/c13f5054/moralis-go/internal/contracts"
	"github.com/ethereum/go-ethereum/common"
)

// Presets are the deployed OpenZeppelin preset contracts and what was minted
// to the dev account at deployment.
type Presets struct {
	ERC20, ERC721, ERC1155 common.Address

	// ERC20Minted is the dev account's ERC-20 balance after deployment.
	ERC20Minted *big.Int
	// ERC721Tokens are the token ids minted to the dev account.
	ERC721Tokens []*big.Int
	// ERC1155Minted maps token id to the amount minted to the dev account.
	ERC1155Minted map[int64]*big.Int
}

// PresetNFTCount is how many ERC-721 tokens DeployPresets mints (ids 0..n-1).
const PresetNFTCount = 3

// Deploy creates the named contracts artifact with constructor args from the
// dev account and returns its address.
func (c *Chain) Deploy(ctx context.Context, name string, args ...any) (common.Address, error) {
	art, err := contracts.Load(name)
	if err != nil {
		return common.Address{}, err
	}
	data, err := art.DeployData(args...)
	if err != nil {
		return common.Address{}, err
	}
	rcpt, err := c.SendFromDev(ctx, nil, nil, data)
	if err != nil {
		return common.Address{}, fmt.Errorf("devnet: deploy %s: %w", name, err)
	}
	return rcpt.ContractAddress, nil
}

// CallFromDev sends a state-changing call of the named artifact's function to
// contract from the dev account and waits for it.
func (c *Chain) CallFromDev(ctx context.Context, name string, contract common.Address, method string, args ...any) error {
	art, err := contracts.Load(name)
	if err != nil {
		return err
	}
	data, err := art.ABI.Pack(method, args...)
	if err != nil {
		return fmt.Errorf("devnet: pack %s.%s: %w", name, method, err)
	}
	if _, err := c.SendFromDev(ctx, &contract, nil, data); err != nil {
		return fmt.Errorf("devnet: %s.%s: %w", name, method, err)
	}
	return nil
}

// DeployPresets deploys ERC20PresetMinterPauser ("Dev Token", "DEV"),
// ERC721PresetMinterPauserAutoId ("Dev NFT", "DNFT") and
// ERC1155PresetMinterPauser, then mints to the dev account 1,000,000 DEV
// (18 decimals), ERC-721 tokens 0..PresetNFTCount-1, and ERC-1155 id 1 × 100
// and id 2 × 5.
func (c *Chain) DeployPresets(ctx context.Context) (*Presets, error) {
	p := &Presets{ERC1155Minted: map[int64]*big.Int{}}
	var err error
	if p.ERC20, err = c.Deploy(ctx, contracts.ERC20, "Dev Token", "DEV"); err != nil {
		return nil, err
	}
	if p.ERC721, err = c.Deploy(ctx, contracts.ERC721, "Dev NFT", "DNFT", "https://example.invalid/nft/"); err != nil {
		return nil, err
	}
	if p.ERC1155, err = c.Deploy(ctx, contracts.ERC1155, "https://example.invalid/item/{id}.json"); err != nil {
		return nil, err
	}
	p.ERC20Minted = new(big.Int).Mul(big.NewInt(1_000_000), big.NewInt(1e18))
	if err := c.CallFromDev(ctx, contracts.ERC20, p.ERC20, "mint", c.DevAddr, p.ERC20Minted); err != nil {
		return nil, err
	}
	for i := 0; i < PresetNFTCount; i++ {
		if err := c.CallFromDev(ctx, contracts.ERC721, p.ERC721, "mint", c.DevAddr); err != nil {
			return nil, err
		}
		p.ERC721Tokens = append(p.ERC721Tokens, big.NewInt(int64(i)))
	}
	for id, amount := range map[int64]int64{1: 100, 2: 5} {
		if err := c.CallFromDev(ctx, contracts.ERC1155, p.ERC1155, "mint", c.DevAddr, big.NewInt(id), big.NewInt(amount), []byte{}); err != nil {
			return nil, err
		}
		p.ERC1155Minted[id] = big.NewInt(amount)
	}
	return p, nil
}
