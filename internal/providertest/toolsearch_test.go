package providertest

import (
	"context"
	"fmt"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/aisdkgo/ai"
)

type cityIn struct {
	City string `json:"city" jsonschema:"the city"`
}

type forecastOut struct {
	City     string `json:"city"`
	Forecast string `json:"forecast"`
}

type zoneIn struct {
	Zone string `json:"zone" jsonschema:"an IANA time zone"`
}

type quantityIn struct {
	Value float64 `json:"value"`
	From  string  `json:"from"`
	To    string  `json:"to"`
}

const (
	searchInput   = `{"query":"weather forecast"}`
	forecastInput = `{"city":"Bangalore"}`
	stepTwoText   = "Checking the forecast."
	finalText     = "Yes: heavy rain is expected in Bangalore tomorrow afternoon, around 24°C."
	// foundTools is the search result the model must receive: the
	// matching deferred tools, best first.
	foundTools = `{"tools":[
		{"name":"getForecast","description":"Get the weather forecast for a city for tomorrow."},
		{"name":"getWeatherAlerts","description":"List the active storm and heat alerts for a region."}]}`
	forecastOutput = `{"city":"Bangalore","forecast":"heavy rain in the afternoon, 24°C"}`
)

var (
	// firstTools are sent before any search: the tools that are not
	// deferred, the search tool among them, in registration order.
	firstTools = []string{"getTime", "search", "convertUnits"}
	// laterTools are sent once the search found two deferred tools: each
	// at its registration position, not in ranking order.
	laterTools = []string{"getTime", "search", "getWeatherAlerts", "getForecast", "convertUnits"}
)

// searchTools registers a search tool and ten deferred tools between two
// tools that are always sent. forecasts counts the executions of
// getForecast; each must carry wantCallID.
func searchTools(forecasts *atomic.Int32, wantCallID string) ai.Tools {
	tools := ai.Tools{
		{Name: "getTime", Tool: ai.NewTool(ai.ToolDef[zoneIn, string]{
			Description: "Get the current time in a time zone.",
			Execute: func(context.Context, zoneIn, ai.ToolExecutionOptions) (string, error) {
				return "12:00", nil
			},
		})},
		{Name: "search", Tool: ai.ToolSearch()},
	}
	deferred := []struct{ name, desc string }{
		{"sendEmail", "Send an email to a recipient."},
		{"getWeatherAlerts", "List the active storm and heat alerts for a region."},
		{"createInvoice", "Create an invoice for a customer."},
		{"getForecast", ""},
		{"refundPayment", "Refund a card payment."},
		{"getStockPrice", "Get the latest price of a stock."},
		{"translateText", "Translate text into another language."},
		{"bookFlight", "Book a flight between two cities."},
		{"scheduleMeeting", "Schedule a calendar meeting."},
		{"getExchangeRate", "Get the exchange rate between two currencies."},
	}
	for _, d := range deferred {
		if d.name == "getForecast" {
			tools = append(tools, ai.NamedTool{Name: d.name, Tool: ai.NewTool(ai.ToolDef[cityIn, forecastOut]{
				Description:  "Get the weather forecast for a city for tomorrow.",
				DeferLoading: true,
				Execute: func(_ context.Context, in cityIn, opts ai.ToolExecutionOptions) (forecastOut, error) {
					forecasts.Add(1)
					if opts.ToolCallID != wantCallID {
						return forecastOut{}, fmt.Errorf("call id %q, want %q", opts.ToolCallID, wantCallID)
					}
					return forecastOut{City: in.City, Forecast: "heavy rain in the afternoon, 24°C"}, nil
				},
			})})
			continue
		}
		tools = append(tools, ai.NamedTool{Name: d.name, Tool: ai.NewTool(ai.ToolDef[map[string]any, string]{
			Description:  d.desc,
			DeferLoading: true,
			Execute: func(context.Context, map[string]any, ai.ToolExecutionOptions) (string, error) {
				return "", fmt.Errorf("%s must not be called", d.name)
			},
		})})
	}
	return append(tools, ai.NamedTool{Name: "convertUnits", Tool: ai.NewTool(ai.ToolDef[quantityIn, float64]{
		Description: "Convert a quantity between units.",
		Execute: func(context.Context, quantityIn, ai.ToolExecutionOptions) (float64, error) {
			return 0, nil
		},
	})})
}

