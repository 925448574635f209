//lint:file-ignore SA1019 the protocol deprecates sampling, but servers still send sampling requests during the deprecation window

package mcptools_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/aisdkgo/ai/aitest"
	"github.com/aisdkgo/ai/mcptools"
	"github.com/aisdkgo/ai/provider"
)

// samplingServer has a tool that asks the client's model for text with a
// multi-round-trip input request and reports the answer.
func samplingServer(params *mcp.CreateMessageParams) *mcp.Server {
	server := mcp.NewServer(&mcp.Implementation{Name: "sampler", Version: "v1"}, nil)
	server.AddTool(&mcp.Tool{Name: "ask", InputSchema: objectSchema()}, func(_ context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		resp, ok := req.Params.InputResponses["llm"]
		if !ok {
			return &mcp.CallToolResult{InputRequests: mcp.InputRequestMap{"llm": params}}, nil
		}
		// The server reads every answer in the form that allows tool use.
		r, ok := resp.(*mcp.CreateMessageWithToolsResult)
		if !ok || len(r.Content) != 1 {
			return nil, fmt.Errorf("unexpected answer %#v", resp)
		}
		text := ""
		if tc, ok := r.Content[0].(*mcp.TextContent); ok {
			text = tc.Text
		}
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: fmt.Sprintf("%s|%s|%s|%s", r.Model, r.Role, r.StopReason, text)}}}, nil
	})
	return server
}

// TestSamplingInMemory answers a server's sampling request with the
// application's model, within the client's token cap, after approval.
func TestSamplingInMemory(t *testing.T) {
	ctx := context.Background()
	params := &mcp.CreateMessageParams{
		SystemPrompt:  "Be brief.",
		MaxTokens:     100000,
		Temperature:   0.5,
		StopSequences: []string{"END"},
		Messages: []*mcp.SamplingMessage{
			{Role: "user", Content: &mcp.TextContent{Text: "Describe this."}},
			{Role: "user", Content: &mcp.ImageContent{Data: []byte("img"), MIMEType: "image/png"}},
			{Role: "assistant", Content: &mcp.TextContent{Text: "A cat?"}},
			{Role: "user", Content: &mcp.TextContent{Text: "Yes."}},
		},
	}
	model := aitest.NewModel(
		aitest.Response{Content: []provider.Content{aitest.Text("A tabby cat.")}},
		aitest.Response{Content: []provider.Content{aitest.Text("A tabby")}, FinishReason: aitest.Length},
	)
	approvals := 0
	approve := true
	session := connectInMemory(t, samplingServer(params), mcptools.WithSampling(nil, mcptools.SamplingOptions{
		Model:     model,
		MaxTokens: 500,
		Approve: func(_ context.Context, p *mcp.CreateMessageParams) (bool, error) {
			approvals++
			assert.Equal(t, "Be brief.", p.SystemPrompt)
			return approve, nil
		},
	}))
	ask := func() (*mcp.CallToolResult, error) {
		return session.CallTool(ctx, &mcp.CallToolParams{Name: "ask", Arguments: map[string]any{}})
	}
	res, err := ask()
	require.NoError(t, err)
	assert.Equal(t, model.ModelID()+"|assistant|endTurn|A tabby cat.", res.Content[0].(*mcp.TextContent).Text)

	call := model.Calls()[0]
	require.NotNil(t, call.MaxOutputTokens)
	assert.Equal(t, 500, *call.MaxOutputTokens, "the server's limit is capped")
	require.NotNil(t, call.Temperature)
	assert.Equal(t, 0.5, *call.Temperature)
	assert.Equal(t, []string{"END"}, call.StopSequences)
	assert.Empty(t, call.Tools, "a sampling call has no tools")
	require.Len(t, call.Prompt, 5)
	assert.Equal(t, provider.SystemMessage{Content: "Be brief."}, call.Prompt[0])
	assert.Equal(t, provider.UserMessage{Content: []provider.UserPart{
		provider.TextPart{Text: "Describe this."},
	}}, call.Prompt[1])
	assert.IsType(t, provider.FilePart{}, call.Prompt[2].(provider.UserMessage).Content[0])
	assert.Equal(t, provider.AssistantMessage{Content: []provider.AssistantPart{provider.TextPart{Text: "A cat?"}}}, call.Prompt[3])

	res, err = ask()
	require.NoError(t, err)
	assert.Contains(t, res.Content[0].(*mcp.TextContent).Text, "|maxTokens|A tabby")

	approve = false
	_, err = ask()
	assert.ErrorContains(t, err, "declined")
	assert.Equal(t, 3, approvals)
	assert.Len(t, model.Calls(), 2, "a declined request never reaches the model")

	// Content a model cannot take fails the request.
	bad := connectInMemory(t, samplingServer(&mcp.CreateMessageParams{MaxTokens: 10, Messages: []*mcp.SamplingMessage{
		{Role: "user", Content: &mcp.ImageContent{MIMEType: "image/png"}},
	}}), mcptools.WithSampling(nil, mcptools.SamplingOptions{Model: model}))
	_, err = bad.CallTool(ctx, &mcp.CallToolParams{Name: "ask", Arguments: map[string]any{}})
	assert.Error(t, err)
	assert.Len(t, model.Calls(), 2)
}

// TestMCPSampling lets the reference server ask the client's model for
// text in the middle of a tool call.
func TestMCPSampling(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	model := aitest.NewModel(aitest.Response{Content: []provider.Content{aitest.Text("Hello from the model.")}})
	session := connectEverything(t, ctx, mcptools.WithSampling(nil, mcptools.SamplingOptions{Model: model}))
	waitForTool(t, ctx, session, "trigger-sampling-request")
	res, err := session.CallTool(ctx, &mcp.CallToolParams{Name: "trigger-sampling-request", Arguments: map[string]any{"prompt": "Say hello", "maxTokens": 50}})
	require.NoError(t, err)
	require.False(t, res.IsError, "%v", res.Content)
	text := res.Content[0].(*mcp.TextContent).Text
	assert.Contains(t, text, "Hello from the model.")
	assert.Contains(t, text, `"stopReason": "endTurn"`)
	call := model.Calls()[0]
	assert.Equal(t, 50, *call.MaxOutputTokens)
	assert.Equal(t, provider.SystemMessage{Content: "You are a helpful test server."}, call.Prompt[0])
	assert.Contains(t, call.Prompt[1].(provider.UserMessage).Content[0].(provider.TextPart).Text, "Say hello")
}
