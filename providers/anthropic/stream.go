package anthropic

import (
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"

	"github.com/aisdkgo/ai/internal/claude"
	"github.com/aisdkgo/ai/provider"
)

// streamEvent is one server-sent event of a streaming response. Which
// fields are set depends on Type.
type streamEvent struct {
	Type              string           `json:"type"`
	Index             int              `json:"index"`
	Message           *messageResponse `json:"message"`
	ContentBlock      *contentBlock    `json:"content_block"`
	Delta             *eventDelta      `json:"delta"`
	Usage             *wireUsage       `json:"usage"`
	ContextManagement json.RawMessage  `json:"context_management"`
	Error             *wireError       `json:"error"`
}

// eventDelta is the delta of content_block_delta and of message_delta.
type eventDelta struct {
	Type         string          `json:"type"`
	Text         string          `json:"text"`
	PartialJSON  string          `json:"partial_json"`
	Thinking     string          `json:"thinking"`
	Signature    string          `json:"signature"`
	Citation     json.RawMessage `json:"citation"`
	Content      *string         `json:"content"`
	StopReason   *string         `json:"stop_reason"`
	StopSequence *string         `json:"stop_sequence"`
	StopDetails  json.RawMessage `json:"stop_details"`
	Container    json.RawMessage `json:"container"`
}

// openBlock is a content block that has started and not yet stopped.
type openBlock struct {
	// kind is "text", "reasoning" or "tool".
	kind string
	// citations are the web search citations of a text block.
	citations []any
	tool      *toolBlock
}

// toolBlock accumulates the input of a streamed tool call.
type toolBlock struct {
	id, name         string
	input            strings.Builder
	providerExecuted bool
	dynamic          bool
	// firstDelta is true until the first input delta arrives.
	firstDelta bool
	// wire is the wire name of a provider tool, "" for function tools.
	wire string
	// serverName is the name a server_tool_use block carried.
	serverName string
	// inputType is injected as "type" into the input deltas of code
	// execution calls.
	inputType string
	caller    *wireCaller
}

// heldText is text held back while the JSON response tool may still answer.
type heldText struct {
	id        string
	text      strings.Builder
	citations []any
}

// streamState turns the events of one streaming response into stream parts.
type streamState struct {
	conv         *blockConverter
	usesJSONTool bool
	includeRaw   bool

	blocks    map[int]*openBlock
	blockType string

	msgOpen  bool
	msgID    string
	invalid  bool
	finished bool
	sawError bool

	totals       usageTotals
	rawUsage     map[string]json.RawMessage
	finish       provider.FinishReason
	stopSequence *string
	stopDetails  json.RawMessage
	container    json.RawMessage
	contextMgmt  json.RawMessage
	jsonAnswered bool

	held        []*heldText
	heldByIndex map[int]*heldText
}

func newStreamState(req *request, includeRaw bool, newID func() string) *streamState {
	return &streamState{
		conv:         newBlockConverter(req, newID),
		usesJSONTool: req.usesJSONTool,
		includeRaw:   includeRaw,
		blocks:       map[int]*openBlock{},
		heldByIndex:  map[int]*heldText{},
		finish:       provider.FinishReason{Unified: provider.FinishOther},
	}
}

// process handles one event payload. errFrame is set when the event is an
// error event, so that the caller can turn an error that arrives before any
// output into a failed call.
func (s *streamState) process(data string) (parts []provider.StreamPart, errFrame *wireError) {
	if s.invalid {
		return nil, nil
	}
	var ev streamEvent
	err := json.Unmarshal([]byte(data), &ev)
	if s.finished && !s.msgOpen && (err != nil || ev.Type != "message_start") {
		// The message is complete; only a new message may follow.
		return nil, nil
	}
	if s.includeRaw && err == nil {
		parts = append(parts, provider.Raw{RawValue: json.RawMessage(data)})
	}
	if err != nil {
		s.sawError = true
		return append(parts, provider.ErrorPart{Err: &provider.InvalidResponseDataError{
			Data:    []byte(data),
			Message: "cannot read the stream event: " + err.Error(),
		}}), nil
	}
	id := strconv.Itoa(ev.Index)
	switch ev.Type {
	case "message_start":
		return s.messageStart(parts, ev, []byte(data)), nil
	case "content_block_start":
		if ev.ContentBlock == nil {
			return parts, nil
		}
		return s.blockStart(parts, ev.Index, id, *ev.ContentBlock), nil
	case "content_block_delta":
		if ev.Delta == nil {
			return parts, nil
		}
		return s.blockDelta(parts, ev.Index, id, *ev.Delta), nil
	case "content_block_stop":
		return s.blockStop(parts, ev.Index, id), nil
	case "message_delta":
		s.messageDelta(ev, []byte(data))
		return parts, nil
	case "message_stop":
		return s.messageStop(parts), nil
	case "error":
		e := wireError{}
		if ev.Error != nil {
			e = *ev.Error
		}
		s.sawError = true
		return append(parts, provider.ErrorPart{Err: &StreamError{Type: e.Type, Message: e.Message}}), &e
	}
	// ping and event types this package does not know carry nothing.
	return parts, nil
}

