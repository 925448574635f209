package azure_test

import (
	"context"
	"fmt"
	"os"

	"github.com/aisdkgo/ai"
	"github.com/aisdkgo/ai/providers/azure"
)

func Example() {
	p := azure.New(
		azure.WithResourceName("my-resource"),
		azure.WithAPIKey(os.Getenv("AZURE_API_KEY")),
	)
	res, err := ai.GenerateText(context.Background(), ai.GenerateTextOptions{
		Model:  p.Model("my-gpt-5-mini-deployment"),
		Prompt: "Say hello.",
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(res.Text)
}
