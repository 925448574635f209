// Package aitest provides a scripted language model for tests, in the
// manner of net/http/httptest: it answers each call with the next scripted
// response and records every call it receives.
//
//	model := aitest.NewModel(
//		aitest.Response{Content: []provider.Content{aitest.ToolCall("c1", "search", `{"query":"weather"}`)}, FinishReason: aitest.ToolCalls},
//		aitest.Response{Content: []provider.Content{aitest.Text("It will rain.")}},
//	)
//	res, err := ai.GenerateText(ctx, ai.GenerateTextOptions{Model: model, ...})
//	calls := model.Calls() // what the model was sent
package aitest

import (
	"context"
	"encoding/json"
	"fmt"
	"iter"
	"strconv"
	"sync"

	"github.com/aisdkgo/ai/provider"
)

// Response is one scripted model response. For a streaming call, Chunks
// are streamed as given; when Chunks is nil the stream is derived from
// Content (a text part becomes text-start, text-delta and text-end with id
// "text-<index>", reasoning likewise, any other part is sent as is), then a
// finish part.
type Response struct {
	Content []provider.Content
	// FinishReason defaults to stop.
	FinishReason provider.FinishReason
	Usage        provider.Usage
	Warnings     []provider.Warning
	// Response is the response metadata to report. A stream reports its id,
	// model and timestamp in a response-metadata part before the chunks
	// (unless Chunks hold one) and its headers with the stream.
	Response *provider.ResponseInfo
	// Chunks, when set, are the parts of a streaming response.
	Chunks []provider.StreamPart
	// Err makes the call fail with this error.
	Err error
}

// The usual finish reasons.
var (
	Stop      = provider.FinishReason{Unified: provider.FinishStop}
	ToolCalls = provider.FinishReason{Unified: provider.FinishToolCalls}
	Length    = provider.FinishReason{Unified: provider.FinishLength}
)

// Model is a scripted [provider.LanguageModel]. It is safe for concurrent
// use; responses are handed out in call order.
type Model struct {
	// ProviderName and ModelName are reported by Provider and ModelID
	// ("aitest" and "scripted" when empty).
	ProviderName string
	ModelName    string
	// Responses are consumed one per call.
	Responses []Response
	// Respond, when set, answers calls instead of Responses: it gets the
	// call's index (from 0) and options.
	Respond func(ctx context.Context, call int, opts *provider.CallOptions) (Response, error)

	mu    sync.Mutex
	calls []provider.CallOptions
	next  int
}

// NewModel returns a model answering with the responses in order.
func NewModel(responses ...Response) *Model {
	return &Model{Responses: responses}
}

// Provider reports the provider name.
func (m *Model) Provider() string {
	if m.ProviderName == "" {
		return "aitest"
	}
	return m.ProviderName
}

// ModelID reports the model name.
func (m *Model) ModelID() string {
	if m.ModelName == "" {
		return "scripted"
	}
	return m.ModelName
}

// Calls returns the options of every call received so far, in order.
func (m *Model) Calls() []provider.CallOptions {
	m.mu.Lock()
	defer m.mu.Unlock()
	out := make([]provider.CallOptions, len(m.calls))
	copy(out, m.calls)
	return out
}

// Remaining reports how many scripted responses are unused.
func (m *Model) Remaining() int {
	m.mu.Lock()
	defer m.mu.Unlock()
	return len(m.Responses) - m.next
}

// ErrNoResponse is returned when a call finds no scripted response left.
type ErrNoResponse struct{ Call int }

// Error implements the error interface.
func (e *ErrNoResponse) Error() string {
	return fmt.Sprintf("aitest: call %d has no scripted response", e.Call+1)
}

func (m *Model) take(ctx context.Context, opts *provider.CallOptions) (Response, error) {
	m.mu.Lock()
	i := len(m.calls)
	m.calls = append(m.calls, *opts)
	respond := m.Respond
	var r Response
	ok := false
	if respond == nil && m.next < len(m.Responses) {
		r, ok = m.Responses[m.next], true
		m.next++
	}
	m.mu.Unlock()
	if respond != nil {
		return respond(ctx, i, opts)
	}
	if !ok {
		return Response{}, &ErrNoResponse{Call: i}
	}
	return r, nil
}

