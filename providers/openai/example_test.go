package openai_test

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"

	"github.com/aisdkgo/ai"
	"github.com/aisdkgo/ai/provider"
	"github.com/aisdkgo/ai/providers/openai"
)

// fakeOpenAI stands in for api.openai.com in the examples.
func fakeOpenAI() *httptest.Server {
	return httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		switch r.URL.Path {
		case "/v1/responses":
			fmt.Fprint(w, `{"id":"resp_1","created_at":1,"model":"gpt-5","output":[{"type":"message","id":"msg_1","role":"assistant",
				"content":[{"type":"output_text","text":"Hello from the Responses API.","annotations":[]}]}],
				"usage":{"input_tokens":12,"input_tokens_details":{"cached_tokens":8},"output_tokens":7}}`)
		case "/v1/embeddings":
			fmt.Fprint(w, `{"data":[{"index":0,"embedding":[0.6,0.8]},{"index":1,"embedding":[0.8,0.6]}],"usage":{"prompt_tokens":5}}`)
		case "/v1/chat/completions":
			fmt.Fprint(w, `{"id":"c1","created":1,"model":"gpt-4o","choices":[{"index":0,"message":{"role":"assistant","content":"Hello from Chat Completions."},"finish_reason":"stop"}],
				"usage":{"prompt_tokens":10,"completion_tokens":5}}`)
		}
	}))
}

func Example() {
	srv := fakeOpenAI()
	defer srv.Close()

	p := openai.New(openai.WithAPIKey("sk-..."), openai.WithBaseURL(srv.URL+"/v1"))
	res, err := ai.GenerateText(context.Background(), ai.GenerateTextOptions{
		Model:  p.Model("gpt-5"),
		Prompt: "Say hello.",
		ProviderOptions: ai.ProviderOptions{
			"openai": {"promptCacheKey": "greeting", "reasoningEffort": "low"},
		},
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(res.Text)
	fmt.Println(res.FinishReason)
	// Output:
	// Hello from the Responses API.
	// stop
}

func ExampleProvider_Chat() {
	srv := fakeOpenAI()
	defer srv.Close()

	model := openai.New(openai.WithAPIKey("sk-..."), openai.WithBaseURL(srv.URL+"/v1")).Chat("gpt-4o")
	res, err := model.Generate(context.Background(), &provider.CallOptions{
		Prompt: []provider.Message{provider.UserMessage{Content: []provider.UserPart{provider.TextPart{Text: "Say hello."}}}},
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(res.Content[0].(provider.Text).Text)
	fmt.Println(*res.Usage.InputTokens.Total, *res.Usage.OutputTokens.Total)
	// Output:
	// Hello from Chat Completions.
	// 10 5
}

func ExampleProvider_Embedding() {
	srv := fakeOpenAI()
	defer srv.Close()

	model := openai.New(openai.WithAPIKey("sk-..."), openai.WithBaseURL(srv.URL+"/v1")).Embedding("text-embedding-3-small")
	res, err := ai.EmbedMany(context.Background(), ai.EmbedManyOptions{Model: model, Values: []string{"sunny day", "rainy night"}})
	if err != nil {
		fmt.Println(err)
		return
	}
	s, _ := ai.CosineSimilarity(res.Embeddings[0], res.Embeddings[1])
	fmt.Printf("%.2f, %d tokens\n", s, *res.Usage.Tokens)
	// Output: 0.96, 5 tokens
}

func ExampleWebSearch() {
	tools := ai.Tools{
		{Name: "webSearch", Tool: ai.ProviderDefined(openai.WebSearch(openai.WebSearchArgs{
			SearchContextSize: "low",
			UserLocation:      &openai.UserLocation{Country: "US"},
		}))},
	}
	fmt.Println(tools.Names())
	// Output: [webSearch]
}
