package providertest

import (
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"

	"github.com/aisdkgo/ai/provider"
	"github.com/aisdkgo/ai/providers/anthropic"
	"github.com/aisdkgo/ai/providers/openai"
	"github.com/aisdkgo/ai/providers/openaicompat"
)

// turn is one model answer: optional text, then tool calls.
type turn struct {
	id    string
	text  string
	calls []wireCall
	// input and output are the token counts the answer reports.
	input, output int
}

// wire is one provider's HTTP protocol as a fake server speaks it: how
// requests are decoded and how answers, errors and broken streams look.
type wire interface {
	// name names the protocol in subtests.
	name() string
	// path is the request path the model posts to.
	path() string
	// model returns a model of the real provider package pointed at srv.
	model(srv *httptest.Server) provider.LanguageModel
	// checkHeaders checks the authentication headers.
	checkHeaders(h http.Header) error
	// decode fills the tools, calls and outputs of req from its body.
	decode(req *request) error
	// callID returns a tool call id in the provider's style.
	callID(n int) string
	// respond renders an answer as a JSON body or an event stream.
	respond(stream bool, t turn) reply
	// partial is the beginning of a streamed text answer, up to and
	// including one text delta.
	partial(id, text string) []event
	// streamError is what the provider sends when something fails after
	// output started.
	streamError(message string) []event
	// earlyError is a 200 stream that reports an error before any output.
	earlyError(retryable bool, message string) reply
	// earlyErrorStatus is the status of the API error an early error
	// becomes, or 0 when the provider reports early errors in the stream
	// instead of failing the call.
	earlyErrorStatus(retryable bool) int
	// errorBody is the provider's error body for an HTTP status.
	errorBody(status int, message string) string
}

// wires are the protocols under test.
func wires() []wire {
	return []wire{responsesWire{}, chatWire{}, chatWire{compat: true}, anthropicWire{}, googleWire{}, bedrockWire{}, azureWire{}}
}

// split cuts s in two pieces, to be sent as two deltas.
func split(s string) []string {
	if len(s) < 2 {
		return []string{s}
	}
	return []string{s[:len(s)/2], s[len(s)/2:]}
}

func asMap(v any) map[string]any {
	m, _ := v.(map[string]any)
	return m
}

func asList(v any) []any {
	l, _ := v.([]any)
	return l
}

func asString(v any) string {
	s, _ := v.(string)
	return s
}

// textOf renders tool result content that may be a string or a list of
// text blocks.
func textOf(v any) string {
	switch v := v.(type) {
	case string:
		return v
	case []any:
		s := ""
		for _, b := range v {
			s += asString(asMap(b)["text"])
		}
		return s
	case nil:
		return ""
	}
	return mustJSON(v)
}

// ---------------------------------------------------------------------------
// OpenAI Responses API

type responsesWire struct{}

func (responsesWire) name() string { return "openai-responses" }
func (responsesWire) path() string { return "/v1/responses" }

func (responsesWire) model(srv *httptest.Server) provider.LanguageModel {
	return openai.New(openai.WithAPIKey("test-key"), openai.WithBaseURL(srv.URL+"/v1"),
		openai.WithHTTPClient(srv.Client())).Responses("gpt-4.1")
}

func (responsesWire) checkHeaders(h http.Header) error { return bearer(h, "test-key") }

func bearer(h http.Header, key string) error {
	if got := h.Get("Authorization"); got != "Bearer "+key {
		return fmt.Errorf("Authorization header %q, want a bearer token", got)
	}
	return nil
}

func (responsesWire) decode(req *request) error {
	for _, t := range asList(req.body["tools"]) {
		tool := asMap(t)
		if tool["type"] != "function" {
			return fmt.Errorf("unexpected tool %v", tool)
		}
		req.tools = append(req.tools, asString(tool["name"]))
	}
	for _, it := range asList(req.body["input"]) {
		item := asMap(it)
		switch item["type"] {
		case "function_call":
			req.calls = append(req.calls, wireCall{
				id: asString(item["call_id"]), name: asString(item["name"]), args: compactJSON(asString(item["arguments"]))})
		case "function_call_output":
			req.outputs = append(req.outputs, wireOutput{callID: asString(item["call_id"]), content: textOf(item["output"])})
		}
	}
	return nil
}

