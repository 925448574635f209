package openai

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"strconv"
	"strings"

	"github.com/aisdkgo/ai/internal/httpx"
	"github.com/aisdkgo/ai/internal/openaichat"
	"github.com/aisdkgo/ai/internal/sse"
	"github.com/aisdkgo/ai/provider"
)

// streamEvent is one Responses API stream event; the fields used depend on
// Type.
type streamEvent struct {
	Type         string          `json:"type"`
	OutputIndex  *int            `json:"output_index"`
	ItemID       string          `json:"item_id"`
	SummaryIndex int             `json:"summary_index"`
	Delta        string          `json:"delta"`
	Code         json.RawMessage `json:"code"`
	Item         *outputItem     `json:"item"`
	Response     *response       `json:"response"`
	Annotation   json.RawMessage `json:"annotation"`
	Logprobs     json.RawMessage `json:"logprobs"`
	PartialImage *string         `json:"partial_image_b64"`
	Choices      json.RawMessage `json:"choices"`
}

// isOutputEvent reports whether an event carries output, as opposed to the
// announcements (created, queued, in progress) and failures that can come
// first.
func isOutputEvent(typ string) bool {
	switch typ {
	case "response.created", "response.queued", "response.in_progress", "response.failed", "error":
		return false
	}
	return strings.HasPrefix(typ, "response.")
}

// earlyError returns the API error an error event stands for, if it is one.
func earlyError(data []byte) (openaichat.StreamError, bool) {
	var head struct {
		Type string `json:"type"`
	}
	if json.Unmarshal(data, &head) != nil {
		return openaichat.StreamError{}, false
	}
	if head.Type != "error" && head.Type != "response.failed" {
		return openaichat.StreamError{}, false
	}
	return openaichat.ParseStreamError(data)
}

func (m *responsesModel) streamResponse(ctx context.Context, resp *httpx.Response, call *responsesCall, includeRaw bool) (*provider.StreamResult, error) {
	src := openaichat.NewEventSource(ctx, resp, sse.Reader{Elide: repeatsOutput})
	var frameErr *provider.APICallError
	_, _, err := src.Peek(func(ev sse.Event) bool {
		data := []byte(ev.Data)
		var head struct {
			Type string `json:"type"`
		}
		if json.Unmarshal(data, &head) != nil {
			return false
		}
		if e, ok := earlyError(data); ok {
			frameErr = e.APIError(m.url, resp.RequestBody, resp.HTTP.Header, data)
			return false
		}
		return !isOutputEvent(head.Type)
	})
	if err != nil {
		src.Stop()
		return nil, err
	}
	if frameErr != nil {
		src.Stop()
		return nil, frameErr
	}
	seq := src.Parts(call.warnings, includeRaw, func(emit func(provider.StreamPart)) openaichat.Parser {
		return newResponsesStream(m, call, resp, emit)
	})
	return &provider.StreamResult{
		Stream:   seq,
		Request:  &provider.RequestInfo{URL: m.url, Body: resp.RequestBody},
		Response: &provider.ResponseInfo{Headers: provider.Header(resp.HTTP.Header)},
	}, nil
}

// repeatEvents are the events that repeat output streamed before them (the
// text of an item, the whole response), whose long strings can be left out
// without losing anything; see [responsesStream.elisionLoses].
var repeatEvents = []string{
	"response.output_item.done", "response.content_part.done", "response.output_text.done",
	"response.refusal.done", "response.function_call_arguments.done", "response.custom_tool_call_input.done",
	"response.reasoning_summary_part.done", "response.reasoning_summary_text.done", "response.reasoning_text.done",
	"response.completed", "response.incomplete",
}

// repeatsOutput reports whether an over-long stream line is one of the
// repeatEvents, going by its first bytes.
func repeatsOutput(head []byte) bool {
	data, ok := bytes.CutPrefix(head, []byte("data:"))
	if !ok {
		return false
	}
	typ, ok := eventType(data)
	return ok && slices.Contains(repeatEvents, typ)
}

