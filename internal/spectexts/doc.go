// Package spectexts holds only a test: one table that triggers every error text of the specification (sections 5
// and 8) that applies to the Go packages, checks the exact text, and proves that nothing was sent. The React
// package has the same kind of table in react-hooks/test/errors.test.ts.
package spectexts
