package ai_test

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/aisdkgo/ai"
	"github.com/aisdkgo/ai/aitest"
	"github.com/aisdkgo/ai/provider"
)

// partTypes drains a stream and returns its part types and the error the
// iteration ended with.
func partTypes(res *ai.StreamTextResult) (types []string, err error) {
	for p, e := range res.Parts() {
		if e != nil {
			return types, e
		}
		types = append(types, p.PartType())
	}
	return types, nil
}

// A context that ends while a retry waits gives both paths the same error:
// a *RetryError with reason "abort" that matches the context's error and
// keeps the failed attempt's error.
func TestEndingsTimeoutDuringRetry(t *testing.T) {
	busy := &provider.APICallError{Message: "busy", StatusCode: 503, Retryable: true,
		ResponseHeaders: provider.Header(http.Header{"Retry-After": {"30"}})}
	opts := func() ai.GenerateTextOptions {
		return ai.GenerateTextOptions{Model: aitest.NewModel(aitest.Response{Err: busy}, textStep("x")), Prompt: "go"}
	}
	check := func(t *testing.T, err error) {
		t.Helper()
		require.ErrorIs(t, err, context.DeadlineExceeded)
		var re *ai.RetryError
		require.ErrorAs(t, err, &re)
		assert.Equal(t, "abort", re.Reason)
		var api *provider.APICallError
		require.ErrorAs(t, err, &api)
		assert.Equal(t, 503, api.StatusCode)
	}
	t.Run("generate", func(t *testing.T) {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Millisecond)
		defer cancel()
		_, err := ai.GenerateText(ctx, opts())
		check(t, err)
	})
	t.Run("stream", func(t *testing.T) {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Millisecond)
		defer cancel()
		res, err := ai.StreamText(ctx, opts())
		require.NoError(t, err)
		types, err := partTypes(res)
		require.NoError(t, err)
		assert.Equal(t, []string{"start", "abort"}, types)
		_, err = res.Text()
		check(t, err)
	})
}

// A context that ends during a model call ends both paths with the
// context's error.
func TestEndingsTimeoutDuringCall(t *testing.T) {
	blocked := func() *aitest.Model {
		return &aitest.Model{Respond: func(ctx context.Context, _ int, _ *provider.CallOptions) (aitest.Response, error) {
			<-ctx.Done()
			return aitest.Response{}, ctx.Err()
		}}
	}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Millisecond)
	defer cancel()
	_, err := ai.GenerateText(ctx, ai.GenerateTextOptions{Model: blocked(), Prompt: "go"})
	assert.ErrorIs(t, err, context.DeadlineExceeded)

	ctx2, cancel2 := context.WithTimeout(context.Background(), 20*time.Millisecond)
	defer cancel2()
	res, err := ai.StreamText(ctx2, ai.GenerateTextOptions{Model: blocked(), Prompt: "go"})
	require.NoError(t, err)
	types, _ := partTypes(res)
	assert.Equal(t, []string{"start", "abort"}, types)
	_, err = res.Text()
	assert.ErrorIs(t, err, context.DeadlineExceeded)
}

// A stream that ends without a finish part, as the reference rules: with
// output, the step finishes with reason "other" and no error; without any
// output, the generation fails with NoOutputGeneratedError.
func TestEndingsStreamWithoutFinish(t *testing.T) {
	withText := aitest.NewModel(aitest.Response{Chunks: []provider.StreamPart{
		provider.TextStart{ID: "1"}, provider.TextDelta{ID: "1", Delta: "hi"}, provider.TextEnd{ID: "1"},
	}})
	res, err := ai.StreamText(context.Background(), ai.GenerateTextOptions{Model: withText, Prompt: "go"})
	require.NoError(t, err)
	types, err := partTypes(res)
	require.NoError(t, err)
	assert.Equal(t, []string{"start", "start-step", "text-start", "text-delta", "text-end", "finish-step", "finish"}, types)
	text, err := res.Text()
	require.NoError(t, err)
	assert.Equal(t, "hi", text)
	fr, err := res.FinishReason()
	require.NoError(t, err)
	assert.Equal(t, ai.FinishOther, fr)

	empty := aitest.NewModel(aitest.Response{Chunks: []provider.StreamPart{}})
	res, err = ai.StreamText(context.Background(), ai.GenerateTextOptions{Model: empty, Prompt: "go"})
	require.NoError(t, err)
	types, err = partTypes(res)
	require.NoError(t, err)
	assert.Equal(t, []string{"start", "error"}, types)
	_, err = res.Text()
	var nog *ai.NoOutputGeneratedError
	assert.ErrorAs(t, err, &nog)
}

// A ToModelOutput that fails or panics: the tool's result is reported, the
// step's end is reported, and then both paths fail with the same error; no
// finish part follows.
func TestEndingsToModelOutputFailure(t *testing.T) {
	for _, mode := range []string{"error", "panic"} {
		t.Run(mode, func(t *testing.T) {
			tl := ai.NewTool(ai.ToolDef[map[string]any, string]{
				Execute: func(context.Context, map[string]any, ai.ToolExecutionOptions) (string, error) { return "ok", nil },
				ToModelOutput: func(context.Context, ai.ModelOutputOptions[map[string]any, string]) (ai.ToolResultOutput, error) {
					if mode == "panic" {
						panic("boom")
					}
					return nil, errors.New("boom")
				},
			})
			opts := func() ai.GenerateTextOptions {
				return ai.GenerateTextOptions{Model: aitest.NewModel(
					aitest.Response{Content: []provider.Content{aitest.ToolCall("c1", "t", map[string]any{})}, FinishReason: aitest.ToolCalls},
					textStep("never")),
					Prompt: "go", Tools: ai.Tools{{Name: "t", Tool: tl}}, StopWhen: ai.StepCountIs(3)}
			}
			_, genErr := ai.GenerateText(context.Background(), opts())
			require.Error(t, genErr)
			assert.Contains(t, genErr.Error(), "boom")

			res, err := ai.StreamText(context.Background(), opts())
			require.NoError(t, err)
			types, streamErr := partTypes(res)
			assert.Equal(t, []string{"start", "start-step", "tool-call", "tool-result", "finish-step"}, types)
			require.Error(t, streamErr)
			assert.Equal(t, genErr.Error(), streamErr.Error(), fmt.Sprintf("%T vs %T", genErr, streamErr))
			_, err = res.Text()
			assert.Equal(t, genErr.Error(), err.Error())
		})
	}
}
