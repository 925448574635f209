package provider

import "encoding/json"

// Content is a piece of model output: [Text], [Reasoning], [Custom],
// [File], [ReasoningFile], [Source], [ToolCall], [ToolResult] or
// [ToolApprovalRequest].
type Content interface {
	// ContentType returns the part's JSON discriminator, for example "text".
	ContentType() string
	isContent()
}

// Text is generated text.
type Text struct {
	Text             string
	ProviderMetadata ProviderMetadata
	Citations        []Citation
}

// Reasoning is reasoning text.
type Reasoning struct {
	Text             string
	ProviderMetadata ProviderMetadata
}

// Custom is provider-specific output identified by Kind ("<provider>.<type>").
type Custom struct {
	Kind             string
	ProviderMetadata ProviderMetadata
}

// File is a generated file. Data is a [FileBytes] or a [FileURL].
type File struct {
	MediaType        string
	Data             FileData
	ProviderMetadata ProviderMetadata
}

// ReasoningFile is a file generated while reasoning.
type ReasoningFile struct {
	MediaType        string
	Data             FileData
	ProviderMetadata ProviderMetadata
}

// SourceType says what a [Source] points at.
type SourceType string

// The source types.
const (
	SourceURL      SourceType = "url"
	SourceDocument SourceType = "document"
)

// Source is a source the model used: a URL or a document.
type Source struct {
	SourceType SourceType
	ID         string
	// URL is set for URL sources.
	URL string
	// MediaType and Filename are set for document sources.
	MediaType        string
	Filename         string
	Title            string
	ProviderMetadata ProviderMetadata
}

// Citation ties a span of text to a [Source].
type Citation struct {
	Source     Source `json:"source"`
	StartIndex *int   `json:"startIndex,omitempty"`
	EndIndex   *int   `json:"endIndex,omitempty"`
	CitedText  string `json:"citedText,omitempty"`
}

// ToolCall is a tool call the model made.
type ToolCall struct {
	ToolCallID string
	ToolName   string
	// Input is the call's input as JSON text, exactly as the model produced
	// it (it may not parse).
	Input string
	// ProviderExecuted is true when the provider runs the tool itself.
	ProviderExecuted bool
	// Dynamic is true for calls of tools the provider knows but the caller
	// did not declare (for example tools of a remote MCP server).
	Dynamic          bool
	ProviderMetadata ProviderMetadata
}

// ToolResult is the result of a provider-executed tool call.
type ToolResult struct {
	ToolCallID string
	ToolName   string
	// Result is a JSON value other than null.
	Result json.RawMessage
	// IsError is true when Result describes a failure.
	IsError bool
	// Preliminary is true for intermediate results of a call whose final
	// result comes later.
	Preliminary      bool
	Dynamic          bool
	ProviderMetadata ProviderMetadata
}

// ToolApprovalRequest is the provider asking for approval of a
// provider-executed tool call.
type ToolApprovalRequest struct {
	ApprovalID       string
	ToolCallID       string
	ProviderMetadata ProviderMetadata
}

// ContentType returns "text".
func (Text) ContentType() string { return "text" }

// ContentType returns "reasoning".
func (Reasoning) ContentType() string { return "reasoning" }

// ContentType returns "custom".
func (Custom) ContentType() string { return "custom" }

// ContentType returns "file".
func (File) ContentType() string { return "file" }

// ContentType returns "reasoning-file".
func (ReasoningFile) ContentType() string { return "reasoning-file" }

// ContentType returns "source".
func (Source) ContentType() string { return "source" }

// ContentType returns "tool-call".
func (ToolCall) ContentType() string { return "tool-call" }

// ContentType returns "tool-result".
func (ToolResult) ContentType() string { return "tool-result" }

// ContentType returns "tool-approval-request".
func (ToolApprovalRequest) ContentType() string { return "tool-approval-request" }

func (Text) isContent()                {}
func (Reasoning) isContent()           {}
func (Custom) isContent()              {}
func (File) isContent()                {}
func (ReasoningFile) isContent()       {}
func (Source) isContent()              {}
func (ToolCall) isContent()            {}
func (ToolResult) isContent()          {}
func (ToolApprovalRequest) isContent() {}

// FinishReasonKind is the provider-independent reason a model stopped.
type FinishReasonKind string

// The finish reasons.
const (
	// FinishStop is a natural end or a stop sequence.
	FinishStop FinishReasonKind = "stop"
	// FinishLength means the token limit was reached.
	FinishLength FinishReasonKind = "length"
	// FinishContentFilter means a content filter stopped the model.
	FinishContentFilter FinishReasonKind = "content-filter"
	// FinishToolCalls means the model asked for tool calls.
	FinishToolCalls FinishReasonKind = "tool-calls"
	// FinishError means the model stopped because of an error.
	FinishError FinishReasonKind = "error"
	// FinishInterrupted means the stream ended without a completion signal;
	// the output may be partial.
	FinishInterrupted FinishReasonKind = "interrupted"
	// FinishOther is any other reason.
	FinishOther FinishReasonKind = "other"
)

// FinishReason says why a model stopped: the unified kind and the provider's
// own value.
type FinishReason struct {
	Unified FinishReasonKind `json:"unified"`
	// Raw is the provider's finish reason; empty when it gave none.
	Raw string `json:"raw,omitempty"`
}

// Usage counts the tokens of one model call. Nil counts were not reported.
type Usage struct {
	InputTokens  InputTokens  `json:"inputTokens"`
	OutputTokens OutputTokens `json:"outputTokens"`
	// Raw is the provider's own usage object.
	Raw json.RawMessage `json:"raw,omitempty"`
}

// InputTokens counts prompt tokens.
type InputTokens struct {
	// Total is all input tokens.
	Total *int `json:"total,omitempty"`
	// NoCache is input tokens neither read from nor written to a cache.
	NoCache *int `json:"noCache,omitempty"`
	// CacheRead is input tokens read from the prompt cache.
	CacheRead *int `json:"cacheRead,omitempty"`
	// CacheWrite is input tokens written to the prompt cache.
	CacheWrite *int `json:"cacheWrite,omitempty"`
}

// OutputTokens counts generated tokens.
type OutputTokens struct {
	// Total is all output tokens.
	Total *int `json:"total,omitempty"`
	// Text is tokens of visible text.
	Text *int `json:"text,omitempty"`
	// Reasoning is reasoning tokens.
	Reasoning *int `json:"reasoning,omitempty"`
}

// Warning reports a setting or feature the provider could not honour.
type Warning struct {
	// Type is "unsupported", "compatibility", "deprecated" or "other".
	Type string `json:"type"`
	// Feature names the unsupported or adapted feature.
	Feature string `json:"feature,omitempty"`
	// Details explains the warning.
	Details string `json:"details,omitempty"`
	// Setting names a deprecated setting.
	Setting string `json:"setting,omitempty"`
	// Message describes a deprecated or other warning.
	Message string `json:"message,omitempty"`
}
