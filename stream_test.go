package ai_test

import (
	"context"
	"errors"
	"fmt"
	"iter"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"

	"github.com/aisdkgo/ai"
	"github.com/aisdkgo/ai/aitest"
	"github.com/aisdkgo/ai/provider"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// describe renders a part compactly for order assertions.
func describe(p ai.Part) string {
	switch p := p.(type) {
	case ai.TextDelta:
		return "text-delta " + p.Delta
	case ai.ToolCall:
		if p.Invalid {
			return "tool-call " + p.ToolName + " invalid"
		}
		return "tool-call " + p.ToolName
	case ai.ToolResult:
		if p.Preliminary {
			return fmt.Sprintf("tool-result %s preliminary %v", p.ToolName, p.Output)
		}
		return fmt.Sprintf("tool-result %s", p.ToolName)
	case ai.ToolError:
		return "tool-error " + p.ToolName
	case ai.FinishStep:
		return "finish-step " + string(p.FinishReason)
	case ai.Finish:
		return "finish " + string(p.FinishReason)
	case ai.ErrorPart:
		return "error"
	case ai.Abort:
		return "abort"
	}
	return p.PartType()
}

func collect(t *testing.T, res *ai.StreamTextResult) ([]string, error) {
	t.Helper()
	var out []string
	for p, err := range res.Parts() {
		if err != nil {
			return out, err
		}
		out = append(out, describe(p))
	}
	return out, nil
}

func chunks(parts ...provider.StreamPart) aitest.Response { return aitest.Response{Chunks: parts} }

func finish(reason provider.FinishReasonKind) provider.Finish {
	return provider.Finish{FinishReason: provider.FinishReason{Unified: reason}}
}

func TestStreamPartsOfASearchRun(t *testing.T) {
	forecast := ai.NewTool(ai.ToolDef[weatherIn, string]{
		Description:  "weather forecast",
		DeferLoading: true,
		ExecuteStream: func(_ context.Context, in weatherIn, _ ai.ToolExecutionOptions) iter.Seq2[string, error] {
			return func(yield func(string, error) bool) {
				_ = yield("loading", nil) && yield("rain in "+in.City, nil)
			}
		},
	})
	model := aitest.NewModel(
		chunks(
			provider.TextStart{ID: "t"}, provider.TextDelta{ID: "t", Delta: "Searching"}, provider.TextEnd{ID: "t"},
			provider.ToolInputStart{ID: "c1", ToolName: "search"},
			provider.ToolInputDelta{ID: "c1", Delta: `{"query":`}, provider.ToolInputDelta{ID: "c1", Delta: `"forecast"}`},
			provider.ToolInputEnd{ID: "c1"},
			provider.ToolCall{ToolCallID: "c1", ToolName: "search", Input: `{"query":"forecast"}`},
			provider.ToolCall{ToolCallID: "c2", ToolName: "forecast", Input: `{"city":"Paris"}`},
			finish(provider.FinishToolCalls)),
		chunks(provider.ToolCall{ToolCallID: "c3", ToolName: "forecast", Input: `{"city":"Paris"}`}, finish(provider.FinishToolCalls)),
		chunks(provider.TextStart{ID: "t"}, provider.TextDelta{ID: "t", Delta: "Rain"}, provider.TextEnd{ID: "t"}, finish(provider.FinishStop)),
	)
	res, err := ai.StreamText(context.Background(), ai.StreamTextOptions{
		Model: model, Tools: ai.Tools{{Name: "search", Tool: ai.ToolSearch()}, {Name: "forecast", Tool: forecast}},
		StopWhen: ai.StepCountIs(5), Prompt: "Rain in Paris?",
	})
	require.NoError(t, err)
	parts, err := collect(t, res)
	require.NoError(t, err)
	assert.Equal(t, []string{
		"start",
		"start-step", "text-start", "text-delta Searching", "text-end",
		"tool-input-start", "tool-input-delta", "tool-input-delta", "tool-input-end",
		"tool-call search", "tool-call forecast invalid", "tool-error forecast",
		"tool-result search", "finish-step tool-calls",
		"start-step", "tool-call forecast",
		"tool-result forecast preliminary loading", "tool-result forecast preliminary rain in Paris", "tool-result forecast",
		"finish-step tool-calls",
		"start-step", "text-start", "text-delta Rain", "text-end", "finish-step stop",
		"finish stop",
	}, parts)
	steps, err := res.Steps()
	require.NoError(t, err)
	require.Len(t, steps, 3)
	assert.Len(t, steps[1].ToolResults(), 1, "preliminary results are not recorded")
	text, err := res.Text()
	require.NoError(t, err)
	assert.Equal(t, "Rain", text)
	// The text id "t" of the last step was already used: it is replaced.
	assert.Equal(t, "Searching", steps[0].Text())
}

// endlessModel streams text deltas until the reader stops, recording
// whether the stream was closed.
type endlessModel struct {
	produced atomic.Int64
	closed   atomic.Bool
}

func (m *endlessModel) Provider() string { return "endless" }
func (m *endlessModel) ModelID() string  { return "endless" }
func (m *endlessModel) Generate(context.Context, *provider.CallOptions) (*provider.GenerateResult, error) {
	return nil, errors.New("not supported")
}
func (m *endlessModel) Stream(ctx context.Context, _ *provider.CallOptions) (*provider.StreamResult, error) {
	return &provider.StreamResult{Stream: func(yield func(provider.StreamPart, error) bool) {
		defer m.closed.Store(true)
		if !yield(provider.TextStart{ID: "t"}, nil) {
			return
		}
		for {
			if err := ctx.Err(); err != nil {
				yield(nil, err)
				return
			}
			m.produced.Add(1)
			if !yield(provider.TextDelta{ID: "t", Delta: "x"}, nil) {
				return
			}
		}
	}}, nil
}

func TestStreamEarlyBreakStopsTheModel(t *testing.T) {
	m := &endlessModel{}
	res, err := ai.StreamText(context.Background(), ai.StreamTextOptions{Model: m, Prompt: "go"})
	require.NoError(t, err)
	n := 0
	for p, err := range res.Parts() {
		require.NoError(t, err)
		if _, ok := p.(ai.TextDelta); ok {
			n++
			if n == 3 {
				break
			}
		}
	}
	assert.True(t, m.closed.Load(), "the provider stream is closed")
	assert.Equal(t, int64(3), m.produced.Load(), "nothing was produced ahead of the reader")
	_, err = res.Wait()
	assert.ErrorIs(t, err, ai.ErrStreamStopped)
}

func TestStreamIsPulledByTheReader(t *testing.T) {
	m := &endlessModel{}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	res, err := ai.StreamText(ctx, ai.StreamTextOptions{Model: m, Prompt: "go"})
	require.NoError(t, err)
	read := int64(0)
	for p, err := range res.Parts() {
		require.NoError(t, err)
		if _, ok := p.(ai.TextDelta); ok {
			read++
			assert.LessOrEqual(t, m.produced.Load()-read, int64(1), "a slow reader holds the model back")
			if read == 50 {
				cancel()
			}
		}
	}
	assert.True(t, m.closed.Load())
}

func TestStreamCancellationMidTool(t *testing.T) {
	started := make(chan struct{})
	var toolSawCancel atomic.Bool
	tool := ai.NewTool(ai.ToolDef[struct{}, int]{Execute: func(ctx context.Context, _ struct{}, _ ai.ToolExecutionOptions) (int, error) {
		close(started)
		<-ctx.Done()
		toolSawCancel.Store(true)
		return 0, ctx.Err()
	}})
	ctx, cancel := context.WithCancel(context.Background())
	res, err := ai.StreamText(ctx, ai.StreamTextOptions{
		Model: aitest.NewModel(chunks(provider.ToolCall{ToolCallID: "c1", ToolName: "wait", Input: `{}`}, finish(provider.FinishToolCalls))),
		Tools: ai.Tools{{Name: "wait", Tool: tool}}, StopWhen: ai.StepCountIs(3), Prompt: "go",
	})
	require.NoError(t, err)
	go func() {
		<-started
		cancel()
	}()
	parts, err := collect(t, res)
	require.NoError(t, err)
	assert.Equal(t, []string{"start", "start-step", "tool-call wait", "abort"}, parts)
	assert.True(t, toolSawCancel.Load())
	_, err = res.Wait()
	assert.ErrorIs(t, err, context.Canceled)
}

func TestStreamProviderErrorMidStream(t *testing.T) {
	res, err := ai.StreamText(context.Background(), ai.StreamTextOptions{
		Model: aitest.NewModel(chunks(
			provider.TextStart{ID: "t"}, provider.TextDelta{ID: "t", Delta: "Hi"},
			provider.ErrorPart{Err: errors.New("provider blew")},
			provider.TextEnd{ID: "t"}, finish(provider.FinishStop))),
		Prompt: "go",
	})
	require.NoError(t, err)
	parts, err := collect(t, res)
	require.NoError(t, err)
	assert.Equal(t, []string{"start", "start-step", "text-start", "text-delta Hi", "error", "text-end", "finish-step stop", "finish stop"}, parts)
	// The accessors report the failure, and keep the partial result.
	text, err := res.Text()
	var failed *ai.StreamFailedError
	require.ErrorAs(t, err, &failed)
	assert.EqualError(t, failed.Errs[0], "provider blew")
	assert.Equal(t, "Hi", text)
	steps, err := res.Steps()
	assert.ErrorAs(t, err, &failed)
	assert.Len(t, steps, 1)
}

func TestStreamWithoutFinish(t *testing.T) {
	res, err := ai.StreamText(context.Background(), ai.StreamTextOptions{
		Model: aitest.NewModel(chunks(provider.StreamStart{})), Prompt: "go",
	})
	require.NoError(t, err)
	parts, err := collect(t, res)
	require.NoError(t, err)
	assert.Equal(t, []string{"start", "error"}, parts)
	_, err = res.Text()
	var nog *ai.NoOutputGeneratedError
	assert.ErrorAs(t, err, &nog)

	res, err = ai.StreamText(context.Background(), ai.StreamTextOptions{
		Model: aitest.NewModel(chunks(provider.TextStart{ID: "t"}, provider.TextDelta{ID: "t", Delta: "partial"})), Prompt: "go",
	})
	require.NoError(t, err)
	parts, err = collect(t, res)
	require.NoError(t, err)
	assert.Equal(t, []string{"start", "start-step", "text-start", "text-delta partial", "finish-step other", "finish other"}, parts)
	text, err := res.Text()
	require.NoError(t, err)
	assert.Equal(t, "partial", text)
}

func TestStreamModelCallFails(t *testing.T) {
	res, err := ai.StreamText(context.Background(), ai.StreamTextOptions{
		Model: aitest.NewModel(aitest.Response{Err: &provider.APICallError{Message: "down", StatusCode: 400}}), Prompt: "go",
	})
	require.NoError(t, err)
	parts, err := collect(t, res)
	require.NoError(t, err)
	assert.Equal(t, []string{"start", "error"}, parts)
	_, err = res.Wait()
	var api *provider.APICallError
	assert.ErrorAs(t, err, &api)
}

func TestStreamInputCallbacks(t *testing.T) {
	var mu sync.Mutex
	var events []string
	record := func(s string) {
		mu.Lock()
		events = append(events, s)
		mu.Unlock()
	}
	tool := ai.NewTool(ai.ToolDef[weatherIn, string]{
		OnInputStart: func(context.Context, ai.ToolExecutionOptions) error { record("cb:start"); return nil },
		OnInputDelta: func(_ context.Context, d string, _ ai.ToolExecutionOptions) error {
			record("cb:delta " + d)
			return nil
		},
		OnInputAvailable: func(_ context.Context, in weatherIn, _ ai.ToolExecutionOptions) error {
			record("cb:available " + in.City)
			return nil
		},
		Execute: func(_ context.Context, in weatherIn, _ ai.ToolExecutionOptions) (string, error) {
			record("exec")
			return in.City, nil
		},
	})
	res, err := ai.StreamText(context.Background(), ai.StreamTextOptions{
		Model: aitest.NewModel(chunks(
			provider.ToolInputStart{ID: "c1", ToolName: "w"},
			provider.ToolInputDelta{ID: "c1", Delta: `{"city":"Paris"}`},
			provider.ToolInputEnd{ID: "c1"},
			provider.ToolCall{ToolCallID: "c1", ToolName: "w", Input: `{"city":"Paris"}`},
			finish(provider.FinishToolCalls))),
		Tools: ai.Tools{{Name: "w", Tool: tool}}, Prompt: "go",
	})
	require.NoError(t, err)
	for p, err := range res.Parts() {
		require.NoError(t, err)
		record("part:" + describe(p))
	}
	assert.Equal(t, []string{
		"part:start", "part:start-step",
		"cb:start", "part:tool-input-start",
		"cb:delta {\"city\":\"Paris\"}", "part:tool-input-delta",
		"part:tool-input-end",
		"cb:available Paris", "part:tool-call w",
		"exec", "part:tool-result w",
		"part:finish-step tool-calls", "part:finish tool-calls",
	}, events)

	failing := ai.NewTool(ai.ToolDef[weatherIn, string]{
		OnInputStart: func(context.Context, ai.ToolExecutionOptions) error { return errors.New("hook failed") },
		Execute:      func(context.Context, weatherIn, ai.ToolExecutionOptions) (string, error) { return "", nil },
	})
	res, err = ai.StreamText(context.Background(), ai.StreamTextOptions{
		Model: aitest.NewModel(chunks(provider.ToolInputStart{ID: "c1", ToolName: "w"}, finish(provider.FinishToolCalls))),
		Tools: ai.Tools{{Name: "w", Tool: failing}}, Prompt: "go",
	})
	require.NoError(t, err)
	_, err = collect(t, res)
	assert.EqualError(t, err, "hook failed")
	_, err = res.Wait()
	assert.EqualError(t, err, "hook failed")
}

func TestStreamMalformedPartsDoNotPanic(t *testing.T) {
	res, err := ai.StreamText(context.Background(), ai.StreamTextOptions{
		Model: aitest.NewModel(chunks(
			provider.ToolInputDelta{ID: "nobody", Delta: "{"},
			provider.TextDelta{ID: "unopened", Delta: "x"},
			provider.TextEnd{ID: "never"},
			provider.ToolCall{ToolCallID: "c1", ToolName: "echo", Input: `{"a":`},
			provider.ToolApprovalRequest{ApprovalID: "a1", ToolCallID: "ghost"},
			nil,
			finish(provider.FinishToolCalls))),
		Tools: ai.Tools{{Name: "echo", Tool: echoTool()}}, Prompt: "go",
	})
	require.NoError(t, err)
	parts, err := collect(t, res)
	require.NoError(t, err)
	// Deltas and ends of blocks that were never started are streamed and
	// followed by an error part, as in the reference.
	assert.Equal(t, []string{"start", "start-step", "tool-input-delta", "text-delta x", "error", "text-end", "error",
		"tool-call echo invalid", "tool-error echo", "error", "finish-step tool-calls", "finish tool-calls"}, parts)
	steps, err := res.Steps()
	var protocol *ai.StreamProtocolError
	require.ErrorAs(t, err, &protocol)
	assert.Equal(t, "text part unopened not found", protocol.Message)
	assert.Empty(t, steps[0].Text(), "the orphan delta is not kept")
}

func TestStreamAccessorsWithoutReading(t *testing.T) {
	res, err := ai.StreamText(context.Background(), ai.StreamTextOptions{
		Model: aitest.NewModel(textStep("hello there")), Prompt: "go",
	})
	require.NoError(t, err)
	text, err := res.Text()
	require.NoError(t, err)
	assert.Equal(t, "hello there", text)
	usage, err := res.Usage()
	require.NoError(t, err)
	assert.Nil(t, usage.TotalTokens)
	for _, err := range res.Parts() {
		assert.ErrorIs(t, err, ai.ErrStreamConsumed)
	}
	var sb strings.Builder
	res, err = ai.StreamText(context.Background(), ai.StreamTextOptions{Model: aitest.NewModel(textStep("abc")), Prompt: "go"})
	require.NoError(t, err)
	for s, err := range res.TextStream() {
		require.NoError(t, err)
		sb.WriteString(s)
	}
	assert.Equal(t, "abc", sb.String())
}

func TestStreamToolsFinishInCompletionOrder(t *testing.T) {
	// Call a finishes only once the reader has seen b's result: the order
	// comes from events, not from durations.
	bSeen := make(chan struct{})
	wait := ai.NewTool(ai.ToolDef[struct {
		Wait bool `json:"wait"`
	}, bool]{
		Execute: func(ctx context.Context, in struct {
			Wait bool `json:"wait"`
		}, _ ai.ToolExecutionOptions) (bool, error) {
			if in.Wait {
				select {
				case <-bSeen:
				case <-ctx.Done():
					return false, ctx.Err()
				}
			}
			return in.Wait, nil
		},
	})
	res, err := ai.StreamText(context.Background(), ai.StreamTextOptions{
		Model: aitest.NewModel(chunks(
			provider.ToolCall{ToolCallID: "a", ToolName: "d", Input: `{"wait":true}`},
			provider.ToolCall{ToolCallID: "b", ToolName: "d", Input: `{"wait":false}`},
			finish(provider.FinishToolCalls))),
		Tools: ai.Tools{{Name: "d", Tool: wait}}, Prompt: "go",
	})
	require.NoError(t, err)
	var order []string
	for p, err := range res.Parts() {
		require.NoError(t, err)
		if r, ok := p.(ai.ToolResult); ok {
			order = append(order, r.ToolCallID)
			if r.ToolCallID == "b" {
				close(bSeen)
			}
		}
	}
	assert.Equal(t, []string{"b", "a"}, order)
	msgs, err := res.ResponseMessages()
	require.NoError(t, err)
	tool := msgs[1].(ai.ToolMessage)
	assert.Equal(t, "a", tool.Content[0].(ai.ToolResultPart).ToolCallID, "the tool message follows call order")
}

// stubbornModel streams text deltas and goes on after it was told to stop.
type stubbornModel struct{}

func (stubbornModel) Provider() string { return "test" }
func (stubbornModel) ModelID() string  { return "stubborn" }
func (stubbornModel) Generate(context.Context, *provider.CallOptions) (*provider.GenerateResult, error) {
	return nil, errors.New("not used")
}
func (stubbornModel) Stream(context.Context, *provider.CallOptions) (*provider.StreamResult, error) {
	return &provider.StreamResult{Stream: func(yield func(provider.StreamPart, error) bool) {
		yield(provider.TextStart{ID: "t"}, nil)
		for range 5 {
			yield(provider.TextDelta{ID: "t", Delta: "x"}, nil) // the result is ignored
		}
		yield(provider.TextEnd{ID: "t"}, nil)
		yield(provider.Finish{FinishReason: provider.FinishReason{Unified: provider.FinishStop}}, nil)
	}}, nil
}

// TestStreamIgnoresAModelThatGoesOnAfterStop: a model stream that keeps
// yielding after the reader stopped neither crashes nor reaches the reader.
func TestStreamIgnoresAModelThatGoesOnAfterStop(t *testing.T) {
	for _, observed := range []bool{false, true} {
		opts := ai.GenerateTextOptions{Model: stubbornModel{}, Prompt: "hi"}
		if observed {
			opts.Observer = &eventLog{}
		}
		st, err := ai.StreamText(context.Background(), opts)
		require.NoError(t, err)
		seen := 0
		for part, err := range st.Parts() {
			require.NoError(t, err)
			seen++
			if _, ok := part.(ai.TextDelta); ok {
				break
			}
		}
		_, err = st.Wait()
		assert.ErrorIs(t, err, ai.ErrStreamStopped)
		assert.Equal(t, 4, seen) // start, start-step, text-start, the first delta
	}
}

// erringStubbornModel reports an error in its stream and goes on yielding.
type erringStubbornModel struct{ stubbornModel }

func (erringStubbornModel) Stream(context.Context, *provider.CallOptions) (*provider.StreamResult, error) {
	return &provider.StreamResult{Stream: func(yield func(provider.StreamPart, error) bool) {
		yield(provider.TextStart{ID: "t"}, nil)
		yield(provider.TextDelta{ID: "t", Delta: "a"}, nil)
		yield(nil, errors.New("connection reset")) // the result is ignored
		yield(provider.TextDelta{ID: "t", Delta: "b"}, nil)
		yield(provider.TextEnd{ID: "t"}, nil)
		yield(provider.Finish{FinishReason: provider.FinishReason{Unified: provider.FinishStop}}, nil)
	}}, nil
}

// TestStreamIgnoresPartsAfterAnError: once a model stream reported an
// error, what it yields after is neither streamed nor kept.
func TestStreamIgnoresPartsAfterAnError(t *testing.T) {
	st, err := ai.StreamText(context.Background(), ai.GenerateTextOptions{Model: erringStubbornModel{}, Prompt: "hi"})
	require.NoError(t, err)
	var kinds []string
	for part, err := range st.Parts() {
		require.NoError(t, err)
		kinds = append(kinds, part.PartType())
	}
	assert.Equal(t, []string{"start", "start-step", "text-start", "text-delta", "error", "finish-step", "finish"}, kinds)
	steps, _ := st.Steps()
	require.Len(t, steps, 1)
	assert.Equal(t, "a", steps[0].Text())
	assert.Equal(t, ai.FinishError, steps[0].FinishReason)
}
