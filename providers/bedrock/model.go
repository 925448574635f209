package bedrock

import (
	"context"
	"encoding/json"
	"net/http"
	"net/url"
	"regexp"
	"strings"

	"github.com/aisdkgo/ai/internal/httpx"
	"github.com/aisdkgo/ai/internal/openaichat"
	"github.com/aisdkgo/ai/provider"
)

// languageModel is a model reached through the Converse API. It holds only
// configuration, so it is safe for concurrent use.
type languageModel struct {
	p       *Provider
	modelID string
}

// Provider returns "amazon-bedrock".
func (m *languageModel) Provider() string { return "amazon-bedrock" }

// ModelID returns the model id.
func (m *languageModel) ModelID() string { return m.modelID }

var s3URL = regexp.MustCompile(`^s3://`)

// SupportedURLs reports that images and videos may be passed by s3:// URL.
func (m *languageModel) SupportedURLs(context.Context) (map[string][]*regexp.Regexp, error) {
	return map[string][]*regexp.Regexp{"image/*": {s3URL}, "video/*": {s3URL}}, nil
}

// encodeURIComponent escapes s as JavaScript's encodeURIComponent does.
func encodeURIComponent(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		if 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || strings.IndexByte("-_.!~*'()", c) >= 0 {
			b.WriteByte(c)
		} else {
			b.WriteString("%" + strings.ToUpper(hexByte(c)))
		}
	}
	return b.String()
}

func hexByte(c byte) string {
	const digits = "0123456789abcdef"
	return string([]byte{digits[c>>4], digits[c&15]})
}

// errorMessage reads Bedrock's error body, {"message": ..., "type": ...}.
func errorMessage(body []byte) string {
	var e struct {
		Message *string `json:"message"`
		Type    string  `json:"type"`
	}
	if json.Unmarshal(body, &e) != nil || e.Message == nil {
		return ""
	}
	if e.Type != "" {
		return e.Type + ": " + *e.Message
	}
	return *e.Message
}

// post sends the request of c to the operation ("converse" or
// "converse-stream").
func (m *languageModel) post(ctx context.Context, c *call, op string, headers provider.Header) (*httpx.Response, error) {
	s, err := m.p.session(ctx)
	if err != nil {
		return nil, err
	}
	u := s.base + "/model/" + encodeURIComponent(m.modelID) + "/" + op
	if _, err := url.Parse(u); err != nil {
		return nil, &SettingError{Setting: "baseURL", Message: "invalid Bedrock URL: " + err.Error(), Cause: err}
	}
	return httpx.Post(ctx, httpx.Request{
		Client:       s.client,
		URL:          u,
		Headers:      openaichat.MergeHeaders(s.headers, http.Header(headers)),
		Body:         c.body,
		ErrorMessage: errorMessage,
	})
}

// metadata wraps a provider metadata payload under both keys.
func metadata(payload map[string]any) provider.ProviderMetadata {
	return provider.ProviderMetadata{optionsKey: payload, altOptionsKey: payload}
}

// responseInfo returns the response id and time from the headers.
func responseInfo(h http.Header, modelID string) *provider.ResponseInfo {
	info := &provider.ResponseInfo{ID: h.Get("X-Amzn-Requestid"), ModelID: modelID, Headers: provider.Header(h)}
	if d := h.Get("Date"); d != "" {
		if t, err := http.ParseTime(d); err == nil {
			info.Timestamp = t.UTC()
		}
	}
	return info
}

// usage is Bedrock's usage object.
type usage struct {
	InputTokens           int             `json:"inputTokens"`
	OutputTokens          int             `json:"outputTokens"`
	TotalTokens           *int            `json:"totalTokens,omitempty"`
	CacheReadInputTokens  *int            `json:"cacheReadInputTokens,omitempty"`
	CacheWriteInputTokens *int            `json:"cacheWriteInputTokens,omitempty"`
	CacheDetails          json.RawMessage `json:"cacheDetails,omitempty"`
}

