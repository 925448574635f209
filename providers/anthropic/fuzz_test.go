package anthropic

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"testing"

	"github.com/aisdkgo/ai/internal/httpx"
	"github.com/aisdkgo/ai/provider"
)

// FuzzMessagesStream feeds arbitrary bytes to the stream reader as the body
// of a successful streaming response. It must not panic or hang, and a
// stream that ends without an error ends with a finish part, with text and
// reasoning deltas only inside their blocks.
func FuzzMessagesStream(f *testing.F) {
	// Small seeds: the fuzzer minimizes every new input it finds, which
	// takes long for large ones.
	ev := func(events ...string) []byte {
		var b bytes.Buffer
		for _, e := range events {
			b.WriteString("data: " + e + "\n\n")
		}
		return b.Bytes()
	}
	start := `{"type":"message_start","message":{"id":"m","model":"c","content":[],"usage":{"input_tokens":3,"cache_read_input_tokens":2}}}`
	delta := `{"type":"message_delta","delta":{"stop_reason":"end_turn"},"usage":{"output_tokens":5}}`
	f.Add(ev(start,
		`{"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}}`,
		`{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"Hi"}}`,
		`{"type":"content_block_delta","index":0,"delta":{"type":"citations_delta","citation":{"type":"web_search_result_location","url":"u","title":"t","cited_text":"c","encrypted_index":"e"}}}`,
		`{"type":"content_block_stop","index":0}`, delta, `{"type":"message_stop"}`))
	f.Add(ev(start,
		`{"type":"content_block_start","index":0,"content_block":{"type":"thinking","thinking":""}}`,
		`{"type":"content_block_delta","index":0,"delta":{"type":"thinking_delta","thinking":"hm"}}`,
		`{"type":"content_block_delta","index":0,"delta":{"type":"signature_delta","signature":"s"}}`,
		`{"type":"content_block_stop","index":0}`,
		`{"type":"content_block_start","index":1,"content_block":{"type":"tool_use","id":"t","name":"get_temp_data","input":{}}}`,
		`{"type":"content_block_delta","index":1,"delta":{"type":"input_json_delta","partial_json":"{\"a\":1}"}}`,
		`{"type":"content_block_stop","index":1}`, delta, `{"type":"message_stop"}`))
	f.Add(ev(start,
		`{"type":"content_block_start","index":0,"content_block":{"type":"server_tool_use","id":"s","name":"tool_search_tool_regex","input":{}}}`,
		`{"type":"content_block_delta","index":0,"delta":{"type":"input_json_delta","partial_json":"{\"pattern\":\"x\"}"}}`,
		`{"type":"content_block_stop","index":0}`,
		`{"type":"content_block_start","index":1,"content_block":{"type":"tool_search_tool_result","tool_use_id":"s","content":{"type":"tool_search_tool_search_result","tool_references":[{"type":"tool_reference","tool_name":"get_temp_data"}]}}}`,
		`{"type":"content_block_stop","index":1}`, delta, `{"type":"message_stop"}`))
	f.Add([]byte("event: error\ndata: {\"type\":\"error\",\"error\":{\"type\":\"overloaded_error\",\"message\":\"Overloaded\"}}\n\n"))
	f.Add([]byte("data: {\"type\":\"content_block_delta\",\"index\":3,\"delta\":{\"type\":\"input_json_delta\",\"partial_json\":\"{\"}}\n\n"))
	f.Add([]byte("data: {\"type\":\"content_block_start\",\"index\":0,\"content_block\":{\"type\":\"server_tool_use\",\"id\":\"s\",\"name\":\"bash_code_execution\",\"input\":{}}}\n\n" +
		"data: {\"type\":\"content_block_delta\",\"index\":0,\"delta\":{\"type\":\"input_json_delta\",\"partial_json\":\"{}\"}}\n\n" +
		"data: {\"type\":\"content_block_stop\",\"index\":0}\n\n"))
	f.Add([]byte("data: [DONE]\r\n\r\n: comment\rdata: {}\n"))

	f.Fuzz(func(t *testing.T, body []byte) { checkStream(t, body) })
}

var (
	fuzzModel = &languageModel{p: New(WithAPIKey("k")), modelID: "claude-sonnet-4-5"}
	// fuzzRequests are prepared requests without and with the JSON
	// response tool, which changes how text is handled.
	fuzzRequests = map[bool]*request{false: fuzzRequest(false), true: fuzzRequest(true)}
)

func fuzzRequest(jsonTool bool) *request {
	opts := &provider.CallOptions{Prompt: userPrompt("hi"), Tools: []provider.Tool{
		&provider.ProviderTool{ID: regexID, Name: "tool_search"},
		&provider.ProviderTool{ID: "anthropic.web_search_20260209", Name: "search"},
		&provider.FunctionTool{Name: "get_temp_data", InputSchema: json.RawMessage(`{"type":"object"}`)},
	}}
	if jsonTool {
		opts.ResponseFormat = &provider.ResponseFormat{Type: "json", Schema: json.RawMessage(`{"type":"object"}`)}
		opts.ProviderOptions = MessagesOptions{StructuredOutputMode: "jsonTool"}.ProviderOptions()
	}
	req, err := fuzzModel.buildRequest(opts, true)
	if err != nil {
		panic(err)
	}
	return req
}

// checkStream reads body as the event stream of a successful response and
// checks the shape of the result. An odd first byte turns on the JSON
// response tool.
func checkStream(t testing.TB, body []byte) {
	jsonTool := len(body) > 0 && body[0]%2 == 1
	req := fuzzRequests[jsonTool]
	resp := &httpx.Response{HTTP: &http.Response{
		StatusCode: 200,
		Header:     http.Header{"Content-Type": {"text/event-stream"}},
		Body:       io.NopCloser(bytes.NewReader(body)),
	}}
	// The body is finite, so the stream must end; a hang fails the run
	// through the test timeout.
	res, err := fuzzModel.readStream(context.Background(), req, resp, true)
	if err != nil {
		return
	}
	var parts []provider.StreamPart
	var streamErr error
	for p, err := range res.Stream {
		if err != nil {
			streamErr = err
			break
		}
		parts = append(parts, p)
	}
	if _, ok := parts[0].(provider.StreamStart); !ok {
		t.Fatalf("first part is %s", parts[0].PartType())
	}
	if streamErr == nil {
		if _, ok := parts[len(parts)-1].(provider.Finish); !ok {
			t.Fatalf("last part is %s", parts[len(parts)-1].PartType())
		}
	}
	open := map[string]string{}
	for _, p := range parts {
		switch p := p.(type) {
		case provider.TextStart:
			open[p.ID] = "text"
		case provider.ReasoningStart:
			open[p.ID] = "reasoning"
		case provider.TextDelta:
			if open[p.ID] != "text" {
				t.Fatalf("text delta outside a text block %q", p.ID)
			}
		case provider.ReasoningDelta:
			if open[p.ID] != "reasoning" {
				t.Fatalf("reasoning delta outside a reasoning block %q", p.ID)
			}
		case provider.TextEnd:
			if open[p.ID] != "text" {
				t.Fatalf("text end without start %q", p.ID)
			}
			delete(open, p.ID)
		case provider.ReasoningEnd:
			if open[p.ID] != "reasoning" {
				t.Fatalf("reasoning end without start %q", p.ID)
			}
			delete(open, p.ID)
		case provider.ToolCall:
			if p.Input == "" {
				t.Fatal("tool call without input")
			}
		case provider.ToolResult:
			if !json.Valid(p.Result) {
				t.Fatalf("tool result %q is not JSON", p.Result)
			}
		}
	}
}
