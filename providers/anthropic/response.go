package anthropic

import (
	"encoding/json"

	"github.com/aisdkgo/ai/internal/claude"
	"github.com/aisdkgo/ai/provider"
)

// messageResponse is the body of a non-streaming response, and the
// "message" of a message_start event.
type messageResponse struct {
	Type              string          `json:"type"`
	ID                string          `json:"id"`
	Model             string          `json:"model"`
	Content           []contentBlock  `json:"content"`
	StopReason        *string         `json:"stop_reason"`
	StopSequence      *string         `json:"stop_sequence"`
	StopDetails       json.RawMessage `json:"stop_details"`
	Usage             json.RawMessage `json:"usage"`
	Container         json.RawMessage `json:"container"`
	ContextManagement json.RawMessage `json:"context_management"`
	Error             *wireError      `json:"error"`
}

// contentBlock is any content block of a response. Which fields are set
// depends on Type.
type contentBlock struct {
	Type      string            `json:"type"`
	Text      string            `json:"text"`
	Citations []json.RawMessage `json:"citations"`
	Thinking  string            `json:"thinking"`
	Signature string            `json:"signature"`
	// Data is the payload of redacted_thinking.
	Data string `json:"data"`
	// Content is the text of compaction blocks and the result of tool
	// result blocks.
	Content     json.RawMessage `json:"content"`
	ID          string          `json:"id"`
	Name        string          `json:"name"`
	Input       json.RawMessage `json:"input"`
	Caller      *wireCaller     `json:"caller"`
	ToolUseID   string          `json:"tool_use_id"`
	ServerName  string          `json:"server_name"`
	IsError     bool            `json:"is_error"`
	ToolsetName string          `json:"toolset_name"`
}

// wireCaller says who called a tool: the model directly or code running in
// the code execution tool.
type wireCaller struct {
	Type   string `json:"type"`
	ToolID string `json:"tool_id"`
}

// callerMetadata is the provider metadata that records a tool call's
// caller, so that it can be sent back.
func callerMetadata(c *wireCaller) provider.ProviderMetadata {
	if c == nil || c.Type == "" {
		return nil
	}
	info := map[string]any{"type": c.Type}
	if c.ToolID != "" {
		info["toolId"] = c.ToolID
	}
	return provider.ProviderMetadata{providerName: {"caller": info}}
}

// blockConverter turns response content blocks into content parts. One
// converter serves one response; it remembers calls so that their results
// get the right tool names.
type blockConverter struct {
	names        toolNames
	citationDocs []citationDoc
	newID        func() string
	// dynamicCodeExecution marks code execution calls as dynamic: the newer
	// web tools may run code without the code execution tool being declared.
	dynamicCodeExecution bool
	// searchCalls maps tool search call ids to the search tool's wire name.
	searchCalls map[string]string
	// mcpCalls remembers MCP calls for their results.
	mcpCalls map[string]provider.ToolCall
}

func newBlockConverter(req *request, newID func() string) *blockConverter {
	return &blockConverter{
		names:                req.names,
		citationDocs:         append([]citationDoc(nil), req.citationDocs...),
		newID:                newID,
		dynamicCodeExecution: dynamicCodeExecution(req.body.Tools),
		searchCalls:          map[string]string{},
		mcpCalls:             map[string]provider.ToolCall{},
	}
}

// dynamicCodeExecution reports whether the request declares a 2026-02-09 web
// tool but no code execution tool.
func dynamicCodeExecution(tools []any) bool {
	web := false
	for _, t := range tools {
		o, ok := t.(*object)
		if !ok {
			continue
		}
		if typ, _ := o.Get("type"); typ == "web_fetch_20260209" || typ == "web_search_20260209" {
			web = true
			continue
		}
		if toolWireName(o) == wireCodeExecution {
			return false
		}
	}
	return web
}

