package google

import (
	"encoding/json"

	"github.com/aisdkgo/ai/provider"
)

// This file holds the tools Google runs itself. Register them with the ai
// package under a name of your choice:
//
//	tools := ai.Tools{
//		{Name: "google_search", Tool: ai.ProviderDefined(google.GoogleSearch(google.GoogleSearchArgs{}))},
//		{Name: "code_execution", Tool: ai.ProviderDefined(google.CodeExecution())},
//	}
//
// Gemini 2 and later models accept them. Before Gemini 3 they cannot be
// combined with function tools in one call: the function tools are then
// dropped with a warning. Calls and results of the code execution tool are
// reported under the name it was registered with; the searches and fetches
// of the other tools are not reported as calls, their findings arrive as
// sources and in the provider metadata (groundingMetadata,
// urlContextMetadata). With Gemini 3, combining provider and function tools
// reports the server's own calls as dynamic provider-executed calls named
// "server:<TOOL_TYPE>".

// TimeRange bounds the publication time of search results; times are RFC
// 3339 ("2025-01-01T00:00:00Z").
type TimeRange struct {
	StartTime string
	EndTime   string
}

// GoogleSearchArgs configure [GoogleSearch].
type GoogleSearchArgs struct {
	// TimeRangeFilter keeps results published in the range.
	TimeRangeFilter *TimeRange
	// ImageSearch adds image results to web results.
	ImageSearch bool
}

// GoogleSearch returns grounding with Google Search ("google.google_search"):
// the model searches the web when it needs to, and the answer comes with
// URL sources and groundingMetadata (the queries, the chunks and which
// parts of the text they support).
func GoogleSearch(args GoogleSearchArgs) provider.ToolSpec {
	m := map[string]any{}
	if r := args.TimeRangeFilter; r != nil {
		m["timeRangeFilter"] = map[string]any{"startTime": r.StartTime, "endTime": r.EndTime}
	}
	if args.ImageSearch {
		m["searchTypes"] = map[string]any{"webSearch": map[string]any{}, "imageSearch": map[string]any{}}
	}
	return hosted("google.google_search", m)
}

// CodeExecution returns Google's Python sandbox ("google.code_execution").
// Calls have the input {"language", "code"} and results {"outcome",
// "output"}.
func CodeExecution() provider.ToolSpec {
	return hosted("google.code_execution", nil)
}

// URLContext returns URL context ("google.url_context"): the model reads the
// pages whose URLs appear in the prompt. What it fetched is reported in the
// urlContextMetadata provider metadata.
func URLContext() provider.ToolSpec {
	return hosted("google.url_context", nil)
}

// GoogleMaps returns grounding with Google Maps ("google.google_maps"). A
// location for it can be given with the retrievalConfig provider option.
func GoogleMaps() provider.ToolSpec {
	return hosted("google.google_maps", nil)
}

// EnterpriseWebSearch returns grounding with Vertex AI's compliance-focused
// web index ("google.enterprise_web_search"); Vertex AI only.
func EnterpriseWebSearch() provider.ToolSpec {
	return hosted("google.enterprise_web_search", nil)
}

// FileSearchArgs configure [FileSearch].
type FileSearchArgs struct {
	// FileSearchStoreNames are the stores to search, for example
	// "fileSearchStores/my-store-123".
	FileSearchStoreNames []string
	// TopK bounds the chunks retrieved; 0 means the API's default.
	TopK int
	// MetadataFilter restricts the documents searched (https://google.aip.dev/160).
	MetadataFilter string
}

// FileSearch returns retrieval from Gemini File Search stores
// ("google.file_search"); Gemini 2.5 and later. Retrieved documents arrive
// as document sources.
func FileSearch(args FileSearchArgs) provider.ToolSpec {
	names := args.FileSearchStoreNames
	if names == nil {
		names = []string{}
	}
	m := map[string]any{"fileSearchStoreNames": names}
	if args.TopK > 0 {
		m["topK"] = args.TopK
	}
	if args.MetadataFilter != "" {
		m["metadataFilter"] = args.MetadataFilter
	}
	return hosted("google.file_search", m)
}

// VertexRAGStoreArgs configure [VertexRAGStore].
type VertexRAGStoreArgs struct {
	// RAGCorpus is the corpus resource name,
	// "projects/{project}/locations/{location}/ragCorpora/{id}".
	RAGCorpus string
	// TopK bounds the contexts retrieved; 0 means the API's default.
	TopK int
}

