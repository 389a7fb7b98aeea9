package authserver

import (
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"time"

	"github.com/c13f5054/moralis-go/auth"
	"github.com/c13f5054/moralis-go/parse"
)

// The sign-in routes of the Handler. Each is a route on the pipeline (pipeline.go): it gets the request after
// the policy and its decoded body, and returns its answer or an error (answer.go turns errors into answers).

// message is GET /message?address=&chain=: a nonce, bound to the address, chain and the exact text returned.
func (h *Handler) message(c *call, _ struct{}) (MessageResponse, error) {
	q := c.r.URL.Query()
	req := SignedRequest{Chain: q.Get("chain"), Address: q.Get("address")}
	if req.Chain == "" {
		req.Chain = string(auth.ChainEVM)
	}
	m, err := req.check(false)
	if err != nil {
		return MessageResponse{}, err
	}
	if err := h.nonceQuota.take(c.r); err != nil {
		return MessageResponse{}, err
	}
	var text string
	var signInInput *SolanaSignInInput
	// The nonce is good only with this exact text (which holds it), for this address and chain.
	bind := func(n Nonce) NonceBinding {
		if m.Chain == auth.ChainSolana && q.Get("style") == styleSIWS && h.o.Domain != "" {
			text, signInInput = h.siwsMessage(m.Address, n)
		} else if m.Chain == auth.ChainEVM && h.o.EVMMessageStyle == StyleSIWE {
			sm := &auth.SIWEMessage{Domain: h.o.Domain, Address: m.Address, Statement: h.o.Statement, URI: h.o.URI,
				Version: "1", ChainID: h.o.ChainID, Nonce: n.Value, IssuedAt: h.o.Now().UTC(), ExpirationTime: n.ExpiresAt.UTC()}
			text = sm.String()
		} else {
			text = auth.BuildMoralisMessage(h.o.Statement, h.o.AppID, n.Value)
		}
		return NonceBinding{Chain: m.Chain, Address: m.Address, Message: text}
	}
	var n Nonce
	if bi, ok := h.o.Nonces.(boundIssuer); ok {
		if n, err = bi.issueBound(c.ctx, h.o.NonceTTL, bind); err != nil {
			return MessageResponse{}, errNonceStore
		}
	} else {
		if n, err = h.o.Nonces.Issue(c.ctx, h.o.NonceTTL); err != nil {
			return MessageResponse{}, errNonceStore
		}
		if err := h.o.Nonces.Bind(c.ctx, n.Value, bind(n)); err != nil {
			return MessageResponse{}, errNonceStore
		}
	}
	return MessageResponse{Message: text, Nonce: n.Value, ExpiresAt: auth.FormatServerTime(n.ExpiresAt),
		SignInInput: signInInput}, nil
}

var errNonceStore = failure(http.StatusServiceUnavailable, "Nonce store unavailable")

// signIn is POST /signin: every local check, then the Backend's sign-in; the session goes into the cookie.
func (h *Handler) signIn(c *call, req SignedRequest) (SignInResponse, error) {
	done := c.step("verify")
	m, err := h.verified(c.ctx, req)
	if done(err); err != nil {
		return SignInResponse{}, err
	}
	done = c.step("backend")
	s, err := h.backend.SignIn(c.ctx, m)
	if done(err); err != nil {
		return SignInResponse{}, err
	}
	if s == nil || s.User.ObjectID == "" || s.SessionToken == "" {
		return SignInResponse{}, failure(http.StatusBadGateway, "Could not get user")
	}
	h.policy.cookie.set(c.w, s.SessionToken, s.ExpiresAt)
	// The session this browser held ends: the new one replaces it (another account, chain or the same).
	if old := h.policy.sessionToken(c.r); old != "" && old != s.SessionToken {
		h.policy.sessions.forget(c.ctx, old)
		if err := h.backend.SignOut(c.ctx, old); err != nil && !invalidSession(err) && h.o.OnError != nil {
			h.o.OnError(c.r, fmt.Errorf("authserver: ending the session replaced by a sign-in: %w", err))
		}
	}
	answer := SignInResponse{User: s.User, Session: h.sessionEnd(s.ExpiresAt, s.MaxExpiresAt)}
	if h.o.TokenInBody {
		answer.SessionToken = s.SessionToken
	}
	return answer, nil
}

// link is POST /link: every local check, then the Backend links the address to the session's user.
func (h *Handler) link(c *call, req SignedRequest) (UserResponse, error) {
	done := c.step("verify")
	m, err := h.verified(c.ctx, req)
	if done(err); err != nil {
		return UserResponse{}, err
	}
	done = c.step("backend")
	u, err := h.backend.Link(c.ctx, c.token, m)
	done(err)
	return h.userAnswer(c, u), err
}

