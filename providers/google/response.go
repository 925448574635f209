package google

import (
	"encoding/base64"
	"encoding/json"
	"net/http"
	"strings"

	"github.com/aisdkgo/ai/internal/httpx"
	"github.com/aisdkgo/ai/provider"
)

// wireResponse is a generateContent response or one chunk of a stream.
type wireResponse struct {
	Error          *wireError      `json:"error"`
	ResponseID     string          `json:"responseId"`
	ModelVersion   string          `json:"modelVersion"`
	Candidates     []wireCandidate `json:"candidates"`
	UsageMetadata  json.RawMessage `json:"usageMetadata"`
	PromptFeedback json.RawMessage `json:"promptFeedback"`
}

type wireCandidate struct {
	Content            *wireContent    `json:"content"`
	FinishReason       string          `json:"finishReason"`
	FinishMessage      *string         `json:"finishMessage"`
	ContinuationToken  *string         `json:"continuationToken"`
	SafetyRatings      json.RawMessage `json:"safetyRatings"`
	GroundingMetadata  json.RawMessage `json:"groundingMetadata"`
	URLContextMetadata json.RawMessage `json:"urlContextMetadata"`
}

type wireContent struct {
	Parts []wirePart `json:"parts"`
}

type wirePart struct {
	Text                *httpx.Text       `json:"text"`
	Thought             bool              `json:"thought"`
	ThoughtSignature    string            `json:"thoughtSignature"`
	FunctionCall        *wireFunctionCall `json:"functionCall"`
	InlineData          *blob             `json:"inlineData"`
	ExecutableCode      *executableCode   `json:"executableCode"`
	CodeExecutionResult *struct {
		Outcome string  `json:"outcome"`
		Output  *string `json:"output"`
	} `json:"codeExecutionResult"`
	ToolCall     *serverToolCall    `json:"toolCall"`
	ToolResponse *serverToolMessage `json:"toolResponse"`
}

type wireFunctionCall struct {
	ID           string          `json:"id"`
	Name         *string         `json:"name"`
	Args         json.RawMessage `json:"args"`
	PartialArgs  []partialArg    `json:"partialArgs"`
	WillContinue *bool           `json:"willContinue"`
}

// argsJSON returns a complete call's arguments as JSON text: a string as
// it is, any other value compacted, none as "{}".
func (f *wireFunctionCall) argsJSON() string {
	if isNull(f.Args) {
		return "{}"
	}
	var s string
	if json.Unmarshal(f.Args, &s) == nil {
		return s
	}
	return string(compact(f.Args))
}

func isNull(raw json.RawMessage) bool {
	t := strings.TrimSpace(string(raw))
	return t == "" || t == "null"
}

// usage is the usageMetadata object.
type usage struct {
	PromptTokenCount        *int   `json:"promptTokenCount"`
	CandidatesTokenCount    *int   `json:"candidatesTokenCount"`
	ToolUsePromptTokenCount *int   `json:"toolUsePromptTokenCount"`
	CachedContentTokenCount *int   `json:"cachedContentTokenCount"`
	ThoughtsTokenCount      *int   `json:"thoughtsTokenCount"`
	ServiceTier             string `json:"serviceTier"`
}

// convertUsage maps usageMetadata to token counts: input is the prompt plus
// tool-use prompt tokens (cached ones read from the cache), output the
// candidates plus thoughts (thoughts as reasoning).
func convertUsage(raw json.RawMessage) provider.Usage {
	if isNull(raw) {
		return provider.Usage{}
	}
	var u usage
	_ = json.Unmarshal(raw, &u)
	n := func(p *int) int {
		if p == nil {
			return 0
		}
		return *p
	}
	in := n(u.PromptTokenCount) + n(u.ToolUsePromptTokenCount)
	cached := n(u.CachedContentTokenCount)
	text, thoughts := n(u.CandidatesTokenCount), n(u.ThoughtsTokenCount)
	return provider.Usage{
		InputTokens: provider.InputTokens{
			Total: new(in), NoCache: new(in - cached), CacheRead: new(cached),
		},
		OutputTokens: provider.OutputTokens{
			Total: new(text + thoughts), Text: new(text), Reasoning: new(thoughts),
		},
		Raw: raw,
	}
}