// eventType returns the "type" member of the JSON object that data begins
// with (data may be cut off after it). Other members are skipped without
// being decoded, strings with bytes.IndexByte, so that a long one costs
// little.
func eventType(data []byte) (string, bool) {
	depth := 0
	expectKey := false
	for i := 0; i < len(data); {
		switch c := data[i]; c {
		case '"':
			end, ok := stringEnd(data, i)
			if !ok {
				return "", false
			}
			if depth == 1 && expectKey && string(data[i+1:end-1]) == "type" {
				j := skipSpace(data, end)
				if j >= len(data) || data[j] != ':' {
					return "", false
				}
				k := skipSpace(data, j+1)
				if k >= len(data) || data[k] != '"' {
					return "", false
				}
				vend, ok := stringEnd(data, k)
				var typ string
				if !ok || json.Unmarshal(data[k:vend], &typ) != nil {
					return "", false
				}
				return typ, true
			}
			expectKey = false
			i = end
			continue
		case '{', '[':
			if depth == 0 && c != '{' {
				return "", false
			}
			depth++
			expectKey = depth == 1
		case '}', ']':
			depth--
			if depth <= 0 {
				return "", false
			}
		case ',':
			expectKey = depth == 1
		case ' ', '\t', '\r', '\n', ':':
		default:
			if depth == 0 {
				return "", false
			}
		}
		i++
	}
	return "", false
}

// stringEnd returns the index after the closing quote of the JSON string
// that starts at data[i].
func stringEnd(data []byte, i int) (int, bool) {
	for j := i + 1; j < len(data); {
		q := bytes.IndexByte(data[j:], '"')
		if q < 0 {
			return 0, false
		}
		q += j
		n := 0
		for k := q - 1; k > i && data[k] == '\\'; k-- {
			n++
		}
		if n%2 == 0 {
			return q + 1, true
		}
		j = q + 1
	}
	return 0, false
}

func skipSpace(data []byte, i int) int {
	for i < len(data) && (data[i] == ' ' || data[i] == '\t' || data[i] == '\r' || data[i] == '\n') {
		i++
	}
	return i
}

// ongoingCall is a tool call whose item has been announced but not finished.
type ongoingCall struct {
	name      string
	id        string
	execution string
	container *string
	async     *bool
	started   bool
}

// summaryState tracks one summary part of a reasoning item.
type summaryState int

const (
	summaryActive summaryState = iota + 1
	summaryCanConclude
	summaryConcluded
)

type reasoningItem struct {
	encrypted *string
	parts     map[int]summaryState
	order     []int
}

// responsesStream is the state of one streamed response.
type responsesStream struct {
	m       *responsesModel
	call    *responsesCall
	resp    *httpx.Response
	reqBody []byte
	headers http.Header
	out     func(provider.StreamPart)

	responseID  string
	errored     bool
	finish      provider.FinishReason
	usage       json.RawMessage
	serviceTier any
	reasonCtx   any
	diagnostics any
	logprobs    []any
	clientCall  bool
	refusal     bool
	calls       map[int]*ongoingCall
	reasoning   map[string]*reasoningItem
	reasonOrder []string
	hosted      []string
	approvals   map[string]string
	textIDs     map[int]string
	openTexts   []string
	openTools   []string
	annotations []any
	citations   []provider.Citation
	activePhase *string
}

func newResponsesStream(m *responsesModel, call *responsesCall, resp *httpx.Response, out func(provider.StreamPart)) *responsesStream {
	return &responsesStream{
		m: m, call: call, resp: resp, reqBody: resp.RequestBody, headers: resp.HTTP.Header, out: out,
		finish:    provider.FinishReason{Unified: provider.FinishInterrupted},
		calls:     map[int]*ongoingCall{},
		reasoning: map[string]*reasoningItem{},
		approvals: map[string]string{},
		textIDs:   map[int]string{},
	}
}

