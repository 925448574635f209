package middleware

import (
	"context"

	"github.com/aisdkgo/ai/provider"
)

// EmbeddingMiddleware wraps an embedding model: it returns a model whose
// calls go through the middleware to next.
type EmbeddingMiddleware func(next provider.EmbeddingModel) provider.EmbeddingModel

// WrapEmbedding returns model wrapped in the middleware, in order: the
// first middleware sees a call first and the last one is closest to model.
// Nil middleware, and middleware that return nil, are skipped.
func WrapEmbedding(model provider.EmbeddingModel, mws ...EmbeddingMiddleware) provider.EmbeddingModel {
	for i := len(mws) - 1; i >= 0; i-- {
		if mws[i] == nil {
			continue
		}
		if m := mws[i](model); m != nil {
			model = m
		}
	}
	return model
}

// DefaultEmbeddingSettings returns an embedding middleware that fills in
// what a call leaves unset with defaults: the dimensions, headers (per
// header name) and provider options (per provider and option name). What
// the call sets wins; the values of defaults are ignored.
func DefaultEmbeddingSettings(defaults provider.EmbedCallOptions) EmbeddingMiddleware {
	return func(next provider.EmbeddingModel) provider.EmbeddingModel {
		return embeddingDefaults{next: next, d: defaults}
	}
}

type embeddingDefaults struct {
	next provider.EmbeddingModel
	d    provider.EmbedCallOptions
}

func (m embeddingDefaults) Provider() string            { return m.next.Provider() }
func (m embeddingDefaults) ModelID() string             { return m.next.ModelID() }
func (m embeddingDefaults) MaxEmbeddingsPerCall() int   { return m.next.MaxEmbeddingsPerCall() }
func (m embeddingDefaults) SupportsParallelCalls() bool { return m.next.SupportsParallelCalls() }

func (m embeddingDefaults) Embed(ctx context.Context, opts *provider.EmbedCallOptions) (*provider.EmbedCallResult, error) {
	o := *opts
	if o.Dimensions == 0 {
		o.Dimensions = m.d.Dimensions
	}
	o.Headers = mergeHeaders(m.d.Headers, o.Headers)
	o.ProviderOptions = mergeProviderOptions(m.d.ProviderOptions, o.ProviderOptions)
	return m.next.Embed(ctx, &o)
}
