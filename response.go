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
// calls, whose records store the parts.
func (r *run) responseMessagesFor(s *step, room stepRoom, states []*callState, content []ContentPart) ([]Message, error) {
	msgs := r.msgsBuf[:0] // copied into the conversation by addMessages
	// The block has room for the usual parts; append makes more when a
	// step has more.
	assistant, tool := room.assistant, room.tool
	// calls holds the positions of the tool calls in content.
	var callBuf [4]int
	calls := callBuf[:0]
	// call finds a call by id; the call is content's, never written.
	call := func(id string) (*ToolCall, int) {
		for k, i := range calls {
			if c := (*ToolCall)(dataOf(content[i])); c.ToolCallID == id {
				return c, k
			}
		}
		return &noCall, len(calls)
	}
	record := func(id string) *callRecord {
		for _, cs := range states {
			if cs.call.ToolCallID == id {
				return cs.rec
			}
		}
		return nil
	}
	for i, p := range content {
		switch p := p.(type) {
		case Text:
			if p.Text == "" && p.ProviderMetadata == nil {
				continue
			}
			assistant = append(assistant, textPart(content[i]))
		case Reasoning:
			assistant = append(assistant, reasoningPart(content[i]))
		case File:
			assistant = append(assistant, FilePart{Data: fileBytes(p.Data), MediaType: p.MediaType, ProviderOptions: p.ProviderMetadata})
		case ReasoningFile:
			assistant = append(assistant, ReasoningFilePart{Data: fileBytes(p.Data), MediaType: p.MediaType, ProviderOptions: p.ProviderMetadata})
		case Custom:
			assistant = append(assistant, CustomPart{Kind: p.Kind, ProviderOptions: p.ProviderMetadata})
		case ToolCall:
			calls = append(calls, i)
			if !p.Invalid || isJSONObjectLike(p.Input) {
				assistant = append(assistant, callPart(content[i]))
				continue
			}
			assistant = append(assistant, ToolCallPart{
				ToolCallID:       p.ToolCallID,
				ToolName:         p.ToolName,
				Input:            json.RawMessage("{}"),
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
			c, _ := call(id)
			rec := record(id)
			out, err := r.modelOutput(s.ctx, p, c, rec)
			if err != nil {
				return nil, err
			}
			tool = append(tool, rec.resultMessagePart(ToolResultPart{
				ToolCallID: id, ToolName: toolNameOf(p), Output: out, ProviderOptions: providerMetaOf(p),
			}))
		}
	}
	if len(tool) > 1 {
		sortToolResults(tool, func(id string) int { _, k := call(id); return k })
	}
	return room.messages(msgs, assistant, tool), nil
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
