package mcptools

import (
	"context"
	"encoding/json"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/aisdkgo/ai"
)

// MetadataKey is the key of a converted tool's [ai.FunctionTool.Metadata]
// entry that holds its [*ToolInfo]. The loop copies metadata onto every
// call, result and error of the tool, so [Info] works on those too.
const MetadataKey = "mcp"

// ToolInfo tells where a converted tool comes from. It is never sent to
// the model.
type ToolInfo struct {
	// Server is the server's self-description from the session's
	// initialization (nil if the server sent none).
	Server *mcp.Implementation `json:"server,omitempty"`
	// Name is the tool's name on the server, without [Options.Prefix].
	Name string `json:"name"`
	// Title is the tool's display name, if the server gave one.
	Title string `json:"title,omitempty"`
	// Annotations are the server's hints about the tool's behaviour (read
	// only, destructive, idempotent, open world). They are hints from the
	// server, not guarantees.
	Annotations *mcp.ToolAnnotations `json:"annotations,omitempty"`
	// Meta is the tool's _meta object.
	Meta mcp.Meta `json:"_meta,omitempty"`
	// Fingerprint is the fingerprint of the tool's definition as the
	// server listed it (see [Fingerprint]), which [FingerprintTools]
	// reports for the tool.
	Fingerprint string `json:"fingerprint,omitempty"`
}

// Info returns the [ToolInfo] in the metadata of a converted tool
// ([ai.FunctionTool.Metadata]) or of one of its calls, results or errors
// (their ToolMetadata field), and false for metadata of other tools.
// Metadata that went through JSON (a stored conversation) is decoded.
func Info(metadata map[string]any) (*ToolInfo, bool) {
	switch v := metadata[MetadataKey].(type) {
	case *ToolInfo:
		return v, v != nil
	case map[string]any:
		b, err := json.Marshal(v)
		if err != nil {
			return nil, false
		}
		var info ToolInfo
		if err := json.Unmarshal(b, &info); err != nil || info.Name == "" {
			return nil, false
		}
		return &info, true
	}
	return nil, false
}

// newTool converts one listed tool.
func newTool(session *mcp.ClientSession, server *mcp.Implementation, group string, t *mcp.Tool, deferred bool) (*ai.FunctionTool, error) {
	raw, err := inputSchema(t)
	if err != nil {
		return nil, err
	}
	fp, err := Fingerprint(t)
	if err != nil {
		return nil, err
	}
	def := ai.ToolDef[json.RawMessage, any]{
		Description:   t.Description,
		DeferLoading:  deferred,
		Group:         group,
		Execute:       execute(session, server, t.Name),
		ToModelOutput: toModelOutput,
		Metadata: map[string]any{MetadataKey: &ToolInfo{
			Server:      server,
			Name:        t.Name,
			Title:       t.Title,
			Annotations: t.Annotations,
			Meta:        t.Meta,
			Fingerprint: fp,
		}},
	}
	// The schema is sent exactly as the server gives it and compiled the
	// first time the tool is called.
	def.RawInputSchema = raw
	return ai.NewDynamicTool(def)
}

func execute(session *mcp.ClientSession, server *mcp.Implementation, name string) func(context.Context, json.RawMessage, ai.ToolExecutionOptions) (any, error) {
	return func(ctx context.Context, in json.RawMessage, _ ai.ToolExecutionOptions) (any, error) {
		return call(ctx, session, server, name, in)
	}
}

func toModelOutput(_ context.Context, o ai.ModelOutputOptions[json.RawMessage, any]) (ai.ToolResultOutput, error) {
	res, ok := o.Output.(*mcp.CallToolResult)
	if !ok || res == nil {
		return nil, nil // the loop's default conversion
	}
	return ModelOutput(res), nil
}

// inputSchema returns the tool's input schema as JSON. A tool without one
// gets an empty object schema.
func inputSchema(t *mcp.Tool) ([]byte, error) {
	switch s := t.InputSchema.(type) {
	case nil:
		return []byte(`{"type":"object"}`), nil
	case json.RawMessage:
		return s, nil
	}
	return json.Marshal(t.InputSchema)
}
