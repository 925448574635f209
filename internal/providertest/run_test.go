package providertest

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"

	"github.com/aisdkgo/ai"
)

// outcome is what a caller of GenerateText or StreamText sees.
type outcome struct {
	res *ai.GenerateTextResult
	// err is GenerateText's error, or Wait's error for a stream.
	err error
	// parts are the parts of a stream, up to the end or an iteration error.
	parts []ai.Part
	// iterErr is the error that ended the iteration of a stream.
	iterErr error
	elapsed time.Duration
}

// generate runs one generation with GenerateText or StreamText, reading
// the whole stream in the latter case.
func generate(ctx context.Context, t *testing.T, stream bool, opts ai.GenerateTextOptions) outcome {
	t.Helper()
	return generateWith(ctx, t, stream, opts, nil)
}

// generateWith is generate with a function that sees each part of a stream
// as it arrives.
func generateWith(ctx context.Context, t *testing.T, stream bool, opts ai.GenerateTextOptions, onPart func(ai.Part)) outcome {
	t.Helper()
	start := time.Now()
	if !stream {
		res, err := ai.GenerateText(ctx, opts)
		return outcome{res: res, err: err, elapsed: time.Since(start)}
	}
	s, err := ai.StreamText(ctx, opts)
	if err != nil {
		return outcome{err: err, elapsed: time.Since(start)}
	}
	var o outcome
	for p, err := range s.Parts() {
		if err != nil {
			o.iterErr = err
			break
		}
		o.parts = append(o.parts, p)
		if onPart != nil {
			onPart(p)
		}
	}
	o.res, o.err = s.Wait()
	o.elapsed = time.Since(start)
	return o
}

// callErr is the error a failed model call surfaced as: GenerateText's
// error, or the stream's single error part.
func (o outcome) callErr(t *testing.T, stream bool) error {
	t.Helper()
	if !stream {
		return o.err
	}
	errs := o.errorParts()
	if !assert.Len(t, errs, 1, "error parts") {
		return nil
	}
	assert.Error(t, o.err, "Wait after a failed stream")
	return errs[0]
}

// errorParts returns the errors of the stream's error parts.
func (o outcome) errorParts() []error {
	var errs []error
	for _, p := range o.parts {
		if e, ok := p.(ai.ErrorPart); ok {
			errs = append(errs, e.Err)
		}
	}
	return errs
}

// types lists the part types of the stream.
func (o outcome) types() []string {
	var ts []string
	for _, p := range o.parts {
		ts = append(ts, p.PartType())
	}
	return ts
}

// streamedText joins the text deltas of the stream.
func (o outcome) streamedText() string {
	s := ""
	for _, p := range o.parts {
		if d, ok := p.(ai.TextDelta); ok {
			s += d.Delta
		}
	}
	return s
}

// options are the settings of a single-step generation against srv.
func options(w wire, srv *server) ai.GenerateTextOptions {
	return ai.GenerateTextOptions{Model: w.model(srv.Server), Prompt: "Say hello."}
}
