package azure

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"os"
	"regexp"
	"strings"

	"github.com/aisdkgo/ai/internal/openaichat"
	"github.com/aisdkgo/ai/internal/openaiembed"
	"github.com/aisdkgo/ai/provider"
	"github.com/aisdkgo/ai/providers/openai"
)

// DefaultAPIVersion is the api-version query parameter sent when
// [WithAPIVersion] sets none.
const DefaultAPIVersion = "v1"

// Provider creates Azure OpenAI models. It is safe for concurrent use.
type Provider struct {
	resourceName   string
	baseURL        string
	apiKey         string
	apiVersion     string
	deploymentURLs bool
	headers        http.Header
	client         *http.Client
	bearer         bool
	token          func(context.Context) (string, error)
}

// Option configures a [Provider].
type Option func(*Provider)

// WithResourceName sets the Azure OpenAI resource name, which makes the
// base URL https://{name}.openai.azure.com/openai. Without it and without
// [WithBaseURL] the AZURE_RESOURCE_NAME environment variable is read when a
// model is called. The name must be a single DNS label.
func WithResourceName(name string) Option {
	return func(p *Provider) { p.resourceName = name }
}

// WithBaseURL sets the URL prefix of the API, for example
// https://my-resource.openai.azure.com/openai, a Foundry project endpoint or
// a proxy; it takes precedence over the resource name. A trailing slash is
// removed.
func WithBaseURL(u string) Option {
	return func(p *Provider) { p.baseURL = strings.TrimRight(u, "/") }
}

// WithAPIKey sets the API key, sent in the api-key header. Without it the
// AZURE_API_KEY environment variable is read when a model is called.
func WithAPIKey(key string) Option {
	return func(p *Provider) { p.apiKey = key }
}

// WithAPIVersion sets the api-version query parameter; the default is
// [DefaultAPIVersion].
func WithAPIVersion(v string) Option {
	return func(p *Provider) { p.apiVersion = v }
}

// WithDeploymentBasedURLs selects the legacy URL form
// {base}/deployments/{deployment}{path}?api-version=..., for deployments
// that the v1 API does not serve.
func WithDeploymentBasedURLs(on bool) Option {
	return func(p *Provider) { p.deploymentURLs = on }
}

// WithHeaders adds headers to every request, after the provider's own
// ones; the headers of a call come after them.
func WithHeaders(h http.Header) Option {
	return func(p *Provider) { p.headers = h.Clone() }
}

// WithHTTPClient sets the client that sends requests; the default is
// http.DefaultClient.
func WithHTTPClient(c *http.Client) Option {
	return func(p *Provider) { p.client = c }
}

// WithAuthenticatedClient sets a client whose transport authenticates
// every request itself, for example with a Microsoft Entra ID bearer
// token. No API key is then loaded or sent.
func WithAuthenticatedClient(c *http.Client) Option {
	return func(p *Provider) { p.client, p.bearer = c, true }
}

// WithTokenProvider authenticates with a bearer token (Microsoft Entra ID)
// instead of an API key: token is called for each request and its result is
// sent as "Authorization: Bearer <token>", unless the request already has
// an Authorization header. It wraps the transport of the client set by
// [WithHTTPClient] (or http.DefaultTransport); use one of WithAPIKey and
// WithTokenProvider.
func WithTokenProvider(token func(ctx context.Context) (string, error)) Option {
	return func(p *Provider) { p.token = token }
}

// New returns a provider configured by opts.
func New(opts ...Option) *Provider {
	p := &Provider{}
	for _, o := range opts {
		o(p)
	}
	if p.apiVersion == "" {
		p.apiVersion = DefaultAPIVersion
	}
	if p.token != nil {
		base := http.DefaultTransport
		c := &http.Client{}
		if p.client != nil {
			*c = *p.client
			if c.Transport != nil {
				base = c.Transport
			}
		}
		c.Transport = &tokenTransport{base: base, token: p.token}
		p.client, p.bearer = c, true
	}
	return p
}

