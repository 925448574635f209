package aitemporal

import (
	"encoding/json"
	"fmt"

	"github.com/aisdkgo/ai/provider"
)

// This file holds the activity payloads. Workflow histories carry only
// data: a model call's options and result, a tool call and its output, all
// as JSON in the TypeScript AI SDK's shape.

// generateInput is the input of the model activity.
type generateInput struct {
	// Model is the name the model is registered under.
	Model   string
	Options *provider.CallOptions
	// Stream, when set, is where the call publishes its deltas.
	Stream *streamTarget
}

type callOptionsJSON struct {
	Prompt           json.RawMessage          `json:"prompt"`
	MaxOutputTokens  *int                     `json:"maxOutputTokens,omitempty"`
	Temperature      *float64                 `json:"temperature,omitempty"`
	TopP             *float64                 `json:"topP,omitempty"`
	TopK             *int                     `json:"topK,omitempty"`
	PresencePenalty  *float64                 `json:"presencePenalty,omitempty"`
	FrequencyPenalty *float64                 `json:"frequencyPenalty,omitempty"`
	Seed             *int                     `json:"seed,omitempty"`
	StopSequences    []string                 `json:"stopSequences,omitempty"`
	ResponseFormat   *provider.ResponseFormat `json:"responseFormat,omitempty"`
	Tools            json.RawMessage          `json:"tools,omitempty"`
	ToolChoice       provider.ToolChoice      `json:"toolChoice"`
	Headers          provider.Header          `json:"headers,omitempty"`
	Reasoning        provider.ReasoningEffort `json:"reasoning,omitempty"`
	ProviderOptions  provider.ProviderOptions `json:"providerOptions,omitempty"`
}

// MarshalJSON writes the model name and the call options.
func (in generateInput) MarshalJSON() ([]byte, error) {
	o := in.Options
	if o == nil {
		o = &provider.CallOptions{}
	}
	prompt, err := json.Marshal(nonNil(o.Prompt))
	if err != nil {
		return nil, fmt.Errorf("prompt: %w", err)
	}
	var tools json.RawMessage
	if o.Tools != nil {
		if tools, err = json.Marshal(o.Tools); err != nil {
			return nil, fmt.Errorf("tools: %w", err)
		}
	}
	return json.Marshal(struct {
		Model   string          `json:"model"`
		Options callOptionsJSON `json:"options"`
		Stream  *streamTarget   `json:"stream,omitempty"`
	}{in.Model, callOptionsJSON{
		Prompt: prompt, MaxOutputTokens: o.MaxOutputTokens, Temperature: o.Temperature, TopP: o.TopP, TopK: o.TopK,
		PresencePenalty: o.PresencePenalty, FrequencyPenalty: o.FrequencyPenalty, Seed: o.Seed,
		StopSequences: o.StopSequences, ResponseFormat: o.ResponseFormat, Tools: tools, ToolChoice: o.ToolChoice,
		Headers: o.Headers, Reasoning: o.Reasoning, ProviderOptions: o.ProviderOptions,
	}, in.Stream})
}

// UnmarshalJSON reads what MarshalJSON writes.
func (in *generateInput) UnmarshalJSON(data []byte) error {
	var v struct {
		Model   string          `json:"model"`
		Options callOptionsJSON `json:"options"`
		Stream  *streamTarget   `json:"stream"`
	}
	if err := json.Unmarshal(data, &v); err != nil {
		return err
	}
	in.Stream = v.Stream
	j := v.Options
	o := &provider.CallOptions{
		MaxOutputTokens: j.MaxOutputTokens, Temperature: j.Temperature, TopP: j.TopP, TopK: j.TopK,
		PresencePenalty: j.PresencePenalty, FrequencyPenalty: j.FrequencyPenalty, Seed: j.Seed,
		StopSequences: j.StopSequences, ResponseFormat: j.ResponseFormat, ToolChoice: j.ToolChoice,
		Headers: j.Headers, Reasoning: j.Reasoning, ProviderOptions: j.ProviderOptions,
	}
	var err error
	if len(j.Prompt) > 0 {
		if o.Prompt, err = provider.UnmarshalMessages(j.Prompt); err != nil {
			return fmt.Errorf("prompt: %w", err)
		}
	}
	if len(j.Tools) > 0 {
		if o.Tools, err = provider.UnmarshalTools(j.Tools); err != nil {
			return fmt.Errorf("tools: %w", err)
		}
	}
	in.Model, in.Options = v.Model, o
	return nil
}

// generateOutput is the result of the model activity. The raw HTTP bodies
// of the request and the response are not kept: they would double the
// size of the history for diagnostics only.
type generateOutput struct {
	Result *provider.GenerateResult
}

type generateResultJSON struct {
	Content          json.RawMessage           `json:"content"`
	FinishReason     provider.FinishReason     `json:"finishReason"`
	Usage            provider.Usage            `json:"usage"`
	Warnings         []provider.Warning        `json:"warnings,omitempty"`
	ProviderMetadata provider.ProviderMetadata `json:"providerMetadata,omitempty"`
	Request          *provider.RequestInfo     `json:"request,omitempty"`
	Response         *provider.ResponseInfo    `json:"response,omitempty"`
}

// MarshalJSON writes the result without the HTTP bodies.
func (out generateOutput) MarshalJSON() ([]byte, error) {
	r := out.Result
	if r == nil {
		r = &provider.GenerateResult{}
	}
	content, err := json.Marshal(nonNil(r.Content))
	if err != nil {
		return nil, fmt.Errorf("content: %w", err)
	}
	j := generateResultJSON{Content: content, FinishReason: r.FinishReason, Usage: r.Usage, Warnings: r.Warnings, ProviderMetadata: r.ProviderMetadata}
	if r.Request != nil && r.Request.URL != "" {
		j.Request = &provider.RequestInfo{URL: r.Request.URL}
	}
	if r.Response != nil {
		resp := *r.Response
		resp.Body = nil
		j.Response = &resp
	}
	return json.Marshal(j)
}

// UnmarshalJSON reads what MarshalJSON writes.
func (out *generateOutput) UnmarshalJSON(data []byte) error {
	var j generateResultJSON
	if err := json.Unmarshal(data, &j); err != nil {
		return err
	}
	content, err := provider.UnmarshalContents(j.Content)
	if err != nil {
		return fmt.Errorf("content: %w", err)
	}
	out.Result = &provider.GenerateResult{Content: content, FinishReason: j.FinishReason, Usage: j.Usage,
		Warnings: j.Warnings, ProviderMetadata: j.ProviderMetadata, Request: j.Request, Response: j.Response}
	return nil
}

// toolInput is the input of the tool activity.
type toolInput struct {
	Agent      string          `json:"agent"`
	ToolName   string          `json:"toolName"`
	ToolCallID string          `json:"toolCallId"`
	Input      json.RawMessage `json:"input"`
	Step       int             `json:"step"`
}

// toolOutput is the result of the tool activity: the output as JSON, or
// where the store keeps it.
type toolOutput struct {
	Output json.RawMessage `json:"output,omitempty"`
	Stored *StoredOutput   `json:"stored,omitempty"`
}

func nonNil[T any](s []T) []T {
	if s == nil {
		return []T{}
	}
	return s
}
