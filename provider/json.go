package provider

import (
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/aisdkgo/ai/internal/wirejson"
)

// This file gives every union value the JSON shape of the TypeScript AI SDK:
// a "type" (or "role") discriminator next to camelCase fields, absent keys for
// unset optional fields.

// MarshalJSON writes the value in the JSON shape of the TypeScript AI SDK.
func (m SystemMessage) MarshalJSON() ([]byte, error) {
	return marshalMessage(RoleSystem, m.Content, m.ProviderOptions)
}

// MarshalJSON writes the value in the JSON shape of the TypeScript AI SDK.
func (m UserMessage) MarshalJSON() ([]byte, error) {
	return marshalMessage(RoleUser, wirejson.NonNil(m.Content), m.ProviderOptions)
}

// MarshalJSON writes the value in the JSON shape of the TypeScript AI SDK.
func (m AssistantMessage) MarshalJSON() ([]byte, error) {
	return marshalMessage(RoleAssistant, wirejson.NonNil(m.Content), m.ProviderOptions)
}

// MarshalJSON writes the value in the JSON shape of the TypeScript AI SDK.
func (m ToolMessage) MarshalJSON() ([]byte, error) {
	return marshalMessage(RoleTool, wirejson.NonNil(m.Content), m.ProviderOptions)
}

// marshalMessage writes the shape all messages share; content is a string
// or a list of parts.
func marshalMessage[C any](role Role, content C, po ProviderOptions) ([]byte, error) {
	return json.Marshal(struct {
		Role            Role            `json:"role"`
		Content         C               `json:"content"`
		ProviderOptions ProviderOptions `json:"providerOptions,omitempty"`
	}{role, content, po})
}

// textPartJSON is the shape of the text and reasoning parts.
type textPartJSON struct {
	Type            string          `json:"type"`
	Text            string          `json:"text"`
	ProviderOptions ProviderOptions `json:"providerOptions,omitempty"`
}

// filePartJSON is the shape of the file and reasoning file parts; only file
// parts have a file name.
type filePartJSON struct {
	Type            string          `json:"type"`
	Data            FileData        `json:"data"`
	MediaType       string          `json:"mediaType"`
	Filename        string          `json:"filename,omitempty"`
	ProviderOptions ProviderOptions `json:"providerOptions,omitempty"`
}

// MarshalJSON writes the value in the JSON shape of the TypeScript AI SDK.
func (p TextPart) MarshalJSON() ([]byte, error) {
	return json.Marshal(textPartJSON{"text", p.Text, p.ProviderOptions})
}

// MarshalJSON writes the value in the JSON shape of the TypeScript AI SDK.
func (p FilePart) MarshalJSON() ([]byte, error) {
	return json.Marshal(filePartJSON{"file", p.Data, p.MediaType, p.Filename, p.ProviderOptions})
}

// MarshalJSON writes the value in the JSON shape of the TypeScript AI SDK.
func (p ReasoningPart) MarshalJSON() ([]byte, error) {
	return json.Marshal(textPartJSON{"reasoning", p.Text, p.ProviderOptions})
}

// MarshalJSON writes the value in the JSON shape of the TypeScript AI SDK.
func (p ReasoningFilePart) MarshalJSON() ([]byte, error) {
	return json.Marshal(filePartJSON{Type: "reasoning-file", Data: p.Data, MediaType: p.MediaType, ProviderOptions: p.ProviderOptions})
}

// MarshalJSON writes the value in the JSON shape of the TypeScript AI SDK.
func (p CustomPart) MarshalJSON() ([]byte, error) {
	return json.Marshal(struct {
		Type            string          `json:"type"`
		Kind            string          `json:"kind,omitempty"`
		ProviderOptions ProviderOptions `json:"providerOptions,omitempty"`
	}{"custom", p.Kind, p.ProviderOptions})
}

// MarshalJSON writes the value in the JSON shape of the TypeScript AI SDK.
func (p ToolCallPart) MarshalJSON() ([]byte, error) {
	return json.Marshal(struct {
		Type             string          `json:"type"`
		ToolCallID       string          `json:"toolCallId"`
		ToolName         string          `json:"toolName"`
		Input            json.RawMessage `json:"input"`
		ProviderExecuted bool            `json:"providerExecuted,omitempty"`
		ProviderOptions  ProviderOptions `json:"providerOptions,omitempty"`
	}{"tool-call", p.ToolCallID, p.ToolName, wirejson.OrNull(p.Input), p.ProviderExecuted, p.ProviderOptions})
}

// MarshalJSON writes the value in the JSON shape of the TypeScript AI SDK.
func (p ToolResultPart) MarshalJSON() ([]byte, error) {
	return json.Marshal(struct {
		Type            string           `json:"type"`
		ToolCallID      string           `json:"toolCallId"`
		ToolName        string           `json:"toolName"`
		Output          ToolResultOutput `json:"output"`
		ProviderOptions ProviderOptions  `json:"providerOptions,omitempty"`
	}{"tool-result", p.ToolCallID, p.ToolName, p.Output, p.ProviderOptions})
}

