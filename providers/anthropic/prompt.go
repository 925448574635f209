package anthropic

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"net/http"
	"strings"

	"github.com/aisdkgo/ai/internal/claude"
	"github.com/aisdkgo/ai/provider"
)

// Wire content blocks of request messages. Each kind has its own struct so
// that required fields are always present and optional ones absent.

type textBlock struct {
	Type         string `json:"type"`
	Text         string `json:"text"`
	Citations    any    `json:"citations,omitempty"`
	CacheControl any    `json:"cache_control,omitempty"`
}

type imageBlock struct {
	Type         string `json:"type"`
	Source       any    `json:"source"`
	CacheControl any    `json:"cache_control,omitempty"`
}

type documentBlock struct {
	Type         string `json:"type"`
	Source       any    `json:"source"`
	Title        string `json:"title,omitempty"`
	Context      string `json:"context,omitempty"`
	Citations    any    `json:"citations,omitempty"`
	CacheControl any    `json:"cache_control,omitempty"`
}

type toolResultBlock struct {
	Type         string `json:"type"`
	ToolUseID    string `json:"tool_use_id"`
	Content      any    `json:"content"`
	IsError      bool   `json:"is_error,omitempty"`
	CacheControl any    `json:"cache_control,omitempty"`
}

type toolReferenceBlock struct {
	Type     string `json:"type"`
	ToolName string `json:"tool_name"`
}

type thinkingBlock struct {
	Type      string `json:"type"`
	Thinking  string `json:"thinking"`
	Signature string `json:"signature"`
}

type redactedThinkingBlock struct {
	Type string `json:"type"`
	Data string `json:"data"`
}

type compactionBlock struct {
	Type         string `json:"type"`
	Content      string `json:"content"`
	CacheControl any    `json:"cache_control,omitempty"`
}

// toolUseBlock is a tool_use or server_tool_use block.
type toolUseBlock struct {
	Type         string          `json:"type"`
	ID           string          `json:"id"`
	Name         string          `json:"name"`
	Input        json.RawMessage `json:"input"`
	Caller       any             `json:"caller,omitempty"`
	CacheControl any             `json:"cache_control,omitempty"`
}

type mcpToolUseBlock struct {
	Type         string          `json:"type"`
	ID           string          `json:"id"`
	Name         string          `json:"name"`
	Input        json.RawMessage `json:"input"`
	ServerName   string          `json:"server_name"`
	CacheControl any             `json:"cache_control,omitempty"`
}

type mcpToolResultBlock struct {
	Type         string `json:"type"`
	ToolUseID    string `json:"tool_use_id"`
	IsError      bool   `json:"is_error"`
	Content      any    `json:"content"`
	CacheControl any    `json:"cache_control,omitempty"`
}

// serverResultBlock is the result block of a provider-executed tool
// (web_search_tool_result, tool_search_tool_result, ...).
type serverResultBlock struct {
	Type         string `json:"type"`
	ToolUseID    string `json:"tool_use_id"`
	Content      any    `json:"content"`
	Caller       any    `json:"caller,omitempty"`
	CacheControl any    `json:"cache_control,omitempty"`
}

// wireMessage is one entry of "messages".
type wireMessage struct {
	Role    string `json:"role"`
	Content []any  `json:"content"`
}

// promptConverter turns a provider prompt into Anthropic's system blocks and
// messages.
type promptConverter struct {
	sendReasoning bool
	cache         *cacheBreakpoints
	names         toolNames
	warnings      []provider.Warning
	betas         *betaSet
}

// promptBlock is a run of messages that becomes one wire message: system
// messages, assistant messages, or user and tool messages together.
type promptBlock struct {
	role     provider.Role
	messages []provider.Message
}

func groupPrompt(prompt []provider.Message) []promptBlock {
	var blocks []promptBlock
	for _, m := range prompt {
		m = messageValue(m)
		if m == nil {
			continue
		}
		role := m.Role()
		if role == provider.RoleTool {
			role = provider.RoleUser
		}
		if n := len(blocks); n > 0 && blocks[n-1].role == role {
			blocks[n-1].messages = append(blocks[n-1].messages, m)
			continue
		}
		blocks = append(blocks, promptBlock{role: role, messages: []provider.Message{m}})
	}
	return blocks
}

