package ai

import (
	"encoding/json"
	"slices"

	"github.com/aisdkgo/ai/provider"
)

// responseMessagesFor builds the messages a step adds to the conversation:
// an assistant message with the model's output (and provider-executed
// results), then a tool message with approval responses and client tool
// results, the results ordered like their calls. states are the step's
// calls, in the order of content. The messages are appended to dst.
func (r *run) responseMessagesFor(dst []Message, s *step, states []*callState, content []ContentPart) ([]Message, error) {
	assistant := make([]AssistantPart, 0, len(content))
	var tool []ToolPart
	if len(states) > 0 {
		tool = make([]ToolPart, 0, len(states))
	}
	// pos returns the position of a call among the step's calls.
	pos := func(id string) int {
		for k, cs := range states {
			if cs.call.ToolCallID == id {
				return k
			}
		}
		return len(states)
	}
	// call finds the call of a result; it is only read.
	call := func(id string) *ToolCall {
		if k := pos(id); k < len(states) {
			return &states[k].call
		}
		return &ToolCall{}
	}
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
			out, err := r.modelOutput(s.ctx, p, call(id))
			if err != nil {
				return nil, err
			}
			tool = append(tool, ToolResultPart{
				ToolCallID: id, ToolName: toolNameOf(p), Output: out, ProviderOptions: providerMetaOf(p),
			})
		}
	}
	if len(tool) > 1 {
		sortToolResults(tool, pos)
	}
	if len(assistant) > 0 {
		dst = append(dst, AssistantMessage{Content: assistant})
	}
	if len(tool) > 0 {
		dst = append(dst, ToolMessage{Content: tool})
	}
	return dst, nil
}

// sortToolResults orders the tool-result parts like their calls (pos gives
// a call's position; unknown calls last), leaving approval responses in
// their slots. Parts already in order are left alone.
func sortToolResults(parts []ToolPart, pos func(id string) int) {
	last, sorted, n := -1, true, 0
	for _, p := range parts {
		if tr, ok := p.(ToolResultPart); ok {
			n++
			k := pos(tr.ToolCallID)
			if k < last {
				sorted = false
			}
			last = k
		}
	}
	if sorted || n < 2 {
		return
	}
	var slots []int
	var results []ToolResultPart
	for i, p := range parts {
		if tr, ok := p.(ToolResultPart); ok {
			slots = append(slots, i)
			results = append(results, tr)
		}
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