// searchTurns are the model's three answers: a search, a call of the tool
// it found, and the final text.
func searchTurns(w wire) [3]turn {
	return [3]turn{
		{id: "resp_001", calls: []wireCall{{id: w.callID(1), name: "search", args: searchInput}}, input: 100, output: 20},
		{id: "resp_002", text: stepTwoText, calls: []wireCall{{id: w.callID(2), name: "getForecast", args: forecastInput}}, input: 180, output: 24},
		{id: "resp_003", text: finalText, input: 230, output: 31},
	}
}

// toolSearchScript plays the model: it checks what each step sends, the
// way the provider's API would see it, and answers with the next turn.
func toolSearchScript(t *testing.T, w wire, stream bool) func(int, *request) reply {
	turns := searchTurns(w)
	searchCall, forecastCall := turns[0].calls[0], turns[1].calls[0]
	return func(n int, req *request) reply {
		assert.Equal(t, stream, req.stream, "request %d asks for a stream", n+1)
		switch n {
		case 0:
			assert.Equal(t, firstTools, req.tools, "step 1 must offer only the tools that are not deferred")
			assert.Empty(t, req.calls, "step 1 calls")
			assert.Empty(t, req.outputs, "step 1 tool results")
		case 1:
			assert.Equal(t, laterTools, req.tools, "step 2 tools")
			assert.Equal(t, []wireCall{searchCall}, req.calls, "step 2 must send the search call back")
			if assert.Len(t, req.outputs, 1, "step 2 tool results") {
				assert.Equal(t, searchCall.id, req.outputs[0].callID)
				assert.JSONEq(t, foundTools, req.outputs[0].content)
				assert.False(t, req.outputs[0].isError)
			}
		case 2:
			assert.Equal(t, laterTools, req.tools, "step 3 tools")
			assert.Equal(t, []wireCall{searchCall, forecastCall}, req.calls, "step 3 calls")
			if assert.Len(t, req.outputs, 2, "step 3 tool results") {
				assert.Equal(t, searchCall.id, req.outputs[0].callID)
				assert.Equal(t, forecastCall.id, req.outputs[1].callID)
				assert.JSONEq(t, forecastOutput, req.outputs[1].content)
				assert.False(t, req.outputs[1].isError)
			}
		default:
			t.Errorf("unexpected request %d", n+1)
			return errorReply(400, w.errorBody(400, "unexpected request"))
		}
		return w.respond(req.stream, turns[n])
	}
}

func mode(stream bool) string {
	if stream {
		return "StreamText"
	}
	return "GenerateText"
}

func TestToolSearchLoop(t *testing.T) {
	for _, w := range wires() {
		for _, stream := range []bool{false, true} {
			t.Run(w.name()+"/"+mode(stream), func(t *testing.T) {
				t.Parallel()
				srv := newServer(t, w, toolSearchScript(t, w, stream))
				var forecasts atomic.Int32
				model := w.model(srv.Server)
				opts := ai.GenerateTextOptions{
					Model:        model,
					Instructions: "Find the tools you need with the search tool.",
					Prompt:       "Will it rain in Bangalore tomorrow?",
					Tools:        searchTools(&forecasts, w.callID(2)),
					StopWhen:     ai.StepCountIs(6),
				}
				ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
				defer cancel()
				var res *ai.GenerateTextResult
				if stream {
					res = streamToolSearch(ctx, t, opts)
				} else {
					var err error
					res, err = ai.GenerateText(ctx, opts)
					require.NoError(t, err)
				}
				assert.Equal(t, 3, srv.count(), "model calls")
				assert.Equal(t, int32(1), forecasts.Load(), "getForecast executions")
				checkToolSearchResult(t, w, model.Provider(), res)
			})
		}
	}
}

// streamToolSearch runs the loop with StreamText and checks the parts.
func streamToolSearch(ctx context.Context, t *testing.T, opts ai.GenerateTextOptions) *ai.GenerateTextResult {
	t.Helper()
	s, err := ai.StreamText(ctx, opts)
	require.NoError(t, err)
	var (
		outline []string
		text    string
		inputs  []string
	)
	for p, err := range s.Parts() {
		require.NoError(t, err)
		switch p := p.(type) {
		case ai.Start, ai.StartStep, ai.FinishStep, ai.Finish:
			outline = append(outline, p.PartType())
		case ai.ToolCall:
			outline = append(outline, "call "+p.ToolName)
		case ai.ToolResult:
			require.False(t, p.Preliminary)
			outline = append(outline, "result "+p.ToolName)
		case ai.ToolError:
			t.Errorf("tool error: %v", p.Error)
		case ai.ErrorPart:
			t.Errorf("error part: %v", p.Err)
		case ai.TextDelta:
			text += p.Delta
		case ai.ToolInputStart:
			inputs = append(inputs, p.ToolName)
		}
	}
	assert.Equal(t, []string{
		"start",
		"start-step", "call search", "result search", "finish-step",
		"start-step", "call getForecast", "result getForecast", "finish-step",
		"start-step", "finish-step",
		"finish",
	}, outline)
	assert.Equal(t, stepTwoText+finalText, text, "streamed text")
	assert.Equal(t, []string{"search", "getForecast"}, inputs, "streamed tool inputs")
	res, err := s.Wait()
	require.NoError(t, err)
	return res
}

