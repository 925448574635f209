package openai

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/aisdkgo/ai/provider"
)

// This file holds constructors for OpenAI's built-in tools. Register them
// under a name of your choice; the model's calls and results are reported
// under that name:
//
//	tools := ai.Tools{
//		{Name: "webSearch", Tool: ai.ProviderDefined(openai.WebSearch(openai.WebSearchArgs{SearchContextSize: "low"}))},
//	}
//
// The tools work with Responses API models ([Provider.Responses] and
// [Provider.Model]); Chat Completions models drop them with a warning.

// UserLocation is an approximate user location that makes search results
// local.
type UserLocation struct {
	// Country is a two-letter ISO country code, for example "US".
	Country string
	// City and Region are free text, for example "Paris" and "Île-de-France".
	City   string
	Region string
	// Timezone is an IANA time zone, for example "America/Los_Angeles".
	Timezone string
}

func (l *UserLocation) args() map[string]any {
	if l == nil {
		return nil
	}
	m := map[string]any{"type": "approximate"}
	setString(m, "country", l.Country)
	setString(m, "city", l.City)
	setString(m, "region", l.Region)
	setString(m, "timezone", l.Timezone)
	return m
}

// WebSearchArgs configure [WebSearch].
type WebSearchArgs struct {
	// SearchContextSize is "low", "medium" or "high": how much context the
	// search retrieves.
	SearchContextSize string
	// UserLocation localises results.
	UserLocation *UserLocation
	// AllowedDomains and BlockedDomains limit the sites searched.
	AllowedDomains []string
	BlockedDomains []string
	// ExternalWebAccess false restricts the search to cached content.
	ExternalWebAccess *bool
}

// WebSearch returns OpenAI's hosted web search ("openai.web_search"). Its
// results are {"action": {"type": "search" | "openPage" | "findInPage",
// ...}, "sources": [...]}, and the answer cites pages as URL sources.
func WebSearch(args WebSearchArgs) provider.ToolSpec {
	m := map[string]any{}
	setString(m, "searchContextSize", args.SearchContextSize)
	if loc := args.UserLocation.args(); loc != nil {
		m["userLocation"] = loc
	}
	if args.AllowedDomains != nil || args.BlockedDomains != nil {
		filters := map[string]any{}
		if args.AllowedDomains != nil {
			filters["allowedDomains"] = args.AllowedDomains
		}
		if args.BlockedDomains != nil {
			filters["blockedDomains"] = args.BlockedDomains
		}
		m["filters"] = filters
	}
	if args.ExternalWebAccess != nil {
		m["externalWebAccess"] = *args.ExternalWebAccess
	}
	return hosted("openai.web_search", m)
}

// WebSearchPreviewArgs configure [WebSearchPreview].
type WebSearchPreviewArgs struct {
	// SearchContextSize is "low", "medium" or "high".
	SearchContextSize string
	// UserLocation localises results.
	UserLocation *UserLocation
}

// WebSearchPreview returns the preview version of OpenAI's web search
// ("openai.web_search_preview").
func WebSearchPreview(args WebSearchPreviewArgs) provider.ToolSpec {
	m := map[string]any{}
	setString(m, "searchContextSize", args.SearchContextSize)
	if loc := args.UserLocation.args(); loc != nil {
		m["userLocation"] = loc
	}
	return hosted("openai.web_search_preview", m)
}

// FileSearchArgs configure [FileSearch].
type FileSearchArgs struct {
	// VectorStoreIDs are the vector stores to search.
	VectorStoreIDs []string
	// MaxNumResults bounds the results; zero means the API's default.
	MaxNumResults int
	// Ranker and ScoreThreshold tune ranking; empty and nil mean defaults.
	Ranker         string
	ScoreThreshold *float64
	// Filters is an attribute filter, in the API's format.
	Filters map[string]any
}

