package bedrock

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"testing"

	"github.com/aisdkgo/ai/internal/eventstream"
	"github.com/aisdkgo/ai/internal/httpx"
	"github.com/aisdkgo/ai/provider"
)

// FuzzStream feeds arbitrary bytes to the stream reader: it must end
// (with parts, an error or both) and never panic.
func FuzzStream(f *testing.F) {
	ev := func(t, p string) []byte { return eventstream.Event(t, []byte(p)) }
	f.Add(bytes.Join([][]byte{
		ev("messageStart", `{"role":"assistant"}`),
		ev("contentBlockStart", `{"contentBlockIndex":1,"start":{"toolUse":{"toolUseId":"t","name":"json"}}}`),
		ev("contentBlockDelta", `{"contentBlockIndex":1,"delta":{"toolUse":{"input":"{}"}}}`),
		ev("contentBlockStop", `{"contentBlockIndex":1}`),
		ev("contentBlockDelta", `{"contentBlockIndex":2,"delta":{"reasoningContent":{"redactedContent":"x"}}}`),
		ev("messageStop", `{"stopReason":"tool_use","additionalModelResponseFields":{"delta":{"stop_sequence":"END"}}}`),
		ev("metadata", `{"usage":{"inputTokens":1,"outputTokens":2,"cacheDetails":[{"inputTokens":1,"ttl":"5m"}]}}`),
	}, nil))
	f.Add(eventstream.Exception("throttlingException", []byte(`{}`)))
	f.Add([]byte("not a stream"))
	m := &languageModel{p: New(), modelID: "m"}
	f.Fuzz(func(t *testing.T, body []byte) {
		resp := &httpx.Response{HTTP: &http.Response{StatusCode: 200, Header: http.Header{}, Body: io.NopCloser(bytes.NewReader(body))}}
		fr := newFrames(context.Background(), resp)
		first, err := fr.next()
		if err != nil {
			fr.close()
			return
		}
		c := &call{jsonTool: true}
		n := 0
		for _, err := range m.events(fr, first, c, &provider.ResponseInfo{}, true) {
			n++
			if err != nil || n > 10000 {
				break
			}
		}
	})
}
