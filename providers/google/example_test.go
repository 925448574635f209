package google_test

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"

	"github.com/aisdkgo/ai"
	"github.com/aisdkgo/ai/provider"
	"github.com/aisdkgo/ai/providers/google"
)

// fakeGemini stands in for generativelanguage.googleapis.com in the
// examples.
func fakeGemini() *httptest.Server {
	return httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		switch r.URL.Path {
		case "/v1beta/models/gemini-2.5-flash:generateContent":
			fmt.Fprint(w, `{"candidates":[{"content":{"role":"model","parts":[{"text":"Hello from Gemini."}]},"finishReason":"STOP"}],
				"usageMetadata":{"promptTokenCount":4,"candidatesTokenCount":4,"thoughtsTokenCount":12},"modelVersion":"gemini-2.5-flash","responseId":"r1"}`)
		case "/v1beta/models/gemini-embedding-001:batchEmbedContents":
			fmt.Fprint(w, `{"embeddings":[{"values":[0.6,0.8]},{"values":[0.8,0.6]}]}`)
		}
	}))
}

func Example() {
	srv := fakeGemini()
	defer srv.Close()

	p := google.New(google.WithAPIKey("..."), google.WithBaseURL(srv.URL+"/v1beta"))
	res, err := ai.GenerateText(context.Background(), ai.GenerateTextOptions{
		Model:     p.Model("gemini-2.5-flash"),
		Prompt:    "Say hello.",
		Reasoning: provider.ReasoningLow, // a thinking budget of 6,554 tokens
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(res.Text)
	fmt.Println(*res.Usage.OutputTokens, "output tokens,", *res.Usage.OutputTokenDetails.ReasoningTokens, "of them thinking")
	// Output:
	// Hello from Gemini.
	// 16 output tokens, 12 of them thinking
}

func ExampleProvider_Embedding() {
	srv := fakeGemini()
	defer srv.Close()

	model := google.New(google.WithAPIKey("..."), google.WithBaseURL(srv.URL+"/v1beta")).Embedding("gemini-embedding-001")
	res, err := ai.EmbedMany(context.Background(), ai.EmbedManyOptions{
		Model:           model,
		Values:          []string{"sunny day", "rainy night"},
		ProviderOptions: google.EmbeddingOptions{TaskType: "SEMANTIC_SIMILARITY"}.ProviderOptions(),
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	s, _ := ai.CosineSimilarity(res.Embeddings[0], res.Embeddings[1])
	fmt.Printf("%.2f\n", s)
	// Output: 0.96
}

func ExampleGoogleSearch() {
	tools := ai.Tools{
		{Name: "google_search", Tool: ai.ProviderDefined(google.GoogleSearch(google.GoogleSearchArgs{}))},
		{Name: "code_execution", Tool: ai.ProviderDefined(google.CodeExecution())},
		{Name: "url_context", Tool: ai.ProviderDefined(google.URLContext())},
	}
	fmt.Println(tools.Names())
	// Output: [google_search code_execution url_context]
}
