package ai

import (
	"encoding/json"

	"github.com/aisdkgo/ai/internal/wirejson"
	"github.com/aisdkgo/ai/provider"
)

// ContentPart is a piece of a step's content: [Text], [Reasoning], [File],
// [ReasoningFile], [Source], [Custom], [ToolCall], [ToolResult],
// [ToolError], [ToolApprovalRequest] or [ToolApprovalResponse]. The union is
// closed: only this package adds cases, so a type switch over the types
// listed here sees every part.
type ContentPart interface {
	// ContentType returns the part's JSON discriminator, for example
	// "tool-call".
	ContentType() string
	isContentPart()
}

// Citation ties a span of text to a [Source].
type Citation = provider.Citation

// Text is generated text. Its fields are those of [provider.Text]: Text,
// ProviderMetadata and Citations.
type Text provider.Text

// Reasoning is generated reasoning. Its fields are those of
// [provider.Reasoning]: Text and ProviderMetadata.
type Reasoning provider.Reasoning

// File is a generated file. Its fields are those of [provider.File]:
// MediaType, Data (a [FileBytes] or a [FileURL]) and ProviderMetadata.
type File provider.File

// ReasoningFile is a file generated while reasoning. Its fields are those
// of [provider.ReasoningFile]: MediaType, Data and ProviderMetadata.
type ReasoningFile provider.ReasoningFile

// SourceType says what a [Source] points at.
type SourceType = provider.SourceType

// The source types.
const (
	SourceURL      = provider.SourceURL
	SourceDocument = provider.SourceDocument
)

// Source is a source the model used: a URL or a document. Its fields are
// those of [provider.Source]: SourceType, ID, URL (for URL sources),
// MediaType and Filename (for document sources), Title and
// ProviderMetadata.
type Source provider.Source

// Custom is provider-specific output identified by Kind
// ("<provider>.<type>"). Its fields are those of [provider.Custom]: Kind and
// ProviderMetadata.
type Custom provider.Custom

// ToolCall is a tool call of the model, after parsing and validation.
type ToolCall struct {
	ToolCallID string
	ToolName   string
	// Input is the call's input as JSON. For an invalid call whose input is
	// not JSON, it is the input text as a JSON string.
	Input json.RawMessage
	// ProviderExecuted is true when the provider runs the tool.
	ProviderExecuted bool
	// Dynamic is true for calls of dynamic tools and for invalid calls.
	Dynamic bool
	// Invalid is true when the call could not be used: an unknown tool,
	// input that is not JSON or does not match the schema. Error says why.
	Invalid          bool
	ProviderMetadata ProviderMetadata
	Error            error
	// Title is the deprecated title of the tool.
	Title string
	// ToolMetadata is the tool's Metadata.
	ToolMetadata map[string]any

	// value is the decoded input handed to the tool's callbacks.
	value any
	// resume is set when the call resumes a paused code mode program.
	resume *codeResume
}

// ToolResult is the successful result of a tool call.
type ToolResult struct {
	ToolCallID string
	ToolName   string
	Input      json.RawMessage
	// Output is the value the tool returned (for provider-executed tools,
	// the provider's JSON).
	Output           any
	ProviderExecuted bool
	Dynamic          bool
	// Preliminary is true for intermediate results streamed by
	// [StreamText]; the final result follows.
	Preliminary      bool
	ToolMetadata     map[string]any
	ProviderMetadata ProviderMetadata

	// outputJSON is Output encoded for the model when the tool ran here.
	outputJSON json.RawMessage
}

// ToolError is a failed tool call: an invalid call, an error or panic in
// the tool, or an error result of a provider-executed tool.
type ToolError struct {
	ToolCallID       string
	ToolName         string
	Input            json.RawMessage
	Error            error
	ProviderExecuted bool
	Dynamic          bool
	ToolMetadata     map[string]any
	ProviderMetadata ProviderMetadata
}

// ToolApprovalRequest records that a tool call needs approval. When
// IsAutomatic is set a policy already decided and a [ToolApprovalResponse]
// follows.
type ToolApprovalRequest struct {
	ApprovalID  string
	ToolCall    ToolCall
	Reason      string
	IsAutomatic bool
	Signature   string
}

// ToolApprovalResponse records a decision on a [ToolApprovalRequest].
type ToolApprovalResponse struct {
	ApprovalID       string
	ToolCall         ToolCall
	Approved         bool
	Reason           string
	ProviderExecuted bool
}

// ContentType returns "text".
func (Text) ContentType() string { return "text" }

