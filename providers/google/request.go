package google

import (
	"encoding/json"
	"fmt"
	"math"
	"net/http"
	"slices"
	"strings"

	"github.com/aisdkgo/ai/provider"
)

// requestBody is a generateContent request.
type requestBody struct {
	GenerationConfig  generationConfig  `json:"generationConfig"`
	Contents          []content         `json:"contents"`
	SystemInstruction *content          `json:"systemInstruction,omitempty"`
	SafetySettings    []SafetySetting   `json:"safetySettings,omitempty"`
	Tools             []any             `json:"tools,omitempty"`
	ToolConfig        *toolConfig       `json:"toolConfig,omitempty"`
	CachedContent     string            `json:"cachedContent,omitempty"`
	Labels            map[string]string `json:"labels,omitempty"`
	ServiceTier       string            `json:"serviceTier,omitempty"`
	ContinuationToken string            `json:"continuationToken,omitempty"`
}

type generationConfig struct {
	MaxOutputTokens    *int            `json:"maxOutputTokens,omitempty"`
	Temperature        *float64        `json:"temperature,omitempty"`
	TopK               *int            `json:"topK,omitempty"`
	TopP               *float64        `json:"topP,omitempty"`
	FrequencyPenalty   *float64        `json:"frequencyPenalty,omitempty"`
	PresencePenalty    *float64        `json:"presencePenalty,omitempty"`
	StopSequences      []string        `json:"stopSequences,omitempty"`
	Seed               *int            `json:"seed,omitempty"`
	ResponseMimeType   string          `json:"responseMimeType,omitempty"`
	ResponseJSONSchema json.RawMessage `json:"responseJsonSchema,omitempty"`
	AudioTimestamp     bool            `json:"audioTimestamp,omitempty"`
	ResponseModalities []string        `json:"responseModalities,omitempty"`
	ThinkingConfig     *ThinkingConfig `json:"thinkingConfig,omitempty"`
	MediaResolution    string          `json:"mediaResolution,omitempty"`
	ImageConfig        map[string]any  `json:"imageConfig,omitempty"`
}

// request is a prepared call and what reading its answer needs.
type request struct {
	body     *requestBody
	warnings []provider.Warning
	headers  http.Header
	// codeExecution is the application's name of the code execution tool.
	codeExecution string
	// jsonTool is the name of the function tool that stands for a JSON
	// response format, or "".
	jsonTool string
}

// safetyCategories are the categories Options.Threshold applies to.
var safetyCategories = []string{
	"HARM_CATEGORY_HATE_SPEECH",
	"HARM_CATEGORY_DANGEROUS_CONTENT",
	"HARM_CATEGORY_HARASSMENT",
	"HARM_CATEGORY_SEXUALLY_EXPLICIT",
}