// convert returns the top-level system blocks and the messages.
func (c *promptConverter) convert(prompt []provider.Message) ([]textBlock, []wireMessage, error) {
	var system []textBlock
	messages := []wireMessage{}
	blocks := groupPrompt(prompt)
	for i, b := range blocks {
		last := i == len(blocks)-1
		switch b.role {
		case provider.RoleSystem:
			var content []any
			var texts []textBlock
			for _, m := range b.messages {
				sm, _ := m.(provider.SystemMessage)
				t := textBlock{Type: "text", Text: sm.Content, CacheControl: c.cache.take(sm.ProviderOptions, "a system message", true)}
				texts = append(texts, t)
				content = append(content, t)
			}
			// The first run of system messages is the top-level system
			// prompt; so is a later one when no system prompt exists yet.
			// Otherwise it stays in place as a mid-conversation system
			// message.
			if i == 0 || system == nil {
				system = append(system, texts...)
			} else {
				messages = append(messages, wireMessage{Role: "system", Content: content})
				c.betas.add("mid-conversation-system-2026-04-07")
			}
		case provider.RoleUser:
			content, err := c.userContent(b.messages)
			if err != nil {
				return nil, nil, err
			}
			messages = append(messages, wireMessage{Role: "user", Content: content})
		case provider.RoleAssistant:
			messages = append(messages, wireMessage{Role: "assistant", Content: c.assistantContent(b.messages, last)})
		}
	}
	return system, messages, nil
}

// messageValue returns m with a pointer to a message replaced by the
// message, so that the rest of the conversion handles values only. Nil
// pointers become nil.
func messageValue(m provider.Message) provider.Message {
	switch v := m.(type) {
	case *provider.SystemMessage:
		if v != nil {
			return *v
		}
	case *provider.UserMessage:
		if v != nil {
			return *v
		}
	case *provider.AssistantMessage:
		if v != nil {
			return *v
		}
	case *provider.ToolMessage:
		if v != nil {
			return *v
		}
	default:
		return m
	}
	return nil
}

// userContent converts a run of user and tool messages into the content of
// one user message.
func (c *promptConverter) userContent(msgs []provider.Message) ([]any, error) {
	content := []any{}
	for _, m := range msgs {
		switch m := m.(type) {
		case provider.UserMessage:
			blocks, err := c.userParts(m.Content, m.ProviderOptions)
			if err != nil {
				return nil, err
			}
			content = append(content, blocks...)
		case provider.ToolMessage:
			content = append(content, c.toolResults(m.Content, m.ProviderOptions)...)
		}
	}
	return content, nil
}

func (c *promptConverter) userParts(parts []provider.UserPart, msgOpts provider.ProviderOptions) ([]any, error) {
	var out []any
	for j, p := range parts {
		isLast := j == len(parts)-1
		var partOpts provider.ProviderOptions
		switch p := p.(type) {
		case provider.TextPart:
			partOpts = p.ProviderOptions
		case provider.FilePart:
			partOpts = p.ProviderOptions
		}
		cc := c.cache.take(partOpts, "a user message part", true)
		if cc == nil && isLast {
			cc = c.cache.take(msgOpts, "a user message", true)
		}
		switch p := p.(type) {
		case provider.TextPart:
			out = append(out, textBlock{Type: "text", Text: p.Text, CacheControl: cc})
		case provider.FilePart:
			b, err := c.fileBlock(p, cc)
			if err != nil {
				return nil, err
			}
			out = append(out, b)
		}
	}
	return out, nil
}

// filePartOptions are the Anthropic settings of a document file part.
type filePartOptions struct {
	Citations *struct {
		Enabled bool `json:"enabled"`
	} `json:"citations"`
	Title   string `json:"title"`
	Context string `json:"context"`
}