func (responsesWire) callID(n int) string { return fmt.Sprintf("call_%03d", n) }

const responsesModelID = "gpt-4.1-2025-04-14"

// response is the Responses API's response object in a given state.
func (responsesWire) response(t turn, status string, output []any, usage bool) map[string]any {
	r := map[string]any{
		"id": t.id, "object": "response", "created_at": 1767225600, "status": status,
		"model": responsesModelID, "output": output, "error": nil, "incomplete_details": nil,
		"parallel_tool_calls": true, "tool_choice": "auto", "store": true, "usage": nil,
	}
	if usage {
		r["usage"] = map[string]any{
			"input_tokens": t.input, "input_tokens_details": map[string]any{"cached_tokens": 0},
			"output_tokens": t.output, "output_tokens_details": map[string]any{"reasoning_tokens": 0},
			"total_tokens": t.input + t.output,
		}
	}
	return r
}

func (responsesWire) message(t turn, status string) map[string]any {
	content := []any{}
	if status == "completed" {
		content = append(content, map[string]any{"type": "output_text", "text": t.text, "annotations": []any{}})
	}
	return map[string]any{"type": "message", "id": "msg_" + t.id, "role": "assistant", "status": status, "content": content}
}

func (responsesWire) functionCall(c wireCall, status string) map[string]any {
	args := c.args
	if status != "completed" {
		args = ""
	}
	return map[string]any{"type": "function_call", "id": "fc_" + c.id, "call_id": c.id, "name": c.name, "arguments": args, "status": status}
}

func (w responsesWire) output(t turn) []any {
	out := []any{}
	if t.text != "" {
		out = append(out, w.message(t, "completed"))
	}
	for _, c := range t.calls {
		out = append(out, w.functionCall(c, "completed"))
	}
	return out
}

// sequence numbers the events of one response.
type sequence struct {
	events []event
}

func (s *sequence) add(fields map[string]any) {
	fields["sequence_number"] = len(s.events)
	s.events = append(s.events, event{data: mustJSON(fields)})
}

func (w responsesWire) opening(s *sequence, t turn) {
	s.add(map[string]any{"type": "response.created", "response": w.response(t, "in_progress", []any{}, false)})
	s.add(map[string]any{"type": "response.in_progress", "response": w.response(t, "in_progress", []any{}, false)})
}

func (w responsesWire) respond(stream bool, t turn) reply {
	if !stream {
		return jsonReply(mustJSON(w.response(t, "completed", w.output(t), true)))
	}
	s := &sequence{}
	w.opening(s, t)
	index := 0
	if t.text != "" {
		itemID := "msg_" + t.id
		s.add(map[string]any{"type": "response.output_item.added", "output_index": index, "item": w.message(t, "in_progress")})
		s.add(map[string]any{"type": "response.content_part.added", "item_id": itemID, "output_index": index, "content_index": 0,
			"part": map[string]any{"type": "output_text", "text": "", "annotations": []any{}}})
		for _, d := range split(t.text) {
			s.add(map[string]any{"type": "response.output_text.delta", "item_id": itemID, "output_index": index, "content_index": 0, "delta": d, "logprobs": []any{}})
		}
		s.add(map[string]any{"type": "response.output_text.done", "item_id": itemID, "output_index": index, "content_index": 0, "text": t.text, "logprobs": []any{}})
		s.add(map[string]any{"type": "response.content_part.done", "item_id": itemID, "output_index": index, "content_index": 0,
			"part": map[string]any{"type": "output_text", "text": t.text, "annotations": []any{}}})
		s.add(map[string]any{"type": "response.output_item.done", "output_index": index, "item": w.message(t, "completed")})
		index++
	}
	for _, c := range t.calls {
		s.add(map[string]any{"type": "response.output_item.added", "output_index": index, "item": w.functionCall(c, "in_progress")})
		for _, d := range split(c.args) {
			s.add(map[string]any{"type": "response.function_call_arguments.delta", "item_id": "fc_" + c.id, "output_index": index, "delta": d})
		}
		s.add(map[string]any{"type": "response.function_call_arguments.done", "item_id": "fc_" + c.id, "output_index": index, "arguments": c.args})
		s.add(map[string]any{"type": "response.output_item.done", "output_index": index, "item": w.functionCall(c, "completed")})
		index++
	}
	s.add(map[string]any{"type": "response.completed", "response": w.response(t, "completed", w.output(t), true)})
	return reply{events: s.events, done: true}
}