// emit queues parts. Tool input blocks are checked here, so that
// misordered or repeated events cannot open a block twice or feed a closed
// one.
func (s *responsesStream) emit(parts ...provider.StreamPart) {
	for _, p := range parts {
		switch p := p.(type) {
		case provider.ToolInputStart:
			if slices.Contains(s.openTools, p.ID) {
				continue
			}
			s.openTools = append(s.openTools, p.ID)
		case provider.ToolInputDelta:
			if !slices.Contains(s.openTools, p.ID) {
				continue
			}
		case provider.ToolInputEnd:
			i := slices.Index(s.openTools, p.ID)
			if i < 0 {
				continue
			}
			s.openTools = slices.Delete(s.openTools, i, i+1)
		}
		s.out(p)
	}
}

func (s *responsesStream) fail(err error) {
	s.errored = true
	s.finish = provider.FinishReason{Unified: provider.FinishError, Raw: "error"}
	s.emit(provider.ErrorPart{Err: err})
}

func (s *responsesStream) index(ev *streamEvent) int {
	if ev.OutputIndex == nil {
		return -1
	}
	return *ev.OutputIndex
}

// textID resolves the text block id of an event through its output index,
// because some servers change item ids between events of one item.
func (s *responsesStream) textID(ev *streamEvent, fallback string) string {
	if id, ok := s.textIDs[s.index(ev)]; ok {
		return id
	}
	return fallback
}

