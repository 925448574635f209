package mcptools_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/aisdkgo/ai"
	"github.com/aisdkgo/ai/aitest"
	"github.com/aisdkgo/ai/mcptools"
	"github.com/aisdkgo/ai/provider"
)

// exampleServer starts an in-memory MCP server with a few tools and
// returns a client session connected to it; the client's options come from
// clientOpts.
func exampleServer(clientOpts *mcp.ClientOptions) (*mcp.Server, *mcp.ClientSession) {
	ctx := context.Background()
	server := mcp.NewServer(&mcp.Implementation{Name: "files", Version: "v1"}, nil)
	schema := json.RawMessage(`{"type":"object","properties":{"path":{"type":"string"}},"required":["path"]}`)
	yes := true
	server.AddTool(&mcp.Tool{Name: "read_file", Description: "Read a text file.", InputSchema: schema,
		Annotations: &mcp.ToolAnnotations{ReadOnlyHint: true}},
		func(_ context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			var in struct{ Path string }
			_ = json.Unmarshal(req.Params.Arguments, &in)
			if in.Path != "/notes.txt" {
				res := &mcp.CallToolResult{}
				res.SetError(fmt.Errorf("no such file: %s", in.Path))
				return res, nil
			}
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "buy milk"}}}, nil
		})
	server.AddTool(&mcp.Tool{Name: "delete_file", Description: "Delete a file.", InputSchema: schema,
		Annotations: &mcp.ToolAnnotations{DestructiveHint: &yes}},
		func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "deleted"}}}, nil
		})
	server.AddTool(&mcp.Tool{Name: "list_dir", Description: "List the files of a folder.", InputSchema: schema},
		func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "/notes.txt"}}}, nil
		})
	clientT, serverT := mcp.NewInMemoryTransports()
	if _, err := server.Connect(ctx, serverT, nil); err != nil {
		log.Fatal(err)
	}
	client := mcp.NewClient(&mcp.Implementation{Name: "example", Version: "v1"}, clientOpts)
	session, err := client.Connect(ctx, clientT, nil)
	if err != nil {
		log.Fatal(err)
	}
	return server, session
}

// A source turns the server's tools into deferred tools; the model finds
// one with tool search and calls it.
func ExampleNewSource() {
	ctx := context.Background()
	_, session := exampleServer(nil)
	defer session.Close()

	src := mcptools.NewSource(session, &mcptools.Options{Prefix: "fs_", DeferLoading: true})
	tools, err := src.Tools(ctx)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println("tools:", tools.Names())

	model := aitest.NewModel(
		aitest.Response{Content: []provider.Content{aitest.ToolCall("1", "search", `{"query":"read file"}`)}, FinishReason: aitest.ToolCalls},
		aitest.Response{Content: []provider.Content{aitest.ToolCall("2", "fs_read_file", `{"path":"/notes.txt"}`)}, FinishReason: aitest.ToolCalls},
		aitest.Response{Content: []provider.Content{aitest.Text("Your note says: buy milk.")}},
	)
	res, err := ai.GenerateText(ctx, ai.GenerateTextOptions{
		Model:    model,
		Prompt:   "What is in my notes?",
		Tools:    append(tools, ai.NamedTool{Name: "search", Tool: ai.ToolSearch()}),
		StopWhen: ai.StepCountIs(5),
	})
	if err != nil {
		log.Fatal(err)
	}
	for i, call := range model.Calls() {
		var names []string
		for _, t := range call.Tools {
			names = append(names, t.(*provider.FunctionTool).Name)
		}
		fmt.Printf("step %d: the model sees %v\n", i, names)
	}
	for _, r := range res.ToolResults() {
		switch out := r.Output.(type) {
		case ai.ToolSearchResult:
			fmt.Printf("%s found %d tools, best %s\n", r.ToolName, len(out.Tools), out.Tools[0].Name)
		case *mcp.CallToolResult:
			fmt.Printf("%s returned %q\n", r.ToolName, mcptools.ModelOutput(out).(ai.TextOutput).Value)
		}
	}
	fmt.Println(res.Text)
	// Output:
	// tools: [fs_delete_file fs_list_dir fs_read_file]
	// step 0: the model sees [search]
	// step 1: the model sees [fs_delete_file fs_read_file search]
	// step 2: the model sees [fs_delete_file fs_read_file search]
	// search found 2 tools, best fs_read_file
	// fs_read_file returned "buy milk"
	// Your note says: buy milk.
}

// A ListChanged installed on the client before it connects marks the
// source stale when the server's tools change; the next call of Tools
// lists them again.
func ExampleListChanged() {
	ctx := context.Background()
	changes := new(mcptools.ListChanged)
	notified := make(chan struct{}, 1)
	server, session := exampleServer(changes.ClientOptions(&mcp.ClientOptions{
		// The application's own handler still runs.
		ToolListChangedHandler: func(context.Context, *mcp.ToolListChangedRequest) { notified <- struct{}{} },
	}))
	defer session.Close()

	src := mcptools.NewSource(session, &mcptools.Options{ListChanged: changes})
	before, _ := src.Tools(ctx)

	server.RemoveTools("delete_file")
	<-notified

	after, _ := src.Tools(ctx)
	fmt.Println("before:", before.Names())
	fmt.Println("after: ", after.Names())
	// Output:
	// before: [delete_file list_dir read_file]
	// after:  [list_dir read_file]
}

