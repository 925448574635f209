package bedrock

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"iter"
	"maps"
	"mime"
	"slices"
	"strconv"

	"github.com/aisdkgo/ai/internal/eventstream"
	"github.com/aisdkgo/ai/internal/httpx"
	"github.com/aisdkgo/ai/provider"
)

// exceptionStatus maps the exceptions of a ConverseStream stream to the
// HTTP status they stand for and whether a retry may help.
var exceptionStatus = map[string]struct {
	status    int
	retryable bool
}{
	"internalServerException":     {500, true},
	"modelStreamErrorException":   {424, true},
	"serviceUnavailableException": {503, true},
	"throttlingException":         {429, true},
	"validationException":         {400, false},
}

// exceptionError is the error of an exception message.
func exceptionError(resp *httpx.Response, kind string, payload []byte) *provider.APICallError {
	var body struct {
		Message *string `json:"message"`
	}
	_ = json.Unmarshal(payload, &body)
	msg := "Amazon Bedrock stream failed with " + kind
	if body.Message != nil {
		msg = *body.Message
	}
	st := exceptionStatus[lowerFirst(kind)]
	e := resp.Fail(msg, st.retryable, payload, nil)
	if st.status != 0 {
		e.StatusCode = st.status
	}
	return e
}

func lowerFirst(s string) string {
	if s == "" || s[0] < 'A' || s[0] > 'Z' {
		return s
	}
	return string(s[0]+'a'-'A') + s[1:]
}

// frames reads the messages of a ConverseStream response body.
type frames struct {
	ctx  context.Context
	resp *httpx.Response
	rd   *eventstream.Reader
	stop func() bool
}

func newFrames(ctx context.Context, resp *httpx.Response) *frames {
	body := resp.HTTP.Body
	return &frames{ctx: ctx, resp: resp, rd: eventstream.NewReader(body),
		stop: context.AfterFunc(ctx, func() { body.Close() })}
}

func (f *frames) close() {
	f.stop()
	f.resp.HTTP.Body.Close()
}

// next returns the next message; io.EOF at a clean end between messages
// and errTruncated at a clean end inside one. Other errors are the
// errors that end the call.
func (f *frames) next() (*eventstream.Message, error) {
	msg, err := f.rd.Next()
	if err == nil {
		return msg, nil
	}
	if f.ctx.Err() != nil {
		return nil, context.Cause(f.ctx)
	}
	var fe *eventstream.FormatError
	switch {
	case err == io.EOF, errors.Is(err, eventstream.ErrTruncated):
		return nil, err
	case errors.Is(err, eventstream.ErrTooLarge):
		return nil, f.resp.Fail("a message of the event stream is longer than 16 MiB", false, nil,
			&provider.InvalidResponseDataError{Message: err.Error()})
	case errors.As(err, &fe):
		return nil, f.resp.Fail("the response stream is malformed: "+fe.Reason, false, nil,
			&provider.InvalidResponseDataError{Message: err.Error()})
	}
	return nil, f.resp.Fail("the response stream was cut off: "+err.Error(), true, nil, err)
}

// notAStream is the error of a 2xx answer to a ConverseStream call that is
// not an event stream: an error object, or something else.
func notAStream(ctx context.Context, resp *httpx.Response) error {
	defer resp.HTTP.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.HTTP.Body, 1<<20))
	if err != nil {
		if ctx.Err() != nil {
			return context.Cause(ctx)
		}
		return resp.Fail("the response body was cut off: "+err.Error(), true, nil, err)
	}
	if msg := errorMessage(body); msg != "" {
		return resp.Fail(msg, false, body, nil)
	}
	msg := fmt.Sprintf("the response is not an event stream (Content-Type %q)", resp.HTTP.Header.Get("Content-Type"))
	if len(bytes.TrimSpace(body)) == 0 {
		msg = "the response body is empty"
	}
	return resp.Fail(msg, false, body, &provider.InvalidResponseDataError{Data: body, Message: msg})
}

