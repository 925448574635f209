package mcptools

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/auth"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"golang.org/x/oauth2"
)

// HTTPOptions configure [HTTPTransport]. The zero value connects without
// authorization through [http.DefaultClient].
type HTTPOptions struct {
	// HTTPClient sends the requests; nil means [http.DefaultClient]. It
	// may carry its own authorization (an [oauth2.NewClient], for
	// example), though OAuth and Token report a refused token better.
	HTTPClient *http.Client
	// OAuth authorizes the requests with the MCP SDK's OAuth support: the
	// transport asks it for a token before every request and, when the
	// server answers 401 or 403, lets it run its flow once and retries.
	// Use [auth.NewAuthorizationCodeHandler] for a user's authorization
	// (discovery of the server's authorization server, optional dynamic
	// client registration, PKCE) or the client-credentials handler of
	// package github.com/modelcontextprotocol/go-sdk/auth/extauth for a
	// service account.
	OAuth auth.OAuthHandler
	// Token, in place of OAuth, sends the tokens of a token source the
	// application already has (a stored token, a token exchange) as
	// bearer tokens; see [TokenHandler].
	Token oauth2.TokenSource
	// MaxRetries and DisableStandaloneSSE are passed on to
	// [mcp.StreamableClientTransport].
	MaxRetries           int
	DisableStandaloneSSE bool
}

// HTTPTransport returns a streamable HTTP transport to the MCP endpoint,
// authorized as opts say (opts may be nil). Connect a client with it as
// with any transport:
//
//	handler, err := auth.NewAuthorizationCodeHandler(&auth.AuthorizationCodeHandlerConfig{...})
//	...
//	transport, err := mcptools.HTTPTransport("https://mcp.example.com/mcp", &mcptools.HTTPOptions{OAuth: handler})
//	...
//	session, err := client.Connect(ctx, transport, nil)
//
// It fails when both OAuth and Token are set, or the endpoint is not an
// http or https URL.
func HTTPTransport(endpoint string, opts *HTTPOptions) (*mcp.StreamableClientTransport, error) {
	var o HTTPOptions
	if opts != nil {
		o = *opts
	}
	if !strings.HasPrefix(endpoint, "https://") && !strings.HasPrefix(endpoint, "http://") {
		return nil, fmt.Errorf("mcptools: the endpoint %q is not an http or https URL", endpoint)
	}
	if o.OAuth != nil && o.Token != nil {
		return nil, errors.New("mcptools: HTTPOptions has both OAuth and Token")
	}
	t := &mcp.StreamableClientTransport{
		Endpoint:             endpoint,
		HTTPClient:           o.HTTPClient,
		OAuthHandler:         o.OAuth,
		MaxRetries:           o.MaxRetries,
		DisableStandaloneSSE: o.DisableStandaloneSSE,
	}
	if o.Token != nil {
		t.OAuthHandler = &TokenHandler{Source: o.Token}
	}
	return t, nil
}

// TokenHandler is an [auth.OAuthHandler] over a token source the
// application already has: it sends its tokens as bearer tokens and,
// since it has no flow to run, fails with an [*UnauthorizedError] when the
// server refuses them.
type TokenHandler struct {
	// Source gives the tokens; an [oauth2.ReuseTokenSource] refreshes an
	// expired token when it can.
	Source oauth2.TokenSource
}

// TokenSource returns h.Source.
func (h *TokenHandler) TokenSource(context.Context) (oauth2.TokenSource, error) {
	if h.Source == nil {
		return nil, errors.New("mcptools: TokenHandler without a token source")
	}
	return h.Source, nil
}

// Authorize reports the server's refusal as an [*UnauthorizedError].
func (h *TokenHandler) Authorize(_ context.Context, _ *http.Request, resp *http.Response) error {
	defer resp.Body.Close()
	// Read a little of the body so that the connection can be reused.
	_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 4096))
	return &UnauthorizedError{StatusCode: resp.StatusCode, Challenge: resp.Header.Get("WWW-Authenticate")}
}

// UnauthorizedError reports that the server refused the token of a
// [TokenHandler].
type UnauthorizedError struct {
	// StatusCode is the server's status: 401 or 403.
	StatusCode int
	// Challenge is the server's WWW-Authenticate header, which says what
	// it wants (for example a scope, or where its authorization metadata
	// is).
	Challenge string
}

// Error implements the error interface.
func (e *UnauthorizedError) Error() string {
	msg := fmt.Sprintf("mcptools: the MCP server refused the token (%d %s)", e.StatusCode, http.StatusText(e.StatusCode))
	if e.Challenge != "" {
		msg += ": " + e.Challenge
	}
	return msg
}
