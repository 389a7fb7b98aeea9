package auth

import (
	"bytes"
	"crypto/ed25519"
	"encoding/hex"
	"errors"
	"fmt"
	"math/big"
	"strings"

	"filippo.io/edwards25519"
	"github.com/ethereum/go-ethereum/accounts"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/mr-tron/base58"
)

// ErrSignatureMismatch is returned (wrapped) when a well-formed signature was made by another key than the
// address or public key it is checked against.
var ErrSignatureMismatch = errors.New("auth: signature does not match address")

// ErrMalformedSignature is returned (wrapped) when a signature cannot be decoded or is not canonical
// (wrong length, bad encoding, a recovery id other than 0, 1, 27 or 28, r or s out of range, or a high s).
var ErrMalformedSignature = errors.New("auth: malformed signature")

// ErrMalformedAddress is returned (wrapped) when an address or public key cannot be decoded.
var ErrMalformedAddress = errors.New("auth: malformed address")

// secp256k1 group order halved; a signature with s above it is the malleable twin of a canonical one.
var secp256k1HalfN = new(big.Int).Rsh(crypto.S256().Params().N, 1)

// NormalizeEthAddress checks that addr is a 20-byte hex address with a 0x prefix and returns it lower-cased.
// The checksum (mixed case) is not enforced here: addresses are compared lower-cased everywhere in this package.
func NormalizeEthAddress(addr string) (string, error) {
	a := strings.TrimSpace(addr)
	if len(a) != 42 || (a[:2] != "0x" && a[:2] != "0X") {
		return "", fmt.Errorf("%w: want 0x followed by 40 hex digits", ErrMalformedAddress)
	}
	if _, err := hex.DecodeString(a[2:]); err != nil {
		return "", fmt.Errorf("%w: want 0x followed by 40 hex digits", ErrMalformedAddress)
	}
	return "0x" + strings.ToLower(a[2:]), nil
}

// ChecksumEthAddress returns the EIP-55 mixed-case form of a valid address (as SIWE messages require).
func ChecksumEthAddress(addr string) (string, error) {
	a, err := NormalizeEthAddress(addr)
	if err != nil {
		return "", err
	}
	return common.HexToAddress(a).Hex(), nil
}

// DecodeEthSignature decodes a 65-byte [R || S || V] signature in hex (with or without 0x). V may be 27/28
// (as personal_sign returns it) or 0/1. The result has V as 0 or 1, ready for crypto.SigToPub.
// Non-canonical signatures (high s, r or s zero or out of range) are refused with ErrMalformedSignature.
func DecodeEthSignature(sigHex string) ([]byte, error) {
	s := strings.TrimPrefix(strings.TrimPrefix(strings.TrimSpace(sigHex), "0x"), "0X")
	if len(s) != 130 {
		return nil, fmt.Errorf("%w: want 65 bytes in hex", ErrMalformedSignature)
	}
	sig, err := hex.DecodeString(s)
	if err != nil {
		return nil, fmt.Errorf("%w: not hex", ErrMalformedSignature)
	}
	v := sig[64]
	switch v {
	case 27, 28:
		v -= 27
	case 0, 1:
	default:
		return nil, fmt.Errorf("%w: recovery id %d", ErrMalformedSignature, sig[64])
	}
	r := new(big.Int).SetBytes(sig[:32])
	sv := new(big.Int).SetBytes(sig[32:64])
	if !crypto.ValidateSignatureValues(v, r, sv, true) {
		return nil, fmt.Errorf("%w: r or s out of range or s not canonical", ErrMalformedSignature)
	}
	if sv.Cmp(secp256k1HalfN) > 0 { // ValidateSignatureValues already checks this; kept explicit.
		return nil, fmt.Errorf("%w: high s", ErrMalformedSignature)
	}
	sig[64] = v
	return sig, nil
}

// RecoverEthAddress returns the lower-cased address whose key made sigHex, an EIP-191 personal_sign signature
// ("\x19Ethereum Signed Message:\n" + len + message, Keccak-256) of message.
func RecoverEthAddress(message []byte, sigHex string) (string, error) {
	sig, err := DecodeEthSignature(sigHex)
	if err != nil {
		return "", err
	}
	pub, err := crypto.SigToPub(accounts.TextHash(message), sig)
	if err != nil {
		return "", fmt.Errorf("%w: %v", ErrMalformedSignature, err)
	}
	return strings.ToLower(crypto.PubkeyToAddress(*pub).Hex()), nil
}