// usageCounts are the usageMetadata fields that add up over the requests
// of a continued answer.
var usageCounts = []string{"promptTokenCount", "candidatesTokenCount", "toolUsePromptTokenCount", "totalTokenCount", "cachedContentTokenCount", "thoughtsTokenCount"}

// usageDetails are its per-modality lists.
var usageDetails = []string{"promptTokensDetails", "cacheTokensDetails", "candidatesTokensDetails", "toolUsePromptTokensDetails"}

// addUsage adds up the usageMetadata of two requests: counts are summed,
// per-modality lists summed by modality, other fields taken from b.
func addUsage(a, b json.RawMessage) json.RawMessage {
	if isNull(a) {
		return b
	}
	if isNull(b) {
		return a
	}
	var ma, mb map[string]any
	if json.Unmarshal(a, &ma) != nil || json.Unmarshal(b, &mb) != nil {
		return b
	}
	out := map[string]any{}
	for k, v := range ma {
		out[k] = v
	}
	for k, v := range mb {
		out[k] = v
	}
	for _, k := range usageCounts {
		x, okx := ma[k].(float64)
		y, oky := mb[k].(float64)
		if okx || oky {
			out[k] = x + y
		}
	}
	for _, k := range usageDetails {
		la, oka := ma[k].([]any)
		lb, okb := mb[k].([]any)
		if !oka || !okb {
			continue
		}
		var order []string
		counts := map[string]float64{}
		for _, d := range append(la, lb...) {
			dm, _ := d.(map[string]any)
			mod, _ := dm["modality"].(string)
			n, _ := dm["tokenCount"].(float64)
			if _, seen := counts[mod]; !seen {
				order = append(order, mod)
			}
			counts[mod] += n
		}
		merged := make([]any, len(order))
		for i, mod := range order {
			merged[i] = map[string]any{"modality": mod, "tokenCount": counts[mod]}
		}
		out[k] = merged
	}
	merged, err := json.Marshal(out)
	if err != nil {
		return b
	}
	return merged
}

// mapFinishReason maps a finish reason; STOP with client tool calls is
// tool-calls.
func mapFinishReason(reason string, toolCalls bool) provider.FinishReasonKind {
	switch reason {
	case "STOP":
		if toolCalls {
			return provider.FinishToolCalls
		}
		return provider.FinishStop
	case "MAX_TOKENS", "CONTINUATION":
		return provider.FinishLength
	case "IMAGE_SAFETY", "RECITATION", "SAFETY", "BLOCKLIST", "PROHIBITED_CONTENT", "SPII":
		return provider.FinishContentFilter
	case "MALFORMED_FUNCTION_CALL":
		return provider.FinishError
	}
	return provider.FinishOther
}

// blockReason returns the reason a prompt was blocked, or "".
func blockReason(feedback json.RawMessage) string {
	var f struct {
		BlockReason string `json:"blockReason"`
	}
	if isNull(feedback) || json.Unmarshal(feedback, &f) != nil {
		return ""
	}
	switch f.BlockReason {
	case "BLOCK_REASON_UNSPECIFIED", "BLOCKED_REASON_UNSPECIFIED":
		return ""
	}
	return f.BlockReason
}

// anyJSON decodes raw JSON for provider metadata; absent is nil.
func anyJSON(raw json.RawMessage) any {
	if isNull(raw) {
		return nil
	}
	var v any
	if json.Unmarshal(raw, &v) != nil {
		return nil
	}
	return v
}

// callMetadata is the provider metadata of a call.
type callMetadata struct {
	promptFeedback, groundingMetadata, urlContextMetadata, safetyRatings, usageMetadata json.RawMessage
	finishMessage                                                                       *string
	continuationToken                                                                   *string
	headers                                                                             http.Header
}

