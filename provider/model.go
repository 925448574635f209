// Package provider is the contract between the ai package and language model
// providers.
//
// A provider implements [LanguageModel]: it turns [CallOptions] (a prompt of
// [Message] values, tool definitions, a tool choice and sampling settings)
// into a [GenerateResult] or a stream of [StreamPart] values. The package
// imports nothing else of this module, so a provider author depends on it
// alone; applications use the ai package, which drives a model through this
// contract.
//
// The unions of the contract (messages and their parts, content, stream parts,
// tool definitions, tool result outputs, file data and warnings) are closed
// interfaces: only this package adds cases, and a type switch is the natural
// way to consume them. Every union value marshals to JSON in the shape the
// TypeScript AI SDK uses (a "type" or "role" discriminator beside the fields),
// and [UnmarshalMessages] reads such JSON back.
package provider

import (
	"context"
	"encoding/json"
	"iter"
	"regexp"
	"time"
)

// LanguageModel is a language model reachable through a provider.
//
// Both methods must honour ctx: when it is cancelled, Generate returns and the
// stream returned by Stream ends (with ctx's error or an [Error] part)
// promptly, releasing any connection. The ai package calls one model value
// from many goroutines at once, so implementations must be safe for
// concurrent use. The options belong to the caller: a model must not modify
// them, and may keep what they refer to (the prompt, the tools) but not the
// *CallOptions itself once the call returned, as the caller reuses it; copy
// the struct to keep it.
type LanguageModel interface {
	// Provider names the provider, for example "openai.responses".
	Provider() string
	// ModelID names the model, for example "gpt-5".
	ModelID() string
	// Generate runs one non-streaming model call.
	Generate(ctx context.Context, opts *CallOptions) (*GenerateResult, error)
	// Stream runs one streaming model call. An error returned here means the
	// call could not start; errors after that arrive as stream values.
	Stream(ctx context.Context, opts *CallOptions) (*StreamResult, error)
}

// URLSupporter is implemented by models that accept some file URLs directly,
// so that the caller need not download them. The map goes from a media type
// pattern ("image/*", "application/pdf", "*/*") to the URL patterns the model
// reads itself.
type URLSupporter interface {
	SupportedURLs(ctx context.Context) (map[string][]*regexp.Regexp, error)
}

// CallOptions are the inputs of one model call.
//
// Optional numeric settings are pointers: nil means "not set", so a provider
// can tell an explicit zero (temperature 0) from the provider's default.
type CallOptions struct {
	// Prompt is the conversation: system, user, assistant and tool messages.
	Prompt []Message

	// MaxOutputTokens bounds the number of generated tokens.
	MaxOutputTokens *int
	// Temperature, TopP, TopK, PresencePenalty, FrequencyPenalty and Seed are
	// sampling settings, passed to the provider as given.
	Temperature      *float64
	TopP             *float64
	TopK             *int
	PresencePenalty  *float64
	FrequencyPenalty *float64
	Seed             *int
	// StopSequences end generation when produced.
	StopSequences []string

	// ResponseFormat asks for text (nil) or JSON output.
	ResponseFormat *ResponseFormat

	// Tools are the tool definitions the model may call this step, each a
	// [FunctionTool] or a [ProviderTool]. Nil when no tool is available.
	Tools []Tool
	// ToolChoice says whether and which tools the model should call. The ai
	// package always sets it (auto by default).
	ToolChoice ToolChoice

	// IncludeRawChunks asks Stream to add [Raw] parts with the provider's
	// unparsed chunks.
	IncludeRawChunks bool
	// Headers are extra HTTP headers for the request.
	Headers Header
	// Reasoning is the reasoning effort; empty means the provider's default.
	Reasoning ReasoningEffort
	// ProviderOptions carry provider-specific settings, keyed by provider name.
	ProviderOptions ProviderOptions
}

// ReasoningEffort is how much reasoning a model should do.
type ReasoningEffort string

// The reasoning efforts. The zero value means the provider's default.
const (
	ReasoningProviderDefault ReasoningEffort = ""
	ReasoningNone            ReasoningEffort = "none"
	ReasoningMinimal         ReasoningEffort = "minimal"
	ReasoningLow             ReasoningEffort = "low"
	ReasoningMedium          ReasoningEffort = "medium"
	ReasoningHigh            ReasoningEffort = "high"
	ReasoningXHigh           ReasoningEffort = "xhigh"
	ReasoningMax             ReasoningEffort = "max"
)

// ResponseFormat asks the model for a kind of output.
type ResponseFormat struct {
	// Type is "text" or "json".
	Type string `json:"type"`
	// Schema optionally constrains JSON output.
	Schema json.RawMessage `json:"schema,omitempty"`
	// Name and Description describe the expected output to the model.
	Name        string `json:"name,omitempty"`
	Description string `json:"description,omitempty"`
}

// ProviderOptions are provider-specific settings on input values: a map from
// provider name to that provider's settings object.
type ProviderOptions map[string]map[string]any

// ProviderMetadata is provider-specific data on output values, keyed like
// [ProviderOptions]. When an output part is fed back in a prompt, its
// metadata becomes the prompt part's provider options.
type ProviderMetadata = ProviderOptions

// GenerateResult is the outcome of [LanguageModel.Generate].
type GenerateResult struct {
	// Content is what the model produced, in order.
	Content []Content
	// StructuredOutputText, when set, is the text to parse for a JSON
	// response format where it differs from the text parts of Content
	// joined (for example drafts followed by a final answer). A pointer to
	// "" selects the empty text; nil means the joined text parts.
	StructuredOutputText *string
	// FinishReason says why the model stopped.
	FinishReason FinishReason
	// Usage counts the tokens of the call.
	Usage Usage
	// Warnings list settings the provider could not honour.
	Warnings []Warning
	// ProviderMetadata holds provider-specific data about the call.
	ProviderMetadata ProviderMetadata
	// Request describes the HTTP request, when the provider records it.
	Request *RequestInfo
	// Response describes the response.
	Response *ResponseInfo
}

// StreamResult is the outcome of [LanguageModel.Stream].
type StreamResult struct {
	// Stream yields the parts of the response in order. It may be ranged over
	// once. A non-nil error ends the stream; breaking out of the loop early
	// must release the underlying connection.
	Stream iter.Seq2[StreamPart, error]
	// Request describes the HTTP request, when the provider records it.
	Request *RequestInfo
	// Response describes the response headers, when known.
	Response *ResponseInfo
}

// RequestInfo describes a request that was sent.
type RequestInfo struct {
	URL  string          `json:"url,omitempty"`
	Body json.RawMessage `json:"body,omitempty"`
}

// ResponseInfo describes a response.
type ResponseInfo struct {
	// ID is the provider's response id.
	ID string `json:"id,omitempty"`
	// Timestamp is when the response was created.
	Timestamp time.Time `json:"timestamp,omitzero"`
	// ModelID is the model that answered.
	ModelID string `json:"modelId,omitempty"`
	// Headers are the HTTP response headers.
	Headers Header `json:"headers,omitempty"`
	// Body is the raw response body of a non-streaming call.
	Body json.RawMessage `json:"body,omitempty"`
}