func (c *promptConverter) fileBlock(p provider.FilePart, cc any) (any, error) {
	mt := p.MediaType
	switch {
	case mt == "image" || strings.HasPrefix(mt, "image/"):
		src, err := c.mediaSource(p.Data, mt, true)
		if err != nil {
			return nil, err
		}
		return imageBlock{Type: "image", Source: src, CacheControl: cc}, nil
	case mt == "application/pdf" || mt == "text/plain":
		var opts filePartOptions
		if m := anthropicOptions(p.ProviderOptions); m != nil {
			decodeInto(m, &opts)
		}
		var src any
		if mt == "application/pdf" {
			c.betas.add("pdfs-2024-09-25")
			s, err := c.mediaSource(p.Data, mt, false)
			if err != nil {
				return nil, err
			}
			src = s
		} else {
			s, err := c.textSource(p.Data)
			if err != nil {
				return nil, err
			}
			src = s
		}
		d := documentBlock{Type: "document", Source: src, Title: opts.Title, Context: opts.Context, CacheControl: cc}
		if d.Title == "" {
			d.Title = p.Filename
		}
		if opts.Citations != nil && opts.Citations.Enabled {
			d.Citations = map[string]any{"enabled": true}
		}
		return d, nil
	}
	return nil, &provider.UnsupportedFunctionalityError{Functionality: "media type: " + mt}
}

// mediaSource returns the source of an image or PDF: a URL, a file id or
// base64 data.
func (c *promptConverter) mediaSource(d provider.FileData, mediaType string, image bool) (any, error) {
	switch d := d.(type) {
	case provider.FileURL:
		if mt, data, ok := parseDataURL(d.URL); ok {
			if image && (mediaType == "image" || mediaType == "image/*") {
				mediaType = mt
			}
			return base64Source(mediaType, data, image), nil
		}
		return map[string]any{"type": "url", "url": d.URL}, nil
	case provider.FileBytes:
		return base64Source(mediaType, d.Data, image), nil
	case provider.FileReference:
		if id, ok := d.Reference[providerName]; ok {
			c.betas.add("files-api-2025-04-14")
			return map[string]any{"type": "file", "file_id": id}, nil
		}
		return nil, &provider.UnsupportedFunctionalityError{Functionality: "file references without an anthropic file id"}
	}
	return nil, &provider.UnsupportedFunctionalityError{Functionality: "file data of this kind for media type " + mediaType}
}

func base64Source(mediaType string, data []byte, image bool) map[string]any {
	if image && (mediaType == "image" || mediaType == "image/*") {
		mediaType = sniffImageType(data)
	}
	return map[string]any{"type": "base64", "media_type": mediaType, "data": base64.StdEncoding.EncodeToString(data)}
}

// textSource returns the source of a plain text document.
func (c *promptConverter) textSource(d provider.FileData) (any, error) {
	switch d := d.(type) {
	case provider.FileText:
		return map[string]any{"type": "text", "media_type": "text/plain", "data": d.Text}, nil
	case provider.FileBytes:
		return map[string]any{"type": "text", "media_type": "text/plain", "data": string(d.Data)}, nil
	case provider.FileURL:
		if _, data, ok := parseDataURL(d.URL); ok {
			return map[string]any{"type": "text", "media_type": "text/plain", "data": string(data)}, nil
		}
		return map[string]any{"type": "url", "url": d.URL}, nil
	case provider.FileReference:
		return c.mediaSource(d, "text/plain", false)
	}
	return nil, &provider.UnsupportedFunctionalityError{Functionality: "file data of this kind for text documents"}
}

// sniffImageType guesses the media type of image bytes, defaulting to JPEG.
func sniffImageType(data []byte) string {
	switch ct := http.DetectContentType(data); ct {
	case "image/png", "image/gif", "image/webp", "image/jpeg":
		return ct
	}
	return "image/jpeg"
}

// parseDataURL decodes a base64 "data:" URL.
func parseDataURL(u string) (mediaType string, data []byte, ok bool) {
	rest, found := strings.CutPrefix(u, "data:")
	if !found {
		return "", nil, false
	}
	meta, payload, found := strings.Cut(rest, ",")
	if !found || !strings.HasSuffix(meta, ";base64") {
		return "", nil, false
	}
	b, err := base64.StdEncoding.DecodeString(payload)
	if err != nil {
		return "", nil, false
	}
	return strings.TrimSuffix(meta, ";base64"), b, true
}

