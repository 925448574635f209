package anthropic

import (
	"encoding/json"
	"fmt"

	"github.com/aisdkgo/ai/provider"
)

// The wire names of the provider-executed tools this package maps.
const (
	wireWebSearch     = "web_search"
	wireWebFetch      = "web_fetch"
	wireCodeExecution = "code_execution"
	wireSearchRegex   = "tool_search_tool_regex"
	wireSearchBM25    = "tool_search_tool_bm25"
	wireAdvisor       = "advisor"
)

// providerToolSpec says how a provider tool id is declared on the wire.
type providerToolSpec struct {
	// wireType and wireName are the tool's "type" and fixed "name".
	wireType string
	wireName string
	// beta is the anthropic-beta feature the tool needs, if any.
	beta string
	// args maps argument keys (camelCase) to wire keys, in wire order.
	args [][2]string
}

var (
	computerArgs = [][2]string{
		{"displayWidthPx", "display_width_px"},
		{"displayHeightPx", "display_height_px"},
		{"displayNumber", "display_number"},
	}
	webSearchArgs = [][2]string{
		{"maxUses", "max_uses"},
		{"allowedDomains", "allowed_domains"},
		{"blockedDomains", "blocked_domains"},
		{"userLocation", "user_location"},
	}
	webFetchArgs = [][2]string{
		{"maxUses", "max_uses"},
		{"allowedDomains", "allowed_domains"},
		{"blockedDomains", "blocked_domains"},
		{"citations", "citations"},
		{"maxContentTokens", "max_content_tokens"},
	}
)

// providerTools maps the provider tool ids this package knows to their wire
// declarations.
var providerTools = map[string]providerToolSpec{
	"anthropic.code_execution_20250522": {"code_execution_20250522", wireCodeExecution, "code-execution-2025-05-22", nil},
	"anthropic.code_execution_20250825": {"code_execution_20250825", wireCodeExecution, "code-execution-2025-08-25", nil},
	"anthropic.code_execution_20260120": {"code_execution_20260120", wireCodeExecution, "", nil},
	"anthropic.computer_20241022":       {"computer_20241022", "computer", "computer-use-2024-10-22", computerArgs},
	"anthropic.computer_20250124":       {"computer_20250124", "computer", "computer-use-2025-01-24", computerArgs},
	"anthropic.computer_20251124": {"computer_20251124", "computer", "computer-use-2025-11-24",
		append(append([][2]string{}, computerArgs...), [2]string{"enableZoom", "enable_zoom"})},
	"anthropic.text_editor_20241022":       {"text_editor_20241022", "str_replace_editor", "computer-use-2024-10-22", nil},
	"anthropic.text_editor_20250124":       {"text_editor_20250124", "str_replace_editor", "computer-use-2025-01-24", nil},
	"anthropic.text_editor_20250429":       {"text_editor_20250429", "str_replace_based_edit_tool", "computer-use-2025-01-24", nil},
	"anthropic.text_editor_20250728":       {"text_editor_20250728", "str_replace_based_edit_tool", "", [][2]string{{"maxCharacters", "max_characters"}}},
	"anthropic.bash_20241022":              {"bash_20241022", "bash", "computer-use-2024-10-22", nil},
	"anthropic.bash_20250124":              {"bash_20250124", "bash", "computer-use-2025-01-24", nil},
	"anthropic.memory_20250818":            {"memory_20250818", "memory", "context-management-2025-06-27", nil},
	"anthropic.web_fetch_20250910":         {"web_fetch_20250910", wireWebFetch, "web-fetch-2025-09-10", webFetchArgs},
	"anthropic.web_fetch_20260209":         {"web_fetch_20260209", wireWebFetch, "code-execution-web-tools-2026-02-09", webFetchArgs},
	"anthropic.web_search_20250305":        {"web_search_20250305", wireWebSearch, "", webSearchArgs},
	"anthropic.web_search_20260209":        {"web_search_20260209", wireWebSearch, "code-execution-web-tools-2026-02-09", webSearchArgs},
	"anthropic.tool_search_regex_20251119": {"tool_search_tool_regex_20251119", wireSearchRegex, "", nil},
	"anthropic.tool_search_bm25_20251119":  {"tool_search_tool_bm25_20251119", wireSearchBM25, "", nil},
	"anthropic.advisor_20260301": {"advisor_20260301", wireAdvisor, "advisor-tool-2026-03-01",
		[][2]string{{"model", "model"}, {"maxUses", "max_uses"}, {"caching", "caching"}}},
}

