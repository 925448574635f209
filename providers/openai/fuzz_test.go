package openai

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"testing"
	"time"

	"github.com/aisdkgo/ai/internal/httpx"
	"github.com/aisdkgo/ai/internal/openaichat/replay"
	"github.com/aisdkgo/ai/provider"
)

// FuzzResponsesStream feeds arbitrary bytes to the Responses stream parser
// as an SSE body, with store on and off. It must not panic or hang, and a
// stream that ends without an error must be well formed.
func FuzzResponsesStream(f *testing.F) {
	frame := func(s ...string) []byte {
		var b bytes.Buffer
		for _, x := range s {
			b.WriteString("data: " + x + "\n\n")
		}
		return b.Bytes()
	}
	f.Add(frame(
		`{"type":"response.created","response":{"id":"r","created_at":1,"model":"m"}}`,
		`{"type":"response.output_item.added","output_index":0,"item":{"type":"reasoning","id":"rs","summary":[]}}`,
		`{"type":"response.reasoning_summary_part.added","item_id":"rs","summary_index":1}`,
		`{"type":"response.reasoning_summary_text.delta","item_id":"rs","summary_index":1,"delta":"x"}`,
		`{"type":"response.reasoning_summary_part.done","item_id":"rs","summary_index":1}`,
		`{"type":"response.output_item.done","output_index":0,"item":{"type":"reasoning","id":"rs","encrypted_content":"e"}}`,
		`{"type":"response.output_item.added","output_index":1,"item":{"type":"message","id":"m1"}}`,
		`{"type":"response.output_text.delta","output_index":1,"item_id":"m1","delta":"Hi"}`,
		`{"type":"response.output_text.annotation.added","annotation":{"type":"url_citation","url":"u","title":"t","start_index":0,"end_index":1}}`,
		`{"type":"response.output_item.done","output_index":1,"item":{"type":"message","id":"m1","content":[]}}`,
		`{"type":"response.completed","response":{"id":"r","usage":{"input_tokens":1,"output_tokens":2}}}`,
	))
	f.Add(frame(
		`{"type":"response.output_item.added","output_index":0,"item":{"type":"function_call","id":"fc","call_id":"c","name":"f","arguments":""}}`,
		`{"type":"response.function_call_arguments.delta","output_index":0,"delta":"{}"}`,
		`{"type":"response.output_item.done","output_index":0,"item":{"type":"function_call","id":"fc","call_id":"c","name":"f","arguments":"{}"}}`,
		`{"type":"response.output_item.added","output_index":1,"item":{"type":"tool_search_call","id":"ts","execution":"server"}}`,
		`{"type":"response.output_item.done","output_index":1,"item":{"type":"tool_search_call","id":"ts","execution":"server","arguments":{}}}`,
		`{"type":"response.output_item.done","output_index":2,"item":{"type":"tool_search_output","id":"to","tools":[]}}`,
		`{"type":"response.output_item.added","output_index":3,"item":{"type":"code_interpreter_call","id":"ci","container_id":"cn"}}`,
		`{"type":"response.code_interpreter_call_code.delta","output_index":3,"delta":"print(1)"}`,
		`{"type":"response.code_interpreter_call_code.done","output_index":3,"code":"print(1)"}`,
		`{"type":"response.output_item.done","output_index":3,"item":{"type":"code_interpreter_call","id":"ci","outputs":[]}}`,
		`{"type":"response.output_item.added","output_index":4,"item":{"type":"web_search_call","id":"ws"}}`,
		`{"type":"response.output_item.done","output_index":4,"item":{"type":"web_search_call","id":"ws","status":"completed","action":{"type":"search","query":"q"}}}`,
		`{"type":"response.output_item.done","output_index":5,"item":{"type":"mcp_approval_request","id":"ap","name":"t","arguments":"{}"}}`,
		`{"type":"response.incomplete","response":{"incomplete_details":{"reason":"max_output_tokens"}}}`,
	))
	f.Add(frame(`{"type":"response.created","response":{"id":"r"}}`, `{"type":"error","error":{"type":"x","code":"insufficient_quota","message":"m"}}`))
	f.Add(frame(`{"type":"response.output_text.delta","item_id":"z","delta":"a"}`, `{"type":"response.failed","response":{"error":{"code":500,"message":"m"}}}`, `{"choices":[]}`, `{oops`))

	f.Fuzz(func(t *testing.T, body []byte) {
		for _, store := range []bool{true, false} {
			m := &responsesModel{provider: "openai.responses", modelID: "gpt-5", url: "http://example.invalid/responses", newID: func() string { return "id" }}
			call := &responsesCall{store: store, names: newToolNames(nil), approvals: map[string]string{}}
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			resp := &http.Response{StatusCode: 200, Header: http.Header{}, Body: io.NopCloser(bytes.NewReader(body))}
			res, err := m.streamResponse(ctx, &httpx.Response{HTTP: resp, URL: m.url}, call, true)
			if err != nil {
				cancel()
				continue
			}
			var parts []provider.StreamPart
			failed := false
			for p, err := range res.Stream {
				if err != nil {
					failed = true
					break
				}
				parts = append(parts, p)
			}
			cancel()
			if !failed {
				if err := replay.CheckParts(parts); err != nil {
					t.Fatalf("store %v: %v", store, err)
				}
			}
		}
	})
}
