package signer_test

import (
	"context"
	"encoding/hex"
	"fmt"
	"math/big"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/mr-tron/base58"

	"github.com/c13f5054/moralis-go/signer"
)

// A personal_sign signature is deterministic (RFC 6979): this is the known-answer vector of the tests.
func ExampleNewKeyFromHex() {
	// Hardhat's development key #0: public knowledge, never use it for real funds.
	k, err := signer.NewKeyFromHex("0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80")
	if err != nil {
		fmt.Println(err)
		return
	}
	sig, _ := k.SignMessage(context.Background(), []byte("hello world"))
	fmt.Println(k.Address().Hex())
	fmt.Println("0x" + hex.EncodeToString(sig))
	fmt.Println(k) // the address only, never the key
	// Output:
	// 0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266
	// 0xa461f509887bd19e312c0c58467ce8ff8e300d3c1a90b608a760c5b80318eaf15fe57c96f9175d6cd4daad4663763baa7e78836e067d0163e9a2ccf2ff753f5b1b
	// signer.Key(0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266)
}

// The same Key signs transactions (signer.EthereumTx, what transfer.Config.Signer takes); nothing is sent.
func ExampleKey_SignTx() {
	k, _ := signer.NewKeyFromHex("ac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80")
	to := common.HexToAddress("0x000000000000000000000000000000000000dEaD")
	chainID := big.NewInt(1337)
	tx := types.NewTx(&types.DynamicFeeTx{ChainID: chainID, Nonce: 0, GasTipCap: big.NewInt(1), GasFeeCap: big.NewInt(2),
		Gas: 21000, To: &to, Value: big.NewInt(1)})
	signed, err := k.SignTx(context.Background(), tx, chainID)
	if err != nil {
		fmt.Println(err)
		return
	}
	from, _ := types.Sender(types.LatestSignerForChainID(chainID), signed)
	fmt.Println(from == k.Address())
	// Output: true
}

// A Solana key from the base58 secret a wallet exports (here the seed of RFC 8032's test vector 1).
func ExampleNewEd25519KeyFromBase58() {
	seed, _ := hex.DecodeString("9d61b19deffd5a60ba844af492ec2cc44449c5697b326919703bac031cae7f60")
	k, err := signer.NewEd25519KeyFromBase58(base58.Encode(seed))
	if err != nil {
		fmt.Println(err)
		return
	}
	sig, _ := k.SignMessage(context.Background(), []byte("Moralis Authentication\n\nId: testAppId:abcDEF12345678"))
	fmt.Println(k.PublicKey())
	fmt.Println(base58.Encode(sig))
	// Output:
	// FVen3X669xLzsi6N2V91DoiyzHzg1uAgqiT8jZ9nS96Z
	// 2ohebczxngxZukmDgA4XaRxcwokgnA3aXNZ6bafyA6SCYRCBWH6rSY2BTXGLNLd2H2cZq2RBcTwP8SPJV6Kw3jua
}

// Any wallet can sign in or send: implement the interface it serves. Here a read-only Ethereum "signer" that
// refuses, as a hardware wallet whose user said no would.
type refusingWallet struct{ addr common.Address }

func (w refusingWallet) Address() common.Address { return w.addr }
func (w refusingWallet) SignMessage(ctx context.Context, msg []byte) ([]byte, error) {
	return nil, fmt.Errorf("the user refused to sign %d bytes", len(msg))
}

func Example_ownWallet() {
	var s signer.Ethereum = refusingWallet{addr: common.HexToAddress("0x000000000000000000000000000000000000bEEF")}
	_, err := s.SignMessage(context.Background(), []byte("Moralis Authentication"))
	fmt.Println(s.Address().Hex(), err)
	// Output: 0x000000000000000000000000000000000000bEEF the user refused to sign 22 bytes
}

// The EIP-712 example of the EIP itself: the Mail document, its digest, and its signature by keccak256("cow"),
// the same bytes a wallet's eth_signTypedData_v4 returns for this key.
func ExampleKey_SignTypedData() {
	td, err := signer.ParseTypedData([]byte(`{
	  "types": {
	    "Person": [{"name": "name", "type": "string"}, {"name": "wallet", "type": "address"}],
	    "Mail": [{"name": "from", "type": "Person"}, {"name": "to", "type": "Person"}, {"name": "contents", "type": "string"}]
	  },
	  "primaryType": "Mail",
	  "domain": {"name": "Ether Mail", "version": "1", "chainId": 1, "verifyingContract": "0xCcCCccccCCCCcCCCCCCcCcCccCcCCCcCcccccccC"},
	  "message": {
	    "from": {"name": "Cow", "wallet": "0xCD2a3d9F938E13CD947Ec05AbC7FE734Df8DD826"},
	    "to": {"name": "Bob", "wallet": "0xbBbBBBBbbBBBbbbBbbBbbbbBBbBbbbbBbBbbBBbB"},
	    "contents": "Hello, Bob!"
	  }
	}`))
	if err != nil {
		fmt.Println(err)
		return
	}
	digest, _ := signer.TypedDataHash(td)
	fmt.Println(digest.Hex())

	// The EIP's example key, keccak256("cow"): public knowledge.
	k, _ := signer.NewKeyFromHex("c85ef7d79691fe79573b1a7064c19c1a9819ebdbd1faaab1a8ec92344438aaf4")
	sig, _ := k.SignTypedData(context.Background(), td)
	fmt.Println(k.Address().Hex())
	fmt.Println("0x" + hex.EncodeToString(sig))

	// A value that does not fit its type is refused, never hashed.
	td.Message["to"].(map[string]any)["wallet"] = "0x1234"
	_, err = signer.TypedDataHash(td)
	fmt.Println(err)
	// Output:
	// 0xbe609aee343fb3c4b28e1df9e632fca64fcfaede20f02e86244efddf30957bd2
	// 0xCD2a3d9F938E13CD947Ec05AbC7FE734Df8DD826
	// 0x4355c47d63924e8a72e509b65029052eb6c299d53a04e167c5775fd466751c9d07299936d304c153f6443dfa05f40ff007d72911b6f72307f996231605b915621c
	// signer: invalid typed data: message.to.wallet: address "0x1234": want 0x and 40 hex digits
}
