package openai_test

import (
	"strconv"
	"testing"

	"github.com/aisdkgo/ai/internal/heapprobe"
	"github.com/aisdkgo/ai/providers/openai"
)

func largeResponsesBody(text string) []byte {
	return []byte(`{"id":"resp_1","created_at":1,"model":"gpt-5","output":[{"type":"message","id":"msg_1","role":"assistant",` +
		`"content":[{"type":"output_text","text":` + strconv.Quote(text) + `,"annotations":[]}]}],` +
		`"usage":{"input_tokens":12,"output_tokens":7}}`)
}

func largeChatBody(text string) []byte {
	return []byte(`{"id":"c1","created":1,"model":"gpt-4o","choices":[{"index":0,"message":{"role":"assistant","content":` +
		strconv.Quote(text) + `},"finish_reason":"stop"}],"usage":{"prompt_tokens":10,"completion_tokens":5}}`)
}

// TestResponsesLargeBodyHeap generates from a 50 MB Responses answer and
// bounds the heap it takes (see heapprobe.Bound).
func TestResponsesLargeBodyHeap(t *testing.T) {
	text := heapprobe.Prose(50 << 20)
	body := largeResponsesBody(text)
	srv := heapprobe.Serve(body)
	defer srv.Close()
	heapprobe.CheckGenerate(t, openai.New(openai.WithAPIKey("k"), openai.WithBaseURL(srv.URL)).Model("gpt-5"), body, text)
}

// TestChatLargeBodyHeap does the same over Chat Completions.
func TestChatLargeBodyHeap(t *testing.T) {
	text := heapprobe.Prose(50 << 20)
	body := largeChatBody(text)
	srv := heapprobe.Serve(body)
	defer srv.Close()
	heapprobe.CheckGenerate(t, openai.New(openai.WithAPIKey("k"), openai.WithBaseURL(srv.URL)).Chat("gpt-4o"), body, text)
}

// BenchmarkResponsesLargeBody generates from an 8 MB Responses answer.
func BenchmarkResponsesLargeBody(b *testing.B) {
	body := largeResponsesBody(heapprobe.Prose(8 << 20))
	srv := heapprobe.Serve(body)
	defer srv.Close()
	heapprobe.BenchGenerate(b, openai.New(openai.WithAPIKey("k"), openai.WithBaseURL(srv.URL)).Model("gpt-5"), body)
}

// BenchmarkChatLargeBody generates from an 8 MB Chat Completions answer.
func BenchmarkChatLargeBody(b *testing.B) {
	body := largeChatBody(heapprobe.Prose(8 << 20))
	srv := heapprobe.Serve(body)
	defer srv.Close()
	heapprobe.BenchGenerate(b, openai.New(openai.WithAPIKey("k"), openai.WithBaseURL(srv.URL)).Chat("gpt-4o"), body)
}
