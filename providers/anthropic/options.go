package anthropic

import (
	"fmt"

	"github.com/aisdkgo/ai/provider"
)

// providerName is the key of this provider's settings in
// [provider.ProviderOptions] and [provider.ProviderMetadata].
const providerName = "anthropic"

// MessagesOptions are the Anthropic settings of one model call. Pass them as
// CallOptions.ProviderOptions["anthropic"], most easily through
// [MessagesOptions.ProviderOptions]; a plain map with the same camelCase keys
// works as well. See the package documentation for what each key does.
type MessagesOptions struct {
	// Thinking configures extended thinking.
	Thinking *Thinking `json:"thinking,omitempty"`
	// Effort is "low", "medium", "high", "xhigh" or "max"; it is sent as
	// output_config.effort.
	Effort string `json:"effort,omitempty"`
	// DisableParallelToolUse makes the model call at most one tool per turn.
	DisableParallelToolUse *bool `json:"disableParallelToolUse,omitempty"`
	// SendReasoning controls whether reasoning parts of the prompt are sent
	// back as thinking blocks; nil means true.
	SendReasoning *bool `json:"sendReasoning,omitempty"`
	// StructuredOutputMode is "outputFormat", "jsonTool" or "auto" (the
	// default): how a JSON response format is requested.
	StructuredOutputMode string `json:"structuredOutputMode,omitempty"`
	// CacheControl turns on automatic prompt caching for the whole request.
	CacheControl *CacheControl `json:"cacheControl,omitempty"`
	// Metadata is sent as the request metadata.
	Metadata *Metadata `json:"metadata,omitempty"`
	// ToolStreaming controls fine-grained streaming of tool inputs in
	// streaming calls; nil means true.
	ToolStreaming *bool `json:"toolStreaming,omitempty"`
	// AnthropicBeta lists extra beta features for the anthropic-beta header.
	AnthropicBeta []string `json:"anthropicBeta,omitempty"`
	// Container selects a code execution container and agent skills.
	Container *Container `json:"container,omitempty"`
	// MCPServers are remote MCP servers the model may call.
	MCPServers []MCPServer `json:"mcpServers,omitempty"`
	// ContextManagement configures server-side context editing.
	ContextManagement *ContextManagement `json:"contextManagement,omitempty"`
	// Speed is "fast" or "standard".
	Speed string `json:"speed,omitempty"`
	// InferenceGeo is "us" or "global".
	InferenceGeo string `json:"inferenceGeo,omitempty"`
	// TaskBudget tells the model the token budget of an agentic task.
	TaskBudget *TaskBudget `json:"taskBudget,omitempty"`
}

// Thinking configures extended thinking.
type Thinking struct {
	// Type is "enabled" (with a budget), "adaptive", "disabled" or
	// "between_tools".
	Type string `json:"type"`
	// BudgetTokens is the thinking budget of type "enabled"; it is added to
	// max_tokens. Nil means 1024.
	BudgetTokens *int `json:"budgetTokens,omitempty"`
	// Display is "omitted", "summarized" or "updates" for adaptive thinking.
	Display string `json:"display,omitempty"`
}

// CacheControl marks a prompt cache breakpoint. Type is "ephemeral"; TTL is
// "5m" (the default when empty) or "1h".
type CacheControl struct {
	Type string `json:"type"`
	TTL  string `json:"ttl,omitempty"`
}

// Metadata is request metadata. UserID is an opaque identifier of the end
// user.
type Metadata struct {
	UserID string `json:"userId,omitempty"`
}

// Container selects a code execution container (ID) and the agent skills
// loaded into it.
type Container struct {
	ID     string  `json:"id,omitempty"`
	Skills []Skill `json:"skills,omitempty"`
}

// Skill is an agent skill: Type is "anthropic" or "custom".
type Skill struct {
	Type    string `json:"type"`
	SkillID string `json:"skillId"`
	Version string `json:"version,omitempty"`
}

// MCPServer is a remote MCP server reachable by URL.
type MCPServer struct {
	// Type is "url".
	Type               string                `json:"type"`
	Name               string                `json:"name"`
	URL                string                `json:"url"`
	AuthorizationToken *string               `json:"authorizationToken,omitempty"`
	ToolConfiguration  *MCPToolConfiguration `json:"toolConfiguration,omitempty"`
}

// MCPToolConfiguration limits the tools of an [MCPServer].
type MCPToolConfiguration struct {
	Enabled      *bool    `json:"enabled,omitempty"`
	AllowedTools []string `json:"allowedTools,omitempty"`
}

// ContextManagement lists server-side context edits.
type ContextManagement struct {
	Edits []ContextEdit `json:"edits"`
}

