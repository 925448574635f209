package ai

import (
	"encoding/json"

	"github.com/aisdkgo/ai/internal/wirejson"
	"github.com/aisdkgo/ai/provider"
)

// Part is one value of a [StreamText] stream. The kinds, in the order a
// multi-step run produces them:
//
//   - [Start] opens the stream;
//   - [StartStep] opens each step;
//   - [TextStart], [TextDelta], [TextEnd] and [ReasoningStart],
//     [ReasoningDelta], [ReasoningEnd] carry text and reasoning;
//   - [ToolInputStart], [ToolInputDelta], [ToolInputEnd] carry a tool call's
//     input as the model writes it;
//   - [ToolCall] is a parsed call (an invalid one is followed by its
//     [ToolError]);
//   - [ToolApprovalRequest], [ToolApprovalResponse] and [ToolOutputDenied]
//     record approval decisions;
//   - [ToolResult] (Preliminary for intermediate values) and [ToolError] are
//     the outcomes of executed calls, in completion order;
//   - [FinishStep] closes each step with its usage and finish reason;
//   - [Finish] closes the stream with the total usage;
//   - [ErrorPart] reports an error inside the stream (the stream may go
//     on); [Abort] ends a cancelled stream instead of [Finish];
//   - [Source], [File], [ReasoningFile], [Custom] and [Raw] pass provider
//     output through.
//
// The union is closed: only this package adds cases, so a type switch over
// the types listed here sees every part (and a case naming a type of
// package provider does not compile).
type Part interface {
	// PartType returns the part's JSON discriminator, for example
	// "text-delta".
	PartType() string
	isPart()
}

// TextStart opens a text block. Its fields are those of
// [provider.TextStart]: ID and ProviderMetadata.
type TextStart provider.TextStart

// TextEnd closes a text block. Its fields are those of [provider.TextEnd]:
// ID, Citations and ProviderMetadata.
type TextEnd provider.TextEnd

// ReasoningStart opens a reasoning block. Its fields are those of
// [provider.ReasoningStart]: ID and ProviderMetadata.
type ReasoningStart provider.ReasoningStart

// ReasoningEnd closes a reasoning block. Its fields are those of
// [provider.ReasoningEnd]: ID and ProviderMetadata.
type ReasoningEnd provider.ReasoningEnd

// ToolInputDelta is a piece of a tool call's input text. Its fields are
// those of [provider.ToolInputDelta]: ID (the tool call id), Delta and
// ProviderMetadata.
type ToolInputDelta provider.ToolInputDelta

// ToolInputEnd closes a tool call's input. Its fields are those of
// [provider.ToolInputEnd]: ID (the tool call id) and ProviderMetadata.
type ToolInputEnd provider.ToolInputEnd

// Raw is an unparsed provider chunk, streamed when
// [GenerateTextOptions.IncludeRawChunks] is set. Its one field is that of
// [provider.Raw]: RawValue.
type Raw provider.Raw

// Ping keeps a stream alive; it carries nothing.
type Ping struct{}

// Start opens a stream.
type Start struct{}

// StartStep opens a step.
type StartStep struct {
	// Warnings are the provider's warnings for the step's model call.
	Warnings []Warning
	// Request describes the model call, when the provider reports it.
	Request *provider.RequestInfo
}

// TextDelta is a piece of a text block.
type TextDelta struct {
	ID               string
	Text             string
	ProviderMetadata ProviderMetadata
}

// ReasoningDelta is a piece of a reasoning block.
type ReasoningDelta struct {
	ID               string
	Text             string
	ProviderMetadata ProviderMetadata
}

// ToolInputStart opens a tool call's input. ID is the tool call id.
type ToolInputStart struct {
	ID               string
	ToolName         string
	InputEncoding    string
	ProviderExecuted bool
	Dynamic          bool
	Title            string
	ToolMetadata     map[string]any
	ProviderMetadata ProviderMetadata
}

// ToolOutputDenied reports that a call was denied and will not run.
type ToolOutputDenied struct {
	ToolCallID string
	ToolName   string
}

// FinishStep closes a step.
type FinishStep struct {
	FinishReason     FinishReason
	RawFinishReason  string
	Usage            Usage
	Response         ResponseInfo
	ProviderMetadata ProviderMetadata
}

// Finish closes a stream.
type Finish struct {
	FinishReason    FinishReason
	RawFinishReason string
	// TotalUsage is the sum over all steps.
	TotalUsage Usage
}

// Abort ends a stream whose context was cancelled.
type Abort struct {
	// Reason describes the cancellation.
	Reason string
}

// ErrorPart reports an error inside a stream: a provider error, a model
// call that failed, or a tool choice the model ignored.
type ErrorPart struct {
	Err error
}