// convertUsage maps Bedrock's usage; input tokens include the cached ones.
func convertUsage(u *usage, raw json.RawMessage) provider.Usage {
	if u == nil {
		return provider.Usage{}
	}
	read, write := 0, 0
	if u.CacheReadInputTokens != nil {
		read = *u.CacheReadInputTokens
	}
	if u.CacheWriteInputTokens != nil {
		write = *u.CacheWriteInputTokens
	}
	return provider.Usage{
		InputTokens: provider.InputTokens{Total: new(u.InputTokens + read + write), NoCache: new(u.InputTokens),
			CacheRead: new(read), CacheWrite: new(write)},
		OutputTokens: provider.OutputTokens{Total: new(u.OutputTokens), Text: new(u.OutputTokens)},
		Raw:          raw,
	}
}

// cacheUsage is the usage part of the provider metadata, or nil.
func cacheUsage(u *usage) map[string]any {
	if u == nil || (u.CacheWriteInputTokens == nil && u.CacheDetails == nil) {
		return nil
	}
	m := map[string]any{}
	if u.CacheWriteInputTokens != nil {
		m["cacheWriteInputTokens"] = *u.CacheWriteInputTokens
	}
	if u.CacheDetails != nil {
		m["cacheDetails"] = u.CacheDetails
	}
	return m
}

// finishReason maps Bedrock's stop reason.
func finishReason(stop string, jsonFromTool bool) provider.FinishReason {
	fr := provider.FinishReason{Raw: stop}
	switch stop {
	case "stop_sequence", "end_turn":
		fr.Unified = provider.FinishStop
	case "max_tokens":
		fr.Unified = provider.FinishLength
	case "content_filtered", "guardrail_intervened":
		fr.Unified = provider.FinishContentFilter
	case "tool_use":
		fr.Unified = provider.FinishToolCalls
		if jsonFromTool {
			fr.Unified = provider.FinishStop
		}
	default:
		fr.Unified = provider.FinishOther
	}
	return fr
}

// converseResponse is the answer of the Converse API.
type converseResponse struct {
	Output *struct {
		Message *struct {
			Content []contentBlock `json:"content"`
			Role    string         `json:"role"`
		} `json:"message"`
	} `json:"output"`
	StopReason                    string          `json:"stopReason"`
	AdditionalModelResponseFields *responseFields `json:"additionalModelResponseFields"`
	Trace                         json.RawMessage `json:"trace"`
	PerformanceConfig             json.RawMessage `json:"performanceConfig"`
	ServiceTier                   json.RawMessage `json:"serviceTier"`
	Usage                         json.RawMessage `json:"usage"`
}

type responseFields struct {
	Delta *struct {
		StopSequence *string `json:"stop_sequence"`
	} `json:"delta"`
}

func (f *responseFields) stopSequence() *string {
	if f == nil || f.Delta == nil {
		return nil
	}
	return f.Delta.StopSequence
}

type contentBlock struct {
	Text             *string `json:"text"`
	CitationsContent *struct {
		Content []struct {
			Text *string `json:"text"`
		} `json:"content"`
	} `json:"citationsContent"`
	ToolUse *struct {
		ToolUseID string          `json:"toolUseId"`
		Name      string          `json:"name"`
		Input     json.RawMessage `json:"input"`
	} `json:"toolUse"`
	ReasoningContent *struct {
		ReasoningText *struct {
			Text      string `json:"text"`
			Signature string `json:"signature"`
		} `json:"reasoningText"`
		RedactedReasoning *struct {
			Data string `json:"data"`
		} `json:"redactedReasoning"`
		RedactedContent *string `json:"redactedContent"`
	} `json:"reasoningContent"`
}

func isNull(raw json.RawMessage) bool {
	return len(raw) == 0 || string(raw) == "null"
}

