package mcptools_test

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/auth"
	"github.com/modelcontextprotocol/go-sdk/auth/extauth"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/modelcontextprotocol/go-sdk/oauthex"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"golang.org/x/oauth2"

	"github.com/aisdkgo/ai/mcptools"
)

// authSetup is a local OAuth authorization server and an MCP server that
// accepts only the tokens it issued.
type authSetup struct {
	as, rs *httptest.Server
	client *http.Client

	mu     sync.Mutex
	tokens map[string]string // access token -> subject
	codes  map[string]string // authorization code -> PKCE challenge
	grants []string          // grant types of the tokens issued
}

const (
	testClientID     = "mcp-client"
	testClientSecret = "s3cret"
	testRedirect     = "http://localhost:9/callback"
)

func newAuthSetup(t *testing.T) *authSetup {
	s := &authSetup{tokens: map[string]string{}, codes: map[string]string{}}
	asMux := http.NewServeMux()
	s.as = httptest.NewServer(asMux)
	asMux.HandleFunc("/.well-known/oauth-authorization-server", func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(map[string]any{
			"issuer":                                s.as.URL,
			"authorization_endpoint":                s.as.URL + "/authorize",
			"token_endpoint":                        s.as.URL + "/token",
			"response_types_supported":              []string{"code"},
			"grant_types_supported":                 []string{"authorization_code", "client_credentials"},
			"code_challenge_methods_supported":      []string{"S256"},
			"token_endpoint_auth_methods_supported": []string{"client_secret_basic", "client_secret_post"},
			"scopes_supported":                      []string{"tools"},
		})
	})
	// The user's consent is implied: the code goes straight back.
	asMux.HandleFunc("/authorize", func(w http.ResponseWriter, r *http.Request) {
		q := r.URL.Query()
		if q.Get("client_id") != testClientID || q.Get("redirect_uri") != testRedirect || q.Get("code_challenge_method") != "S256" {
			http.Error(w, "bad authorization request", http.StatusBadRequest)
			return
		}
		code := randomString()
		s.mu.Lock()
		s.codes[code] = q.Get("code_challenge")
		s.mu.Unlock()
		back, _ := url.Parse(testRedirect)
		v := url.Values{"code": {code}, "state": {q.Get("state")}}
		back.RawQuery = v.Encode()
		http.Redirect(w, r, back.String(), http.StatusFound)
	})
	asMux.HandleFunc("/token", func(w http.ResponseWriter, r *http.Request) {
		if err := r.ParseForm(); err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		id, secret, ok := r.BasicAuth()
		if !ok {
			id, secret = r.PostForm.Get("client_id"), r.PostForm.Get("client_secret")
		}
		if id != testClientID || secret != testClientSecret {
			tokenError(w, "invalid_client")
			return
		}
		grant := r.PostForm.Get("grant_type")
		s.mu.Lock()
		defer s.mu.Unlock()
		switch grant {
		case "authorization_code":
			challenge, ok := s.codes[r.PostForm.Get("code")]
			delete(s.codes, r.PostForm.Get("code"))
			sum := sha256.Sum256([]byte(r.PostForm.Get("code_verifier")))
			if !ok || base64.RawURLEncoding.EncodeToString(sum[:]) != challenge {
				tokenError(w, "invalid_grant")
				return
			}
		case "client_credentials":
		default:
			tokenError(w, "unsupported_grant_type")
			return
		}
		token := randomString()
		s.tokens[token] = "user-" + grant
		s.grants = append(s.grants, grant)
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(map[string]any{"access_token": token, "token_type": "Bearer", "expires_in": 3600, "scope": "tools"})
	})

	server := mcp.NewServer(&mcp.Implementation{Name: "protected", Version: "v1"}, nil)
	server.AddTool(&mcp.Tool{Name: "whoami", InputSchema: objectSchema()}, func(_ context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		info := req.Extra.TokenInfo
		if info == nil {
			return nil, errors.New("no token")
		}
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: info.UserID}}}, nil
	})
	verify := func(_ context.Context, token string, _ *http.Request) (*auth.TokenInfo, error) {
		s.mu.Lock()
		defer s.mu.Unlock()
		subject, ok := s.tokens[token]
		if !ok {
			return nil, auth.ErrInvalidToken
		}
		return &auth.TokenInfo{UserID: subject, Scopes: []string{"tools"}, Expiration: time.Now().Add(time.Hour)}, nil
	}
	rsMux := http.NewServeMux()
	s.rs = httptest.NewServer(rsMux)
	rsMux.Handle("/.well-known/oauth-protected-resource/mcp", auth.ProtectedResourceMetadataHandler(&oauthex.ProtectedResourceMetadata{
		Resource:             s.rs.URL + "/mcp",
		AuthorizationServers: []string{s.as.URL},
		ScopesSupported:      []string{"tools"},
	}))
	mcpHandler := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return server }, nil)
	rsMux.Handle("/mcp", auth.RequireBearerToken(verify, &auth.RequireBearerTokenOptions{
		ResourceMetadataURL: s.rs.URL + "/.well-known/oauth-protected-resource/mcp",
		Scopes:              []string{"tools"},
	})(mcpHandler))

	s.client = &http.Client{Transport: &http.Transport{}}
	t.Cleanup(func() {
		s.client.CloseIdleConnections()
		s.rs.Close()
		s.as.Close()
	})
	return s
}

