package bedrock

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"math"
	"net/http"
	"path"
	"regexp"
	"slices"
	"strings"

	"github.com/aisdkgo/ai/internal/claude"
	"github.com/aisdkgo/ai/internal/openaichat"
	"github.com/aisdkgo/ai/provider"
)

// The provider options keys: "amazonBedrock", then "bedrock".
const (
	optionsKey    = "amazonBedrock"
	altOptionsKey = "bedrock"
)

// callOptions are the provider options of a call. Other keys of the
// options object are copied into the request body as they are (for
// example guardrailConfig, performanceConfig or requestMetadata).
type callOptions struct {
	StructuredOutputMode         string          `json:"structuredOutputMode"`
	AdditionalModelRequestFields map[string]any  `json:"additionalModelRequestFields"`
	ReasoningConfig              *reasoningSetup `json:"reasoningConfig"`
	AnthropicBeta                []string        `json:"anthropicBeta"`
	ServiceTier                  string          `json:"serviceTier"`
}

// reasoningSetup is the reasoningConfig option.
type reasoningSetup struct {
	Type               string `json:"type,omitempty"`
	BudgetTokens       *int   `json:"budgetTokens,omitempty"`
	MaxReasoningEffort string `json:"maxReasoningEffort,omitempty"`
	Display            string `json:"display,omitempty"`
}

// anthropicOptions are the ProviderOptions["anthropic"] a Bedrock call
// reads.
type anthropicOptions struct {
	DisableParallelToolUse *bool  `json:"disableParallelToolUse"`
	StructuredOutputMode   string `json:"structuredOutputMode"`
}

// options returns the Bedrock options of po: those under "amazonBedrock",
// else those under "bedrock".
func options(po provider.ProviderOptions) map[string]any {
	if m, ok := po[optionsKey]; ok && m != nil {
		return m
	}
	return po[altOptionsKey]
}

// decodeOptions decodes the Bedrock options of po into v.
func decodeOptions(po provider.ProviderOptions, v any) error {
	m := options(po)
	if m == nil {
		return nil
	}
	_, err := openaichat.DecodeOptions(provider.ProviderOptions{optionsKey: m}, optionsKey, v)
	return err
}

var (
	openAIModel = regexp.MustCompile(`^(?:[^.]+\.)?(openai\..+)$`)
	// withoutStrictTools are Claude models that reject strict tools.
	withoutStrictTools = []string{"claude-opus-4-7", "claude-opus-4-8", "claude-opus-5", "claude-fable-5", "claude-sonnet-5"}
	// withoutNativeOutput are Claude models whose native structured output
	// is not used on Bedrock.
	withoutNativeOutput = append(slices.Clone(withoutStrictTools), "claude-sonnet-4-6", "claude-haiku-4-5")
)

// jsonInstruction ends the system message of a call whose JSON response
// format is asked for in words.
const jsonInstruction = "You MUST answer with only a JSON object that matches the JSON schema above. Do not wrap it in markdown fences or include any other text."

// withJSONInstruction adds the schema and the instruction to the first
// system message, or puts them in a new one.
func withJSONInstruction(prompt []provider.Message, schema json.RawMessage) []provider.Message {
	sys := provider.SystemMessage{}
	rest := prompt
	if len(prompt) > 0 {
		if sm, ok := openaichat.Message(prompt[0]).(provider.SystemMessage); ok {
			sys, rest = sm, prompt[1:]
		}
	}
	var lines []string
	if sys.Content != "" {
		lines = append(lines, sys.Content, "")
	}
	lines = append(lines, "JSON schema:", compactJSON(schema), jsonInstruction)
	sys.Content = strings.Join(lines, "\n")
	return append([]provider.Message{sys}, rest...)
}

// jsonObjectText keeps the first JSON object of a text that arrives in
// pieces, dropping what comes before and after it.
type jsonObjectText struct {
	started, completed, inString, escaped bool
	depth                                 int
}

// process returns the part of piece that belongs to the object.
func (j *jsonObjectText) process(piece string) string {
	var b strings.Builder
	for _, r := range piece {
		if j.completed {
			break
		}
		if !j.started {
			if r != '{' {
				continue
			}
			j.started, j.depth = true, 1
			b.WriteRune(r)
			continue
		}
		b.WriteRune(r)
		switch {
		case j.escaped:
			j.escaped = false
		case r == '\\' && j.inString:
			j.escaped = true
		case r == '"':
			j.inString = !j.inString
		case j.inString:
		case r == '{':
			j.depth++
		case r == '}':
			j.depth--
			if j.depth == 0 {
				j.completed = true
			}
		}
	}
	return b.String()
}

func containsAny(id string, models []string) bool {
	return slices.ContainsFunc(models, func(m string) bool { return strings.Contains(id, m) })
}

// effortMap maps neutral reasoning efforts to Bedrock's maxReasoningEffort.
var effortMap = map[provider.ReasoningEffort]string{
	provider.ReasoningMinimal: "low",
	provider.ReasoningLow:     "low",
	provider.ReasoningMedium:  "medium",
	provider.ReasoningHigh:    "high",
	provider.ReasoningXHigh:   "max",
}

// budgetShare is the part of a model's output limit given to thinking for
// each reasoning effort, on models with budget-based thinking.
var budgetShare = map[provider.ReasoningEffort]float64{
	provider.ReasoningMinimal: 0.02,
	provider.ReasoningLow:     0.1,
	provider.ReasoningMedium:  0.3,
	provider.ReasoningHigh:    0.6,
	provider.ReasoningXHigh:   0.9,
}

