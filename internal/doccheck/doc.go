// Package doccheck holds only a test: every ```go block of README.md (and of the detail documents listed in the
// test) is type-checked against the module as it is, so a block that names a function, field or type that no
// longer exists, or uses one with the wrong types, fails `go test` (and so `make test`).
//
// Each block is checked as the body of a function in a package of its own. The package imports every package a
// block may name (the module's public packages, a few of the standard library's and go-ethereum's ethclient) and
// declares the free variables the README's snippets share (ctx, c, key, ...; see preamble in the test), so a
// snippet reads as a user would paste it into their own function. A block that starts with "package" is checked as
// a whole file. Variables and imports a snippet leaves unused are not errors here; everything else go/types
// reports is. The packages' export data comes from one `go list -export` (the build cache make lint and the tests
// fill), so the check costs about a second of CPU once the module is built.
//
// A snippet that is not meant to compile (pseudo-code, an ellipsis) belongs in a ```text block, not a ```go one.
package doccheck