// MarshalJSON writes the value in the JSON shape of the TypeScript AI SDK.
func (p ToolApprovalRequestPart) MarshalJSON() ([]byte, error) {
	return json.Marshal(struct {
		Type             string          `json:"type"`
		ApprovalID       string          `json:"approvalId"`
		ToolCallID       string          `json:"toolCallId"`
		Reason           string          `json:"reason,omitempty"`
		IsAutomatic      bool            `json:"isAutomatic,omitempty"`
		Signature        string          `json:"signature,omitempty"`
		InputSchemaInput json.RawMessage `json:"inputSchemaInput,omitempty"`
		ProviderOptions  ProviderOptions `json:"providerOptions,omitempty"`
	}{"tool-approval-request", p.ApprovalID, p.ToolCallID, p.Reason, p.IsAutomatic, p.Signature, p.InputSchemaInput, p.ProviderOptions})
}

// MarshalJSON writes the value in the JSON shape of the TypeScript AI SDK.
func (p ToolApprovalResponsePart) MarshalJSON() ([]byte, error) {
	return json.Marshal(struct {
		Type             string          `json:"type"`
		ApprovalID       string          `json:"approvalId"`
		Approved         bool            `json:"approved"`
		Reason           string          `json:"reason,omitempty"`
		ProviderExecuted bool            `json:"providerExecuted,omitempty"`
		ProviderOptions  ProviderOptions `json:"providerOptions,omitempty"`
	}{"tool-approval-response", p.ApprovalID, p.Approved, p.Reason, p.ProviderExecuted, p.ProviderOptions})
}

// MarshalJSON writes the value in the JSON shape of the TypeScript AI SDK.
func (o TextOutput) MarshalJSON() ([]byte, error) {
	return marshalOutput("text", o.Value, o.ProviderOptions)
}

// MarshalJSON writes the value in the JSON shape of the TypeScript AI SDK.
func (o JSONOutput) MarshalJSON() ([]byte, error) {
	return marshalOutput("json", wirejson.OrNull(o.Value), o.ProviderOptions)
}

// MarshalJSON writes the value in the JSON shape of the TypeScript AI SDK.
func (o ExecutionDeniedOutput) MarshalJSON() ([]byte, error) {
	return json.Marshal(struct {
		Type            string          `json:"type"`
		Reason          string          `json:"reason,omitempty"`
		ProviderOptions ProviderOptions `json:"providerOptions,omitempty"`
	}{"execution-denied", o.Reason, o.ProviderOptions})
}

// MarshalJSON writes the value in the JSON shape of the TypeScript AI SDK.
func (o ErrorTextOutput) MarshalJSON() ([]byte, error) {
	return marshalOutput("error-text", o.Value, o.ProviderOptions)
}

// MarshalJSON writes the value in the JSON shape of the TypeScript AI SDK.
func (o ErrorJSONOutput) MarshalJSON() ([]byte, error) {
	return marshalOutput("error-json", wirejson.OrNull(o.Value), o.ProviderOptions)
}

// MarshalJSON writes the value in the JSON shape of the TypeScript AI SDK.
func (o ContentOutput) MarshalJSON() ([]byte, error) {
	return marshalOutput("content", wirejson.NonNil(o.Value), o.ProviderOptions)
}

// marshalOutput writes the shape the tool result outputs with a value
// share.
func marshalOutput[V any](typ string, value V, po ProviderOptions) ([]byte, error) {
	return json.Marshal(struct {
		Type            string          `json:"type"`
		Value           V               `json:"value"`
		ProviderOptions ProviderOptions `json:"providerOptions,omitempty"`
	}{typ, value, po})
}

// MarshalJSON writes the value in the JSON shape of the TypeScript AI SDK.
func (d FileBytes) MarshalJSON() ([]byte, error) {
	return json.Marshal(struct {
		Type string `json:"type"`
		Data []byte `json:"data"`
	}{"data", d.Data})
}

// MarshalJSON writes the value in the JSON shape of the TypeScript AI SDK.
func (d FileURL) MarshalJSON() ([]byte, error) {
	return json.Marshal(struct {
		Type string `json:"type"`
		URL  string `json:"url"`
	}{"url", d.URL})
}

// MarshalJSON writes the value in the JSON shape of the TypeScript AI SDK.
func (d FileReference) MarshalJSON() ([]byte, error) {
	return json.Marshal(struct {
		Type      string            `json:"type"`
		Reference map[string]string `json:"reference"`
	}{"reference", d.Reference})
}

// MarshalJSON writes the value in the JSON shape of the TypeScript AI SDK.
func (d FileText) MarshalJSON() ([]byte, error) {
	return json.Marshal(struct {
		Type string `json:"type"`
		Text string `json:"text"`
	}{"text", d.Text})
}

