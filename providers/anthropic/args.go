package anthropic

import (
	"encoding/json"
	"fmt"
	"math"
	"net/http"
	"strings"

	"github.com/aisdkgo/ai/provider"
)

// betaSet is an ordered set of anthropic-beta feature names.
type betaSet struct {
	list []string
	seen map[string]bool
}

func (b *betaSet) add(names ...string) {
	for _, n := range names {
		n = strings.TrimSpace(n)
		if n == "" {
			continue
		}
		if b.seen == nil {
			b.seen = map[string]bool{}
		}
		if !b.seen[n] {
			b.seen[n] = true
			b.list = append(b.list, n)
		}
	}
}

// requestBody is the JSON body of POST /messages.
type requestBody struct {
	Model             string                 `json:"model"`
	MaxTokens         int                    `json:"max_tokens"`
	Temperature       *float64               `json:"temperature,omitempty"`
	TopK              *int                   `json:"top_k,omitempty"`
	TopP              *float64               `json:"top_p,omitempty"`
	StopSequences     []string               `json:"stop_sequences,omitempty"`
	Thinking          *thinkingWire          `json:"thinking,omitempty"`
	OutputConfig      *outputConfigWire      `json:"output_config,omitempty"`
	Speed             string                 `json:"speed,omitempty"`
	InferenceGeo      string                 `json:"inference_geo,omitempty"`
	CacheControl      *CacheControl          `json:"cache_control,omitempty"`
	Metadata          *metadataWire          `json:"metadata,omitempty"`
	MCPServers        []*mcpServerWire       `json:"mcp_servers,omitempty"`
	Container         any                    `json:"container,omitempty"`
	System            []textBlock            `json:"system,omitempty"`
	Messages          []wireMessage          `json:"messages"`
	ContextManagement *contextManagementWire `json:"context_management,omitempty"`
	Tools             []any                  `json:"tools,omitempty"`
	ToolChoice        *toolChoiceWire        `json:"tool_choice,omitempty"`
	Stream            bool                   `json:"stream,omitempty"`
}

type thinkingWire struct {
	Type         string `json:"type"`
	BudgetTokens *int   `json:"budget_tokens,omitempty"`
	Display      string `json:"display,omitempty"`
}

type outputConfigWire struct {
	Effort     string        `json:"effort,omitempty"`
	TaskBudget *TaskBudget   `json:"task_budget,omitempty"`
	Format     *outputFormat `json:"format,omitempty"`
}

type outputFormat struct {
	Type   string          `json:"type"`
	Schema json.RawMessage `json:"schema"`
}

type metadataWire struct {
	UserID string `json:"user_id"`
}

type mcpServerWire struct {
	Type               string         `json:"type"`
	Name               string         `json:"name"`
	URL                string         `json:"url"`
	AuthorizationToken *string        `json:"authorization_token,omitempty"`
	ToolConfiguration  *mcpToolConfig `json:"tool_configuration,omitempty"`
}

type mcpToolConfig struct {
	AllowedTools []string `json:"allowed_tools,omitempty"`
	Enabled      *bool    `json:"enabled,omitempty"`
}

type contextManagementWire struct {
	Edits []*object `json:"edits"`
}

// citationDoc describes a prompt document with citations enabled; citations
// in the answer refer to these by index.
type citationDoc struct {
	title     string
	filename  string
	mediaType string
}

// request is a prepared call: the body and what reading the answer needs.
type request struct {
	body         *requestBody
	warnings     []provider.Warning
	betas        *betaSet
	usesJSONTool bool
	names        toolNames
	citationDocs []citationDoc
}

// reasoningBudgetShare is the part of the model's output limit given to
// thinking for each reasoning effort on models with budget-based thinking.
var reasoningBudgetShare = map[provider.ReasoningEffort]float64{
	provider.ReasoningMinimal: 0.02,
	provider.ReasoningLow:     0.1,
	provider.ReasoningMedium:  0.3,
	provider.ReasoningHigh:    0.6,
	provider.ReasoningXHigh:   0.9,
}