func (w responsesWire) partial(id, text string) []event {
	t := turn{id: id, text: text}
	s := &sequence{}
	w.opening(s, t)
	s.add(map[string]any{"type": "response.output_item.added", "output_index": 0, "item": w.message(t, "in_progress")})
	s.add(map[string]any{"type": "response.content_part.added", "item_id": "msg_" + id, "output_index": 0, "content_index": 0,
		"part": map[string]any{"type": "output_text", "text": "", "annotations": []any{}}})
	s.add(map[string]any{"type": "response.output_text.delta", "item_id": "msg_" + id, "output_index": 0, "content_index": 0, "delta": text, "logprobs": []any{}})
	return s.events
}

func (w responsesWire) streamError(message string) []event {
	return []event{
		{data: mustJSON(map[string]any{"type": "error", "sequence_number": 90, "code": "server_error", "message": message, "param": nil})},
		{data: mustJSON(map[string]any{"type": "response.failed", "sequence_number": 91, "response": map[string]any{
			"id": "resp_failed", "object": "response", "created_at": 1767225600, "status": "failed", "model": responsesModelID, "output": []any{},
			"error": map[string]any{"code": "server_error", "message": message}, "incomplete_details": nil, "usage": nil,
		}})},
	}
}

func (w responsesWire) earlyError(retryable bool, message string) reply {
	s := &sequence{}
	w.opening(s, turn{id: "resp_early"})
	code := "insufficient_quota"
	if retryable {
		code = "server_error"
	}
	s.add(map[string]any{"type": "error", "error": map[string]any{"type": code, "code": code, "message": message, "param": nil}})
	return reply{events: s.events}
}

func (responsesWire) earlyErrorStatus(retryable bool) int {
	if retryable {
		return http.StatusInternalServerError
	}
	return http.StatusTooManyRequests
}

func (responsesWire) errorBody(status int, message string) string {
	return openaiErrorBody(status, message)
}

// openaiErrorBody is the error body of OpenAI and the servers that copy it.
func openaiErrorBody(status int, message string) string {
	typ, code := "server_error", any(nil)
	switch {
	case status == http.StatusTooManyRequests:
		typ, code = "requests", "rate_limit_exceeded"
	case status < 500:
		typ, code = "invalid_request_error", "invalid_value"
	}
	return mustJSON(map[string]any{"error": map[string]any{"message": message, "type": typ, "param": nil, "code": code}})
}

// ---------------------------------------------------------------------------
// OpenAI Chat Completions, and OpenAI-compatible servers

type chatWire struct {
	// compat selects the openaicompat provider against a local server.
	compat bool
}

func (w chatWire) name() string {
	if w.compat {
		return "openai-compatible"
	}
	return "openai-chat"
}

func (chatWire) path() string { return "/v1/chat/completions" }

func (w chatWire) model(srv *httptest.Server) provider.LanguageModel {
	if w.compat {
		return openaicompat.New(openaicompat.WithBaseURL(srv.URL+"/v1"), openaicompat.WithName("local"),
			openaicompat.WithIncludeUsage(true), openaicompat.WithHTTPClient(srv.Client())).Model("qwen3")
	}
	return openai.New(openai.WithAPIKey("test-key"), openai.WithBaseURL(srv.URL+"/v1"),
		openai.WithHTTPClient(srv.Client())).Chat("gpt-4.1")
}

