package openaichat

import (
	"context"
	"encoding/json"
	"errors"
	"iter"
	"net/http"
	"sync/atomic"

	"github.com/aisdkgo/ai/internal/httpx"
	"github.com/aisdkgo/ai/internal/sse"
	"github.com/aisdkgo/ai/provider"
)

// Stream runs a streaming chat completion.
func (m *Model) Stream(ctx context.Context, opts *provider.CallOptions) (*provider.StreamResult, error) {
	if opts == nil {
		opts = &provider.CallOptions{}
	}
	call, resp, err := m.post(ctx, opts, true)
	if err != nil {
		return nil, err
	}
	return m.streamResponse(ctx, resp, call, opts.IncludeRawChunks)
}

// EventSource pulls server-sent events from a response body, optionally
// after some events that were read ahead.
type EventSource struct {
	pending []sse.Event
	next    func() (sse.Event, error, bool)
	stop    func()
	used    atomic.Bool
}

// NewEventSource starts reading the events of resp with rd. The body is
// closed when Stop is called, when ctx ends, or when the events run out.
func NewEventSource(ctx context.Context, resp *httpx.Response, rd sse.Reader) *EventSource {
	es := resp.EventStream(ctx, rd)
	return &EventSource{next: es.Next, stop: es.Stop}
}

// Peek reads events until keep returns false for one, buffering them for
// Events. It returns the event keep stopped at, or ok false when the events
// ran out first; err is the error that ended the events (see
// [httpx.Response.Events]).
func (s *EventSource) Peek(keep func(sse.Event) bool) (last sse.Event, ok bool, err error) {
	for {
		ev, err, more := s.next()
		if !more {
			return sse.Event{}, false, nil
		}
		if err != nil {
			return sse.Event{}, false, err
		}
		s.pending = append(s.pending, ev)
		if !keep(ev) {
			return ev, true, nil
		}
	}
}

// Stop releases the response body.
func (s *EventSource) Stop() { s.stop() }

// Parser turns the events of one response into stream parts, which it
// queues with the emit function it was made with.
type Parser interface {
	// Handle processes one event.
	Handle(ev sse.Event)
	// End is called after the last event; it emits the closing parts,
	// finish included.
	End()
}

// Parts returns the stream of the response: stream-start with warnings,
// then for each event its raw chunk (when includeRaw is set) and the parts
// the parser emits, then the parts it emits at the end. newParser is called
// when ranging starts. An error reading the events ends the stream with that
// error. The stream may be ranged over once; stopping early releases the
// body.
func (s *EventSource) Parts(warnings []provider.Warning, includeRaw bool,
	newParser func(emit func(provider.StreamPart)) Parser) iter.Seq2[provider.StreamPart, error] {
	return func(yield func(provider.StreamPart, error) bool) {
		defer s.Stop()
		if s.used.Swap(true) {
			yield(nil, ErrStreamConsumed)
			return
		}
		var queue []provider.StreamPart
		p := newParser(func(part provider.StreamPart) { queue = append(queue, part) })
		flush := func() bool {
			for i, part := range queue {
				if !yield(part, nil) {
					return false
				}
				queue[i] = nil
			}
			queue = queue[:0]
			return true
		}
		if !yield(provider.StreamStart{Warnings: warnings}, nil) {
			return
		}
		for ev, err := range s.events() {
			if err != nil {
				yield(nil, err)
				return
			}
			if includeRaw {
				queue = append(queue, RawPart(ev.Data))
			}
			p.Handle(ev)
			if !flush() {
				return
			}
		}
		p.End()
		flush()
	}
}

// events yields the buffered events, then the rest of the stream.
func (s *EventSource) events() iter.Seq2[sse.Event, error] {
	return func(yield func(sse.Event, error) bool) {
		for len(s.pending) > 0 {
			ev := s.pending[0]
			s.pending = s.pending[1:]
			if !yield(ev, nil) {
				return
			}
		}
		for {
			ev, err, more := s.next()
			if !more {
				return
			}
			if !yield(ev, err) || err != nil {
				return
			}
		}
	}
}

// ErrStreamConsumed is returned when a stream is ranged over twice.
var ErrStreamConsumed = errors.New("the stream can only be read once")

