package ai

import (
	"context"
	"fmt"
	"maps"
	"math"
	"sync"

	"github.com/aisdkgo/ai/internal/effect"
	"github.com/aisdkgo/ai/provider"
)

// EmbeddingUsage counts the tokens of embedding calls; Tokens is nil when a
// call did not report them.
type EmbeddingUsage = provider.EmbeddingUsage

// EmbedOptions configure [Embed].
type EmbedOptions struct {
	// Model is the embedding model to call.
	Model provider.EmbeddingModel
	// Value is the text to embed.
	Value string
	// Dimensions asks for an embedding of this many dimensions, for models
	// that can shorten theirs; 0 means the model's default.
	Dimensions int
	// MaxRetries is how often a failed call is retried (nil means 2, 0
	// disables retries). Retries follow the rules of the generation loop's
	// model calls: only errors marked retryable, with exponential backoff
	// and the provider's retry-after hints.
	MaxRetries *int
	// Headers are extra HTTP headers for the request.
	Headers provider.Header
	// ProviderOptions carry provider-specific settings.
	ProviderOptions ProviderOptions
}

// EmbedResult is the outcome of [Embed].
type EmbedResult struct {
	// Value is the text that was embedded.
	Value string
	// Embedding is its vector.
	Embedding []float64
	// Usage counts the tokens of the call.
	Usage EmbeddingUsage
	// Warnings list settings the provider could not honour.
	Warnings []Warning
	// ProviderMetadata holds provider-specific data about the call.
	ProviderMetadata ProviderMetadata
	// Response describes the HTTP response, when the provider records it.
	Response *provider.ResponseInfo
}

// Embed embeds one value with opts.Model. Use [EmbedMany] for several
// values: it batches them.
func Embed(ctx context.Context, opts EmbedOptions) (*EmbedResult, error) {
	res, err := EmbedMany(ctx, EmbedManyOptions{
		Model:           opts.Model,
		Values:          []string{opts.Value},
		Dimensions:      opts.Dimensions,
		MaxRetries:      opts.MaxRetries,
		Headers:         opts.Headers,
		ProviderOptions: opts.ProviderOptions,
	})
	if err != nil {
		return nil, err
	}
	out := &EmbedResult{
		Value:            opts.Value,
		Embedding:        res.Embeddings[0],
		Usage:            res.Usage,
		Warnings:         res.Warnings,
		ProviderMetadata: res.ProviderMetadata,
	}
	if len(res.Responses) > 0 {
		out.Response = res.Responses[0]
	}
	return out, nil
}

// EmbedManyOptions configure [EmbedMany].
type EmbedManyOptions struct {
	// Model is the embedding model to call.
	Model provider.EmbeddingModel
	// Values are the texts to embed.
	Values []string
	// Dimensions asks for embeddings of this many dimensions, for models
	// that can shorten theirs; 0 means the model's default.
	Dimensions int
	// MaxRetries is how often each failed call is retried; see
	// [EmbedOptions.MaxRetries].
	MaxRetries *int
	// MaxParallelCalls bounds how many calls run at once when the values
	// need several calls; 0 means no bound. Models that do not support
	// parallel calls get one call at a time.
	MaxParallelCalls int
	// Headers are extra HTTP headers for every request.
	Headers provider.Header
	// ProviderOptions carry provider-specific settings, sent with every
	// call.
	ProviderOptions ProviderOptions
}

// EmbedManyResult is the outcome of [EmbedMany].
type EmbedManyResult struct {
	// Values are the texts that were embedded.
	Values []string
	// Embeddings holds one vector per value, in the order of Values.
	Embeddings [][]float64
	// Usage is the sum over all calls; Tokens is nil when a call did not
	// report its tokens.
	Usage EmbeddingUsage
	// Warnings collects the warnings of all calls.
	Warnings []Warning
	// ProviderMetadata merges the metadata of all calls, later calls
	// winning per key.
	ProviderMetadata ProviderMetadata
	// Responses describe the HTTP response of each call, in order (nil
	// entries for calls that recorded none).
	Responses []*provider.ResponseInfo
}

// EmbedMany embeds values with opts.Model. Values beyond the model's
// [provider.EmbeddingModel.MaxEmbeddingsPerCall] are split into several
// calls, which run concurrently (up to opts.MaxParallelCalls at a time)
// when the model supports it; each call is retried on its own. The first
// call that fails for good cancels the others and its error is returned;
// cancelling ctx ends every call and returns ctx's error.
//
// A model answering with a different number of embeddings than it was
// given values fails the call with a [*provider.InvalidResponseDataError].
// Invalid options return an [*InvalidArgumentError].
func EmbedMany(ctx context.Context, opts EmbedManyOptions) (*EmbedManyResult, error) {
	if opts.Model == nil {
		return nil, &InvalidArgumentError{Parameter: "Model", Message: "an embedding model is required"}
	}
	if opts.Dimensions < 0 {
		return nil, &InvalidArgumentError{Parameter: "Dimensions", Message: "must be a positive integer or 0"}
	}
	if opts.MaxParallelCalls < 0 {
		return nil, &InvalidArgumentError{Parameter: "MaxParallelCalls", Message: "must be a positive integer or 0"}
	}
	maxRetries := defaultMaxRetries
	if opts.MaxRetries != nil {
		maxRetries = *opts.MaxRetries
		if maxRetries < 0 {
			return nil, &InvalidArgumentError{Parameter: "MaxRetries", Message: "must not be negative"}
		}
	}
	chunks := splitValues(opts.Values, opts.Model.MaxEmbeddingsPerCall())
	results := make([]*provider.EmbedCallResult, len(chunks))
	call := func(ctx context.Context, i int) error {
		res, err := retry(ctx, effect.Retry{Max: maxRetries}, func(ctx context.Context) (*provider.EmbedCallResult, error) {
			return embedChunk(ctx, opts, chunks[i])
		})
		results[i] = res
		return err
	}
	switch {
	case len(chunks) == 1:
		if err := call(ctx, 0); err != nil {
			if ctx.Err() != nil {
				return nil, context.Cause(ctx)
			}
			return nil, err
		}
	case len(chunks) > 1:
		parallel := opts.MaxParallelCalls
		if parallel == 0 || parallel > len(chunks) {
			parallel = len(chunks)
		}
		if !opts.Model.SupportsParallelCalls() {
			parallel = 1
		}
		if err := runBounded(ctx, len(chunks), parallel, call); err != nil {
			return nil, err
		}
	}
	return mergeEmbeddings(opts.Values, results), nil
}

