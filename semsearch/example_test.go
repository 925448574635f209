package semsearch_test

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/aisdkgo/ai"
	"github.com/aisdkgo/ai/aitest"
	"github.com/aisdkgo/ai/bm25"
	"github.com/aisdkgo/ai/provider"
	"github.com/aisdkgo/ai/semsearch"
)

func ExampleSearcher_Search() {
	// aitest.EmbeddingModel stands in for a real embedding model such as
	// openai.New().Embedding("text-embedding-3-small").
	embedder := &aitest.EmbeddingModel{Dimensions: 512}
	searcher, err := semsearch.New(semsearch.Options{Model: embedder, Keyword: bm25.Search(nil)})
	if err != nil {
		panic(err)
	}
	search, err := ai.NewToolSearch(ai.ToolSearchOptions{Search: searcher.Search})
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
	tools := ai.Tools{
		{Name: "tool_search", Tool: search},
		{Name: "getWeatherForecast", Tool: deferred("Get the weather forecast for a city")},
		{Name: "bookHotel", Tool: deferred("Book a hotel room for given dates")},
		{Name: "listBookings", Tool: deferred("List the bookings of the current user")},
	}
	// Two generations search the same tools: they are embedded once.
	for _, query := range []string{"weather forecast in Lisbon", "book a hotel room"} {
		model := aitest.NewModel(aitest.Response{
			Content:      []provider.Content{aitest.ToolCall("call-1", "tool_search", fmt.Sprintf(`{"query":%q}`, query))},
			FinishReason: aitest.ToolCalls,
		})
		res, err := ai.GenerateText(context.Background(), ai.GenerateTextOptions{Model: model, Prompt: query, Tools: tools})
		if err != nil {
			panic(err)
		}
		for _, r := range res.ToolResults() {
			fmt.Println(query+":", r.Output.(ai.ToolSearchResult).Tools[0].Name)
		}
	}
	fmt.Println("embedding calls:", len(embedder.Calls()))
	// Output:
	// weather forecast in Lisbon: getWeatherForecast
	// book a hotel room: bookHotel
	// embedding calls: 3
}

func ExampleFuse() {
	semantic := []string{"bookHotel", "listBookings", "getWeatherForecast"}
	keyword := []string{"listBookings", "bookHotel"}
	fmt.Println(semsearch.Fuse(semsearch.DefaultFusionK, semantic, keyword))
	// Output: [bookHotel listBookings getWeatherForecast]
}