// buildRequest turns call options into a request body, collecting warnings
// and the beta features the body needs.
func (m *languageModel) buildRequest(opts *provider.CallOptions, stream bool) (*request, error) {
	var warnings []provider.Warning
	warn := func(typ, feature, details string) {
		warnings = append(warnings, provider.Warning{Type: typ, Feature: feature, Details: details})
	}
	if opts.FrequencyPenalty != nil {
		warn("unsupported", "frequencyPenalty", "")
	}
	if opts.PresencePenalty != nil {
		warn("unsupported", "presencePenalty", "")
	}
	if opts.Seed != nil {
		warn("unsupported", "seed", "")
	}

	temperature := opts.Temperature
	if temperature != nil && *temperature > 1 {
		warn("unsupported", "temperature", fmt.Sprintf("%g is above the maximum of 1.0; using 1.0", *temperature))
		one := 1.0
		temperature = &one
	} else if temperature != nil && *temperature < 0 {
		warn("unsupported", "temperature", fmt.Sprintf("%g is below the minimum of 0; using 0", *temperature))
		zero := 0.0
		temperature = &zero
	}
	topK, topP := opts.TopK, opts.TopP

	rf := opts.ResponseFormat
	jsonWithSchema := rf != nil && rf.Type == "json" && len(rf.Schema) > 0
	if rf != nil && rf.Type == "json" && len(rf.Schema) == 0 {
		warn("unsupported", "responseFormat", "a JSON response format needs a schema; the response format is ignored.")
	}

	o, err := parseMessagesOptions(opts.ProviderOptions)
	if err != nil {
		return nil, err
	}

	caps := modelCapabilities(m.modelID)
	if !caps.Known && opts.MaxOutputTokens == nil {
		warn("compatibility", "maxOutputTokens", fmt.Sprintf(
			"the model %q is unknown, so its output is limited to %d tokens; set maxOutputTokens to change that.",
			m.modelID, caps.MaxOutputTokens))
	}
	if caps.RejectsSampling {
		if temperature != nil {
			warn("unsupported", "temperature", fmt.Sprintf("%s does not accept temperature; it is ignored", m.modelID))
			temperature = nil
		}
		if topK != nil {
			warn("unsupported", "topK", fmt.Sprintf("%s does not accept topK; it is ignored", m.modelID))
			topK = nil
		}
		if topP != nil {
			warn("unsupported", "topP", fmt.Sprintf("%s does not accept topP; it is ignored", m.modelID))
			topP = nil
		}
	}
	isClaude := caps.Known || strings.Contains(m.modelID, "claude-")

	var useNativeOutput bool
	switch o.StructuredOutputMode {
	case "outputFormat":
		useNativeOutput = jsonWithSchema
	case "jsonTool":
	default:
		useNativeOutput = jsonWithSchema && caps.StructuredOutput && nativeSchemaOK(rf.Schema)
	}
	// The JSON tool needs forced tool use; models that reject it get native
	// structured outputs when the schema allows.
	if jsonWithSchema && !useNativeOutput && caps.RejectsForcedToolUse && caps.StructuredOutput && nativeSchemaOK(rf.Schema) {
		warn("unsupported", "providerOptions.anthropic.structuredOutputMode",
			fmt.Sprintf("%s rejects forced tool use, so the JSON tool cannot be used; 'outputFormat' is used instead.", m.modelID))
		useNativeOutput = true
	}
	var jsonTool *provider.FunctionTool
	if jsonWithSchema && !useNativeOutput {
		jsonTool = &provider.FunctionTool{Name: "json", Description: "Respond with a JSON object.", InputSchema: rf.Schema}
		if o.DisableParallelToolUse != nil && !*o.DisableParallelToolUse {
			warn("unsupported", "providerOptions.anthropic.disableParallelToolUse",
				"disableParallelToolUse: false is ignored with the JSON response tool, which needs a single tool call.")
		}
	}

	cache := &cacheBreakpoints{}
	betas := &betaSet{}
	names := newToolNames(opts.Tools)
	conv := &promptConverter{
		sendReasoning: o.SendReasoning == nil || *o.SendReasoning,
		cache:         cache,
		names:         names,
		betas:         betas,
	}
	system, messages, err := conv.convert(opts.Prompt)
	if err != nil {
		return nil, err
	}
	warnings = append(warnings, conv.warnings...)

	// The neutral reasoning effort fills in thinking and effort unless the
	// provider options set them.
	if opts.Reasoning != provider.ReasoningProviderDefault && o.Effort == "" {
		thinking, effort := reasoningConfig(opts.Reasoning, caps, &warnings)
		if o.Thinking == nil && thinking != nil {
			o.Thinking = thinking
		}
		if effort != "" && (o.Thinking == nil || o.Thinking.Type != "disabled") {
			o.Effort = effort
		}
	}

	if o.Thinking != nil && caps.RejectsDisabled && o.Thinking.Type == "disabled" {
		if caps.BetweenTools {
			warn("unsupported", "providerOptions.anthropic.thinking", fmt.Sprintf(
				"%s cannot run without thinking; 'between_tools', its lowest thinking setting, is used instead.", m.modelID))
			o.Thinking = &Thinking{Type: "between_tools"}
		} else {
			warn("unsupported", "providerOptions.anthropic.thinking", fmt.Sprintf(
				"%s always thinks adaptively; the thinking setting is dropped. Lower 'effort' to think less.", m.modelID))
			o.Thinking = nil
		}
	}
	if o.Thinking != nil && caps.RejectsBudget && o.Thinking.Type == "enabled" {
		warn("unsupported", "providerOptions.anthropic.thinking", fmt.Sprintf(
			"%s does not support budget-based thinking; adaptive thinking is used instead. Use 'effort' to control how much it thinks.", m.modelID))
		o.Thinking = &Thinking{Type: "adaptive"}
	}
	thinkingType := ""
	if o.Thinking != nil {
		thinkingType = o.Thinking.Type
	}
	if caps.RejectsDisabledAboveHigh && thinkingType == "disabled" && (o.Effort == "xhigh" || o.Effort == "max") {
		warn("unsupported", "providerOptions.anthropic.effort", fmt.Sprintf(
			"%s does not accept effort '%s' without thinking; the effort is lowered to 'high'.", m.modelID, o.Effort))
		o.Effort = "high"
	}
	if thinkingType == "between_tools" && (o.Effort == "xhigh" || o.Effort == "max") {
		warn("unsupported", "providerOptions.anthropic.effort", fmt.Sprintf(
			"effort '%s' does not work with 'between_tools' thinking; the effort is lowered to 'high'.", o.Effort))
		o.Effort = "high"
	}
	isThinking := thinkingType == "enabled" || thinkingType == "adaptive" || thinkingType == "between_tools"

	maxTokens := caps.MaxOutputTokens
	if opts.MaxOutputTokens != nil {
		maxTokens = *opts.MaxOutputTokens
	}
	body := &requestBody{
		Model:         m.modelID,
		MaxTokens:     maxTokens,
		Temperature:   temperature,
		TopK:          topK,
		TopP:          topP,
		StopSequences: opts.StopSequences,
		Speed:         o.Speed,
		InferenceGeo:  o.InferenceGeo,
		CacheControl:  o.CacheControl,
		System:        system,
		Messages:      messages,
		Stream:        stream,
	}
	var budget *int
	if isThinking || thinkingType == "disabled" {
		body.Thinking = &thinkingWire{Type: thinkingType}
		if thinkingType == "enabled" {
			budget = o.Thinking.BudgetTokens
			if budget == nil {
				warn("compatibility", "extended thinking", "thinking needs a budget when enabled; the default budget of 1024 tokens is used.")
				b := 1024
				budget = &b
			}
			body.Thinking.BudgetTokens = budget
		}
		if thinkingType == "adaptive" {
			body.Thinking.Display = o.Thinking.Display
		}
	}
	if o.Effort != "" || o.TaskBudget != nil || (useNativeOutput && jsonWithSchema) {
		body.OutputConfig = &outputConfigWire{Effort: o.Effort, TaskBudget: o.TaskBudget}
		if useNativeOutput && jsonWithSchema {
			body.OutputConfig.Format = &outputFormat{Type: "json_schema", Schema: sanitizeSchema(rf.Schema)}
		}
	}
	if o.Metadata != nil && o.Metadata.UserID != "" {
		body.Metadata = &metadataWire{UserID: o.Metadata.UserID}
	}
	for _, s := range o.MCPServers {
		w := &mcpServerWire{Type: s.Type, Name: s.Name, URL: s.URL, AuthorizationToken: s.AuthorizationToken}
		if s.ToolConfiguration != nil {
			w.ToolConfiguration = &mcpToolConfig{AllowedTools: s.ToolConfiguration.AllowedTools, Enabled: s.ToolConfiguration.Enabled}
		}
		body.MCPServers = append(body.MCPServers, w)
	}
	if c := o.Container; c != nil {
		if len(c.Skills) > 0 {
			skills := make([]map[string]any, 0, len(c.Skills))
			for _, s := range c.Skills {
				sk := map[string]any{"type": s.Type, "skill_id": s.SkillID}
				if s.Version != "" {
					sk["version"] = s.Version
				}
				skills = append(skills, sk)
			}
			cw := map[string]any{"skills": skills}
			if c.ID != "" {
				cw["id"] = c.ID
			}
			body.Container = cw
		} else if c.ID != "" {
			body.Container = c.ID
		}
	}
	if cm := o.ContextManagement; cm != nil {
		body.ContextManagement = &contextManagementWire{Edits: []*object{}}
		for _, e := range cm.Edits {
			if w := contextEditWire(e); w != nil {
				body.ContextManagement.Edits = append(body.ContextManagement.Edits, w)
			} else {
				warnings = append(warnings, provider.Warning{Type: "other", Message: "unknown context management strategy: " + e.Type})
			}
		}
	}

	if isThinking {
		if body.Temperature != nil {
			body.Temperature = nil
			warn("unsupported", "temperature", "temperature is not supported when thinking is enabled")
		}
		if topK != nil {
			body.TopK = nil
			warn("unsupported", "topK", "topK is not supported when thinking is enabled")
		}
		if topP != nil {
			body.TopP = nil
			warn("unsupported", "topP", "topP is not supported when thinking is enabled")
		}
		if budget != nil {
			body.MaxTokens = maxTokens + *budget
		}
	} else if isClaude && topP != nil && temperature != nil {
		warn("unsupported", "topP", "topP is not supported together with temperature; topP is ignored.")
		body.TopP = nil
	}
	if caps.Known && body.MaxTokens > caps.MaxOutputTokens {
		if opts.MaxOutputTokens != nil {
			warn("unsupported", "maxOutputTokens", fmt.Sprintf(
				"%d (maxOutputTokens plus the thinking budget) is more than the %d output tokens %s allows; it is limited to %d.",
				body.MaxTokens, caps.MaxOutputTokens, m.modelID, caps.MaxOutputTokens))
		}
		body.MaxTokens = caps.MaxOutputTokens
	}

	if len(o.MCPServers) > 0 {
		betas.add("mcp-client-2025-04-04")
	}
	if cm := o.ContextManagement; cm != nil {
		betas.add("context-management-2025-06-27")
		for _, e := range cm.Edits {
			if e.Type == "compact_20260112" {
				betas.add("compact-2026-01-12")
				break
			}
		}
	}
	if c := o.Container; c != nil && len(c.Skills) > 0 {
		betas.add("code-execution-2025-08-25", "skills-2025-10-02", "files-api-2025-04-14")
		if !hasCodeExecution(opts.Tools) {
			warnings = append(warnings, provider.Warning{Type: "other", Message: "agent skills need the code execution tool"})
		}
	}
	if o.TaskBudget != nil {
		betas.add("task-budgets-2026-03-13")
	}
	if thinkingType == "adaptive" && o.Thinking.Display == "updates" {
		betas.add("thinking-display-updates-2026-08-18")
	}
	if o.Speed == "fast" {
		betas.add("fast-mode-2026-02-01")
	}

	rejectsForced := caps.RejectsForcedToolUse || thinkingType == "enabled"
	var prepared preparedTools
	if jsonTool != nil {
		tools := []provider.Tool{}
		for _, t := range opts.Tools {
			if t == nil {
				continue
			}
			c := opts.ToolChoice.Normalized()
			if c.Type == provider.ToolChoiceNone || (c.Type == provider.ToolChoiceTool && t.ToolName() != c.ToolName) {
				continue
			}
			tools = append(tools, t)
		}
		yes := true
		prepared = prepareTools(append(tools, jsonTool), toolSetup{
			choice:          provider.ToolChoice{Type: provider.ToolChoiceRequired},
			disableParallel: &yes,
			cache:           cache,
			strictTools:     caps.StructuredOutput,
			eagerInput:      stream && (o.ToolStreaming == nil || *o.ToolStreaming),
			rejectsForced:   rejectsForced,
		}, names)
	} else {
		prepared = prepareTools(opts.Tools, toolSetup{
			choice:           opts.ToolChoice,
			disableParallel:  o.DisableParallelToolUse,
			cache:            cache,
			structuredOutput: caps.StructuredOutput,
			strictTools:      caps.StructuredOutput,
			eagerInput:       stream && (o.ToolStreaming == nil || *o.ToolStreaming),
			rejectsForced:    rejectsForced,
		}, names)
	}
	body.Tools = prepared.tools
	body.ToolChoice = prepared.choice

	// When a forced choice fell back to auto, or the JSON tool is in use, MCP
	// servers must not bring back other tools.
	choice := opts.ToolChoice.Normalized()
	if (choice.Type == provider.ToolChoiceTool && (jsonTool != nil || (prepared.choice != nil && prepared.choice.Type == "auto"))) ||
		(choice.Type == provider.ToolChoiceNone && jsonTool != nil) {
		no := false
		for _, s := range body.MCPServers {
			var allowed []string
			if s.ToolConfiguration != nil {
				allowed = s.ToolConfiguration.AllowedTools
			}
			s.ToolConfiguration = &mcpToolConfig{AllowedTools: allowed, Enabled: &no}
		}
	}

	warnings = append(warnings, prepared.warnings...)
	warnings = append(warnings, cache.warnings...)
	betas.add(prepared.betas...)
	betas.add(userBetas(m.p.cfg.headers, http.Header(opts.Headers))...)
	betas.add(o.AnthropicBeta...)

	return &request{
		body:         body,
		warnings:     warnings,
		betas:        betas,
		usesJSONTool: jsonTool != nil,
		names:        names,
		citationDocs: citationDocuments(opts.Prompt),
	}, nil
}