// toolResults converts the parts of a tool message into tool_result blocks.
func (c *promptConverter) toolResults(parts []provider.ToolPart, msgOpts provider.ProviderOptions) []any {
	var out []any
	for j, p := range parts {
		r, ok := p.(provider.ToolResultPart)
		if !ok {
			// Approval responses are not sent to the model.
			continue
		}
		isLast := j == len(parts)-1
		cc := c.cache.take(r.ProviderOptions, "a tool result part", true)
		if cc == nil {
			cc = c.cache.take(outputOptions(r.Output), "a tool result output", true)
		}
		if cc == nil && isLast {
			cc = c.cache.take(msgOpts, "a tool result message", true)
		}
		block := toolResultBlock{Type: "tool_result", ToolUseID: r.ToolCallID, CacheControl: cc}
		switch o := r.Output.(type) {
		case provider.TextOutput:
			block.Content = o.Value
		case provider.ErrorTextOutput:
			block.Content = o.Value
			block.IsError = true
		case provider.ExecutionDeniedOutput:
			block.Content = o.Reason
			if o.Reason == "" {
				block.Content = "Tool call execution denied."
			}
		case provider.JSONOutput:
			block.Content = jsonText(o.Value)
		case provider.ErrorJSONOutput:
			block.Content = jsonText(o.Value)
			block.IsError = true
		case provider.ContentOutput:
			block.Content = c.toolResultContent(o.Value)
		default:
			block.Content = ""
		}
		out = append(out, block)
	}
	return out
}

// outputOptions returns the provider options of a tool result output; for
// content outputs without their own options, those of the first part that
// has some.
func outputOptions(o provider.ToolResultOutput) provider.ProviderOptions {
	if po := provider.OutputProviderOptions(o); po != nil {
		return po
	}
	if c, ok := o.(provider.ContentOutput); ok {
		for _, p := range c.Value {
			var po provider.ProviderOptions
			switch p := p.(type) {
			case provider.TextPart:
				po = p.ProviderOptions
			case provider.FilePart:
				po = p.ProviderOptions
			case provider.CustomPart:
				po = p.ProviderOptions
			}
			if po != nil {
				return po
			}
		}
	}
	return nil
}

// jsonText renders a JSON value as the text content of a tool result.
func jsonText(v json.RawMessage) string {
	if len(bytes.TrimSpace(v)) == 0 {
		return "null"
	}
	return compactJSON(v)
}

func (c *promptConverter) toolResultContent(parts []provider.ContentOutputPart) []any {
	out := []any{}
	for _, p := range parts {
		switch p := p.(type) {
		case provider.TextPart:
			out = append(out, textBlock{Type: "text", Text: p.Text})
		case provider.FilePart:
			if b := c.toolResultFile(p); b != nil {
				out = append(out, b)
			}
		case provider.CustomPart:
			var ref struct {
				Type     string `json:"type"`
				ToolName string `json:"toolName"`
			}
			if m := anthropicOptions(p.ProviderOptions); m != nil && decodeInto(m, &ref) && ref.Type == "tool-reference" {
				out = append(out, toolReferenceBlock{Type: "tool_reference", ToolName: ref.ToolName})
				continue
			}
			c.warnings = append(c.warnings, provider.Warning{Type: "other", Message: "unsupported custom part in tool result content"})
		}
	}
	return out
}

func (c *promptConverter) toolResultFile(p provider.FilePart) any {
	mt := p.MediaType
	isImage := mt == "image" || strings.HasPrefix(mt, "image/")
	switch d := p.Data.(type) {
	case provider.FileURL:
		if _, _, ok := parseDataURL(d.URL); !ok {
			if isImage {
				return imageBlock{Type: "image", Source: map[string]any{"type": "url", "url": d.URL}}
			}
			return documentBlock{Type: "document", Source: map[string]any{"type": "url", "url": d.URL}}
		}
	}
	switch {
	case isImage:
		if src, err := c.mediaSource(p.Data, mt, true); err == nil {
			return imageBlock{Type: "image", Source: src}
		}
	case mt == "application/pdf":
		if src, err := c.mediaSource(p.Data, mt, false); err == nil {
			c.betas.add("pdfs-2024-09-25")
			return documentBlock{Type: "document", Source: src}
		}
	case mt == "text/plain":
		if src, err := c.textSource(p.Data); err == nil {
			return documentBlock{Type: "document", Source: src}
		}
	}
	c.warnings = append(c.warnings, provider.Warning{
		Type:    "other",
		Message: "unsupported file in tool result content with media type " + mt,
	})
	return nil
}