func (s *streamState) messageStart(parts []provider.StreamPart, ev streamEvent, data []byte) []provider.StreamPart {
	msg := ev.Message
	if msg == nil {
		msg = &messageResponse{}
	}
	if s.msgOpen {
		if msg.ID == s.msgID {
			return parts
		}
		s.invalid = true
		return append(parts, provider.ErrorPart{Err: &provider.InvalidResponseDataError{
			Data:    data,
			Message: fmt.Sprintf("message_start for message %q arrived while message %q is still open", msg.ID, s.msgID),
		}})
	}
	s.msgOpen, s.msgID = true, msg.ID
	clear(s.heldByIndex)
	s.totals = usageTotals{}
	var u wireUsage
	json.Unmarshal(msg.Usage, &u)
	s.totals.merge(u)
	s.rawUsage = map[string]json.RawMessage{}
	json.Unmarshal(msg.Usage, &s.rawUsage)
	if len(msg.Container) > 0 && string(msg.Container) != "null" {
		s.container = msg.Container
	}
	if msg.StopReason != nil {
		s.finish = finishReason(*msg.StopReason, s.jsonAnswered)
	}
	parts = append(parts, provider.ResponseMetadata{ID: msg.ID, ModelID: msg.Model})
	// Calls made by code in the code execution tool may arrive complete in
	// the start event.
	for _, b := range msg.Content {
		if b.Type != "tool_use" {
			continue
		}
		input := compactJSON(callInput(b.Input))
		parts = append(parts,
			provider.ToolInputStart{ID: b.ID, ToolName: b.Name},
			provider.ToolInputDelta{ID: b.ID, Delta: input},
			provider.ToolInputEnd{ID: b.ID},
			provider.ToolCall{ToolCallID: b.ID, ToolName: b.Name, Input: input, ProviderMetadata: callerMetadata(b.Caller)},
		)
	}
	return parts
}

func (s *streamState) blockStart(parts []provider.StreamPart, index int, id string, b contentBlock) []provider.StreamPart {
	if b.Type == "fallback" {
		return parts
	}
	if s.blocks[index] != nil {
		// A block may not start twice; close the first one.
		parts = s.blockStop(parts, index, id)
	}
	s.blockType = b.Type
	switch b.Type {
	case "text", "thinking", "redacted_thinking":
	default:
		// Text before a tool call or result is a preamble, not the answer.
		s.held = s.held[:0]
	}
	switch b.Type {
	case "text":
		if s.usesJSONTool {
			h := &heldText{id: id}
			s.held = append(s.held, h)
			s.heldByIndex[index] = h
			return parts
		}
		s.blocks[index] = &openBlock{kind: "text"}
		return append(parts, provider.TextStart{ID: id})
	case "thinking":
		s.blocks[index] = &openBlock{kind: "reasoning"}
		return append(parts, provider.ReasoningStart{ID: id})
	case "redacted_thinking":
		s.blocks[index] = &openBlock{kind: "reasoning"}
		return append(parts, provider.ReasoningStart{ID: id, ProviderMetadata: provider.ProviderMetadata{providerName: {"redactedData": b.Data}}})
	case "compaction":
		s.blocks[index] = &openBlock{kind: "text"}
		return append(parts, provider.TextStart{ID: id, ProviderMetadata: provider.ProviderMetadata{providerName: {"type": "compaction"}}})
	case "tool_use":
		if s.usesJSONTool && b.Name == "json" {
			s.jsonAnswered = true
			s.blocks[index] = &openBlock{kind: "text"}
			return append(parts, provider.TextStart{ID: id})
		}
		t := &toolBlock{id: b.ID, name: b.Name, caller: b.Caller}
		if !isEmptyObject(b.Input) {
			t.input.WriteString(compactJSON(b.Input))
		}
		t.firstDelta = t.input.Len() == 0
		s.blocks[index] = &openBlock{kind: "tool", tool: t}
		return append(parts, provider.ToolInputStart{ID: b.ID, ToolName: b.Name})
	case "server_tool_use":
		wire, ok := serverToolName(b.Name)
		if !ok {
			return parts
		}
		t := &toolBlock{id: b.ID, name: s.conv.names.app(wire), providerExecuted: true, wire: wire, serverName: b.Name, caller: b.Caller}
		switch {
		case codeExecutionSubtool(b.Name):
			t.inputType = b.Name
		case b.Name == wireCodeExecution:
			t.inputType = "programmatic-tool-call"
		}
		switch wire {
		case wireSearchRegex, wireSearchBM25:
			s.conv.searchCalls[b.ID] = wire
		case wireAdvisor:
			t.input.WriteString("{}")
		default:
			if !isEmptyObject(b.Input) {
				t.input.WriteString(compactJSON(b.Input))
			}
		}
		t.firstDelta = wire == wireAdvisor || t.input.Len() == 0
		t.dynamic = s.conv.dynamicCodeExecution && wire == wireCodeExecution
		s.blocks[index] = &openBlock{kind: "tool", tool: t}
		return append(parts, provider.ToolInputStart{ID: b.ID, ToolName: t.name, ProviderExecuted: true, Dynamic: t.dynamic})
	case "mcp_tool_use":
		return append(parts, s.conv.mcpCall(b))
	}
	if content, ok := s.conv.resultBlock(b); ok {
		for _, c := range content {
			if p, ok := c.(provider.StreamPart); ok {
				parts = append(parts, p)
			}
		}
	}
	return parts
}

