// Package openaicompat talks to any server that implements OpenAI's Chat
// Completions API (POST {baseURL}/chat/completions): Ollama
// (http://localhost:11434/v1), vLLM (http://localhost:8000/v1), llama.cpp's
// server (http://localhost:8080/v1), LM Studio (http://localhost:1234/v1)
// and hosted services such as DeepSeek, xAI, Mistral, Groq or Together.
//
//	p := openaicompat.New(
//		openaicompat.WithBaseURL("http://localhost:11434/v1"),
//		openaicompat.WithName("ollama"),
//	)
//	model := p.Model("llama3.2")
//	embedder := p.Embedding("nomic-embed-text") // POST {baseURL}/embeddings
//
// # Authentication
//
// No environment variable is read. An Authorization: Bearer header is sent
// only when [WithAPIKey] gives a key; local servers usually need none.
//
// # Provider options
//
// Settings for a call go in [provider.CallOptions.ProviderOptions] under the
// provider's name (see [WithName]), its camelCase form, or "openaiCompatible".
// These keys are understood:
//
//   - user (string): an end-user id, sent as "user".
//   - reasoningEffort (string or null): sent as "reasoning_effort"; an
//     explicit null is sent as null. Without it the call's
//     [provider.CallOptions.Reasoning] is sent, when set.
//   - textVerbosity (string): sent as "verbosity".
//   - strictJsonSchema (bool, default true): the "strict" flag of JSON schema
//     response formats (with [WithStructuredOutputs]).
//
// Every other entry under the provider's name (or its camelCase form) is
// copied into the request body unchanged, which is how server-specific fields
// are sent, for example:
//
//	ProviderOptions: provider.ProviderOptions{
//		"ollama": {"think": true, "top_k": 20},
//	}
//
// Entries under "openaiCompatible" on a message or a message part are merged
// into that wire message or part (for example a "cache_control" object for
// servers that accept one).
//
// # Responses
//
// Reasoning arrives as "reasoning_content" (DeepSeek, xAI, llama.cpp) or
// "reasoning" (vLLM, Ollama), or as "thinking" parts of array content
// (Mistral); each becomes reasoning output. Assistant reasoning in a prompt
// is sent back as "reasoning_content". Provider metadata is keyed by the
// provider's name (or its camelCase form when the call's provider options
// used that form).
//
// A stream that ends without a finish reason (the server stopped early, or
// does not send one) finishes with [provider.FinishInterrupted].
//
// # Errors
//
// Failed calls return a [*provider.APICallError]; Retryable is set for 408,
// 409, 429 and 5xx responses, for dropped connections and for bodies cut off
// while they are read. A 200 response that is not a chat completion (an
// empty body, an HTML page, an error object, a stream without events, a
// stream line over 16 MiB) is an APICallError with status 200 that is not
// retryable. An error chunk that arrives before any output fails the call,
// with a status derived from the error's code and type; later error chunks
// become [provider.ErrorPart] values and finish the stream with
// [provider.FinishError].
package openaicompat

import (
	"encoding/json"
	"errors"
	"net/http"
	"net/url"
	"regexp"
	"slices"
	"strings"

	"github.com/aisdkgo/ai/internal/openaichat"
	"github.com/aisdkgo/ai/internal/openaiembed"
	"github.com/aisdkgo/ai/provider"
)

// ErrNoBaseURL is returned by model calls of a provider created without
// [WithBaseURL].
var ErrNoBaseURL = errors.New("openaicompat: no base URL configured (use WithBaseURL)")

// Provider creates models of one OpenAI-compatible server.
type Provider struct {
	name              string
	baseURL           string
	apiKey            string
	headers           http.Header
	client            *http.Client
	query             url.Values
	includeUsage      bool
	structuredOutputs bool
	convertUsage      func(raw json.RawMessage) provider.Usage
}

// Option configures a [Provider].
type Option func(*Provider)

// WithBaseURL sets the server's API root, for example
// "http://localhost:11434/v1". It is required; a trailing slash is removed.
func WithBaseURL(u string) Option {
	return func(p *Provider) { p.baseURL = strings.TrimRight(u, "/") }
}

// WithName names the provider. The name prefixes [provider.LanguageModel.Provider]
// ("<name>.chat") and is the key of the provider options and provider
// metadata. The default is "openaiCompatible".
func WithName(name string) Option {
	return func(p *Provider) { p.name = name }
}

// WithAPIKey sets the key sent as "Authorization: Bearer <key>".
func WithAPIKey(key string) Option {
	return func(p *Provider) { p.apiKey = key }
}

// WithHeaders adds headers to every request. They are applied after the
// Authorization header, and the headers of a call are applied after them.
func WithHeaders(h http.Header) Option {
	return func(p *Provider) { p.headers = h.Clone() }
}

// WithHTTPClient sets the client that sends requests; the default is
// http.DefaultClient.
func WithHTTPClient(c *http.Client) Option {
	return func(p *Provider) { p.client = c }
}

