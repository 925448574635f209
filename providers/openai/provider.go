package openai

import (
	"net/http"
	"os"
	"regexp"
	"strings"

	"github.com/aisdkgo/ai/internal/openaichat"
	"github.com/aisdkgo/ai/internal/openaiembed"
	"github.com/aisdkgo/ai/provider"
)

// DefaultBaseURL is the API root used when neither [WithBaseURL] nor the
// OPENAI_BASE_URL environment variable sets one.
const DefaultBaseURL = "https://api.openai.com/v1"

// Provider creates OpenAI language models. It is safe for concurrent use.
type Provider struct {
	apiKey       string
	baseURL      string
	organization string
	project      string
	headers      http.Header
	client       *http.Client
}

// Option configures a [Provider].
type Option func(*Provider)

// WithAPIKey sets the API key. Without it the OPENAI_API_KEY environment
// variable is read when a model is called; when that is empty too, the call
// fails with a [*provider.LoadAPIKeyError].
func WithAPIKey(key string) Option {
	return func(p *Provider) { p.apiKey = key }
}

// WithBaseURL sets the API root (for example a proxy). Without it the
// OPENAI_BASE_URL environment variable is used, and then [DefaultBaseURL]. A
// trailing slash is removed.
func WithBaseURL(u string) Option {
	return func(p *Provider) { p.baseURL = strings.TrimRight(u, "/") }
}

// WithOrganization sends the OpenAI-Organization header.
func WithOrganization(org string) Option {
	return func(p *Provider) { p.organization = org }
}

// WithProject sends the OpenAI-Project header.
func WithProject(project string) Option {
	return func(p *Provider) { p.project = project }
}

// WithHeaders adds headers to every request. They are applied after the
// provider's own headers, and the headers of a call are applied after them.
func WithHeaders(h http.Header) Option {
	return func(p *Provider) { p.headers = h.Clone() }
}

// WithHTTPClient sets the client that sends requests; the default is
// http.DefaultClient.
func WithHTTPClient(c *http.Client) Option {
	return func(p *Provider) { p.client = c }
}

// New returns a provider configured by opts.
func New(opts ...Option) *Provider {
	p := &Provider{}
	for _, o := range opts {
		o(p)
	}
	if p.baseURL == "" {
		p.baseURL = strings.TrimRight(os.Getenv("OPENAI_BASE_URL"), "/")
	}
	if p.baseURL == "" {
		p.baseURL = DefaultBaseURL
	}
	return p
}

// Model returns the Responses API model modelID; it is the same as
// [Provider.Responses].
func (p *Provider) Model(modelID string) provider.LanguageModel { return p.Responses(modelID) }

// Responses returns a model that uses the Responses API (POST
// {baseURL}/responses). Its provider name is "openai.responses".
func (p *Provider) Responses(modelID string) provider.LanguageModel {
	return NewResponsesModel(ResponsesConfig{Provider: "openai.responses", ModelID: modelID,
		URL: p.baseURL + "/responses", Headers: p.requestHeaders, Client: p.client})
}

// Chat returns a model that uses the Chat Completions API (POST
// {baseURL}/chat/completions). Its provider name is "openai.chat".
func (p *Provider) Chat(modelID string) provider.LanguageModel {
	return openaichat.New(openaichat.Settings{
		Provider:          "openai.chat",
		ModelID:           modelID,
		URL:               p.baseURL + "/chat/completions",
		Client:            p.client,
		Headers:           p.requestHeaders,
		OptionKeys:        []string{providerKey},
		OpenAIOptions:     true,
		ModelRules:        true,
		StructuredOutputs: true,
		StreamUsage:       true,
		WrapToolErrors:    true,
		SupportedURLs:     map[string][]*regexp.Regexp{"image/*": {httpURL}},
	})
}

// Embedding returns an embedding model of the Embeddings API (POST
// {baseURL}/embeddings), for example "text-embedding-3-small". Its provider
// name is "openai.embedding"; it takes up to 2,048 values per call. The
// call's dimensions, or ProviderOptions["openai"]["dimensions"] (which
// takes precedence), shortens the embeddings of text-embedding-3 and later
// models; ProviderOptions["openai"]["user"] is sent as "user".
func (p *Provider) Embedding(modelID string) provider.EmbeddingModel {
	return openaiembed.New(openaiembed.Settings{
		Provider:     "openai.embedding",
		ModelID:      modelID,
		URL:          p.baseURL + "/embeddings",
		Client:       p.client,
		Headers:      p.requestHeaders,
		OptionKeys:   []string{providerKey},
		ErrorMessage: openaichat.ErrorMessage,
	})
}

// userAgent identifies this package in requests; WithHeaders may replace it.
const userAgent = "aisdkgo-openai"

// providerKey is the provider options and metadata key.
const providerKey = "openai"

var httpURL = regexp.MustCompile(`^https?://.*$`)

// requestHeaders returns the headers of one request, loading the API key.
func (p *Provider) requestHeaders() (http.Header, error) {
	key := p.apiKey
	if key == "" {
		key = os.Getenv("OPENAI_API_KEY")
	}
	if key == "" {
		return nil, &provider.LoadAPIKeyError{Message: "OpenAI API key is missing: pass it with openai.WithAPIKey or set the OPENAI_API_KEY environment variable"}
	}
	h := http.Header{}
	h.Set("User-Agent", userAgent)
	h.Set("Authorization", "Bearer "+key)
	if p.organization != "" {
		h.Set("OpenAI-Organization", p.organization)
	}
	if p.project != "" {
		h.Set("OpenAI-Project", p.project)
	}
	return openaichat.MergeHeaders(h, p.headers), nil
}