// assistantContent converts a run of assistant messages into the content of
// one assistant message. lastBlock says whether the run ends the prompt, in
// which case its final text is trimmed (the API rejects a prefill that ends
// in whitespace).
func (c *promptConverter) assistantContent(msgs []provider.Message, lastBlock bool) []any {
	content := []any{}
	mcpCalls := map[string]bool{}
	for i, m := range msgs {
		am, _ := m.(provider.AssistantMessage)
		lastMsg := i == len(msgs)-1
		for k, p := range am.Content {
			lastPart := k == len(am.Content)-1
			cc := c.cache.take(assistantPartOptions(p), "an assistant message part", true)
			if cc == nil && lastPart {
				cc = c.cache.take(am.ProviderOptions, "an assistant message", true)
			}
			switch p := p.(type) {
			case provider.TextPart:
				content = append(content, c.assistantText(p, cc, lastBlock && lastMsg && lastPart))
			case provider.ReasoningPart:
				if b := c.reasoning(p); b != nil {
					content = append(content, b)
				}
			case provider.ToolCallPart:
				if b := c.toolCall(p, cc, mcpCalls); b != nil {
					content = append(content, b)
				}
			case provider.ToolResultPart:
				if b := c.providerResult(p, cc, mcpCalls); b != nil {
					content = append(content, b)
				}
			}
		}
	}
	return moveToolUsesLast(content)
}

func assistantPartOptions(p provider.AssistantPart) provider.ProviderOptions {
	switch p := p.(type) {
	case provider.TextPart:
		return p.ProviderOptions
	case provider.FilePart:
		return p.ProviderOptions
	case provider.ReasoningPart:
		// Thinking blocks cannot be cached; reasoning() warns about it.
		return nil
	case provider.ToolCallPart:
		return p.ProviderOptions
	case provider.ToolResultPart:
		return p.ProviderOptions
	}
	return nil
}

func (c *promptConverter) assistantText(p provider.TextPart, cc any, trim bool) any {
	var meta struct {
		Type      string `json:"type"`
		Citations any    `json:"citations"`
	}
	if m := anthropicOptions(p.ProviderOptions); m != nil {
		decodeInto(m, &meta)
	}
	if meta.Type == "compaction" {
		return compactionBlock{Type: "compaction", Content: p.Text, CacheControl: cc}
	}
	text := p.Text
	if trim {
		text = strings.TrimSpace(text)
	}
	return textBlock{Type: "text", Text: text, Citations: meta.Citations, CacheControl: cc}
}

// reasoningMetadata is what a reasoning part needs to be sent back.
type reasoningMetadata struct {
	Signature    *string `json:"signature"`
	RedactedData *string `json:"redactedData"`
}

func (c *promptConverter) reasoning(p provider.ReasoningPart) any {
	if !c.sendReasoning {
		c.warnings = append(c.warnings, provider.Warning{Type: "other", Message: "sending reasoning content is disabled for this model"})
		return nil
	}
	var meta reasoningMetadata
	if m := anthropicOptions(p.ProviderOptions); m != nil {
		decodeInto(m, &meta)
	}
	switch {
	case meta.Signature != nil:
		c.cache.take(p.ProviderOptions, "a thinking block", false)
		return thinkingBlock{Type: "thinking", Thinking: p.Text, Signature: *meta.Signature}
	case meta.RedactedData != nil:
		c.cache.take(p.ProviderOptions, "a redacted thinking block", false)
		return redactedThinkingBlock{Type: "redacted_thinking", Data: *meta.RedactedData}
	}
	c.warnings = append(c.warnings, provider.Warning{Type: "other", Message: "unsupported reasoning metadata"})
	return nil
}

// callerOf reads the caller of a tool call or result from its provider
// options: {"type": "direct"} or {"type": "code_execution_...", "toolId"}.
func callerOf(opts provider.ProviderOptions) any {
	m := anthropicOptions(opts)
	if m == nil {
		return nil
	}
	var meta struct {
		Caller *struct {
			Type   string `json:"type"`
			ToolID string `json:"toolId"`
		} `json:"caller"`
	}
	if !decodeInto(m, &meta) || meta.Caller == nil {
		return nil
	}
	switch meta.Caller.Type {
	case "direct":
		return map[string]any{"type": "direct"}
	case "code_execution_20250825", "code_execution_20260120":
		if meta.Caller.ToolID != "" {
			return map[string]any{"type": meta.Caller.Type, "tool_id": meta.Caller.ToolID}
		}
	}
	return nil
}

