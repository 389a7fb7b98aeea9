package auth

import (
	"context"

	"github.com/ethereum/go-ethereum/common"

	"github.com/c13f5054/moralis-go/signer"
)

// VerifyTypedData checks that sigHex (0x hex) is address's signature of the EIP-712 typed data data, as a wallet's
// eth_signTypedData_v4 (viem's signTypedData, ethers' Signer.signTypedData) makes it, for externally owned
// accounts and, when chain is not nil, smart-contract accounts. It is viem's verifyTypedData with the rules of
// VerifyEthSignatureContext:
//
//   - the document is checked and hashed by signer.TypedDataHash (a document it refuses is an error wrapping
//     signer.ErrInvalidTypedData, and the chain is not asked);
//   - a 65-byte ECDSA signature of that digest that recovers to address is accepted at once, without the chain;
//   - otherwise, with chain set, one deployless eth_call asks the account: ERC-1271 isValidSignature(digest,
//     signature), after the ERC-6492 factory call for an account not deployed yet (see VerifyEthHash).
//
// With chain nil only ECDSA is checked, without I/O. It returns nil, or an error wrapping ErrMalformedAddress,
// signer.ErrInvalidTypedData, ErrMalformedSignature, ErrSignatureMismatch or ErrChainUnavailable. data is not
// changed. It is safe for concurrent use if chain is.
func VerifyTypedData(ctx context.Context, chain ContractCaller, address string, data *signer.TypedData, sigHex string) error {
	a, err := NormalizeEthAddress(address)
	if err != nil {
		return err
	}
	hash, err := signer.TypedDataHash(data)
	if err != nil {
		return err
	}
	sig, err := decodeContractSignature(sigHex)
	if err != nil {
		return err
	}
	return VerifyEthHash(ctx, chain, common.HexToAddress(a), hash, sig)
}
