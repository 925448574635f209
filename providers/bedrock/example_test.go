package bedrock_test

import (
	"context"
	"fmt"

	"github.com/aisdkgo/ai"
	"github.com/aisdkgo/ai/providers/bedrock"
)

func Example() {
	// Credentials come from the default AWS chain (for example
	// AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY).
	p := bedrock.New(bedrock.WithRegion("us-east-1"))
	res, err := ai.GenerateText(context.Background(), ai.GenerateTextOptions{
		Model:  p.Model("us.anthropic.claude-sonnet-4-5-20250929-v1:0"),
		Prompt: "Say hello.",
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(res.Text)
}