// unlink is POST /unlink: the Backend removes the address from the session's user.
func (h *Handler) unlink(c *call, req UnlinkRequest) (UserResponse, error) {
	m, err := (&SignedRequest{Chain: req.Chain, Address: req.Address}).check(false)
	if err != nil {
		return UserResponse{}, err
	}
	u, err := h.backend.Unlink(c.ctx, c.token, m.Chain, m.Address)
	return h.userAnswer(c, u), err
}

// signOut is POST /signout (the body is optional): the cookie is cleared, the session forgotten and ended on the
// backend (one it does not know counts as ended).
func (h *Handler) signOut(c *call, _ struct{}) (SignOutResponse, error) {
	tok := h.policy.sessionToken(c.r)
	h.policy.cookie.clear(c.w)
	// Forgotten (with Redis: revoked on every instance) before the backend ends it, so no instance trusts a
	// cached copy meanwhile; its live streams on this instance end now (on the others through Redis).
	revokeErr := h.policy.sessions.forget(c.ctx, tok)
	if tok != "" {
		h.policy.open.end(sha256.Sum256([]byte(tok)))
		if err := h.backend.SignOut(c.ctx, tok); err != nil && !invalidSession(err) {
			return SignOutResponse{}, err
		}
	}
	// The backend ended the session, but other instances may trust their cached copy for up to SessionCacheTTL
	// when the revocation did not reach Redis: the caller is told (503).
	return SignOutResponse{}, revokeErr
}

// invalidSession reports a Backend's refusal of a session it does not know (code 209): as good as ended.
func invalidSession(err error) bool {
	var be *BackendError
	return errors.As(err, &be) && be.Code == int(parse.CodeInvalidSessionToken)
}

// me is GET /me: the user of the session, from the Backend.
func (h *Handler) me(c *call, _ struct{}) (UserResponse, error) {
	u, err := h.backend.Me(c.ctx, c.token)
	return h.userAnswer(c, u), err
}

// userAnswer is the answer of /me, /link and /unlink: the user, and when the session ends as the Backend reported
// it during c (ReportSessionEnd).
func (h *Handler) userAnswer(c *call, u *PublicUser) UserResponse {
	return UserResponse{User: u, Session: h.sessionEnd(c.slid.end, c.slid.max)}
}

// sessionEnd is the SessionEnd of a session ending at end (unless used) and max (however used; zero: unknown), on
// the Handler's clock; nil when end is unknown.
func (h *Handler) sessionEnd(end, max time.Time) *SessionEnd {
	if end.IsZero() {
		return nil
	}
	s := &SessionEnd{ExpiresAt: auth.FormatServerTime(end), Now: auth.FormatServerTime(h.o.Now())}
	if !max.IsZero() {
		s.MaxExpiresAt = auth.FormatServerTime(max)
	}
	return s
}

// verified checks a signed request (its fields, then verify) and returns the message to give the Backend.
func (h *Handler) verified(ctx context.Context, req SignedRequest) (auth.SignedMessage, error) {
	m, err := req.check(true)
	if err == nil {
		err = h.verify(ctx, m)
	}
	return m, err
}

// DecodeRequest decodes a POST body of the handler strictly: one JSON object, only the fields chain, address,
// message and signature spelled exactly so (names match case-sensitively, unlike encoding/json), each at most once,
// all strings (or null), nothing after it. It never panics; the error text is safe to show. It is safe for
// concurrent use.
func DecodeRequest(body []byte) (*SignedRequest, error) { return decodeRequestStrict(body) }

// check validates chain and address (lower-casing EVM addresses); message and signature when needSigned.
func (req *SignedRequest) check(needSigned bool) (auth.SignedMessage, error) {
	m := auth.SignedMessage{Chain: auth.Chain(req.Chain), Address: strings.TrimSpace(req.Address), Message: req.Message, Signature: strings.TrimSpace(req.Signature)}
	switch m.Chain {
	case auth.ChainEVM:
		if m.Address == "" {
			return m, refuse(parse.CodeValidationError, "Address not found")
		}
		a, err := auth.NormalizeEthAddress(m.Address)
		if err != nil {
			return m, refuse(parse.CodeValidationError, "Invalid address")
		}
		m.Address = a
	case auth.ChainSolana:
		if m.Address == "" {
			return m, refuse(parse.CodeValidationError, "Address not found")
		}
		if _, err := auth.DecodeSolPublicKey(m.Address); err != nil {
			return m, refuse(parse.CodeValidationError, "Invalid address")
		}
	default:
		return m, refuse(parse.CodeValidationError, `chain must be "evm" or "solana"`)
	}
	if needSigned && (m.Message == "" || m.Signature == "") {
		return m, refuse(parse.CodeValidationError, "Data not signed")
	}
	return m, nil
}

