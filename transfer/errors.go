package transfer

import (
	"errors"
	"fmt"
	"strings"
)

// Sentinel errors with the product's exact texts. Match them with errors.Is.
var (
	// ErrUnsupportedType: the transfer type is not native, erc20, erc721 or erc1155.
	ErrUnsupportedType = errors.New("Unsupported type")
	// ErrInvalidTokenID: the token id is not an unsigned 256-bit integer.
	ErrInvalidTokenID = errors.New("Invalid token Id")
	// ErrSenderNotFound: the signer is missing or has no address.
	ErrSenderNotFound = errors.New("Sender address not found")
	// ErrFromRequired: a state-changing function call has no signer to send from.
	ErrFromRequired = errors.New("From address is required")
	// ErrFunctionNotFound: the function name is not in the ABI.
	ErrFunctionNotFound = errors.New("Function does not exist in abi")
	// ErrMultipleFunctions: the name matches several overloads; see *AmbiguousFunctionError.
	ErrMultipleFunctions = errors.New("Multiple function definitions found in the abi")
)

// RequiredError reports one missing required field; Error() is "{field} is required".
type RequiredError struct {
	Field string
}

// Error returns "{field} is required".
func (e *RequiredError) Error() string { return e.Field + " is required" }

// ValidationError lists every problem found in an input before anything was
// sent. Problems holds one error per problem (*RequiredError, ErrUnsupportedType,
// ErrInvalidTokenID, or a plain error for a malformed address or amount);
// errors.Is and errors.As see each of them.
type ValidationError struct {
	Problems []error
}

// Error joins the problems' texts with "; ".
func (e *ValidationError) Error() string {
	msgs := make([]string, len(e.Problems))
	for i, p := range e.Problems {
		msgs[i] = p.Error()
	}
	return strings.Join(msgs, "; ")
}

// Unwrap returns the individual problems.
func (e *ValidationError) Unwrap() []error { return e.Problems }

// Messages returns the problems' texts in order.
func (e *ValidationError) Messages() []string {
	msgs := make([]string, len(e.Problems))
	for i, p := range e.Problems {
		msgs[i] = p.Error()
	}
	return msgs
}

// AmbiguousFunctionError is returned when a bare function name matches several
// overloads in the ABI. Candidates are the canonical signatures to use instead,
// e.g. "safeTransferFrom(address,address,uint256)". It matches ErrMultipleFunctions.
type AmbiguousFunctionError struct {
	Name       string
	Candidates []string
}

// Error returns the product text followed by the candidate signatures.
func (e *AmbiguousFunctionError) Error() string {
	return ErrMultipleFunctions.Error() + ": " + strings.Join(e.Candidates, ", ")
}

// Is reports whether target is ErrMultipleFunctions.
func (e *AmbiguousFunctionError) Is(target error) bool { return target == ErrMultipleFunctions }

// RevertError is a transaction or call the chain rejected with a revert. Reason
// is the decoded Error(string) or Panic(uint256) reason when the node returned
// revert data, else the node's own message; Data is the raw revert data if any.
type RevertError struct {
	Op     string // what failed: "estimate gas", "call", "transaction"
	Reason string
	Data   []byte
	Err    error // the node's error, if the revert came as an RPC error
}

// Error returns "transfer: {op}: execution reverted: {reason}".
func (e *RevertError) Error() string {
	return fmt.Sprintf("transfer: %s: execution reverted: %s", e.Op, e.Reason)
}

// Unwrap returns the node's error, if any.
func (e *RevertError) Unwrap() error { return e.Err }