// streamResponse reads resp up to its first output and returns the stream
// of the rest. An error frame that arrives before any output fails the call
// (an API error that the caller may retry, depending on the error), like a
// response that ends before any event.
func (m *Model) streamResponse(ctx context.Context, resp *httpx.Response, call *preparedCall, includeRaw bool) (*provider.StreamResult, error) {
	src := NewEventSource(ctx, resp, sse.Reader{})
	var frameErr *provider.APICallError
	_, _, err := src.Peek(func(ev sse.Event) bool {
		data := []byte(ev.Data)
		if !json.Valid(data) {
			return false
		}
		if e, ok := ParseStreamError(data); ok {
			frameErr = e.APIError(m.s.URL, resp.RequestBody, resp.HTTP.Header, data)
			return false
		}
		return !chunkHasOutput(data)
	})
	if err != nil {
		src.Stop()
		return nil, err
	}
	if frameErr != nil {
		src.Stop()
		return nil, frameErr
	}
	seq := src.Parts(call.warnings, includeRaw, func(emit func(provider.StreamPart)) Parser {
		st := &chatStream{m: m, call: call, url: m.s.URL, reqBody: resp.RequestBody, headers: resp.HTTP.Header, emit: emit,
			pending: map[int]*pendingCall{}, forwarded: map[int]bool{}}
		st.tracker = newToolTracker(m.s.newID, emit)
		return st
	})
	return &provider.StreamResult{
		Stream:   seq,
		Request:  &provider.RequestInfo{URL: m.s.URL, Body: resp.RequestBody},
		Response: &provider.ResponseInfo{Headers: provider.Header(resp.HTTP.Header)},
	}, nil
}

// chunkHasOutput reports whether a chunk carries output: non-empty content,
// reasoning, a refusal, tool calls or annotations.
func chunkHasOutput(data []byte) bool {
	var c streamChunk
	if json.Unmarshal(data, &c) != nil {
		return false
	}
	for _, ch := range c.Choices {
		d := ch.Delta
		if d == nil {
			continue
		}
		if len(contentPieces(d.Content)) > 0 || refusalText(d.Refusal) != "" || reasoningText(d) != "" ||
			len(d.ToolCalls) > 0 || len(d.Annotations) > 0 {
			return true
		}
	}
	return false
}

type streamChunk struct {
	ID      *string  `json:"id"`
	Created *float64 `json:"created"`
	Model   *string  `json:"model"`
	Choices []struct {
		Delta        *wireMessage    `json:"delta"`
		Logprobs     json.RawMessage `json:"logprobs"`
		FinishReason *string         `json:"finish_reason"`
	} `json:"choices"`
	Usage json.RawMessage `json:"usage"`
}

type pendingCall struct {
	id   string
	args string
	meta provider.ProviderMetadata
}

// chatStream is the state of one streamed chat completion.
type chatStream struct {
	m       *Model
	call    *preparedCall
	url     string
	reqBody []byte
	headers http.Header
	emit    func(provider.StreamPart)

	tracker *toolTracker
	// pending buffers tool call fragments per index until one carries the
	// function name; some servers send the id or arguments first.
	pending      map[int]*pendingCall
	pendingOrder []int
	forwarded    map[int]bool

	metadataSent  bool
	textOpen      bool
	reasoningOpen bool
	refusal       bool
	errored       bool
	rawFinish     string
	usage         json.RawMessage
	logprobs      []any
}

const (
	textID      = "txt-0"
	reasoningID = "reasoning-0"
)

// RawPart returns a raw stream part for an event's data.
func RawPart(data string) provider.Raw {
	if json.Valid([]byte(data)) {
		return provider.Raw{RawValue: json.RawMessage(data)}
	}
	b, _ := json.Marshal(data)
	return provider.Raw{RawValue: b}
}

// Handle processes one chunk.
func (s *chatStream) Handle(ev sse.Event) {
	data := []byte(ev.Data)
	if e, ok := ParseStreamError(data); ok {
		s.errored = true
		s.emit(provider.ErrorPart{Err: e.APIError(s.url, s.reqBody, s.headers, data)})
		return
	}
	var c streamChunk
	if err := json.Unmarshal(data, &c); err != nil {
		s.errored = true
		s.emit(provider.ErrorPart{Err: &provider.InvalidResponseDataError{Data: data, Message: "invalid stream chunk: " + err.Error()}})
		return
	}
	if !s.metadataSent && (stringOf(c.ID) != "" || stringOf(c.Model) != "" || (c.Created != nil && *c.Created != 0)) {
		s.metadataSent = true
		s.emit(provider.ResponseMetadata{ID: stringOf(c.ID), ModelID: stringOf(c.Model), Timestamp: timestamp(c.Created)})
	}
	if len(c.Usage) > 0 && string(c.Usage) != "null" {
		s.usage = c.Usage
	}
	if len(c.Choices) == 0 {
		return
	}
	ch := c.Choices[0]
	if ch.FinishReason != nil && *ch.FinishReason != "" {
		s.rawFinish = *ch.FinishReason
	}
	if lp := logprobs(ch.Logprobs); lp != nil {
		s.logprobs = append(s.logprobs, lp...)
	}
	d := ch.Delta
	if d == nil {
		return
	}
	if r := reasoningText(d); r != "" {
		s.reasoningDelta(r)
	}
	for _, p := range contentPieces(d.Content) {
		if p.reasoning {
			s.reasoningDelta(p.text)
		} else {
			s.textDelta(p.text)
		}
	}
	if r := refusalText(d.Refusal); r != "" {
		s.refusal = true
		s.textDelta(r)
	}
	if len(d.ToolCalls) > 0 {
		s.closeReasoning()
		for _, tc := range d.ToolCalls {
			s.toolDelta(tc)
		}
	}
	for _, a := range d.Annotations {
		if a.Type == "url_citation" && a.URLCitation != nil {
			s.emit(provider.Source{SourceType: provider.SourceURL, ID: s.m.s.newID(), URL: a.URLCitation.URL, Title: a.URLCitation.Title})
		}
	}
}