// MarshalJSON writes the function tool definition as
// {"type":"function","name",...}. Empty input examples and provider
// options that are set (not nil) are written as [] and {}, as the
// reference keeps them; nil ones are left out.
func (t FunctionTool) MarshalJSON() ([]byte, error) {
	type example struct {
		Input json.RawMessage `json:"input"`
	}
	var examples []example
	if t.InputExamples != nil {
		examples = make([]example, 0, len(t.InputExamples))
	}
	for _, e := range t.InputExamples {
		examples = append(examples, example{wirejson.OrNull(e)})
	}
	return json.Marshal(struct {
		Type            string          `json:"type"`
		Name            string          `json:"name"`
		Description     string          `json:"description,omitempty"`
		InputSchema     json.RawMessage `json:"inputSchema"`
		InputExamples   []example       `json:"inputExamples,omitzero"`
		Strict          *bool           `json:"strict,omitempty"`
		ProviderOptions ProviderOptions `json:"providerOptions,omitzero"`
	}{"function", t.Name, t.Description, wirejson.OrNull(t.InputSchema), examples, t.Strict, t.ProviderOptions})
}

// MarshalJSON writes the provider tool definition as
// {"type":"provider","id","name","args"}.
func (t ProviderTool) MarshalJSON() ([]byte, error) {
	args := t.Args
	if args == nil {
		args = map[string]any{}
	}
	return json.Marshal(struct {
		Type string         `json:"type"`
		ID   string         `json:"id"`
		Name string         `json:"name"`
		Args map[string]any `json:"args"`
	}{"provider", t.ID, t.Name, args})
}

// Content and stream parts.

// textJSON is the shape of text and reasoning output; only text has
// citations.
type textJSON struct {
	Type             string           `json:"type"`
	Text             string           `json:"text"`
	Citations        []Citation       `json:"citations,omitempty"`
	ProviderMetadata ProviderMetadata `json:"providerMetadata,omitempty"`
}

// fileJSON is the shape of file and reasoning file output.
type fileJSON struct {
	Type             string           `json:"type"`
	MediaType        string           `json:"mediaType"`
	Data             FileData         `json:"data"`
	ProviderMetadata ProviderMetadata `json:"providerMetadata,omitempty"`
}

// MarshalJSON writes the value in the JSON shape of the TypeScript AI SDK.
func (c Text) MarshalJSON() ([]byte, error) {
	return json.Marshal(textJSON{"text", c.Text, c.Citations, c.ProviderMetadata})
}

// MarshalJSON writes the value in the JSON shape of the TypeScript AI SDK.
func (c Reasoning) MarshalJSON() ([]byte, error) {
	return json.Marshal(textJSON{Type: "reasoning", Text: c.Text, ProviderMetadata: c.ProviderMetadata})
}

// MarshalJSON writes the value in the JSON shape of the TypeScript AI SDK.
func (c Custom) MarshalJSON() ([]byte, error) {
	return json.Marshal(struct {
		Type             string           `json:"type"`
		Kind             string           `json:"kind"`
		ProviderMetadata ProviderMetadata `json:"providerMetadata,omitempty"`
	}{"custom", c.Kind, c.ProviderMetadata})
}

// MarshalJSON writes the value in the JSON shape of the TypeScript AI SDK.
func (c File) MarshalJSON() ([]byte, error) {
	return json.Marshal(fileJSON{"file", c.MediaType, c.Data, c.ProviderMetadata})
}

// MarshalJSON writes the value in the JSON shape of the TypeScript AI SDK.
func (c ReasoningFile) MarshalJSON() ([]byte, error) {
	return json.Marshal(fileJSON{"reasoning-file", c.MediaType, c.Data, c.ProviderMetadata})
}

// MarshalJSON writes the value in the JSON shape of the TypeScript AI SDK.
func (c Source) MarshalJSON() ([]byte, error) {
	return json.Marshal(struct {
		Type             string           `json:"type"`
		SourceType       SourceType       `json:"sourceType"`
		ID               string           `json:"id"`
		URL              string           `json:"url,omitempty"`
		MediaType        string           `json:"mediaType,omitempty"`
		Title            string           `json:"title,omitempty"`
		Filename         string           `json:"filename,omitempty"`
		ProviderMetadata ProviderMetadata `json:"providerMetadata,omitempty"`
	}{"source", c.SourceType, c.ID, c.URL, c.MediaType, c.Title, c.Filename, c.ProviderMetadata})
}

// MarshalJSON writes the value in the JSON shape of the TypeScript AI SDK.
func (c ToolCall) MarshalJSON() ([]byte, error) {
	return json.Marshal(struct {
		Type             string           `json:"type"`
		ToolCallID       string           `json:"toolCallId"`
		ToolName         string           `json:"toolName"`
		Input            string           `json:"input"`
		ProviderExecuted bool             `json:"providerExecuted,omitempty"`
		Dynamic          bool             `json:"dynamic,omitempty"`
		ProviderMetadata ProviderMetadata `json:"providerMetadata,omitempty"`
	}{"tool-call", c.ToolCallID, c.ToolName, c.Input, c.ProviderExecuted, c.Dynamic, c.ProviderMetadata})
}

