package mcptools_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/aisdkgo/ai"
	"github.com/aisdkgo/ai/mcptools"
	"github.com/aisdkgo/ai/provider"
)

// connectInMemory connects a client with opts to server over in-memory
// transports; both ends are closed when the test ends.
func connectInMemory(t testing.TB, server *mcp.Server, opts *mcp.ClientOptions) *mcp.ClientSession {
	t.Helper()
	ctx := context.Background()
	clientT, serverT := mcp.NewInMemoryTransports()
	ss, err := server.Connect(ctx, serverT, nil)
	require.NoError(t, err)
	client := mcp.NewClient(&mcp.Implementation{Name: "test-client", Version: "v1"}, opts)
	session, err := client.Connect(ctx, clientT, nil)
	require.NoError(t, err)
	t.Cleanup(func() {
		session.Close()
		ss.Close()
	})
	return session
}

// within waits for a value from ch.
func within[T any](t testing.TB, ch <-chan T, what string) T {
	t.Helper()
	select {
	case v := <-ch:
		return v
	case <-time.After(10 * time.Second):
		t.Fatalf("timed out waiting for %s", what)
		var zero T
		return zero
	}
}

// TestResourcesInMemory lists resources over several pages, reads text
// and binary contents, and rejects contents that cannot become parts.
func TestResourcesInMemory(t *testing.T) {
	ctx := context.Background()
	server := mcp.NewServer(&mcp.Implementation{Name: "res", Version: "v1"}, &mcp.ServerOptions{PageSize: 2})
	for i := range 5 {
		uri := fmt.Sprintf("file:///docs/%d.txt", i)
		server.AddResource(&mcp.Resource{URI: uri, Name: fmt.Sprint(i), MIMEType: "text/plain"}, func(_ context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
			return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{URI: req.Params.URI, MIMEType: "text/plain", Text: "doc " + req.Params.URI}}}, nil
		})
	}
	server.AddResource(&mcp.Resource{URI: "file:///logo.png", Name: "logo", MIMEType: "image/png"}, func(context.Context, *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
		return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{
			{URI: "file:///logo.png", MIMEType: "image/png", Blob: []byte("\x89PNG")},
			{URI: "file:///logo.png#alt", Text: "the logo"},
		}}, nil
	})
	server.AddResourceTemplate(&mcp.ResourceTemplate{URITemplate: "file:///logs/{date}", Name: "logs"}, nil)
	// A server that answers with no contents.
	server.AddReceivingMiddleware(func(next mcp.MethodHandler) mcp.MethodHandler {
		return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
			if p, ok := req.GetParams().(*mcp.ReadResourceParams); ok && method == "resources/read" && strings.HasPrefix(p.URI, "file:///logs/") {
				return &mcp.ReadResourceResult{}, nil
			}
			return next(ctx, method, req)
		}
	})
	session := connectInMemory(t, server, nil)

	resources, err := mcptools.ListResources(ctx, session)
	require.NoError(t, err)
	assert.Len(t, resources, 6, "every page is followed")
	templates, err := mcptools.ListResourceTemplates(ctx, session)
	require.NoError(t, err)
	require.Len(t, templates, 1)
	assert.Equal(t, "file:///logs/{date}", templates[0].URITemplate)

	res, err := mcptools.ReadResource(ctx, session, "file:///logo.png")
	require.NoError(t, err)
	parts, err := mcptools.ResourceParts(res.Contents)
	require.NoError(t, err)
	assert.Equal(t, []ai.UserPart{
		ai.FilePart{Data: provider.FileBytes{Data: []byte("\x89PNG")}, MediaType: "image/png", Filename: "logo.png"},
		ai.TextPart{Text: "the logo"},
	}, parts)

	_, err = mcptools.ReadResource(ctx, session, "file:///logs/today")
	assert.ErrorContains(t, err, "no contents")

	_, err = mcptools.ResourceParts([]*mcp.ResourceContents{{URI: "x:/a", Blob: []byte("x"), MIMEType: "not a type"}})
	assert.ErrorContains(t, err, "invalid media type")
	_, err = mcptools.ResourceParts([]*mcp.ResourceContents{{URI: "x:/a", Text: "ok"}, nil})
	assert.Error(t, err)
	_, err = mcptools.ResourceParts([]*mcp.ResourceContents{{URI: "x:/a", Blob: []byte{}}})
	assert.ErrorContains(t, err, "without data")
	parts, err = mcptools.ResourceParts([]*mcp.ResourceContents{{URI: "mem:blob", Blob: []byte{1}}})
	require.NoError(t, err)
	assert.Equal(t, ai.FilePart{Data: provider.FileBytes{Data: []byte{1}}, MediaType: "application/octet-stream"}, parts[0])
}