// callInput returns a tool call's input as a JSON object. An input given as
// a JSON string that holds an object is unwrapped; an absent input is {}.
func callInput(in json.RawMessage) json.RawMessage {
	trimmed := bytes.TrimSpace(in)
	if len(trimmed) == 0 || bytes.Equal(trimmed, []byte("null")) {
		return json.RawMessage("{}")
	}
	if trimmed[0] == '"' {
		var s string
		if json.Unmarshal(trimmed, &s) == nil && isJSONObject([]byte(s)) {
			return json.RawMessage(s)
		}
	}
	return trimmed
}

func (c *promptConverter) toolCall(p provider.ToolCallPart, cc any, mcpCalls map[string]bool) any {
	input := callInput(p.Input)
	caller := callerOf(p.ProviderOptions)
	if !p.ProviderExecuted {
		return toolUseBlock{Type: "tool_use", ID: p.ToolCallID, Name: p.ToolName, Input: input, Caller: caller, CacheControl: cc}
	}
	var meta struct {
		Type       string `json:"type"`
		ServerName any    `json:"serverName"`
	}
	if m := anthropicOptions(p.ProviderOptions); m != nil {
		decodeInto(m, &meta)
	}
	if meta.Type == "mcp-tool-use" {
		mcpCalls[p.ToolCallID] = true
		server, ok := meta.ServerName.(string)
		if !ok {
			c.warnings = append(c.warnings, provider.Warning{Type: "other", Message: "an MCP tool call needs its server name as a string"})
			return nil
		}
		return mcpToolUseBlock{Type: "mcp_tool_use", ID: p.ToolCallID, Name: p.ToolName, Input: input, ServerName: server, CacheControl: cc}
	}
	wire := c.names.wire(p.ToolName)
	server := func(name string, in json.RawMessage) any {
		return toolUseBlock{Type: "server_tool_use", ID: p.ToolCallID, Name: name, Input: in, Caller: caller, CacheControl: cc}
	}
	switch wire {
	case wireCodeExecution:
		// Calls of the code execution sub-tools and programmatic calls carry
		// an injected "type" that the API does not know.
		if obj, ok := claude.DecodeObject(input); ok {
			if t := obj.Str("type"); t != "" {
				switch t {
				case "bash_code_execution", "text_editor_code_execution":
					obj.Remove("type")
					return server(t, claude.MarshalValue(obj))
				case "programmatic-tool-call":
					obj.Remove("type")
					return server(wireCodeExecution, claude.MarshalValue(obj))
				}
			}
		}
		return server(wire, input)
	case wireWebFetch, wireWebSearch, wireSearchRegex, wireSearchBM25:
		return server(wire, input)
	case wireAdvisor:
		return server(wire, json.RawMessage("{}"))
	}
	c.warnings = append(c.warnings, provider.Warning{
		Type:    "other",
		Message: "a provider-executed call of tool " + p.ToolName + " cannot be sent to Anthropic",
	})
	return nil
}