// VertexRAGStore returns retrieval from a Vertex AI RAG Engine corpus
// ("google.vertex_rag_store"); Vertex AI only.
func VertexRAGStore(args VertexRAGStoreArgs) provider.ToolSpec {
	m := map[string]any{"ragCorpus": args.RAGCorpus}
	if args.TopK > 0 {
		m["topK"] = args.TopK
	}
	return hosted("google.vertex_rag_store", m)
}

func hosted(id string, args map[string]any) provider.ToolSpec {
	if args == nil {
		args = map[string]any{}
	}
	return provider.ToolSpec{ID: id, Args: args, ProviderExecuted: true}
}

// functionDeclaration is a function tool on the wire.
type functionDeclaration struct {
	Name                 string          `json:"name"`
	Description          string          `json:"description"`
	ParametersJSONSchema json.RawMessage `json:"parametersJsonSchema"`
}

// functionCallingConfig is toolConfig.functionCallingConfig.
type functionCallingConfig struct {
	Mode                        string   `json:"mode"`
	AllowedFunctionNames        []string `json:"allowedFunctionNames,omitempty"`
	StreamFunctionCallArguments bool     `json:"streamFunctionCallArguments,omitempty"`
}

// toolConfig is the request's toolConfig.
type toolConfig struct {
	FunctionCallingConfig            *functionCallingConfig `json:"functionCallingConfig,omitempty"`
	IncludeServerSideToolInvocations bool                   `json:"includeServerSideToolInvocations,omitempty"`
	RetrievalConfig                  any                    `json:"retrievalConfig,omitempty"`
}

// preparedTools are the request's tools and tool configuration.
type preparedTools struct {
	tools    []any
	config   *toolConfig
	warnings []provider.Warning
	// codeExecution is the application's name of the code execution tool.
	codeExecution string
}

func unsupportedTool(id, details string) provider.Warning {
	return provider.Warning{Type: "unsupported", Feature: "provider-defined tool " + id, Details: details}
}

