package mcptools

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime"
	"path"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/aisdkgo/ai"
	"github.com/aisdkgo/ai/provider"
)

// CallError is the error a converted tool's Execute returns when a call
// fails. The loop turns it into a tool error that the model sees (its
// message is what the model reads); the generation goes on.
//
// A call fails in one of two ways. Either the server ran the tool and
// reported a failure (isError): Result holds that result, Err is nil, and
// the message is the server's own text. Or the call itself failed: the
// connection broke, ctx ended (a deadline, or the generation's
// cancellation), the server answered with a protocol error, or its result
// could not be used; Err says why and unwraps, so that
// errors.Is(err, context.DeadlineExceeded) and
// errors.Is(err, mcp.ErrConnectionClosed) work.
type CallError struct {
	// Server is the server's name, Tool the tool's name on the server.
	Server string
	Tool   string
	// Result is the server's result, when it sent one.
	Result *mcp.CallToolResult
	// Err is the cause of a failed call; nil when the server reported the
	// failure in its result.
	Err error
}

// Error implements the error interface.
func (e *CallError) Error() string {
	if e.Err == nil {
		if text := resultText(e.Result); text != "" {
			return text
		}
		return fmt.Sprintf("the tool %s reported an error", e.Tool)
	}
	return fmt.Sprintf("calling the tool %s: %v", e.Tool, e.Err)
}

// Unwrap returns Err.
func (e *CallError) Unwrap() error { return e.Err }

// call calls a tool and checks its result.
func call(ctx context.Context, session *mcp.ClientSession, server *mcp.Implementation, name string, in json.RawMessage) (any, error) {
	args := in
	if len(args) == 0 || string(args) == "null" {
		args = json.RawMessage("{}")
	}
	fail := func(res *mcp.CallToolResult, err error) *CallError {
		e := &CallError{Tool: name, Result: res, Err: err}
		if server != nil {
			e.Server = server.Name
		}
		return e
	}
	res, err := session.CallTool(ctx, &mcp.CallToolParams{Name: name, Arguments: args})
	if err != nil {
		// The session may report a cancelled call as a closed connection
		// or a JSON-RPC error; say what ended it.
		if cerr := ctx.Err(); cerr != nil && !errors.Is(err, cerr) {
			err = fmt.Errorf("%w: %w", cerr, err)
		} else if !errors.Is(err, mcp.ErrConnectionClosed) && (errors.Is(err, io.EOF) || errors.Is(err, io.ErrClosedPipe)) {
			// A server that goes away mid-call shows as the end of its
			// stream; report it like any other broken connection.
			err = fmt.Errorf("%w: %w", mcp.ErrConnectionClosed, err)
		}
		return nil, fail(nil, err)
	}
	if res == nil {
		return nil, fail(nil, errors.New("the server sent no result"))
	}
	if res.NeedsInput() {
		return nil, fail(res, errors.New("the server asked for input that this client cannot give"))
	}
	if err := checkResult(res); err != nil {
		return nil, fail(res, err)
	}
	if res.IsError {
		return nil, fail(res, nil)
	}
	return res, nil
}

// checkResult rejects results that cannot be shown to a model: missing
// content, files without data or with an invalid media type, and content
// kinds that do not belong in a tool result.
func checkResult(res *mcp.CallToolResult) error {
	for i, c := range res.Content {
		var err error
		switch c := c.(type) {
		case *mcp.TextContent:
			if c == nil {
				err = errors.New("empty content")
			}
		case *mcp.ImageContent:
			if c == nil {
				err = errors.New("empty content")
			} else {
				err = checkFile("image", c.MIMEType, c.Data)
			}
		case *mcp.AudioContent:
			if c == nil {
				err = errors.New("empty content")
			} else {
				err = checkFile("audio", c.MIMEType, c.Data)
			}
		case *mcp.EmbeddedResource:
			switch {
			case c == nil || c.Resource == nil:
				err = errors.New("an embedded resource without contents")
			case c.Resource.Blob != nil:
				mt := c.Resource.MIMEType
				if mt == "" {
					mt = "application/octet-stream"
				}
				err = checkFile("resource", mt, c.Resource.Blob)
			}
		case *mcp.ResourceLink:
			if c == nil || c.URI == "" {
				err = errors.New("a resource link without a URI")
			}
		case nil:
			err = errors.New("empty content")
		default:
			err = fmt.Errorf("%T does not belong in a tool result", c)
		}
		if err != nil {
			return fmt.Errorf("malformed content %d: %w", i, err)
		}
	}
	return nil
}

