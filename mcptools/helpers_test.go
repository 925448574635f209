package mcptools_test

import (
	"context"
	"encoding/json"
	"fmt"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/require"

	"github.com/aisdkgo/ai"
	"github.com/aisdkgo/ai/aitest"
	"github.com/aisdkgo/ai/mcptools"
	"github.com/aisdkgo/ai/provider"
)

// testServer is an in-memory MCP server and a client session connected to
// it.
type testServer struct {
	server  *mcp.Server
	ss      *mcp.ServerSession
	session *mcp.ClientSession
	changes *mcptools.ListChanged
	// notified receives a value for every tool-list-changed notification
	// the client gets.
	notified chan struct{}
}

// newServer returns a server whose tools add registers, with a client
// connected to it that records list-changed notifications.
func newServer(t testing.TB, opts *mcp.ServerOptions, add func(*mcp.Server)) *testServer {
	t.Helper()
	server := mcp.NewServer(&mcp.Implementation{Name: "test-server", Version: "v1.2.3"}, opts)
	if add != nil {
		add(server)
	}
	ts := &testServer{server: server, changes: new(mcptools.ListChanged), notified: make(chan struct{}, 100)}
	ts.connect(t)
	return ts
}

func (ts *testServer) connect(t testing.TB) {
	t.Helper()
	ctx := context.Background()
	clientT, serverT := mcp.NewInMemoryTransports()
	ss, err := ts.server.Connect(ctx, serverT, nil)
	require.NoError(t, err)
	notified := ts.notified
	client := mcp.NewClient(&mcp.Implementation{Name: "test-client", Version: "v1"}, ts.changes.ClientOptions(&mcp.ClientOptions{
		ToolListChangedHandler: func(context.Context, *mcp.ToolListChangedRequest) { notified <- struct{}{} },
	}))
	session, err := client.Connect(ctx, clientT, nil)
	require.NoError(t, err)
	ts.ss, ts.session = ss, session
	t.Cleanup(func() {
		session.Close()
		ss.Close()
	})
}

// waitNotified waits for one list-changed notification.
func (ts *testServer) waitNotified(t testing.TB) {
	t.Helper()
	select {
	case <-ts.notified:
	case <-time.After(5 * time.Second):
		t.Fatal("no tool-list-changed notification arrived")
	}
}

// objectSchema is an input schema with the given string properties, all
// required.
func objectSchema(props ...string) json.RawMessage {
	m := map[string]any{"type": "object", "properties": map[string]any{}}
	for _, p := range props {
		m["properties"].(map[string]any)[p] = map[string]any{"type": "string", "description": "the " + p}
	}
	if len(props) > 0 {
		m["required"] = props
	}
	b, _ := json.Marshal(m)
	return b
}

// addTool registers a tool with a raw handler.
func addTool(s *mcp.Server, name, description string, h mcp.ToolHandler) {
	s.AddTool(&mcp.Tool{Name: name, Description: description, InputSchema: objectSchema("text")}, h)
}

// textResult returns a handler answering with text.
func textResult(format string) mcp.ToolHandler {
	return func(_ context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		var in map[string]any
		_ = json.Unmarshal(req.Params.Arguments, &in)
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: fmt.Sprintf(format, in["text"])}}}, nil
	}
}

// generation runs a generation whose scripted model calls tool with input,
// then answers "done"; it returns the result and the model.
func generation(t testing.TB, ctx context.Context, tools ai.Tools, tool string, input any, opts ...func(*ai.GenerateTextOptions)) (*ai.GenerateTextResult, *aitest.Model) {
	t.Helper()
	model := aitest.NewModel(
		aitest.Response{Content: []provider.Content{aitest.ToolCall("call-1", tool, input)}, FinishReason: aitest.ToolCalls},
		aitest.Response{Content: []provider.Content{aitest.Text("done")}},
	)
	o := ai.GenerateTextOptions{Model: model, Prompt: "go", Tools: tools, StopWhen: ai.StepCountIs(2)}
	for _, f := range opts {
		f(&o)
	}
	res, err := ai.GenerateText(ctx, o)
	require.NoError(t, err)
	return res, model
}

// toolOutcome returns the single tool result or error of a generation.
func toolOutcome(t testing.TB, res *ai.GenerateTextResult) (*ai.ToolResult, *ai.ToolError) {
	t.Helper()
	for _, p := range res.Content() {
		switch p := p.(type) {
		case ai.ToolResult:
			return &p, nil
		case ai.ToolError:
			return nil, &p
		}
	}
	t.Fatal("the generation has no tool result or error")
	return nil, nil
}

// sentOutput returns the tool result output the model received in its
// second call.
func sentOutput(t testing.TB, model *aitest.Model) provider.ToolResultOutput {
	t.Helper()
	calls := model.Calls()
	require.GreaterOrEqual(t, len(calls), 2)
	for _, m := range calls[1].Prompt {
		if tm, ok := m.(provider.ToolMessage); ok {
			for _, p := range tm.Content {
				if r, ok := p.(provider.ToolResultPart); ok {
					return r.Output
				}
			}
		}
	}
	t.Fatal("the second model call has no tool result")
	return nil
}

// toolNames returns the names of the tools a model call received.
func toolNames(opts provider.CallOptions) []string {
	var names []string
	for _, t := range opts.Tools {
		switch t := t.(type) {
		case *provider.FunctionTool:
			names = append(names, t.Name)
		case *provider.ProviderTool:
			names = append(names, t.Name)
		}
	}
	return names
}