// TestListingStopsOnRepeatedCursor lists from a server whose cursor never
// ends and gets an error, not an endless loop.
func TestListingStopsOnRepeatedCursor(t *testing.T) {
	server := mcp.NewServer(&mcp.Implementation{Name: "loop", Version: "v1"}, nil)
	server.AddResource(&mcp.Resource{URI: "file:///a", Name: "a"}, nil)
	server.AddPrompt(&mcp.Prompt{Name: "p"}, nil)
	server.AddReceivingMiddleware(func(next mcp.MethodHandler) mcp.MethodHandler {
		return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
			switch method {
			case "resources/list":
				return &mcp.ListResourcesResult{Resources: []*mcp.Resource{{URI: "file:///a", Name: "a"}}, NextCursor: "again"}, nil
			case "prompts/list":
				return &mcp.ListPromptsResult{Prompts: []*mcp.Prompt{{Name: "p"}}, NextCursor: "again"}, nil
			}
			return next(ctx, method, req)
		}
	})
	session := connectInMemory(t, server, nil)
	_, err := mcptools.ListResources(context.Background(), session)
	assert.ErrorContains(t, err, "cursor")
	_, err = mcptools.ListPrompts(context.Background(), session)
	assert.ErrorContains(t, err, "cursor")
}

// subscriptionServer is a server with one resource tree and handlers that
// report every subscribe and unsubscribe.
func subscriptionServer(t *testing.T) (*mcp.Server, chan string, chan string) {
	subscribed := make(chan string, 10)
	unsubscribed := make(chan string, 10)
	server := mcp.NewServer(&mcp.Implementation{Name: "subs", Version: "v1"}, &mcp.ServerOptions{
		SubscribeHandler: func(_ context.Context, req *mcp.SubscribeRequest) error {
			subscribed <- req.Params.URI
			return nil
		},
		UnsubscribeHandler: func(_ context.Context, req *mcp.UnsubscribeRequest) error {
			unsubscribed <- req.Params.URI
			return nil
		},
	})
	read := func(_ context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
		return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{URI: req.Params.URI, Text: "x"}}}, nil
	}
	server.AddResource(&mcp.Resource{URI: "file:///notes", Name: "notes"}, read)
	server.AddResource(&mcp.Resource{URI: "file:///other", Name: "other"}, read)
	return server, subscribed, unsubscribed
}