// call is a prepared Converse request and what reading its answer needs.
type call struct {
	body     map[string]any
	warnings []provider.Warning
	// jsonTool is set when a JSON response format is answered through the
	// "json" tool.
	jsonTool bool
	// jsonText is set when the prompt asks for JSON in words: only the
	// first JSON object of the answer's text is kept.
	jsonText bool
	mistral  bool
}

func (m *languageModel) prepare(opts *provider.CallOptions) (*call, error) {
	var warnings []provider.Warning
	warn := func(typ, feature, details string) {
		warnings = append(warnings, provider.Warning{Type: typ, Feature: feature, Details: details})
	}
	var o callOptions
	if err := decodeOptions(opts.ProviderOptions, &o); err != nil {
		return nil, err
	}
	var ao anthropicOptions
	if _, err := openaichat.DecodeOptions(opts.ProviderOptions, "anthropic", &ao); err != nil {
		return nil, err
	}
	id := m.modelID
	caps := claude.ModelCapabilities(id)

	if opts.FrequencyPenalty != nil {
		warn("unsupported", "frequencyPenalty", "")
	}
	if opts.PresencePenalty != nil {
		warn("unsupported", "presencePenalty", "")
	}
	if opts.Seed != nil {
		warn("unsupported", "seed", "")
	}
	temperature, topP, topK := opts.Temperature, opts.TopP, opts.TopK
	if caps.RejectsSampling {
		if temperature != nil {
			warn("unsupported", "temperature", fmt.Sprintf("temperature is not supported by %s and will be ignored", id))
			temperature = nil
		}
		if topK != nil {
			warn("unsupported", "topK", fmt.Sprintf("topK is not supported by %s and will be ignored", id))
			topK = nil
		}
		if topP != nil {
			warn("unsupported", "topP", fmt.Sprintf("topP is not supported by %s and will be ignored", id))
			topP = nil
		}
	}
	openAIID := ""
	if mm := openAIModel.FindStringSubmatch(id); mm != nil {
		openAIID = mm[1]
	}
	isOpenAI := openAIID != ""
	isGptOss := strings.HasPrefix(openAIID, "openai.gpt-oss-")
	isNova2 := strings.Contains(id, "amazon.nova-2-lite-v1:0")
	if temperature != nil && (!isOpenAI || isGptOss) {
		switch t := *temperature; {
		case t > 1:
			warn("unsupported", "temperature", fmt.Sprintf("%s exceeds bedrock maximum of 1.0. clamped to 1.0", jsNumber(t)))
			temperature = new(1.0)
		case t < 0:
			warn("unsupported", "temperature", fmt.Sprintf("%s is below bedrock minimum of 0. clamped to 0", jsNumber(t)))
			temperature = new(0.0)
		}
	}

	var budgetOption *int
	if o.ReasoningConfig != nil {
		budgetOption = o.ReasoningConfig.BudgetTokens
	}
	isAnthropic := strings.Contains(id, "anthropic") || (strings.Contains(id, ":application-inference-profile/") && budgetOption != nil)
	rc := resolveReasoning(opts.Reasoning, o.ReasoningConfig, isAnthropic, isOpenAI, isNova2, caps, warn)
	thinkingType := ""
	if rc != nil {
		thinkingType = rc.Type
	}
	thinking := thinkingType == "enabled" || thinkingType == "adaptive"

	extra := map[string]any{}
	for k, v := range o.AdditionalModelRequestFields {
		extra[k] = v
	}
	mode := o.StructuredOutputMode
	if mode == "" {
		mode = ao.StructuredOutputMode
	}
	if mode == "" {
		mode = "auto"
	}
	if oc, ok := extra["output_config"].(map[string]any); ok && mode == "jsonTool" {
		rest := map[string]any{}
		for k, v := range oc {
			if k != "format" {
				rest[k] = v
			}
		}
		if len(rest) > 0 {
			extra["output_config"] = rest
		} else {
			delete(extra, "output_config")
		}
	}

	tools := opts.Tools
	choice := opts.ToolChoice
	rf := opts.ResponseFormat
	jsonSchema := rf != nil && rf.Type == "json" && len(rf.Schema) > 0
	nativeOK := !containsAny(id, withoutNativeOutput) && (caps.StructuredOutput || thinking)
	native := isAnthropic && jsonSchema && (mode == "outputFormat" || (mode == "auto" && nativeOK))
	instruction := !native && isAnthropic && jsonSchema &&
		(caps.RejectsForcedToolUse || (mode != "jsonTool" && containsAny(id, withoutStrictTools) && len(tools) > 0))
	jsonTool := jsonSchema && !native && !instruction
	if jsonTool {
		tools = append(slices.Clone(tools), &provider.FunctionTool{Name: "json", Description: "Respond with a JSON object.", InputSchema: rf.Schema})
		choice = provider.ToolChoice{Type: provider.ToolChoiceRequired}
	}
	toolConfig, additional, betas, toolWarnings := prepareTools(tools, choice, id, isAnthropic, caps.RejectsForcedToolUse, ao.DisableParallelToolUse != nil && *ao.DisableParallelToolUse)
	warnings = append(warnings, toolWarnings...)
	for k, v := range additional {
		extra[k] = v
	}
	switch {
	case len(betas) > 0:
		extra["anthropic_beta"] = append(slices.Clone(o.AnthropicBeta), betas...)
	case o.AnthropicBeta != nil:
		extra["anthropic_beta"] = o.AnthropicBeta
	}

	inference := map[string]any{}
	if opts.MaxOutputTokens != nil {
		inference["maxTokens"] = *opts.MaxOutputTokens
	}
	if temperature != nil {
		inference["temperature"] = *temperature
	}
	if topP != nil {
		inference["topP"] = *topP
	}
	if topK != nil {
		inference["topK"] = *topK
	}
	if opts.StopSequences != nil {
		inference["stopSequences"] = opts.StopSequences
	}
	var thinkingBudget *int
	if thinkingType == "enabled" {
		thinkingBudget = rc.BudgetTokens
	}
	anthropicThinking := isAnthropic && thinking
	switch {
	case anthropicThinking:
		if thinkingBudget != nil {
			if mt, ok := inference["maxTokens"].(int); ok {
				inference["maxTokens"] = mt + *thinkingBudget
			} else {
				inference["maxTokens"] = *thinkingBudget + 4096
			}
			extra["thinking"] = map[string]any{"type": "enabled", "budget_tokens": *thinkingBudget}
		} else if thinkingType == "adaptive" {
			t := map[string]any{"type": "adaptive"}
			if rc.Display != "" {
				t["display"] = rc.Display
			}
			extra["thinking"] = t
		}
	case !isAnthropic:
		if rc != nil && rc.BudgetTokens != nil {
			warn("unsupported", "budgetTokens", "budgetTokens applies only to Anthropic models on Bedrock and will be ignored for this model.")
		}
		if thinkingType == "adaptive" {
			warn("unsupported", "adaptive thinking", "adaptive thinking type applies only to Anthropic models on Bedrock.")
		}
	}
	if rc != nil && rc.MaxReasoningEffort != "" {
		effort := rc.MaxReasoningEffort
		switch {
		case isAnthropic:
			oc := map[string]any{}
			if prev, ok := extra["output_config"].(map[string]any); ok {
				for k, v := range prev {
					oc[k] = v
				}
			}
			oc["effort"] = effort
			extra["output_config"] = oc
		case isGptOss:
			extra["reasoning_effort"] = effort
		case isOpenAI:
			r := map[string]any{}
			if prev, ok := extra["reasoning"].(map[string]any); ok {
				for k, v := range prev {
					r[k] = v
				}
			}
			r["effort"] = effort
			extra["reasoning"] = r
		default:
			r := map[string]any{"maxReasoningEffort": effort}
			if thinkingType != "" && thinkingType != "adaptive" {
				r["type"] = thinkingType
			}
			if thinkingBudget != nil {
				r["budgetTokens"] = *thinkingBudget
			}
			extra["reasoningConfig"] = r
		}
		if isNova2 && thinkingType == "enabled" && (effort == "high" || effort == "xhigh" || effort == "max") {
			if _, ok := inference["maxTokens"]; ok {
				delete(inference, "maxTokens")
				warn("unsupported", "maxOutputTokens", fmt.Sprintf("maxOutputTokens is not supported by %s when high reasoning is enabled and will be ignored", id))
			}
		}
	}
	if native {
		oc := map[string]any{}
		if prev, ok := extra["output_config"].(map[string]any); ok {
			for k, v := range prev {
				oc[k] = v
			}
		}
		oc["format"] = map[string]any{"type": "json_schema", "schema": claude.SanitizeSchema(rf.Schema)}
		extra["output_config"] = oc
	}
	if anthropicThinking {
		for _, f := range []string{"temperature", "topP", "topK"} {
			if _, ok := inference[f]; ok {
				delete(inference, f)
				warn("unsupported", f, f+" is not supported when thinking is enabled")
			}
		}
	}
	if isOpenAI {
		unsupported := []string{"temperature", "topP", "stopSequences"}
		if isGptOss {
			unsupported = []string{"stopSequences"}
		}
		for _, f := range unsupported {
			if _, ok := inference[f]; ok {
				delete(inference, f)
				warn("unsupported", f, f+" is not supported by this OpenAI model on the Converse API")
			}
		}
	}

	prompt := opts.Prompt
	if toolConfig == nil && len(additional) == 0 {
		var removed bool
		prompt, removed = withoutToolContent(prompt)
		if removed {
			warn("unsupported", "toolContent", "Tool calls and results removed from conversation because Bedrock does not support tool content without active tools.")
		}
	}
	if instruction {
		prompt = withJSONInstruction(prompt, rf.Schema)
	}
	mistral := strings.Contains(id, "mistral.")
	system, messages, err := convertPrompt(prompt, mistral)
	if err != nil {
		return nil, err
	}

	body := map[string]any{"system": system, "messages": messages}
	if len(extra) > 0 || o.AdditionalModelRequestFields != nil {
		body["additionalModelRequestFields"] = extra
	}
	if isAnthropic {
		body["additionalModelResponseFieldPaths"] = []string{"/delta/stop_sequence"}
	}
	if len(inference) > 0 {
		body["inferenceConfig"] = inference
	}
	if o.ServiceTier != "" {
		body["serviceTier"] = map[string]any{"type": o.ServiceTier}
	}
	for k, v := range options(opts.ProviderOptions) {
		switch k {
		case "reasoningConfig", "additionalModelRequestFields", "serviceTier", "structuredOutputMode":
		default:
			body[k] = v
		}
	}
	if toolConfig != nil {
		body["toolConfig"] = toolConfig
	}
	return &call{body: body, warnings: warnings, jsonTool: jsonTool, jsonText: instruction, mistral: mistral}, nil
}