// Handle processes one event.
func (s *responsesStream) Handle(ev sse.Event) {
	data := []byte(ev.Data)
	var e streamEvent
	if err := json.Unmarshal(data, &e); err != nil {
		s.fail(&provider.InvalidResponseDataError{Data: data, Message: "invalid stream event: " + err.Error()})
		return
	}
	if ev.Elided != nil && s.elisionLoses(&e, ev.Elided) {
		msg := fmt.Sprintf("a %s event of the response stream is longer than %d MiB", e.Type, sse.DefaultMaxLine>>20)
		s.fail(s.resp.Fail(msg, false, nil, &provider.InvalidResponseDataError{Message: msg}))
		return
	}
	if e.Type == "" && len(e.Choices) > 0 && e.Choices[0] == '[' {
		s.fail(s.resp.Fail("received a Chat Completions stream from the Responses API endpoint; for a server that only offers "+
			"Chat Completions use Provider.Chat, or the openaicompat package", false, data, nil))
		return
	}
	switch e.Type {
	case "response.created":
		if e.Response != nil {
			s.responseID = e.Response.ID
			s.emit(provider.ResponseMetadata{ID: e.Response.ID, ModelID: e.Response.Model, Timestamp: unixTime(e.Response.CreatedAt)})
		}
	case "response.output_item.added":
		if e.Item != nil {
			s.itemAdded(&e)
		}
	case "response.output_item.done":
		if e.Item != nil {
			s.itemDone(&e)
		}
	case "response.function_call_arguments.delta", "response.custom_tool_call_input.delta":
		if c := s.calls[s.index(&e)]; c != nil && c.started {
			s.emit(provider.ToolInputDelta{ID: c.id, Delta: e.Delta})
		}
	case "response.code_interpreter_call_code.delta":
		if c := s.calls[s.index(&e)]; c != nil && c.started {
			s.emit(provider.ToolInputDelta{ID: c.id, Delta: escapeJSON(e.Delta)})
		}
	case "response.code_interpreter_call_code.done":
		if c := s.calls[s.index(&e)]; c != nil && c.started {
			s.emit(provider.ToolInputDelta{ID: c.id, Delta: `"}`}, provider.ToolInputEnd{ID: c.id},
				provider.ToolCall{ToolCallID: c.id, ToolName: c.name, ProviderExecuted: true,
					Input: string(mustJSON(map[string]any{"code": argumentText(e.Code), "containerId": c.container}))})
			c.started = false
		}
	case "response.image_generation_call.partial_image":
		if e.PartialImage != nil {
			s.emit(provider.ToolResult{ToolCallID: e.ItemID, ToolName: s.call.names.app("image_generation"),
				Result: mustJSON(map[string]any{"result": *e.PartialImage}), Preliminary: true})
		}
	case "response.output_text.delta":
		s.textDelta(s.textID(&e, e.ItemID), e.Delta)
		if s.call.logprobs && len(e.Logprobs) > 0 && string(e.Logprobs) != "null" {
			s.logprobs = append(s.logprobs, e.Logprobs)
		}
	case "response.refusal.delta":
		s.refusal = true
		s.textDelta(s.textID(&e, e.ItemID), e.Delta)
	case "response.refusal.done":
		s.refusal = true
	case "response.output_text.annotation.added":
		var a any
		if json.Unmarshal(e.Annotation, &a) == nil {
			s.annotations = append(s.annotations, a)
		}
		if src, cit, ok := annotationSource(e.Annotation, s.m.newID()); ok {
			if cit != nil {
				s.citations = append(s.citations, *cit)
			}
			s.emit(src)
		}
	case "response.reasoning_summary_part.added":
		s.summaryAdded(e.ItemID, e.SummaryIndex)
	case "response.reasoning_summary_text.delta":
		s.reasoningDelta(e.ItemID, e.SummaryIndex, e.Delta)
	case "response.reasoning_text.delta":
		s.reasoningDelta(e.ItemID, 0, e.Delta)
	case "response.reasoning_summary_part.done":
		r := s.reasoning[e.ItemID]
		if r == nil || r.parts[e.SummaryIndex] != summaryActive {
			break
		}
		if s.call.store {
			s.emit(provider.ReasoningEnd{ID: e.ItemID + ":" + strconv.Itoa(e.SummaryIndex), ProviderMetadata: meta(map[string]any{"itemId": e.ItemID})})
			r.set(e.SummaryIndex, summaryConcluded)
		} else {
			r.set(e.SummaryIndex, summaryCanConclude)
		}
	case "response.completed", "response.incomplete":
		if e.Response == nil {
			break
		}
		if !s.errored {
			var reason *string
			if e.Response.IncompleteDetails != nil {
				reason = e.Response.IncompleteDetails.Reason
			}
			s.finish = finishReason(reason, s.clientCall, s.refusal)
		}
		s.takeResponse(e.Response)
	case "response.failed":
		if e.Response == nil {
			break
		}
		s.takeResponse(e.Response)
		if !s.errored && e.Response.Error != nil {
			if se, ok := openaichat.ParseStreamError(data); ok {
				s.fail(se.APIError(s.m.url, s.reqBody, s.headers, data))
			}
		}
		s.finish = provider.FinishReason{Unified: provider.FinishError, Raw: "error"}
		if d := e.Response.IncompleteDetails; d != nil && d.Reason != nil && *d.Reason != "" {
			s.finish = finishReason(d.Reason, s.clientCall, false)
		}
	case "error":
		se, ok := openaichat.ParseStreamError(data)
		if !ok {
			se = openaichat.StreamError{Message: "the stream reported an error"}
		}
		s.fail(se.APIError(s.m.url, s.reqBody, s.headers, data))
	}
}

// elisionLoses reports whether leaving the long strings at the keys elided
// out of an event loses output: it does not when the event repeats what
// was streamed before (the text of a message or reasoning item whose deltas
// arrived, the output of the finished response).
func (s *responsesStream) elisionLoses(e *streamEvent, elided []string) bool {
	only := func(keys ...string) bool {
		for _, k := range elided {
			if !slices.Contains(keys, k) {
				return false
			}
		}
		return true
	}
	switch e.Type {
	case "response.output_item.done":
		if e.Item == nil || !only("text", "refusal") {
			return true
		}
		switch e.Item.Type {
		case "message":
			return !slices.Contains(s.openTexts, s.textID(e, e.Item.ID))
		case "reasoning":
			return s.reasoning[e.Item.ID] == nil
		}
		return true
	case "response.completed", "response.incomplete":
		return slices.Contains(elided, "message") || slices.Contains(elided, "reason")
	}
	return !slices.Contains(repeatEvents, e.Type)
}