// TestResourceWatchInMemory watches one resource with two loops: both see
// the updates of the resource and its sub-resources and nothing else, the
// server is subscribed once and unsubscribed when the last loop ends, and
// updates that arrive while a loop body runs are kept, each once.
func TestResourceWatchInMemory(t *testing.T) {
	ctx := context.Background()
	server, subscribed, unsubscribed := subscriptionServer(t)
	updates := new(mcptools.ResourceUpdates)
	session := connectInMemory(t, server, updates.ClientOptions(nil))

	type event struct {
		uri string
		err error
	}
	watch := func(ctx context.Context, gate chan struct{}) chan event {
		out := make(chan event, 100)
		go func() {
			defer close(out)
			for uri, err := range updates.Watch(ctx, session, "file:///notes") {
				out <- event{uri, err}
				if err != nil {
					return
				}
				if gate != nil {
					<-gate
				}
			}
		}()
		return out
	}
	ctx1, cancel1 := context.WithCancel(ctx)
	defer cancel1()
	gate := make(chan struct{})
	first := watch(ctx1, gate)
	assert.Equal(t, "file:///notes", within(t, subscribed, "the subscription"))

	ctx2, cancel2 := context.WithCancel(ctx)
	defer cancel2()
	second := watch(ctx2, nil)

	notify := func(uri string) {
		require.NoError(t, server.ResourceUpdated(ctx, &mcp.ResourceUpdatedNotificationParams{URI: uri}))
	}
	// The second loop registers without a request of its own; wait until
	// it sees updates, then until it has taken them all.
	for {
		notify("file:///notes")
		select {
		case e := <-second:
			require.NoError(t, e.err)
			assert.Equal(t, "file:///notes", e.uri)
		case <-time.After(10 * time.Millisecond):
			continue
		}
		break
	}
	quiet := func(ch chan event) []string {
		var uris []string
		for {
			select {
			case e := <-ch:
				require.NoError(t, e.err)
				uris = append(uris, e.uri)
			case <-time.After(100 * time.Millisecond):
				return uris
			}
		}
	}
	quiet(second)
	assert.Equal(t, event{"file:///notes", nil}, within(t, first, "the first update"))
	// The first loop's body now blocks on gate: updates pile up. The
	// server sends updates of the subscribed URI only; those of
	// sub-resources, which MCP allows, are handed to Handle directly.
	handle := func(uri string) {
		updates.Handle(ctx, &mcp.ResourceUpdatedNotificationRequest{Session: session, Params: &mcp.ResourceUpdatedNotificationParams{URI: uri}})
	}
	handle("file:///notes/page-1")
	notify("file:///notes")
	handle("file:///notes/page-1")
	handle("file:///notesbook")
	handle("file:///other")
	handle("file:///notes/page-2")
	got := quiet(second)
	assert.Contains(t, got, "file:///notes/page-1", "a sub-resource's update")
	assert.Contains(t, got, "file:///notes")
	assert.NotContains(t, got, "file:///notesbook", "another resource's update")
	assert.NotContains(t, got, "file:///other")
	assert.Contains(t, got, "file:///notes/page-2")
	close(gate)
	// What the first loop missed arrives in order, each URI once, though
	// the loop may have taken the first of them before the rest arrived.
	var seen []string
	for len(seen) < 2 || seen[len(seen)-1] != "file:///notes/page-2" {
		e := within(t, first, "the kept updates")
		require.NoError(t, e.err)
		seen = append(seen, e.uri)
	}
	assert.Subset(t, []string{"file:///notes/page-1", "file:///notes", "file:///notes/page-2"}, seen)
	assert.LessOrEqual(t, len(seen), 4)

	// Ending one loop leaves the subscription for the other.
	cancel1()
	for e := range first {
		if e.err != nil {
			assert.ErrorIs(t, e.err, context.Canceled)
		}
	}
	select {
	case uri := <-unsubscribed:
		t.Fatalf("unsubscribed from %s while a loop still watches", uri)
	case <-time.After(50 * time.Millisecond):
	}
	cancel2()
	var last error
	for e := range second {
		last = e.err
	}
	assert.ErrorIs(t, last, context.Canceled, "the loop ends with its ctx's error")
	assert.Equal(t, "file:///notes", within(t, unsubscribed, "the unsubscription"))
}

// TestResourceWatchBreak stops a loop with break: the server is
// unsubscribed and no goroutine stays behind (TestMain checks).
func TestResourceWatchBreak(t *testing.T) {
	ctx := context.Background()
	server, subscribed, unsubscribed := subscriptionServer(t)
	updates := new(mcptools.ResourceUpdates)
	session := connectInMemory(t, server, updates.ClientOptions(nil))
	done := make(chan string)
	go func() {
		for uri, err := range updates.Watch(ctx, session, "file:///notes") {
			if err == nil {
				done <- uri
				break
			}
		}
		close(done)
	}()
	within(t, subscribed, "the subscription")
	// The loop registers after subscribing; notify until it sees one.
	for got := false; !got; {
		require.NoError(t, server.ResourceUpdated(ctx, &mcp.ResourceUpdatedNotificationParams{URI: "file:///notes"}))
		select {
		case uri := <-done:
			assert.Equal(t, "file:///notes", uri)
			got = true
		case <-time.After(10 * time.Millisecond):
		}
	}
	<-done
	assert.Equal(t, "file:///notes", within(t, unsubscribed, "the unsubscription"))

	// A cancelled ctx ends the loop at once with its error.
	cctx, cancel := context.WithCancel(ctx)
	cancel()
	for _, err := range updates.Watch(cctx, session, "file:///notes") {
		assert.ErrorIs(t, err, context.Canceled)
	}
}