// resolveReasoning combines the neutral reasoning effort with the
// reasoningConfig option (which wins field by field).
func resolveReasoning(r provider.ReasoningEffort, explicit *reasoningSetup, isAnthropic, isOpenAI, isNova2 bool, caps claude.Capabilities, warn func(typ, feature, details string)) *reasoningSetup {
	if r == provider.ReasoningProviderDefault {
		return explicit
	}
	overlay := func(rc reasoningSetup) *reasoningSetup {
		if explicit != nil {
			if explicit.Type != "" {
				rc.Type = explicit.Type
			}
			if explicit.BudgetTokens != nil {
				rc.BudgetTokens = explicit.BudgetTokens
			}
			if explicit.MaxReasoningEffort != "" {
				rc.MaxReasoningEffort = explicit.MaxReasoningEffort
			}
			if explicit.Display != "" {
				rc.Display = explicit.Display
			}
		}
		if rc.Type == "disabled" {
			rc.MaxReasoningEffort, rc.BudgetTokens = "", nil
		}
		return &rc
	}
	mapEffort := func() (string, bool) {
		e, ok := effortMap[r]
		if !ok {
			warn("unsupported", "reasoning", fmt.Sprintf("reasoning %q is not supported by this model.", r))
			return "", false
		}
		if e != string(r) {
			warn("compatibility", "reasoning", fmt.Sprintf("reasoning %q is not directly supported by this model. mapped to effort %q.", r, e))
		}
		return e, true
	}
	switch {
	case isAnthropic:
		if r == provider.ReasoningNone {
			return overlay(reasoningSetup{Type: "disabled"})
		}
		if caps.Adaptive {
			e, _ := mapEffort()
			return overlay(reasoningSetup{Type: "adaptive", MaxReasoningEffort: e})
		}
		share, ok := budgetShare[r]
		if !ok {
			warn("unsupported", "reasoning", fmt.Sprintf("reasoning %q is not supported by this model.", r))
			return explicit
		}
		b := min(caps.MaxOutputTokens, max(1024, int(math.Round(float64(caps.MaxOutputTokens)*share))))
		return overlay(reasoningSetup{Type: "enabled", BudgetTokens: &b})
	case r != provider.ReasoningNone:
		if isOpenAI || isNova2 || explicit != nil {
			e, _ := mapEffort()
			rc := reasoningSetup{MaxReasoningEffort: e}
			if isNova2 {
				rc.Type = "enabled"
			}
			return overlay(rc)
		}
		warn("unsupported", "reasoning", "Portable reasoning is not supported for this model and will be ignored. If the model supports a provider-specific reasoning configuration, use providerOptions.amazonBedrock.reasoningConfig.")
	}
	return explicit
}

