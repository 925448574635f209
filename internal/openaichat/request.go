package openaichat

import (
	"encoding/json"
	"fmt"
	"reflect"
	"slices"
	"strings"

	"github.com/aisdkgo/ai/provider"
)

// chatOptions are the provider options a Chat Completions model understands.
type chatOptions struct {
	User                 *string            `json:"user"`
	ReasoningEffort      *string            `json:"reasoningEffort"`
	TextVerbosity        *string            `json:"textVerbosity"`
	StrictJSONSchema     *bool              `json:"strictJsonSchema"`
	LogitBias            map[string]float64 `json:"logitBias"`
	Logprobs             json.RawMessage    `json:"logprobs"`
	ParallelToolCalls    *bool              `json:"parallelToolCalls"`
	MaxCompletionTokens  *int               `json:"maxCompletionTokens"`
	Store                *bool              `json:"store"`
	Metadata             map[string]string  `json:"metadata"`
	Prediction           map[string]any     `json:"prediction"`
	ServiceTier          *string            `json:"serviceTier"`
	PromptCacheKey       *string            `json:"promptCacheKey"`
	PromptCacheOptions   map[string]any     `json:"promptCacheOptions"`
	PromptCacheRetention *string            `json:"promptCacheRetention"`
	SafetyIdentifier     *string            `json:"safetyIdentifier"`
	SystemMessageMode    *string            `json:"systemMessageMode"`
	ForceReasoning       *bool              `json:"forceReasoning"`
}

// compatibleOptionNames are the options understood without OpenAIOptions.
var compatibleOptionNames = []string{"user", "reasoningEffort", "textVerbosity", "strictJsonSchema"}

// preparedCall is a request body with the warnings collected building it.
type preparedCall struct {
	body     map[string]any
	warnings []provider.Warning
	metaKey  string
	// partKey is the provider options key read on prompt parts.
	partKey string
}

func (m *Model) known(name string) bool {
	return m.s.OpenAIOptions || slices.Contains(compatibleOptionNames, name)
}

// readOptions merges the call's provider options for this model.
func (m *Model) readOptions(po provider.ProviderOptions) (o chatOptions, reasoningNull bool, extras map[string]any, warnings []provider.Warning, err error) {
	merged := map[string]any{}
	for _, key := range m.s.DeprecatedOptionKeys {
		if opts, ok := po[key]; ok && opts != nil {
			warnings = append(warnings, provider.Warning{Type: "other",
				Message: fmt.Sprintf("the provider options key %q is deprecated; use %q", key, m.firstOptionKey())})
			for k, v := range opts {
				if m.known(k) {
					merged[k] = v
				}
			}
		}
	}
	for _, key := range m.s.OptionKeys {
		for k, v := range po[key] {
			if m.known(k) {
				merged[k] = v
			}
		}
	}
	for _, key := range m.s.PassThroughKeys {
		for k, v := range po[key] {
			if !m.known(k) {
				if extras == nil {
					extras = map[string]any{}
				}
				extras[k] = v
			}
		}
	}
	if v, ok := merged["reasoningEffort"]; ok && v == nil {
		reasoningNull = true
	}
	if err := decodeMap(merged, &o); err != nil {
		return o, false, nil, nil, fmt.Errorf("invalid %s provider options: %w", m.firstOptionKey(), err)
	}
	return o, reasoningNull, extras, warnings, nil
}

func (m *Model) firstOptionKey() string {
	if len(m.s.OptionKeys) > 0 {
		return m.s.OptionKeys[0]
	}
	return "openai"
}

