package azure_test

import (
	"context"
	"encoding/json"
	"net/http"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/aisdkgo/ai/internal/openaichat/replay"
	"github.com/aisdkgo/ai/provider"
	"github.com/aisdkgo/ai/providers/azure"
)

// okResponse is a finished Responses API answer.
const okResponse = `{"id":"resp_1","object":"response","created_at":1,"status":"completed","model":"gpt-4.1-mini",
"output":[{"type":"message","id":"msg_2","status":"completed","role":"assistant","content":[{"type":"output_text","text":"ok","annotations":[]}]}],
"usage":{"input_tokens":1,"output_tokens":1,"total_tokens":2}}`

// partsPrompt has part options under "azure" (as @ai-sdk/azure reads
// them) and under "openai" (as this package's results carry them).
func partsPrompt() []provider.Message {
	return []provider.Message{
		provider.UserMessage{Content: []provider.UserPart{
			provider.TextPart{Text: "Look."},
			provider.FilePart{Data: provider.FileURL{URL: "https://example.com/a.png"}, MediaType: "image/png",
				ProviderOptions: provider.ProviderOptions{"azure": {"imageDetail": "low"}}},
			provider.FilePart{Data: provider.FileReference{Reference: map[string]string{"azure": "file-az"}}, MediaType: "image/png"},
			provider.FilePart{Data: provider.FileURL{URL: "https://example.com/b.png"}, MediaType: "image/png",
				ProviderOptions: provider.ProviderOptions{"openai": {"imageDetail": "high"}}},
			provider.FilePart{Data: provider.FileURL{URL: "https://example.com/c.png"}, MediaType: "image/png",
				ProviderOptions: provider.ProviderOptions{"azure": {"imageDetail": "auto"}, "openai": {"imageDetail": "high"}}},
		}},
		provider.AssistantMessage{Content: []provider.AssistantPart{
			provider.TextPart{Text: "Calling.", ProviderOptions: provider.ProviderOptions{"azure": {"itemId": "msg_1"}}},
			provider.ToolCallPart{ToolCallID: "call_1", ToolName: "weather", Input: json.RawMessage(`{"city":"Paris"}`),
				ProviderOptions: provider.ProviderOptions{"azure": {"itemId": "fc_1"}}},
		}},
		provider.ToolMessage{Content: []provider.ToolPart{
			provider.ToolResultPart{ToolCallID: "call_1", ToolName: "weather", Output: provider.TextOutput{Value: "rain"}},
		}},
	}
}

// Responses models read the options of prompt parts from their "azure"
// entry, like @ai-sdk/azure 4.0.85, and from "openai" when there is none;
// a file uploaded to Azure is referred to by its "azure" reference.
// The expected bodies are the reference's for this prompt (captured with
// its doGenerate and a fetch that records the body), except for b.png,
// whose "openai" detail the reference ignores.
func TestResponsesReadAzurePartOptions(t *testing.T) {
	for _, tc := range []struct {
		name string
		opts provider.ProviderOptions
		want string
	}{
		{"store", nil, `{"model":"gpt-4.1-mini","input":[
			{"role":"user","content":[{"type":"input_text","text":"Look."},
				{"type":"input_image","image_url":"https://example.com/a.png","detail":"low"},
				{"type":"input_image","file_id":"file-az"},
				{"type":"input_image","image_url":"https://example.com/b.png","detail":"high"},
				{"type":"input_image","image_url":"https://example.com/c.png","detail":"auto"}]},
			{"type":"item_reference","id":"msg_1"},
			{"type":"function_call","call_id":"call_1","name":"weather","arguments":"{\"city\":\"Paris\"}"},
			{"type":"function_call_output","call_id":"call_1","output":"rain"}]}`},
		{"no store", provider.ProviderOptions{"azure": {"store": false}}, `{"model":"gpt-4.1-mini","input":[
			{"role":"user","content":[{"type":"input_text","text":"Look."},
				{"type":"input_image","image_url":"https://example.com/a.png","detail":"low"},
				{"type":"input_image","file_id":"file-az"},
				{"type":"input_image","image_url":"https://example.com/b.png","detail":"high"},
				{"type":"input_image","image_url":"https://example.com/c.png","detail":"auto"}]},
			{"role":"assistant","content":"Calling."},
			{"type":"function_call","call_id":"call_1","name":"weather","arguments":"{\"city\":\"Paris\"}"},
			{"type":"function_call_output","call_id":"call_1","output":"rain"}],"store":false}`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv := replay.NewServer(t, replay.JSON([]byte(okResponse)))
			p := azure.New(azure.WithResourceName("res"), azure.WithAPIKey("k"),
				azure.WithHTTPClient(&http.Client{Transport: &redirect{srv: srv}}))
			prompt := partsPrompt()
			before, err := json.Marshal(prompt)
			require.NoError(t, err)
			_, err = p.Responses("gpt-4.1-mini").Generate(context.Background(), &provider.CallOptions{Prompt: prompt, ProviderOptions: tc.opts})
			require.NoError(t, err)
			assert.JSONEq(t, tc.want, string(srv.Last(t).Body))
			after, err := json.Marshal(prompt)
			require.NoError(t, err)
			assert.JSONEq(t, string(before), string(after), "the caller's prompt is left as it was")
		})
	}
}
