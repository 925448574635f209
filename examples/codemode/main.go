// Command codemode shows code mode with tool discovery: the model sees one
// tool, "code", and writes programs that call other tools through a global
// `tools` object. The first program searches for tools; the next one calls
// the two it found at once and combines their results. The code tool's
// definition never changes; each newly callable tool is announced in a user
// message, so a provider's prompt cache stays valid.
//
//	go run ./examples/codemode
package main

import (
	"context"
	"encoding/json"
	"fmt"
	"log"
	"strings"

	"github.com/aisdkgo/ai"
	"github.com/aisdkgo/ai/aitest"
	"github.com/aisdkgo/ai/provider"
	// The JavaScript engine that runs the programs.
	_ "github.com/aisdkgo/ai/quickjs"
)

type cityIn struct {
	City string `json:"city"`
}

type forecast struct {
	City    string `json:"city"`
	TempC   int    `json:"tempC"`
	Summary string `json:"summary"`
}

type airQuality struct {
	City string `json:"city"`
	AQI  int    `json:"aqi"`
}

func main() {
	tools := ai.Tools{
		{Name: "code", Tool: ai.CodeMode(&ai.CodeModeOptions{
			Discovery: ai.DiscoveryConversation,
			Console:   func(stream, line string) { fmt.Printf("    program %s: %s\n", stream, line) },
		})},
		{Name: "search", Tool: ai.ToolSearch()},
		{Name: "getForecast", Tool: ai.NewTool(ai.ToolDef[cityIn, forecast]{
			Description:  "Get tomorrow's weather forecast for a city.",
			DeferLoading: true,
			Execute: func(_ context.Context, in cityIn, _ ai.ToolExecutionOptions) (forecast, error) {
				return forecast{City: in.City, TempC: 24, Summary: "rain in the afternoon"}, nil
			},
		})},
		{Name: "getAirQuality", Tool: ai.NewTool(ai.ToolDef[cityIn, airQuality]{
			Description:  "Get the air quality index of a city.",
			DeferLoading: true,
			Execute: func(_ context.Context, in cityIn, _ ai.ToolExecutionOptions) (airQuality, error) {
				return airQuality{City: in.City, AQI: 42}, nil
			},
		})},
		{Name: "bookFlight", Tool: ai.NewTool(ai.ToolDef[map[string]any, string]{
			Description:  "Book a flight.",
			DeferLoading: true,
			Execute:      func(context.Context, map[string]any, ai.ToolExecutionOptions) (string, error) { return "booked", nil },
		})},
	}
	routes := []ai.CallerRoute{
		{Tool: "search", Callers: []string{"code"}},
		{Tool: "getForecast", Callers: []string{"code"}},
		{Tool: "getAirQuality", Callers: []string{"code"}},
		{Tool: "bookFlight", Callers: []string{"code"}},
	}
	res, err := ai.GenerateText(context.Background(), ai.GenerateTextOptions{
		Model:       scriptedModel(),
		Tools:       tools,
		ToolCallers: routes,
		StopWhen:    ai.StepCountIs(5),
		Prompt:      "Should I go cycling in Lyon tomorrow? Check the weather and the air.",
		OnStepStart: func(e ai.StepStartEvent) {
			defs, _ := json.Marshal(e.Tools)
			fmt.Printf("step %d: tools sent: %d bytes, same every step; prompt has %d messages\n", e.StepNumber, len(defs), len(e.Prompt))
			if last, ok := e.Prompt[len(e.Prompt)-1].(provider.UserMessage); ok {
				text := last.Content[0].(provider.TextPart).Text
				if strings.HasPrefix(text, "Code mode capability update") {
					fmt.Printf("  new catalog announced:\n%s\n", indent(text))
				}
			}
		},
		OnStepEnd: func(s *ai.StepResult) {
			for _, p := range s.Content {
				switch p := p.(type) {
				case ai.ToolCall:
					var in struct{ JS string }
					_ = json.Unmarshal(p.Input, &in)
					fmt.Printf("  the model runs a program:\n%s\n", indent(in.JS))
				case ai.ToolResult:
					fmt.Printf("  the program returned %s\n", p.Output)
				case ai.ToolError:
					fmt.Printf("  the program failed: %v\n", p.Error)
				}
			}
		},
	})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Printf("\nanswer: %s\n", res.Text)
}

func indent(s string) string {
	return "    | " + strings.ReplaceAll(strings.TrimSpace(s), "\n", "\n    | ")
}

// scriptedModel stands in for a language model that writes programs.
func scriptedModel() provider.LanguageModel {
	code := func(id, js string) aitest.Response {
		input, _ := json.Marshal(map[string]string{"js": js})
		return aitest.Response{Content: []provider.Content{aitest.ToolCall(id, "code", string(input))}, FinishReason: aitest.ToolCalls}
	}
	return aitest.NewModel(
		code("call-1", `const weather = await tools.search({ query: "weather forecast" });
const air = await tools.search({ query: "air quality" });
console.log("found", weather.tools.length + air.tools.length, "tools");
return [...weather.tools, ...air.tools].map(t => t.name);`),
		code("call-2", `const [f, a] = await Promise.all([
  tools.getForecast({ city: "Lyon" }),
  tools.getAirQuality({ city: "Lyon" }),
]);
return { city: f.city, summary: f.summary, tempC: f.tempC, aqi: a.aqi, goodForCycling: a.aqi < 50 && !f.summary.includes("storm") };`),
		aitest.Response{Content: []provider.Content{aitest.Text(
			"Tomorrow in Lyon: 24°C with rain in the afternoon, and clean air (AQI 42). Cycling is fine in the morning; take a rain jacket.")}},
	)
}
