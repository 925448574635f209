// Package middleware wraps language models: a [Middleware] turns a
// [provider.LanguageModel] into another one that may change the call
// options, the results and the streams of every call, and [Wrap] composes
// middleware around a model. The wrapped model is a model like any other:
// pass it to ai.GenerateText, an agent or another middleware.
//
//	model := middleware.Wrap(local,
//		middleware.DefaultSettings(provider.CallOptions{Temperature: new(0.2)}),
//		middleware.ExtractReasoning("think", nil),
//		middleware.ConcurrencyLimit(4),
//	)
//
// [Hooks] builds a middleware from the three functions of the TypeScript
// AI SDK's language model middleware (transformParams, wrapGenerate,
// wrapStream). The built-ins cover what local and self-hosted models often
// need: [DefaultSettings], [ExtractReasoning] for <think>-style tags,
// [SimulateStreaming] for a model that only generates, and
// [ConcurrencyLimit].
//
// The package imports only the provider contract, so provider packages and
// the scripted test model can use it too.
package middleware

import (
	"context"
	"fmt"
	"iter"
	"regexp"
	"runtime/debug"

	"github.com/aisdkgo/ai/provider"
)

// Middleware wraps a model: it returns a model whose calls go through the
// middleware to next.
type Middleware func(next provider.LanguageModel) provider.LanguageModel

// Wrap returns model wrapped in the middleware, in order: the first
// middleware sees a call first (its transformed options are what the second
// receives) and the last one is closest to model, like the middleware list
// of the TypeScript SDK's wrapLanguageModel. Nil middleware is skipped.
//
// A middleware that panics, when it wraps the model, during a call or while
// a stream is read, makes that call fail with a *PanicError instead of
// crashing the program.
func Wrap(model provider.LanguageModel, mws ...Middleware) provider.LanguageModel {
	for i := len(mws) - 1; i >= 0; i-- {
		if mws[i] == nil {
			continue
		}
		model = guarded{m: build(mws[i], model), inner: model}
	}
	return model
}

// build applies a middleware; a panic makes a model whose calls fail.
func build(mw Middleware, next provider.LanguageModel) (m provider.LanguageModel) {
	defer func() {
		if v := recover(); v != nil {
			m = failing{next: next, err: newPanic(v)}
		}
	}()
	m = mw(next)
	if m == nil {
		return failing{next: next, err: fmt.Errorf("middleware: a middleware returned a nil model")}
	}
	return m
}

// PanicError is the error of a call during which a middleware panicked.
type PanicError struct {
	// Value is what the middleware panicked with.
	Value any
	// Stack is the goroutine's stack when it panicked.
	Stack []byte
}

// Error implements the error interface.
func (e *PanicError) Error() string { return fmt.Sprintf("middleware: panic: %v", e.Value) }

func newPanic(v any) *PanicError { return &PanicError{Value: v, Stack: debug.Stack()} }

// guarded turns the panics of one middleware layer into errors.
type guarded struct {
	m     provider.LanguageModel
	inner provider.LanguageModel // for names and URLs when m panics there
}

func (g guarded) Provider() (name string) {
	defer func() {
		if recover() != nil {
			name = g.inner.Provider()
		}
	}()
	return g.m.Provider()
}

func (g guarded) ModelID() (id string) {
	defer func() {
		if recover() != nil {
			id = g.inner.ModelID()
		}
	}()
	return g.m.ModelID()
}

// SupportedURLs reports the URLs of the wrapped model, when it reads any
// itself.
func (g guarded) SupportedURLs(ctx context.Context) (urls map[string][]*regexp.Regexp, err error) {
	defer func() {
		if v := recover(); v != nil {
			urls, err = nil, newPanic(v)
		}
	}()
	if u, ok := g.m.(provider.URLSupporter); ok {
		return u.SupportedURLs(ctx)
	}
	return nil, nil
}

func (g guarded) Generate(ctx context.Context, opts *provider.CallOptions) (res *provider.GenerateResult, err error) {
	defer func() {
		if v := recover(); v != nil {
			res, err = nil, newPanic(v)
		}
	}()
	return g.m.Generate(ctx, opts)
}