// WithQueryParams adds query parameters to every request URL (for example
// Azure's "api-version").
func WithQueryParams(q url.Values) Option {
	return func(p *Provider) { p.query = q }
}

// WithIncludeUsage asks streaming responses to end with token usage
// ("stream_options": {"include_usage": true}). Without it many servers report
// no usage for streams.
func WithIncludeUsage(include bool) Option {
	return func(p *Provider) { p.includeUsage = include }
}

// WithStructuredOutputs declares that the server supports JSON schema
// response formats. Without it a JSON response format is requested as
// {"type": "json_object"} and a schema is dropped with a warning.
func WithStructuredOutputs(supported bool) Option {
	return func(p *Provider) { p.structuredOutputs = supported }
}

// WithUsageConverter replaces the mapping of the server's usage object to
// [provider.Usage]. f receives the raw usage object, or nil when the server
// sent none. Servers disagree on whether completion tokens include reasoning
// tokens (DeepSeek's do, xAI's do not); the default assumes they do.
func WithUsageConverter(f func(raw json.RawMessage) provider.Usage) Option {
	return func(p *Provider) { p.convertUsage = f }
}

// New returns a provider configured by opts.
func New(opts ...Option) *Provider {
	p := &Provider{name: "openaiCompatible"}
	for _, o := range opts {
		o(p)
	}
	return p
}

// Name returns the provider's name.
func (p *Provider) Name() string { return p.name }

// Model returns the chat model modelID.
func (p *Provider) Model(modelID string) provider.LanguageModel {
	name := p.name
	camel := camelCase(name)
	keys := unique("openaiCompatible", name, camel)
	u := ""
	if p.baseURL != "" {
		u = p.baseURL + "/chat/completions"
		if len(p.query) > 0 {
			u += "?" + p.query.Encode()
		}
	}
	return openaichat.New(openaichat.Settings{
		Provider:             name + ".chat",
		ModelID:              modelID,
		URL:                  u,
		Client:               p.client,
		Headers:              p.headersFunc(),
		OptionKeys:           keys,
		DeprecatedOptionKeys: []string{"openai-compatible"},
		PassThroughKeys:      unique(name, camel),
		MetadataKey: func(po provider.ProviderOptions) string {
			if camel != name && po[camel] != nil {
				return camel
			}
			return name
		},
		MessageOptionsKey: "openaiCompatible",
		StructuredOutputs: p.structuredOutputs,
		StreamUsage:       p.includeUsage,
		SendReasoning:     true,
		ConvertUsage:      p.convertUsage,
		SupportedURLs:     map[string][]*regexp.Regexp{},
	})
}

// Embedding returns the embedding model modelID of the server's
// embeddings endpoint (POST {baseURL}/embeddings). Its provider name is
// "<name>.embedding"; it takes up to 2,048 values per call. The call's
// dimensions is sent as "dimensions"; "dimensions" and "user" may also be
// given under the provider's name (or "openaiCompatible") in the provider
// options, which take precedence.
func (p *Provider) Embedding(modelID string) provider.EmbeddingModel {
	name := p.name
	camel := camelCase(name)
	u := ""
	if p.baseURL != "" {
		u = p.baseURL + "/embeddings"
		if len(p.query) > 0 {
			u += "?" + p.query.Encode()
		}
	}
	var renamed map[string]string
	if camel != name {
		renamed = map[string]string{name: camel}
	}
	return openaiembed.New(openaiembed.Settings{
		Provider:       name + ".embedding",
		ModelID:        modelID,
		URL:            u,
		MissingURL:     ErrNoBaseURL,
		Client:         p.client,
		Headers:        p.headersFunc(),
		OptionKeys:     unique("openaiCompatible", name, camel),
		DeprecatedKeys: map[string]string{"openai-compatible": "openaiCompatible"},
		RenamedKeys:    renamed,
		ErrorMessage:   openaichat.ErrorMessage,
	})
}

// headersFunc returns the function that builds the headers of a request.
func (p *Provider) headersFunc() func() (http.Header, error) {
	return func() (http.Header, error) {
		if p.baseURL == "" {
			return nil, ErrNoBaseURL
		}
		h := http.Header{"User-Agent": {"aisdkgo-openaicompat"}}
		if p.apiKey != "" {
			h.Set("Authorization", "Bearer "+p.apiKey)
		}
		return openaichat.MergeHeaders(h, p.headers), nil
	}
}

var separated = regexp.MustCompile(`[_-]([a-z])`)

// camelCase turns "my-server" or "my_server" into "myServer".
func camelCase(s string) string {
	return separated.ReplaceAllStringFunc(s, func(m string) string { return strings.ToUpper(m[1:]) })
}

func unique(ss ...string) []string {
	var out []string
	for _, s := range ss {
		if !slices.Contains(out, s) {
			out = append(out, s)
		}
	}
	return out
}
