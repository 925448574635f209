package openai

import (
	"encoding/json"
	"fmt"
	"slices"

	"github.com/aisdkgo/ai/internal/openaichat"
	"github.com/aisdkgo/ai/provider"
)

// wireToolTypes maps provider tool ids to the Responses API tool types.
var wireToolTypes = map[string]string{
	"openai.web_search":         "web_search",
	"openai.web_search_preview": "web_search_preview",
	"openai.file_search":        "file_search",
	"openai.code_interpreter":   "code_interpreter",
	"openai.image_generation":   "image_generation",
	"openai.mcp":                "mcp",
	"openai.tool_search":        "tool_search",
}

// builtinChoiceTypes are the built-in tools a tool choice names by type.
var builtinChoiceTypes = []string{"code_interpreter", "file_search", "image_generation", "web_search_preview", "web_search", "mcp"}

// toolNames maps between the names an application gives provider tools and
// the names the API uses for them ("web_search", or a custom tool's name).
type toolNames struct {
	toWire map[string]string
	toApp  map[string]string
	// custom holds the wire names of custom (grammar) tools.
	custom map[string]bool
	// byID holds the application name of the provider tool with each id.
	byID map[string]string
}

func newToolNames(tools []provider.Tool) *toolNames {
	n := &toolNames{toWire: map[string]string{}, toApp: map[string]string{}, custom: map[string]bool{}, byID: map[string]string{}}
	for _, t := range tools {
		pt, ok := t.(*provider.ProviderTool)
		if !ok {
			continue
		}
		wire, known := wireToolTypes[pt.ID]
		if pt.ID == "openai.custom" {
			wire, _ = pt.Args["name"].(string)
			if wire == "" {
				wire = pt.Name
			}
			n.custom[wire] = true
			known = true
		}
		if !known {
			continue
		}
		n.toWire[pt.Name] = wire
		n.toApp[wire] = pt.Name
		if _, seen := n.byID[pt.ID]; !seen {
			n.byID[pt.ID] = pt.Name
		}
	}
	return n
}

// wire returns the API's name for an application tool name.
func (n *toolNames) wire(app string) string {
	if w, ok := n.toWire[app]; ok {
		return w
	}
	return app
}

// app returns the application's name for an API tool name.
func (n *toolNames) app(wire string) string {
	if a, ok := n.toApp[wire]; ok {
		return a
	}
	return wire
}

// webSearch returns the application's name of the web search tool.
func (n *toolNames) webSearch() string {
	if a, ok := n.byID["openai.web_search"]; ok {
		return a
	}
	if a, ok := n.byID["openai.web_search_preview"]; ok {
		return a
	}
	return "web_search"
}

// argsOf returns a provider tool's arguments as plain JSON values.
func argsOf(t *provider.ProviderTool) (map[string]any, error) {
	out := map[string]any{}
	if len(t.Args) == 0 {
		return out, nil
	}
	b, err := json.Marshal(t.Args)
	if err != nil {
		return nil, fmt.Errorf("arguments of provider tool %q: %w", t.Name, err)
	}
	if err := json.Unmarshal(b, &out); err != nil {
		return nil, fmt.Errorf("arguments of provider tool %q: %w", t.Name, err)
	}
	return out, nil
}

// rename copies src[from] to dst[to] when present and not null.
func rename(dst, src map[string]any, pairs ...string) {
	for i := 0; i+1 < len(pairs); i += 2 {
		if v, ok := src[pairs[i]]; ok && v != nil {
			dst[pairs[i+1]] = v
		}
	}
}

