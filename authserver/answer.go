package authserver

import (
	"context"
	"encoding/json"
	"errors"
	"math"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/c13f5054/moralis-go/parse"
	"github.com/c13f5054/moralis-go/query/live"
	"github.com/c13f5054/moralis-go/web3api"
)

// statusOf is the one table of the endpoint: the HTTP status of a refusal with a Parse code. Every answer with a
// code goes through it (the endpoint's own refusals, a Backend's, the backend's and the chain-data API's), so a
// code means one status everywhere, with one exception for the routes of a signed-in user (forRoute). Two kinds
// of answer are not refusals and carry the status of their cause: a failure (code 1, CodeInternalServerError: 502
// the upstream failed, 503 a store or the chain is unavailable, 504 it did not answer in time) and a refusal of the
// HTTP request itself (code 107: 404 unknown route, 405 method, 413 body too large, 415 content type; see
// protocolError). 429 is CodeRequestLimitExceeded's status.
//
// 401 says one thing: the request's session is missing, ended or refused (code 209), or, on POST /signin, which
// carries no session to keep, that the sign-in is refused (code 101: signature, nonce or message). A client may end
// its session on any 401 of a route that takes one. A refused action of a signed-in user is another 4xx and its
// session stands: see forRoute.
func statusOf(code parse.Code) int {
	switch code {
	case parse.CodeObjectNotFound, parse.CodeInvalidSessionToken:
		return http.StatusUnauthorized
	case parse.CodeOperationForbidden:
		return http.StatusForbidden
	case parse.CodeDuplicateValue, parse.CodeAccountAlreadyLinked:
		return http.StatusConflict
	case parse.CodeRequestLimitExceeded:
		return http.StatusTooManyRequests
	case parse.CodeInternalServerError:
		return http.StatusBadGateway
	}
	return http.StatusBadRequest
}

// forRoute is e as route rt answers it. On a route that acts for a signed-in user (a session is required: /link,
// /unlink, /me, live streams, the data proxy) code 101 does not refuse the session but names something that is not
// there (an address the user never linked, a nonce used or expired, an object of the backend) or a signature that
// does not match: it is answered 404, as parse-server answers 101, never 401, so no client takes it for the end of
// the session. Everything else is answered as statusOf says.
func (e *apiError) forRoute(rt route) *apiError {
	if rt.session == sessionNone || e.code != parse.CodeObjectNotFound || e.status != 0 {
		return e
	}
	c := *e
	c.status = http.StatusNotFound
	return &c
}

// apiError is an answer of the endpoint other than 200: a Parse code and a text safe to show. status is set only
// for the answers statusOf does not decide (failures, refusals of the HTTP request); retryAfter adds Retry-After.
type apiError struct {
	status     int
	code       parse.Code
	msg        string
	retryAfter time.Duration
}

// Error returns the refusal text.
func (e *apiError) Error() string { return e.msg }

// refuse is a refusal with code, answered with statusOf(code).
func refuse(code parse.Code, msg string) *apiError { return &apiError{code: code, msg: msg} }

// failure is an answer with CodeInternalServerError and a 5xx status telling its cause.
func failure(status int, msg string) *apiError {
	return &apiError{status: status, code: parse.CodeInternalServerError, msg: msg}
}

// protocolError refuses the HTTP request itself (route, method, size, content type) with CodeInvalidJSON.
func protocolError(status int, msg string) *apiError {
	return &apiError{status: status, code: parse.CodeInvalidJSON, msg: msg}
}

// tooManyRequests is the 429 of a limit, with the wait until the next request is allowed.
func tooManyRequests(wait time.Duration) *apiError {
	return &apiError{code: parse.CodeRequestLimitExceeded, msg: "Too many requests", retryAfter: max(wait, time.Second)}
}

// storeError is a fault of a store shared by the endpoint's instances (Redis): the request is refused with answer
// (503 and Retry-After), never let through. The pipeline reports err to Config.OnError.
type storeError struct {
	answer *apiError
	err    error
}

func (e *storeError) Error() string { return e.err.Error() }
func (e *storeError) Unwrap() error { return e.err }

var (
	// errLimitStore and errSessionStore answer a request whose limits, or whose session's revocation, the shared
	// store could not check.
	errLimitStore     = &apiError{status: http.StatusServiceUnavailable, code: parse.CodeInternalServerError, msg: "Limit store unavailable", retryAfter: time.Second}
	errSessionStore   = &apiError{status: http.StatusServiceUnavailable, code: parse.CodeInternalServerError, msg: "Session store unavailable", retryAfter: time.Second}
	errNoSession      = refuse(parse.CodeInvalidSessionToken, "Invalid session token")
	errNotFound       = protocolError(http.StatusNotFound, "not found")
	errBodyTooLarge   = protocolError(http.StatusRequestEntityTooLarge, "Request body too large")
	errNotJSON        = protocolError(http.StatusUnsupportedMediaType, "Content-Type must be application/json")
	errOriginRefused  = refuse(parse.CodeOperationForbidden, "Origin not allowed")
	errAnswerTooLarge = failure(http.StatusBadGateway, "Response too large")
	// errTooLarge and errNoAnswer are the chain-data API's answers the proxy does not relay.
	errTooLarge = errors.New("authserver: upstream answer too large")
	errNoAnswer = errors.New("authserver: upstream gave no answer")
)

