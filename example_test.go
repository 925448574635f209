package ai_test

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/aisdkgo/ai"
	"github.com/aisdkgo/ai/aitest"
	"github.com/aisdkgo/ai/provider"
)

func ExampleNewTool() {
	type WeatherIn struct {
		City string `json:"city" jsonschema:"the city to forecast"`
	}
	type WeatherOut struct {
		Forecast string `json:"forecast"`
	}
	weather := ai.NewTool(ai.ToolDef[WeatherIn, WeatherOut]{
		Description: "Get the weather forecast for a city.",
		Execute: func(ctx context.Context, in WeatherIn, _ ai.ToolExecutionOptions) (WeatherOut, error) {
			return WeatherOut{Forecast: "rain in " + in.City}, nil
		},
	})
	fmt.Println(string(weather.InputSchema()))
	// Output:
	// {"type":"object","properties":{"city":{"type":"string","description":"the city to forecast"}},"required":["city"],"additionalProperties":false}
}

func ExampleNewDynamicTool() {
	lookup, err := ai.NewDynamicTool(ai.ToolDef[json.RawMessage, any]{
		Description:    "Look up a record.",
		RawInputSchema: json.RawMessage(`{"type":"object","properties":{"id":{"type":"string"}},"required":["id"]}`),
		Execute: func(_ context.Context, in json.RawMessage, _ ai.ToolExecutionOptions) (any, error) {
			return map[string]any{"input": in}, nil
		},
	})
	if err != nil {
		panic(err)
	}
	fmt.Println(lookup.Kind())
	// Output: dynamic
}

func ExampleToolSearch() {
	type CityIn struct {
		City string `json:"city"`
	}
	forecast := ai.NewTool(ai.ToolDef[CityIn, string]{
		Description:  "Get the weather forecast for a city.",
		DeferLoading: true,
		Execute: func(_ context.Context, in CityIn, _ ai.ToolExecutionOptions) (string, error) {
			return "rain in " + in.City, nil
		},
	})
	model := aitest.NewModel(
		aitest.Response{Content: []provider.Content{aitest.ToolCall("c1", "search", `{"query":"weather forecast"}`)}, FinishReason: aitest.ToolCalls},
		aitest.Response{Content: []provider.Content{aitest.ToolCall("c2", "getForecast", `{"city":"Oslo"}`)}, FinishReason: aitest.ToolCalls},
		aitest.Response{Content: []provider.Content{aitest.Text("It will rain in Oslo.")}},
	)
	res, err := ai.GenerateText(context.Background(), ai.GenerateTextOptions{
		Model:    model,
		Tools:    ai.Tools{{Name: "search", Tool: ai.ToolSearch()}, {Name: "getForecast", Tool: forecast}},
		StopWhen: ai.StepCountIs(5),
		Prompt:   "Will it rain in Oslo?",
	})
	if err != nil {
		panic(err)
	}
	for i, call := range model.Calls() {
		fmt.Printf("step %d offered %d tool(s)\n", i, len(call.Tools))
	}
	fmt.Println(res.Text)
	// Output:
	// step 0 offered 1 tool(s)
	// step 1 offered 2 tool(s)
	// step 2 offered 2 tool(s)
	// It will rain in Oslo.
}

func ExampleNewToolSearch() {
	// An application's own search, for example over embeddings, returning
	// the names of the best candidates.
	search, err := ai.NewToolSearch(ai.ToolSearchOptions{
		MaxResults: new(3),
		Search: func(_ context.Context, query string, candidates []ai.SearchCandidate) ([]string, error) {
			return ai.Ranking(query, candidates), nil
		},
	})
	if err != nil {
		panic(err)
	}
	fmt.Println(ai.IsToolSearch(search))
	// Output: true
}

func ExampleGenerateText() {
	model := aitest.NewModel(aitest.Response{Content: []provider.Content{aitest.Text("Hello!")}})
	res, err := ai.GenerateText(context.Background(), ai.GenerateTextOptions{
		Model:        model,
		Instructions: "Be friendly.",
		Prompt:       "Say hello.",
	})
	if err != nil {
		panic(err)
	}
	fmt.Println(res.Text, res.FinishReason)
	// Output: Hello! stop
}

func ExampleStreamText() {
	model := aitest.NewModel(aitest.Response{Chunks: []provider.StreamPart{
		provider.TextStart{ID: "t"},
		provider.TextDelta{ID: "t", Delta: "Hel"},
		provider.TextDelta{ID: "t", Delta: "lo"},
		provider.TextEnd{ID: "t"},
		provider.Finish{FinishReason: provider.FinishReason{Unified: provider.FinishStop}},
	}})
	res, err := ai.StreamText(context.Background(), ai.StreamTextOptions{Model: model, Prompt: "Say hello."})
	if err != nil {
		panic(err)
	}
	for part, err := range res.Parts() {
		if err != nil {
			panic(err)
		}
		if d, ok := part.(ai.TextDelta); ok {
			fmt.Printf("%q\n", d.Delta)
		}
	}
	text, _ := res.Text()
	fmt.Println(text)
	// Output:
	// "Hel"
	// "lo"
	// Hello
}

func ExampleNewAgent() {
	type In struct {
		A, B int
	}
	add := ai.NewTool(ai.ToolDef[In, int]{
		Description: "Add two numbers.",
		Execute:     func(_ context.Context, in In, _ ai.ToolExecutionOptions) (int, error) { return in.A + in.B, nil },
	})
	agent := ai.NewAgent(ai.AgentOptions{Settings: ai.GenerateTextOptions{
		Model: aitest.NewModel(
			aitest.Response{Content: []provider.Content{aitest.ToolCall("c1", "add", `{"A":2,"B":3}`)}, FinishReason: aitest.ToolCalls},
			aitest.Response{Content: []provider.Content{aitest.Text("2 + 3 = 5")}},
		),
		Instructions: "You do arithmetic with tools.",
		Tools:        ai.Tools{{Name: "add", Tool: add}},
	}})
	res, err := agent.Generate(context.Background(), ai.AgentCall{Prompt: "What is 2 + 3?"})
	if err != nil {
		panic(err)
	}
	fmt.Println(res.ToolResults()[0].Output, "->", res.Text)
	// Output: 5 -> 2 + 3 = 5
}

func ExampleToolApproval() {
	type MailIn struct {
		To string `json:"to"`
	}
	send := ai.NewTool(ai.ToolDef[MailIn, string]{
		Description: "Send an email.",
		Execute:     func(_ context.Context, in MailIn, _ ai.ToolExecutionOptions) (string, error) { return "sent", nil },
	})
	res, err := ai.GenerateText(context.Background(), ai.GenerateTextOptions{
		Model: aitest.NewModel(aitest.Response{
			Content:      []provider.Content{aitest.ToolCall("c1", "send", `{"to":"bob@example.com"}`)},
			FinishReason: aitest.ToolCalls,
		}),
		Tools:        ai.Tools{{Name: "send", Tool: send}},
		ToolApproval: &ai.ToolApproval{Tools: map[string]ai.ApprovalRule{"send": ai.Rule(ai.RequiresApproval)}},
		Prompt:       "Mail Bob.",
	})
	if err != nil {
		panic(err)
	}
	req := res.Steps[0].ApprovalRequests()[0]
	fmt.Println("waiting for approval of", req.ToolCall.ToolName, string(req.ToolCall.Input))
	// Output: waiting for approval of send {"to":"bob@example.com"}
}
