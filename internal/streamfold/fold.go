// Package streamfold assembles the parts of a model's stream into the result
// the same call would have returned from Generate. The observer seam uses it
// to report a streamed model call, and durable runs use it to hand a
// streamed call's outcome to their workflow.
package streamfold

import (
	"strings"

	"github.com/aisdkgo/ai/provider"
)

// Fold accumulates stream parts. The zero value is not ready: use [New].
type Fold struct {
	res      provider.GenerateResult
	open     []*block // text and reasoning blocks started and not yet ended
	finished bool
}

// block is an open text or reasoning block: where it sits in the content,
// and its text so far.
type block struct {
	reasoning bool
	id        string
	index     int
	meta      provider.ProviderMetadata
	text      strings.Builder
}

// New returns a fold for a stream with the request and response a
// [provider.StreamResult] reported before its first part.
func New(req *provider.RequestInfo, resp *provider.ResponseInfo) *Fold {
	return &Fold{res: provider.GenerateResult{Request: req, Response: resp}}
}

// Add takes the stream's next part. A delta or end of a block that was never
// started is not kept, and Add returns an *[provider.InvalidResponseDataError]
// saying so; the fold stays usable. Error parts are left to the caller.
func (f *Fold) Add(part provider.StreamPart) error {
	switch p := part.(type) {
	case provider.StreamStart:
		f.res.Warnings = p.Warnings
	case provider.ResponseMetadata:
		info := provider.ResponseInfo{}
		if f.res.Response != nil {
			info = *f.res.Response // the stream's own value is not written
		}
		if p.ID != "" {
			info.ID = p.ID
		}
		if p.ModelID != "" {
			info.ModelID = p.ModelID
		}
		if !p.Timestamp.IsZero() {
			info.Timestamp = p.Timestamp
		}
		f.res.Response = &info
	case provider.TextStart:
		f.start(p.ID, false, p.ProviderMetadata)
	case provider.TextDelta:
		return f.delta(p.ID, false, p.Delta, p.ProviderMetadata)
	case provider.TextEnd:
		b, err := f.end(p.ID, false, p.ProviderMetadata)
		if err == nil {
			f.res.Content[b.index] = provider.Text{Text: b.text.String(), Citations: p.Citations, ProviderMetadata: b.meta}
		}
		return err
	case provider.ReasoningStart:
		f.start(p.ID, true, p.ProviderMetadata)
	case provider.ReasoningDelta:
		return f.delta(p.ID, true, p.Delta, p.ProviderMetadata)
	case provider.ReasoningEnd:
		b, err := f.end(p.ID, true, p.ProviderMetadata)
		if err == nil {
			f.close(b)
		}
		return err
	case provider.Finish:
		f.res.FinishReason, f.res.Usage, f.res.ProviderMetadata = p.FinishReason, p.Usage, p.ProviderMetadata
		f.finished = true
	case provider.Content:
		// Tool calls, provider tool results, approval requests, sources,
		// files and custom content are kept as they are.
		f.res.Content = append(f.res.Content, p)
	}
	return nil
}

// Finished reports whether a finish part arrived.
func (f *Fold) Finished() bool { return f.finished }

// Result returns the result so far. Blocks that were never ended keep the
// text they got; the fold may take more parts afterwards.
func (f *Fold) Result() *provider.GenerateResult {
	res := f.res
	res.Content = append([]provider.Content(nil), f.res.Content...)
	for _, b := range f.open {
		res.Content[b.index] = b.content()
	}
	return &res
}

// close writes an open block's text into its place in the content.
func (f *Fold) close(b *block) { f.res.Content[b.index] = b.content() }

// content is the block as content, with the text it has so far.
func (b *block) content() provider.Content {
	if b.reasoning {
		return provider.Reasoning{Text: b.text.String(), ProviderMetadata: b.meta}
	}
	return provider.Text{Text: b.text.String(), ProviderMetadata: b.meta}
}

// start opens a block at the end of the content. A block started under the
// id of an open one ends that one with the text it got.
func (f *Fold) start(id string, reasoning bool, meta provider.ProviderMetadata) {
	b := &block{reasoning: reasoning, id: id, index: len(f.res.Content), meta: meta}
	if reasoning {
		f.res.Content = append(f.res.Content, provider.Reasoning{ProviderMetadata: meta})
	} else {
		f.res.Content = append(f.res.Content, provider.Text{ProviderMetadata: meta})
	}
	if i := f.find(id, reasoning); i >= 0 {
		f.close(f.open[i])
		f.open[i] = b
		return
	}
	f.open = append(f.open, b)
}

func (f *Fold) delta(id string, reasoning bool, delta string, meta provider.ProviderMetadata) error {
	i := f.find(id, reasoning)
	if i < 0 {
		return notStarted(id, reasoning)
	}
	b := f.open[i]
	b.text.WriteString(delta)
	if meta != nil {
		b.meta = meta
	}
	return nil
}

func (f *Fold) end(id string, reasoning bool, meta provider.ProviderMetadata) (*block, error) {
	i := f.find(id, reasoning)
	if i < 0 {
		return nil, notStarted(id, reasoning)
	}
	b := f.open[i]
	f.open = append(f.open[:i], f.open[i+1:]...)
	if meta != nil {
		b.meta = meta
	}
	return b, nil
}

func (f *Fold) find(id string, reasoning bool) int {
	for i, b := range f.open {
		if b.id == id && b.reasoning == reasoning {
			return i
		}
	}
	return -1
}

func notStarted(id string, reasoning bool) error {
	kind := "text"
	if reasoning {
		kind = "reasoning"
	}
	return &provider.InvalidResponseDataError{Message: kind + " part " + id + " was never started"}
}
