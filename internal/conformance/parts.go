package conformance

import (
	"encoding/json"
	"fmt"
	"time"

	"github.com/aisdkgo/ai/provider"
)

// partJSON holds every field a scripted content or stream part may have.
type partJSON struct {
	Type             string                    `json:"type"`
	ID               string                    `json:"id"`
	Text             string                    `json:"text"`
	Delta            string                    `json:"delta"`
	ToolCallID       string                    `json:"toolCallId"`
	ToolName         string                    `json:"toolName"`
	Input            json.RawMessage           `json:"input"`
	ProviderExecuted bool                      `json:"providerExecuted"`
	Dynamic          bool                      `json:"dynamic"`
	Title            string                    `json:"title"`
	InputEncoding    string                    `json:"inputEncoding"`
	Result           json.RawMessage           `json:"result"`
	IsError          bool                      `json:"isError"`
	Preliminary      bool                      `json:"preliminary"`
	ApprovalID       string                    `json:"approvalId"`
	Kind             string                    `json:"kind"`
	MediaType        string                    `json:"mediaType"`
	Data             json.RawMessage           `json:"data"`
	SourceType       string                    `json:"sourceType"`
	URL              string                    `json:"url"`
	Filename         string                    `json:"filename"`
	Warnings         []provider.Warning        `json:"warnings"`
	ModelID          string                    `json:"modelId"`
	Timestamp        *time.Time                `json:"timestamp"`
	FinishReason     json.RawMessage           `json:"finishReason"`
	Usage            json.RawMessage           `json:"usage"`
	Error            json.RawMessage           `json:"error"`
	RawValue         json.RawMessage           `json:"rawValue"`
	ProviderMetadata provider.ProviderMetadata `json:"providerMetadata"`
}

// toolInput returns a scripted tool call input as JSON text: strings are
// used as they are, other values are encoded.
func toolInput(raw json.RawMessage) string {
	if len(raw) == 0 {
		return ""
	}
	var s string
	if raw[0] == '"' && json.Unmarshal(raw, &s) == nil {
		return s
	}
	return string(raw)
}

func finishReason(raw json.RawMessage) (provider.FinishReason, error) {
	if len(raw) == 0 || string(raw) == "null" {
		return provider.FinishReason{Unified: provider.FinishStop}, nil
	}
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return provider.FinishReason{Unified: provider.FinishReasonKind(s)}, nil
	}
	var o struct {
		Unified string  `json:"unified"`
		Raw     *string `json:"raw"`
	}
	if err := json.Unmarshal(raw, &o); err != nil {
		return provider.FinishReason{}, fmt.Errorf("finishReason: %w", err)
	}
	fr := provider.FinishReason{Unified: provider.FinishReasonKind(o.Unified)}
	if o.Raw != nil {
		fr.Raw = *o.Raw
	}
	return fr, nil
}

func usage(raw json.RawMessage) (provider.Usage, error) {
	var u provider.Usage
	if len(raw) == 0 || string(raw) == "null" {
		return u, nil
	}
	err := json.Unmarshal(raw, &u)
	return u, err
}

func fileData(raw json.RawMessage) provider.FileData {
	if len(raw) == 0 {
		return provider.FileBytes{}
	}
	var s string
	if json.Unmarshal(raw, &s) == nil {
		var b []byte
		if json.Unmarshal(raw, &b) == nil {
			return provider.FileBytes{Data: b}
		}
		return provider.FileURL{URL: s}
	}
	var d struct {
		Type string `json:"type"`
		Data []byte `json:"data"`
		URL  string `json:"url"`
	}
	_ = json.Unmarshal(raw, &d)
	if d.Type == "url" {
		return provider.FileURL{URL: d.URL}
	}
	return provider.FileBytes{Data: d.Data}
}