// Generate answers with the next response.
func (m *Model) Generate(ctx context.Context, opts *provider.CallOptions) (*provider.GenerateResult, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	r, err := m.take(ctx, opts)
	if err != nil {
		return nil, err
	}
	if r.Err != nil {
		return nil, r.Err
	}
	return &provider.GenerateResult{
		Content:      r.Content,
		FinishReason: finishOf(r),
		Usage:        r.Usage,
		Warnings:     r.Warnings,
		Response:     r.Response,
	}, nil
}

// Stream answers with the next response as a stream. The stream stops early
// when ctx is cancelled.
func (m *Model) Stream(ctx context.Context, opts *provider.CallOptions) (*provider.StreamResult, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	r, err := m.take(ctx, opts)
	if err != nil {
		return nil, err
	}
	if r.Err != nil {
		return nil, r.Err
	}
	chunks := r.Chunks
	if chunks == nil {
		chunks = Chunks(r)
	}
	if meta, ok := responseMetadata(r.Response); ok && !hasMetadata(chunks) {
		chunks = append([]provider.StreamPart{meta}, chunks...)
	}
	return &provider.StreamResult{Stream: Parts(ctx, chunks...), Response: r.Response}, nil
}

// responseMetadata returns the stream part that reports info's id, model
// and timestamp, when it has any of them.
func responseMetadata(info *provider.ResponseInfo) (provider.ResponseMetadata, bool) {
	if info == nil || info.ID == "" && info.ModelID == "" && info.Timestamp.IsZero() {
		return provider.ResponseMetadata{}, false
	}
	return provider.ResponseMetadata{ID: info.ID, ModelID: info.ModelID, Timestamp: info.Timestamp}, true
}

// hasMetadata reports whether parts hold a response-metadata part.
func hasMetadata(parts []provider.StreamPart) bool {
	for _, p := range parts {
		if _, ok := p.(provider.ResponseMetadata); ok {
			return true
		}
	}
	return false
}

func finishOf(r Response) provider.FinishReason {
	if r.FinishReason.Unified == "" {
		return provider.FinishReason{Unified: provider.FinishStop, Raw: r.FinishReason.Raw}
	}
	return r.FinishReason
}

// Chunks converts a generate-form response into stream parts.
func Chunks(r Response) []provider.StreamPart {
	var out []provider.StreamPart
	for i, c := range r.Content {
		switch c := c.(type) {
		case provider.Text:
			id := "text-" + strconv.Itoa(i)
			out = append(out,
				provider.TextStart{ID: id, ProviderMetadata: c.ProviderMetadata},
				provider.TextDelta{ID: id, Delta: c.Text},
				provider.TextEnd{ID: id})
		case provider.Reasoning:
			id := "reasoning-" + strconv.Itoa(i)
			out = append(out,
				provider.ReasoningStart{ID: id, ProviderMetadata: c.ProviderMetadata},
				provider.ReasoningDelta{ID: id, Delta: c.Text},
				provider.ReasoningEnd{ID: id})
		default:
			if p, ok := c.(provider.StreamPart); ok {
				out = append(out, p)
			}
		}
	}
	return append(out, provider.Finish{FinishReason: finishOf(r), Usage: r.Usage})
}

// Parts returns a stream of the given parts that ends early, with ctx's
// error, when ctx is cancelled.
func Parts(ctx context.Context, parts ...provider.StreamPart) iter.Seq2[provider.StreamPart, error] {
	return func(yield func(provider.StreamPart, error) bool) {
		for _, p := range parts {
			if err := ctx.Err(); err != nil {
				yield(nil, err)
				return
			}
			if !yield(p, nil) {
				return
			}
		}
	}
}

// Text returns a text content part.
func Text(text string) provider.Text { return provider.Text{Text: text} }

// ToolCall returns a tool call content part. input is the input text, or
// any other value, which is encoded as JSON.
func ToolCall(id, tool string, input any) provider.ToolCall {
	var text string
	switch v := input.(type) {
	case string:
		text = v
	case json.RawMessage:
		text = string(v)
	default:
		b, err := json.Marshal(v)
		if err != nil {
			panic("aitest.ToolCall: " + err.Error())
		}
		text = string(b)
	}
	return provider.ToolCall{ToolCallID: id, ToolName: tool, Input: text}
}
