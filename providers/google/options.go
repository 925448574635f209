package google

import (
	"encoding/json"
	"fmt"

	"github.com/aisdkgo/ai/provider"
)

// Options are the Google settings of one language model call. Pass them as
// CallOptions.ProviderOptions["google"] (on Vertex AI also "googleVertex"
// or "vertex"), most easily through [Options.ProviderOptions]; a plain map
// with the same camelCase keys works as well.
type Options struct {
	// ResponseModalities are the kinds of output: "TEXT", "IMAGE", "AUDIO".
	ResponseModalities []string `json:"responseModalities,omitempty"`
	// ThinkingConfig sets the reasoning of thinking models; it takes
	// precedence over [provider.CallOptions.Reasoning].
	ThinkingConfig *ThinkingConfig `json:"thinkingConfig,omitempty"`
	// CachedContent names cached context to use, "cachedContents/{id}".
	CachedContent string `json:"cachedContent,omitempty"`
	// StructuredOutputs false stops sending the JSON schema of a JSON
	// response format (only the JSON media type is requested); nil means
	// true.
	StructuredOutputs *bool `json:"structuredOutputs,omitempty"`
	// SafetySettings are the safety thresholds by harm category.
	SafetySettings []SafetySetting `json:"safetySettings,omitempty"`
	// Threshold sets one threshold (for example "BLOCK_ONLY_HIGH") for the
	// hate speech, dangerous content, harassment and sexually explicit
	// categories; SafetySettings takes precedence.
	Threshold string `json:"threshold,omitempty"`
	// AudioTimestamp enables timestamps in audio understanding.
	AudioTimestamp bool `json:"audioTimestamp,omitempty"`
	// Labels are billing labels (Vertex AI).
	Labels map[string]string `json:"labels,omitempty"`
	// MediaResolution is "MEDIA_RESOLUTION_LOW", "_MEDIUM" or "_HIGH".
	MediaResolution string `json:"mediaResolution,omitempty"`
	// ImageConfig configures generated images.
	ImageConfig map[string]any `json:"imageConfig,omitempty"`
	// RetrievalConfig gives a location to Google Maps and Search grounding,
	// for example {"latLng": {"latitude": 48.8, "longitude": 2.3}}.
	RetrievalConfig map[string]any `json:"retrievalConfig,omitempty"`
	// StreamFunctionCallArguments streams function-call arguments as they
	// are generated (Vertex AI, Gemini 3 and later, streaming calls only).
	StreamFunctionCallArguments bool `json:"streamFunctionCallArguments,omitempty"`
	// ServiceTier is "standard", "flex" or "priority" (Gemini API only).
	ServiceTier string `json:"serviceTier,omitempty"`
	// ContinuationToken resumes a response that stopped at its token budget
	// (the continuationToken of its provider metadata).
	ContinuationToken string `json:"continuationToken,omitempty"`
	// SharedRequestType ("priority", "flex", "standard") and RequestType
	// ("shared") select Vertex AI's pay-as-you-go tiers; they are sent as
	// headers.
	SharedRequestType string `json:"sharedRequestType,omitempty"`
	RequestType       string `json:"requestType,omitempty"`
}

// ThinkingConfig configures thinking.
type ThinkingConfig struct {
	// ThinkingBudget is a token budget (Gemini 2.5): 0 turns thinking off
	// where the model allows it, -1 lets the model decide.
	ThinkingBudget *int `json:"thinkingBudget,omitempty"`
	// ThinkingLevel is "minimal", "low", "medium", "high" or "xhigh"
	// (Gemini 3).
	ThinkingLevel string `json:"thinkingLevel,omitempty"`
	// IncludeThoughts asks for thought summaries, which arrive as
	// reasoning.
	IncludeThoughts *bool `json:"includeThoughts,omitempty"`
}

// SafetySetting is the threshold of one harm category, for example
// {"HARM_CATEGORY_HARASSMENT", "BLOCK_NONE"}.
type SafetySetting struct {
	Category  string `json:"category"`
	Threshold string `json:"threshold"`
}

// ProviderOptions returns o as call provider options under "google".
func (o Options) ProviderOptions() provider.ProviderOptions {
	b, _ := json.Marshal(o)
	m := map[string]any{}
	_ = json.Unmarshal(b, &m)
	return provider.ProviderOptions{"google": m}
}

// EmbeddingOptions are the Google settings of an embedding call, passed
// like [Options].
type EmbeddingOptions struct {
	// OutputDimensionality shortens the embeddings; it takes precedence over
	// the call's dimensions.
	OutputDimensionality int `json:"outputDimensionality,omitempty"`
	// TaskType tunes the embeddings for a use: "SEMANTIC_SIMILARITY",
	// "CLASSIFICATION", "CLUSTERING", "RETRIEVAL_DOCUMENT",
	// "RETRIEVAL_QUERY", "QUESTION_ANSWERING", "FACT_VERIFICATION" or
	// "CODE_RETRIEVAL_QUERY".
	TaskType string `json:"taskType,omitempty"`
	// Title is the title of the documents embedded with
	// RETRIEVAL_DOCUMENT (Vertex AI).
	Title string `json:"title,omitempty"`
	// AutoTruncate false makes over-long input an error instead of being
	// cut (Vertex AI).
	AutoTruncate *bool `json:"autoTruncate,omitempty"`
}

// ProviderOptions returns o as provider options under "google".
func (o EmbeddingOptions) ProviderOptions() provider.ProviderOptions {
	b, _ := json.Marshal(o)
	m := map[string]any{}
	_ = json.Unmarshal(b, &m)
	return provider.ProviderOptions{"google": m}
}

// InvalidOptionsError reports provider options that do not have the shape
// this provider expects.
type InvalidOptionsError struct {
	Message string
}

// Error implements the error interface.
func (e *InvalidOptionsError) Error() string { return "google: " + e.Message }

// decodeOptions reads the first of keys present in opts into v.
func decodeOptions(opts provider.ProviderOptions, keys []string, v any) (found bool, err error) {
	for _, k := range keys {
		m := opts[k]
		if m == nil {
			continue
		}
		b, err := json.Marshal(m)
		if err != nil {
			return true, &InvalidOptionsError{Message: fmt.Sprintf("the %q provider options cannot be encoded: %v", k, err)}
		}
		if err := json.Unmarshal(b, v); err != nil {
			return true, &InvalidOptionsError{Message: fmt.Sprintf("the %q provider options do not have the expected shape: %v", k, err)}
		}
		return true, nil
	}
	return false, nil
}