// buildRequest turns call options into a request.
func (m *languageModel) buildRequest(opts *provider.CallOptions, stream bool) (*request, error) {
	opts, jsonTool := m.withJSONTool(opts)
	req := &request{jsonTool: jsonTool}
	warn := func(w provider.Warning) { req.warnings = append(req.warnings, w) }
	var o Options
	if _, err := decodeOptions(opts.ProviderOptions, m.p.optionKeys(), &o); err != nil {
		return nil, err
	}
	vertex := m.p.cfg.vertex
	name := m.Provider()
	for _, t := range opts.Tools {
		if pt, ok := t.(*provider.ProviderTool); ok && pt.ID == "google.vertex_rag_store" && !vertex {
			warn(provider.Warning{Type: "other", Message: "The 'vertex_rag_store' tool is only supported with the Google Vertex provider " +
				"and might not be supported or could behave unexpectedly with the current Google provider (" + name + ")."})
			break
		}
	}
	if o.StreamFunctionCallArguments && !vertex {
		warn(provider.Warning{Type: "other", Message: "'streamFunctionCallArguments' is only supported on the Vertex AI API and will be ignored with the current Google provider (" +
			name + "). See https://docs.cloud.google.com/vertex-ai/generative-ai/docs/multimodal/function-calling#streaming-fc"})
	}
	if o.ServiceTier != "" && vertex {
		warn(provider.Warning{Type: "other", Message: "'serviceTier' is a Gemini API option and is not supported on Vertex AI. " +
			"Use 'sharedRequestType' (and optionally 'requestType') instead. See https://docs.cloud.google.com/vertex-ai/generative-ai/docs/priority-paygo"})
	}
	if (o.SharedRequestType != "" || o.RequestType != "") && !vertex {
		warn(provider.Warning{Type: "other", Message: "'sharedRequestType' and 'requestType' are Vertex AI options and are ignored with the current Google provider (" + name + ")."})
	}
	if vertex && (o.SharedRequestType != "" || o.RequestType != "") {
		req.headers = http.Header{}
		if o.SharedRequestType != "" {
			req.headers.Set("X-Vertex-AI-LLM-Shared-Request-Type", o.SharedRequestType)
		}
		if o.RequestType != "" {
			req.headers.Set("X-Vertex-AI-LLM-Request-Type", o.RequestType)
		}
	}
	imageConfig := o.ImageConfig
	if imageConfig != nil && !vertex {
		var dropped []string
		for _, k := range []string{"personGeneration", "prominentPeople", "imageOutputOptions"} {
			if imageConfig[k] != nil {
				dropped = append(dropped, "'imageConfig."+k+"'")
			}
		}
		if len(dropped) > 0 {
			verb := "are Vertex AI options and are"
			if len(dropped) == 1 {
				verb = "is a Vertex AI option and is"
			}
			warn(provider.Warning{Type: "other", Message: strings.Join(dropped, ", ") + " " + verb + " ignored with the current Google provider (" + name + ")."})
			kept := map[string]any{}
			for k, v := range imageConfig {
				if k != "personGeneration" && k != "prominentPeople" && k != "imageOutputOptions" {
					kept[k] = v
				}
			}
			imageConfig = kept
		}
	}
	penaltiesRejected := !vertex && m.caps.gemini25
	if penaltiesRejected && opts.FrequencyPenalty != nil {
		warn(provider.Warning{Type: "unsupported", Feature: "frequencyPenalty"})
	}
	if penaltiesRejected && opts.PresencePenalty != nil {
		warn(provider.Warning{Type: "unsupported", Feature: "presencePenalty"})
	}

	tools, err := m.prepareTools(opts.Tools, opts.ToolChoice)
	if err != nil {
		return nil, err
	}
	req.codeExecution = tools.codeExecution
	conv := &promptConverter{p: m.p, caps: m.caps, warn: warn, codeExecution: tools.codeExecution}
	prompt, err := conv.convert(opts.Prompt)
	if err != nil {
		return nil, err
	}

	var thinking *ThinkingConfig
	tc := o.ThinkingConfig
	if tc == nil || (tc.ThinkingBudget == nil && tc.ThinkingLevel == "") {
		thinking = m.resolveThinking(opts.Reasoning, warn)
	}
	if tc != nil {
		if thinking == nil {
			thinking = &ThinkingConfig{}
		}
		if tc.ThinkingBudget != nil {
			thinking.ThinkingBudget = tc.ThinkingBudget
		}
		if tc.ThinkingLevel != "" {
			thinking.ThinkingLevel = tc.ThinkingLevel
		}
		if tc.IncludeThoughts != nil {
			thinking.IncludeThoughts = tc.IncludeThoughts
		}
	}

	gc := generationConfig{
		MaxOutputTokens:    opts.MaxOutputTokens,
		Temperature:        opts.Temperature,
		TopK:               opts.TopK,
		TopP:               opts.TopP,
		StopSequences:      opts.StopSequences,
		Seed:               opts.Seed,
		AudioTimestamp:     o.AudioTimestamp,
		ResponseModalities: o.ResponseModalities,
		ThinkingConfig:     thinking,
		MediaResolution:    o.MediaResolution,
		ImageConfig:        imageConfig,
	}
	if !penaltiesRejected {
		gc.FrequencyPenalty = opts.FrequencyPenalty
		gc.PresencePenalty = opts.PresencePenalty
	}
	if rf := opts.ResponseFormat; rf != nil && rf.Type == "json" {
		gc.ResponseMimeType = "application/json"
		if len(rf.Schema) > 0 && (o.StructuredOutputs == nil || *o.StructuredOutputs) {
			schema, err := sanitizeSchema(rf.Schema)
			if err != nil {
				return nil, fmt.Errorf("google: response format schema: %w", err)
			}
			gc.ResponseJSONSchema = schema
		}
	}

	safety := o.SafetySettings
	if safety == nil && o.Threshold != "" {
		for _, c := range safetyCategories {
			safety = append(safety, SafetySetting{Category: c, Threshold: o.Threshold})
		}
	}

	cfg := tools.config
	streamArgs := stream && vertex && o.StreamFunctionCallArguments
	if streamArgs || o.RetrievalConfig != nil {
		merged := &toolConfig{}
		if cfg != nil {
			*merged = *cfg
		}
		if streamArgs {
			fcc := &functionCallingConfig{}
			if merged.FunctionCallingConfig != nil {
				*fcc = *merged.FunctionCallingConfig
			}
			fcc.StreamFunctionCallArguments = true
			merged.FunctionCallingConfig = fcc
		}
		if o.RetrievalConfig != nil {
			merged.RetrievalConfig = o.RetrievalConfig
		}
		cfg = merged
	}

	serviceTier := o.ServiceTier
	if vertex {
		serviceTier = ""
	}
	req.body = &requestBody{
		GenerationConfig:  gc,
		Contents:          prompt.contents,
		SafetySettings:    safety,
		Tools:             tools.tools,
		ToolConfig:        cfg,
		CachedContent:     o.CachedContent,
		Labels:            o.Labels,
		ServiceTier:       serviceTier,
		ContinuationToken: o.ContinuationToken,
	}
	if req.body.Contents == nil {
		req.body.Contents = []content{}
	}
	if !m.caps.gemma {
		req.body.SystemInstruction = prompt.system
	}
	req.warnings = append(req.warnings, tools.warnings...)
	return req, nil
}

