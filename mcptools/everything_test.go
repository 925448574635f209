package mcptools_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
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

// everythingVersion is the version of the reference server
// @modelcontextprotocol/server-everything that TestServerEverything was
// written against. Install it with
//
//	npm install --prefix .cache/mcp-everything @modelcontextprotocol/server-everything@2026.8.31
const everythingVersion = "2026.8.31"

const everythingPackage = "@modelcontextprotocol/server-everything"

// everythingEntry finds the reference server's entry point: in
// $MCP_EVERYTHING_DIR (an npm prefix or the package folder itself), else in
// <repo root>/.cache/mcp-everything, where it installs the pinned version
// when Node is available. It skips the test when Node is absent or the
// package cannot be installed (no npm, no network).
func everythingEntry(t *testing.T) string {
	t.Helper()
	if _, err := exec.LookPath("node"); err != nil {
		t.Skip("skipping: node is not on PATH; the reference MCP server needs Node.js")
	}
	if dir := os.Getenv("MCP_EVERYTHING_DIR"); dir != "" {
		for _, p := range []string{
			filepath.Join(dir, "node_modules", everythingPackage, "dist", "index.js"),
			filepath.Join(dir, "dist", "index.js"),
		} {
			if _, err := os.Stat(p); err == nil {
				return p
			}
		}
		t.Fatalf("MCP_EVERYTHING_DIR=%s holds no %s", dir, everythingPackage)
	}
	root, err := repoRoot()
	require.NoError(t, err)
	prefix := filepath.Join(root, ".cache", "mcp-everything")
	pkg := filepath.Join(prefix, "node_modules", everythingPackage)
	entry := filepath.Join(pkg, "dist", "index.js")
	if installedVersion(pkg) == everythingVersion {
		return entry
	}
	npm, err := exec.LookPath("npm")
	if err != nil {
		t.Skipf("skipping: %s is not installed in %s and npm is not on PATH to install it", everythingPackage, prefix)
	}
	t.Logf("installing %s@%s into %s", everythingPackage, everythingVersion, prefix)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, npm, "install", "--no-audit", "--no-fund", "--prefix", prefix, everythingPackage+"@"+everythingVersion)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Skipf("skipping: npm could not install %s@%s (%v):\n%s", everythingPackage, everythingVersion, err, out)
	}
	if v := installedVersion(pkg); v != everythingVersion {
		t.Skipf("skipping: npm installed version %q of %s, not %s", v, everythingPackage, everythingVersion)
	}
	return entry
}

func installedVersion(pkg string) string {
	b, err := os.ReadFile(filepath.Join(pkg, "package.json"))
	if err != nil {
		return ""
	}
	var p struct{ Version string }
	if json.Unmarshal(b, &p) != nil {
		return ""
	}
	return p.Version
}

// repoRoot returns the folder of the module's go.mod.
func repoRoot() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", errors.New("no go.mod above the working directory")
		}
		dir = parent
	}
}