// textCitations returns the web search citations of a text block (kept in
// its provider metadata) and the sources of all its citations.
func (c *blockConverter) textCitations(citations []json.RawMessage) (web []any, sources []provider.Content) {
	for _, raw := range citations {
		var kind struct {
			Type string `json:"type"`
		}
		json.Unmarshal(raw, &kind)
		if kind.Type == "web_search_result_location" {
			web = append(web, toAny(raw))
		}
		if s, ok := c.citationSource(raw); ok {
			sources = append(sources, s)
		}
	}
	return web, sources
}

// citationSource turns a citation into a source: web search results become
// URL sources, page and character locations become document sources of the
// cited prompt document.
func (c *blockConverter) citationSource(raw json.RawMessage) (provider.Source, bool) {
	var ct struct {
		Type           string  `json:"type"`
		CitedText      string  `json:"cited_text"`
		URL            string  `json:"url"`
		Title          *string `json:"title"`
		EncryptedIndex string  `json:"encrypted_index"`
		DocumentIndex  int     `json:"document_index"`
		DocumentTitle  *string `json:"document_title"`
		StartPage      *int    `json:"start_page_number"`
		EndPage        *int    `json:"end_page_number"`
		StartChar      *int    `json:"start_char_index"`
		EndChar        *int    `json:"end_char_index"`
	}
	if json.Unmarshal(raw, &ct) != nil {
		return provider.Source{}, false
	}
	switch ct.Type {
	case "web_search_result_location":
		s := provider.Source{
			SourceType: provider.SourceURL,
			ID:         c.newID(),
			URL:        ct.URL,
			ProviderMetadata: provider.ProviderMetadata{providerName: {
				"citedText": ct.CitedText, "encryptedIndex": ct.EncryptedIndex,
			}},
		}
		if ct.Title != nil {
			s.Title = *ct.Title
		}
		return s, true
	case "page_location", "char_location":
		if ct.DocumentIndex < 0 || ct.DocumentIndex >= len(c.citationDocs) {
			return provider.Source{}, false
		}
		doc := c.citationDocs[ct.DocumentIndex]
		s := provider.Source{
			SourceType: provider.SourceDocument,
			ID:         c.newID(),
			MediaType:  doc.mediaType,
			Title:      doc.title,
			Filename:   doc.filename,
		}
		if ct.DocumentTitle != nil {
			s.Title = *ct.DocumentTitle
		}
		meta := map[string]any{"citedText": ct.CitedText}
		if ct.Type == "page_location" {
			meta["startPageNumber"], meta["endPageNumber"] = optInt(ct.StartPage), optInt(ct.EndPage)
		} else {
			meta["startCharIndex"], meta["endCharIndex"] = optInt(ct.StartChar), optInt(ct.EndChar)
		}
		s.ProviderMetadata = provider.ProviderMetadata{providerName: meta}
		return s, true
	}
	return provider.Source{}, false
}

// codeExecutionSubtool reports the sub-tools of code execution, whose calls
// are reported as calls of the code execution tool.
func codeExecutionSubtool(name string) bool {
	return name == "bash_code_execution" || name == "text_editor_code_execution"
}

// serverToolInput returns the input a provider-executed call reports for
// its complete wire input: sub-tool calls get their sub-tool name as "type",
// and programmatic code execution (an input with "code" but no "type") gets
// the type "programmatic-tool-call".
func serverToolInput(name string, input json.RawMessage) string {
	in := compactJSON(callInput(input))
	switch {
	case codeExecutionSubtool(name):
		return prependKey(in, "type", name)
	case name == wireCodeExecution:
		if o, ok := claude.DecodeObject([]byte(in)); ok {
			if _, hasCode := o.Get("code"); hasCode {
				if _, hasType := o.Get("type"); !hasType {
					return prependKey(in, "type", "programmatic-tool-call")
				}
			}
		}
	}
	return in
}

// prependKey adds "key": value at the front of a compact JSON object.
func prependKey(obj, key, value string) string {
	head := string(claude.MarshalValue(key)) + ":" + string(claude.MarshalValue(value))
	if obj == "{}" || len(obj) < 2 || obj[0] != '{' {
		return "{" + head + "}"
	}
	return "{" + head + "," + obj[1:]
}