// providerResult converts the result of a provider-executed tool call.
func (c *promptConverter) providerResult(p provider.ToolResultPart, cc any, mcpCalls map[string]bool) any {
	caller := callerOf(p.ProviderOptions)
	unsupported := func() any {
		c.warnings = append(c.warnings, provider.Warning{
			Type:    "other",
			Message: "a provider-executed result of tool " + p.ToolName + " with output type " + outputType(p.Output) + " cannot be sent to Anthropic",
		})
		return nil
	}
	value, isError, ok := outputValue(p.Output)
	if mcpCalls[p.ToolCallID] {
		if !ok || !isJSONKind(p.Output) {
			return unsupported()
		}
		return mcpToolResultBlock{Type: "mcp_tool_result", ToolUseID: p.ToolCallID, IsError: isError, Content: toAny(value), CacheControl: cc}
	}
	result := func(typ string, content any, withCaller bool) any {
		b := serverResultBlock{Type: typ, ToolUseID: p.ToolCallID, Content: content, CacheControl: cc}
		if withCaller {
			b.Caller = caller
		}
		return b
	}
	switch wire := c.names.wire(p.ToolName); wire {
	case wireSearchRegex, wireSearchBM25:
		if !ok {
			return unsupported()
		}
		var probe struct {
			Type string `json:"type"`
		}
		if isError || (json.Unmarshal(value, &probe) == nil && probe.Type == "tool_search_tool_result_error") {
			return result("tool_search_tool_result", map[string]any{
				"type":       "tool_search_tool_result_error",
				"error_code": errorCode(value),
			}, false)
		}
		var refs []struct {
			ToolName string `json:"toolName"`
		}
		if json.Unmarshal(value, &refs) != nil {
			return unsupported()
		}
		list := make([]toolReferenceBlock, 0, len(refs))
		for _, r := range refs {
			list = append(list, toolReferenceBlock{Type: "tool_reference", ToolName: r.ToolName})
		}
		return result("tool_search_tool_result", map[string]any{
			"type":            "tool_search_tool_search_result",
			"tool_references": list,
		}, false)
	case wireWebSearch:
		if !ok {
			return unsupported()
		}
		if isError {
			return result("web_search_tool_result", map[string]any{
				"type":       "web_search_tool_result_error",
				"error_code": errorCode(value),
			}, true)
		}
		var results []struct {
			URL              string  `json:"url"`
			Title            *string `json:"title"`
			PageAge          *string `json:"pageAge"`
			EncryptedContent string  `json:"encryptedContent"`
			Type             string  `json:"type"`
		}
		if json.Unmarshal(value, &results) != nil {
			return unsupported()
		}
		list := make([]map[string]any, 0, len(results))
		for _, r := range results {
			list = append(list, map[string]any{
				"url": r.URL, "title": r.Title, "page_age": r.PageAge,
				"encrypted_content": r.EncryptedContent, "type": r.Type,
			})
		}
		return result("web_search_tool_result", list, true)
	case wireWebFetch:
		if !ok {
			return unsupported()
		}
		if isError {
			return result("web_fetch_tool_result", map[string]any{
				"type":       "web_fetch_tool_result_error",
				"error_code": errorCode(value),
			}, true)
		}
		var r struct {
			URL         string `json:"url"`
			RetrievedAt any    `json:"retrievedAt"`
			Content     struct {
				Title     any `json:"title"`
				Citations any `json:"citations"`
				Source    struct {
					Type      string `json:"type"`
					MediaType string `json:"mediaType"`
					Data      string `json:"data"`
				} `json:"source"`
			} `json:"content"`
		}
		if json.Unmarshal(value, &r) != nil {
			return unsupported()
		}
		doc := &object{}
		doc.Set("type", "document")
		doc.Set("title", r.Content.Title)
		if r.Content.Citations != nil {
			doc.Set("citations", r.Content.Citations)
		}
		doc.Set("source", map[string]any{"type": r.Content.Source.Type, "media_type": r.Content.Source.MediaType, "data": r.Content.Source.Data})
		return result("web_fetch_tool_result", map[string]any{
			"type": "web_fetch_result", "url": r.URL, "retrieved_at": r.RetrievedAt, "content": doc,
		}, true)
	case wireCodeExecution:
		if !ok {
			return unsupported()
		}
		return c.codeExecutionResult(p, value, isError, cc)
	case wireAdvisor:
		if !ok || !isJSONKind(p.Output) {
			return unsupported()
		}
		var r struct {
			Type             string `json:"type"`
			Text             string `json:"text"`
			EncryptedContent string `json:"encryptedContent"`
			ErrorCode        string `json:"errorCode"`
		}
		json.Unmarshal(value, &r)
		switch r.Type {
		case "advisor_result":
			return result("advisor_tool_result", map[string]any{"type": r.Type, "text": r.Text}, false)
		case "advisor_redacted_result":
			return result("advisor_tool_result", map[string]any{"type": r.Type, "encrypted_content": r.EncryptedContent}, false)
		}
		return result("advisor_tool_result", map[string]any{"type": "advisor_tool_result_error", "error_code": r.ErrorCode}, false)
	}
	c.warnings = append(c.warnings, provider.Warning{
		Type:    "other",
		Message: "a provider-executed result of tool " + p.ToolName + " cannot be sent to Anthropic",
	})
	return nil
}