// splitValues cuts values into calls of at most max values (0 means one
// call).
func splitValues(values []string, max int) [][]string {
	if len(values) == 0 {
		return nil
	}
	if max <= 0 || max >= len(values) {
		return [][]string{values}
	}
	var chunks [][]string
	for len(values) > 0 {
		n := min(max, len(values))
		chunks = append(chunks, values[:n:n])
		values = values[n:]
	}
	return chunks
}

// embedChunk runs one model call and checks its answer.
func embedChunk(ctx context.Context, opts EmbedManyOptions, values []string) (res *provider.EmbedCallResult, err error) {
	defer func() {
		if v := recover(); v != nil {
			res, err = nil, &CallbackPanicError{Callback: "the embedding model's Embed", Panic: v}
		}
	}()
	res, err = opts.Model.Embed(ctx, &provider.EmbedCallOptions{
		Values:          values,
		Dimensions:      opts.Dimensions,
		Headers:         opts.Headers,
		ProviderOptions: opts.ProviderOptions,
	})
	if err != nil {
		return nil, err
	}
	if res == nil {
		return nil, &provider.InvalidResponseDataError{Message: "the embedding model returned no result"}
	}
	if len(res.Embeddings) != len(values) {
		return nil, &provider.InvalidResponseDataError{
			Message: fmt.Sprintf("expected %d embeddings, received %d", len(values), len(res.Embeddings)),
		}
	}
	return res, nil
}

// runBounded runs f for 0..n-1 with at most parallel calls at a time. The
// first error cancels the context of the other calls and is returned; when
// ctx itself ends, its cause is returned.
func runBounded(ctx context.Context, n, parallel int, f func(context.Context, int) error) error {
	inner, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	var (
		wg       sync.WaitGroup
		once     sync.Once
		firstErr error
	)
	sem := make(chan struct{}, parallel)
launch:
	for i := range n {
		if inner.Err() != nil {
			break
		}
		select {
		case sem <- struct{}{}:
		case <-inner.Done():
			break launch
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer func() { <-sem }()
			if err := f(inner, i); err != nil {
				once.Do(func() {
					firstErr = err
					cancel(err)
				})
			}
		}()
	}
	wg.Wait()
	if ctx.Err() != nil {
		return context.Cause(ctx)
	}
	return firstErr
}

// mergeEmbeddings combines the results of the calls, in order.
func mergeEmbeddings(values []string, results []*provider.EmbedCallResult) *EmbedManyResult {
	out := &EmbedManyResult{Values: values, Embeddings: make([][]float64, 0, len(values))}
	tokens, known := 0, true
	for _, r := range results {
		out.Embeddings = append(out.Embeddings, r.Embeddings...)
		out.Warnings = append(out.Warnings, r.Warnings...)
		out.Responses = append(out.Responses, r.Response)
		if r.Usage.Tokens == nil {
			known = false
		} else {
			tokens += *r.Usage.Tokens
		}
		for name, md := range r.ProviderMetadata {
			if out.ProviderMetadata == nil {
				out.ProviderMetadata = ProviderMetadata{}
			}
			merged := maps.Clone(out.ProviderMetadata[name])
			if merged == nil {
				merged = map[string]any{}
			}
			maps.Copy(merged, md)
			out.ProviderMetadata[name] = merged
		}
	}
	if known && len(results) > 0 {
		out.Usage.Tokens = &tokens
	}
	return out
}

// CosineSimilarity returns the cosine of the angle between a and b, from -1
// (opposite) through 0 (unrelated) to 1 (same direction); it is 0 when
// either vector is all zeros or both are empty. Vectors of different lengths
// return an [*InvalidArgumentError].
func CosineSimilarity(a, b []float64) (float64, error) {
	if len(a) != len(b) {
		return 0, &InvalidArgumentError{Parameter: "a, b",
			Message: fmt.Sprintf("vectors must have the same length (got %d and %d)", len(a), len(b))}
	}
	var dot, na, nb float64
	for i, x := range a {
		y := b[i]
		dot += x * y
		na += x * x
		nb += y * y
	}
	if na == 0 || nb == 0 {
		return 0, nil
	}
	return dot / (math.Sqrt(na) * math.Sqrt(nb)), nil
}