// parseContent decodes a scripted content part.
func parseContent(raw json.RawMessage) (provider.Content, error) {
	var p partJSON
	if err := json.Unmarshal(raw, &p); err != nil {
		return nil, err
	}
	switch p.Type {
	case "text":
		return provider.Text{Text: p.Text, ProviderMetadata: p.ProviderMetadata}, nil
	case "reasoning":
		return provider.Reasoning{Text: p.Text, ProviderMetadata: p.ProviderMetadata}, nil
	case "tool-call":
		return provider.ToolCall{ToolCallID: p.ToolCallID, ToolName: p.ToolName, Input: toolInput(p.Input),
			ProviderExecuted: p.ProviderExecuted, Dynamic: p.Dynamic, ProviderMetadata: p.ProviderMetadata}, nil
	case "tool-result":
		return provider.ToolResult{ToolCallID: p.ToolCallID, ToolName: p.ToolName, Result: p.Result,
			IsError: p.IsError, Preliminary: p.Preliminary, Dynamic: p.Dynamic, ProviderMetadata: p.ProviderMetadata}, nil
	case "tool-approval-request":
		return provider.ToolApprovalRequest{ApprovalID: p.ApprovalID, ToolCallID: p.ToolCallID, ProviderMetadata: p.ProviderMetadata}, nil
	case "custom":
		return provider.Custom{Kind: p.Kind, ProviderMetadata: p.ProviderMetadata}, nil
	case "file":
		return provider.File{MediaType: p.MediaType, Data: fileData(p.Data), ProviderMetadata: p.ProviderMetadata}, nil
	case "reasoning-file":
		return provider.ReasoningFile{MediaType: p.MediaType, Data: fileData(p.Data), ProviderMetadata: p.ProviderMetadata}, nil
	case "source":
		return provider.Source{SourceType: provider.SourceType(p.SourceType), ID: p.ID, URL: p.URL, MediaType: p.MediaType,
			Title: p.Title, Filename: p.Filename, ProviderMetadata: p.ProviderMetadata}, nil
	}
	return nil, fmt.Errorf("unknown content part type %q", p.Type)
}

// parseChunk decodes a scripted stream part.
func parseChunk(raw json.RawMessage) (provider.StreamPart, error) {
	var p partJSON
	if err := json.Unmarshal(raw, &p); err != nil {
		return nil, err
	}
	switch p.Type {
	case "stream-start":
		return provider.StreamStart{Warnings: p.Warnings}, nil
	case "response-metadata":
		m := provider.ResponseMetadata{ID: p.ID, ModelID: p.ModelID}
		if p.Timestamp != nil {
			m.Timestamp = *p.Timestamp
		}
		return m, nil
	case "text-start":
		return provider.TextStart{ID: p.ID, ProviderMetadata: p.ProviderMetadata}, nil
	case "text-delta":
		return provider.TextDelta{ID: p.ID, Delta: p.Delta, ProviderMetadata: p.ProviderMetadata}, nil
	case "text-end":
		return provider.TextEnd{ID: p.ID, ProviderMetadata: p.ProviderMetadata}, nil
	case "reasoning-start":
		return provider.ReasoningStart{ID: p.ID, ProviderMetadata: p.ProviderMetadata}, nil
	case "reasoning-delta":
		return provider.ReasoningDelta{ID: p.ID, Delta: p.Delta, ProviderMetadata: p.ProviderMetadata}, nil
	case "reasoning-end":
		return provider.ReasoningEnd{ID: p.ID, ProviderMetadata: p.ProviderMetadata}, nil
	case "tool-input-start":
		return provider.ToolInputStart{ID: p.ID, ToolName: p.ToolName, InputEncoding: p.InputEncoding,
			ProviderExecuted: p.ProviderExecuted, Dynamic: p.Dynamic, Title: p.Title, ProviderMetadata: p.ProviderMetadata}, nil
	case "tool-input-delta":
		return provider.ToolInputDelta{ID: p.ID, Delta: p.Delta, ProviderMetadata: p.ProviderMetadata}, nil
	case "tool-input-end":
		return provider.ToolInputEnd{ID: p.ID, ProviderMetadata: p.ProviderMetadata}, nil
	case "finish":
		fr, err := finishReason(p.FinishReason)
		if err != nil {
			return nil, err
		}
		u, err := usage(p.Usage)
		if err != nil {
			return nil, err
		}
		return provider.Finish{FinishReason: fr, Usage: u, ProviderMetadata: p.ProviderMetadata}, nil
	case "ping":
		return provider.Ping{}, nil
	case "raw":
		return provider.Raw{RawValue: p.RawValue}, nil
	case "error":
		return provider.ErrorPart{Err: scriptedError(p.Error)}, nil
	}
	c, err := parseContent(raw)
	if err != nil {
		return nil, err
	}
	sp, ok := c.(provider.StreamPart)
	if !ok {
		return nil, fmt.Errorf("content part %q cannot be streamed", p.Type)
	}
	return sp, nil
}

// scriptedError turns a scripted stream error into a Go error: a string
// stays a string; an object with a message is a provider error; any other
// value keeps its JSON.
func scriptedError(raw json.RawMessage) error {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return stringError(s)
	}
	var o struct {
		Message *string `json:"message"`
	}
	if json.Unmarshal(raw, &o) == nil && o.Message != nil {
		return &streamProviderError{msg: *o.Message}
	}
	return &valueError{raw: raw}
}

// streamProviderError is a provider's error object inside a stream.
type streamProviderError struct{ msg string }

func (e *streamProviderError) Error() string { return e.msg }

// valueError is an error value that is neither a string nor an object with
// a message.
type valueError struct{ raw json.RawMessage }

func (e *valueError) Error() string { return string(e.raw) }

// stringError is a scripted stream error that is a plain string.
type stringError string

func (e stringError) Error() string { return string(e) }
