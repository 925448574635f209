package ai

import (
	"encoding/json"
	"slices"

	"github.com/aisdkgo/ai/provider"
)

// responseMessagesFor builds the messages a step adds to the conversation:
// an assistant message with the model's output (and provider-executed
// results), then a tool message with approval responses and client tool
// results, the results ordered like their calls.
func (r *run) responseMessagesFor(s *step, content []ContentPart) ([]Message, error) {
	assistant := make([]AssistantPart, 0, len(content))
	var calls []ToolCall
	for _, p := range content {
		switch p := p.(type) {
		case Text:
			if p.Text == "" && p.ProviderMetadata == nil {
				continue
			}
			assistant = append(assistant, TextPart{Text: p.Text, ProviderOptions: p.ProviderMetadata})
		case Reasoning:
			assistant = append(assistant, ReasoningPart{Text: p.Text, ProviderOptions: p.ProviderMetadata})
		case File:
			assistant = append(assistant, FilePart{Data: fileBytes(p.Data), MediaType: p.MediaType, ProviderOptions: p.ProviderMetadata})
		case ReasoningFile:
			assistant = append(assistant, ReasoningFilePart{Data: fileBytes(p.Data), MediaType: p.MediaType, ProviderOptions: p.ProviderMetadata})
		case Custom:
			assistant = append(assistant, CustomPart{Kind: p.Kind, ProviderOptions: p.ProviderMetadata})
		case ToolCall:
			if calls == nil {
				calls = make([]ToolCall, 0, len(content))
			}
			calls = append(calls, p)
			input := p.Input
			if p.Invalid && !isJSONObjectLike(input) {
				input = json.RawMessage("{}")
			}
			assistant = append(assistant, ToolCallPart{
				ToolCallID:       p.ToolCallID,
				ToolName:         p.ToolName,
				Input:            input,
				ProviderExecuted: p.ProviderExecuted,
				ProviderOptions:  p.ProviderMetadata,
			})
		case ToolResult:
			if p.ProviderExecuted {
				assistant = append(assistant, ToolResultPart{
					ToolCallID: p.ToolCallID, ToolName: p.ToolName,
					Output:          JSONOutput{Value: jsonValue(p.Output)},
					ProviderOptions: p.ProviderMetadata,
				})
			}
		case ToolError:
			if p.ProviderExecuted {
				assistant = append(assistant, ToolResultPart{
					ToolCallID: p.ToolCallID, ToolName: p.ToolName,
					Output:          ErrorJSONOutput{Value: errorJSON(p.Error)},
					ProviderOptions: p.ProviderMetadata,
				})
			}
		case ToolApprovalRequest:
			assistant = append(assistant, ToolApprovalRequestPart{
				ApprovalID:  p.ApprovalID,
				ToolCallID:  p.ToolCall.ToolCallID,
				Reason:      p.Reason,
				IsAutomatic: p.IsAutomatic,
				Signature:   p.Signature,
			})
		}
	}
	var tool []ToolPart
	for _, p := range content {
		switch p := p.(type) {
		case ToolApprovalResponse:
			tool = append(tool, ToolApprovalResponsePart{
				ApprovalID: p.ApprovalID, Approved: p.Approved, Reason: p.Reason, ProviderExecuted: p.ProviderExecuted,
			})
			if !p.Approved {
				tool = append(tool, ToolResultPart{
					ToolCallID: p.ToolCall.ToolCallID, ToolName: p.ToolCall.ToolName,
					Output: ExecutionDeniedOutput{Reason: p.Reason},
				})
			}
		case ToolResult, ToolError:
			if isProviderExecuted(p) {
				continue
			}
			id := callIDOf(p)
			var call ToolCall
			if i := slices.IndexFunc(calls, func(c ToolCall) bool { return c.ToolCallID == id }); i >= 0 {
				call = calls[i]
			}
			out, err := r.modelOutput(s.ctx, p, call)
			if err != nil {
				return nil, err
			}
			tool = append(tool, ToolResultPart{
				ToolCallID: id, ToolName: toolNameOf(p), Output: out, ProviderOptions: providerMetaOf(p),
			})
		}
	}
	sortToolResults(tool, calls)
	msgs := make([]Message, 0, 2)
	if len(assistant) > 0 {
		msgs = append(msgs, AssistantMessage{Content: assistant})
	}
	if len(tool) > 0 {
		msgs = append(msgs, ToolMessage{Content: tool})
	}
	return msgs, nil
}

// sortToolResults orders the tool-result parts like their calls (unknown
// calls last), leaving approval responses in their slots.
func sortToolResults(parts []ToolPart, calls []ToolCall) {
	var slots []int
	var results []ToolResultPart
	for i, p := range parts {
		if tr, ok := p.(ToolResultPart); ok {
			slots = append(slots, i)
			results = append(results, tr)
		}
	}
	if len(results) < 2 {
		return
	}
	pos := func(id string) int {
		if i := slices.IndexFunc(calls, func(c ToolCall) bool { return c.ToolCallID == id }); i >= 0 {
			return i
		}
		return len(calls)
	}
	slices.SortStableFunc(results, func(a, b ToolResultPart) int { return pos(a.ToolCallID) - pos(b.ToolCallID) })
	for k, i := range slots {
		parts[i] = results[k]
	}
}

func isJSONObjectLike(v json.RawMessage) bool {
	for _, c := range v {
		switch c {
		case ' ', '\t', '\n', '\r':
			continue
		case '{', '[', 'n':
			return true
		}
		return false
	}
	return false
}

func isProviderExecuted(p ContentPart) bool {
	switch p := p.(type) {
	case ToolResult:
		return p.ProviderExecuted
	case ToolError:
		return p.ProviderExecuted
	}
	return false
}

func toolNameOf(p ContentPart) string {
	switch p := p.(type) {
	case ToolResult:
		return p.ToolName
	case ToolError:
		return p.ToolName
	}
	return ""
}

func providerMetaOf(p ContentPart) ProviderMetadata {
	switch p := p.(type) {
	case ToolResult:
		return p.ProviderMetadata
	case ToolError:
		return p.ProviderMetadata
	}
	return nil
}

// errorJSON renders an error as a JSON value: a provider's own JSON when it
// has one, else the message as a string.
func errorJSON(err error) json.RawMessage {
	if pe, ok := err.(*ProviderToolError); ok && json.Valid(pe.Value) {
		return pe.Value
	}
	b, _ := json.Marshal(errorText(err))
	return b
}

// fileBytes keeps generated file data as it is; URLs stay URLs and bytes
// stay bytes (they marshal as base64).
func fileBytes(d provider.FileData) provider.FileData {
	if d == nil {
		return provider.FileBytes{}
	}
	return d
}