func (s *chatStream) reasoningDelta(text string) {
	if s.textOpen {
		s.emit(provider.TextEnd{ID: textID})
		s.textOpen = false
	}
	if !s.reasoningOpen {
		s.emit(provider.ReasoningStart{ID: reasoningID})
		s.reasoningOpen = true
	}
	s.emit(provider.ReasoningDelta{ID: reasoningID, Delta: text})
}

func (s *chatStream) textDelta(text string) {
	s.closeReasoning()
	if !s.textOpen {
		s.emit(provider.TextStart{ID: textID})
		s.textOpen = true
	}
	s.emit(provider.TextDelta{ID: textID, Delta: text})
}

func (s *chatStream) closeReasoning() {
	if s.reasoningOpen {
		s.emit(provider.ReasoningEnd{ID: reasoningID})
		s.reasoningOpen = false
	}
}

func (s *chatStream) toolDelta(tc wireToolCall) {
	var meta provider.ProviderMetadata
	if sig := tc.thoughtSignature(); sig != "" {
		meta = provider.ProviderMetadata{s.call.metaKey: {"thoughtSignature": sig}}
	}
	id := ""
	if tc.ID != nil {
		id = *tc.ID
	}
	args, hasArgs := tc.arguments()
	d := toolDelta{index: tc.Index, id: id, typ: tc.Type, name: tc.name(), meta: meta}
	if hasArgs {
		d.args = &args
	}
	if tc.Index == nil || s.forwarded[*tc.Index] {
		s.addTool(d)
		return
	}
	idx := *tc.Index
	p := s.pending[idx]
	if p == nil {
		p = &pendingCall{}
		s.pending[idx] = p
		s.pendingOrder = append(s.pendingOrder, idx)
	}
	if p.id == "" {
		p.id = id
	}
	if p.meta == nil {
		p.meta = meta
	}
	p.args += args
	if d.name == nil {
		return
	}
	buffered := p.args
	s.addTool(toolDelta{index: tc.Index, id: p.id, typ: tc.Type, name: d.name, args: &buffered, meta: p.meta})
	delete(s.pending, idx)
	s.forwarded[idx] = true
}

func (s *chatStream) addTool(d toolDelta) {
	if err := s.tracker.add(d); err != nil {
		s.emit(provider.ErrorPart{Err: err})
	}
}

// End closes open blocks and tool calls and emits the finish part.
func (s *chatStream) End() {
	s.closeReasoning()
	if s.textOpen {
		s.emit(provider.TextEnd{ID: textID})
		s.textOpen = false
	}
	for _, idx := range s.pendingOrder {
		p, ok := s.pending[idx]
		if !ok {
			continue
		}
		index := idx
		args := p.args
		s.addTool(toolDelta{index: &index, id: p.id, args: &args, meta: p.meta})
	}
	s.tracker.finish()
	reason := provider.FinishReason{Unified: provider.FinishInterrupted}
	switch {
	case s.errored:
		reason = provider.FinishReason{Unified: provider.FinishError}
	case s.rawFinish != "":
		reason = provider.FinishReason{Unified: MapFinishReason(s.rawFinish, s.refusal), Raw: s.rawFinish}
	}
	meta := map[string]any{}
	predictionMetadata(s.usage, meta)
	if s.logprobs != nil {
		meta["logprobs"] = s.logprobs
	}
	s.emit(provider.Finish{
		FinishReason:     reason,
		Usage:            s.m.usage(s.usage),
		ProviderMetadata: provider.ProviderMetadata{s.call.metaKey: meta},
	})
}
