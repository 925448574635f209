package uistream

import (
	"bytes"
	"encoding/json"
	"fmt"
	"iter"
	"slices"
	"strings"

	"github.com/aisdkgo/ai"
	"github.com/aisdkgo/ai/internal/partialjson"
)

// StreamError is an error chunk of a stream: the server reported a failure
// with the given text.
type StreamError struct {
	ErrorText string
}

// Error returns the text the server sent.
func (e *StreamError) Error() string { return "uistream: the stream reported an error: " + e.ErrorText }

// ReadOptions configure [ReadMessage]. The zero value works.
type ReadOptions struct {
	// Message is the assistant message the stream continues (a resumed
	// approval), or nil for a new message.
	Message *Message
	// OnData receives every data chunk, transient ones included (those
	// reach only OnData; the others are also stored in the message).
	OnData func(Data)
	// MaxParts bounds the parts of the message (default
	// [DefaultMaxParts]); a stream that makes more is a [*ChunkError]. To
	// bound the whole stream, read it through an [io.LimitReader].
	MaxParts int
}

// ReadMessage folds a UI message stream into the assistant message a chat
// client builds from it, and yields a snapshot of the message each time it
// changes; the last snapshot is the finished message. It is what a client
// does with the stream: text and reasoning grow block by block, tool parts
// go through their states (input streaming, available, approval requested
// or responded, output, error, denied) and keep the approval's signature,
// data parts are added or replaced by id, metadata is merged, each step
// starts with a [StepStartPart].
//
// An error chunk yields a [*StreamError] (and a zero message) and the
// reading goes on. An error of chunks, or a chunk that does not fit the
// message (a [*ChunkError]: a delta without its start, an output for an
// unknown call) is yielded and ends the reading. A start chunk with
// another message id than the message's starts a new message. opts may be
// nil.
func ReadMessage(chunks iter.Seq2[Chunk, error], opts *ReadOptions) iter.Seq2[Message, error] {
	var o ReadOptions
	if opts != nil {
		o = *opts
	}
	return func(yield func(Message, error) bool) {
		b := newBuilder(o.Message, "")
		b.resetOnNewID = true
		maxParts := o.MaxParts
		if maxParts <= 0 {
			maxParts = DefaultMaxParts
		}
		b.onData = o.OnData
		for c, err := range chunks {
			if err != nil {
				yield(Message{}, err)
				return
			}
			changed, err := b.add(c)
			if err == nil && len(b.msg.Parts) > maxParts {
				err = &ChunkError{Type: c.ChunkType(), Message: fmt.Sprintf("the message has more than %d parts", maxParts)}
			}
			if err != nil {
				yield(Message{}, err)
				return
			}
			if e, ok := c.(Error); ok {
				if !yield(Message{}, &StreamError{ErrorText: e.ErrorText}) {
					return
				}
				continue
			}
			if changed && !yield(b.snapshot(), nil) {
				return
			}
		}
	}
}

// builder folds chunks into one assistant message, as the client does.
type builder struct {
	msg       Message
	text      map[string]*openBlock // open text parts
	reasoning map[string]*openBlock
	partial   map[string]*partialCall
	// lazy leaves the input of streaming tool calls to the snapshot, for a
	// builder whose only snapshot is the last.
	lazy         bool
	finishReason ai.FinishReason
	aborted      bool
	errText      *string
	resetOnNewID bool
	onData       func(Data)
}

// openBlock is an open text or reasoning part; its text grows in buf, so
// that many small deltas cost time in proportion to the text's length.
type openBlock struct {
	index int // in msg.Parts
	buf   strings.Builder
}

// partialCall is a tool call whose input is streaming.
type partialCall struct {
	// dirty is set when a lazy builder has not applied the latest input.
	dirty        bool
	parser       partialjson.Parser
	text         strings.Builder
	encoding     string
	toolName     string
	dynamic      bool
	title        string
	toolMetadata map[string]any
}