// serverToolName returns the wire name a server_tool_use is reported under
// and whether the call is one this package reports.
func serverToolName(name string) (string, bool) {
	switch {
	case codeExecutionSubtool(name):
		return wireCodeExecution, true
	case name == wireWebSearch, name == wireWebFetch, name == wireCodeExecution,
		name == wireSearchRegex, name == wireSearchBM25, name == wireAdvisor:
		return name, true
	}
	return "", false
}

// serverToolCall converts a complete server_tool_use block.
func (c *blockConverter) serverToolCall(b contentBlock) (provider.ToolCall, bool) {
	wire, ok := serverToolName(b.Name)
	if !ok {
		return provider.ToolCall{}, false
	}
	if wire == wireSearchRegex || wire == wireSearchBM25 {
		c.searchCalls[b.ID] = wire
	}
	return provider.ToolCall{
		ToolCallID:       b.ID,
		ToolName:         c.names.app(wire),
		Input:            serverToolInput(b.Name, b.Input),
		ProviderExecuted: true,
		Dynamic:          c.dynamicCodeExecution && wire == wireCodeExecution,
		ProviderMetadata: callerMetadata(b.Caller),
	}, true
}

// mcpCall converts an mcp_tool_use block.
func (c *blockConverter) mcpCall(b contentBlock) provider.ToolCall {
	call := provider.ToolCall{
		ToolCallID:       b.ID,
		ToolName:         b.Name,
		Input:            compactJSON(callInput(b.Input)),
		ProviderExecuted: true,
		Dynamic:          true,
		ProviderMetadata: provider.ProviderMetadata{providerName: {"type": "mcp-tool-use", "serverName": b.ServerName}},
	}
	c.mcpCalls[b.ID] = call
	return call
}

