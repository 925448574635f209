package bm25_test

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/aisdkgo/ai"
	"github.com/aisdkgo/ai/aitest"
	"github.com/aisdkgo/ai/bm25"
	"github.com/aisdkgo/ai/provider"
)

func ExampleNew() {
	index := bm25.New([]ai.SearchCandidate{
		{Name: "getWeatherForecast", Description: "Get the weather forecast for a city"},
		{Name: "bookHotel", Description: "Book a hotel room for given dates"},
		{Name: "listBookings", Description: "List the bookings of the current user"},
	}, nil)
	fmt.Println(index.Query("Which hotels have I booked?", 5))
	fmt.Println(index.Query("Will it rain in Paris tomorrow? Show me the forecast.", 5))
	// Output:
	// [bookHotel listBookings]
	// [getWeatherForecast]
}

func ExampleSearch() {
	search, err := ai.NewToolSearch(ai.ToolSearchOptions{Search: bm25.Search(nil)})
	if err != nil {
		panic(err)
	}
	deferred := func(description string) *ai.FunctionTool {
		t, err := ai.NewDynamicTool(ai.ToolDef[json.RawMessage, any]{
			Description:  description,
			DeferLoading: true,
			Execute: func(context.Context, json.RawMessage, ai.ToolExecutionOptions) (any, error) {
				return "done", nil
			},
		})
		if err != nil {
			panic(err)
		}
		return t
	}
	// The scripted model searches once.
	model := aitest.NewModel(aitest.Response{
		Content:      []provider.Content{aitest.ToolCall("call-1", "tool_search", `{"query":"I need somewhere to stay in Lisbon"}`)},
		FinishReason: aitest.ToolCalls,
	})
	res, err := ai.GenerateText(context.Background(), ai.GenerateTextOptions{
		Model:  model,
		Prompt: "Find me a hotel in Lisbon.",
		Tools: ai.Tools{
			{Name: "tool_search", Tool: search},
			{Name: "getWeatherForecast", Tool: deferred("Get the weather forecast for a city")},
			{Name: "bookHotel", Tool: deferred("Book a hotel room or another place to stay")},
		},
	})
	if err != nil {
		panic(err)
	}
	for _, r := range res.ToolResults() {
		for _, t := range r.Output.(ai.ToolSearchResult).Tools {
			fmt.Println(t.Name)
		}
	}
	// Output:
	// bookHotel
}
