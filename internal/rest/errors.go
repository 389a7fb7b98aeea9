package rest

import (
	"encoding/json"

	"github.com/c13f5054/moralis-go/parse"
)

// Error is parse.Error: the backend's error type, shared with the public packages.
type Error = parse.Error

// ErrWriteInDoubt is parse.ErrWriteInDoubt.
var ErrWriteInDoubt = parse.ErrWriteInDoubt

// Code is parse.Code.
type Code = parse.Code

// The Parse error codes, as package parse names them.
const (
	CodeOtherCause                  = parse.CodeOtherCause
	CodeInternalServerError         = parse.CodeInternalServerError
	CodeConnectionFailed            = parse.CodeConnectionFailed
	CodeObjectNotFound              = parse.CodeObjectNotFound
	CodeInvalidQuery                = parse.CodeInvalidQuery
	CodeInvalidClassName            = parse.CodeInvalidClassName
	CodeMissingObjectID             = parse.CodeMissingObjectID
	CodeInvalidKeyName              = parse.CodeInvalidKeyName
	CodeInvalidPointer              = parse.CodeInvalidPointer
	CodeInvalidJSON                 = parse.CodeInvalidJSON
	CodeCommandUnavailable          = parse.CodeCommandUnavailable
	CodeNotInitialized              = parse.CodeNotInitialized
	CodeIncorrectType               = parse.CodeIncorrectType
	CodeInvalidChannelName          = parse.CodeInvalidChannelName
	CodePushMisconfigured           = parse.CodePushMisconfigured
	CodeObjectTooLarge              = parse.CodeObjectTooLarge
	CodeOperationForbidden          = parse.CodeOperationForbidden
	CodeCacheMiss                   = parse.CodeCacheMiss
	CodeInvalidNestedKey            = parse.CodeInvalidNestedKey
	CodeInvalidFileName             = parse.CodeInvalidFileName
	CodeInvalidACL                  = parse.CodeInvalidACL
	CodeTimeout                     = parse.CodeTimeout
	CodeInvalidEmailAddress         = parse.CodeInvalidEmailAddress
	CodeMissingContentType          = parse.CodeMissingContentType
	CodeMissingContentLength        = parse.CodeMissingContentLength
	CodeInvalidContentLength        = parse.CodeInvalidContentLength
	CodeFileTooLarge                = parse.CodeFileTooLarge
	CodeFileSaveError               = parse.CodeFileSaveError
	CodeDuplicateValue              = parse.CodeDuplicateValue
	CodeInvalidRoleName             = parse.CodeInvalidRoleName
	CodeExceededQuota               = parse.CodeExceededQuota
	CodeScriptFailed                = parse.CodeScriptFailed
	CodeValidationError             = parse.CodeValidationError
	CodeFileDeleteError             = parse.CodeFileDeleteError
	CodeRequestLimitExceeded        = parse.CodeRequestLimitExceeded
	CodeDuplicateRequest            = parse.CodeDuplicateRequest
	CodeInvalidEventName            = parse.CodeInvalidEventName
	CodeInvalidValue                = parse.CodeInvalidValue
	CodeUsernameMissing             = parse.CodeUsernameMissing
	CodePasswordMissing             = parse.CodePasswordMissing
	CodeUsernameTaken               = parse.CodeUsernameTaken
	CodeEmailTaken                  = parse.CodeEmailTaken
	CodeEmailMissing                = parse.CodeEmailMissing
	CodeEmailNotFound               = parse.CodeEmailNotFound
	CodeSessionMissing              = parse.CodeSessionMissing
	CodeMustCreateUserThroughSignup = parse.CodeMustCreateUserThroughSignup
	CodeAccountAlreadyLinked        = parse.CodeAccountAlreadyLinked
	CodeInvalidSessionToken         = parse.CodeInvalidSessionToken
	CodeLinkedIDMissing             = parse.CodeLinkedIDMissing
	CodeInvalidLinkedSession        = parse.CodeInvalidLinkedSession
	CodeUnsupportedService          = parse.CodeUnsupportedService
	CodeAggregateError              = parse.CodeAggregateError
	CodeFileReadError               = parse.CodeFileReadError
	CodeXDomainRequest              = parse.CodeXDomainRequest
)

// DecodeError turns an error response body into an *Error. It accepts {code, error}, {code, message} and
// {error} without a code; anything else gives "Received an error with invalid JSON from Parse: {text}".
func DecodeError(op string, status int, body []byte) *Error {
	var m struct {
		Code    *int    `json:"code"`
		Error   *string `json:"error"`
		Message *string `json:"message"`
	}
	if err := json.Unmarshal(body, &m); err != nil || (m.Error == nil && m.Message == nil) {
		return &Error{
			Code:    CodeInvalidJSON,
			Message: "Received an error with invalid JSON from Parse: " + truncate(string(body), 512),
			Status:  status,
			Op:      op,
		}
	}
	e := &Error{Status: status, Op: op}
	if m.Code != nil {
		e.Code = parse.Code(*m.Code)
	}
	switch {
	case m.Error != nil:
		e.Message = *m.Error
	case m.Message != nil:
		e.Message = *m.Message
	}
	return e
}

func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "…"
}

// ErrUnableToConnect is the text of the error given when every attempt failed without a response.
const ErrUnableToConnect = "Unable to connect to the Parse API"
