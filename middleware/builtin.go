package middleware

import (
	"context"
	"fmt"
	"strconv"
	"sync"

	"github.com/aisdkgo/ai/internal/seq"
	"github.com/aisdkgo/ai/provider"
)

// DefaultSettings returns a middleware that fills in the settings a call
// leaves unset with those of defaults: the sampling settings, stop
// sequences, response format, tools and tool choice, reasoning effort,
// headers (per header name) and provider options (per provider and option
// name). What the call sets wins. The prompt of defaults is ignored.
func DefaultSettings(defaults provider.CallOptions) Middleware {
	return New(Hooks{TransformParams: func(_ context.Context, _ CallKind, opts *provider.CallOptions) (*provider.CallOptions, error) {
		o := *opts
		o.MaxOutputTokens = orDefault(o.MaxOutputTokens, defaults.MaxOutputTokens)
		o.Temperature = orDefault(o.Temperature, defaults.Temperature)
		o.TopP = orDefault(o.TopP, defaults.TopP)
		o.TopK = orDefault(o.TopK, defaults.TopK)
		o.PresencePenalty = orDefault(o.PresencePenalty, defaults.PresencePenalty)
		o.FrequencyPenalty = orDefault(o.FrequencyPenalty, defaults.FrequencyPenalty)
		o.Seed = orDefault(o.Seed, defaults.Seed)
		o.ResponseFormat = orDefault(o.ResponseFormat, defaults.ResponseFormat)
		if o.StopSequences == nil {
			o.StopSequences = defaults.StopSequences
		}
		if o.Tools == nil {
			o.Tools = defaults.Tools
		}
		if o.ToolChoice.Type == "" {
			o.ToolChoice = defaults.ToolChoice
		}
		if o.Reasoning == provider.ReasoningProviderDefault {
			o.Reasoning = defaults.Reasoning
		}
		o.IncludeRawChunks = o.IncludeRawChunks || defaults.IncludeRawChunks
		o.Headers = mergeHeaders(defaults.Headers, o.Headers)
		o.ProviderOptions = mergeProviderOptions(defaults.ProviderOptions, o.ProviderOptions)
		return &o, nil
	}})
}

// mergeHeaders returns the headers of defaults overridden, per name, by
// those of call.
func mergeHeaders(defaults, call provider.Header) provider.Header {
	if len(defaults) == 0 {
		return call
	}
	h := make(provider.Header, len(defaults)+len(call))
	for k, v := range defaults {
		h[k] = v
	}
	for k, v := range call {
		h[k] = v
	}
	return h
}

// mergeProviderOptions returns the provider options of defaults
// overridden, per provider and option name, by those of call.
func mergeProviderOptions(defaults, call provider.ProviderOptions) provider.ProviderOptions {
	if len(defaults) == 0 {
		return call
	}
	po := make(provider.ProviderOptions, len(defaults)+len(call))
	for name, d := range defaults {
		merged := make(map[string]any, len(d)+len(call[name]))
		for k, v := range d {
			merged[k] = v
		}
		for k, v := range call[name] {
			merged[k] = v
		}
		po[name] = merged
	}
	for name, v := range call {
		if _, ok := po[name]; !ok {
			po[name] = v
		}
	}
	return po
}

func orDefault[T any](v, d *T) *T {
	if v != nil {
		return v
	}
	return d
}

// SimulateStreaming returns a middleware for a model that only generates:
// a Stream call makes a Generate call and streams its result (the
// warnings, the response metadata, each text and reasoning part as one
// block with one delta, the other parts as they are, then the finish).
func SimulateStreaming() Middleware {
	return New(Hooks{WrapStream: func(ctx context.Context, next provider.LanguageModel, opts *provider.CallOptions) (*provider.StreamResult, error) {
		res, err := next.Generate(ctx, opts)
		if err != nil {
			return nil, err
		}
		if res == nil {
			return nil, &provider.InvalidResponseDataError{Message: "the model returned no result"}
		}
		parts := []provider.StreamPart{provider.StreamStart{Warnings: res.Warnings}}
		if r := res.Response; r != nil {
			parts = append(parts, provider.ResponseMetadata{ID: r.ID, Timestamp: r.Timestamp, ModelID: r.ModelID})
		}
		n := 0
		for _, c := range res.Content {
			switch c := c.(type) {
			case provider.Text:
				if c.Text == "" && len(c.Citations) == 0 {
					continue
				}
				id := strconv.Itoa(n)
				n++
				parts = append(parts, provider.TextStart{ID: id, ProviderMetadata: c.ProviderMetadata},
					provider.TextDelta{ID: id, Delta: c.Text}, provider.TextEnd{ID: id, Citations: c.Citations})
			case provider.Reasoning:
				id := strconv.Itoa(n)
				n++
				parts = append(parts, provider.ReasoningStart{ID: id, ProviderMetadata: c.ProviderMetadata},
					provider.ReasoningDelta{ID: id, Delta: c.Text}, provider.ReasoningEnd{ID: id})
			default:
				if p, ok := c.(provider.StreamPart); ok {
					parts = append(parts, p)
				}
			}
		}
		parts = append(parts, provider.Finish{FinishReason: res.FinishReason, Usage: res.Usage, ProviderMetadata: res.ProviderMetadata})
		return &provider.StreamResult{
			Request:  res.Request,
			Response: res.Response,
			Stream: func(yield func(provider.StreamPart, error) bool) {
				for _, p := range parts {
					if err := ctx.Err(); err != nil {
						yield(nil, context.Cause(ctx))
						return
					}
					if !yield(p, nil) {
						return
					}
				}
			},
		}, nil
	}})
}

// ConcurrencyLimit returns a middleware that lets at most n calls run at
// once through the models it wraps (wrap one model to cap that model; wrap
// several with the same value to cap them together). A call over the limit
// waits for a slot, or fails with its context's cause when the context
// ends first. A Generate call holds its slot until it returns; a Stream
// call until its stream ends, the reader stops, or the call's context ends.
// It panics when n < 1.
func ConcurrencyLimit(n int) Middleware {
	if n < 1 {
		panic(fmt.Sprintf("middleware.ConcurrencyLimit: n is %d, must be at least 1", n))
	}
	sem := make(chan struct{}, n)
	acquire := func(ctx context.Context) (func(), error) {
		select {
		case sem <- struct{}{}:
		case <-ctx.Done():
			return nil, context.Cause(ctx)
		}
		if ctx.Err() != nil {
			<-sem
			return nil, context.Cause(ctx)
		}
		var once sync.Once
		return func() { once.Do(func() { <-sem }) }, nil
	}
	return New(Hooks{
		WrapGenerate: func(ctx context.Context, next provider.LanguageModel, opts *provider.CallOptions) (*provider.GenerateResult, error) {
			release, err := acquire(ctx)
			if err != nil {
				return nil, err
			}
			defer release()
			return next.Generate(ctx, opts)
		},
		WrapStream: func(ctx context.Context, next provider.LanguageModel, opts *provider.CallOptions) (*provider.StreamResult, error) {
			release, err := acquire(ctx)
			if err != nil {
				return nil, err
			}
			res, err := next.Stream(ctx, opts)
			if err != nil || res == nil || res.Stream == nil {
				release()
				return res, err
			}
			stop := context.AfterFunc(ctx, release)
			out := *res
			out.Stream = func(yield func(provider.StreamPart, error) bool) {
				defer func() {
					stop()
					release()
				}()
				seq.Each(res.Stream, yield)
			}
			return &out, nil
		},
	})
}