// toolNames maps between the names an application gave its provider tools
// and the fixed names the API uses for them. Names of function tools are the
// same on both sides and pass through unchanged.
type toolNames struct {
	toWire map[string]string
	toApp  map[string]string
}

func newToolNames(tools []provider.Tool) toolNames {
	n := toolNames{toWire: map[string]string{}, toApp: map[string]string{}}
	for _, t := range tools {
		pt, ok := t.(*provider.ProviderTool)
		if !ok || pt == nil {
			continue
		}
		spec, ok := providerTools[pt.ID]
		if !ok {
			continue
		}
		n.toWire[pt.Name] = spec.wireName
		n.toApp[spec.wireName] = pt.Name
	}
	return n
}

// wire returns the API name of the tool the application calls app.
func (n toolNames) wire(app string) string {
	if w, ok := n.toWire[app]; ok {
		return w
	}
	return app
}

// app returns the application's name of the tool the API calls wire.
func (n toolNames) app(wire string) string {
	if a, ok := n.toApp[wire]; ok {
		return a
	}
	return wire
}

// searchToolWire names the tool search tool a result belongs to when the
// result arrives without its call: the BM25 variant if the request declared
// it, otherwise the regex variant.
func (n toolNames) searchToolWire() string {
	if _, ok := n.toApp[wireSearchBM25]; ok {
		return wireSearchBM25
	}
	return wireSearchRegex
}

// functionToolWire is a function tool declaration.
type functionToolWire struct {
	Name                string            `json:"name"`
	Description         string            `json:"description,omitempty"`
	InputSchema         json.RawMessage   `json:"input_schema"`
	CacheControl        any               `json:"cache_control,omitempty"`
	EagerInputStreaming bool              `json:"eager_input_streaming,omitempty"`
	Strict              *bool             `json:"strict,omitempty"`
	DeferLoading        *bool             `json:"defer_loading,omitempty"`
	AllowedCallers      []string          `json:"allowed_callers,omitempty"`
	InputExamples       []json.RawMessage `json:"input_examples,omitzero"`
}

// toolChoiceWire is the tool_choice object.
type toolChoiceWire struct {
	Type                   string `json:"type"`
	Name                   string `json:"name,omitempty"`
	DisableParallelToolUse *bool  `json:"disable_parallel_tool_use,omitempty"`
}

// toolSetup are the inputs of [prepareTools] beside the tools themselves.
type toolSetup struct {
	choice          provider.ToolChoice
	disableParallel *bool
	cache           *cacheBreakpoints
	// structuredOutput adds the structured outputs beta for function tools.
	structuredOutput bool
	// strictTools: the model accepts "strict" on function tools.
	strictTools bool
	// eagerInput is the default of eager_input_streaming.
	eagerInput bool
	// rejectsForced downgrades "required" and "tool" choices to "auto".
	rejectsForced bool
}

// preparedTools is the tools part of a request.
type preparedTools struct {
	tools    []any
	choice   *toolChoiceWire
	warnings []provider.Warning
	betas    []string
}

var emptyObjectSchema = json.RawMessage(`{"type":"object","properties":{}}`)