// resultBlock converts a block that reports the result of a provider-executed
// tool. Such blocks always arrive complete. ok is false for other blocks.
func (c *blockConverter) resultBlock(b contentBlock) (parts []provider.Content, ok bool) {
	result := func(wire string, value any, isError bool, meta provider.ProviderMetadata) provider.ToolResult {
		return provider.ToolResult{
			ToolCallID:       b.ToolUseID,
			ToolName:         c.names.app(wire),
			Result:           claude.MarshalValue(value),
			IsError:          isError,
			ProviderMetadata: meta,
		}
	}
	var kind struct {
		Type      string `json:"type"`
		ErrorCode string `json:"error_code"`
	}
	json.Unmarshal(b.Content, &kind)
	caller := callerMetadata(b.Caller)

	switch b.Type {
	case "tool_search_tool_result":
		wire, known := c.searchCalls[b.ToolUseID]
		if !known {
			// The call was made in an earlier response (a deferred result).
			wire = c.names.searchToolWire()
		}
		if kind.Type == "tool_search_tool_search_result" {
			var r struct {
				ToolReferences []struct {
					Type     string `json:"type"`
					ToolName string `json:"tool_name"`
				} `json:"tool_references"`
			}
			json.Unmarshal(b.Content, &r)
			refs := make([]map[string]any, 0, len(r.ToolReferences))
			for _, ref := range r.ToolReferences {
				refs = append(refs, map[string]any{"type": ref.Type, "toolName": ref.ToolName})
			}
			return []provider.Content{result(wire, refs, false, nil)}, true
		}
		return []provider.Content{result(wire, map[string]any{
			"type": "tool_search_tool_result_error", "errorCode": kind.ErrorCode,
		}, true, nil)}, true

	case "web_search_tool_result":
		var results []struct {
			Type             string  `json:"type"`
			URL              string  `json:"url"`
			Title            *string `json:"title"`
			PageAge          *string `json:"page_age"`
			EncryptedContent string  `json:"encrypted_content"`
		}
		if json.Unmarshal(b.Content, &results) != nil {
			return []provider.Content{result(wireWebSearch, map[string]any{
				"type": "web_search_tool_result_error", "errorCode": kind.ErrorCode,
			}, true, caller)}, true
		}
		list := make([]map[string]any, 0, len(results))
		for _, r := range results {
			list = append(list, map[string]any{
				"url": r.URL, "title": optStr(r.Title), "pageAge": optStr(r.PageAge),
				"encryptedContent": r.EncryptedContent, "type": r.Type,
			})
		}
		parts = append(parts, result(wireWebSearch, list, false, caller))
		for _, r := range results {
			s := provider.Source{
				SourceType:       provider.SourceURL,
				ID:               c.newID(),
				URL:              r.URL,
				ProviderMetadata: provider.ProviderMetadata{providerName: {"pageAge": optStr(r.PageAge)}},
			}
			if r.Title != nil {
				s.Title = *r.Title
			}
			parts = append(parts, s)
		}
		return parts, true

	case "web_fetch_tool_result":
		switch kind.Type {
		case "web_fetch_result":
			var r struct {
				URL         string `json:"url"`
				RetrievedAt any    `json:"retrieved_at"`
				Content     struct {
					Type      string  `json:"type"`
					Title     *string `json:"title"`
					Citations any     `json:"citations"`
					Source    struct {
						Type      string `json:"type"`
						MediaType string `json:"media_type"`
						Data      string `json:"data"`
					} `json:"source"`
				} `json:"content"`
			}
			json.Unmarshal(b.Content, &r)
			title := r.URL
			if r.Content.Title != nil {
				title = *r.Content.Title
			}
			c.citationDocs = append(c.citationDocs, citationDoc{title: title, mediaType: r.Content.Source.MediaType})
			return []provider.Content{result(wireWebFetch, map[string]any{
				"type": "web_fetch_result", "url": r.URL, "retrievedAt": r.RetrievedAt,
				"content": map[string]any{
					"type": r.Content.Type, "title": optStr(r.Content.Title), "citations": r.Content.Citations,
					"source": map[string]any{
						"type": r.Content.Source.Type, "mediaType": r.Content.Source.MediaType, "data": r.Content.Source.Data,
					},
				},
			}, false, caller)}, true
		case "web_fetch_tool_result_error":
			return []provider.Content{result(wireWebFetch, map[string]any{
				"type": "web_fetch_tool_result_error", "errorCode": kind.ErrorCode,
			}, true, caller)}, true
		}
		return nil, true

	case "code_execution_tool_result":
		var r map[string]any
		json.Unmarshal(b.Content, &r)
		switch kind.Type {
		case "code_execution_result", "encrypted_code_execution_result":
			v := map[string]any{"type": kind.Type, "stderr": r["stderr"], "return_code": r["return_code"]}
			if kind.Type == "code_execution_result" {
				v["stdout"] = r["stdout"]
			} else {
				v["encrypted_stdout"] = r["encrypted_stdout"]
			}
			v["content"] = r["content"]
			if v["content"] == nil {
				v["content"] = []any{}
			}
			return []provider.Content{result(wireCodeExecution, v, false, nil)}, true
		case "code_execution_tool_result_error":
			return []provider.Content{result(wireCodeExecution, map[string]any{
				"type": kind.Type, "errorCode": kind.ErrorCode,
			}, true, nil)}, true
		}
		return nil, true

	case "bash_code_execution_tool_result", "text_editor_code_execution_tool_result":
		return []provider.Content{result(wireCodeExecution, toAny(b.Content), false, nil)}, true

	case "advisor_tool_result":
		var r struct {
			Text             string `json:"text"`
			EncryptedContent string `json:"encrypted_content"`
		}
		json.Unmarshal(b.Content, &r)
		switch kind.Type {
		case "advisor_result":
			return []provider.Content{result(wireAdvisor, map[string]any{"type": kind.Type, "text": r.Text}, false, nil)}, true
		case "advisor_redacted_result":
			return []provider.Content{result(wireAdvisor, map[string]any{"type": kind.Type, "encryptedContent": r.EncryptedContent}, false, nil)}, true
		}
		return []provider.Content{result(wireAdvisor, map[string]any{
			"type": "advisor_tool_result_error", "errorCode": kind.ErrorCode,
		}, true, nil)}, true

	case "mcp_tool_result":
		call, known := c.mcpCalls[b.ToolUseID]
		if !known {
			return nil, true
		}
		value := toAny(b.Content)
		if value == nil {
			value = []any{}
		}
		return []provider.Content{provider.ToolResult{
			ToolCallID:       b.ToolUseID,
			ToolName:         call.ToolName,
			Result:           claude.MarshalValue(value),
			IsError:          b.IsError,
			Dynamic:          true,
			ProviderMetadata: call.ProviderMetadata,
		}}, true
	}
	return nil, false
}

