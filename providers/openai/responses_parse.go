package openai

import (
	"encoding/json"
	"strings"
	"time"

	"github.com/aisdkgo/ai/internal/httpx"
	"github.com/aisdkgo/ai/provider"
)

// response is a Responses API response object.
type response struct {
	ID        string        `json:"id"`
	CreatedAt float64       `json:"created_at"`
	Model     string        `json:"model"`
	Output    *[]outputItem `json:"output"`
	Error     *struct {
		Code    any    `json:"code"`
		Message string `json:"message"`
	} `json:"error"`
	IncompleteDetails *struct {
		Reason *string `json:"reason"`
	} `json:"incomplete_details"`
	Usage                  json.RawMessage `json:"usage"`
	ServiceTier            any             `json:"service_tier"`
	PromptCacheDiagnostics any             `json:"prompt_cache_diagnostics"`
	Reasoning              *struct {
		Context any `json:"context"`
	} `json:"reasoning"`
}

// outputItem is one item of a response's output; the fields used depend on
// Type.
type outputItem struct {
	Type   string `json:"type"`
	ID     string `json:"id"`
	Status string `json:"status"`

	// message and reasoning
	Phase            *string       `json:"phase"`
	Content          []contentPart `json:"content"`
	Summary          []contentPart `json:"summary"`
	EncryptedContent *string       `json:"encrypted_content"`

	// function_call, custom_tool_call, tool_search_call, mcp_call
	CallID    *string         `json:"call_id"`
	Name      string          `json:"name"`
	Arguments json.RawMessage `json:"arguments"`
	Namespace *string         `json:"namespace"`
	Async     *bool           `json:"async"`
	Input     json.RawMessage `json:"input"`

	// web_search_call
	Action json.RawMessage `json:"action"`

	// file_search_call
	Queries json.RawMessage `json:"queries"`
	Results []struct {
		Attributes any     `json:"attributes"`
		FileID     string  `json:"file_id"`
		Filename   string  `json:"filename"`
		Score      float64 `json:"score"`
		Text       string  `json:"text"`
	} `json:"results"`

	// code_interpreter_call
	Code        *string         `json:"code"`
	ContainerID *string         `json:"container_id"`
	Outputs     json.RawMessage `json:"outputs"`

	// image_generation_call
	Result *string `json:"result"`

	// tool_search_call and tool_search_output
	Execution *string         `json:"execution"`
	Tools     json.RawMessage `json:"tools"`

	// mcp_call and mcp_approval_request
	ServerLabel       string          `json:"server_label"`
	Output            json.RawMessage `json:"output"`
	Error             json.RawMessage `json:"error"`
	ApprovalRequestID *string         `json:"approval_request_id"`
}

// contentPart is a part of a message (output_text, refusal) or of a
// reasoning item (summary_text, reasoning_text).
type contentPart struct {
	Type        string            `json:"type"`
	Text        httpx.Text        `json:"text"`
	Refusal     string            `json:"refusal"`
	Annotations []json.RawMessage `json:"annotations"`
	Logprobs    json.RawMessage   `json:"logprobs"`
}

// annotation is a citation attached to output text.
type annotation struct {
	Type        string `json:"type"`
	URL         string `json:"url"`
	Title       string `json:"title"`
	StartIndex  *int   `json:"start_index"`
	EndIndex    *int   `json:"end_index"`
	FileID      string `json:"file_id"`
	Filename    string `json:"filename"`
	Index       *int   `json:"index"`
	ContainerID string `json:"container_id"`
}