func (s *streamState) blockDelta(parts []provider.StreamPart, index int, id string, d eventDelta) []provider.StreamPart {
	blk := s.blocks[index]
	switch d.Type {
	case "text_delta":
		if h := s.heldByIndex[index]; h != nil {
			h.text.WriteString(d.Text)
			return parts
		}
		if blk != nil && blk.kind == "text" {
			parts = append(parts, provider.TextDelta{ID: id, Delta: d.Text})
		}
	case "thinking_delta":
		if blk != nil && blk.kind == "reasoning" {
			parts = append(parts, provider.ReasoningDelta{ID: id, Delta: d.Thinking})
		}
	case "signature_delta":
		// Only thinking blocks are signed.
		if blk != nil && blk.kind == "reasoning" && s.blockType == "thinking" {
			parts = append(parts, provider.ReasoningDelta{ID: id, ProviderMetadata: provider.ProviderMetadata{providerName: {"signature": d.Signature}}})
		}
	case "compaction_delta":
		if d.Content != nil && blk != nil && blk.kind == "text" {
			parts = append(parts, provider.TextDelta{ID: id, Delta: *d.Content})
		}
	case "input_json_delta":
		delta := d.PartialJSON
		if delta == "" || blk == nil {
			return parts
		}
		if blk.kind == "text" {
			// The JSON response tool's input is the answer text.
			return append(parts, provider.TextDelta{ID: id, Delta: delta})
		}
		if blk.kind != "tool" {
			return parts
		}
		t := blk.tool
		t.input.WriteString(delta)
		if t.firstDelta && t.inputType != "" && strings.HasPrefix(delta, "{") {
			// Report the injected type from the first delta on; the final
			// input is rebuilt from the wire input at the block's end.
			head := `{"type":` + string(claude.MarshalValue(t.inputType))
			if rest := strings.TrimSpace(delta[1:]); strings.HasPrefix(rest, "}") {
				delta = head + delta[1:]
			} else {
				delta = head + "," + delta[1:]
			}
		}
		t.firstDelta = false
		parts = append(parts, provider.ToolInputDelta{ID: t.id, Delta: delta})
	case "citations_delta":
		var kind struct {
			Type string `json:"type"`
		}
		json.Unmarshal(d.Citation, &kind)
		if kind.Type == "web_search_result_location" {
			if blk != nil && blk.kind == "text" {
				blk.citations = append(blk.citations, toAny(d.Citation))
			}
			if h := s.heldByIndex[index]; h != nil {
				h.citations = append(h.citations, toAny(d.Citation))
			}
		}
		if src, ok := s.conv.citationSource(d.Citation); ok {
			parts = append(parts, src)
		}
	}
	return parts
}

func textEnd(id string, citations []any) provider.TextEnd {
	e := provider.TextEnd{ID: id}
	if len(citations) > 0 {
		e.ProviderMetadata = provider.ProviderMetadata{providerName: {"citations": citations}}
	}
	return e
}

