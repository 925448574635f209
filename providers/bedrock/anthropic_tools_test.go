package bedrock_test

import (
	"context"
	"encoding/json"
	"net/http"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/aisdkgo/ai/internal/openaichat/replay"
	"github.com/aisdkgo/ai/provider"
	"github.com/aisdkgo/ai/providers/bedrock"
)

func anthropicTool(id, name string, args map[string]any) *provider.ProviderTool {
	return &provider.ProviderTool{ID: id, Name: name, Args: args}
}

// anthropicToolCalls are the calls whose request bodies
// @ai-sdk/amazon-bedrock 5.0.101 sent (testdata/ts-anthropic-tools.json,
// recorded with its doGenerate and a fetch that keeps the body).
var anthropicToolCalls = map[string]struct {
	model string
	opts  provider.CallOptions
}{
	"bash-and-function": {claude, provider.CallOptions{
		Tools:      []provider.Tool{anthropicTool("anthropic.bash_20250124", "bash", nil), weather},
		ToolChoice: provider.ToolChoice{Type: provider.ToolChoiceAuto}}},
	"computer-required": {claude, provider.CallOptions{
		Tools: []provider.Tool{anthropicTool("anthropic.computer_20250124", "computer",
			map[string]any{"displayWidthPx": 1024, "displayHeightPx": 768, "displayNumber": 1})},
		ToolChoice: provider.ToolChoice{Type: provider.ToolChoiceRequired}}},
	"editor-tool-choice": {"anthropic.claude-3-7-sonnet-20250219-v1:0", provider.CallOptions{
		Tools: []provider.Tool{anthropicTool("anthropic.text_editor_20250728", "str_replace_based_edit_tool", map[string]any{"maxCharacters": 10000}),
			anthropicTool("anthropic.memory_20250818", "memory", nil), weather},
		ToolChoice: provider.ToolChoice{Type: provider.ToolChoiceTool, ToolName: "str_replace_based_edit_tool"}}},
	"web-search-unsupported": {claude, provider.CallOptions{
		Tools:      []provider.Tool{anthropicTool("anthropic.web_search_20250305", "web_search", map[string]any{"maxUses": 2}), weather},
		ToolChoice: provider.ToolChoice{Type: provider.ToolChoiceAuto}}},
	"nova-provider-tool": {"amazon.nova-pro-v1:0", provider.CallOptions{
		Tools:      []provider.Tool{anthropicTool("anthropic.bash_20250124", "bash", nil), weather},
		ToolChoice: provider.ToolChoice{Type: provider.ToolChoiceAuto}}},
	"code-execution": {claude, provider.CallOptions{
		Tools: []provider.Tool{anthropicTool("anthropic.code_execution_20250825", "code_execution", nil)}}},
	"parallel-none-beta": {claude, provider.CallOptions{
		Tools:      []provider.Tool{anthropicTool("anthropic.bash_20241022", "bash", nil), weather},
		ToolChoice: provider.ToolChoice{Type: provider.ToolChoiceNone},
		ProviderOptions: provider.ProviderOptions{"bedrock": {"anthropicBeta": []any{"x-beta"}},
			"anthropic": {"disableParallelToolUse": true}}}},
	"parallel-auto": {claude, provider.CallOptions{
		Tools:           []provider.Tool{anthropicTool("anthropic.bash_20241022", "bash", nil)},
		ToolChoice:      provider.ToolChoice{Type: provider.ToolChoiceAuto},
		ProviderOptions: provider.ProviderOptions{"anthropic": {"disableParallelToolUse": true}}}},
	"parallel-unset": {claude, provider.CallOptions{
		Tools:           []provider.Tool{anthropicTool("anthropic.bash_20241022", "bash", nil)},
		ProviderOptions: provider.ProviderOptions{"anthropic": {"disableParallelToolUse": true}}}},
	"rejects-forced-tool": {"us.anthropic.claude-opus-5-5", provider.CallOptions{
		Tools: []provider.Tool{anthropicTool("anthropic.bash_20250124", "bash", nil),
			anthropicTool("anthropic.text_editor_20250124", "str_replace_editor", nil), weather},
		ToolChoice: provider.ToolChoice{Type: provider.ToolChoiceTool, ToolName: "bash"}}},
	"rejects-forced-required": {"us.anthropic.claude-opus-5-5", provider.CallOptions{
		Tools:      []provider.Tool{anthropicTool("anthropic.bash_20250124", "bash", nil), weather},
		ToolChoice: provider.ToolChoice{Type: provider.ToolChoiceRequired}}},
	"unknown-provider-tool": {claude, provider.CallOptions{
		Tools:      []provider.Tool{anthropicTool("anthropic.nope_20990101", "nope", nil), weather},
		ToolChoice: provider.ToolChoice{Type: provider.ToolChoiceAuto}}},
}

// Anthropic's provider-defined tools (bash, computer, text editor, memory,
// code execution) go to Claude models on Bedrock as tool specs with the
// tools' input schemas, with the anthropic-beta features they need and
// the tool choice in Anthropic's form; other models and the tools Bedrock
// lacks get a warning. The bodies are the reference's.
func TestBedrockAnthropicProviderTools(t *testing.T) {
	var cases []struct {
		Name     string             `json:"name"`
		Body     json.RawMessage    `json:"body"`
		Warnings []provider.Warning `json:"warnings"`
	}
	require.NoError(t, json.Unmarshal(replay.Read(t, "testdata/ts-anthropic-tools.json"), &cases))
	require.Len(t, cases, len(anthropicToolCalls))
	for _, c := range cases {
		t.Run(c.Name, func(t *testing.T) {
			call, ok := anthropicToolCalls[c.Name]
			require.True(t, ok, "no Go call for %s", c.Name)
			srv := replay.NewServer(t, replay.JSON([]byte(`{"output":{"message":{"role":"assistant","content":[{"text":"ok"}]}},"stopReason":"end_turn","usage":{"inputTokens":1,"outputTokens":1,"totalTokens":2}}`)))
			model := bedrock.New(bedrock.WithRegion("us-east-1"), bedrock.WithAPIKey("k"),
				bedrock.WithHTTPClient(&http.Client{Transport: &redirect{srv: srv}})).Model(call.model)
			opts := call.opts
			opts.Prompt = []provider.Message{user("Fix the file.")}
			res, err := model.Generate(context.Background(), &opts)
			require.NoError(t, err)
			assert.JSONEq(t, string(c.Body), string(srv.Last(t).Body), "request body")
			want := c.Warnings
			if c.Name == "unknown-provider-tool" {
				// The reference's second warning names the tool with an
				// uninterpolated template ("tool ${tool.id}"); one warning
				// naming it is enough.
				want = want[:1]
			}
			assert.Equal(t, nonNilWarnings(want), nonNilWarnings(res.Warnings))
		})
	}
}

func nonNilWarnings(w []provider.Warning) []provider.Warning {
	if w == nil {
		return []provider.Warning{}
	}
	return w
}
