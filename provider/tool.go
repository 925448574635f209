package provider

import (
	"context"
	"encoding/json"
)

// Tool is a tool definition sent to a model: a [FunctionTool] or a
// [ProviderTool].
type Tool interface {
	// ToolName is the name the model calls the tool by.
	ToolName() string
	isTool()
}

// FunctionTool is a tool whose input the model generates from a JSON Schema.
type FunctionTool struct {
	// Name is the name the model calls the tool by.
	Name string
	// Description tells the model what the tool does and when to use it.
	// Empty means no description.
	Description string
	// InputSchema is the JSON Schema of the tool's input.
	InputSchema json.RawMessage
	// InputExamples are example inputs, each a JSON value. An empty list
	// that is not nil is sent as an empty list by providers that send
	// examples; nil sends none.
	InputExamples []json.RawMessage
	// Strict asks providers that support it to generate inputs that always
	// match the schema. Nil means not set.
	Strict *bool
	// ProviderOptions carry provider-specific settings for this tool. An
	// empty map that is not nil is kept as {} in the definition's JSON.
	ProviderOptions ProviderOptions
}

// ProviderTool is a tool defined by the provider (a web search, a code
// interpreter, a shell). Only its identity and arguments are sent.
type ProviderTool struct {
	// ID identifies the tool as "<provider>.<tool>", for example
	// "anthropic.web_search_20250305".
	ID string
	// Name is the name the model calls the tool by.
	Name string
	// Args configure the tool.
	Args map[string]any
}

// ToolName returns t.Name.
func (t *FunctionTool) ToolName() string { return t.Name }

// ToolName returns t.Name.
func (t *ProviderTool) ToolName() string { return t.Name }

func (*FunctionTool) isTool() {}
func (*ProviderTool) isTool() {}

// ToolChoiceType says how a model should choose tools.
type ToolChoiceType string

// The tool choice types.
const (
	// ToolChoiceAuto lets the model decide whether to call tools.
	ToolChoiceAuto ToolChoiceType = "auto"
	// ToolChoiceNone forbids tool calls.
	ToolChoiceNone ToolChoiceType = "none"
	// ToolChoiceRequired demands at least one tool call.
	ToolChoiceRequired ToolChoiceType = "required"
	// ToolChoiceTool demands a call of the tool named in ToolChoice.ToolName.
	ToolChoiceTool ToolChoiceType = "tool"
)

// ToolChoice says whether and which tools the model should call. The zero
// value means auto.
type ToolChoice struct {
	Type     ToolChoiceType `json:"type"`
	ToolName string         `json:"toolName,omitempty"`
}

// Normalized returns c with an empty type replaced by [ToolChoiceAuto].
func (c ToolChoice) Normalized() ToolChoice {
	if c.Type == "" {
		c.Type = ToolChoiceAuto
	}
	return c
}

// ToolSpec describes a tool that a provider defines, such as a web search, a
// code interpreter or a shell, the way provider packages hand it out. The ai
// package turns a spec into a tool (ai.ProviderDefined); provider packages
// build specs without depending on the ai package.
type ToolSpec struct {
	// ID identifies the tool as "<provider>.<tool>", for example
	// "openai.web_search".
	ID string
	// Args configure the tool; they are sent with the tool definition.
	Args map[string]any
	// ProviderExecuted is true when the provider runs the tool and its
	// results arrive in the model's response. Otherwise Execute runs it.
	ProviderExecuted bool
	// SupportsDeferredResults allows the provider to deliver the result of a
	// call in a later response than the call.
	SupportsDeferredResults bool
	// InputSchema is the JSON Schema calls are validated against; nil
	// accepts any input.
	InputSchema json.RawMessage
	// Execute runs a tool that is not provider-executed, with the call's
	// input as JSON. Its result is sent back to the model.
	Execute func(ctx context.Context, input json.RawMessage) (any, error)
}