// streamEvent is one event of a ConverseStream stream, under its event
// type.
type streamEvent struct {
	ContentBlockStart *struct {
		ContentBlockIndex int `json:"contentBlockIndex"`
		Start             *struct {
			ToolUse *struct {
				ToolUseID string `json:"toolUseId"`
				Name      string `json:"name"`
			} `json:"toolUse"`
		} `json:"start"`
	}
	ContentBlockDelta *struct {
		ContentBlockIndex int `json:"contentBlockIndex"`
		Delta             *struct {
			Text    *string `json:"text"`
			ToolUse *struct {
				Input string `json:"input"`
			} `json:"toolUse"`
			ReasoningContent *struct {
				Text            string `json:"text"`
				Signature       string `json:"signature"`
				Data            string `json:"data"`
				RedactedContent string `json:"redactedContent"`
			} `json:"reasoningContent"`
		} `json:"delta"`
	}
	ContentBlockStop *struct {
		ContentBlockIndex int `json:"contentBlockIndex"`
	}
	MessageStop *struct {
		StopReason                    string          `json:"stopReason"`
		AdditionalModelResponseFields *responseFields `json:"additionalModelResponseFields"`
	}
	Metadata *struct {
		Usage             json.RawMessage `json:"usage"`
		Trace             json.RawMessage `json:"trace"`
		PerformanceConfig json.RawMessage `json:"performanceConfig"`
		ServiceTier       json.RawMessage `json:"serviceTier"`
	}
}

// decodeEvent decodes the payload of an event of the given type.
func decodeEvent(eventType string, payload []byte) (*streamEvent, error) {
	ev := &streamEvent{}
	var target any
	switch eventType {
	case "contentBlockStart":
		target = &ev.ContentBlockStart
	case "contentBlockDelta":
		target = &ev.ContentBlockDelta
	case "contentBlockStop":
		target = &ev.ContentBlockStop
	case "messageStop":
		target = &ev.MessageStop
	case "metadata":
		target = &ev.Metadata
	default:
		return ev, nil // messageStart and unknown events carry nothing needed
	}
	if err := json.Unmarshal(payload, target); err != nil {
		return nil, err
	}
	return ev, nil
}

// block is an open content block of a stream.
type block struct {
	kind            string // text, reasoning or tool
	toolCallID      string
	toolName        string
	json            bytes.Buffer
	jsonTool        bool
	redactedContent *string
}

// Stream runs one ConverseStream call.
func (m *languageModel) Stream(ctx context.Context, opts *provider.CallOptions) (*provider.StreamResult, error) {
	if opts == nil {
		opts = &provider.CallOptions{}
	}
	c, err := m.prepare(opts)
	if err != nil {
		return nil, err
	}
	resp, err := m.post(ctx, c, "converse-stream", opts.Headers)
	if err != nil {
		return nil, err
	}
	mt, _, _ := mime.ParseMediaType(resp.HTTP.Header.Get("Content-Type"))
	switch mt {
	case "", "application/vnd.amazon.eventstream", "application/octet-stream":
	default:
		return nil, notAStream(ctx, resp)
	}
	f := newFrames(ctx, resp)
	// The first message is read here, so that a call whose stream starts
	// with an exception (or has no message at all) fails as a whole and
	// may be retried.
	first, err := f.next()
	if err != nil {
		f.close()
		if err == io.EOF || errors.Is(err, eventstream.ErrTruncated) {
			return nil, resp.Fail("the response body is empty", false, nil, &provider.InvalidResponseDataError{Message: "no event"})
		}
		return nil, err
	}
	if first.Header(":message-type") == "exception" {
		f.close()
		return nil, exceptionError(resp, first.Header(":exception-type"), first.Payload)
	}
	info := responseInfo(resp.HTTP.Header, m.modelID)
	return &provider.StreamResult{
		Stream:   m.events(f, first, c, info, opts.IncludeRawChunks),
		Request:  &provider.RequestInfo{URL: resp.URL, Body: resp.RequestBody},
		Response: &provider.ResponseInfo{Headers: info.Headers},
	}, nil
}

// events turns the messages of a stream into stream parts.
func (m *languageModel) events(f *frames, first *eventstream.Message, c *call, info *provider.ResponseInfo, raw bool) iter.Seq2[provider.StreamPart, error] {
	return func(yield func(provider.StreamPart, error) bool) {
		defer f.close()
		s := &streamState{c: c, blocks: map[int]*block{}, yield: yield,
			finish: provider.FinishReason{Unified: provider.FinishOther}}
		if c.jsonText {
			s.extract = &jsonObjectText{}
		}
		if !s.emit(provider.StreamStart{Warnings: c.warnings}) ||
			!s.emit(provider.ResponseMetadata{ID: info.ID, Timestamp: info.Timestamp, ModelID: info.ModelID}) {
			return
		}
		msg := first
		for {
			if !s.message(f.resp, msg, raw) {
				return
			}
			next, err := f.next()
			if err == io.EOF || errors.Is(err, eventstream.ErrTruncated) {
				break
			}
			if err != nil {
				yield(nil, err)
				return
			}
			msg = next
		}
		s.end()
	}
}