// PartType returns "start".
func (Start) PartType() string { return "start" }

// PartType returns "start-step".
func (StartStep) PartType() string { return "start-step" }

// PartType returns "text-delta".
func (TextDelta) PartType() string { return "text-delta" }

// PartType returns "reasoning-delta".
func (ReasoningDelta) PartType() string { return "reasoning-delta" }

// PartType returns "tool-input-start".
func (ToolInputStart) PartType() string { return "tool-input-start" }

// PartType returns "tool-output-denied".
func (ToolOutputDenied) PartType() string { return "tool-output-denied" }

// PartType returns "finish-step".
func (FinishStep) PartType() string { return "finish-step" }

// PartType returns "finish".
func (Finish) PartType() string { return "finish" }

// PartType returns "abort".
func (Abort) PartType() string { return "abort" }

// PartType returns "error".
func (ErrorPart) PartType() string { return "error" }

// PartType returns "tool-call".
func (ToolCall) PartType() string { return "tool-call" }

// PartType returns "tool-result".
func (ToolResult) PartType() string { return "tool-result" }

// PartType returns "tool-error".
func (ToolError) PartType() string { return "tool-error" }

// PartType returns "tool-approval-request".
func (ToolApprovalRequest) PartType() string { return "tool-approval-request" }

// PartType returns "tool-approval-response".
func (ToolApprovalResponse) PartType() string { return "tool-approval-response" }

// PartType returns "text-start".
func (TextStart) PartType() string { return "text-start" }

// PartType returns "text-end".
func (TextEnd) PartType() string { return "text-end" }

// PartType returns "reasoning-start".
func (ReasoningStart) PartType() string { return "reasoning-start" }

// PartType returns "reasoning-end".
func (ReasoningEnd) PartType() string { return "reasoning-end" }

// PartType returns "tool-input-delta".
func (ToolInputDelta) PartType() string { return "tool-input-delta" }

// PartType returns "tool-input-end".
func (ToolInputEnd) PartType() string { return "tool-input-end" }

// PartType returns "raw".
func (Raw) PartType() string { return "raw" }

// PartType returns "ping".
func (Ping) PartType() string { return "ping" }

// PartType returns "source".
func (Source) PartType() string { return "source" }

// PartType returns "file".
func (File) PartType() string { return "file" }

// PartType returns "reasoning-file".
func (ReasoningFile) PartType() string { return "reasoning-file" }

// PartType returns "custom".
func (Custom) PartType() string { return "custom" }

func (Start) isPart()                {}
func (StartStep) isPart()            {}
func (TextStart) isPart()            {}
func (TextDelta) isPart()            {}
func (TextEnd) isPart()              {}
func (ReasoningStart) isPart()       {}
func (ReasoningDelta) isPart()       {}
func (ReasoningEnd) isPart()         {}
func (ToolInputStart) isPart()       {}
func (ToolInputDelta) isPart()       {}
func (ToolInputEnd) isPart()         {}
func (ToolCall) isPart()             {}
func (ToolResult) isPart()           {}
func (ToolError) isPart()            {}
func (ToolApprovalRequest) isPart()  {}
func (ToolApprovalResponse) isPart() {}
func (ToolOutputDenied) isPart()     {}
func (FinishStep) isPart()           {}
func (Finish) isPart()               {}
func (Abort) isPart()                {}
func (ErrorPart) isPart()            {}
func (Source) isPart()               {}
func (File) isPart()                 {}
func (ReasoningFile) isPart()        {}
func (Custom) isPart()               {}
func (Raw) isPart()                  {}
func (Ping) isPart()                 {}

// MarshalJSON writes the part in the TypeScript AI SDK's shape.
func (p TextStart) MarshalJSON() ([]byte, error) { return provider.TextStart(p).MarshalJSON() }

// MarshalJSON writes the part in the TypeScript AI SDK's shape.
func (p TextEnd) MarshalJSON() ([]byte, error) { return provider.TextEnd(p).MarshalJSON() }

// MarshalJSON writes the part in the TypeScript AI SDK's shape.
func (p ReasoningStart) MarshalJSON() ([]byte, error) {
	return provider.ReasoningStart(p).MarshalJSON()
}

// MarshalJSON writes the part in the TypeScript AI SDK's shape.
func (p ReasoningEnd) MarshalJSON() ([]byte, error) { return provider.ReasoningEnd(p).MarshalJSON() }

// MarshalJSON writes the part in the TypeScript AI SDK's shape.
func (p ToolInputDelta) MarshalJSON() ([]byte, error) {
	return provider.ToolInputDelta(p).MarshalJSON()
}

// MarshalJSON writes the part in the TypeScript AI SDK's shape.
func (p ToolInputEnd) MarshalJSON() ([]byte, error) { return provider.ToolInputEnd(p).MarshalJSON() }