// TestServerEverything runs the reference MCP server over stdio, lists its
// tools as deferred tools, and lets a scripted model discover three of them
// with tool search and call them: one answering text, one an image, one
// structured content.
func TestServerEverything(t *testing.T) {
	entry := everythingEntry(t)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()

	var stderr bytes.Buffer
	cmd := exec.Command("node", entry, "stdio")
	cmd.Stderr = &stderr
	changes := new(mcptools.ListChanged)
	client := mcp.NewClient(&mcp.Implementation{Name: "mcptools-test", Version: "v1"}, changes.ClientOptions(nil))
	// The server does not exit when its input closes; do not wait long for it.
	session, err := client.Connect(ctx, &mcp.CommandTransport{Command: cmd, TerminateDuration: 200 * time.Millisecond}, nil)
	require.NoError(t, err, "stderr: %s", &stderr)
	defer session.Close()

	src := mcptools.NewSource(session, &mcptools.Options{DeferLoading: true, ListChanged: changes})
	tools, err := src.Tools(ctx)
	require.NoError(t, err, "stderr: %s", &stderr)
	names := tools.Names()
	for _, want := range []string{"echo", "get-sum", "get-tiny-image", "get-structured-content"} {
		assert.Contains(t, names, want)
	}
	for _, nt := range tools {
		assert.True(t, nt.Tool.DeferLoading(), nt.Name)
		info, ok := mcptools.Info(nt.Tool.(*ai.FunctionTool).Metadata())
		require.True(t, ok)
		assert.Equal(t, "mcp-servers/everything", info.Server.Name)
	}
	sum, _ := tools.Get("get-sum")
	info, _ := mcptools.Info(sum.(*ai.FunctionTool).Metadata())
	require.NotNil(t, info.Annotations)
	assert.True(t, info.Annotations.ReadOnlyHint)

	model := aitest.NewModel(
		aitest.Response{Content: []provider.Content{
			aitest.ToolCall("s1", "tool_search", map[string]any{"query": "sum of two numbers"}),
			aitest.ToolCall("s2", "tool_search", map[string]any{"query": "tiny image"}),
			aitest.ToolCall("s3", "tool_search", map[string]any{"query": "structured content"}),
		}, FinishReason: aitest.ToolCalls},
		aitest.Response{Content: []provider.Content{
			aitest.ToolCall("c1", "get-sum", map[string]any{"a": 2, "b": 3}),
			aitest.ToolCall("c2", "get-tiny-image", map[string]any{}),
			aitest.ToolCall("c3", "get-structured-content", map[string]any{"location": "Chicago"}),
		}, FinishReason: aitest.ToolCalls},
		aitest.Response{Content: []provider.Content{aitest.Text("All three worked.")}},
	)
	res, err := ai.GenerateText(ctx, ai.GenerateTextOptions{
		Model:    model,
		Prompt:   "Add 2 and 3, show me the tiny image, and the weather in Chicago.",
		Tools:    append(tools, ai.NamedTool{Name: "tool_search", Tool: ai.ToolSearch()}),
		StopWhen: ai.StepCountIs(5),
	})
	require.NoError(t, err)
	require.Len(t, res.Steps, 3)
	assert.Equal(t, "All three worked.", res.Text)

	calls := model.Calls()
	assert.Equal(t, []string{"tool_search"}, toolNames(calls[0]), "no MCP tool is sent before it is found")
	for _, want := range []string{"get-sum", "get-tiny-image", "get-structured-content"} {
		assert.Contains(t, toolNames(calls[1]), want)
	}

	require.Empty(t, res.Steps[1].ToolErrors())
	results := res.Steps[1].ToolResults()
	require.Len(t, results, 3)
	sumRes := results[0].Output.(*mcp.CallToolResult)
	assert.Equal(t, "The sum of 2 and 3 is 5.", sumRes.Content[0].(*mcp.TextContent).Text)

	outputs := map[string]provider.ToolResultOutput{}
	for _, m := range calls[2].Prompt {
		if tm, ok := m.(provider.ToolMessage); ok {
			for _, p := range tm.Content {
				if r, ok := p.(provider.ToolResultPart); ok {
					outputs[r.ToolName] = r.Output
				}
			}
		}
	}
	assert.Equal(t, ai.TextOutput{Value: "The sum of 2 and 3 is 5."}, outputs["get-sum"])

	image, ok := outputs["get-tiny-image"].(ai.ContentOutput)
	require.True(t, ok, "the image comes as content: %#v", outputs["get-tiny-image"])
	var files int
	for _, p := range image.Value {
		if f, ok := p.(ai.FilePart); ok {
			files++
			assert.Equal(t, "image/png", f.MediaType)
			data := f.Data.(provider.FileBytes).Data
			assert.True(t, bytes.HasPrefix(data, []byte("\x89PNG")), "the image is a PNG")
		}
	}
	assert.Equal(t, 1, files)

	weather, ok := outputs["get-structured-content"].(ai.JSONOutput)
	require.True(t, ok, "structured content comes as JSON: %#v", outputs["get-structured-content"])
	assert.JSONEq(t, `{"temperature":36,"conditions":"Light rain / drizzle","humidity":82}`, string(weather.Value))

	// The server reports failures of its own as isError results.
	res, err = ai.GenerateText(ctx, ai.GenerateTextOptions{
		Model: aitest.NewModel(aitest.Response{Content: []provider.Content{
			aitest.ToolCall("c1", "get-structured-content", map[string]any{"location": "Chicago"}),
		}, FinishReason: aitest.ToolCalls}),
		Prompt: "weather",
		Tools:  tools,
	})
	require.NoError(t, err)
	require.Len(t, res.Steps[0].ToolErrors(), 1, "undiscovered deferred tools cannot be called")
	assert.True(t, strings.Contains(res.Steps[0].ToolErrors()[0].Error.Error(), "get-structured-content"))
}
