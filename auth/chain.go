package auth

// Chain names a wallet family: ChainEVM (Ethereum and other EVM chains) or ChainSolana. It is the "chain" of the
// endpoint's requests (package authserver) and selects the auth provider on the backend.
type Chain string

const (
	// ChainEVM is an Ethereum-type wallet (secp256k1, personal_sign, auth provider moralisEth).
	ChainEVM Chain = "evm"
	// ChainSolana is a Solana wallet (ed25519, base58, auth provider moralisSol).
	ChainSolana Chain = "solana"
)

// Auth provider names registered on the backend.
const (
	ProviderEth = "moralisEth"
	ProviderSol = "moralisSol"
)

// Provider returns the backend auth provider for the chain: ProviderSol for ChainSolana, else ProviderEth.
func (c Chain) Provider() string {
	if c == ChainSolana {
		return ProviderSol
	}
	return ProviderEth
}

// SignedMessage is a message, the address claimed to have signed it and the signature (0x hex for EVM, base58
// for Solana), with the backend's one-time ticket for it. It is a plain value; the flows copy it and never change
// the caller's. An empty Chain means ChainEVM. Values that reach an authserver.Backend from the endpoint have been
// verified.
type SignedMessage struct {
	// Chain is the wallet family; "" means ChainEVM.
	Chain Chain
	// Address is the 0x address (any case; compared lower-cased) or the base58 Solana public key.
	Address string
	// Message is the exact text that was signed.
	Message string
	// Signature is 0x hex (EVM, 65 bytes, or a contract account's signature) or base58 (Solana, 64 bytes).
	Signature string
	// Ticket is the one-time sign-in ticket the backend issued for this message (see IssueTicket and
	// RequestMessage); this project's backend adapters accept no authData without one. Empty: none is sent.
	Ticket string
}

// AuthData returns the authData a backend auth adapter expects: {id, signature, data}, plus ticket when
// m.Ticket is set. EVM addresses are lower-cased.
func (m SignedMessage) AuthData() map[string]any {
	id := m.Address
	if m.Chain != ChainSolana {
		if a, err := NormalizeEthAddress(id); err == nil {
			id = a
		}
	}
	data := map[string]any{"id": id, "signature": m.Signature, "data": m.Message}
	if m.Ticket != "" {
		data["ticket"] = m.Ticket
	}
	return data
}