func tokenError(w http.ResponseWriter, code string) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(http.StatusBadRequest)
	_ = json.NewEncoder(w).Encode(map[string]string{"error": code})
}

func randomString() string {
	b := make([]byte, 16)
	_, _ = rand.Read(b)
	return base64.RawURLEncoding.EncodeToString(b)
}

// issue adds a valid token directly.
func (s *authSetup) issue(subject string) string {
	s.mu.Lock()
	defer s.mu.Unlock()
	token := randomString()
	s.tokens[token] = subject
	return token
}

// whoami connects through transport and asks the server who it thinks
// the caller is.
func whoami(t *testing.T, transport mcp.Transport) (string, error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	client := mcp.NewClient(&mcp.Implementation{Name: "oauth-test", Version: "v1"}, nil)
	session, err := client.Connect(ctx, transport, nil)
	if err != nil {
		return "", err
	}
	defer session.Close()
	res, err := session.CallTool(ctx, &mcp.CallToolParams{Name: "whoami", Arguments: map[string]any{}})
	if err != nil {
		return "", err
	}
	if res.IsError {
		return "", fmt.Errorf("tool error: %v", res.Content)
	}
	return res.Content[0].(*mcp.TextContent).Text, nil
}

// TestOAuthBearerToken sends a token the application has as a bearer
// token, and reports a refused token as an UnauthorizedError that carries
// the server's challenge.
func TestOAuthBearerToken(t *testing.T) {
	s := newAuthSetup(t)
	token := s.issue("ada")
	transport, err := mcptools.HTTPTransport(s.rs.URL+"/mcp", &mcptools.HTTPOptions{
		HTTPClient:           s.client,
		Token:                oauth2.StaticTokenSource(&oauth2.Token{AccessToken: token, TokenType: "Bearer"}),
		DisableStandaloneSSE: true,
	})
	require.NoError(t, err)
	who, err := whoami(t, transport)
	require.NoError(t, err)
	assert.Equal(t, "ada", who, "the server saw the token")

	transport, err = mcptools.HTTPTransport(s.rs.URL+"/mcp", &mcptools.HTTPOptions{
		HTTPClient:           s.client,
		Token:                oauth2.StaticTokenSource(&oauth2.Token{AccessToken: "forged"}),
		DisableStandaloneSSE: true,
	})
	require.NoError(t, err)
	_, err = whoami(t, transport)
	var unauthorized *mcptools.UnauthorizedError
	require.ErrorAs(t, err, &unauthorized)
	assert.Equal(t, http.StatusUnauthorized, unauthorized.StatusCode)
	assert.Contains(t, unauthorized.Challenge, s.rs.URL+"/.well-known/oauth-protected-resource/mcp")

	_, err = mcptools.HTTPTransport(s.rs.URL+"/mcp", &mcptools.HTTPOptions{Token: oauth2.StaticTokenSource(&oauth2.Token{}), OAuth: &mcptools.TokenHandler{}})
	assert.Error(t, err, "two ways to authorize")
	_, err = mcptools.HTTPTransport("ftp://example.com", nil)
	assert.Error(t, err)
}