// MarshalJSON writes the value in the JSON shape of the TypeScript AI SDK.
func (c ToolResult) MarshalJSON() ([]byte, error) {
	return json.Marshal(struct {
		Type             string           `json:"type"`
		ToolCallID       string           `json:"toolCallId"`
		ToolName         string           `json:"toolName"`
		Result           json.RawMessage  `json:"result"`
		IsError          bool             `json:"isError,omitempty"`
		Preliminary      bool             `json:"preliminary,omitempty"`
		Dynamic          bool             `json:"dynamic,omitempty"`
		ProviderMetadata ProviderMetadata `json:"providerMetadata,omitempty"`
	}{"tool-result", c.ToolCallID, c.ToolName, wirejson.OrNull(c.Result), c.IsError, c.Preliminary, c.Dynamic, c.ProviderMetadata})
}

// MarshalJSON writes the value in the JSON shape of the TypeScript AI SDK.
func (c ToolApprovalRequest) MarshalJSON() ([]byte, error) {
	return json.Marshal(struct {
		Type             string           `json:"type"`
		ApprovalID       string           `json:"approvalId"`
		ToolCallID       string           `json:"toolCallId"`
		ProviderMetadata ProviderMetadata `json:"providerMetadata,omitempty"`
	}{"tool-approval-request", c.ApprovalID, c.ToolCallID, c.ProviderMetadata})
}

// MarshalJSON writes the value in the JSON shape of the TypeScript AI SDK.
func (p StreamStart) MarshalJSON() ([]byte, error) {
	return json.Marshal(struct {
		Type     string    `json:"type"`
		Warnings []Warning `json:"warnings"`
	}{"stream-start", wirejson.NonNil(p.Warnings)})
}

// MarshalJSON writes the value in the JSON shape of the TypeScript AI SDK.
func (p ResponseMetadata) MarshalJSON() ([]byte, error) {
	return json.Marshal(struct {
		Type      string    `json:"type"`
		ID        string    `json:"id,omitempty"`
		Timestamp time.Time `json:"timestamp,omitzero"`
		ModelID   string    `json:"modelId,omitempty"`
	}{"response-metadata", p.ID, p.Timestamp, p.ModelID})
}

type blockJSON struct {
	Type             string           `json:"type"`
	ID               string           `json:"id"`
	Delta            *string          `json:"delta,omitempty"`
	Citations        []Citation       `json:"citations,omitempty"`
	ProviderMetadata ProviderMetadata `json:"providerMetadata,omitempty"`
}

// MarshalJSON writes the value in the JSON shape of the TypeScript AI SDK.
func (p TextStart) MarshalJSON() ([]byte, error) {
	return json.Marshal(blockJSON{Type: "text-start", ID: p.ID, ProviderMetadata: p.ProviderMetadata})
}

// MarshalJSON writes the value in the JSON shape of the TypeScript AI SDK.
func (p TextDelta) MarshalJSON() ([]byte, error) {
	return json.Marshal(blockJSON{Type: "text-delta", ID: p.ID, Delta: &p.Delta, ProviderMetadata: p.ProviderMetadata})
}

// MarshalJSON writes the value in the JSON shape of the TypeScript AI SDK.
func (p TextEnd) MarshalJSON() ([]byte, error) {
	return json.Marshal(blockJSON{Type: "text-end", ID: p.ID, Citations: p.Citations, ProviderMetadata: p.ProviderMetadata})
}

// MarshalJSON writes the value in the JSON shape of the TypeScript AI SDK.
func (p ReasoningStart) MarshalJSON() ([]byte, error) {
	return json.Marshal(blockJSON{Type: "reasoning-start", ID: p.ID, ProviderMetadata: p.ProviderMetadata})
}

// MarshalJSON writes the value in the JSON shape of the TypeScript AI SDK.
func (p ReasoningDelta) MarshalJSON() ([]byte, error) {
	return json.Marshal(blockJSON{Type: "reasoning-delta", ID: p.ID, Delta: &p.Delta, ProviderMetadata: p.ProviderMetadata})
}

// MarshalJSON writes the value in the JSON shape of the TypeScript AI SDK.
func (p ReasoningEnd) MarshalJSON() ([]byte, error) {
	return json.Marshal(blockJSON{Type: "reasoning-end", ID: p.ID, ProviderMetadata: p.ProviderMetadata})
}

// MarshalJSON writes the value in the JSON shape of the TypeScript AI SDK.
func (p ToolInputDelta) MarshalJSON() ([]byte, error) {
	return json.Marshal(blockJSON{Type: "tool-input-delta", ID: p.ID, Delta: &p.Delta, ProviderMetadata: p.ProviderMetadata})
}

// MarshalJSON writes the value in the JSON shape of the TypeScript AI SDK.
func (p ToolInputEnd) MarshalJSON() ([]byte, error) {
	return json.Marshal(blockJSON{Type: "tool-input-end", ID: p.ID, ProviderMetadata: p.ProviderMetadata})
}