func (s *streamState) blockStop(parts []provider.StreamPart, index int, id string) []provider.StreamPart {
	s.blockType = ""
	blk := s.blocks[index]
	if blk == nil {
		return parts
	}
	delete(s.blocks, index)
	switch blk.kind {
	case "text":
		return append(parts, textEnd(id, blk.citations))
	case "reasoning":
		return append(parts, provider.ReasoningEnd{ID: id})
	}
	t := blk.tool
	input := t.input.String()
	if input == "" {
		input = "{}"
	}
	if t.wire == wireCodeExecution {
		input = serverToolInput(t.serverName, json.RawMessage(input))
	}
	return append(parts,
		provider.ToolInputEnd{ID: t.id},
		provider.ToolCall{
			ToolCallID:       t.id,
			ToolName:         t.name,
			Input:            input,
			ProviderExecuted: t.providerExecuted,
			Dynamic:          t.dynamic,
			ProviderMetadata: callerMetadata(t.caller),
		})
}

func (s *streamState) messageDelta(ev streamEvent, data []byte) {
	if ev.Usage != nil {
		s.totals.merge(*ev.Usage)
		var raw struct {
			Usage map[string]json.RawMessage `json:"usage"`
		}
		if json.Unmarshal(data, &raw) == nil {
			if s.rawUsage == nil {
				s.rawUsage = map[string]json.RawMessage{}
			}
			for k, v := range raw.Usage {
				s.rawUsage[k] = v
			}
		}
	}
	if ev.Delta != nil {
		raw := ""
		if ev.Delta.StopReason != nil {
			raw = *ev.Delta.StopReason
		}
		s.finish = finishReason(raw, s.jsonAnswered)
		s.stopSequence = ev.Delta.StopSequence
		s.stopDetails = ev.Delta.StopDetails
		s.container = ev.Delta.Container
	}
	if len(ev.ContextManagement) > 0 && string(ev.ContextManagement) != "null" {
		s.contextMgmt = ev.ContextManagement
	}
}

// metadata is the provider metadata of the finish part.
func (s *streamState) metadata() provider.ProviderMetadata {
	var raw any
	if s.rawUsage != nil {
		raw = toAny(claude.MarshalValue(s.rawUsage))
	}
	return callMetadata{
		rawUsage:          raw,
		totals:            &s.totals,
		stopSequence:      s.stopSequence,
		stopDetails:       s.stopDetails,
		container:         s.container,
		contextManagement: s.contextMgmt,
	}.metadata()
}

func (s *streamState) rawUsageJSON() json.RawMessage {
	if s.rawUsage == nil {
		return nil
	}
	return claude.MarshalValue(s.rawUsage)
}

func (s *streamState) messageStop(parts []provider.StreamPart) []provider.StreamPart {
	s.msgOpen, s.msgID = false, ""
	// Held-back text answers only when the JSON tool was not called and the
	// model is not handing off to a tool.
	if !s.jsonAnswered && !continuationStop(s.finish.Raw) {
		for _, h := range s.held {
			if h.text.Len() == 0 {
				continue
			}
			parts = append(parts,
				provider.TextStart{ID: h.id},
				provider.TextDelta{ID: h.id, Delta: h.text.String()},
				textEnd(h.id, h.citations))
		}
	}
	s.held = s.held[:0]
	s.finished = true
	return append(parts, provider.Finish{
		FinishReason:     s.finish,
		Usage:            s.totals.usage(s.rawUsageJSON()),
		ProviderMetadata: s.metadata(),
	})
}

// end is called when the body ends. A stream that ends without
// message_stop was cut off: it finishes as interrupted, or as an error when
// the API reported one or the events made no sense.
func (s *streamState) end() []provider.StreamPart {
	if s.finished && !s.msgOpen && !s.invalid {
		return nil
	}
	reason := provider.FinishReason{Unified: provider.FinishInterrupted}
	if s.sawError || s.invalid {
		reason = provider.FinishReason{Unified: provider.FinishError}
	}
	s.finished = true
	// A cut stream leaves blocks open: text and reasoning are closed as the
	// other providers close them; an unfinished tool call is dropped.
	var parts []provider.StreamPart
	for _, index := range slices.Sorted(maps.Keys(s.blocks)) {
		blk := s.blocks[index]
		id := strconv.Itoa(index)
		switch blk.kind {
		case "text":
			parts = append(parts, textEnd(id, blk.citations))
		case "reasoning":
			parts = append(parts, provider.ReasoningEnd{ID: id})
		}
		delete(s.blocks, index)
	}
	return append(parts, provider.Finish{
		FinishReason:     reason,
		Usage:            s.totals.usage(s.rawUsageJSON()),
		ProviderMetadata: s.metadata(),
	})
}
