package aiotel_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/otel/attribute"

	"github.com/aisdkgo/ai"
	"github.com/aisdkgo/ai/aiotel"
	"github.com/aisdkgo/ai/aitest"
	"github.com/aisdkgo/ai/provider"
)

// A wait that a model call reports (a rate limiter's, from a middleware)
// is an "ai.wait" event of the model call's span, also through
// MultiObserver.
func TestModelCallWait(t *testing.T) {
	for _, multi := range []bool{false, true} {
		rec := newRecorder(t)
		model := &aitest.Model{Respond: func(ctx context.Context, _ int, _ *provider.CallOptions) (aitest.Response, error) {
			ai.ReportWait(ctx, ai.WaitInfo{Reason: "tokens", Duration: 250 * time.Millisecond, Tokens: 120})
			ai.ReportWait(ctx, ai.WaitInfo{Reason: "queue", Duration: time.Second})
			return aitest.Response{Content: []provider.Content{aitest.Text("Hi")}}, nil
		}}
		obs := rec.observer(aiotel.Options{})
		if multi {
			obs = ai.MultiObserver(obs, ai.MultiObserver())
		}
		_, err := ai.GenerateText(context.Background(), ai.GenerateTextOptions{Model: model, Prompt: "Hi", Observer: obs})
		require.NoError(t, err)

		events := rec.span(t, "chat scripted").Events()
		require.Len(t, events, 2)
		assert.Equal(t, "ai.wait", events[0].Name)
		assert.ElementsMatch(t, []attribute.KeyValue{
			attribute.String("ai.wait.reason", "tokens"),
			attribute.Float64("ai.wait.duration", 0.25),
			attribute.Int("ai.wait.tokens", 120),
		}, events[0].Attributes)
		assert.ElementsMatch(t, []attribute.KeyValue{
			attribute.String("ai.wait.reason", "queue"),
			attribute.Float64("ai.wait.duration", 1),
		}, events[1].Attributes, "no token count when none is known")
		assert.Empty(t, rec.span(t, "step 0").Events(), "the wait belongs to the model call")
	}
}