// annotationSource turns an annotation into a source (and, for URL
// citations, a citation); ok is false for unknown annotation types.
func annotationSource(raw json.RawMessage, id string) (src provider.Source, cit *provider.Citation, ok bool) {
	var a annotation
	if json.Unmarshal(raw, &a) != nil {
		return src, nil, false
	}
	switch a.Type {
	case "url_citation":
		src = provider.Source{SourceType: provider.SourceURL, ID: id, URL: a.URL, Title: a.Title}
		return src, &provider.Citation{Source: src, StartIndex: a.StartIndex, EndIndex: a.EndIndex}, true
	case "file_citation":
		return provider.Source{SourceType: provider.SourceDocument, ID: id, MediaType: "text/plain", Title: a.Filename, Filename: a.Filename,
			ProviderMetadata: provider.ProviderMetadata{providerKey: {"type": a.Type, "fileId": a.FileID, "index": a.Index}}}, nil, true
	case "container_file_citation":
		return provider.Source{SourceType: provider.SourceDocument, ID: id, MediaType: "text/plain", Title: a.Filename, Filename: a.Filename,
			ProviderMetadata: provider.ProviderMetadata{providerKey: {"type": a.Type, "fileId": a.FileID, "containerId": a.ContainerID}}}, nil, true
	case "file_path":
		return provider.Source{SourceType: provider.SourceDocument, ID: id, MediaType: "application/octet-stream", Title: a.FileID, Filename: a.FileID,
			ProviderMetadata: provider.ProviderMetadata{providerKey: {"type": a.Type, "fileId": a.FileID, "index": a.Index}}}, nil, true
	}
	return src, nil, false
}

func rawValues(raws []json.RawMessage) []any {
	out := make([]any, 0, len(raws))
	for _, r := range raws {
		var v any
		if json.Unmarshal(r, &v) == nil {
			out = append(out, v)
		}
	}
	return out
}

// responsesUsage maps a Responses usage object. Input tokens include cached
// ones and output tokens include reasoning ones.
func responsesUsage(raw json.RawMessage) provider.Usage {
	if len(raw) == 0 || string(raw) == "null" {
		return provider.Usage{}
	}
	var u struct {
		InputTokens        *int `json:"input_tokens"`
		OutputTokens       *int `json:"output_tokens"`
		InputTokensDetails *struct {
			CachedTokens     *int `json:"cached_tokens"`
			CacheWriteTokens *int `json:"cache_write_tokens"`
		} `json:"input_tokens_details"`
		OutputTokensDetails *struct {
			ReasoningTokens *int `json:"reasoning_tokens"`
		} `json:"output_tokens_details"`
	}
	if json.Unmarshal(raw, &u) != nil {
		return provider.Usage{Raw: raw}
	}
	in, out := intOr(u.InputTokens, 0), intOr(u.OutputTokens, 0)
	cached, reasoning := 0, 0
	var cacheWrite *int
	if d := u.InputTokensDetails; d != nil {
		cached = intOr(d.CachedTokens, 0)
		cacheWrite = d.CacheWriteTokens
	}
	if d := u.OutputTokensDetails; d != nil {
		reasoning = intOr(d.ReasoningTokens, 0)
	}
	return provider.Usage{
		InputTokens: provider.InputTokens{
			Total:      &in,
			NoCache:    new(in - cached - intOr(cacheWrite, 0)),
			CacheRead:  &cached,
			CacheWrite: cacheWrite,
		},
		OutputTokens: provider.OutputTokens{
			Total:     &out,
			Text:      new(max(0, out-reasoning)),
			Reasoning: &reasoning,
		},
		Raw: raw,
	}
}

func intOr(p *int, d int) int {
	if p == nil {
		return d
	}
	return *p
}

// finishReason derives the finish reason from incomplete_details.reason and
// whether the model asked for client-side tool calls.
func finishReason(reason *string, clientCall, refusal bool) provider.FinishReason {
	if reason == nil || *reason == "" {
		switch {
		case clientCall:
			return provider.FinishReason{Unified: provider.FinishToolCalls}
		case refusal:
			return provider.FinishReason{Unified: provider.FinishContentFilter}
		}
		return provider.FinishReason{Unified: provider.FinishStop}
	}
	r := provider.FinishReason{Raw: *reason}
	switch {
	case *reason == "max_output_tokens":
		r.Unified = provider.FinishLength
	case *reason == "content_filter":
		r.Unified = provider.FinishContentFilter
	case clientCall:
		r.Unified = provider.FinishToolCalls
	default:
		r.Unified = provider.FinishOther
	}
	return r
}