// jsNumber formats a number as JavaScript prints it.
func jsNumber(f float64) string {
	b, _ := json.Marshal(f)
	return string(b)
}

// prepareTools returns the toolConfig of the request (nil without tools),
// fields for additionalModelRequestFields and the anthropic-beta features
// the tools need. A Claude model gets Anthropic's provider-defined tools
// as tool specs with their input schemas, and then the tool choice goes in
// Anthropic's form with additionalModelRequestFields.
func prepareTools(tools []provider.Tool, choice provider.ToolChoice, modelID string, isAnthropic, rejectsForced, disableParallel bool) (map[string]any, map[string]any, []string, []provider.Warning) {
	var warnings []provider.Warning
	if len(tools) == 0 {
		return nil, nil, nil, nil
	}
	var functions []*provider.FunctionTool
	var providerTools []*provider.ProviderTool
	for _, t := range tools {
		switch t := t.(type) {
		case *provider.FunctionTool:
			functions = append(functions, t)
		case *provider.ProviderTool:
			if notOnBedrock[t.ID] {
				warnings = append(warnings, notOnBedrockWarning(t.ID))
				continue
			}
			providerTools = append(providerTools, t)
		}
	}
	if len(functions) == 0 && len(providerTools) == 0 {
		return nil, nil, nil, warnings
	}
	rejectsForcedChoice := isAnthropic && rejectsForced && (choice.Type == provider.ToolChoiceRequired || choice.Type == provider.ToolChoiceTool)
	forRequest := providerTools
	if rejectsForcedChoice && choice.Type == provider.ToolChoiceTool {
		forRequest = nil
		for _, t := range providerTools {
			if t.Name == choice.ToolName {
				forRequest = append(forRequest, t)
			}
		}
	}
	usingAnthropic := isAnthropic && len(forRequest) > 0
	var specs []any
	var additional map[string]any
	var betas []string
	if usingAnthropic {
		at := prepareAnthropicTools(providerTools, forRequest, choice, rejectsForced, disableParallel,
			func(w provider.Warning) { warnings = append(warnings, w) })
		specs, betas = at.specs, at.betas
		if at.toolChoice != nil {
			additional = map[string]any{"tool_choice": at.toolChoice}
		}
	} else {
		for _, t := range forRequest {
			warnings = append(warnings, provider.Warning{Type: "unsupported", Feature: "tool " + t.ID})
		}
	}
	prepared := choice
	if !usingAnthropic && rejectsForcedChoice {
		if choice.Type == provider.ToolChoiceTool {
			warnings = append(warnings, provider.Warning{Type: "unsupported", Feature: "toolChoice",
				Details: fmt.Sprintf("toolChoice 'tool' is not supported by this model because it rejects forced tool use. Only the '%s' tool is sent with 'auto' tool choice. Instruct the model to use the tool in the prompt and verify that a tool call was made.", choice.ToolName)})
		} else {
			warnings = append(warnings, provider.Warning{Type: "unsupported", Feature: "toolChoice",
				Details: "toolChoice 'required' is not supported by this model because it rejects forced tool use. Using 'auto' instead. Instruct the model to use a tool in the prompt and verify that a tool call was made."})
		}
		prepared = provider.ToolChoice{Type: provider.ToolChoiceAuto}
	}
	strictOK := !containsAny(modelID, withoutStrictTools)
	for _, t := range functions {
		if choice.Type == provider.ToolChoiceTool && t.Name != choice.ToolName {
			continue
		}
		strictForTool := strictOK && (t.Strict == nil || !*t.Strict || strictCompatible(t.InputSchema))
		switch {
		case !strictOK && t.Strict != nil:
			warnings = append(warnings, provider.Warning{Type: "unsupported", Feature: "strict",
				Details: fmt.Sprintf("Tool '%s' has strict: %t, but strict mode is not supported by this model on Amazon Bedrock. The strict property will be ignored.", t.Name, *t.Strict)})
		case t.Strict != nil && *t.Strict && !strictForTool:
			warnings = append(warnings, provider.Warning{Type: "unsupported", Feature: "strict",
				Details: fmt.Sprintf("Tool '%s' has strict: true, but Amazon Bedrock requires every object in a strict tool schema to set additionalProperties: false. The strict property will be ignored.", t.Name)})
		}
		spec := map[string]any{"name": t.Name, "inputSchema": map[string]any{"json": schemaOrEmpty(t.InputSchema)}}
		if strings.TrimSpace(t.Description) != "" {
			spec["description"] = t.Description
		}
		if t.Strict != nil && strictForTool {
			spec["strict"] = *t.Strict
		}
		specs = append(specs, map[string]any{"toolSpec": spec})
	}
	if isAnthropic && !usingAnthropic && disableParallel && len(specs) > 0 && prepared.Type != provider.ToolChoiceNone {
		var tc map[string]any
		switch prepared.Type {
		case provider.ToolChoiceRequired:
			tc = map[string]any{"type": "any", "disable_parallel_tool_use": true}
		case provider.ToolChoiceTool:
			tc = map[string]any{"type": "tool", "name": prepared.ToolName, "disable_parallel_tool_use": true}
		default:
			tc = map[string]any{"type": "auto", "disable_parallel_tool_use": true}
		}
		additional = map[string]any{"tool_choice": tc}
	}
	var toolChoice any
	if !usingAnthropic && additional == nil && len(specs) > 0 {
		switch prepared.Type {
		case provider.ToolChoiceAuto:
			toolChoice = map[string]any{"auto": map[string]any{}}
		case provider.ToolChoiceRequired:
			toolChoice = map[string]any{"any": map[string]any{}}
		case provider.ToolChoiceNone:
			specs = nil
		case provider.ToolChoiceTool:
			toolChoice = map[string]any{"tool": map[string]any{"name": prepared.ToolName}}
		}
	}
	if len(specs) == 0 {
		return nil, additional, betas, warnings
	}
	tc := map[string]any{"tools": specs}
	if toolChoice != nil {
		tc["toolChoice"] = toolChoice
	}
	return tc, additional, betas, warnings
}