// reasoningConfig maps a neutral reasoning effort to Anthropic thinking and
// effort settings.
func reasoningConfig(r provider.ReasoningEffort, caps capabilities, warnings *[]provider.Warning) (*Thinking, string) {
	if r == provider.ReasoningNone {
		if caps.RejectsDisabled {
			*warnings = append(*warnings, provider.Warning{
				Type: "compatibility", Feature: "reasoning",
				Details: `this model always thinks; reasoning "none" is mapped to effort "low".`,
			})
			return nil, "low"
		}
		return &Thinking{Type: "disabled"}, ""
	}
	if caps.Adaptive {
		var effort string
		switch r {
		case provider.ReasoningMinimal, provider.ReasoningLow:
			effort = "low"
		case provider.ReasoningMedium:
			effort = "medium"
		case provider.ReasoningHigh:
			effort = "high"
		case provider.ReasoningXHigh:
			effort = "max"
			if caps.XhighEffort {
				effort = "xhigh"
			}
		case provider.ReasoningMax:
			effort = "max"
		default:
			*warnings = append(*warnings, provider.Warning{
				Type: "unsupported", Feature: "reasoning",
				Details: fmt.Sprintf("reasoning %q is not supported by this model.", r),
			})
			return nil, ""
		}
		if effort != string(r) {
			*warnings = append(*warnings, provider.Warning{
				Type: "compatibility", Feature: "reasoning",
				Details: fmt.Sprintf("reasoning %q is not directly supported by this model; it is mapped to effort %q.", r, effort),
			})
		}
		return &Thinking{Type: "adaptive", Display: "summarized"}, effort
	}
	share, ok := reasoningBudgetShare[r]
	if !ok {
		if r != provider.ReasoningMax {
			*warnings = append(*warnings, provider.Warning{
				Type: "unsupported", Feature: "reasoning",
				Details: fmt.Sprintf("reasoning %q is not supported by this model.", r),
			})
			return nil, ""
		}
		share = 1
	}
	b := int(math.Round(float64(caps.MaxOutputTokens) * share))
	b = max(b, 1024)
	b = min(b, caps.MaxOutputTokens)
	return &Thinking{Type: "enabled", BudgetTokens: &b}, ""
}