// withJSONTool replaces a JSON response format by a function tool the model
// must call, for models that cannot combine JSON output with function tools
// (before Gemini 3), or with a forced tool choice.
func (m *languageModel) withJSONTool(opts *provider.CallOptions) (*provider.CallOptions, string) {
	tools := opts.Tools
	if opts.ToolChoice.Type == provider.ToolChoiceNone {
		tools = slices.DeleteFunc(slices.Clone(tools), func(t provider.Tool) bool {
			_, fn := t.(*provider.FunctionTool)
			return !fn
		})
	}
	rf := opts.ResponseFormat
	hasFunction := slices.ContainsFunc(tools, func(t provider.Tool) bool { _, ok := t.(*provider.FunctionTool); return ok })
	forced := opts.ToolChoice.Type == provider.ToolChoiceRequired || opts.ToolChoice.Type == provider.ToolChoiceTool
	if rf == nil || rf.Type != "json" || len(rf.Schema) == 0 || !hasFunction || !jsonToolPattern.MatchString(m.modelID) || (m.caps.gemini3 && !forced) {
		return opts, ""
	}
	taken := func(name string) bool {
		return slices.ContainsFunc(tools, func(t provider.Tool) bool { return t.ToolName() == name })
	}
	name := "json"
	for i := 1; taken(name); i++ {
		name = fmt.Sprintf("json_%d", i)
	}
	desc := rf.Description
	if desc == "" {
		desc = "Respond with a JSON object."
	}
	c := *opts
	c.ResponseFormat = nil
	c.Tools = append(slices.Clone(tools), &provider.FunctionTool{Name: name, Description: desc, InputSchema: rf.Schema})
	switch opts.ToolChoice.Type {
	case provider.ToolChoiceTool:
	case provider.ToolChoiceNone:
		c.ToolChoice = provider.ToolChoice{Type: provider.ToolChoiceTool, ToolName: name}
	default:
		c.ToolChoice = provider.ToolChoice{Type: provider.ToolChoiceRequired}
	}
	return &c, name
}

// reasoningLevels are the reasoning efforts in ascending order.
var reasoningLevels = []string{"minimal", "low", "medium", "high", "xhigh", "max"}