// streamState follows the blocks of one stream.
type streamState struct {
	c            *call
	blocks       map[int]*block
	yield        func(provider.StreamPart, error) bool
	stopped      bool
	finish       provider.FinishReason
	usage        *usage
	rawUsage     json.RawMessage
	metadata     map[string]any
	jsonFromTool bool
	stopSequence *string
	// done is set by messageStop: the model finished its answer.
	done bool
	// extract keeps the JSON object of an answer asked for in words.
	extract *jsonObjectText
}

func (s *streamState) emit(p provider.StreamPart) bool {
	if s.stopped {
		return false
	}
	if !s.yield(p, nil) {
		s.stopped = true
	}
	return !s.stopped
}

// message handles one message; it returns false when the reader stopped.
func (s *streamState) message(resp *httpx.Response, msg *eventstream.Message, raw bool) bool {
	kind := msg.Header(":message-type")
	typ := msg.Header(":event-type")
	if kind == "exception" {
		typ = msg.Header(":exception-type")
	}
	if kind != "event" && kind != "exception" {
		return true
	}
	if raw {
		wrapped, _ := json.Marshal(map[string]json.RawMessage{typ: validJSON(msg.Payload)})
		if !s.emit(provider.Raw{RawValue: wrapped}) {
			return false
		}
	}
	if kind == "exception" {
		s.finish = provider.FinishReason{Unified: provider.FinishError}
		return s.emit(provider.ErrorPart{Err: exceptionError(resp, typ, msg.Payload)})
	}
	ev, err := decodeEvent(typ, msg.Payload)
	if err != nil {
		s.finish = provider.FinishReason{Unified: provider.FinishError}
		return s.emit(provider.ErrorPart{Err: &provider.InvalidResponseDataError{Data: msg.Payload, Message: typ + ": " + err.Error()}})
	}
	return s.event(ev)
}

func validJSON(b []byte) json.RawMessage {
	if json.Valid(b) {
		return b
	}
	q, _ := json.Marshal(string(b))
	return q
}

