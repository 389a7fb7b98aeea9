// Package contracts holds the ABI and creation bytecode of the OpenZeppelin
// 4.9.6 preset token contracts (ERC-20, ERC-721, ERC-1155), extracted from the
// published npm package by gen.sh. It exists for tests and the local dev chain;
// library code does not import it.
//
// The artifacts are read-only and every function here is safe for concurrent use.
package contracts