// ContentType returns "reasoning".
func (Reasoning) ContentType() string { return "reasoning" }

// ContentType returns "file".
func (File) ContentType() string { return "file" }

// ContentType returns "reasoning-file".
func (ReasoningFile) ContentType() string { return "reasoning-file" }

// ContentType returns "source".
func (Source) ContentType() string { return "source" }

// ContentType returns "custom".
func (Custom) ContentType() string { return "custom" }

// ContentType returns "tool-call".
func (ToolCall) ContentType() string { return "tool-call" }

// ContentType returns "tool-result".
func (ToolResult) ContentType() string { return "tool-result" }

// ContentType returns "tool-error".
func (ToolError) ContentType() string { return "tool-error" }

// ContentType returns "tool-approval-request".
func (ToolApprovalRequest) ContentType() string { return "tool-approval-request" }

// ContentType returns "tool-approval-response".
func (ToolApprovalResponse) ContentType() string { return "tool-approval-response" }

func (Text) isContentPart()                 {}
func (Reasoning) isContentPart()            {}
func (File) isContentPart()                 {}
func (ReasoningFile) isContentPart()        {}
func (Source) isContentPart()               {}
func (Custom) isContentPart()               {}
func (ToolCall) isContentPart()             {}
func (ToolResult) isContentPart()           {}
func (ToolError) isContentPart()            {}
func (ToolApprovalRequest) isContentPart()  {}
func (ToolApprovalResponse) isContentPart() {}

// MarshalJSON writes the part in the TypeScript AI SDK's shape.
func (c Text) MarshalJSON() ([]byte, error) { return provider.Text(c).MarshalJSON() }

// MarshalJSON writes the part in the TypeScript AI SDK's shape.
func (c Reasoning) MarshalJSON() ([]byte, error) { return provider.Reasoning(c).MarshalJSON() }

// MarshalJSON writes the part in the TypeScript AI SDK's shape.
func (c File) MarshalJSON() ([]byte, error) { return provider.File(c).MarshalJSON() }

// MarshalJSON writes the part in the TypeScript AI SDK's shape.
func (c ReasoningFile) MarshalJSON() ([]byte, error) { return provider.ReasoningFile(c).MarshalJSON() }

// MarshalJSON writes the part in the TypeScript AI SDK's shape.
func (c Source) MarshalJSON() ([]byte, error) { return provider.Source(c).MarshalJSON() }

// MarshalJSON writes the part in the TypeScript AI SDK's shape.
func (c Custom) MarshalJSON() ([]byte, error) { return provider.Custom(c).MarshalJSON() }

// MarshalJSON writes the call in the TypeScript AI SDK's shape.
func (c ToolCall) MarshalJSON() ([]byte, error) {
	var errText *string
	if c.Error != nil {
		s := c.Error.Error()
		errText = &s
	}
	return json.Marshal(struct {
		Type             string           `json:"type"`
		ToolCallID       string           `json:"toolCallId"`
		ToolName         string           `json:"toolName"`
		Input            json.RawMessage  `json:"input"`
		ProviderExecuted bool             `json:"providerExecuted,omitempty"`
		Dynamic          bool             `json:"dynamic,omitempty"`
		Invalid          bool             `json:"invalid,omitempty"`
		Error            *string          `json:"error,omitempty"`
		Title            string           `json:"title,omitempty"`
		ToolMetadata     map[string]any   `json:"toolMetadata,omitempty"`
		ProviderMetadata ProviderMetadata `json:"providerMetadata,omitempty"`
	}{"tool-call", c.ToolCallID, c.ToolName, wirejson.OrNull(c.Input), c.ProviderExecuted, c.Dynamic, c.Invalid, errText, c.Title, c.ToolMetadata, c.ProviderMetadata})
}

// toolOutcomeJSON is the shape of a tool's outcome: a result has an output
// (null when there is none), an error has the error's message.
type toolOutcomeJSON struct {
	Type             string           `json:"type"`
	ToolCallID       string           `json:"toolCallId"`
	ToolName         string           `json:"toolName"`
	Input            json.RawMessage  `json:"input"`
	Output           any              `json:"output,omitempty"`
	Error            *string          `json:"error,omitempty"`
	ProviderExecuted bool             `json:"providerExecuted,omitempty"`
	Dynamic          bool             `json:"dynamic"`
	Preliminary      bool             `json:"preliminary,omitempty"`
	ToolMetadata     map[string]any   `json:"toolMetadata,omitempty"`
	ProviderMetadata ProviderMetadata `json:"providerMetadata,omitempty"`
}