// newBuilder starts from last when it is an assistant message (the stream
// continues it), from an empty message with the given id otherwise.
func newBuilder(last *Message, id string) *builder {
	b := &builder{}
	if last != nil && last.Role == RoleAssistant {
		b.msg = cloneMessage(*last)
	} else {
		b.msg = Message{ID: id, Role: RoleAssistant}
	}
	b.reset()
	// Calls of the last step still streaming their input go on.
	for i := b.stepStart(); i < len(b.msg.Parts); i++ {
		tp, ok := b.msg.Parts[i].(ToolPart)
		if !ok || tp.State != InputStreaming {
			continue
		}
		pc := &partialCall{encoding: tp.InputEncoding, toolName: tp.ToolName, dynamic: tp.Dynamic,
			title: tp.Title, toolMetadata: tp.ToolMetadata}
		var raw string
		if json.Unmarshal(tp.RawInput, &raw) == nil {
			pc.text.WriteString(raw)
			pc.parser.Write(raw)
		}
		b.partial[tp.ToolCallID] = pc
	}
	return b
}

func (b *builder) reset() {
	b.text = map[string]*openBlock{}
	b.reasoning = map[string]*openBlock{}
	b.partial = map[string]*partialCall{}
}

// cloneMessage copies a message deeply enough that the builder never
// changes what the caller holds: the parts slice is copied, and parts are
// values that are replaced, never modified in place.
func cloneMessage(m Message) Message {
	m.Parts = slices.Clone(m.Parts)
	m.Metadata = slices.Clone(m.Metadata)
	return m
}

// snapshot returns a copy of the message as it stands.
func (b *builder) snapshot() Message {
	for id, pc := range b.partial {
		if !pc.dirty {
			continue
		}
		pc.dirty = false
		if i := b.findStepTool(id, pc.dynamic); i >= 0 && b.msg.Parts[i].(ToolPart).State == InputStreaming {
			b.applyInput(id, pc)
		}
	}
	return cloneMessage(b.msg)
}

// applyInput sets the input of a streaming call from its text so far.
func (b *builder) applyInput(id string, pc *partialCall) {
	var input json.RawMessage
	if pc.encoding == "text" {
		input, _ = json.Marshal(pc.text.String())
	} else if pc.parser.State() != partialjson.Failed {
		input = json.RawMessage(pc.parser.Snapshot().JSON())
	}
	rawInput, _ := json.Marshal(pc.text.String())
	b.updateTool(toolUpdate{id: id, toolName: pc.toolName, dynamic: pc.dynamic, state: InputStreaming,
		inputEncoding: pc.encoding, input: input, rawInput: rawInput, title: pc.title,
		toolMetadata: pc.toolMetadata}, -1)
}

// stepStart returns the index of the first part of the current step.
func (b *builder) stepStart() int {
	for i := len(b.msg.Parts) - 1; i >= 0; i-- {
		if _, ok := b.msg.Parts[i].(StepStartPart); ok {
			return i + 1
		}
	}
	return 0
}

// findTool returns the index of the tool part of a call: in the current
// step first, then anywhere in the message, the latest first.
func (b *builder) findTool(id string) int {
	start := b.stepStart()
	for i := start; i < len(b.msg.Parts); i++ {
		if tp, ok := b.msg.Parts[i].(ToolPart); ok && tp.ToolCallID == id {
			return i
		}
	}
	for i := start - 1; i >= 0; i-- {
		if tp, ok := b.msg.Parts[i].(ToolPart); ok && tp.ToolCallID == id {
			return i
		}
	}
	return -1
}

// findStepTool returns the index of the call's part of the given kind in
// the current step, or -1.
func (b *builder) findStepTool(id string, dynamic bool) int {
	for i := b.stepStart(); i < len(b.msg.Parts); i++ {
		if tp, ok := b.msg.Parts[i].(ToolPart); ok && tp.ToolCallID == id && tp.Dynamic == dynamic {
			return i
		}
	}
	return -1
}

// toolUpdate is what a chunk says about a tool call.
type toolUpdate struct {
	id, toolName     string
	dynamic          bool
	state            ToolState
	input, rawInput  json.RawMessage
	inputEncoding    string
	output           json.RawMessage
	errorText        string
	preliminary      bool
	providerExecuted *bool
	providerMetadata ai.ProviderMetadata
	title            string
	toolMetadata     map[string]any
}