// budgetShares are the shares of the output size that the reasoning
// efforts get as a thinking budget.
var budgetShares = map[string]float64{"minimal": 0.02, "low": 0.1, "medium": 0.3, "high": 0.6, "xhigh": 0.9, "max": 0.95}

// resolveThinking maps the call's reasoning effort to a thinking level
// (Gemini 3) or budget (Gemini 2.5).
func (m *languageModel) resolveThinking(effort provider.ReasoningEffort, warn func(provider.Warning)) *ThinkingConfig {
	if effort == provider.ReasoningProviderDefault {
		return nil
	}
	r := string(effort)
	if m.caps.levels {
		// Gemini 3 cannot turn thinking off: "none" becomes the lowest level.
		idx := slices.Index(reasoningLevels, r)
		candidates := []string{r}
		for i := max(idx, 0) - 1; i >= 0; i-- {
			candidates = append(candidates, reasoningLevels[i])
		}
		candidates = append(candidates, reasoningLevels[idx+1:]...)
		for _, c := range candidates {
			if slices.Contains(m.caps.efforts, c) {
				if c != r {
					warn(provider.Warning{Type: "compatibility", Feature: "reasoning",
						Details: fmt.Sprintf("reasoning %q is not directly supported by this model. mapped to effort %q.", r, c)})
				}
				return &ThinkingConfig{ThinkingLevel: c}
			}
		}
		warn(provider.Warning{Type: "unsupported", Feature: "reasoning", Details: fmt.Sprintf("reasoning %q is not supported by this model.", r)})
		return nil
	}
	if r == "none" {
		budget := m.caps.minBudget
		if budget != 0 {
			warn(provider.Warning{Type: "compatibility", Feature: "reasoning",
				Details: fmt.Sprintf("reasoning \"none\" is not supported by this model. mapped to the minimum reasoning budget of %d tokens.", budget)})
		}
		return &ThinkingConfig{ThinkingBudget: &budget}
	}
	share, ok := budgetShares[r]
	if !ok {
		warn(provider.Warning{Type: "unsupported", Feature: "reasoning", Details: fmt.Sprintf("reasoning %q is not supported by this model.", r)})
		return nil
	}
	budget := int(math.Round(reasoningMaxOutputTokens * share))
	budget = min(m.caps.maxBudget, max(m.caps.minBudget, budget))
	return &ThinkingConfig{ThinkingBudget: &budget}
}

// sanitizeSchema replaces "const" with a one-value "enum" where Google
// reads schemas (properties, items, additionalProperties, anyOf, oneOf,
// $defs), since responseJsonSchema does not support "const".
func sanitizeSchema(schema json.RawMessage) (json.RawMessage, error) {
	var v any
	if err := json.Unmarshal(schema, &v); err != nil {
		return nil, err
	}
	return json.Marshal(sanitizeNode(v, 0))
}

// maxSchemaDepth bounds the recursion over a schema.
const maxSchemaDepth = 200

func sanitizeNode(v any, depth int) any {
	m, ok := v.(map[string]any)
	if !ok || depth > maxSchemaDepth {
		return v
	}
	out := make(map[string]any, len(m))
	for k, x := range m {
		out[k] = x
	}
	if c, has := m["const"]; has {
		delete(out, "const")
		out["enum"] = []any{c}
	}
	each := func(key string) {
		if defs, ok := m[key].(map[string]any); ok {
			s := make(map[string]any, len(defs))
			for k, d := range defs {
				s[k] = sanitizeNode(d, depth+1)
			}
			out[key] = s
		}
	}
	list := func(key string) {
		if l, ok := m[key].([]any); ok {
			s := make([]any, len(l))
			for i, d := range l {
				s[i] = sanitizeNode(d, depth+1)
			}
			out[key] = s
		}
	}
	each("properties")
	each("$defs")
	list("anyOf")
	list("oneOf")
	switch items := m["items"].(type) {
	case []any:
		list("items")
	case map[string]any:
		out["items"] = sanitizeNode(items, depth+1)
	}
	if ap, ok := m["additionalProperties"].(map[string]any); ok {
		out["additionalProperties"] = sanitizeNode(ap, depth+1)
	}
	return out
}