// prepare builds the request body for opts.
func (m *Model) prepare(opts *provider.CallOptions, stream bool) (*preparedCall, error) {
	o, reasoningNull, extras, warnings, err := m.readOptions(opts.ProviderOptions)
	if err != nil {
		return nil, err
	}
	call := &preparedCall{metaKey: m.metadataKey(opts), partKey: m.firstOptionKey()}
	caps := Capabilities{}
	if m.s.ModelRules {
		caps = ModelCapabilities(m.s.ModelID)
		if o.ForceReasoning != nil {
			caps.ReasoningModel = *o.ForceReasoning
		}
	}

	effort := ""
	if o.ReasoningEffort != nil {
		effort = *o.ReasoningEffort
	} else if opts.Reasoning != provider.ReasoningProviderDefault {
		if m.s.ModelRules && !caps.ReasoningModel {
			warnings = append(warnings, provider.Warning{Type: "unsupported", Feature: "reasoning",
				Details: "reasoning effort is only supported by reasoning models"})
		} else {
			effort = string(opts.Reasoning)
		}
	}
	if effort != "" && caps.ReasoningEfforts != nil && !slices.Contains(caps.ReasoningEfforts, effort) {
		warnings = append(warnings, provider.Warning{Type: "unsupported", Feature: "reasoningEffort",
			Details: m.s.ModelID + " only supports the following reasoning efforts: " + strings.Join(caps.ReasoningEfforts, ", ")})
		effort = ""
	}

	if opts.TopK != nil {
		warnings = append(warnings, provider.Warning{Type: "unsupported", Feature: "topK"})
	}

	systemMode := "system"
	if caps.ReasoningModel {
		systemMode = "developer"
	}
	if o.SystemMessageMode != nil {
		systemMode = *o.SystemMessageMode
	}
	messages, msgWarnings, err := m.convertMessages(opts.Prompt, systemMode, call.partKey)
	if err != nil {
		return nil, err
	}
	warnings = append(warnings, msgWarnings...)

	body := map[string]any{"model": m.s.ModelID}
	put := func(key string, v any) {
		if !IsNil(v) {
			body[key] = v
		}
	}
	put("user", o.User)
	put("max_tokens", opts.MaxOutputTokens)
	put("temperature", opts.Temperature)
	put("top_p", opts.TopP)
	put("frequency_penalty", opts.FrequencyPenalty)
	put("presence_penalty", opts.PresencePenalty)
	if rf := opts.ResponseFormat; rf != nil && rf.Type == "json" {
		if len(rf.Schema) > 0 && m.s.StructuredOutputs {
			strict := true
			if o.StrictJSONSchema != nil {
				strict = *o.StrictJSONSchema
			}
			name := rf.Name
			if name == "" {
				name = "response"
			}
			// OpenAI gets the schema prepared for its API; other servers
			// get it as given.
			schema := rf.Schema
			if m.s.OpenAIOptions {
				var schemaWarnings []provider.Warning
				var err error
				if schema, schemaWarnings, err = ResponseSchema(schema); err != nil {
					return nil, err
				}
				warnings = append(warnings, schemaWarnings...)
				if strict {
					var strictWarnings []provider.Warning
					schema, strictWarnings = StrictSchema(schema)
					warnings = append(warnings, strictWarnings...)
				}
			}
			js := map[string]any{"schema": schema, "strict": strict, "name": name}
			if rf.Description != "" {
				js["description"] = rf.Description
			}
			body["response_format"] = map[string]any{"type": "json_schema", "json_schema": js}
		} else {
			if len(rf.Schema) > 0 {
				warnings = append(warnings, provider.Warning{Type: "unsupported", Feature: "responseFormat",
					Details: "JSON response format schema is only supported with structured outputs"})
			}
			body["response_format"] = map[string]any{"type": "json_object"}
		}
	}
	if len(opts.StopSequences) > 0 {
		body["stop"] = opts.StopSequences
	}
	put("seed", opts.Seed)
	put("verbosity", o.TextVerbosity)
	if m.s.OpenAIOptions {
		if len(o.LogitBias) > 0 {
			body["logit_bias"] = o.LogitBias
		}
		switch lp := strings.TrimSpace(string(o.Logprobs)); lp {
		case "", "null", "false":
		case "true":
			body["logprobs"] = true
			body["top_logprobs"] = 0
		default:
			var n float64
			if json.Unmarshal(o.Logprobs, &n) != nil {
				return nil, fmt.Errorf("invalid %s provider options: logprobs must be a boolean or a number", call.partKey)
			}
			body["logprobs"] = true
			body["top_logprobs"] = n
		}
		put("parallel_tool_calls", o.ParallelToolCalls)
		put("max_completion_tokens", o.MaxCompletionTokens)
		put("store", o.Store)
		if o.Metadata != nil {
			body["metadata"] = o.Metadata
		}
		if o.Prediction != nil {
			body["prediction"] = o.Prediction
		}
		put("service_tier", o.ServiceTier)
		put("prompt_cache_key", o.PromptCacheKey)
		if o.PromptCacheOptions != nil {
			body["prompt_cache_options"] = o.PromptCacheOptions
		}
		put("prompt_cache_retention", o.PromptCacheRetention)
		put("safety_identifier", o.SafetyIdentifier)
	}
	if effort != "" {
		body["reasoning_effort"] = effort
	} else if reasoningNull {
		body["reasoning_effort"] = nil
	}
	body["messages"] = messages

	if m.s.ModelRules {
		warnings = append(warnings, applyModelRules(body, caps, m.s.ModelID, o, effort)...)
	}

	tools, toolChoice, toolWarnings := prepareTools(opts.Tools, opts.ToolChoice)
	warnings = append(warnings, toolWarnings...)
	for k, v := range extras {
		switch k {
		case "messages", "tools", "tool_choice", "stream", "stream_options":
			continue
		}
		body[k] = v
	}
	if tools != nil {
		body["tools"] = tools
		body["tool_choice"] = toolChoice
	}
	if stream {
		body["stream"] = true
		if m.s.StreamUsage {
			body["stream_options"] = map[string]any{"include_usage": true}
		}
	}
	call.body = body
	call.warnings = warnings
	return call, nil
}

