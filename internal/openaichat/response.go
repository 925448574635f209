package openaichat

import (
	"encoding/json"
	"github.com/aisdkgo/ai/internal/httpx"
	"github.com/aisdkgo/ai/provider"
)

// chatResponse is a non-streaming chat completion.
type chatResponse struct {
	ID      *string          `json:"id"`
	Created *float64         `json:"created"`
	Model   *string          `json:"model"`
	Choices []responseChoice `json:"choices"`
	Usage   json.RawMessage  `json:"usage"`
}

type responseChoice struct {
	Message      wireMessage     `json:"message"`
	Logprobs     json.RawMessage `json:"logprobs"`
	FinishReason *string         `json:"finish_reason"`
}

// wireMessage is an assistant message or a streamed delta of one.
type wireMessage struct {
	// Content is a string or (Mistral and others) an array of typed parts.
	Content messageContent `json:"content"`
	// Refusal is set instead of content when the model refuses; servers that
	// send a non-string value here are ignored.
	Refusal          json.RawMessage `json:"refusal"`
	ReasoningContent *string         `json:"reasoning_content"`
	Reasoning        *string         `json:"reasoning"`
	Audio            *struct {
		Transcript *string `json:"transcript"`
	} `json:"audio"`
	ToolCalls   []wireToolCall   `json:"tool_calls"`
	Annotations []wireAnnotation `json:"annotations"`
}

type wireToolCall struct {
	Index    *int    `json:"index"`
	ID       *string `json:"id"`
	Type     *string `json:"type"`
	Function *struct {
		Name      *string         `json:"name"`
		Arguments json.RawMessage `json:"arguments"`
	} `json:"function"`
	ExtraContent *struct {
		Google *struct {
			ThoughtSignature *string `json:"thought_signature"`
		} `json:"google"`
	} `json:"extra_content"`
}

func (c wireToolCall) name() *string {
	if c.Function == nil {
		return nil
	}
	return c.Function.Name
}

// arguments returns the argument text; servers that send an object instead
// of a string get it re-encoded.
func (c wireToolCall) arguments() (string, bool) {
	if c.Function == nil || len(c.Function.Arguments) == 0 || string(c.Function.Arguments) == "null" {
		return "", false
	}
	var s string
	if json.Unmarshal(c.Function.Arguments, &s) == nil {
		return s, true
	}
	return compact(c.Function.Arguments), true
}

func (c wireToolCall) thoughtSignature() string {
	if c.ExtraContent != nil && c.ExtraContent.Google != nil && c.ExtraContent.Google.ThoughtSignature != nil {
		return *c.ExtraContent.Google.ThoughtSignature
	}
	return ""
}

type wireAnnotation struct {
	Type        string `json:"type"`
	URLCitation *struct {
		StartIndex *int   `json:"start_index"`
		EndIndex   *int   `json:"end_index"`
		URL        string `json:"url"`
		Title      string `json:"title"`
	} `json:"url_citation"`
}

// contentPiece is a piece of message content: text or reasoning.
type contentPiece struct {
	reasoning bool
	text      string
}

// messageContent is the content of a message: a string, decoded as it is
// read (it can be the whole of a long answer), or anything else, kept raw.
type messageContent struct {
	text  httpx.Text
	other json.RawMessage
}

// UnmarshalJSON implements json.Unmarshaler.
func (c *messageContent) UnmarshalJSON(data []byte) error {
	if len(data) > 0 && data[0] == '"' {
		return c.text.UnmarshalJSON(data)
	}
	if string(data) != "null" {
		c.other = append(json.RawMessage(nil), data...)
	}
	return nil
}

// contentPieces reads message content that is a string or an array of
// {"type": "text", "text"} and {"type": "thinking", "thinking": [{"type":
// "text", "text"}]} parts. Empty pieces are dropped.
func contentPieces(c messageContent) []contentPiece {
	if c.text != "" {
		return []contentPiece{{text: string(c.text)}}
	}
	raw := c.other
	if len(raw) == 0 {
		return nil
	}
	var parts []struct {
		Type     string          `json:"type"`
		Text     json.RawMessage `json:"text"`
		Thinking json.RawMessage `json:"thinking"`
	}
	if json.Unmarshal(raw, &parts) != nil {
		return nil
	}
	var out []contentPiece
	for _, p := range parts {
		switch p.Type {
		case "text":
			var t string
			if json.Unmarshal(p.Text, &t) == nil && t != "" {
				out = append(out, contentPiece{text: t})
			}
		case "thinking":
			var chunks []struct {
				Type string  `json:"type"`
				Text *string `json:"text"`
			}
			if json.Unmarshal(p.Thinking, &chunks) != nil {
				continue
			}
			var r string
			for _, c := range chunks {
				if c.Type == "text" && c.Text != nil {
					r += *c.Text
				}
			}
			if r != "" {
				out = append(out, contentPiece{reasoning: true, text: r})
			}
		}
	}
	return out
}

