package mcptools_test

import (
	"context"
	"encoding/json"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/aisdkgo/ai"
	"github.com/aisdkgo/ai/mcptools"
	"github.com/aisdkgo/ai/provider"
)

func TestToolsListing(t *testing.T) {
	schema := json.RawMessage(`{"type":"object","properties":{"city":{"type":"string","minLength":1},"days":{"type":"integer","minimum":1,"maximum":10}},"required":["city"],"additionalProperties":false,"x-vendor":{"keep":true}}`)
	ts := newServer(t, nil, func(s *mcp.Server) {
		s.AddTool(&mcp.Tool{Name: "forecast", Description: "Weather forecast for a city.", InputSchema: schema}, textResult("sunny in %v"))
		addTool(s, "echo", "Echoes text.", textResult("%v"))
	})
	tools, err := mcptools.NewSource(ts.session, nil).Tools(context.Background())
	require.NoError(t, err)
	require.Equal(t, []string{"echo", "forecast"}, tools.Names())

	tool, _ := tools.Get("forecast")
	ft := tool.(*ai.FunctionTool)
	assert.Equal(t, ai.DynamicKind, ft.Kind())
	assert.False(t, ft.DeferLoading())
	assert.Equal(t, "Weather forecast for a city.", ft.Description())
	assert.JSONEq(t, string(schema), string(ft.InputSchema()), "the input schema is the server's")
}

func TestToolsPagination(t *testing.T) {
	var lists atomic.Int32
	ts := newServer(t, &mcp.ServerOptions{PageSize: 3}, func(s *mcp.Server) {
		for i := range 10 {
			addTool(s, fmt.Sprintf("tool_%02d", i), "Tool number "+fmt.Sprint(i), textResult("%v"))
		}
		s.AddReceivingMiddleware(func(next mcp.MethodHandler) mcp.MethodHandler {
			return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
				if method == "tools/list" {
					lists.Add(1)
				}
				return next(ctx, method, req)
			}
		})
	})
	tools, err := mcptools.NewSource(ts.session, nil).Tools(context.Background())
	require.NoError(t, err)
	require.Len(t, tools, 10)
	for i, nt := range tools {
		assert.Equal(t, fmt.Sprintf("tool_%02d", i), nt.Name)
	}
	assert.Equal(t, int32(4), lists.Load(), "10 tools in pages of 3 take 4 listings")
}

func TestToolsRepeatedCursor(t *testing.T) {
	ts := newServer(t, nil, func(s *mcp.Server) {
		addTool(s, "a", "A tool.", textResult("%v"))
		// A faulty server whose every page points at the same next page.
		s.AddReceivingMiddleware(func(next mcp.MethodHandler) mcp.MethodHandler {
			return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
				if r, ok := req.(*mcp.ListToolsRequest); ok {
					r.Params.Cursor = ""
				}
				res, err := next(ctx, method, req)
				if r, ok := res.(*mcp.ListToolsResult); ok && r != nil {
					r.NextCursor = "again"
				}
				return res, err
			}
		})
	})
	_, err := mcptools.NewSource(ts.session, nil).Tools(context.Background())
	require.ErrorContains(t, err, "cursor")
}

func TestToolsDeferral(t *testing.T) {
	ts := newServer(t, nil, func(s *mcp.Server) {
		s.AddTool(&mcp.Tool{Name: "read", InputSchema: objectSchema(), Annotations: &mcp.ToolAnnotations{ReadOnlyHint: true}}, textResult("%v"))
		s.AddTool(&mcp.Tool{Name: "write", InputSchema: objectSchema()}, textResult("%v"))
	})
	ctx := context.Background()

	none, err := mcptools.NewSource(ts.session, nil).Tools(ctx)
	require.NoError(t, err)
	all, err := mcptools.NewSource(ts.session, &mcptools.Options{DeferLoading: true}).Tools(ctx)
	require.NoError(t, err)
	some, err := mcptools.NewSource(ts.session, &mcptools.Options{
		DeferLoading: true, // overridden by Defer
		Defer:        func(t *mcp.Tool) bool { return t.Annotations == nil || !t.Annotations.ReadOnlyHint },
	}).Tools(ctx)
	require.NoError(t, err)

	deferred := func(ts ai.Tools) map[string]bool {
		m := map[string]bool{}
		for _, nt := range ts {
			m[nt.Name] = nt.Tool.DeferLoading()
		}
		return m
	}
	assert.Equal(t, map[string]bool{"read": false, "write": false}, deferred(none))
	assert.Equal(t, map[string]bool{"read": true, "write": true}, deferred(all))
	assert.Equal(t, map[string]bool{"read": false, "write": true}, deferred(some))
}