// applyModelRules removes what OpenAI models reject, with a warning each.
func applyModelRules(body map[string]any, caps Capabilities, modelID string, o chatOptions, effort string) []provider.Warning {
	d := &Dropper{Body: body}
	d.CacheRetention(caps)
	if caps.ReasoningModel {
		d.Sampling(caps, effort)
		if caps.RejectsSampling(effort) {
			d.Drop("logprobs", provider.Warning{Type: "other", Message: "logprobs is not supported for reasoning models"})
		}
		d.Drop("frequency_penalty", provider.Warning{Type: "unsupported", Feature: "frequencyPenalty", Details: "frequencyPenalty is not supported for reasoning models"})
		d.Drop("presence_penalty", provider.Warning{Type: "unsupported", Feature: "presencePenalty", Details: "presencePenalty is not supported for reasoning models"})
		d.Drop("logit_bias", provider.Warning{Type: "other", Message: "logitBias is not supported for reasoning models"})
		d.Drop("top_logprobs", provider.Warning{Type: "other", Message: "topLogprobs is not supported for reasoning models"})
		if v, ok := body["max_tokens"]; ok {
			if _, set := body["max_completion_tokens"]; !set {
				body["max_completion_tokens"] = v
			}
			delete(body, "max_tokens")
		}
	} else if strings.HasPrefix(modelID, "gpt-4o-search-preview") || strings.HasPrefix(modelID, "gpt-4o-mini-search-preview") {
		d.Drop("temperature", provider.Warning{Type: "unsupported", Feature: "temperature",
			Details: "temperature is not supported for the search preview models and has been removed"})
	}
	d.ServiceTier(caps, o.ServiceTier)
	return d.Warnings
}

// prepareTools converts tool definitions and the tool choice. No tools means
// neither "tools" nor "tool_choice" is sent.
func prepareTools(tools []provider.Tool, choice provider.ToolChoice) ([]any, any, []provider.Warning) {
	var warnings []provider.Warning
	var out []any
	for _, t := range tools {
		switch t := t.(type) {
		case *provider.FunctionTool:
			out = append(out, functionTool(t))
		case *provider.ProviderTool:
			warnings = append(warnings, provider.Warning{Type: "unsupported", Feature: "provider-defined tool " + t.ID})
		default:
			warnings = append(warnings, provider.Warning{Type: "unsupported", Feature: fmt.Sprintf("tool type %T", t)})
		}
	}
	if len(out) == 0 {
		return nil, nil, warnings
	}
	choice = choice.Normalized()
	var tc any
	switch choice.Type {
	case provider.ToolChoiceTool:
		tc = map[string]any{"type": "function", "function": map[string]any{"name": choice.ToolName}}
	default:
		tc = string(choice.Type)
	}
	return out, tc, warnings
}

func functionTool(t *provider.FunctionTool) map[string]any {
	fn := map[string]any{"name": t.Name, "parameters": Schema(t.InputSchema)}
	if t.Description != "" {
		fn["description"] = t.Description
	}
	if t.Strict != nil {
		fn["strict"] = *t.Strict
	}
	return map[string]any{"type": "function", "function": fn}
}

// Schema returns a tool's input schema as a JSON value; an empty schema
// becomes an empty object schema.
func Schema(s json.RawMessage) json.RawMessage {
	if len(s) == 0 || string(s) == "null" {
		return json.RawMessage(`{"type":"object","properties":{}}`)
	}
	return s
}

// IsNil reports whether v is nil or a nil pointer, map or slice.
func IsNil(v any) bool {
	if v == nil {
		return true
	}
	rv := reflect.ValueOf(v)
	switch rv.Kind() {
	case reflect.Pointer, reflect.Map, reflect.Slice, reflect.Interface:
		return rv.IsNil()
	}
	return false
}
