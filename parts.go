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
//     output through;
//   - [PartialOutput] and [OutputElement] carry a structured [Output] as it
//     forms, when one is set.
//
// The streamed text, reasoning and tool input pieces are the provider's own
// values ([TextDelta] is [provider.TextDelta], and so on): a part the model
// streams is handed to the reader as it is, without a copy. The union is
// the list above: StreamText yields no other types, so a type switch over
// them sees every part.
type Part interface {
	// PartType returns the part's JSON discriminator, for example
	// "text-delta".
	PartType() string
}

// The parts the model streams are the provider contract's types; the
// aliases let applications stay in package ai. Their JSON is the
// provider's: a delta's text is its "delta" member.
type (
	// TextStart opens a text block.
	TextStart = provider.TextStart
	// TextDelta is a piece of a text block: ID and Delta.
	TextDelta = provider.TextDelta
	// TextEnd closes a text block.
	TextEnd = provider.TextEnd
	// ReasoningStart opens a reasoning block.
	ReasoningStart = provider.ReasoningStart
	// ReasoningDelta is a piece of a reasoning block: ID and Delta.
	ReasoningDelta = provider.ReasoningDelta
	// ReasoningEnd closes a reasoning block.
	ReasoningEnd = provider.ReasoningEnd
	// ToolInputDelta is a piece of a tool call's input text: ID (the tool
	// call id) and Delta.
	ToolInputDelta = provider.ToolInputDelta
	// ToolInputEnd closes a tool call's input. ID is the tool call id.
	ToolInputEnd = provider.ToolInputEnd
	// Raw is an unparsed provider chunk, streamed when
	// [GenerateTextOptions.IncludeRawChunks] is set.
	Raw = provider.Raw
)

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
