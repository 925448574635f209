package mcptools

import (
	"context"
	"errors"
	"fmt"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/aisdkgo/ai"
	"github.com/aisdkgo/ai/provider"
)

// ListPrompts lists every prompt of the server, following every page.
func ListPrompts(ctx context.Context, session *mcp.ClientSession) ([]*mcp.Prompt, error) {
	return listAll("prompts", func(cursor string) ([]*mcp.Prompt, string, error) {
		res, err := session.ListPrompts(ctx, &mcp.ListPromptsParams{Cursor: cursor})
		if err != nil {
			return nil, "", err
		}
		return res.Prompts, res.NextCursor, nil
	})
}

// GetPrompt gets the prompt called name, filled in with args (nil for a
// prompt without arguments), and returns it as messages of package ai
// (see [PromptMessages]) together with the server's result, whose
// Description says what the prompt is for.
//
//	messages, _, err := mcptools.GetPrompt(ctx, session, "code-review", map[string]string{"language": "go"})
//	...
//	res, err := ai.GenerateText(ctx, ai.GenerateTextOptions{Model: model, Messages: messages})
func GetPrompt(ctx context.Context, session *mcp.ClientSession, name string, args map[string]string) ([]ai.Message, *mcp.GetPromptResult, error) {
	res, err := session.GetPrompt(ctx, &mcp.GetPromptParams{Name: name, Arguments: args})
	if err != nil {
		return nil, nil, fmt.Errorf("mcptools: getting the prompt %s: %w", name, err)
	}
	if res == nil {
		return nil, nil, fmt.Errorf("mcptools: getting the prompt %s: the server sent no result", name)
	}
	messages, err := PromptMessages(res)
	if err != nil {
		return nil, nil, fmt.Errorf("mcptools: the prompt %s: %w", name, err)
	}
	return messages, res, nil
}

// PromptMessages turns the messages of a prompt into messages of package
// ai, one for one: the role "user" makes an [ai.UserMessage] and
// "assistant" an [ai.AssistantMessage]. Text becomes an [ai.TextPart];
// images, audio and embedded binary resources become [ai.FilePart]s;
// embedded text resources become text; a resource link becomes text
// holding its MCP JSON form, so that the model sees its URI.
//
// It fails on any other role, on empty content and on files without data
// or with an invalid media type, and never returns a partial list.
func PromptMessages(res *mcp.GetPromptResult) ([]ai.Message, error) {
	if res == nil {
		return nil, errors.New("mcptools: no prompt result")
	}
	messages := make([]ai.Message, 0, len(res.Messages))
	for i, m := range res.Messages {
		if m == nil {
			return nil, fmt.Errorf("mcptools: prompt message %d is empty", i)
		}
		part, err := promptPart(m.Content)
		if err != nil {
			return nil, fmt.Errorf("mcptools: prompt message %d: %w", i, err)
		}
		switch m.Role {
		case "user":
			messages = append(messages, ai.UserMessage{Content: []ai.UserPart{part}})
		case "assistant":
			messages = append(messages, ai.AssistantMessage{Content: []ai.AssistantPart{part.(provider.AssistantPart)}})
		default:
			return nil, fmt.Errorf("mcptools: prompt message %d has the unknown role %q", i, m.Role)
		}
	}
	return messages, nil
}

// promptPart converts the content of a prompt message. It returns a
// TextPart or a FilePart, which are both user and assistant parts.
func promptPart(c mcp.Content) (ai.UserPart, error) {
	switch c := c.(type) {
	case *mcp.TextContent:
		if c != nil {
			return ai.TextPart{Text: c.Text}, nil
		}
	case *mcp.ImageContent:
		if c != nil {
			if err := checkFile("image", c.MIMEType, c.Data); err != nil {
				return nil, err
			}
			return ai.FilePart{Data: provider.FileBytes{Data: c.Data}, MediaType: c.MIMEType}, nil
		}
	case *mcp.AudioContent:
		if c != nil {
			if err := checkFile("audio", c.MIMEType, c.Data); err != nil {
				return nil, err
			}
			return ai.FilePart{Data: provider.FileBytes{Data: c.Data}, MediaType: c.MIMEType}, nil
		}
	case *mcp.EmbeddedResource:
		if c != nil && c.Resource != nil {
			return resourcePart(c.Resource)
		}
		return nil, errors.New("an embedded resource without contents")
	case *mcp.ResourceLink:
		if c != nil && c.URI != "" {
			return ai.TextPart{Text: contentText(c)}, nil
		}
		return nil, errors.New("a resource link without a URI")
	case nil:
	default:
		return nil, fmt.Errorf("%T does not belong in a prompt", c)
	}
	return nil, errors.New("empty content")
}