func (s *responsesStream) takeResponse(r *response) {
	if len(r.Usage) > 0 && string(r.Usage) != "null" {
		s.usage = r.Usage
	}
	if t, ok := r.ServiceTier.(string); ok {
		s.serviceTier = t
	}
	if r.Reasoning != nil && r.Reasoning.Context != nil {
		s.reasonCtx = r.Reasoning.Context
	}
	if r.PromptCacheDiagnostics != nil {
		s.diagnostics = r.PromptCacheDiagnostics
	}
}

func (r *reasoningItem) set(i int, st summaryState) {
	if _, ok := r.parts[i]; !ok {
		r.order = append(r.order, i)
	}
	r.parts[i] = st
}

func (s *responsesStream) summaryAdded(itemID string, index int) {
	r := s.reasoningItem(itemID, nil)
	if _, ok := r.parts[index]; ok {
		return // part 0 opens with the item
	}
	r.set(index, summaryActive)
	for _, i := range r.order {
		if r.parts[i] == summaryCanConclude {
			s.emit(provider.ReasoningEnd{ID: itemID + ":" + strconv.Itoa(i), ProviderMetadata: meta(map[string]any{"itemId": itemID})})
			r.parts[i] = summaryConcluded
		}
	}
	s.emit(provider.ReasoningStart{ID: itemID + ":" + strconv.Itoa(index),
		ProviderMetadata: meta(map[string]any{"itemId": itemID, "reasoningEncryptedContent": strOrNil(r.encrypted)})})
}

func (s *responsesStream) itemAdded(e *streamEvent) {
	item, idx, names := e.Item, s.index(e), s.call.names
	switch item.Type {
	case "message":
		s.annotations, s.citations = nil, nil
		s.activePhase = item.Phase
		s.textIDs[idx] = item.ID
		md := map[string]any{"itemId": item.ID}
		if item.Phase != nil {
			md["phase"] = *item.Phase
		}
		s.openText(item.ID, meta(md))
	case "reasoning":
		if _, ok := s.reasoning[item.ID]; ok {
			break
		}
		r := s.reasoningItem(item.ID, item.EncryptedContent)
		r.set(0, summaryActive)
		s.emit(provider.ReasoningStart{ID: item.ID + ":0",
			ProviderMetadata: meta(map[string]any{"itemId": item.ID, "reasoningEncryptedContent": strOrNil(item.EncryptedContent)})})
	case "function_call":
		c := &ongoingCall{name: item.Name, id: deref(item.CallID), async: item.Async, started: true}
		s.calls[idx] = c
		s.emit(provider.ToolInputStart{ID: c.id, ToolName: c.name})
	case "custom_tool_call":
		c := &ongoingCall{name: names.app(item.Name), id: deref(item.CallID), async: item.Async, started: true}
		s.calls[idx] = c
		s.emit(provider.ToolInputStart{ID: c.id, ToolName: c.name, InputEncoding: "text"})
	case "web_search_call":
		name := names.webSearch()
		s.emit(provider.ToolInputStart{ID: item.ID, ToolName: name, ProviderExecuted: true},
			provider.ToolInputEnd{ID: item.ID},
			provider.ToolCall{ToolCallID: item.ID, ToolName: name, Input: "{}", ProviderExecuted: true})
	case "code_interpreter_call":
		c := &ongoingCall{name: names.app("code_interpreter"), id: item.ID, container: item.ContainerID, started: true}
		s.calls[idx] = c
		container, _ := json.Marshal(deref(item.ContainerID))
		s.emit(provider.ToolInputStart{ID: c.id, ToolName: c.name, ProviderExecuted: true},
			provider.ToolInputDelta{ID: c.id, Delta: `{"containerId":` + string(container) + `,"code":"`})
	case "file_search_call":
		s.emit(provider.ToolCall{ToolCallID: item.ID, ToolName: names.app("file_search"), Input: "{}", ProviderExecuted: true})
	case "image_generation_call":
		s.emit(provider.ToolCall{ToolCallID: item.ID, ToolName: names.app("image_generation"), Input: "{}", ProviderExecuted: true})
	case "tool_search_call":
		execution := "server"
		if item.Execution != nil {
			execution = *item.Execution
		}
		c := &ongoingCall{name: names.app("tool_search"), id: item.ID, execution: execution}
		s.calls[idx] = c
		if execution != "client" {
			c.started = true
			s.emit(provider.ToolInputStart{ID: c.id, ToolName: c.name, ProviderExecuted: true})
		}
	}
}

