package providertest

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/aisdkgo/ai"
)

// forecastTool answers for any city after a delay that depends on the
// city, and fails for "Atlantis".
func forecastTool(delays map[string]time.Duration) ai.Tool {
	return ai.NewTool(ai.ToolDef[cityIn, forecastOut]{
		Description: "Get the weather forecast for a city for tomorrow.",
		Execute: func(ctx context.Context, in cityIn, _ ai.ToolExecutionOptions) (forecastOut, error) {
			select {
			case <-time.After(delays[in.City]):
			case <-ctx.Done():
				return forecastOut{}, ctx.Err()
			}
			if in.City == "Atlantis" {
				return forecastOut{}, errors.New("no forecast for Atlantis")
			}
			return forecastOut{City: in.City, Forecast: "sunny"}, nil
		},
	})
}

// TestParallelCallsAndToolErrors answers with three calls at once: the
// first finishes last and the second fails. The results must go back to the
// model in call order, the failure flagged as an error where the wire can
// say so.
func TestParallelCallsAndToolErrors(t *testing.T) {
	for _, w := range wires() {
		for _, stream := range []bool{false, true} {
			t.Run(w.name()+"/"+mode(stream), func(t *testing.T) {
				t.Parallel()
				calls := []wireCall{
					{id: w.callID(1), name: "getForecast", args: `{"city":"Lisbon"}`},
					{id: w.callID(2), name: "getForecast", args: `{"city":"Atlantis"}`},
					{id: w.callID(3), name: "getForecast", args: `{"city":"Oslo"}`},
				}
				answer := turn{id: "resp_2", text: "Lisbon and Oslo will be sunny.", input: 50, output: 9}
				srv := newServer(t, w, func(n int, req *request) reply {
					switch n {
					case 0:
						return w.respond(req.stream, turn{id: "resp_1", calls: calls, input: 40, output: 30})
					case 1:
						assert.Equal(t, calls, req.calls)
						if assert.Len(t, req.outputs, 3) {
							for i, out := range req.outputs {
								assert.Equal(t, calls[i].id, out.callID, "result %d", i)
							}
							assert.JSONEq(t, `{"city":"Lisbon","forecast":"sunny"}`, req.outputs[0].content)
							assert.Contains(t, req.outputs[1].content, "no forecast for Atlantis")
							assert.JSONEq(t, `{"city":"Oslo","forecast":"sunny"}`, req.outputs[2].content)
							if _, ok := w.(anthropicWire); ok {
								assert.Equal(t, []bool{false, true, false},
									[]bool{req.outputs[0].isError, req.outputs[1].isError, req.outputs[2].isError})
							}
						}
						return w.respond(req.stream, answer)
					}
					t.Errorf("unexpected request %d", n+1)
					return errorReply(400, w.errorBody(400, "unexpected request"))
				})
				opts := options(w, srv)
				opts.Tools = ai.Tools{{Name: "getForecast", Tool: forecastTool(map[string]time.Duration{"Lisbon": 30 * time.Millisecond})}}
				opts.StopWhen = ai.StepCountIs(3)
				ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
				defer cancel()
				o := generate(ctx, t, stream, opts)

				require.NoError(t, o.err)
				assert.Empty(t, o.errorParts())
				assert.Equal(t, 2, srv.count(), "requests")
				require.Len(t, o.res.Steps, 2)
				assert.Equal(t, answer.text, o.res.Text)
				first := o.res.Steps[0]
				if got := first.ToolCalls(); assert.Len(t, got, 3) {
					for i, c := range got {
						assert.Equal(t, calls[i].id, c.ToolCallID)
					}
				}
				// StreamText records results as they complete, GenerateText
				// in call order; the model gets them in call order either way.
				var ids []string
				for _, r := range first.ToolResults() {
					ids = append(ids, r.ToolCallID)
				}
				assert.ElementsMatch(t, []string{calls[0].id, calls[2].id}, ids)
				if errs := first.ToolErrors(); assert.Len(t, errs, 1) {
					assert.Equal(t, calls[1].id, errs[0].ToolCallID)
					assert.EqualError(t, errs[0].Error, "no forecast for Atlantis")
				}
				assert.Equal(t, 90, deref(o.res.Usage.InputTokens))
				assert.Equal(t, 39, deref(o.res.Usage.OutputTokens))
			})
		}
	}
}
