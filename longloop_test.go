package ai_test

import (
	"context"
	"fmt"
	"runtime"
	"testing"

	"github.com/aisdkgo/ai"
	"github.com/aisdkgo/ai/provider"
)

// longLoop is a generation of n steps: the model calls tool a once in each
// step but the last, which answers with text. Its responses are made before
// the generation, so measuring it measures the library.
type longLoop struct {
	n         int
	responses []*provider.GenerateResult
	chunks    [][]provider.StreamPart
	tools     ai.Tools
}

func newLongLoop(n int) *longLoop {
	l := &longLoop{n: n}
	l.tools = ai.Tools{{Name: "a", Tool: ai.NewTool(ai.ToolDef[loopIn, loopOut]{
		Description: "a",
		Execute: func(_ context.Context, in loopIn, _ ai.ToolExecutionOptions) (loopOut, error) {
			return loopOut{Y: in.X}, nil
		},
	})}}
	callFinish := provider.FinishReason{Unified: provider.FinishToolCalls, Raw: "tool_calls"}
	stopFinish := provider.FinishReason{Unified: provider.FinishStop, Raw: "stop"}
	for i := range n - 1 {
		call := provider.ToolCall{ToolCallID: fmt.Sprintf("c%d", i), ToolName: "a", Input: `{"x":1}`}
		l.responses = append(l.responses, &provider.GenerateResult{Content: []provider.Content{call}, FinishReason: callFinish, Usage: benchUsage})
		l.chunks = append(l.chunks, []provider.StreamPart{call, provider.Finish{FinishReason: callFinish, Usage: benchUsage}})
	}
	l.responses = append(l.responses, &provider.GenerateResult{Content: []provider.Content{provider.Text{Text: "done"}}, FinishReason: stopFinish, Usage: benchUsage})
	l.chunks = append(l.chunks, []provider.StreamPart{
		provider.TextStart{ID: "t"}, provider.TextDelta{ID: "t", Delta: "done"}, provider.TextEnd{ID: "t"},
		provider.Finish{FinishReason: stopFinish, Usage: benchUsage},
	})
	return l
}

// longModel plays a longLoop's steps in turn.
type longModel struct {
	l    *longLoop
	step int
}

func (m *longModel) Provider() string { return "bench" }
func (m *longModel) ModelID() string  { return "bench" }

func (m *longModel) Generate(context.Context, *provider.CallOptions) (*provider.GenerateResult, error) {
	r := m.l.responses[m.step]
	m.step++
	return r, nil
}

func (m *longModel) Stream(context.Context, *provider.CallOptions) (*provider.StreamResult, error) {
	chunks := m.l.chunks[m.step]
	m.step++
	return &provider.StreamResult{Stream: func(yield func(provider.StreamPart, error) bool) {
		for _, p := range chunks {
			if !yield(p, nil) {
				return
			}
		}
	}}, nil
}

// run runs the generation, streamed or not, and checks its result.
func (l *longLoop) run(tb testing.TB, stream bool) {
	opts := ai.GenerateTextOptions{
		Model:    &longModel{l: l},
		Tools:    l.tools,
		StopWhen: ai.StepCountIs(l.n),
		Prompt:   "x",
	}
	var res *ai.GenerateTextResult
	var err error
	if stream {
		var s *ai.StreamTextResult
		if s, err = ai.StreamText(context.Background(), opts); err == nil {
			for _, perr := range s.Parts() {
				if perr != nil {
					tb.Fatal(perr)
				}
			}
			res, err = s.Wait()
		}
	} else {
		res, err = ai.GenerateText(context.Background(), opts)
	}
	if err != nil || res.Text != "done" || len(res.Steps) != l.n || len(res.ResponseMessages) != 2*l.n-1 {
		tb.Fatalf("err %v, text %q, %d steps, %d response messages", err, res.Text, len(res.Steps), len(res.ResponseMessages))
	}
}

func benchmarkLongLoop(b *testing.B, n int, stream bool) {
	l := newLongLoop(n)
	b.ReportAllocs()
	for b.Loop() {
		l.run(b, stream)
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*n), "ns/step")
}

func BenchmarkGenerateTextSteps100(b *testing.B)  { benchmarkLongLoop(b, 100, false) }
func BenchmarkGenerateTextSteps1000(b *testing.B) { benchmarkLongLoop(b, 1000, false) }
func BenchmarkGenerateTextSteps2000(b *testing.B) { benchmarkLongLoop(b, 2000, false) }
func BenchmarkStreamTextSteps100(b *testing.B)    { benchmarkLongLoop(b, 100, true) }
func BenchmarkStreamTextSteps1000(b *testing.B)   { benchmarkLongLoop(b, 1000, true) }
func BenchmarkStreamTextSteps2000(b *testing.B)   { benchmarkLongLoop(b, 2000, true) }

// TestAllocationPerStepIsConstant checks that a long generation allocates
// about the same per step whatever its length: what it keeps grows by
// append, and nothing is copied whole every step. Bytes and allocations
// per step at 100, 1,000 and 2,000 steps stay within 20% of each other.
func TestAllocationPerStepIsConstant(t *testing.T) {
	for _, stream := range []bool{false, true} {
		name := "GenerateText"
		if stream {
			name = "StreamText"
		}
		t.Run(name, func(t *testing.T) {
			var bytes, allocs []float64
			for _, n := range []int{100, 1000, 2000} {
				l := newLongLoop(n)
				l.run(t, stream) // warm up: caches, the tool index
				// The least of a few runs, so that an allocation elsewhere
				// in the process does not count.
				b := perStep(t, l, stream)
				for range 2 {
					nb := perStep(t, l, stream)
					b[0], b[1] = min(b[0], nb[0]), min(b[1], nb[1])
				}
				bytes, allocs = append(bytes, b[0]), append(allocs, b[1])
				t.Logf("%d steps: %.0f bytes and %.1f allocations per step", n, b[0], b[1])
			}
			for _, m := range [][]float64{bytes, allocs} {
				lo, hi := m[0], m[0]
				for _, v := range m {
					lo, hi = min(lo, v), max(hi, v)
				}
				if hi > 1.2*lo {
					t.Errorf("per-step figures %v differ by more than 20%%", m)
				}
			}
		})
	}
}

// perStep returns the bytes and allocations of one run of l, per step.
func perStep(t *testing.T, l *longLoop, stream bool) [2]float64 {
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	l.run(t, stream)
	runtime.ReadMemStats(&after)
	n := float64(l.n)
	return [2]float64{float64(after.TotalAlloc-before.TotalAlloc) / n, float64(after.Mallocs-before.Mallocs) / n}
}