func (g guarded) Stream(ctx context.Context, opts *provider.CallOptions) (res *provider.StreamResult, err error) {
	defer func() {
		if v := recover(); v != nil {
			res, err = nil, newPanic(v)
		}
	}()
	res, err = g.m.Stream(ctx, opts)
	if err != nil || res == nil || res.Stream == nil {
		return res, err
	}
	out := *res
	out.Stream = guardSeq(res.Stream)
	return &out, nil
}

// guardSeq turns a panic while a stream is produced into the stream's last
// error. A panic of the reader (in its loop body) is not caught.
func guardSeq(seq iter.Seq2[provider.StreamPart, error]) iter.Seq2[provider.StreamPart, error] {
	return func(yield func(provider.StreamPart, error) bool) {
		reading := false
		stopped := false
		defer func() {
			if reading {
				return // the reader panicked: let it
			}
			if v := recover(); v != nil && !stopped {
				yield(nil, newPanic(v))
			}
		}()
		for p, err := range seq {
			reading = true
			if !yield(p, err) {
				reading, stopped = false, true
				return
			}
			reading = false
		}
	}
}

// failing is a model whose middleware could not be applied.
type failing struct {
	next provider.LanguageModel
	err  error
}

func (f failing) Provider() string { return f.next.Provider() }
func (f failing) ModelID() string  { return f.next.ModelID() }
func (f failing) Generate(context.Context, *provider.CallOptions) (*provider.GenerateResult, error) {
	return nil, f.err
}
func (f failing) Stream(context.Context, *provider.CallOptions) (*provider.StreamResult, error) {
	return nil, f.err
}

// CallKind says which method of the model a call is for.
type CallKind string

// The call kinds.
const (
	CallGenerate CallKind = "generate"
	CallStream   CallKind = "stream"
)

// Hooks are the parts of a middleware; nil hooks pass calls through. They
// are the TypeScript SDK's transformParams, wrapGenerate and wrapStream.
type Hooks struct {
	// TransformParams returns the options of a call, for both kinds of
	// call; the hooks below and the next model receive what it returns.
	// It must not modify opts: return a modified copy.
	TransformParams func(ctx context.Context, kind CallKind, opts *provider.CallOptions) (*provider.CallOptions, error)
	// WrapGenerate runs a Generate call; it calls next.Generate (or
	// next.Stream) to reach the wrapped model.
	WrapGenerate func(ctx context.Context, next provider.LanguageModel, opts *provider.CallOptions) (*provider.GenerateResult, error)
	// WrapStream runs a Stream call; it calls next.Stream (or
	// next.Generate) to reach the wrapped model.
	WrapStream func(ctx context.Context, next provider.LanguageModel, opts *provider.CallOptions) (*provider.StreamResult, error)
}

// New returns the middleware made of the hooks.
func New(h Hooks) Middleware {
	return func(next provider.LanguageModel) provider.LanguageModel { return hooked{h: h, next: next} }
}

type hooked struct {
	h    Hooks
	next provider.LanguageModel
}

func (m hooked) Provider() string { return m.next.Provider() }
func (m hooked) ModelID() string  { return m.next.ModelID() }

// SupportedURLs reports the URLs of the wrapped model.
func (m hooked) SupportedURLs(ctx context.Context) (map[string][]*regexp.Regexp, error) {
	if u, ok := m.next.(provider.URLSupporter); ok {
		return u.SupportedURLs(ctx)
	}
	return nil, nil
}

func (m hooked) transform(ctx context.Context, kind CallKind, opts *provider.CallOptions) (*provider.CallOptions, error) {
	if m.h.TransformParams == nil {
		return opts, nil
	}
	out, err := m.h.TransformParams(ctx, kind, opts)
	if err == nil && out == nil {
		return opts, nil
	}
	return out, err
}

func (m hooked) Generate(ctx context.Context, opts *provider.CallOptions) (*provider.GenerateResult, error) {
	opts, err := m.transform(ctx, CallGenerate, opts)
	if err != nil {
		return nil, err
	}
	if m.h.WrapGenerate == nil {
		return m.next.Generate(ctx, opts)
	}
	return m.h.WrapGenerate(ctx, m.next, opts)
}

func (m hooked) Stream(ctx context.Context, opts *provider.CallOptions) (*provider.StreamResult, error) {
	opts, err := m.transform(ctx, CallStream, opts)
	if err != nil {
		return nil, err
	}
	if m.h.WrapStream == nil {
		return m.next.Stream(ctx, opts)
	}
	return m.h.WrapStream(ctx, m.next, opts)
}