// MarshalJSON writes the value in the JSON shape of the TypeScript AI SDK.
func (p ToolInputStart) MarshalJSON() ([]byte, error) {
	return json.Marshal(struct {
		Type             string           `json:"type"`
		ID               string           `json:"id"`
		ToolName         string           `json:"toolName"`
		InputEncoding    string           `json:"inputEncoding,omitempty"`
		ProviderExecuted bool             `json:"providerExecuted,omitempty"`
		Dynamic          bool             `json:"dynamic,omitempty"`
		Title            string           `json:"title,omitempty"`
		ProviderMetadata ProviderMetadata `json:"providerMetadata,omitempty"`
	}{"tool-input-start", p.ID, p.ToolName, p.InputEncoding, p.ProviderExecuted, p.Dynamic, p.Title, p.ProviderMetadata})
}

// MarshalJSON writes the value in the JSON shape of the TypeScript AI SDK.
func (p Finish) MarshalJSON() ([]byte, error) {
	return json.Marshal(struct {
		Type             string           `json:"type"`
		FinishReason     FinishReason     `json:"finishReason"`
		Usage            Usage            `json:"usage"`
		ProviderMetadata ProviderMetadata `json:"providerMetadata,omitempty"`
	}{"finish", p.FinishReason, p.Usage, p.ProviderMetadata})
}

// MarshalJSON writes the value in the JSON shape of the TypeScript AI SDK.
func (Ping) MarshalJSON() ([]byte, error) { return []byte(`{"type":"ping"}`), nil }

// MarshalJSON writes the value in the JSON shape of the TypeScript AI SDK.
func (p Raw) MarshalJSON() ([]byte, error) {
	return json.Marshal(struct {
		Type     string          `json:"type"`
		RawValue json.RawMessage `json:"rawValue"`
	}{"raw", wirejson.OrNull(p.RawValue)})
}

// MarshalJSON writes the value in the JSON shape of the TypeScript AI SDK.
func (p ErrorPart) MarshalJSON() ([]byte, error) {
	var msg any = nil
	if p.Err != nil {
		msg = p.Err.Error()
	}
	return json.Marshal(struct {
		Type  string `json:"type"`
		Error any    `json:"error"`
	}{"error", msg})
}

// Decoding.

// UnmarshalMessages decodes a JSON array of messages in the shape
// [SystemMessage.MarshalJSON] and its siblings write. User and assistant
// content may also be a plain string, which becomes one text part.
func UnmarshalMessages(data []byte) ([]Message, error) {
	out, err := unmarshalList(data, "message", UnmarshalMessage)
	if out == nil && err == nil {
		out = []Message{} // null holds no messages
	}
	return out, err
}

// unmarshalList decodes a JSON array with one, naming the index of an
// element that fails as "what i". Null decodes to nil.
func unmarshalList[T any](data []byte, what string, one func([]byte) (T, error)) ([]T, error) {
	var raw []json.RawMessage
	if err := json.Unmarshal(data, &raw); err != nil {
		return nil, err
	}
	if raw == nil {
		return nil, nil
	}
	out := make([]T, 0, len(raw))
	for i, r := range raw {
		v, err := one(r)
		if err != nil {
			return nil, fmt.Errorf("%s %d: %w", what, i, err)
		}
		out = append(out, v)
	}
	return out, nil
}

// UnmarshalMessage decodes one message; see [UnmarshalMessages].
func UnmarshalMessage(data []byte) (Message, error) {
	var head struct {
		Role            Role            `json:"role"`
		Content         json.RawMessage `json:"content"`
		ProviderOptions ProviderOptions `json:"providerOptions"`
	}
	if err := json.Unmarshal(data, &head); err != nil {
		return nil, err
	}
	var text *string
	var parts []json.RawMessage
	if len(head.Content) > 0 && head.Content[0] == '"' {
		var s string
		if err := json.Unmarshal(head.Content, &s); err != nil {
			return nil, err
		}
		text = &s
	} else if len(head.Content) > 0 && string(head.Content) != "null" {
		if err := json.Unmarshal(head.Content, &parts); err != nil {
			return nil, fmt.Errorf("content: %w", err)
		}
	}
	switch head.Role {
	case RoleSystem:
		if text == nil {
			return nil, errors.New("system message content must be a string")
		}
		return SystemMessage{Content: *text, ProviderOptions: head.ProviderOptions}, nil
	case RoleUser:
		content, err := decodeParts[UserPart](parts, text, "a user message")
		return UserMessage{Content: content, ProviderOptions: head.ProviderOptions}, err
	case RoleAssistant:
		content, err := decodeParts[AssistantPart](parts, text, "an assistant message")
		return AssistantMessage{Content: content, ProviderOptions: head.ProviderOptions}, err
	case RoleTool:
		if text != nil {
			return nil, errors.New("tool message content must be an array")
		}
		content, err := decodeParts[ToolPart](parts, nil, "a tool message")
		return ToolMessage{Content: content, ProviderOptions: head.ProviderOptions}, err
	}
	return nil, &InvalidMessageRoleError{Role: head.Role}
}

