package mcptools_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/aisdkgo/ai"
	"github.com/aisdkgo/ai/aitest"
	"github.com/aisdkgo/ai/mcptools"
	"github.com/aisdkgo/ai/provider"
)

var png = []byte("\x89PNG\r\n\x1a\nfake image")

// fixed returns a handler that answers with res.
func fixed(res *mcp.CallToolResult) mcp.ToolHandler {
	return func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) { return res, nil }
}

// callOne serves one tool with handler h, calls it through a generation and
// returns the generation and its model.
func callOne(t *testing.T, h mcp.ToolHandler, opts ...func(*ai.GenerateTextOptions)) (*ai.GenerateTextResult, *testServer, provider.ToolResultOutput) {
	t.Helper()
	ts := newServer(t, nil, func(s *mcp.Server) { addTool(s, "tool", "A tool.", h) })
	tools, err := mcptools.NewSource(ts.session, nil).Tools(context.Background())
	require.NoError(t, err)
	res, model := generation(t, context.Background(), tools, "tool", map[string]any{"text": "x"}, opts...)
	return res, ts, sentOutput(t, model)
}

func TestCallText(t *testing.T) {
	res, _, out := callOne(t, fixed(&mcp.CallToolResult{Content: []mcp.Content{
		&mcp.TextContent{Text: "first"}, &mcp.TextContent{Text: "second"},
	}}))
	r, e := toolOutcome(t, res)
	require.Nil(t, e)
	assert.IsType(t, &mcp.CallToolResult{}, r.Output, "the tool's output is the server's result")
	assert.Equal(t, ai.TextOutput{Value: "first\n\nsecond"}, out)
}

func TestCallImageAndAudio(t *testing.T) {
	wav := []byte("RIFF....WAVEfmt ")
	res, _, out := callOne(t, fixed(&mcp.CallToolResult{Content: []mcp.Content{
		&mcp.TextContent{Text: "Here it is:"},
		&mcp.ImageContent{Data: png, MIMEType: "image/png"},
		&mcp.AudioContent{Data: wav, MIMEType: "audio/wav"},
		&mcp.EmbeddedResource{Resource: &mcp.ResourceContents{URI: "file:///tmp/report.pdf", MIMEType: "application/pdf", Blob: []byte("%PDF-1.7")}},
	}}))
	_, e := toolOutcome(t, res)
	require.Nil(t, e)
	assert.Equal(t, ai.ContentOutput{Value: []provider.ContentOutputPart{
		ai.TextPart{Text: "Here it is:"},
		ai.FilePart{Data: provider.FileBytes{Data: png}, MediaType: "image/png"},
		ai.FilePart{Data: provider.FileBytes{Data: wav}, MediaType: "audio/wav"},
		ai.FilePart{Data: provider.FileBytes{Data: []byte("%PDF-1.7")}, MediaType: "application/pdf", Filename: "report.pdf"},
	}}, out)
}

func TestCallStructured(t *testing.T) {
	res, _, out := callOne(t, fixed(&mcp.CallToolResult{
		Content:           []mcp.Content{&mcp.TextContent{Text: `{"temperature":21.5,"unit":"C"}`}},
		StructuredContent: map[string]any{"temperature": 21.5, "unit": "C"},
	}))
	_, e := toolOutcome(t, res)
	require.Nil(t, e)
	require.IsType(t, ai.JSONOutput{}, out)
	assert.JSONEq(t, `{"temperature":21.5,"unit":"C"}`, string(out.(ai.JSONOutput).Value))
}

func TestCallResources(t *testing.T) {
	_, _, out := callOne(t, fixed(&mcp.CallToolResult{Content: []mcp.Content{
		&mcp.ResourceLink{URI: "file:///notes.txt", Name: "notes"},
		&mcp.EmbeddedResource{Resource: &mcp.ResourceContents{URI: "file:///a.txt", MIMEType: "text/plain", Text: "alpha"}},
	}}))
	require.IsType(t, ai.TextOutput{}, out)
	text := out.(ai.TextOutput).Value
	assert.Contains(t, text, `"uri":"file:///notes.txt"`)
	assert.Contains(t, text, `"text":"alpha"`)
}

func TestCallIsError(t *testing.T) {
	res, _, out := callOne(t, fixed(&mcp.CallToolResult{
		IsError: true,
		Content: []mcp.Content{&mcp.TextContent{Text: "repository not found: acme/rocket"}},
	}))
	r, e := toolOutcome(t, res)
	require.Nil(t, r)
	require.NotNil(t, e)
	var ce *mcptools.CallError
	require.ErrorAs(t, e.Error, &ce)
	assert.Equal(t, "repository not found: acme/rocket", ce.Error(), "the model reads the server's text")
	assert.Equal(t, "tool", ce.Tool)
	assert.Equal(t, "test-server", ce.Server)
	assert.True(t, ce.Result.IsError)
	assert.Nil(t, ce.Err)
	assert.Equal(t, ai.ErrorTextOutput{Value: "repository not found: acme/rocket"}, out)
}

func TestCallHandlerError(t *testing.T) {
	res, _, out := callOne(t, func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return nil, errors.New("database is down")
	})
	_, e := toolOutcome(t, res)
	require.NotNil(t, e)
	var ce *mcptools.CallError
	require.ErrorAs(t, e.Error, &ce)
	require.Error(t, ce.Err)
	assert.Contains(t, e.Error.Error(), "database is down")
	require.IsType(t, ai.ErrorTextOutput{}, out)
	assert.Contains(t, out.(ai.ErrorTextOutput).Value, "database is down")
	assert.Equal(t, "done", res.Text, "the generation goes on")
}