// wireTool converts a provider tool; ok is false for unsupported ids.
func wireTool(t *provider.ProviderTool) (tool map[string]any, ok bool, err error) {
	args, err := argsOf(t)
	if err != nil {
		return nil, false, err
	}
	switch t.ID {
	case "openai.web_search":
		tool = map[string]any{"type": "web_search"}
		if f, ok := args["filters"].(map[string]any); ok {
			filters := map[string]any{}
			rename(filters, f, "allowedDomains", "allowed_domains", "blockedDomains", "blocked_domains")
			tool["filters"] = filters
		}
		rename(tool, args, "externalWebAccess", "external_web_access", "searchContextSize", "search_context_size", "userLocation", "user_location")
	case "openai.web_search_preview":
		tool = map[string]any{"type": "web_search_preview"}
		rename(tool, args, "searchContextSize", "search_context_size", "userLocation", "user_location")
	case "openai.file_search":
		tool = map[string]any{"type": "file_search"}
		rename(tool, args, "vectorStoreIds", "vector_store_ids", "maxNumResults", "max_num_results", "filters", "filters")
		if r, ok := args["ranking"].(map[string]any); ok {
			ranking := map[string]any{}
			rename(ranking, r, "ranker", "ranker", "scoreThreshold", "score_threshold")
			tool["ranking_options"] = ranking
		}
	case "openai.code_interpreter":
		container := any(map[string]any{"type": "auto"})
		switch c := args["container"].(type) {
		case string:
			container = c
		case map[string]any:
			auto := map[string]any{"type": "auto"}
			rename(auto, c, "fileIds", "file_ids")
			container = auto
		}
		tool = map[string]any{"type": "code_interpreter", "container": container}
	case "openai.image_generation":
		tool = map[string]any{"type": "image_generation"}
		rename(tool, args, "background", "background", "inputFidelity", "input_fidelity", "model", "model",
			"moderation", "moderation", "partialImages", "partial_images", "quality", "quality",
			"outputCompression", "output_compression", "outputFormat", "output_format", "size", "size")
		if m, ok := args["inputImageMask"].(map[string]any); ok {
			mask := map[string]any{}
			rename(mask, m, "fileId", "file_id", "imageUrl", "image_url")
			tool["input_image_mask"] = mask
		}
	case "openai.mcp":
		tool = map[string]any{"type": "mcp", "require_approval": "never"}
		rename(tool, args, "serverLabel", "server_label", "authorization", "authorization", "connectorId", "connector_id",
			"headers", "headers", "serverDescription", "server_description", "serverUrl", "server_url")
		switch a := args["allowedTools"].(type) {
		case []any:
			tool["allowed_tools"] = a
		case map[string]any:
			allowed := map[string]any{}
			rename(allowed, a, "readOnly", "read_only", "toolNames", "tool_names")
			tool["allowed_tools"] = allowed
		}
		switch r := args["requireApproval"].(type) {
		case string:
			tool["require_approval"] = r
		case map[string]any:
			if never, ok := r["never"].(map[string]any); ok {
				filter := map[string]any{}
				rename(filter, never, "toolNames", "tool_names")
				tool["require_approval"] = map[string]any{"never": filter}
			}
		}
	case "openai.tool_search":
		tool = map[string]any{"type": "tool_search"}
		rename(tool, args, "execution", "execution", "description", "description", "parameters", "parameters")
	case "openai.custom":
		tool = map[string]any{"type": "custom"}
		rename(tool, args, "name", "name", "description", "description", "format", "format", "async", "async")
		if _, ok := tool["name"]; !ok {
			tool["name"] = t.Name
		}
	default:
		return nil, false, nil
	}
	return tool, true, nil
}

// functionToolOptions are the "openai" provider options of a function tool.
type functionToolOptions struct {
	DeferLoading *bool `json:"deferLoading"`
	// AllowedCallers says who may call the tool ("direct", "programmatic").
	AllowedCallers []string `json:"allowedCallers"`
	// OutputSchema is the JSON Schema of the tool's output; results of such
	// a tool are always sent as JSON text.
	OutputSchema json.RawMessage `json:"outputSchema"`
	Namespace    *struct {
		Name        string `json:"name"`
		Description string `json:"description"`
	} `json:"namespace"`
}

// outputSchemaTools returns the names of the function tools that declare an
// output schema.
func outputSchemaTools(tools []provider.Tool) map[string]bool {
	out := map[string]bool{}
	for _, t := range tools {
		if ft, ok := t.(*provider.FunctionTool); ok {
			var opts functionToolOptions
			if _, err := openaichat.DecodeOptions(ft.ProviderOptions, providerKey, &opts); err == nil &&
				len(opts.OutputSchema) > 0 && string(opts.OutputSchema) != "null" {
				out[ft.Name] = true
			}
		}
	}
	return out
}

// allowEntry says how a tool may be named in an allowed_tools choice.
type allowEntry struct {
	entry  map[string]any
	reason string // why it cannot be listed, when entry is nil
}