// prepareTools converts tool definitions and the tool choice.
func prepareTools(tools []provider.Tool, s toolSetup, names toolNames) preparedTools {
	var out preparedTools
	if len(tools) == 0 {
		return out
	}
	out.tools = []any{}
	for _, t := range tools {
		switch t := t.(type) {
		case *provider.FunctionTool:
			if t == nil {
				continue
			}
			out.tools = append(out.tools, functionTool(t, s, &out))
		case *provider.ProviderTool:
			if t == nil {
				continue
			}
			spec, ok := providerTools[t.ID]
			if !ok {
				out.warnings = append(out.warnings, provider.Warning{
					Type:    "unsupported",
					Feature: "provider-defined tool " + t.ID,
				})
				continue
			}
			if spec.beta != "" {
				out.betas = append(out.betas, spec.beta)
			}
			out.tools = append(out.tools, providerToolWire(spec, t.Args))
		}
	}

	choice := s.choice.Normalized()
	disable := s.disableParallel
	switch choice.Type {
	case provider.ToolChoiceNone:
		// Keep the tools: the history may reference them.
		out.choice = &toolChoiceWire{Type: "none"}
	case provider.ToolChoiceRequired:
		if s.rejectsForced {
			out.warnings = append(out.warnings, provider.Warning{
				Type:    "unsupported",
				Feature: "toolChoice",
				Details: "tool choice 'required' is not supported by this model or thinking setting; 'auto' is used instead. " +
					"Ask for a tool call in the prompt and check that one was made.",
			})
			out.choice = &toolChoiceWire{Type: "auto", DisableParallelToolUse: disable}
			break
		}
		out.choice = &toolChoiceWire{Type: "any", DisableParallelToolUse: disable}
	case provider.ToolChoiceTool:
		wireName := names.wire(choice.ToolName)
		if s.rejectsForced {
			out.warnings = append(out.warnings, provider.Warning{
				Type:    "unsupported",
				Feature: "toolChoice",
				Details: fmt.Sprintf("tool choice 'tool' is not supported by this model or thinking setting; only the '%s' tool is sent, with 'auto' tool choice. "+
					"Ask for the tool call in the prompt and check that it was made.", choice.ToolName),
			})
			kept := []any{}
			for _, w := range out.tools {
				if toolWireName(w) == wireName {
					kept = append(kept, w)
				}
			}
			out.tools = kept
			out.choice = &toolChoiceWire{Type: "auto", DisableParallelToolUse: disable}
			break
		}
		out.choice = &toolChoiceWire{Type: "tool", Name: wireName, DisableParallelToolUse: disable}
	default:
		out.choice = &toolChoiceWire{Type: "auto", DisableParallelToolUse: disable}
	}
	return out
}

func functionTool(t *provider.FunctionTool, s toolSetup, out *preparedTools) *functionToolWire {
	var opts ToolOptions
	if m := anthropicOptions(t.ProviderOptions); m != nil {
		decodeInto(m, &opts)
	}
	w := &functionToolWire{
		Name:           t.Name,
		Description:    t.Description,
		InputSchema:    t.InputSchema,
		DeferLoading:   opts.DeferLoading,
		AllowedCallers: opts.AllowedCallers,
	}
	if len(w.InputSchema) == 0 {
		w.InputSchema = emptyObjectSchema
	}
	if s.cache != nil {
		w.CacheControl = s.cache.take(t.ProviderOptions, "a tool definition", true)
	}
	w.EagerInputStreaming = s.eagerInput
	if opts.EagerInputStreaming != nil {
		w.EagerInputStreaming = *opts.EagerInputStreaming
	}
	if t.Strict != nil {
		if s.strictTools {
			w.Strict = t.Strict
		} else {
			out.warnings = append(out.warnings, provider.Warning{
				Type:    "unsupported",
				Feature: "strict",
				Details: fmt.Sprintf("tool '%s' sets strict: %t, but this model does not support strict tools; the setting is ignored.", t.Name, *t.Strict),
			})
		}
	}
	if t.InputExamples != nil {
		// An empty list is sent as one, as the reference does.
		w.InputExamples = make([]json.RawMessage, 0, len(t.InputExamples))
	}
	for _, ex := range t.InputExamples {
		if len(ex) == 0 {
			ex = json.RawMessage("null")
		}
		w.InputExamples = append(w.InputExamples, ex)
	}
	if s.structuredOutput {
		out.betas = append(out.betas, "structured-outputs-2025-11-13")
	}
	if t.InputExamples != nil || opts.AllowedCallers != nil {
		out.betas = append(out.betas, "advanced-tool-use-2025-11-20")
	}
	return w
}

// providerToolWire declares a provider tool: its type, its fixed name and
// the arguments the spec lists, renamed to their wire keys.
func providerToolWire(spec providerToolSpec, args map[string]any) *object {
	o := &object{}
	o.Set("type", spec.wireType)
	o.Set("name", spec.wireName)
	for _, a := range spec.args {
		v, ok := args[a[0]]
		if !ok {
			v, ok = args[a[1]]
		}
		if ok && v != nil {
			o.Set(a[1], v)
		}
	}
	return o
}

// toolWireName returns the "name" of a tool declaration.
func toolWireName(w any) string {
	switch w := w.(type) {
	case *functionToolWire:
		return w.Name
	case *object:
		if n, ok := w.Get("name"); ok {
			s, _ := n.(string)
			return s
		}
	}
	return ""
}