func TestToolsGroup(t *testing.T) {
	ts := newServer(t, nil, func(s *mcp.Server) {
		addTool(s, "echo", "Echoes text.", textResult("echo: %v"))
	})
	ctx := context.Background()
	tools, err := mcptools.NewSource(ts.session, nil).Tools(ctx)
	require.NoError(t, err)
	assert.Equal(t, "test-server", ai.GroupOf(tools[0].Tool), "the server's name")
	tools, err = mcptools.NewSource(ts.session, &mcptools.Options{Group: "echoes"}).Tools(ctx)
	require.NoError(t, err)
	assert.Equal(t, "echoes", ai.GroupOf(tools[0].Tool))
}

func TestToolsPrefixAndInclude(t *testing.T) {
	ts := newServer(t, nil, func(s *mcp.Server) {
		addTool(s, "echo", "Echoes text.", textResult("echo: %v"))
		addTool(s, "hidden", "Not wanted.", textResult("%v"))
	})
	tools, err := mcptools.NewSource(ts.session, &mcptools.Options{
		Prefix:  "srv_",
		Include: func(t *mcp.Tool) bool { return t.Name != "hidden" },
	}).Tools(context.Background())
	require.NoError(t, err)
	require.Equal(t, []string{"srv_echo"}, tools.Names())

	res, _ := generation(t, context.Background(), tools, "srv_echo", map[string]any{"text": "hi"})
	r, e := toolOutcome(t, res)
	require.Nil(t, e)
	assert.Equal(t, "echo: hi", r.Output.(*mcp.CallToolResult).Content[0].(*mcp.TextContent).Text, "the server is called with its own name")
}

func TestToolsMetadata(t *testing.T) {
	destructive := true
	ts := newServer(t, nil, func(s *mcp.Server) {
		s.AddTool(&mcp.Tool{
			Name: "delete_file", Title: "Delete a file", Description: "Deletes a file.", InputSchema: objectSchema("path"),
			Annotations: &mcp.ToolAnnotations{DestructiveHint: &destructive, Title: "Delete"},
			Meta:        mcp.Meta{"vendor/cost": 3.0},
		}, textResult("deleted %v"))
	})
	tools, err := mcptools.NewSource(ts.session, &mcptools.Options{Prefix: "fs_"}).Tools(context.Background())
	require.NoError(t, err)
	tool, _ := tools.Get("fs_delete_file")
	md := tool.(*ai.FunctionTool).Metadata()

	info, ok := mcptools.Info(md)
	require.True(t, ok)
	assert.Equal(t, "delete_file", info.Name)
	assert.Equal(t, "Delete a file", info.Title)
	assert.Equal(t, "test-server", info.Server.Name)
	assert.Equal(t, "v1.2.3", info.Server.Version)
	require.NotNil(t, info.Annotations)
	assert.True(t, *info.Annotations.DestructiveHint)
	assert.Equal(t, 3.0, info.Meta["vendor/cost"])

	b, err := json.Marshal(md)
	require.NoError(t, err)
	assert.JSONEq(t, `{"mcp":{
		"server":{"name":"test-server","version":"v1.2.3"},
		"name":"delete_file","title":"Delete a file",
		"annotations":{"destructiveHint":true,"idempotentHint":false,"readOnlyHint":false,"title":"Delete"},
		"_meta":{"vendor/cost":3},"fingerprint":"`+info.Fingerprint+`"}}`, string(b))
	assert.Len(t, info.Fingerprint, 43, "a base64url SHA-256 digest")

	// Metadata that went through JSON still yields the info.
	var decoded map[string]any
	require.NoError(t, json.Unmarshal(b, &decoded))
	info2, ok := mcptools.Info(decoded)
	require.True(t, ok)
	assert.Equal(t, "delete_file", info2.Name)
	assert.Equal(t, info.Fingerprint, info2.Fingerprint)
	assert.True(t, *info2.Annotations.DestructiveHint)

	// The metadata travels with the call and its result.
	res, _ := generation(t, context.Background(), tools, "fs_delete_file", map[string]any{"path": "/tmp/x"})
	r, _ := toolOutcome(t, res)
	require.NotNil(t, r)
	callInfo, ok := mcptools.Info(r.ToolMetadata)
	require.True(t, ok)
	assert.Equal(t, "delete_file", callInfo.Name)
	assert.True(t, r.Dynamic)

	_, ok = mcptools.Info(nil)
	assert.False(t, ok)
	_, ok = mcptools.Info(map[string]any{"mcp": "other"})
	assert.False(t, ok)
}

