package mcptools_test

import (
	"bytes"
	"context"
	"errors"
	"os/exec"
	"slices"
	"strings"
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

// connectEverything starts the reference server over stdio (skipping the
// test when Node is missing, see everythingEntry) and connects a client
// with opts to it. The session is closed when the test ends.
func connectEverything(t *testing.T, ctx context.Context, opts *mcp.ClientOptions) *mcp.ClientSession {
	t.Helper()
	entry := everythingEntry(t)
	var stderr bytes.Buffer
	cmd := exec.Command("node", entry, "stdio")
	cmd.Stderr = &stderr
	client := mcp.NewClient(&mcp.Implementation{Name: "mcptools-test", Version: "v1"}, opts)
	session, err := client.Connect(ctx, &mcp.CommandTransport{Command: cmd, TerminateDuration: 200 * time.Millisecond}, nil)
	require.NoError(t, err, "stderr: %s", &stderr)
	t.Cleanup(func() { session.Close() })
	return session
}

// TestMCPResourcesAndPrompts lists, reads and watches the reference
// server's resources and gets its prompts, and gives both to a model as
// messages.
func TestMCPResourcesAndPrompts(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	updates := new(mcptools.ResourceUpdates)
	session := connectEverything(t, ctx, updates.ClientOptions(nil))

	resources, err := mcptools.ListResources(ctx, session)
	require.NoError(t, err)
	var static []string
	for _, r := range resources {
		if strings.HasPrefix(r.URI, "demo://resource/static/document/") {
			static = append(static, r.URI)
		}
	}
	require.NotEmpty(t, static, "the server lists its static documents")

	templates, err := mcptools.ListResourceTemplates(ctx, session)
	require.NoError(t, err)
	var uriTemplates []string
	for _, rt := range templates {
		uriTemplates = append(uriTemplates, rt.URITemplate)
	}
	assert.Contains(t, uriTemplates, "demo://resource/dynamic/text/{resourceId}")
	assert.Contains(t, uriTemplates, "demo://resource/dynamic/blob/{resourceId}")

	text, err := mcptools.ReadResource(ctx, session, "demo://resource/dynamic/text/3")
	require.NoError(t, err)
	parts, err := mcptools.ResourceParts(text.Contents)
	require.NoError(t, err)
	require.Len(t, parts, 1)
	tp, ok := parts[0].(ai.TextPart)
	require.True(t, ok, "a text resource is text: %#v", parts[0])
	assert.True(t, strings.HasPrefix(tp.Text, "Resource 3: This is a plaintext resource"), tp.Text)

	blob, err := mcptools.ReadResource(ctx, session, "demo://resource/dynamic/blob/4")
	require.NoError(t, err)
	parts, err = mcptools.ResourceParts(blob.Contents)
	require.NoError(t, err)
	require.Len(t, parts, 1)
	fp, ok := parts[0].(ai.FilePart)
	require.True(t, ok, "a blob is a file: %#v", parts[0])
	assert.Equal(t, "text/plain", fp.MediaType)
	assert.Equal(t, "4", fp.Filename)
	assert.True(t, bytes.HasPrefix(fp.Data.(provider.FileBytes).Data, []byte("Resource 4: This is a base64 blob")))

	_, err = mcptools.ReadResource(ctx, session, "demo://resource/dynamic/text/0")
	require.Error(t, err, "the server rejects an unknown resource")

	// Prompts.
	prompts, err := mcptools.ListPrompts(ctx, session)
	require.NoError(t, err)
	var names []string
	for _, p := range prompts {
		names = append(names, p.Name)
	}
	for _, want := range []string{"simple-prompt", "args-prompt", "resource-prompt"} {
		assert.Contains(t, names, want)
	}
	msgs, res, err := mcptools.GetPrompt(ctx, session, "args-prompt", map[string]string{"city": "Chicago", "state": "IL"})
	require.NoError(t, err)
	require.NotNil(t, res)
	assert.Equal(t, []ai.Message{ai.UserMessage{Content: []ai.UserPart{ai.TextPart{Text: "What's weather in Chicago, IL?"}}}}, msgs)

	withBlob, _, err := mcptools.GetPrompt(ctx, session, "resource-prompt", map[string]string{"resourceType": "Blob", "resourceId": "2"})
	require.NoError(t, err)
	require.Len(t, withBlob, 2)
	embedded := withBlob[1].(ai.UserMessage).Content[0].(ai.FilePart)
	assert.Equal(t, "text/plain", embedded.MediaType)
	assert.True(t, bytes.HasPrefix(embedded.Data.(provider.FileBytes).Data, []byte("Resource 2: This is a base64 blob")))

	_, _, err = mcptools.GetPrompt(ctx, session, "resource-prompt", map[string]string{"resourceType": "Video", "resourceId": "2"})
	require.Error(t, err, "the server's failure is an error")

	// The messages go to a model as they are.
	model := aitest.NewModel(aitest.Response{Content: []provider.Content{aitest.Text("Sunny.")}})
	out, err := ai.GenerateText(ctx, ai.GenerateTextOptions{Model: model, Messages: append(msgs, withBlob...)})
	require.NoError(t, err)
	assert.Equal(t, "Sunny.", out.Text)
	sent := model.Calls()[0].Prompt
	require.NotEmpty(t, sent)
	var sawFile, sawText bool
	for _, m := range sent {
		if um, ok := m.(provider.UserMessage); ok {
			for _, p := range um.Content {
				switch p := p.(type) {
				case provider.FilePart:
					sawFile = true
				case provider.TextPart:
					sawText = sawText || strings.Contains(p.Text, "Chicago, IL")
				}
			}
		}
	}
	assert.True(t, sawFile, "the embedded blob reaches the model as a file")
	assert.True(t, sawText, "the prompt's text reaches the model")

	// Subscriptions: once switched on, the server sends an update of
	// every subscribed resource every five seconds.
	toggle, err := session.CallTool(ctx, &mcp.CallToolParams{Name: "toggle-subscriber-updates", Arguments: map[string]any{}})
	require.NoError(t, err)
	require.False(t, toggle.IsError)
	defer func() {
		_, _ = session.CallTool(context.WithoutCancel(ctx), &mcp.CallToolParams{Name: "toggle-subscriber-updates", Arguments: map[string]any{}})
	}()
	const watched = "demo://resource/dynamic/text/1"
	watchCtx, stopWatching := context.WithCancel(ctx)
	defer stopWatching()
	got := make(chan string, 10)
	done := make(chan error, 1)
	go func() {
		var last error
		for uri, err := range updates.Watch(watchCtx, session, watched) {
			if err != nil {
				last = err
				break
			}
			got <- uri
		}
		done <- last
	}()
	select {
	case uri := <-got:
		assert.Equal(t, watched, uri)
	case err := <-done:
		t.Fatalf("the watch ended before an update: %v", err)
	case <-time.After(time.Minute):
		t.Fatal("no resource update arrived")
	}
	stopWatching()
	select {
	case err := <-done:
		assert.True(t, errors.Is(err, context.Canceled), "the watch ends with its ctx's error: %v", err)
	case <-time.After(30 * time.Second):
		t.Fatal("the watch did not end with its ctx")
	}
}

// waitForTool lists the tools of a session until name is among them:
// the reference server registers the tools that depend on the client's
// capabilities only after the session started.
func waitForTool(t *testing.T, ctx context.Context, session *mcp.ClientSession, name string) []*mcp.Tool {
	t.Helper()
	for {
		res, err := session.ListTools(ctx, nil)
		require.NoError(t, err)
		if slices.ContainsFunc(res.Tools, func(tl *mcp.Tool) bool { return tl.Name == name }) {
			return res.Tools
		}
		select {
		case <-ctx.Done():
			t.Fatalf("the server never listed %s", name)
		case <-time.After(20 * time.Millisecond):
		}
	}
}

// TestMCPElicitation lets the reference server ask the user for
// information in the middle of a tool call, through the handler, and
// answers accept, decline and cancel in turn.
func TestMCPElicitation(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	answers := make(chan mcptools.ElicitResponse, 1)
	asked := make(chan *mcptools.Elicitation, 3)
	session := connectEverything(t, ctx, mcptools.WithElicitation(nil, func(_ context.Context, e *mcptools.Elicitation) (mcptools.ElicitResponse, error) {
		asked <- e
		return <-answers, nil
	}))
	waitForTool(t, ctx, session, "trigger-elicitation-request")

	src := mcptools.NewSource(session, nil)
	tools, err := src.Tools(ctx)
	require.NoError(t, err)

	answers <- mcptools.ElicitResponse{Action: mcptools.ElicitAccept, Content: map[string]any{
		"name": "Ada Lovelace", "check": true, "email": "ada@example.com", "integer": 7,
	}}
	res, model := generation(t, ctx, tools, "trigger-elicitation-request", map[string]any{})
	e := <-asked
	assert.Equal(t, "form", e.Mode)
	assert.Equal(t, "Please provide inputs for the following fields:", e.Message)
	assert.Contains(t, string(e.RequestedSchema), `"required":["name"]`)
	assert.Same(t, session, e.Session)
	result, toolErr := toolOutcome(t, res)
	require.Nil(t, toolErr, "%v", toolErr)
	text := mcptools.ModelOutput(result.Output.(*mcp.CallToolResult)).(ai.TextOutput).Value
	assert.Contains(t, text, "User provided the requested information")
	assert.Contains(t, text, "- Name: Ada Lovelace")
	assert.Contains(t, text, "- Favorite Integer: 7")
	// The client filled in the schema's defaults before answering.
	assert.Contains(t, text, "It was a dark and stormy night.")
	assert.Equal(t, ai.TextOutput{Value: text}, sentOutput(t, model))

	for _, tc := range []struct {
		action mcptools.ElicitAction
		want   string
	}{
		{mcptools.ElicitDecline, "User declined"},
		{mcptools.ElicitCancel, "User cancelled"},
	} {
		answers <- mcptools.ElicitResponse{Action: tc.action}
		out, err := session.CallTool(ctx, &mcp.CallToolParams{Name: "trigger-elicitation-request", Arguments: map[string]any{}})
		require.NoError(t, err)
		<-asked
		assert.Contains(t, out.Content[0].(*mcp.TextContent).Text, tc.want)
	}

	// An answer that breaks the requested schema never reaches the server
	// as an answer: the server's request fails.
	answers <- mcptools.ElicitResponse{Action: mcptools.ElicitAccept, Content: map[string]any{"integer": 7}}
	out, err := session.CallTool(ctx, &mcp.CallToolParams{Name: "trigger-elicitation-request", Arguments: map[string]any{}})
	<-asked
	require.NoError(t, err)
	assert.True(t, out.IsError, "the server reports the failed elicitation")
	assert.Contains(t, out.Content[0].(*mcp.TextContent).Text, "does not match requested schema")
}
