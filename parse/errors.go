package parse

import (
	"errors"
	"fmt"
	"strings"
)

// Code is a Parse error code: the number the server sends with an error. Compare an Error's Code with the
// constants below, or match a whole error with errors.Is and the Err* values (errors.Is(err, ErrObjectNotFound)).
type Code int

// Parse error codes that the SDK names (the server's numeric codes).
const (
	CodeOtherCause                  Code = -1
	CodeInternalServerError         Code = 1
	CodeConnectionFailed            Code = 100
	CodeObjectNotFound              Code = 101
	CodeInvalidQuery                Code = 102
	CodeInvalidClassName            Code = 103
	CodeMissingObjectID             Code = 104
	CodeInvalidKeyName              Code = 105
	CodeInvalidPointer              Code = 106
	CodeInvalidJSON                 Code = 107
	CodeCommandUnavailable          Code = 108
	CodeNotInitialized              Code = 109
	CodeIncorrectType               Code = 111
	CodeInvalidChannelName          Code = 112
	CodePushMisconfigured           Code = 115
	CodeObjectTooLarge              Code = 116
	CodeOperationForbidden          Code = 119
	CodeCacheMiss                   Code = 120
	CodeInvalidNestedKey            Code = 121
	CodeInvalidFileName             Code = 122
	CodeInvalidACL                  Code = 123
	CodeTimeout                     Code = 124
	CodeInvalidEmailAddress         Code = 125
	CodeMissingContentType          Code = 126
	CodeMissingContentLength        Code = 127
	CodeInvalidContentLength        Code = 128
	CodeFileTooLarge                Code = 129
	CodeFileSaveError               Code = 130
	CodeDuplicateValue              Code = 137
	CodeInvalidRoleName             Code = 139
	CodeExceededQuota               Code = 140
	CodeScriptFailed                Code = 141
	CodeValidationError             Code = 142
	CodeFileDeleteError             Code = 153
	CodeRequestLimitExceeded        Code = 155
	CodeDuplicateRequest            Code = 159
	CodeInvalidEventName            Code = 160
	CodeInvalidValue                Code = 162
	CodeUsernameMissing             Code = 200
	CodePasswordMissing             Code = 201
	CodeUsernameTaken               Code = 202
	CodeEmailTaken                  Code = 203
	CodeEmailMissing                Code = 204
	CodeEmailNotFound               Code = 205
	CodeSessionMissing              Code = 206
	CodeMustCreateUserThroughSignup Code = 207
	CodeAccountAlreadyLinked        Code = 208
	CodeInvalidSessionToken         Code = 209
	CodeLinkedIDMissing             Code = 250
	CodeInvalidLinkedSession        Code = 251
	CodeUnsupportedService          Code = 252
	CodeAggregateError              Code = 600
	CodeFileReadError               Code = 601
	CodeXDomainRequest              Code = 602
)

// Error is an error answered by the backend (or the SDK's stand-in for one, such as a connection failure).
// Match a code with errors.Is(err, ErrObjectNotFound) (the Err* values below) or errors.Is(err, &Error{Code: N}); read the details with errors.As.
type Error struct {
	// Code is the Parse error code (0 when the server sent none, e.g. a 403 "unauthorized").
	Code Code
	// Message is the server's text.
	Message string
	// Status is the HTTP status (0 when there was no response).
	Status int
	// Op names the call, e.g. "POST classes/GameScore". It never holds keys or tokens.
	Op string
	// InDoubt is true when the call was a write whose outcome is unknown: an attempt may have reached the server
	// and been applied, and the SDK could not learn whether it was (no answer, a cut answer or a 5xx, and sending
	// it again was not provably safe; or a retry was refused as a "Duplicate request", which says only that the
	// server saw an earlier attempt). errors.Is(err, ErrWriteInDoubt) matches it.
	InDoubt bool
	// MaybeAppliedBefore is true when an earlier attempt of the call may have reached the server before this
	// answer came (so a "duplicate" refusal may be of the call's own earlier attempt).
	MaybeAppliedBefore bool
	// Err is the underlying transport error, if any.
	Err error
}

func (e *Error) Error() string {
	var b strings.Builder
	b.WriteString("moralis: ")
	if e.Op != "" {
		b.WriteString(e.Op)
		b.WriteString(": ")
	}
	b.WriteString(e.Message)
	if e.Code != 0 {
		fmt.Fprintf(&b, " (code %d)", e.Code)
	}
	if e.InDoubt {
		b.WriteString("; the write may or may not have been applied (in doubt)")
	}
	return b.String()
}

// Unwrap returns the transport error behind the error, if any.
func (e *Error) Unwrap() error { return e.Err }

// Is matches another *Error, or any error with a ParseCode() method, with the same non-zero Code; and
// ErrWriteInDoubt when InDoubt is set.
func (e *Error) Is(target error) bool {
	if target == ErrWriteInDoubt {
		return e.InDoubt
	}
	if t, ok := target.(*Error); ok {
		return t.Code != 0 && t.Code == e.Code
	}
	if t, ok := target.(interface{ ParseCode() int }); ok {
		return t.ParseCode() != 0 && t.ParseCode() == int(e.Code)
	}
	return false
}

// ParseCode returns the code, for packages that must not import this one's users.
func (e *Error) ParseCode() int { return int(e.Code) }

// ErrWriteInDoubt is matched (errors.Is) by every error of a write whose outcome is unknown: it may or may not
// have been applied. The SDK never guesses: read the object back (or otherwise check) before writing again.
var ErrWriteInDoubt = errors.New("moralis: the write may or may not have been applied (in doubt)")

// Errors matched with errors.Is by their Parse code: errors.Is(err, ErrObjectNotFound) is true for every *Error
// with code 101, whatever its message. Read the server's message and the call with errors.As.
var (
	ErrObjectNotFound      = &Error{Code: CodeObjectNotFound, Message: "Object not found."}
	ErrInvalidQuery        = &Error{Code: CodeInvalidQuery, Message: "invalid query"}
	ErrInvalidClassName    = &Error{Code: CodeInvalidClassName, Message: "invalid class name"}
	ErrInvalidKeyName      = &Error{Code: CodeInvalidKeyName, Message: "invalid key name"}
	ErrInvalidJSON         = &Error{Code: CodeInvalidJSON, Message: "invalid JSON"}
	ErrIncorrectType       = &Error{Code: CodeIncorrectType, Message: "incorrect type"}
	ErrOperationForbidden  = &Error{Code: CodeOperationForbidden, Message: "operation forbidden"}
	ErrScriptFailed        = &Error{Code: CodeScriptFailed, Message: "cloud code failed"}
	ErrDuplicateRequest    = &Error{Code: CodeDuplicateRequest, Message: "duplicate request"}
	ErrDuplicateValue      = &Error{Code: CodeDuplicateValue, Message: "duplicate value"}
	ErrUsernameTaken       = &Error{Code: CodeUsernameTaken, Message: "username taken"}
	ErrEmailTaken          = &Error{Code: CodeEmailTaken, Message: "email taken"}
	ErrInvalidSessionToken = &Error{Code: CodeInvalidSessionToken, Message: "invalid session token"}
	ErrUnsupportedService  = &Error{Code: CodeUnsupportedService, Message: "unsupported service"}
	ErrConnectionFailed    = &Error{Code: CodeConnectionFailed, Message: "connection failed"}
	ErrInternalServer      = &Error{Code: CodeInternalServerError, Message: "internal server error"}
	ErrRequestLimit        = &Error{Code: CodeRequestLimitExceeded, Message: "request limit exceeded"}
)