// Generate runs one Converse call.
func (m *languageModel) Generate(ctx context.Context, opts *provider.CallOptions) (*provider.GenerateResult, error) {
	if opts == nil {
		opts = &provider.CallOptions{}
	}
	c, err := m.prepare(opts)
	if err != nil {
		return nil, err
	}
	resp, err := m.post(ctx, c, "converse", opts.Headers)
	if err != nil {
		return nil, err
	}
	var r converseResponse
	raw, err := resp.ReadJSON(ctx, &r)
	if err != nil {
		return nil, err
	}
	if r.Output == nil || r.Output.Message == nil {
		return nil, resp.Fail("the response has no output message", false, raw,
			&provider.InvalidResponseDataError{Data: raw, Message: "output.message is missing"})
	}
	var u *usage
	if !isNull(r.Usage) {
		u = new(usage)
		if err := json.Unmarshal(r.Usage, u); err != nil {
			return nil, resp.Fail("invalid usage: "+err.Error(), false, raw, &provider.InvalidResponseDataError{Data: raw, Message: err.Error()})
		}
	}
	var content []provider.Content
	jsonFromTool := false
	var extract *jsonObjectText
	if c.jsonText {
		extract = &jsonObjectText{}
	}
	addText := func(text string) {
		if extract != nil {
			text = extract.process(text)
		}
		content = append(content, provider.Text{Text: text})
	}
	for _, b := range r.Output.Message.Content {
		switch {
		case b.Text != nil:
			addText(*b.Text)
		case b.CitationsContent != nil:
			for _, cc := range b.CitationsContent.Content {
				if cc.Text != nil {
					addText(*cc.Text)
				}
			}
		}
		if rc := b.ReasoningContent; rc != nil {
			switch {
			case rc.ReasoningText != nil:
				rp := provider.Reasoning{Text: rc.ReasoningText.Text}
				if rc.ReasoningText.Signature != "" {
					rp.ProviderMetadata = metadata(map[string]any{"signature": rc.ReasoningText.Signature})
				}
				content = append(content, rp)
			case rc.RedactedReasoning != nil:
				content = append(content, provider.Reasoning{ProviderMetadata: metadata(map[string]any{"redactedData": rc.RedactedReasoning.Data})})
			case rc.RedactedContent != nil:
				content = append(content, provider.Reasoning{ProviderMetadata: metadata(map[string]any{"redactedContent": *rc.RedactedContent})})
			}
		}
		if tu := b.ToolUse; tu != nil {
			input := "{}"
			if !isNull(tu.Input) {
				input = compactJSON(tu.Input)
			}
			if c.jsonTool && tu.Name == "json" {
				jsonFromTool = true
				content = append(content, provider.Text{Text: input})
				continue
			}
			id := tu.ToolUseID
			if id == "" {
				id = openaichat.NewID()
			}
			content = append(content, provider.ToolCall{ToolCallID: normalizeToolCallID(id, c.mistral), ToolName: tu.Name, Input: input})
		}
	}
	res := &provider.GenerateResult{
		Content:      content,
		FinishReason: finishReason(r.StopReason, jsonFromTool),
		Usage:        convertUsage(u, r.Usage),
		Warnings:     c.warnings,
		Request:      &provider.RequestInfo{URL: resp.URL, Body: resp.RequestBody},
		Response:     responseInfo(resp.HTTP.Header, m.modelID),
	}
	res.Response.Body = raw
	stop := r.AdditionalModelResponseFields.stopSequence()
	if !isNull(r.Trace) || u != nil || !isNull(r.PerformanceConfig) || !isNull(r.ServiceTier) || jsonFromTool || stop != nil {
		payload := map[string]any{"stopSequence": stop}
		if !isNull(r.Trace) {
			payload["trace"] = r.Trace
		}
		if !isNull(r.PerformanceConfig) {
			payload["performanceConfig"] = r.PerformanceConfig
		}
		if !isNull(r.ServiceTier) {
			payload["serviceTier"] = r.ServiceTier
		}
		if cu := cacheUsage(u); cu != nil {
			payload["usage"] = cu
		}
		if jsonFromTool {
			payload["isJsonResponseFromTool"] = true
		}
		res.ProviderMetadata = metadata(payload)
	}
	return res, nil
}
