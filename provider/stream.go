package provider

import (
	"encoding/json"
	"time"
)

// StreamPart is one value of a model stream: [StreamStart],
// [ResponseMetadata], [TextStart], [TextDelta], [TextEnd],
// [ReasoningStart], [ReasoningDelta], [ReasoningEnd], [ToolInputStart],
// [ToolInputDelta], [ToolInputEnd], [ToolCall], [ToolResult],
// [ToolApprovalRequest], [Custom], [File], [ReasoningFile], [Source],
// [Finish], [Ping], [Raw] or [ErrorPart].
//
// Text, reasoning and tool input arrive in blocks: a start part with an id,
// deltas with the same id, an end part. For tool input the id is the tool
// call id, and a [ToolCall] with the complete input follows the block.
type StreamPart interface {
	// PartType returns the part's JSON discriminator, for example
	// "text-delta".
	PartType() string
	isStreamPart()
}

// StreamStart opens a stream and carries the call's warnings.
type StreamStart struct {
	Warnings []Warning
}

// ResponseMetadata carries response metadata as soon as it is known.
type ResponseMetadata struct {
	ID        string
	Timestamp time.Time
	ModelID   string
}

// TextStart opens a text block.
type TextStart struct {
	ID               string
	ProviderMetadata ProviderMetadata
}

// TextDelta is a piece of a text block.
type TextDelta struct {
	ID               string
	Delta            string
	ProviderMetadata ProviderMetadata
}

// TextEnd closes a text block.
type TextEnd struct {
	ID               string
	Citations        []Citation
	ProviderMetadata ProviderMetadata
}

// ReasoningStart opens a reasoning block.
type ReasoningStart struct {
	ID               string
	ProviderMetadata ProviderMetadata
}

// ReasoningDelta is a piece of a reasoning block.
type ReasoningDelta struct {
	ID               string
	Delta            string
	ProviderMetadata ProviderMetadata
}

// ReasoningEnd closes a reasoning block.
type ReasoningEnd struct {
	ID               string
	ProviderMetadata ProviderMetadata
}

// ToolInputStart opens the input of a tool call; ID is the tool call id.
type ToolInputStart struct {
	ID       string
	ToolName string
	// InputEncoding is "json" (the default when empty) or "text".
	InputEncoding    string
	ProviderExecuted bool
	Dynamic          bool
	Title            string
	ProviderMetadata ProviderMetadata
}

// ToolInputDelta is a piece of a tool call's input text.
type ToolInputDelta struct {
	ID               string
	Delta            string
	ProviderMetadata ProviderMetadata
}

// ToolInputEnd closes the input of a tool call.
type ToolInputEnd struct {
	ID               string
	ProviderMetadata ProviderMetadata
}

// Finish ends a stream with the finish reason and usage.
type Finish struct {
	FinishReason     FinishReason
	Usage            Usage
	ProviderMetadata ProviderMetadata
}

// Ping keeps a connection alive; it carries nothing.
type Ping struct{}

// Raw is an unparsed provider chunk, sent when
// [CallOptions.IncludeRawChunks] is set.
type Raw struct {
	RawValue json.RawMessage
}

// ErrorPart reports an error inside a stream; the stream may go on.
type ErrorPart struct {
	Err error
}

// PartType returns "stream-start".
func (StreamStart) PartType() string { return "stream-start" }

// PartType returns "response-metadata".
func (ResponseMetadata) PartType() string { return "response-metadata" }

// PartType returns "text-start".
func (TextStart) PartType() string { return "text-start" }

// PartType returns "text-delta".
func (TextDelta) PartType() string { return "text-delta" }

// PartType returns "text-end".
func (TextEnd) PartType() string { return "text-end" }

// PartType returns "reasoning-start".
func (ReasoningStart) PartType() string { return "reasoning-start" }

// PartType returns "reasoning-delta".
func (ReasoningDelta) PartType() string { return "reasoning-delta" }

// PartType returns "reasoning-end".
func (ReasoningEnd) PartType() string { return "reasoning-end" }

// PartType returns "tool-input-start".
func (ToolInputStart) PartType() string { return "tool-input-start" }

// PartType returns "tool-input-delta".
func (ToolInputDelta) PartType() string { return "tool-input-delta" }

// PartType returns "tool-input-end".
func (ToolInputEnd) PartType() string { return "tool-input-end" }

// PartType returns "finish".
func (Finish) PartType() string { return "finish" }

// PartType returns "ping".
func (Ping) PartType() string { return "ping" }

// PartType returns "raw".
func (Raw) PartType() string { return "raw" }

// PartType returns "error".
func (ErrorPart) PartType() string { return "error" }

// PartType returns "tool-call".
func (ToolCall) PartType() string { return "tool-call" }

// PartType returns "tool-result".
func (ToolResult) PartType() string { return "tool-result" }

// PartType returns "tool-approval-request".
func (ToolApprovalRequest) PartType() string { return "tool-approval-request" }

// PartType returns "custom".
func (Custom) PartType() string { return "custom" }

// PartType returns "file".
func (File) PartType() string { return "file" }

// PartType returns "reasoning-file".
func (ReasoningFile) PartType() string { return "reasoning-file" }

// PartType returns "source".
func (Source) PartType() string { return "source" }

func (StreamStart) isStreamPart()         {}
func (ResponseMetadata) isStreamPart()    {}
func (TextStart) isStreamPart()           {}
func (TextDelta) isStreamPart()           {}
func (TextEnd) isStreamPart()             {}
func (ReasoningStart) isStreamPart()      {}
func (ReasoningDelta) isStreamPart()      {}
func (ReasoningEnd) isStreamPart()        {}
func (ToolInputStart) isStreamPart()      {}
func (ToolInputDelta) isStreamPart()      {}
func (ToolInputEnd) isStreamPart()        {}
func (Finish) isStreamPart()              {}
func (Ping) isStreamPart()                {}
func (Raw) isStreamPart()                 {}
func (ErrorPart) isStreamPart()           {}
func (ToolCall) isStreamPart()            {}
func (ToolResult) isStreamPart()          {}
func (ToolApprovalRequest) isStreamPart() {}
func (Custom) isStreamPart()              {}
func (File) isStreamPart()                {}
func (ReasoningFile) isStreamPart()       {}
func (Source) isStreamPart()              {}