// checkToolSearchResult checks the Go view of the three steps.
func checkToolSearchResult(t *testing.T, w wire, providerName string, res *ai.GenerateTextResult) {
	t.Helper()
	turns := searchTurns(w)
	require.Len(t, res.Steps, 3)
	for i, s := range res.Steps {
		assert.Equal(t, i, s.StepNumber)
		assert.Equal(t, providerName, s.Provider)
		assert.Equal(t, turns[i].id, s.Response.ID, "step %d response id", i+1)
		assert.Equal(t, turns[i].input, deref(s.Usage.InputTokens), "step %d input tokens", i+1)
		assert.Equal(t, turns[i].output, deref(s.Usage.OutputTokens), "step %d output tokens", i+1)
		assert.Equal(t, turns[i].input+turns[i].output, deref(s.Usage.TotalTokens), "step %d total tokens", i+1)
		assert.Empty(t, s.ToolErrors(), "step %d tool errors", i+1)
	}

	search := res.Steps[0]
	assert.Equal(t, ai.FinishToolCalls, search.FinishReason)
	if calls := search.ToolCalls(); assert.Len(t, calls, 1) {
		assert.Equal(t, w.callID(1), calls[0].ToolCallID)
		assert.Equal(t, "search", calls[0].ToolName)
		assert.JSONEq(t, searchInput, string(calls[0].Input))
		assert.False(t, calls[0].Invalid)
	}
	if results := search.ToolResults(); assert.Len(t, results, 1) {
		assert.Equal(t, w.callID(1), results[0].ToolCallID)
		found, ok := results[0].Output.(ai.ToolSearchResult)
		if assert.True(t, ok, "search output %T", results[0].Output) {
			var names []string
			for _, c := range found.Tools {
				names = append(names, c.Name)
			}
			assert.Equal(t, []string{"getForecast", "getWeatherAlerts"}, names)
		}
	}

	forecast := res.Steps[1]
	assert.Equal(t, ai.FinishToolCalls, forecast.FinishReason)
	assert.Equal(t, stepTwoText, forecast.Text())
	if calls := forecast.ToolCalls(); assert.Len(t, calls, 1) {
		assert.Equal(t, w.callID(2), calls[0].ToolCallID)
		assert.Equal(t, "getForecast", calls[0].ToolName)
		assert.JSONEq(t, forecastInput, string(calls[0].Input))
	}
	if results := forecast.ToolResults(); assert.Len(t, results, 1) {
		assert.Equal(t, w.callID(2), results[0].ToolCallID)
		assert.Equal(t, forecastOut{City: "Bangalore", Forecast: "heavy rain in the afternoon, 24°C"}, results[0].Output)
	}

	final := res.Steps[2]
	assert.Equal(t, ai.FinishStop, final.FinishReason)
	assert.Empty(t, final.ToolCalls())
	assert.Equal(t, finalText, final.Text())
	assert.Equal(t, finalText, res.Text)
	assert.Equal(t, ai.FinishStop, res.FinishReason)

	assert.Len(t, res.ToolCalls(), 2)
	assert.Len(t, res.ToolResults(), 2)
	assert.Empty(t, res.ToolErrors())
	in, out := 0, 0
	for _, tu := range turns {
		in += tu.input
		out += tu.output
	}
	assert.Equal(t, in, deref(res.Usage.InputTokens), "total input tokens")
	assert.Equal(t, out, deref(res.Usage.OutputTokens), "total output tokens")
	assert.Equal(t, in+out, deref(res.Usage.TotalTokens), "total tokens")
}

// deref returns *p, or -1 for nil so that a missing count fails equality.
func deref(p *int) int {
	if p == nil {
		return -1
	}
	return *p
}