func (c callMetadata) payload() map[string]any {
	m := map[string]any{
		"promptFeedback":     anyJSON(c.promptFeedback),
		"groundingMetadata":  anyJSON(c.groundingMetadata),
		"urlContextMetadata": anyJSON(c.urlContextMetadata),
		"safetyRatings":      anyJSON(c.safetyRatings),
		"usageMetadata":      anyJSON(c.usageMetadata),
		"finishMessage":      nil,
		"serviceTier":        nil,
	}
	if c.finishMessage != nil {
		m["finishMessage"] = *c.finishMessage
	}
	var u usage
	if !isNull(c.usageMetadata) {
		_ = json.Unmarshal(c.usageMetadata, &u)
	}
	switch {
	case u.ServiceTier != "":
		m["serviceTier"] = u.ServiceTier
	case c.headers.Get("X-Gemini-Service-Tier") != "":
		m["serviceTier"] = c.headers.Get("X-Gemini-Service-Tier")
	}
	if c.continuationToken != nil {
		m["continuationToken"] = *c.continuationToken
	}
	return m
}

// responseConverter turns response parts into content.
type responseConverter struct {
	m   *languageModel
	req *request
	// lastCode and lastServer are the ids of the latest code execution and
	// server tool calls, which the following results belong to.
	lastCode, lastServer string
}

// signature returns the metadata carrying a thought signature, or nil.
func (c *responseConverter) signature(sig string) provider.ProviderMetadata {
	if sig == "" {
		return nil
	}
	return c.m.p.metadata(map[string]any{"thoughtSignature": sig})
}

func (c *responseConverter) serverMetadata(sig, id, toolType string) provider.ProviderMetadata {
	payload := map[string]any{"serverToolCallId": id, "serverToolType": toolType}
	if sig != "" {
		payload["thoughtSignature"] = sig
	}
	return c.m.p.metadata(payload)
}

// codeCall converts an executableCode part.
func (c *responseConverter) codeCall(p *wirePart) provider.ToolCall {
	id := c.m.p.cfg.newID()
	c.lastCode = id
	input, _ := json.Marshal(p.ExecutableCode)
	return provider.ToolCall{ToolCallID: id, ToolName: c.req.codeExecution, Input: string(input), ProviderExecuted: true}
}

// codeResult converts a codeExecutionResult part; ok is false when no call
// precedes it.
func (c *responseConverter) codeResult(p *wirePart) (provider.ToolResult, bool) {
	if c.lastCode == "" {
		return provider.ToolResult{}, false
	}
	out := ""
	if p.CodeExecutionResult.Output != nil {
		out = *p.CodeExecutionResult.Output
	}
	result, _ := json.Marshal(map[string]string{"outcome": p.CodeExecutionResult.Outcome, "output": out})
	return provider.ToolResult{ToolCallID: c.lastCode, ToolName: c.req.codeExecution, Result: result}, true
}

func (c *responseConverter) serverCall(p *wirePart) provider.ToolCall {
	id := p.ToolCall.ID
	if id == "" {
		id = c.m.p.cfg.newID()
	}
	c.lastServer = id
	input := "{}"
	if !isNull(p.ToolCall.Args) {
		input = string(compact(p.ToolCall.Args))
	}
	return provider.ToolCall{ToolCallID: id, ToolName: "server:" + p.ToolCall.ToolType, Input: input,
		ProviderExecuted: true, Dynamic: true, ProviderMetadata: c.serverMetadata(p.ThoughtSignature, id, p.ToolCall.ToolType)}
}

func (c *responseConverter) serverResult(p *wirePart) provider.ToolResult {
	id := c.lastServer
	if id == "" {
		id = p.ToolResponse.ID
	}
	if id == "" {
		id = c.m.p.cfg.newID()
	}
	c.lastServer = ""
	result := json.RawMessage(`{}`)
	if !isNull(p.ToolResponse.Response) {
		result = compact(p.ToolResponse.Response)
	}
	return provider.ToolResult{ToolCallID: id, ToolName: "server:" + p.ToolResponse.ToolType, Result: result,
		Dynamic: true, ProviderMetadata: c.serverMetadata(p.ThoughtSignature, id, p.ToolResponse.ToolType)}
}