func refusalText(raw json.RawMessage) string {
	var s string
	if json.Unmarshal(raw, &s) != nil {
		return ""
	}
	return s
}

func reasoningText(m *wireMessage) string {
	if m.ReasoningContent != nil {
		return *m.ReasoningContent
	}
	if m.Reasoning != nil {
		return *m.Reasoning
	}
	return ""
}

// MapFinishReason maps a chat finish reason. A refusal turns "stop" into a
// content filter stop.
func MapFinishReason(raw string, refusal bool) provider.FinishReasonKind {
	switch raw {
	case "stop":
		if refusal {
			return provider.FinishContentFilter
		}
		return provider.FinishStop
	case "length":
		return provider.FinishLength
	case "content_filter":
		return provider.FinishContentFilter
	case "tool_calls", "function_call":
		return provider.FinishToolCalls
	}
	return provider.FinishOther
}

func (m *Model) usage(raw json.RawMessage) provider.Usage {
	if m.s.ConvertUsage != nil {
		if len(raw) == 0 || string(raw) == "null" {
			raw = nil
		}
		return m.s.ConvertUsage(raw)
	}
	return convertUsage(raw)
}

func (m *Model) parseResponse(r *chatResponse, raw []byte, call *preparedCall, resp *httpx.Response) (*provider.GenerateResult, error) {
	if len(r.Choices) == 0 {
		if e, ok := ParseStreamError(raw); ok {
			// An error reported with a successful status is not retried.
			return nil, resp.Fail(e.Message, false, raw, nil)
		}
		return nil, &provider.InvalidResponseDataError{Data: raw, Message: "the response did not contain any choices"}
	}
	choice := &r.Choices[0]
	msg := &choice.Message
	var content []provider.Content
	if rt := reasoningText(msg); rt != "" {
		content = append(content, provider.Reasoning{Text: rt})
	}
	pieces := contentPieces(msg.Content)
	if len(pieces) == 0 && msg.Audio != nil && msg.Audio.Transcript != nil && *msg.Audio.Transcript != "" {
		pieces = []contentPiece{{text: *msg.Audio.Transcript}}
	}
	for _, p := range pieces {
		if p.reasoning {
			content = append(content, provider.Reasoning{Text: p.text})
		} else {
			content = append(content, provider.Text{Text: p.text})
		}
	}
	refusal := refusalText(msg.Refusal)
	if refusal != "" {
		content = append(content, provider.Text{Text: refusal})
	}
	for _, tc := range msg.ToolCalls {
		id := m.s.newID()
		if tc.ID != nil && *tc.ID != "" {
			id = *tc.ID
		}
		name := ""
		if n := tc.name(); n != nil {
			name = *n
		}
		args, _ := tc.arguments()
		part := provider.ToolCall{ToolCallID: id, ToolName: name, Input: args}
		if sig := tc.thoughtSignature(); sig != "" {
			part.ProviderMetadata = provider.ProviderMetadata{call.metaKey: {"thoughtSignature": sig}}
		}
		content = append(content, part)
	}
	for _, a := range msg.Annotations {
		if a.Type == "url_citation" && a.URLCitation != nil {
			content = append(content, provider.Source{SourceType: provider.SourceURL, ID: m.s.newID(),
				URL: a.URLCitation.URL, Title: a.URLCitation.Title})
		}
	}
	meta := map[string]any{}
	predictionMetadata(r.Usage, meta)
	if lp := logprobs(choice.Logprobs); lp != nil {
		meta["logprobs"] = lp
	}
	rawFinish := ""
	if choice.FinishReason != nil {
		rawFinish = *choice.FinishReason
	}
	return &provider.GenerateResult{
		Content:          content,
		FinishReason:     provider.FinishReason{Unified: MapFinishReason(rawFinish, refusal != ""), Raw: rawFinish},
		Usage:            m.usage(r.Usage),
		Warnings:         call.warnings,
		ProviderMetadata: provider.ProviderMetadata{call.metaKey: meta},
		Response:         &provider.ResponseInfo{ID: stringOf(r.ID), ModelID: stringOf(r.Model), Timestamp: timestamp(r.Created)},
	}, nil
}

// logprobs returns the content and refusal token logprobs of a choice.
func logprobs(raw json.RawMessage) []any {
	if len(raw) == 0 || string(raw) == "null" {
		return nil
	}
	var lp struct {
		Content []any `json:"content"`
		Refusal []any `json:"refusal"`
	}
	if json.Unmarshal(raw, &lp) != nil || (lp.Content == nil && lp.Refusal == nil) {
		return nil
	}
	return append(append([]any{}, lp.Content...), lp.Refusal...)
}

func stringOf(p *string) string {
	if p == nil {
		return ""
	}
	return *p
}