func (c *promptConverter) codeExecutionResult(p provider.ToolResultPart, value json.RawMessage, isError bool, cc any) any {
	block := func(typ string, content any) any {
		return serverResultBlock{Type: typ, ToolUseID: p.ToolCallID, Content: content, CacheControl: cc}
	}
	var probe struct {
		Type      string `json:"type"`
		ErrorCode string `json:"errorCode"`
	}
	json.Unmarshal(value, &probe)
	if isError {
		code := probe.ErrorCode
		if code == "" {
			code = "unknown"
		}
		if probe.Type == "code_execution_tool_result_error" {
			return block("code_execution_tool_result", map[string]any{"type": probe.Type, "error_code": code})
		}
		return block("bash_code_execution_tool_result", map[string]any{"type": "bash_code_execution_tool_result_error", "error_code": code})
	}
	obj, ok := claude.DecodeObject(value)
	if !ok || probe.Type == "" {
		c.warnings = append(c.warnings, provider.Warning{
			Type:    "other",
			Message: "the provider-executed result of tool " + p.ToolName + " is not a code execution result",
		})
		return nil
	}
	switch probe.Type {
	case "code_execution_result", "encrypted_code_execution_result":
		if _, has := obj.Get("content"); !has {
			obj.Set("content", []any{})
		}
		return block("code_execution_tool_result", obj)
	case "bash_code_execution_result", "bash_code_execution_tool_result_error":
		return block("bash_code_execution_tool_result", obj)
	}
	return block("text_editor_code_execution_tool_result", obj)
}

// outputValue returns the JSON value of a provider tool result output and
// whether it reports an error. Text outputs are read as JSON when they hold
// JSON. ok is false for outputs that carry no value.
func outputValue(o provider.ToolResultOutput) (value json.RawMessage, isError, ok bool) {
	switch o := o.(type) {
	case provider.JSONOutput:
		return jsonOrNull(o.Value), false, true
	case provider.ErrorJSONOutput:
		return jsonOrNull(o.Value), true, true
	case provider.ErrorTextOutput:
		if json.Valid([]byte(o.Value)) {
			return json.RawMessage(o.Value), true, true
		}
		return claude.MarshalValue(o.Value), true, true
	}
	return nil, false, false
}

func isJSONKind(o provider.ToolResultOutput) bool {
	switch o.(type) {
	case provider.JSONOutput, provider.ErrorJSONOutput:
		return true
	}
	return false
}

func outputType(o provider.ToolResultOutput) string {
	if o == nil {
		return "none"
	}
	return o.OutputType()
}

func jsonOrNull(v json.RawMessage) json.RawMessage {
	if len(bytes.TrimSpace(v)) == 0 {
		return json.RawMessage("null")
	}
	return v
}

// errorCode reads "errorCode" from an error value, which may also be a JSON
// string holding such an object. It defaults to "unavailable".
func errorCode(v json.RawMessage) string {
	var s string
	if json.Unmarshal(v, &s) == nil {
		v = json.RawMessage(s)
	}
	var e struct {
		ErrorCode string `json:"errorCode"`
	}
	if json.Unmarshal(v, &e) == nil && e.ErrorCode != "" {
		return e.ErrorCode
	}
	return "unavailable"
}

// moveToolUsesLast moves tool_use blocks behind the other blocks of each run
// between thinking blocks, the order the API expects.
func moveToolUsesLast(content []any) []any {
	out := make([]any, 0, len(content))
	var segment []any
	flush := func() {
		var uses []any
		for _, b := range segment {
			if isToolUse(b) {
				uses = append(uses, b)
			} else {
				out = append(out, b)
			}
		}
		out = append(out, uses...)
		segment = segment[:0]
	}
	for _, b := range content {
		switch b.(type) {
		case thinkingBlock, redactedThinkingBlock:
			flush()
			out = append(out, b)
		default:
			segment = append(segment, b)
		}
	}
	flush()
	return out
}

func isToolUse(b any) bool {
	t, ok := b.(toolUseBlock)
	return ok && t.Type == "tool_use"
}