// updateTool applies u to the part at index at, or to the call's part of
// u's kind in the current step, or adds a part.
func (b *builder) updateTool(u toolUpdate, at int) {
	if at < 0 {
		at = b.findStepTool(u.id, u.dynamic)
	}
	result := u.state == OutputAvailable || u.state == OutputError
	if at < 0 {
		p := ToolPart{ToolName: u.toolName, Dynamic: u.dynamic, ToolCallID: u.id, State: u.state, Title: u.title,
			ToolMetadata: u.toolMetadata, Input: u.input, InputEncoding: u.inputEncoding, Output: u.output,
			RawInput: u.rawInput, ErrorText: u.errorText, Preliminary: u.preliminary}
		if u.providerExecuted != nil {
			p.ProviderExecuted = *u.providerExecuted
		}
		if u.providerMetadata != nil {
			if result {
				p.ResultProviderMetadata = u.providerMetadata
			} else {
				p.CallProviderMetadata = u.providerMetadata
			}
		}
		b.msg.Parts = append(b.msg.Parts, p)
		return
	}
	p := b.msg.Parts[at].(ToolPart)
	p.State, p.ToolName = u.state, u.toolName
	p.Input, p.Output, p.ErrorText, p.RawInput = u.input, u.output, u.errorText, u.rawInput
	p.InputEncoding, p.Preliminary = u.inputEncoding, u.preliminary
	if u.title != "" {
		p.Title = u.title
	}
	if u.toolMetadata != nil {
		p.ToolMetadata = u.toolMetadata
	}
	if u.providerExecuted != nil {
		p.ProviderExecuted = *u.providerExecuted
	}
	if u.providerMetadata != nil {
		if result {
			p.ResultProviderMetadata = u.providerMetadata
		} else {
			p.CallProviderMetadata = u.providerMetadata
		}
	}
	b.msg.Parts[at] = p
}

func optBool(v bool) *bool {
	if v {
		return yes
	}
	return nil
}

func (b *builder) missing(c Chunk, id, what string) error {
	return &ChunkError{Type: c.ChunkType(), ID: id, Message: fmt.Sprintf("no %s with id %q", what, id)}
}