// MarshalJSON writes the result in the TypeScript AI SDK's shape.
func (r ToolResult) MarshalJSON() ([]byte, error) {
	var output any = r.Output
	if r.outputJSON != nil {
		output = r.outputJSON
	}
	if output == nil {
		output = wirejson.OrNull(nil)
	}
	return json.Marshal(toolOutcomeJSON{Type: "tool-result", ToolCallID: r.ToolCallID, ToolName: r.ToolName,
		Input: wirejson.OrNull(r.Input), Output: output, ProviderExecuted: r.ProviderExecuted, Dynamic: r.Dynamic,
		Preliminary: r.Preliminary, ToolMetadata: r.ToolMetadata, ProviderMetadata: r.ProviderMetadata})
}

// MarshalJSON writes the error in the TypeScript AI SDK's shape, the error
// as its message.
func (e ToolError) MarshalJSON() ([]byte, error) {
	msg := errorText(e.Error)
	return json.Marshal(toolOutcomeJSON{Type: "tool-error", ToolCallID: e.ToolCallID, ToolName: e.ToolName,
		Input: wirejson.OrNull(e.Input), Error: &msg, ProviderExecuted: e.ProviderExecuted, Dynamic: e.Dynamic,
		ToolMetadata: e.ToolMetadata, ProviderMetadata: e.ProviderMetadata})
}

// MarshalJSON writes the request in the TypeScript AI SDK's shape.
func (r ToolApprovalRequest) MarshalJSON() ([]byte, error) {
	return json.Marshal(struct {
		Type        string   `json:"type"`
		ApprovalID  string   `json:"approvalId"`
		ToolCall    ToolCall `json:"toolCall"`
		Reason      string   `json:"reason,omitempty"`
		IsAutomatic bool     `json:"isAutomatic,omitempty"`
		Signature   string   `json:"signature,omitempty"`
	}{"tool-approval-request", r.ApprovalID, r.ToolCall, r.Reason, r.IsAutomatic, r.Signature})
}

// MarshalJSON writes the response in the TypeScript AI SDK's shape.
func (r ToolApprovalResponse) MarshalJSON() ([]byte, error) {
	return json.Marshal(struct {
		Type             string   `json:"type"`
		ApprovalID       string   `json:"approvalId"`
		ToolCall         ToolCall `json:"toolCall"`
		Approved         bool     `json:"approved"`
		Reason           string   `json:"reason,omitempty"`
		ProviderExecuted bool     `json:"providerExecuted,omitempty"`
	}{"tool-approval-response", r.ApprovalID, r.ToolCall, r.Approved, r.Reason, r.ProviderExecuted})
}

// FinishReason is the provider-independent reason a model stopped.
type FinishReason = provider.FinishReasonKind

// The finish reasons; see [provider.FinishReasonKind].
const (
	FinishStop          = provider.FinishStop
	FinishLength        = provider.FinishLength
	FinishContentFilter = provider.FinishContentFilter
	FinishToolCalls     = provider.FinishToolCalls
	FinishError         = provider.FinishError
	FinishInterrupted   = provider.FinishInterrupted
	FinishOther         = provider.FinishOther
)

// Usage counts the tokens of a step or a whole generation. Counts the
// provider did not report are nil.
type Usage struct {
	InputTokens        *int               `json:"inputTokens,omitempty"`
	InputTokenDetails  InputTokenDetails  `json:"inputTokenDetails"`
	OutputTokens       *int               `json:"outputTokens,omitempty"`
	OutputTokenDetails OutputTokenDetails `json:"outputTokenDetails"`
	// TotalTokens is InputTokens plus OutputTokens.
	TotalTokens *int `json:"totalTokens,omitempty"`
	// Raw is the provider's own usage object (for a sum of several steps,
	// only when a single step reported one).
	Raw json.RawMessage `json:"raw,omitempty"`
}

// InputTokenDetails splits the input tokens by cache use.
type InputTokenDetails struct {
	NoCacheTokens    *int `json:"noCacheTokens,omitempty"`
	CacheReadTokens  *int `json:"cacheReadTokens,omitempty"`
	CacheWriteTokens *int `json:"cacheWriteTokens,omitempty"`
}

// OutputTokenDetails splits the output tokens.
type OutputTokenDetails struct {
	TextTokens      *int `json:"textTokens,omitempty"`
	ReasoningTokens *int `json:"reasoningTokens,omitempty"`
}

