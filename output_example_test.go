package ai_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/aisdkgo/ai"
	"github.com/aisdkgo/ai/aitest"
	"github.com/aisdkgo/ai/provider"
)

func ExampleOutputObject() {
	type Recipe struct {
		Name        string   `json:"name"`
		Ingredients []string `json:"ingredients"`
		Minutes     int      `json:"minutes"`
	}
	model := aitest.NewModel(aitest.Response{Content: []provider.Content{
		aitest.Text(`{"name":"Pesto","ingredients":["basil","pine nuts","parmesan"],"minutes":10}`),
	}})
	res, err := ai.GenerateText(context.Background(), ai.GenerateTextOptions{
		Model:  model,
		Prompt: "A quick pasta sauce.",
		Output: ai.OutputObject[Recipe](&ai.OutputOptions{Name: "recipe"}),
	})
	if err != nil {
		panic(err)
	}
	r, err := ai.OutputOf[Recipe](res)
	if err != nil {
		panic(err)
	}
	fmt.Printf("%s in %d minutes: %v\n", r.Name, r.Minutes, r.Ingredients)
	// The model was asked for JSON matching the schema inferred from Recipe.
	fmt.Println(string(model.Calls()[0].ResponseFormat.Schema))
	// Output:
	// Pesto in 10 minutes: [basil pine nuts parmesan]
	// {"type":"object","properties":{"name":{"type":"string"},"ingredients":{"type":["null","array"],"items":{"type":"string"}},"minutes":{"type":"integer"}},"required":["name","ingredients","minutes"],"additionalProperties":false}
}

func ExampleOutputArray() {
	type City struct {
		Name    string `json:"name"`
		Country string `json:"country"`
	}
	model := aitest.NewModel(aitest.Response{Content: []provider.Content{
		aitest.Text(`{"elements":[{"name":"Oslo","country":"Norway"},{"name":"Lima","country":"Peru"}]}`),
	}})
	res, err := ai.GenerateText(context.Background(), ai.GenerateTextOptions{
		Model:  model,
		Prompt: "Two capitals.",
		Output: ai.OutputArray[City](&ai.OutputOptions{MaxItems: ptr(5)}),
	})
	if err != nil {
		panic(err)
	}
	cities, _ := ai.OutputOf[[]City](res)
	fmt.Println(cities)
	// Output:
	// [{Oslo Norway} {Lima Peru}]
}

func ExampleOutputChoice() {
	type Sentiment string
	const (
		Positive Sentiment = "positive"
		Negative Sentiment = "negative"
	)
	model := aitest.NewModel(aitest.Response{Content: []provider.Content{aitest.Text(`{"result":"negative"}`)}})
	res, err := ai.GenerateText(context.Background(), ai.GenerateTextOptions{
		Model:  model,
		Prompt: "The soup was cold.",
		Output: ai.OutputChoice([]Sentiment{Positive, Negative}, nil),
	})
	if err != nil {
		panic(err)
	}
	s, _ := ai.OutputOf[Sentiment](res)
	fmt.Println(s == Negative)
	// Output:
	// true
}

func ExampleOutputJSON() {
	model := aitest.NewModel(aitest.Response{Content: []provider.Content{aitest.Text(`{"tags":["go","ai"],"score":0.9}`)}})
	res, err := ai.GenerateText(context.Background(), ai.GenerateTextOptions{
		Model: model, Prompt: "Tag this.", Output: ai.OutputJSON(nil),
	})
	if err != nil {
		panic(err)
	}
	raw, _ := ai.OutputOf[json.RawMessage](res)
	m, _ := ai.OutputOf[map[string]any](res)
	fmt.Println(string(raw), m["score"])
	// Output:
	// {"tags":["go","ai"],"score":0.9} 0.9
}

func ExampleNoObjectGeneratedError() {
	type Point struct {
		X int `json:"x"`
		Y int `json:"y"`
	}
	model := aitest.NewModel(aitest.Response{Content: []provider.Content{aitest.Text(`{"x":1}`)}})
	_, err := ai.GenerateText(context.Background(), ai.GenerateTextOptions{
		Model: model, Prompt: "A point.", Output: ai.OutputObject[Point](nil),
	})
	var nog *ai.NoObjectGeneratedError
	if errors.As(err, &nog) {
		fmt.Printf("%s; the model wrote %s (finish reason %s)\n", nog.Message, nog.Text, nog.FinishReason)
	}
	// Output:
	// the response does not match the schema; the model wrote {"x":1} (finish reason stop)
}

func ExamplePartialOutputStream() {
	type Summary struct {
		Title  string   `json:"title"`
		Points []string `json:"points"`
	}
	var chunks []provider.StreamPart
	chunks = append(chunks, provider.TextStart{ID: "t"})
	for _, d := range []string{`{"title":"Go 1.`, `26","points":["fa`, `ster","safer"]}`} {
		chunks = append(chunks, provider.TextDelta{ID: "t", Delta: d})
	}
	chunks = append(chunks, provider.TextEnd{ID: "t"}, provider.Finish{FinishReason: aitest.Stop})
	res, err := ai.StreamText(context.Background(), ai.StreamTextOptions{
		Model:  aitest.NewModel(aitest.Response{Chunks: chunks}),
		Prompt: "Summarise the release.",
		Output: ai.OutputObject[Summary](nil),
	})
	if err != nil {
		panic(err)
	}
	for s, err := range ai.PartialOutputStream[Summary](res) {
		if err != nil {
			panic(err)
		}
		fmt.Printf("%q %q\n", s.Title, s.Points)
	}
	// Output:
	// "Go 1." []
	// "Go 1.26" ["fa"]
	// "Go 1.26" ["faster" "safer"]
}

func ExampleElementStream() {
	type Step struct {
		Do string `json:"do"`
	}
	var chunks []provider.StreamPart
	chunks = append(chunks, provider.TextStart{ID: "t"})
	for _, d := range []string{`{"elements":[{"do":"boil water"},`, `{"do":"add pasta"},`, `{"do":"drain"}]}`} {
		chunks = append(chunks, provider.TextDelta{ID: "t", Delta: d})
	}
	chunks = append(chunks, provider.TextEnd{ID: "t"}, provider.Finish{FinishReason: aitest.Stop})
	res, err := ai.StreamText(context.Background(), ai.StreamTextOptions{
		Model:  aitest.NewModel(aitest.Response{Chunks: chunks}),
		Prompt: "How to cook pasta.",
		Output: ai.OutputArray[Step](nil),
	})
	if err != nil {
		panic(err)
	}
	for s, err := range ai.ElementStream[Step](res) {
		if err != nil {
			panic(err)
		}
		fmt.Println(s.Do)
	}
	// Output:
	// boil water
	// add pasta
	// drain
}
