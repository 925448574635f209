// Command minimal is the smallest useful program on this library: one
// GenerateText call on the scripted model. The test suite builds it to keep
// the core's size in check.
package main

import (
	"context"
	"fmt"

	"github.com/aisdkgo/ai"
	"github.com/aisdkgo/ai/aitest"
	"github.com/aisdkgo/ai/provider"
)

func main() {
	model := aitest.NewModel(aitest.Response{Content: []provider.Content{aitest.Text("hello")}})
	res, err := ai.GenerateText(context.Background(), ai.GenerateTextOptions{Model: model, Prompt: "hi"})
	if err != nil {
		panic(err)
	}
	fmt.Println(res.Text)
}
