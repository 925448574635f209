//lint:file-ignore SA1019 the protocol deprecates sampling, but servers still send sampling requests during the deprecation window

package mcptools

import (
	"context"
	"errors"
	"fmt"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/aisdkgo/ai"
	"github.com/aisdkgo/ai/provider"
)

// SamplingOptions configure [WithSampling].
type SamplingOptions struct {
	// Model answers the server's requests. It is required.
	Model provider.LanguageModel
	// Approve, when set, is asked before the model is called, so that a
	// person can see what a server wants to send to the model; false
	// refuses the request.
	Approve func(ctx context.Context, req *mcp.CreateMessageParams) (bool, error)
	// MaxTokens caps the tokens a server may ask for (the request's
	// maxTokens is lowered to it). Zero means 4096; the protocol has the
	// server name its own limit, and a server is not trusted to pick it.
	MaxTokens int
}

// ErrSamplingDeclined is the error the server gets when
// [SamplingOptions.Approve] refuses a request.
var ErrSamplingDeclined = errors.New("mcptools: the user declined the sampling request")

// defaultSamplingTokens is the cap on a sampling request's tokens when
// SamplingOptions.MaxTokens is zero.
const defaultSamplingTokens = 4096

// WithSampling returns a copy of base (which may be nil) that answers the
// server's sampling requests (sampling/createMessage) with opts.Model, one
// model call without tools: the request's system prompt becomes the
// instructions, its messages (text, images, audio) the conversation, and
// its temperature, stop sequences and token limit (capped by
// opts.MaxTokens) the call's settings. The answer is the model's text,
// with the stop reason "endTurn" or "maxTokens" as the model stopped.
// Model preferences are hints for a client that chooses among models and
// are ignored; so is includeContext, which asks for context this client
// does not share.
//
// Protocol version 2026-07-28 deprecates sampling, and the MCP Go SDK
// marks its sampling handlers deprecated; servers still use it during the
// deprecation window. WithSampling replaces any sampling handler of base;
// without a model it returns a plain copy, and the client then does not
// offer sampling.
func WithSampling(base *mcp.ClientOptions, opts SamplingOptions) *mcp.ClientOptions {
	var o mcp.ClientOptions
	if base != nil {
		o = *base
	}
	if opts.Model == nil {
		return &o
	}
	o.CreateMessageWithToolsHandler = nil
	o.CreateMessageHandler = func(ctx context.Context, req *mcp.CreateMessageRequest) (*mcp.CreateMessageResult, error) {
		if req == nil || req.Params == nil {
			return nil, errors.New("mcptools: a sampling request without parameters")
		}
		return sample(ctx, req.Params, opts)
	}
	return &o
}

func sample(ctx context.Context, p *mcp.CreateMessageParams, opts SamplingOptions) (*mcp.CreateMessageResult, error) {
	if opts.Approve != nil {
		ok, err := opts.Approve(ctx, p)
		if err != nil {
			return nil, err
		}
		if !ok {
			return nil, ErrSamplingDeclined
		}
	}
	messages, err := samplingMessages(p.Messages)
	if err != nil {
		return nil, err
	}
	limit := opts.MaxTokens
	if limit <= 0 {
		limit = defaultSamplingTokens
	}
	if p.MaxTokens > 0 && p.MaxTokens < int64(limit) {
		limit = int(p.MaxTokens)
	}
	gen := ai.GenerateTextOptions{
		Model:           opts.Model,
		Instructions:    p.SystemPrompt,
		Messages:        messages,
		MaxOutputTokens: &limit,
		StopSequences:   p.StopSequences,
	}
	if p.Temperature != 0 {
		t := p.Temperature
		gen.Temperature = &t
	}
	res, err := ai.GenerateText(ctx, gen)
	if err != nil {
		return nil, fmt.Errorf("mcptools: sampling: %w", err)
	}
	out := &mcp.CreateMessageResult{
		Content: &mcp.TextContent{Text: res.Text},
		Model:   opts.Model.ModelID(),
		Role:    "assistant",
	}
	switch res.FinishReason {
	case ai.FinishStop:
		out.StopReason = "endTurn"
	case ai.FinishLength:
		out.StopReason = "maxTokens"
	default:
		out.StopReason = string(res.FinishReason)
	}
	return out, nil
}

// samplingMessages converts the messages of a sampling request.
func samplingMessages(msgs []*mcp.SamplingMessage) ([]ai.Message, error) {
	if len(msgs) == 0 {
		return nil, errors.New("mcptools: a sampling request without messages")
	}
	out := make([]ai.Message, 0, len(msgs))
	for i, m := range msgs {
		if m == nil {
			return nil, fmt.Errorf("mcptools: sampling message %d is empty", i)
		}
		switch m.Content.(type) {
		case *mcp.TextContent, *mcp.ImageContent, *mcp.AudioContent:
		default:
			return nil, fmt.Errorf("mcptools: sampling message %d: %T is not supported", i, m.Content)
		}
		part, err := promptPart(m.Content)
		if err != nil {
			return nil, fmt.Errorf("mcptools: sampling message %d: %w", i, err)
		}
		switch m.Role {
		case "user":
			out = append(out, ai.UserMessage{Content: []ai.UserPart{part}})
		case "assistant":
			out = append(out, ai.AssistantMessage{Content: []ai.AssistantPart{part.(provider.AssistantPart)}})
		default:
			return nil, fmt.Errorf("mcptools: sampling message %d has the unknown role %q", i, m.Role)
		}
	}
	return out, nil
}