func (w chatWire) checkHeaders(h http.Header) error {
	if w.compat {
		if got := h.Get("Authorization"); got != "" {
			return fmt.Errorf("Authorization header %q sent without an API key", got)
		}
		return nil
	}
	return bearer(h, "test-key")
}

func (w chatWire) decode(req *request) error {
	for _, t := range asList(req.body["tools"]) {
		tool := asMap(t)
		if tool["type"] != "function" {
			return fmt.Errorf("unexpected tool %v", tool)
		}
		req.tools = append(req.tools, asString(asMap(tool["function"])["name"]))
	}
	if req.stream {
		if so := asMap(req.body["stream_options"]); so["include_usage"] != true {
			return errors.New("a streaming request without stream_options.include_usage")
		}
	}
	for _, m := range asList(req.body["messages"]) {
		msg := asMap(m)
		switch msg["role"] {
		case "assistant":
			for _, c := range asList(msg["tool_calls"]) {
				call := asMap(c)
				fn := asMap(call["function"])
				req.calls = append(req.calls, wireCall{id: asString(call["id"]), name: asString(fn["name"]), args: compactJSON(asString(fn["arguments"]))})
			}
		case "tool":
			req.outputs = append(req.outputs, wireOutput{callID: asString(msg["tool_call_id"]), content: textOf(msg["content"])})
		}
	}
	return nil
}

func (chatWire) callID(n int) string { return fmt.Sprintf("call_%03d", n) }

func (w chatWire) modelID() string {
	if w.compat {
		return "qwen3:8b"
	}
	return "gpt-4.1-2025-04-14"
}

func (w chatWire) chunk(id string, choices []any, usage any) event {
	c := map[string]any{"id": id, "object": "chat.completion.chunk", "created": 1767225600, "model": w.modelID(), "choices": choices}
	if usage != nil {
		c["usage"] = usage
	}
	return event{data: mustJSON(c)}
}

func (w chatWire) delta(id string, delta map[string]any, finish any) event {
	return w.chunk(id, []any{map[string]any{"index": 0, "delta": delta, "finish_reason": finish}}, nil)
}

func chatUsage(t turn) map[string]any {
	return map[string]any{"prompt_tokens": t.input, "completion_tokens": t.output, "total_tokens": t.input + t.output}
}

func (w chatWire) respond(stream bool, t turn) reply {
	finish := "stop"
	if len(t.calls) > 0 {
		finish = "tool_calls"
	}
	if !stream {
		msg := map[string]any{"role": "assistant", "content": nil}
		if t.text != "" {
			msg["content"] = t.text
		}
		if len(t.calls) > 0 {
			var calls []any
			for _, c := range t.calls {
				calls = append(calls, map[string]any{"id": c.id, "type": "function", "function": map[string]any{"name": c.name, "arguments": c.args}})
			}
			msg["tool_calls"] = calls
		}
		return jsonReply(mustJSON(map[string]any{
			"id": t.id, "object": "chat.completion", "created": 1767225600, "model": w.modelID(),
			"choices": []any{map[string]any{"index": 0, "message": msg, "finish_reason": finish}},
			"usage":   chatUsage(t),
		}))
	}
	events := []event{w.delta(t.id, map[string]any{"role": "assistant", "content": ""}, nil)}
	for _, d := range split(t.text) {
		if d != "" {
			events = append(events, w.delta(t.id, map[string]any{"content": d}, nil))
		}
	}
	for i, c := range t.calls {
		events = append(events, w.delta(t.id, map[string]any{"tool_calls": []any{map[string]any{
			"index": i, "id": c.id, "type": "function", "function": map[string]any{"name": c.name, "arguments": ""}}}}, nil))
		for _, d := range split(c.args) {
			events = append(events, w.delta(t.id, map[string]any{"tool_calls": []any{map[string]any{
				"index": i, "function": map[string]any{"arguments": d}}}}, nil))
		}
	}
	events = append(events, w.delta(t.id, map[string]any{}, finish), w.chunk(t.id, []any{}, chatUsage(t)))
	return reply{events: events, done: true}
}