// TestPromptsInMemory gets a prompt of every content kind and converts it
// to ai messages; malformed prompts are errors.
func TestPromptsInMemory(t *testing.T) {
	ctx := context.Background()
	server := mcp.NewServer(&mcp.Implementation{Name: "prompts", Version: "v1"}, nil)
	server.AddPrompt(&mcp.Prompt{Name: "review", Arguments: []*mcp.PromptArgument{{Name: "lang", Required: true}}}, func(_ context.Context, req *mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
		return &mcp.GetPromptResult{Description: "a review", Messages: []*mcp.PromptMessage{
			{Role: "user", Content: &mcp.TextContent{Text: "Review this " + req.Params.Arguments["lang"] + " code."}},
			{Role: "user", Content: &mcp.ImageContent{Data: []byte("img"), MIMEType: "image/png"}},
			{Role: "user", Content: &mcp.AudioContent{Data: []byte("wav"), MIMEType: "audio/wav"}},
			{Role: "user", Content: &mcp.EmbeddedResource{Resource: &mcp.ResourceContents{URI: "file:///main.go", MIMEType: "text/x-go", Text: "package main"}}},
			{Role: "user", Content: &mcp.EmbeddedResource{Resource: &mcp.ResourceContents{URI: "file:///data.bin", Blob: []byte{0, 1}}}},
			{Role: "user", Content: &mcp.ResourceLink{URI: "file:///README.md", Name: "readme"}},
			{Role: "assistant", Content: &mcp.TextContent{Text: "Sure."}},
		}}, nil
	})
	server.AddPrompt(&mcp.Prompt{Name: "broken"}, func(context.Context, *mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
		return &mcp.GetPromptResult{Messages: []*mcp.PromptMessage{{Role: "user", Content: &mcp.ImageContent{MIMEType: "image/png"}}}}, nil
	})
	session := connectInMemory(t, server, nil)

	prompts, err := mcptools.ListPrompts(ctx, session)
	require.NoError(t, err)
	require.Len(t, prompts, 2)

	msgs, res, err := mcptools.GetPrompt(ctx, session, "review", map[string]string{"lang": "Go"})
	require.NoError(t, err)
	assert.Equal(t, "a review", res.Description)
	user := func(p ai.UserPart) ai.Message { return ai.UserMessage{Content: []ai.UserPart{p}} }
	assert.Equal(t, []ai.Message{
		user(ai.TextPart{Text: "Review this Go code."}),
		user(ai.FilePart{Data: provider.FileBytes{Data: []byte("img")}, MediaType: "image/png"}),
		user(ai.FilePart{Data: provider.FileBytes{Data: []byte("wav")}, MediaType: "audio/wav"}),
		user(ai.TextPart{Text: "package main"}),
		user(ai.FilePart{Data: provider.FileBytes{Data: []byte{0, 1}}, MediaType: "application/octet-stream", Filename: "data.bin"}),
		user(ai.TextPart{Text: `{"type":"resource_link","uri":"file:///README.md","name":"readme"}`}),
		ai.AssistantMessage{Content: []ai.AssistantPart{ai.TextPart{Text: "Sure."}}},
	}, msgs)

	_, _, err = mcptools.GetPrompt(ctx, session, "broken", nil)
	assert.ErrorContains(t, err, "image without data")
	_, _, err = mcptools.GetPrompt(ctx, session, "missing", nil)
	assert.Error(t, err)

	for _, bad := range []*mcp.GetPromptResult{
		{Messages: []*mcp.PromptMessage{{Role: "system", Content: &mcp.TextContent{Text: "x"}}}},
		{Messages: []*mcp.PromptMessage{{Role: "user"}}},
		{Messages: []*mcp.PromptMessage{nil}},
		{Messages: []*mcp.PromptMessage{{Role: "user", Content: &mcp.ImageContent{Data: []byte("x"), MIMEType: "png"}}}},
		{Messages: []*mcp.PromptMessage{{Role: "user", Content: &mcp.EmbeddedResource{}}}},
		{Messages: []*mcp.PromptMessage{{Role: "user", Content: &mcp.EmbeddedResource{Resource: &mcp.ResourceContents{URI: "x:/b", Blob: []byte{}}}}}},
	} {
		msgs, err := mcptools.PromptMessages(bad)
		assert.Error(t, err)
		assert.Nil(t, msgs)
	}
}

// elicitingServer has a tool that asks the client for a name with a
// multi-round-trip input request (the protocol's current form) and
// reports the answer.
func elicitingServer(mode string) *mcp.Server {
	server := mcp.NewServer(&mcp.Implementation{Name: "ask", Version: "v1"}, nil)
	server.AddTool(&mcp.Tool{Name: "greet", InputSchema: objectSchema()}, func(_ context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		resp, ok := req.Params.InputResponses["name"]
		if !ok {
			params := &mcp.ElicitParams{Message: "Your name?", RequestedSchema: map[string]any{
				"type":       "object",
				"properties": map[string]any{"name": map[string]any{"type": "string"}, "polite": map[string]any{"type": "boolean", "default": true}},
				"required":   []string{"name"},
			}}
			if mode == "url" {
				params = &mcp.ElicitParams{Mode: "url", Message: "Sign in", URL: "https://example.com/login", ElicitationID: "e-1"}
			}
			return &mcp.CallToolResult{InputRequests: mcp.InputRequestMap{"name": params}}, nil
		}
		r := resp.(*mcp.ElicitResult)
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: fmt.Sprintf("%s %v", r.Action, r.Content)}}}, nil
	})
	return server
}

