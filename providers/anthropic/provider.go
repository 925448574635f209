package anthropic

import (
	"crypto/rand"
	"net/http"
	"os"
	"strings"

	"github.com/aisdkgo/ai/provider"
)

// DefaultBaseURL is the API base URL used when neither [WithBaseURL] nor
// the ANTHROPIC_BASE_URL environment variable gives one.
const DefaultBaseURL = "https://api.anthropic.com/v1"

// apiVersion is sent as the anthropic-version header.
const apiVersion = "2023-06-01"

// userAgent identifies this package in the User-Agent header; it is
// appended to a User-Agent given with the headers.
const userAgent = "aisdkgo-anthropic"

// Provider creates Anthropic language models. Create one with [New]; it is
// safe for concurrent use.
type Provider struct {
	cfg config
}

type config struct {
	apiKey    string
	authToken string
	baseURL   string
	headers   http.Header
	client    *http.Client
	newID     func() string
}

// Option configures a [Provider].
type Option func(*config)

// WithAPIKey sets the API key sent as the x-api-key header. Without it the
// ANTHROPIC_API_KEY environment variable is read at each call.
func WithAPIKey(key string) Option {
	return func(c *config) { c.apiKey = key }
}

// WithAuthToken authenticates with "Authorization: Bearer <token>" instead
// of an API key. Giving both an API key and a token is an error.
func WithAuthToken(token string) Option {
	return func(c *config) { c.authToken = token }
}

// WithBaseURL sets the API base URL, for example a proxy. The default is
// the ANTHROPIC_BASE_URL environment variable, else [DefaultBaseURL]. A
// bare "https://api.anthropic.com" gets its "/v1".
func WithBaseURL(url string) Option {
	return func(c *config) { c.baseURL = url }
}

// WithHeaders adds headers to every request. An "anthropic-beta" header is
// merged with the betas the request needs.
func WithHeaders(h http.Header) Option {
	return func(c *config) { c.headers = h.Clone() }
}

// WithHTTPClient sets the HTTP client; the default is http.DefaultClient.
func WithHTTPClient(client *http.Client) Option {
	return func(c *config) { c.client = client }
}

// New returns a provider configured by opts.
func New(opts ...Option) *Provider {
	var c config
	for _, o := range opts {
		o(&c)
	}
	if c.baseURL == "" {
		c.baseURL = os.Getenv("ANTHROPIC_BASE_URL")
	}
	c.baseURL = strings.TrimRight(c.baseURL, "/")
	switch c.baseURL {
	case "":
		c.baseURL = DefaultBaseURL
	case "https://api.anthropic.com":
		c.baseURL += "/v1"
	}
	if c.newID == nil {
		c.newID = rand.Text
	}
	return &Provider{cfg: c}
}

// Model returns the Messages API model modelID, for example
// "claude-sonnet-4-5". The model also implements
// [provider.URLSupporter].
func (p *Provider) Model(modelID string) provider.LanguageModel {
	return &languageModel{p: p, modelID: modelID}
}

// messagesURL is the endpoint of the Messages API.
func (p *Provider) messagesURL() string { return p.cfg.baseURL + "/messages" }

// requestHeaders builds the headers of a call: version and authentication,
// the provider's headers, the call's headers, and the beta features.
func (p *Provider) requestHeaders(call http.Header, betas *betaSet) (http.Header, error) {
	h := http.Header{}
	h.Set("anthropic-version", apiVersion)
	switch {
	case p.cfg.authToken != "" && p.cfg.apiKey != "":
		return nil, &InvalidOptionsError{Message: "both an API key and an auth token were given; use only one"}
	case p.cfg.authToken != "":
		h.Set("Authorization", "Bearer "+p.cfg.authToken)
	default:
		key := p.cfg.apiKey
		if key == "" {
			key = os.Getenv("ANTHROPIC_API_KEY")
		}
		if key == "" {
			return nil, &provider.LoadAPIKeyError{
				Message: "Anthropic API key is missing: pass it with anthropic.WithAPIKey or set the ANTHROPIC_API_KEY environment variable",
			}
		}
		h.Set("x-api-key", key)
	}
	for k, vs := range p.cfg.headers {
		h[http.CanonicalHeaderKey(k)] = append([]string(nil), vs...)
	}
	for k, vs := range call {
		h[http.CanonicalHeaderKey(k)] = append([]string(nil), vs...)
	}
	if ua := h.Get("User-Agent"); ua != "" {
		h.Set("User-Agent", ua+" "+userAgent)
	} else {
		h.Set("User-Agent", userAgent)
	}
	if betas != nil && len(betas.list) > 0 {
		h.Set("anthropic-beta", strings.Join(betas.list, ","))
	}
	return h, nil
}

// userBetas lists the beta features named in anthropic-beta headers.
func userBetas(headers ...http.Header) []string {
	var out []string
	for _, h := range headers {
		for k, vs := range h {
			if !strings.EqualFold(k, "anthropic-beta") {
				continue
			}
			for _, v := range vs {
				for _, b := range strings.Split(strings.ToLower(v), ",") {
					if b = strings.TrimSpace(b); b != "" {
						out = append(out, b)
					}
				}
			}
		}
	}
	return out
}