// Info reads the server's annotations from a call, here to deny calls of
// tools the server marks as destructive.
func ExampleInfo() {
	ctx := context.Background()
	_, session := exampleServer(nil)
	defer session.Close()
	tools, err := mcptools.NewSource(session, nil).Tools(ctx)
	if err != nil {
		log.Fatal(err)
	}

	noDestruction := &ai.ToolApproval{Decide: func(_ context.Context, req ai.ApprovalRequest) (ai.ApprovalStatus, error) {
		info, ok := mcptools.Info(req.ToolCall.ToolMetadata)
		if ok && info.Annotations != nil && info.Annotations.DestructiveHint != nil && *info.Annotations.DestructiveHint {
			return ai.Denied.WithReason(info.Server.Name + " says " + info.Name + " is destructive"), nil
		}
		return ai.NotApplicable, nil
	}}
	model := aitest.NewModel(
		aitest.Response{Content: []provider.Content{aitest.ToolCall("1", "delete_file", `{"path":"/notes.txt"}`)}, FinishReason: aitest.ToolCalls},
		aitest.Response{Content: []provider.Content{aitest.Text("I may not delete files.")}},
	)
	res, err := ai.GenerateText(ctx, ai.GenerateTextOptions{
		Model: model, Prompt: "Delete my notes.", Tools: tools, ToolApproval: noDestruction, StopWhen: ai.StepCountIs(2),
	})
	if err != nil {
		log.Fatal(err)
	}
	for _, p := range res.Steps[0].Content {
		if r, ok := p.(ai.ToolApprovalResponse); ok {
			fmt.Printf("approved: %v (%s)\n", r.Approved, r.Reason)
		}
	}
	fmt.Println(res.Text)
	// Output:
	// approved: false (files says delete_file is destructive)
	// I may not delete files.
}

// A result the server marks as an error reaches the model as a tool error
// with the server's text; the application can inspect it as a CallError.
func ExampleCallError() {
	ctx := context.Background()
	_, session := exampleServer(nil)
	defer session.Close()
	tools, err := mcptools.NewSource(session, nil).Tools(ctx)
	if err != nil {
		log.Fatal(err)
	}
	model := aitest.NewModel(aitest.Response{
		Content:      []provider.Content{aitest.ToolCall("1", "read_file", `{"path":"/missing.txt"}`)},
		FinishReason: aitest.ToolCalls,
	})
	res, err := ai.GenerateText(ctx, ai.GenerateTextOptions{Model: model, Prompt: "Read it.", Tools: tools})
	if err != nil {
		log.Fatal(err)
	}
	for _, e := range res.Steps[0].ToolErrors() {
		var ce *mcptools.CallError
		if errors.As(e.Error, &ce) {
			fmt.Printf("%s on %s: %v (reported by the server: %v)\n", ce.Tool, ce.Server, ce, ce.Err == nil)
		}
	}
	// Output:
	// read_file on files: no such file: /missing.txt (reported by the server: true)
}

// ModelOutput decides what the model is told about a result.
func ExampleModelOutput() {
	show := func(res *mcp.CallToolResult) {
		switch out := mcptools.ModelOutput(res).(type) {
		case ai.TextOutput:
			fmt.Printf("text: %q\n", out.Value)
		case ai.JSONOutput:
			fmt.Printf("json: %s\n", out.Value)
		case ai.ContentOutput:
			for _, p := range out.Value {
				switch p := p.(type) {
				case ai.TextPart:
					fmt.Printf("content text: %q\n", p.Text)
				case ai.FilePart:
					fmt.Printf("content file: %s\n", p.MediaType)
				}
			}
		}
	}
	show(&mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "It is 21°C."}}})
	show(&mcp.CallToolResult{
		Content:           []mcp.Content{&mcp.TextContent{Text: `{"celsius":21}`}},
		StructuredContent: map[string]any{"celsius": 21},
	})
	show(&mcp.CallToolResult{Content: []mcp.Content{
		&mcp.TextContent{Text: "The chart:"},
		&mcp.ImageContent{Data: []byte("\x89PNG..."), MIMEType: "image/png"},
	}})
	// Output:
	// text: "It is 21°C."
	// json: {"celsius":21}
	// content text: "The chart:"
	// content file: image/png
}

// An application with its own tool-list-changed handler can mark a source
// stale itself.
func ExampleSource_Invalidate() {
	ctx := context.Background()
	server, session := exampleServer(nil)
	defer session.Close()
	src := mcptools.NewSource(session, nil)
	before, _ := src.Tools(ctx)
	server.RemoveTools("list_dir")

	same, _ := src.Tools(ctx)
	src.Invalidate()
	after, _ := src.Tools(ctx)
	fmt.Println(before.Names())
	fmt.Println(same.Names())
	fmt.Println(after.Names())
	// Output:
	// [delete_file list_dir read_file]
	// [delete_file list_dir read_file]
	// [delete_file read_file]
}

// Handle can be installed as the client's handler directly.
func ExampleListChanged_Handle() {
	changes := new(mcptools.ListChanged)
	client := mcp.NewClient(&mcp.Implementation{Name: "app", Version: "v1"}, &mcp.ClientOptions{
		ToolListChangedHandler: changes.Handle,
	})
	_ = client // connect, then: mcptools.NewSource(session, &mcptools.Options{ListChanged: changes})
	fmt.Println("ok")
	// Output: ok
}