func (s *streamState) event(ev *streamEvent) bool {
	if ms := ev.MessageStop; ms != nil {
		s.done = true
		s.finish = finishReason(ms.StopReason, s.jsonFromTool)
		s.stopSequence = ms.AdditionalModelResponseFields.stopSequence()
	}
	if md := ev.Metadata; md != nil {
		if !isNull(md.Usage) {
			u := new(usage)
			if json.Unmarshal(md.Usage, u) == nil {
				s.usage, s.rawUsage = u, md.Usage
			}
		}
		payload := map[string]any{}
		if cu := cacheUsage(s.usage); cu != nil && !isNull(md.Usage) {
			payload["usage"] = cu
		}
		if !isNull(md.Trace) {
			payload["trace"] = md.Trace
		}
		if !isNull(md.PerformanceConfig) {
			payload["performanceConfig"] = md.PerformanceConfig
		}
		if !isNull(md.ServiceTier) {
			payload["serviceTier"] = md.ServiceTier
		}
		if len(payload) > 0 {
			s.metadata = payload
		}
	}
	if cs := ev.ContentBlockStart; cs != nil {
		i := cs.ContentBlockIndex
		if cs.Start == nil || cs.Start.ToolUse == nil {
			s.blocks[i] = &block{kind: "text"}
			if !s.emit(provider.TextStart{ID: strconv.Itoa(i)}) {
				return false
			}
		} else {
			tu := cs.Start.ToolUse
			b := &block{kind: "tool", toolCallID: normalizeToolCallID(tu.ToolUseID, s.c.mistral), toolName: tu.Name,
				jsonTool: s.c.jsonTool && tu.Name == "json"}
			s.blocks[i] = b
			if !b.jsonTool && !s.emit(provider.ToolInputStart{ID: b.toolCallID, ToolName: b.toolName}) {
				return false
			}
		}
	}
	if cd := ev.ContentBlockDelta; cd != nil && cd.Delta != nil {
		i := cd.ContentBlockIndex
		id := strconv.Itoa(i)
		d := cd.Delta
		switch {
		case d.Text != nil && *d.Text != "":
			if s.blocks[i] == nil {
				s.blocks[i] = &block{kind: "text"}
				if !s.emit(provider.TextStart{ID: id}) {
					return false
				}
			}
			delta := *d.Text
			if s.extract != nil {
				delta = s.extract.process(delta)
			}
			if delta != "" && !s.emit(provider.TextDelta{ID: id, Delta: delta}) {
				return false
			}
		case d.ReasoningContent != nil:
			rc := d.ReasoningContent
			open := func() bool {
				if s.blocks[i] != nil {
					return true
				}
				s.blocks[i] = &block{kind: "reasoning"}
				return s.emit(provider.ReasoningStart{ID: id})
			}
			switch {
			case rc.Text != "":
				if !open() || !s.emit(provider.ReasoningDelta{ID: id, Delta: rc.Text}) {
					return false
				}
			case rc.Signature != "":
				if !open() || !s.emit(provider.ReasoningDelta{ID: id, ProviderMetadata: metadata(map[string]any{"signature": rc.Signature})}) {
					return false
				}
			case rc.Data != "":
				if !open() || !s.emit(provider.ReasoningDelta{ID: id, ProviderMetadata: metadata(map[string]any{"redactedData": rc.Data})}) {
					return false
				}
			case rc.RedactedContent != "":
				if !open() {
					return false
				}
				if b := s.blocks[i]; b.kind == "reasoning" {
					joined := rc.RedactedContent
					if b.redactedContent != nil {
						joined = *b.redactedContent + joined
					}
					b.redactedContent = &joined
				}
			}
		case d.ToolUse != nil:
			if b := s.blocks[i]; b != nil && b.kind == "tool" {
				if !b.jsonTool && !s.emit(provider.ToolInputDelta{ID: b.toolCallID, Delta: d.ToolUse.Input}) {
					return false
				}
				b.json.WriteString(d.ToolUse.Input)
			}
		}
	}
	if cs := ev.ContentBlockStop; cs != nil {
		i := cs.ContentBlockIndex
		b := s.blocks[i]
		delete(s.blocks, i)
		if b != nil && !s.closeBlock(i, b) {
			return false
		}
	}
	return true
}

// closeBlock ends block i.
func (s *streamState) closeBlock(i int, b *block) bool {
	id := strconv.Itoa(i)
	switch b.kind {
	case "reasoning":
		end := provider.ReasoningEnd{ID: id}
		if b.redactedContent != nil {
			end.ProviderMetadata = metadata(map[string]any{"redactedContent": *b.redactedContent})
		}
		return s.emit(end)
	case "text":
		return s.emit(provider.TextEnd{ID: id})
	}
	input := b.json.String()
	if input == "" {
		input = "{}"
	}
	if b.jsonTool {
		s.jsonFromTool = true
		return s.emit(provider.TextStart{ID: id}) && s.emit(provider.TextDelta{ID: id, Delta: input}) && s.emit(provider.TextEnd{ID: id})
	}
	return s.emit(provider.ToolInputEnd{ID: b.toolCallID}) &&
		s.emit(provider.ToolCall{ToolCallID: b.toolCallID, ToolName: b.toolName, Input: input})
}

// end finishes the stream: a stream that ended before the model finished
// its answer finishes "interrupted".
func (s *streamState) end() {
	// Text and reasoning still open when the stream ended are closed, as
	// every provider does; a tool call whose input never finished is
	// dropped.
	for _, i := range slices.Sorted(maps.Keys(s.blocks)) {
		if b := s.blocks[i]; b != nil && (b.kind == "text" || b.kind == "reasoning") && !s.closeBlock(i, b) {
			return
		}
		delete(s.blocks, i)
	}
	finish := s.finish
	if !s.done && finish.Unified != provider.FinishError {
		finish = provider.FinishReason{Unified: provider.FinishInterrupted}
	}
	var md provider.ProviderMetadata
	payload := s.metadata
	if s.jsonFromTool || s.stopSequence != nil {
		merged := map[string]any{}
		for k, v := range payload {
			merged[k] = v
		}
		if s.jsonFromTool {
			merged["isJsonResponseFromTool"] = true
		}
		merged["stopSequence"] = s.stopSequence
		payload = merged
	}
	if payload != nil {
		md = metadata(payload)
	}
	s.emit(provider.Finish{FinishReason: finish, Usage: convertUsage(s.usage, s.rawUsage), ProviderMetadata: md})
}