// add folds one chunk into the message and reports whether the message
// changed.
func (b *builder) add(c Chunk) (bool, error) {
	switch c := c.(type) {
	case Start:
		if b.resetOnNewID && c.MessageID != "" && c.MessageID != b.msg.ID {
			b.msg = Message{ID: c.MessageID, Role: RoleAssistant}
			b.reset()
			b.finishReason = ""
		}
		if c.MessageID != "" {
			b.msg.ID = c.MessageID
		}
		changed, err := b.mergeMetadata(c.MessageMetadata)
		return changed || c.MessageID != "", err
	case StartStep:
		b.msg.Parts = append(b.msg.Parts, StepStartPart{})
		return false, nil
	case FinishStep:
		return false, nil
	case ResetStep:
		start := b.stepStart()
		b.reset()
		if start < len(b.msg.Parts) {
			b.msg.Parts = b.msg.Parts[:start]
			return true, nil
		}
		return false, nil
	case Finish:
		if c.FinishReason != "" {
			b.finishReason = c.FinishReason
		}
		return b.mergeMetadata(c.MessageMetadata)
	case MessageMetadata:
		return b.mergeMetadata(c.MessageMetadata)
	case Abort:
		b.aborted = true
		return false, nil
	case Error:
		if b.errText == nil {
			b.errText = &c.ErrorText
		}
		return false, nil

	case TextStart:
		b.text[c.ID] = &openBlock{index: len(b.msg.Parts)}
		b.msg.Parts = append(b.msg.Parts, TextPart{State: "streaming", ProviderMetadata: c.ProviderMetadata})
		return true, nil
	case TextDelta:
		blk, ok := b.text[c.ID]
		if !ok {
			return false, b.missing(c, c.ID, "open text part")
		}
		i := blk.index
		p := b.msg.Parts[i].(TextPart)
		blk.buf.WriteString(c.Delta)
		p.Text = blk.buf.String()
		if c.ProviderMetadata != nil {
			p.ProviderMetadata = c.ProviderMetadata
		}
		b.msg.Parts[i] = p
		return true, nil
	case TextEnd:
		blk, ok := b.text[c.ID]
		if !ok {
			return false, b.missing(c, c.ID, "open text part")
		}
		i := blk.index
		p := b.msg.Parts[i].(TextPart)
		p.State = "done"
		if c.Citations != nil {
			raw, err := toRaw(c.Citations)
			if err != nil {
				return false, &ChunkError{Type: c.ChunkType(), ID: c.ID, Message: err.Error()}
			}
			p.Citations = raw
		}
		if c.ProviderMetadata != nil {
			p.ProviderMetadata = c.ProviderMetadata
		}
		b.msg.Parts[i] = p
		delete(b.text, c.ID)
		return true, nil
	case ReasoningStart:
		b.reasoning[c.ID] = &openBlock{index: len(b.msg.Parts)}
		b.msg.Parts = append(b.msg.Parts, ReasoningPart{ID: c.ID, State: "streaming", ProviderMetadata: c.ProviderMetadata})
		return true, nil
	case ReasoningDelta:
		blk, ok := b.reasoning[c.ID]
		if !ok {
			return false, b.missing(c, c.ID, "open reasoning part")
		}
		i := blk.index
		p := b.msg.Parts[i].(ReasoningPart)
		blk.buf.WriteString(c.Delta)
		p.Text = blk.buf.String()
		if c.ProviderMetadata != nil {
			p.ProviderMetadata = c.ProviderMetadata
		}
		b.msg.Parts[i] = p
		return true, nil
	case ReasoningEnd:
		blk, ok := b.reasoning[c.ID]
		if !ok {
			return false, b.missing(c, c.ID, "open reasoning part")
		}
		i := blk.index
		p := b.msg.Parts[i].(ReasoningPart)
		p.State = "done"
		if c.ProviderMetadata != nil {
			p.ProviderMetadata = c.ProviderMetadata
		}
		b.msg.Parts[i] = p
		delete(b.reasoning, c.ID)
		return true, nil

	case File:
		b.msg.Parts = append(b.msg.Parts, FilePart{MediaType: c.MediaType, URL: c.URL, ProviderMetadata: c.ProviderMetadata})
	case ReasoningFile:
		b.msg.Parts = append(b.msg.Parts, ReasoningFilePart(c))
	case SourceURL:
		b.msg.Parts = append(b.msg.Parts, SourceURLPart(c))
	case SourceDocument:
		b.msg.Parts = append(b.msg.Parts, SourceDocumentPart(c))
	case Custom:
		b.msg.Parts = append(b.msg.Parts, CustomPart(c))
	case SteeringMessage:
		b.msg.Parts = append(b.msg.Parts, SteeringMessagePart{ID: c.ID, Parts: slices.Clone(c.Parts)})

	case ToolInputStart:
		dyn := c.Dynamic != nil && *c.Dynamic
		b.partial[c.ToolCallID] = &partialCall{encoding: c.InputEncoding, toolName: c.ToolName, dynamic: dyn,
			title: c.Title, toolMetadata: c.ToolMetadata}
		b.updateTool(toolUpdate{id: c.ToolCallID, toolName: c.ToolName, dynamic: dyn, state: InputStreaming,
			inputEncoding: c.InputEncoding, providerExecuted: optBool(c.ProviderExecuted), title: c.Title,
			toolMetadata: c.ToolMetadata, providerMetadata: c.ProviderMetadata}, -1)
	case ToolInputDelta:
		pc, ok := b.partial[c.ToolCallID]
		if !ok {
			return false, b.missing(c, c.ToolCallID, "streaming tool call")
		}
		pc.text.WriteString(c.InputTextDelta)
		if pc.encoding != "text" {
			pc.parser.Write(c.InputTextDelta)
		}
		if b.lazy {
			pc.dirty = true
			return true, nil
		}
		b.applyInput(c.ToolCallID, pc)
	case ToolInputAvailable:
		if pc := b.partial[c.ToolCallID]; pc != nil {
			pc.dirty = false
		}
		b.updateTool(toolUpdate{id: c.ToolCallID, toolName: c.ToolName, dynamic: c.Dynamic != nil && *c.Dynamic,
			state: InputAvailable, input: orNull(c.Input), providerExecuted: optBool(c.ProviderExecuted),
			providerMetadata: c.ProviderMetadata, title: c.Title, toolMetadata: c.ToolMetadata}, -1)
	case ToolInputError:
		if pc := b.partial[c.ToolCallID]; pc != nil {
			pc.dirty = false
		}
		dyn := c.Dynamic != nil && *c.Dynamic
		for i := b.stepStart(); i < len(b.msg.Parts); i++ {
			if tp, ok := b.msg.Parts[i].(ToolPart); ok && tp.ToolCallID == c.ToolCallID {
				dyn = tp.Dynamic
				break
			}
		}
		b.updateTool(toolUpdate{id: c.ToolCallID, toolName: c.ToolName, dynamic: dyn, state: OutputError,
			input: orNull(c.Input), errorText: c.ErrorText, providerExecuted: optBool(c.ProviderExecuted),
			providerMetadata: c.ProviderMetadata, toolMetadata: c.ToolMetadata}, -1)
	case ToolApprovalRequest:
		i := b.findTool(c.ToolCallID)
		if i < 0 {
			return false, b.missing(c, c.ToolCallID, "tool call")
		}
		p := b.msg.Parts[i].(ToolPart)
		p.State = ApprovalRequested
		p.Approval = &Approval{ID: c.ApprovalID, InputSchemaInput: c.InputSchemaInput, RequestReason: c.Reason,
			IsAutomatic: c.IsAutomatic, Signature: c.Signature}
		b.msg.Parts[i] = p
	case ToolApprovalResponse:
		i := slices.IndexFunc(b.msg.Parts, func(p Part) bool {
			tp, ok := p.(ToolPart)
			return ok && tp.Approval != nil && tp.Approval.ID == c.ApprovalID
		})
		if i < 0 {
			return false, b.missing(c, c.ApprovalID, "approval request")
		}
		p := b.msg.Parts[i].(ToolPart)
		a := *p.Approval
		a.Approved = new(c.Approved)
		if c.Reason != "" {
			a.Reason = c.Reason
		}
		p.State, p.Approval = ApprovalResponded, &a
		if c.ProviderExecuted {
			p.ProviderExecuted = true
		}
		b.msg.Parts[i] = p
	case ToolOutputDenied:
		i := b.findTool(c.ToolCallID)
		if i < 0 {
			return false, b.missing(c, c.ToolCallID, "tool call")
		}
		p := b.msg.Parts[i].(ToolPart)
		p.State = OutputDenied
		b.msg.Parts[i] = p
	case ToolOutputAvailable:
		i := b.findTool(c.ToolCallID)
		if i < 0 {
			return false, b.missing(c, c.ToolCallID, "tool call")
		}
		out, err := toRaw(c.Output)
		if err != nil {
			return false, &ChunkError{Type: c.ChunkType(), ID: c.ToolCallID, Message: err.Error()}
		}
		p := b.msg.Parts[i].(ToolPart)
		meta := c.ToolMetadata
		if meta == nil {
			meta = p.ToolMetadata
		}
		b.updateTool(toolUpdate{id: c.ToolCallID, toolName: p.ToolName, dynamic: p.Dynamic, state: OutputAvailable,
			input: p.Input, output: orNull(out), preliminary: c.Preliminary, providerExecuted: optBool(c.ProviderExecuted),
			providerMetadata: c.ProviderMetadata, title: p.Title, toolMetadata: meta}, i)
	case ToolOutputError:
		i := b.findTool(c.ToolCallID)
		if i < 0 {
			return false, b.missing(c, c.ToolCallID, "tool call")
		}
		p := b.msg.Parts[i].(ToolPart)
		meta := c.ToolMetadata
		if meta == nil {
			meta = p.ToolMetadata
		}
		u := toolUpdate{id: c.ToolCallID, toolName: p.ToolName, dynamic: p.Dynamic, state: OutputError,
			input: p.Input, errorText: c.ErrorText, providerExecuted: optBool(c.ProviderExecuted),
			providerMetadata: c.ProviderMetadata, title: p.Title, toolMetadata: meta}
		if !p.Dynamic {
			u.rawInput = p.RawInput
		}
		b.updateTool(u, i)

	case Data:
		if b.onData != nil {
			b.onData(c)
		}
		if c.Transient {
			return false, nil
		}
		raw, err := toRaw(c.Data)
		if err != nil {
			return false, &ChunkError{Type: c.ChunkType(), ID: c.ID, Message: err.Error()}
		}
		dp := DataPart{Name: c.Name, ID: c.ID, Data: orNull(raw)}
		if c.ID != "" {
			for i, p := range b.msg.Parts {
				if old, ok := p.(DataPart); ok && old.Name == c.Name && old.ID == c.ID {
					b.msg.Parts[i] = dp
					return true, nil
				}
			}
		}
		b.msg.Parts = append(b.msg.Parts, dp)
	default:
		return false, &ChunkError{Type: c.ChunkType(), Message: "unknown chunk"}
	}
	return true, nil
}