// InvalidMessageRoleError reports a message whose role is not one of
// system, user, assistant and tool.
type InvalidMessageRoleError struct {
	Role Role
}

// Error implements the error interface.
func (e *InvalidMessageRoleError) Error() string {
	return fmt.Sprintf(`invalid message role %q: must be one of "system", "user", "assistant", "tool"`, string(e.Role))
}

// decodeParts decodes the parts of a message whose parts must be of type T;
// a string content becomes one text part.
func decodeParts[T any](parts []json.RawMessage, text *string, what string) ([]T, error) {
	var out []T
	if text != nil {
		if tp, ok := any(TextPart{Text: *text}).(T); ok {
			out = append(out, tp)
		}
	}
	for i, p := range parts {
		part, err := unmarshalPart(p)
		if err != nil {
			return nil, fmt.Errorf("part %d: %w", i, err)
		}
		t, ok := part.(T)
		if !ok {
			return nil, fmt.Errorf("part %d: %s cannot hold %T", i, what, part)
		}
		out = append(out, t)
	}
	return out, nil
}

func unmarshalPart(data []byte) (any, error) {
	var p struct {
		Type             string          `json:"type"`
		Text             string          `json:"text"`
		Data             json.RawMessage `json:"data"`
		Image            json.RawMessage `json:"image"`
		MediaType        string          `json:"mediaType"`
		Filename         string          `json:"filename"`
		Kind             string          `json:"kind"`
		ToolCallID       string          `json:"toolCallId"`
		ToolName         string          `json:"toolName"`
		Input            json.RawMessage `json:"input"`
		ProviderExecuted bool            `json:"providerExecuted"`
		Output           json.RawMessage `json:"output"`
		ApprovalID       string          `json:"approvalId"`
		Approved         bool            `json:"approved"`
		Reason           string          `json:"reason"`
		IsAutomatic      bool            `json:"isAutomatic"`
		Signature        string          `json:"signature"`
		InputSchemaInput json.RawMessage `json:"inputSchemaInput"`
		ProviderOptions  ProviderOptions `json:"providerOptions"`
	}
	if err := json.Unmarshal(data, &p); err != nil {
		return nil, err
	}
	switch p.Type {
	case "text":
		return TextPart{Text: p.Text, ProviderOptions: p.ProviderOptions}, nil
	case "image": // the older form of a file part, without a file name
		mt := p.MediaType
		if mt == "" {
			mt = "image"
		}
		return unmarshalFilePart(p.Image, mt, "", p.ProviderOptions)
	case "file":
		return unmarshalFilePart(p.Data, p.MediaType, p.Filename, p.ProviderOptions)
	case "reasoning":
		return ReasoningPart{Text: p.Text, ProviderOptions: p.ProviderOptions}, nil
	case "reasoning-file":
		d, err := unmarshalFileData(p.Data)
		if err != nil {
			return nil, err
		}
		return ReasoningFilePart{Data: d, MediaType: p.MediaType, ProviderOptions: p.ProviderOptions}, nil
	case "custom":
		return CustomPart{Kind: p.Kind, ProviderOptions: p.ProviderOptions}, nil
	case "tool-call":
		input := p.Input
		if len(input) == 0 {
			input = json.RawMessage("{}")
		}
		return ToolCallPart{ToolCallID: p.ToolCallID, ToolName: p.ToolName, Input: input, ProviderExecuted: p.ProviderExecuted, ProviderOptions: p.ProviderOptions}, nil
	case "tool-result":
		out, err := UnmarshalToolResultOutput(p.Output)
		if err != nil {
			return nil, fmt.Errorf("output: %w", err)
		}
		return ToolResultPart{ToolCallID: p.ToolCallID, ToolName: p.ToolName, Output: out, ProviderOptions: p.ProviderOptions}, nil
	case "tool-approval-request":
		return ToolApprovalRequestPart{ApprovalID: p.ApprovalID, ToolCallID: p.ToolCallID, Reason: p.Reason, IsAutomatic: p.IsAutomatic, Signature: p.Signature, InputSchemaInput: p.InputSchemaInput, ProviderOptions: p.ProviderOptions}, nil
	case "tool-approval-response":
		return ToolApprovalResponsePart{ApprovalID: p.ApprovalID, Approved: p.Approved, Reason: p.Reason, ProviderExecuted: p.ProviderExecuted, ProviderOptions: p.ProviderOptions}, nil
	}
	return nil, fmt.Errorf("unknown part type %q", p.Type)
}

// unmarshalFilePart builds a file part from its decoded fields.
func unmarshalFilePart(data json.RawMessage, mediaType, filename string, po ProviderOptions) (FilePart, error) {
	d, err := unmarshalFileData(data)
	if err != nil {
		return FilePart{}, err
	}
	return FilePart{Data: d, MediaType: mediaType, Filename: filename, ProviderOptions: po}, nil
}

