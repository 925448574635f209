package openaichat

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

// FuzzChatStream feeds arbitrary bytes to the chat stream parser as an SSE
// body, with the OpenAI settings and with the compatible-server settings. It
// must not panic or hang, and a stream that ends without an error must be
// well formed.
func FuzzChatStream(f *testing.F) {
	f.Add([]byte("data: {\"id\":\"c\",\"choices\":[{\"index\":0,\"delta\":{\"content\":\"Hi\"}}]}\n\ndata: {\"choices\":[{\"index\":0,\"delta\":{},\"finish_reason\":\"stop\"}]}\n\ndata: [DONE]\n\n"))
	f.Add([]byte("data: {\"choices\":[{\"index\":0,\"delta\":{\"reasoning_content\":\"r\",\"content\":[{\"type\":\"thinking\",\"thinking\":[{\"type\":\"text\",\"text\":\"t\"}]}]}}]}\n\n" +
		"data: {\"choices\":[{\"index\":1,\"delta\":{\"tool_calls\":[{\"index\":1,\"id\":\"a\",\"type\":\"function\",\"function\":{\"name\":\"f\",\"arguments\":\"{\\\"x\\\"\"}}]}}]}\n\n" +
		"data: {\"choices\":[{\"index\":0,\"delta\":{\"tool_calls\":[{\"index\":1,\"function\":{\"arguments\":\":1}\"}}]},\"finish_reason\":\"tool_calls\"}],\"usage\":{\"prompt_tokens\":1}}\n\n"))
	f.Add([]byte("data: {\"choices\":[{\"delta\":{\"tool_calls\":[{\"function\":{\"arguments\":\"{}\"}},{\"id\":\" \",\"function\":{\"name\":\"g\",\"arguments\":\"[\"}}]}}]}\n\n"))
	f.Add([]byte("data: {\"error\":{\"message\":\"m\",\"code\":429}}\n\n"))
	f.Add([]byte(": ping\r\ndata: {\"id\":\"x\"\r\ndata: ,\"choices\":[]}\r\n\r\nevent: e\nid: 1\ndata: not json\n\n"))

	settings := []Settings{
		{Provider: "openai.chat", ModelID: "gpt-4o", URL: "http://example.invalid", OptionKeys: []string{"openai"},
			OpenAIOptions: true, ModelRules: true, StreamUsage: true},
		{Provider: "compat.chat", ModelID: "m", URL: "http://example.invalid", OptionKeys: []string{"compat"}, SendReasoning: true},
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		for _, s := range settings {
			m := New(s)
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			resp := &http.Response{StatusCode: 200, Header: http.Header{}, Body: io.NopCloser(bytes.NewReader(body))}
			call := &preparedCall{metaKey: "openai"}
			res, err := m.streamResponse(ctx, &httpx.Response{HTTP: resp, URL: s.URL}, call, true)
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
					t.Fatalf("%s: %v", s.Provider, err)
				}
			}
		}
	})
}