// toRaw returns the JSON of a chunk value: the value itself when it is
// JSON already (a parsed chunk), its encoding otherwise (a chunk made by
// the server).
func toRaw(v any) (json.RawMessage, error) {
	switch v := v.(type) {
	case nil:
		return nil, nil
	case json.RawMessage:
		return v, nil
	}
	return marshalNoEscape(v)
}

// mergeMetadata merges a metadata value into the message's, as the client
// does: objects are merged key by key, recursively; any other value
// replaces what was there.
func (b *builder) mergeMetadata(v any) (bool, error) {
	raw, err := toRaw(v)
	if err != nil {
		return false, &ChunkError{Type: "message-metadata", Message: err.Error()}
	}
	if raw == nil || isNull(raw) {
		return false, nil
	}
	if b.msg.Metadata == nil {
		b.msg.Metadata = slices.Clone(raw)
		return true, nil
	}
	merged, err := mergeJSON(b.msg.Metadata, raw)
	if err != nil {
		return false, &ChunkError{Type: "message-metadata", Message: err.Error()}
	}
	b.msg.Metadata = merged
	return true, nil
}

// mergeJSON merges the JSON value over into base: two objects are merged
// key by key (recursively for keys whose values are both objects); in any
// other case over wins.
func mergeJSON(base, over json.RawMessage) (json.RawMessage, error) {
	var bo, oo map[string]json.RawMessage
	if !isObject(base) || !isObject(over) {
		return slices.Clone(over), nil
	}
	if err := json.Unmarshal(base, &bo); err != nil {
		return nil, err
	}
	if err := json.Unmarshal(over, &oo); err != nil {
		return nil, err
	}
	// Keep base's key order, then the new keys in over's order.
	keys := objectKeys(base)
	for _, k := range objectKeys(over) {
		if _, ok := bo[k]; !ok {
			keys = append(keys, k)
		}
	}
	var buf bytes.Buffer
	buf.WriteByte('{')
	for i, k := range keys {
		v, ok := oo[k]
		switch {
		case !ok:
			v = bo[k]
		case isObject(bo[k]) && isObject(v):
			m, err := mergeJSON(bo[k], v)
			if err != nil {
				return nil, err
			}
			v = m
		}
		if i > 0 {
			buf.WriteByte(',')
		}
		kj, _ := marshalNoEscape(k)
		buf.Write(kj)
		buf.WriteByte(':')
		buf.Write(v)
	}
	buf.WriteByte('}')
	return buf.Bytes(), nil
}

func isObject(v json.RawMessage) bool {
	v = bytes.TrimSpace(v)
	return len(v) > 0 && v[0] == '{'
}

// objectKeys lists the keys of a JSON object in order, each once.
func objectKeys(v json.RawMessage) []string {
	dec := json.NewDecoder(bytes.NewReader(v))
	if _, err := dec.Token(); err != nil {
		return nil
	}
	var keys []string
	seen := map[string]bool{}
	for dec.More() {
		t, err := dec.Token()
		if err != nil {
			return keys
		}
		k, _ := t.(string)
		if !seen[k] {
			seen[k] = true
			keys = append(keys, k)
		}
		var skip json.RawMessage
		if err := dec.Decode(&skip); err != nil {
			return keys
		}
	}
	return keys
}