// schemaOrEmpty returns a tool's input schema as a JSON value.
func schemaOrEmpty(s json.RawMessage) json.RawMessage {
	if len(s) == 0 {
		return json.RawMessage(`{"type":"object","properties":{}}`)
	}
	return s
}

// strictCompatible reports whether every object of a schema sets
// additionalProperties to false, as Bedrock requires of strict tools.
func strictCompatible(raw json.RawMessage) bool {
	var root any
	if json.Unmarshal(raw, &root) != nil {
		return false
	}
	var ok func(node any) bool
	ok = func(node any) bool {
		m, isMap := node.(map[string]any)
		if !isMap {
			return true
		}
		isObject := m["type"] == "object"
		if list, isList := m["type"].([]any); isList {
			isObject = slices.Contains(list, any("object"))
		}
		if isObject && m["additionalProperties"] != false {
			return false
		}
		for _, key := range []string{"properties", "patternProperties", "definitions", "$defs"} {
			if sub, isMap := m[key].(map[string]any); isMap {
				for _, v := range sub {
					if !ok(v) {
						return false
					}
				}
			}
		}
		if deps, isMap := m["dependencies"].(map[string]any); isMap {
			for _, v := range deps {
				if _, isList := v.([]any); !isList && !ok(v) {
					return false
				}
			}
		}
		for _, key := range []string{"propertyNames", "contains", "not", "if", "then", "else"} {
			if v, has := m[key]; has && v != nil && !ok(v) {
				return false
			}
		}
		if items, has := m["items"]; has && items != nil {
			if list, isList := items.([]any); isList {
				for _, v := range list {
					if !ok(v) {
						return false
					}
				}
			} else if !ok(items) {
				return false
			}
		}
		for _, key := range []string{"anyOf", "allOf", "oneOf"} {
			if list, isList := m[key].([]any); isList {
				for _, v := range list {
					if !ok(v) {
						return false
					}
				}
			}
		}
		return true
	}
	return ok(root)
}

// withoutToolContent removes tool calls and results from the prompt; it
// reports whether there were any.
func withoutToolContent(prompt []provider.Message) ([]provider.Message, bool) {
	found := false
	for _, msg := range prompt {
		switch msg := openaichat.Message(msg).(type) {
		case provider.AssistantMessage:
			for _, p := range msg.Content {
				switch p.(type) {
				case provider.ToolCallPart, provider.ToolResultPart:
					found = true
				}
			}
		case provider.ToolMessage:
			for _, p := range msg.Content {
				if _, ok := p.(provider.ToolResultPart); ok {
					found = true
				}
			}
		}
	}
	if !found {
		return prompt, false
	}
	var out []provider.Message
	for _, msg := range prompt {
		switch msg := openaichat.Message(msg).(type) {
		case provider.AssistantMessage:
			var parts []provider.AssistantPart
			for _, p := range msg.Content {
				switch p.(type) {
				case provider.ToolCallPart, provider.ToolResultPart:
				default:
					parts = append(parts, p)
				}
			}
			if len(parts) > 0 {
				msg.Content = parts
				out = append(out, msg)
			}
		case provider.ToolMessage:
			var parts []provider.ToolPart
			for _, p := range msg.Content {
				if _, ok := p.(provider.ToolResultPart); !ok {
					parts = append(parts, p)
				}
			}
			if len(parts) > 0 {
				msg.Content = parts
				out = append(out, msg)
			}
		default:
			out = append(out, msg)
		}
	}
	return out, true
}