func (w chatWire) partial(id, text string) []event {
	return []event{
		w.delta(id, map[string]any{"role": "assistant", "content": ""}, nil),
		w.delta(id, map[string]any{"content": text}, nil),
	}
}

func (chatWire) streamError(message string) []event {
	return []event{{data: mustJSON(map[string]any{"error": map[string]any{"message": message, "type": "server_error", "param": nil, "code": nil}})}}
}

func (w chatWire) earlyError(retryable bool, message string) reply {
	e := map[string]any{"message": message, "type": "invalid_request_error", "param": "messages", "code": "context_length_exceeded"}
	if retryable {
		e = map[string]any{"message": message, "type": "server_error", "param": nil, "code": nil}
	}
	return reply{events: []event{{data: mustJSON(map[string]any{"error": e})}}, done: true}
}

func (w chatWire) earlyErrorStatus(retryable bool) int {
	if retryable {
		return http.StatusInternalServerError
	}
	return http.StatusBadRequest
}

func (chatWire) errorBody(status int, message string) string { return openaiErrorBody(status, message) }

// ---------------------------------------------------------------------------
// Anthropic Messages API

type anthropicWire struct{}

func (anthropicWire) name() string { return "anthropic" }
func (anthropicWire) path() string { return "/v1/messages" }

func (anthropicWire) model(srv *httptest.Server) provider.LanguageModel {
	return anthropic.New(anthropic.WithAPIKey("test-key"), anthropic.WithBaseURL(srv.URL+"/v1"),
		anthropic.WithHTTPClient(srv.Client())).Model("claude-sonnet-4-5")
}

func (anthropicWire) checkHeaders(h http.Header) error {
	if got := h.Get("X-Api-Key"); got != "test-key" {
		return fmt.Errorf("x-api-key header %q", got)
	}
	if got := h.Get("Anthropic-Version"); got != "2023-06-01" {
		return fmt.Errorf("anthropic-version header %q", got)
	}
	return nil
}

func (anthropicWire) decode(req *request) error {
	for _, t := range asList(req.body["tools"]) {
		tool := asMap(t)
		if typ, typed := tool["type"]; typed && typ != "custom" {
			return fmt.Errorf("unexpected tool %v", tool)
		}
		req.tools = append(req.tools, asString(tool["name"]))
	}
	for _, m := range asList(req.body["messages"]) {
		msg := asMap(m)
		for _, b := range asList(msg["content"]) {
			block := asMap(b)
			switch block["type"] {
			case "tool_use":
				req.calls = append(req.calls, wireCall{id: asString(block["id"]), name: asString(block["name"]), args: mustJSON(block["input"])})
			case "tool_result":
				isError, _ := block["is_error"].(bool)
				req.outputs = append(req.outputs, wireOutput{callID: asString(block["tool_use_id"]), content: textOf(block["content"]), isError: isError})
			}
		}
	}
	return nil
}

func (anthropicWire) callID(n int) string { return fmt.Sprintf("toolu_%03d", n) }

const anthropicModelID = "claude-sonnet-4-5-20250929"

// ev is an Anthropic event: its type doubles as the SSE event name.
func ev(fields map[string]any) event {
	return event{name: asString(fields["type"]), data: mustJSON(fields)}
}

func (anthropicWire) messageStart(id string, input int) event {
	return ev(map[string]any{"type": "message_start", "message": map[string]any{
		"id": id, "type": "message", "role": "assistant", "model": anthropicModelID, "content": []any{},
		"stop_reason": nil, "stop_sequence": nil,
		"usage": map[string]any{"input_tokens": input, "cache_creation_input_tokens": 0, "cache_read_input_tokens": 0, "output_tokens": 1},
	}})
}