// answerOf is the one translator of the endpoint: it turns any error of a route or of the policy into the
// answer the caller sees, and nothing of an upstream failure (no URL, no key, no stack) leaks:
//
//   - *apiError: the endpoint's own refusal or failure;
//   - *BackendError (a Backend's refusal): its code and message; Status counts only for a failure (code 1, 5xx);
//   - *parse.Error (the backend, through the data proxy): its code and message for its 4xx refusals, except a
//     page of whatever answered (a proxy, a firewall), which is a 502;
//   - *web3api.RateLimitError: 429 with the API's Retry-After;
//   - a context that ended: 504; anything else: 502.
//
// upstream names what failed in the generic texts ("Backend" for the sign-in routes, "Upstream" for the data
// proxy).
func answerOf(err error, upstream string) *apiError {
	var ae *apiError
	var se *storeError
	var be *BackendError
	var pe *parse.Error
	var rl *web3api.RateLimitError
	var le *live.StreamError
	switch {
	case errors.As(err, &ae):
		return ae
	case errors.As(err, &se):
		return se.answer
	case errors.As(err, &be):
		code := parse.Code(be.Code)
		if code == parse.CodeInternalServerError || code == 0 {
			status := be.Status
			if status < 500 || status > 599 {
				status = http.StatusBadGateway
			}
			if code == 0 && be.Status >= 400 && be.Status < 500 {
				// A refusal with no code of its own: the status is all it says.
				return &apiError{status: be.Status, code: 0, msg: be.Message}
			}
			return &apiError{status: status, code: code, msg: be.Message}
		}
		return refuse(code, be.Message)
	case errors.Is(err, errTooLarge):
		return errAnswerTooLarge
	case errors.Is(err, context.Canceled), errors.Is(err, context.DeadlineExceeded):
		return failure(http.StatusGatewayTimeout, upstream+" did not answer in time")
	case errors.As(err, &pe) && pe.Code == parse.CodeInvalidSessionToken:
		return errNoSession
	case errors.As(err, &pe) && strings.HasPrefix(pe.Message, "Received an error with invalid JSON from Parse"):
		// Not the backend's own refusal but a page of whatever answered: none of it shown.
		return failure(http.StatusBadGateway, "Backend error")
	case errors.As(err, &pe) && pe.Status >= 400 && pe.Status < 500 && pe.Code != 0:
		return refuse(pe.Code, pe.Message)
	case errors.As(err, &le):
		// The live bridge's refusal of a stream, in the endpoint's terms: a failure (code 1) for a 5xx, a refusal of
		// the HTTP request for its 107, else its code's refusal.
		switch {
		case le.Status == http.StatusBadGateway:
			return failure(le.Status, le.Message)
		case le.Status >= 500:
			return failure(http.StatusInternalServerError, "Live stream unavailable") // its text is the operator's
		case le.Code == int(parse.CodeInvalidJSON):
			return protocolError(le.Status, le.Message)
		}
		return refuse(parse.Code(le.Code), le.Message)
	case errors.As(err, &rl):
		return &apiError{code: parse.CodeRequestLimitExceeded, msg: "Chain data rate limit reached",
			retryAfter: max(rl.RetryAfter.Truncate(time.Second), time.Second)}
	}
	return failure(http.StatusBadGateway, upstream+" error")
}

// reason is the answer's kind in one fixed word, for telemetry (never its text, which may repeat what the
// caller sent).
func (e *apiError) reason() string {
	switch e.code {
	case parse.CodeInvalidSessionToken:
		return "invalid_session"
	case parse.CodeObjectNotFound:
		if e.statusCode() == http.StatusNotFound {
			return "not_found"
		}
		return "not_authorized"
	case parse.CodeOperationForbidden:
		return "forbidden"
	case parse.CodeRequestLimitExceeded:
		return "rate_limited"
	case parse.CodeDuplicateValue, parse.CodeAccountAlreadyLinked:
		return "conflict"
	case parse.CodeInternalServerError:
		return "upstream_failure"
	case parse.CodeInvalidJSON:
		switch e.statusCode() {
		case http.StatusNotFound:
			return "not_found"
		case http.StatusMethodNotAllowed:
			return "method_not_allowed"
		case http.StatusRequestEntityTooLarge:
			return "body_too_large"
		case http.StatusUnsupportedMediaType:
			return "not_json"
		}
		return "invalid_body"
	}
	if e.statusCode() >= 500 {
		return "upstream_failure"
	}
	return "invalid_request"
}

// status is the HTTP status of the answer.
func (e *apiError) statusCode() int {
	if e.status != 0 {
		return e.status
	}
	return statusOf(e.code)
}

// securityHeaders are set on every answer of the endpoint, refusals included.
func securityHeaders(h http.Header) {
	h.Set("Content-Type", "application/json; charset=utf-8")
	h.Set("Cache-Control", "no-store")
	h.Set("X-Content-Type-Options", "nosniff")
}

// writeBody writes one answer: the security headers, the status and body.
func writeBody(w http.ResponseWriter, status int, body []byte) {
	securityHeaders(w.Header())
	w.WriteHeader(status)
	_, _ = w.Write(body)
}

// writeValue writes v as a JSON answer with status (and a newline, as json.Encoder does).
func writeValue(w http.ResponseWriter, status int, v any) {
	b, err := json.Marshal(v)
	if err != nil {
		e := failure(http.StatusBadGateway, "Backend error")
		b, _ = json.Marshal(ErrorResponse{Code: e.code, Error: e.msg})
		status = e.statusCode()
	}
	writeBody(w, status, append(b, '\n'))
}

// writeError writes e: {"code","error"} with its status, and Retry-After for a limit.
func writeError(w http.ResponseWriter, e *apiError) {
	if e.retryAfter > 0 {
		w.Header().Set("Retry-After", strconv.Itoa(int(math.Ceil(e.retryAfter.Seconds()))))
	}
	writeValue(w, e.statusCode(), ErrorResponse{Code: e.code, Error: e.msg})
}
