package provider

import (
	"context"
	"fmt"
)

// EmbeddingModel turns text into vectors (embeddings) whose cosine
// similarity measures how close two texts are in meaning.
//
// Embed must honour ctx and be safe for concurrent use: the ai package splits
// large inputs into several calls and, when [EmbeddingModel.SupportsParallelCalls]
// says so, runs them at once.
type EmbeddingModel interface {
	// Provider names the provider, for example "openai.embedding".
	Provider() string
	// ModelID names the model, for example "text-embedding-3-small".
	ModelID() string
	// MaxEmbeddingsPerCall is how many values one Embed call accepts; 0
	// means no limit. The ai package never sends more in one call.
	MaxEmbeddingsPerCall() int
	// SupportsParallelCalls reports whether several Embed calls may run at
	// the same time.
	SupportsParallelCalls() bool
	// Embed embeds opts.Values in one call. It returns one embedding per
	// value, in order, or an error; a model given more values than
	// MaxEmbeddingsPerCall returns a [*TooManyEmbeddingValuesError].
	Embed(ctx context.Context, opts *EmbedCallOptions) (*EmbedCallResult, error)
}

// EmbedCallOptions are the inputs of one [EmbeddingModel.Embed] call.
type EmbedCallOptions struct {
	// Values are the texts to embed.
	Values []string
	// Dimensions asks for embeddings of this many dimensions, for models
	// that can shorten their output; 0 means the model's default.
	Dimensions int
	// Headers are extra HTTP headers for the request.
	Headers Header
	// ProviderOptions carry provider-specific settings, keyed by provider
	// name.
	ProviderOptions ProviderOptions
}

// EmbedCallResult is the outcome of one [EmbeddingModel.Embed] call.
type EmbedCallResult struct {
	// Embeddings holds one vector per value, in the order of the values.
	Embeddings [][]float64
	// Usage counts the tokens of the call.
	Usage EmbeddingUsage
	// Warnings list settings the provider could not honour.
	Warnings []Warning
	// ProviderMetadata holds provider-specific data about the call.
	ProviderMetadata ProviderMetadata
	// Response describes the HTTP response (headers and raw body), when
	// the provider records it.
	Response *ResponseInfo
}

// EmbeddingUsage counts the tokens of embedding calls.
type EmbeddingUsage struct {
	// Tokens is the number of input tokens; nil when not reported.
	Tokens *int `json:"tokens,omitempty"`
}

// TooManyEmbeddingValuesError reports an [EmbeddingModel.Embed] call with
// more values than the model accepts at once.
type TooManyEmbeddingValuesError struct {
	Provider string
	ModelID  string
	// Max is the model's [EmbeddingModel.MaxEmbeddingsPerCall].
	Max int
	// Count is the number of values given.
	Count int
}

// Error implements the error interface.
func (e *TooManyEmbeddingValuesError) Error() string {
	return fmt.Sprintf("too many values for one embedding call: %s (%s) accepts at most %d, got %d",
		e.ModelID, e.Provider, e.Max, e.Count)
}