// FileSearch returns OpenAI's hosted file search over vector stores
// ("openai.file_search"). Its results are {"queries": [...], "results":
// [{"fileId", "filename", "score", "text", "attributes"}]}.
func FileSearch(args FileSearchArgs) provider.ToolSpec {
	m := map[string]any{"vectorStoreIds": nonNilStrings(args.VectorStoreIDs)}
	if args.MaxNumResults > 0 {
		m["maxNumResults"] = args.MaxNumResults
	}
	if args.Ranker != "" || args.ScoreThreshold != nil {
		ranking := map[string]any{}
		setString(ranking, "ranker", args.Ranker)
		if args.ScoreThreshold != nil {
			ranking["scoreThreshold"] = *args.ScoreThreshold
		}
		m["ranking"] = ranking
	}
	if args.Filters != nil {
		m["filters"] = args.Filters
	}
	return hosted("openai.file_search", m)
}

// CodeInterpreterArgs configure [CodeInterpreter].
type CodeInterpreterArgs struct {
	// ContainerID runs the code in an existing container.
	ContainerID string
	// FileIDs are made available in the container created automatically
	// when ContainerID is empty.
	FileIDs []string
}

// CodeInterpreter returns OpenAI's hosted Python sandbox
// ("openai.code_interpreter"). Calls have the input {"code", "containerId"}
// and results {"outputs": [...]}.
func CodeInterpreter(args CodeInterpreterArgs) provider.ToolSpec {
	m := map[string]any{}
	switch {
	case args.ContainerID != "":
		m["container"] = args.ContainerID
	case args.FileIDs != nil:
		m["container"] = map[string]any{"fileIds": args.FileIDs}
	}
	return hosted("openai.code_interpreter", m)
}

// ImageGenerationArgs configure [ImageGeneration]. Empty fields use the
// API's defaults.
type ImageGenerationArgs struct {
	Background        string // "auto", "opaque" or "transparent"
	InputFidelity     string // "low" or "high"
	Model             string
	Moderation        string
	OutputCompression *int
	OutputFormat      string // "png", "jpeg" or "webp"
	PartialImages     *int
	Quality           string
	Size              string
	// MaskFileID and MaskImageURL give a mask for inpainting.
	MaskFileID   string
	MaskImageURL string
}

// ImageGeneration returns OpenAI's hosted image generation
// ("openai.image_generation"). Results are {"result": <base64 image>};
// streams deliver partial images as preliminary results.
func ImageGeneration(args ImageGenerationArgs) provider.ToolSpec {
	m := map[string]any{}
	setString(m, "background", args.Background)
	setString(m, "inputFidelity", args.InputFidelity)
	setString(m, "model", args.Model)
	setString(m, "moderation", args.Moderation)
	setString(m, "outputFormat", args.OutputFormat)
	setString(m, "quality", args.Quality)
	setString(m, "size", args.Size)
	if args.OutputCompression != nil {
		m["outputCompression"] = *args.OutputCompression
	}
	if args.PartialImages != nil {
		m["partialImages"] = *args.PartialImages
	}
	if args.MaskFileID != "" || args.MaskImageURL != "" {
		mask := map[string]any{}
		setString(mask, "fileId", args.MaskFileID)
		setString(mask, "imageUrl", args.MaskImageURL)
		m["inputImageMask"] = mask
	}
	return hosted("openai.image_generation", m)
}

// MCPArgs configure [MCP].
type MCPArgs struct {
	// ServerLabel names the server in calls ("mcp.<tool>" tool names).
	ServerLabel string
	// ServerURL or ConnectorID says where the tools live.
	ServerURL   string
	ConnectorID string
	// Authorization is an OAuth access token for the server.
	Authorization string
	// Headers are sent with the requests to the server.
	Headers map[string]string
	// ServerDescription tells the model what the server offers.
	ServerDescription string
	// AllowedTools limits the server's tools to these names.
	AllowedTools []string
	// RequireApproval is "never" (the default) or "always"; with "always"
	// the model asks for approval and the calls arrive as approval requests.
	RequireApproval string
}