// webSearchResult maps a web_search_call item to a tool result value: the
// action (with camelCase action types) and its sources. A search that did
// not complete is an error result carrying its status.
func webSearchResult(item *outputItem) (json.RawMessage, bool) {
	if item.Status != "" && item.Status != "completed" {
		b, _ := json.Marshal(map[string]any{"status": item.Status})
		return b, true
	}
	var a struct {
		Type    string          `json:"type"`
		Query   *string         `json:"query"`
		Queries json.RawMessage `json:"queries"`
		URL     *string         `json:"url"`
		Pattern *string         `json:"pattern"`
		Sources json.RawMessage `json:"sources"`
	}
	out := map[string]any{}
	if len(item.Action) > 0 && json.Unmarshal(item.Action, &a) == nil {
		switch a.Type {
		case "search":
			action := map[string]any{"type": "search"}
			if a.Query != nil {
				action["query"] = *a.Query
			}
			if len(a.Queries) > 0 && string(a.Queries) != "null" {
				action["queries"] = a.Queries
			}
			out["action"] = action
			if len(a.Sources) > 0 && string(a.Sources) != "null" {
				out["sources"] = a.Sources
			}
		case "open_page":
			out["action"] = map[string]any{"type": "openPage", "url": a.URL}
		case "find_in_page":
			out["action"] = map[string]any{"type": "findInPage", "url": a.URL, "pattern": a.Pattern}
		}
	}
	b, _ := json.Marshal(out)
	return b, false
}

func fileSearchResult(item *outputItem) json.RawMessage {
	var results any
	if item.Results != nil {
		list := make([]any, 0, len(item.Results))
		for _, r := range item.Results {
			list = append(list, map[string]any{"attributes": r.Attributes, "fileId": r.FileID, "filename": r.Filename, "score": r.Score, "text": r.Text})
		}
		results = list
	}
	queries := item.Queries
	if len(queries) == 0 {
		queries = json.RawMessage("null")
	}
	b, _ := json.Marshal(map[string]any{"queries": queries, "results": results})
	return b
}

func mustJSON(v any) json.RawMessage {
	b, err := json.Marshal(v)
	if err != nil {
		return json.RawMessage("null")
	}
	return b
}

// rawOrNull returns raw, or JSON null when it is empty.
func rawOrNull(raw json.RawMessage) json.RawMessage {
	if len(raw) == 0 {
		return json.RawMessage("null")
	}
	return raw
}

// argumentText returns item arguments that are a JSON string as that string
// and anything else as its JSON text.
func argumentText(raw json.RawMessage) string {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s
	}
	if len(raw) == 0 {
		return ""
	}
	return string(raw)
}

func toolSearchInput(item *outputItem, callID any) string {
	return string(mustJSON(map[string]any{"arguments": rawOrNull(item.Arguments), "call_id": callID}))
}

func mcpResult(item *outputItem) json.RawMessage {
	out := map[string]any{"type": "call", "serverLabel": item.ServerLabel, "name": item.Name, "arguments": argumentText(item.Arguments)}
	if len(item.Output) > 0 && string(item.Output) != "null" {
		out["output"] = item.Output
	}
	if len(item.Error) > 0 && string(item.Error) != "null" {
		out["error"] = item.Error
	}
	return mustJSON(out)
}

func meta(kv map[string]any) provider.ProviderMetadata {
	return provider.ProviderMetadata{providerKey: kv}
}

// reasoningTexts returns the texts of a reasoning item: its summaries, or
// its reasoning_text content (servers that implement the Responses API
// without summaries), or one empty text.
func reasoningTexts(item *outputItem) []string {
	var out []string
	for _, s := range item.Summary {
		out = append(out, string(s.Text))
	}
	if len(out) == 0 {
		for _, c := range item.Content {
			if c.Type == "reasoning_text" {
				out = append(out, string(c.Text))
			}
		}
	}
	if len(out) == 0 {
		out = []string{""}
	}
	return out
}