func (s *responsesStream) itemDone(e *streamEvent) {
	item, idx, names := e.Item, s.index(e), s.call.names
	c := s.calls[idx]
	delete(s.calls, idx)
	switch item.Type {
	case "message":
		id := s.textID(e, item.ID)
		delete(s.textIDs, idx)
		if !s.closeText(id) {
			// The item was never announced: emit its text in one piece.
			s.emit(provider.TextStart{ID: id, ProviderMetadata: meta(map[string]any{"itemId": item.ID})})
			var text strings.Builder
			for _, c := range item.Content {
				if c.Type == "output_text" {
					text.WriteString(string(c.Text))
				}
			}
			if text.Len() > 0 {
				s.emit(provider.TextDelta{ID: id, Delta: text.String()})
			}
		}
		phase := item.Phase
		if phase == nil {
			phase = s.activePhase
		}
		s.activePhase = nil
		md := map[string]any{"itemId": item.ID}
		if phase != nil {
			md["phase"] = *phase
		}
		if len(s.annotations) > 0 {
			md["annotations"] = s.annotations
		}
		s.emit(provider.TextEnd{ID: id, Citations: s.citations, ProviderMetadata: meta(md)})
		s.annotations, s.citations = nil, nil
	case "reasoning":
		r := s.reasoning[item.ID]
		if r == nil {
			// The item was never announced: emit its summaries in one piece.
			md := meta(map[string]any{"itemId": item.ID, "reasoningEncryptedContent": strOrNil(item.EncryptedContent)})
			for i, text := range reasoningTexts(item) {
				id := item.ID + ":" + strconv.Itoa(i)
				s.emit(provider.ReasoningStart{ID: id, ProviderMetadata: md})
				if text != "" {
					s.emit(provider.ReasoningDelta{ID: id, Delta: text})
				}
				s.emit(provider.ReasoningEnd{ID: id, ProviderMetadata: md})
			}
			break
		}
		for _, i := range r.order {
			if st := r.parts[i]; st == summaryActive || st == summaryCanConclude {
				s.emit(provider.ReasoningEnd{ID: item.ID + ":" + strconv.Itoa(i),
					ProviderMetadata: meta(map[string]any{"itemId": item.ID, "reasoningEncryptedContent": strOrNil(item.EncryptedContent)})})
				r.parts[i] = summaryConcluded
			}
		}
		delete(s.reasoning, item.ID)
	case "function_call":
		s.clientCall = true
		id := deref(item.CallID)
		args := argumentText(item.Arguments)
		if c == nil {
			s.emit(provider.ToolInputStart{ID: id, ToolName: item.Name})
			if args != "" {
				s.emit(provider.ToolInputDelta{ID: id, Delta: args})
			}
		}
		endMeta := provider.ProviderMetadata(nil)
		md := map[string]any{"itemId": item.ID}
		if item.Namespace != nil {
			md["namespace"] = *item.Namespace
			endMeta = meta(map[string]any{"namespace": *item.Namespace})
		}
		switch {
		case item.Async != nil:
			md["async"] = *item.Async
		case c != nil && c.async != nil:
			md["async"] = *c.async
		}
		s.emit(provider.ToolInputEnd{ID: id, ProviderMetadata: endMeta},
			provider.ToolCall{ToolCallID: id, ToolName: item.Name, Input: args, ProviderMetadata: meta(md)})
	case "custom_tool_call":
		s.clientCall = true
		id, name := deref(item.CallID), names.app(item.Name)
		if c == nil {
			s.emit(provider.ToolInputStart{ID: id, ToolName: name, InputEncoding: "text"})
		}
		md := map[string]any{"itemId": item.ID}
		if item.Async != nil {
			md["async"] = *item.Async
		}
		s.emit(provider.ToolInputEnd{ID: id},
			provider.ToolCall{ToolCallID: id, ToolName: name, Input: string(mustJSON(argumentText(item.Input))), ProviderMetadata: meta(md)})
	case "web_search_call":
		result, isErr := webSearchResult(item)
		s.emit(provider.ToolResult{ToolCallID: item.ID, ToolName: names.webSearch(), Result: result, IsError: isErr})
	case "file_search_call":
		s.emit(provider.ToolResult{ToolCallID: item.ID, ToolName: names.app("file_search"), Result: fileSearchResult(item)})
	case "code_interpreter_call":
		name := names.app("code_interpreter")
		if c != nil && c.started {
			// the code was never marked done: finish the input from the item
			s.emit(provider.ToolInputDelta{ID: c.id, Delta: `"}`}, provider.ToolInputEnd{ID: c.id},
				provider.ToolCall{ToolCallID: item.ID, ToolName: name, ProviderExecuted: true,
					Input: string(mustJSON(map[string]any{"code": item.Code, "containerId": item.ContainerID}))})
		}
		s.emit(provider.ToolResult{ToolCallID: item.ID, ToolName: name, Result: mustJSON(map[string]any{"outputs": rawOrNull(item.Outputs)})})
	case "image_generation_call":
		s.emit(provider.ToolResult{ToolCallID: item.ID, ToolName: names.app("image_generation"), Result: mustJSON(map[string]any{"result": item.Result})})
	case "tool_search_call":
		hosted := item.Execution == nil || *item.Execution != "client"
		name := names.app("tool_search")
		if c == nil {
			c = &ongoingCall{name: name, id: item.ID}
			if hosted {
				s.emit(provider.ToolInputStart{ID: c.id, ToolName: name, ProviderExecuted: true})
			}
		}
		id := c.id
		var callID any
		if hosted {
			s.hosted = append(s.hosted, id)
		} else {
			s.clientCall = true
			if item.CallID != nil {
				id = *item.CallID
			}
			callID = id
			s.emit(provider.ToolInputStart{ID: id, ToolName: name})
		}
		s.emit(provider.ToolInputEnd{ID: id},
			provider.ToolCall{ToolCallID: id, ToolName: name, Input: toolSearchInput(item, callID), ProviderExecuted: hosted,
				ProviderMetadata: meta(map[string]any{"itemId": item.ID})})
	case "tool_search_output":
		id := item.ID
		switch {
		case item.CallID != nil:
			id = *item.CallID
		case len(s.hosted) > 0:
			id, s.hosted = s.hosted[0], s.hosted[1:]
		}
		s.emit(provider.ToolResult{ToolCallID: id, ToolName: names.app("tool_search"),
			Result: mustJSON(map[string]any{"tools": rawOrNull(item.Tools)}), ProviderMetadata: meta(map[string]any{"itemId": item.ID})})
	case "mcp_call":
		id := item.ID
		if item.ApprovalRequestID != nil {
			if mapped, ok := s.approvals[*item.ApprovalRequestID]; ok {
				id = mapped
			} else if mapped, ok := s.call.approvals[*item.ApprovalRequestID]; ok {
				id = mapped
			}
		}
		name := "mcp." + item.Name
		s.emit(provider.ToolCall{ToolCallID: id, ToolName: name, Input: argumentText(item.Arguments), ProviderExecuted: true, Dynamic: true},
			provider.ToolResult{ToolCallID: id, ToolName: name, Result: mcpResult(item), Dynamic: true, ProviderMetadata: meta(map[string]any{"itemId": item.ID})})
	case "mcp_approval_request":
		approvalID := item.ID
		if item.ApprovalRequestID != nil {
			approvalID = *item.ApprovalRequestID
		}
		id := s.m.newID()
		s.approvals[approvalID] = id
		s.emit(provider.ToolCall{ToolCallID: id, ToolName: "mcp." + item.Name, Input: argumentText(item.Arguments), ProviderExecuted: true, Dynamic: true,
			ProviderMetadata: meta(map[string]any{"approvalRequestId": approvalID})},
			provider.ToolApprovalRequest{ApprovalID: approvalID, ToolCallID: id})
	}
}