// file converts an inlineData part.
func (c *responseConverter) file(p *wirePart) (provider.Content, error) {
	data, err := base64.StdEncoding.DecodeString(p.InlineData.Data)
	if err != nil {
		return nil, &provider.InvalidResponseDataError{Message: "inline data is not base64: " + err.Error()}
	}
	if p.Thought {
		return provider.ReasoningFile{MediaType: p.InlineData.MimeType, Data: provider.FileBytes{Data: data}, ProviderMetadata: c.signature(p.ThoughtSignature)}, nil
	}
	return provider.File{MediaType: p.InlineData.MimeType, Data: provider.FileBytes{Data: data}, ProviderMetadata: c.signature(p.ThoughtSignature)}, nil
}

// generateContent converts the parts of a non-streaming answer.
func (c *responseConverter) generateContent(parts []wirePart) ([]provider.Content, error) {
	var out []provider.Content
	for i := range parts {
		p := &parts[i]
		switch {
		case p.ExecutableCode != nil && p.ExecutableCode.Code != "":
			out = append(out, c.codeCall(p))
		case p.CodeExecutionResult != nil:
			if r, ok := c.codeResult(p); ok {
				out = append(out, r)
			}
		case p.FunctionCall != nil:
			fc := p.FunctionCall
			if fc.Name == nil {
				continue
			}
			if *fc.Name == c.req.jsonTool && c.req.jsonTool != "" {
				out = append(out, provider.Text{Text: fc.argsJSON(), ProviderMetadata: c.signature(p.ThoughtSignature)})
				continue
			}
			id := fc.ID
			if id == "" {
				id = c.m.p.cfg.newID()
			}
			out = append(out, provider.ToolCall{ToolCallID: id, ToolName: *fc.Name, Input: fc.argsJSON(), ProviderMetadata: c.signature(p.ThoughtSignature)})
		case p.InlineData != nil:
			f, err := c.file(p)
			if err != nil {
				return nil, err
			}
			out = append(out, f)
		case p.ToolCall != nil:
			out = append(out, c.serverCall(p))
		case p.ToolResponse != nil:
			out = append(out, c.serverResult(p))
		case p.Text != nil:
			if c.req.jsonTool != "" && !p.Thought {
				continue
			}
			md := c.signature(p.ThoughtSignature)
			if *p.Text == "" {
				// An empty part carries the signature of what precedes it.
				if md != nil && len(out) > 0 {
					out[len(out)-1] = withMetadata(out[len(out)-1], md)
				}
				continue
			}
			if p.Thought {
				out = append(out, provider.Reasoning{Text: string(*p.Text), ProviderMetadata: md})
			} else {
				out = append(out, provider.Text{Text: string(*p.Text), ProviderMetadata: md})
			}
		}
	}
	return out, nil
}

// withMetadata returns c with its provider metadata replaced.
func withMetadata(c provider.Content, md provider.ProviderMetadata) provider.Content {
	switch c := c.(type) {
	case provider.Text:
		c.ProviderMetadata = md
		return c
	case provider.Reasoning:
		c.ProviderMetadata = md
		return c
	case provider.ToolCall:
		c.ProviderMetadata = md
		return c
	case provider.ToolResult:
		c.ProviderMetadata = md
		return c
	case provider.File:
		c.ProviderMetadata = md
		return c
	case provider.ReasoningFile:
		c.ProviderMetadata = md
		return c
	case provider.Source:
		c.ProviderMetadata = md
		return c
	}
	return c
}

// groundingChunks is the part of groundingMetadata that sources come from.
type groundingChunks struct {
	GroundingChunks []struct {
		Web *struct {
			URI   string  `json:"uri"`
			Title *string `json:"title"`
		} `json:"web"`
		Image *struct {
			SourceURI string  `json:"sourceUri"`
			Title     *string `json:"title"`
		} `json:"image"`
		RetrievedContext *struct {
			URI             string  `json:"uri"`
			Title           *string `json:"title"`
			FileSearchStore string  `json:"fileSearchStore"`
		} `json:"retrievedContext"`
		Maps *struct {
			URI   string  `json:"uri"`
			Title *string `json:"title"`
		} `json:"maps"`
	} `json:"groundingChunks"`
}