// TestElicitationInMemory answers input requests through the handler and
// checks that answers the user did not give never reach the server.
func TestElicitationInMemory(t *testing.T) {
	ctx := context.Background()
	var (
		mu   sync.Mutex
		next mcptools.ElicitResponse
		err  error
		last *mcptools.Elicitation
	)
	handler := func(_ context.Context, e *mcptools.Elicitation) (mcptools.ElicitResponse, error) {
		mu.Lock()
		defer mu.Unlock()
		last = e
		return next, err
	}
	answer := func(r mcptools.ElicitResponse, e error) {
		mu.Lock()
		defer mu.Unlock()
		next, err = r, e
	}
	session := connectInMemory(t, elicitingServer("form"), mcptools.WithElicitation(nil, handler))
	greet := func() (*mcp.CallToolResult, error) {
		return session.CallTool(ctx, &mcp.CallToolParams{Name: "greet", Arguments: map[string]any{}})
	}

	answer(mcptools.ElicitResponse{Action: mcptools.ElicitAccept, Content: map[string]any{"name": "Ada"}}, nil)
	res, callErr := greet()
	require.NoError(t, callErr)
	assert.Equal(t, "accept map[name:Ada polite:true]", res.Content[0].(*mcp.TextContent).Text, "the schema's defaults are filled in")
	assert.Equal(t, "form", last.Mode)
	assert.Equal(t, "Your name?", last.Message)
	assert.JSONEq(t, `{"type":"object","properties":{"name":{"type":"string"},"polite":{"type":"boolean","default":true}},"required":["name"]}`, string(last.RequestedSchema))
	assert.Same(t, session, last.Session)

	answer(mcptools.ElicitResponse{Action: mcptools.ElicitDecline}, nil)
	res, callErr = greet()
	require.NoError(t, callErr)
	assert.Equal(t, "decline map[]", res.Content[0].(*mcp.TextContent).Text)

	// Answers the user did not give fail the call instead.
	for _, bad := range []struct {
		resp mcptools.ElicitResponse
		err  error
	}{
		{mcptools.ElicitResponse{Action: "ok"}, nil},
		{mcptools.ElicitResponse{}, nil},
		{mcptools.ElicitResponse{Action: mcptools.ElicitCancel, Content: map[string]any{"name": "Ada"}}, nil},
		{mcptools.ElicitResponse{Action: mcptools.ElicitAccept, Content: map[string]any{"name": 3}}, nil},
		{mcptools.ElicitResponse{}, errors.New("the user is away")},
	} {
		answer(bad.resp, bad.err)
		res, callErr := greet()
		if callErr == nil {
			t.Errorf("%+v: the call succeeded with %v", bad, res.Content)
		}
	}

	// In URL mode the user visits a page; acceptance carries no content.
	urlSession := connectInMemory(t, elicitingServer("url"), mcptools.WithElicitation(&mcp.ClientOptions{
		Capabilities: &mcp.ClientCapabilities{Elicitation: &mcp.ElicitationCapabilities{URL: &mcp.URLElicitationCapabilities{}}},
	}, handler))
	answer(mcptools.ElicitResponse{Action: mcptools.ElicitAccept}, nil)
	res, callErr = urlSession.CallTool(ctx, &mcp.CallToolParams{Name: "greet", Arguments: map[string]any{}})
	require.NoError(t, callErr)
	assert.Equal(t, "accept map[]", res.Content[0].(*mcp.TextContent).Text)
	assert.Equal(t, "url", last.Mode)
	assert.Equal(t, "https://example.com/login", last.URL)
	assert.Equal(t, "e-1", last.ElicitationID)
	assert.Nil(t, last.RequestedSchema)
	answer(mcptools.ElicitResponse{Action: mcptools.ElicitAccept, Content: map[string]any{"x": 1}}, nil)
	_, callErr = urlSession.CallTool(ctx, &mcp.CallToolParams{Name: "greet", Arguments: map[string]any{}})
	assert.Error(t, callErr)

	// Without a handler the options are a plain copy.
	base := &mcp.ClientOptions{KeepAlive: time.Minute}
	o := mcptools.WithElicitation(base, nil)
	assert.Nil(t, o.ElicitationHandler)
	assert.Equal(t, time.Minute, o.KeepAlive)
	assert.NotSame(t, base, o)
}