func (m *responsesModel) parseResponse(r *response, call *responsesCall) *provider.GenerateResult {
	var content []provider.Content
	var logprobs []any
	clientCall, refusal := false, false
	var hostedSearches []string
	var structured *string
	for i := range *r.Output {
		item := &(*r.Output)[i]
		switch item.Type {
		case "reasoning":
			for _, text := range reasoningTexts(item) {
				content = append(content, provider.Reasoning{Text: text, ProviderMetadata: meta(map[string]any{
					"itemId": item.ID, "reasoningEncryptedContent": strOrNil(item.EncryptedContent)})})
			}
		case "message":
			if call.jsonFormat && item.Phase != nil && *item.Phase == "final_answer" {
				// The final answer, without the drafts before it, is what a
				// JSON response format parses.
				var b strings.Builder
				for _, part := range item.Content {
					if part.Type == "output_text" {
						b.WriteString(string(part.Text))
					} else {
						b.WriteString(part.Refusal)
					}
				}
				final := b.String()
				structured = &final
			}
			for _, part := range item.Content {
				md := map[string]any{"itemId": item.ID}
				if item.Phase != nil {
					md["phase"] = *item.Phase
				}
				if part.Type == "refusal" {
					refusal = true
					content = append(content, provider.Text{Text: part.Refusal, ProviderMetadata: meta(md)})
					continue
				}
				if call.logprobs && len(part.Logprobs) > 0 && string(part.Logprobs) != "null" {
					logprobs = append(logprobs, part.Logprobs)
				}
				if len(part.Annotations) > 0 {
					md["annotations"] = rawValues(part.Annotations)
				}
				text := provider.Text{Text: string(part.Text), ProviderMetadata: meta(md)}
				var sources []provider.Content
				for _, a := range part.Annotations {
					src, cit, ok := annotationSource(a, m.newID())
					if !ok {
						continue
					}
					if cit != nil {
						text.Citations = append(text.Citations, *cit)
					}
					sources = append(sources, src)
				}
				content = append(content, text)
				content = append(content, sources...)
			}
		case "function_call":
			clientCall = true
			md := map[string]any{"itemId": item.ID}
			if item.Async != nil {
				md["async"] = *item.Async
			}
			if item.Namespace != nil {
				md["namespace"] = *item.Namespace
			}
			content = append(content, provider.ToolCall{ToolCallID: deref(item.CallID), ToolName: item.Name,
				Input: argumentText(item.Arguments), ProviderMetadata: meta(md)})
		case "custom_tool_call":
			clientCall = true
			md := map[string]any{"itemId": item.ID}
			if item.Async != nil {
				md["async"] = *item.Async
			}
			content = append(content, provider.ToolCall{ToolCallID: deref(item.CallID), ToolName: call.names.app(item.Name),
				Input: string(mustJSON(argumentText(item.Input))), ProviderMetadata: meta(md)})
		case "web_search_call":
			name := call.names.webSearch()
			result, isErr := webSearchResult(item)
			content = append(content,
				provider.ToolCall{ToolCallID: item.ID, ToolName: name, Input: "{}", ProviderExecuted: true},
				provider.ToolResult{ToolCallID: item.ID, ToolName: name, Result: result, IsError: isErr})
		case "file_search_call":
			name := call.names.app("file_search")
			content = append(content,
				provider.ToolCall{ToolCallID: item.ID, ToolName: name, Input: "{}", ProviderExecuted: true},
				provider.ToolResult{ToolCallID: item.ID, ToolName: name, Result: fileSearchResult(item)})
		case "code_interpreter_call":
			name := call.names.app("code_interpreter")
			content = append(content,
				provider.ToolCall{ToolCallID: item.ID, ToolName: name, ProviderExecuted: true,
					Input: string(mustJSON(map[string]any{"code": item.Code, "containerId": item.ContainerID}))},
				provider.ToolResult{ToolCallID: item.ID, ToolName: name, Result: mustJSON(map[string]any{"outputs": rawOrNull(item.Outputs)})})
		case "image_generation_call":
			name := call.names.app("image_generation")
			content = append(content,
				provider.ToolCall{ToolCallID: item.ID, ToolName: name, Input: "{}", ProviderExecuted: true},
				provider.ToolResult{ToolCallID: item.ID, ToolName: name, Result: mustJSON(map[string]any{"result": item.Result})})
		case "tool_search_call":
			hosted := item.Execution == nil || *item.Execution != "client"
			id := item.ID
			var callID any
			if item.CallID != nil {
				id, callID = *item.CallID, *item.CallID
			}
			if hosted {
				hostedSearches = append(hostedSearches, id)
			} else {
				clientCall = true
			}
			content = append(content, provider.ToolCall{ToolCallID: id, ToolName: call.names.app("tool_search"),
				Input: toolSearchInput(item, callID), ProviderExecuted: hosted, ProviderMetadata: meta(map[string]any{"itemId": item.ID})})
		case "tool_search_output":
			id := item.ID
			switch {
			case item.CallID != nil:
				id = *item.CallID
			case len(hostedSearches) > 0:
				id, hostedSearches = hostedSearches[0], hostedSearches[1:]
			}
			content = append(content, provider.ToolResult{ToolCallID: id, ToolName: call.names.app("tool_search"),
				Result: mustJSON(map[string]any{"tools": rawOrNull(item.Tools)}), ProviderMetadata: meta(map[string]any{"itemId": item.ID})})
		case "mcp_call":
			id := item.ID
			if item.ApprovalRequestID != nil {
				if mapped, ok := call.approvals[*item.ApprovalRequestID]; ok {
					id = mapped
				}
			}
			name := "mcp." + item.Name
			content = append(content,
				provider.ToolCall{ToolCallID: id, ToolName: name, Input: argumentText(item.Arguments), ProviderExecuted: true, Dynamic: true},
				provider.ToolResult{ToolCallID: id, ToolName: name, Result: mcpResult(item), Dynamic: true,
					ProviderMetadata: meta(map[string]any{"itemId": item.ID})})
		case "mcp_approval_request":
			approvalID := item.ID
			if item.ApprovalRequestID != nil {
				approvalID = *item.ApprovalRequestID
			}
			id := m.newID()
			content = append(content,
				provider.ToolCall{ToolCallID: id, ToolName: "mcp." + item.Name, Input: argumentText(item.Arguments), ProviderExecuted: true, Dynamic: true,
					ProviderMetadata: meta(map[string]any{"approvalRequestId": approvalID})},
				provider.ToolApprovalRequest{ApprovalID: approvalID, ToolCallID: id})
		}
	}
	md := map[string]any{"responseId": r.ID}
	if len(logprobs) > 0 {
		md["logprobs"] = logprobs
	}
	if s, ok := r.ServiceTier.(string); ok {
		md["serviceTier"] = s
	}
	if r.PromptCacheDiagnostics != nil {
		md["promptCacheDiagnostics"] = r.PromptCacheDiagnostics
	}
	if r.Reasoning != nil && r.Reasoning.Context != nil {
		md["reasoningContext"] = r.Reasoning.Context
	}
	var reason *string
	if r.IncompleteDetails != nil {
		reason = r.IncompleteDetails.Reason
	}
	return &provider.GenerateResult{
		Content:              content,
		StructuredOutputText: structured,
		FinishReason:         finishReason(reason, clientCall, refusal),
		Usage:                responsesUsage(r.Usage),
		ProviderMetadata:     meta(md),
		Response:             &provider.ResponseInfo{ID: r.ID, ModelID: r.Model, Timestamp: unixTime(r.CreatedAt)},
	}
}

func unixTime(sec float64) time.Time {
	if sec == 0 {
		return time.Time{}
	}
	return time.Unix(int64(sec), 0).UTC()
}

func deref(p *string) string {
	if p == nil {
		return ""
	}
	return *p
}

// strOrNil returns *p, or nil for a nil pointer, so that metadata holds plain
// JSON values.
func strOrNil(p *string) any {
	if p == nil {
		return nil
	}
	return *p
}