// MCP returns a remote MCP server whose tools OpenAI calls ("openai.mcp").
// Calls and results are reported as dynamic tools named "mcp.<tool>".
func MCP(args MCPArgs) provider.ToolSpec {
	m := map[string]any{"serverLabel": args.ServerLabel}
	setString(m, "serverUrl", args.ServerURL)
	setString(m, "connectorId", args.ConnectorID)
	setString(m, "authorization", args.Authorization)
	setString(m, "serverDescription", args.ServerDescription)
	setString(m, "requireApproval", args.RequireApproval)
	if args.Headers != nil {
		m["headers"] = args.Headers
	}
	if args.AllowedTools != nil {
		m["allowedTools"] = args.AllowedTools
	}
	return hosted("openai.mcp", m)
}

// ToolSearchArgs configure [ToolSearch] and [ClientToolSearch].
type ToolSearchArgs struct {
	// Description tells the model what the search finds.
	Description string
	// Parameters is the JSON Schema of the search arguments the model
	// writes (client search only; the hosted search has its own).
	Parameters map[string]any
}

// ToolSearch returns OpenAI's hosted tool search ("openai.tool_search"). It
// lets the model load function tools marked as deferred (provider option
// deferLoading on the tool) only when it needs them; the search and its
// result arrive as a provider-executed call and result, and the call of a
// loaded tool carries the namespace it was found in.
func ToolSearch(args ToolSearchArgs) provider.ToolSpec {
	m := map[string]any{}
	setString(m, "description", args.Description)
	if args.Parameters != nil {
		m["parameters"] = args.Parameters
	}
	return hosted("openai.tool_search", m)
}

// ClientToolSearch returns a tool search that your code performs
// ("openai.tool_search" with execution "client"). The model calls it with
// arguments matching args.Parameters; search receives them and returns the
// definitions of the tools to load, in the Responses API's tool format (for
// example {"type": "function", "name", "description", "parameters"}).
func ClientToolSearch(args ToolSearchArgs, search func(ctx context.Context, arguments json.RawMessage) ([]json.RawMessage, error)) provider.ToolSpec {
	m := map[string]any{"execution": "client"}
	setString(m, "description", args.Description)
	if args.Parameters != nil {
		m["parameters"] = args.Parameters
	}
	return provider.ToolSpec{
		ID:   "openai.tool_search",
		Args: m,
		Execute: func(ctx context.Context, in json.RawMessage) (any, error) {
			var call struct {
				Arguments json.RawMessage `json:"arguments"`
			}
			if err := json.Unmarshal(in, &call); err != nil {
				return nil, fmt.Errorf("tool search input: %w", err)
			}
			tools, err := search(ctx, call.Arguments)
			if err != nil {
				return nil, err
			}
			if tools == nil {
				tools = []json.RawMessage{}
			}
			return map[string]any{"tools": tools}, nil
		},
	}
}

// CustomToolArgs configure [CustomTool].
type CustomToolArgs struct {
	// Name is the name the model calls the tool by.
	Name string
	// Description tells the model what the tool does.
	Description string
	// Format constrains the input, in the API's format, for example
	// {"type": "grammar", "syntax": "lark", "definition": "..."}; nil allows
	// free text.
	Format map[string]any
}

// CustomTool returns a tool whose input is free text, optionally
// constrained by a grammar ("openai.custom"). execute receives the text the
// model wrote.
func CustomTool(args CustomToolArgs, execute func(ctx context.Context, input string) (any, error)) provider.ToolSpec {
	m := map[string]any{"name": args.Name}
	setString(m, "description", args.Description)
	if args.Format != nil {
		m["format"] = args.Format
	}
	return provider.ToolSpec{
		ID:   "openai.custom",
		Args: m,
		Execute: func(ctx context.Context, in json.RawMessage) (any, error) {
			var text string
			if err := json.Unmarshal(in, &text); err != nil {
				text = string(in)
			}
			return execute(ctx, text)
		},
	}
}

// hosted returns a provider-executed tool.
func hosted(id string, args map[string]any) provider.ToolSpec {
	return provider.ToolSpec{ID: id, Args: args, ProviderExecuted: true}
}

func setString(m map[string]any, key, value string) {
	if value != "" {
		m[key] = value
	}
}

func nonNilStrings(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}
