// Command structured shows structured output inside the tool loop: the
// model first calls a tool for the data it needs, then answers with a
// typed trip plan that the program reads as a Go value. With -stream the
// plan is printed as it is written, and each stop as soon as it is
// complete.
//
//	go run ./examples/structured
//	go run ./examples/structured -stream
package main

import (
	"context"
	"flag"
	"fmt"
	"log"

	"github.com/aisdkgo/ai"
	"github.com/aisdkgo/ai/aitest"
	"github.com/aisdkgo/ai/provider"
)

// Stop is one stop of the trip.
type Stop struct {
	City   string `json:"city"`
	Nights int    `json:"nights" jsonschema:"nights to stay"`
	Why    string `json:"why" jsonschema:"one sentence"`
}

type forecastIn struct {
	City string `json:"city"`
}

func main() {
	stream := flag.Bool("stream", false, "stream the plan as it is written")
	flag.Parse()
	forecast := ai.NewTool(ai.ToolDef[forecastIn, string]{
		Description: "Get the weather forecast for a city.",
		Execute: func(_ context.Context, in forecastIn, _ ai.ToolExecutionOptions) (string, error) {
			if in.City == "Bergen" {
				return "rain all week", nil
			}
			return "sunny, 24°C", nil
		},
	})
	opts := ai.GenerateTextOptions{
		Model:    scriptedModel(),
		Prompt:   "Plan a week in Italy or Norway, where the weather is good.",
		Tools:    ai.Tools{{Name: "forecast", Tool: forecast}},
		StopWhen: ai.StepCountIs(5),
		// Every model call is asked for {"elements": [Stop, ...]}.
		Output: ai.OutputArray[Stop](&ai.OutputOptions{Name: "trip", MinItems: ptr(1)}),
	}
	ctx := context.Background()
	if !*stream {
		res, err := ai.GenerateText(ctx, opts)
		if err != nil {
			log.Fatal(err)
		}
		plan, err := ai.OutputOf[[]Stop](res)
		if err != nil {
			log.Fatal(err)
		}
		fmt.Printf("after %d steps and %d tool calls:\n", len(res.Steps), len(res.ToolCalls()))
		for _, s := range plan {
			fmt.Printf("  %d nights in %s: %s\n", s.Nights, s.City, s.Why)
		}
		return
	}
	res, err := ai.StreamText(ctx, opts)
	if err != nil {
		log.Fatal(err)
	}
	for p, err := range res.Parts() {
		if err != nil {
			log.Fatal(err)
		}
		switch p := p.(type) {
		case ai.ToolCall:
			fmt.Printf("tool call: %s %s\n", p.ToolName, p.Input)
		case ai.PartialOutput:
			fmt.Printf("  partial: %s\n", p.JSON())
		case ai.OutputElement:
			var s Stop
			if err := p.Decode(&s); err != nil {
				log.Fatal(err)
			}
			fmt.Printf("stop %d complete: %s\n", p.Index+1, s.City)
		}
	}
	plan, err := ai.OutputOf[[]Stop](res)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Printf("%d stops\n", len(plan))
}

func ptr[T any](v T) *T { return &v }

// scriptedModel plays a model that checks two forecasts, then answers with
// the plan in small pieces, as a real model streams it.
func scriptedModel() *aitest.Model {
	plan := []string{
		`{"elements":[{"city":"Rome",`, `"nights":4,"why":"Sunny`, `, and the food."},`,
		`{"city":"Florence","nights":3,`, `"why":"Sunny too, and close by."}]}`,
	}
	chunks := []provider.StreamPart{provider.TextStart{ID: "plan"}}
	text := ""
	for _, d := range plan {
		chunks = append(chunks, provider.TextDelta{ID: "plan", Delta: d})
		text += d
	}
	chunks = append(chunks, provider.TextEnd{ID: "plan"}, provider.Finish{FinishReason: aitest.Stop})
	return aitest.NewModel(
		aitest.Response{Content: []provider.Content{
			aitest.ToolCall("c1", "forecast", `{"city":"Rome"}`),
			aitest.ToolCall("c2", "forecast", `{"city":"Bergen"}`),
		}, FinishReason: aitest.ToolCalls},
		aitest.Response{Content: []provider.Content{aitest.Text(text)}, Chunks: chunks},
	)
}
