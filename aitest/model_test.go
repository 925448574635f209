package aitest_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/aisdkgo/ai"
	"github.com/aisdkgo/ai/aitest"
	"github.com/aisdkgo/ai/provider"
)

// TestStreamReportsResponseMetadata checks that a streamed scripted
// response reports its response id, model id, timestamp and headers like a
// generated one.
func TestStreamReportsResponseMetadata(t *testing.T) {
	at := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	info := &provider.ResponseInfo{ID: "resp_1", ModelID: "model-1", Timestamp: at, Headers: provider.Header{"X-Request-Id": {"r1"}}}
	script := aitest.Response{Content: []provider.Content{aitest.Text("Hi.")}, Response: info}

	gen, err := ai.GenerateText(context.Background(), ai.GenerateTextOptions{Model: aitest.NewModel(script), Prompt: "Hello"})
	require.NoError(t, err)

	for name, r := range map[string]aitest.Response{
		"content": script,
		"chunks": {Response: info, Chunks: []provider.StreamPart{
			provider.TextStart{ID: "t"}, provider.TextDelta{ID: "t", Delta: "Hi."}, provider.TextEnd{ID: "t"},
			provider.Finish{FinishReason: provider.FinishReason{Unified: provider.FinishStop}},
		}},
	} {
		t.Run(name, func(t *testing.T) {
			s, err := ai.StreamText(context.Background(), ai.StreamTextOptions{Model: aitest.NewModel(r), Prompt: "Hello"})
			require.NoError(t, err)
			res, err := s.Wait()
			require.NoError(t, err)
			require.Len(t, res.Steps, 1)
			for _, got := range []ai.ResponseInfo{res.Steps[0].Response, gen.Steps[0].Response} {
				assert.Equal(t, "resp_1", got.ID)
				assert.Equal(t, "model-1", got.ModelID)
				assert.True(t, at.Equal(got.Timestamp), "timestamp %v", got.Timestamp)
				assert.Equal(t, "r1", got.Headers.Get("X-Request-Id"))
			}
		})
	}
}

// TestEmptyInstructionMessageIsSent checks the rule for an empty system
// prompt: an empty Instructions string is "not set", while an instruction
// message with empty content is sent, as the reference sends system: "".
func TestEmptyInstructionMessageIsSent(t *testing.T) {
	m := aitest.NewModel(aitest.Response{Content: []provider.Content{aitest.Text("ok")}})
	_, err := ai.GenerateText(context.Background(), ai.GenerateTextOptions{Model: m, Prompt: "Hi",
		InstructionMessages: []ai.SystemMessage{{Content: ""}}})
	require.NoError(t, err)
	calls := m.Calls()
	require.Len(t, calls, 1)
	require.Len(t, calls[0].Prompt, 2)
	assert.Equal(t, provider.SystemMessage{Content: ""}, calls[0].Prompt[0])
}
