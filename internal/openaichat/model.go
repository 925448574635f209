// Package openaichat speaks the Chat Completions protocol (POST
// /chat/completions) for OpenAI and for OpenAI-compatible servers. The two
// flavours share one implementation; where they differ, [Settings] says
// which behaviour a model gets.
package openaichat

import (
	"context"
	"encoding/json"
	"net/http"
	"regexp"
	"time"

	"github.com/aisdkgo/ai/internal/httpx"
	"github.com/aisdkgo/ai/provider"
)

// Settings configure a Chat Completions model.
type Settings struct {
	// Provider is what [Model.Provider] returns, for example "openai.chat".
	Provider string
	// ModelID is the model's id, sent as "model".
	ModelID string
	// URL is the complete chat completions endpoint, query included.
	URL string
	// Client sends requests; nil means http.DefaultClient.
	Client *http.Client
	// Headers returns the provider's headers for one call (authentication and
	// the like). An error stops the call before anything is sent.
	Headers func() (http.Header, error)

	// OptionKeys are the provider option keys whose settings are read, lowest
	// precedence first.
	OptionKeys []string
	// DeprecatedOptionKeys are read before OptionKeys; using one adds a
	// warning.
	DeprecatedOptionKeys []string
	// PassThroughKeys are provider option keys whose unknown entries are
	// copied into the request body unchanged, so that callers can send
	// server-specific fields.
	PassThroughKeys []string
	// MetadataKey chooses the key of the provider metadata on results from
	// the call's provider options. Nil means the first of OptionKeys.
	MetadataKey func(provider.ProviderOptions) string
	// MessageOptionsKey, when set, names the provider options key of messages
	// and parts whose entries are merged into the corresponding wire message
	// or part (for example to attach cache_control for servers that take it).
	MessageOptionsKey string

	// OpenAIOptions enables OpenAI's own option set (logitBias, logprobs,
	// store, metadata, prediction, serviceTier, prompt caching, systemMessageMode,
	// forceReasoning, maxCompletionTokens, parallelToolCalls, safetyIdentifier,
	// imageDetail and promptCacheBreakpoint on parts). Without it only user,
	// reasoningEffort, textVerbosity and strictJsonSchema are understood.
	OpenAIOptions bool
	// ModelRules applies OpenAI's per-model rules: reasoning models get the
	// "developer" system role and max_completion_tokens and lose the sampling
	// settings they reject (each with a warning).
	ModelRules bool
	// StructuredOutputs allows JSON schema response formats; without it a
	// JSON response format is sent as json_object and a schema is dropped with
	// a warning.
	StructuredOutputs bool
	// StreamUsage asks streaming responses to end with a usage chunk
	// (stream_options.include_usage).
	StreamUsage bool
	// WrapToolErrors sends error tool results as {"error": <value>}, so that
	// the model can tell a failed call from a result (OpenAI's own API);
	// without it they are sent like other results.
	WrapToolErrors bool
	// SendReasoning sends assistant reasoning back as "reasoning_content".
	SendReasoning bool
	// ConvertUsage replaces the default usage mapping; it receives the raw
	// usage object (nil when the server sent none).
	ConvertUsage func(raw json.RawMessage) provider.Usage
	// SupportedURLs are the file URLs the model reads itself, by media type
	// pattern; see [provider.URLSupporter].
	SupportedURLs map[string][]*regexp.Regexp

	// newID generates ids; tests replace it.
	newID func() string
}

// Model is a Chat Completions language model. It is safe for concurrent
// use.
type Model struct {
	s Settings
}

// New returns a model with settings s.
func New(s Settings) *Model {
	if s.newID == nil {
		s.newID = NewID
	}
	return &Model{s: s}
}

// Provider returns the provider name given in the settings.
func (m *Model) Provider() string { return m.s.Provider }

// ModelID returns the model id.
func (m *Model) ModelID() string { return m.s.ModelID }

// SupportedURLs returns the file URLs the model downloads itself.
func (m *Model) SupportedURLs(context.Context) (map[string][]*regexp.Regexp, error) {
	return m.s.SupportedURLs, nil
}

// post builds the request for opts and sends it.
func (m *Model) post(ctx context.Context, opts *provider.CallOptions, stream bool) (*preparedCall, *httpx.Response, error) {
	call, err := m.prepare(opts, stream)
	if err != nil {
		return nil, nil, err
	}
	headers, err := m.headers(opts)
	if err != nil {
		return nil, nil, err
	}
	resp, err := httpx.Post(ctx, httpx.Request{
		Client:       m.s.Client,
		URL:          m.s.URL,
		Headers:      headers,
		Body:         call.body,
		ErrorMessage: ErrorMessage,
	})
	return call, resp, err
}

// Generate runs a non-streaming chat completion.
func (m *Model) Generate(ctx context.Context, opts *provider.CallOptions) (*provider.GenerateResult, error) {
	if opts == nil {
		opts = &provider.CallOptions{}
	}
	call, resp, err := m.post(ctx, opts, false)
	if err != nil {
		return nil, err
	}
	var parsed chatResponse
	raw, err := resp.ReadJSON(ctx, &parsed)
	if err != nil {
		return nil, err
	}
	result, err := m.parseResponse(&parsed, raw, call, resp)
	if err != nil {
		return nil, err
	}
	result.Request = &provider.RequestInfo{URL: m.s.URL, Body: resp.RequestBody}
	result.Response.Headers = provider.Header(resp.HTTP.Header)
	result.Response.Body = raw
	return result, nil
}

func (m *Model) headers(opts *provider.CallOptions) (http.Header, error) {
	var base http.Header
	if m.s.Headers != nil {
		h, err := m.s.Headers()
		if err != nil {
			return nil, err
		}
		base = h
	}
	return MergeHeaders(base, http.Header(opts.Headers)), nil
}

func (m *Model) metadataKey(opts *provider.CallOptions) string {
	if m.s.MetadataKey != nil {
		return m.s.MetadataKey(opts.ProviderOptions)
	}
	if len(m.s.OptionKeys) > 0 {
		return m.s.OptionKeys[0]
	}
	return "openai"
}

func timestamp(created *float64) time.Time {
	if created == nil || *created == 0 {
		return time.Time{}
	}
	return time.Unix(int64(*created), 0).UTC()
}