// openText starts a text block unless it is open already.
func (s *responsesStream) openText(id string, md provider.ProviderMetadata) {
	if slices.Contains(s.openTexts, id) {
		return
	}
	s.openTexts = append(s.openTexts, id)
	s.emit(provider.TextStart{ID: id, ProviderMetadata: md})
}

// closeText marks a text block closed; it reports whether it was open.
func (s *responsesStream) closeText(id string) bool {
	i := slices.Index(s.openTexts, id)
	if i < 0 {
		return false
	}
	s.openTexts = slices.Delete(s.openTexts, i, i+1)
	return true
}

// textDelta adds text to a block, opening the block when the server skipped
// announcing it.
func (s *responsesStream) textDelta(id, delta string) {
	s.openText(id, nil)
	s.emit(provider.TextDelta{ID: id, Delta: delta})
}

// reasoningItem returns the state of a reasoning item, creating it.
func (s *responsesStream) reasoningItem(id string, encrypted *string) *reasoningItem {
	r := s.reasoning[id]
	if r == nil {
		r = &reasoningItem{encrypted: encrypted, parts: map[int]summaryState{}}
		s.reasoning[id] = r
		s.reasonOrder = append(s.reasonOrder, id)
	}
	return r
}

// reasoningDelta adds text to a summary part, opening the part when the
// server skipped announcing it.
func (s *responsesStream) reasoningDelta(itemID string, index int, delta string) {
	r := s.reasoningItem(itemID, nil)
	id := itemID + ":" + strconv.Itoa(index)
	if st, ok := r.parts[index]; !ok || st == summaryConcluded {
		r.set(index, summaryActive)
		s.emit(provider.ReasoningStart{ID: id, ProviderMetadata: meta(map[string]any{"itemId": itemID, "reasoningEncryptedContent": strOrNil(r.encrypted)})})
	}
	s.emit(provider.ReasoningDelta{ID: id, Delta: delta, ProviderMetadata: meta(map[string]any{"itemId": itemID})})
}