// unmarshalFileData reads tagged file data; a plain string is taken as base64
// data or, when it looks like a URL, as a URL.
func unmarshalFileData(data []byte) (FileData, error) {
	if len(data) == 0 {
		return nil, errors.New("missing file data")
	}
	if data[0] == '"' {
		var s string
		if err := json.Unmarshal(data, &s); err != nil {
			return nil, err
		}
		if looksLikeURL(s) {
			return FileURL{URL: s}, nil
		}
		var b []byte
		if err := json.Unmarshal(data, &b); err != nil {
			return nil, fmt.Errorf("file data is neither a URL nor base64: %w", err)
		}
		return FileBytes{Data: b}, nil
	}
	var d struct {
		Type      string            `json:"type"`
		Data      []byte            `json:"data"`
		URL       string            `json:"url"`
		Reference map[string]string `json:"reference"`
		Text      string            `json:"text"`
	}
	if err := json.Unmarshal(data, &d); err != nil {
		return nil, err
	}
	switch d.Type {
	case "data":
		return FileBytes{Data: d.Data}, nil
	case "url":
		return FileURL{URL: d.URL}, nil
	case "reference":
		return FileReference{Reference: d.Reference}, nil
	case "text":
		return FileText{Text: d.Text}, nil
	}
	return nil, fmt.Errorf("unknown file data type %q", d.Type)
}

func looksLikeURL(s string) bool {
	for _, p := range []string{"http://", "https://", "data:", "gs://", "s3://"} {
		if len(s) >= len(p) && s[:len(p)] == p {
			return true
		}
	}
	return false
}

// UnmarshalToolResultOutput decodes a tool result output.
func UnmarshalToolResultOutput(data []byte) (ToolResultOutput, error) {
	var o struct {
		Type            string            `json:"type"`
		Value           json.RawMessage   `json:"value"`
		Reason          string            `json:"reason"`
		ProviderOptions ProviderOptions   `json:"providerOptions"`
		Parts           []json.RawMessage `json:"-"`
	}
	if err := json.Unmarshal(data, &o); err != nil {
		return nil, err
	}
	str := func() (string, error) {
		var s string
		err := json.Unmarshal(o.Value, &s)
		return s, err
	}
	switch o.Type {
	case "text":
		s, err := str()
		return TextOutput{Value: s, ProviderOptions: o.ProviderOptions}, err
	case "error-text":
		s, err := str()
		return ErrorTextOutput{Value: s, ProviderOptions: o.ProviderOptions}, err
	case "json":
		return JSONOutput{Value: o.Value, ProviderOptions: o.ProviderOptions}, nil
	case "error-json":
		return ErrorJSONOutput{Value: o.Value, ProviderOptions: o.ProviderOptions}, nil
	case "execution-denied":
		return ExecutionDeniedOutput{Reason: o.Reason, ProviderOptions: o.ProviderOptions}, nil
	case "content":
		var raw []json.RawMessage
		if err := json.Unmarshal(o.Value, &raw); err != nil {
			return nil, err
		}
		out := ContentOutput{ProviderOptions: o.ProviderOptions}
		for _, r := range raw {
			p, err := unmarshalContentOutputPart(r)
			if err != nil {
				return nil, err
			}
			out.Value = append(out.Value, p)
		}
		return out, nil
	}
	return nil, fmt.Errorf("unknown tool result output type %q", o.Type)
}

func unmarshalContentOutputPart(data []byte) (ContentOutputPart, error) {
	var p struct {
		Type            string            `json:"type"`
		Text            string            `json:"text"`
		Data            json.RawMessage   `json:"data"`
		URL             string            `json:"url"`
		FileID          json.RawMessage   `json:"fileId"`
		Reference       map[string]string `json:"providerReference"`
		MediaType       string            `json:"mediaType"`
		Filename        string            `json:"filename"`
		ProviderOptions ProviderOptions   `json:"providerOptions"`
	}
	if err := json.Unmarshal(data, &p); err != nil {
		return nil, err
	}
	switch p.Type {
	case "text":
		return TextPart{Text: p.Text, ProviderOptions: p.ProviderOptions}, nil
	case "custom":
		return CustomPart{ProviderOptions: p.ProviderOptions}, nil
	case "file":
		return unmarshalFilePart(p.Data, p.MediaType, p.Filename, p.ProviderOptions)
	case "file-data", "image-data", "media":
		var b []byte
		if err := json.Unmarshal(p.Data, &b); err != nil {
			return nil, err
		}
		return FilePart{Data: FileBytes{Data: b}, MediaType: p.MediaType, Filename: p.Filename, ProviderOptions: p.ProviderOptions}, nil
	case "file-url", "image-url":
		mt := p.MediaType
		if mt == "" && p.Type == "image-url" {
			mt = "image"
		}
		return FilePart{Data: FileURL{URL: p.URL}, MediaType: mt, ProviderOptions: p.ProviderOptions}, nil
	}
	return nil, fmt.Errorf("unknown content output part type %q", p.Type)
}