// sourceKey identifies a source for de-duplication within a stream.
type sourceKey struct{ kind, a, b string }

// sources extracts the sources of groundingMetadata, skipping those whose
// key is in seen (and adding the new ones) when seen is not nil.
func (c *responseConverter) sources(raw json.RawMessage, seen map[sourceKey]bool) []provider.Source {
	var g groundingChunks
	if isNull(raw) || json.Unmarshal(raw, &g) != nil {
		return nil
	}
	var out []provider.Source
	add := func(s provider.Source, key sourceKey) {
		if seen != nil {
			if seen[key] {
				return
			}
			seen[key] = true
		}
		s.ID = c.m.p.cfg.newID()
		out = append(out, s)
	}
	str := func(p *string) string {
		if p == nil {
			return ""
		}
		return *p
	}
	for _, ch := range g.GroundingChunks {
		switch {
		case ch.Web != nil:
			add(provider.Source{SourceType: provider.SourceURL, URL: ch.Web.URI, Title: str(ch.Web.Title)}, sourceKey{"url", ch.Web.URI, ""})
		case ch.Image != nil:
			add(provider.Source{SourceType: provider.SourceURL, URL: ch.Image.SourceURI, Title: str(ch.Image.Title)}, sourceKey{"url", ch.Image.SourceURI, ""})
		case ch.RetrievedContext != nil:
			rc := ch.RetrievedContext
			switch {
			case strings.HasPrefix(rc.URI, "http://") || strings.HasPrefix(rc.URI, "https://"):
				add(provider.Source{SourceType: provider.SourceURL, URL: rc.URI, Title: str(rc.Title)}, sourceKey{"url", rc.URI, ""})
			case rc.URI != "":
				title := str(rc.Title)
				if rc.Title == nil {
					title = "Unknown Document"
				}
				add(provider.Source{SourceType: provider.SourceDocument, MediaType: documentType(rc.URI), Title: title, Filename: lastSegment(rc.URI)},
					sourceKey{"document", rc.URI, ""})
			case rc.FileSearchStore != "":
				title := str(rc.Title)
				if rc.Title == nil {
					title = "Unknown Document"
				}
				add(provider.Source{SourceType: provider.SourceDocument, MediaType: "application/octet-stream", Title: title, Filename: lastSegment(rc.FileSearchStore)},
					sourceKey{"file-search", rc.FileSearchStore, title})
			}
		case ch.Maps != nil && ch.Maps.URI != "":
			add(provider.Source{SourceType: provider.SourceURL, URL: ch.Maps.URI, Title: str(ch.Maps.Title)}, sourceKey{"url", ch.Maps.URI, ""})
		}
	}
	return out
}

func lastSegment(s string) string {
	if i := strings.LastIndexByte(s, '/'); i >= 0 {
		return s[i+1:]
	}
	return s
}

// documentType guesses a document's media type from its name.
func documentType(uri string) string {
	switch {
	case strings.HasSuffix(uri, ".pdf"):
		return "application/pdf"
	case strings.HasSuffix(uri, ".txt"):
		return "text/plain"
	case strings.HasSuffix(uri, ".docx"):
		return "application/vnd.openxmlformats-officedocument.wordprocessingml.document"
	case strings.HasSuffix(uri, ".doc"):
		return "application/msword"
	case strings.HasSuffix(uri, ".md"), strings.HasSuffix(uri, ".markdown"):
		return "text/markdown"
	}
	return "application/octet-stream"
}

// hasClientCalls reports whether content holds tool calls the application
// must run.
func hasClientCalls(content []provider.Content) bool {
	for _, c := range content {
		if tc, ok := c.(provider.ToolCall); ok && !tc.ProviderExecuted {
			return true
		}
	}
	return false
}