// Media formats Bedrock accepts, by media type.
var (
	imageFormats = map[string]string{"image/jpeg": "jpeg", "image/png": "png", "image/gif": "gif", "image/webp": "webp"}
	docFormats   = map[string]string{
		"application/pdf": "pdf", "text/csv": "csv", "application/msword": "doc",
		"application/vnd.openxmlformats-officedocument.wordprocessingml.document": "docx",
		"application/vnd.ms-excel": "xls",
		"application/vnd.openxmlformats-officedocument.spreadsheetml.sheet": "xlsx",
		"text/html": "html", "text/plain": "txt", "text/markdown": "md",
	}
	videoFormats = map[string]string{
		"video/x-matroska": "mkv", "video/quicktime": "mov", "video/mp4": "mp4", "video/webm": "webm",
		"video/x-flv": "flv", "video/mpeg": "mpeg", "video/mpg": "mpg", "video/wmv": "wmv",
		"video/x-ms-wmv": "wmv", "video/3gpp": "three_gp",
	}
)

func format(kind string, formats map[string]string, mediaType string) (string, error) {
	if f, ok := formats[mediaType]; ok {
		return f, nil
	}
	keys := make([]string, 0, len(formats))
	for k := range formats {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return "", &provider.UnsupportedFunctionalityError{Functionality: fmt.Sprintf("%s mime type: %s (expected one of: %s)", kind, mediaType, strings.Join(keys, ", "))}
}

// fullMediaType resolves a media type given as a top-level type only
// ("image", "image/*") from the file's bytes.
func fullMediaType(mediaType string, data []byte) string {
	top, sub, _ := strings.Cut(mediaType, "/")
	if sub != "" && sub != "*" {
		return mediaType
	}
	if len(data) > 0 {
		detected, _, _ := strings.Cut(http.DetectContentType(data), ";")
		if strings.HasPrefix(detected, top+"/") {
			return detected
		}
	}
	return mediaType
}

var (
	spaces  = regexp.MustCompile(`\s+`)
	badName = regexp.MustCompile(`[^a-zA-Z0-9 ()\[\]-]`)
	badTool = regexp.MustCompile(`[^a-zA-Z0-9_-]`)
)

// documentName turns a file name into a name Bedrock accepts.
func documentName(filename string) string {
	name := strings.TrimSuffix(filename, path.Ext(filename))
	name = strings.TrimSpace(badName.ReplaceAllString(spaces.ReplaceAllString(name, " "), ""))
	if len(name) > 200 {
		name = strings.TrimSpace(name[:200])
	}
	return name
}

// sanitizeToolName keeps the characters Bedrock allows in tool names.
func sanitizeToolName(name string) string {
	if s := badTool.ReplaceAllString(name, ""); s != "" {
		return s
	}
	return "_"
}

// cachePoint returns the cache point block of po, or nil.
func cachePoint(po provider.ProviderOptions) map[string]any {
	for _, key := range []string{optionsKey, altOptionsKey} {
		if cp, ok := po[key]["cachePoint"]; ok && cp != nil {
			return map[string]any{"cachePoint": cp}
		}
	}
	return nil
}

// partOptions are the Bedrock options of prompt parts.
type partOptions struct {
	GuardContent           bool     `json:"guardContent"`
	GuardContentQualifiers []string `json:"guardContentQualifiers"`
	Citations              *struct {
		Enabled bool `json:"enabled"`
	} `json:"citations"`
	Signature       *string `json:"signature"`
	RedactedData    *string `json:"redactedData"`
	RedactedContent *string `json:"redactedContent"`
}

func partOpts(po provider.ProviderOptions) partOptions {
	var o partOptions
	_ = decodeOptions(po, &o)
	return o
}

// converter turns a prompt into Converse system blocks and messages.
type converter struct {
	mistral  bool
	docCount int
	messages []map[string]any
}

func (c *converter) docName(filename string) string {
	if filename != "" {
		if n := documentName(filename); n != "" {
			return n
		}
	}
	c.docCount++
	return fmt.Sprintf("document-%d", c.docCount)
}

// appendUser adds user content, to the last user message when that one
// holds tool results.
func (c *converter) appendUser(content []any) {
	if n := len(c.messages); n > 0 && c.messages[n-1]["role"] == "user" {
		last := c.messages[n-1]
		blocks := last["content"].([]any)
		if slices.ContainsFunc(blocks, func(b any) bool { _, ok := b.(map[string]any)["toolResult"]; return ok }) {
			last["content"] = append(blocks, content...)
			return
		}
	}
	c.messages = append(c.messages, map[string]any{"role": "user", "content": content})
}

// media returns the source of file data: bytes, or an S3 location.
func media(d provider.FileData, functionality string) (map[string]any, []byte, error) {
	switch d := d.(type) {
	case provider.FileBytes:
		return map[string]any{"bytes": base64.StdEncoding.EncodeToString(d.Data)}, d.Data, nil
	case *provider.FileBytes:
		return map[string]any{"bytes": base64.StdEncoding.EncodeToString(d.Data)}, d.Data, nil
	case provider.FileURL:
		if strings.HasPrefix(d.URL, "s3://") {
			return map[string]any{"s3Location": map[string]any{"uri": d.URL}}, nil, nil
		}
	case *provider.FileURL:
		if strings.HasPrefix(d.URL, "s3://") {
			return map[string]any{"s3Location": map[string]any{"uri": d.URL}}, nil, nil
		}
	}
	return nil, nil, &provider.UnsupportedFunctionalityError{Functionality: functionality}
}

// file converts a file part of a user message or a tool result.
func (c *converter) file(p provider.FilePart, functionality string, guard bool) (map[string]any, error) {
	opts := partOpts(p.ProviderOptions)
	citations := func(doc map[string]any) map[string]any {
		if opts.Citations != nil && opts.Citations.Enabled {
			doc["citations"] = map[string]any{"enabled": true}
		}
		return map[string]any{"document": doc}
	}
	if txt, ok := p.Data.(provider.FileText); ok {
		mt := p.MediaType
		if !strings.Contains(mt, "/") || strings.HasSuffix(mt, "/*") {
			mt = "text/plain"
		}
		f, err := format("file", docFormats, mt)
		if err != nil {
			return nil, err
		}
		return citations(map[string]any{"format": f, "name": c.docName(p.Filename),
			"source": map[string]any{"bytes": base64.StdEncoding.EncodeToString([]byte(txt.Text))}}), nil
	}
	if _, ok := p.Data.(provider.FileReference); ok {
		return nil, &provider.UnsupportedFunctionalityError{Functionality: "file parts with provider references"}
	}
	src, data, err := media(p.Data, functionality)
	if err != nil {
		return nil, err
	}
	mt := fullMediaType(p.MediaType, data)
	top, _, _ := strings.Cut(mt, "/")
	switch top {
	case "image":
		f, err := format("image", imageFormats, mt)
		if err != nil {
			return nil, err
		}
		block := map[string]any{"image": map[string]any{"format": f, "source": src}}
		if guard && opts.GuardContent {
			return map[string]any{"guardContent": block}, nil
		}
		return block, nil
	case "video":
		f, err := format("video", videoFormats, mt)
		if err != nil {
			return nil, err
		}
		return map[string]any{"video": map[string]any{"format": f, "source": src}}, nil
	}
	if data == nil {
		return nil, &provider.UnsupportedFunctionalityError{Functionality: functionality}
	}
	f, err := format("file", docFormats, mt)
	if err != nil {
		return nil, err
	}
	return citations(map[string]any{"format": f, "name": c.docName(p.Filename), "source": src}), nil
}

// toolResult converts a tool result's output to toolResult content.
func (c *converter) toolResult(out provider.ToolResultOutput) ([]any, error) {
	switch o := out.(type) {
	case provider.TextOutput:
		return []any{map[string]any{"text": o.Value}}, nil
	case provider.ErrorTextOutput:
		return []any{map[string]any{"text": o.Value}}, nil
	case provider.ExecutionDeniedOutput:
		reason := o.Reason
		if reason == "" {
			reason = "Tool call execution denied."
		}
		return []any{map[string]any{"text": reason}}, nil
	case provider.JSONOutput:
		return []any{map[string]any{"text": compactJSON(o.Value)}}, nil
	case provider.ErrorJSONOutput:
		return []any{map[string]any{"text": compactJSON(o.Value)}}, nil
	case provider.ContentOutput:
		var blocks []any
		for _, part := range o.Value {
			switch part := part.(type) {
			case provider.TextPart:
				blocks = append(blocks, map[string]any{"text": part.Text})
			case provider.FilePart:
				b, err := c.file(part, "tool result file data", false)
				if err != nil {
					return nil, err
				}
				blocks = append(blocks, b)
			default:
				return nil, &provider.UnsupportedFunctionalityError{Functionality: fmt.Sprintf("unsupported tool content part type: %T", part)}
			}
		}
		return blocks, nil
	}
	return nil, &provider.UnsupportedFunctionalityError{Functionality: fmt.Sprintf("tool result output %T", out)}
}

// compactJSON renders a JSON value as JSON.stringify would.
func compactJSON(v json.RawMessage) string { return openaichat.CompactJSON(v) }

// toolInput returns a tool call's input as Bedrock's toolUse input: an
// object, or the value wrapped as {"rawInvalidInput": value}.
func toolInput(in json.RawMessage) any {
	var v any
	if len(in) == 0 || json.Unmarshal(in, &v) != nil {
		return map[string]any{"rawInvalidInput": string(in)}
	}
	if m, ok := v.(map[string]any); ok {
		return m
	}
	return map[string]any{"rawInvalidInput": v}
}

// convertPrompt turns the prompt into system blocks and messages.
func convertPrompt(prompt []provider.Message, mistral bool) ([]any, []map[string]any, error) {
	c := &converter{mistral: mistral}
	system := []any{}
	type block struct {
		role string
		msgs []provider.Message
	}
	var blocks []block
	for _, msg := range prompt {
		msg = openaichat.Message(msg)
		role := string(msg.Role())
		if role == "tool" {
			role = "user"
		}
		if n := len(blocks); n > 0 && blocks[n-1].role == role {
			blocks[n-1].msgs = append(blocks[n-1].msgs, msg)
		} else {
			blocks = append(blocks, block{role: role, msgs: []provider.Message{msg}})
		}
	}
	for bi, b := range blocks {
		lastBlock := bi == len(blocks)-1
		switch b.role {
		case "system":
			if len(c.messages) > 0 {
				return nil, nil, &provider.UnsupportedFunctionalityError{Functionality: "Multiple system messages that are separated by user/assistant messages"}
			}
			for _, m := range b.msgs {
				sm := m.(provider.SystemMessage)
				system = append(system, map[string]any{"text": sm.Content})
				if cp := cachePoint(sm.ProviderOptions); cp != nil {
					system = append(system, cp)
				}
			}
		case "user":
			var content []any
			push := func(po provider.ProviderOptions) {
				if cp := cachePoint(po); cp != nil {
					content = append(content, cp)
				}
			}
			for _, m := range b.msgs {
				switch m := m.(type) {
				case provider.UserMessage:
					for _, part := range m.Content {
						switch part := part.(type) {
						case provider.TextPart:
							o := partOpts(part.ProviderOptions)
							if o.GuardContent {
								t := map[string]any{"text": part.Text}
								if o.GuardContentQualifiers != nil {
									t["qualifiers"] = o.GuardContentQualifiers
								}
								content = append(content, map[string]any{"guardContent": map[string]any{"text": t}})
							} else {
								content = append(content, map[string]any{"text": part.Text})
							}
							push(part.ProviderOptions)
						case provider.FilePart:
							fb, err := c.file(part, "File URL data", true)
							if err != nil {
								return nil, nil, err
							}
							content = append(content, fb)
							push(part.ProviderOptions)
						}
					}
					push(m.ProviderOptions)
				case provider.ToolMessage:
					for _, part := range m.Content {
						tr, ok := part.(provider.ToolResultPart)
						if !ok {
							continue
						}
						out, err := c.toolResult(tr.Output)
						if err != nil {
							return nil, nil, err
						}
						content = append(content, map[string]any{"toolResult": map[string]any{
							"toolUseId": normalizeToolCallID(tr.ToolCallID, c.mistral), "content": out}})
						push(tr.ProviderOptions)
					}
					push(m.ProviderOptions)
				}
			}
			c.appendUser(content)
		case "assistant":
			var assistant, results []any
			flushAssistant := func() {
				if slices.ContainsFunc(assistant, func(b any) bool { _, ok := b.(map[string]any)["cachePoint"]; return !ok }) {
					c.messages = append(c.messages, map[string]any{"role": "assistant", "content": assistant})
				}
				assistant = nil
			}
			flushResults := func() {
				if len(results) > 0 {
					c.appendUser(results)
					results = nil
				}
			}
			for mi, mm := range b.msgs {
				m := mm.(provider.AssistantMessage)
				lastMessage := mi == len(b.msgs)-1
				hasReasoning := slices.ContainsFunc(m.Content, func(p provider.AssistantPart) bool { _, ok := p.(provider.ReasoningPart); return ok })
				lastIsResult := false
				for pi, part := range m.Content {
					lastPart := pi == len(m.Content)-1
					_, isResult := part.(provider.ToolResultPart)
					if !isResult {
						flushResults()
					}
					var po provider.ProviderOptions
					switch part := part.(type) {
					case provider.TextPart:
						po = part.ProviderOptions
						if strings.TrimSpace(part.Text) == "" && !hasReasoning {
							break
						}
						text := part.Text
						if lastBlock && lastMessage && lastPart {
							text = strings.TrimSpace(text)
						}
						assistant = append(assistant, map[string]any{"text": text})
					case provider.ReasoningPart:
						po = part.ProviderOptions
						o := partOpts(part.ProviderOptions)
						switch {
						case o.Signature != nil:
							assistant = append(assistant, map[string]any{"reasoningContent": map[string]any{
								"reasoningText": map[string]any{"text": part.Text, "signature": *o.Signature}}})
						case o.RedactedContent != nil:
							assistant = append(assistant, map[string]any{"reasoningContent": map[string]any{"redactedContent": *o.RedactedContent}})
						case o.RedactedData != nil:
							assistant = append(assistant, map[string]any{"reasoningContent": map[string]any{
								"redactedReasoning": map[string]any{"data": *o.RedactedData}}})
						}
					case provider.ToolCallPart:
						po = part.ProviderOptions
						assistant = append(assistant, map[string]any{"toolUse": map[string]any{
							"toolUseId": normalizeToolCallID(part.ToolCallID, c.mistral),
							"name":      sanitizeToolName(part.ToolName),
							"input":     toolInput(part.Input)}})
					case provider.ToolResultPart:
						po = part.ProviderOptions
						flushAssistant()
						out, err := c.toolResult(part.Output)
						if err != nil {
							return nil, nil, err
						}
						results = append(results, map[string]any{"toolResult": map[string]any{
							"toolUseId": normalizeToolCallID(part.ToolCallID, c.mistral), "content": out}})
					default:
						continue
					}
					if cp := cachePoint(po); cp != nil {
						if isResult {
							results = append(results, cp)
						} else {
							assistant = append(assistant, cp)
						}
					}
					lastIsResult = isResult
				}
				if cp := cachePoint(m.ProviderOptions); cp != nil {
					if lastIsResult {
						results = append(results, cp)
					} else {
						assistant = append(assistant, cp)
					}
				}
			}
			flushResults()
			flushAssistant()
		}
	}
	if c.messages == nil {
		c.messages = []map[string]any{}
	}
	return system, c.messages, nil
}

const base62 = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"

var nineAlnum = regexp.MustCompile(`^[a-zA-Z0-9]{9}$`)

// normalizeToolCallID turns a tool call id into the nine alphanumeric
// characters Mistral models require (an FNV-1a hash in base 62); other
// models keep their ids.
func normalizeToolCallID(id string, mistral bool) string {
	if !mistral || nineAlnum.MatchString(id) {
		return id
	}
	hash := uint64(14695981039346656037)
	for _, u := range utf16Units(id) {
		hash ^= uint64(u)
		hash *= 1099511628211
	}
	space := uint64(1)
	for range 9 {
		space *= 62
	}
	v := hash % space
	out := make([]byte, 9)
	for i := 8; i >= 0; i-- {
		out[i] = base62[v%62]
		v /= 62
	}
	return string(out)
}

// utf16Units returns the UTF-16 code units of s, as JavaScript's
// charCodeAt sees them.
func utf16Units(s string) []uint16 {
	var out []uint16
	for _, r := range s {
		if r >= 0x10000 {
			r -= 0x10000
			out = append(out, uint16(0xD800+(r>>10)), uint16(0xDC00+(r&0x3FF)))
		} else {
			out = append(out, uint16(r))
		}
	}
	return out
}
