package openaicompat_test

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"

	"github.com/aisdkgo/ai/provider"
	"github.com/aisdkgo/ai/providers/openaicompat"
)

func ExampleNew() {
	// A stand-in for a local server such as Ollama.
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		fmt.Fprint(w, "data: {\"id\":\"1\",\"model\":\"qwen3\",\"choices\":[{\"index\":0,\"delta\":{\"reasoning\":\"Greeting.\"}}]}\n\n")
		fmt.Fprint(w, "data: {\"id\":\"1\",\"choices\":[{\"index\":0,\"delta\":{\"content\":\"Hi!\"},\"finish_reason\":\"stop\"}]}\n\n")
		fmt.Fprint(w, "data: [DONE]\n\n")
	}))
	defer srv.Close()

	p := openaicompat.New(openaicompat.WithBaseURL(srv.URL+"/v1"), openaicompat.WithName("ollama"))
	res, err := p.Model("qwen3").Stream(context.Background(), &provider.CallOptions{
		Prompt:          []provider.Message{provider.UserMessage{Content: []provider.UserPart{provider.TextPart{Text: "Hello"}}}},
		ProviderOptions: provider.ProviderOptions{"ollama": {"think": true}},
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	for part, err := range res.Stream {
		if err != nil {
			fmt.Println(err)
			return
		}
		switch part := part.(type) {
		case provider.ReasoningDelta:
			fmt.Println("reasoning:", part.Delta)
		case provider.TextDelta:
			fmt.Println("text:", part.Delta)
		case provider.Finish:
			fmt.Println("finish:", part.FinishReason.Unified)
		}
	}
	// Output:
	// reasoning: Greeting.
	// text: Hi!
	// finish: stop
}