// Model returns a model of deployment using the Responses API; it is the
// same as [Provider.Responses].
func (p *Provider) Model(deployment string) provider.LanguageModel { return p.Responses(deployment) }

// Responses returns a model of deployment that uses the Responses API
// (POST {base}/v1/responses). Its provider name is "azure.responses".
// Call settings and the options of prompt parts are read from
// ProviderOptions["azure"], or from ProviderOptions["openai"] when there is
// no "azure" entry; tool options and the metadata of results use the
// "openai" key, as with the openai package.
func (p *Provider) Responses(deployment string) provider.LanguageModel {
	u, err := p.url("/responses", deployment)
	return &responsesModel{LanguageModel: openai.NewResponsesModel(openai.ResponsesConfig{
		Provider: "azure.responses",
		ModelID:  deployment,
		URL:      u,
		Headers:  p.requestHeaders(err),
		Client:   p.client,
	})}
}

// Chat returns a model of deployment that uses the Chat Completions API
// (POST {base}/v1/chat/completions). Its provider name is "azure.chat";
// it reads ProviderOptions["openai"] like the openai package's Chat models.
func (p *Provider) Chat(deployment string) provider.LanguageModel {
	u, err := p.url("/chat/completions", deployment)
	return openaichat.New(openaichat.Settings{
		Provider:          "azure.chat",
		ModelID:           deployment,
		URL:               u,
		Client:            p.client,
		Headers:           p.requestHeaders(err),
		OptionKeys:        []string{"openai"},
		OpenAIOptions:     true,
		ModelRules:        true,
		StructuredOutputs: true,
		StreamUsage:       true,
		WrapToolErrors:    true,
		SupportedURLs:     map[string][]*regexp.Regexp{"image/*": {httpURL}},
	})
}

// Embedding returns an embedding model of deployment (POST
// {base}/v1/embeddings). Its provider name is "azure.embeddings"; it
// reads ProviderOptions["openai"] (dimensions, user).
func (p *Provider) Embedding(deployment string) provider.EmbeddingModel {
	u, err := p.url("/embeddings", deployment)
	return openaiembed.New(openaiembed.Settings{
		Provider:     "azure.embeddings",
		ModelID:      deployment,
		URL:          u,
		MissingURL:   err,
		Client:       p.client,
		Headers:      p.requestHeaders(err),
		OptionKeys:   []string{"openai"},
		ErrorMessage: openaichat.ErrorMessage,
	})
}

var (
	httpURL      = regexp.MustCompile(`^https?://.*$`)
	resourceName = regexp.MustCompile(`(?i)^[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?$`)
)

// userAgent identifies this package in requests; WithHeaders may replace it.
const userAgent = "aisdkgo-azure"

// SettingError reports a missing or invalid provider setting, such as the
// resource name.
type SettingError struct {
	// Setting names the setting.
	Setting string
	// Message says what is wrong and how to set it.
	Message string
}

// Error implements the error interface.
func (e *SettingError) Error() string { return e.Message }