// verify runs every local check of a signed message: the message's form, domain or app id, times, address,
// signature, and finally consumes its nonce. Only then may the backend be called.
func (h *Handler) verify(ctx context.Context, m auth.SignedMessage) error {
	if m.Chain == auth.ChainSolana && isSIWSText(m.Message) {
		return h.verifySIWS(ctx, m)
	}
	now := h.o.Now()
	var nonce string
	if m.Chain == auth.ChainEVM && h.o.EVMMessageStyle == StyleSIWE {
		sm, err := auth.ParseSIWE(m.Message)
		if err != nil {
			return refuse(parse.CodeValidationError, "Invalid sign-in message")
		}
		if err := sm.Verify(auth.SIWEVerifyOptions{Domain: h.o.Domain, URI: h.o.URI, ChainID: h.o.ChainID, Address: m.Address,
			Now: now, ClockSkew: h.o.ClockSkew, MaxAge: h.o.NonceTTL + h.o.ClockSkew}); err != nil {
			return messageRefusal(err)
		}
		nonce = sm.Nonce
	} else {
		text, suffix, err := auth.ParseMoralisMessage(m.Message, h.o.AppID)
		if err != nil {
			return refuse(parse.CodeObjectNotFound, "Message is for another app")
		}
		if text != h.o.Statement || !validNonce(suffix) {
			return refuse(parse.CodeValidationError, "Invalid sign-in message")
		}
		nonce = suffix
	}
	var err error
	if m.Chain == auth.ChainSolana {
		err = auth.VerifySolSignature(m.Address, []byte(m.Message), m.Signature)
	} else {
		err = auth.VerifyEthSignatureContext(ctx, h.o.Chain, m.Address, []byte(m.Message), m.Signature)
	}
	switch {
	case err == nil:
	case errors.Is(err, auth.ErrSignatureMismatch):
		return refuse(parse.CodeObjectNotFound, "Signature does not match address")
	case errors.Is(err, auth.ErrChainUnavailable):
		return failure(http.StatusServiceUnavailable, "Chain unavailable")
	default:
		return refuse(parse.CodeValidationError, "Invalid signature")
	}
	// Last, the nonce: live, unused, and issued with exactly this text (byte for byte) for this address and chain.
	if err := h.o.Nonces.Consume(ctx, nonce, NonceBinding{Chain: m.Chain, Address: m.Address, Message: m.Message}); err != nil {
		return nonceRefusal(err)
	}
	return nil
}

// messageRefusals is the one table of the refusals of a signed message that auth's checks found wrong, SIWE and
// SIWS alike: each error of auth, in order, and the refusal it is answered with.
var messageRefusals = []struct {
	errs []error
	code parse.Code
	text string
}{
	{[]error{auth.ErrSIWEDomain, auth.ErrSIWEURI, auth.ErrSIWSDomain, auth.ErrSIWSURI}, parse.CodeObjectNotFound, "Message is for another domain"},
	{[]error{auth.ErrSIWEChain, auth.ErrSIWSChain}, parse.CodeObjectNotFound, "Message is for another chain"},
	{[]error{auth.ErrSIWEAddress, auth.ErrSIWSAddress}, parse.CodeObjectNotFound, "Message is for another address"},
	{[]error{auth.ErrSIWEExpired, auth.ErrSIWSExpired}, parse.CodeObjectNotFound, "Message has expired"},
	{[]error{auth.ErrSIWENotYetValid, auth.ErrSIWSNotYetValid}, parse.CodeObjectNotFound, "Message is not valid yet"},
	{[]error{auth.ErrSignatureMismatch}, parse.CodeObjectNotFound, "Signature does not match address"},
	{[]error{auth.ErrMalformedSignature}, parse.CodeValidationError, "Invalid signature"},
}

// messageRefusal is the refusal of a signed message for err, an error of auth's message checks (messageRefusals);
// any other is "Invalid sign-in message".
func messageRefusal(err error) error {
	for _, r := range messageRefusals {
		for _, e := range r.errs {
			if errors.Is(err, e) {
				return refuse(r.code, r.text)
			}
		}
	}
	return refuse(parse.CodeValidationError, "Invalid sign-in message")
}

// SessionToken returns the session token a request carries (a Bearer Authorization header, else the session
// cookie), or "". It does not check the token: the backend does. Other handlers mounted next to this one (the live
// query bridge) use it to act as the same user.
func (h *Handler) SessionToken(r *http.Request) string { return h.policy.sessionToken(r) }