// usageFrom converts provider usage. When both input and output totals are
// known, their sum is stored in *total, which TotalTokens points at.
func usageFrom(u provider.Usage, total *int) Usage {
	t := u.InputTokens.Total
	if t == nil {
		t = u.OutputTokens.Total
	} else if u.OutputTokens.Total != nil {
		*total = *u.InputTokens.Total + *u.OutputTokens.Total
		t = total
	}
	return Usage{
		InputTokens: u.InputTokens.Total,
		InputTokenDetails: InputTokenDetails{
			NoCacheTokens:    u.InputTokens.NoCache,
			CacheReadTokens:  u.InputTokens.CacheRead,
			CacheWriteTokens: u.InputTokens.CacheWrite,
		},
		OutputTokens: u.OutputTokens.Total,
		OutputTokenDetails: OutputTokenDetails{
			TextTokens:      u.OutputTokens.Text,
			ReasoningTokens: u.OutputTokens.Reasoning,
		},
		TotalTokens: t,
		Raw:         u.Raw,
	}
}

// addCounts adds two optional counts: nil when both are nil, a missing one
// counting as zero otherwise.
func addCounts(a, b *int) *int {
	if a == nil && b == nil {
		return nil
	}
	n := 0
	if a != nil {
		n += *a
	}
	if b != nil {
		n += *b
	}
	return &n
}

// Add returns the sum of u and v.
func (u Usage) Add(v Usage) Usage {
	s := Usage{
		InputTokens: addCounts(u.InputTokens, v.InputTokens),
		InputTokenDetails: InputTokenDetails{
			NoCacheTokens:    addCounts(u.InputTokenDetails.NoCacheTokens, v.InputTokenDetails.NoCacheTokens),
			CacheReadTokens:  addCounts(u.InputTokenDetails.CacheReadTokens, v.InputTokenDetails.CacheReadTokens),
			CacheWriteTokens: addCounts(u.InputTokenDetails.CacheWriteTokens, v.InputTokenDetails.CacheWriteTokens),
		},
		OutputTokens: addCounts(u.OutputTokens, v.OutputTokens),
		OutputTokenDetails: OutputTokenDetails{
			TextTokens:      addCounts(u.OutputTokenDetails.TextTokens, v.OutputTokenDetails.TextTokens),
			ReasoningTokens: addCounts(u.OutputTokenDetails.ReasoningTokens, v.OutputTokenDetails.ReasoningTokens),
		},
		TotalTokens: addCounts(u.TotalTokens, v.TotalTokens),
	}
	switch {
	case u.isEmpty():
		s.Raw = v.Raw
	case v.isEmpty():
		s.Raw = u.Raw
	}
	return s
}

func (u Usage) isEmpty() bool {
	return u.InputTokens == nil && u.OutputTokens == nil && u.TotalTokens == nil &&
		u.InputTokenDetails == (InputTokenDetails{}) && u.OutputTokenDetails == (OutputTokenDetails{}) && u.Raw == nil
}

// usageSum accumulates step usage without allocating per step.
type usageSum struct {
	n        [8]int
	set      [8]bool
	raw      json.RawMessage
	nonEmpty int // steps that reported anything
}

func (a *usageSum) add(u Usage) {
	fields := [8]*int{u.InputTokens, u.InputTokenDetails.NoCacheTokens, u.InputTokenDetails.CacheReadTokens,
		u.InputTokenDetails.CacheWriteTokens, u.OutputTokens, u.OutputTokenDetails.TextTokens,
		u.OutputTokenDetails.ReasoningTokens, u.TotalTokens}
	for i, f := range fields {
		if f != nil {
			a.n[i] += *f
			a.set[i] = true
		}
	}
	// Like Add: the raw usage survives only while a single step reported.
	if !u.isEmpty() {
		a.nonEmpty++
		a.raw = u.Raw
		if a.nonEmpty > 1 {
			a.raw = nil
		}
	}
}

// usage returns the sum; its counts are stored in block, which the
// returned usage points into.
func (a *usageSum) usage(block *[8]int) Usage {
	ptr := func(i int) *int {
		if !a.set[i] {
			return nil
		}
		block[i] = a.n[i]
		return &block[i]
	}
	return Usage{
		InputTokens: ptr(0),
		InputTokenDetails: InputTokenDetails{
			NoCacheTokens: ptr(1), CacheReadTokens: ptr(2), CacheWriteTokens: ptr(3),
		},
		OutputTokens:       ptr(4),
		OutputTokenDetails: OutputTokenDetails{TextTokens: ptr(5), ReasoningTokens: ptr(6)},
		TotalTokens:        ptr(7),
		Raw:                a.raw,
	}
}