// prepareTools converts the tool definitions and the tool choice.
func prepareTools(tools []provider.Tool, choice provider.ToolChoice, allowed *allowedTools, names *toolNames) ([]any, any, []provider.Warning, error) {
	var warnings []provider.Warning
	var out []any
	namespaces := map[string]map[string]any{}
	allow := map[string]allowEntry{}
	for _, t := range tools {
		switch t := t.(type) {
		case *provider.FunctionTool:
			var opts functionToolOptions
			if _, err := openaichat.DecodeOptions(t.ProviderOptions, providerKey, &opts); err != nil {
				return nil, nil, nil, fmt.Errorf("tool %q: %w", t.Name, err)
			}
			fn := map[string]any{"type": "function", "name": t.Name, "parameters": openaichat.Schema(t.InputSchema)}
			if t.Description != "" {
				fn["description"] = t.Description
			}
			// The API's default for strict is true; a tool that does not ask
			// for strict inputs is sent as not strict.
			fn["strict"] = t.Strict != nil && *t.Strict
			if opts.DeferLoading != nil {
				fn["defer_loading"] = *opts.DeferLoading
			}
			if opts.AllowedCallers != nil {
				fn["allowed_callers"] = opts.AllowedCallers
			}
			if len(opts.OutputSchema) > 0 && string(opts.OutputSchema) != "null" {
				fn["output_schema"] = openaichat.NormalizeSchema(opts.OutputSchema)
			}
			switch {
			case opts.Namespace != nil:
				ns := namespaces[opts.Namespace.Name]
				if ns == nil {
					ns = map[string]any{"type": "namespace", "name": opts.Namespace.Name, "tools": []any{}}
					if opts.Namespace.Description != "" {
						ns["description"] = opts.Namespace.Description
					}
					namespaces[opts.Namespace.Name] = ns
					out = append(out, ns)
				} else if d, _ := ns["description"].(string); d != opts.Namespace.Description {
					return nil, nil, nil, &provider.UnsupportedFunctionalityError{
						Functionality: fmt.Sprintf("conflicting descriptions for the tool namespace %q", opts.Namespace.Name)}
				}
				ns["tools"] = append(ns["tools"].([]any), fn)
				allow[t.Name] = allowEntry{reason: "tools inside a namespace cannot be listed in allowed tools"}
			default:
				out = append(out, fn)
				if opts.DeferLoading != nil && *opts.DeferLoading {
					allow[t.Name] = allowEntry{reason: "deferred tools cannot be listed in allowed tools"}
				} else {
					allow[t.Name] = allowEntry{entry: map[string]any{"type": "function", "name": t.Name}}
				}
			}
		case *provider.ProviderTool:
			tool, ok, err := wireTool(t)
			if err != nil {
				return nil, nil, nil, err
			}
			if !ok {
				warnings = append(warnings, provider.Warning{Type: "unsupported", Feature: "provider-defined tool " + t.ID})
				continue
			}
			out = append(out, tool)
			typ := tool["type"].(string)
			switch typ {
			case "custom":
				allow[t.Name] = allowEntry{entry: map[string]any{"type": "custom", "name": tool["name"]}}
			case "mcp":
				allow[t.Name] = allowEntry{entry: map[string]any{"type": "mcp", "server_label": tool["server_label"]}}
			case "tool_search":
				allow[t.Name] = allowEntry{reason: "tool search cannot be listed in allowed tools"}
			default:
				allow[t.Name] = allowEntry{entry: map[string]any{"type": typ}}
			}
		default:
			warnings = append(warnings, provider.Warning{Type: "unsupported", Feature: fmt.Sprintf("tool type %T", t)})
		}
	}
	if len(out) == 0 {
		return nil, nil, warnings, nil
	}
	if allowed != nil && len(allowed.ToolNames) > 0 {
		var entries []any
		var dropped []string
		for _, name := range allowed.ToolNames {
			a, ok := allow[name]
			switch {
			case !ok:
				warnings = append(warnings, provider.Warning{Type: "unsupported", Feature: fmt.Sprintf("allowedTools entry %q", name),
					Details: "the tool is not among the tools of this call and is sent as a function tool"})
				entries = append(entries, map[string]any{"type": "function", "name": names.wire(name)})
			case a.entry == nil:
				warnings = append(warnings, provider.Warning{Type: "unsupported", Feature: fmt.Sprintf("allowedTools entry %q", name),
					Details: a.reason + "; it was removed from the allowed tools"})
				dropped = append(dropped, name)
			default:
				entries = append(entries, a.entry)
			}
		}
		if len(entries) == 0 {
			return nil, nil, nil, &provider.UnsupportedFunctionalityError{
				Functionality: fmt.Sprintf("allowedTools listing only tools that cannot be allowed (%v)", dropped)}
		}
		mode := allowed.Mode
		if mode == "" {
			mode = "auto"
		}
		return out, map[string]any{"type": "allowed_tools", "mode": mode, "tools": entries}, warnings, nil
	}
	choice = choice.Normalized()
	if choice.Type != provider.ToolChoiceTool {
		return out, string(choice.Type), warnings, nil
	}
	wire := names.wire(choice.ToolName)
	switch {
	case slices.Contains(builtinChoiceTypes, wire):
		return out, map[string]any{"type": wire}, warnings, nil
	case names.custom[wire]:
		return out, map[string]any{"type": "custom", "name": wire}, warnings, nil
	}
	return out, map[string]any{"type": "function", "name": wire}, warnings, nil
}