// url returns the endpoint of path for a deployment. An error (a missing
// or invalid resource name) makes every call of the model fail with it.
func (p *Provider) url(path, deployment string) (string, error) {
	base := p.baseURL
	if base == "" {
		name := p.resourceName
		if name == "" {
			name = os.Getenv("AZURE_RESOURCE_NAME")
		}
		if name == "" {
			return "", &SettingError{Setting: "resourceName", Message: "Azure OpenAI resource name is missing: pass it with azure.WithResourceName or azure.WithBaseURL, or set the AZURE_RESOURCE_NAME environment variable"}
		}
		if !resourceName.MatchString(name) {
			return "", &SettingError{Setting: "resourceName", Message: "invalid Azure resource name " + fmt.Sprintf("%q", name) + ": expected a single DNS label (letters, digits and hyphens); use azure.WithBaseURL for custom endpoints"}
		}
		base = "https://" + name + ".openai.azure.com/openai"
	}
	azureHost, foundry, versioned := true, false, false
	if p.baseURL != "" {
		bu, err := url.Parse(p.baseURL)
		if err != nil {
			return "", &SettingError{Setting: "baseURL", Message: "invalid Azure base URL: " + err.Error()}
		}
		host := bu.Hostname()
		azureHost = strings.HasSuffix(host, ".openai.azure.com") || strings.HasSuffix(host, ".services.ai.azure.com") ||
			strings.HasSuffix(host, ".cognitiveservices.azure.com")
		pathname := strings.TrimRight(bu.Path, "/")
		foundry = strings.HasSuffix(host, ".services.ai.azure.com") && strings.HasPrefix(pathname, "/api/projects/")
		versioned = azureHost && strings.HasSuffix(strings.ToLower(pathname), "/openai/v1")
	}
	var full string
	switch {
	case p.deploymentURLs:
		full = base + "/deployments/" + deployment + path
	case !azureHost || versioned:
		full = base + path
	default:
		full = base + "/v1" + path
	}
	u, err := url.Parse(full)
	if err != nil {
		return "", &SettingError{Setting: "baseURL", Message: "invalid Azure URL: " + err.Error()}
	}
	if p.deploymentURLs || (azureHost && !versioned && !foundry) {
		q := u.Query()
		q.Set("api-version", p.apiVersion)
		u.RawQuery = q.Encode()
	}
	return u.String(), nil
}

// requestHeaders returns the headers function of a model; urlErr, the
// error of building its URL, fails every call first.
func (p *Provider) requestHeaders(urlErr error) func() (http.Header, error) {
	return func() (http.Header, error) {
		if urlErr != nil {
			return nil, urlErr
		}
		h := http.Header{}
		h.Set("User-Agent", userAgent)
		if !p.bearer {
			key := p.apiKey
			if key == "" {
				key = os.Getenv("AZURE_API_KEY")
			}
			if key == "" {
				return nil, &provider.LoadAPIKeyError{Message: "Azure OpenAI API key is missing: pass it with azure.WithAPIKey or set the AZURE_API_KEY environment variable (or authenticate with azure.WithTokenProvider)"}
			}
			h.Set("Api-Key", key)
		} else if p.apiKey != "" {
			return nil, &SettingError{Setting: "apiKey", Message: "both an API key and a token provider or authenticated client were given: use only one authentication method"}
		}
		return openaichat.MergeHeaders(h, p.headers), nil
	}
}

// tokenTransport adds a bearer token to requests that have no
// Authorization header.
type tokenTransport struct {
	base  http.RoundTripper
	token func(context.Context) (string, error)
}

// RoundTrip implements http.RoundTripper.
func (t *tokenTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	if r.Header.Get("Authorization") != "" {
		return t.base.RoundTrip(r)
	}
	tok, err := t.token(r.Context())
	if err != nil {
		if r.Body != nil {
			_ = r.Body.Close()
		}
		return nil, fmt.Errorf("azure: getting a bearer token: %w", err)
	}
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+tok)
	return t.base.RoundTrip(r)
}

// responsesModel reads call settings and part options from
// ProviderOptions["azure"] before passing the call to the Responses
// implementation of the openai package.
type responsesModel struct {
	provider.LanguageModel
}

// SupportedURLs reports the file URLs the model reads itself.
func (m *responsesModel) SupportedURLs(ctx context.Context) (map[string][]*regexp.Regexp, error) {
	return m.LanguageModel.(provider.URLSupporter).SupportedURLs(ctx)
}

// Generate runs one non-streaming call.
func (m *responsesModel) Generate(ctx context.Context, opts *provider.CallOptions) (*provider.GenerateResult, error) {
	return m.LanguageModel.Generate(ctx, azureOptions(opts))
}

// Stream runs one streaming call.
func (m *responsesModel) Stream(ctx context.Context, opts *provider.CallOptions) (*provider.StreamResult, error) {
	return m.LanguageModel.Stream(ctx, azureOptions(opts))
}