// ContextEdit is one context editing strategy. Type is
// "clear_tool_uses_20250919", "clear_thinking_20251015" or
// "compact_20260112"; the other fields apply to some types only.
type ContextEdit struct {
	Type string `json:"type"`
	// Trigger says when the edit applies, e.g. {Type: "input_tokens",
	// Value: 30000}.
	Trigger *TokenThreshold `json:"trigger,omitempty"`
	// Keep is {"type": "tool_uses", "value": n}, {"type": "thinking_turns",
	// "value": n} or the string "all".
	Keep any `json:"keep,omitempty"`
	// ClearAtLeast is the least number of input tokens to clear.
	ClearAtLeast         *TokenThreshold `json:"clearAtLeast,omitempty"`
	ClearToolInputs      *bool           `json:"clearToolInputs,omitempty"`
	ExcludeTools         []string        `json:"excludeTools,omitempty"`
	PauseAfterCompaction *bool           `json:"pauseAfterCompaction,omitempty"`
	Instructions         string          `json:"instructions,omitempty"`
}

// TokenThreshold is a threshold such as {Type: "input_tokens", Value: 1000}.
type TokenThreshold struct {
	Type  string  `json:"type"`
	Value float64 `json:"value"`
}

// TaskBudget is the token budget of an agentic task. Type is "tokens".
type TaskBudget struct {
	Type      string `json:"type"`
	Total     int    `json:"total"`
	Remaining *int   `json:"remaining,omitempty"`
}

// ProviderOptions returns o as call provider options under "anthropic".
func (o MessagesOptions) ProviderOptions() provider.ProviderOptions {
	return asProviderOptions(o)
}

// ToolOptions are the Anthropic settings of one function tool, passed as the
// tool's ProviderOptions["anthropic"].
type ToolOptions struct {
	// DeferLoading keeps the tool out of the model's context until a tool
	// search tool finds it.
	DeferLoading *bool `json:"deferLoading,omitempty"`
	// AllowedCallers lists who may call the tool: "direct",
	// "code_execution_20250825", "code_execution_20260120".
	AllowedCallers []string `json:"allowedCallers,omitempty"`
	// EagerInputStreaming overrides the call's ToolStreaming setting.
	EagerInputStreaming *bool `json:"eagerInputStreaming,omitempty"`
	// CacheControl sets a cache breakpoint on the tool definition.
	CacheControl *CacheControl `json:"cacheControl,omitempty"`
}

// ProviderOptions returns o as tool provider options under "anthropic".
func (o ToolOptions) ProviderOptions() provider.ProviderOptions {
	return asProviderOptions(o)
}

// DeferLoading returns tool provider options that mark a function tool as
// deferred: {"anthropic": {"deferLoading": true}}. A deferred tool is only
// loaded when a tool search tool ([ToolSearchRegex], [ToolSearchBM25])
// finds it.
func DeferLoading() provider.ProviderOptions {
	yes := true
	return ToolOptions{DeferLoading: &yes}.ProviderOptions()
}

// CacheBreakpoint returns provider options that set a prompt cache
// breakpoint: {"anthropic": {"cacheControl": {"type": "ephemeral", "ttl":
// ttl}}}. ttl is "5m", "1h" or empty for the default. They apply to system
// messages, message parts, whole messages, tool results and function tools.
func CacheBreakpoint(ttl string) provider.ProviderOptions {
	cc := map[string]any{"type": "ephemeral"}
	if ttl != "" {
		cc["ttl"] = ttl
	}
	return provider.ProviderOptions{providerName: {"cacheControl": cc}}
}

func asProviderOptions(v any) provider.ProviderOptions {
	var m map[string]any
	if !decodeInto(v, &m) || m == nil {
		m = map[string]any{}
	}
	return provider.ProviderOptions{providerName: m}
}

// anthropicOptions returns the "anthropic" entry of opts, or nil.
func anthropicOptions(opts provider.ProviderOptions) map[string]any {
	if opts == nil {
		return nil
	}
	return opts[providerName]
}

// parseMessagesOptions reads the call's provider options.
func parseMessagesOptions(opts provider.ProviderOptions) (MessagesOptions, error) {
	var o MessagesOptions
	m := anthropicOptions(opts)
	if m == nil {
		return o, nil
	}
	if !decodeInto(m, &o) {
		return o, &InvalidOptionsError{Message: fmt.Sprintf("the %q provider options do not have the expected shape", providerName)}
	}
	return o, nil
}

// InvalidOptionsError reports provider options that do not have the shape
// this provider expects.
type InvalidOptionsError struct {
	Message string
}

// Error implements the error interface.
func (e *InvalidOptionsError) Error() string { return "anthropic: " + e.Message }
