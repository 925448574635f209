// Package heapprobe measures how far the heap grows while a function runs,
// for the tests and benchmarks that bound the memory a large response
// costs, and serves such responses.
package heapprobe

import (
	"context"
	"net/http"
	"net/http/httptest"
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/aisdkgo/ai"
	"github.com/aisdkgo/ai/provider"
)

// objects is the runtime metric for the bytes held by heap objects,
// reachable or not yet swept (the figure runtime.MemStats calls HeapAlloc).
const objects = "/memory/classes/heap/objects:bytes"

// Growth runs f and returns the highest heap size seen while it ran, less
// the heap size after a collection just before it. A goroutine samples the
// heap every 100µs; the collector is set to run when the heap has grown by
// gcPercent since the last collection (debug.SetGCPercent), so garbage left
// behind by f counts for little and the figure follows what f holds at
// once. The previous setting is restored before Growth returns.
//
// Between two samples the heap can rise and fall again; each allocation of
// a large block is followed by work that keeps it alive for far longer
// than a sample, so the blocks that matter are seen.
func Growth(gcPercent int, f func()) uint64 {
	old := debug.SetGCPercent(gcPercent)
	defer debug.SetGCPercent(old)
	runtime.GC()
	runtime.GC()
	base := read()
	var peak atomic.Uint64
	peak.Store(base)
	stop := make(chan struct{})
	var wg sync.WaitGroup
	wg.Go(func() {
		t := time.NewTicker(100 * time.Microsecond)
		defer t.Stop()
		for {
			if v := read(); v > peak.Load() {
				peak.Store(v)
			}
			select {
			case <-stop:
				return
			case <-t.C:
			}
		}
	})
	f()
	if v := read(); v > peak.Load() {
		peak.Store(v)
	}
	close(stop)
	wg.Wait()
	if p := peak.Load(); p > base {
		return p - base
	}
	return 0
}

func read() uint64 {
	s := []metrics.Sample{{Name: objects}}
	metrics.Read(s)
	return s[0].Value.Uint64()
}

// Prose returns about n bytes of text with line breaks, tabs and quotes, so
// that its JSON form holds escapes as a real answer's does.
func Prose(n int) string {
	const line = "The \"quick\" brown fox jumps over the lazy dog; a tab\there, then a line break.\n"
	return strings.Repeat(line, n/len(line)+1)
}

// Serve answers every request with body as JSON, with its length.
func Serve(body []byte) *httptest.Server {
	return httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.Header().Set("Content-Length", strconv.Itoa(len(body)))
		_, _ = w.Write(body)
	}))
}

// Bound is how many times the body the heap may grow by while a large
// answer is generated. The body is read into one slice of its announced
// length and decoded in place; the text is decoded with one copy; the body
// stays held as the call's raw response body. That is twice the body at
// most; the bound leaves room for the collector not having reached the
// garbage of the request and of small values yet, and for timing.
const Bound = 2.5

// CheckGenerate runs ai.GenerateText on model, which answers with body, and
// fails t unless the text is want and the heap grew by at most Bound times
// the body. It skips in -short mode and under the race detector.
func CheckGenerate(t testing.TB, model provider.LanguageModel, body []byte, want string) {
	t.Helper()
	if testing.Short() {
		t.Skip("serves a large body")
	}
	if raceEnabled {
		t.Skip("the race detector slows a large body down and changes what the heap holds")
	}
	var (
		res *ai.GenerateTextResult
		err error
	)
	grew := Growth(10, func() {
		res, err = ai.GenerateText(context.Background(), ai.GenerateTextOptions{Model: model, Prompt: "Write a lot."})
	})
	if err != nil {
		t.Fatal(err)
	}
	if res.Text != want {
		t.Fatalf("text of %d bytes, want %d", len(res.Text), len(want))
	}
	ratio := float64(grew) / float64(len(body))
	t.Logf("body %d MB, heap grew by %d MB (%.2fx)", len(body)>>20, grew>>20, ratio)
	if ratio > Bound {
		t.Errorf("heap grew by %.2fx the body, want at most %.1fx", ratio, Bound)
	}
}

// BenchGenerate runs ai.GenerateText on model, which answers with body,
// b.N times; the bytes per operation against the body's size (SetBytes)
// show how many copies a call makes.
func BenchGenerate(b *testing.B, model provider.LanguageModel, body []byte) {
	b.SetBytes(int64(len(body)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := ai.GenerateText(context.Background(), ai.GenerateTextOptions{Model: model, Prompt: "Write a lot."}); err != nil {
			b.Fatal(err)
		}
	}
}
