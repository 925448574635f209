package anthropic

import (
	"encoding/json"

	"github.com/aisdkgo/ai/provider"
)

// This file holds constructors for the tools Anthropic runs itself. Register
// them under a name of your choice; calls and results are reported under
// that name:
//
//	tools := ai.Tools{
//		{Name: "tool_search", Tool: ai.ProviderDefined(anthropic.ToolSearchRegex())},
//		{Name: "get_weather", Tool: weather}, // with ProviderOptions: anthropic.DeferLoading()
//	}
//
// All of them are provider-executed and may deliver a result in a later
// response than the call (a deferred result).

// ToolSearchRegex returns Anthropic's regex tool search
// ("anthropic.tool_search_regex_20251119"). The model searches the request's
// tools, including those marked with [DeferLoading], with a Python regular
// expression; its input is {"pattern": string, "limit"?: number}. The result
// lists the tools found as [{"type": "tool_reference", "toolName": name}],
// and the API loads those tools for the rest of the turn. A failed search
// reports {"type": "tool_search_tool_result_error", "errorCode": code} as an
// error result. The search tool itself must not be deferred.
func ToolSearchRegex() provider.ToolSpec {
	return hosted("anthropic.tool_search_regex_20251119", nil, inputSchema(map[string]any{
		"pattern": map[string]any{"type": "string", "description": "A Python regular expression matched against tool names and descriptions."},
		"limit":   map[string]any{"type": "number", "description": "The most tools to return."},
	}, "pattern"))
}

// ToolSearchBM25 returns Anthropic's natural-language tool search
// ("anthropic.tool_search_bm25_20251119"). It works like [ToolSearchRegex]
// with input {"query": string, "limit"?: number}.
func ToolSearchBM25() provider.ToolSpec {
	return hosted("anthropic.tool_search_bm25_20251119", nil, inputSchema(map[string]any{
		"query": map[string]any{"type": "string", "description": "What the tool should do, in natural language."},
		"limit": map[string]any{"type": "number", "description": "The most tools to return."},
	}, "query"))
}

// UserLocation is an approximate location that localizes web search
// results.
type UserLocation struct {
	// City and Region are free text, for example "San Francisco" and
	// "California".
	City   string
	Region string
	// Country is a two-letter ISO country code, for example "US".
	Country string
	// Timezone is an IANA time zone, for example "America/Los_Angeles".
	Timezone string
}

// WebSearchArgs configure [WebSearch].
type WebSearchArgs struct {
	// MaxUses bounds the searches per request; zero means no bound.
	MaxUses int
	// AllowedDomains and BlockedDomains limit the sites searched; set at
	// most one of them.
	AllowedDomains []string
	BlockedDomains []string
	// UserLocation localizes the results.
	UserLocation *UserLocation
}

// WebSearch returns Anthropic's web search ("anthropic.web_search_20250305").
// Its input is {"query": string}. Its result lists the pages found as
// [{"type": "web_search_result", "url", "title", "pageAge",
// "encryptedContent"}], each also reported as a URL source; text that cites
// them carries the citations in its provider metadata.
func WebSearch(args WebSearchArgs) provider.ToolSpec {
	m := webArgs(args.MaxUses, args.AllowedDomains, args.BlockedDomains)
	if l := args.UserLocation; l != nil {
		loc := map[string]any{"type": "approximate"}
		for k, v := range map[string]string{"city": l.City, "region": l.Region, "country": l.Country, "timezone": l.Timezone} {
			if v != "" {
				loc[k] = v
			}
		}
		m["userLocation"] = loc
	}
	return hosted("anthropic.web_search_20250305", m, inputSchema(map[string]any{
		"query": map[string]any{"type": "string"},
	}, "query"))
}

// webArgs returns the arguments web search and web fetch share: the use
// bound and the domain lists, each only when set.
func webArgs(maxUses int, allowed, blocked []string) map[string]any {
	m := map[string]any{}
	if maxUses > 0 {
		m["maxUses"] = maxUses
	}
	if allowed != nil {
		m["allowedDomains"] = allowed
	}
	if blocked != nil {
		m["blockedDomains"] = blocked
	}
	return m
}

// WebFetchArgs configure [WebFetch].
type WebFetchArgs struct {
	// MaxUses bounds the fetches per request; zero means no bound.
	MaxUses int
	// AllowedDomains and BlockedDomains limit the sites fetched.
	AllowedDomains []string
	BlockedDomains []string
	// Citations lets the answer cite the fetched documents.
	Citations bool
	// MaxContentTokens bounds the tokens of fetched content; zero means the
	// API's default.
	MaxContentTokens int
}

// WebFetch returns Anthropic's web fetch ("anthropic.web_fetch_20250910").
// Its input is {"url": string}. Its result is {"type": "web_fetch_result",
// "url", "retrievedAt", "content": {"type": "document", "title", "source"}},
// or an error result {"type": "web_fetch_tool_result_error", "errorCode"}.
func WebFetch(args WebFetchArgs) provider.ToolSpec {
	m := webArgs(args.MaxUses, args.AllowedDomains, args.BlockedDomains)
	if args.Citations {
		m["citations"] = map[string]any{"enabled": true}
	}
	if args.MaxContentTokens > 0 {
		m["maxContentTokens"] = args.MaxContentTokens
	}
	return hosted("anthropic.web_fetch_20250910", m, inputSchema(map[string]any{
		"url": map[string]any{"type": "string"},
	}, "url"))
}

// CodeExecution returns Anthropic's code execution tool
// ("anthropic.code_execution_20250825"), which runs bash commands and edits
// files in a sandbox. Calls of its bash and text editor parts are reported
// as calls of this tool with "type" set to "bash_code_execution" or
// "text_editor_code_execution"; results hold the API's result objects.
func CodeExecution() provider.ToolSpec {
	return hosted("anthropic.code_execution_20250825", nil, nil)
}

// hosted returns a tool Anthropic executes.
func hosted(id string, args map[string]any, input json.RawMessage) provider.ToolSpec {
	return provider.ToolSpec{
		ID:                      id,
		Args:                    args,
		ProviderExecuted:        true,
		SupportsDeferredResults: true,
		InputSchema:             input,
	}
}

// inputSchema returns the JSON Schema of an object with the given
// properties.
func inputSchema(props map[string]any, required ...string) json.RawMessage {
	s := map[string]any{"type": "object", "properties": props}
	if len(required) > 0 {
		s["required"] = required
	}
	b, err := json.Marshal(s)
	if err != nil {
		// The schemas are fixed by this package.
		panic("anthropic: invalid built-in tool schema: " + err.Error())
	}
	return b
}