func (w anthropicWire) respond(stream bool, t turn) reply {
	stop := "end_turn"
	if len(t.calls) > 0 {
		stop = "tool_use"
	}
	if !stream {
		content := []any{}
		if t.text != "" {
			content = append(content, map[string]any{"type": "text", "text": t.text})
		}
		for _, c := range t.calls {
			content = append(content, map[string]any{"type": "tool_use", "id": c.id, "name": c.name, "input": rawJSON(c.args)})
		}
		return jsonReply(mustJSON(map[string]any{
			"id": t.id, "type": "message", "role": "assistant", "model": anthropicModelID, "content": content,
			"stop_reason": stop, "stop_sequence": nil,
			"usage": map[string]any{"input_tokens": t.input, "cache_creation_input_tokens": 0, "cache_read_input_tokens": 0, "output_tokens": t.output},
		}))
	}
	events := []event{w.messageStart(t.id, t.input), ev(map[string]any{"type": "ping"})}
	index := 0
	if t.text != "" {
		events = append(events, ev(map[string]any{"type": "content_block_start", "index": index, "content_block": map[string]any{"type": "text", "text": ""}}))
		for _, d := range split(t.text) {
			events = append(events, ev(map[string]any{"type": "content_block_delta", "index": index, "delta": map[string]any{"type": "text_delta", "text": d}}))
		}
		events = append(events, ev(map[string]any{"type": "content_block_stop", "index": index}))
		index++
	}
	for _, c := range t.calls {
		events = append(events, ev(map[string]any{"type": "content_block_start", "index": index,
			"content_block": map[string]any{"type": "tool_use", "id": c.id, "name": c.name, "input": map[string]any{}}}))
		for _, d := range split(c.args) {
			events = append(events, ev(map[string]any{"type": "content_block_delta", "index": index, "delta": map[string]any{"type": "input_json_delta", "partial_json": d}}))
		}
		events = append(events, ev(map[string]any{"type": "content_block_stop", "index": index}))
		index++
	}
	events = append(events,
		ev(map[string]any{"type": "message_delta", "delta": map[string]any{"stop_reason": stop, "stop_sequence": nil}, "usage": map[string]any{"output_tokens": t.output}}),
		ev(map[string]any{"type": "message_stop"}))
	return reply{events: events}
}

func (w anthropicWire) partial(id, text string) []event {
	return []event{
		w.messageStart(id, 10),
		ev(map[string]any{"type": "content_block_start", "index": 0, "content_block": map[string]any{"type": "text", "text": ""}}),
		ev(map[string]any{"type": "content_block_delta", "index": 0, "delta": map[string]any{"type": "text_delta", "text": text}}),
	}
}

func (anthropicWire) streamError(message string) []event {
	return []event{ev(map[string]any{"type": "error", "error": map[string]any{"type": "api_error", "message": message}})}
}

func (anthropicWire) earlyError(retryable bool, message string) reply {
	kind := "invalid_request_error"
	if retryable {
		kind = "overloaded_error"
	}
	return reply{events: []event{ev(map[string]any{"type": "error", "error": map[string]any{"type": kind, "message": message}})}}
}

func (anthropicWire) earlyErrorStatus(retryable bool) int {
	if retryable {
		return 529
	}
	return http.StatusBadRequest
}

func (anthropicWire) errorBody(status int, message string) string {
	kind := "api_error"
	switch {
	case status == http.StatusTooManyRequests:
		kind = "rate_limit_error"
	case status == http.StatusServiceUnavailable, status == 529:
		kind = "overloaded_error"
	case status < 500:
		kind = "invalid_request_error"
	}
	return mustJSON(map[string]any{"type": "error", "error": map[string]any{"type": kind, "message": message}, "request_id": "req_011CTest"})
}

// rawJSON keeps a JSON text as it is inside a value rendered by mustJSON.
type rawJSON string

func (r rawJSON) MarshalJSON() ([]byte, error) { return []byte(r), nil }
