package openai

import "encoding/json"

// responsesOptions are the provider options of Responses API calls, read
// from ProviderOptions["openai"]. The package documentation lists them.
type responsesOptions struct {
	Conversation                *string         `json:"conversation"`
	Include                     []string        `json:"include"`
	Instructions                *string         `json:"instructions"`
	Logprobs                    json.RawMessage `json:"logprobs"`
	MaxToolCalls                *int            `json:"maxToolCalls"`
	Metadata                    any             `json:"metadata"`
	ParallelToolCalls           *bool           `json:"parallelToolCalls"`
	PreviousResponseID          *string         `json:"previousResponseId"`
	PromptCacheKey              *string         `json:"promptCacheKey"`
	PromptCacheOptions          *cacheOptions   `json:"promptCacheOptions"`
	PromptCacheRetention        *string         `json:"promptCacheRetention"`
	ReasoningEffort             *string         `json:"reasoningEffort"`
	ReasoningSummary            *string         `json:"reasoningSummary"`
	ReasoningMode               *string         `json:"reasoningMode"`
	ReasoningContext            *string         `json:"reasoningContext"`
	SafetyIdentifier            *string         `json:"safetyIdentifier"`
	ServiceTier                 *string         `json:"serviceTier"`
	Store                       *bool           `json:"store"`
	PassThroughUnsupportedFiles bool            `json:"passThroughUnsupportedFiles"`
	StrictJSONSchema            *bool           `json:"strictJsonSchema"`
	TextVerbosity               *string         `json:"textVerbosity"`
	Truncation                  *string         `json:"truncation"`
	User                        *string         `json:"user"`
	SystemMessageMode           *string         `json:"systemMessageMode"`
	ForceReasoning              *bool           `json:"forceReasoning"`
	AllowedTools                *allowedTools   `json:"allowedTools"`
	ContextManagement           []struct {
		Type             string `json:"type"`
		CompactThreshold *int   `json:"compactThreshold"`
	} `json:"contextManagement"`
}

type cacheOptions struct {
	ComparisonResponseID *string `json:"comparisonResponseId"`
	Mode                 *string `json:"mode"`
	TTL                  *string `json:"ttl"`
	Prewarm              *bool   `json:"prewarm"`
}

type allowedTools struct {
	ToolNames []string `json:"toolNames"`
	Mode      string   `json:"mode"`
}

// store reports whether responses are stored (the API default is true).
func (o *responsesOptions) store() bool {
	return o.Store == nil || *o.Store
}