func TestCallServerClosedMidCall(t *testing.T) {
	started := make(chan struct{})
	ts := newServer(t, nil, func(s *mcp.Server) {
		addTool(s, "slow", "Never answers.", func(ctx context.Context, _ *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			close(started)
			<-ctx.Done()
			return nil, ctx.Err()
		})
	})
	tools, err := mcptools.NewSource(ts.session, nil).Tools(context.Background())
	require.NoError(t, err)
	go func() {
		<-started
		ts.ss.Close() // the server goes away while the call is running
	}()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	res, _ := generation(t, ctx, tools, "slow", map[string]any{"text": "x"})
	_, e := toolOutcome(t, res)
	require.NotNil(t, e)
	assert.ErrorIs(t, e.Error, mcp.ErrConnectionClosed)
	assert.Equal(t, "done", res.Text)

	// Later calls on the dead session fail the same way.
	res, _ = generation(t, ctx, tools, "slow", map[string]any{"text": "x"})
	_, e = toolOutcome(t, res)
	require.NotNil(t, e)
	assert.ErrorIs(t, e.Error, mcp.ErrConnectionClosed)
}

func TestCallTimeout(t *testing.T) {
	cancelled := make(chan struct{})
	res, _, out := callOne(t, func(ctx context.Context, _ *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		select {
		case <-ctx.Done():
			close(cancelled)
			return nil, ctx.Err()
		case <-time.After(30 * time.Second):
			return &mcp.CallToolResult{}, nil
		}
	}, func(o *ai.GenerateTextOptions) { o.Timeout.Tool = 100 * time.Millisecond })
	_, e := toolOutcome(t, res)
	require.NotNil(t, e)
	assert.ErrorIs(t, e.Error, context.DeadlineExceeded)
	require.IsType(t, ai.ErrorTextOutput{}, out)
	// The model is told which tool ran out of time, and after how long.
	assert.Equal(t, "tool tool timed out after 100ms", out.(ai.ErrorTextOutput).Value)
	select {
	case <-cancelled:
	case <-time.After(5 * time.Second):
		t.Error("the server was not told to cancel the call")
	}
}

func TestCallMalformedContent(t *testing.T) {
	for name, content := range map[string]mcp.Content{
		"image without data":       &mcp.ImageContent{MIMEType: "image/png"},
		"image without media type": &mcp.ImageContent{Data: png},
		"audio with a bad type":    &mcp.AudioContent{Data: png, MIMEType: "not a type"},
		"empty blob":               &mcp.EmbeddedResource{Resource: &mcp.ResourceContents{URI: "file:///x", Blob: []byte{}}},
		"link without a URI":       &mcp.ResourceLink{Name: "x"},
		"sampling content":         &mcp.ToolUseContent{ID: "1", Name: "x"}, //lint:ignore SA1019 a server may still send it
	} {
		t.Run(name, func(t *testing.T) {
			res, _, out := callOne(t, fixed(&mcp.CallToolResult{Content: []mcp.Content{content}}))
			_, e := toolOutcome(t, res)
			require.NotNil(t, e, "a result the model cannot be shown is a tool error")
			assert.ErrorContains(t, e.Error, "malformed content 0")
			assert.IsType(t, ai.ErrorTextOutput{}, out)
		})
	}
}

func TestCallUnknownTool(t *testing.T) {
	ts := newServer(t, nil, func(s *mcp.Server) { addTool(s, "gone", "Soon removed.", textResult("%v")) })
	tools, err := mcptools.NewSource(ts.session, nil).Tools(context.Background())
	require.NoError(t, err)
	ts.server.RemoveTools("gone")
	res, _ := generation(t, context.Background(), tools, "gone", map[string]any{"text": "x"})
	_, e := toolOutcome(t, res)
	require.NotNil(t, e)
	assert.ErrorContains(t, e.Error, `unknown tool "gone"`)
}

func TestCallGenerationCancelled(t *testing.T) {
	started, cancelled := make(chan struct{}), make(chan struct{})
	ts := newServer(t, nil, func(s *mcp.Server) {
		addTool(s, "slow", "Waits.", func(ctx context.Context, _ *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			close(started)
			<-ctx.Done()
			close(cancelled)
			return nil, ctx.Err()
		})
	})
	tools, err := mcptools.NewSource(ts.session, nil).Tools(context.Background())
	require.NoError(t, err)
	ctx, cancel := context.WithCancel(context.Background())
	go func() {
		<-started
		cancel()
	}()
	model := aitest.NewModel(
		aitest.Response{Content: []provider.Content{aitest.ToolCall("c1", "slow", map[string]any{"text": "x"})}, FinishReason: aitest.ToolCalls},
		aitest.Response{Content: []provider.Content{aitest.Text("unreachable")}},
	)
	_, err = ai.GenerateText(ctx, ai.GenerateTextOptions{Model: model, Prompt: "go", Tools: tools, StopWhen: ai.StepCountIs(2)})
	require.ErrorIs(t, err, context.Canceled, "cancelling the generation ends it")
	select {
	case <-cancelled:
	case <-time.After(5 * time.Second):
		t.Error("the server was not told to cancel the call")
	}
}
