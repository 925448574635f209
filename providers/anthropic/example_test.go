package anthropic_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"

	"github.com/aisdkgo/ai/provider"
	"github.com/aisdkgo/ai/providers/anthropic"
)

// fakeAnthropic answers like the Messages API: a JSON message, or an event
// stream when the request asks for one.
func fakeAnthropic() *httptest.Server {
	return httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var req struct {
			Stream bool `json:"stream"`
		}
		body, _ := io.ReadAll(r.Body)
		json.Unmarshal(body, &req)
		if !req.Stream {
			w.Header().Set("Content-Type", "application/json")
			io.WriteString(w, `{"id":"msg_1","type":"message","role":"assistant","model":"claude-sonnet-4-5",
				"content":[{"type":"text","text":"Hello!"}],"stop_reason":"end_turn",
				"usage":{"input_tokens":5,"cache_read_input_tokens":100,"output_tokens":2}}`)
			return
		}
		w.Header().Set("Content-Type", "text/event-stream")
		for _, ev := range []string{
			`{"type":"message_start","message":{"id":"msg_2","model":"claude-sonnet-4-5","content":[],"usage":{"input_tokens":5,"output_tokens":1}}}`,
			`{"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}}`,
			`{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"Hel"}}`,
			`{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"lo!"}}`,
			`{"type":"content_block_stop","index":0}`,
			`{"type":"message_delta","delta":{"stop_reason":"end_turn"},"usage":{"output_tokens":3}}`,
			`{"type":"message_stop"}`,
		} {
			fmt.Fprintf(w, "data: %s\n\n", ev)
		}
	}))
}

func Example() {
	srv := fakeAnthropic()
	defer srv.Close()

	p := anthropic.New(anthropic.WithAPIKey("sk-ant-..."), anthropic.WithBaseURL(srv.URL))
	model := p.Model("claude-sonnet-4-5")
	res, err := model.Generate(context.Background(), &provider.CallOptions{
		Prompt: []provider.Message{provider.UserMessage{Content: []provider.UserPart{provider.TextPart{Text: "Hi"}}}},
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(res.Content[0].(provider.Text).Text)
	fmt.Println(res.FinishReason.Unified, res.FinishReason.Raw)
	// Input tokens include those read from the prompt cache.
	fmt.Println(*res.Usage.InputTokens.Total, *res.Usage.InputTokens.CacheRead)
	// Output:
	// Hello!
	// stop end_turn
	// 105 100
}

func ExampleProvider_Model() {
	srv := fakeAnthropic()
	defer srv.Close()

	model := anthropic.New(anthropic.WithAPIKey("sk-ant-..."), anthropic.WithBaseURL(srv.URL)).Model("claude-sonnet-4-5")
	res, err := model.Stream(context.Background(), &provider.CallOptions{
		Prompt: []provider.Message{provider.UserMessage{Content: []provider.UserPart{provider.TextPart{Text: "Hi"}}}},
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
		case provider.TextDelta:
			fmt.Print(part.Delta)
		case provider.Finish:
			fmt.Println("\n"+part.FinishReason.Unified, *part.Usage.OutputTokens.Total)
		}
	}
	// Output:
	// Hello!
	// stop 3
}

func ExampleMessagesOptions_ProviderOptions() {
	budget := 4096
	opts := anthropic.MessagesOptions{
		Thinking: &anthropic.Thinking{Type: "enabled", BudgetTokens: &budget},
	}.ProviderOptions()
	b, _ := json.Marshal(opts)
	fmt.Println(string(b))
	// Output:
	// {"anthropic":{"thinking":{"budgetTokens":4096,"type":"enabled"}}}
}

func ExampleDeferLoading() {
	tool := &provider.FunctionTool{
		Name:            "get_weather",
		InputSchema:     json.RawMessage(`{"type":"object","properties":{"city":{"type":"string"}}}`),
		ProviderOptions: anthropic.DeferLoading(),
	}
	b, _ := json.Marshal(tool.ProviderOptions)
	fmt.Println(string(b))
	// Output:
	// {"anthropic":{"deferLoading":true}}
}

func ExampleCacheBreakpoint() {
	system := provider.SystemMessage{
		Content:         "You are a careful assistant. (A long, stable prompt.)",
		ProviderOptions: anthropic.CacheBreakpoint("1h"),
	}
	b, _ := json.Marshal(system.ProviderOptions)
	fmt.Println(string(b))
	// Output:
	// {"anthropic":{"cacheControl":{"ttl":"1h","type":"ephemeral"}}}
}