// prepareTools converts the call's tools and tool choice.
func (m *languageModel) prepareTools(tools []provider.Tool, choice provider.ToolChoice) (*preparedTools, error) {
	out := &preparedTools{codeExecution: "code_execution"}
	for _, t := range tools {
		if pt, ok := t.(*provider.ProviderTool); ok && pt.ID == "google.code_execution" {
			out.codeExecution = pt.Name
		}
	}
	// NONE only disables function calling; provider tools are left out so
	// that they cannot run. Function declarations stay for the history.
	if choice.Type == provider.ToolChoiceNone {
		var kept []provider.Tool
		for _, t := range tools {
			if _, ok := t.(*provider.FunctionTool); ok {
				kept = append(kept, t)
			}
		}
		tools = kept
	}
	if len(tools) == 0 {
		return out, nil
	}
	var functions []*provider.FunctionTool
	var providerTools []*provider.ProviderTool
	for _, t := range tools {
		switch t := t.(type) {
		case *provider.FunctionTool:
			functions = append(functions, t)
		case *provider.ProviderTool:
			providerTools = append(providerTools, t)
		}
	}
	caps := m.caps
	vertex := m.p.cfg.vertex
	if len(functions) > 0 && len(providerTools) > 0 && !caps.gemini3 {
		out.warnings = append(out.warnings, provider.Warning{Type: "unsupported", Feature: "combination of function and provider-defined tools"})
	}
	if len(providerTools) > 0 {
		var hostedTools []any
		for _, t := range providerTools {
			switch t.ID {
			case "google.google_search":
				if caps.gemini2Tools {
					hostedTools = append(hostedTools, map[string]any{"googleSearch": argsOf(t)})
				} else {
					out.warnings = append(out.warnings, unsupportedTool(t.ID, "Google Search requires Gemini 2.0 or newer."))
				}
			case "google.enterprise_web_search":
				if caps.gemini2Tools {
					hostedTools = append(hostedTools, map[string]any{"enterpriseWebSearch": map[string]any{}})
				} else {
					out.warnings = append(out.warnings, unsupportedTool(t.ID, "Enterprise Web Search requires Gemini 2.0 or newer."))
				}
			case "google.url_context":
				if caps.gemini2Tools {
					hostedTools = append(hostedTools, map[string]any{"urlContext": map[string]any{}})
				} else {
					out.warnings = append(out.warnings, unsupportedTool(t.ID, "The URL context tool is not supported with other Gemini models than Gemini 2."))
				}
			case "google.code_execution":
				if caps.gemini2Tools {
					hostedTools = append(hostedTools, map[string]any{"codeExecution": map[string]any{}})
				} else {
					out.warnings = append(out.warnings, unsupportedTool(t.ID, "The code execution tool is not supported with other Gemini models than Gemini 2."))
				}
			case "google.file_search":
				if caps.fileSearch {
					hostedTools = append(hostedTools, map[string]any{"fileSearch": argsOf(t)})
				} else {
					out.warnings = append(out.warnings, unsupportedTool(t.ID, "The file search tool is only supported with Gemini 2.5 models and Gemini 3 models."))
				}
			case "google.vertex_rag_store":
				if caps.gemini2Tools {
					store := map[string]any{"rag_resources": map[string]any{"rag_corpus": t.Args["ragCorpus"]}}
					if k, ok := t.Args["topK"]; ok {
						store["similarity_top_k"] = k
					}
					hostedTools = append(hostedTools, map[string]any{"retrieval": map[string]any{"vertex_rag_store": store}})
				} else {
					out.warnings = append(out.warnings, unsupportedTool(t.ID, "The RAG store tool is not supported with other Gemini models than Gemini 2."))
				}
			case "google.google_maps":
				if caps.gemini2Tools {
					hostedTools = append(hostedTools, map[string]any{"googleMaps": map[string]any{}})
				} else {
					out.warnings = append(out.warnings, unsupportedTool(t.ID, "The Google Maps grounding tool is not supported with Gemini models other than Gemini 2 or newer."))
				}
			default:
				out.warnings = append(out.warnings, unsupportedTool(t.ID, ""))
			}
		}
		if len(functions) > 0 && caps.gemini3 && len(hostedTools) > 0 {
			cfg := &toolConfig{FunctionCallingConfig: &functionCallingConfig{Mode: "VALIDATED"}, IncludeServerSideToolInvocations: !vertex}
			switch choice.Type {
			case provider.ToolChoiceNone:
				cfg.FunctionCallingConfig = &functionCallingConfig{Mode: "NONE"}
			case provider.ToolChoiceRequired:
				cfg.FunctionCallingConfig = &functionCallingConfig{Mode: "ANY"}
			case provider.ToolChoiceTool:
				cfg.FunctionCallingConfig = &functionCallingConfig{Mode: "ANY", AllowedFunctionNames: []string{choice.ToolName}}
			}
			out.tools = append(hostedTools, map[string]any{"functionDeclarations": declarations(functions)})
			out.config = cfg
			return out, nil
		}
		out.tools = hostedTools
		return out, nil
	}
	strict := false
	for _, f := range functions {
		if f.Strict != nil && *f.Strict {
			strict = true
		}
	}
	out.tools = []any{map[string]any{"functionDeclarations": declarations(functions)}}
	mode := "AUTO"
	if strict {
		mode = "VALIDATED"
	}
	fcc := &functionCallingConfig{Mode: mode}
	switch choice.Type {
	case provider.ToolChoiceNone:
		fcc = &functionCallingConfig{Mode: "NONE"}
	case provider.ToolChoiceRequired:
		fcc = &functionCallingConfig{Mode: "ANY"}
	case provider.ToolChoiceTool:
		fcc = &functionCallingConfig{Mode: "ANY", AllowedFunctionNames: []string{choice.ToolName}}
	case provider.ToolChoiceAuto, "":
	default:
		return nil, &provider.UnsupportedFunctionalityError{Functionality: "tool choice type: " + string(choice.Type)}
	}
	out.config = &toolConfig{FunctionCallingConfig: fcc}
	return out, nil
}

func argsOf(t *provider.ProviderTool) map[string]any {
	if t.Args == nil {
		return map[string]any{}
	}
	return t.Args
}

func declarations(functions []*provider.FunctionTool) []functionDeclaration {
	out := make([]functionDeclaration, 0, len(functions))
	for _, f := range functions {
		schema := f.InputSchema
		if len(schema) == 0 {
			schema = json.RawMessage(`{"type":"object","properties":{}}`)
		}
		out = append(out, functionDeclaration{Name: f.Name, Description: f.Description, ParametersJSONSchema: schema})
	}
	return out
}