// End closes the blocks a failed or interrupted stream left open and emits
// the finish part.
func (s *responsesStream) End() {
	for _, id := range slices.Clone(s.openTools) {
		s.emit(provider.ToolInputEnd{ID: id})
	}
	for _, id := range s.openTexts {
		s.emit(provider.TextEnd{ID: id})
	}
	for _, itemID := range s.reasonOrder {
		r := s.reasoning[itemID]
		if r == nil {
			continue
		}
		for _, i := range r.order {
			if st := r.parts[i]; st == summaryActive || st == summaryCanConclude {
				s.emit(provider.ReasoningEnd{ID: itemID + ":" + strconv.Itoa(i)})
			}
		}
	}
	md := map[string]any{"responseId": nilIfEmpty(s.responseID)}
	if len(s.logprobs) > 0 {
		md["logprobs"] = s.logprobs
	}
	if s.serviceTier != nil {
		md["serviceTier"] = s.serviceTier
	}
	if s.reasonCtx != nil {
		md["reasoningContext"] = s.reasonCtx
	}
	if s.diagnostics != nil {
		md["promptCacheDiagnostics"] = s.diagnostics
	}
	s.emit(provider.Finish{FinishReason: s.finish, Usage: responsesUsage(s.usage), ProviderMetadata: meta(md)})
}

func nilIfEmpty(s string) any {
	if s == "" {
		return nil
	}
	return s
}

// escapeJSON escapes s for use inside a JSON string literal.
func escapeJSON(s string) string {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(s)
	b := bytes.TrimSuffix(buf.Bytes(), []byte("\n"))
	return string(b[1 : len(b)-1])
}