// TestOAuthAuthorizationCode runs the MCP SDK's authorization-code flow
// through HTTPOptions.OAuth against the local authorization server: the
// server's 401 leads to its metadata, the user's (simulated) consent
// yields a code, PKCE protects the exchange, and the token is sent.
func TestOAuthAuthorizationCode(t *testing.T) {
	s := newAuthSetup(t)
	noRedirect := &http.Client{Transport: s.client.Transport, CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	handler, err := auth.NewAuthorizationCodeHandler(&auth.AuthorizationCodeHandlerConfig{
		PreregisteredClient: &oauthex.ClientCredentials{ClientID: testClientID, ClientSecretAuth: &oauthex.ClientSecretAuth{ClientSecret: testClientSecret}},
		RedirectURL:         testRedirect,
		Client:              s.client,
		// The browser: follow the authorization URL and read the code off
		// the redirect.
		AuthorizationCodeFetcher: func(ctx context.Context, args *auth.AuthorizationArgs) (*auth.AuthorizationResult, error) {
			req, err := http.NewRequestWithContext(ctx, http.MethodGet, args.URL, nil)
			if err != nil {
				return nil, err
			}
			resp, err := noRedirect.Do(req)
			if err != nil {
				return nil, err
			}
			resp.Body.Close()
			loc, err := url.Parse(resp.Header.Get("Location"))
			if err != nil || resp.StatusCode != http.StatusFound {
				return nil, fmt.Errorf("no redirect: %d %v", resp.StatusCode, err)
			}
			return &auth.AuthorizationResult{Code: loc.Query().Get("code"), State: loc.Query().Get("state")}, nil
		},
	})
	require.NoError(t, err)
	transport, err := mcptools.HTTPTransport(s.rs.URL+"/mcp", &mcptools.HTTPOptions{HTTPClient: s.client, OAuth: handler, DisableStandaloneSSE: true})
	require.NoError(t, err)
	who, err := whoami(t, transport)
	require.NoError(t, err)
	assert.Equal(t, "user-authorization_code", who)
	s.mu.Lock()
	assert.Equal(t, []string{"authorization_code"}, s.grants)
	s.mu.Unlock()
}

// TestOAuthClientCredentials authorizes a service account with the SDK's
// client-credentials handler through HTTPOptions.OAuth.
func TestOAuthClientCredentials(t *testing.T) {
	s := newAuthSetup(t)
	handler, err := extauth.NewClientCredentialsHandler(&extauth.ClientCredentialsHandlerConfig{
		Credentials: &oauthex.ClientCredentials{ClientID: testClientID, ClientSecretAuth: &oauthex.ClientSecretAuth{ClientSecret: testClientSecret}},
		HTTPClient:  s.client,
	})
	require.NoError(t, err)
	transport, err := mcptools.HTTPTransport(s.rs.URL+"/mcp", &mcptools.HTTPOptions{HTTPClient: s.client, OAuth: handler, DisableStandaloneSSE: true})
	require.NoError(t, err)
	who, err := whoami(t, transport)
	require.NoError(t, err)
	assert.Equal(t, "user-client_credentials", who)
}