func TestToolsSnapshotIsStable(t *testing.T) {
	ts := newServer(t, nil, func(s *mcp.Server) {
		addTool(s, "a", "A.", textResult("%v"))
	})
	src := mcptools.NewSource(ts.session, &mcptools.Options{ListChanged: ts.changes})
	ctx := context.Background()
	first, err := src.Tools(ctx)
	require.NoError(t, err)
	again, err := src.Tools(ctx)
	require.NoError(t, err)
	assert.Same(t, &first[0], &again[0], "an unchanged source returns the same snapshot")
	assert.Equal(t, len(first), cap(first), "appending to a snapshot copies it")

	src.Invalidate()
	fresh, err := src.Tools(ctx)
	require.NoError(t, err)
	assert.NotSame(t, &first[0], &fresh[0], "an invalidated source lists again")
}

func TestToolsReusesUnchangedTools(t *testing.T) {
	ts := newServer(t, nil, func(s *mcp.Server) {
		addTool(s, "a", "A.", textResult("%v"))
		addTool(s, "b", "B.", textResult("%v"))
	})
	src := mcptools.NewSource(ts.session, &mcptools.Options{ListChanged: ts.changes})
	ctx := context.Background()
	first, err := src.Tools(ctx)
	require.NoError(t, err)
	addTool(ts.server, "b", "B, described better.", textResult("%v"))
	ts.waitNotified(t)
	second, err := src.Tools(ctx)
	require.NoError(t, err)
	require.Equal(t, []string{"a", "b"}, second.Names())
	assert.Same(t, first[0].Tool, second[0].Tool, "an unchanged tool is not converted again")
	assert.NotSame(t, first[1].Tool, second[1].Tool)
	assert.Equal(t, "B, described better.", second[1].Tool.(*ai.FunctionTool).Description())
	assert.Equal(t, "B.", first[1].Tool.(*ai.FunctionTool).Description(), "the old snapshot keeps the old tool")
}

func TestToolsConcurrent(t *testing.T) {
	ts := newServer(t, nil, func(s *mcp.Server) {
		for i := range 20 {
			addTool(s, fmt.Sprintf("t%d", i), "A tool.", textResult("%v"))
		}
	})
	src := mcptools.NewSource(ts.session, &mcptools.Options{ListChanged: ts.changes})
	var wg sync.WaitGroup
	for i := range 8 {
		wg.Go(func() {
			if i%3 == 0 {
				src.Invalidate()
			}
			tools, err := src.Tools(context.Background())
			assert.NoError(t, err)
			assert.Len(t, tools, 20)
		})
	}
	wg.Wait()
}

func TestToolsContextEnded(t *testing.T) {
	ts := newServer(t, nil, func(s *mcp.Server) { addTool(s, "a", "A.", textResult("%v")) })
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err := mcptools.NewSource(ts.session, nil).Tools(ctx)
	require.ErrorIs(t, err, context.Canceled)
}

func TestToolsForeignPattern(t *testing.T) {
	// Zod and other JavaScript libraries write ECMAScript patterns, such as
	// lookaheads, that Go's regexp package cannot compile.
	schema := json.RawMessage(`{"type":"object","properties":{
		"email":{"type":"string","pattern":"^(?!\\.)[a-z.]+@[a-z]+\\.[a-z]+$"},
		"code":{"type":"string","pattern":"^[A-Z]{3}$"},
		"pattern":{"type":"string"}},
		"required":["email","code"]}`)
	ts := newServer(t, nil, func(s *mcp.Server) {
		s.AddTool(&mcp.Tool{Name: "signup", InputSchema: schema}, textResult("ok"))
	})
	tools, err := mcptools.NewSource(ts.session, nil).Tools(context.Background())
	require.NoError(t, err)
	tool, _ := tools.Get("signup")
	assert.JSONEq(t, string(schema), string(tool.(*ai.FunctionTool).InputSchema()), "the model sees the server's schema")

	// The patterns Go understands are still checked before the call.
	res, _ := generation(t, context.Background(), tools, "signup", map[string]any{"email": "a@b.io", "code": "abc"})
	_, e := toolOutcome(t, res)
	require.NotNil(t, e)
	var invalid *ai.InvalidToolInputError
	assert.ErrorAs(t, e.Error, &invalid)
}

func TestToolsWithoutListChanged(t *testing.T) {
	// A source without a ListChanged keeps its first snapshot until
	// invalidated.
	ts := newServer(t, nil, func(s *mcp.Server) { addTool(s, "a", "A.", textResult("%v")) })
	src := mcptools.NewSource(ts.session, nil)
	ctx := context.Background()
	first, err := src.Tools(ctx)
	require.NoError(t, err)
	addTool(ts.server, "b", "B.", textResult("%v"))
	ts.waitNotified(t)
	same, err := src.Tools(ctx)
	require.NoError(t, err)
	assert.Equal(t, first.Names(), same.Names())
	src.Invalidate()
	fresh, err := src.Tools(ctx)
	require.NoError(t, err)
	assert.Equal(t, []string{"a", "b"}, fresh.Names())
}

var _ = provider.FunctionTool{}
