package google_test

import (
	"strconv"
	"testing"

	"github.com/aisdkgo/ai/internal/heapprobe"
	"github.com/aisdkgo/ai/providers/google"
)

func largeBody(text string) []byte {
	return []byte(`{"candidates":[{"content":{"role":"model","parts":[{"text":` + strconv.Quote(text) + `}]},"finishReason":"STOP"}],` +
		`"usageMetadata":{"promptTokenCount":4,"candidatesTokenCount":4},"modelVersion":"gemini-2.5-flash","responseId":"r1"}`)
}

// TestLargeBodyHeap generates from a 50 MB generateContent answer and
// bounds the heap it takes (see heapprobe.Bound).
func TestLargeBodyHeap(t *testing.T) {
	text := heapprobe.Prose(50 << 20)
	body := largeBody(text)
	srv := heapprobe.Serve(body)
	defer srv.Close()
	heapprobe.CheckGenerate(t, google.New(google.WithAPIKey("k"), google.WithBaseURL(srv.URL)).Model("gemini-2.5-flash"), body, text)
}

// BenchmarkLargeBody generates from an 8 MB generateContent answer.
func BenchmarkLargeBody(b *testing.B) {
	body := largeBody(heapprobe.Prose(8 << 20))
	srv := heapprobe.Serve(body)
	defer srv.Close()
	heapprobe.BenchGenerate(b, google.New(google.WithAPIKey("k"), google.WithBaseURL(srv.URL)).Model("gemini-2.5-flash"), body)
}
