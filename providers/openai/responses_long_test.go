package openai_test

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/aisdkgo/ai/internal/openaichat/replay"
	"github.com/aisdkgo/ai/provider"
	"github.com/aisdkgo/ai/providers/openai"
)

// longText is more than the 16 MiB a stream line may hold, so that the
// events repeating it are longer than that limit.
var longText = strings.Repeat("All work and no play. ", (17<<20)/22)

// streamEvents answers with the events, one line each, written as they are
// produced so that the test does not hold the whole body.
func streamEvents(events func(emit func(v any))) replay.Response {
	return replay.Response{Handler: func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body)
		w.Header().Set("Content-Type", "text/event-stream")
		events(func(v any) {
			b, ok := v.(ordered)
			if !ok {
				var err error
				if b, err = json.Marshal(v); err != nil {
					panic(err)
				}
			}
			// The long text needs no escaping; splicing it in keeps the
			// encoder (slow under the race detector) away from it.
			b = bytes.ReplaceAll(b, []byte(`"`+longMark+`"`), []byte(`"`+longText+`"`))
			_, _ = w.Write([]byte("data: "))
			_, _ = w.Write(b)
			_, _ = w.Write([]byte("\n\n"))
		})
	}}
}

// longMark stands for longText in the events given to streamEvents.
const longMark = "@@long text@@"

// ordered is an event written as it is, with "type" first as the API
// writes it (json.Marshal sorts map keys, which puts "type" last).
type ordered []byte

// withType renders an event whose fields follow its type.
func withType(typ string, fields map[string]any) ordered {
	b, err := json.Marshal(fields)
	if err != nil {
		panic(err)
	}
	return ordered(`{"type":"` + typ + `",` + string(b[1:]))
}

func message(text, status string) map[string]any {
	content := []any{}
	if text != "" {
		content = append(content, map[string]any{"type": "output_text", "text": text, "annotations": []any{}})
	}
	return map[string]any{"type": "message", "id": "msg_1", "role": "assistant", "status": status, "content": content}
}

func completed(output ...any) map[string]any {
	return map[string]any{"type": "response.completed", "response": map[string]any{
		"id": "resp_1", "created_at": 1, "model": "gpt-4.1", "status": "completed", "output": output,
		"usage": map[string]any{"input_tokens": 3, "output_tokens": 4},
	}}
}

// Events that repeat text streamed before them may be longer than the line
// limit: their long strings are left out and the stream goes on.
func TestResponsesLongRepeatOfStreamedText(t *testing.T) {
	srv := replay.NewServer(t, streamEvents(func(emit func(any)) {
		emit(map[string]any{"type": "response.created", "response": map[string]any{"id": "resp_1", "created_at": 1, "model": "gpt-4.1"}})
		emit(map[string]any{"type": "response.output_item.added", "output_index": 0, "item": message("", "in_progress")})
		for i := 0; i < len(longText); i += 1 << 20 {
			emit(ordered(`{"type":"response.output_text.delta","item_id":"msg_1","output_index":0,"content_index":0,"delta":"` +
				longText[i:min(i+1<<20, len(longText))] + `"}`))
		}
		emit(withType("response.output_text.done", map[string]any{"item_id": "msg_1", "output_index": 0, "content_index": 0, "text": longMark}))
		emit(withType("response.content_part.done", map[string]any{"item_id": "msg_1", "output_index": 0, "content_index": 0,
			"part": map[string]any{"type": "output_text", "text": longMark}}))
		emit(withType("response.output_item.done", map[string]any{"output_index": 0, "item": message(longMark, "completed")}))
		emit(withType("response.completed", map[string]any{"response": completed(message(longMark, "completed"))["response"]}))
	}))
	res, err := newProvider(srv).Responses("gpt-4.1").Stream(context.Background(), prompt("Write."))
	require.NoError(t, err)
	parts := replay.Collect(t, res)
	assert.Empty(t, replay.Of[provider.ErrorPart](parts))
	assert.True(t, replay.Text(parts) == longText, "the streamed text arrived whole")
	fin := replay.Of[provider.Finish](parts)
	require.Len(t, fin, 1)
	assert.Equal(t, provider.FinishStop, fin[0].FinishReason.Unified)
	assert.Equal(t, 4, *fin[0].Usage.OutputTokens.Total)
	ends := replay.Of[provider.TextEnd](parts)
	require.Len(t, ends, 1)
	assert.Equal(t, "msg_1", ends[0].ProviderMetadata["openai"]["itemId"])
}

// Content that was not streamed before cannot be left out: a long line
// holding it fails the stream, and the failure is not worth retrying.
func TestResponsesLongEventsThatCannotBeShortened(t *testing.T) {
	tests := []struct {
		name   string
		events func(emit func(any))
	}{
		{"an item that was never streamed", func(emit func(any)) {
			emit(map[string]any{"type": "response.created", "response": map[string]any{"id": "resp_1"}})
			emit(map[string]any{"type": "response.output_text.delta", "item_id": "msg_0", "output_index": 0, "delta": "Hi."})
			emit(withType("response.output_item.done", map[string]any{"output_index": 1, "item": message(longMark, "completed")}))
			emit(completed())
		}},
		{"a long delta", func(emit func(any)) {
			emit(map[string]any{"type": "response.created", "response": map[string]any{"id": "resp_1"}})
			emit(map[string]any{"type": "response.output_text.delta", "item_id": "msg_0", "output_index": 0, "delta": "Hi."})
			emit(withType("response.output_text.delta", map[string]any{"item_id": "msg_0", "output_index": 0, "delta": longMark}))
			emit(completed())
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := replay.NewServer(t, streamEvents(tt.events))
			res, err := newProvider(srv).Responses("gpt-4.1").Stream(context.Background(), prompt("Write."))
			require.NoError(t, err)
			var failure error
			var parts []provider.StreamPart
			for p, err := range res.Stream {
				if err != nil {
					failure = err
					break
				}
				if e, ok := p.(provider.ErrorPart); ok {
					failure = e.Err
				}
				parts = append(parts, p)
			}
			var apiErr *provider.APICallError
			require.ErrorAs(t, failure, &apiErr)
			assert.False(t, apiErr.Retryable)
			assert.Contains(t, apiErr.Message, "16 MiB")
			assert.Equal(t, "Hi.", replay.Text(parts))
		})
	}
}

func TestEventType(t *testing.T) {
	long := strings.Repeat("x", 100)
	tests := []struct {
		data string
		want string
	}{
		{` {"type":"response.completed","response":{}}`, "response.completed"},
		{`{"item":{"type":"message","text":"a\"b\\"},"list":[{"type":"x"}],"type" : "response.output_item.done"}`, "response.output_item.done"},
		{`{"text":"` + long + `","type":"response.output_text.done","text2":"` + long, "response.output_text.done"},
		{`{"text":"` + long, ""},
		{`{"type":1}`, ""},
		{`["type","x"]`, ""},
		{`{"a":{"type":"inner"}}`, ""},
	}
	for _, tt := range tests {
		got, ok := openai.EventType([]byte(tt.data))
		if got != tt.want || ok != (tt.want != "") {
			t.Errorf("eventType(%.60q) = %q, %v; want %q", tt.data, got, ok, tt.want)
		}
	}
}
