package mcptools

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// ElicitAction is the user's answer to an elicitation.
type ElicitAction string

// The answers to an elicitation, as MCP names them.
const (
	// ElicitAccept means the user gave the information asked for.
	ElicitAccept ElicitAction = "accept"
	// ElicitDecline means the user explicitly refused.
	ElicitDecline ElicitAction = "decline"
	// ElicitCancel means the user dismissed the request without choosing.
	ElicitCancel ElicitAction = "cancel"
)

// Elicitation is a server's request for information from the user, made
// while it handles a request of the client (typically in the middle of a
// tool call).
type Elicitation struct {
	// Session is the session of the server that asks.
	Session *mcp.ClientSession
	// Mode is "form" (the server describes fields the user fills in) or
	// "url" (the user is to visit URL, outside the client).
	Mode string
	// Message is what the server tells the user.
	Message string
	// RequestedSchema is, in form mode, the JSON Schema of the answer: an
	// object with flat properties of primitive types.
	RequestedSchema json.RawMessage
	// URL and ElicitationID are set in URL mode.
	URL           string
	ElicitationID string
	// Params is the request as the server sent it.
	Params *mcp.ElicitParams
}

// ElicitResponse is the answer to an [Elicitation].
type ElicitResponse struct {
	// Action is what the user did.
	Action ElicitAction
	// Content is what the user entered, in form mode and only with
	// [ElicitAccept]: values matching the requested schema.
	Content map[string]any
}

// ElicitHandler answers a server's elicitations, usually by asking the
// user. It runs while the server waits, so it should answer or fail in
// reasonable time; ctx ends when the server or the connection gives up.
// An error is sent to the server as the request's failure.
type ElicitHandler func(ctx context.Context, e *Elicitation) (ElicitResponse, error)

// WithElicitation returns a copy of base (which may be nil) whose
// elicitation handler asks h. Install it before connecting: the client
// announces elicitation support only when a handler is set then.
//
//	client := mcp.NewClient(impl, mcptools.WithElicitation(nil, func(ctx context.Context, e *mcptools.Elicitation) (mcptools.ElicitResponse, error) {
//		answer, ok := askUser(ctx, e.Message, e.RequestedSchema)
//		if !ok {
//			return mcptools.ElicitResponse{Action: mcptools.ElicitDecline}, nil
//		}
//		return mcptools.ElicitResponse{Action: mcptools.ElicitAccept, Content: answer}, nil
//	}))
//
// The client announces form mode only; to receive URL-mode requests too,
// set base.Capabilities.Elicitation with URL. The MCP client checks
// requests in form mode (their schema must be flat) and, before it is
// sent, the accepted content against the requested schema, filling in the
// schema's defaults. WithElicitation also rejects an answer with an
// unknown action or with content alongside a decline, a cancellation or a
// URL-mode acceptance: the server then gets an error, never an answer
// the user did not give.
func WithElicitation(base *mcp.ClientOptions, h ElicitHandler) *mcp.ClientOptions {
	var o mcp.ClientOptions
	if base != nil {
		o = *base
	}
	if h == nil {
		return &o
	}
	o.ElicitationHandler = func(ctx context.Context, req *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
		return elicit(ctx, req, h)
	}
	return &o
}

func elicit(ctx context.Context, req *mcp.ElicitRequest, h ElicitHandler) (*mcp.ElicitResult, error) {
	if req == nil || req.Params == nil {
		return nil, errors.New("mcptools: an elicitation without parameters")
	}
	p := req.Params
	e := &Elicitation{Session: req.Session, Mode: p.Mode, Message: p.Message, URL: p.URL, ElicitationID: p.ElicitationID, Params: p}
	if e.Mode == "" {
		e.Mode = "form"
		if p.URL != "" {
			e.Mode = "url"
		}
	}
	if p.RequestedSchema != nil {
		raw, err := json.Marshal(p.RequestedSchema)
		if err != nil {
			return nil, fmt.Errorf("mcptools: the elicitation's schema: %w", err)
		}
		e.RequestedSchema = raw
	}
	resp, err := h(ctx, e)
	if err != nil {
		return nil, err
	}
	switch resp.Action {
	case ElicitAccept:
		if e.Mode == "url" && resp.Content != nil {
			return nil, errors.New("mcptools: an accepted URL elicitation has no content")
		}
	case ElicitDecline, ElicitCancel:
		if resp.Content != nil {
			return nil, fmt.Errorf("mcptools: content given with the action %q", resp.Action)
		}
	default:
		return nil, fmt.Errorf("mcptools: the elicitation answer has the unknown action %q", resp.Action)
	}
	return &mcp.ElicitResult{Action: string(resp.Action), Content: resp.Content}, nil
}