// MarshalJSON writes the part in the TypeScript AI SDK's shape.
func (p Raw) MarshalJSON() ([]byte, error) { return provider.Raw(p).MarshalJSON() }

// MarshalJSON writes the part in the TypeScript AI SDK's shape.
func (Ping) MarshalJSON() ([]byte, error) { return []byte(`{"type":"ping"}`), nil }

// MarshalJSON writes the part in the TypeScript AI SDK's shape.
func (Start) MarshalJSON() ([]byte, error) { return []byte(`{"type":"start"}`), nil }

// MarshalJSON writes the part in the TypeScript AI SDK's shape.
func (p StartStep) MarshalJSON() ([]byte, error) {
	return json.Marshal(struct {
		Type     string    `json:"type"`
		Warnings []Warning `json:"warnings"`
	}{"start-step", wirejson.NonNil(p.Warnings)})
}

// deltaJSON is the shape of the text and reasoning deltas.
type deltaJSON struct {
	Type             string           `json:"type"`
	ID               string           `json:"id"`
	Text             string           `json:"text"`
	ProviderMetadata ProviderMetadata `json:"providerMetadata,omitempty"`
}

// MarshalJSON writes the part in the TypeScript AI SDK's shape.
func (p TextDelta) MarshalJSON() ([]byte, error) {
	return json.Marshal(deltaJSON{"text-delta", p.ID, p.Text, p.ProviderMetadata})
}

// MarshalJSON writes the part in the TypeScript AI SDK's shape.
func (p ReasoningDelta) MarshalJSON() ([]byte, error) {
	return json.Marshal(deltaJSON{"reasoning-delta", p.ID, p.Text, p.ProviderMetadata})
}

// MarshalJSON writes the part in the TypeScript AI SDK's shape.
func (p ToolInputStart) MarshalJSON() ([]byte, error) {
	return json.Marshal(struct {
		Type             string           `json:"type"`
		ID               string           `json:"id"`
		ToolName         string           `json:"toolName"`
		InputEncoding    string           `json:"inputEncoding,omitempty"`
		ProviderExecuted bool             `json:"providerExecuted,omitempty"`
		Dynamic          bool             `json:"dynamic"`
		Title            string           `json:"title,omitempty"`
		ToolMetadata     map[string]any   `json:"toolMetadata,omitempty"`
		ProviderMetadata ProviderMetadata `json:"providerMetadata,omitempty"`
	}{"tool-input-start", p.ID, p.ToolName, p.InputEncoding, p.ProviderExecuted, p.Dynamic, p.Title, p.ToolMetadata, p.ProviderMetadata})
}

// MarshalJSON writes the part in the TypeScript AI SDK's shape.
func (p ToolOutputDenied) MarshalJSON() ([]byte, error) {
	return json.Marshal(struct {
		Type       string `json:"type"`
		ToolCallID string `json:"toolCallId"`
		ToolName   string `json:"toolName"`
	}{"tool-output-denied", p.ToolCallID, p.ToolName})
}

// MarshalJSON writes the part in the TypeScript AI SDK's shape.
func (p FinishStep) MarshalJSON() ([]byte, error) {
	return json.Marshal(struct {
		Type             string           `json:"type"`
		FinishReason     FinishReason     `json:"finishReason"`
		RawFinishReason  string           `json:"rawFinishReason,omitempty"`
		Usage            Usage            `json:"usage"`
		ProviderMetadata ProviderMetadata `json:"providerMetadata,omitempty"`
	}{"finish-step", p.FinishReason, p.RawFinishReason, p.Usage, p.ProviderMetadata})
}

// MarshalJSON writes the part in the TypeScript AI SDK's shape.
func (p Finish) MarshalJSON() ([]byte, error) {
	return json.Marshal(struct {
		Type            string       `json:"type"`
		FinishReason    FinishReason `json:"finishReason"`
		RawFinishReason string       `json:"rawFinishReason,omitempty"`
		TotalUsage      Usage        `json:"totalUsage"`
	}{"finish", p.FinishReason, p.RawFinishReason, p.TotalUsage})
}

// MarshalJSON writes the part in the TypeScript AI SDK's shape.
func (p Abort) MarshalJSON() ([]byte, error) {
	return json.Marshal(struct {
		Type   string `json:"type"`
		Reason string `json:"reason,omitempty"`
	}{"abort", p.Reason})
}

// MarshalJSON writes the part in the TypeScript AI SDK's shape, the error
// as its message.
func (p ErrorPart) MarshalJSON() ([]byte, error) {
	return json.Marshal(struct {
		Type  string `json:"type"`
		Error string `json:"error"`
	}{"error", errorText(p.Err)})
}