// VerifyEthSignature checks that sigHex is a personal_sign signature of message by address (compared
// lower-cased). It returns nil, or an error wrapping ErrMalformedAddress, ErrMalformedSignature or
// ErrSignatureMismatch.
func VerifyEthSignature(address string, message []byte, sigHex string) error {
	want, err := NormalizeEthAddress(address)
	if err != nil {
		return err
	}
	got, err := RecoverEthAddress(message, sigHex)
	if err != nil {
		return err
	}
	if got != want {
		return ErrSignatureMismatch
	}
	return nil
}

// DecodeSolPublicKey decodes a base58 Solana address into an ed25519 public key that can sign: 32 bytes, the
// canonical encoding of a curve point (y below 2^255-19, no "negative zero" x) that is not of small order. The 8
// small-order points (e.g. the address 11111111111111111111111111111111, y = 0) and non-canonical encodings are
// refused with ErrMalformedAddress: with such a key a signature can be forged without any private key.
func DecodeSolPublicKey(addr string) (ed25519.PublicKey, error) {
	b, err := base58.Decode(strings.TrimSpace(addr))
	if err != nil || len(b) != ed25519.PublicKeySize {
		return nil, fmt.Errorf("%w: want a base58 ed25519 public key of 32 bytes", ErrMalformedAddress)
	}
	if why := checkEd25519Point(b); why != "" {
		return nil, fmt.Errorf("%w: public key %s", ErrMalformedAddress, why)
	}
	return ed25519.PublicKey(b), nil
}

// checkEd25519Point returns "" when b is the canonical encoding of a point of the curve that is not of small
// order, else why not.
func checkEd25519Point(b []byte) string {
	p, err := new(edwards25519.Point).SetBytes(b)
	if err != nil {
		return "is not a point of the curve"
	}
	// SetBytes accepts the non-canonical encodings too (y >= p, or x = 0 with the sign bit set); the canonical
	// encoding of the point is its only accepted form.
	if !bytes.Equal(p.Bytes(), b) {
		return "is not canonically encoded"
	}
	// [8]P is the identity exactly for the 8 points whose order divides 8.
	if new(edwards25519.Point).MultByCofactor(p).Equal(edwards25519.NewIdentityPoint()) == 1 {
		return "is a point of small order"
	}
	return ""
}

// DecodeSolSignature decodes a base58 ed25519 signature of 64 bytes [R || S] and checks its form: R the
// canonical encoding of a point not of small order, S canonical (below the group order L). Anything else is
// refused with ErrMalformedSignature.
func DecodeSolSignature(sig string) ([]byte, error) {
	b, err := base58.Decode(strings.TrimSpace(sig))
	if err != nil || len(b) != ed25519.SignatureSize {
		return nil, fmt.Errorf("%w: want a base58 ed25519 signature of 64 bytes", ErrMalformedSignature)
	}
	if why := checkEd25519Point(b[:32]); why != "" {
		return nil, fmt.Errorf("%w: R %s", ErrMalformedSignature, why)
	}
	if _, err := new(edwards25519.Scalar).SetCanonicalBytes(b[32:]); err != nil {
		return nil, fmt.Errorf("%w: S is not below the group order", ErrMalformedSignature)
	}
	return b, nil
}

// VerifySolSignature checks that sigB58 (base58) is an ed25519 signature of message by the base58 public key
// address. Keys and signatures of the forms a forger can use without a private key (small-order or
// non-canonical points, S >= L) are refused before the check. It returns nil, or an error wrapping
// ErrMalformedAddress, ErrMalformedSignature or ErrSignatureMismatch. It is safe for concurrent use.
func VerifySolSignature(address string, message []byte, sigB58 string) error {
	pub, err := DecodeSolPublicKey(address)
	if err != nil {
		return err
	}
	sig, err := DecodeSolSignature(sigB58)
	if err != nil {
		return err
	}
	if !ed25519.Verify(pub, message, sig) {
		return ErrSignatureMismatch
	}
	return nil
}
