// Package openaiembed is the embedding model of OpenAI's /embeddings
// endpoint, shared by the openai and openaicompat providers.
package openaiembed

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"sort"

	"github.com/aisdkgo/ai/internal/httpx"
	"github.com/aisdkgo/ai/provider"
)

// Settings configure a model.
type Settings struct {
	// Provider and ModelID name the model.
	Provider string
	ModelID  string
	// URL is the full endpoint URL; an empty URL fails calls with
	// MissingURL.
	URL        string
	MissingURL error
	Client     *http.Client
	// Headers returns the headers of one request (authentication).
	Headers func() (http.Header, error)
	// OptionKeys are the provider options keys read, later keys winning
	// per setting.
	OptionKeys []string
	// DeprecatedKeys map provider options keys that still work, read
	// before OptionKeys, to the key to use instead; each use adds a
	// warning.
	DeprecatedKeys map[string]string
	// RenamedKeys map keys of OptionKeys that have a preferred spelling to
	// that spelling; using one adds a warning.
	RenamedKeys map[string]string
	// MaxPerCall bounds the values of one call; 0 means 2048.
	MaxPerCall int
	// Sequential makes the model refuse parallel calls.
	Sequential bool
	// ErrorMessage extracts the message of an error body.
	ErrorMessage func([]byte) string
}

// DefaultMaxPerCall is the number of values /embeddings accepts at once.
const DefaultMaxPerCall = 2048

// New returns the model.
func New(s Settings) provider.EmbeddingModel {
	if s.MaxPerCall <= 0 {
		s.MaxPerCall = DefaultMaxPerCall
	}
	return &model{s: s}
}

type model struct{ s Settings }

// Provider returns the provider name.
func (m *model) Provider() string { return m.s.Provider }

// ModelID returns the model id.
func (m *model) ModelID() string { return m.s.ModelID }

// MaxEmbeddingsPerCall returns the settings' maximum.
func (m *model) MaxEmbeddingsPerCall() int { return m.s.MaxPerCall }

// SupportsParallelCalls reports whether calls may run at once.
func (m *model) SupportsParallelCalls() bool { return !m.s.Sequential }

type options struct {
	Dimensions *int    `json:"dimensions"`
	User       *string `json:"user"`
}

type request struct {
	Model          string   `json:"model"`
	Input          []string `json:"input"`
	EncodingFormat string   `json:"encoding_format"`
	Dimensions     *int     `json:"dimensions,omitempty"`
	User           *string  `json:"user,omitempty"`
}

type response struct {
	Data []struct {
		Index     *int         `json:"index"`
		Embedding httpx.Vector `json:"embedding"`
	} `json:"data"`
	Usage *struct {
		PromptTokens *int `json:"prompt_tokens"`
	} `json:"usage"`
	ProviderMetadata provider.ProviderMetadata `json:"providerMetadata"`
}

// Embed embeds opts.Values with one POST to /embeddings.
func (m *model) Embed(ctx context.Context, opts *provider.EmbedCallOptions) (*provider.EmbedCallResult, error) {
	if len(opts.Values) > m.s.MaxPerCall {
		return nil, &provider.TooManyEmbeddingValuesError{Provider: m.s.Provider, ModelID: m.s.ModelID, Max: m.s.MaxPerCall, Count: len(opts.Values)}
	}
	if len(opts.Values) == 0 {
		return &provider.EmbedCallResult{Embeddings: [][]float64{}}, nil
	}
	if m.s.URL == "" {
		return nil, m.s.MissingURL
	}
	var o options
	var warnings []provider.Warning
	read := func(key string) error {
		raw, ok := opts.ProviderOptions[key]
		if !ok || raw == nil {
			return nil
		}
		b, err := json.Marshal(raw)
		if err == nil {
			err = json.Unmarshal(b, &o)
		}
		if err != nil {
			return fmt.Errorf("invalid %q provider options: %w", key, err)
		}
		return nil
	}
	for _, key := range sortedKeys(m.s.DeprecatedKeys) {
		if opts.ProviderOptions[key] != nil {
			warnings = append(warnings, provider.Warning{Type: "deprecated", Setting: "providerOptions key '" + key + "'",
				Message: "Use '" + m.s.DeprecatedKeys[key] + "' instead."})
			if err := read(key); err != nil {
				return nil, err
			}
		}
	}
	for _, key := range m.s.OptionKeys {
		if to, renamed := m.s.RenamedKeys[key]; renamed && opts.ProviderOptions[key] != nil {
			warnings = append(warnings, provider.Warning{Type: "deprecated", Setting: "providerOptions key '" + key + "'",
				Message: "Use '" + to + "' instead."})
		}
		if err := read(key); err != nil {
			return nil, err
		}
	}
	if o.Dimensions == nil && opts.Dimensions > 0 {
		o.Dimensions = &opts.Dimensions
	}
	headers, err := m.s.Headers()
	if err != nil {
		return nil, err
	}
	for k, vs := range opts.Headers {
		headers[http.CanonicalHeaderKey(k)] = append([]string(nil), vs...)
	}
	resp, err := httpx.Post(ctx, httpx.Request{
		Client:       m.s.Client,
		URL:          m.s.URL,
		Headers:      headers,
		Body:         request{Model: m.s.ModelID, Input: opts.Values, EncodingFormat: "float", Dimensions: o.Dimensions, User: o.User},
		ErrorMessage: m.s.ErrorMessage,
	})
	if err != nil {
		return nil, err
	}
	var wire response
	raw, err := resp.ReadJSON(ctx, &wire)
	if err != nil {
		return nil, err
	}
	if len(wire.Data) != len(opts.Values) {
		return nil, &provider.InvalidResponseDataError{Data: raw, Message: fmt.Sprintf("expected %d embeddings, received %d", len(opts.Values), len(wire.Data))}
	}
	// The API numbers the embeddings; follow the numbers when they are a
	// permutation of the positions.
	data := wire.Data
	if ordered(data) {
		sort.SliceStable(data, func(i, j int) bool { return *data[i].Index < *data[j].Index })
	}
	res := &provider.EmbedCallResult{
		Embeddings:       make([][]float64, len(data)),
		Warnings:         warnings,
		ProviderMetadata: wire.ProviderMetadata,
		Response:         &provider.ResponseInfo{Headers: provider.Header(resp.HTTP.Header), Body: raw},
	}
	for i, d := range data {
		if d.Embedding == nil {
			return nil, resp.Fail("invalid response: an item has no embedding", false, raw, &provider.InvalidResponseDataError{Data: raw, Message: "an item has no embedding"})
		}
		res.Embeddings[i] = d.Embedding
	}
	if wire.Usage != nil && wire.Usage.PromptTokens != nil {
		res.Usage.Tokens = wire.Usage.PromptTokens
	}
	return res, nil
}

// ordered reports whether every item has an index and the indexes are
// 0..n-1 in some order.
func ordered(data []struct {
	Index     *int         `json:"index"`
	Embedding httpx.Vector `json:"embedding"`
}) bool {
	seen := make([]bool, len(data))
	for _, d := range data {
		if d.Index == nil || *d.Index < 0 || *d.Index >= len(data) || seen[*d.Index] {
			return false
		}
		seen[*d.Index] = true
	}
	return true
}

func sortedKeys(m map[string]string) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