// UnmarshalContent decodes one piece of model output in the shape
// [Text.MarshalJSON] and its siblings write, for example a [GenerateResult]'s
// content stored outside the process that produced it.
func UnmarshalContent(data []byte) (Content, error) {
	var c struct {
		Type             string           `json:"type"`
		Text             string           `json:"text"`
		Citations        []Citation       `json:"citations"`
		Kind             string           `json:"kind"`
		MediaType        string           `json:"mediaType"`
		Data             json.RawMessage  `json:"data"`
		SourceType       SourceType       `json:"sourceType"`
		ID               string           `json:"id"`
		URL              string           `json:"url"`
		Title            string           `json:"title"`
		Filename         string           `json:"filename"`
		ToolCallID       string           `json:"toolCallId"`
		ToolName         string           `json:"toolName"`
		Input            *string          `json:"input"`
		ProviderExecuted bool             `json:"providerExecuted"`
		Dynamic          bool             `json:"dynamic"`
		Result           json.RawMessage  `json:"result"`
		IsError          bool             `json:"isError"`
		Preliminary      bool             `json:"preliminary"`
		ApprovalID       string           `json:"approvalId"`
		ProviderMetadata ProviderMetadata `json:"providerMetadata"`
	}
	if err := json.Unmarshal(data, &c); err != nil {
		return nil, err
	}
	pm := c.ProviderMetadata
	switch c.Type {
	case "text":
		return Text{Text: c.Text, Citations: c.Citations, ProviderMetadata: pm}, nil
	case "reasoning":
		return Reasoning{Text: c.Text, ProviderMetadata: pm}, nil
	case "custom":
		return Custom{Kind: c.Kind, ProviderMetadata: pm}, nil
	case "file", "reasoning-file":
		d, err := unmarshalFileData(c.Data)
		if err != nil {
			return nil, err
		}
		if c.Type == "file" {
			return File{MediaType: c.MediaType, Data: d, ProviderMetadata: pm}, nil
		}
		return ReasoningFile{MediaType: c.MediaType, Data: d, ProviderMetadata: pm}, nil
	case "source":
		return Source{SourceType: c.SourceType, ID: c.ID, URL: c.URL, MediaType: c.MediaType, Filename: c.Filename, Title: c.Title, ProviderMetadata: pm}, nil
	case "tool-call":
		if c.Input == nil {
			return nil, errors.New("tool call without input")
		}
		return ToolCall{ToolCallID: c.ToolCallID, ToolName: c.ToolName, Input: *c.Input, ProviderExecuted: c.ProviderExecuted, Dynamic: c.Dynamic, ProviderMetadata: pm}, nil
	case "tool-result":
		return ToolResult{ToolCallID: c.ToolCallID, ToolName: c.ToolName, Result: c.Result, IsError: c.IsError, Preliminary: c.Preliminary, Dynamic: c.Dynamic, ProviderMetadata: pm}, nil
	case "tool-approval-request":
		return ToolApprovalRequest{ApprovalID: c.ApprovalID, ToolCallID: c.ToolCallID, ProviderMetadata: pm}, nil
	}
	return nil, fmt.Errorf("unknown content type %q", c.Type)
}

// UnmarshalContents decodes a JSON array of model output; see
// [UnmarshalContent].
func UnmarshalContents(data []byte) ([]Content, error) {
	return unmarshalList(data, "content", UnmarshalContent)
}

// UnmarshalTool decodes a tool definition in the shape
// [FunctionTool.MarshalJSON] and [ProviderTool.MarshalJSON] write.
func UnmarshalTool(data []byte) (Tool, error) {
	var t struct {
		Type          string          `json:"type"`
		Name          string          `json:"name"`
		Description   string          `json:"description"`
		InputSchema   json.RawMessage `json:"inputSchema"`
		InputExamples []struct {
			Input json.RawMessage `json:"input"`
		} `json:"inputExamples"`
		Strict          *bool           `json:"strict"`
		ProviderOptions ProviderOptions `json:"providerOptions"`
		ID              string          `json:"id"`
		Args            map[string]any  `json:"args"`
	}
	if err := json.Unmarshal(data, &t); err != nil {
		return nil, err
	}
	switch t.Type {
	case "function":
		ft := &FunctionTool{Name: t.Name, Description: t.Description, Strict: t.Strict, ProviderOptions: t.ProviderOptions}
		if string(t.InputSchema) != "null" {
			ft.InputSchema = t.InputSchema
		}
		if t.InputExamples != nil {
			ft.InputExamples = make([]json.RawMessage, 0, len(t.InputExamples))
		}
		for _, e := range t.InputExamples {
			ft.InputExamples = append(ft.InputExamples, e.Input)
		}
		return ft, nil
	case "provider":
		return &ProviderTool{ID: t.ID, Name: t.Name, Args: t.Args}, nil
	}
	return nil, fmt.Errorf("unknown tool type %q", t.Type)
}

// UnmarshalTools decodes a JSON array of tool definitions; see
// [UnmarshalTool].
func UnmarshalTools(data []byte) ([]Tool, error) {
	return unmarshalList(data, "tool", UnmarshalTool)
}