func checkFile(kind, mediaType string, data []byte) error {
	if len(data) == 0 {
		return fmt.Errorf("%s without data", kind)
	}
	if _, _, err := mime.ParseMediaType(mediaType); err != nil || !strings.Contains(mediaType, "/") {
		return fmt.Errorf("%s with the invalid media type %q", kind, mediaType)
	}
	return nil
}

// ModelOutput converts the result of an MCP tool call into what the model
// is told, the way converted tools do:
//
//   - text only: [ai.TextOutput], the texts joined by blank lines;
//   - structured content and no files: [ai.JSONOutput] of the structured
//     content (servers usually repeat it as text, which is then left out);
//   - any image, audio or binary resource: [ai.ContentOutput], with a text
//     part per text and a file part per file, in the server's order, and
//     the structured content as JSON text when no text came with it.
//
// Resource links and embedded text resources become text: their MCP JSON
// form, so that the model sees their URI. ModelOutput does not look at
// IsError; converted tools report those results as errors before any
// conversion.
func ModelOutput(res *mcp.CallToolResult) ai.ToolResultOutput {
	if res == nil {
		return ai.TextOutput{}
	}
	files := false
	for _, c := range res.Content {
		if isFile(c) {
			files = true
			break
		}
	}
	if !files {
		if res.StructuredContent != nil {
			if b, err := json.Marshal(res.StructuredContent); err == nil {
				return ai.JSONOutput{Value: b}
			}
		}
		texts := make([]string, 0, len(res.Content))
		for _, c := range res.Content {
			texts = append(texts, contentText(c))
		}
		return ai.TextOutput{Value: strings.Join(texts, "\n\n")}
	}
	parts := make([]provider.ContentOutputPart, 0, len(res.Content)+1)
	hasText := false
	for _, c := range res.Content {
		if p, ok := filePart(c); ok {
			parts = append(parts, p)
			continue
		}
		parts = append(parts, ai.TextPart{Text: contentText(c)})
		hasText = true
	}
	if res.StructuredContent != nil && !hasText {
		if b, err := json.Marshal(res.StructuredContent); err == nil {
			parts = append(parts, ai.TextPart{Text: string(b)})
		}
	}
	return ai.ContentOutput{Value: parts}
}

func isFile(c mcp.Content) bool {
	_, ok := filePart(c)
	return ok
}

// filePart converts image, audio and binary resource content.
func filePart(c mcp.Content) (ai.FilePart, bool) {
	switch c := c.(type) {
	case *mcp.ImageContent:
		if c != nil {
			return ai.FilePart{Data: provider.FileBytes{Data: c.Data}, MediaType: c.MIMEType}, true
		}
	case *mcp.AudioContent:
		if c != nil {
			return ai.FilePart{Data: provider.FileBytes{Data: c.Data}, MediaType: c.MIMEType}, true
		}
	case *mcp.EmbeddedResource:
		if c != nil && c.Resource != nil && c.Resource.Blob != nil {
			mt := c.Resource.MIMEType
			if mt == "" {
				mt = "application/octet-stream"
			}
			return ai.FilePart{Data: provider.FileBytes{Data: c.Resource.Blob}, MediaType: mt, Filename: path.Base(c.Resource.URI)}, true
		}
	}
	return ai.FilePart{}, false
}

// contentText renders content that is not a file as text.
func contentText(c mcp.Content) string {
	if t, ok := c.(*mcp.TextContent); ok && t != nil {
		return t.Text
	}
	if c == nil {
		return ""
	}
	b, err := c.MarshalJSON()
	if err != nil {
		return ""
	}
	return string(b)
}

// resultText joins the texts of a result, for error messages.
func resultText(res *mcp.CallToolResult) string {
	if res == nil {
		return ""
	}
	var texts []string
	for _, c := range res.Content {
		if t, ok := c.(*mcp.TextContent); ok && t != nil && t.Text != "" {
			texts = append(texts, t.Text)
		}
	}
	if len(texts) == 0 && res.StructuredContent != nil {
		if b, err := json.Marshal(res.StructuredContent); err == nil {
			return string(b)
		}
	}
	return strings.Join(texts, "\n\n")
}