// generateContent converts the content of a non-streaming response.
func (c *blockConverter) generateContent(resp *messageResponse, usesJSONTool bool) (content []provider.Content, jsonAnswered bool) {
	stop := ""
	if resp.StopReason != nil {
		stop = *resp.StopReason
	}
	// With the JSON response tool the tool's input is the answer; text only
	// counts when the tool was never called, and then only the text after
	// the last tool block.
	var keepText map[int]bool
	if usesJSONTool {
		keepText = jsonFallbackText(resp.Content, stop)
	}
	content = []provider.Content{}
	for i, b := range resp.Content {
		switch b.Type {
		case "text":
			if keepText != nil && !keepText[i] {
				continue
			}
			web, sources := c.textCitations(b.Citations)
			t := provider.Text{Text: b.Text}
			if len(web) > 0 {
				t.ProviderMetadata = provider.ProviderMetadata{providerName: {"citations": web}}
			}
			content = append(content, t)
			content = append(content, sources...)
		case "thinking":
			content = append(content, provider.Reasoning{
				Text:             b.Thinking,
				ProviderMetadata: provider.ProviderMetadata{providerName: {"signature": b.Signature}},
			})
		case "redacted_thinking":
			content = append(content, provider.Reasoning{
				ProviderMetadata: provider.ProviderMetadata{providerName: {"redactedData": b.Data}},
			})
		case "compaction":
			var text string
			json.Unmarshal(b.Content, &text)
			content = append(content, provider.Text{
				Text:             text,
				ProviderMetadata: provider.ProviderMetadata{providerName: {"type": "compaction"}},
			})
		case "tool_use":
			if usesJSONTool && b.Name == "json" {
				jsonAnswered = true
				content = append(content, provider.Text{Text: compactJSON(callInput(b.Input))})
				continue
			}
			content = append(content, provider.ToolCall{
				ToolCallID:       b.ID,
				ToolName:         b.Name,
				Input:            compactJSON(callInput(b.Input)),
				ProviderMetadata: callerMetadata(b.Caller),
			})
		case "server_tool_use":
			if call, ok := c.serverToolCall(b); ok {
				content = append(content, call)
			}
		case "mcp_tool_use":
			content = append(content, c.mcpCall(b))
		default:
			if parts, ok := c.resultBlock(b); ok {
				content = append(content, parts...)
			}
		}
	}
	return content, jsonAnswered
}

// jsonFallbackText picks the text blocks that answer when the JSON response
// tool is in use: none if the tool was called or the model is handing off
// to a tool; otherwise the text after the last tool call or result.
func jsonFallbackText(blocks []contentBlock, stop string) map[int]bool {
	keep := map[int]bool{}
	if continuationStop(stop) {
		return keep
	}
	for i, b := range blocks {
		switch b.Type {
		case "tool_use":
			if b.Name == "json" {
				return map[int]bool{}
			}
			clear(keep)
		case "text":
			keep[i] = true
		case "thinking", "redacted_thinking":
		default:
			clear(keep)
		}
	}
	return keep
}

// optStr returns *s, or nil when s is nil, as a plain JSON-like value.
func optStr(s *string) any {
	if s == nil {
		return nil
	}
	return *s
}

// optInt returns *n, or nil when n is nil, as a plain JSON-like value.
func optInt(n *int) any {
	if n == nil {
		return nil
	}
	return *n
}