// contextEditWire converts one context edit; nil for unknown strategies.
func contextEditWire(e ContextEdit) *object {
	w := &object{}
	w.Set("type", e.Type)
	switch e.Type {
	case "clear_tool_uses_20250919":
		if e.Trigger != nil {
			w.Set("trigger", e.Trigger)
		}
		if e.Keep != nil {
			w.Set("keep", e.Keep)
		}
		if e.ClearAtLeast != nil {
			w.Set("clear_at_least", e.ClearAtLeast)
		}
		if e.ClearToolInputs != nil {
			w.Set("clear_tool_inputs", *e.ClearToolInputs)
		}
		if e.ExcludeTools != nil {
			w.Set("exclude_tools", e.ExcludeTools)
		}
	case "clear_thinking_20251015":
		if e.Keep != nil {
			w.Set("keep", e.Keep)
		}
	case "compact_20260112":
		if e.Trigger != nil {
			w.Set("trigger", e.Trigger)
		}
		if e.PauseAfterCompaction != nil {
			w.Set("pause_after_compaction", *e.PauseAfterCompaction)
		}
		if e.Instructions != "" {
			w.Set("instructions", e.Instructions)
		}
	default:
		return nil
	}
	return w
}

func hasCodeExecution(tools []provider.Tool) bool {
	for _, t := range tools {
		if pt, ok := t.(*provider.ProviderTool); ok && pt != nil &&
			(pt.ID == "anthropic.code_execution_20250825" || pt.ID == "anthropic.code_execution_20260120") {
			return true
		}
	}
	return false
}

// citationDocuments lists the prompt's documents that have citations
// enabled, in prompt order.
func citationDocuments(prompt []provider.Message) []citationDoc {
	var docs []citationDoc
	for _, m := range prompt {
		um, ok := messageValue(m).(provider.UserMessage)
		if !ok {
			continue
		}
		for _, p := range um.Content {
			fp, ok := p.(provider.FilePart)
			if !ok || (fp.MediaType != "application/pdf" && fp.MediaType != "text/plain") {
				continue
			}
			var opts filePartOptions
			if om := anthropicOptions(fp.ProviderOptions); om == nil || !decodeInto(om, &opts) ||
				opts.Citations == nil || !opts.Citations.Enabled {
				continue
			}
			title := fp.Filename
			if title == "" {
				title = "Untitled Document"
			}
			docs = append(docs, citationDoc{title: title, filename: fp.Filename, mediaType: fp.MediaType})
		}
	}
	return docs
}
